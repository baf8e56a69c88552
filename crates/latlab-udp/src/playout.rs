//! The live playout buffer seed 002 proposed: the receiver plays each packet at its sender
//! timestamp plus an adaptive delay, instead of when it happens to arrive. [`Scheduler`] is
//! the rule (pure: it is given times, so it is tested on made-up arrivals); [`Player`] is the
//! thread that sleeps until each packet's playout time on absolute deadlines and records when
//! it actually played, so that the smoothness gained and the latency paid are measured, not
//! computed.
//!
//! The rule: the clock offset is the smallest `arrival − sent` seen (no clock sync needed);
//! a packet's need is how much later than that it arrived. It plays at `sent + offset +
//! delay`. A packet whose need exceeds the delay arrives after its playout time: it is late
//! and is not played (a late sample is useless to a player), and the delay grows at once to
//! its need plus a margin. Otherwise the delay shrinks slowly toward the packet's need, with
//! a time constant of sender time, so a burst pattern that comes back is still covered.

use latlab_sys::clock::{clock_nanosleep_abs, monotonic_now};
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

/// How the receiver plays packets out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayoutMode {
    /// Each packet as soon as it arrives (no buffer: what the seed's app did).
    Arrival,
    /// By sender timestamp after an adaptive delay (the seed's proposal).
    Adaptive,
}

impl PlayoutMode {
    /// Its name on the command line and in records.
    pub fn name(self) -> &'static str {
        match self {
            PlayoutMode::Arrival => "arrival",
            PlayoutMode::Adaptive => "adaptive",
        }
    }
}

impl latlab_model::experiment::Choice for PlayoutMode {
    fn names() -> Vec<&'static str> {
        vec!["adaptive", "arrival"]
    }
    fn from_choice(s: &str) -> Option<Self> {
        [PlayoutMode::Adaptive, PlayoutMode::Arrival].into_iter().find(|m| m.name() == s)
    }
}

/// What the scheduler decided for one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Play at this time (receiver clock).
    At(i64),
    /// Arrived this long after its playout time: not played.
    Late(i64),
}

/// The adaptive playout rule.
#[derive(Debug, Clone)]
pub struct Scheduler {
    mode: PlayoutMode,
    offset: Option<i64>,
    delay: i64,
    last_sent: Option<i64>,
    tau_ns: f64,
    margin: f64,
}

impl Scheduler {
    /// A scheduler in `mode`, with the delay's shrink time constant and growth margin.
    pub fn new(mode: PlayoutMode, tau_ns: u64, margin: f64) -> Self {
        Self { mode, offset: None, delay: 0, last_sent: None, tau_ns: tau_ns.max(1) as f64, margin }
    }

    /// The current playout delay above the fastest packet, ns.
    pub fn delay(&self) -> i64 {
        self.delay
    }

    /// Decide for a packet sent at `sent` (sender clock) that arrived at `arrival` (receiver
    /// clock).
    pub fn schedule(&mut self, sent: i64, arrival: i64) -> Slot {
        if self.mode == PlayoutMode::Arrival {
            return Slot::At(arrival);
        }
        let offset = *self.offset.insert(self.offset.map_or(arrival - sent, |o| o.min(arrival - sent)));
        let need = arrival - sent - offset;
        let due = sent + offset + self.delay;
        let dt = self.last_sent.map_or(0, |l| (sent - l).max(0));
        self.last_sent = Some(self.last_sent.map_or(sent, |l| l.max(sent)));
        if arrival > due {
            self.delay = (need as f64 * (1.0 + self.margin)).ceil() as i64;
            return Slot::Late(arrival - due);
        }
        // Shrink toward this packet's need (never below it), by the sender time elapsed.
        let k = (dt as f64 / self.tau_ns).min(1.0);
        self.delay -= ((self.delay - need) as f64 * k) as i64;
        Slot::At(due)
    }
}

/// One packet as the player saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// Sequence number.
    pub seq: u64,
    /// Sender's send time (its clock).
    pub sent: i64,
    /// When it arrived at the receiver.
    pub arrival: i64,
    /// When it was played (`None`: late, not played).
    pub play: Option<i64>,
}

/// What the player returns when the stream ends.
#[derive(Debug, Clone, Default)]
pub struct PlayoutLog {
    /// Every packet handed to the player, in arrival order.
    pub packets: Vec<Played>,
    /// Packets the receive thread could not hand over (the player's queue was full).
    pub overflowed: u64,
    /// The delay when the stream ended, ns.
    pub final_delay: i64,
    /// The largest delay used, ns.
    pub max_delay: i64,
}

/// A packet handed to the player: sequence number, sender's send time, arrival time.
type Arrival = (u64, i64, i64);

/// The player's end of the tap: the receive thread calls [`Tap::arrived`] for each packet.
#[derive(Clone)]
pub struct Tap {
    tx: SyncSender<Arrival>,
    overflow: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl std::fmt::Debug for Tap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tap")
    }
}

impl Tap {
    /// A packet `seq` sent at `sent` (sender clock) arrived now. Never blocks: a full queue
    /// is counted.
    pub fn arrived(&self, seq: u64, sent: i64) {
        let now = monotonic_now() as i64;
        if let Err(TrySendError::Full(_)) = self.tx.try_send((seq, sent, now)) {
            self.overflow.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// The playout thread.
pub struct Player {
    handle: JoinHandle<PlayoutLog>,
    overflow: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Player {
    /// Start a player for up to `capacity` packets (its log is allocated now, not while
    /// playing). The stream ends when every [`Tap`] is dropped.
    pub fn spawn(mut scheduler: Scheduler, capacity: usize) -> std::io::Result<(Player, Tap)> {
        // Queued packets: a second of the study's 100 ms stream's bursts is a dozen; at 1 ms
        // a 1.23 s hold is about 1,230. The queue holds both with room.
        let (tx, rx) = sync_channel::<Arrival>(16_384);
        let overflow = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let handle = std::thread::Builder::new().name("latlab-udp-playout".into()).spawn(move || {
            // Wake at the playout time, not up to the default 50 µs after it (a refusal
            // leaves the default; the latency series then carries it).
            let _ = latlab_sys::clock::set_timer_slack(1);
            let mut log = PlayoutLog { packets: Vec::with_capacity(capacity), ..PlayoutLog::default() };
            while let Ok((seq, sent, arrival)) = rx.recv() {
                let play = match scheduler.schedule(sent, arrival) {
                    Slot::At(t) => {
                        if t > 0 {
                            clock_nanosleep_abs(t as u64);
                        }
                        Some(monotonic_now() as i64)
                    }
                    Slot::Late(_) => None,
                };
                log.max_delay = log.max_delay.max(scheduler.delay());
                if log.packets.len() < log.packets.capacity() {
                    log.packets.push(Played { seq, sent, arrival, play });
                }
            }
            log.final_delay = scheduler.delay();
            log
        })?;
        Ok((Player { handle, overflow: overflow.clone() }, Tap { tx, overflow }))
    }

    /// Wait for the stream to end (every tap dropped) and take the log.
    pub fn finish(self) -> PlayoutLog {
        let mut log = self.handle.join().unwrap_or_default();
        log.overflowed = self.overflow.load(std::sync::atomic::Ordering::Relaxed);
        log
    }
}

/// The figures of a playout log: (jitter, latency) samples and late count. Jitter is each
/// pair of consecutive played packets' playout gap against their send gap, absolute; latency
/// is play time − send time (meaningful where both ends share a clock: loopback).
pub fn figures(log: &PlayoutLog) -> (Vec<i64>, Vec<i64>, usize) {
    let played: Vec<(u64, i64, i64)> = log.packets.iter().filter_map(|p| Some((p.seq, p.sent, p.play?))).collect();
    let latency = played.iter().map(|&(_, sent, play)| play - sent).collect();
    (gap_errors(&played), latency, log.packets.len() - played.len())
}

/// The arrival jitter of the same packets (consecutive arrivals' gap against their send gap,
/// absolute): what playing on arrival would have given, from the same log.
pub fn arrival_jitter(log: &PlayoutLog) -> Vec<i64> {
    let arrived: Vec<(u64, i64, i64)> = log.packets.iter().map(|p| (p.seq, p.sent, p.arrival)).collect();
    gap_errors(&arrived)
}

/// For consecutive (seq, sent, at) in order of `at`'s taking, with the sequence rising: the
/// gap between their `at`s against the gap between their sends, absolute.
fn gap_errors(v: &[(u64, i64, i64)]) -> Vec<i64> {
    v.windows(2).filter(|w| w[1].0 > w[0].0).map(|w| ((w[1].2 - w[0].2) - (w[1].1 - w[0].1)).abs()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    /// A 100 ms stream held and released every 1.2 s (the study's pattern): each packet
    /// arrives at the next release.
    fn held(n: i64) -> Vec<(i64, i64)> {
        (0..n)
            .map(|k| {
                let sent = k * 100 * MS;
                let release = (sent / (1200 * MS) + 1) * 1200 * MS;
                (sent, release + 50_000)
            })
            .collect()
    }

    #[test]
    fn on_arrival_plays_at_once_and_never_late() {
        let mut s = Scheduler::new(PlayoutMode::Arrival, 30_000 * MS as u64, 0.1);
        for (sent, arr) in held(50) {
            assert_eq!(s.schedule(sent, arr), Slot::At(arr));
        }
    }

    #[test]
    fn a_held_stream_grows_the_delay_to_the_hold_then_plays_smoothly() {
        let mut s = Scheduler::new(PlayoutMode::Adaptive, 30_000 * MS as u64, 0.1);
        let slots: Vec<(i64, Slot)> = held(240).into_iter().map(|(sent, arr)| (sent, s.schedule(sent, arr))).collect();
        let late = slots.iter().filter(|x| matches!(x.1, Slot::Late(_))).count();
        // Late at first (learning the hold), then rarely: the delay shrinks slowly.
        assert!((1..=8).contains(&late), "{late} late");
        assert!(slots[120..].iter().filter(|x| matches!(x.1, Slot::Late(_))).count() <= 3);
        // The delay covers the longest hold (1.1 s above the fastest packet) with its margin.
        assert!(s.delay() >= 1000 * MS && s.delay() <= 1300 * MS, "{}", s.delay());
        // Played packets are spaced as they were sent, within the slow shrink (under 5 % of
        // the 100 ms send gap); only a growth after a late packet jumps.
        let on: Vec<(i64, i64)> = slots[120..]
            .iter()
            .filter_map(|(sent, x)| match x {
                Slot::At(t) => Some((*sent, *t)),
                Slot::Late(_) => None,
            })
            .collect();
        let uneven = on.windows(2).filter(|w| ((w[1].1 - w[0].1) - (w[1].0 - w[0].0)).abs() > 5 * MS).count();
        assert!(uneven <= 3, "{uneven} uneven gaps");
    }

    #[test]
    fn a_steady_path_keeps_the_delay_near_zero_and_clock_offsets_do_not_matter() {
        // Sender and receiver clocks 5 s apart; 1 ms stream, 30 ± 10 µs transit.
        let mut s = Scheduler::new(PlayoutMode::Adaptive, 30_000 * MS as u64, 0.1);
        let mut late = 0;
        for k in 0..5000i64 {
            let sent = k * MS;
            let arr = 5_000 * MS + sent + 30_000 + (k * 7919 % 20_000) - 10_000;
            if let Slot::Late(_) = s.schedule(sent, arr) {
                late += 1;
            }
        }
        assert!(s.delay() <= 25_000, "delay {} ns", s.delay());
        assert!(late < 50, "{late}");
    }

    #[test]
    fn the_player_plays_on_its_deadlines_and_the_log_gives_the_figures() {
        let (player, tap) = Player::spawn(Scheduler::new(PlayoutMode::Arrival, 1, 0.1), 10).unwrap();
        let t0 = monotonic_now() as i64;
        for k in 0..5u64 {
            tap.arrived(k, t0 + k as i64 * 1000);
        }
        drop(tap);
        let log = player.finish();
        assert_eq!(log.packets.len(), 5);
        assert!(log.packets.iter().all(|p| p.play.is_some_and(|t| t >= p.arrival)));
        let (jitter, latency, late) = figures(&log);
        assert_eq!((jitter.len(), latency.len(), late), (4, 5, 0));
        assert_eq!(arrival_jitter(&log).len(), 4);
        // Made-up log: one late packet, one played 2 ms off its spacing.
        let p = |seq, sent, arrival, play| Played { seq, sent, arrival, play };
        let log = PlayoutLog {
            packets: vec![p(0, 0, 5, Some(10)), p(1, 100, 300, None), p(2, 200, 210, Some(2_000_210))],
            ..PlayoutLog::default()
        };
        let (jitter, latency, late) = figures(&log);
        assert_eq!((jitter, latency, late), (vec![2_000_000], vec![10, 2_000_010], 1));
        assert_eq!(arrival_jitter(&log), vec![195, 190]);
    }
}
