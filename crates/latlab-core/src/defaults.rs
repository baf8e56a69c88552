//! Every default latlab uses, in one place, each with the reason it has that value.

/// Database file when neither `--db` nor `LATLAB_DB` is given: in the current directory,
/// so a checkout's runs stay with it and nothing is written elsewhere unasked.
pub const DB_FILE: &str = "latlab.db";

/// Report file `latlab suite` writes: next to the database, one self-contained file.
pub const SUITE_REPORT: &str = "latlab-report.html";

/// Where a temporary swap file goes (`stall mem`, `display latency`'s `mem`): a disk-backed
/// directory, since tmpfs cannot hold swap.
pub const SWAP_DIR: &str = "/var/tmp";
/// Where latlab marks the kernel settings a run changed (RT throttling), with their old
/// values, until it puts them back: `/run`, a tmpfs emptied at boot, as the kernel's settings
/// are reset at boot, so a marker never outlives the change it records.
pub const SETTINGS_DIR: &str = "/run";

/// Real-time priority for measuring threads: 80, cyclictest's customary `-p80`. Threaded
/// IRQ handlers run at 50, so 80 preempts them, as seed 001's "ISR" level should.
pub const RT_PRIORITY: i32 = 80;

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

/// Busy-wait tail of the precise sleeper: 50 µs covers the wake-up latency of a typical
/// idle CPU, so the spin rarely starts late, and costs at most 5 % CPU at 1 kHz.
pub const SPIN_TAIL_NS: u64 = 50_000;

/// Timer slack asked for on measuring threads: 1 ns, the smallest the kernel accepts (0
/// means "reset to the default 50 µs").
pub const MEASURE_TIMER_SLACK_NS: u64 = 1;

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

/// A board with at most this many CPUs is small: the suite scales its short configurations
/// down (`Experiment::small`). One CPU shares everything with the load an experiment makes.
pub const SMALL_BOARD_CPUS: usize = 1;

/// A board with less memory than this is small too: the suite's largest run (display capacity,
/// 16 sessions) and the page-out experiments would crowd it.
pub const SMALL_BOARD_MEM_BYTES: u64 = 1 << 30;

/// glibc's malloc keeps up to this many arenas per CPU (its own default is 8 per CPU). Every
/// thread that ever allocated keeps free memory in its arena: with the default the suite's
/// display experiments left ~40 MB behind that `malloc_trim` could not hand back (measured:
/// 64 MB resident between experiments with the default, 27 MB with one per CPU). With one
/// arena per CPU, threads on different CPUs still allocate without waiting on each other.
pub const MALLOC_ARENAS_PER_CPU: usize = 1;
