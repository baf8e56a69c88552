//! The experiments `latlab suite` runs, in order: one line each. Their short configurations,
//! headline figures and skips live in their own crates (see `latlab_core::experiment`).

use latlab_core::experiment::{Short, SuiteEntry};
use latlab_core::selftest::Selftest;
use latlab_display::experiment::{DisplayCache, DisplayCapacity, DisplayLatency, DisplayOps, DisplayPipeline};
use latlab_rt::experiment::Rt;
use latlab_stall::experiment::{Idle, StallCpu, StallMem, StallNet, StallPressure};
use latlab_startup::experiment::{Boot, BootMeasure, StartupBuiltin, StartupPreload};
use latlab_udp::experiment::Udp;

/// Every suite entry, in the order the suite runs them (`strict` from `--strict`).
pub fn experiments(strict: bool) -> Vec<Box<dyn SuiteEntry>> {
    vec![
        Short::<Selftest>::entry(strict),
        Short::<Rt>::entry(strict),
        Short::<Udp>::entry(strict),
        Short::<DisplayOps>::entry(strict),
        Short::<DisplayCache>::entry(strict),
        Short::<DisplayPipeline>::entry(strict),
        Short::<DisplayLatency>::entry(strict),
        Short::<DisplayCapacity>::entry(strict),
        Short::<StallCpu>::entry(strict),
        Short::<Idle>::entry(strict),
        Short::<StallMem>::entry(strict),
        Short::<StallPressure>::entry(strict),
        Short::<StallNet>::entry(strict),
        Short::<Boot>::entry(strict),
        Short::<BootMeasure>::entry(strict),
        Short::<StartupBuiltin>::entry(strict),
        Short::<StartupPreload>::entry(strict),
    ]
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
        assert!(e.iter().all(|x| latlab_core::record::valid_name(x.name())));
        assert!(e.iter().all(|x| x.steps() > 0 || x.name() == "idle" || x.name() == "stall"));
    }
}
