//! `latlab stall` and `latlab idle`.

use super::{install_interrupt, store_and_print};
use crate::cli::{IdleArgs, StallArgs, StallCommand, StallMem, StallNet};
use latlab_core::progress::Progress;
use latlab_stall::cpu::{CpuConfig, parse_sched, run_cpu};
use latlab_stall::idle::{IdleConfig, run_idle};
use latlab_stall::mem::{MemConfig, run_mem};
use latlab_stall::net::{NetConfig, run_net};
use std::path::Path;

pub fn stall(db: &Path, a: StallArgs) -> anyhow::Result<i32> {
    match a.command {
        Some(StallCommand::Net(n)) => return net(db, n),
        Some(StallCommand::Mem(m)) => return mem(db, m),
        None => {}
    }
    let cfg = CpuConfig {
        loads: a.loads,
        policies: a
            .policies
            .iter()
            .map(|n| {
                parse_sched(n)
                    .ok_or_else(|| anyhow::anyhow!("unknown policy '{n}' (one of: other, batch, idle, niceN)"))
            })
            .collect::<anyhow::Result<_>>()?,
        seconds: a.seconds,
        interval_ns: a.interval,
        work_ns: a.work,
        fifo_probe: !a.no_fifo,
    };
    cfg.validate()?;
    install_interrupt()?;
    eprintln!(
        "stall: {} load levels × {} policies, {} s each (about {} s); Ctrl-C stops and keeps what was measured",
        cfg.loads.len(),
        cfg.policies.len(),
        cfg.seconds,
        cfg.steps() * (cfg.seconds + 1)
    );
    let progress = Progress::new("stall", cfg.steps());
    let result = run_cpu(&cfg, progress.counter());
    progress.finish();
    let rec = result?;
    store_and_print(db, rec)
}

pub fn idle(db: &Path, a: IdleArgs) -> anyhow::Result<i32> {
    let cfg = IdleConfig { seconds: a.seconds, threshold_ns: a.threshold, cpu: a.cpu, with: a.with };
    install_interrupt()?;
    eprintln!(
        "idle: watching CPU {} for {} s{}",
        cfg.cpu.map_or("(last)".to_string(), |c| c.to_string()),
        cfg.seconds,
        cfg.with.as_ref().map_or(String::new(), |c| format!(", then again while `{c}` runs"))
    );
    let rec = run_idle(&cfg).map_err(|e| anyhow::anyhow!(e))?;
    store_and_print(db, rec)
}

fn net(db: &Path, n: StallNet) -> anyhow::Result<i32> {
    let cfg = NetConfig {
        rate_bps: n.rate,
        loads: n.loads,
        step_seconds: n.step,
        probe_interval_ns: n.probe_interval,
        queue_packets: n.queue,
    };
    cfg.validate()?;
    install_interrupt()?;
    eprintln!(
        "stall net: {} load steps of {} s on a {:.1} Mbit/s link between two network namespaces (removed afterwards)",
        cfg.loads.len(),
        cfg.step_seconds,
        cfg.rate_bps as f64 / 1e6
    );
    let progress = Progress::new("stall net", cfg.loads.len() as u64);
    let result = run_net(&cfg, progress.counter());
    progress.finish();
    let rec = result?;
    store_and_print(db, rec)
}

fn mem(db: &Path, m: StallMem) -> anyhow::Result<i32> {
    let cfg = MemConfig {
        working_set_mib: m.working_set,
        trials: m.trials,
        allow_swapfile: !m.no_swapfile,
        swap_dir: m.swap_dir,
        ..MemConfig::full()
    };
    install_interrupt()?;
    eprintln!(
        "stall mem: {} trials with a {} MiB working set paged out to swap between keystrokes",
        cfg.trials, cfg.working_set_mib
    );
    let rec = run_mem(&cfg)?;
    store_and_print(db, rec)
}
