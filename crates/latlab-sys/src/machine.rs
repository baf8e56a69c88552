//! Reads the machine description stored with every run: kernel and preemption model, CPU, clocksource,
//! governor, virtualization, RT throttling, and load/PSI/steal snapshots before and after.
//!
//! Everything is read from `/proc` and `/sys`; a fact that cannot be read is `None`, never
//! guessed.

pub use latlab_model::machine::{LoadSnapshot, Machine, MachineInfo, Psi};

fn read_trim(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// Preemption model from the kernel's own words: `/sys/kernel/realtime`, the
/// `sched/preempt` debugfs file for PREEMPT_DYNAMIC kernels, and the `uname -v` string.
pub fn preemption_model(version: &str, dynamic_mode: Option<&str>, realtime: bool) -> String {
    if realtime || version.contains("PREEMPT_RT") {
        return "rt".into();
    }
    if version.contains("PREEMPT_DYNAMIC") {
        // debugfs prints e.g. "none voluntary (full) lazy"; the chosen one is in parentheses.
        let mode = dynamic_mode
            .and_then(|m| m.split_whitespace().find(|w| w.starts_with('(')))
            .map(|w| w.trim_matches(|c| c == '(' || c == ')').to_string());
        return match mode {
            Some(m) => format!("dynamic({m})"),
            None => "dynamic".into(),
        };
    }
    if version.contains("PREEMPT") {
        return "full".into();
    }
    "none or voluntary".into()
}

/// The CPU model from `/proc/cpuinfo` text: x86's `model name`, a board's `Model` or
/// `cpu model`, else (ARM) the core its `CPU implementer` and `CPU part` name.
pub fn cpu_model_from_cpuinfo(cpuinfo: &str) -> Option<String> {
    let field = |name: &str| {
        cpuinfo
            .lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    field("model name").or_else(|| field("Model")).or_else(|| field("cpu model")).or_else(|| {
        let implementer = field("CPU implementer")?;
        let part = field("CPU part")?;
        let core = arm_core(&implementer, &part);
        Some(match core {
            Some(c) => format!("{c} (implementer {implementer}, part {part})"),
            None => format!("ARM core: implementer {implementer}, part {part}"),
        })
    })
}

/// The core an ARM `CPU implementer` / `CPU part` pair names (the common ones on boards).
fn arm_core(implementer: &str, part: &str) -> Option<&'static str> {
    let arm = implementer.eq_ignore_ascii_case("0x41");
    let name = match part.to_ascii_lowercase().as_str() {
        "0xc07" => "Cortex-A7",
        "0xc08" => "Cortex-A8",
        "0xc09" => "Cortex-A9",
        "0xc0f" => "Cortex-A15",
        "0xd03" => "Cortex-A53",
        "0xd04" => "Cortex-A35",
        "0xd05" => "Cortex-A55",
        "0xd07" => "Cortex-A57",
        "0xd08" => "Cortex-A72",
        "0xd09" => "Cortex-A73",
        "0xd0a" => "Cortex-A75",
        "0xd0b" => "Cortex-A76",
        "0xd0c" => "Neoverse-N1",
        "0xd40" => "Neoverse-V1",
        "0xd41" => "Cortex-A78",
        "0xd49" => "Neoverse-N2",
        _ => return None,
    };
    arm.then_some(name)
}

/// Parse the aggregate `cpu` line of `/proc/stat` into (steal, total) ticks.
pub fn steal_from_proc_stat(stat: &str) -> Option<(u64, u64)> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    // user nice system idle iowait irq softirq steal guest guest_nice; guest is inside user.
    let total: u64 = v.iter().take(8).sum();
    Some((*v.get(7)?, total))
}

/// Parse `some avg10=…` from a PSI file.
pub fn psi_some_avg10(text: &str) -> Option<f64> {
    let line = text.lines().find(|l| l.starts_with("some"))?;
    line.split_whitespace().find_map(|w| w.strip_prefix("avg10=")).and_then(|v| v.parse().ok())
}

fn virtualization(cpuinfo: &str) -> Option<String> {
    if std::path::Path::new("/.dockerenv").exists() {
        return Some("container (docker)".into());
    }
    if let Some(c) = read_trim("/run/systemd/container") {
        return Some(format!("container ({c})"));
    }
    let hv_flag = cpuinfo.lines().any(|l| l.starts_with("flags") && l.split_whitespace().any(|w| w == "hypervisor"));
    let vendor = read_trim("/sys/class/dmi/id/sys_vendor");
    let product = read_trim("/sys/class/dmi/id/product_name");
    let hv_type = read_trim("/sys/hypervisor/type");
    // ARM boards under KVM name the hypervisor in the DMI vendor or product (QEMU, KVM).
    let dmi_vm = [&vendor, &product].into_iter().flatten().any(|v| {
        let v = v.to_ascii_lowercase();
        ["qemu", "kvm", "virtualbox", "vmware", "xen", "amazon ec2", "google compute"].iter().any(|h| v.contains(h))
    });
    if hv_flag || hv_type.is_some() || dmi_vm {
        let name = [hv_type, vendor, product].into_iter().flatten().collect::<Vec<_>>().join(" ");
        return Some(if name.is_empty() { "vm".into() } else { format!("vm ({name})") });
    }
    // Only x86 CPUs carry a hypervisor flag: elsewhere no evidence is not proof of none.
    if cfg!(any(target_arch = "x86_64", target_arch = "x86")) {
        Some("none".into())
    } else {
        Some(format!("none found (no hypervisor flag on {})", std::env::consts::ARCH))
    }
}

/// The board a device tree names (`/sys/firmware/devicetree/base/model`: "Raspberry Pi 4
/// Model B Rev 1.4"), where there is one.
fn board_model() -> Option<String> {
    let raw = std::fs::read("/sys/firmware/devicetree/base/model").ok()?;
    let s = String::from_utf8_lossy(&raw).trim_end_matches('\0').trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// The running kernel's release (`uname -r`), "" when it cannot be read.
pub fn kernel_release() -> String {
    nix::sys::utsname::uname().map(|u| u.release().to_string_lossy().into_owned()).unwrap_or_default()
}

/// Describe this machine now (the `before` snapshot is taken here).
pub fn describe() -> Machine {
    Machine { info: info(), before: snapshot(), after: None }
}

/// Take `m`'s `after` snapshot.
pub fn finish(m: &mut Machine) {
    m.after = Some(snapshot());
}

/// Why this machine is a small board the suite scales down for
/// ([`latlab_model::experiment::small_machine`]), or `None`.
pub fn small_board() -> Option<String> {
    let m = info();
    latlab_model::experiment::small_machine(m.cpus, m.mem_total_bytes)
}

/// Read the static facts.
pub fn info() -> MachineInfo {
    let uts = nix::sys::utsname::uname().ok();
    let release = uts.as_ref().map(|u| u.release().to_string_lossy().into_owned());
    let version = uts.as_ref().map(|u| u.version().to_string_lossy().into_owned());
    let realtime = read_trim("/sys/kernel/realtime").as_deref() == Some("1");
    let dyn_mode = read_trim("/sys/kernel/debug/sched/preempt");
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let mem_total_bytes = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    });
    MachineInfo {
        hostname: hostname(),
        machine_id: read_trim("/etc/machine-id").or_else(|| read_trim("/var/lib/dbus/machine-id")),
        preemption: version.as_deref().map(|v| preemption_model(v, dyn_mode.as_deref(), realtime)),
        kernel_release: release,
        kernel_version: version,
        cpu_model: cpu_model_from_cpuinfo(&cpuinfo).map(|c| match board_model() {
            Some(b) if !c.contains(&b) => format!("{c} on {b}"),
            _ => c,
        }),
        arch: uts.as_ref().map(|u| u.machine().to_string_lossy().into_owned()),
        cpus: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        clocksource: read_trim("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        governor: read_trim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        virtualization: virtualization(&cpuinfo),
        mem_total_bytes,
        rt_throttling: crate::platform::rt_throttling(),
    }
}

/// Read load indicators now.
pub fn snapshot() -> LoadSnapshot {
    let loadavg = read_trim("/proc/loadavg").and_then(|s| {
        let v: Vec<f64> = s.split_whitespace().take(3).filter_map(|x| x.parse().ok()).collect();
        (v.len() == 3).then(|| [v[0], v[1], v[2]])
    });
    let psi = |r: &str| std::fs::read_to_string(format!("/proc/pressure/{r}")).ok().and_then(|t| psi_some_avg10(&t));
    let psi_some_avg10 = if std::path::Path::new("/proc/pressure").exists() {
        Some(Psi { cpu: psi("cpu"), memory: psi("memory"), io: psi("io") })
    } else {
        None
    };
    let st = std::fs::read_to_string("/proc/stat").ok().and_then(|s| steal_from_proc_stat(&s));
    LoadSnapshot { loadavg, psi_some_avg10, steal_ticks: st.map(|s| s.0), total_ticks: st.map(|s| s.1) }
}

/// This machine's host name, if it has one.
pub fn hostname() -> Option<String> {
    nix::unistd::gethostname().ok().map(|h| h.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preemption_models() {
        assert_eq!(preemption_model("#1 SMP PREEMPT_RT Tue", None, false), "rt");
        assert_eq!(preemption_model("#1 SMP", None, true), "rt");
        assert_eq!(
            preemption_model("#1 SMP PREEMPT_DYNAMIC Debian", Some("none voluntary (full) lazy"), false),
            "dynamic(full)"
        );
        assert_eq!(preemption_model("#1 SMP PREEMPT_DYNAMIC", None, false), "dynamic");
        assert_eq!(preemption_model("#1 SMP PREEMPT Mon", None, false), "full");
        assert_eq!(preemption_model("#1 SMP Mon", None, false), "none or voluntary");
    }

    #[test]
    fn proc_parsers() {
        let stat = "cpu  100 5 50 1000 10 1 2 7 0 0\ncpu0 1 2 3\n";
        assert_eq!(steal_from_proc_stat(stat), Some((7, 1175)));
        let psi = "some avg10=1.25 avg60=0.50 avg300=0.10 total=123\nfull avg10=0.00 avg60=0 avg300=0 total=0\n";
        assert_eq!(psi_some_avg10(psi), Some(1.25));
        let ci = "processor\t: 0\nvendor_id\t: X\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n";
        assert_eq!(cpu_model_from_cpuinfo(ci).as_deref(), Some("Intel(R) Xeon(R) CPU @ 2.20GHz"));
        // An aarch64 board: no model name, the core from implementer and part.
        let arm = "processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\n";
        assert_eq!(cpu_model_from_cpuinfo(arm).as_deref(), Some("Cortex-A72 (implementer 0x41, part 0xd08)"));
        let other = "CPU implementer\t: 0x51\nCPU part\t: 0x802\n";
        assert_eq!(cpu_model_from_cpuinfo(other).as_deref(), Some("ARM core: implementer 0x51, part 0x802"));
        // A Raspberry Pi's own line wins.
        let pi = "CPU implementer\t: 0x41\nCPU part\t: 0xd08\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
        assert_eq!(cpu_model_from_cpuinfo(pi).as_deref(), Some("Raspberry Pi 4 Model B Rev 1.4"));
        assert_eq!(cpu_model_from_cpuinfo(""), None);
    }

    #[test]
    fn describe_reads_something_real() {
        let mut m = describe();
        finish(&mut m);
        assert!(m.info.cpus >= 1);
        assert!(m.info.kernel_release.is_some());
        assert!(m.after.is_some());
        if let Some(f) = m.steal_fraction() {
            assert!((0.0..=1.0).contains(&f));
        }
    }
}
