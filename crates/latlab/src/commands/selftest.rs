//! `latlab selftest`: run the clock/timer self-check, store it, print its summary.

use super::{install_interrupt, store_and_print};
use crate::cli::SelftestArgs;
use latlab_core::progress::Progress;
use latlab_core::selftest::{self, SelftestConfig};
use std::path::Path;

pub fn run(db: &Path, strict: bool, a: SelftestArgs) -> anyhow::Result<i32> {
    if a.samples == 0 {
        anyhow::bail!("--samples must be at least 1");
    }
    let cfg = SelftestConfig {
        sleep_samples: a.samples,
        sweep_samples: (a.samples / 2).max(1),
        fifo_priority: a.fifo_priority,
        hold_cpu_dma_latency: !a.no_dma_latency,
        lock_memory: !a.no_mlock,
        strict,
        ..SelftestConfig::full()
    };
    install_interrupt()?;
    eprintln!("selftest: measuring (Ctrl-C stops and keeps what was measured)");
    let progress = Progress::new("selftest", cfg.total_steps());
    let result = selftest::run(&cfg, Some(progress.counter()));
    progress.finish();
    let rec = result?;
    store_and_print(db, rec)
}
