//! The monitor's two other probe loops, on any clock, handing windows over as
//! [`crate::engine::run_timer`] does:
//!
//! - **idle** (Endo's method, seed 003 §3.1, as `latlab idle`): a thread at the lowest
//!   priority reads the clock in a tight loop; every gap longer than a threshold is time
//!   something else took from it, and is the window's sample (count, sizes, their sum: the
//!   time lost);
//! - **udp** (seed 002's probe, continuously): requests to a peer on absolute deadlines through
//!   an [`Echo`], replies matched by sequence number into a ring of fixed size; a window closes
//!   once its last request's loss wait has passed, with each answered request's round trip as
//!   a sample and each unanswered one counted lost (RFC 7680's threshold). One thread sends,
//!   drains the replies that have come (their arrival times are the kernel's, so a reply read
//!   late is timed right) and closes windows; nothing allocates after the start.

use crate::engine::{EngineConfig, Frame, Totals};
use crate::window::Window;
use latlab_sys::clock::Timebase;

/// Run the idle probe from `start`, reading `now` in a loop, until the duration or `stop()`.
/// A gap longer than `threshold_ns` between two reads counts in the window where it began.
pub fn run_idle(
    now: &dyn Fn() -> u64,
    cfg: &EngineConfig,
    threshold_ns: u64,
    start: u64,
    stop: &dyn Fn() -> bool,
    closed: &mut dyn FnMut(&Window),
) -> Totals {
    let f = Frame::new(cfg, start);
    let mut w = f.first();
    let mut totals = Totals::default();
    let mut prev = now().max(start);
    let mut reads = 0u32;
    loop {
        let t = now();
        let gap = t.saturating_sub(prev);
        // Windows the previous read has passed are done.
        while prev >= w.end_ns {
            f.close(&mut w, &mut totals, closed);
        }
        if gap > threshold_ns {
            w.record(gap as i64);
            w.note_state(f.state_at(prev));
            totals.samples += 1;
        }
        prev = t;
        if t >= f.end {
            break;
        }
        // The stop flag is an atomic load; reading it every 1,024 reads keeps the loop tight.
        reads = reads.wrapping_add(1);
        if reads & 1023 == 0 && stop() {
            break;
        }
    }
    if w.count > 0 || totals.windows == 0 {
        closed(&w);
        totals.windows += 1;
    }
    totals
}

/// How the timer probe wakes the chain's second level: the binary gives latlab-rt's
/// (eventfd, futex, pipe or condvar), so the monitor measures the same wake paths `latlab rt`
/// compares.
pub trait Wake: Send + Sync {
    /// Wake the waiter (never blocks for long; never allocates).
    fn notify(&self);
    /// Block until at least one notification is pending, and consume all that are.
    fn wait(&self);
}

/// Published instead of a deadline to tell the second level to finish.
pub const CHAIN_STOP: u64 = u64::MAX;

/// The wake-up chain's second level (seed 001's APP_TEST after its ISR_TEST): the timer probe
/// publishes each deadline and wakes it; it records how late it woke from that intended time.
/// A pulse it never saw (the waker coalesces, or the timer missed it) is a missed pulse.
pub struct ChainLevel2<'a> {
    f: Frame<'a>,
    interval_ns: u64,
    w: Window,
    prev: Option<u64>,
    totals: Totals,
}

impl<'a> ChainLevel2<'a> {
    /// Windows of `cfg` from `start`.
    pub fn new(cfg: &'a EngineConfig, start: u64) -> Self {
        let f = Frame::new(cfg, start);
        let w = f.first();
        Self { f, interval_ns: cfg.interval_ns, w, prev: None, totals: Totals::default() }
    }

    /// The second level woke at `t` for the pulse due at `deadline`.
    pub fn woke(&mut self, deadline: u64, t: u64, closed: &mut dyn FnMut(&Window)) {
        while deadline >= self.w.end_ns {
            self.f.close(&mut self.w, &mut self.totals, closed);
        }
        self.w.record(t.saturating_sub(deadline) as i64);
        self.w.note_state(self.f.state_at(deadline));
        let skipped = self.prev.map_or(0, |p| (deadline.saturating_sub(p) / self.interval_ns).saturating_sub(1));
        self.w.missed += skipped;
        self.totals.missed += skipped;
        self.totals.samples += 1;
        self.prev = Some(deadline);
    }

    /// The end: the open window handed over if it holds samples.
    pub fn finish(mut self, closed: &mut dyn FnMut(&Window)) -> Totals {
        if self.w.count > 0 {
            closed(&self.w);
            self.totals.windows += 1;
        }
        self.totals
    }
}

/// The second level's thread: wait, read the published deadline, record, until
/// [`CHAIN_STOP`].
pub fn run_chain(
    now: &dyn Fn() -> u64,
    cfg: &EngineConfig,
    start: u64,
    wake: &dyn Wake,
    pulse: &std::sync::atomic::AtomicU64,
    closed: &mut dyn FnMut(&Window),
) -> Totals {
    let mut l2 = ChainLevel2::new(cfg, start);
    loop {
        wake.wait();
        let t = now();
        let d = pulse.load(std::sync::atomic::Ordering::Acquire);
        if d == CHAIN_STOP {
            break;
        }
        l2.woke(d, t, closed);
    }
    l2.finish(closed)
}

/// A request–reply exchange with a peer, for the udp probe. latlab-monitor knows no experiment
/// crate: the binary gives one over latlab-udp's wire format to a `latlab udp serve`.
pub trait Echo: Send {
    /// Send request `seq` now.
    fn send(&mut self, seq: u64) -> std::io::Result<()>;
    /// A reply that has already arrived, without waiting: its sequence number and round trip,
    /// ns; `None` when none is waiting. Datagrams that are not valid replies are counted
    /// ([`Echo::refused`]) and skipped.
    fn poll(&mut self) -> std::io::Result<Option<(u64, u64)>>;
    /// Datagrams refused so far (malformed, unauthenticated, from elsewhere).
    fn refused(&self) -> u64;
}

/// Settings of the udp probe's loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EchoConfig {
    /// The windows, interval, duration and schedule.
    pub engine: EngineConfig,
    /// How long a request may wait for its reply before it is lost, ns.
    pub wait_ns: u64,
}

/// What the udp probe did besides its windows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EchoTotals {
    /// The windows and samples.
    pub totals: Totals,
    /// Requests sent.
    pub sent: u64,
    /// Requests lost.
    pub lost: u64,
    /// Replies to a request already answered, or whose window had closed.
    pub late_or_duplicate: u64,
    /// Sends the system refused.
    pub send_errors: u64,
}

/// Requests in flight, by sequence number modulo the ring's size: the round trip of each
/// (or `NONE`), and which sequence number the slot holds now.
struct Ring {
    seq_plus_1: Vec<u64>,
    rtt: Vec<u64>,
}

const NONE: u64 = u64::MAX;

impl Ring {
    fn new(n: usize) -> Self {
        Self { seq_plus_1: vec![0; n], rtt: vec![NONE; n] }
    }
    fn slot(&self, seq: u64) -> usize {
        (seq % self.seq_plus_1.len() as u64) as usize
    }
    fn sent(&mut self, seq: u64) {
        let i = self.slot(seq);
        (self.seq_plus_1[i], self.rtt[i]) = (seq + 1, NONE);
    }
    /// A reply: false if its request is not in flight or was answered already.
    fn answer(&mut self, seq: u64, rtt: u64) -> bool {
        let i = self.slot(seq);
        if self.seq_plus_1[i] != seq + 1 || self.rtt[i] != NONE {
            return false;
        }
        self.rtt[i] = rtt;
        true
    }
    /// The fate of request `seq`: `None` if it was not sent (a missed deadline), else its
    /// round trip or `Some(NONE)` if lost. The slot is freed.
    fn take(&mut self, seq: u64) -> Option<u64> {
        let i = self.slot(seq);
        if self.seq_plus_1[i] != seq + 1 {
            return None;
        }
        self.seq_plus_1[i] = 0;
        Some(self.rtt[i])
    }
}

/// Run the udp probe on `tb` from `start` until the duration or `stop()`, then wait for the
/// last replies; every window is handed to `closed` once its requests' fate is known.
pub fn run_echo(
    tb: &dyn Timebase,
    cfg: &EchoConfig,
    start: u64,
    echo: &mut dyn Echo,
    stop: &dyn Fn() -> bool,
    closed: &mut dyn FnMut(&Window),
) -> EchoTotals {
    let e = &cfg.engine;
    let f = Frame::new(e, start);
    let end = f.end;
    // A request's slot is needed until its window closes: one window and the wait after it.
    let span = (e.window_ns + cfg.wait_ns).div_ceil(e.interval_ns) as usize + 8;
    let mut ring = Ring::new(span);
    let mut w = f.first();
    let mut out = EchoTotals::default();
    let mut k = 0u64; // next request
    // Close every window whose last request's wait has passed at `t`; requests below `next`
    // that were not sent are the deadlines the sender missed.
    let close_due =
        |t: u64, next: u64, w: &mut Window, ring: &mut Ring, out: &mut EchoTotals, closed: &mut dyn FnMut(&Window)| {
            while t >= w.end_ns.saturating_add(cfg.wait_ns) && w.start_ns < end {
                let first = (w.start_ns - start).div_ceil(e.interval_ns);
                let last = (w.end_ns - start).div_ceil(e.interval_ns).min(next); // exclusive
                for seq in first..last {
                    match ring.take(seq) {
                        None => {
                            w.missed += 1;
                            out.totals.missed += 1;
                        }
                        Some(NONE) => {
                            w.lost += 1;
                            out.lost += 1;
                        }
                        Some(rtt) => {
                            w.record(rtt as i64);
                            out.totals.samples += 1;
                        }
                    }
                    w.note_state(f.state_at(start + seq * e.interval_ns));
                }
                f.close(w, &mut out.totals, closed);
            }
        };
    let drain = |echo: &mut dyn Echo, ring: &mut Ring, out: &mut EchoTotals| {
        while let Ok(Some((seq, rtt))) = echo.poll() {
            // Past the wait, a reply is a loss that came back late (RFC 7680).
            if rtt > cfg.wait_ns || !ring.answer(seq, rtt) {
                out.late_or_duplicate += 1;
            }
        }
    };
    loop {
        let planned = start + k * e.interval_ns;
        if planned >= end || stop() {
            break;
        }
        let t = tb.sleep_until(planned);
        drain(echo, &mut ring, &mut out);
        close_due(t, k, &mut w, &mut ring, &mut out, closed);
        if echo.send(k).is_err() {
            out.send_errors += 1;
        }
        ring.sent(k);
        out.sent += 1;
        // Deadlines that passed while the sender was late are not sent: their slots stay
        // empty, and their window counts them missed when it closes.
        k += 1 + t.saturating_sub(planned) / e.interval_ns;
    }
    // The last requests' wait, then every window that holds one.
    let last_sent = start + k.saturating_sub(1) * e.interval_ns;
    let until = last_sent.saturating_add(e.interval_ns).saturating_add(cfg.wait_ns);
    let mut t = tb.now();
    while t < until {
        t = tb.sleep_until((t + e.interval_ns).min(until));
        drain(echo, &mut ring, &mut out);
    }
    let stop_at = (start + k * e.interval_ns).min(end);
    let final_end = stop_at.saturating_add(cfg.wait_ns).max(t);
    while w.start_ns < stop_at {
        close_due(final_end.max(w.end_ns + cfg.wait_ns), k, &mut w, &mut ring, &mut out, closed);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::Schedule;
    use latlab_sys::clock::FakeClock;
    use std::collections::VecDeque;

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000 * MS;

    /// A peer on the fake clock: request `seq` is answered after `rtt(seq)`, or never.
    struct FakePeer<'a> {
        clock: &'a FakeClock,
        rtt: fn(u64) -> Option<u64>,
        inflight: VecDeque<(u64, u64, u64)>, // (arrives at, seq, rtt)
        duplicate_every: u64,
    }

    impl Echo for FakePeer<'_> {
        fn send(&mut self, seq: u64) -> std::io::Result<()> {
            if let Some(r) = (self.rtt)(seq) {
                let at = self.clock.now() + r;
                self.inflight.push_back((at, seq, r));
                if self.duplicate_every > 0 && seq.is_multiple_of(self.duplicate_every) {
                    self.inflight.push_back((at, seq, r));
                }
            }
            Ok(())
        }
        fn poll(&mut self) -> std::io::Result<Option<(u64, u64)>> {
            let now = self.clock.now();
            let i = self.inflight.iter().position(|(at, ..)| *at <= now);
            Ok(i.and_then(|i| self.inflight.remove(i)).map(|(_, s, r)| (s, r)))
        }
        fn refused(&self) -> u64 {
            0
        }
    }

    fn cfg(hours: u64) -> EchoConfig {
        EchoConfig {
            engine: EngineConfig {
                interval_ns: 100 * MS,
                window_ns: 300 * S,
                duration_ns: Some(hours * 3600 * S),
                schedule: Schedule::parse("idle=1h,load=1h").unwrap(),
            },
            wait_ns: 3 * S,
        }
    }

    #[test]
    fn three_simulated_hours_of_requests_every_reply_timed_every_loss_counted() {
        let clock = FakeClock::new(0);
        // One request in 100 lost; the others answered in 2 ms, every 50th in 2.5 s (still
        // inside the 3 s wait).
        let mut peer = FakePeer {
            clock: &clock,
            rtt: |s| match s % 100 {
                7 => None,
                0 | 50 => Some(2_500 * MS),
                _ => Some(2 * MS),
            },
            inflight: VecDeque::new(),
            duplicate_every: 1000,
        };
        let mut got = Vec::new();
        let t = run_echo(&clock, &cfg(3), 0, &mut peer, &|| false, &mut |w| {
            got.push((w.start_ns, w.state, w.count, w.lost, w.max_ns, w.min_ns))
        });
        assert_eq!(got.len(), 36, "three hours of five-minute windows");
        assert!(got.windows(2).all(|p| p[0].0 + 300 * S == p[1].0), "windows tile the run");
        assert_eq!(t.sent, 108_000);
        assert_eq!(t.lost, 1_080);
        assert_eq!(t.totals.samples, 108_000 - 1_080);
        assert_eq!(got.iter().map(|w| w.3).sum::<u64>(), 1_080);
        assert!(got.iter().all(|w| w.2 == 2_970 && w.3 == 30 && w.4 == 2_500 * MS && w.5 == 2 * MS), "{:?}", got[0]);
        assert_eq!(t.late_or_duplicate, 108, "every 1,000th answered twice");
        assert!(got[..12].iter().all(|w| w.1 == "idle") && got[12..24].iter().all(|w| w.1 == "load"));
    }

    #[test]
    fn a_reply_past_the_wait_is_lost_and_a_stopped_run_closes_its_last_window() {
        let clock = FakeClock::new(0);
        let mut peer = FakePeer {
            clock: &clock,
            rtt: |s| Some(if s == 3 { 4 * S } else { MS }),
            inflight: VecDeque::new(),
            duplicate_every: 0,
        };
        let c = clock.clone();
        let mut got = Vec::new();
        let mut c2 = cfg(1);
        c2.engine.duration_ns = None;
        // Stop after 7 min: windows 0–5 min and 5–7 min.
        let t = run_echo(&clock, &c2, 0, &mut peer, &|| c.now() >= 420 * S, &mut |w| got.push((w.count, w.lost)));
        assert_eq!(got, vec![(2_999, 1), (1_201, 0)]);
        assert_eq!(t.late_or_duplicate, 1, "the late reply came, after its window closed");
    }

    #[test]
    fn the_chains_second_level_counts_its_lateness_and_the_pulses_it_never_saw() {
        let e = EngineConfig {
            interval_ns: MS,
            window_ns: S,
            duration_ns: Some(3 * S),
            schedule: Schedule::parse("idle=1s,load=1s").unwrap(),
        };
        let mut l2 = ChainLevel2::new(&e, 0);
        let mut got = Vec::new();
        for k in 0..3000u64 {
            // Every 100th pulse coalesced with the next (never seen); 20 µs late, 300 µs once.
            if k % 100 == 99 {
                continue;
            }
            let late = if k == 1500 { 300_000 } else { 20_000 };
            l2.woke(k * MS, k * MS + late, &mut |w| got.push((w.state, w.count, w.missed, w.max_ns)));
        }
        let t = l2.finish(&mut |w| got.push((w.state, w.count, w.missed, w.max_ns)));
        // A pulse never seen is counted when the next one comes (the last one, never).
        assert_eq!(got, vec![("idle", 990, 9, 20_000), ("load", 990, 10, 300_000), ("idle", 990, 10, 20_000)]);
        assert_eq!((t.samples, t.missed, t.windows), (2970, 29, 3));
    }

    #[test]
    fn idle_gaps_over_the_threshold_are_counted_in_their_windows() {
        use std::cell::Cell;
        // A read every 1 µs; every 10,000th read 50 µs late (a gap), one 2 ms gap.
        let t = Cell::new(0u64);
        let n = Cell::new(0u64);
        let now = || {
            let k = n.get() + 1;
            n.set(k);
            let step = if k == 123_456 {
                2 * MS
            } else if k.is_multiple_of(10_000) {
                50_000
            } else {
                1_000
            };
            t.set(t.get() + step);
            t.get()
        };
        let e = EngineConfig { interval_ns: MS, window_ns: S, duration_ns: Some(3 * S), schedule: Schedule::default() };
        let mut got = Vec::new();
        let tot = run_idle(&now, &e, 10_000, 0, &|| false, &mut |w| got.push((w.start_ns, w.count, w.max_ns)));
        assert_eq!(got.len(), 3);
        assert!(got.windows(2).all(|p| p[0].0 + S == p[1].0));
        assert_eq!(got.iter().map(|w| w.1).sum::<u64>(), tot.samples);
        assert_eq!(got[0].2, 2 * MS, "the long gap is in the first second");
        assert!(got.iter().all(|w| w.1 > 10), "{got:?}");
    }
}
