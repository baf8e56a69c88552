//! The doctor's check of the kernel's preemption model.

use super::*;

/// The kernel's preemption model.
pub struct Preemption;

impl Check for Preemption {
    fn inspect(&self, m: &Machine) -> Finding {
        preemption(m.src, m.info)
    }
}

fn preemption(src: &dyn Source, info: &MachineInfo) -> Finding {
    let f = Finding::new(
        "preemption",
        "Preemption model",
        "a kernel that preempts only at its own preemption points (none, voluntary) holds a woken real-time thread until the running kernel code reaches one: milliseconds in long system calls",
    );
    let model = info.preemption.clone().unwrap_or_else(|| "unknown".into());
    let dynamic_unknown = model == "dynamic" && src.read("/sys/kernel/debug/sched/preempt").is_none();
    match model.as_str() {
        "rt" => f.with(Severity::Fine, "PREEMPT_RT", "nothing: the fully preemptible kernel"),
        "full" | "dynamic(full)" => f.with(Severity::Fine, model.clone(), "nothing (PREEMPT_RT would bound more of the kernel's paths: interrupts threaded, spinlocks sleeping)"),
        "dynamic(lazy)" => f.with(Severity::Note, model.clone(), "lazy preemption lets the fair class run to the tick; real-time threads still preempt at once: fine for latlab's levels, not for SCHED_OTHER work (preempt=full on the kernel command line)"),
        _ if dynamic_unknown => f.with(
            Severity::Note,
            "PREEMPT_DYNAMIC, mode not readable (debugfs not mounted)",
            "mount debugfs (mount -t debugfs none /sys/kernel/debug) to see the mode; boot with preempt=full for the shortest wake-ups short of PREEMPT_RT",
        ),
        "unknown" => f.with(Severity::Note, "not readable", "check uname -v for PREEMPT, PREEMPT_DYNAMIC or PREEMPT_RT"),
        _ => f.with(Severity::Costly, model.clone(), "boot with preempt=full (a PREEMPT_DYNAMIC kernel) or run a PREEMPT_RT kernel"),
    }
}
