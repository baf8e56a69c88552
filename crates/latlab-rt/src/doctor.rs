//! `latlab rt doctor`: what on this machine spoils wake-up latency, each finding
//! tied to a measurement. This module owns the knowledge: what is read and where, what each
//! setting does to a wake-up, the advice, which `latlab tune` remedy toggles it (and the `rt`
//! configuration its A/B runs), and the ranking, table and record of the findings. The
//! measuring is `hwlat` (gaps) and `latlab tune`'s engine (the A/Bs), run by the command.

use crate::config::RtConfig;
use crate::hwlat::GapRun;
use latlab_model::machine::MachineInfo;
use latlab_model::record::{Column, RunRecord, Table};
use serde::Serialize;

pub mod checks;
pub mod run;

/// Where the doctor reads the machine: the real `/proc`, `/sys` and `/dev`, or a test's map.
pub trait Source {
    /// A file's text, `None` when it cannot be read.
    fn read(&self, path: &str) -> Option<String>;
    /// The names in a directory (empty when it cannot be listed).
    fn list(&self, dir: &str) -> Vec<String>;
}

/// The machine itself.
pub struct System;

impl Source for System {
    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
    fn list(&self, dir: &str) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        v.sort();
        v
    }
}

/// The value `/dev/cpu_dma_latency` holds now (µs; 2,000,000,000 when nobody asks), read as
/// the kernel's 4-byte integer.
pub fn dma_latency_now() -> Option<i32> {
    let b = std::fs::read("/dev/cpu_dma_latency").ok()?;
    Some(i32::from_ne_bytes(b.get(..4)?.try_into().ok()?))
}

/// How much a finding matters, before anything is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Nothing to do.
    Fine,
    /// Worth knowing; may cost latency in some loads.
    Note,
    /// Known to cost wake-up latency.
    Costly,
}

impl Severity {
    /// For tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Fine => "fine",
            Severity::Note => "note",
            Severity::Costly => "costly",
        }
    }
}

/// The `latlab tune` remedy that toggles a finding's setting, and how its A/B is run.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Toggle {
    /// The remedy (`latlab tune --list`).
    pub remedy: &'static str,
    /// What the A/B's `latlab rt` runs change from the doctor's (a load that shows the
    /// setting), as typed configuration.
    #[serde(skip)]
    pub setup: fn(&mut RtConfig),
    /// The headline series the cost is quoted from.
    pub headline: &'static str,
    /// Which figure of it: the p99, or (for a hold that strikes once a period, too rarely for
    /// a p99) each run's maximum.
    pub stat: Stat,
}

impl Toggle {
    /// Nothing changed: the doctor's own configuration shows the setting.
    pub fn as_is(_: &mut RtConfig) {}

    /// The `latlab rt` configuration this toggle's A/B runs: levels 1 and 2 and the load on
    /// the measured `cpu`, phases of `phase_ns`, then the toggle's own change.
    pub fn config(&self, cpu: usize, phase_ns: u64, strict: bool) -> RtConfig {
        let mut c = RtConfig {
            l1_cpu: Some(cpu),
            l2_cpu: Some(cpu),
            load_cpus: vec![cpu],
            phase_ns,
            strict,
            ..RtConfig::default()
        };
        (self.setup)(&mut c);
        c
    }
}

/// The figure a toggle's cost is quoted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stat {
    /// The 99th percentile of each run.
    P99,
    /// Each run's maximum.
    Max,
}

impl Stat {
    /// For the text.
    pub fn as_str(self) -> &'static str {
        match self {
            Stat::P99 => "p99",
            Stat::Max => "max",
        }
    }
}

/// A finding's cost, measured here by an A/B of its toggle.
#[derive(Debug, Clone, Serialize)]
pub struct Cost {
    /// The headline's words.
    pub headline: String,
    /// The figure compared.
    pub stat: Stat,
    /// The figure with the setting as found (the baseline; the mean over its runs), ns.
    pub as_found_ns: f64,
    /// With the remedy, ns.
    pub remedied_ns: f64,
    /// The mean difference remedy − as found over the rounds and its 95 % interval, ns.
    pub diff_ns: f64,
    /// See `diff_ns` (NaN with one round).
    pub lo_ns: f64,
    /// See `diff_ns`.
    pub hi_ns: f64,
    /// `latlab tune`'s verdict: helps, hurts, no effect detectable.
    pub effect: String,
    /// The stored A/B (`latlab runs show`).
    pub tune_run: Option<i64>,
}

impl Cost {
    /// How much the remedy saves when it helps, ns (0 otherwise).
    pub fn saving_ns(&self) -> f64 {
        if self.effect == "helps" { -self.diff_ns } else { 0.0 }
    }
    /// In words: "level 1 wake-up, unloaded: p99 62.0 µs → 18.0 µs with the remedy (−44.0 µs
    /// [−50.0, −38.0]; helps, measured here)".
    pub fn describe(&self) -> String {
        let us = |v: f64| format!("{:.1}", v / 1000.0);
        let ci =
            if self.lo_ns.is_finite() { format!(" [{}, {}]", us(self.lo_ns), us(self.hi_ns)) } else { String::new() };
        format!(
            "{}: {} {} µs → {} µs with the remedy ({:+.1} µs{ci}; {}, measured here)",
            self.headline,
            self.stat.as_str(),
            us(self.as_found_ns),
            us(self.remedied_ns),
            self.diff_ns / 1000.0,
            self.effect
        )
    }
}

/// One thing the doctor found.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Stable name (`--json`, metrics).
    pub key: &'static str,
    /// What it is about.
    pub title: &'static str,
    /// What is on this machine.
    pub seen: String,
    /// How much it matters before measuring.
    pub severity: Severity,
    /// What it does to a wake-up.
    pub why: &'static str,
    /// What to do.
    pub advice: String,
    /// The remedy that toggles it, when there is a problem latlab can toggle.
    pub toggle: Option<Toggle>,
    /// What a measurement here showed, beside the A/B (gaps, interrupts, steal).
    pub measured: Option<String>,
    /// The A/B's result.
    pub cost: Option<Cost>,
    /// Why it was not measured, when it was not.
    pub not_measured: Option<String>,
}

impl Finding {
    fn new(key: &'static str, title: &'static str, why: &'static str) -> Self {
        Finding {
            key,
            title,
            seen: String::new(),
            severity: Severity::Fine,
            why,
            advice: String::new(),
            toggle: None,
            measured: None,
            cost: None,
            not_measured: None,
        }
    }
    fn with(mut self, severity: Severity, seen: impl Into<String>, advice: impl Into<String>) -> Self {
        self.severity = severity;
        self.seen = seen.into();
        self.advice = advice.into();
        self
    }
    /// The rank's key, smaller first: a measured saving (largest first), then costly findings
    /// not measured, then costly ones whose A/B found no effect, then notes, then the fine.
    fn rank_key(&self) -> (u8, i64) {
        match (&self.cost, self.severity) {
            (Some(c), _) if c.saving_ns() > 0.0 => (0, -(c.saving_ns() as i64)),
            (None, Severity::Costly) => (1, 0),
            (Some(_), Severity::Costly) => (2, 0),
            (_, Severity::Note) => (3, 0),
            _ => (4, 0),
        }
    }
}

/// Worst first (stable among equals: the order inspected).
pub fn rank(findings: &mut [Finding]) {
    findings.sort_by_key(Finding::rank_key);
}

/// Inspect the machine for what spoils wake-ups on `cpu`, the measured CPU; `dma_latency_us`
/// is `/dev/cpu_dma_latency`'s value, `gaps` the detector's run when it ran. In inspection
/// order; [`rank`] orders them.
pub fn inspect(
    src: &dyn Source,
    info: &MachineInfo,
    cpu: usize,
    dma_latency_us: Option<i32>,
    gaps: Option<&GapRun>,
) -> Vec<Finding> {
    let m = checks::Machine {
        src,
        info,
        cpu,
        dma_latency_us,
        gaps,
        cmdline: checks::trim(src.read("/proc/cmdline")).unwrap_or_default(),
    };
    checks::ALL.iter().map(|c| c.inspect(&m)).collect()
}

/// The findings as a table, ranked (call [`rank`] first).
pub fn table(findings: &[Finding]) -> Table {
    let c = Column::new;
    Table {
        name: "rt.doctor".into(),
        title: "What spoils wake-up latency on this machine, worst first: each finding, what is seen here, its cost where latlab can toggle it (an A/B with latlab tune's engine: p99, or the maximum for a hold that strikes once a period, as found → with the remedy, the difference with its 95 % interval), and what to do".into(),
        columns: vec![
            c("rank", ""),
            c("finding", ""),
            c("severity", ""),
            c("seen here", ""),
            c("measured here", ""),
            c("what it does", ""),
            c("advice", ""),
        ],
        rows: findings
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let measured = [f.cost.as_ref().map(Cost::describe), f.measured.clone(), f.not_measured.clone().map(|w| format!("not measured: {w}"))]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join("; ");
                vec![
                    (i + 1).into(),
                    f.title.into(),
                    f.severity.as_str().into(),
                    f.seen.clone().into(),
                    measured.into(),
                    f.why.into(),
                    f.advice.clone().into(),
                ]
            })
            .collect(),
        plot: None,
    }
}

/// Into the record: the table, and per finding `doctor.<key>.severity` (the key in snake case) (0 fine, 1 note, 2
/// costly) and, when measured, `doctor.<key>.<p99|max>_as_found`, `_remedied` and `_diff`;
/// the detector's gaps under `doctor.gaps.`.
pub fn record(rec: &mut RunRecord, findings: &[Finding], gaps: Option<&GapRun>) {
    for f in findings {
        // Metric names are dotted snake case: rt-throttling → rt_throttling.
        let key = f.key.replace('-', "_");
        rec.metric(&format!("doctor.{key}.severity"), f.severity as u64, "level");
        if let Some(c) = &f.cost {
            let s = c.stat.as_str();
            rec.metric(&format!("doctor.{key}.{s}_as_found"), c.as_found_ns, "ns");
            rec.metric(&format!("doctor.{key}.{s}_remedied"), c.remedied_ns, "ns");
            rec.metric(&format!("doctor.{key}.{s}_diff"), c.diff_ns, "ns");
        }
    }
    if let Some(g) = gaps {
        rec.metric("doctor.gaps.count", g.gaps.count, "count");
        rec.metric("doctor.gaps.max", g.gaps.max_ns, "ns");
        rec.metric("doctor.gaps.busy", g.gaps.busy_ns, "ns");
        rec.metric("doctor.gaps.irqs", g.irq_total, "count");
        rec.metric("doctor.gaps.unexplained", g.unexplained(), "count");
    }
    rec.config("doctor.ranking", findings.iter().map(|f| f.key).collect::<Vec<_>>());
    rec.tables.push(table(findings));
}

/// The terminal's list: one paragraph per finding, worst first.
pub fn text(findings: &[Finding]) -> String {
    let mut o = String::new();
    for (i, f) in findings.iter().enumerate() {
        o.push_str(&format!("{}. [{}] {}: {}\n", i + 1, f.severity.as_str(), f.title, f.seen));
        if let Some(c) = &f.cost {
            o.push_str(&format!("   measured: {}\n", c.describe()));
        }
        if let Some(m) = &f.measured {
            o.push_str(&format!("   seen: {m}\n"));
        }
        if let Some(w) = &f.not_measured {
            o.push_str(&format!("   not measured: {w}\n"));
        }
        if f.severity != Severity::Fine {
            o.push_str(&format!("   why: {}\n   advice: {}\n", f.why, f.advice));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A machine as a map of paths to text.
    struct Map(BTreeMap<String, String>);

    impl Source for Map {
        fn read(&self, path: &str) -> Option<String> {
            self.0.get(path).cloned()
        }
        fn list(&self, dir: &str) -> Vec<String> {
            let p = format!("{dir}/");
            let mut v: Vec<String> = self
                .0
                .keys()
                .filter_map(|k| k.strip_prefix(&p).map(|r| r.split('/').next().unwrap().to_string()))
                .collect();
            v.dedup();
            v
        }
    }

    fn machine(pairs: &[(&str, &str)]) -> Map {
        Map(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    /// This machine's kind: a KVM guest with haltpoll, throttling on, THP madvise, two CPUs.
    fn guest() -> (Map, MachineInfo) {
        let m = machine(&[
            ("/proc/cmdline", "console=ttyS0 cpuidle_haltpoll.force=1"),
            ("/proc/sys/kernel/sched_rt_runtime_us", "950000\n"),
            ("/proc/sys/kernel/sched_rt_period_us", "1000000\n"),
            ("/sys/devices/system/cpu/cpuidle/current_driver", "haltpoll\n"),
            ("/sys/devices/system/cpu/cpu1/cpuidle/state0/name", "POLL\n"),
            ("/sys/devices/system/cpu/cpu1/cpuidle/state0/latency", "0\n"),
            ("/sys/devices/system/cpu/cpu1/cpuidle/state0/disable", "0\n"),
            ("/sys/devices/system/cpu/cpu1/cpuidle/state1/name", "haltpoll idle\n"),
            ("/sys/devices/system/cpu/cpu1/cpuidle/state1/latency", "1\n"),
            ("/sys/devices/system/cpu/cpu1/cpuidle/state1/disable", "0\n"),
            ("/sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "1\n"),
            ("/proc/irq/24/smp_affinity_list", "0\n"),
            ("/proc/irq/26/smp_affinity_list", "0-1\n"),
            ("/proc/self/timerslack_ns", "50000\n"),
            ("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n"),
            ("/sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never\n"),
            ("/proc/sys/vm/compaction_proactiveness", "20\n"),
            ("/proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n"),
        ]);
        let info = MachineInfo {
            preemption: Some("dynamic".into()),
            virtualization: Some("vm (KVM)".into()),
            ..Default::default()
        };
        (m, info)
    }

    fn find<'a>(v: &'a [Finding], key: &str) -> &'a Finding {
        v.iter().find(|f| f.key == key).unwrap()
    }

    #[test]
    fn a_guest_with_throttling_shows_the_throttling_idle_and_hypervisor_findings() {
        let (m, info) = guest();
        let v = inspect(&m, &info, 1, Some(2_000_000_000), None);
        let t = find(&v, "rt-throttling");
        assert_eq!(t.severity, Severity::Costly);
        assert!(t.seen.contains("950000 µs of every 1000000"), "{}", t.seen);
        assert_eq!(t.toggle.unwrap().remedy, "rt-throttling");
        let i = find(&v, "idle-states");
        assert_eq!(i.severity, Severity::Costly, "haltpoll halts the vCPU beyond polling");
        assert!(i.seen.contains("haltpoll idle 1 µs") && i.seen.contains("not held"), "{}", i.seen);
        assert_eq!(i.toggle.unwrap().remedy, "dma-latency");
        assert_eq!(find(&v, "hypervisor").severity, Severity::Costly);
        // A container in a KVM guest: the flag and the clock say what the container hides.
        let mut m2 = guest().0;
        m2.0.insert("/proc/cpuinfo".into(), "flags\t: fpu sse2 hypervisor lahf_lm\n".into());
        let in_docker = MachineInfo {
            virtualization: Some("container (docker)".into()),
            clocksource: Some("kvm-clock".into()),
            ..info.clone()
        };
        let h = find(&inspect(&m2, &in_docker, 1, None, None), "hypervisor").clone();
        assert_eq!(h.severity, Severity::Costly);
        assert_eq!(h.seen, "a KVM guest (clocksource kvm-clock), inside a container (docker)");
        let bare = MachineInfo { virtualization: Some("container (docker)".into()), ..Default::default() };
        assert_eq!(find(&inspect(&guest().0, &bare, 1, None, None), "hypervisor").severity, Severity::Note);
        // Device IRQ 26 may run on CPU 1; 24 may not.
        assert!(find(&v, "irqs").seen.starts_with("1 device IRQ(s) may run on CPU 1"));
        assert_eq!(find(&v, "smt").severity, Severity::Fine);
        assert_eq!(find(&v, "thp").severity, Severity::Fine);
        assert_eq!(find(&v, "preemption").severity, Severity::Note, "mode not readable without debugfs");
        assert_eq!(find(&v, "timer-slack").toggle.unwrap().remedy, "timer-slack");
        assert!(find(&v, "hardware-gaps").not_measured.is_some());
    }

    #[test]
    fn a_tuned_machine_is_fine_where_it_should_be() {
        let m = machine(&[
            ("/proc/cmdline", "isolcpus=domain,managed_irq,2-3 nohz_full=3 rcu_nocbs=3"),
            ("/proc/sys/kernel/sched_rt_runtime_us", "-1\n"),
            ("/sys/devices/system/cpu/cpu3/cpuidle/state0/name", "POLL\n"),
            ("/sys/devices/system/cpu/cpu3/cpuidle/state0/latency", "0\n"),
            ("/sys/devices/system/cpu/cpu3/cpuidle/state0/disable", "0\n"),
            ("/sys/devices/system/cpu/cpu3/cpuidle/state1/name", "C6\n"),
            ("/sys/devices/system/cpu/cpu3/cpuidle/state1/latency", "133\n"),
            ("/sys/devices/system/cpu/cpu3/cpuidle/state1/disable", "1\n"),
            ("/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "performance\n"),
            ("/sys/devices/system/cpu/cpu3/topology/thread_siblings_list", "3\n"),
            ("/sys/devices/system/cpu/isolated", "3\n"),
            ("/proc/self/timerslack_ns", "1\n"),
        ]);
        let info =
            MachineInfo { preemption: Some("rt".into()), virtualization: Some("none".into()), ..Default::default() };
        let v = inspect(&m, &info, 3, Some(0), None);
        for k in
            ["preemption", "rt-throttling", "idle-states", "governor", "smt", "isolation", "timer-slack", "hypervisor"]
        {
            assert_eq!(find(&v, k).severity, Severity::Fine, "{k}: {}", find(&v, k).seen);
        }
        assert!(find(&v, "idle-states").seen.contains("C6 133 µs (disabled)"));
        assert!(find(&v, "rt-throttling").toggle.is_none());
    }

    #[test]
    fn a_laptop_kind_of_machine_gets_its_costly_findings() {
        let m = machine(&[
            ("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n"),
            ("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0,4\n"),
            ("/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n"),
        ]);
        let info = MachineInfo { preemption: Some("none or voluntary".into()), ..Default::default() };
        let v = inspect(&m, &info, 0, None, None);
        for k in ["preemption", "governor", "smt", "thp"] {
            assert_eq!(find(&v, k).severity, Severity::Costly, "{k}");
        }
        assert!(find(&v, "smt").seen.contains("with CPU 4"));
    }

    #[test]
    fn gaps_beyond_interrupts_are_a_hardware_finding() {
        let g = GapRun {
            gaps: crate::hwlat::Gaps { count: 12, max_ns: 80_000, busy_ns: 2_500_000_000, ..Default::default() },
            realtime: true,
            irqs: vec![("LOC Local timer interrupts".into(), 4), ("26 IO-APIC ttyS0".into(), 1)],
            irq_total: 5,
            preemptions: 0,
            steal_ns: Some(3_000_000),
            smis: None,
        };
        let (m, info) = guest();
        let v = inspect(&m, &info, 1, None, Some(&g));
        let h = find(&v, "hardware-gaps");
        assert_eq!(h.severity, Severity::Costly);
        assert!(h.seen.contains("7 not explained"), "{}", h.seen);
        assert!(find(&v, "hypervisor").measured.as_ref().unwrap().contains("steal 3.0 ms"));
        let i = find(&v, "irqs");
        assert!(
            i.seen.contains("5 interrupt(s) fired") && i.seen.contains("LOC Local timer interrupts ×4"),
            "{}",
            i.seen
        );
        assert_eq!(i.severity, Severity::Costly, "a device interrupt fired on the CPU");
    }

    fn cost(diff: f64, effect: &str) -> Cost {
        Cost {
            headline: "level 1".into(),
            stat: Stat::P99,
            as_found_ns: 60_000.0,
            remedied_ns: 60_000.0 + diff,
            diff_ns: diff,
            lo_ns: diff - 1.0,
            hi_ns: diff + 1.0,
            effect: effect.into(),
            tune_run: None,
        }
    }

    #[test]
    fn ranking_puts_measured_savings_first_then_costly_then_notes() {
        let (m, info) = guest();
        let mut v = inspect(&m, &info, 1, None, None);
        v.iter_mut().find(|f| f.key == "idle-states").unwrap().cost = Some(cost(-40_000.0, "helps"));
        v.iter_mut().find(|f| f.key == "irqs").unwrap().cost = Some(cost(-5_000.0, "helps"));
        v.iter_mut().find(|f| f.key == "rt-throttling").unwrap().cost = Some(cost(100.0, "no effect detectable"));
        rank(&mut v);
        let keys: Vec<&str> = v.iter().map(|f| f.key).collect();
        assert_eq!(&keys[..2], ["idle-states", "irqs"]);
        let pos = |k: &str| keys.iter().position(|x| *x == k).unwrap();
        assert!(pos("hypervisor") < pos("rt-throttling"), "costly unmeasured before costly without effect");
        assert!(pos("rt-throttling") < pos("preemption"), "costly before notes");
        assert!(pos("preemption") < pos("smt"), "notes before the fine");
        let t = table(&v);
        assert_eq!(t.rows.len(), v.len());
        assert_eq!(t.rows[0][0], serde_json::json!(1));
        assert!(t.rows[0][4].as_str().unwrap().contains("p99 60.0 µs → 20.0 µs"), "{}", t.rows[0][4]);
        assert!(text(&v).starts_with("1. [costly] Idle states"));
        let mut rec = RunRecord::new("rt", 0, Default::default());
        record(&mut rec, &v, None);
        assert!(rec.get_metric("doctor.rt_throttling.severity").is_some());
        assert!(rec.get_metric("doctor.idle_states.p99_diff").is_some());
    }
}
