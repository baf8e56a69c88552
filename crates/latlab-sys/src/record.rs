//! Run records stamped by this machine: begun with the time and machine description of now,
//! finished with the time and load of now (the model's record takes both from its caller).

use latlab_model::experiment::ExperimentError;
use latlab_model::record::{RunRecord, RunStatus};

/// A new, empty, `complete` record for `experiment`, started now, machine described now.
pub fn begin(experiment: &str) -> RunRecord {
    RunRecord::new(experiment, crate::clock::unix_now_ns(), crate::machine::describe())
}

/// Finishing a record as of now.
pub trait Finish {
    /// Mark the end now: take the machine's `after` snapshot and set the status.
    fn finish(&mut self, status: RunStatus);
}

impl Finish for RunRecord {
    fn finish(&mut self, status: RunStatus) {
        self.close(status, crate::clock::unix_now_ns(), crate::machine::snapshot());
    }
}

/// A run that did not happen because the machine refused what it needs: stored so a report
/// and the suite's summary say why (status `failed`, `config.skipped` = the reason).
pub fn skipped(experiment: &str, why: &ExperimentError) -> RunRecord {
    let msg = format!("{experiment} skipped: {}", why.chain_text());
    let mut rec = begin(experiment);
    rec.mode = "skipped".into();
    rec.config("skipped", why.chain_text());
    rec.warn(msg);
    rec.finish(RunStatus::Failed);
    rec
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_stamped_with_now_and_this_machine() {
        let mut r = begin("rt");
        assert!(r.started_at_ns > 0 && r.machine.info.cpus >= 1 && r.machine.after.is_none());
        r.finish(RunStatus::Interrupted);
        assert!(r.ended_at_ns >= r.started_at_ns);
        assert!(r.machine.after.is_some());
        assert_eq!(r.status, RunStatus::Interrupted);
    }

    #[test]
    fn a_skipped_run_is_stored_as_failed_with_its_reason() {
        let r = skipped("stall", &ExperimentError::skipped("needs root"));
        assert_eq!(r.status, RunStatus::Failed);
        assert!(r.warnings[0].starts_with("stall skipped: "));
        assert_eq!(r.mode(), "skipped");
    }
}
