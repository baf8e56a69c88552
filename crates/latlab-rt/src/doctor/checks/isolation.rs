//! The doctor's check of whether the measured CPU is isolated.

use super::*;

/// Whether the measured CPU is isolated.
pub struct Isolation;

impl Check for Isolation {
    fn inspect(&self, m: &Machine) -> Finding {
        isolation(m.src, m.cpu, &m.cmdline)
    }
}

fn isolation(src: &dyn Source, cpu: usize, cmdline: &str) -> Finding {
    let f = Finding::new(
        "isolation",
        "CPU isolation (isolcpus, nohz_full, rcu_nocbs)",
        "a CPU not isolated takes the scheduler's tick, RCU callbacks and any task the balancer moves there; isolated, with nohz_full and rcu_nocbs, it keeps only what is pinned to it",
    );
    let param = |name: &str| {
        cmdline
            .split_whitespace()
            .find_map(|w| w.strip_prefix(name).and_then(|v| v.strip_prefix('=')))
            .map(str::to_string)
    };
    // isolcpus may lead with flags ("domain,managed_irq,2-3"): the CPUs are the rest.
    let on = |list: Option<String>| {
        list.map(|l| l.split(',').filter(|w| !w.chars().any(|c| c.is_ascii_alphabetic())).collect::<Vec<_>>().join(","))
            .and_then(|l| latlab_sys::change::parse_cpu_list(&l).ok())
            .is_some_and(|v| v.contains(&cpu))
    };
    let isolated = on(trim(src.read("/sys/devices/system/cpu/isolated"))) || on(param("isolcpus"));
    let nohz = on(trim(src.read("/sys/devices/system/cpu/nohz_full"))) || on(param("nohz_full"));
    let nocb = on(param("rcu_nocbs"));
    let seen = format!(
        "CPU {cpu}: {}isolated, {}nohz_full, {}rcu_nocbs",
        if isolated { "" } else { "not " },
        if nohz { "" } else { "not " },
        if nocb { "" } else { "not " }
    );
    if isolated && nohz && nocb {
        f.with(Severity::Fine, seen, "nothing")
    } else {
        f.with(
            Severity::Note,
            seen,
            format!("for the last microseconds: boot with isolcpus={cpu} nohz_full={cpu} rcu_nocbs={cpu} (needs a reboot; not measured here; latlab tune shield measures the part a running system can do)"),
        )
    }
}
