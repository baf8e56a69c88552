//! `latlab selftest`: the clock/timer self-check from the arguments.

use crate::cli::SelftestArgs;
use latlab_selftest::{Selftest, SelftestConfig};
use std::path::Path;

pub fn run(db: &Path, strict: bool, a: SelftestArgs) -> anyhow::Result<i32> {
    let cfg = SelftestConfig {
        sleep_samples: a.samples,
        sweep_samples: (a.samples / 2).max(1),
        fifo_priority: a.fifo_priority,
        hold_cpu_dma_latency: !a.no_dma_latency,
        lock_memory: !a.no_mlock,
        strict,
        ..SelftestConfig::default()
    };
    super::measure::<Selftest>(db, cfg)
}
