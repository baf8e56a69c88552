//! The monitor as an experiment the one runner drives: its settings checked in `validate`, the
//! line said before it starts, and a run that writes its row and windows into the store the
//! runner gives (`RunContext::runs`), serves them for Prometheus, and hands its final record
//! back for the runner to print and turn into an exit code. Not a suite entry: it runs for days.

use crate::export::{self, Exported};
use crate::probes::{Echo, Wake};
use crate::run;
use crate::settings::{MonitorConfig, MonitorError, Probe};
use latlab_model::experiment::{Experiment, ExperimentError, Outcome, RunContext};
use latlab_model::numfmt::sig;
use latlab_udp_probe::peer::Peer;

/// `latlab monitor`.
pub struct Monitor;

impl Experiment for Monitor {
    type Config = MonitorConfig;
    const NAME: &'static str = "monitor";
    const DOCS: &'static str = "docs/experiments/monitor.md";
    const ABOUT: &'static str = "probes run for days in windows stored as they close, exported to Prometheus";

    /// None: a monitor runs until Ctrl-C or `--duration`, which the suite has no use for.
    fn suite_configs(_strict: bool) -> Vec<MonitorConfig> {
        Vec::new()
    }

    fn validate(cfg: &MonitorConfig) -> Result<(), latlab_model::ConfigError> {
        cfg.validate().map(|_| ())
    }

    /// One per window of each probe, when the run has a duration.
    fn steps(cfg: &MonitorConfig) -> u64 {
        cfg.duration_ns.map_or(0, |d| d.div_ceil(cfg.window_ns) * cfg.probes.len() as u64)
    }

    fn announce(cfg: &MonitorConfig) -> String {
        let schedule = cfg.validate().map(|s| s.to_string()).unwrap_or_default();
        format!(
            "monitor: {} in windows of {}, schedule {schedule}{}{} (Ctrl-C stops)",
            probes_line(cfg),
            dur(cfg.window_ns),
            if cfg.schedule.trim().is_empty() {
                String::new()
            } else if cfg.load == crate::load::LoadKind::Link {
                format!(" (load: a loopback stream at {} Mbit/s)", sig(cfg.load_rate_bps as f64 / 1e6))
            } else {
                format!(" (load: {})", cfg.load.name())
            },
            cfg.duration_ns.map(|d| format!(", for {}", dur(d))).unwrap_or_default(),
        )
    }

    fn run(cfg: &MonitorConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        let runs = ctx
            .runs
            .clone()
            .ok_or_else(|| ExperimentError::failed("the monitor stores as it goes: the runner gave no store"))?;
        let wake: Option<Box<dyn Wake>> = if cfg.probes.contains(&Probe::Chain) {
            let s = latlab_sys::wake::make(cfg.wake)
                .map_err(|e| ExperimentError::failed(format!("cannot make the {} wake path: {e}", cfg.wake.name())))?;
            Some(Box::new(RtWake(s)))
        } else {
            None
        };
        let echo: Option<Box<dyn Echo>> = match &cfg.peer {
            Some(peer) => {
                let target = latlab_udp_probe::resolve(peer).map_err(ExperimentError::failed)?;
                let key = cfg.key.as_ref().map(|k| k.as_bytes().to_vec());
                let p = Peer::connect(target, latlab_udp_probe::defaults::SIZE, key)
                    .map_err(|e| ExperimentError::failed(format!("cannot open a socket to '{peer}': {e}")))?;
                Some(Box::new(UdpPeer(p)))
            }
            None => None,
        };
        let exported = Exported::new(&latlab_sys::machine::hostname().unwrap_or_else(|| "unknown".into()));
        let _serving = match &cfg.metrics_listen {
            Some(addr) => {
                let s = export::spawn(addr, exported.clone()).map_err(ExperimentError::failed)?;
                // The address bound (an ephemeral port is known only now).
                eprintln!("monitor: metrics on http://{}/metrics", s.addr);
                Some(s)
            }
            None => None,
        };
        let mut store = runs.lock().unwrap_or_else(|p| p.into_inner());
        let rec = run::run(cfg, &mut *store, &exported, &ctx.progress, echo, wake, &mut |line| eprintln!("{line}"))
            .map_err(|e| match e {
                MonitorError::Config(c) => ExperimentError::Config(c),
                MonitorError::Capability(c) => ExperimentError::Capability(c),
                other => ExperimentError::failed(other),
            })?;
        Ok(rec.into())
    }

    fn figures(rec: &latlab_model::record::RunRecord) -> Vec<latlab_model::figure::Figure> {
        crate::figures::figures(rec)
    }
}

/// A duration as the command line writes it (`5m`, `1ms`).
fn dur(ns: u64) -> String {
    humantime::format_duration(std::time::Duration::from_nanos(ns)).to_string()
}

/// What runs, for the first line.
fn probes_line(cfg: &MonitorConfig) -> String {
    cfg.probes
        .iter()
        .map(|p| match p {
            Probe::Rt => format!("timer probe every {}", dur(cfg.interval_ns)),
            Probe::Chain => format!("its second level woken by {}", cfg.wake.name()),
            Probe::Idle => format!("idle probe (gaps over {})", dur(cfg.idle_threshold_ns)),
            Probe::Udp => {
                format!("udp probe to {} every {}", cfg.peer.as_deref().unwrap_or("?"), dur(cfg.udp_interval_ns))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// latlab-udp's peer as the monitor's [`Echo`].
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
struct RtWake(Box<dyn latlab_sys::wake::Signal>);

impl Wake for RtWake {
    fn notify(&self) {
        self.0.notify()
    }
    fn wait(&self) {
        self.0.wait()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_says_what_runs_and_counts_windows() {
        let cfg = MonitorConfig {
            probes: vec![Probe::Rt, Probe::Idle],
            window_ns: 1_000_000_000,
            duration_ns: Some(2_500_000_000),
            ..Default::default()
        };
        assert_eq!(Monitor::steps(&cfg), 6);
        assert_eq!(Monitor::steps(&MonitorConfig::default()), 0);
        let line = Monitor::announce(&cfg);
        assert!(line.contains("timer probe every 1ms") && line.contains("idle probe"), "{line}");
        assert!(line.contains("for 2s 500ms"), "{line}");
        assert!(Monitor::suite_configs(false).is_empty());
    }

    #[test]
    fn without_the_runners_store_it_fails_before_measuring() {
        let e = Monitor::run(&MonitorConfig::default(), &RunContext::default()).unwrap_err();
        assert!(e.chain_text().contains("gave no store"), "{}", e.chain_text());
    }
}
