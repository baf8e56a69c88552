//! Checkpoints: a long run hands what it has measured so far to a [`Checkpoint`], which stores
//! it as the run's `incomplete` row every few seconds, so a kill or power cut loses at most
//! the stretch since the last one. The final record later replaces that row under the same id.
//! Checkpoints are taken by the thread that waits for the measuring threads, never inside a
//! timed loop.

use crate::record::{RunRecord, RunStatus};
use crate::store::Store;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where and how often a run checkpoints; `Default` checkpoints nowhere.
#[derive(Clone, Default)]
pub struct Checkpoint {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    db: PathBuf,
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
            Some(i) => write!(f, "Checkpoint({} every {:?})", i.db.display(), i.every),
        }
    }
}

impl Checkpoint {
    /// Checkpoints into the database at `db` every `every` (zero: none).
    pub fn to_database(db: &Path, every: Duration) -> Self {
        if every.is_zero() {
            return Self::default();
        }
        let state = State { id: None, last: Instant::now(), failed: false };
        Self { inner: Some(Arc::new(Inner { db: db.to_path_buf(), every, state: Mutex::new(state) })) }
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
        rec.finish(RunStatus::Incomplete);
        let written = Store::open(&i.db).and_then(|mut st| st.write(s.id, &rec));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_replace_one_row_that_the_final_write_completes() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("c.db");
        let off = Checkpoint::default();
        assert!(!off.due() && !off.save(RunRecord::begin("rt")) && off.id().is_none());
        assert!(Checkpoint::to_database(&db, Duration::ZERO).every().is_none());

        let c = Checkpoint::to_database(&db, Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(2));
        assert!(c.due());
        let mut rec = RunRecord::begin("rt");
        rec.metric("a", 1u64, "count");
        assert!(c.save(rec.clone()));
        rec.metric("b", 2u64, "count");
        assert!(c.save(rec.clone()));
        let id = c.id().unwrap();
        let mut store = Store::open(&db).unwrap();
        assert_eq!(store.list().unwrap().len(), 1, "one row, replaced");
        let back = store.load(id).unwrap();
        assert_eq!(back.status, RunStatus::Incomplete);
        assert_eq!(back.metrics.len(), 2);
        rec.finish(RunStatus::Complete);
        assert_eq!(store.write(Some(id), &rec).unwrap(), id);
        assert_eq!(store.load(id).unwrap().status, RunStatus::Complete);
    }

    #[test]
    fn a_failed_checkpoint_turns_them_off_and_the_run_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the database file should be: every open fails.
        let c = Checkpoint::to_database(dir.path(), Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(2));
        assert!(c.due());
        assert!(!c.save(RunRecord::begin("rt")));
        std::thread::sleep(Duration::from_millis(2));
        assert!(!c.due(), "no more checkpoints after a failure");
        assert!(c.id().is_none());
    }
}
