//! `latlab rt doctor`'s gap detector, in user space (the kernel's hwlat tracer is often
//! absent): a thread pinned to the measured CPU at the top real-time priority reads the clock
//! in a tight loop for part of every window (as hwlatdetect does, width of window) and counts
//! each gap between two reads above a threshold. Around it, the interrupts that fired on the
//! CPU (`/proc/interrupts`), the thread's preemptions, the CPU's steal time and, where the CPU
//! counts them, SMIs (MSR 0x34): the gaps those do not explain were taken by the hardware or
//! a hypervisor.

use latlab_sys::clock::monotonic_now;
use latlab_sys::platform::{Policy, Sched};
use serde::Serialize;

/// What one detector loop saw (no allocation inside it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Gaps {
    /// Clock reads made.
    pub reads: u64,
    /// Gaps above the threshold.
    pub count: u64,
    /// The longest, ns.
    pub max_ns: u64,
    /// Their sum, ns.
    pub total_ns: u64,
    /// Time spent looking, ns.
    pub busy_ns: u64,
}

/// Read `clock` until it passes `until`; count the gaps between successive reads above
/// `threshold_ns`. `clock` is the real clock, or a test's.
pub fn scan(mut clock: impl FnMut() -> u64, until: u64, threshold_ns: u64) -> Gaps {
    let start = clock();
    let mut prev = start;
    let mut g = Gaps::default();
    loop {
        let t = clock();
        g.reads += 1;
        let d = t.saturating_sub(prev);
        if d > threshold_ns {
            g.count += 1;
            g.total_ns += d;
            g.max_ns = g.max_ns.max(d);
        }
        prev = t;
        if t >= until {
            break;
        }
    }
    g.busy_ns = prev.saturating_sub(start);
    g
}

impl Gaps {
    /// Two loops' gaps together.
    pub fn add(&mut self, o: &Gaps) {
        self.reads += o.reads;
        self.count += o.count;
        self.max_ns = self.max_ns.max(o.max_ns);
        self.total_ns += o.total_ns;
        self.busy_ns += o.busy_ns;
    }
}

/// How the detector runs.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Detector {
    /// The CPU it looks at.
    pub cpu: usize,
    /// Total length, ns.
    pub seconds_ns: u64,
    /// Window, ns; the loop runs `width_ns` of each and sleeps the rest.
    pub window_ns: u64,
    /// See `window_ns`.
    pub width_ns: u64,
    /// Gaps above this count, ns.
    pub threshold_ns: u64,
}

/// What the detector run measured, with what explains its gaps.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GapRun {
    /// The gaps.
    pub gaps: Gaps,
    /// The thread got the top SCHED_FIFO priority (else it ran as it was, and every
    /// preemption is a gap too).
    pub realtime: bool,
    /// Interrupts counted on the CPU during the run, per source (`/proc/interrupts`'s first
    /// column and its name), most first.
    pub irqs: Vec<(String, u64)>,
    /// Their sum.
    pub irq_total: u64,
    /// The thread's involuntary context switches during the run.
    pub preemptions: u64,
    /// The CPU's steal time during the run, ns (`/proc/stat`), if the kernel counts it.
    pub steal_ns: Option<u64>,
    /// SMIs counted by the CPU during the run (MSR 0x34), if it counts them and the msr
    /// device is there.
    pub smis: Option<u64>,
}

impl GapRun {
    /// Gaps not explained by an interrupt or a preemption counted on the CPU (a lower
    /// bound: one interrupt may or may not make a gap): the hardware's or a hypervisor's.
    pub fn unexplained(&self) -> u64 {
        self.gaps.count.saturating_sub(self.irq_total + self.preemptions)
    }
}

/// Run the detector: pinned to `d.cpu` at the top SCHED_FIFO priority where granted. The
/// loop stays under RT throttling's budget (width < window).
pub fn run(d: &Detector, read: &dyn Fn(&str) -> Option<String>) -> GapRun {
    let d = *d;
    let irq_before = read("/proc/interrupts").map(|t| interrupts_on(&t, d.cpu)).unwrap_or_default();
    let steal_before = read("/proc/stat").and_then(|t| steal_of_cpu(&t, d.cpu));
    let smi_before = smi_count(d.cpu);
    let (gaps, realtime, preemptions) = std::thread::spawn(move || {
        let _ = latlab_sys::platform::set_affinity(&[d.cpu]);
        let top = latlab_sys::platform::max_priority(Policy::Fifo);
        let realtime = latlab_sys::platform::set_sched(Sched { policy: Policy::Fifo, priority: top }).granted;
        let p0 = involuntary_switches();
        let mut all = Gaps::default();
        let end = monotonic_now() + d.seconds_ns;
        let mut window = monotonic_now();
        while window < end && !latlab_sys::interrupt::stop_requested() {
            let g = scan(monotonic_now, (window + d.width_ns).min(end), d.threshold_ns);
            all.add(&g);
            window += d.window_ns;
            latlab_sys::clock::clock_nanosleep_abs(window.min(end));
        }
        (all, realtime, involuntary_switches().saturating_sub(p0))
    })
    .join()
    .unwrap_or_default();
    let irq_after = read("/proc/interrupts").map(|t| interrupts_on(&t, d.cpu)).unwrap_or_default();
    let mut irqs: Vec<(String, u64)> = irq_after
        .iter()
        .filter_map(|(k, n)| {
            let b = irq_before.iter().find(|(kb, _)| kb == k).map_or(0, |x| x.1);
            (n > &b).then(|| (k.clone(), n - b))
        })
        .collect();
    irqs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let steal_after = read("/proc/stat").and_then(|t| steal_of_cpu(&t, d.cpu));
    GapRun {
        gaps,
        realtime,
        irq_total: irqs.iter().map(|x| x.1).sum(),
        irqs,
        preemptions,
        steal_ns: steal_before.zip(steal_after).map(|(a, b)| b.saturating_sub(a) * ns_per_tick()),
        smis: smi_before.zip(smi_count(d.cpu)).map(|(a, b)| b.saturating_sub(a)),
    }
}

/// Each interrupt source's count on `cpu` from `/proc/interrupts` text: (source, count),
/// the source being the first column and the name after the counts ("24 ACPI:Ged",
/// "LOC Local timer interrupts").
pub fn interrupts_on(text: &str, cpu: usize) -> Vec<(String, u64)> {
    let mut lines = text.lines();
    let Some(head) = lines.next() else { return Vec::new() };
    let cpus: Vec<&str> = head.split_whitespace().collect();
    let Some(col) = cpus.iter().position(|c| *c == format!("CPU{cpu}")) else { return Vec::new() };
    let ncpu = cpus.len();
    lines
        .filter_map(|l| {
            let (key, rest) = l.split_once(':')?;
            let words: Vec<&str> = rest.split_whitespace().collect();
            let n: u64 = words.get(col)?.parse().ok()?;
            let counts = words.iter().take(ncpu).take_while(|w| w.parse::<u64>().is_ok()).count();
            let name = words[counts..].join(" ");
            let key = key.trim();
            Some((if name.is_empty() { key.to_string() } else { format!("{key} {name}") }, n))
        })
        .collect()
}

/// The steal ticks of `cpu` from `/proc/stat` text.
pub fn steal_of_cpu(text: &str, cpu: usize) -> Option<u64> {
    let tag = format!("cpu{cpu}");
    let line = text.lines().find(|l| l.split_whitespace().next() == Some(tag.as_str()))?;
    line.split_whitespace().nth(8)?.parse().ok()
}

/// Nanoseconds per `/proc/stat` tick (USER_HZ).
fn ns_per_tick() -> u64 {
    let hz = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK).ok().flatten().unwrap_or(100).max(1) as u64;
    1_000_000_000 / hz
}

/// The calling thread's involuntary context switches.
fn involuntary_switches() -> u64 {
    std::fs::read_to_string("/proc/thread-self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| l.strip_prefix("nonvoluntary_ctxt_switches:").and_then(|v| v.trim().parse().ok()))
        })
        .unwrap_or(0)
}

/// MSR_SMI_COUNT (0x34) of `cpu` through the msr device, if it is there and the CPU has it
/// (Intel; AMD and VMs refuse the read).
pub fn smi_count(cpu: usize) -> Option<u64> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::File::open(format!("/dev/cpu/{cpu}/msr")).ok()?;
    let mut b = [0u8; 8];
    f.read_exact_at(&mut b, 0x34).ok()?;
    Some(u64::from_le_bytes(b) & 0xffff_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_counts_only_the_gaps_above_the_threshold() {
        // Reads every 100 ns, with a 5 µs and a 50 µs gap.
        let mut t = 0u64;
        let mut i = 0;
        let g = scan(
            || {
                i += 1;
                t += match i {
                    10 => 5_000,
                    20 => 50_000,
                    _ => 100,
                };
                t
            },
            100_000,
            1_000,
        );
        assert_eq!(g.count, 2);
        assert_eq!(g.max_ns, 50_000);
        assert_eq!(g.total_ns, 55_000);
        assert!(g.busy_ns >= 100_000 - 100 && g.reads > 400);
    }

    #[test]
    fn interrupts_of_one_cpu_by_source() {
        let text = "           CPU0       CPU1       \n 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n 26:          0         13  IO-APIC   4-edge      ttyS0\nNMI:          0          0   Non-maskable interrupts\nLOC:      20779      31223   Local timer interrupts\nERR:          0\n";
        let v = interrupts_on(text, 1);
        assert_eq!(v[0], ("24 IO-APIC 5-edge ACPI:Ged".into(), 0));
        assert_eq!(v[1], ("26 IO-APIC 4-edge ttyS0".into(), 13));
        assert_eq!(v[3], ("LOC Local timer interrupts".into(), 31223));
        assert!(!v.iter().any(|x| x.0.starts_with("ERR")), "ERR has no per-CPU column");
        assert!(interrupts_on(text, 7).is_empty());
    }

    #[test]
    fn steal_of_one_cpu() {
        let s = "cpu  1 2 3 4 5 6 7 80 0 0\ncpu0 1 2 3 4 5 6 7 30 0 0\ncpu1 1 2 3 4 5 6 7 50 0 0\n";
        assert_eq!(steal_of_cpu(s, 1), Some(50));
        assert_eq!(steal_of_cpu(s, 2), None);
    }

    #[test]
    fn unexplained_gaps_are_those_beyond_interrupts_and_preemptions() {
        let r = GapRun {
            gaps: Gaps { count: 10, ..Default::default() },
            irq_total: 3,
            preemptions: 2,
            ..Default::default()
        };
        assert_eq!(r.unexplained(), 5);
        assert_eq!(GapRun { irq_total: 30, ..r }.unexplained(), 0);
    }
}
