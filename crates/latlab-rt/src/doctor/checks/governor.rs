//! The doctor's check of the CPU frequency governor.

use super::*;

/// The CPU frequency governor.
pub struct Governor;

impl Check for Governor {
    fn inspect(&self, m: &Machine) -> Finding {
        governor(m.src, m.cpu)
    }
}

fn governor(src: &dyn Source, cpu: usize) -> Finding {
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
