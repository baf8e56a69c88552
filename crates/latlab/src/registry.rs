//! Every experiment, in the order `latlab suite` runs those it runs: one line each. Their short configurations,
//! headline figures and skips live in their own crates (see `latlab_model::experiment`).

use latlab_display::experiment::{DisplayCache, DisplayCapacity, DisplayLatency, DisplayOps, DisplayPipeline};
use latlab_model::experiment::{Short, SuiteEntry};
use latlab_model::figure::Figure;
use latlab_model::record::RunRecord;
use latlab_monitor::experiment::Monitor;
use latlab_rt::experiment::Rt;
use latlab_selftest::Selftest;
use latlab_stall::experiment::{Idle, StallCpu, StallMem, StallNet, StallPressure};
use latlab_startup::experiment::{Boot, BootMeasure, StartupBuiltin, StartupPreload};
use latlab_udp::experiment::Udp;

/// Every experiment, in the order the suite runs them (`strict` from `--strict`); the suite
/// runs those with short configurations (`SuiteEntry::in_suite`).
pub fn experiments(strict: bool) -> Vec<Box<dyn SuiteEntry>> {
    experiments_for(strict, false)
}

/// Every suite entry, scaled down for a small board when `small` (`Experiment::small`).
pub fn experiments_for(strict: bool, small: bool) -> Vec<Box<dyn SuiteEntry>> {
    vec![
        Short::<Selftest>::entry_for(strict, small),
        Short::<Rt>::entry_for(strict, small),
        Short::<Udp>::entry_for(strict, small),
        Short::<DisplayOps>::entry_for(strict, small),
        Short::<DisplayCache>::entry_for(strict, small),
        Short::<DisplayPipeline>::entry_for(strict, small),
        Short::<DisplayLatency>::entry_for(strict, small),
        Short::<DisplayCapacity>::entry_for(strict, small),
        Short::<StallCpu>::entry_for(strict, small),
        Short::<Idle>::entry_for(strict, small),
        Short::<StallMem>::entry_for(strict, small),
        Short::<StallPressure>::entry_for(strict, small),
        Short::<StallNet>::entry_for(strict, small),
        Short::<Boot>::entry_for(strict, small),
        Short::<BootMeasure>::entry_for(strict, small),
        Short::<StartupBuiltin>::entry_for(strict, small),
        Short::<StartupPreload>::entry_for(strict, small),
        Short::<Monitor>::entry_for(strict, small),
    ]
}

/// The study figures of a stored run: those every entry of its experiment declares
/// (`Experiment::figures`).
pub fn figures(entries: &[Box<dyn SuiteEntry>], r: &RunRecord) -> Vec<Figure> {
    entries.iter().filter(|e| e.name() == r.experiment).flat_map(|e| e.figures(r)).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn entries_are_unique_and_names_valid() {
        let e = super::experiments(false);
        let mut keys: Vec<_> = e.iter().map(|x| (x.name(), x.mode())).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), e.len());
        assert!(e.iter().all(|x| latlab_model::record::valid_name(x.name())));
        assert!(e.iter().all(|x| x.steps() > 0 || x.name() == "idle" || x.name() == "stall" || !x.in_suite()));
        // Only the monitor, which runs for days, stays out of the suite.
        let out: Vec<_> = e.iter().filter(|x| !x.in_suite()).map(|x| x.name()).collect();
        assert_eq!(out, ["monitor"]);
    }

    #[test]
    fn a_small_board_gets_the_same_entries_scaled_down() {
        let full = super::experiments_for(false, false);
        let small = super::experiments_for(false, true);
        let names = |v: &[Box<dyn latlab_model::experiment::SuiteEntry>]| {
            v.iter().map(|e| (e.name(), e.mode())).collect::<Vec<_>>()
        };
        assert_eq!(names(&full), names(&small));
        for (f, s) in full.iter().zip(&small) {
            assert!(s.steps() <= f.steps(), "{} {} grew on a small board", f.name(), f.mode());
        }
        // Fewer capacity levels and stall loads: fewer steps.
        let steps = |v: &[Box<dyn latlab_model::experiment::SuiteEntry>], name: &str, mode: &str| {
            v.iter().find(|e| e.name() == name && e.mode() == mode).map(|e| e.steps()).unwrap()
        };
        assert!(steps(&small, "display", "capacity") < steps(&full, "display", "capacity"));
        assert!(steps(&small, "stall", "cpu") < steps(&full, "stall", "cpu"));
    }
}
