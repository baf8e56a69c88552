//! CPU load as separate spinning processes (seed 003's "trivial tight loop" programs): each
//! never yields, so each adds one to the run queue. The children run at a chosen policy and
//! nice level, die with their parent (`PR_SET_PDEATHSIG`), and are killed and reaped when the
//! load is stopped or dropped — also on an error or Ctrl-C in the caller.

use crate::platform::Policy;
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::waitpid;
use nix::unistd::Pid;

/// How the spinners are scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SpinSched {
    /// Policy: other, batch or idle (real-time spinners would starve the machine).
    pub policy: Policy,
    /// Nice level, −20..=19 (other and batch).
    pub nice: i32,
}

impl std::fmt::Display for SpinSched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.policy {
            Policy::Idle => write!(f, "idle"),
            p if self.nice != 0 => write!(f, "{p}+nice{}", self.nice),
            p => write!(f, "{p}"),
        }
    }
}

/// Why the load could not start.
#[derive(Debug, thiserror::Error)]
pub enum SpinError {
    /// A real-time policy was asked for.
    #[error(
        "spinning load at {0}: only other, batch and idle are allowed (a real-time spinner would starve the machine)"
    )]
    Policy(Policy),
    /// The nice level is out of range.
    #[error("nice {0}: use -20 to 19")]
    Nice(i32),
    /// fork failed.
    #[error("starting spinner {index}: {err}")]
    Fork {
        /// Which.
        index: usize,
        /// The error.
        err: nix::Error,
    },
}

/// Running spinner processes; [`SpinLoad::stop`] or drop kills and reaps them.
#[derive(Debug)]
pub struct SpinLoad {
    pids: Vec<Pid>,
}

/// Fork one child that sets its scheduling and spins until killed. The child calls only
/// system calls (no allocation, no locks), which is what is safe after `fork` in a
/// multi-threaded process.
fn fork_spinner(sched: SpinSched) -> nix::Result<Pid> {
    let parent = nix::unistd::getpid().as_raw();
    // SAFETY: the child branch calls only async-signal-safe system calls and then loops
    // forever on registers; it never returns into Rust code that could allocate or lock.
    match unsafe { libc::fork() } {
        -1 => Err(nix::Error::last()),
        0 => unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
            // A latlab name (see latlab_sys::leftovers), should the parent's death go unseen.
            libc::prctl(libc::PR_SET_NAME, c"latlab-spinner".as_ptr() as libc::c_ulong, 0, 0, 0);
            if libc::getppid() != parent {
                libc::_exit(0);
            }
            let raw = match sched.policy {
                Policy::Batch => libc::SCHED_BATCH,
                Policy::Idle => libc::SCHED_IDLE,
                _ => libc::SCHED_OTHER,
            };
            let _ = crate::platform::raw_setscheduler(0, raw, 0);
            libc::setpriority(libc::PRIO_PROCESS, 0, sched.nice);
            let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
            loop {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        },
        pid => Ok(Pid::from_raw(pid)),
    }
}

impl SpinLoad {
    /// Start `n` spinners at `sched`.
    pub fn start(n: usize, sched: SpinSched) -> Result<Self, SpinError> {
        if sched.policy.is_realtime() {
            return Err(SpinError::Policy(sched.policy));
        }
        if !(-20..=19).contains(&sched.nice) {
            return Err(SpinError::Nice(sched.nice));
        }
        let mut load = SpinLoad { pids: Vec::with_capacity(n) };
        for index in 0..n {
            // On an error, `load` drops here and kills the ones already started.
            let pid = fork_spinner(sched).map_err(|err| SpinError::Fork { index, err })?;
            load.pids.push(pid);
        }
        Ok(load)
    }

    /// The children's process ids.
    pub fn pids(&self) -> &[Pid] {
        &self.pids
    }

    /// Kill and reap every spinner.
    pub fn stop(mut self) {
        self.kill_all();
    }

    fn kill_all(&mut self) {
        for pid in self.pids.drain(..) {
            let _ = kill(pid, Signal::SIGKILL);
            let _ = waitpid(pid, None);
        }
    }
}

impl Drop for SpinLoad {
    fn drop(&mut self) {
        self.kill_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alive(pid: Pid) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| !s.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
            .unwrap_or(false)
    }

    #[test]
    fn spinners_run_at_their_nice_level_and_are_gone_after_stop_or_drop() {
        let load = SpinLoad::start(2, SpinSched { policy: Policy::Other, nice: 19 }).unwrap();
        let pids = load.pids().to_vec();
        assert_eq!(pids.len(), 2);
        std::thread::sleep(std::time::Duration::from_millis(50));
        for &p in &pids {
            assert!(alive(p));
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap();
            let fields: Vec<&str> = stat.rsplit(')').next().unwrap().split_whitespace().collect();
            // Field 19 of /proc/PID/stat is nice (the 17th after the command name).
            assert_eq!(fields[16], "19", "{stat}");
        }
        load.stop();
        assert!(pids.iter().all(|&p| !alive(p)));
        let pids = {
            let load = SpinLoad::start(1, SpinSched { policy: Policy::Idle, nice: 0 }).unwrap();
            load.pids().to_vec()
        };
        assert!(pids.iter().all(|&p| !alive(p)));
    }

    #[test]
    fn real_time_spinners_and_bad_nice_are_refused() {
        assert!(matches!(SpinLoad::start(1, SpinSched { policy: Policy::Fifo, nice: 0 }), Err(SpinError::Policy(_))));
        assert!(matches!(SpinLoad::start(1, SpinSched { policy: Policy::Other, nice: 30 }), Err(SpinError::Nice(30))));
    }
}
