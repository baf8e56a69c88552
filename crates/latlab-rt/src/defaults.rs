//! Every default of `latlab rt` (seed 001), each with the reason it has that value.

/// Stimulus period: 200 µs = 5 kHz, the paper's test rate for its latency figures
/// ("comfortably less than saturation").
pub const PERIOD_NS: u64 = 200_000;

/// Length of each phase (unloaded, loaded): 5 s at 5 kHz = 25,000 pulses, enough for a
/// stable p99.9.
pub const PHASE_NS: u64 = 5_000_000_000;

/// Phase length in `suite`: 3 s each keeps the whole rt entry near 20 s.
pub const SUITE_PHASE_NS: u64 = 3_000_000_000;

/// How level 2 and the load share their priority: round-robin, both real-time just below
/// level 1. Seed 001's APP_TEST ran at the highest thread priority (`CeSetThreadPriority(h,
/// 0)`, quantum 0) and Polygons "at top priority", contending with it "at the highest
/// priority level"; CE shares one priority round-robin, as SCHED_RR does (Linux's slice is
/// 100 ms, CE's default quantum too). `fifo` and `other` are the rest of the matrix.
pub const ARBITRATION: crate::arbitration::Arbitration = crate::arbitration::Arbitration::Rr;

/// Level 2's real-time priority below level 1's: one, so level 1 always preempts it and
/// nothing else of latlab's sits between them.
pub const L2_BELOW_L1: i32 = 1;

/// Polygons workers: one, pinned with both levels to one CPU, as the paper's
/// single-CPU StrongARM board had it; otherwise the load would simply run on another core
/// and never contend.
pub const LOAD_WORKERS: usize = 1;

/// The default load's slice: each Polygons worker draws for 50 µs, then rests. In the seed,
/// level 2 waiting behind Polygons ran "about 100 microseconds after interrupt" inside a
/// 133 µs back wall on a 206 MHz StrongARM: Polygons gave the CPU back within about 100 µs.
/// A CPU of today draws a polygon in a few µs, so a slice of tens of µs keeps the load's hold
/// on the CPU inside the seed's back wall while it still takes most of the CPU.
pub const LOAD_DRAW_NS: u64 = 50_000;

/// The default load's rest after each slice: 10 µs of sleep, so every lower scheduling class
/// (the fair scheduler's kernel threads, which the fair server would otherwise run by
/// holding every real-time thread) gets the CPU in the gaps; the load still takes about
/// five sixths of the CPU, "a far more intensive load than most" applications, as the seed
/// says of Polygons.
pub const LOAD_REST_NS: u64 = 10_000;

/// RT throttling during the loaded phase and the sweeps: lifted (as root), so the figures
/// show the scheduler's priorities rather than the kernel's RT bandwidth limit, which the
/// seed's CE did not have ("the load from Polygons had no effect on the interrupt-linked
/// processing at all"). `--rt-throttling keep` shows the throttling instead.
pub const THROTTLING: crate::throttle::Throttling = crate::throttle::Throttling::Lift;

/// Time the load runs alone to measure its unloaded progress rate (the SF baseline).
pub const LOAD_BASELINE_NS: u64 = 1_000_000_000;

/// Sweep: first rate. 1 kHz is an ordinary control-loop rate every machine meets.
pub const SWEEP_START_HZ: f64 = 1_000.0;

/// Sweep: geometric factor between steps; ×2 finds each threshold within a factor of two
/// in few steps (the paper's own figures are that coarse).
pub const SWEEP_FACTOR: f64 = 2.0;

/// Sweep: highest rate tried, 256 kHz — twice the paper's best MF-ISR (127 kHz).
pub const SWEEP_MAX_HZ: f64 = 256_000.0;

/// Sweep: duration of each step; 1 s at 1 kHz is 1,000 pulses, enough to see a 0.1 % miss.
pub const SWEEP_STEP_NS: u64 = 1_000_000_000;

/// Sweep step in `suite`: 0.5 s.
pub const SUITE_SWEEP_STEP_NS: u64 = 500_000_000;

/// A level "misses" at a rate when more than this fraction of pulses went unserved, and more
/// than one (the paper says "any" pulse; 0.1 % ignores one stray miss in a thousand, and one
/// stray miss is ignored in a step shorter than a thousand pulses too).
pub const MISS_THRESHOLD: f64 = 0.001;

/// Saturation: the load's progress fell below this fraction of its unloaded rate ("the
/// system can no longer run Polygons").
pub const SF_PROGRESS_FRACTION: f64 = 0.05;

/// Smallest share of a phase's samples a latency mode must hold to be reported: 2 %, so the
/// seed's early peaks (a few percent of APP starts each) count and scattered noise does not.
pub const MODE_MIN_SHARE: f64 = 0.02;

/// Buckets of the cyclictest-format histogram, in µs (cyclictest's `-h` takes the same).
pub const CYCLICTEST_HIST_US: usize = 1000;

/// `rt doctor`'s gap detector: 4 s in all, the loop running 0.5 s of every 1 s window, gaps
/// over 10 µs — hwlatdetect's window, width and threshold, over long enough to catch a
/// periodic SMI or a host's slice, and well under RT throttling's budget (the loop never runs
/// long enough to be held).
pub const HWLAT_NS: u64 = 4_000_000_000;
/// See [`HWLAT_NS`].
pub const HWLAT_WINDOW_NS: u64 = 1_000_000_000;
/// See [`HWLAT_NS`].
pub const HWLAT_WIDTH_NS: u64 = 500_000_000;
/// See [`HWLAT_NS`].
pub const HWLAT_THRESHOLD_NS: u64 = 10_000;

/// `rt doctor`'s A/B of each toggle: phases of 1 s (5,000 wake-ups at 5 kHz, a p99 from 50
/// samples above it) in 3 rounds (2 give `latlab tune` an interval, but with one degree of
/// freedom it is too wide to tell a 25 µs saving here), so the four toggles take about a
/// minute and a half.
pub const DOCTOR_PHASE_NS: u64 = 1_000_000_000;
/// See [`DOCTOR_PHASE_NS`].
pub const DOCTOR_ROUNDS: usize = 3;
