//! Control groups for the remedies, on whichever hierarchy the machine has: a controller's
//! cgroup v1 mount, or the v2 unified tree with the controller enabled. A group made here is
//! removed on undo after its processes are moved back to the group they came from; a
//! controller enabled in v2's `cgroup.subtree_control` is disabled again.

use super::change::Undo;
use crate::ioerr::{Doing, IoFailed, SysError};
use std::path::{Path, PathBuf};

/// Where a controller lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hierarchy {
    /// cgroup v1: the controller's own mount.
    V1(PathBuf),
    /// cgroup v2: the unified mount.
    V2(PathBuf),
}

impl Hierarchy {
    /// The root directory.
    pub fn root(&self) -> &Path {
        match self {
            Hierarchy::V1(p) | Hierarchy::V2(p) => p,
        }
    }

    /// "v1" or "v2".
    pub fn version(&self) -> &'static str {
        match self {
            Hierarchy::V1(_) => "v1",
            Hierarchy::V2(_) => "v2",
        }
    }
}

/// Find `controller` (cpu, cpuset, memory) in a `/proc/self/mounts` text: its v1 mount if it
/// has one, else the v2 mount if the controller is available there (its root's
/// `cgroup.controllers` lists it).
pub fn find_in(mounts: &str, controller: &str) -> Result<Hierarchy, SysError> {
    let mut v2 = None;
    for line in mounts.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 4 {
            continue;
        }
        match f[2] {
            "cgroup" if f[3].split(',').any(|o| o == controller) => return Ok(Hierarchy::V1(PathBuf::from(f[1]))),
            "cgroup2" => v2 = v2.or(Some(PathBuf::from(f[1]))),
            _ => {}
        }
    }
    let Some(root) = v2 else {
        return Err(SysError::Missing(format!(
            "no cgroup hierarchy has the {controller} controller (none is mounted)"
        )));
    };
    let list = std::fs::read_to_string(root.join("cgroup.controllers")).unwrap_or_default();
    if list.split_whitespace().any(|c| c == controller) {
        Ok(Hierarchy::V2(root))
    } else {
        Err(SysError::Missing(format!(
            "the {controller} controller is neither mounted as cgroup v1 nor available in the v2 tree at {} (bound to a v1 mount elsewhere, or not built)",
            root.display()
        )))
    }
}

/// Find `controller` on this machine.
pub fn find(controller: &str) -> Result<Hierarchy, SysError> {
    let mounts = std::fs::read_to_string("/proc/self/mounts").doing("reading /proc/self/mounts")?;
    find_in(&mounts, controller)
}

/// A group made for a remedy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Its directory.
    pub dir: PathBuf,
    /// Where its processes go back to on undo.
    pub parent: PathBuf,
}

impl Group {
    /// Write `value` to the group's file `name`.
    pub fn set(&self, name: &str, value: &str) -> Result<(), SysError> {
        let p = self.dir.join(name);
        Ok(std::fs::write(&p, value).doing(format!("writing {value:?} to {}", p.display()))?)
    }

    /// Move process `pid` (all its threads) into the group.
    pub fn add(&self, pid: i32) -> Result<(), SysError> {
        self.set("cgroup.procs", &pid.to_string())
    }
}

/// The processes of a group directory.
pub fn procs(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Make group `name` under `h`'s root (enabling the controller for the root's children on
/// v2 first). On undo its processes go back to the root and it is removed.
pub fn create(undo: &mut Undo, h: &Hierarchy, controller: &str, name: &str) -> Result<Group, SysError> {
    create_in(undo, h, controller, h.root(), name)
}

/// Make group `name` under the group directory `parent` (enabling the controller for its
/// children on v2 first). On undo its processes go back to `parent` and it is removed.
pub fn create_in(
    undo: &mut Undo,
    h: &Hierarchy,
    controller: &str,
    parent: &Path,
    name: &str,
) -> Result<Group, SysError> {
    let root = parent.to_path_buf();
    // Groups a killed latlab left here go first (their processes back to this parent).
    for d in crate::owner::stale_in(&root).into_iter().filter(|p| p.is_dir()) {
        crate::owner::report(&format!("cgroup {}", d.display()), remove_tree(&d));
    }
    if let Hierarchy::V2(_) = h {
        let ctl = root.join("cgroup.subtree_control");
        let on = std::fs::read_to_string(&ctl).doing(format!("reading {}", ctl.display()))?;
        if !on.split_whitespace().any(|c| c == controller) {
            std::fs::write(&ctl, format!("+{controller}"))
                .doing(format!("enabling {controller} in {}", ctl.display()))?;
            let (c, ctl) = (controller.to_string(), ctl.clone());
            undo.push(format!("{controller} disabled again in {}", ctl.display()), move || {
                Ok(std::fs::write(&ctl, format!("-{c}")).doing(format!("disabling {c} in {}", ctl.display()))?)
            });
        }
    }
    let dir = root.join(name);
    std::fs::create_dir(&dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => SysError::InTheWay(format!(
            "{} already exists: another latlab tune is running, or one was killed (move its processes to {} and rmdir it)",
            dir.display(),
            root.display()
        )),
        _ => IoFailed::new(format!("creating {}", dir.display()), e).into(),
    })?;
    let g = Group { dir: dir.clone(), parent: root.clone() };
    undo.push(format!("{} removed, its processes back in {}", dir.display(), root.display()), move || {
        let mut errors = Vec::new();
        // Processes that exit meanwhile cannot be moved; a few passes catch those forked late.
        for _ in 0..3 {
            let left = procs(&dir);
            if left.is_empty() {
                break;
            }
            for pid in left {
                if let Err(e) = std::fs::write(root.join("cgroup.procs"), pid.to_string())
                    && std::path::Path::new(&format!("/proc/{pid}")).exists()
                {
                    errors.push(format!("{pid}: {e}"));
                }
            }
        }
        let what = match errors.is_empty() {
            true => format!("removing {}", dir.display()),
            false => format!("removing {} (processes not moved out: {})", dir.display(), errors.join(", ")),
        };
        Ok(std::fs::remove_dir(&dir).doing(what)?)
    });
    Ok(g)
}

/// Remove a cgroup directory: its subgroups first, each one's processes moved to its parent.
pub fn remove_tree(dir: &Path) -> Result<(), SysError> {
    if let Ok(d) = std::fs::read_dir(dir) {
        for e in d.flatten() {
            if e.path().is_dir() {
                remove_tree(&e.path())?;
            }
        }
    }
    let parent =
        dir.parent().ok_or_else(|| SysError::InTheWay(format!("{}: a cgroup without a parent", dir.display())))?;
    for pid in procs(dir) {
        let _ = std::fs::write(parent.join("cgroup.procs"), pid.to_string());
    }
    Ok(std::fs::remove_dir(dir).doing(format!("removing {}", dir.display()))?)
}

/// How a CPU share is written: v1 `cpu.shares` (default 1024) or v2 `cpu.weight` (default
/// 100), for a share `factor` times the default.
pub fn cpu_share(h: &Hierarchy, factor: f64) -> (&'static str, String) {
    match h {
        Hierarchy::V1(_) => ("cpu.shares", format!("{}", ((1024.0 * factor).round() as u64).clamp(2, 262_144))),
        Hierarchy::V2(_) => ("cpu.weight", format!("{}", ((100.0 * factor).round() as u64).clamp(1, 10_000))),
    }
}

/// What moving the processes of the root into a group did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Moved {
    /// Processes moved.
    pub moved: usize,
    /// Processes the kernel would not move (per-CPU kernel threads and the like).
    pub refused: usize,
}

/// Move every process in `from` except `keep` into `g`.
pub fn move_all(from: &Path, g: &Group, keep: &[i32]) -> Moved {
    let mut m = Moved::default();
    for pid in procs(from) {
        if keep.contains(&pid) {
            continue;
        }
        match g.add(pid) {
            Ok(()) => m.moved += 1,
            Err(_) => m.refused += 1,
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controllers_are_found_on_v1_first_then_v2() {
        let v1 = "tmpfs /sys/fs/cgroup tmpfs rw 0 0\ncgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n\
                  cgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n";
        assert_eq!(find_in(v1, "cpu").unwrap(), Hierarchy::V1("/sys/fs/cgroup/cpu".into()));
        assert_eq!(find_in(v1, "memory").unwrap(), Hierarchy::V1("/sys/fs/cgroup/memory".into()));
        // Not on v1, and the v2 root (which does not exist here) lists nothing.
        assert!(find_in(v1, "cpuset").unwrap_err().to_string().contains("neither mounted"));
        assert!(find_in("proc /proc proc rw 0 0\n", "cpu").unwrap_err().to_string().contains("none is mounted"));
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("cgroup.controllers"), "cpuset cpu io memory pids\n").unwrap();
        let v2 = format!("cgroup2 {} cgroup2 rw 0 0\n", d.path().display());
        assert_eq!(find_in(&v2, "cpu").unwrap(), Hierarchy::V2(d.path().into()));
        assert!(find_in(&v2, "rdma").is_err());
    }

    #[test]
    fn shares_scale_on_either_version() {
        assert_eq!(cpu_share(&Hierarchy::V1("/x".into()), 8.0), ("cpu.shares", "8192".into()));
        assert_eq!(cpu_share(&Hierarchy::V2("/x".into()), 8.0), ("cpu.weight", "800".into()));
        assert_eq!(cpu_share(&Hierarchy::V2("/x".into()), 0.001), ("cpu.weight", "1".into()));
    }

    #[test]
    fn a_group_made_on_a_v2_tree_is_removed_and_the_controller_disabled_again() {
        // A directory standing in for a v2 tree: files, not a real cgroupfs, so the moves are
        // plain writes; what is checked is that everything made is unmade.
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::write(r.join("cgroup.subtree_control"), "memory\n").unwrap();
        std::fs::write(r.join("cgroup.procs"), "").unwrap();
        let h = Hierarchy::V2(r.into());
        let mut u = Undo::new();
        let g = create(&mut u, &h, "cpu", "latlab-test").unwrap();
        assert!(g.dir.is_dir());
        assert_eq!(std::fs::read_to_string(r.join("cgroup.subtree_control")).unwrap(), "+cpu");
        // Made twice: refused with advice, and the first stays.
        let mut u2 = Undo::new();
        assert!(create(&mut u2, &h, "cpu", "latlab-test").unwrap_err().to_string().contains("already exists"));
        drop(u2);
        assert!(g.dir.is_dir());
        drop(u);
        assert!(!g.dir.exists());
        assert_eq!(std::fs::read_to_string(r.join("cgroup.subtree_control")).unwrap(), "-cpu");
    }
}
