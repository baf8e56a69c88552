//! `latlab monitor`: its settings from the command line, run by the one runner.

use crate::cli::MonitorArgs;
use latlab_monitor::experiment::Monitor;
use latlab_monitor::run::MonitorConfig;
use latlab_sys::platform::{Policy, Sched};
use std::path::Path;

pub fn run(db: &Path, strict: bool, a: MonitorArgs) -> anyhow::Result<i32> {
    let cfg = MonitorConfig {
        interval_ns: a.interval,
        window_ns: a.window,
        duration_ns: a.duration,
        schedule: a.schedule,
        load_spinners: a.load_spinners,
        load: a.load,
        load_rate_bps: a.load_rate,
        sched: Sched { policy: Policy::Fifo, priority: a.priority },
        cpu: a.cpu,
        strict,
        probes: a.probes,
        wake: a.wake,
        peer: a.peer,
        key: a.key,
        udp_interval_ns: a.udp_interval,
        udp_wait_ns: a.udp_wait,
        idle_threshold_ns: a.idle_threshold,
        idle_cpu: a.idle_cpu,
        metrics_listen: a.metrics_listen,
    };
    super::measure::<Monitor>(db, cfg)
}
