//! A monitor run on real threads: the probe thread (real-time if granted) runs the timer loop
//! on `CLOCK_MONOTONIC` and queues each closed window (plain values, no allocation); this
//! thread stores each as it arrives, adds it to the exported metrics, switches the schedule's
//! load on and off, and says a line per window. The run is stored `incomplete` from its start
//! (status `complete` or `interrupted` at its end), and an incomplete run of the same settings
//! whose process is gone is resumed: its windows continue. Its settings are `settings.rs`'s.

use crate::defaults as d;
use crate::engine::{self, EngineConfig};
use crate::export::Exported;
use crate::probes::{self, Echo, EchoConfig, Wake};
use crate::schedule::State;
use crate::settings::{MonitorConfig, MonitorError, Probe};
use crate::summary::{self, ProbeDone};
use crate::window::{BUCKETS_NS, Window};
use latlab_model::experiment::{BoxError, SETTINGS};
use latlab_model::record::{RunRecord, RunStatus};
use latlab_model::sink::RunSink;
use latlab_model::window::WindowRow;
use latlab_sys::clock::{MonotonicClock, Timebase, monotonic_now, set_timer_slack};
use latlab_sys::platform::{self, Capabilities, Policy, Sched};
use latlab_sys::record::Finish;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, SyncSender, TrySendError, sync_channel};

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
    tops: [(u32, u64); crate::window::TOPS],
    tops_len: usize,
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
            tops: w.tops,
            tops_len: w.tops_len,
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
            tops: Window::tops_in_order(&self.tops[..self.tops_len]),
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
        let spawn_err = |e: std::io::Error| MonitorError::system("starting a probe thread", e);
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
                    load = Some(crate::load::start(cfg.load, spinners, cfg.load_rate_bps)?);
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
            let (c, t) = p.join().map_err(|_| MonitorError::system("a probe thread", "it panicked"))?;
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
