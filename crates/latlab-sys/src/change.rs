//! Machine changes a remedy makes, each undone: [`Undo`] holds the steps that put the machine
//! back, runs them in reverse order when it is dropped (the end of the remedy's run, an
//! error, Ctrl-C ending the run, a panic unwinding), and a change that fails half-way drops
//! what it built so far, so nothing is left half-applied. Every step also waits in one
//! process-wide list, so a second Ctrl-C, which exits at once, still puts the machine back
//! ([`undo_everything`]). Only SIGKILL can leave a change in place: a kernel setting is named
//! with its old value in a marker first ([`mark_settings`]), so the next latlab command puts
//! it back; [`Undo`] names what it holds so the record can say what to undo by hand.
//!
//! The changes themselves: writing a settings file and restoring its old value
//! ([`write_restoring`]), IRQ affinities ([`irqs_off`]), holding `/dev/cpu_dma_latency`, and the
//! cgroup changes in [`super::cgroup`].

use crate::ioerr::{Doing, SysError};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

type Step = Box<dyn FnOnce() -> Result<(), SysError> + Send>;

/// Every step not yet run, of every [`Undo`] in the process, by the order they were pushed;
/// and how many have been taken out and are running now.
static PENDING: Mutex<Pending> = Mutex::new(Pending { steps: Vec::new(), running: 0 });
static NEXT: AtomicU64 = AtomicU64::new(0);

struct Pending {
    steps: Vec<(u64, String, Step)>,
    running: usize,
}

fn pending() -> std::sync::MutexGuard<'static, Pending> {
    PENDING.lock().unwrap_or_else(|p| p.into_inner())
}

/// Take step `id` out of the list (None: another thread has run it), counted as running.
fn take(id: u64) -> Option<Step> {
    let mut p = pending();
    let i = p.steps.iter().position(|(k, _, _)| *k == id)?;
    p.running += 1;
    Some(p.steps.remove(i).2)
}

/// Run a step taken out of the list; its error, with what it undoes.
fn run_step(what: &str, step: Step) -> Option<String> {
    let r = step();
    pending().running -= 1;
    r.err().map(|e| format!("undoing {what}: {e}"))
}

/// Undo every change the process still holds, last first, and wait (up to `wait`) for steps
/// other threads are running: what a second Ctrl-C does before it exits. The errors of the
/// steps that failed.
pub fn undo_everything(wait: std::time::Duration) -> Vec<String> {
    undo_where(wait, |_| true)
}

/// [`undo_everything`] for the steps whose ids `which` takes (a test's own).
fn undo_where(wait: std::time::Duration, which: impl Fn(u64) -> bool) -> Vec<String> {
    let mut errors = Vec::new();
    loop {
        let next = {
            let mut p = pending();
            let i = p.steps.iter().rposition(|(id, _, _)| which(*id));
            i.map(|i| {
                p.running += 1;
                let (_, what, step) = p.steps.remove(i);
                (what, step)
            })
        };
        let Some((what, step)) = next else { break };
        errors.extend(run_step(&what, step));
    }
    let t = std::time::Instant::now();
    while pending().running > 0 && t.elapsed() < wait {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    errors
}

/// Why a change could not be made (nothing of it stays applied).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChangeError {
    /// What the change needs is missing (root, a controller, a kernel version).
    #[error("{what} needs {needs}")]
    Needs {
        /// The change.
        what: String,
        /// What it needs, and how to get it.
        needs: String,
    },
    /// A step failed; what was applied before it has been undone.
    #[error("{what}: {err} (undone: {undone})")]
    Failed {
        /// The step.
        what: String,
        /// The error.
        err: String,
        /// What was put back.
        undone: String,
    },
}

/// The steps that undo a change, run last-in first-out on [`Undo::undo`] or drop (each kept in
/// the process-wide list until it runs, by whichever comes first).
#[derive(Default)]
pub struct Undo {
    steps: Vec<(u64, String)>,
}

impl std::fmt::Debug for Undo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.steps.iter().map(|(_, w)| w)).finish()
    }
}

impl Undo {
    /// Nothing to undo yet.
    pub fn new() -> Self {
        Undo::default()
    }

    /// Add a step that undoes `what`.
    pub fn push(&mut self, what: impl Into<String>, step: impl FnOnce() -> Result<(), SysError> + Send + 'static) {
        let (id, what) = (NEXT.fetch_add(1, Ordering::Relaxed), what.into());
        pending().steps.push((id, what.clone(), Box::new(step)));
        self.steps.push((id, what));
    }

    /// Take over another guard's steps (they run before this one's).
    pub fn extend(&mut self, mut other: Undo) {
        self.steps.append(&mut other.steps);
    }

    /// What it would undo, in the order it was done.
    pub fn describe(&self) -> Vec<String> {
        self.steps.iter().map(|(_, w)| w.clone()).collect()
    }

    /// Undo every step now, last first; the errors of those that failed (each still tried).
    pub fn undo(mut self) -> Vec<String> {
        self.run()
    }

    fn run(&mut self) -> Vec<String> {
        let mut errors = Vec::new();
        while let Some((id, what)) = self.steps.pop() {
            if let Some(step) = take(id) {
                errors.extend(run_step(&what, step));
            }
        }
        errors
    }

    /// A failed step: undo what was done and say so.
    pub fn fail(mut self, what: impl Into<String>, err: impl std::fmt::Display) -> ChangeError {
        let done = self.describe().join("; ");
        let errors = self.run();
        let undone = match (done.is_empty(), errors.is_empty()) {
            (true, _) => "nothing had been changed".to_string(),
            (false, true) => done,
            (false, false) => format!("{done} — but {}", errors.join("; ")),
        };
        ChangeError::Failed { what: what.into(), err: err.to_string(), undone }
    }
}

impl Drop for Undo {
    fn drop(&mut self) {
        for e in self.run() {
            eprintln!("warning: {e}");
        }
    }
}

/// Before changing kernel settings: write a marker in `dir` (`latlab-setting-<pid>-<n>`, one
/// `path<TAB>value now` line per setting), so a latlab killed before it puts them back leaves
/// them for the next latlab command, or `latlab clean`, to write back (see `leftovers`). The
/// marker's removal is pushed on `undo` first, so it goes once every setting is back.
pub fn mark_settings(undo: &mut Undo, dir: &Path, restore: &[(PathBuf, String)]) -> Result<(), SysError> {
    static N: AtomicU64 = AtomicU64::new(0);
    let path = dir.join(format!("{}-{}", crate::owner::name("setting"), N.fetch_add(1, Ordering::Relaxed)));
    let text: String = restore.iter().map(|(p, v)| format!("{}\t{}\n", p.display(), v.trim())).collect();
    std::fs::write(&path, text).doing(format!("writing the marker {}", path.display()))?;
    undo.push(format!("marker {}", path.display()), move || {
        Ok(std::fs::remove_file(&path).doing(format!("removing {}", path.display()))?)
    });
    Ok(())
}

/// Write `value` to the settings file `path`, after reading what it held; the old value is
/// written back on undo. Fails (changing nothing) if either read or write fails.
pub fn write_restoring(undo: &mut Undo, path: &Path, value: &str) -> Result<(), SysError> {
    let old = std::fs::read_to_string(path).doing(format!("reading {}", path.display()))?;
    std::fs::write(path, value).doing(format!("writing {value:?} to {}", path.display()))?;
    let p = path.to_path_buf();
    let old = old.trim().to_string();
    undo.push(format!("{} back to {old:?}", p.display()), move || {
        Ok(std::fs::write(&p, &old).doing(format!("writing {old:?} to {}", p.display()))?)
    });
    Ok(())
}

/// A CPU list as the kernel writes it ("0-2,5"), from CPU numbers.
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut v: Vec<usize> = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let start = v[i];
        while i + 1 < v.len() && v[i + 1] == v[i] + 1 {
            i += 1;
        }
        parts.push(if v[i] == start { start.to_string() } else { format!("{start}-{}", v[i]) });
        i += 1;
    }
    parts.join(",")
}

/// Parse a kernel CPU list ("0-2,5"; "" is none).
pub fn parse_cpu_list(s: &str) -> Result<Vec<usize>, latlab_model::ConfigError> {
    let mut out = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        let bad = || format!("bad CPU list {s:?}");
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
                if b < a {
                    return Err(bad().into());
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().map_err(|_| bad())?),
        }
    }
    Ok(out)
}

/// What moving the IRQs did: moved, and those the kernel would not move (per-CPU timers and
/// the like), by number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IrqMove {
    /// IRQs whose affinity now excludes the CPU.
    pub moved: Vec<u32>,
    /// IRQs that refused (their affinity is unchanged).
    pub refused: Vec<u32>,
}

/// Point every IRQ under `irq_root` (`/proc/irq`) that may run on `cpu` at `others` instead
/// (`smp_affinity_list`), and the default affinity for new ones; each old value is marked in
/// `markers` first ([`mark_settings`]) and restored on undo. An IRQ the kernel refuses to move
/// is counted, not an error: that is how `tuna` treats them.
pub fn irqs_off(
    undo: &mut Undo,
    irq_root: &Path,
    markers: &Path,
    cpu: usize,
    others: &[usize],
) -> Result<IrqMove, SysError> {
    let mut out = IrqMove::default();
    let list = cpu_list(others);
    // The plan: (IRQ or None for the default, its setting, its value now, the new value).
    let mut plan: Vec<(Option<u32>, PathBuf, String, String)> = Vec::new();
    let default = irq_root.join("default_smp_affinity");
    if let Ok(now) = std::fs::read_to_string(&default) {
        let mask: u64 = others.iter().filter(|&&c| c < 64).map(|&c| 1u64 << c).sum();
        plan.push((None, default, now, format!("{mask:x}")));
    }
    let mut irqs: Vec<(u32, PathBuf)> = std::fs::read_dir(irq_root)
        .doing(format!("reading {}", irq_root.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path())))
        .collect();
    irqs.sort();
    for (n, dir) in irqs {
        let p = dir.join("smp_affinity_list");
        let Ok(now) = std::fs::read_to_string(&p) else { continue };
        if parse_cpu_list(&now).is_ok_and(|cpus| cpus.contains(&cpu)) {
            plan.push((Some(n), p, now, list.clone()));
        }
    }
    let restore: Vec<(PathBuf, String)> = plan.iter().map(|(_, p, now, _)| (p.clone(), now.clone())).collect();
    mark_settings(undo, markers, &restore)?;
    for (irq, p, _, new) in plan {
        match (write_restoring(undo, &p, &new), irq) {
            (Ok(()), Some(n)) => out.moved.push(n),
            (Err(_), Some(n)) => out.refused.push(n),
            (Ok(()), None) => {}
            (Err(e), None) => return Err(e),
        }
    }
    Ok(out)
}

/// Hold `/dev/cpu_dma_latency` at 0 µs until undone (the kernel keeps the request while the
/// file is open).
pub fn hold_dma_latency(undo: &mut Undo) -> Result<(), SysError> {
    let (guard, cap) = crate::platform::hold_cpu_dma_latency(0);
    if !cap.granted {
        return Err(SysError::Missing(cap.advice.unwrap_or_else(|| "/dev/cpu_dma_latency refused".into())));
    }
    let guard = std::sync::Mutex::new(Some(guard));
    undo.push("release /dev/cpu_dma_latency", move || {
        drop(guard.lock().unwrap_or_else(|p| p.into_inner()).take());
        Ok(())
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_undo_last_first_on_drop_and_on_undo() {
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        {
            let mut u = Undo::new();
            for i in 0..3 {
                let l = log.clone();
                u.push(format!("step {i}"), move || {
                    l.lock().unwrap().push(i);
                    Ok(())
                });
            }
            assert_eq!(u.describe(), ["step 0", "step 1", "step 2"]);
        }
        assert_eq!(*log.lock().unwrap(), [2, 1, 0]);
        let mut u = Undo::new();
        u.push("a failing step", || Err(SysError::Missing("no".into())));
        let l = log.clone();
        u.push("a good one", move || {
            l.lock().unwrap().push(9);
            Ok(())
        });
        // A failing step does not stop the others.
        assert_eq!(u.undo(), ["undoing a failing step: no"]);
        assert_eq!(log.lock().unwrap().last(), Some(&9));
    }

    #[test]
    fn a_second_ctrl_c_undoes_every_guards_steps_last_first_and_each_runs_once() {
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (mut a, mut b) = (Undo::new(), Undo::new());
        let step = |i: i32| {
            let l = log.clone();
            move || {
                l.lock().unwrap().push(i);
                Ok(())
            }
        };
        a.push("step 0", step(0));
        b.push("step 1", step(1));
        a.push("step 2", step(2));
        let mine: Vec<u64> = a.steps.iter().chain(&b.steps).map(|(id, _)| *id).collect();
        // What the signal handler does while the guards are still held on other stacks.
        assert!(undo_where(std::time::Duration::from_secs(1), |id| mine.contains(&id)).is_empty());
        assert_eq!(*log.lock().unwrap(), [2, 1, 0]);
        // The guards' own undo finds nothing left to run.
        assert!(a.undo().is_empty());
        drop(b);
        assert_eq!(*log.lock().unwrap(), [2, 1, 0]);
    }

    #[test]
    fn a_written_setting_is_restored_and_a_failed_change_is_undone() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        std::fs::write(&a, "old a\n").unwrap();
        std::fs::write(&b, "old b\n").unwrap();
        let mut u = Undo::new();
        write_restoring(&mut u, &a, "new").unwrap();
        write_restoring(&mut u, &b, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "new");
        // Injected failure midway: a setting that does not exist. What was done is undone.
        let missing = d.path().join("missing");
        let e = write_restoring(&mut u, &missing, "x").unwrap_err();
        let err = u.fail("a change", e);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "old a");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "old b");
        assert!(!missing.exists());
        assert!(err.to_string().contains("back to \"old a\""), "{err}");
    }

    #[test]
    fn the_dma_latency_request_is_dropped_on_undo() {
        // The request lives as long as the file is open: find the descriptors this process
        // has on it (other tests may hold their own meanwhile, so only ours are followed).
        let dma_fds = || -> std::collections::BTreeSet<String> {
            std::fs::read_dir("/proc/self/fd")
                .map(|d| {
                    d.filter_map(|e| e.ok())
                        .filter(|e| std::fs::read_link(e.path()).is_ok_and(|t| t == Path::new("/dev/cpu_dma_latency")))
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default()
        };
        let before = dma_fds();
        let mut u = Undo::new();
        if let Err(e) = hold_dma_latency(&mut u) {
            latlab_model::testing::skip(&format!("/dev/cpu_dma_latency refused: {e}"));
            return;
        }
        let ours: Vec<String> = dma_fds().difference(&before).cloned().collect();
        assert!(!ours.is_empty(), "the request is held through an open descriptor");
        assert!(u.undo().is_empty());
        let after = dma_fds();
        assert!(ours.iter().all(|fd| !after.contains(fd)), "still open: {ours:?} in {after:?}");
    }

    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(cpu_list(&[3, 0, 1, 2, 5]), "0-3,5");
        assert_eq!(cpu_list(&[]), "");
        assert_eq!(parse_cpu_list("0-3,5\n").unwrap(), [0, 1, 2, 3, 5]);
        assert_eq!(parse_cpu_list("").unwrap(), Vec::<usize>::new());
        assert!(parse_cpu_list("3-1").is_err() && parse_cpu_list("x").is_err());
    }

    #[test]
    fn irqs_are_moved_off_the_cpu_and_back_and_refusals_are_counted() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::write(r.join("default_smp_affinity"), "3\n").unwrap();
        for (n, aff) in [(1, "0-1"), (2, "1"), (4, "0")] {
            std::fs::create_dir(r.join(n.to_string())).unwrap();
            std::fs::write(r.join(format!("{n}/smp_affinity_list")), format!("{aff}\n")).unwrap();
        }
        // IRQ 3 refuses, as a per-CPU interrupt does: its setting reads as a CPU list holding
        // CPU 0 but cannot be written (sysfs's list of online CPUs, read-only even to root).
        std::fs::create_dir(r.join("3")).unwrap();
        std::os::unix::fs::symlink("/sys/devices/system/cpu/online", r.join("3/smp_affinity_list")).unwrap();
        let mut u = Undo::new();
        let markers = tempfile::tempdir().unwrap();
        let m = irqs_off(&mut u, r, markers.path(), 0, &[1]).unwrap();
        // Each old value is marked for the next latlab, should this one be killed.
        let marker = std::fs::read_dir(markers.path()).unwrap().next().unwrap().unwrap().path();
        let text = std::fs::read_to_string(&marker).unwrap();
        assert!(text.contains(&format!("{}\t0-1\n", r.join("1/smp_affinity_list").display())), "{text}");
        assert_eq!(m, IrqMove { moved: vec![1, 4], refused: vec![3] });
        assert_eq!(std::fs::read_to_string(r.join("1/smp_affinity_list")).unwrap(), "1");
        assert_eq!(std::fs::read_to_string(r.join("2/smp_affinity_list")).unwrap(), "1\n");
        assert_eq!(std::fs::read_to_string(r.join("default_smp_affinity")).unwrap(), "2");
        drop(u);
        assert_eq!(std::fs::read_to_string(r.join("1/smp_affinity_list")).unwrap(), "0-1");
        assert_eq!(std::fs::read_to_string(r.join("4/smp_affinity_list")).unwrap(), "0");
        assert_eq!(std::fs::read_to_string(r.join("default_smp_affinity")).unwrap(), "3");
        assert!(!marker.exists(), "the marker goes once every setting is back");
    }
}
