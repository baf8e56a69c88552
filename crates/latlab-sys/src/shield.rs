//! Shield a CPU for the real-time levels, as `cset shield` and `tuna` do: every other
//! movable process goes to a cpuset without the CPU, and every movable IRQ is pointed at the
//! other CPUs; both are put back on undo. latlab's own process stays where it is (its
//! threads pin themselves to the shielded CPU).

use super::cgroup::{self, Hierarchy, Moved};
use super::change::{ChangeError, IrqMove, Undo, cpu_list, irqs_off, parse_cpu_list};

use std::path::Path;

/// What the shield did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shielded {
    /// The shielded CPU.
    pub cpu: usize,
    /// Where everything else runs.
    pub others: Vec<usize>,
    /// The cpuset hierarchy used ("v1" or "v2").
    pub hierarchy: &'static str,
    /// Processes moved off, and those the kernel kept (per-CPU kernel threads).
    pub tasks: Moved,
    /// IRQs moved off, and those that refused.
    pub irqs: IrqMove,
}

impl Shielded {
    /// One line for the record.
    pub fn describe(&self) -> String {
        format!(
            "CPU {} shielded (cpuset {}): {} processes moved to CPUs {} ({} could not move), {} IRQs moved ({} refused)",
            self.cpu,
            self.hierarchy,
            self.tasks.moved,
            cpu_list(&self.others),
            self.tasks.refused,
            self.irqs.moved.len(),
            self.irqs.refused.len()
        )
    }
}

/// Shield `cpu`; `keep` are processes that stay (latlab itself). Needs root, the cpuset
/// controller and a second online CPU; refused with the reason otherwise, with nothing changed.
pub fn shield(undo: &mut Undo, cpu: usize, keep: &[i32]) -> Result<Shielded, ChangeError> {
    let needs = |n: String| ChangeError::Needs { what: "shielding a CPU".into(), needs: n };
    if !crate::platform::is_root() {
        return Err(needs("root (it moves every process and IRQ)".into()));
    }
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online")
        .map_err(|e| needs(format!("/sys/devices/system/cpu/online ({e})")))
        .and_then(|s| parse_cpu_list(&s).map_err(|e| needs(e.0)))?;
    if !online.contains(&cpu) {
        return Err(needs(format!("CPU {cpu} online (online: {})", cpu_list(&online))));
    }
    let others: Vec<usize> = online.into_iter().filter(|&c| c != cpu).collect();
    if others.is_empty() {
        return Err(needs("a second online CPU for everything else".into()));
    }
    let h = cgroup::find("cpuset").map_err(|e| needs(e.to_string()))?;
    let mut mine = Undo::new();
    let fail = |u: Undo, what: &str, e: crate::SysError| u.fail(what, e);
    let g = match cgroup::create(&mut mine, &h, "cpuset", &format!("{}-others", crate::leftovers::name("tune"))) {
        Ok(g) => g,
        Err(e) => return Err(fail(mine, "making the cpuset for everything else", e)),
    };
    let mems_file = match h {
        Hierarchy::V1(_) => "cpuset.mems",
        Hierarchy::V2(_) => "cpuset.mems.effective",
    };
    let mems = std::fs::read_to_string(h.root().join(mems_file)).unwrap_or_else(|_| "0".into());
    for (name, value) in [("cpuset.cpus", cpu_list(&others)), ("cpuset.mems", mems.trim().to_string())] {
        if let Err(e) = g.set(name, &value) {
            return Err(fail(mine, "setting up the cpuset", e));
        }
    }
    let tasks = cgroup::move_all(h.root(), &g, keep);
    let irqs = match irqs_off(&mut mine, Path::new("/proc/irq"), Path::new(crate::defaults::SETTINGS_DIR), cpu, &others)
    {
        Ok(m) => m,
        Err(e) => return Err(fail(mine, "moving the IRQs", e)),
    };
    undo.extend(mine);
    Ok(Shielded { cpu, others, hierarchy: h.version(), tasks, irqs })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shield is machine-wide: one test at a time.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn snapshot() -> (Vec<String>, Vec<i32>) {
        let mut irqs: Vec<String> = std::fs::read_dir("/proc/irq")
            .unwrap()
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                std::fs::read_to_string(e.path().join("smp_affinity_list"))
                    .ok()
                    .map(|a| format!("{:?} {a}", e.file_name()))
            })
            .collect();
        irqs.push(std::fs::read_to_string("/proc/irq/default_smp_affinity").unwrap_or_default());
        irqs.sort();
        let root = cgroup::find("cpuset").unwrap();
        let mut p = cgroup::procs(root.root());
        p.sort();
        (irqs, p)
    }

    #[test]
    fn the_shield_is_lifted_to_the_machine_as_it_was() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let me = std::process::id() as i32;
        let mut u = Undo::new();
        let s = match shield(&mut u, 0, &[me]) {
            Ok(s) => s,
            Err(ChangeError::Needs { needs, .. }) => {
                latlab_model::testing::skip(&format!("shielding needs {needs}"));
                return;
            }
            Err(e) => panic!("{e}"),
        };
        assert!(u.describe().iter().any(|d| d.contains("removed")), "{:?}", u.describe());
        assert!(s.tasks.moved > 0, "{}", s.describe());
        let root = cgroup::find("cpuset").unwrap();
        let others = root.root().join(format!("{}-others", crate::leftovers::name("tune")));
        assert!(others.is_dir());
        assert!(cgroup::procs(root.root()).contains(&me), "latlab itself stays");
        drop(u);
        assert!(!others.exists(), "the cpuset is removed");
        // Everything is back: no IRQ still excludes CPU 0 because of us, and the processes
        // (those still alive) are in the root again.
        let (irqs, procs) = snapshot();
        for n in &s.irqs.moved {
            let a = std::fs::read_to_string(format!("/proc/irq/{n}/smp_affinity_list")).unwrap();
            assert!(parse_cpu_list(&a).unwrap().contains(&0), "IRQ {n}: {a} ({irqs:?})");
        }
        assert!(procs.len() >= s.tasks.moved / 2, "{} back of {}", procs.len(), s.tasks.moved);
    }

    #[test]
    fn a_failure_midway_leaves_nothing_behind() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        if !crate::platform::is_root() || cgroup::find("cpuset").is_err() {
            latlab_model::testing::skip("needs root and the cpuset controller");
            return;
        }
        let (irqs_before, _) = snapshot();
        // Inject a failure after the IRQs moved: a step that fails, then the change's own
        // failure path, exactly as `shield` takes it.
        let mut u = Undo::new();
        let s = shield(&mut u, 0, &[std::process::id() as i32]).unwrap();
        let err = u.fail("an injected failure", "after the shield was up");
        assert!(err.to_string().contains("undone"), "{err}");
        let (irqs_after, _) = snapshot();
        assert_eq!(irqs_before, irqs_after, "{}", s.describe());
        let root = cgroup::find("cpuset").unwrap();
        assert!(!root.root().join(format!("{}-others", crate::leftovers::name("tune"))).exists());
    }
}
