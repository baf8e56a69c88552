//! `latlab idle`: lost time on an idle system, after Endo et al. (seed 003, §3.1). A thread
//! at the lowest priority (SCHED_IDLE), pinned to one CPU, reads the clock in a tight loop;
//! every gap longer than a threshold is time something else took from it. The run records
//! each interruption's length, how often they come and the fraction of time lost; with
//! `--with CMD` it measures again while CMD runs (a service, a daemon) and compares.

use latlab_model::numfmt::sig;
use latlab_model::record::{PaperRow, RunRecord, RunStatus, Series};
use latlab_model::stats;
use latlab_model::verdict::Judgement;
use latlab_sys::clock::monotonic_now;
use latlab_sys::platform::{Capability, Policy, Sched, set_affinity, set_sched};
use latlab_sys::record::Finish;

/// What the idle watcher does.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IdleConfig {
    /// Seconds per pass.
    pub seconds: u64,
    /// A gap longer than this is an interruption, ns.
    pub threshold_ns: u64,
    /// The CPU watched (default: the last one).
    pub cpu: Option<usize>,
    /// A command to run during a second pass (`sh -c`), for the comparison.
    pub with: Option<String>,
}

impl IdleConfig {
    /// The defaults.
    pub fn full() -> Self {
        Self {
            seconds: crate::defaults::IDLE_SECONDS,
            threshold_ns: crate::defaults::IDLE_THRESHOLD_NS,
            cpu: None,
            with: None,
        }
    }
    /// The suite's: 3 s, no comparison.
    pub fn short() -> Self {
        Self { seconds: 3, ..Self::full() }
    }
}

/// Interruptions seen by one pass.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pass {
    /// Length of each interruption, ns.
    pub gaps: Vec<i64>,
    /// Interruptions not kept (the buffer was full).
    pub overflow: u64,
    /// Wall time watched, ns.
    pub span_ns: u64,
}

impl Pass {
    /// Fraction of the time taken away.
    pub fn lost_fraction(&self) -> f64 {
        self.gaps.iter().sum::<i64>() as f64 / self.span_ns.max(1) as f64
    }
    /// Interruptions per second.
    pub fn per_second(&self) -> f64 {
        (self.gaps.len() as u64 + self.overflow) as f64 / (self.span_ns.max(1) as f64 / 1e9)
    }
}

/// Find the gaps in a timeline of clock reads: the core of the watcher, on any clock.
pub fn watch(mut now: impl FnMut() -> u64, until: u64, threshold: u64, gaps: &mut Vec<i64>) -> (u64, u64) {
    let start = now();
    let mut prev = start;
    let mut overflow = 0;
    loop {
        let t = now();
        if t - prev > threshold {
            if gaps.len() < gaps.capacity() {
                gaps.push((t - prev) as i64);
            } else {
                overflow += 1;
            }
        }
        prev = t;
        if t >= until {
            return (t - start, overflow);
        }
    }
}

/// One pass on a thread of its own at SCHED_IDLE on `cpu`.
fn pass(cfg: &IdleConfig, cpu: usize) -> (Pass, Vec<Capability>) {
    let seconds = cfg.seconds;
    let threshold = cfg.threshold_ns;
    std::thread::spawn(move || {
        let caps = vec![set_affinity(&[cpu]), set_sched(Sched { policy: Policy::Idle, priority: 0 })];
        // Written now, so the loop takes no page fault on its first write to each page; then
        // emptied, keeping the capacity, for `watch` to fill.
        let mut gaps = latlab_sys::platform::prefaulted::<i64>(crate::defaults::IDLE_MAX_EVENTS);
        gaps.clear();
        let until = monotonic_now() + seconds * 1_000_000_000;
        let (span_ns, overflow) = watch(monotonic_now, until, threshold, &mut gaps);
        (Pass { gaps, overflow, span_ns }, caps)
    })
    .join()
    .unwrap_or_default()
}

fn put(rec: &mut RunRecord, prefix: &str, p: &Pass, what: &str) {
    rec.metric(&format!("{prefix}.lost_fraction"), p.lost_fraction(), "ratio");
    rec.metric(&format!("{prefix}.interruptions_per_s"), p.per_second(), "1/s");
    if let Some(s) = stats::summarize(&p.gaps) {
        rec.metric(&format!("{prefix}.interruption.p50"), s.p50, "ns");
        rec.metric(&format!("{prefix}.interruption.p99"), s.p99, "ns");
        rec.metric(&format!("{prefix}.interruption.max"), s.max, "ns");
    }
    if p.overflow > 0 {
        rec.warn(format!(
            "{prefix}: {} interruptions were not kept (buffer full); the fraction counts only those kept",
            p.overflow
        ));
    }
    rec.series.push(Series {
        name: format!("{prefix}.interruption"),
        unit: "ns".into(),
        description: format!("length of each interruption of the idle thread, {what}"),
        values: p.gaps.clone(),
    });
}

/// Run the watcher (and the comparison pass when asked) into a record.
pub fn run_idle(cfg: &IdleConfig) -> Result<RunRecord, crate::cpu::StallError> {
    use latlab_model::ConfigError;
    if cfg.seconds == 0 || cfg.threshold_ns == 0 {
        return Err(ConfigError::from("seconds and threshold must be positive").into());
    }
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let cpu = cfg.cpu.unwrap_or(cpus - 1);
    if cpu >= cpus {
        return Err(ConfigError::from(format!("CPU {cpu}: this machine has CPUs 0 to {}", cpus - 1)).into());
    }
    let mut rec = latlab_sys::record::begin("idle");
    rec.config("seconds", cfg.seconds);
    rec.config("threshold_ns", cfg.threshold_ns);
    rec.config("cpu", cpu);
    let (base, caps) = pass(cfg, cpu);
    for c in caps {
        if let Some(w) = c.warning() {
            rec.warn(w);
        }
        rec.capabilities.push(c);
    }
    put(&mut rec, "idle", &base, "as the machine is");
    if let Some(cmd) = &cfg.with
        && !latlab_sys::interrupt::stop_requested()
    {
        rec.config("with", cmd);
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sh")
            .args(["-c", cmd])
            .process_group(0)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|source| crate::cpu::StallError::Command { command: cmd.clone(), source })?;
        std::thread::sleep(std::time::Duration::from_millis(200));
        let (with, _) = pass(cfg, cpu);
        // The whole group: the shell and whatever it started.
        let _ =
            nix::sys::signal::killpg(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGKILL);
        let _ = child.wait();
        put(&mut rec, "idle.with", &with, &format!("while `{cmd}` ran"));
        let more = with.lost_fraction() / base.lost_fraction().max(1e-12) - 1.0;
        rec.metric("idle.with.extra_lost", more, "ratio");
        rec.paper.push(PaperRow {
                seed: "003".into(),
                figure: "Figure 1: idle-state activity".into(),
                paper_setting: "NT 4.0 TSE against NT 4.0 Workstation, idle, Endo et al.'s lost-time method".into(),
                paper_value: "TSE 71.0 % more activity than Workstation".into(),
                here_value: format!(
                    "{:+.1} % lost time with `{cmd}` ({} % against {} %)",
                    100.0 * more,
                    sig(100.0 * with.lost_fraction()),
                    sig(100.0 * base.lost_fraction())
                ),
                note: format!("CPU {cpu}, gaps over {} ns", cfg.threshold_ns),
                // The seed set a whole OS (TSE) against another (Workstation); a command beside
                // this machine's idle is a different comparison, measured by the same method.
                judgement: Judgement::not_comparable_by_design(&format!(
                    "the seed compares two operating systems idle; here `{cmd}` is compared with this machine's idle by the same lost-time method, which shows the method, not a reproduction ({:+.1} % against the seed's +71 %)",
                    100.0 * more
                )),
            });
    }
    rec.finish(if latlab_sys::interrupt::stop_requested() { RunStatus::Interrupted } else { RunStatus::Complete });
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watcher_finds_exactly_the_gaps_of_a_fake_timeline() {
        // Reads every 50 ns, with holes of 10 µs at 1 ms and 3 µs at 2 ms.
        let mut t = 0u64;
        let clock = move || {
            t += 50;
            if t == 1_000_000 {
                t += 10_000;
            }
            if t == 2_000_050 {
                t += 3_000;
            }
            t
        };
        let mut gaps = Vec::with_capacity(8);
        let (span, overflow) = watch(clock, 3_000_000, 2_000, &mut gaps);
        assert_eq!(gaps, vec![10_050, 3_050]);
        assert_eq!(overflow, 0);
        assert!(span >= 3_000_000 - 50);
        let p = Pass { gaps, overflow, span_ns: span };
        assert!((p.lost_fraction() - 13_100.0 / span as f64).abs() < 1e-12);
        // A full buffer counts what it cannot keep.
        let mut small = Vec::with_capacity(1);
        let mut t = 0u64;
        let (_, overflow) = watch(
            move || {
                t += 5_000;
                t
            },
            50_000,
            2_000,
            &mut small,
        );
        // Nine gaps after the first read: one kept, eight counted.
        assert_eq!((small.len(), overflow), (1, 8));
    }

    #[test]
    fn a_short_pass_and_a_comparison_are_recorded() {
        let cfg = IdleConfig { seconds: 1, with: Some("sleep 5".into()), ..IdleConfig::full() };
        let rec = run_idle(&cfg).unwrap();
        for m in ["idle.lost_fraction", "idle.interruptions_per_s", "idle.with.lost_fraction", "idle.with.extra_lost"] {
            assert!(rec.get_metric(m).is_some(), "{m}");
        }
        let f = rec.get_metric("idle.lost_fraction").unwrap().value.as_f64();
        assert!((0.0..=1.0).contains(&f));
        assert!(rec.get_series("idle.interruption").is_some());
        assert!(run_idle(&IdleConfig { cpu: Some(999), ..IdleConfig::short() }).is_err());
    }
}
