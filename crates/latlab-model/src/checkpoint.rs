//! Checkpoints: a long run hands what it has measured so far to a [`Checkpoint`], which hands
//! it to the sink the runner gave (the store, in `latlab_output`) as the run's `incomplete`
//! row every few seconds, so a kill or power cut loses at most
//! the stretch since the last one. The final record later replaces that row under the same id.
//! Checkpoints are taken by the thread that waits for the measuring threads, never inside a
//! timed loop.

use crate::record::RunRecord;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where and how often a run checkpoints; `Default` checkpoints nowhere.
#[derive(Clone, Default)]
pub struct Checkpoint {
    inner: Option<Arc<Inner>>,
}

/// Where checkpoints go: the runner's store.
pub trait RecordSink: Send + Sync {
    /// Where, for messages.
    fn name(&self) -> String;
    /// Mark `rec` as the run so far (status `incomplete`, ended now) and store it, replacing
    /// the row `id` when given; returns the row's id.
    fn save_partial(&self, id: Option<i64>, rec: &mut RunRecord) -> Result<i64, crate::error::BoxError>;
}

struct Inner {
    sink: Arc<dyn RecordSink>,
    every: Duration,
    state: Mutex<State>,
}

struct State {
    /// The run's row once the first checkpoint wrote it.
    id: Option<i64>,
    /// When the last checkpoint was taken (or the handle made).
    last: Instant,
    /// Set after a failed write: said once, then checkpoints stop (the final write reports).
    failed: bool,
}

impl std::fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner {
            None => write!(f, "Checkpoint(off)"),
            Some(i) => write!(f, "Checkpoint({} every {:?})", i.sink.name(), i.every),
        }
    }
}

impl Checkpoint {
    /// Checkpoints into `sink` every `every` (zero: none).
    pub fn to_sink(sink: Arc<dyn RecordSink>, every: Duration) -> Self {
        if every.is_zero() {
            return Self::default();
        }
        let state = State { id: None, last: Instant::now(), failed: false };
        Self { inner: Some(Arc::new(Inner { sink, every, state: Mutex::new(state) })) }
    }

    /// The interval, if checkpoints are on.
    pub fn every(&self) -> Option<Duration> {
        self.inner.as_ref().map(|i| i.every)
    }

    /// True when a checkpoint is due (on, not failed, `every` since the last).
    pub fn due(&self) -> bool {
        self.inner.as_ref().is_some_and(|i| {
            let s = i.state.lock().unwrap_or_else(|p| p.into_inner());
            !s.failed && s.last.elapsed() >= i.every
        })
    }

    /// Store `rec` as the run so far (status `incomplete`, ended now). A failed write is said
    /// once on stderr and turns checkpoints off; the run goes on. Returns whether it was stored.
    pub fn save(&self, mut rec: RunRecord) -> bool {
        let Some(i) = &self.inner else { return false };
        let mut s = i.state.lock().unwrap_or_else(|p| p.into_inner());
        if s.failed {
            return false;
        }
        let written = i.sink.save_partial(s.id, &mut rec);
        s.last = Instant::now();
        match written {
            Ok(id) => {
                s.id = Some(id);
                true
            }
            Err(e) => {
                s.failed = true;
                eprintln!("latlab: checkpoint of the {} run not stored, the run goes on without: {e}", rec.experiment);
                false
            }
        }
    }

    /// The run's row the checkpoints wrote, for the final record to replace.
    pub fn id(&self) -> Option<i64> {
        self.inner.as_ref().and_then(|i| i.state.lock().unwrap_or_else(|p| p.into_inner()).id)
    }
}
