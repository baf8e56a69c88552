//! The machine's own background while a condition meant to be quiet runs ("unloaded"): how
//! much of the time some task waited for a CPU, for memory or for I/O (pressure stall
//! information), how much CPU time a hypervisor stole, and how many other tasks were runnable.
//! An "unloaded" phase measured beside other work is not unloaded: its figures can come out
//! worse than the loaded ones (seen here: unloaded p99 6× the loaded one at 50 % CPU pressure
//! from other work). [`Watch::start`] before the phase, [`Watch::stop`] after it; the
//! [`Background`] it returns says whether the machine was quiet, and why not.
//!
//! The counters are cumulative (`total=` µs in `/proc/pressure/*`, ticks in `/proc/stat`), so
//! the share over the phase is exact, whatever the phase's length; runnable tasks are sampled
//! by a thread every [`crate::defaults::BACKGROUND_SAMPLE`], off the measuring CPUs' timing.

use crate::defaults::{
    BACKGROUND_SAMPLE, QUIET_CPU_PRESSURE, QUIET_MEMORY_PRESSURE, QUIET_RUNNABLE_PER_CPU, QUIET_STEAL,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Cumulative counters at one instant.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counters {
    /// Monotonic time, ns.
    pub at_ns: u64,
    /// `some total=` of `/proc/pressure/{cpu,memory,io}`, µs (None: no PSI here).
    pub pressure_us: [Option<u64>; 3],
    /// Steal and all ticks of `/proc/stat`'s `cpu` line.
    pub ticks: Option<(u64, u64)>,
}

impl Counters {
    /// Read them now.
    pub fn now() -> Self {
        let psi = |r: &str| std::fs::read_to_string(format!("/proc/pressure/{r}")).ok().and_then(|t| some_total_us(&t));
        Counters {
            at_ns: crate::clock::monotonic_now(),
            pressure_us: [psi("cpu"), psi("memory"), psi("io")],
            ticks: std::fs::read_to_string("/proc/stat").ok().and_then(|s| crate::machine::steal_from_proc_stat(&s)),
        }
    }
}

/// `some … total=N` of a PSI file, µs.
pub fn some_total_us(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("some"))?;
    line.split_whitespace().find_map(|w| w.strip_prefix("total=")).and_then(|v| v.parse().ok())
}

/// `procs_running` of `/proc/stat`: tasks runnable now, this one's included.
pub fn procs_running(stat: &str) -> Option<u32> {
    stat.lines().find_map(|l| l.strip_prefix("procs_running ")).and_then(|v| v.trim().parse().ok())
}

/// How many of this process's threads are running or runnable now (state R).
fn own_running() -> u32 {
    let Ok(d) = std::fs::read_dir("/proc/self/task") else { return 1 };
    d.flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("stat"))
                .ok()
                .and_then(|s| s.rfind(')').map(|i| s[i + 1..].trim_start().starts_with('R')))
                .unwrap_or(false)
        })
        .count() as u32
}

/// What the background was over a phase.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Background {
    /// Share of the time some task waited for a CPU, for memory, for I/O (None: no PSI).
    pub pressure: [Option<f64>; 3],
    /// Share of CPU time a hypervisor stole.
    pub steal: Option<f64>,
    /// Other tasks runnable, on average, per CPU (this process's own left out).
    pub others_runnable_per_cpu: Option<f64>,
    /// The phase's length, s.
    pub seconds: f64,
}

/// The three kinds of pressure, in [`Counters::pressure_us`]'s order.
pub const PRESSURE_KINDS: [&str; 3] = ["cpu", "memory", "io"];

impl Background {
    /// From the counters at the start and the end, and the runnable samples taken between.
    pub fn between(a: &Counters, b: &Counters, others_runnable: &[u32], cpus: usize) -> Self {
        let wall_us = b.at_ns.saturating_sub(a.at_ns) as f64 / 1000.0;
        let share = |x: Option<u64>, y: Option<u64>| match (x, y) {
            (Some(x), Some(y)) if wall_us > 0.0 => Some((y.saturating_sub(x) as f64 / wall_us).clamp(0.0, 1.0)),
            _ => None,
        };
        let steal = match (a.ticks, b.ticks) {
            (Some((s0, t0)), Some((s1, t1))) if t1 > t0 => Some(s1.saturating_sub(s0) as f64 / (t1 - t0) as f64),
            _ => None,
        };
        let others = (!others_runnable.is_empty()).then(|| {
            others_runnable.iter().map(|&n| n as f64).sum::<f64>() / others_runnable.len() as f64 / cpus.max(1) as f64
        });
        Background {
            pressure: [0, 1, 2].map(|i| share(a.pressure_us[i], b.pressure_us[i])),
            steal,
            others_runnable_per_cpu: others,
            seconds: wall_us / 1e6,
        }
    }

    /// Why the machine was not quiet (each figure past its threshold, with the threshold), or
    /// `None` if it was.
    pub fn noisy(&self) -> Option<String> {
        let pct = |v: f64| format!("{:.0} %", v * 100.0);
        let mut why = Vec::new();
        if let Some(p) = self.pressure[0].filter(|&p| p >= QUIET_CPU_PRESSURE) {
            why.push(format!(
                "some task waited for a CPU {} of the time (quiet: under {})",
                pct(p),
                pct(QUIET_CPU_PRESSURE)
            ));
        }
        if let Some(p) = self.pressure[1].filter(|&p| p >= QUIET_MEMORY_PRESSURE) {
            why.push(format!(
                "some task waited for memory {} of the time (quiet: under {})",
                pct(p),
                pct(QUIET_MEMORY_PRESSURE)
            ));
        }
        if let Some(s) = self.steal.filter(|&s| s >= QUIET_STEAL) {
            why.push(format!("the hypervisor stole {} of the CPU time (quiet: under {})", pct(s), pct(QUIET_STEAL)));
        }
        if let Some(r) = self.others_runnable_per_cpu.filter(|&r| r >= QUIET_RUNNABLE_PER_CPU) {
            why.push(format!(
                "{r:.2} other tasks were runnable per CPU on average (quiet: under {QUIET_RUNNABLE_PER_CPU})"
            ));
        }
        (!why.is_empty()).then(|| why.join("; "))
    }

    /// The figures as metrics under `prefix` (`unloaded.background`): `cpu_pressure`,
    /// `memory_pressure`, `io_pressure`, `steal` (ratios), `others_runnable_per_cpu`, and
    /// `quiet` (1 or 0).
    pub fn metrics(&self, prefix: &str) -> Vec<(String, f64, &'static str)> {
        let mut v = Vec::new();
        for (k, p) in PRESSURE_KINDS.iter().zip(self.pressure) {
            if let Some(p) = p {
                v.push((format!("{prefix}.{k}_pressure"), p, "ratio"));
            }
        }
        if let Some(s) = self.steal {
            v.push((format!("{prefix}.steal"), s, "ratio"));
        }
        if let Some(r) = self.others_runnable_per_cpu {
            v.push((format!("{prefix}.others_runnable_per_cpu"), r, ""));
        }
        v.push((format!("{prefix}.quiet"), if self.noisy().is_none() { 1.0 } else { 0.0 }, "bool"));
        v
    }

    /// Keep the figures in `rec` as [`Background::metrics`] under `prefix`; when the machine
    /// was not quiet, warn (on stderr and in the record, which the report shows) and return
    /// the reason for the rows the condition decides ("the machine was not quiet during
    /// `during` (…)").
    pub fn note(&self, rec: &mut latlab_model::record::RunRecord, prefix: &str, during: &str) -> Option<String> {
        for (name, v, unit) in self.metrics(prefix) {
            match unit {
                "bool" => rec.metric(&name, v as i64, unit),
                _ => rec.metric(&name, v, unit),
            }
        }
        let text = format!("the machine was not quiet during {during} ({})", self.noisy()?);
        let warning = format!(
            "{text}: its figures include that other work, so they are not this machine's unloaded figures; measure again when it is idle"
        );
        eprintln!("warning: {warning}");
        rec.warn(warning);
        Some(text)
    }
}

/// Watching the background: a thread that samples the runnable tasks until [`Watch::stop`].
pub struct Watch {
    start: Counters,
    stop: Arc<AtomicBool>,
    sampler: Option<std::thread::JoinHandle<Vec<u32>>>,
}

impl Watch {
    /// Start watching now.
    pub fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let sampler = std::thread::Builder::new()
            .name("latlab-background".into())
            .spawn(move || {
                let mut samples = Vec::new();
                while !flag.load(Ordering::Relaxed) {
                    if let Some(n) = std::fs::read_to_string("/proc/stat").ok().and_then(|s| procs_running(&s)) {
                        samples.push(n.saturating_sub(own_running()));
                    }
                    std::thread::sleep(BACKGROUND_SAMPLE);
                }
                samples
            })
            .ok();
        Watch { start: Counters::now(), stop, sampler }
    }

    /// Stop watching: the background over the time watched.
    pub fn stop(mut self) -> Background {
        let end = Counters::now();
        self.stop.store(true, Ordering::Relaxed);
        let samples = self.sampler.take().and_then(|h| h.join().ok()).unwrap_or_default();
        let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        Background::between(&self.start, &end, &samples, cpus)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.sampler.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ns: u64, cpu_us: u64, steal: u64, total: u64) -> Counters {
        Counters { at_ns: ns, pressure_us: [Some(cpu_us), Some(0), Some(0)], ticks: Some((steal, total)) }
    }

    #[test]
    fn counters_parse_from_the_kernels_files() {
        let psi =
            "some avg10=0.40 avg60=1.88 avg300=2.13 total=83195916\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        assert_eq!(some_total_us(psi), Some(83_195_916));
        assert_eq!(some_total_us("garbage"), None);
        assert_eq!(procs_running("cpu  1 2 3\nprocs_running 3\nprocs_blocked 0\n"), Some(3));
        assert_eq!(procs_running("cpu 1\n"), None);
    }

    #[test]
    fn a_quiet_phase_is_quiet_and_a_busy_one_says_why() {
        // Two seconds; 0.1 s of CPU waiting (5 %), no steal, one other task now and then.
        let quiet = Background::between(&at(0, 0, 0, 0), &at(2_000_000_000, 100_000, 0, 400), &[0, 1, 0, 0], 2);
        assert_eq!(quiet.pressure[0], Some(0.05));
        assert_eq!(quiet.others_runnable_per_cpu, Some(0.125));
        assert_eq!(quiet.noisy(), None);
        assert!(quiet.metrics("unloaded.background").contains(&("unloaded.background.quiet".into(), 1.0, "bool")));
        // Half the time some task waited for a CPU, 10 % stolen, two others runnable per CPU.
        let busy = Background::between(&at(0, 0, 0, 0), &at(2_000_000_000, 1_000_000, 40, 400), &[4, 4], 2);
        let why = busy.noisy().expect("not quiet");
        assert!(why.contains("some task waited for a CPU 50 % of the time (quiet: under 10 %)"), "{why}");
        assert!(why.contains("the hypervisor stole 10 % of the CPU time"), "{why}");
        assert!(why.contains("2.00 other tasks were runnable per CPU"), "{why}");
        assert!(busy.metrics("p").contains(&("p.quiet".into(), 0.0, "bool")));
        // No PSI, no /proc/stat: nothing known, nothing said.
        let none = Background::between(&Counters::default(), &Counters { at_ns: 1, ..Default::default() }, &[], 1);
        assert_eq!((none.noisy(), none.pressure, none.steal), (None, [None; 3], None));
    }
}
