//! `latlab stall` (CPU, mem, net) and `latlab idle` from the arguments.

use crate::cli::{IdleArgs, StallArgs, StallCommand};
use crate::runner::measure;
use latlab_stall::cpu::CpuConfig;
use latlab_stall::experiment::{Idle, StallCpu, StallMem, StallNet, StallPressure};
use latlab_stall::idle::IdleConfig;
use latlab_stall::mem::MemConfig;
use latlab_stall::net::NetConfig;
use latlab_stall::pressure::PressureConfig;
use std::path::Path;

pub fn stall(db: &Path, a: StallArgs) -> anyhow::Result<i32> {
    match a.command {
        Some(StallCommand::Net(n)) => measure::<StallNet>(
            db,
            NetConfig {
                rate_bps: n.rate,
                loads: n.loads,
                step_seconds: n.step / 1_000_000_000,
                probe_interval_ns: n.probe_interval,
                queue_packets: n.queue,
                repeats: n.repeats,
            },
        ),
        Some(StallCommand::Mem(m)) => measure::<StallMem>(
            db,
            MemConfig {
                working_set_mib: m.working_set,
                trials: m.trials,
                allow_swapfile: !m.no_swapfile,
                swap_dir: m.swap_dir,
                ..MemConfig::default()
            },
        ),
        Some(StallCommand::Pressure(p)) => measure::<StallPressure>(db, pressure_config(p)),
        None => measure::<StallCpu>(
            db,
            CpuConfig {
                loads: a.loads,
                policies: a.policies,
                seconds: whole_seconds(a.duration, a.seconds, latlab_stall::defaults::SECONDS),
                interval_ns: a.interval,
                work_ns: a.work,
                fifo_probe: !a.no_fifo,
            },
        ),
    }
}

pub fn idle(db: &Path, a: IdleArgs) -> anyhow::Result<i32> {
    let seconds = whole_seconds(a.duration, a.seconds, latlab_stall::defaults::IDLE_SECONDS);
    measure::<Idle>(db, IdleConfig { seconds, threshold_ns: a.threshold, cpu: a.cpu, with: a.with })
}

/// `--duration` (or the old `--seconds`) in whole seconds (0 is refused by the configuration).
fn whole_seconds(duration: Option<u64>, seconds: Option<f64>, default: u64) -> u64 {
    crate::cli::seconds_of(duration, seconds, ("duration", "seconds"), default as f64).round() as u64
}

/// The configuration `latlab stall pressure` runs with these arguments.
pub fn pressure_config(p: crate::cli::StallPressure) -> PressureConfig {
    PressureConfig {
        limit_mib: p.limit,
        server_mib: p.server,
        demands: p.demands,
        trials: p.trials,
        idle_ms: match p.idle_ms {
            Some(ms) => {
                crate::cli::old_spelling(&format!("--idle-ms {ms}"), &format!("--idle {ms}ms"));
                ms
            }
            None => p.idle / 1_000_000,
        },
        allow_swapfile: !p.no_swapfile,
        swap_dir: p.swap_dir,
        hog_limit_mib: p.hog_limit,
        server_low_mib: p.server_low,
    }
}

/// The configuration a `latlab stall pressure` command line makes, for `latlab tune`.
pub fn tuned_pressure(c: crate::cli::Command, _strict: bool) -> anyhow::Result<Option<PressureConfig>> {
    Ok(match c {
        crate::cli::Command::Stall(s) => match s.command {
            Some(crate::cli::StallCommand::Pressure(p)) => Some(pressure_config(p)),
            _ => None,
        },
        _ => None,
    })
}
