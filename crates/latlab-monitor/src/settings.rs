//! A monitor's settings: what the command line gives, their defaults, the one place they are
//! checked, the probes it can run, and why a monitor could not run.

use crate::defaults as d;
use crate::load::LoadKind;
use crate::schedule::Schedule;
use latlab_sys::platform::{Policy, Sched};
use latlab_sys::wake::SignalKind;

/// A monitor's settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MonitorConfig {
    /// Interval of the timer probe, ns.
    pub interval_ns: u64,
    /// Window length, ns.
    pub window_ns: u64,
    /// Stop after this long (None: until Ctrl-C).
    pub duration_ns: Option<u64>,
    /// The idle/load schedule, as written.
    pub schedule: String,
    /// Spinners (or polygon threads) during the schedule's load (0: one per CPU).
    pub load_spinners: usize,
    /// The load the schedule switches on.
    pub load: LoadKind,
    /// The link load's rate, bits per second.
    pub load_rate_bps: u64,
    /// The probe thread's scheduling.
    pub sched: Sched,
    /// CPU the probe is pinned to.
    pub cpu: Option<usize>,
    /// Fail instead of warning when a capability is refused.
    pub strict: bool,
    /// The probes run at once.
    pub probes: Vec<Probe>,
    /// How the timer wakes the chain's second level (latlab rt's `--signal` paths).
    pub wake: SignalKind,
    /// The udp probe's peer: a `latlab udp serve` address.
    pub peer: Option<String>,
    /// The peer's shared key (`udp serve --key`); never stored.
    #[serde(skip)]
    pub key: Option<String>,
    /// Serve the windows for Prometheus on this address (not a measurement setting: a
    /// resumed run may serve elsewhere).
    #[serde(skip)]
    pub metrics_listen: Option<String>,
    /// Interval of the udp probe, ns.
    pub udp_interval_ns: u64,
    /// How long a udp request waits for its reply before it is lost, ns.
    pub udp_wait_ns: u64,
    /// A gap longer than this is lost time for the idle probe, ns.
    pub idle_threshold_ns: u64,
    /// CPU the idle probe watches (default: the last one).
    pub idle_cpu: Option<usize>,
}

latlab_model::choice! {
    /// A probe `latlab monitor` runs (its name on the command line, in windows and in metric
    /// names; `ALL` is the order their windows are summarised in).
    #[derive(serde::Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Probe {
        /// The timer: wake-ups on absolute deadlines (`latlab rt`'s level 1).
        Rt = "rt",
        /// The thread the timer wakes (`latlab rt`'s level 2); needs `Rt`.
        Chain = "chain",
        /// Time taken from a lowest-priority thread (Endo's method).
        Idle = "idle",
        /// Round trips to a `latlab udp serve` peer.
        Udp = "udp",
    }
}

impl Default for MonitorConfig {
    fn default() -> Self {
        Self {
            interval_ns: d::INTERVAL_NS,
            window_ns: d::WINDOW_NS,
            duration_ns: None,
            schedule: String::new(),
            load_spinners: 0,
            load: LoadKind::Spinners,
            load_rate_bps: d::LINK_LOAD_BPS,
            sched: Sched { policy: Policy::Fifo, priority: d::RT_PRIORITY },
            cpu: None,
            strict: false,
            probes: vec![Probe::Rt],
            wake: d::WAKE,
            peer: None,
            key: None,
            metrics_listen: None,
            udp_interval_ns: d::UDP_INTERVAL_NS,
            udp_wait_ns: d::UDP_WAIT_NS,
            idle_threshold_ns: d::IDLE_THRESHOLD_NS,
            idle_cpu: None,
        }
    }
}

impl MonitorConfig {
    /// Check the settings; the schedule parsed.
    pub fn validate(&self) -> Result<Schedule, latlab_model::ConfigError> {
        if !(10_000..=1_000_000_000).contains(&self.interval_ns) {
            return Err("--interval must be between 10 µs and 1 s".into());
        }
        if self.window_ns < 1_000_000_000 || self.window_ns < 10 * self.interval_ns {
            return Err("--window must be at least 1 s and hold at least 10 intervals".into());
        }
        if self.duration_ns == Some(0) {
            return Err("--duration: give a time above 0 (or leave it out to run until Ctrl-C)".into());
        }
        if self.load_spinners > 256 {
            return Err(format!("--load-spinners {}: at most 256", self.load_spinners).into());
        }
        if self.idle_threshold_ns == 0 {
            return Err("--idle-threshold: give a time above 0".into());
        }
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        if let Some(c) = self.idle_cpu.filter(|&c| c >= cpus) {
            return Err(format!("--idle-cpu {c}: this machine has CPUs 0–{}", cpus - 1).into());
        }
        if !(1..=99).contains(&self.sched.priority) {
            return Err("--priority must be 1–99".into());
        }
        if self.probes.is_empty() {
            return Err("--probes names none: choose from rt, chain, idle, udp".into());
        }
        for (i, p) in self.probes.iter().enumerate() {
            if self.probes[..i].contains(p) {
                return Err(format!("--probes names '{}' twice", p.name()).into());
            }
        }
        let has = |p: Probe| self.probes.contains(&p);
        if has(Probe::Chain) && !has(Probe::Rt) {
            return Err("chain is the timer probe's second level: add rt to --probes".into());
        }
        let udp = has(Probe::Udp);
        if udp && self.peer.is_none() {
            return Err("the udp probe needs --peer ADDR (a `latlab udp serve` elsewhere)".into());
        }
        if !udp && self.peer.is_some() {
            return Err("--peer is for the udp probe: add udp to --probes".into());
        }
        if self.key.is_some() && self.peer.is_none() {
            return Err("--key is the udp peer's: give --peer too".into());
        }
        if has(Probe::Chain) && self.wake == SignalKind::None {
            return Err("the chain probe needs a wake path: --wake eventfd, futex, pipe or condvar".into());
        }
        if udp && !(1_000_000..=10_000_000_000).contains(&self.udp_interval_ns) {
            return Err("--udp-interval must be between 1 ms and 10 s".into());
        }
        if udp && (self.udp_wait_ns < self.udp_interval_ns || self.udp_wait_ns > 60_000_000_000) {
            return Err("--udp-wait must be at least one --udp-interval and at most 60 s".into());
        }
        if self.schedule.trim().is_empty() { Ok(Schedule::default()) } else { Schedule::parse(&self.schedule) }
    }
}

pub use crate::error::MonitorError;

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_model::experiment::Choice;

    #[test]
    fn the_settings_are_checked_in_one_place() {
        assert!(MonitorConfig::default().validate().is_ok());
        let bad = |c: MonitorConfig| c.validate().unwrap_err();
        let d = MonitorConfig::default;
        assert!(bad(MonitorConfig { sched: Sched { policy: Policy::Fifo, priority: 0 }, ..d() }).contains("1–99"));
        assert!(bad(MonitorConfig { probes: vec![], ..d() }).contains("names none"));
        assert!(bad(MonitorConfig { probes: vec![Probe::Rt, Probe::Rt], ..d() }).contains("'rt' twice"));
        assert!(bad(MonitorConfig { probes: vec![Probe::Chain], ..d() }).contains("add rt"));
        assert!(bad(MonitorConfig { probes: vec![Probe::Udp], ..d() }).contains("--peer"));
        assert!(bad(MonitorConfig { key: Some("k".into()), ..d() }).contains("give --peer"));
        let chain = vec![Probe::Rt, Probe::Chain];
        assert!(bad(MonitorConfig { probes: chain, wake: SignalKind::None, ..d() }).contains("wake path"));
        // The key is a secret and the metrics address no measurement setting: neither is stored.
        let kept = serde_json::to_value(MonitorConfig { key: Some("k".into()), ..d() }).unwrap();
        assert!(kept.get("key").is_none() && kept.get("metrics_listen").is_none());
        assert_eq!(kept["wake"], serde_json::json!("eventfd"));
        // The probes' names round-trip, and the record keeps them as words.
        assert_eq!(Probe::choice_list(), "rt, chain, idle, udp");
        assert_eq!(Probe::ALL.map(|p| Probe::from_choice(p.name())), Probe::ALL.map(Some));
        assert_eq!(serde_json::to_value(d()).unwrap()["probes"], serde_json::json!(["rt"]));
    }
}
