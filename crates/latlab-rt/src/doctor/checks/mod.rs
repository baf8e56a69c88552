//! The doctor's checks, one file each behind [`Check`]: what it reads, what it finds, the
//! advice and the remedy that toggles it. [`ALL`] is the order they are inspected in.
//!
//! | file | holds |
//! |---|---|
//! | `governor.rs` | the CPU frequency governor |
//! | `hardware_gaps.rs` | gaps the detector saw (SMIs, a hypervisor's steal) |
//! | `hypervisor.rs` | a hypervisor under the machine |
//! | `idle_states.rs` | deep idle states and /dev/cpu_dma_latency |
//! | `irqs.rs` | interrupts on the measured CPU |
//! | `isolation.rs` | whether the measured CPU is isolated |
//! | `preemption.rs` | the kernel's preemption model |
//! | `smt.rs` | a sibling hyperthread |
//! | `swap.rs` | swap and what it does to a woken thread |
//! | `thp.rs` | transparent huge pages |
//! | `throttling.rs` | RT throttling and the fair server |
//! | `timer_slack.rs` | timer slack |

use super::*;

mod governor;
mod hardware_gaps;
mod hypervisor;
mod idle_states;
mod irqs;
mod isolation;
mod preemption;
mod smt;
mod swap;
mod thp;
mod throttling;
mod timer_slack;

pub use governor::Governor;
pub use hardware_gaps::HardwareGaps;
pub use hypervisor::Hypervisor;
pub use idle_states::IdleStates;
pub use irqs::Irqs;
pub use isolation::Isolation;
pub use preemption::Preemption;
pub use smt::Smt;
pub use swap::Swap;
pub use thp::Thp;
pub use throttling::Throttling;
pub use timer_slack::TimerSlack;

/// What a check reads: the machine, the measured CPU, what `/dev/cpu_dma_latency` held and
/// the gap detector's run when it ran.
pub struct Machine<'a> {
    /// Where files are read.
    pub src: &'a dyn Source,
    /// The machine as described.
    pub info: &'a MachineInfo,
    /// The measured CPU.
    pub cpu: usize,
    /// `/dev/cpu_dma_latency` as found, µs.
    pub dma_latency_us: Option<i32>,
    /// The gap detector's run, if it ran.
    pub gaps: Option<&'a GapRun>,
    /// The kernel's command line.
    pub cmdline: String,
}

/// One thing on the machine that can spoil a wake-up.
pub trait Check: Sync {
    /// Its finding on `m`.
    fn inspect(&self, m: &Machine) -> Finding;
}

/// Every check, in the order they are inspected.
pub const ALL: [&dyn Check; 12] = [
    &Preemption,
    &Throttling,
    &IdleStates,
    &Governor,
    &Smt,
    &Irqs,
    &Isolation,
    &TimerSlack,
    &Thp,
    &Hypervisor,
    &Swap,
    &HardwareGaps,
];

pub(super) fn trim(s: Option<String>) -> Option<String> {
    s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}
/// The bracketed choice of a sysfs multiple-choice file ("always [madvise] never").
pub(super) fn chosen(s: &str) -> Option<&str> {
    s.split_whitespace().find(|w| w.starts_with('[')).map(|w| w.trim_matches(|c| c == '[' || c == ']'))
}
