//! A monitor run on real threads: the probe thread (real-time if granted) runs the timer loop
//! on `CLOCK_MONOTONIC` and queues each closed window (plain values, no allocation); this
//! thread stores each as it arrives, adds it to the exported metrics, switches the schedule's
//! load on and off, and says a line per window. The run is stored `incomplete` from its start
//! (status `complete` or `interrupted` at its end), and an incomplete run of the same settings
//! whose process is gone is resumed: its windows continue.

use crate::defaults as d;
use crate::engine::{self, EngineConfig, Totals};
use crate::export::Exported;
use crate::load::LoadKind;
use crate::probes::{self, Echo, EchoConfig, EchoTotals, Wake};
use crate::schedule::{Schedule, State};
use crate::summary;
use crate::window::{BUCKETS_NS, Window};
use latlab_model::experiment::{BoxError, SETTINGS};
use latlab_model::record::{RunRecord, RunStatus};
use latlab_model::sink::RunSink;
use latlab_model::window::WindowRow;
use latlab_rt::signal::SignalKind;
use latlab_sys::clock::{MonotonicClock, Timebase, monotonic_now, set_timer_slack};
use latlab_sys::platform::{self, Capabilities, CapabilityRefused, Policy, Sched};
use latlab_sys::record::Finish;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, SyncSender, TrySendError, sync_channel};

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
    pub fn validate(&self) -> Result<Schedule, String> {
        if !(10_000..=1_000_000_000).contains(&self.interval_ns) {
            return Err("--interval must be between 10 µs and 1 s".into());
        }
        if self.window_ns < 1_000_000_000 || self.window_ns < 10 * self.interval_ns {
            return Err("--window must be at least 1 s and hold at least 10 intervals".into());
        }
        if !(1..=99).contains(&self.sched.priority) {
            return Err("--priority must be 1–99".into());
        }
        if self.probes.is_empty() {
            return Err("--probes names none: choose from rt, chain, idle, udp".into());
        }
        for (i, p) in self.probes.iter().enumerate() {
            if self.probes[..i].contains(p) {
                return Err(format!("--probes names '{}' twice", p.name()));
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

/// Why a monitor could not run.
#[derive(Debug, thiserror::Error)]
pub enum MonitorError {
    /// Bad settings.
    #[error("{0}")]
    Config(String),
    /// `--strict` and a capability was refused.
    #[error(transparent)]
    Capability(#[from] CapabilityRefused),
    /// The store the runner gave.
    #[error("the database: {0}")]
    Store(#[from] BoxError),
    /// The system.
    #[error("{0}")]
    Io(String),
}

/// A closed window as queued: plain values, so queuing allocates nothing.
#[derive(Debug, Clone, Copy)]
struct Closed {
    probe: &'static str,
    start_ns: u64,
    end_ns: u64,
    state: &'static str,
    count: u64,
    sum_ns: u64,
    min_ns: u64,
    p50_ns: u64,
    p99_ns: u64,
    p999_ns: u64,
    max_ns: u64,
    missed: u64,
    lost: u64,
    buckets: [u64; BUCKETS_NS.len() + 1],
}

impl Closed {
    fn of(probe: &'static str, w: &Window) -> Self {
        Self {
            probe,
            start_ns: w.start_ns,
            end_ns: w.end_ns,
            state: w.state,
            count: w.count,
            sum_ns: w.sum_ns,
            min_ns: w.min_ns,
            p50_ns: w.quantile(0.5),
            p99_ns: w.quantile(0.99),
            p999_ns: w.quantile(0.999),
            max_ns: w.max_ns,
            missed: w.missed,
            lost: w.lost,
            buckets: w.buckets,
        }
    }
    /// As stored: times moved from the monotonic clock to Unix time by `offset`.
    fn row(&self, offset: i64) -> WindowRow {
        let i = |v: u64| v as i64;
        WindowRow {
            probe: self.probe.into(),
            start_ns: i(self.start_ns) + offset,
            end_ns: i(self.end_ns) + offset,
            state: self.state.into(),
            count: i(self.count),
            sum_ns: i(self.sum_ns),
            min_ns: i(self.min_ns),
            p50_ns: i(self.p50_ns),
            p99_ns: i(self.p99_ns),
            p999_ns: i(self.p999_ns),
            max_ns: i(self.max_ns),
            missed: i(self.missed),
            lost: i(self.lost),
            buckets: self.buckets.iter().map(|&b| i(b)).collect(),
        }
    }
}

/// The newest monitor run with these settings that is incomplete and whose process is gone.
fn resumable(store: &mut dyn RunSink, cfg: &MonitorConfig) -> Result<Option<RunRecord>, BoxError> {
    let Some(rec) = store.newest("monitor")? else { return Ok(None) };
    if rec.status != RunStatus::Incomplete {
        return Ok(None);
    }
    // Older versions kept the settings under `monitor`.
    let stored = rec.config.get(SETTINGS).or_else(|| rec.config.get("monitor"));
    let same = stored == Some(&serde_json::to_value(cfg).unwrap_or_default());
    let gone =
        rec.config.get("pid").and_then(|p| p.as_u64()).is_some_and(|p| !Path::new(&format!("/proc/{p}")).exists());
    Ok((same && gone).then_some(rec))
}

/// Run the monitor into `store` (the runner's), saying a line per window through `say`;
/// returns the run's final record (already stored). `echo` is the udp probe's peer, when it
/// runs.
pub fn run(
    cfg: &MonitorConfig,
    store: &mut dyn RunSink,
    exported: &Exported,
    progress: &AtomicU64,
    echo: Option<Box<dyn Echo>>,
    wake: Option<Box<dyn Wake>>,
    say: &mut dyn FnMut(String),
) -> Result<RunRecord, MonitorError> {
    let schedule = cfg.validate().map_err(MonitorError::Config)?;
    let runs = |p: Probe| cfg.probes.contains(&p);
    if runs(Probe::Udp) != echo.is_some() {
        return Err(MonitorError::Config("the udp probe runs with a peer, and only with one".into()));
    }
    if runs(Probe::Chain) != wake.is_some() {
        return Err(MonitorError::Config("the chain probe runs with a wake path, and only with one".into()));
    }
    let pulse = AtomicU64::new(0);
    let mut caps = Capabilities::new(cfg.strict);
    caps.record(platform::probe_sched(cfg.sched))?;
    let (mut rec, id) = match resumable(store, cfg)? {
        Some(r) => {
            let id = r.id.expect("a loaded run has its id");
            say(format!("monitor: resuming run #{id} (its process is gone); new windows are appended"));
            (r, id)
        }
        None => {
            let mut r = latlab_sys::record::begin("monitor");
            r.config(SETTINGS, cfg);
            r.finish(RunStatus::Incomplete);
            let id = store.write(None, &r)?;
            (r, id)
        }
    };
    rec.id = Some(id);
    rec.config("pid", std::process::id());
    store.write(Some(id), &rec)?;
    let ecfg = EngineConfig {
        interval_ns: cfg.interval_ns,
        window_ns: cfg.window_ns,
        duration_ns: cfg.duration_ns,
        schedule: schedule.clone(),
    };
    let echo_cfg = EchoConfig {
        engine: EngineConfig { interval_ns: cfg.udp_interval_ns, ..ecfg.clone() },
        wait_ns: cfg.udp_wait_ns,
    };
    // Monotonic → Unix time for the stored windows.
    let offset = latlab_sys::clock::unix_now_ns() - monotonic_now() as i64;
    let (tx, rx) = sync_channel::<Closed>(d::QUEUE);
    let dropped = AtomicU64::new(0);
    let mut load: Option<crate::load::Running> = None;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let spinners = if cfg.load_spinners == 0 { cpus } else { cfg.load_spinners };
    let idle_cpu = cfg.idle_cpu.unwrap_or(cpus - 1);
    let mut echo = echo;
    let mut done = ProbeDone::default();
    let clock = MonotonicClock::new();
    let start = clock.now() + 10_000_000;
    let thread_caps = std::thread::scope(|s| -> Result<Vec<platform::Capability>, MonitorError> {
        let (ecfg, echo_cfg, dropped, clock) = (&ecfg, &echo_cfg, &dropped, &clock);
        let hand = move |tx: &SyncSender<Closed>, c: Closed| {
            progress.fetch_add(1, Ordering::Relaxed);
            if let Err(TrySendError::Full(_)) = tx.try_send(c) {
                dropped.fetch_add(1, Ordering::Relaxed);
            }
        };
        let spawn_err = |e: std::io::Error| MonitorError::Io(format!("starting a probe thread: {e}"));
        let mut probes = Vec::new();
        let (wake, pulse) = (wake.as_deref(), &pulse);
        if runs(Probe::Rt) {
            let tx = tx.clone();
            probes.push(
                std::thread::Builder::new()
                    .name("latlab-monitor-rt".into())
                    .spawn_scoped(s, move || {
                        let mut c = Vec::new();
                        if let Some(cpu) = cfg.cpu {
                            c.push(platform::set_affinity(&[cpu]));
                        }
                        c.push(platform::set_sched(cfg.sched));
                        let _ = set_timer_slack(latlab_sys::defaults::MEASURE_TIMER_SLACK_NS);
                        // The second level ends when this guard goes, whatever ended the first
                        // (a panic too: the monitor then stops instead of waiting forever).
                        let _stop_chain = StopChain(wake, pulse);
                        let t = engine::run_timer_then(
                            clock,
                            ecfg,
                            start,
                            &latlab_sys::interrupt::stop_requested,
                            &mut |w| hand(&tx, Closed::of("rt", w)),
                            &mut |deadline| {
                                if let Some(wake) = wake {
                                    pulse.store(deadline, Ordering::Release);
                                    wake.notify();
                                }
                            },
                        );
                        (c, ProbeDone { rt: Some(t), ..Default::default() })
                    })
                    .map_err(spawn_err)?,
            );
        }
        // After the first level: it wakes this one, and tells it to stop even if it ends first.
        if let Some(wake) = wake {
            let tx = tx.clone();
            probes.push(
                std::thread::Builder::new()
                    .name("latlab-monitor-chain".into())
                    .spawn_scoped(s, move || {
                        let mut c = Vec::new();
                        if let Some(cpu) = cfg.cpu {
                            c.push(platform::set_affinity(&[cpu]));
                        }
                        // One below the first level, as seed 001's APP_TEST ran below its ISR_TEST.
                        c.push(platform::set_sched(Sched {
                            policy: cfg.sched.policy,
                            priority: (cfg.sched.priority - 1).max(1),
                        }));
                        let t = probes::run_chain(&monotonic_now, ecfg, start, wake, pulse, &mut |w| {
                            hand(&tx, Closed::of("chain", w))
                        });
                        (c, ProbeDone { chain: Some(t), ..Default::default() })
                    })
                    .map_err(spawn_err)?,
            );
        }
        if runs(Probe::Idle) {
            let tx = tx.clone();
            probes.push(
                std::thread::Builder::new()
                    .name("latlab-monitor-idle".into())
                    .spawn_scoped(s, move || {
                        let c = vec![
                            platform::set_affinity(&[idle_cpu]),
                            platform::set_sched(Sched { policy: Policy::Idle, priority: 0 }),
                        ];
                        let t = probes::run_idle(
                            &monotonic_now,
                            ecfg,
                            cfg.idle_threshold_ns,
                            start,
                            &latlab_sys::interrupt::stop_requested,
                            &mut |w| hand(&tx, Closed::of("idle", w)),
                        );
                        (c, ProbeDone { idle: Some(t), ..Default::default() })
                    })
                    .map_err(spawn_err)?,
            );
        }
        if let Some(mut e) = echo.take() {
            let tx = tx.clone();
            probes.push(
                std::thread::Builder::new()
                    .name("latlab-monitor-udp".into())
                    .spawn_scoped(s, move || {
                        let c = vec![platform::set_sched(cfg.sched)];
                        let _ = set_timer_slack(latlab_sys::defaults::MEASURE_TIMER_SLACK_NS);
                        let t = probes::run_echo(
                            clock,
                            echo_cfg,
                            start,
                            e.as_mut(),
                            &latlab_sys::interrupt::stop_requested,
                            &mut |w| hand(&tx, Closed::of("udp", w)),
                        );
                        (c, ProbeDone { udp: Some((t, e.refused())), ..Default::default() })
                    })
                    .map_err(spawn_err)?,
            );
        }
        drop(tx);
        let mut n = 0u64;
        loop {
            // The schedule's load follows the clock here too.
            let want_load = schedule.at(monotonic_now().saturating_sub(start)).0 == State::Load;
            match (want_load, load.is_some()) {
                (true, false) => {
                    load = Some(crate::load::start(cfg.load, spinners, cfg.load_rate_bps).map_err(MonitorError::Io)?);
                }
                (false, true) => load.take().expect("running").stop(),
                _ => {}
            }
            match rx.recv_timeout(std::time::Duration::from_millis(200)) {
                Ok(c) => {
                    let row = c.row(offset);
                    store.append_windows(id, std::slice::from_ref(&row))?;
                    exported.add(&row);
                    n += 1;
                    say(summary::window_line(n, &row));
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        let mut all = Vec::new();
        for p in probes {
            let (c, t) = p.join().map_err(|_| MonitorError::Io("a probe thread panicked".into()))?;
            all.extend(c);
            done = done.or(t);
        }
        Ok(all)
    })?;
    if let Some(l) = load.take() {
        l.stop();
    }
    for c in thread_caps {
        caps.record(c)?;
    }
    summary::finish(store, id, &mut rec, caps, done, dropped.load(Ordering::Relaxed))?;
    Ok(rec)
}

/// Tells the chain's second level to finish when dropped.
struct StopChain<'a>(Option<&'a dyn Wake>, &'a AtomicU64);

impl Drop for StopChain<'_> {
    fn drop(&mut self) {
        if let Some(wake) = self.0 {
            self.1.store(probes::CHAIN_STOP, Ordering::Release);
            wake.notify();
        }
    }
}

/// What each probe's thread reported at its end.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ProbeDone {
    pub(crate) rt: Option<Totals>,
    pub(crate) chain: Option<Totals>,
    pub(crate) idle: Option<Totals>,
    pub(crate) udp: Option<(EchoTotals, u64)>,
}

impl ProbeDone {
    fn or(self, o: Self) -> Self {
        Self {
            rt: self.rt.or(o.rt),
            chain: self.chain.or(o.chain),
            idle: self.idle.or(o.idle),
            udp: self.udp.or(o.udp),
        }
    }
}

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
