//! `latlab rt` and `latlab rt sweep`: the arguments as an `RtConfig`.

use crate::cli::{HistogramFormat, RtArgs, RtCommand, RtCommon};
use latlab_rt::config::{RtConfig, SweepConfig};
use latlab_rt::experiment::Rt;
use std::path::Path;

/// The shared options over `base`.
fn apply_common(c: &RtCommon, strict: bool, base: RtConfig) -> RtConfig {
    let (l1, l2) = latlab_rt::config::levels(c.l1_policy, c.l1_priority, c.arbitration, c.l2_policy, c.l2_priority);
    let mut cfg = RtConfig {
        l1,
        l2,
        signal: c.signal,
        load: c.load.clone(),
        hold_cpu_dma_latency: !c.no_dma_latency,
        throttling: c.rt_throttling,
        lock_memory: !c.no_mlock,
        strict,
        ..base
    };
    if c.no_pin {
        (cfg.l1_cpu, cfg.l2_cpu, cfg.load_cpus) = (None, None, Vec::new());
    } else {
        if let Some(cpu) = c.cpu {
            (cfg.l1_cpu, cfg.l2_cpu, cfg.load_cpus) = (Some(cpu), Some(cpu), vec![cpu]);
        }
        cfg.l1_cpu = c.l1_cpu.or(cfg.l1_cpu);
        cfg.l2_cpu = c.l2_cpu.or(cfg.l2_cpu);
        if let Some(l) = &c.load_cpus {
            cfg.load_cpus = l.clone();
        }
    }
    cfg
}

/// `latlab rt` and `rt sweep` (`rt doctor` is dispatched to `commands::doctor`).
pub fn run(db: &Path, strict: bool, a: RtArgs) -> anyhow::Result<i32> {
    crate::runner::measure::<Rt>(db, config(strict, &a)?)
}

/// The configuration `latlab rt` (or `rt sweep`) runs with these arguments.
pub fn config(strict: bool, a: &RtArgs) -> anyhow::Result<RtConfig> {
    Ok(match &a.command {
        None => RtConfig {
            period_ns: match a.rate {
                Some(r) => latlab_rt::config::period_of_rate(r).map_err(crate::runner::usage)?,
                None => a.period,
            },
            phase_ns: a.duration,
            cyclictest_output: a.histogram_format == HistogramFormat::Cyclictest,
            ..apply_common(&a.common, strict, RtConfig::default())
        },
        Some(RtCommand::Doctor(_)) => {
            return Err(crate::runner::usage(
                "`rt doctor` is not a measurement of its own: run it as `latlab rt doctor`",
            )
            .into());
        }
        Some(RtCommand::Sweep(s)) => RtConfig {
            sweep: Some(SweepConfig {
                start_hz: s.start,
                factor: s.factor,
                max_hz: s.max,
                step_ns: s.step,
                miss_threshold: s.miss_threshold,
                sf_fraction: s.sf_fraction,
            }),
            ..apply_common(&s.common, strict, RtConfig { phases: false, ..RtConfig::default() })
        },
    })
}

/// The configuration a `latlab rt` command line makes, for `latlab tune` (`None`: another command).
pub fn tuned(c: crate::cli::Command, strict: bool) -> anyhow::Result<Option<RtConfig>> {
    match c {
        crate::cli::Command::Rt(r) => config(strict, &r).map(Some),
        _ => Ok(None),
    }
}
