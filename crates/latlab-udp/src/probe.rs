//! The prober (`latlab udp probe`, and the sending half of the loopback run): sends
//! datagrams on absolute deadlines `start + k·interval` and collects the reflector's replies
//! on a second thread until an explicit wait time after the last send (RFC 7680's loss
//! threshold). Both record into preallocated per-sequence arrays.

use crate::analysis::Trace;
use latlab_sys::clock::{MonotonicClock, Timebase, monotonic_now, unix_now_ns};
use latlab_sys::interrupt::stop_requested;
use latlab_sys::slots::Slots;
use latlab_udp_probe::socket::{TimestampedSocket, cmsg_buffer};
use latlab_udp_probe::wire::{self, Packet};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Below this interval the sender spins the last part of each wait (precision over CPU).
const SPIN_BELOW_NS: u64 = 1_000_000;
/// Spin tail used then.
const SPIN_TAIL_NS: u64 = 50_000;
/// Lead between starting and the first packet.
const LEAD_NS: u64 = 20_000_000;

/// Prober settings.
#[derive(Debug, Clone)]
pub struct ProbeConfig {
    /// Where to send.
    pub target: SocketAddr,
    /// Interval between packets, ns.
    pub interval_ns: u64,
    /// Packets to send.
    pub count: usize,
    /// Requested datagram size, bytes.
    pub size: usize,
    /// Shared key (HMAC-SHA256).
    pub key: Option<Vec<u8>>,
    /// How long to keep listening after the last send, ns.
    pub wait_ns: u64,
    /// Sender and reflector share a clock (loopback).
    pub same_clock: bool,
}

/// What the prober counted besides the trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeCounts {
    /// sendto failures.
    pub send_errors: u64,
    /// Deadlines the sender overran (it sent late rather than skip).
    pub timer_missed: u64,
    /// Datagrams that were not valid replies (dropped).
    pub malformed: u64,
    /// Replies with a bad or missing MAC (dropped).
    pub unauthenticated: u64,
    /// Valid replies for sequence numbers never sent (dropped).
    pub foreign: u64,
    /// Stopped by Ctrl-C.
    pub interrupted: bool,
    /// Timer slack the sending thread ran with, ns.
    pub timer_slack_ns: Option<u64>,
}

/// What the two threads write per packet, readable while they run (a checkpoint).
struct Shared {
    sent_mono: Slots,
    sent_wall: Slots,
    rx_client: Slots,
    refl_rx: Slots,
    refl_tx: Slots,
    send_call: Slots,
    /// Packets sent so far (published after their slots).
    sent: AtomicU64,
}

impl Shared {
    fn new(n: usize) -> Self {
        let z = || Slots::new(n, 0);
        Self {
            sent_mono: z(),
            sent_wall: z(),
            rx_client: z(),
            refl_rx: z(),
            refl_tx: z(),
            send_call: z(),
            sent: AtomicU64::new(0),
        }
    }
    /// The first `n` packets as a trace.
    fn trace(&self, n: usize, cfg: &ProbeConfig, start: u64) -> Trace {
        let mut t = Trace::with_capacity(0, cfg.interval_ns, start, cfg.same_clock);
        t.sent_mono = self.sent_mono.snapshot(n).into_iter().map(|v| v as u64).collect();
        t.sent_wall = self.sent_wall.snapshot(n);
        t.rx_client = self.rx_client.snapshot(n);
        t.refl_rx = self.refl_rx.snapshot(n);
        t.refl_tx = self.refl_tx.snapshot(n);
        t.send_call = self.send_call.snapshot(n);
        t
    }
}

/// Who looks at a probe while it runs: every `every`, `look` gets the trace of the packets
/// whose fate is known (sent more than the loss wait ago). The watching thread takes the
/// snapshot; sender and receiver never wait for it.
pub struct Watch<'a> {
    /// Interval between looks.
    pub every: std::time::Duration,
    /// Called with the trace so far.
    pub look: &'a mut (dyn FnMut(Trace) + Send),
}

struct Replies {
    duplicates: u64,
    malformed: u64,
    unauthenticated: u64,
    foreign: u64,
}

fn receive(sock: &TimestampedSocket, cfg: &ProbeConfig, done_at: &AtomicU64, sh: &Shared) -> std::io::Result<Replies> {
    let n = cfg.count;
    let mut r = Replies { duplicates: 0, malformed: 0, unauthenticated: 0, foreign: 0 };
    let mut buf = vec![0u8; wire::MAX_SIZE + 64];
    let mut cmsg = cmsg_buffer();
    let key = cfg.key.as_deref();
    loop {
        let d = done_at.load(Ordering::Acquire);
        if d != 0 {
            let wait = if stop_requested() { cfg.wait_ns.min(200_000_000) } else { cfg.wait_ns };
            if monotonic_now() > d + wait {
                break;
            }
        }
        let Some(got) = sock.recv(&mut buf, &mut cmsg)? else { continue };
        match wire::decode(&buf[..got.len], key) {
            Ok(p) if p.kind == wire::KIND_REPLY && got.from == cfg.target => {
                let k = p.seq as usize;
                if k >= n {
                    r.foreign += 1;
                } else if sh.rx_client.get(k) != 0 {
                    r.duplicates += 1;
                } else {
                    sh.refl_rx.set(k, p.refl_rx_ns);
                    sh.refl_tx.set(k, p.refl_tx_ns);
                    sh.rx_client.set(k, got.kernel_rx_ns);
                }
            }
            Err(wire::WireError::Auth) => r.unauthenticated += 1,
            Ok(_) => r.foreign += 1,
            Err(_) => r.malformed += 1,
        }
    }
    Ok(r)
}

/// Send `count` probes and collect the replies. Progress counts packets sent.
pub fn run(cfg: &ProbeConfig, progress: &AtomicU64) -> std::io::Result<(Trace, ProbeCounts)> {
    run_watched(cfg, progress, None)
}

/// [`run`], with a [`Watch`] called while it runs.
pub fn run_watched(
    cfg: &ProbeConfig,
    progress: &AtomicU64,
    watch: Option<Watch<'_>>,
) -> std::io::Result<(Trace, ProbeCounts)> {
    let bind: SocketAddr = if cfg.target.is_ipv6() { "[::]:0".parse().unwrap() } else { "0.0.0.0:0".parse().unwrap() };
    let sock = Arc::new(TimestampedSocket::bind(bind)?);
    let done_at = Arc::new(AtomicU64::new(0));
    let len = wire::datagram_len(cfg.size, cfg.key.is_some());
    let clock = if cfg.interval_ns < SPIN_BELOW_NS {
        MonotonicClock::with_spin_tail(SPIN_TAIL_NS.min(cfg.interval_ns))
    } else {
        MonotonicClock::new()
    };
    // The sender is the calling thread: 1 ns timer slack, so sleeps end on time.
    let slack = latlab_sys::clock::set_timer_slack(latlab_sys::defaults::MEASURE_TIMER_SLACK_NS).ok();
    let sh = Shared::new(cfg.count);
    let start = clock.now() + LEAD_NS;
    let (replies, mut counts) = std::thread::scope(|s| {
        let rx = {
            let (sock, done_at, sh) = (sock.clone(), done_at.clone(), &sh);
            s.spawn(move || receive(&sock, cfg, &done_at, sh))
        };
        let (stop_watch, watching) = std::sync::mpsc::channel::<()>();
        if let Some(w) = watch {
            let sh = &sh;
            s.spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = watching.recv_timeout(w.every) {
                    // Packets whose loss wait has passed: their fate is known.
                    let sent = sh.sent.load(Ordering::Acquire) as usize;
                    let known = monotonic_now().saturating_sub(cfg.wait_ns);
                    let n = (0..sent).rev().find(|&k| sh.sent_mono.get(k) as u64 <= known).map_or(0, |k| k + 1);
                    (w.look)(sh.trace(n, cfg, start));
                }
            });
        }
        let mut counts = ProbeCounts::default();
        let mut buf = vec![0u8; len];
        let key = cfg.key.as_deref();
        let mut prev = 0u64;
        for k in 0..cfg.count {
            if stop_requested() {
                counts.interrupted = true;
                break;
            }
            // Prepare what is known before sleeping; only the send times come after.
            let planned = start + k as u64 * cfg.interval_ns;
            let mut p = Packet { kind: wire::KIND_PROBE, seq: k as u64, planned_ns: planned, ..Packet::default() };
            let t = clock.sleep_until(planned);
            let wall = unix_now_ns();
            p.sent_mono_ns = t;
            p.sent_wall_ns = wall;
            p.prev_gap_ns = if prev == 0 { 0 } else { t - prev };
            wire::encode(&p, &mut buf, key);
            let called = clock.now();
            if sock.send_to(&buf, cfg.target).is_err() {
                counts.send_errors += 1;
            }
            sh.send_call.set(k, clock.now().saturating_sub(called) as i64);
            if t > planned + cfg.interval_ns {
                counts.timer_missed += 1;
            }
            sh.sent_mono.set(k, t as i64);
            sh.sent_wall.set(k, wall);
            sh.sent.store(k as u64 + 1, Ordering::Release);
            prev = t;
            progress.fetch_add(1, Ordering::Relaxed);
        }
        done_at.store(monotonic_now(), Ordering::Release);
        let replies = rx.join().expect("receiver thread panicked");
        drop(stop_watch);
        (replies, counts)
    });
    let r = replies?;
    let mut trace = sh.trace(cfg.count, cfg, start);
    trace.duplicates = r.duplicates;
    counts.malformed = r.malformed;
    counts.unauthenticated = r.unauthenticated;
    counts.foreign = r.foreign;
    counts.timer_slack_ns = slack;
    Ok((trace, counts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflector::{self, ReflectorConfig};

    #[test]
    fn loopback_probe_collects_every_reply() {
        for (bind, key) in [("127.0.0.1:0", None), ("127.0.0.1:0", Some(b"k".to_vec())), ("[::1]:0", None)] {
            let Ok(refl) =
                reflector::spawn(bind.parse().unwrap(), ReflectorConfig { key: key.clone(), ..Default::default() })
            else {
                eprintln!("note: {bind} not available here; skipping");
                continue;
            };
            let cfg = ProbeConfig {
                target: refl.addr,
                interval_ns: 1_000_000,
                count: 50,
                size: 100,
                key,
                wait_ns: 300_000_000,
                same_clock: true,
            };
            let p = AtomicU64::new(0);
            let (t, c) = run(&cfg, &p).unwrap();
            assert_eq!(t.sent(), 50);
            let got = t.rx_client.iter().filter(|&&x| x != 0).count();
            // Every reply counted came from the reflector, and some came.
            assert!(got > 0 && got as u64 <= refl.stats.snapshot().1, "{c:?}");
            assert_eq!((c.malformed, c.unauthenticated, c.foreign), (0, 0, 0));
            assert!(t.refl_rx.iter().zip(&t.rx_client).all(|(a, b)| (*a == 0) == (*b == 0)));
        }
    }
}
