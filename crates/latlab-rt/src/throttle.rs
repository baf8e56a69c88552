//! RT throttling and the fair server during `latlab rt`'s loaded phase and sweeps: lifted for
//! the run (as root), each change undone by the undo guard at the end of the run, on error,
//! Ctrl-C or panic, and recorded; or kept (`--rt-throttling keep`) for users who want to see
//! the kernel hold every real-time thread.
//!
//! Why: a real-time load that uses up the RT bandwidth (`sched_rt_runtime_us` of every
//! `sched_rt_period_us`) makes the kernel hold every real-time thread on its CPU, level 1
//! included, for the rest of the period; from Linux 6.12 the fair server (a deadline entity
//! that runs the fair class for `runtime` of every `period` ns) does the same from the other
//! side. Neither existed on the seed's CE, where "the load from Polygons had no effect on the
//! interrupt-linked processing at all".

use latlab_sys::change::{Undo, write_restoring};
use serde::Serialize;
use std::path::{Path, PathBuf};

latlab_model::choice! {
    /// What `latlab rt` does with RT throttling while a real-time load runs (`--rt-throttling`).
    #[derive(Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Throttling {
        /// Lift it for the run (root), restore it afterwards.
        Lift = "lift",
        /// Leave the kernel's setting: loaded figures then show the throttling's hold.
        Keep = "keep",
    }
}

/// Where the knobs live (the real ones, or a test's directories).
#[derive(Debug, Clone)]
pub struct Knobs {
    /// `/proc/sys/kernel/sched_rt_runtime_us`.
    pub rt_runtime: PathBuf,
    /// `/sys/kernel/debug/sched/fair_server` (one `cpuN/runtime` per CPU).
    pub fair_server: PathBuf,
    /// Where the marker of the changes goes (see `latlab_sys::leftovers`).
    pub markers: PathBuf,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            rt_runtime: "/proc/sys/kernel/sched_rt_runtime_us".into(),
            fair_server: "/sys/kernel/debug/sched/fair_server".into(),
            markers: latlab_sys::defaults::SETTINGS_DIR.into(),
        }
    }
}

/// How the run stands with RT throttling, for its rows and record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// No real-time load ran, or the kernel does not throttle: nothing to lift.
    NotNeeded,
    /// Lifted for the run; what was changed.
    Lifted(Vec<String>),
    /// Kept on purpose (`--rt-throttling keep`).
    Kept,
    /// It could not be lifted; why (and what to do).
    Refused(String),
}

/// The outcome of [`lift`]: the guard that restores every change, what was changed, and what
/// could not be (the RT runtime refused is `refused`; a fair server that cannot be reached is
/// only noted, since the default load rests and leaves it nothing to do).
pub struct Lifted {
    /// Restores everything on drop.
    pub undo: Undo,
    /// What was changed, for the record.
    pub changed: Vec<String>,
    /// Why the RT runtime could not be lifted.
    pub refused: Option<String>,
    /// Notes on the fair server (not reachable, refused).
    pub notes: Vec<String>,
}

/// Lift RT throttling (`sched_rt_runtime_us` = -1) and the fair server of `cpus` (runtime 0)
/// where it can be reached. Each change is undone when the returned guard drops; before any is
/// made, a marker names each setting with its old value, so a run killed with them changed is
/// put right by the next (which restores a killed run's first) or by `latlab clean`.
pub fn lift(knobs: &Knobs, cpus: &[usize]) -> Lifted {
    use latlab_sys::leftovers;
    leftovers::clear(&leftovers::stale_settings(&knobs.markers));
    let mut undo = Undo::new();
    let mut changed = Vec::new();
    let mut notes = Vec::new();
    // What to change: (path, old value, new value).
    let mut plan: Vec<(PathBuf, String, &str)> = Vec::new();
    let refused = match std::fs::read_to_string(&knobs.rt_runtime) {
        Err(e) => Some(format!("{} cannot be read ({e})", knobs.rt_runtime.display())),
        Ok(old) if old.trim() == "-1" => None,
        Ok(old) => {
            plan.push((knobs.rt_runtime.clone(), old.trim().to_string(), "-1"));
            None
        }
    };
    if knobs.fair_server.is_dir() {
        for c in cpus {
            let p = knobs.fair_server.join(format!("cpu{c}")).join("runtime");
            match std::fs::read_to_string(&p) {
                Ok(old) if old.trim() == "0" => {}
                Ok(old) => plan.push((p, old.trim().to_string(), "0")),
                Err(e) => {
                    notes.push(format!("the fair server of CPU {c} was left on: {} cannot be read ({e})", p.display()))
                }
            }
        }
    } else {
        notes.push(format!(
            "no fair server at {} (debugfs not mounted, or a kernel before 6.12): left as it is",
            knobs.fair_server.display()
        ));
    }
    if plan.is_empty() {
        return Lifted { undo, changed, refused, notes };
    }
    let restore: Vec<(PathBuf, String)> = plan.iter().map(|(p, old, _)| (p.clone(), old.clone())).collect();
    if let Err(e) = latlab_sys::change::mark_settings(&mut undo, &knobs.markers, &restore) {
        notes.push(format!("{e}: if this run is killed, put the settings back by hand"));
    }
    let mut refused = refused;
    for (p, old, new) in plan {
        let is_rt = p == knobs.rt_runtime;
        match write_restoring(&mut undo, &p, new) {
            Ok(()) => changed.push(format!("{}: {old} → {new}", p.display())),
            Err(e) if is_rt => {
                refused = Some(format!("{e} (run as root, or `--rt-throttling keep` to measure with it)"))
            }
            Err(e) => notes.push(format!("{} was left as it is: {e}", p.display())),
        }
    }
    Lifted { undo, changed, refused, notes }
}

/// Read back what `changed` names after the undo: the RT runtime as it was before.
pub fn restored(knobs: &Knobs, before: &str) -> bool {
    std::fs::read_to_string(&knobs.rt_runtime).is_ok_and(|now| now.trim() == before.trim())
}

/// The paths under a test root.
pub fn knobs_under(root: &Path) -> Knobs {
    Knobs { rt_runtime: root.join("sched_rt_runtime_us"), fair_server: root.join("fair_server"), markers: root.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifts_both_and_the_guard_puts_them_back() {
        let dir = tempfile::tempdir().unwrap();
        let k = knobs_under(dir.path());
        std::fs::write(&k.rt_runtime, "950000\n").unwrap();
        for c in [0, 1] {
            std::fs::create_dir_all(k.fair_server.join(format!("cpu{c}"))).unwrap();
            std::fs::write(k.fair_server.join(format!("cpu{c}/runtime")), "50000000\n").unwrap();
        }
        let l = lift(&k, &[1]);
        assert_eq!(l.refused, None);
        assert_eq!(std::fs::read_to_string(&k.rt_runtime).unwrap(), "-1");
        assert_eq!(std::fs::read_to_string(k.fair_server.join("cpu1/runtime")).unwrap(), "0");
        // Only the measured CPU's server is touched.
        assert_eq!(std::fs::read_to_string(k.fair_server.join("cpu0/runtime")).unwrap(), "50000000\n");
        assert_eq!(l.changed.len(), 2, "{:?}", l.changed);
        assert!(l.changed[0].ends_with("950000 → -1"), "{:?}", l.changed);
        assert!(l.notes.is_empty());
        drop(l);
        assert!(restored(&k, "950000"));
        assert_eq!(std::fs::read_to_string(k.fair_server.join("cpu1/runtime")).unwrap(), "50000000");
    }

    #[test]
    fn a_panic_restores_too() {
        let dir = tempfile::tempdir().unwrap();
        let k = knobs_under(dir.path());
        std::fs::write(&k.rt_runtime, "950000").unwrap();
        let k2 = k.clone();
        let r = std::panic::catch_unwind(move || {
            let _l = lift(&k2, &[0]);
            assert_eq!(std::fs::read_to_string(&k2.rt_runtime).unwrap(), "-1");
            panic!("mid-run");
        });
        assert!(r.is_err());
        assert!(restored(&k, "950000"));
    }

    #[test]
    fn a_killed_runs_change_is_put_back_by_the_next_from_its_marker() {
        let dir = tempfile::tempdir().unwrap();
        let k = knobs_under(dir.path());
        std::fs::write(&k.rt_runtime, "950000").unwrap();
        // What a run killed while it had throttling lifted leaves: the setting changed and
        // its marker, owned by a pid that is gone.
        let dead = 0x7fff_fff0u32;
        std::fs::write(
            dir.path().join(format!("latlab-setting-{dead}-0")),
            format!("{}\t950000\n", k.rt_runtime.display()),
        )
        .unwrap();
        std::fs::write(&k.rt_runtime, "-1").unwrap();
        // The next run restores it first, so it reads the real old value, and lifts again.
        let l = lift(&k, &[0]);
        assert!(l.changed.iter().any(|c| c.ends_with("950000 → -1")), "{:?}", l.changed);
        assert!(!dir.path().join(format!("latlab-setting-{dead}-0")).exists());
        // Its own marker is there while it runs, and gone with the change.
        let marker = |d: &Path| {
            std::fs::read_dir(d)
                .unwrap()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("latlab-setting-"))
        };
        assert!(marker(dir.path()));
        drop(l);
        assert!(restored(&k, "950000"));
        assert!(!marker(dir.path()));
    }

    #[test]
    fn refusals_and_absences_are_said() {
        let dir = tempfile::tempdir().unwrap();
        let k = knobs_under(dir.path());
        // No knob at all: refused, with the path.
        let l = lift(&k, &[0]);
        assert!(l.refused.as_deref().is_some_and(|r| r.contains("sched_rt_runtime_us")), "{:?}", l.refused);
        assert!(l.notes[0].contains("no fair server"), "{:?}", l.notes);
        // Already lifted: nothing to change, nothing refused.
        std::fs::write(&k.rt_runtime, "-1\n").unwrap();
        let l = lift(&k, &[0]);
        assert_eq!((l.refused, l.changed.len()), (None, 0));
        // A knob that cannot be written (a directory in its place) is refused with advice.
        let k = Knobs { rt_runtime: dir.path().to_path_buf(), ..k };
        let l = lift(&k, &[0]);
        assert!(l.refused.is_some());
    }
}
