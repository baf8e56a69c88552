//! Every default of latlab's output side (store, report, compare, tune), each with the reason it has that value.

/// Database file when neither `--db` nor `LATLAB_DB` is given: in the current directory,
/// so a checkout's runs stay with it and nothing is written elsewhere unasked.
pub const DB_FILE: &str = "latlab.db";

/// Report file `latlab suite` writes: next to the database, one self-contained file.
pub const SUITE_REPORT: &str = "latlab-report.html";

/// Bootstrap resamples in `latlab compare`: 1,000 gives 95 % bounds stable to a few
/// percent of their width (Efron & Tibshirani).
pub const BOOTSTRAP_RESAMPLES: usize = 1_000;

/// Largest set resampled by the bootstrap (bigger sets are thinned evenly): keeps `compare`
/// of two 10 M-sample runs to seconds.
pub const BOOTSTRAP_MAX_N: usize = 20_000;

/// Seed of the bootstrap generator, fixed so `compare` prints the same interval twice.
pub const BOOTSTRAP_SEED: u64 = 0x1a71ab;

/// Histogram bins in report plots: enough to show a tail's shape, few enough to read.
pub const REPORT_HIST_BINS: usize = 60;

/// Points per CDF or time-series curve in the report (series are thinned to this): keeps
/// the HTML file small (well under 1 MB per run) while tails stay visible.
pub const REPORT_CURVE_POINTS: usize = 2_000;

/// Hosts overlaid in one plot of the report's host comparison: as many as the plots have
/// colours (six), so no two hosts share one; the rest are in the table.
pub const REPORT_OVERLAY_HOSTS: usize = 6;

/// Hosts whose runs the report draws in full when runs of many hosts are reported: a fleet of
/// hundreds would make a file of hundreds of megabytes. The others are rows of the comparison
/// (`latlab report RUN` draws any one).
pub const REPORT_DETAIL_HOSTS: usize = 8;

/// The smallest change `latlab tune` calls an effect: 5 % of the baseline's percentile. With
/// thousands of samples a bootstrap interval excludes zero for shifts far below what anyone
/// feels or a rerun reproduces; 5 % is about the run-to-run spread of a p50 here.
pub const TUNE_MIN_EFFECT: f64 = 0.05;

/// Rounds of `latlab tune` (A B A B …): three pairs let drift show as disagreement between
/// rounds while keeping a remedy's A/B to minutes.
pub const TUNE_ROUNDS: usize = 3;

/// Seconds between a long run's checkpoints in the database: a kill or power cut loses at
/// most this much, and rewriting the run so far every 5 s costs a measuring process well
/// under 1 % of a core for runs of up to hours at 1 kHz (a checkpoint of 1 M samples is
/// ~3 MB written in ~20 ms, outside the timed threads).
pub const CHECKPOINT_SECS: f64 = 5.0;

/// Fewest samples in each run before `compare` may call a p99 difference significant: with
/// fewer than 100, a p99 is the maximum or next to it, one sample's luck.
pub const COMPARE_MIN_N_P99: usize = 100;
