//! `latlab monitor`: settings from the command line, the metrics server, a line per window on
//! stderr, and the run's summary at the end.

use super::{install_interrupt, out, status_code};
use crate::cli::MonitorArgs;
use anyhow::Context;
use latlab_model::numfmt::sig;
use latlab_monitor::export::{self, Exported};
use latlab_monitor::probes::{Echo, Wake};
use latlab_monitor::run::{self, MonitorConfig, Probe};
use latlab_sys::platform::{Policy, Sched};
use latlab_udp::peer::Peer;
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
        probes: a.probes.clone(),
        wake: a.wake.name().to_string(),
        peer: a.peer.clone(),
        udp_interval_ns: a.udp_interval,
        udp_wait_ns: a.udp_wait,
        idle_threshold_ns: a.idle_threshold,
        idle_cpu: a.idle_cpu,
    };
    let schedule = cfg.validate().map_err(super::Usage)?;
    if a.key.is_some() && a.peer.is_none() {
        return Err(super::Usage("--key is the udp peer's: give --peer too".into()).into());
    }
    let wake: Option<Box<dyn Wake>> = if cfg.probes.contains(&Probe::Chain) {
        if a.wake == latlab_rt::signal::SignalKind::None {
            return Err(super::Usage(
                "the chain probe needs a wake path: --wake eventfd, futex, pipe or condvar".into(),
            )
            .into());
        }
        let s = latlab_rt::signal::make(a.wake).with_context(|| format!("cannot make the {} wake path", a.wake))?;
        Some(Box::new(RtWake(s)))
    } else {
        None
    };
    let echo: Option<Box<dyn Echo>> = match &a.peer {
        Some(peer) => {
            let target = std::net::ToSocketAddrs::to_socket_addrs(peer.as_str())
                .map_err(|e| super::Usage(format!("--peer '{peer}': {e}")))?
                .next()
                .ok_or_else(|| super::Usage(format!("--peer '{peer}' names no address")))?;
            let p = Peer::connect(target, latlab_udp::defaults::SIZE, a.key.as_ref().map(|k| k.as_bytes().to_vec()))
                .with_context(|| format!("cannot open a socket to '{peer}'"))?;
            Some(Box::new(UdpPeer(p)))
        }
        None => None,
    };
    install_interrupt()?;
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map_or_else(|_| "unknown".into(), |h| h.trim().to_string());
    let exported = Exported::new(&host);
    let serving = match &a.metrics_listen {
        Some(addr) => Some(export::spawn(addr, exported.clone()).map_err(anyhow::Error::msg)?),
        None => None,
    };
    eprintln!(
        "monitor: {} in windows of {}, schedule {schedule}{}{}{} (Ctrl-C stops)",
        probes_line(&cfg),
        crate::cli::dur(cfg.window_ns),
        if cfg.schedule.trim().is_empty() {
            String::new()
        } else if cfg.load == latlab_monitor::load::LoadKind::Link {
            format!(" (load: a loopback stream at {} Mbit/s)", sig(cfg.load_rate_bps as f64 / 1e6))
        } else {
            format!(" (load: {})", cfg.load.name())
        },
        cfg.duration_ns.map(|d| format!(", for {}", crate::cli::dur(d))).unwrap_or_default(),
        serving.as_ref().map(|s| format!(", metrics on http://{}/metrics", s.addr)).unwrap_or_default(),
    );
    let progress = std::sync::atomic::AtomicU64::new(0);
    let mut store = super::open_store(db)?;
    let rec = run::run(&cfg, &mut store, &exported, &progress, echo, wake, &mut |line| eprintln!("{line}"))?;
    drop(serving);
    eprintln!("stored monitor run #{} in {}", rec.id.unwrap_or(0), db.display());
    out(&latlab_output::export::markdown(&rec))?;
    Ok(status_code(&rec))
}

/// latlab-udp's peer as the monitor's [`Echo`] (the monitor crate knows no experiment crate).
struct UdpPeer(Peer);

impl Echo for UdpPeer {
    fn send(&mut self, seq: u64) -> std::io::Result<()> {
        self.0.send(seq)
    }
    fn poll(&mut self) -> std::io::Result<Option<(u64, u64)>> {
        self.0.poll()
    }
    fn refused(&self) -> u64 {
        self.0.refused()
    }
}

/// latlab-rt's wake paths as the monitor's [`Wake`].
struct RtWake(Box<dyn latlab_rt::signal::Signal>);

impl Wake for RtWake {
    fn notify(&self) {
        self.0.notify()
    }
    fn wait(&self) {
        self.0.wait()
    }
}

/// What runs, for the first line.
fn probes_line(cfg: &MonitorConfig) -> String {
    cfg.probes
        .iter()
        .map(|p| match p {
            Probe::Rt => format!("timer probe every {}", crate::cli::dur(cfg.interval_ns)),
            Probe::Chain => format!("its second level woken by {}", cfg.wake),
            Probe::Idle => format!("idle probe (gaps over {})", crate::cli::dur(cfg.idle_threshold_ns)),
            Probe::Udp => format!(
                "udp probe to {} every {}",
                cfg.peer.as_deref().unwrap_or("?"),
                crate::cli::dur(cfg.udp_interval_ns)
            ),
        })
        .collect::<Vec<_>>()
        .join(", ")
}
