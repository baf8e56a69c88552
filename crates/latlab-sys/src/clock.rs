//! Time: monotonic timestamps in integer nanoseconds, absolute-deadline sleeping, timer slack,
//! and the `Timebase` seam that lets whole experiments run on a fake clock in tests.
//!
//! Every experiment measures from the *intended* time: it computes `start + k·interval`,
//! sleeps until that absolute deadline with `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`,
//! and records `now − deadline` as the lateness. Nothing here allocates.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Nanoseconds on `CLOCK_MONOTONIC` (since boot, not counting suspend). Integer, never float.
pub type Nanos = u64;

/// A source of monotonic time and a way to sleep until an absolute point of it.
///
/// Implemented by [`MonotonicClock`] (the real one) and [`FakeClock`] (tests).
pub trait Timebase: Send + Sync {
    /// Current time in nanoseconds.
    fn now(&self) -> Nanos;
    /// Block until `deadline` (absolute, same clock as [`Timebase::now`]) has passed.
    /// Returns the time read right after waking, so callers need no extra clock read.
    fn sleep_until(&self, deadline: Nanos) -> Nanos;
}

/// Read `CLOCK_MONOTONIC`.
#[inline]
pub fn monotonic_now() -> Nanos {
    let ts = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
        .expect("CLOCK_MONOTONIC is always available on Linux");
    ts.tv_sec() as u64 * 1_000_000_000 + ts.tv_nsec() as u64
}

/// CPU time this thread has used, nanoseconds (`CLOCK_THREAD_CPUTIME_ID`): what a pipeline
/// stage costs, not counting time the thread was preempted or blocked.
#[inline]
pub fn thread_cpu_now() -> Nanos {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(|ts| ts.tv_sec() as u64 * 1_000_000_000 + ts.tv_nsec() as u64)
        .unwrap_or(0)
}

/// Resolution the kernel reports for `CLOCK_MONOTONIC` (`clock_getres`), in nanoseconds.
pub fn monotonic_resolution() -> Nanos {
    nix::time::clock_getres(nix::time::ClockId::CLOCK_MONOTONIC)
        .map(|ts| ts.tv_sec() as u64 * 1_000_000_000 + ts.tv_nsec() as u64)
        .unwrap_or(0)
}

/// Wall-clock time as nanoseconds since the Unix epoch (for run records, not for measuring).
pub fn unix_now_ns() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as i64).unwrap_or(0)
}

/// Sleep until an absolute `CLOCK_MONOTONIC` deadline with `TIMER_ABSTIME`, retrying on EINTR.
/// A signal (Ctrl-C) interrupts the sleep early only if the caller checks its stop flag.
pub fn clock_nanosleep_abs(deadline: Nanos) {
    let ts = libc::timespec { tv_sec: (deadline / 1_000_000_000) as _, tv_nsec: (deadline % 1_000_000_000) as _ };
    loop {
        // SAFETY: `ts` is a valid timespec on the stack; a null remainder is allowed with
        // TIMER_ABSTIME. clock_nanosleep has no other memory effects.
        let rc =
            unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
        if rc != libc::EINTR {
            return;
        }
    }
}

/// The real clock: `CLOCK_MONOTONIC`, sleeping with `clock_nanosleep(TIMER_ABSTIME)` and,
/// optionally, busy-waiting the last `spin_tail` nanoseconds for sub-50 µs precision
/// (at the cost of burning that much CPU per wake-up).
#[derive(Debug, Clone, Copy, Default)]
pub struct MonotonicClock {
    /// Nanoseconds before the deadline at which to stop sleeping and spin. 0 = pure sleep.
    pub spin_tail: Nanos,
}

impl MonotonicClock {
    /// A clock that only sleeps.
    pub fn new() -> Self {
        Self { spin_tail: 0 }
    }
    /// A clock that sleeps to `deadline − spin_tail`, then spins on the clock.
    pub fn with_spin_tail(spin_tail: Nanos) -> Self {
        Self { spin_tail }
    }
}

impl Timebase for MonotonicClock {
    #[inline]
    fn now(&self) -> Nanos {
        monotonic_now()
    }

    #[inline]
    fn sleep_until(&self, deadline: Nanos) -> Nanos {
        if self.spin_tail == 0 {
            clock_nanosleep_abs(deadline);
            return monotonic_now();
        }
        let wake = deadline.saturating_sub(self.spin_tail);
        if monotonic_now() < wake {
            clock_nanosleep_abs(wake);
        }
        loop {
            let now = monotonic_now();
            if now >= deadline {
                return now;
            }
            std::hint::spin_loop();
        }
    }
}

/// A deterministic clock for tests. Time moves only when someone sleeps or calls
/// [`FakeClock::advance`]. Each sleep wakes exactly at its deadline plus the next value of
/// a scripted lateness pattern (cycled), so tests can check lateness and miss accounting.
#[derive(Debug, Clone)]
pub struct FakeClock {
    now: Arc<AtomicU64>,
    lateness: Arc<Vec<Nanos>>,
    wakes: Arc<AtomicU64>,
}

impl FakeClock {
    /// A fake clock starting at `start` whose sleeps wake exactly on time.
    pub fn new(start: Nanos) -> Self {
        Self::with_lateness(start, vec![0])
    }
    /// A fake clock whose k-th sleep wakes `lateness[k % len]` nanoseconds late.
    pub fn with_lateness(start: Nanos, lateness: Vec<Nanos>) -> Self {
        let lateness = if lateness.is_empty() { vec![0] } else { lateness };
        Self { now: Arc::new(AtomicU64::new(start)), lateness: Arc::new(lateness), wakes: Arc::new(AtomicU64::new(0)) }
    }
    /// Move time forward by `d` nanoseconds (simulates work taking time).
    pub fn advance(&self, d: Nanos) {
        self.now.fetch_add(d, Ordering::SeqCst);
    }
    /// How many times `sleep_until` was called.
    pub fn wakes(&self) -> u64 {
        self.wakes.load(Ordering::SeqCst)
    }
}

impl Timebase for FakeClock {
    fn now(&self) -> Nanos {
        self.now.load(Ordering::SeqCst)
    }
    fn sleep_until(&self, deadline: Nanos) -> Nanos {
        let k = self.wakes.fetch_add(1, Ordering::SeqCst) as usize;
        let late = self.lateness[k % self.lateness.len()];
        let now = self.now.load(Ordering::SeqCst);
        let wake = now.max(deadline) + late;
        self.now.store(wake, Ordering::SeqCst);
        wake
    }
}

/// Current timer slack of the calling thread in nanoseconds (`PR_GET_TIMERSLACK`).
pub fn timer_slack() -> Option<Nanos> {
    // SAFETY: PR_GET_TIMERSLACK takes no pointer arguments and only returns a value.
    let r = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) };
    if r < 0 { None } else { Some(r as Nanos) }
}

/// Set the calling thread's timer slack (`PR_SET_TIMERSLACK`). The kernel treats 0 as
/// "reset to the default", so the smallest meaningful request is 1 ns. Returns the value
/// read back afterwards (what was actually obtained).
pub fn set_timer_slack(ns: Nanos) -> std::io::Result<Nanos> {
    // SAFETY: PR_SET_TIMERSLACK takes the slack by value; no memory is passed.
    let r = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0) };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    timer_slack().ok_or_else(std::io::Error::last_os_error)
}

/// A periodic schedule of absolute deadlines `start + k·interval` (k = 1, 2, …).
///
/// Deadlines are never re-based on when a wake-up happened, so a late wake-up does not
/// shift later deadlines (no drift and no coordinated omission).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Periodic {
    /// Time of deadline 0.
    pub start: Nanos,
    /// Period between deadlines.
    pub interval: Nanos,
}

impl Periodic {
    /// The k-th deadline.
    #[inline]
    pub fn deadline(&self, k: u64) -> Nanos {
        self.start + k * self.interval
    }
    /// How many whole deadlines have passed strictly after deadline `k` by time `now`
    /// (the periods a late wake-up overran).
    #[inline]
    pub fn overrun(&self, k: u64, now: Nanos) -> u64 {
        let d = self.deadline(k);
        if now <= d || self.interval == 0 { 0 } else { (now - d - 1) / self.interval }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_never_goes_back() {
        let mut prev = monotonic_now();
        for _ in 0..10_000 {
            let t = monotonic_now();
            assert!(t >= prev);
            prev = t;
        }
    }

    #[test]
    fn fake_clock_wakes_at_deadline_plus_scripted_lateness() {
        let c = FakeClock::with_lateness(1_000, vec![0, 5, 10]);
        assert_eq!(c.sleep_until(2_000), 2_000);
        assert_eq!(c.sleep_until(3_000), 3_005);
        assert_eq!(c.sleep_until(4_000), 4_010);
        assert_eq!(c.sleep_until(5_000), 5_000);
        // A deadline already in the past wakes "now" plus lateness, never earlier.
        c.advance(10_000);
        assert_eq!(c.sleep_until(6_000), 15_005);
        assert_eq!(c.wakes(), 5);
    }

    #[test]
    fn periodic_deadlines_and_overrun() {
        let p = Periodic { start: 100, interval: 10 };
        assert_eq!(p.deadline(0), 100);
        assert_eq!(p.deadline(3), 130);
        assert_eq!(p.overrun(1, 110), 0);
        assert_eq!(p.overrun(1, 120), 0, "waking exactly at the next deadline is not a miss");
        assert_eq!(p.overrun(1, 121), 1);
        assert_eq!(p.overrun(1, 141), 3);
    }

    #[test]
    fn real_sleep_returns_after_deadline() {
        let c = MonotonicClock::new();
        let d = c.now() + 200_000;
        assert!(c.sleep_until(d) >= d);
        let s = MonotonicClock::with_spin_tail(50_000);
        let d = s.now() + 200_000;
        assert!(s.sleep_until(d) >= d);
    }

    #[test]
    fn timer_slack_set_and_read_back() {
        let h = std::thread::spawn(|| {
            let got = set_timer_slack(1).unwrap();
            assert_eq!(got, 1);
            assert_eq!(timer_slack(), Some(1));
        });
        h.join().unwrap();
    }
}
