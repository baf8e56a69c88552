//! `latlab selftest`: how far this machine's clock and timers can be trusted — clock
//! resolution and read cost, sleep accuracy (lateness from the intended wake-up) at 1 ms and
//! 100 µs with the default policy, with 1 ns timer slack, with SCHED_FIFO and with a
//! busy-wait tail, a period sweep, and what scheduling the machine grants.
//!
//! Metric names (all lateness values in ns, measured from the absolute deadline):
//! - `clock.resolution`, `clock.read_cost.mean`, `clock.read_delta.{min,p50,p99,max}`
//! - `timer_slack.default`, `sched.fifo.granted`, `sched.fifo.max_priority`,
//!   `rt_throttling.enabled`, `rt_throttling.runtime`, `rt_throttling.period`,
//!   `cpu_dma_latency.held`, `mlockall.granted`
//! - `sleep.<case>.<period>.{min,p50,p99,p999,max,mean,jitter,count,missed}` for case
//!   `other` (default policy and slack), `other_slack1` (1 ns slack), `fifo`
//!   (SCHED_FIFO), `fifo_spin` (SCHED_FIFO + busy-wait tail) and period `1ms`, `100us`
//! - table `sleep.sweep`: lateness against period for the best policy granted.
//!
//! | file | holds |
//! |---|---|
//! | `defaults.rs` | Every default of `latlab selftest`, with the reason it has that value |

pub mod defaults;

use latlab_sys::clock::{
    MonotonicClock, Nanos, Periodic, Timebase, monotonic_now, monotonic_resolution, set_timer_slack, timer_slack,
};
use latlab_sys::record::Finish;

use latlab_model::record::{Column, RunRecord, RunStatus, Series, Table, TablePlot, fmt_ns};
use latlab_model::stats;
use latlab_sys::interrupt::stop_requested;
use latlab_sys::platform::{self, Capabilities, CapabilityRefused, Policy, Sched};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Configuration of a selftest run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SelftestConfig {
    /// Wake-ups per sleep-accuracy case.
    pub sleep_samples: usize,
    /// Wake-ups per sweep period.
    pub sweep_samples: usize,
    /// Periods of the sweep, ns.
    pub sweep_periods_ns: Vec<u64>,
    /// SCHED_FIFO priority to ask for.
    pub fifo_priority: i32,
    /// Clock reads for the read-cost figure.
    pub clock_reads: usize,
    /// Hold /dev/cpu_dma_latency at 0 while running.
    pub hold_cpu_dma_latency: bool,
    /// Lock memory while running.
    pub lock_memory: bool,
    /// Turn a refused capability into an error.
    pub strict: bool,
}

impl SelftestConfig {
    /// Full selftest.
    pub fn full() -> Self {
        Self {
            sleep_samples: defaults::SELFTEST_SLEEP_SAMPLES,
            sweep_samples: defaults::SELFTEST_SLEEP_SAMPLES / 2,
            sweep_periods_ns: defaults::SELFTEST_SWEEP_PERIODS_NS.to_vec(),
            fifo_priority: latlab_sys::defaults::RT_PRIORITY,
            clock_reads: defaults::CLOCK_READS,
            hold_cpu_dma_latency: true,
            lock_memory: true,
            strict: false,
        }
    }
    /// The short version `latlab suite` runs.
    pub fn short() -> Self {
        Self {
            sleep_samples: defaults::SUITE_SLEEP_SAMPLES,
            sweep_samples: defaults::SUITE_SLEEP_SAMPLES / 2,
            ..Self::full()
        }
    }
    /// Total wake-ups, for progress.
    pub fn total_steps(&self) -> u64 {
        (CASES.len() * PERIODS.len() * self.sleep_samples + self.sweep_periods_ns.len() * self.sweep_samples) as u64
    }
}

impl Default for SelftestConfig {
    fn default() -> Self {
        Self::full()
    }
}

/// The selftest as an [`Experiment`](latlab_model::experiment::Experiment).
pub struct Selftest;

impl latlab_model::experiment::Experiment for Selftest {
    type Config = SelftestConfig;
    const NAME: &'static str = "selftest";
    const DOCS: &'static str = "docs/experiments/selftest.md";
    const ABOUT: &'static str = "clock and timer trustworthiness, scheduling granted";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("clock.read_cost.mean", "clock read"),
        ("sleep.other.1ms.p99", "1 ms sleep p99 (default)"),
        ("sleep.fifo.100us.p99", "100 µs sleep p99 (FIFO)"),
        ("sleep.fifo.100us.max", "100 µs sleep max (FIFO)"),
    ];
    fn suite_configs(strict: bool) -> Vec<SelftestConfig> {
        vec![SelftestConfig { strict, ..SelftestConfig::short() }]
    }
    fn validate(cfg: &SelftestConfig) -> Result<(), latlab_model::ConfigError> {
        if cfg.sleep_samples == 0 || cfg.sweep_samples == 0 {
            return Err("--samples must be at least 1".into());
        }
        if !(1..=99).contains(&cfg.fifo_priority) {
            return Err(format!("FIFO priority {} must be 1–99", cfg.fifo_priority).into());
        }
        Ok(())
    }
    fn steps(cfg: &SelftestConfig) -> u64 {
        cfg.total_steps()
    }
    fn announce(_: &SelftestConfig) -> String {
        "selftest: measuring (Ctrl-C stops and keeps what was measured)".into()
    }
    fn verdict(rec: &RunRecord) -> Option<String> {
        verdict(rec)
    }
    fn run(
        cfg: &SelftestConfig,
        ctx: &latlab_model::experiment::RunContext,
    ) -> Result<latlab_model::experiment::Outcome, latlab_model::experiment::ExperimentError> {
        Ok(run(cfg, Some(ctx.progress.clone()))?.into())
    }
}

/// What the run means for this machine, in one sentence: how fine a figure its timers and clock
/// can be trusted for (thresholds in [`defaults`]), from the best scheduling it granted. `None`
/// for a run stopped before the 100 µs case of that scheduling.
pub fn verdict(rec: &RunRecord) -> Option<String> {
    let m = |n: &str| rec.get_metric(n).map(|x| x.value.as_f64());
    let fifo = m("sched.fifo.granted") == Some(1.0);
    let (case, how) = if fifo {
        ("fifo", "with SCHED_FIFO")
    } else {
        (
            "other_slack1",
            "with the default policy (real-time priority was refused: run as root or grant CAP_SYS_NICE for rt's figures)",
        )
    };
    let p99 = m(&format!("sleep.{case}.100us.p99"))?;
    let (res, cost) = (m("clock.resolution")?, m("clock.read_cost.mean")?);
    let fit = if p99 <= defaults::VERDICT_FINE_P99_NS {
        "fit for sub-millisecond figures"
    } else if p99 <= defaults::VERDICT_COARSE_P99_NS {
        "fit for millisecond figures, not for sub-millisecond ones"
    } else {
        "too late for even millisecond figures to be the system's own"
    };
    let clock = if res > defaults::VERDICT_CLOCK_NS || cost > defaults::VERDICT_CLOCK_NS {
        format!("; its clock is coarse ({} resolution, {} a read)", fmt_ns(res), fmt_ns(cost))
    } else {
        format!("; the clock resolves {} at {} a read", fmt_ns(res), fmt_ns(cost))
    };
    Some(format!("This machine's timers are {fit}: a 100 µs wake-up is late by {} at p99 {how}{clock}.", fmt_ns(p99)))
}

/// Result of one periodic-sleep loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SleepResult {
    /// Lateness of each wake-up from its deadline, ns (in order).
    pub lateness: Vec<i64>,
    /// Deadlines that passed entirely while the thread was still late (overruns).
    pub missed: u64,
    /// True if stopped early by Ctrl-C.
    pub interrupted: bool,
}

/// Sleep `n` times on absolute deadlines `start + k·period` and record each wake-up's
/// lateness. The timed loop reads the clock, stores into preallocated memory, bumps a
/// relaxed counter and checks the stop flag: nothing else.
pub fn sleep_lateness(
    tb: &dyn Timebase,
    period: Nanos,
    n: usize,
    progress: &AtomicU64,
    stop: &dyn Fn() -> bool,
) -> SleepResult {
    let mut lateness = vec![0i64; n];
    let mut missed = 0u64;
    let sched = Periodic { start: tb.now() + period, interval: period };
    let mut done = 0;
    let mut k = 0u64;
    while done < n {
        if stop() {
            break;
        }
        let deadline = sched.deadline(k);
        let woke = tb.sleep_until(deadline);
        lateness[done] = woke as i64 - deadline as i64;
        let over = sched.overrun(k, woke);
        missed += over;
        // Skip the deadlines that already passed: measuring them would only measure the
        // backlog; they are counted as missed instead.
        k += 1 + over;
        done += 1;
        progress.fetch_add(1, Ordering::Relaxed);
    }
    lateness.truncate(done);
    SleepResult { lateness, missed, interrupted: done < n }
}

/// The sleep-accuracy cases: name, scheduling, timer slack, busy-wait tail.
const CASES: [(&str, Option<Policy>, Option<Nanos>, Nanos); 4] = [
    ("other", None, None, 0),
    ("other_slack1", None, Some(latlab_sys::defaults::MEASURE_TIMER_SLACK_NS), 0),
    ("fifo", Some(Policy::Fifo), Some(latlab_sys::defaults::MEASURE_TIMER_SLACK_NS), 0),
    (
        "fifo_spin",
        Some(Policy::Fifo),
        Some(latlab_sys::defaults::MEASURE_TIMER_SLACK_NS),
        latlab_sys::defaults::SPIN_TAIL_NS,
    ),
];
const PERIODS: [(&str, Nanos); 2] = [("1ms", 1_000_000), ("100us", 100_000)];

/// Run one case on a fresh thread with the requested scheduling; returns the result and the
/// capability records of what the thread got.
fn run_case(
    sched: Option<Sched>,
    slack: Option<Nanos>,
    spin: Nanos,
    period: Nanos,
    n: usize,
    progress: Arc<AtomicU64>,
) -> (SleepResult, Vec<platform::Capability>) {
    std::thread::spawn(move || {
        let mut caps = Vec::new();
        if let Some(s) = sched {
            caps.push(platform::set_sched(s));
        }
        if let Some(ns) = slack {
            // Real-time threads ignore slack; asking is harmless and recorded.
            match set_timer_slack(ns) {
                Ok(got) => {
                    caps.push(platform::Capability::granted("timer_slack", format!("{ns} ns"), format!("{got} ns")))
                }
                Err(e) => caps.push(platform::Capability::refused(
                    "timer_slack",
                    format!("{ns} ns"),
                    "default",
                    e.to_string(),
                )),
            }
        }
        let clock = MonotonicClock::with_spin_tail(spin);
        let r = sleep_lateness(&clock, period, n, &progress, &stop_requested);
        (r, caps)
    })
    .join()
    .expect("selftest measuring thread panicked")
}

fn clock_read_cost(reads: usize) -> (f64, Vec<i64>) {
    let t0 = monotonic_now();
    for _ in 0..reads {
        std::hint::black_box(monotonic_now());
    }
    let mean = (monotonic_now() - t0) as f64 / reads.max(1) as f64;
    let mut deltas = vec![0i64; defaults::CLOCK_DELTA_SAMPLES];
    let mut prev = monotonic_now();
    for d in deltas.iter_mut() {
        let t = monotonic_now();
        *d = (t - prev) as i64;
        prev = t;
    }
    (mean, deltas)
}

/// Run the selftest; returns the record (complete, or interrupted with what was measured).
pub fn run(cfg: &SelftestConfig, progress: Option<Arc<AtomicU64>>) -> Result<RunRecord, CapabilityRefused> {
    let mut rec = latlab_sys::record::begin("selftest");
    let mut caps = Capabilities::new(cfg.strict);
    let progress = progress.unwrap_or_default();

    // What the machine grants.
    let fifo_probe = platform::probe_fifo(cfg.fifo_priority);
    let fifo_ok = fifo_probe.granted;
    caps.record(fifo_probe)?;
    let fifo_max = platform::max_priority(Policy::Fifo);
    let _dma = if cfg.hold_cpu_dma_latency {
        let (guard, c) = platform::hold_cpu_dma_latency(0);
        rec.metric("cpu_dma_latency.held", c.granted as i64, "bool");
        caps.record(c)?;
        Some(guard)
    } else {
        rec.metric("cpu_dma_latency.held", 0i64, "bool");
        None
    };
    let _locked = if cfg.lock_memory {
        let (guard, c) = platform::lock_memory();
        rec.metric("mlockall.granted", c.granted as i64, "bool");
        caps.record(c)?;
        Some(guard)
    } else {
        None
    };
    rec.metric("sched.fifo.granted", fifo_ok as i64, "bool");
    rec.metric("sched.fifo.max_priority", fifo_max as i64, "count");
    if let Some(t) = platform::rt_throttling() {
        rec.metric("rt_throttling.enabled", t.is_on() as i64, "bool");
        rec.metric("rt_throttling.runtime", t.runtime_us.saturating_mul(1000), "ns");
        rec.metric("rt_throttling.period", t.period_us.saturating_mul(1000), "ns");
        if t.is_on() {
            rec.warn(format!(
                "RT throttling is {t}: a real-time thread that spins longer is paused until the next period"
            ));
        }
    }
    if let Some(s) = timer_slack() {
        rec.metric("timer_slack.default", s, "ns");
    }

    // Clock.
    rec.metric("clock.resolution", monotonic_resolution(), "ns");
    let (read_mean, deltas) = clock_read_cost(cfg.clock_reads);
    rec.metric("clock.read_cost.mean", read_mean, "ns");
    if let Some(s) = stats::summarize(&deltas) {
        for (k, v) in [("min", s.min), ("p50", s.p50), ("p99", s.p99), ("max", s.max)] {
            rec.metric(&format!("clock.read_delta.{k}"), v, "ns");
        }
    }
    rec.series.push(Series {
        name: "clock.read_delta".into(),
        unit: "ns".into(),
        description: "time between two consecutive CLOCK_MONOTONIC reads".into(),
        values: deltas,
    });

    // Sleep accuracy.
    let prio = cfg.fifo_priority;
    let mut interrupted = false;
    'cases: for (pname, period) in PERIODS {
        for (cname, policy, slack, spin) in CASES {
            if policy.is_some() && !fifo_ok {
                continue;
            }
            if stop_requested() {
                interrupted = true;
                break 'cases;
            }
            let sched = policy.map(|p| Sched { policy: p, priority: prio });
            let (r, got) = run_case(sched, slack, spin, period, cfg.sleep_samples, progress.clone());
            for c in got {
                caps.record(c)?;
            }
            let prefix = format!("sleep.{cname}.{pname}");
            if let Some(s) = stats::summarize(&r.lateness) {
                rec.summary_metrics(&prefix, &s, "ns");
                rec.metric(&format!("{prefix}.missed"), r.missed, "count");
            }
            rec.series.push(Series {
                name: prefix,
                unit: "ns".into(),
                description: format!(
                    "wake-up lateness, period {}, {}{}",
                    fmt_ns(period as f64),
                    sched.map(|s| s.to_string()).unwrap_or_else(|| "default policy".into()),
                    if spin > 0 { format!(", {} busy-wait tail", fmt_ns(spin as f64)) } else { String::new() }
                ),
                values: r.lateness,
            });
            if r.interrupted {
                interrupted = true;
                break 'cases;
            }
        }
    }

    // Period sweep with the best policy granted.
    let sweep_sched = fifo_ok.then_some(Sched { policy: Policy::Fifo, priority: prio });
    let mut rows = Vec::new();
    if !interrupted {
        for &period in &cfg.sweep_periods_ns {
            let (r, _) = run_case(
                sweep_sched,
                Some(latlab_sys::defaults::MEASURE_TIMER_SLACK_NS),
                0,
                period,
                cfg.sweep_samples,
                progress.clone(),
            );
            if let Some(s) = stats::summarize(&r.lateness) {
                rows.push(vec![period.into(), s.min.into(), s.p50.into(), s.p99.into(), s.max.into(), r.missed.into()]);
            }
            if r.interrupted {
                interrupted = true;
                break;
            }
        }
    }
    let col = Column::new;
    rec.tables.push(Table {
        name: "sleep.sweep".into(),
        title: format!(
            "Sleep lateness against period ({})",
            sweep_sched.map(|s| s.to_string()).unwrap_or_else(|| "default policy".into())
        ),
        columns: vec![
            col("period", "ns"),
            col("min", "ns"),
            col("p50", "ns"),
            col("p99", "ns"),
            col("max", "ns"),
            col("missed", "count"),
        ],
        rows,
        plot: Some(TablePlot {
            x: "period".into(),
            ys: vec!["p50".into(), "p99".into(), "max".into()],
            log_x: true,
            log_y: true,
        }),
    });

    rec.capabilities = caps.list.clone();
    rec.warnings.extend(caps.warnings());
    rec.finish(if interrupted { RunStatus::Interrupted } else { RunStatus::Complete });
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_sys::clock::FakeClock;

    #[test]
    fn lateness_is_measured_from_the_intended_time() {
        let clock = FakeClock::with_lateness(1_000_000, vec![100, 2_500, 0, 50]);
        let p = AtomicU64::new(0);
        let r = sleep_lateness(&clock, 1_000, 8, &p, &|| false);
        // Wake-up 2 is 2,500 ns late with a 1,000 ns period: it overran deadlines 2 and 3
        // (woke at d1+2500 > d3), which are counted as missed and skipped, not re-measured.
        assert_eq!(r.lateness, vec![100, 2_500, 0, 50, 100, 2_500, 0, 50]);
        assert_eq!(r.missed, 4);
        assert!(!r.interrupted);
        assert_eq!(p.load(Ordering::Relaxed), 8);
    }

    #[test]
    fn stop_keeps_what_was_measured() {
        let clock = FakeClock::new(0);
        let p = AtomicU64::new(0);
        let r = sleep_lateness(&clock, 1_000, 100, &p, &|| p.load(Ordering::Relaxed) >= 10);
        assert_eq!(r.lateness.len(), 10);
        assert!(r.interrupted);
    }

    #[test]
    fn tiny_real_selftest_produces_named_metrics() {
        let cfg = SelftestConfig {
            sleep_samples: 20,
            sweep_samples: 10,
            sweep_periods_ns: vec![200_000, 100_000],
            clock_reads: 1000,
            hold_cpu_dma_latency: false,
            lock_memory: false,
            ..SelftestConfig::full()
        };
        let r = run(&cfg, None).unwrap();
        assert_eq!(r.status, RunStatus::Complete);
        assert!(r.metrics.iter().all(|m| latlab_model::record::valid_name(&m.name)), "bad metric name");
        assert!(r.get_metric("sleep.other.1ms.p99").is_some());
        assert!(r.get_metric("clock.read_cost.mean").is_some());
        assert_eq!(r.get_series("sleep.other.100us").unwrap().values.len(), 20);
        let fifo = r.get_metric("sched.fifo.granted").unwrap().value.as_f64() == 1.0;
        assert_eq!(r.get_series("sleep.fifo.1ms").is_some(), fifo);
        assert!(r.paper.is_empty(), "selftest has no paper figure of its own (latlab rt has seed 001's)");
        assert_eq!(r.tables[0].rows.len(), 2);
    }

    #[test]
    fn the_verdict_says_how_fine_a_figure_the_timers_allow_from_the_best_policy_granted() {
        let rec = |fifo: i64, p99_fifo: i64, p99_other: i64, res: i64| {
            let mut r = latlab_sys::record::begin("selftest");
            r.metric("sched.fifo.granted", fifo, "bool");
            r.metric("sleep.fifo.100us.p99", p99_fifo, "ns");
            r.metric("sleep.other_slack1.100us.p99", p99_other, "ns");
            r.metric("clock.resolution", res, "ns");
            r.metric("clock.read_cost.mean", 25.0, "ns");
            r
        };
        let v = verdict(&rec(1, 40_000, 900_000, 1)).unwrap();
        assert!(v.starts_with("This machine's timers are fit for sub-millisecond figures"), "{v}");
        assert!(v.contains("with SCHED_FIFO") && v.contains("40"), "{v}");
        // FIFO refused: the default policy's case decides, and the refusal is said.
        let v = verdict(&rec(0, 40_000, 900_000, 1)).unwrap();
        assert!(v.contains("fit for millisecond figures, not for sub-millisecond ones"), "{v}");
        assert!(v.contains("real-time priority was refused"), "{v}");
        let v = verdict(&rec(0, 0, 3_000_000, 4_000_000)).unwrap();
        assert!(v.contains("too late for even millisecond figures") && v.contains("clock is coarse"), "{v}");
        // A run stopped before the 100 µs case has no verdict.
        let mut r = latlab_sys::record::begin("selftest");
        r.metric("clock.resolution", 1i64, "ns");
        assert_eq!(verdict(&r), None);
    }
}
