//! Leftovers: what a killed latlab leaves on the machine — network namespaces, cgroups, swap
//! files, temporary files and directories, processes it started (servers, boot services,
//! spinners), and kernel settings it changed for a run (RT throttling), each recorded with its
//! old value in a marker file before it is changed. Every such object carries a latlab name with its owner's pid (`latlab-<what>-<pid>`;
//! processes carry `LATLAB_OWNER=<pid>` in their environment), so once that pid is gone it is
//! found and removed — by the next run that would make one like it, or by `latlab clean` —
//! and nothing else is ever touched.

use std::path::{Path, PathBuf};

pub use crate::owner::{OWNER_ENV, mark, name, owner};
use crate::owner::{alive, owned_in, stale_in};

/// Whose objects a search takes: those of latlabs that are gone (leftovers), or this
/// process's own (what a second Ctrl-C removes before it exits, as their undo cannot run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Whose {
    Gone,
    Mine,
}

impl Whose {
    /// Entries of `dir` with a latlab name owned as this search wants.
    fn entries(self, dir: &Path) -> Vec<PathBuf> {
        match self {
            Whose::Gone => stale_in(dir),
            Whose::Mine => owned_in(dir, |p| p == std::process::id()),
        }
    }
}

/// One leftover found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leftover {
    /// A network namespace (`ip netns`), with the veth end inside it.
    Netns(String),
    /// A cgroup directory (its subgroups go with it).
    Cgroup(PathBuf),
    /// A swap file (swapped off, then removed).
    Swap(PathBuf),
    /// A temporary file or directory.
    Path(PathBuf),
    /// Kernel settings a run changed, from its marker file: each path with the value to
    /// write back.
    Setting {
        /// The marker file (`latlab-setting-<pid>-<n>`).
        marker: PathBuf,
        /// (setting's path, its value before the run).
        restore: Vec<(PathBuf, String)>,
    },
    /// A process latlab started.
    Process {
        /// Its pid.
        pid: i32,
        /// Its command line.
        cmd: String,
    },
}

impl Leftover {
    /// What it is, for the line `latlab clean` prints.
    pub fn describe(&self) -> String {
        match self {
            Leftover::Netns(n) => format!("network namespace {n}"),
            Leftover::Cgroup(p) => format!("cgroup {}", p.display()),
            Leftover::Swap(p) => format!("swap file {}", p.display()),
            Leftover::Path(p) => format!("temporary {}", p.display()),
            Leftover::Setting { restore, .. } => format!(
                "change to {} (the old value written back)",
                restore.iter().map(|(p, v)| format!("{} (was {v})", p.display())).collect::<Vec<_>>().join(", ")
            ),
            Leftover::Process { pid, cmd } => format!("process {pid} ({cmd})"),
        }
    }

    /// Remove it.
    pub fn remove(&self) -> Result<(), crate::SysError> {
        use crate::ioerr::Doing;
        match self {
            Leftover::Netns(n) => crate::tool::sh("ip", &["netns", "del", n]),
            Leftover::Cgroup(p) => crate::cgroup::remove_tree(p),
            Leftover::Swap(p) => crate::pageout::remove_swap(p),
            Leftover::Path(p) => Ok(if p.is_dir() { std::fs::remove_dir_all(p) } else { std::fs::remove_file(p) }
                .doing(format!("removing {}", p.display()))?),
            Leftover::Process { pid, .. } => {
                nix::sys::signal::kill(nix::unistd::Pid::from_raw(*pid), nix::sys::signal::Signal::SIGKILL)
                    .map_err(|e| crate::SysError::errno(format!("killing {pid}"), e))
            }
            Leftover::Setting { marker, restore } => {
                // Every value is written back before the marker goes: a failure keeps it.
                for (p, v) in restore {
                    std::fs::write(p, v).doing(format!("writing {v:?} back to {}", p.display()))?;
                }
                Ok(std::fs::remove_file(marker).doing(format!("removing {}", marker.display()))?)
            }
        }
    }
}

/// Where leftovers are looked for.
#[derive(Debug, Clone)]
pub struct Places {
    /// `ip netns`'s directory.
    pub netns: PathBuf,
    /// Cgroup hierarchies' roots.
    pub cgroups: Vec<PathBuf>,
    /// Directories of swap files and temporary files.
    pub dirs: Vec<PathBuf>,
    /// `/proc`, for processes.
    pub proc: PathBuf,
}

impl Places {
    /// This machine's: `/run/netns`, every mounted cgroup hierarchy, the swap directory and
    /// the temporary directory, `/proc`.
    pub fn here() -> Self {
        let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
        let cgroups = mounts
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f.len() > 2 && (f[2] == "cgroup" || f[2] == "cgroup2")).then(|| PathBuf::from(f[1]))
            })
            .collect();
        let mut dirs = vec![
            PathBuf::from(crate::defaults::SWAP_DIR),
            std::env::temp_dir(),
            PathBuf::from(crate::defaults::SETTINGS_DIR),
        ];
        dirs.dedup();
        Self { netns: "/run/netns".into(), cgroups, dirs, proc: "/proc".into() }
    }
}

/// Cgroups under `root` (one level down) with a latlab name whose owner is gone.
pub fn stale_cgroups(root: &Path) -> Vec<Leftover> {
    cgroups(root, Whose::Gone)
}

fn cgroups(root: &Path, whose: Whose) -> Vec<Leftover> {
    whose.entries(root).into_iter().filter(|p| p.is_dir()).map(Leftover::Cgroup).collect()
}

/// Names (`comm`) of the children latlab forks without exec (spinners, memory children): they
/// die with their parent (`PR_SET_PDEATHSIG`); one whose parent is no longer a latlab is left
/// over.
pub const FORKED_NAMES: [&str; 2] = ["latlab-spinner", "latlab-memchild"];

/// A process's name (`comm`) and parent pid, from `/proc/PID/stat`.
fn comm_and_parent(proc: &Path, pid: i32) -> Option<(String, i32)> {
    let stat = std::fs::read_to_string(proc.join(pid.to_string()).join("stat")).ok()?;
    let (open, close) = (stat.find('(')?, stat.rfind(')')?);
    let ppid = stat[close + 1..].split_whitespace().nth(1)?.parse().ok()?;
    Some((stat[open + 1..close].to_string(), ppid))
}

/// Processes marked with [`OWNER_ENV`] whose owner is gone, and forked children named in
/// [`FORKED_NAMES`] whose parent is not a latlab.
pub fn stale_processes(proc: &Path) -> Vec<Leftover> {
    processes(proc, Whose::Gone)
}

/// Processes as [`stale_processes`] finds them, or (this process's own) those marked with
/// its pid, its forked children aside (they die with it).
fn processes(proc: &Path, whose: Whose) -> Vec<Leftover> {
    let me = std::process::id();
    let Ok(d) = std::fs::read_dir(proc) else { return Vec::new() };
    let mut v = Vec::new();
    for e in d.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        if let Some((comm, ppid)) = comm_and_parent(proc, pid)
            && FORKED_NAMES.contains(&comm.as_str())
        {
            let parent = comm_and_parent(proc, ppid).map(|(c, _)| c).unwrap_or_default();
            if whose == Whose::Gone && parent != "latlab" && !parent.starts_with("latlab-") {
                v.push(Leftover::Process { pid, cmd: comm });
            }
            continue;
        }
        let Ok(env) = std::fs::read(e.path().join("environ")) else { continue };
        let key = format!("{OWNER_ENV}=");
        let owner = env
            .split(|&b| b == 0)
            .find_map(|kv| kv.strip_prefix(key.as_bytes()))
            .and_then(|p| std::str::from_utf8(p).ok()?.parse::<u32>().ok());
        if let Some(o) = owner {
            // A process of a live latlab, or that latlab itself (a child inherits the mark).
            let taken = match whose {
                Whose::Gone => !alive(o),
                Whose::Mine => o == me,
            };
            if !taken || o == pid as u32 {
                continue;
            }
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ").trim().to_string();
            v.push(Leftover::Process { pid, cmd });
        }
    }
    v.sort_by_key(|l| match l {
        Leftover::Process { pid, .. } => *pid,
        _ => 0,
    });
    v
}

/// Network namespaces in `dir` (`/run/netns`) whose owner is gone.
pub fn stale_netns(dir: &Path) -> Vec<Leftover> {
    netns(dir, Whose::Gone)
}

fn netns(dir: &Path, whose: Whose) -> Vec<Leftover> {
    whose
        .entries(dir)
        .into_iter()
        .filter_map(|p| Some(Leftover::Netns(p.file_name()?.to_string_lossy().to_string())))
        .collect()
}

/// Entries of a swap or temporary directory whose owner is gone (swap files told apart).
pub fn stale_files(dir: &Path) -> Vec<Leftover> {
    files(dir, Whose::Gone)
}

fn files(dir: &Path, whose: Whose) -> Vec<Leftover> {
    whose
        .entries(dir)
        .into_iter()
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if crate::pageout::is_swap_file(&p) {
                Leftover::Swap(p)
            } else if name.starts_with("latlab-setting-") {
                setting(p)
            } else {
                Leftover::Path(p)
            }
        })
        .collect()
}

/// The settings a marker file lists (`path<TAB>old value` lines; a line that does not parse
/// is skipped, so a torn marker restores what it can).
fn setting(marker: PathBuf) -> Leftover {
    let text = std::fs::read_to_string(&marker).unwrap_or_default();
    let restore = text
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(p, _)| !p.is_empty())
        .map(|(p, v)| (PathBuf::from(p), v.to_string()))
        .collect();
    Leftover::Setting { marker, restore }
}

/// Stale settings markers in `dir`: changes a killed latlab left in place.
pub fn stale_settings(dir: &Path) -> Vec<Leftover> {
    stale_files(dir).into_iter().filter(|l| matches!(l, Leftover::Setting { .. })).collect()
}

/// Everything left behind, processes first (they may hold the rest).
pub fn find(places: &Places) -> Vec<Leftover> {
    search(places, Whose::Gone)
}

/// What this process made and still holds, found as [`find`] finds leftovers: a second
/// Ctrl-C removes it before exiting, as the guards that would have cannot run.
pub fn mine(places: &Places) -> Vec<Leftover> {
    search(places, Whose::Mine)
}

fn search(places: &Places, whose: Whose) -> Vec<Leftover> {
    let mut v = processes(&places.proc, whose);
    v.extend(netns(&places.netns, whose));
    for root in &places.cgroups {
        v.extend(cgroups(root, whose));
    }
    for dir in &places.dirs {
        v.extend(files(dir, whose));
    }
    v
}

/// The environment variable that, set to `keep`, stops a latlab command from removing what
/// killed latlabs left before it starts (to look at it first: `latlab clean --dry-run`).
pub const KEEP_ENV: &str = "LATLAB_LEFTOVERS";

/// Before a command: put back what killed latlabs left (the kernel settings they changed, the
/// processes, namespaces, cgroups, swap and temporary files they made), each said on stderr,
/// unless [`KEEP_ENV`] is `keep`. A setting left changed would otherwise be measured as if
/// the machine were set up that way.
pub fn clear_before_a_command() {
    if std::env::var(KEEP_ENV).is_ok_and(|v| v == "keep") {
        return;
    }
    clear(&find(&Places::here()));
}

/// Remove each leftover; what was removed and what could not be, in order.
pub fn remove_all(found: &[Leftover]) -> Vec<(String, Result<(), crate::SysError>)> {
    found.iter().map(|l| (l.describe(), l.remove())).collect()
}

/// Remove what a run about to make objects like these finds left behind, saying so on stderr
/// (a run goes on whether or not each removal worked).
pub fn clear(found: &[Leftover]) {
    for (what, r) in remove_all(found) {
        crate::owner::report(&what, r);
    }
}

/// Entries of `dir` named `latlab-<what>-<pid>…` whose owner is gone (temporary files and
/// directories of one kind).
pub fn stale_paths(dir: &Path, what: &str) -> Vec<Leftover> {
    let prefix = format!("latlab-{what}-");
    stale_in(dir)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix)))
        .map(Leftover::Path)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// A pid no process has (above the kernel's pid_max limit of 2^22).
    const GONE: u32 = 0x7FFF_FFF0;

    #[test]
    fn owners_are_read_from_latlab_names_only() {
        assert_eq!(owner("latlab-swap-123"), Some(123));
        assert_eq!(owner("latlab-123-0-c"), Some(123));
        assert_eq!(owner("latlab-tune-77-others"), Some(77));
        assert_eq!(owner("latlab-boot-bad-9.toml"), Some(9));
        assert_eq!(owner("latlab-tune-others"), None, "no pid: not a name this latlab writes");
        assert_eq!(owner("latlab.db"), None);
        assert_eq!(owner("mylatlab-swap-123"), None);
        assert_eq!(owner("systemd-123"), None);
        assert_eq!(name("swap"), format!("latlab-swap-{}", std::process::id()));
        assert_eq!(owner(&name("x")), Some(std::process::id()));
    }

    #[test]
    fn a_settings_marker_puts_back_what_a_dead_run_changed_and_a_live_ones_is_left() {
        let t = tempfile::tempdir().unwrap();
        let knob = t.path().join("knob");
        std::fs::write(&knob, "-1").unwrap();
        // This process's own marker: alive, never touched.
        let mine = t.path().join(format!("{}-0", name("setting")));
        std::fs::write(&mine, format!("{}\t950000\n", knob.display())).unwrap();
        assert!(stale_settings(t.path()).is_empty());
        // A dead owner's: found, described, and its old value written back.
        let dead = t.path().join(format!("latlab-setting-{GONE}-3"));
        std::fs::rename(&mine, &dead).unwrap();
        let found = stale_settings(t.path());
        assert_eq!(
            found,
            vec![Leftover::Setting { marker: dead.clone(), restore: vec![(knob.clone(), "950000".into())] }]
        );
        assert!(found[0].describe().contains("(was 950000)"), "{}", found[0].describe());
        found[0].remove().unwrap();
        assert_eq!(std::fs::read_to_string(&knob).unwrap(), "950000");
        assert!(!dead.exists());
        // stale_files finds it too, for `latlab clean`.
        std::fs::write(&dead, "garbage without a tab\n").unwrap();
        assert!(matches!(&stale_files(t.path())[..], [Leftover::Setting { restore, .. }] if restore.is_empty()));
    }

    #[test]
    fn stale_files_dirs_and_groups_are_found_and_removed_and_nothing_else() {
        let t = tempfile::tempdir().unwrap();
        let (netns, cg, dir) = (t.path().join("netns"), t.path().join("cg"), t.path().join("tmp"));
        for d in [&netns, &cg, &dir] {
            std::fs::create_dir(d).unwrap();
        }
        let gone = |w: &str| format!("latlab-{w}-{GONE}");
        std::fs::write(dir.join(gone("randread")), b"x").unwrap();
        std::fs::create_dir(dir.join(gone("launch"))).unwrap();
        std::fs::write(dir.join(gone("launch")).join("f"), b"x").unwrap();
        std::fs::write(dir.join(name("randread")), b"mine, alive").unwrap();
        std::fs::write(dir.join("latlab.db"), b"not a leftover").unwrap();
        std::fs::write(dir.join("other-123"), b"not latlab's").unwrap();
        std::fs::create_dir(cg.join(gone("throttle"))).unwrap();
        std::fs::create_dir(cg.join("user.slice")).unwrap();
        let places =
            Places { netns, cgroups: vec![cg.clone()], dirs: vec![dir.clone()], proc: t.path().join("noproc") };
        let found = find(&places);
        assert_eq!(
            found,
            vec![
                Leftover::Cgroup(cg.join(gone("throttle"))),
                Leftover::Path(dir.join(gone("launch"))),
                Leftover::Path(dir.join(gone("randread"))),
            ]
        );
        // A plain directory stands in for the cgroup here: it has no cgroup.procs.
        for (what, r) in remove_all(&found) {
            assert!(r.is_ok(), "{what}: {r:?}");
        }
        assert!(find(&places).is_empty());
        for kept in [dir.join(name("randread")), dir.join("latlab.db"), dir.join("other-123"), cg.join("user.slice")] {
            assert!(kept.exists(), "{} was touched", kept.display());
        }
    }

    #[test]
    fn a_marked_process_whose_owner_is_gone_is_found_and_killed() {
        // A child marked as a gone latlab's, and one marked as ours (alive: left alone).
        let mut orphan = Command::new("sleep");
        orphan.arg("30").env(OWNER_ENV, GONE.to_string());
        let mut orphan = orphan.spawn().unwrap();
        let mut ours = Command::new("sleep");
        mark(ours.arg("30"));
        let mut ours = ours.spawn().unwrap();
        // spawn returns once exec has closed the child's descriptors, a moment before the
        // kernel sets its environment's bounds (environ reads empty until then): wait for it.
        for id in [orphan.id(), ours.id()] {
            let t = std::time::Instant::now();
            while std::fs::read(format!("/proc/{id}/environ")).map_or(true, |e| e.is_empty()) {
                assert!(t.elapsed() < std::time::Duration::from_secs(10), "no environment for {id}");
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        let found = stale_processes(Path::new("/proc"));
        let me = Leftover::Process { pid: orphan.id() as i32, cmd: "sleep 30".into() };
        assert!(found.contains(&me), "{found:?}");
        assert!(!found.iter().any(|l| matches!(l, Leftover::Process { pid, .. } if *pid == ours.id() as i32)));
        me.remove().unwrap();
        assert!(!orphan.wait().unwrap().success(), "killed");
        ours.kill().unwrap();
        ours.wait().unwrap();
    }

    #[test]
    fn a_spinner_whose_parent_is_not_latlab_is_found() {
        // `sleep` under a spinner's name, started by this test binary (not named latlab).
        let t = tempfile::tempdir().unwrap();
        let exe = t.path().join(FORKED_NAMES[0]);
        std::os::unix::fs::symlink("/bin/sleep", &exe).unwrap();
        let mut child = Command::new(&exe).arg("30").spawn().unwrap();
        let pid = child.id() as i32;
        let t0 = std::time::Instant::now();
        while comm_and_parent(Path::new("/proc"), pid).is_none_or(|(c, _)| c != FORKED_NAMES[0]) {
            assert!(t0.elapsed() < std::time::Duration::from_secs(10), "the child never took its name");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let found = stale_processes(Path::new("/proc"));
        assert!(found.contains(&Leftover::Process { pid, cmd: FORKED_NAMES[0].into() }), "{found:?}");
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
