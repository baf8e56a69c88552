//! The doctor's check of a hypervisor under the machine.

use super::*;

/// A hypervisor under the machine.
pub struct Hypervisor;

impl Check for Hypervisor {
    fn inspect(&self, m: &Machine) -> Finding {
        hypervisor(m.src, m.info, m.gaps)
    }
}

fn hypervisor(src: &dyn Source, info: &MachineInfo, gaps: Option<&GapRun>) -> Finding {
    let mut f = Finding::new(
        "hypervisor",
        "Hypervisor",
        "in a virtual machine the host may run something else on the vCPU's physical CPU (steal time), and timers and wake-ups of a halted vCPU go through the host: latency the guest cannot control",
    );
    let v = info.virtualization.clone().unwrap_or_else(|| "unknown".into());
    // A container may run in a VM too: the CPU's hypervisor flag and a paravirtual clock say so.
    let flag = src
        .read("/proc/cpuinfo")
        .is_some_and(|c| c.lines().any(|l| l.starts_with("flags") && l.split_whitespace().any(|w| w == "hypervisor")));
    let clock = info.clocksource.as_deref().unwrap_or("");
    let host = match clock {
        "kvm-clock" => Some("KVM"),
        "xen" => Some("Xen"),
        c if c.starts_with("hyperv") => Some("Hyper-V"),
        _ => None,
    };
    f = if v.starts_with("vm") || flag || host.is_some() {
        let what = match (v.starts_with("vm"), host) {
            (true, _) => v,
            (false, Some(h)) => format!(
                "a {h} guest (clocksource {clock}){}",
                if v.starts_with("container") { format!(", inside a {v}") } else { String::new() }
            ),
            (false, None) => format!(
                "a virtual machine (the CPU's hypervisor flag){}",
                if v.starts_with("container") { format!(", inside a {v}") } else { String::new() }
            ),
        };
        f.with(Severity::Costly, what, "pin the vCPUs to dedicated host CPUs (and the host's IRQs away), expose an idle-polling guest (haltpoll) or hold cpu_dma_latency; or measure on bare metal")
    } else if v.starts_with("container") {
        f.with(Severity::Note, v, "a container shares the host kernel: the host's settings are the ones that count")
    } else {
        f.with(Severity::Fine, v, "nothing")
    };
    f.measured = gaps.map(|g| {
        let steal = g.steal_ns.map_or("steal not counted".into(), |s| format!("steal {:.1} ms", s as f64 / 1e6));
        format!(
            "during the gap detector: {steal}; {} gap(s) over {} µs not explained by an interrupt or a preemption on the CPU",
            g.unexplained(),
            crate::defaults::HWLAT_THRESHOLD_NS / 1000
        )
    });
    f
}
