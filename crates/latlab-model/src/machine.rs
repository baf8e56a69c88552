//! The machine description stored with every run: kernel and preemption model, CPU,
//! clocksource, governor, virtualization, RT throttling, and load/PSI/steal snapshots before
//! and after. `latlab_sys::machine` reads them; a fact that cannot be read is `None`.

use crate::capability::RtThrottling;
use serde::{Deserialize, Serialize};

/// Facts that do not change during a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineInfo {
    /// Host name.
    pub hostname: Option<String>,
    /// `/etc/machine-id` (or D-Bus's copy): tells apart hosts that share a name, as a fleet of
    /// boards flashed from one image does. Absent in records made before latlab read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_id: Option<String>,
    /// `uname -r`.
    pub kernel_release: Option<String>,
    /// `uname -v` (build string; names PREEMPT / PREEMPT_RT / PREEMPT_DYNAMIC).
    pub kernel_version: Option<String>,
    /// Preemption model: `none`, `voluntary`, `full`, `rt`, `dynamic(<mode>)`, as found.
    pub preemption: Option<String>,
    /// CPU model name (on ARM, where `/proc/cpuinfo` names no model: the core named from its
    /// implementer and part numbers, with the board from the device tree when it has one).
    pub cpu_model: Option<String>,
    /// The machine's architecture as the kernel names it (`uname -m`: `x86_64`, `aarch64`,
    /// `armv7l`). Absent in records made before latlab read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// Online logical CPUs.
    pub cpus: usize,
    /// Current clocksource (`tsc`, `kvm-clock`, …).
    pub clocksource: Option<String>,
    /// cpufreq governor of CPU 0, if cpufreq is present.
    pub governor: Option<String>,
    /// Hypervisor or container found, or `none`.
    pub virtualization: Option<String>,
    /// Total memory in bytes.
    pub mem_total_bytes: Option<u64>,
    /// RT throttling as found.
    pub rt_throttling: Option<RtThrottling>,
}

/// Load indicators at one instant.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadSnapshot {
    /// 1, 5 and 15 minute load averages.
    pub loadavg: Option<[f64; 3]>,
    /// PSI `some avg10` for cpu, memory, io (percent), where PSI exists.
    pub psi_some_avg10: Option<Psi>,
    /// Cumulative steal time over all CPUs, in clock ticks (USER_HZ), from `/proc/stat`.
    pub steal_ticks: Option<u64>,
    /// Cumulative total CPU time over all CPUs, in clock ticks.
    pub total_ticks: Option<u64>,
}

/// Pressure-stall `some avg10` percentages.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Psi {
    /// CPU pressure.
    pub cpu: Option<f64>,
    /// Memory pressure.
    pub memory: Option<f64>,
    /// I/O pressure.
    pub io: Option<f64>,
}

/// The machine description of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Static facts.
    pub info: MachineInfo,
    /// Load just before measuring.
    pub before: LoadSnapshot,
    /// Load just after measuring.
    pub after: Option<LoadSnapshot>,
}

impl Machine {
    /// Fraction of CPU time stolen by the hypervisor between the two snapshots.
    pub fn steal_fraction(&self) -> Option<f64> {
        let a = self.after.as_ref()?;
        let ds = a.steal_ticks?.checked_sub(self.before.steal_ticks?)?;
        let dt = a.total_ticks?.checked_sub(self.before.total_ticks?)?;
        (dt > 0).then(|| ds as f64 / dt as f64)
    }
}
