//! `latlab monitor`: settings from the command line, the metrics server, a line per window on
//! stderr, and the run's summary at the end.

use super::{install_interrupt, out, status_code};
use crate::cli::MonitorArgs;
use latlab_core::platform::{Policy, Sched};
use latlab_monitor::export::{self, Exported};
use latlab_monitor::run::{self, MonitorConfig};
use std::path::Path;

pub fn run(db: &Path, strict: bool, a: MonitorArgs) -> anyhow::Result<i32> {
    if !(1..=99).contains(&a.priority) {
        return Err(super::Usage("--priority must be 1–99".into()).into());
    }
    let cfg = MonitorConfig {
        interval_ns: a.interval,
        window_ns: a.window,
        duration_ns: a.duration,
        schedule: a.schedule,
        load_spinners: a.load_spinners,
        sched: Sched { policy: Policy::Fifo, priority: a.priority },
        cpu: a.cpu,
        strict,
    };
    let schedule = cfg.validate().map_err(super::Usage)?;
    install_interrupt()?;
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map_or_else(|_| "unknown".into(), |h| h.trim().to_string());
    let exported = Exported::new(&host);
    let serving = match &a.metrics_listen {
        Some(addr) => Some(export::spawn(addr, exported.clone()).map_err(anyhow::Error::msg)?),
        None => None,
    };
    eprintln!(
        "monitor: timer probe every {} in windows of {}, schedule {schedule}{}{} (Ctrl-C stops)",
        crate::cli::dur(cfg.interval_ns),
        crate::cli::dur(cfg.window_ns),
        cfg.duration_ns.map(|d| format!(", for {}", crate::cli::dur(d))).unwrap_or_default(),
        serving.as_ref().map(|s| format!(", metrics on http://{}/metrics", s.addr)).unwrap_or_default(),
    );
    let progress = std::sync::atomic::AtomicU64::new(0);
    let rec = run::run(&cfg, db, &exported, &progress, &mut |line| eprintln!("{line}"))?;
    drop(serving);
    eprintln!("stored monitor run #{} in {}", rec.id.unwrap_or(0), db.display());
    out(&latlab_core::export::markdown(&rec))?;
    Ok(status_code(&rec))
}
