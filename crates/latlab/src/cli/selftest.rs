//! `latlab selftest`'s command line: its arguments and the configuration they make.

use super::ExperimentCli;
use clap::Args;
use latlab_selftest::{Selftest, SelftestConfig};

/// `latlab selftest`'s arguments.
#[derive(Debug, Args)]
pub struct SelftestArgs {
    /// Wake-ups per sleep-accuracy case [1 or more].
    #[arg(long, default_value_t = latlab_selftest::SelftestConfig::default().sleep_samples)]
    pub samples: usize,
    /// SCHED_FIFO priority to ask for (1–99).
    #[arg(long, default_value_t = latlab_selftest::SelftestConfig::default().fifo_priority)]
    pub fifo_priority: i32,
    /// Leave /dev/cpu_dma_latency at the system default instead of holding it at 0.
    #[arg(long)]
    pub no_dma_latency: bool,
    /// Do not lock memory (mlockall).
    #[arg(long)]
    pub no_mlock: bool,
}

impl ExperimentCli for SelftestArgs {
    type E = Selftest;
    const HELP: &'static str = "Measure how far this machine's clock and timers can be trusted, and what scheduling it grants. Stored as a run.";

    fn config(self, strict: bool) -> SelftestConfig {
        SelftestConfig {
            sleep_samples: self.samples,
            sweep_samples: (self.samples / 2).max(1),
            fifo_priority: self.fifo_priority,
            hold_cpu_dma_latency: !self.no_dma_latency,
            lock_memory: !self.no_mlock,
            strict,
            ..SelftestConfig::default()
        }
    }
}
