//! How one thread wakes another: eventfd (default), futex, pipe or condvar — the wake paths a
//! user can compare (`latlab rt`'s level 1 waking level 2, `latlab monitor`'s timer probe). Every mechanism coalesces: one `wait` consumes every notification
//! pending, as Windows CE's auto-reset event did, so a level 2 that falls behind sees a jump
//! in the pulse sequence rather than a backlog.
//!
//! `notify` and `wait` allocate nothing; only `condvar` takes a lock (that lock *is* the
//! mechanism being measured).

use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Condvar, Mutex};

latlab_model::choice! {
    /// Which wake path level 2 uses.
    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum SignalKind {
        /// `eventfd(2)`: a counter in the kernel; read blocks until non-zero.
        Eventfd = "eventfd",
        /// A raw `futex(2)` on a shared counter.
        Futex = "futex",
        /// A `pipe(2)`: one byte per notification.
        Pipe = "pipe",
        /// `std::sync::Condvar` with a mutex-protected counter.
        Condvar = "condvar",
        /// No level 2 (level 1 only, as cyclictest measures).
        None = "none",
    }
}

impl std::str::FromStr for SignalKind {
    type Err = latlab_model::ConfigError;
    fn from_str(s: &str) -> Result<Self, latlab_model::ConfigError> {
        use latlab_model::experiment::Choice;
        Self::from_choice(s).ok_or_else(|| format!("unknown signal '{s}' ({})", Self::choice_list()).into())
    }
}

impl std::fmt::Display for SignalKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A one-way wake-up from level 1 to level 2.
pub trait Signal: Send + Sync {
    /// Wake the waiter (never blocks for long; never allocates).
    fn notify(&self);
    /// Block until at least one notification is pending, and consume all that are.
    fn wait(&self);
}

/// Create the mechanism.
pub fn make(kind: SignalKind) -> std::io::Result<Box<dyn Signal>> {
    Ok(match kind {
        SignalKind::Eventfd => Box::new(EventfdSignal(nix::sys::eventfd::EventFd::from_value_and_flags(
            0,
            nix::sys::eventfd::EfdFlags::EFD_CLOEXEC,
        )?)),
        SignalKind::Futex => Box::new(FutexSignal { word: AtomicU32::new(0), seen: AtomicU32::new(0) }),
        SignalKind::Pipe => {
            let (r, w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
            Box::new(PipeSignal { r, w })
        }
        SignalKind::Condvar => {
            Box::new(CondvarSignal { count: Mutex::new(0), seen: AtomicU32::new(0), cv: Condvar::new() })
        }
        SignalKind::None => Box::new(NoSignal),
    })
}

struct EventfdSignal(nix::sys::eventfd::EventFd);

impl Signal for EventfdSignal {
    fn notify(&self) {
        let _ = self.0.write(1);
    }
    fn wait(&self) {
        // Reading returns (and clears) the whole counter: every pending notification.
        while let Err(nix::errno::Errno::EINTR) = self.0.read() {}
    }
}

struct PipeSignal {
    r: OwnedFd,
    w: OwnedFd,
}

impl Signal for PipeSignal {
    fn notify(&self) {
        let _ = nix::unistd::write(&self.w, &[1u8]);
    }
    fn wait(&self) {
        // One read takes every byte already in the pipe (up to 4 KiB of backlog).
        let mut buf = [0u8; 4096];
        while let Err(nix::errno::Errno::EINTR) = nix::unistd::read(&self.r, &mut buf) {}
    }
}

struct CondvarSignal {
    count: Mutex<u32>,
    seen: AtomicU32,
    cv: Condvar,
}

impl Signal for CondvarSignal {
    fn notify(&self) {
        let mut g = self.count.lock().unwrap_or_else(|e| e.into_inner());
        *g = g.wrapping_add(1);
        self.cv.notify_one();
    }
    fn wait(&self) {
        let seen = self.seen.load(Ordering::Relaxed);
        let mut g = self.count.lock().unwrap_or_else(|e| e.into_inner());
        while *g == seen {
            g = self.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        self.seen.store(*g, Ordering::Relaxed);
    }
}

struct FutexSignal {
    word: AtomicU32,
    seen: AtomicU32,
}

/// `futex(FUTEX_WAIT_PRIVATE)` on `word` while it equals `expected`; returns on wake,
/// mismatch or signal (callers re-check the word).
fn futex_wait(word: &AtomicU32, expected: u32) {
    // SAFETY: `word` is a live, aligned 32-bit atomic for the duration of the call; the
    // timeout pointer is null (wait indefinitely); the kernel only reads the word.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            expected,
            std::ptr::null::<libc::timespec>(),
        );
    }
}

/// `futex(FUTEX_WAKE_PRIVATE)`: wake one waiter on `word`.
fn futex_wake_one(word: &AtomicU32) {
    // SAFETY: `word` is a live, aligned 32-bit atomic; FUTEX_WAKE does not touch memory.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, 1);
    }
}

impl Signal for FutexSignal {
    fn notify(&self) {
        self.word.fetch_add(1, Ordering::Release);
        futex_wake_one(&self.word);
    }
    fn wait(&self) {
        let seen = self.seen.load(Ordering::Relaxed);
        loop {
            let now = self.word.load(Ordering::Acquire);
            if now != seen {
                self.seen.store(now, Ordering::Relaxed);
                return;
            }
            futex_wait(&self.word, seen);
        }
    }
}

struct NoSignal;

impl Signal for NoSignal {
    fn notify(&self) {}
    fn wait(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn every_mechanism_wakes_and_coalesces() {
        for kind in [SignalKind::Eventfd, SignalKind::Futex, SignalKind::Pipe, SignalKind::Condvar] {
            let s: Arc<dyn Signal> = Arc::from(make(kind).unwrap());
            // Three notifications before the wait: one wait consumes all of them...
            s.notify();
            s.notify();
            s.notify();
            s.wait();
            // ...so the next wait blocks until a new notification from another thread.
            let s2 = s.clone();
            let waiter = std::thread::spawn(move || s2.wait());
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(!waiter.is_finished(), "{kind}: wait returned without a notification");
            s.notify();
            waiter.join().unwrap();
        }
    }

    #[test]
    fn kinds_parse() {
        for k in ["eventfd", "futex", "pipe", "condvar", "none"] {
            assert_eq!(k.parse::<SignalKind>().unwrap().to_string(), k);
        }
        assert!("semaphore".parse::<SignalKind>().is_err());
    }
}
