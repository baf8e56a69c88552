//! Arguments of `latlab stall` (CPU, mem, net) and `latlab idle` (seed 003).

use super::{dur, duration_or_seconds, parse_duration_ns};
use clap::{Args, Subcommand};
use latlab_sys::spin::SpinSched;

/// `latlab stall`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct StallArgs {
    /// Another stall experiment instead of the CPU sweep.
    #[command(subcommand)]
    pub command: Option<StallCommand>,
    /// Spinning processes per level, comma-separated [each 0–256].
    #[arg(long, value_delimiter = ',', default_values_t = latlab_stall::defaults::CPU_LOADS)]
    pub loads: Vec<usize>,
    /// Schedulings of the load, comma-separated: other, batch, idle, niceN (other at nice N).
    #[arg(long, value_delimiter = ',', default_value = latlab_stall::defaults::CPU_POLICIES.join(","), value_parser = parse_spin)]
    pub policies: Vec<SpinSched>,
    /// Typing per level (`5s`; whole seconds) [at least 1s] [default: 5s].
    #[arg(long, value_parser = parse_duration_ns, value_name = "D")]
    pub duration: Option<u64>,
    /// The old spelling of --duration, in seconds.
    #[arg(long, hide = true, conflicts_with = "duration")]
    pub seconds: Option<f64>,
    /// Time between keys (the study: 50ms, key repeat at 20/s) [1ms–10s].
    #[arg(long, default_value = dur(latlab_stall::defaults::KEY_INTERVAL_NS), value_parser = parse_duration_ns)]
    pub interval: u64,
    /// Server CPU per key [shorter than --interval].
    #[arg(long, default_value = dur(latlab_stall::defaults::WORK_NS), value_parser = parse_duration_ns)]
    pub work: u64,
    /// Keep the probe's threads at the default policy instead of SCHED_FIFO.
    #[arg(long)]
    pub no_fifo: bool,
}

/// Subcommands of `latlab stall`.
#[derive(Debug, Subcommand)]
pub enum StallCommand {
    /// Round-trip time under network load (seed 003, Figure 6): two network namespaces
    /// joined by an HTB-shaped veth link, TCP load in both directions stepped from nothing
    /// to over the link rate, a UDP probe on absolute deadlines. Needs root (CAP_SYS_ADMIN)
    /// and iproute2; everything is removed afterwards.
    Net(StallNet),
    /// The warm-start test (seed 003, §4.2): an idle server's working set is paged out to
    /// swap, then one keystroke; the time until it answers, against a normal keystroke. With
    /// no swap on the machine, latlab (as root) makes a temporary swap file and removes it.
    Mem(StallMem),
    /// The warm start under real memory pressure (seed 003, §4.2): a server process and a
    /// memory hog inside one memory cgroup smaller than both, below and above 100 % demand;
    /// the time a key to the idle server takes. Needs root (memory cgroups) and swap (made as
    /// a temporary file when missing); the groups are removed afterwards.
    Pressure(StallPressure),
}

/// `latlab stall pressure`.
#[derive(Debug, Args)]
pub struct StallPressure {
    /// The memory group both run in, MiB [16–16384].
    #[arg(long, default_value_t = latlab_stall::defaults::PRESSURE_LIMIT_MIB)]
    pub limit: usize,
    /// The server's working set, MiB [1 to below --limit].
    #[arg(long, default_value_t = latlab_stall::defaults::PRESSURE_SERVER_MIB)]
    pub server: usize,
    /// Demand levels, server and hog together over the group, comma-separated [each 0.1–4].
    #[arg(long, value_delimiter = ',', default_value = latlab_stall::defaults::PRESSURE_DEMANDS.map(|d| d.to_string()).join(","))]
    pub demands: Vec<f64>,
    /// Keys per level [1 or more].
    #[arg(long, default_value_t = latlab_stall::defaults::PRESSURE_TRIALS)]
    pub trials: u32,
    /// Idle time before each key (`2s`) [0 or more].
    #[arg(long, value_parser = parse_duration_ns, value_name = "D",
          default_value = dur(latlab_stall::defaults::PRESSURE_IDLE_MS * 1_000_000))]
    pub idle: u64,
    /// Idle time before each key, ms: the old spelling of --idle (hidden, warned).
    #[arg(long, hide = true)]
    pub idle_ms: Option<u64>,
    /// Remedy: limit the hog's own group to this many MiB.
    #[arg(long)]
    pub hog_limit: Option<usize>,
    /// Remedy: protect this many MiB of the server's group (memory.low; cgroup v2 only) [0 to
    /// --limit].
    #[arg(long)]
    pub server_low: Option<usize>,
    /// Never make a temporary swap file.
    #[arg(long)]
    pub no_swapfile: bool,
    /// Directory for the temporary swap file (a disk-backed filesystem).
    #[arg(long, default_value = latlab_stall::defaults::SWAP_DIR)]
    pub swap_dir: std::path::PathBuf,
}

/// `latlab stall mem`.
#[derive(Debug, Args)]
pub struct StallMem {
    /// The server's working set, MiB [1–16384].
    #[arg(long, default_value_t = latlab_stall::defaults::MEM_WORKING_SET_MIB)]
    pub working_set: usize,
    /// Trials (a normal and a paged-out keystroke each) [1 or more].
    #[arg(long, default_value_t = latlab_stall::defaults::MEM_TRIALS)]
    pub trials: u32,
    /// Never make a temporary swap file.
    #[arg(long)]
    pub no_swapfile: bool,
    /// Directory for the temporary swap file (a disk-backed filesystem).
    #[arg(long, default_value = latlab_stall::defaults::SWAP_DIR)]
    pub swap_dir: std::path::PathBuf,
}

/// `latlab stall net`.
#[derive(Debug, Args)]
pub struct StallNet {
    /// Link rate in bit/s each way (the study: 10 Mbit/s Ethernet) [100000–10000000000].
    #[arg(long, default_value_t = latlab_stall::defaults::NET_RATE_BPS)]
    pub rate: u64,
    /// Offered load per step, fractions of the link, comma-separated [each 0–4].
    #[arg(long, value_delimiter = ',', default_value = latlab_stall::defaults::NET_LOADS.map(|l| l.to_string()).join(","))]
    pub loads: Vec<f64>,
    /// How long each step lasts (`5s`; whole seconds) [at least 1s].
    #[arg(long, value_parser = duration_or_seconds, value_name = "D",
          default_value = dur(latlab_stall::defaults::NET_STEP_SECONDS * 1_000_000_000))]
    pub step: u64,
    /// Time between probes [1ms–1s].
    #[arg(long, default_value = dur(latlab_stall::defaults::NET_PROBE_INTERVAL_NS), value_parser = parse_duration_ns)]
    pub probe_interval: u64,
    /// Bottleneck queue in packets (default: the kernel's, 1000 on veth) [1 or more].
    #[arg(long)]
    pub queue: Option<u32>,
    /// Times the saturating step (the first load above 1) runs, each with new flows; the
    /// row gives the spread of their means [1–20].
    #[arg(long, default_value_t = latlab_stall::defaults::NET_REPEATS)]
    pub repeats: u32,
}

/// `latlab idle`.
#[derive(Debug, Args)]
pub struct IdleArgs {
    /// How long each pass lasts (`10s`; whole seconds) [at least 1s] [default: 10s].
    #[arg(long, value_parser = parse_duration_ns, value_name = "D")]
    pub duration: Option<u64>,
    /// The old spelling of --duration, in seconds.
    #[arg(long, hide = true, conflicts_with = "duration")]
    pub seconds: Option<f64>,
    /// A gap longer than this is an interruption [above 0].
    #[arg(long, default_value = dur(latlab_stall::defaults::IDLE_THRESHOLD_NS), value_parser = parse_duration_ns)]
    pub threshold: u64,
    /// The CPU to watch (default: the last).
    #[arg(long)]
    pub cpu: Option<usize>,
    /// Measure a second pass while this shell command runs, and compare.
    #[arg(long)]
    pub with: Option<String>,
}

/// A load scheduling of `latlab stall`: other, batch, idle or niceN.
pub(crate) fn parse_spin(s: &str) -> Result<SpinSched, String> {
    latlab_stall::cpu::parse_sched(s)
        .ok_or_else(|| format!("'{s}' is not one of: other, batch, idle, niceN (N from -20 to 19)"))
}
