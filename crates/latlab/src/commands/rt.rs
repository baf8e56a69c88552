//! `latlab rt` and `latlab rt sweep`: turn the arguments into an `RtConfig`, run, store,
//! print the summary (or cyclictest's histogram text).

use super::{install_interrupt, out, save, status_code};
use crate::cli::{RtArgs, RtCommand, RtCommon};
use latlab_core::export::markdown;
use latlab_core::platform::{Policy, Sched};
use latlab_core::progress::Progress;
use latlab_rt::config::{RtConfig, SweepConfig};
use std::path::Path;

fn sched(policy: &str, priority: i32) -> anyhow::Result<Sched> {
    let policy: Policy = policy.parse().map_err(anyhow::Error::msg)?;
    Ok(Sched { policy, priority: if policy.is_realtime() { priority } else { 0 } })
}

/// Apply the shared options to a configuration.
pub fn apply_common(c: &RtCommon, strict: bool, base: RtConfig) -> anyhow::Result<RtConfig> {
    let mut cfg = base;
    cfg.l1 = sched(&c.l1_policy, c.l1_priority)?;
    cfg.l2 = sched(&c.l2_policy, c.l2_priority)?;
    cfg.signal = c.signal.parse().map_err(anyhow::Error::msg)?;
    cfg.load = c.load.parse().map_err(|e: String| anyhow::anyhow!("--load: {e}"))?;
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
    cfg.hold_cpu_dma_latency = !c.no_dma_latency;
    cfg.lock_memory = !c.no_mlock;
    cfg.strict = strict;
    Ok(cfg)
}

pub fn run(db: &Path, strict: bool, a: RtArgs) -> anyhow::Result<i32> {
    let cfg = match &a.command {
        None => {
            let mut cfg = apply_common(&a.common, strict, RtConfig::default())?;
            if let Some(p) = a.period {
                cfg.period_ns = p;
            }
            if let Some(r) = a.rate {
                if !(r > 0.0 && r <= 1e6) {
                    anyhow::bail!("--rate {r} must be in (0, 1000000] Hz");
                }
                cfg.period_ns = (1e9 / r).round() as u64;
            }
            if let Some(d) = a.duration {
                cfg.phase_ns = d;
            }
            cfg
        }
        Some(RtCommand::Sweep(s)) => {
            let base = RtConfig { phases: false, ..RtConfig::default() };
            let mut cfg = apply_common(&s.common, strict, base)?;
            let d = SweepConfig::default();
            cfg.sweep = Some(SweepConfig {
                start_hz: s.start,
                factor: s.factor,
                max_hz: s.max,
                step_ns: s.step.unwrap_or(d.step_ns),
                miss_threshold: s.miss_threshold,
                sf_fraction: s.sf_fraction,
            });
            cfg
        }
    };
    cfg.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
    install_interrupt()?;
    eprintln!(
        "rt: level 1 {} → level 2 {} via {}, load {}, CPUs l1 {:?} l2 {:?} load {:?} (Ctrl-C stops and keeps what was measured)",
        cfg.l1, cfg.l2, cfg.signal, cfg.load, cfg.l1_cpu, cfg.l2_cpu, cfg.load_cpus
    );
    let progress = Progress::new("rt", cfg.total_steps());
    let result = latlab_rt::run(&cfg, progress.counter());
    progress.finish();
    let mut outcome = result?;
    save(db, &mut outcome.record)?;
    if a.histogram_format == "cyclictest" {
        out(&outcome.cyclictest_histogram())?;
    } else {
        out(&markdown(&outcome.record))?;
    }
    Ok(status_code(&outcome.record))
}
