//! Every default of latlab's model (the experiment contract), each with the reason it has that value.

/// A board with at most this many CPUs is small: the suite scales its short configurations
/// down (`Experiment::small`). One CPU shares everything with the load an experiment makes.
pub const SMALL_BOARD_CPUS: usize = 1;

/// A board with less memory than this is small too: the suite's largest run (display capacity,
/// 16 sessions) and the page-out experiments would crowd it.
pub const SMALL_BOARD_MEM_BYTES: u64 = 1 << 30;

// ---- worst case with a stated confidence (`stats::extreme`) -------------------

/// Fewest samples above the tail's threshold: 100, so that after declustering enough
/// independent exceedances remain for a two-parameter fit whose interval is of use.
pub const EVT_MIN_EXCEEDANCES: usize = 100;
/// Most samples above the threshold: about √n, up to 1,000; a lower threshold reaches into the
/// body of the distribution, where a generalized Pareto tail no longer holds.
pub const EVT_MAX_EXCEEDANCES: usize = 1_000;
/// Fewest clusters fitted: 50; with fewer, a shape parameter's interval spans heavy and
/// bounded tails alike, and the estimate says nothing.
pub const EVT_MIN_CLUSTERS: usize = 50;
/// Samples at or below the threshold that end a cluster: 10, 10 ms at the monitor's 1 kHz
/// probe; a stall delays the wake-ups right after it, not ten periods on.
pub const EVT_CLUSTER_RUN: usize = 10;
/// Bootstrap resamples of the goodness-of-fit test: 99, a p-value to 1 %, enough to judge at
/// 5 %, in well under a second.
pub const EVT_RESAMPLES: usize = 99;
/// A fit is refused when its shape ξ reaches 1: a tail with an infinite mean, which no
/// latency has (a 1 s loaded phase of `latlab rt`, observed maximum 47.5 µs, fitted ξ = 2.1
/// and put its worst case per hour at 80,845 s); below it, heavy tails are fitted.
pub const EVT_MAX_SHAPE: f64 = 1.0;
/// A fit is refused when its goodness-of-fit p-value is below 5 %.
pub const EVT_FIT_ALPHA: f64 = 0.05;
/// The bootstrap's seed: fixed, so the same run gives the same verdict.
pub const EVT_SEED: u64 = 0x1a71_ab00_e7e4_0042;
/// The worst case per hour `rt` and `monitor` report: the latency exceeded on average once an
/// hour (in a given hour with probability 63 %), the rarity `worst.rs` checks a long run against.
pub const WORST_PER_HOUR: f64 = 1.0;
/// The furthest a worst case per hour is extrapolated: an hour at most 100× the data's span
/// (36 s of samples). A peaks-over-threshold fit's return levels stay within their interval a
/// decade or two past the data; beyond, the interval is the fit's assumption, not the machine
/// (a 2 s run said "729 ms per hour" with an interval up to 115 s).
pub const WORST_MAX_EXTRAPOLATION: f64 = 100.0;

/// Most rounds an A/B takes (`latlab tune`, `rt doctor`): 100 (200 runs of an experiment:
/// hours; more is a typo).
pub const AB_MAX_ROUNDS: usize = 100;
