//! Arguments of `latlab boot` and `latlab startup` (seed 004).

use super::{choice, dur, duration_or_seconds, parse_duration_ns};
use clap::{Args, Subcommand};
use latlab_startup::trace::TracerChoice;

/// `latlab boot`.
#[derive(Debug, Args)]
pub struct BootArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: BootCommand,
}

/// Subcommands of `latlab boot`.
#[derive(Debug, Subcommand)]
pub enum BootCommand {
    /// Read a boot trace — `xperf -a boot` XML, or `systemd-analyze blame` or
    /// `critical-chain` text — and show the services by cost, the total auto-start time, the
    /// critical path, and candidates to delay or disable with the reason for each.
    ///
    /// With `--run ID`, a boot that `latlab boot measure` stored is analysed instead: its
    /// median boot, the critical path, and its recommendations (delay, reorder, disable).
    #[command(override_usage = "latlab boot analyze <FILE>\n       latlab boot analyze --run <ID>")]
    Analyze {
        /// The trace file.
        #[arg(required_unless_present = "run", conflicts_with = "run")]
        file: Option<std::path::PathBuf>,
        /// A stored `boot measure` run to analyse instead of a file.
        #[arg(long, value_name = "ID")]
        run: Option<i64>,
    },
    /// Run a boot for real: the services of a `latlab.boot/1` file (TOML or JSON; none: the
    /// built-in boot) in dependency order, cold (their files evicted), warm, and cold with
    /// the boot plan prefetched; time to target, each service's start and ready times, the
    /// critical path. Every service is stopped and reaped at the end.
    Measure {
        /// The boot file; none: the built-in boot (latlab's own file-heavy services).
        file: Option<std::path::PathBuf>,
        /// Rounds (each a cold, a warm and a prefetched boot) [1 or more].
        #[arg(long, default_value_t = latlab_startup::defaults::BOOT_RUNS)]
        runs: usize,
        /// Prefetch threads [1 or more].
        #[arg(long, default_value_t = latlab_startup::defaults::prefetch_threads())]
        threads: usize,
        /// Work out recommendations (delay what the target does not need, start its needs
        /// first) from a boot, and measure the boot with them applied in every round: the
        /// time to target before and after.
        #[arg(long)]
        apply_recommendations: bool,
        /// Also measure cold and prefetched boots, and the random-read rate, with reads from
        /// the boot's disk throttled to this many MB/s (a blkio/io control group; root): a
        /// device short of bandwidth.
        #[arg(long, value_name = "MB_PER_S")]
        throttle_mbps: Option<f64>,
        /// The same with reads throttled to this many requests per second: a device slow at
        /// random access, like the rotating disk Superfetch was made for (about 100-200).
        #[arg(long, value_name = "READS_PER_S")]
        throttle_iops: Option<u64>,
    },
}

/// `latlab startup`.
#[derive(Debug, Args)]
pub struct StartupArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: StartupCommand,
}

/// Subcommands of `latlab startup`.
#[derive(Debug, Subcommand)]
pub enum StartupCommand {
    /// Learn a launch plan: trace which files the launch opens, in order (fanotify as root,
    /// ptrace otherwise), then evict them, launch again and read which page ranges of each
    /// it read (mincore). Writes the plan file and stores it in the database.
    Record(StartupRecord),
    /// Launch time cold (the plan's files evicted, file by file), warm, and cold + prefetch
    /// (the plan replayed on parallel threads while the command starts); medians, spread,
    /// speedups and device facts. Learns the plan first unless given one.
    Measure(StartupMeasure),
    /// Disk I/O per process (bytes and calls read and written, major faults) of everything
    /// alive while the command runs, costliest first.
    Io(StartupIo),
    /// Superfetch proper: a library of launch plans ranked by how often and how recently
    /// each command was launched, preloaded into the page cache while the machine is idle.
    Preload(PreloadArgs),
    /// The built-in file-heavy application that `--builtin` launches (internal).
    #[command(hide = true)]
    FixtureApp {
        /// Its data directory.
        dir: std::path::PathBuf,
    },
}

/// How to launch the command and when it is ready (shared by the startup subcommands).
#[derive(Debug, Args)]
pub struct LaunchArgs {
    /// Ready when a line of the command's output (stdout or stderr) matches this regular
    /// expression (default: when it exits, with status 0).
    #[arg(long, value_name = "REGEX", conflicts_with = "port")]
    pub ready: Option<String>,
    /// Ready when a TCP connect to 127.0.0.1:PORT succeeds.
    #[arg(long)]
    pub port: Option<u16>,
    /// Longest one launch may take (`2m`, `30s`; a bare number, the old spelling, is seconds)
    /// [default: 2m].
    #[arg(long, value_name = "D")]
    pub timeout: Option<String>,
    /// The command and its arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// `latlab startup record`.
#[derive(Debug, Args)]
pub struct StartupRecord {
    /// Launch and readiness.
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// Tracer: auto (fanotify, else ptrace), fanotify or ptrace.
    #[arg(long, value_parser = choice::<TracerChoice>(), default_value = "auto")]
    pub tracer: TracerChoice,
    /// Where to write the plan (JSON, `latlab.plan/1`).
    #[arg(long, short = 'o', default_value = latlab_startup::defaults::PLAN_FILE)]
    pub output: std::path::PathBuf,
    /// Record latlab's built-in file-heavy launch instead of a command (its data set written
    /// to /var/tmp and removed afterwards): shows which files the tracer sees, in order, on a
    /// machine with nothing else to launch.
    #[arg(long)]
    pub builtin: bool,
}

/// `latlab startup measure`.
#[derive(Debug, Args)]
pub struct StartupMeasure {
    /// Launch and readiness.
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// A plan file from `startup record`.
    #[arg(long, conflicts_with = "plan_run")]
    pub plan: Option<std::path::PathBuf>,
    /// The plan stored with this `startup record` run [a stored run number, 1 or more].
    #[arg(long)]
    pub plan_run: Option<i64>,
    /// Launches per state [1 or more].
    #[arg(long, default_value_t = latlab_startup::defaults::RUNS)]
    pub runs: usize,
    /// Prefetch threads (default: one per two CPUs) [1 or more].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Also measure cold + whole-file prefetch (each plan file read whole), against the
    /// plan's page ranges.
    #[arg(long)]
    pub whole: bool,
    /// Tracer for learning the plan when none is given.
    #[arg(long, value_parser = choice::<TracerChoice>(), default_value = "auto")]
    pub tracer: TracerChoice,
    /// Measure the built-in file-heavy launch (a data set written to /var/tmp and removed
    /// afterwards) instead of a command.
    #[arg(long, conflicts_with_all = ["plan", "plan_run"])]
    pub builtin: bool,
}

/// `latlab startup io`.
#[derive(Debug, Args)]
pub struct StartupIo {
    /// Launch and readiness (the scenario ends at readiness).
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// Time between reads of every process's counters (`50ms`; whole milliseconds)
    /// [at least 1ms] [default: 50ms].
    #[arg(long, value_parser = super::parse_duration_ns, value_name = "D")]
    pub interval: Option<u64>,
    /// The old spelling of --interval, in milliseconds.
    #[arg(long, hide = true, conflicts_with = "interval")]
    pub interval_ms: Option<u64>,
    /// Processes shown (the totals count all) [0 or more].
    #[arg(long, default_value_t = latlab_startup::defaults::IO_TOP)]
    pub top: usize,
    /// Observe the built-in file-heavy launch (a data set written to /var/tmp, evicted so it
    /// is read from the disk, and removed afterwards) instead of a command: the suite's run.
    #[arg(long)]
    pub builtin: bool,
}

/// `latlab startup preload`.
#[derive(Debug, Args)]
pub struct PreloadArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: PreloadCommand,
}

/// Subcommands of `latlab startup preload`.
#[derive(Debug, Subcommand)]
pub enum PreloadCommand {
    /// Launch a command through the library and count the launch: its plan is learned the
    /// first time (or when one of its files changed), as Superfetch learns each launch.
    Launch {
        /// The library file (`latlab.preload/1`, JSON; created if missing).
        #[arg(long, default_value = latlab_startup::defaults::PRELOAD_LIBRARY)]
        library: std::path::PathBuf,
        /// Tracer for learning the plan: auto (fanotify, else ptrace), fanotify or ptrace.
        #[arg(long, value_parser = choice::<TracerChoice>(), default_value = "auto")]
        tracer: TracerChoice,
        /// Launch and readiness.
        #[command(flatten)]
        launch: LaunchArgs,
    },
    /// The library's commands by rank: decayed launch count, launches, last launch, plan size.
    List {
        /// The library file.
        #[arg(long, default_value = latlab_startup::defaults::PRELOAD_LIBRARY)]
        library: std::path::PathBuf,
    },
    /// One preloader pass: wait until the machine is idle, then read the top plans into the
    /// page cache within the budget, pausing whenever it is busy.
    Run {
        /// The library file.
        #[arg(long, default_value = latlab_startup::defaults::PRELOAD_LIBRARY)]
        library: std::path::PathBuf,
        /// Most MiB read (default: a quarter of the memory available now) [0 or more].
        #[arg(long)]
        budget_mib: Option<u64>,
        /// Plans read at most, from the top.
        #[arg(long, default_value_t = latlab_startup::defaults::PRELOAD_TOP)]
        top: usize,
        /// Idle: everything else uses less than this share of all CPUs (1: read now, never
        /// wait) [above 0, at most 1].
        #[arg(long, default_value_t = latlab_startup::defaults::PRELOAD_IDLE_BELOW)]
        idle_below: f64,
        /// How often idleness is judged (`250ms`) [at least 1ms].
        #[arg(long, value_parser = parse_duration_ns, value_name = "D",
              default_value = dur(latlab_startup::defaults::PRELOAD_CHECK_MS * 1_000_000))]
        check_every: u64,
        /// How often idleness is judged, ms: the old spelling of --check-every (hidden, warned).
        #[arg(long, hide = true)]
        check_ms: Option<u64>,
        /// Longest wait for idleness in all before giving up (`60s`) [0 or more].
        #[arg(long, value_parser = duration_or_seconds, value_name = "D",
              default_value = dur(latlab_startup::defaults::PRELOAD_GIVE_UP_S * 1_000_000_000))]
        give_up: u64,
        /// Keep running as a service: a pass every D (`1h`), the library reread each time, until
        /// Ctrl-C (default: one pass) [at least 1s].
        #[arg(long, value_parser = duration_or_seconds, value_name = "D")]
        every: Option<u64>,
    },
    /// Measure it: built-in applications learned into a library; each round, a launch of the
    /// top-ranked one after memory pressure evicted it, without and with the preloader having
    /// run, then warm.
    Measure {
        /// Rounds [1 or more].
        #[arg(long, default_value_t = latlab_startup::defaults::PRELOAD_RUNS)]
        runs: usize,
        /// Built-in applications in the library [1 or more].
        #[arg(long, default_value_t = latlab_startup::defaults::PRELOAD_APPS)]
        apps: usize,
        /// Idle: everything else uses less than this share of all CPUs [above 0, at most 1].
        #[arg(long, default_value_t = latlab_startup::defaults::PRELOAD_IDLE_BELOW)]
        idle_below: f64,
    },
}
