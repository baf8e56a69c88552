//! The doctor's check of gaps the detector saw (SMIs, a hypervisor's steal).

use super::*;

/// Gaps the detector saw (SMIs, a hypervisor's steal).
pub struct HardwareGaps;

impl Check for HardwareGaps {
    fn inspect(&self, m: &Machine) -> Finding {
        hardware_gaps(m.gaps)
    }
}

fn hardware_gaps(gaps: Option<&GapRun>) -> Finding {
    let f = Finding::new(
        "hardware-gaps",
        "Hardware latency (SMIs, the host)",
        "a system management interrupt or a host stops the CPU without the kernel knowing: the busy-loop detector sees the time vanish (as hwlatdetect does)",
    );
    let Some(g) = gaps else {
        let mut f = f.with(Severity::Note, "not measured", "run the doctor without --no-measure");
        f.not_measured = Some("--no-measure".into());
        return f;
    };
    let smi = match g.smis {
        Some(n) => format!("; {n} SMI(s) counted by the CPU"),
        None => "; SMIs not counted here (MSR 0x34 is Intel's, through modprobe msr; VMs refuse it)".into(),
    };
    let seen = format!(
        "{} gap(s) over {} µs in {:.1} s of busy looping{}, longest {:.1} µs; {} interrupt(s) and {} preemption(s) on the CPU meanwhile{smi}{}",
        g.gaps.count,
        crate::defaults::HWLAT_THRESHOLD_NS / 1000,
        g.gaps.busy_ns as f64 / 1e9,
        if g.realtime { " at SCHED_FIFO 99" } else { " (not real-time: preemptions are gaps too)" },
        g.gaps.max_ns as f64 / 1000.0,
        g.irq_total,
        g.preemptions,
        if g.unexplained() > 0 { format!("; {} not explained by them", g.unexplained()) } else { String::new() },
    );
    let costly = g.smis.is_some_and(|n| n > 0) || g.unexplained() > 0;
    let mut f = f.with(
        if costly { Severity::Costly } else { Severity::Fine },
        seen,
        if costly {
            "gaps nothing in the kernel explains come from firmware (SMIs: BIOS power and thermal management, USB legacy emulation; a BIOS setting) or a hypervisor (dedicated host CPUs)"
        } else {
            "nothing: every gap is accounted for by an interrupt or a preemption"
        },
    );
    f.measured = Some(format!("longest gap {:.1} µs", g.gaps.max_ns as f64 / 1000.0));
    f
}
