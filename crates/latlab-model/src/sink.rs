//! The runner's store as a long-running experiment sees it (`latlab monitor`): its own run
//! written and rewritten as it goes, windows appended as they close, and the newest run of
//! its kind read back to resume it. The runner gives one (`latlab_output`'s store); the
//! experiment never opens a database itself.

use crate::error::BoxError;
use crate::record::RunRecord;
use crate::window::WindowRow;

/// Where a long-running experiment keeps its run and its windows.
pub trait RunSink {
    /// The newest stored run of `experiment`, with its id, if there is one.
    fn newest(&mut self, experiment: &str) -> Result<Option<RunRecord>, BoxError>;
    /// Store `rec`, replacing run `id` when given; returns its id.
    fn write(&mut self, id: Option<i64>, rec: &RunRecord) -> Result<i64, BoxError>;
    /// Append closed windows to run `id`.
    fn append_windows(&mut self, id: i64, windows: &[WindowRow]) -> Result<(), BoxError>;
    /// Every window of run `id`, in order.
    fn windows(&mut self, id: i64) -> Result<Vec<WindowRow>, BoxError>;
}

/// A [`RunSink`] as the runner hands it to a run ([`RunContext::runs`](crate::experiment::RunContext::runs)).
pub type SharedRunSink = std::sync::Arc<std::sync::Mutex<dyn RunSink + Send>>;
