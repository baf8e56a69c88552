//! The doctor's check of interrupts on the measured CPU.

use super::*;

/// Interrupts on the measured CPU.
pub struct Irqs;

impl Check for Irqs {
    fn inspect(&self, m: &Machine) -> Finding {
        irqs(m.src, m.cpu, m.gaps)
    }
}

fn irqs(src: &dyn Source, cpu: usize, gaps: Option<&GapRun>) -> Finding {
    let mut f = Finding::new(
        "irqs",
        "Interrupts on the measured CPU",
        "every interrupt handled on the measured CPU runs before the woken thread (and a threaded one competes with it): device interrupts belong on other CPUs",
    );
    // Device IRQs whose affinity includes the CPU (the per-CPU ones cannot be moved).
    let mut allowed = Vec::new();
    for n in src.list("/proc/irq") {
        if n.parse::<u32>().is_err() {
            continue;
        }
        let list = trim(src.read(&format!("/proc/irq/{n}/smp_affinity_list")));
        if list.and_then(|l| latlab_sys::change::parse_cpu_list(&l).ok()).is_some_and(|v| v.contains(&cpu)) {
            allowed.push(n);
        }
    }
    let fired = gaps.map(|g| {
        let top: Vec<String> = g.irqs.iter().take(5).map(|(k, n)| format!("{k} ×{n}")).collect();
        (g.irq_total, top.join(", "))
    });
    let seen = format!(
        "{} device IRQ(s) may run on CPU {cpu}{}",
        allowed.len(),
        fired.as_ref().map_or(String::new(), |(n, top)| format!(
            "; {n} interrupt(s) fired on it during the gap detector ({top})"
        )),
    );
    let device_fired = gaps.is_some_and(|g| {
        g.irqs.iter().any(|(k, _)| k.split_whitespace().next().is_some_and(|s| s.parse::<u32>().is_ok()))
    });
    f = if allowed.is_empty() && !device_fired {
        f.with(
            Severity::Note,
            seen,
            "the timer's and the scheduler's own interrupts stay: nohz_full on the CPU removes most of the timer's",
        )
    } else {
        f.with(
            Severity::Costly,
            seen,
            format!("point device IRQs away from CPU {cpu} (echo to /proc/irq/N/smp_affinity_list, irqbalance --banirq, or latlab tune shield for a run)"),
        )
    };
    f.measured = fired.map(|(n, _)| format!("{n} interrupts on CPU {cpu} during the detector"));
    f.toggle =
        Some(Toggle { remedy: "shield", setup: Toggle::as_is, headline: "unloaded.l1.latency", stat: Stat::P99 });
    f
}
