//! The wake-up chain: level 1 (the paper's ISR_TEST) sleeps to each absolute stimulus
//! deadline, timestamps, publishes the pulse number and signals level 2 (APP_TEST), which
//! wakes, reads the pulse number and timestamps. Both record into preallocated per-pulse
//! arrays; all accounting happens afterwards in [`analyze`], a pure function.
//!
//! Latency is always measured from the *intended* stimulus time `start + k·period`.

use latlab_model::stats::{self, Summary};
use latlab_sys::clock::{Nanos, Periodic, Timebase};
pub use latlab_sys::slots::Slots;
use latlab_sys::wake::Signal;
use std::sync::atomic::{AtomicU64, Ordering};

/// Marks a pulse a level did not serve.
pub const MISSED: i64 = i64::MIN;

/// Published instead of a pulse number to tell level 2 to finish.
pub const STOP: u64 = u64::MAX;

/// What level 1 recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level1 {
    /// Lateness of level 1's wake-up for each pulse, or [`MISSED`].
    pub latency: Vec<i64>,
    /// Time from each pulse's intended stimulus to the end of level 1's work for it (after
    /// its signal to level 2: the seed's Figure 7 "complete"), or [`MISSED`].
    pub done: Vec<i64>,
    /// Pulses actually scheduled (the run may end early on Ctrl-C).
    pub pulses: usize,
    /// True if stopped by the stop flag.
    pub interrupted: bool,
}

/// Run level 1 for `pulses` pulses of `sched`. For each pulse: sleep to its deadline,
/// timestamp, store, publish `seq`, notify. A wake-up past the next deadline skips the
/// deadlines it overran (they stay [`MISSED`]): a stimulus that fired while level 1 was
/// still busy is a missed pulse, not a late one. After the last pulse it waits until the
/// next pulse *would* have fired, so level 2 gets the same one-period window for the last
/// pulse as for every other, then publishes [`STOP`] (also when interrupted).
pub fn level1(
    tb: &dyn Timebase,
    sched: Periodic,
    pulses: usize,
    seq: &AtomicU64,
    signal: &dyn Signal,
    progress: &AtomicU64,
    stop: &dyn Fn() -> bool,
) -> Level1 {
    level1_into(tb, sched, &Slots::new(pulses, MISSED), &Slots::new(pulses, MISSED), seq, signal, progress, stop)
}

/// [`level1`] writing into `latency` (one slot per pulse), which another thread may read while
/// it runs: every pulse below the published pulse number is final.
#[allow(clippy::too_many_arguments)]
pub fn level1_into(
    tb: &dyn Timebase,
    sched: Periodic,
    latency: &Slots,
    done: &Slots,
    seq: &AtomicU64,
    signal: &dyn Signal,
    progress: &AtomicU64,
    stop: &dyn Fn() -> bool,
) -> Level1 {
    let pulses = latency.len();
    let mut k = 0u64;
    let mut interrupted = false;
    while (k as usize) < pulses {
        if stop() {
            interrupted = true;
            break;
        }
        let deadline = sched.deadline(k);
        let t = tb.sleep_until(deadline);
        latency.set(k as usize, t as i64 - deadline as i64);
        seq.store(k, Ordering::Release);
        signal.notify();
        done.set(k as usize, tb.now() as i64 - deadline as i64);
        // An overrun of the last pulses skips only deadlines that were scheduled: progress
        // never passes `pulses`, and the closing wait is for the pulse after the last.
        let next = (k + 1 + sched.overrun(k, t)).min(pulses as u64);
        progress.fetch_add(next - k, Ordering::Relaxed);
        k = next;
    }
    if !interrupted {
        tb.sleep_until(sched.deadline(k));
    }
    seq.store(STOP, Ordering::Release);
    signal.notify();
    Level1 {
        latency: latency.snapshot(pulses),
        done: done.snapshot(pulses),
        pulses: (k as usize).min(pulses),
        interrupted,
    }
}

/// Run level 2 until level 1 publishes [`STOP`]: wait, read the pulse number, timestamp,
/// store. A notification for a pulse already served is ignored; a pulse number that jumps
/// means level 2 was still busy (or not yet scheduled) when the next stimulus arrived — the
/// skipped pulses stay [`MISSED`].
pub fn level2(tb: &dyn Timebase, sched: Periodic, pulses: usize, seq: &AtomicU64, signal: &dyn Signal) -> Vec<i64> {
    level2_into(tb, sched, &Slots::new(pulses, MISSED), seq, signal)
}

/// [`level2`] writing into `latency`, which another thread may read while it runs.
pub fn level2_into(
    tb: &dyn Timebase,
    sched: Periodic,
    latency: &Slots,
    seq: &AtomicU64,
    signal: &dyn Signal,
) -> Vec<i64> {
    let pulses = latency.len();
    let mut last = u64::MAX;
    loop {
        signal.wait();
        // Read the pulse number before the timestamp, so the time is never attributed to a
        // pulse whose stimulus came later.
        let s = seq.load(Ordering::Acquire);
        let t = tb.now();
        if s == STOP {
            break;
        }
        if s == last || s as usize >= pulses {
            continue;
        }
        latency.set(s as usize, t as i64 - sched.deadline(s) as i64);
        last = s;
    }
    latency.snapshot(pulses)
}

/// One level's results over a phase.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelStats {
    /// Latency summary over served pulses (None if none).
    pub summary: Option<Summary>,
    /// Pulses this level missed (for level 2: of those level 1 delivered).
    pub missed: u64,
    /// Pulses served.
    pub served: u64,
    /// Latencies of served pulses, in pulse order.
    pub samples: Vec<i64>,
    /// How the misses fell: runs of consecutive missed pulses, and the longest run. One long
    /// run is the CPU taken from the level for that long; many runs of one are stray misses.
    pub runs: MissRuns,
}

/// Runs of consecutive missed pulses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MissRuns {
    /// Runs of one or more consecutive missed pulses.
    pub count: u64,
    /// Pulses in the longest run.
    pub longest: u64,
}

impl MissRuns {
    /// The runs in a pulse-by-pulse record of misses (`true`: missed).
    pub fn of(missed: impl IntoIterator<Item = bool>) -> MissRuns {
        let (mut r, mut current) = (MissRuns::default(), 0u64);
        for m in missed {
            if m {
                if current == 0 {
                    r.count += 1;
                }
                current += 1;
                r.longest = r.longest.max(current);
            } else {
                current = 0;
            }
        }
        r
    }
}

/// The chain's results over a phase.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainStats {
    /// Pulses the stimulus scheduled.
    pub pulses: u64,
    /// Level 1 (from the stimulus).
    pub l1: LevelStats,
    /// Level 2 (from the stimulus).
    pub l2: LevelStats,
    /// Level 1 → level 2 hop, for pulses both served.
    pub hop: LevelStats,
    /// Fraction of pulses level 1 served.
    pub l1_delivered: f64,
    /// Fraction of pulses level 2 served (end to end: a pulse level 1 missed counts too).
    pub l2_delivered: f64,
    /// Level 1's work complete (from the stimulus), when recorded ([`with_done`]).
    pub l1_done: Option<Summary>,
}

/// `stats` with level 1's completion times (`done`, per pulse, [`MISSED`] where not served).
pub fn with_done(mut stats: ChainStats, done: &[i64]) -> ChainStats {
    let n = (stats.pulses as usize).min(done.len());
    let served: Vec<i64> = done[..n].iter().copied().filter(|&v| v != MISSED).collect();
    stats.l1_done = stats::summarize(&served);
    stats
}

fn level_stats(samples: Vec<i64>, missed: u64, runs: MissRuns) -> LevelStats {
    LevelStats { summary: stats::summarize(&samples), missed, served: samples.len() as u64, samples, runs }
}

/// Account a phase from the two per-pulse arrays (same length; `pulses` of them scheduled).
/// Level 2's misses are pulses level 1 served that level 2 did not serve before the next
/// pulse fired (for the last pulse: before [`level1`]'s closing wait ended).
pub fn analyze(l1: &[i64], l2: Option<&[i64]>, pulses: usize) -> ChainStats {
    let n = pulses.min(l1.len());
    let l1s: Vec<i64> = l1[..n].iter().copied().filter(|&v| v != MISSED).collect();
    let l1_missed = (n - l1s.len()) as u64;
    let (l2_stats, hop_stats) = match l2 {
        Some(l2) => {
            let mut l2s = Vec::with_capacity(n);
            let mut hops = Vec::with_capacity(n);
            let mut missed = 0;
            for k in 0..n.min(l2.len()) {
                match (l1[k], l2[k]) {
                    (a, b) if a != MISSED && b != MISSED => {
                        l2s.push(b);
                        hops.push(b - a);
                    }
                    (a, _) if a != MISSED => missed += 1,
                    (_, b) if b != MISSED => l2s.push(b),
                    _ => {}
                }
            }
            // A hop is missing exactly when level 2 missed a pulse level 1 served.
            let runs = MissRuns::of((0..n.min(l2.len())).map(|k| l1[k] != MISSED && l2[k] == MISSED));
            (level_stats(l2s, missed, runs), level_stats(hops, missed, runs))
        }
        None => (level_stats(Vec::new(), 0, MissRuns::default()), level_stats(Vec::new(), 0, MissRuns::default())),
    };
    let l1_runs = MissRuns::of(l1[..n].iter().map(|&v| v == MISSED));
    let frac = |served: u64| if n == 0 { 0.0 } else { served as f64 / n as f64 };
    ChainStats {
        pulses: n as u64,
        l1_delivered: frac(l1s.len() as u64),
        l2_delivered: frac(l2_stats.served),
        l1: level_stats(l1s, l1_missed, l1_runs),
        l2: l2_stats,
        hop: hop_stats,
        l1_done: None,
    }
}

/// Mean cost, in ns, of what level 1 does per pulse besides sleeping: one clock read, one
/// store into the sample array, one atomic publish — measured over `iterations`.
pub fn record_cost(tb: &dyn Timebase, iterations: usize) -> f64 {
    let mut buf = vec![0i64; iterations.max(1)];
    let seq = AtomicU64::new(0);
    let t0 = tb.now();
    for (i, slot) in buf.iter_mut().enumerate() {
        let t = tb.now();
        *slot = t as i64 - t0 as i64;
        seq.store(i as u64, Ordering::Release);
    }
    let t1 = tb.now();
    std::hint::black_box(&buf);
    (t1 - t0) as f64 / iterations.max(1) as f64
}

/// Pulses in a phase of `duration` at `period` (at least 1).
pub fn pulses_for(duration: Nanos, period: Nanos) -> usize {
    (duration / period.max(1)).max(1) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_sys::clock::FakeClock;
    use std::sync::Mutex;

    /// A signal that records notifications and lets the test play level 2 by hand.
    #[derive(Default)]
    struct Recorder(Mutex<Vec<u64>>, AtomicU64);
    impl Signal for Recorder {
        fn notify(&self) {
            self.0.lock().unwrap().push(self.1.load(Ordering::Relaxed));
        }
        fn wait(&self) {}
    }

    #[test]
    fn level1_measures_from_intended_time_and_counts_overruns() {
        // Period 1,000; lateness pattern: on time, 50 late, 2,300 late (overruns 2 pulses).
        let clock = FakeClock::with_lateness(0, vec![0, 50, 2_300]);
        let sched = Periodic { start: 10_000, interval: 1_000 };
        let seq = AtomicU64::new(0);
        let sig = Recorder::default();
        let p = AtomicU64::new(0);
        let r = level1(&clock, sched, 10, &seq, &sig, &p, &|| false);
        // k=0:0, k=1:50, k=2:2300 → skips 3,4; k=5:0, k=6:50, k=7:2300 → skips 8,9.
        assert_eq!(r.latency, vec![0, 50, 2_300, MISSED, MISSED, 0, 50, 2_300, MISSED, MISSED]);
        assert_eq!(r.pulses, 10);
        assert_eq!(p.load(Ordering::Relaxed), 10);
        assert_eq!(seq.load(Ordering::Relaxed), STOP);
        assert_eq!(sig.0.lock().unwrap().len(), 7, "6 pulses + the stop");
        let s = analyze(&r.latency, None, r.pulses);
        assert_eq!((s.l1.missed, s.l1.served), (4, 6));
        assert_eq!(s.l1_delivered, 0.6);
    }

    #[test]
    fn an_overrun_of_the_last_pulse_skips_no_pulse_past_the_end() {
        // As above, but 8 pulses: pulse 7 overruns deadlines 8 and 9, which are not scheduled.
        let clock = FakeClock::with_lateness(0, vec![0, 50, 2_300]);
        let sched = Periodic { start: 10_000, interval: 1_000 };
        let (seq, sig, p) = (AtomicU64::new(0), Recorder::default(), AtomicU64::new(0));
        let r = level1(&clock, sched, 8, &seq, &sig, &p, &|| false);
        assert_eq!(r.latency, vec![0, 50, 2_300, MISSED, MISSED, 0, 50, 2_300]);
        assert_eq!(r.pulses, 8);
        assert_eq!(p.load(Ordering::Relaxed), 8, "progress counts scheduled pulses only");
        let s = analyze(&r.latency, None, r.pulses);
        assert_eq!(s.l1.served + s.l1.missed, 8);
    }

    #[test]
    fn the_last_pulse_gets_a_full_period_before_stop() {
        struct Probe(Mutex<Vec<(u64, u64)>>, FakeClock, AtomicU64);
        impl Signal for Probe {
            fn notify(&self) {
                self.0.lock().unwrap().push((self.2.load(Ordering::Relaxed), self.1.now()));
            }
            fn wait(&self) {}
        }
        let clock = FakeClock::new(0);
        let sched = Periodic { start: 1_000, interval: 1_000 };
        let seq = AtomicU64::new(0);
        let probe = Probe(Mutex::new(Vec::new()), clock.clone(), AtomicU64::new(0));
        let p = AtomicU64::new(0);
        level1(&clock, sched, 3, &seq, &probe, &p, &|| false);
        // Pulses 0, 1, 2 fire at 1000, 2000, 3000; STOP is published at 4000, when pulse 3
        // would have fired — not right after pulse 2.
        let times: Vec<u64> = probe.0.lock().unwrap().iter().map(|e| e.1).collect();
        assert_eq!(times, vec![1_000, 2_000, 3_000, 4_000]);
        assert_eq!(seq.load(Ordering::Relaxed), STOP);
    }

    #[test]
    fn analysis_separates_level2_misses_from_level1_misses() {
        let l1 = [10, 12, MISSED, 11, 10, 13];
        let l2 = [40, MISSED, MISSED, 60, MISSED, 45];
        let s = analyze(&l1, Some(&l2), 6);
        assert_eq!(s.l1.missed, 1);
        assert_eq!(s.l2.missed, 2, "pulses 1 and 4: level 1 served them, level 2 did not");
        assert_eq!(s.l2.served, 3);
        assert_eq!(s.hop.samples, vec![30, 49, 32]);
        assert_eq!(s.l2.summary.unwrap().max, 60);
        assert_eq!(s.l2_delivered, 0.5);
        assert!((s.l1_delivered - 5.0 / 6.0).abs() < 1e-12);
        assert_eq!(s.l2.runs, MissRuns { count: 2, longest: 1 });
        assert_eq!(s.l1.runs, MissRuns { count: 1, longest: 1 });
    }

    #[test]
    fn misses_are_counted_in_runs_of_consecutive_pulses() {
        assert_eq!(MissRuns::of([false, true, true, true, false, true, false]), MissRuns { count: 2, longest: 3 });
        assert_eq!(MissRuns::of([false; 4]), MissRuns::default());
        let l1 = [10; 8];
        let l2 = [40, MISSED, MISSED, MISSED, MISSED, 50, 45, MISSED];
        assert_eq!(analyze(&l1, Some(&l2), 8).l2.runs, MissRuns { count: 2, longest: 4 });
    }

    #[test]
    fn level2_ignores_repeats_and_leaves_jumps_missed() {
        struct Script(Mutex<Vec<u64>>, AtomicU64, FakeClock);
        impl Signal for Script {
            fn notify(&self) {}
            fn wait(&self) {
                // Each wait: publish the next scripted pulse number and let 700 ns pass.
                let next = self.0.lock().unwrap().remove(0);
                self.1.store(next, Ordering::Release);
                self.2.advance(700);
            }
        }
        let clock = FakeClock::new(0);
        let sched = Periodic { start: 0, interval: 1_000 };
        clock.advance(500);
        let script = Script(Mutex::new(vec![0, 0, 2, 3, 3, 5, STOP]), AtomicU64::new(0), clock.clone());
        let lat = level2(&clock, sched, 6, &script.1, &script);
        // Times: 1200 (p0), 1900 (p0 again, ignored), 2600 (p2), 3300 (p3), 4000 (dup), 4700 (p5).
        assert_eq!(lat, vec![1_200, MISSED, 600, 300, MISSED, -300]);
    }

    #[test]
    fn real_threads_collect_consistent_counts() {
        use latlab_sys::wake::{SignalKind, make};
        let clock = latlab_sys::clock::MonotonicClock::new();
        let sched = Periodic { start: clock.now() + 1_000_000, interval: 200_000 };
        let seq = AtomicU64::new(0);
        let sig = make(SignalKind::Eventfd).unwrap();
        let p = AtomicU64::new(0);
        let (r1, r2) = std::thread::scope(|s| {
            let h2 = s.spawn(|| level2(&clock, sched, 200, &seq, sig.as_ref()));
            let r1 = level1(&clock, sched, 200, &seq, sig.as_ref(), &p, &|| false);
            (r1, h2.join().unwrap())
        });
        let s = analyze(&r1.latency, Some(&r2), r1.pulses);
        // Values are the machine's; the counts must add up.
        assert_eq!(s.pulses, 200);
        assert_eq!(s.l1.served + s.l1.missed, 200);
        assert!(s.l2.served + s.l2.missed <= 200);
        assert!(s.l1.served > 0 && s.l2.served > 0);
        assert_eq!(s.hop.served, s.l2.served.min(s.hop.served));
    }

    #[test]
    fn pulses_and_record_cost() {
        assert_eq!(pulses_for(5_000_000_000, 200_000), 25_000);
        assert_eq!(pulses_for(1, 200_000), 1);
        let c = FakeClock::new(0);
        assert_eq!(record_cost(&c, 1000), 0.0, "a fake clock that never moves costs nothing");
    }
}
