//! A monitor run on real threads: the probe thread (real-time if granted) runs the timer loop
//! on `CLOCK_MONOTONIC` and queues each closed window (plain values, no allocation); this
//! thread stores each as it arrives, adds it to the exported metrics, switches the schedule's
//! load on and off, and says a line per window. The run is stored `incomplete` from its start
//! (status `complete` or `interrupted` at its end), and an incomplete run of the same settings
//! whose process is gone is resumed: its windows continue.

use crate::defaults as d;
use crate::engine::{self, EngineConfig, Totals};
use crate::export::Exported;
use crate::schedule::{Schedule, State};
use crate::window::{BUCKETS_NS, Window};
use latlab_core::clock::{MonotonicClock, Timebase, monotonic_now, set_timer_slack};
use latlab_core::platform::{self, Capabilities, CapabilityRefused, Policy, Sched};
use latlab_core::record::{Column, RunRecord, RunStatus, Series, Table, TablePlot};
use latlab_core::store::{Store, StoreError, WindowRow};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, TrySendError, sync_channel};

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
    /// Spinners during the schedule's load (0: one per CPU).
    pub load_spinners: usize,
    /// The probe thread's scheduling.
    pub sched: Sched,
    /// CPU the probe is pinned to.
    pub cpu: Option<usize>,
    /// Fail instead of warning when a capability is refused.
    pub strict: bool,
}

impl Default for MonitorConfig {
    fn default() -> Self {
        Self {
            interval_ns: d::INTERVAL_NS,
            window_ns: d::WINDOW_NS,
            duration_ns: None,
            schedule: String::new(),
            load_spinners: 0,
            sched: Sched { policy: Policy::Fifo, priority: d::RT_PRIORITY },
            cpu: None,
            strict: false,
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
    /// The database.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The system.
    #[error("{0}")]
    Io(String),
}

/// A closed window as queued: plain values, so queuing allocates nothing.
#[derive(Debug, Clone, Copy)]
struct Closed {
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
    buckets: [u64; BUCKETS_NS.len() + 1],
}

impl Closed {
    fn of(w: &Window) -> Self {
        Self {
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
            buckets: w.buckets,
        }
    }
    /// As stored: times moved from the monotonic clock to Unix time by `offset`.
    fn row(&self, probe: &str, offset: i64) -> WindowRow {
        let i = |v: u64| v as i64;
        WindowRow {
            probe: probe.into(),
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
            lost: 0,
            buckets: self.buckets.iter().map(|&b| i(b)).collect(),
        }
    }
}

/// The newest monitor run with these settings that is incomplete and whose process is gone.
fn resumable(store: &Store, cfg: &MonitorConfig) -> Result<Option<RunRecord>, StoreError> {
    let Some(last) = store.list()?.into_iter().find(|r| r.experiment == "monitor") else { return Ok(None) };
    if last.status != "incomplete" {
        return Ok(None);
    }
    let rec = store.load(last.id)?;
    let same = rec.config.get("monitor") == Some(&serde_json::to_value(cfg).unwrap_or_default());
    let gone =
        rec.config.get("pid").and_then(|p| p.as_u64()).is_some_and(|p| !Path::new(&format!("/proc/{p}")).exists());
    Ok((same && gone).then_some(rec))
}

/// Run the monitor into the database at `db`, saying a line per window through `say`; returns
/// the run's final record (already stored).
pub fn run(
    cfg: &MonitorConfig,
    db: &Path,
    exported: &Exported,
    progress: &AtomicU64,
    say: &mut dyn FnMut(String),
) -> Result<RunRecord, MonitorError> {
    let schedule = cfg.validate().map_err(MonitorError::Config)?;
    let mut store = Store::open(db)?;
    let mut caps = Capabilities::new(cfg.strict);
    caps.record(platform::probe_sched(cfg.sched))?;
    let (mut rec, id) = match resumable(&store, cfg)? {
        Some(r) => {
            let id = r.id.expect("a loaded run has its id");
            say(format!("monitor: resuming run #{id} (its process is gone); new windows are appended"));
            (r, id)
        }
        None => {
            let mut r = RunRecord::begin("monitor");
            r.config("monitor", cfg);
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
    // Monotonic → Unix time for the stored windows.
    let offset = latlab_core::clock::unix_now_ns() - monotonic_now() as i64;
    let (tx, rx) = sync_channel::<Closed>(d::QUEUE);
    let dropped = AtomicU64::new(0);
    let mut load: Option<latlab_core::spin::SpinLoad> = None;
    let spinners = if cfg.load_spinners == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        cfg.load_spinners
    };
    let (totals, thread_caps) = std::thread::scope(|s| -> Result<(Totals, Vec<platform::Capability>), MonitorError> {
        let clock = MonotonicClock::new();
        let start = clock.now() + 10_000_000;
        let (ecfg, dropped) = (&ecfg, &dropped);
        let probe = std::thread::Builder::new()
            .name("latlab-monitor-rt".into())
            .spawn_scoped(s, move || {
                let mut c = Vec::new();
                if let Some(cpu) = cfg.cpu {
                    c.push(platform::set_affinity(&[cpu]));
                }
                c.push(platform::set_sched(cfg.sched));
                let _ = set_timer_slack(latlab_core::defaults::MEASURE_TIMER_SLACK_NS);
                let t = engine::run_timer(&clock, ecfg, start, &latlab_core::interrupt::stop_requested, &mut |w| {
                    progress.fetch_add(1, Ordering::Relaxed);
                    if let Err(TrySendError::Full(_)) = tx.try_send(Closed::of(w)) {
                        dropped.fetch_add(1, Ordering::Relaxed);
                    }
                });
                (t, c)
            })
            .map_err(|e| MonitorError::Io(format!("starting the probe thread: {e}")))?;
        let mut n = 0u64;
        loop {
            // The schedule's load follows the clock here too.
            let want_load = schedule.at(monotonic_now().saturating_sub(start)).0 == State::Load;
            match (want_load, load.is_some()) {
                (true, false) => {
                    load = Some(
                        latlab_core::spin::SpinLoad::start(
                            spinners,
                            latlab_core::spin::SpinSched { policy: Policy::Other, nice: 0 },
                        )
                        .map_err(|e| MonitorError::Io(format!("starting the load: {e}")))?,
                    );
                }
                (false, true) => load.take().expect("running").stop(),
                _ => {}
            }
            match rx.recv_timeout(std::time::Duration::from_millis(200)) {
                Ok(c) => {
                    let row = c.row("rt", offset);
                    store.append_windows(id, std::slice::from_ref(&row))?;
                    exported.add(&row);
                    n += 1;
                    say(format!(
                        "monitor: window {n} ({}): {} wake-ups, max {:.1} µs, p99 {:.1} µs, {} missed",
                        row.state,
                        row.count,
                        row.max_ns as f64 / 1e3,
                        row.p99_ns as f64 / 1e3,
                        row.missed
                    ));
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        probe.join().map_err(|_| MonitorError::Io("the probe thread panicked".into()))
    })?;
    if let Some(l) = load.take() {
        l.stop();
    }
    for c in thread_caps {
        caps.record(c)?;
    }
    finish(&mut store, id, &mut rec, caps, totals, dropped.load(Ordering::Relaxed))?;
    Ok(rec)
}

/// OSADL's two plots of a long run: the maxima (and p99) per window over time, and the
/// histogram of every wake-up with its worst case. Past [`d::PLOT_WINDOWS`] windows, each row
/// holds the largest of as many consecutive windows as keep the rows under it (the maxima are
/// what such a plot is read for).
pub fn long_run_tables(rt: &[&WindowRow]) -> Vec<Table> {
    let Some(first) = rt.first() else { return Vec::new() };
    let per = rt.len().div_ceil(d::PLOT_WINDOWS).max(1);
    let rows: Vec<Vec<serde_json::Value>> = rt
        .chunks(per)
        .map(|c| {
            let hours = (c[0].start_ns - first.start_ns) as f64 / 3.6e12;
            let max = c.iter().map(|w| w.max_ns).max().unwrap_or(0);
            let p99 = c.iter().map(|w| w.p99_ns).max().unwrap_or(0);
            let mut states: Vec<&str> = c.iter().map(|w| w.state.as_str()).collect();
            states.dedup();
            let state = if states.len() == 1 { states[0] } else { "mixed" };
            vec![((hours * 1e4).round() / 1e4).into(), max.into(), p99.into(), state.into()]
        })
        .collect();
    let every = if per == 1 { String::new() } else { format!(", each point the largest of {per} windows") };
    let windows = Table {
        name: "monitor.rt.windows".into(),
        title: format!("Wake-up latency per window over time (OSADL's maxima plot{every})"),
        columns: vec![
            Column::new("time since start", "h"),
            Column::new("max", "ns"),
            Column::new("p99", "ns"),
            Column::new("state", ""),
        ],
        rows,
        plot: Some(TablePlot {
            x: "time since start".into(),
            ys: vec!["max".into(), "p99".into()],
            log_x: false,
            log_y: true,
        }),
    };
    let mut buckets = vec![0i64; BUCKETS_NS.len() + 1];
    for w in rt {
        for (t, b) in buckets.iter_mut().zip(&w.buckets) {
            *t += b;
        }
    }
    let worst = rt.iter().map(|w| w.max_ns).max().unwrap_or(0);
    let total: i64 = buckets.iter().sum();
    let hist_rows = buckets
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(i, n)| {
            let le = BUCKETS_NS.get(i).map_or_else(|| worst.max(1), |&b| b as i64);
            vec![le.into(), (*n).into()]
        })
        .collect();
    let histogram = Table {
        name: "monitor.rt.histogram".into(),
        title: format!(
            "Wake-up latency over the whole run: {total} wake-ups, worst {}",
            latlab_core::record::fmt_ns(worst as f64)
        ),
        columns: vec![Column::new("up to", "ns"), Column::new("wake-ups", "count")],
        rows: hist_rows,
        plot: Some(TablePlot { x: "up to".into(), ys: vec!["wake-ups".into()], log_x: true, log_y: true }),
    };
    vec![windows, histogram]
}

/// The run's final record: its settings, what the machine granted, and the summary of every
/// stored window (earlier processes' too, when resumed), with each window's maximum as a series.
fn finish(
    store: &mut Store,
    id: i64,
    rec: &mut RunRecord,
    caps: Capabilities,
    totals: Totals,
    dropped: u64,
) -> Result<(), MonitorError> {
    let windows = store.windows(id)?;
    rec.capabilities = caps.list;
    rec.metrics.clear();
    rec.series.clear();
    rec.metric("monitor.windows", windows.len() as u64, "count");
    rec.metric("monitor.windows_dropped", dropped, "count");
    let rt: Vec<&WindowRow> = windows.iter().filter(|w| w.probe == "rt").collect();
    let sum = |f: fn(&WindowRow) -> i64| rt.iter().map(|w| f(w)).sum::<i64>();
    rec.metric("monitor.rt.samples", sum(|w| w.count), "count");
    rec.metric("monitor.rt.missed", sum(|w| w.missed), "count");
    if let Some(max) = rt.iter().map(|w| w.max_ns).max() {
        rec.metric("monitor.rt.max", max, "ns");
        rec.metric("monitor.rt.window_p99_worst", rt.iter().map(|w| w.p99_ns).max().unwrap_or(0), "ns");
        let mut maxima: Vec<i64> = rt.iter().map(|w| w.max_ns).collect();
        maxima.sort_unstable();
        rec.metric("monitor.rt.window_max_median", maxima[maxima.len() / 2], "ns");
    }
    rec.series.push(Series {
        name: "monitor.rt.window_max".into(),
        unit: "ns".into(),
        description: "largest wake-up latency of each window, in time order (OSADL's maxima per window)".into(),
        values: rt.iter().map(|w| w.max_ns).collect(),
    });
    rec.tables.clear();
    rec.tables.extend(long_run_tables(&rt));
    if totals.samples == 0 && rt.is_empty() {
        rec.warn("no window closed: the run ended before its first window");
    }
    let interrupted = latlab_core::interrupt::stop_requested();
    rec.finish(if interrupted { RunStatus::Interrupted } else { RunStatus::Complete });
    store.write(Some(id), rec)?;
    Ok(())
}
