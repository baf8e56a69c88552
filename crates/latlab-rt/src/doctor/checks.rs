//! The doctor's checks, one function each: what it reads, what it finds, the advice and the
//! remedy that toggles it.

use super::*;

pub(super) fn trim(s: Option<String>) -> Option<String> {
    s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// The bracketed choice of a sysfs multiple-choice file ("always [madvise] never").
fn chosen(s: &str) -> Option<&str> {
    s.split_whitespace().find(|w| w.starts_with('[')).map(|w| w.trim_matches(|c| c == '[' || c == ']'))
}

pub(super) fn preemption(src: &dyn Source, info: &MachineInfo) -> Finding {
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

pub(super) fn throttling(src: &dyn Source, cpu: usize) -> Finding {
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
            args: &["--load", "hog"],
            headline: "loaded.l1.latency",
            stat: Stat::Max,
        });
    }
    f
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

pub(super) fn idle_states(src: &dyn Source, cpu: usize, dma: Option<i32>) -> Finding {
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
        f.toggle = Some(Toggle { remedy: "dma-latency", args: &[], headline: "unloaded.l1.latency", stat: Stat::P99 });
    }
    f
}

pub(super) fn governor(src: &dyn Source, cpu: usize) -> Finding {
    let f = Finding::new(
        "governor",
        "CPU frequency governor",
        "a CPU that slows down when idle runs the woken thread slowly until the governor raises the clock, and a frequency change can stall the core",
    );
    match trim(src.read(&format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"))) {
        None => f.with(Severity::Fine, "no cpufreq (frequency set by the firmware or the host)", "nothing latlab can change here"),
        Some(g) if g == "performance" => f.with(Severity::Fine, g, "nothing"),
        Some(g) => f.with(
            Severity::Costly,
            g,
            format!("echo performance > /sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor (or cpupower frequency-set -g performance) while latency matters"),
        ),
    }
}

pub(super) fn smt(src: &dyn Source, cpu: usize) -> Finding {
    let f = Finding::new(
        "smt",
        "SMT siblings of the measured CPU",
        "a hyperthread sibling shares the core's execution units and caches: whatever runs there slows the measured thread",
    );
    let sib = trim(src.read(&format!("/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list")));
    match sib.as_deref().map(latlab_sys::change::parse_cpu_list) {
        Some(Ok(v)) if v.iter().any(|&c| c != cpu) => f.with(
            Severity::Costly,
            format!("CPU {cpu} shares its core with CPU {}", v.iter().filter(|&&c| c != cpu).map(|c| c.to_string()).collect::<Vec<_>>().join(", ")),
            "keep the sibling idle (shield both), or take it offline (echo 0 > /sys/devices/system/cpu/cpuN/online), or nosmt",
        ),
        Some(Ok(_)) => f.with(Severity::Fine, format!("CPU {cpu} has its core to itself"), "nothing"),
        _ => f.with(Severity::Note, "not readable", "check lscpu's Thread(s) per core"),
    }
}

pub(super) fn irqs(src: &dyn Source, cpu: usize, gaps: Option<&GapRun>) -> Finding {
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
    f.toggle = Some(Toggle { remedy: "shield", args: &[], headline: "unloaded.l1.latency", stat: Stat::P99 });
    f
}

pub(super) fn isolation(src: &dyn Source, cpu: usize, cmdline: &str) -> Finding {
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

pub(super) fn timer_slack(src: &dyn Source) -> Finding {
    let f = Finding::new(
        "timer-slack",
        "Timer slack",
        "a SCHED_OTHER thread's timers may fire up to its slack late (50 µs by default) so the kernel can group wake-ups; the kernel ignores slack for real-time threads",
    );
    let slack = trim(src.read("/proc/self/timerslack_ns")).and_then(|s| s.parse::<u64>().ok());
    let mut f = match slack {
        Some(s) if s > 1_000 => f.with(
            Severity::Note,
            format!("{:.0} µs for a new thread (inherited)", s as f64 / 1000.0),
            "prctl(PR_SET_TIMERSLACK, 1) in a latency-sensitive SCHED_OTHER thread (latlab rt sets 1 ns for its own)",
        ),
        Some(s) => f.with(Severity::Fine, format!("{s} ns"), "nothing"),
        None => f.with(Severity::Note, "not readable", "prctl(PR_GET_TIMERSLACK)"),
    };
    if f.severity == Severity::Note && slack.is_some() {
        f.toggle = Some(Toggle {
            remedy: "timer-slack",
            args: &["--l1-policy", "other", "--load", "none"],
            headline: "unloaded.l1.latency",
            stat: Stat::P99,
        });
    }
    f
}

pub(super) fn thp(src: &dyn Source) -> Finding {
    let f = Finding::new(
        "thp",
        "Transparent huge pages and compaction",
        "with huge pages 'always' a page fault may compact memory to find a huge page (direct compaction: milliseconds), and khugepaged collapses pages behind a running program",
    );
    let enabled = trim(src.read("/sys/kernel/mm/transparent_hugepage/enabled"));
    let defrag = trim(src.read("/sys/kernel/mm/transparent_hugepage/defrag"));
    let proactive = trim(src.read("/proc/sys/vm/compaction_proactiveness"));
    let (e, d) = (enabled.as_deref().and_then(chosen), defrag.as_deref().and_then(chosen));
    let seen = format!(
        "enabled {}, defrag {}, compaction_proactiveness {}",
        e.unwrap_or("?"),
        d.unwrap_or("?"),
        proactive.as_deref().unwrap_or("?")
    );
    let advice = "madvise (echo madvise > /sys/kernel/mm/transparent_hugepage/enabled and defrag) and lock real-time memory (mlockall, as latlab rt does); not measured here: it shows on fragmented memory, not in a short run";
    if e == Some("always") || d == Some("always") {
        f.with(Severity::Costly, seen, advice)
    } else {
        f.with(Severity::Fine, seen, "nothing")
    }
}

pub(super) fn hypervisor(src: &dyn Source, info: &MachineInfo, gaps: Option<&GapRun>) -> Finding {
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

pub(super) fn swap(src: &dyn Source) -> Finding {
    let f = Finding::new(
        "swap",
        "Swap and memory locking",
        "a page of a real-time program that was swapped out or dropped costs a major fault (milliseconds) when next touched; locked memory (mlockall) cannot be",
    );
    let swaps =
        src.read("/proc/swaps").map(|s| s.lines().skip(1).filter(|l| !l.trim().is_empty()).count()).unwrap_or(0);
    let limit = src
        .read("/proc/self/limits")
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("Max locked memory"))
                .map(|l| l.split_whitespace().nth(3).unwrap_or("?").to_string())
        })
        .unwrap_or_else(|| "?".into());
    let root = latlab_sys::platform::is_root();
    let can_lock = root || limit == "unlimited";
    let seen = format!(
        "{} swap area(s); locked memory limit {limit}{}",
        swaps,
        if root { " (root: mlockall works regardless)" } else { "" }
    );
    match (swaps > 0, can_lock) {
        (_, true) => f.with(if swaps > 0 { Severity::Note } else { Severity::Fine }, seen, "lock real-time programs' memory (mlockall(MCL_CURRENT|MCL_FUTURE), as latlab rt does)"),
        (true, false) => f.with(Severity::Costly, seen, "raise RLIMIT_MEMLOCK (ulimit -l unlimited, limits.conf memlock) or grant CAP_IPC_LOCK so a real-time program can lock its memory"),
        (false, false) => f.with(Severity::Note, seen, "no swap now, but file pages can still be dropped: raise RLIMIT_MEMLOCK so real-time programs can lock memory"),
    }
}

pub(super) fn hardware_gaps(gaps: Option<&GapRun>) -> Finding {
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
