//! The doctor's check of deep idle states and /dev/cpu_dma_latency.

use super::*;

/// Deep idle states and /dev/cpu_dma_latency.
pub struct IdleStates;

impl Check for IdleStates {
    fn inspect(&self, m: &Machine) -> Finding {
        idle_states(m.src, m.cpu, m.dma_latency_us)
    }
}

/// One cpuidle state of a CPU: (name, exit latency µs, disabled).
fn states(src: &dyn Source, cpu: usize) -> Vec<(String, u64, bool)> {
    let dir = format!("/sys/devices/system/cpu/cpu{cpu}/cpuidle");
    src.list(&dir)
        .iter()
        .filter(|n| n.starts_with("state"))
        .filter_map(|n| {
            let name = trim(src.read(&format!("{dir}/{n}/name")))?;
            let lat = trim(src.read(&format!("{dir}/{n}/latency")))?.parse().ok()?;
            let off = trim(src.read(&format!("{dir}/{n}/disable"))).is_some_and(|d| d != "0");
            Some((name, lat, off))
        })
        .collect()
}
fn idle_states(src: &dyn Source, cpu: usize, dma: Option<i32>) -> Finding {
    let mut f = Finding::new(
        "idle-states",
        "Idle states (cpuidle) and cpu_dma_latency",
        "an idle CPU woken from a deep state pays the state's exit latency before the woken thread runs; in a virtual machine, a halted vCPU is woken through the hypervisor",
    );
    let driver = trim(src.read("/sys/devices/system/cpu/cpuidle/current_driver")).unwrap_or_else(|| "none".into());
    let st = states(src, cpu);
    let held = match dma {
        Some(v) if v < 2_000_000_000 => format!("; cpu_dma_latency held at {v} µs by some process"),
        Some(_) => "; cpu_dma_latency not held".into(),
        None => "; cpu_dma_latency not readable".into(),
    };
    let enabled: Vec<&(String, u64, bool)> = st.iter().filter(|s| !s.2).collect();
    let list = st
        .iter()
        .map(|(n, l, off)| format!("{n} {l} µs{}", if *off { " (disabled)" } else { "" }))
        .collect::<Vec<_>>()
        .join(", ");
    let deepest = enabled.iter().map(|s| s.1).max().unwrap_or(0);
    let beyond_poll = enabled.iter().any(|s| s.0 != "POLL");
    f = if st.is_empty() {
        f.with(
            Severity::Note,
            format!("driver {driver}, no states listed for CPU {cpu}{held}"),
            "the idle loop is the architecture's default (a halt); holding cpu_dma_latency at 0 makes it poll",
        )
    } else if beyond_poll {
        f.with(
            Severity::Costly,
            format!("driver {driver}, CPU {cpu}: {list}; deepest enabled exit latency {deepest} µs{held}"),
            "hold /dev/cpu_dma_latency at 0 (open it, write 0, keep it open) while latency matters, as latlab rt does by default; or limit states (idle=poll, intel_idle.max_cstate=1, processor.max_cstate=1) at the cost of power",
        )
    } else {
        f.with(
            Severity::Fine,
            format!("driver {driver}, CPU {cpu}: {list}{held}"),
            "nothing: the CPU only polls when idle",
        )
    };
    if f.severity == Severity::Costly || st.is_empty() {
        f.toggle = Some(Toggle {
            remedy: "dma-latency",
            setup: Toggle::as_is,
            headline: "unloaded.l1.latency",
            stat: Stat::P99,
        });
    }
    f
}
