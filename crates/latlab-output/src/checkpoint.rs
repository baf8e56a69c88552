//! The store as a run's sinks: checkpoints (the sink a runner gives an experiment's
//! [`Checkpoint`], so a long run's partial record is stored as its `incomplete` row and
//! replaced by the final one), and a long run's own store ([`run_sink`], for the monitor's row
//! and windows), opened on first use so a run that never stores as it goes never opens it.

use crate::store::Store;
use latlab_model::checkpoint::{Checkpoint, RecordSink};
use latlab_model::error::BoxError;
use latlab_model::record::{RunRecord, RunStatus};
use latlab_model::sink::{RunSink, SharedRunSink};
use latlab_model::window::WindowRow;
use latlab_sys::record::Finish;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The database at a path, opened for each checkpoint (a checkpoint every few seconds; the
/// store is never held open across a run).
struct Database(PathBuf);

impl RecordSink for Database {
    fn name(&self) -> String {
        self.0.display().to_string()
    }
    fn save_partial(&self, id: Option<i64>, rec: &mut RunRecord) -> Result<i64, latlab_model::error::BoxError> {
        rec.finish(RunStatus::Incomplete);
        Ok(Store::open(&self.0).and_then(|mut st| st.write(id, rec))?)
    }
}

/// Checkpoints into the database at `db` every `every` (zero: none).
pub fn to_database(db: &Path, every: std::time::Duration) -> Checkpoint {
    Checkpoint::to_sink(Arc::new(Database(db.to_path_buf())), every)
}

/// The database at a path, opened when the run first stores something.
struct LazyStore {
    path: PathBuf,
    store: Option<Store>,
}

impl LazyStore {
    fn get(&mut self) -> Result<&mut Store, BoxError> {
        if self.store.is_none() {
            self.store = Some(Store::open(&self.path)?);
        }
        Ok(self.store.as_mut().expect("opened above"))
    }
}

impl RunSink for LazyStore {
    fn newest(&mut self, experiment: &str) -> Result<Option<RunRecord>, BoxError> {
        RunSink::newest(self.get()?, experiment)
    }
    fn write(&mut self, id: Option<i64>, rec: &RunRecord) -> Result<i64, BoxError> {
        RunSink::write(self.get()?, id, rec)
    }
    fn append_windows(&mut self, id: i64, windows: &[WindowRow]) -> Result<(), BoxError> {
        RunSink::append_windows(self.get()?, id, windows)
    }
    fn windows(&mut self, id: i64) -> Result<Vec<WindowRow>, BoxError> {
        RunSink::windows(self.get()?, id)
    }
}

/// The database at `db` as a long run's own store (`RunContext::runs`), opened on first use.
pub fn run_sink(db: &Path) -> SharedRunSink {
    Arc::new(Mutex::new(LazyStore { path: db.to_path_buf(), store: None }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_model::checkpoint::Checkpoint;
    use latlab_model::record::RunStatus;
    use latlab_sys::record::{Finish, begin};
    use std::time::Duration;

    #[test]
    fn checkpoints_replace_one_row_that_the_final_write_completes() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("c.db");
        let off = Checkpoint::default();
        assert!(!off.due() && !off.save(begin("rt")) && off.id().is_none());
        assert!(to_database(&db, Duration::ZERO).every().is_none());

        let c = to_database(&db, Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(2));
        assert!(c.due());
        let mut rec = begin("rt");
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
    fn a_long_runs_store_is_opened_only_when_it_first_stores() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("lazy.db");
        let sink = run_sink(&db);
        assert!(!db.exists(), "not opened before the run stores");
        let id = sink.lock().unwrap().write(None, &begin("monitor")).unwrap();
        assert!(db.exists());
        assert_eq!(sink.lock().unwrap().newest("monitor").unwrap().and_then(|r| r.id), Some(id));
    }

    #[test]
    fn a_failed_checkpoint_turns_them_off_and_the_run_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        // A directory where the database file should be: every open fails.
        let c = to_database(dir.path(), Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(2));
        assert!(c.due());
        assert!(!c.save(begin("rt")));
        std::thread::sleep(Duration::from_millis(2));
        assert!(!c.due(), "no more checkpoints after a failure");
        assert!(c.id().is_none());
    }
}
