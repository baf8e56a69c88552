//! Every default of `latlab selftest`, each with the reason it has that value.

/// Sleep-accuracy sample count per case in `selftest`: 2,000 wake-ups give a stable p99 and
/// a visible tail while keeping the 1 ms case to 2 s.
pub const SELFTEST_SLEEP_SAMPLES: usize = 2_000;

/// Sleep-accuracy sample count per case in `suite`'s short selftest: 1 ms × 1,000 = 1 s per
/// case keeps the whole selftest near 10 s, well inside the suite's 3-minute budget.
pub const SUITE_SLEEP_SAMPLES: usize = 1_000;

/// Clock reads in the read-cost measurement: 1 M reads take ~20–50 ms and average out
/// caching effects; a series of 100 k consecutive-read deltas is stored for the report.
pub const CLOCK_READS: usize = 1_000_000;

/// Stored consecutive clock-read deltas.
pub const CLOCK_DELTA_SAMPLES: usize = 100_000;

/// Periods swept by `selftest` for the sleep-accuracy curve: from the 1 ms of an ordinary
/// tick-rate loop down to 50 µs, where seed 001's 5 kHz test (200 µs) sits in between.
pub const SELFTEST_SWEEP_PERIODS_NS: [u64; 5] = [1_000_000, 500_000, 200_000, 100_000, 50_000];

/// The verdict's line for sub-millisecond figures: when a 100 µs wake-up (the best scheduling
/// granted) is late by at most this at p99, lateness is a tenth of a millisecond or less, and
/// figures of a few hundred µs (seed 001's 200 µs period) are not blurred by the timer itself.
pub const VERDICT_FINE_P99_NS: f64 = 100_000.0;

/// The verdict's line for millisecond figures: past this p99 lateness even a millisecond figure
/// carries the timer's own error (a stalled or heavily shared machine).
pub const VERDICT_COARSE_P99_NS: f64 = 1_000_000.0;

/// A clock is coarse past this resolution or read cost: a timestamp then costs or rounds more
/// than the microsecond latlab reports in.
pub const VERDICT_CLOCK_NS: f64 = 1_000.0;
