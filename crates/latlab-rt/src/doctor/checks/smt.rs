//! The doctor's check of a sibling hyperthread.

use super::*;

/// A sibling hyperthread.
pub struct Smt;

impl Check for Smt {
    fn inspect(&self, m: &Machine) -> Finding {
        smt(m.src, m.cpu)
    }
}

fn smt(src: &dyn Source, cpu: usize) -> Finding {
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
