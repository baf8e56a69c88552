//! The doctor's check of RT throttling and the fair server.

use super::*;

/// RT throttling and the fair server.
pub struct Throttling;

impl Check for Throttling {
    fn inspect(&self, m: &Machine) -> Finding {
        throttling(m.src, m.cpu)
    }
}

fn throttling(src: &dyn Source, cpu: usize) -> Finding {
    let mut f = Finding::new(
        "rt-throttling",
        "RT throttling and the fair server",
        "once real-time threads have used sched_rt_runtime_us of a period (or, from Linux 6.12, whenever the fair server's runtime comes due) the kernel holds every real-time thread on the CPU, the most urgent included, for the rest of the period",
    );
    let runtime = trim(src.read("/proc/sys/kernel/sched_rt_runtime_us"));
    let period = trim(src.read("/proc/sys/kernel/sched_rt_period_us"));
    let fair = trim(src.read(&format!("/sys/kernel/debug/sched/fair_server/cpu{cpu}/runtime")));
    let fair_seen = match &fair {
        Some(ns) if ns != "0" => format!(
            "; the fair server of CPU {cpu} runs {} ms a period",
            ns.parse::<f64>().map_or(ns.clone(), |v| format!("{:.0}", v / 1e6))
        ),
        Some(_) => format!("; the fair server of CPU {cpu} is off"),
        None => "; the fair server not readable (debugfs not mounted or refused, or a kernel before 6.12)".into(),
    };
    f = match runtime.as_deref() {
        Some("-1") => f.with(Severity::Fine, format!("off (sched_rt_runtime_us = -1){fair_seen}"), "nothing"),
        Some(r) => f.with(
            Severity::Costly,
            format!("on: {r} µs of every {} µs{fair_seen}", period.as_deref().unwrap_or("?")),
            "a real-time thread that never blocks gets every real-time thread on its CPU held each period: keep real-time work blocking, or (root) echo -1 > /proc/sys/kernel/sched_rt_runtime_us and the fair server's runtime to 0 while it runs (latlab rt lifts both for its run); if the hold stays with the runtime at -1 it is the fair server's (its runtime a period, when a fair task waits on the CPU): mount debugfs (mount -t debugfs none /sys/kernel/debug) and write 0 to sched/fair_server/cpuN/runtime",
        ),
        None => f.with(Severity::Note, "not readable", "check /proc/sys/kernel/sched_rt_runtime_us"),
    };
    if f.severity == Severity::Costly {
        f.toggle = Some(Toggle {
            remedy: "rt-throttling",
            // A hog that never yields: the hold strikes a real-time thread that never blocks.
            setup: |c| c.load = crate::config::LoadSpec::Polygons { workers: 1, sched: None, pace: None },
            headline: "loaded.l1.latency",
            stat: Stat::Max,
        });
    }
    f
}
