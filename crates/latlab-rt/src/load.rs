//! The background load of the loaded phase and of the sweep: latlab's polygons (whose
//! progress is counted) or any shell command (started in its own process group and stopped
//! with it afterwards).

use crate::config::{LoadSpec, RtConfig};
use latlab_sys::load::{PolygonLoad, PolygonsConfig};
use latlab_sys::platform::Capability;
use std::process::{Child, Command};

/// A running load.
pub enum RunningLoad {
    /// The polygons workers.
    Polygons(PolygonLoad),
    /// A command's process group.
    Cmd(Child),
}

/// Start the configured load, meant to run for `run_ns`; `Ok(None)` for `--load none`.
/// Polygons stop on their own a margin after `run_ns` (10 % and 2 s), should a real-time
/// load starve the thread that would stop them.
pub fn start(cfg: &RtConfig, seed: u64, run_ns: u64) -> std::io::Result<Option<RunningLoad>> {
    match &cfg.load {
        LoadSpec::None => Ok(None),
        LoadSpec::Polygons { workers, pace, .. } => {
            let p = PolygonLoad::start(&PolygonsConfig {
                workers: *workers,
                pace: *pace,
                sched: cfg.load_sched(),
                cpus: cfg.load_cpus.clone(),
                seed,
                limit_ns: Some(run_ns.saturating_add(run_ns / 10).saturating_add(2_000_000_000)),
            })?;
            Ok(Some(RunningLoad::Polygons(p)))
        }
        LoadSpec::Cmd { command } => {
            use std::os::unix::process::CommandExt;
            let child = Command::new("sh")
                .arg("-c")
                .arg(command)
                .process_group(0)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .spawn()
                .map_err(|e| std::io::Error::new(e.kind(), format!("cannot start load command '{command}': {e}")))?;
            Ok(Some(RunningLoad::Cmd(child)))
        }
    }
}

impl RunningLoad {
    /// Polygons drawn so far (None for a command).
    pub fn progress(&self) -> Option<u64> {
        match self {
            RunningLoad::Polygons(p) => Some(p.progress()),
            RunningLoad::Cmd(_) => None,
        }
    }
    /// What the load's threads got.
    pub fn capabilities(&self) -> Vec<Capability> {
        match self {
            RunningLoad::Polygons(p) => p.capabilities().to_vec(),
            RunningLoad::Cmd(_) => Vec::new(),
        }
    }
    /// Stop the load (a command's whole process group: SIGTERM, then SIGKILL after 1 s).
    pub fn stop(self) {
        match self {
            RunningLoad::Polygons(p) => {
                p.stop();
            }
            RunningLoad::Cmd(mut c) => {
                use nix::sys::signal::{Signal, killpg};
                let pg = nix::unistd::Pid::from_raw(c.id() as i32);
                let _ = killpg(pg, Signal::SIGTERM);
                for _ in 0..100 {
                    if matches!(c.try_wait(), Ok(Some(_))) {
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                let _ = killpg(pg, Signal::SIGKILL);
                let _ = c.wait();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_load_is_started_and_its_group_stopped() {
        let cfg = RtConfig { load: LoadSpec::Cmd { command: "exec sleep 30".into() }, ..RtConfig::default() };
        let l = start(&cfg, 1, 1_000_000_000).unwrap().unwrap();
        let RunningLoad::Cmd(c) = &l else { panic!() };
        let pgid = c.id();
        assert_eq!(l.progress(), None);
        l.stop();
        // Nothing is left in the group.
        let alive = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid as i32), None).is_ok();
        assert!(!alive, "the load's process group survived");
    }

    #[test]
    fn polygons_load_counts() {
        // A load every user may start: SCHED_OTHER, unpinned.
        let other = latlab_sys::platform::Sched { policy: latlab_sys::platform::Policy::Other, priority: 0 };
        let cfg = RtConfig { load_cpus: vec![], l2: other, ..RtConfig::default() };
        let l = start(&cfg, 1, 1_000_000_000).unwrap().unwrap();
        let t0 = std::time::Instant::now();
        while l.progress().unwrap() == 0 && t0.elapsed().as_secs() < 30 {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(l.progress().unwrap() > 0);
        l.stop();
        assert!(start(&RtConfig { load: LoadSpec::None, ..RtConfig::default() }, 1, 0).unwrap().is_none());
    }
}
