//! `latlab rt` — seed 001, "Benchmarking Real-time Determinism in Windows CE", on Linux: a
//! periodic stimulus at absolute deadlines wakes level 1 (the ISR_TEST analog, SCHED_FIFO 80)
//! which signals level 2 (the APP_TEST analog, real-time just below level 1, beside the load); both are timed from the
//! intended stimulus time, unloaded and under latlab's polygons load, and a frequency sweep
//! finds where each level starts missing pulses (MF) and where the load stops (SF).
//!
//! Metric names (documented in `docs/experiments/rt.md`): for phase `unloaded` / `loaded`
//! and level `l1` / `l2` / `hop`: `<phase>.<level>.latency.{min,p50,p99,p999,max,mean,
//! jitter,count}`, `<phase>.<level>.missed`, `<phase>.<level>.{missed_runs,longest_missed_run}`;
//! `<phase>.pulses`, `<phase>.l1.delivered`,
//! `<phase>.l2.delivered`, `<phase>.l1.done.*` (level 1's work complete, from the stimulus),
//! `loaded.load.progress`; `baseline.load.polygons_per_s`;
//! `overhead.record_per_sample`; `sweep.mf_l1_hz`, `sweep.mf_l2_hz`, `sweep.sf_hz`,
//! `sweep.max_rate_hz`, and `sweep.unloaded.{mf_l1_hz,mf_l2_hz,max_rate_hz}` from the same
//! sweep without the load.
//!
//! | file | holds |
//! |---|---|
//! | `chain.rs` | The wake-up chain: level 1 (the paper's ISR_TEST) sleeps to each absolute stimulus deadline, timestamps, … |
//! | `config.rs` | Configuration of `latlab rt` |
//! | `arbitration.rs` | How level 2 and the load share the CPU (`--arbitration`) |
//! | `cyclictest.rs` | cyclictest's `-h` histogram text, so scripts written for cyclictest can plot latlab's runs |
//! | `doctor.rs` | `latlab rt doctor`: what on this machine spoils wake-up latency, each finding tied to a measurement (`doctor/checks/`: the checks, one file each; `doctor/run.rs`: it under the experiment contract) |
//! | `hwlat.rs` | `rt doctor`'s gap detector in user space (the kernel's hwlat tracer is often absent) |
//! | `defaults.rs` | Every default of `latlab rt` (seed 001), each with the reason it has that value |
//! | `experiment.rs` | `latlab rt` as an `Experiment` |
//! | `figures.rs` | Seed 001's figures from an `rt` run |
//! | `load.rs` | The background load of the loaded phase and of the sweep |
//! | `paper.rs` | Paper-vs-here rows for seed 001 |
//! | `phase.rs` | One measured stretch of the chain on real threads |
//! | `remedies.rs` | Seed 001's remedies, measured with `latlab rt` (`latlab tune`) |
//! | `sweep.rs` | The frequency sweep (the paper's Figure 8, after Dupre and Barcos) |
//! | `throttle.rs` | RT throttling and the fair server during `latlab rt`'s loaded phase and sweeps |

pub mod arbitration;
pub mod chain;
pub mod config;
pub mod cyclictest;
pub mod defaults;
pub mod doctor;
pub mod experiment;
pub mod figures;
pub mod hwlat;
pub mod load;
mod paper;
pub mod phase;
pub mod remedies;
pub mod sweep;
pub mod throttle;

use crate::defaults as d;
use chain::{ChainStats, MISSED, analyze, pulses_for};
use config::{LoadSpec, RtConfig};
use latlab_model::checkpoint::Checkpoint;
use latlab_model::record::{Column, RunRecord, RunStatus, Series, Table, TablePlot};
use latlab_sys::clock::{MonotonicClock, monotonic_now};
use latlab_sys::interrupt::stop_requested;
use latlab_sys::platform::{self, Capabilities, CapabilityRefused};
use latlab_sys::record::Finish;
use latlab_sys::wake::SignalKind;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// Why `latlab rt` could not run.
#[derive(Debug, thiserror::Error)]
pub enum RtError {
    /// `--strict` and a capability was refused.
    #[error(transparent)]
    Capability(#[from] CapabilityRefused),
    /// The configuration does not make sense.
    #[error("invalid rt configuration: {0}")]
    Config(#[from] latlab_model::ConfigError),
    /// A thread, signal or load could not be created.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// A run's record plus what only the run itself can write out (per-pulse cycle numbers for
/// the cyclictest-format histogram).
pub struct Outcome {
    /// The stored record.
    pub record: RunRecord,
    /// (column name, [(pulse number, latency ns)]) per phase and level.
    pub columns: Vec<(String, Vec<(u64, i64)>)>,
}

impl Outcome {
    /// The cyclictest `-h` histogram of every column (see [`cyclictest`]).
    pub fn cyclictest_histogram(&self) -> String {
        let cols: Vec<cyclictest::Column<'_>> =
            self.columns.iter().map(|(_, s)| cyclictest::Column { samples: s }).collect();
        cyclictest::histogram(&cols, d::CYCLICTEST_HIST_US)
    }
}

fn cycles(lat: &[i64]) -> Vec<(u64, i64)> {
    lat.iter().enumerate().filter(|(_, v)| **v != MISSED).map(|(k, v)| (k as u64, *v)).collect()
}

/// One measured phase.
struct Phase {
    stats: ChainStats,
    l1: Vec<i64>,
    l2: Option<Vec<i64>>,
    interrupted: bool,
}

fn run_phase(
    cfg: &RtConfig,
    caps: &mut Capabilities,
    progress: &AtomicU64,
    period: u64,
    pulses: usize,
) -> Result<Phase, RtError> {
    run_phase_checkpointed(cfg, caps, progress, period, pulses, None)
}

/// A phase the checkpoint (with the record so far and the phase's name) stores as it runs.
type PhaseCheckpoint<'a> = Option<(&'a Checkpoint, &'a RunRecord, &'static str)>;

fn run_phase_checkpointed(
    cfg: &RtConfig,
    caps: &mut Capabilities,
    progress: &AtomicU64,
    period: u64,
    pulses: usize,
    ckpt: PhaseCheckpoint<'_>,
) -> Result<Phase, RtError> {
    let with_l2 = cfg.signal != SignalKind::None;
    let mut look = |p: phase::Partial| {
        let Some((c, rec, name)) = ckpt else { return };
        let n = p.l1.len();
        let stats = analyze(&p.l1, p.l2.as_deref(), n);
        let so_far = Phase { stats, l1: p.l1, l2: p.l2, interrupted: false };
        let mut partial = rec.clone();
        phase_record(&mut partial, name, &so_far, with_l2, &mut Vec::new());
        partial.warn(format!("checkpoint: the {name} phase had measured {n} of its {pulses} pulses"));
        c.save(partial);
    };
    let every = ckpt.and_then(|(c, _, _)| c.every());
    let watch = every.map(|every| phase::Watch { every, look: &mut look });
    let raw = phase::run_watched(cfg, period, pulses, progress, watch)?;
    for c in raw.capabilities {
        caps.record(c)?;
    }
    let stats = chain::with_done(analyze(&raw.l1.latency, raw.l2.as_deref(), raw.l1.pulses), &raw.l1.done);
    Ok(Phase { stats, interrupted: raw.l1.interrupted, l1: raw.l1.latency, l2: raw.l2 })
}

fn phase_record(rec: &mut RunRecord, name: &str, p: &Phase, with_l2: bool, rows: &mut Vec<Vec<serde_json::Value>>) {
    let s = &p.stats;
    rec.metric(&format!("{name}.pulses"), s.pulses, "count");
    if let Some(done) = &s.l1_done {
        rec.summary_metrics(&format!("{name}.l1.done"), done, "ns");
    }
    rec.metric(&format!("{name}.l1.delivered"), s.l1_delivered, "ratio");
    if with_l2 {
        rec.metric(&format!("{name}.l2.delivered"), s.l2_delivered, "ratio");
    }
    for (lvl, ls, what) in [
        ("l1", &s.l1, "level-1 (ISR analog) wake-up latency from the intended stimulus time"),
        ("l2", &s.l2, "level-2 (APP analog) wake-up latency from the intended stimulus time"),
        ("hop", &s.hop, "level 1 → level 2 hop (level-2 time minus level-1 time)"),
    ] {
        if lvl != "l1" && !with_l2 {
            continue;
        }
        if let Some(sum) = &ls.summary {
            rec.summary_metrics(&format!("{name}.{lvl}.latency"), sum, "ns");
            rows.push(vec![
                name.into(),
                lvl.into(),
                sum.min.into(),
                sum.p50.into(),
                sum.p99.into(),
                sum.p999.into(),
                sum.max.into(),
                sum.jitter.into(),
                ls.missed.into(),
                ls.served.into(),
            ]);
        }
        rec.metric(&format!("{name}.{lvl}.missed"), ls.missed, "count");
        rec.metric(&format!("{name}.{lvl}.missed_runs"), ls.runs.count, "count");
        rec.metric(&format!("{name}.{lvl}.longest_missed_run"), ls.runs.longest, "count");
        // Where the latencies pile up, and the back wall they stay within (seed 001, Fig. 6c).
        if !ls.samples.is_empty() {
            let modes = latlab_model::stats::modes::modes(&ls.samples, d::MODE_MIN_SHARE);
            rec.metric(&format!("{name}.{lvl}.latency.modes"), modes.len() as u64, "count");
            for (i, m) in modes.iter().enumerate() {
                rec.metric(&format!("{name}.{lvl}.latency.mode{}.centre", i + 1), m.centre, "ns");
                rec.metric(&format!("{name}.{lvl}.latency.mode{}.share", i + 1), m.share, "ratio");
            }
            if let Some(w) = latlab_model::stats::modes::back_wall(&ls.samples) {
                rec.metric(&format!("{name}.{lvl}.latency.back_wall"), w, "ns");
            }
        }
        rec.series.push(Series {
            name: format!("{name}.{lvl}.latency"),
            unit: "ns".into(),
            description: format!("{what}, {name}"),
            values: ls.samples.clone(),
        });
    }
}

/// Record a measured phase (metrics, series, table rows, histogram columns); returns
/// whether it was interrupted.
#[allow(clippy::too_many_arguments)]
fn keep_phase(
    name: &'static str,
    p: Phase,
    period_ns: u64,
    rec: &mut RunRecord,
    with_l2: bool,
    rows: &mut Vec<Vec<serde_json::Value>>,
    worst: &mut Vec<Vec<serde_json::Value>>,
    columns: &mut Vec<(String, Vec<(u64, i64)>)>,
    measured: &mut Vec<(&'static str, ChainStats)>,
) -> bool {
    phase_record(rec, name, &p, with_l2, rows);
    // Beside each level's observed maximum, its worst case per hour.
    for (lvl, ls) in [("l1", &p.stats.l1), ("l2", &p.stats.l2)] {
        if (lvl == "l2" && !with_l2) || ls.samples.is_empty() {
            continue;
        }
        let r = latlab_model::worst::per_hour(&ls.samples, period_ns);
        latlab_model::worst::record_metrics(rec, &format!("{name}.{lvl}.latency"), &r);
        worst.push(latlab_model::worst::row(&[name, lvl], ls.summary.as_ref().map_or(0, |s| s.max), &r));
    }
    columns.push((format!("{name}.l1"), cycles(&p.l1)));
    if let Some(l2) = &p.l2 {
        columns.push((format!("{name}.l2"), cycles(l2)));
    }
    measured.push((name, p.stats));
    p.interrupted
}

/// Progress per second between two readings of a counter.
fn per_second(p0: u64, p1: u64, t0: u64, t1: u64) -> f64 {
    p1.saturating_sub(p0) as f64 * 1e9 / t1.saturating_sub(t0).max(1) as f64
}

/// Measure the polygons load alone for a moment: its unloaded progress rate (polygons/s).
fn load_baseline(cfg: &RtConfig) -> Result<Option<f64>, RtError> {
    if !matches!(cfg.load, LoadSpec::Polygons { .. }) {
        return Ok(None);
    }
    let Some(l) = load::start(cfg, 7, d::LOAD_BASELINE_NS)? else { return Ok(None) };
    let (p0, t0) = (l.progress().unwrap_or(0), monotonic_now());
    std::thread::sleep(std::time::Duration::from_nanos(d::LOAD_BASELINE_NS));
    let (p1, t1) = (l.progress().unwrap_or(0), monotonic_now());
    l.stop();
    Ok(Some(per_second(p0, p1, t0, t1)))
}

/// One frequency sweep: each rate for a step; `load` is the running load whose progress is
/// measured against its baseline rate (None: unloaded, or the load's progress is unknown).
/// Stops once every threshold it can find is found.
fn sweep_pass(
    cfg: &RtConfig,
    caps: &mut Capabilities,
    progress: &AtomicU64,
    sc: &config::SweepConfig,
    with_l2: bool,
    load: Option<(&load::RunningLoad, f64)>,
) -> Result<(Vec<sweep::Step>, sweep::Thresholds, bool), RtError> {
    let load_known = load.is_some();
    let running = load.map(|(l, _)| l);
    let baseline = load.map(|(_, b)| b);
    let mut err = None;
    let (steps, thresholds, intr) = sweep::drive(sc, with_l2, load_known, |rate| {
        let period = (1e9 / rate).round() as u64;
        let pulses = pulses_for(sc.step_ns, period);
        let (p0, t0) = (running.and_then(|l| l.progress()), monotonic_now());
        let ph = match run_phase(cfg, caps, progress, period, pulses) {
            Ok(p) => p,
            Err(e) => {
                err = Some(e);
                return None;
            }
        };
        let (p1, t1) = (running.and_then(|l| l.progress()), monotonic_now());
        if ph.interrupted || stop_requested() {
            return None;
        }
        let load_progress = match (p0, p1, baseline) {
            (Some(a), Some(b), Some(base)) => Some(per_second(a, b, t0, t1) / base.max(1e-9)),
            _ => None,
        };
        Some(sweep::Step {
            rate_hz: rate,
            l1_delivered: ph.stats.l1_delivered,
            l2_delivered: ph.stats.l2_delivered,
            load_progress,
            l1_p99: ph.stats.l1.summary.map(|s| s.p99),
            l2_p99: ph.stats.l2.summary.map(|s| s.p99),
            pulses: ph.stats.pulses,
        })
    });
    match err {
        Some(e) => Err(e),
        None => Ok((steps, thresholds, intr)),
    }
}

/// The baseline used for progress ratios: the better of the measurements before and after
/// the run (interference only ever lowers a measured rate). Measures "after" unless the run
/// was interrupted.
fn best_baseline(cfg: &RtConfig, before: Option<f64>, interrupted: bool) -> Result<Option<f64>, RtError> {
    let Some(before) = before else { return Ok(None) };
    if interrupted {
        return Ok(Some(before));
    }
    let after = load_baseline(cfg)?.unwrap_or(0.0);
    Ok(Some(before.max(after)))
}

/// Run `latlab rt` as configured; `progress` counts pulses.
pub fn run(cfg: &RtConfig, progress: Arc<AtomicU64>) -> Result<Outcome, RtError> {
    run_checkpointed(cfg, progress, &Checkpoint::default())
}

/// [`run`], storing what the phases measured so far through `ckpt` while they run and after
/// each phase, so a kill loses at most the last checkpoint's interval.
pub fn run_checkpointed(cfg: &RtConfig, progress: Arc<AtomicU64>, ckpt: &Checkpoint) -> Result<Outcome, RtError> {
    cfg.validate().map_err(RtError::Config)?;
    let mut rec = latlab_sys::record::begin("rt");
    let mut caps = Capabilities::new(cfg.strict);
    let with_l2 = cfg.signal != SignalKind::None;

    caps.record(platform::probe_sched(cfg.l1))?;
    let _dma = if cfg.hold_cpu_dma_latency {
        let (guard, c) = platform::hold_cpu_dma_latency(0);
        caps.record(c)?;
        Some(guard)
    } else {
        None
    };
    let _locked = if cfg.lock_memory {
        let (guard, c) = platform::lock_memory();
        caps.record(c)?;
        Some(guard)
    } else {
        None
    };
    // RT throttling while a real-time load runs: lifted for the run (restored when `_lifted`
    // drops: at the end, on error, Ctrl-C or panic), kept on request, or refused.
    // A real-time load, a command (whose scheduling latlab cannot know), or a sweep (whose
    // highest rates keep both levels busy) can use up the RT bandwidth.
    let rt_load = cfg.l1.policy.is_realtime()
        && (cfg.load_sched().is_some_and(|l| l.policy.is_realtime())
            || matches!(cfg.load, LoadSpec::Cmd { .. })
            || cfg.sweep.is_some());
    let before = platform::rt_throttling();
    if let Some(t) = before {
        rec.metric("rt_throttling.enabled", t.is_on() as i64, "bool");
    }
    let mut lifted = None;
    let throttling = match before {
        Some(t) if t.is_on() && rt_load => match cfg.throttling {
            throttle::Throttling::Keep => {
                rec.warn(format!(
                    "RT throttling is {t} and kept (`--rt-throttling keep`): a real-time load that uses up the RT bandwidth makes the kernel hold every real-time thread on its CPU, level 1 too, for the rest of each period; loaded figures show that hold"
                ));
                throttle::State::Kept
            }
            throttle::Throttling::Lift => {
                let cpus: Vec<usize> =
                    cfg.l1_cpu.iter().chain(cfg.l2_cpu.iter()).chain(cfg.load_cpus.iter()).copied().collect();
                let l = throttle::lift(&throttle::Knobs::default(), &cpus);
                for n in &l.notes {
                    rec.warn(format!("RT throttling: {n}"));
                }
                let state = match &l.refused {
                    Some(why) => {
                        caps.record(platform::Capability::refused(
                            "rt_throttling.lift",
                            "-1",
                            t.to_string(),
                            why.clone(),
                        ))?;
                        throttle::State::Refused(format!(
                            "RT throttling ({t}) could not be lifted: {why}; with it, a real-time load that uses up the RT bandwidth makes the kernel hold level 1 too"
                        ))
                    }
                    None => {
                        caps.record(platform::Capability::granted("rt_throttling.lift", "-1", "-1"))?;
                        rec.warn(format!(
                            "RT throttling lifted for this run and restored after it: {}",
                            l.changed.join("; ")
                        ));
                        throttle::State::Lifted(l.changed.clone())
                    }
                };
                lifted = Some((l, t));
                state
            }
        },
        _ => throttle::State::NotNeeded,
    };
    rec.metric("rt_throttling.lifted", matches!(throttling, throttle::State::Lifted(_)) as i64, "bool");
    rec.metric("overhead.record_per_sample", chain::record_cost(&MonotonicClock::new(), 100_000), "ns");

    let mut columns = Vec::new();
    let mut rows = Vec::new();
    let mut worst = Vec::new();
    let mut interrupted = false;
    let mut measured: Vec<(&'static str, ChainStats)> = Vec::new();
    // The load's unloaded rate, measured before the run (and again after it; see below).
    let baseline = if matches!(cfg.load, LoadSpec::None) { None } else { load_baseline(cfg)? };
    let mut loaded_rate = None;

    // What else the machine ran while the unloaded phase and sweep ran: a reason, if it was
    // not quiet, for the rows those decide.
    let mut noise: Vec<String> = Vec::new();
    if cfg.phases {
        let pulses = pulses_for(cfg.phase_ns, cfg.period_ns);
        let watch = latlab_sys::background::Watch::start();
        let un =
            run_phase_checkpointed(cfg, &mut caps, &progress, cfg.period_ns, pulses, Some((ckpt, &rec, "unloaded")));
        noise.extend(watch.stop().note(&mut rec, "unloaded.background", "the unloaded phase"));
        let un = un?;
        interrupted |= keep_phase(
            "unloaded",
            un,
            cfg.period_ns,
            &mut rec,
            with_l2,
            &mut rows,
            &mut worst,
            &mut columns,
            &mut measured,
        );
        if ckpt.every().is_some() {
            ckpt.save(rec.clone());
        }
        if !interrupted && !matches!(cfg.load, LoadSpec::None) {
            let l = load::start(cfg, 11, cfg.phase_ns)?.expect("a load was configured");
            for c in l.capabilities() {
                caps.record(platform::Capability { name: format!("load.{}", c.name), ..c })?;
            }
            let (p0, t0) = (l.progress(), monotonic_now());
            let lo =
                run_phase_checkpointed(cfg, &mut caps, &progress, cfg.period_ns, pulses, Some((ckpt, &rec, "loaded")));
            let (p1, t1) = (l.progress(), monotonic_now());
            l.stop();
            let lo = lo?;
            if let (Some(p0), Some(p1)) = (p0, p1) {
                loaded_rate = Some(per_second(p0, p1, t0, t1));
            }
            interrupted |= keep_phase(
                "loaded",
                lo,
                cfg.period_ns,
                &mut rec,
                with_l2,
                &mut rows,
                &mut worst,
                &mut columns,
                &mut measured,
            );
        }
        let col = Column::new;
        rec.tables.push(Table {
            name: "rt.phases".into(),
            title: format!(
                "Wake-up chain at {:.0} Hz (latency from the intended stimulus time)",
                1e9 / cfg.period_ns as f64
            ),
            columns: vec![
                col("phase", ""),
                col("level", ""),
                col("min", "ns"),
                col("p50", "ns"),
                col("p99", "ns"),
                col("p99.9", "ns"),
                col("max", "ns"),
                col("jitter", "ns"),
                col("missed", "count"),
                col("served", "count"),
            ],
            rows,
            plot: None,
        });
        rec.tables.push(latlab_model::worst::table("rt.worst", &["phase", "level"], worst));
    }

    let mut sweep_result = None;
    let mut final_baseline = None;
    let mut unloaded_sweep: Option<(sweep::Thresholds, f64)> = None;
    if let (Some(sc), false) = (&cfg.sweep, interrupted) {
        // Unloaded first (the seed's Figure 8 has MF-APP without the load as well), then loaded.
        if !matches!(cfg.load, LoadSpec::None) {
            let watch = latlab_sys::background::Watch::start();
            let swept = sweep_pass(cfg, &mut caps, &progress, sc, with_l2, None);
            noise.extend(watch.stop().note(&mut rec, "sweep.unloaded.background", "the unloaded sweep"));
            let (steps, t, intr) = swept?;
            interrupted |= intr;
            let max = sweep::record_thresholds(&mut rec, "sweep.unloaded", &t, &steps, sc.start_hz, false);
            unloaded_sweep = Some((t, max));
        }
    }
    if let (Some(sc), false) = (&cfg.sweep, interrupted) {
        let running = load::start(cfg, 13, sc.rates().len() as u64 * sc.step_ns)?;
        let measured = running.as_ref().zip(baseline).filter(|(l, _)| l.progress().is_some());
        let load_known = measured.is_some();
        let result = sweep_pass(cfg, &mut caps, &progress, sc, with_l2, measured);
        if let Some(l) = running {
            l.stop();
        }
        let (steps, thresholds, intr) = result?;
        interrupted |= intr;
        let mut steps = steps;
        let mut thresholds = thresholds;
        if let (Some(before), Some(best)) = (baseline, best_baseline(cfg, baseline, interrupted)?) {
            // Re-express progress against the better baseline and search again.
            for s in steps.iter_mut() {
                s.load_progress = s.load_progress.map(|p| p * before / best);
            }
            thresholds = sweep::find_thresholds(&steps, sc, with_l2);
            final_baseline = Some(best);
        }
        let max_rate = sweep::record_thresholds(&mut rec, "sweep", &thresholds, &steps, sc.start_hz, load_known);
        let l1_at_sf = thresholds.sf_hz.and_then(|r| steps.iter().find(|s| s.rate_hz == r)).map(|s| s.l1_delivered);
        let col = Column::new;
        let opt = |v: Option<f64>| v.map(serde_json::Value::from).unwrap_or(serde_json::Value::Null);
        rec.tables.push(Table {
            name: "rt.sweep".into(),
            title: "Frequency sweep under load: delivered pulses and load progress against stimulus rate".into(),
            columns: vec![
                col("rate_hz", "Hz"),
                col("l1_delivered", "ratio"),
                col("l2_delivered", "ratio"),
                col("load_progress", "ratio"),
                col("l1_p99", "ns"),
                col("l2_p99", "ns"),
            ],
            rows: steps
                .iter()
                .map(|s| {
                    vec![
                        s.rate_hz.into(),
                        s.l1_delivered.into(),
                        if with_l2 { s.l2_delivered.into() } else { serde_json::Value::Null },
                        opt(s.load_progress),
                        opt(s.l1_p99.map(|v| v as f64)),
                        opt(s.l2_p99.map(|v| v as f64)),
                    ]
                })
                .collect(),
            plot: Some(TablePlot {
                x: "rate_hz".into(),
                ys: vec!["l1_delivered".into(), "l2_delivered".into(), "load_progress".into()],
                log_x: true,
                log_y: false,
            }),
        });
        sweep_result = Some(paper::SweepOutcome { thresholds, max_rate, load_known, l1_at_sf });
    }

    let best = match final_baseline {
        Some(b) => Some(b),
        None => best_baseline(cfg, baseline, interrupted)?,
    };
    if let Some(b) = best {
        rec.metric("baseline.load.polygons_per_s", b, "Hz");
    }
    if let Some(b) = baseline {
        rec.metric("baseline.load.before_polygons_per_s", b, "Hz");
    }
    if let (Some(rate), Some(b)) = (loaded_rate, best) {
        rec.metric("loaded.load.polygons_per_s", rate, "Hz");
        rec.metric("loaded.load.progress", rate / b.max(1e-9), "ratio");
    }
    // Put RT throttling back before the record is finished, and say that it is back.
    if let Some((l, t)) = lifted {
        let errors = l.undo.undo();
        let back = throttle::restored(&throttle::Knobs::default(), &t.runtime_us.to_string());
        rec.metric("rt_throttling.restored", back as i64, "bool");
        for e in errors {
            rec.warn(format!("RT throttling: {e}"));
        }
        if !back && matches!(throttling, throttle::State::Lifted(_)) {
            rec.warn(format!(
                "RT throttling was not restored: write {} to /proc/sys/kernel/sched_rt_runtime_us by hand",
                t.runtime_us
            ));
        }
    }
    let noise = (!noise.is_empty()).then(|| noise.join("; "));
    paper::rows(&mut rec, cfg, &measured, sweep_result, unloaded_sweep, &throttling, noise.as_deref());
    rec.capabilities = caps.list.clone();
    rec.warnings.extend(caps.warnings());
    rec.finish(if interrupted { RunStatus::Interrupted } else { RunStatus::Complete });
    Ok(Outcome { record: rec, columns })
}
