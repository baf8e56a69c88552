//! The probe loop, on any clock: a timer wakes on absolute deadlines `start + k·interval`;
//! each wake-up's lateness from its intended time goes into the window that holds that time;
//! deadlines that passed while the probe was late are missed pulses. When a deadline falls past
//! the open window, the window is handed over (by reference, to be copied out: nothing
//! allocates here) and the same memory starts the next one. The schedule's state is a pure
//! function of the time, so the loop needs no message to know it.

use crate::schedule::Schedule;
use crate::window::Window;
use latlab_sys::clock::Timebase;

/// How a probe runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineConfig {
    /// Interval between wake-ups, ns.
    pub interval_ns: u64,
    /// Window length, ns.
    pub window_ns: u64,
    /// Stop after this long (None: until stopped).
    pub duration_ns: Option<u64>,
    /// The idle/load schedule.
    pub schedule: Schedule,
}

/// What a probe did over its run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Windows handed over (the last one possibly partial).
    pub windows: u64,
    /// Samples.
    pub samples: u64,
    /// Missed pulses.
    pub missed: u64,
}

/// What every probe loop shares: the schedule's state at a time, the run's end, and windows
/// that tile the run from its start.
pub(crate) struct Frame<'a> {
    cfg: &'a EngineConfig,
    start: u64,
    /// When the run ends (`u64::MAX` without a duration).
    pub end: u64,
}

impl<'a> Frame<'a> {
    pub(crate) fn new(cfg: &'a EngineConfig, start: u64) -> Self {
        Self { cfg, start, end: cfg.duration_ns.map_or(u64::MAX, |d| start.saturating_add(d)) }
    }
    /// The schedule's state at `t`.
    pub(crate) fn state_at(&self, t: u64) -> &'static str {
        self.cfg.schedule.at(t.saturating_sub(self.start)).0.name()
    }
    /// The run's first window, empty.
    pub(crate) fn first(&self) -> Window {
        Window::new(self.start, self.start + self.cfg.window_ns, self.state_at(self.start))
    }
    /// Hand `w` over and make it the next window, empty.
    pub(crate) fn close(&self, w: &mut Window, totals: &mut Totals, closed: &mut dyn FnMut(&Window)) {
        closed(w);
        totals.windows += 1;
        let next = w.end_ns;
        w.reset(next, next + self.cfg.window_ns, self.state_at(next));
    }
}

/// Run the timer probe on `tb` from `start` until `duration_ns` or `stop()`; every window is
/// handed to `closed` as it closes (and the open one at the end, if it holds samples).
pub fn run_timer(
    tb: &dyn Timebase,
    cfg: &EngineConfig,
    start: u64,
    stop: &dyn Fn() -> bool,
    closed: &mut dyn FnMut(&Window),
) -> Totals {
    run_timer_then(tb, cfg, start, stop, closed, &mut |_| {})
}

/// [`run_timer`], calling `woke(deadline)` after each wake-up is recorded: the wake-up
/// chain's first level hands each pulse on there.
pub fn run_timer_then(
    tb: &dyn Timebase,
    cfg: &EngineConfig,
    start: u64,
    stop: &dyn Fn() -> bool,
    closed: &mut dyn FnMut(&Window),
    woke: &mut dyn FnMut(u64),
) -> Totals {
    let f = Frame::new(cfg, start);
    let mut w = f.first();
    let mut totals = Totals::default();
    let mut k = 0u64;
    loop {
        let deadline = start + k * cfg.interval_ns;
        if deadline >= f.end || stop() {
            break;
        }
        // The window holding this deadline: hand over those it has passed.
        while deadline >= w.end_ns {
            f.close(&mut w, &mut totals, closed);
        }
        let t = tb.sleep_until(deadline);
        let late = t.saturating_sub(deadline);
        w.record(late as i64);
        w.note_state(f.state_at(deadline));
        woke(deadline);
        // Deadlines that passed while this wake-up was late were missed.
        let skipped = late / cfg.interval_ns;
        w.missed += skipped;
        totals.samples += 1;
        totals.missed += skipped;
        k += 1 + skipped;
    }
    if w.count > 0 {
        closed(&w);
        totals.windows += 1;
    }
    totals
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_sys::clock::FakeClock;

    const S: u64 = 1_000_000_000;

    #[test]
    fn ten_simulated_hours_in_five_minute_windows_with_a_schedule() {
        // Every 10th wake-up 50 µs late, one in 1,000 a whole interval and more late (a miss).
        let mut lateness = vec![0u64; 1000];
        lateness[0] = 50_000;
        lateness[500] = 250_000_000;
        let clock = FakeClock::with_lateness(0, lateness);
        let cfg = EngineConfig {
            interval_ns: 100_000_000, // 10 Hz keeps ten hours to 360,000 wake-ups
            window_ns: 300 * S,
            duration_ns: Some(10 * 3600 * S),
            schedule: Schedule::parse("idle=2h,load=3h").unwrap(),
        };
        let mut got: Vec<(u64, u64, &'static str, u64, u64, u64)> = Vec::new();
        let t = run_timer(&clock, &cfg, 0, &|| false, &mut |w| {
            got.push((w.start_ns, w.end_ns, w.state, w.count, w.max_ns, w.missed))
        });
        assert_eq!(got.len(), 120, "ten hours of five-minute windows");
        assert_eq!(t.windows, 120);
        assert!(got.windows(2).all(|p| p[0].1 == p[1].0), "windows tile the run");
        // The schedule: 2 h idle (24 windows), 3 h load (36), then again.
        assert!(got[..24].iter().all(|w| w.2 == "idle"));
        assert!(got[24..60].iter().all(|w| w.2 == "load"));
        assert!(got[60..84].iter().all(|w| w.2 == "idle"));
        // Samples and misses add up: each 250 ms-late wake-up skips 2 deadlines.
        assert_eq!(got.iter().map(|w| w.3).sum::<u64>(), t.samples);
        assert_eq!(got.iter().map(|w| w.5).sum::<u64>(), t.missed);
        assert_eq!(t.samples + t.missed, 360_000);
        assert_eq!(t.missed, 2 * (t.samples / 1000 + u64::from(t.samples % 1000 > 500)));
        assert!(got.iter().all(|w| w.4 == 250_000_000 || w.3 < 500), "each window saw the worst");
    }

    #[test]
    fn a_stop_hands_over_the_open_window_and_a_change_of_state_marks_it_mixed() {
        let clock = FakeClock::new(0);
        let cfg = EngineConfig {
            interval_ns: 10 * S,
            window_ns: 600 * S,
            duration_ns: None,
            schedule: Schedule::parse("idle=5m,load=5m").unwrap(),
        };
        let c2 = clock.clone();
        let mut got = Vec::new();
        // Stop once 24 min 50 s have passed: the last window holds idle samples only.
        let t = run_timer(&clock, &cfg, 0, &|| c2.now() >= 1_490 * S, &mut |w| got.push((w.state, w.count)));
        assert_eq!(got, vec![("mixed", 60), ("mixed", 60), ("idle", 30)]);
        assert_eq!(t.samples, 150);
    }
}
