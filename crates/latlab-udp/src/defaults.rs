//! Every default of `latlab udp` (seed 002), each with the reason it has that value.

/// Interval between packets: 1 ms, a fast isochronous stream (1,000 packets/s) whose timer
/// errors and bursts show within seconds; seed 002's own sender used 100 ms (see
/// [`STUDY_INTERVAL_NS`]).
pub const INTERVAL_NS: u64 = 1_000_000;

/// How long to send: 10 s = 10,000 packets at 1 ms, enough for a stable p99.
pub const DURATION_NS: u64 = 10_000_000_000;

/// Wait after the last send before counting a packet lost: 1 s, far above any loopback or
/// LAN round trip.
pub const WAIT_NS: u64 = 1_000_000_000;

/// Most replies per second a reflector sends one source: 200,000, well above the 100,000/s
/// of a 10 µs stream, so only a flood is limited.
pub const MAX_PPS_PER_SOURCE: u32 = 200_000;

/// Seed 002's sender interval: 100 ms.
pub const STUDY_INTERVAL_NS: u64 = 100_000_000;

/// Seed 002's three send intervals: 1,000, 500 and 100 ms, at which it found the same
/// release period. The suite's loopback run sends one stream at each beside its main stream.
pub const STUDY_SWEEP_INTERVALS_NS: [u64; 3] = [1_000_000_000, 500_000_000, 100_000_000];

/// Seed 002's hold-and-release period: the Omnia 7's gaps ([`crate::report::OMNIA_GAP_MS`]).
pub const STUDY_HOLD_EVERY_NS: u64 = crate::report::OMNIA_GAP_MS as u64 * 1_000_000;

/// Wait after the study pattern's last send: 2 s, longer than one release period.
pub const STUDY_WAIT_NS: u64 = 2_000_000_000;

/// The suite's loopback run: 5 s at 1 ms, enough for a p99 of RTT and timer error.
pub const SUITE_DURATION_NS: u64 = 5_000_000_000;

/// The suite's study-pattern run: 7.5 s = six releases, plus the wait to collect the last.
pub const SUITE_STUDY_DURATION_NS: u64 = 7_500_000_000;

/// The suite's loopback wait: 0.5 s, ample on loopback and short for the suite's budget.
pub const SUITE_WAIT_NS: u64 = 500_000_000;

/// How the loopback receiver plays packets out: by sender timestamp after an adaptive delay,
/// seed 002's proposed fix, measured live in every loopback run (`--playout arrival` plays
/// each packet as it arrives, the baseline `latlab tune playout` compares against).
pub const PLAYOUT: crate::playout::PlayoutMode = crate::playout::PlayoutMode::Adaptive;

/// The playout delay's shrink time constant: 30 s of sender time. Slow enough that a burst
/// pattern that returns every second or so (the study's 1.23 s) stays covered, fast enough
/// that a delay grown by one spike is mostly gone within a minute.
pub const PLAYOUT_SHRINK_TAU_NS: u64 = 30_000_000_000;

/// How far above a late packet's need the delay grows: 10 %, so that the next packet of the
/// same pattern, arriving a little later, is not late too.
pub const PLAYOUT_GROW_MARGIN: f64 = 0.10;

/// The padded stream of the suite's loopback run: datagrams of 1,200 bytes, dummy data after
/// the header, as seed 002 padded its datagrams "to artificially increase the message size";
/// under a 1,500-byte Ethernet MTU (1,472 bytes of UDP payload), so one datagram is still one
/// packet on a real link.
pub const PADDED_SIZE: usize = 1_200;
