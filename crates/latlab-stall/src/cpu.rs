//! `latlab stall`: the typing probe under CPU load (seed 003, §4.1, Figure 5). For each
//! scheduling of the load (policy and nice level: an axis, since medians and tails move
//! differently) and each count of spinning processes, the probe types for a while and the
//! run records echo latency, stalls and the fraction of time the user spent waiting.

use crate::analysis::ProbeStats;
use crate::probe::{ProbeConfig, run_probe};
use latlab_model::numfmt::sig;
use latlab_model::record::{Column, PaperRow, RunRecord, RunStatus, Series, Table, TablePlot};
use latlab_model::stats;
use latlab_model::verdict::Judgement;
use latlab_sys::platform::Policy;
use latlab_sys::record::Finish;
use latlab_sys::spin::{SpinError, SpinLoad, SpinSched};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Seed 003, Figure 5: (spinning processes, % of the time a typist waits) — over 50 % at a
/// load of 10 on the Celeron-333. The row and the figure both read it.
pub const FIGURE_5: (f64, f64) = (10.0, 50.0);

/// Why the experiment failed.
#[derive(Debug, thiserror::Error)]
pub enum StallError {
    /// The load could not start.
    #[error(transparent)]
    Spin(#[from] SpinError),
    /// A socket or thread of the probe failed.
    #[error("the typing probe: {0}")]
    Probe(#[from] std::io::Error),
    /// A setting is out of range.
    #[error("{0}")]
    Config(#[from] latlab_model::ConfigError),
    /// The command the idle watcher compares with could not start.
    #[error("starting `{command}`")]
    Command {
        /// The command.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// What `latlab stall` sweeps.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CpuConfig {
    /// Spinning processes per level.
    pub loads: Vec<usize>,
    /// Schedulings of the load.
    pub policies: Vec<SpinSched>,
    /// Seconds of typing per level.
    pub seconds: u64,
    /// Time between keys, ns.
    pub interval_ns: u64,
    /// Server CPU per key, ns.
    pub work_ns: u64,
    /// Ask for SCHED_FIFO for the probe's threads.
    pub fifo_probe: bool,
}

/// The load schedulings by name: `other`, `batch`, `idle`, or `niceN` (other at nice N).
pub fn parse_sched(name: &str) -> Option<SpinSched> {
    Some(match name {
        "other" => SpinSched { policy: Policy::Other, nice: 0 },
        "batch" => SpinSched { policy: Policy::Batch, nice: 0 },
        "idle" => SpinSched { policy: Policy::Idle, nice: 0 },
        n => SpinSched { policy: Policy::Other, nice: n.strip_prefix("nice")?.parse().ok()? },
    })
}

/// A scheduling's name in metrics (`None` for the default: plain `cpu.n<N>.…`).
pub fn sched_key(s: SpinSched) -> Option<String> {
    match (s.policy, s.nice) {
        (Policy::Other, 0) => None,
        (Policy::Other, n) => Some(format!("nice{n}")),
        (Policy::Batch, 0) => Some("batch".into()),
        (Policy::Batch, n) => Some(format!("batch_nice{n}")),
        (p, _) => Some(p.to_string()),
    }
}

fn label(s: SpinSched) -> String {
    sched_key(s).unwrap_or_else(|| "other".into())
}

impl CpuConfig {
    /// The full sweep.
    pub fn full() -> Self {
        Self {
            loads: crate::defaults::CPU_LOADS.to_vec(),
            policies: crate::defaults::CPU_POLICIES.iter().filter_map(|n| parse_sched(n)).collect(),
            seconds: crate::defaults::SECONDS,
            interval_ns: crate::defaults::KEY_INTERVAL_NS,
            work_ns: crate::defaults::WORK_NS,
            fifo_probe: true,
        }
    }

    /// The suite's version: three levels, the default and the idle policy, 2 s each.
    pub fn short() -> Self {
        Self {
            loads: vec![0, 4, 20],
            policies: ["other", "idle"].iter().filter_map(|n| parse_sched(n)).collect(),
            seconds: 2,
            ..Self::full()
        }
    }

    /// Levels run (for progress).
    pub fn steps(&self) -> u64 {
        (self.loads.len() * self.policies.len()) as u64
    }

    /// Levels measured: load 0 once, whatever the policies.
    pub fn runs(&self) -> u64 {
        let zero = self.loads.contains(&0);
        self.steps() - if zero { self.policies.len().saturating_sub(1) as u64 } else { 0 }
    }

    /// Check the settings.
    pub fn validate(&self) -> Result<(), StallError> {
        if self.loads.is_empty() || self.policies.is_empty() {
            return Err(StallError::Config("give at least one load and one policy".into()));
        }
        if let Some(&n) = self.loads.iter().find(|&&n| n > 256) {
            return Err(StallError::Config(format!("load {n}: at most 256 spinning processes").into()));
        }
        if !(1_000_000..=10_000_000_000).contains(&self.interval_ns) {
            return Err(StallError::Config("key interval: 1 ms to 10 s".into()));
        }
        if self.work_ns >= self.interval_ns {
            return Err(StallError::Config("the work per key must be shorter than the key interval".into()));
        }
        if self.seconds == 0 {
            return Err(StallError::Config("--duration must be at least 1s".into()));
        }
        Ok(())
    }

    fn keys(&self) -> u64 {
        (self.seconds * 1_000_000_000 / self.interval_ns).max(2)
    }
}

/// One level's result.
#[derive(Debug, Clone)]
pub struct Level {
    /// The load's scheduling.
    pub sched: SpinSched,
    /// Spinning processes.
    pub load: usize,
    /// What the probe saw.
    pub stats: ProbeStats,
}

/// Run the sweep with `measure` doing one level (the real one starts the load and runs the
/// probe; tests pass a fake).
pub fn sweep(
    cfg: &CpuConfig,
    progress: &AtomicU64,
    mut measure: impl FnMut(SpinSched, usize) -> Result<ProbeStats, StallError>,
) -> Result<(Vec<Level>, bool), StallError> {
    cfg.validate()?;
    let mut out = Vec::new();
    for &sched in &cfg.policies {
        for &load in &cfg.loads {
            if latlab_sys::interrupt::stop_requested() {
                return Ok((out, true));
            }
            // With no spinners the load's scheduling changes nothing: run load 0 once.
            let ran = out.iter().find(|l: &&Level| l.load == 0 && load == 0).map(|l| l.stats.clone());
            let stats = match ran {
                Some(s) => s,
                None => measure(sched, load)?,
            };
            progress.fetch_add(1, Ordering::Relaxed);
            out.push(Level { sched, load, stats });
        }
    }
    Ok((out, false))
}

fn ms(ns: f64) -> serde_json::Value {
    ((ns / 1e4).round() / 100.0).into()
}

/// Turn the levels into `rec` (begun before the sweep).
pub fn record(mut rec: RunRecord, cfg: &CpuConfig, levels: &[Level], interrupted: bool) -> RunRecord {
    rec.mode = "cpu".into();
    rec.config("loads", &cfg.loads);
    rec.config("policies", cfg.policies.iter().map(|&s| label(s)).collect::<Vec<_>>());
    rec.config("seconds_per_level", cfg.seconds);
    rec.config("load_0", "run once, for the first policy: with no spinners their scheduling changes nothing");
    rec.config("key_interval_ns", cfg.interval_ns);
    rec.config("work_ns", cfg.work_ns);
    rec.config("cpus", std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    for &sched in &cfg.policies {
        let mut rows = Vec::new();
        for l in levels.iter().filter(|l| l.sched == sched) {
            let p = match sched_key(sched) {
                Some(k) => format!("cpu.{k}.n{}", l.load),
                None => format!("cpu.n{}", l.load),
            };
            let s = &l.stats;
            let stall = stats::summarize(&s.stalls);
            let echo = stats::summarize(&s.echo);
            if let Some(st) = &stall {
                rec.metric(&format!("{p}.stall.mean"), st.mean, "ns");
                rec.metric(&format!("{p}.stall.p99"), st.p99, "ns");
                rec.metric(&format!("{p}.stall.max"), st.max, "ns");
            }
            if let Some(e) = &echo {
                rec.metric(&format!("{p}.echo.p50"), e.p50, "ns");
                rec.metric(&format!("{p}.echo.p99"), e.p99, "ns");
                rec.metric(&format!("{p}.echo.mean"), e.mean, "ns");
            }
            rec.metric(&format!("{p}.waiting_fraction"), s.waiting_fraction, "ratio");
            rec.metric(&format!("{p}.lost"), s.lost, "count");
            if sched_key(sched).is_none() {
                rec.series.push(Series {
                    name: format!("{p}.echo"),
                    unit: "ns".into(),
                    description: format!("echo latency per key with {} spinning processes, ns", l.load),
                    values: s.echo.clone(),
                });
            }
            rows.push(vec![
                l.load.into(),
                ms(stall.as_ref().map_or(0.0, |x| x.mean)),
                ms(stall.as_ref().map_or(0.0, |x| x.p99 as f64)),
                ms(echo.as_ref().map_or(0.0, |x| x.p50 as f64)),
                ms(echo.as_ref().map_or(0.0, |x| x.p99 as f64)),
                ((s.waiting_fraction * 1000.0).round() / 10.0).into(),
                s.lost.into(),
            ]);
        }
        let c = Column::new;
        rec.tables.push(Table {
            name: format!("cpu.{}", label(sched)),
            title: format!(
                "Typing at {:.0} keys/s, {} ms of server CPU a key, against spinning processes at {}: stalls and echo latency",
                1e9 / cfg.interval_ns as f64,
                cfg.work_ns as f64 / 1e6,
                sched
            ),
            columns: vec![
                c("load", "processes"),
                c("stall mean", "ms"),
                c("stall p99", "ms"),
                c("echo p50", "ms"),
                c("echo p99", "ms"),
                c("waiting", "%"),
                c("lost", "keys"),
            ],
            rows,
            plot: Some(TablePlot {
                x: "load".into(),
                ys: vec!["stall mean".into(), "stall p99".into(), "echo p99".into()],
                log_x: false,
                log_y: false,
            }),
        });
    }
    // The study's Figure 5: none at low load, over half the time waiting at 10 (one CPU).
    // (Held to half the seed's share below: "much of the time".)
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let default: Vec<&Level> = levels.iter().filter(|l| sched_key(l.sched).is_none()).collect();
    if let Some(top) = default.iter().max_by_key(|l| l.load) {
        // Calm: under 1 % of the time waiting, or under one key interval of waiting where a
        // level is too short to resolve 1 % (the suite's 2 s at 20 keys a second is 40 keys:
        // one late key is already 2.5 %).
        let calm_below = (cfg.interval_ns as f64 / (cfg.seconds.max(1) as f64 * 1e9)).max(0.01);
        let calm = default.iter().filter(|l| l.stats.waiting_fraction < calm_below).map(|l| l.load).max();
        let calm_pct = sig(100.0 * calm_below);
        rec.paper.push(PaperRow {
            seed: "003".into(),
            figure: "Figure 5: stall under CPU load (keys at 20/s)".into(),
            paper_setting: "NT 4.0 TSE, one Celeron-333, N tight-loop processes, Notepad with key repeat".into(),
            paper_value: format!(
                "no stalls at low load; over {} % of the time waiting at load {}",
                FIGURE_5.1, FIGURE_5.0
            ),
            here_value: format!(
                "{:.0} % waiting at load {} ({} per CPU), mean stall {} ms; {}",
                100.0 * top.stats.waiting_fraction,
                top.load, sig(top.load as f64 / cpus as f64), sig(stats::mean(&top.stats.stalls).unwrap_or(0.0) / 1e6),
                match calm {
                    Some(c) if c > 0 => format!("under {calm_pct} % waiting up to load {c}"),
                    Some(_) => format!("under {calm_pct} % waiting without load only"),
                    None => format!("over {calm_pct} % waiting at every load tried, even without load"),
                }
            ),
            note: format!(
                "{cpus} CPUs here; spinners at the default policy, nice 0; the probe's threads at SCHED_FIFO when granted; a level counts as calm under {calm_pct} % waiting (1 %, or one key interval where a level of {} s cannot resolve 1 %)",
                cfg.seconds
            ),
            judgement: Judgement::finding(
                calm.is_some_and(|c| c > 0) && top.stats.waiting_fraction >= 0.25,
                "no stalls at low load, and much of the time waiting at the top load (the seed's > 50 % at 10 on one CPU, held to ≥ 25 %)",
                &format!(
                    "{}, {:.0} % waiting at load {}",
                    match calm {
                        Some(c) if c > 0 => format!("under {calm_pct} % waiting up to load {c}"),
                        Some(_) => format!("over {calm_pct} % waiting at every load but none"),
                        None => format!("over {calm_pct} % waiting at every load, even none"),
                    },
                    100.0 * top.stats.waiting_fraction,
                    top.load
                ),
                &format!(
                    "{} spinners per CPU here at the top against the seed's 10 on one; Linux's CFS shares the CPU more finely than NT 4.0's quantum",
                    sig(top.load as f64 / cpus as f64)
                ),
            ),
        });
    }
    rec.finish(if interrupted { RunStatus::Interrupted } else { RunStatus::Complete });
    rec
}

/// Run the sweep for real.
pub fn run_cpu(cfg: &CpuConfig, progress: Arc<AtomicU64>) -> Result<RunRecord, StallError> {
    let keys = cfg.keys();
    let probe = ProbeConfig { interval_ns: cfg.interval_ns, keys, work_ns: cfg.work_ns, fifo: cfg.fifo_probe };
    let mut capability = None;
    let mut overhead = Vec::new();
    let begun = latlab_sys::record::begin("stall");
    let (levels, interrupted) = sweep(cfg, &progress, |sched, n| {
        let load = SpinLoad::start(n, sched)?;
        std::thread::sleep(std::time::Duration::from_nanos(crate::defaults::SETTLE_NS));
        let r = run_probe(&probe);
        load.stop();
        let r = r?;
        if capability.is_none() {
            capability = r.capability.clone();
        }
        overhead.push(r.probe_cpu_per_key_ns);
        Ok(r.stats)
    })?;
    let mut rec = record(begun, cfg, &levels, interrupted);
    if let Some(c) = capability {
        if let Some(w) = c.warning() {
            rec.warn(format!("{w}: the probe's threads ran at the default policy and share the load they measure"));
        }
        rec.capabilities.push(c);
    }
    if let Some(m) = stats::mean(&overhead.iter().map(|&x| x as i64).collect::<Vec<_>>()) {
        rec.metric("probe.cpu_per_key", m, "ns");
    }
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;

    const MS: u64 = 1_000_000;

    /// A made-up machine: the server is away for `n` × 10 ms after every fifth key.
    fn fake(n: usize) -> ProbeStats {
        let intended: Vec<u64> = (0..40).map(|k| k * 50 * MS).collect();
        let mut free = 0;
        let answered: Vec<Option<u64>> = intended
            .iter()
            .enumerate()
            .map(|(k, &t)| {
                let away = if k % 5 == 4 { n as u64 * 10 * MS } else { 0 };
                free = free.max(t) + MS + away;
                Some(free)
            })
            .collect();
        analyze(&intended, &answered, 50 * MS)
    }

    #[test]
    fn the_sweep_runs_every_level_and_records_each_policy() {
        let cfg = CpuConfig { loads: vec![0, 2, 8], seconds: 1, ..CpuConfig::full() };
        let progress = AtomicU64::new(0);
        let mut calls = Vec::new();
        let (levels, stopped) = sweep(&cfg, &progress, |s, n| {
            calls.push((label(s), n));
            Ok(fake(n))
        })
        .unwrap();
        assert!(!stopped);
        assert_eq!(levels.len(), 12);
        assert_eq!(progress.load(Ordering::Relaxed), 12);
        assert_eq!(calls[..3], [("other".to_string(), 0), ("other".to_string(), 2), ("other".to_string(), 8)]);
        // Load 0 runs once: with no spinners their scheduling changes nothing.
        assert_eq!(calls.iter().filter(|c| c.1 == 0).count(), 1, "{calls:?}");
        assert_eq!(calls.len(), 12 - (cfg.policies.len() - 1));
        let rec = record(latlab_sys::record::begin("stall"), &cfg, &levels, false);
        let m = |n: &str| rec.get_metric(n).unwrap_or_else(|| panic!("{n}")).value.as_f64();
        assert_eq!(m("cpu.n0.stall.mean"), 0.0);
        assert_eq!(m("cpu.n0.waiting_fraction"), 0.0);
        // Load 8: 80 ms away after every fifth key.
        assert!(m("cpu.n8.stall.max") >= 70.0 * MS as f64, "{}", m("cpu.n8.stall.max"));
        assert!(m("cpu.n8.waiting_fraction") > m("cpu.n2.waiting_fraction"));
        assert!(m("cpu.idle.n8.echo.p99") > m("cpu.idle.n0.echo.p99"));
        assert!(rec.get_metric("cpu.nice19.n2.stall.p99").is_some());
        assert!(rec.get_series("cpu.n8.echo").is_some());
        assert_eq!(rec.tables.len(), 4);
        assert!(rec.paper[0].here_value.contains("at load 8"), "{}", rec.paper[0].here_value);
    }

    #[test]
    fn schedulings_parse_and_bad_settings_are_refused() {
        assert_eq!(parse_sched("nice19"), Some(SpinSched { policy: Policy::Other, nice: 19 }));
        assert_eq!(parse_sched("idle").map(sched_key), Some(Some("idle".into())));
        assert_eq!(parse_sched("fifo"), None);
        let bad = CpuConfig { work_ns: 60 * MS, ..CpuConfig::full() };
        assert!(matches!(bad.validate(), Err(StallError::Config(m)) if m.contains("shorter")));
        let bad = CpuConfig { loads: vec![1000], ..CpuConfig::full() };
        assert!(bad.validate().is_err());
    }

    #[test]
    fn a_real_level_cleans_up_its_load() {
        let cfg = CpuConfig {
            loads: vec![2],
            policies: vec![parse_sched("nice19").unwrap()],
            seconds: 1,
            interval_ns: 20 * MS,
            work_ns: MS / 10,
            fifo_probe: false,
        };
        let before = children();
        let rec = run_cpu(&cfg, Arc::new(AtomicU64::new(0))).unwrap();
        assert_eq!(rec.get_metric("cpu.nice19.n2.lost").unwrap().value.as_f64(), 0.0);
        assert_eq!(children(), before, "no spinner is left running");
    }

    /// Our live child processes that are forks of this binary (the spinners; not the
    /// shells other tests start).
    fn children() -> usize {
        let me = std::process::id().to_string();
        let comm = |s: &str| s.split_once('(').and_then(|(_, r)| r.rsplit_once(')')).map(|(c, _)| c.to_string());
        let own = comm(&std::fs::read_to_string("/proc/self/stat").unwrap());
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
            .filter(|s| {
                let f: Vec<&str> = s.rsplit(')').next().unwrap_or("").split_whitespace().collect();
                f.get(1) == Some(&me.as_str()) && f.first() != Some(&"Z") && comm(s) == own
            })
            .count()
    }
}
