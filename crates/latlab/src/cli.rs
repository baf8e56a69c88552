//! The command line (clap derive). Only the binary knows clap; each subcommand converts its
//! arguments into the configuration of the experiment that runs it. Defaults shown in
//! `--help` come from each experiment's own `Default` configuration; enumerated options
//! list their choices, and a bad value exits 2 before anything runs.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use latlab_core::experiment::Choice;
use latlab_core::platform::Policy;
use latlab_core::spin::SpinSched;
use latlab_display::policy::PolicyKind;
use latlab_display::wire::{Codec, Crypto};
use latlab_display::workload::WorkloadKind;
use latlab_rdp::CompressionType;
use latlab_rdp::corpus::Corpus;
use latlab_rt::signal::SignalKind;
use latlab_startup::trace::TracerChoice;
use std::path::PathBuf;

/// A value parser over named choices: the names are listed in `--help` and in the error a
/// bad value gets (exit 2).
pub fn named<T: Clone + Send + Sync + 'static>(
    names: Vec<&'static str>,
    from: fn(&str) -> Option<T>,
) -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(names).map(move |s| from(&s).expect("clap accepted only listed names"))
}

/// [`named`] for a library's [`Choice`] type.
pub fn choice<T: Choice>() -> impl TypedValueParser<Value = T> {
    named(T::names(), T::from_choice)
}

/// A duration in the form `--help` shows and [`parse_duration_ns`] reads back (`1ms`, `10s`).
pub fn dur(ns: u64) -> String {
    humantime::format_duration(std::time::Duration::from_nanos(ns)).to_string()
}

/// latlab — measure what users of interactive and embedded systems feel.
#[derive(Debug, Parser)]
#[command(name = "latlab", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// SQLite database holding the runs.
    #[arg(long, global = true, env = "LATLAB_DB", default_value = latlab_core::defaults::DB_FILE)]
    pub db: PathBuf,

    /// Fail (exit 3) instead of warning when the machine refuses a requested capability
    /// (real-time priority, memory locking, cpu_dma_latency, …).
    #[arg(long, global = true)]
    pub strict: bool,

    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run every registered experiment with short defaults, store the runs, write the HTML
    /// report and print a summary with the papers' figures beside this machine's.
    Suite(SuiteArgs),
    /// Measure how far this machine's clock and timers can be trusted, and what scheduling
    /// it grants. Stored as a run.
    Selftest(SelftestArgs),
    /// Wake-up chain determinism (seed 001): a periodic stimulus wakes level 1 (SCHED_FIFO,
    /// the ISR analog), which signals level 2 (normal priority, the APP analog); unloaded
    /// and under load. `latlab rt sweep` finds the maximum and saturation frequencies.
    Rt(Box<RtArgs>),
    /// Isochronous UDP interval timing (seed 002): sender on absolute deadlines, reflector
    /// with kernel timestamps; loss, reordering, IPDV, RTT, burst detection (packets held
    /// and released together) and the de-jitter cost. Loopback by default.
    Udp(Box<UdpArgs>),
    /// RDP bulk compression (MPPC 8K/64K, NCRUSH, XCRUSH) and interleaved RLE on files, and
    /// their throughput on built-in corpora of display-update PDUs.
    Codec(CodecArgs),
    /// Remote display (seeds 000, 003): a server and client on RDP's mechanisms; the
    /// bitmap-cache cliff with eviction policies against Belady's optimum.
    Display(DisplayArgs),
    /// Interactive latency under CPU load (seed 003, §4): a typing probe (a key every
    /// 50 ms) against a small server doing 1 ms of work per key, while N spinning processes
    /// run at a chosen policy; echo latency, stalls and time spent waiting per load level.
    Stall(StallArgs),
    /// Lost time on an idle system (seed 003, §3.1, Endo's method): a lowest-priority thread
    /// records every interval taken from it; optionally again while a command runs.
    Idle(IdleArgs),
    /// Boot traces (seed 004): where a boot's time went.
    Boot(BootArgs),
    /// Application start-up (seed 004): learn a launch plan (the files and page ranges a
    /// launch reads), measure cold, warm and cold + prefetch launches, and summarize the
    /// disk I/O per process of a scenario.
    Startup(StartupArgs),
    /// List stored runs, newest first.
    Runs(RunsArgs),
    /// Show one stored run as a Markdown summary.
    Show(ShowArgs),
    /// Render stored runs into one self-contained HTML report (nothing is re-measured).
    Report(ReportArgs),
    /// Export a stored run as JSON (the whole record), CSV (raw samples) or Markdown.
    Export(ExportArgs),
    /// Compare two stored runs: median and p99 differences with 95% bootstrap intervals.
    Compare(CompareArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(CompletionsArgs),
    /// Write latlab's man pages (one per subcommand) into a directory.
    Man(ManArgs),
}

/// `latlab completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    pub shell: clap_complete::Shell,
}

/// `latlab man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Directory to write `latlab.1`, `latlab-rt.1`, … into (created if missing).
    #[arg(short, long, default_value = ".")]
    pub output: PathBuf,
}

/// `latlab suite`.
#[derive(Debug, Args)]
pub struct SuiteArgs {
    /// Where to write the HTML report.
    #[arg(short, long, default_value = latlab_core::defaults::SUITE_REPORT)]
    pub output: PathBuf,
    /// Run only these experiments (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
}

/// `latlab selftest`.
#[derive(Debug, Args)]
pub struct SelftestArgs {
    /// Wake-ups per sleep-accuracy case.
    #[arg(long, default_value_t = latlab_core::selftest::SelftestConfig::default().sleep_samples)]
    pub samples: usize,
    /// SCHED_FIFO priority to ask for (1–99).
    #[arg(long, default_value_t = latlab_core::selftest::SelftestConfig::default().fifo_priority)]
    pub fifo_priority: i32,
    /// Leave /dev/cpu_dma_latency at the system default instead of holding it at 0.
    #[arg(long)]
    pub no_dma_latency: bool,
    /// Do not lock memory (mlockall).
    #[arg(long)]
    pub no_mlock: bool,
}

/// `latlab rt`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct RtArgs {
    /// `sweep`, or nothing for the unloaded and loaded phases.
    #[command(subcommand)]
    pub command: Option<RtCommand>,
    /// Options of the phases.
    #[command(flatten)]
    pub common: RtCommon,
    /// Stimulus period of the phases (e.g. 200us, 1ms); the default is the paper's 5 kHz.
    #[arg(long, value_parser = parse_duration_ns, conflicts_with = "rate", default_value = dur(latlab_rt::defaults::PERIOD_NS))]
    pub period: u64,
    /// Stimulus rate of the phases in Hz (instead of --period).
    #[arg(long)]
    pub rate: Option<f64>,
    /// Length of each phase (e.g. 5s).
    #[arg(long, value_parser = parse_duration_ns, default_value = dur(latlab_rt::defaults::PHASE_NS))]
    pub duration: u64,
    /// Output: a Markdown summary, or cyclictest's `-h` histogram text (columns: unloaded
    /// L1, unloaded L2, loaded L1, loaded L2) for scripts written for cyclictest.
    #[arg(long, value_enum, default_value_t = HistogramFormat::Markdown)]
    pub histogram_format: HistogramFormat,
}

/// What `latlab rt` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HistogramFormat {
    /// The run's Markdown summary.
    Markdown,
    /// cyclictest's `-h` histogram text.
    Cyclictest,
}

/// Subcommands of `latlab rt`.
#[derive(Debug, Subcommand)]
pub enum RtCommand {
    /// Raise the stimulus rate geometrically under load; find MF-L1, MF-L2 (a level misses
    /// more than the threshold of pulses) and SF (the load's progress falls below a fraction
    /// of its unloaded rate) — the paper's Figure 8.
    Sweep(RtSweepArgs),
}

/// `latlab rt sweep`.
#[derive(Debug, Args)]
pub struct RtSweepArgs {
    /// Options shared with the phases.
    #[command(flatten)]
    pub common: RtCommon,
    /// First rate, Hz.
    #[arg(long, default_value_t = latlab_rt::defaults::SWEEP_START_HZ)]
    pub start: f64,
    /// Factor between rates (> 1).
    #[arg(long, default_value_t = latlab_rt::defaults::SWEEP_FACTOR)]
    pub factor: f64,
    /// Highest rate, Hz.
    #[arg(long, default_value_t = latlab_rt::defaults::SWEEP_MAX_HZ)]
    pub max: f64,
    /// Duration of each step (e.g. 1s, 500ms).
    #[arg(long, value_parser = parse_duration_ns, default_value = dur(latlab_rt::defaults::SWEEP_STEP_NS))]
    pub step: u64,
    /// A level misses at a rate when more than this fraction of pulses went unserved.
    #[arg(long, default_value_t = latlab_rt::defaults::MISS_THRESHOLD)]
    pub miss_threshold: f64,
    /// Saturation: the load's progress below this fraction of its unloaded rate.
    #[arg(long, default_value_t = latlab_rt::defaults::SF_PROGRESS_FRACTION)]
    pub sf_fraction: f64,
}

/// Options of both `latlab rt` and `latlab rt sweep`.
#[derive(Debug, Args)]
pub struct RtCommon {
    /// Level 1 scheduling policy.
    #[arg(long, value_parser = choice::<Policy>(), default_value = latlab_rt::config::RtConfig::default().l1.policy.name())]
    pub l1_policy: Policy,
    /// Level 1 real-time priority (1–99).
    #[arg(long, default_value_t = latlab_rt::config::RtConfig::default().l1.priority)]
    pub l1_priority: i32,
    /// Level 2 scheduling policy.
    #[arg(long, value_parser = choice::<Policy>(), default_value = latlab_rt::config::RtConfig::default().l2.policy.name())]
    pub l2_policy: Policy,
    /// Level 2 real-time priority (for fifo/rr, 1–99).
    #[arg(long, default_value_t = latlab_rt::defaults::L2_RT_PRIORITY)]
    pub l2_priority: i32,
    /// How level 1 wakes level 2 (none: level 1 only).
    #[arg(long, value_parser = choice::<SignalKind>(), default_value = latlab_rt::config::RtConfig::default().signal.name())]
    pub signal: SignalKind,
    /// Pin level 1, level 2 and the load to this CPU (default: the last CPU).
    #[arg(long)]
    pub cpu: Option<usize>,
    /// Pin level 1 to this CPU (overrides --cpu).
    #[arg(long)]
    pub l1_cpu: Option<usize>,
    /// Pin level 2 to this CPU (overrides --cpu).
    #[arg(long)]
    pub l2_cpu: Option<usize>,
    /// Pin the load's workers to these CPUs (comma-separated; overrides --cpu).
    #[arg(long, value_delimiter = ',')]
    pub load_cpus: Option<Vec<usize>>,
    /// Pin nothing.
    #[arg(long, conflicts_with_all = ["cpu", "l1_cpu", "l2_cpu", "load_cpus"])]
    pub no_pin: bool,
    /// Load: none, `polygons[:N[:POLICY:PRIO]]` (default polygons:1 at level 2's priority), or
    /// cmd:'COMMAND'.
    #[arg(long, default_value = "polygons", value_parser = |s: &str| s.parse::<latlab_rt::config::LoadSpec>())]
    pub load: latlab_rt::config::LoadSpec,
    /// Leave /dev/cpu_dma_latency at the system default.
    #[arg(long)]
    pub no_dma_latency: bool,
    /// Do not lock memory.
    #[arg(long)]
    pub no_mlock: bool,
}

/// A load scheduling of `latlab stall`: other, batch, idle or niceN.
fn parse_spin(s: &str) -> Result<SpinSched, String> {
    latlab_stall::cpu::parse_sched(s)
        .ok_or_else(|| format!("'{s}' is not one of: other, batch, idle, niceN (N from -20 to 19)"))
}

/// Parse a duration such as `200us`, `1ms`, `5s` into nanoseconds.
pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    let d = humantime::parse_duration(s).map_err(|e| format!("'{s}' is not a duration like 200us, 1ms or 5s: {e}"))?;
    u64::try_from(d.as_nanos()).map_err(|_| format!("'{s}' is too long"))
}

/// `latlab udp`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct UdpArgs {
    /// `serve`, `probe`, `relay`, or nothing for a loopback run.
    #[command(subcommand)]
    pub command: Option<UdpCommand>,
    /// Sending options.
    #[command(flatten)]
    pub send: UdpSend,
    /// Use IPv6 loopback (::1).
    #[arg(long)]
    pub ipv6: bool,
    /// Put an impairment relay between sender and reflector: hold and release every D.
    #[arg(long, value_parser = parse_duration_ns)]
    pub relay_hold_every: Option<u64>,
    /// Relay: fixed extra delay.
    #[arg(long, value_parser = parse_duration_ns)]
    pub relay_delay: Option<u64>,
    /// Relay: uniform extra delay up to D.
    #[arg(long, value_parser = parse_duration_ns)]
    pub relay_jitter: Option<u64>,
    /// Relay: drop this fraction of packets (0–1).
    #[arg(long)]
    pub relay_loss: Option<f64>,
}

/// Options of a sending run (`latlab udp` and `latlab udp probe`).
#[derive(Debug, Args)]
pub struct UdpSend {
    /// Interval between packets (10us … 60s).
    #[arg(long, default_value = dur(latlab_udp::defaults::INTERVAL_NS), value_parser = parse_duration_ns)]
    pub interval: u64,
    /// How long to send.
    #[arg(long, default_value = dur(latlab_udp::defaults::DURATION_NS), value_parser = parse_duration_ns)]
    pub duration: u64,
    /// Datagram size in bytes (at least the 64-byte header).
    #[arg(long, default_value_t = latlab_udp::defaults::SIZE)]
    pub size: usize,
    /// How long to wait for replies after the last send before counting loss.
    #[arg(long, default_value = dur(latlab_udp::defaults::WAIT_NS), value_parser = parse_duration_ns)]
    pub wait: u64,
    /// Shared key for HMAC-SHA256 on every packet (both ends must use it).
    #[arg(long, env = "LATLAB_UDP_KEY", hide_env_values = true)]
    pub key: Option<String>,
}

/// Subcommands of `latlab udp`.
#[derive(Debug, Subcommand)]
pub enum UdpCommand {
    /// Run a reflector for probes from other hosts (until Ctrl-C).
    Serve(UdpServeArgs),
    /// Probe a reflector on another host.
    Probe(UdpProbeArgs),
    /// A deterministic impairment relay: delay, jitter, loss, rate, hold-and-release.
    Relay(UdpRelayArgs),
}

/// `latlab udp serve`.
#[derive(Debug, Args)]
pub struct UdpServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = format!("0.0.0.0:{}", latlab_udp::defaults::PORT))]
    pub bind: String,
    /// Shared key: only probes with a valid HMAC-SHA256 are answered.
    #[arg(long, env = "LATLAB_UDP_KEY", hide_env_values = true)]
    pub key: Option<String>,
    /// Most replies per second to one source.
    #[arg(long, default_value_t = latlab_udp::defaults::MAX_PPS_PER_SOURCE)]
    pub max_pps_per_source: u32,
}

/// `latlab udp probe`.
#[derive(Debug, Args)]
pub struct UdpProbeArgs {
    /// The reflector: HOST or HOST:PORT (default port 4848); IPv6 as `[ADDR]:PORT`.
    pub host: String,
    /// Sending options.
    #[command(flatten)]
    pub send: UdpSend,
}

/// `latlab udp relay`.
#[derive(Debug, Args)]
pub struct UdpRelayArgs {
    /// Address clients send to.
    #[arg(long)]
    pub listen: String,
    /// Address datagrams are forwarded to.
    #[arg(long)]
    pub to: String,
    /// Fixed extra delay.
    #[arg(long, value_parser = parse_duration_ns)]
    pub delay: Option<u64>,
    /// Uniform extra delay up to D.
    #[arg(long, value_parser = parse_duration_ns)]
    pub jitter: Option<u64>,
    /// Drop this fraction of packets (0–1).
    #[arg(long, default_value_t = latlab_udp::relay::Impairment::default().loss)]
    pub loss: f64,
    /// Rate limit in bits per second.
    #[arg(long)]
    pub rate: Option<u64>,
    /// Hold everything and release it every D (seed 002's pattern: 1.23s).
    #[arg(long, value_parser = parse_duration_ns)]
    pub hold_every: Option<u64>,
    /// Seed of the random decisions.
    #[arg(long, default_value_t = latlab_udp::relay::Impairment::default().seed)]
    pub seed: u64,
}

/// `latlab stall`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct StallArgs {
    /// Another stall experiment instead of the CPU sweep.
    #[command(subcommand)]
    pub command: Option<StallCommand>,
    /// Spinning processes per level, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = latlab_stall::defaults::CPU_LOADS)]
    pub loads: Vec<usize>,
    /// Schedulings of the load, comma-separated: other, batch, idle, niceN (other at nice N).
    #[arg(long, value_delimiter = ',', default_value = latlab_stall::defaults::CPU_POLICIES.join(","), value_parser = parse_spin)]
    pub policies: Vec<SpinSched>,
    /// Seconds of typing per level.
    #[arg(long, default_value_t = latlab_stall::defaults::SECONDS)]
    pub seconds: u64,
    /// Time between keys (the study: 50ms, key repeat at 20/s).
    #[arg(long, default_value = dur(latlab_stall::defaults::KEY_INTERVAL_NS), value_parser = parse_duration_ns)]
    pub interval: u64,
    /// Server CPU per key.
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
}

/// `latlab stall mem`.
#[derive(Debug, Args)]
pub struct StallMem {
    /// The server's working set, MiB.
    #[arg(long, default_value_t = latlab_stall::defaults::MEM_WORKING_SET_MIB)]
    pub working_set: usize,
    /// Trials (a normal and a paged-out keystroke each).
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
    /// Link rate in bit/s each way (the study: 10 Mbit/s Ethernet).
    #[arg(long, default_value_t = latlab_stall::defaults::NET_RATE_BPS)]
    pub rate: u64,
    /// Offered load per step, fractions of the link, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = latlab_stall::defaults::NET_LOADS.map(|l| l.to_string()).join(","))]
    pub loads: Vec<f64>,
    /// Seconds per step.
    #[arg(long, default_value_t = latlab_stall::defaults::NET_STEP_SECONDS)]
    pub step: u64,
    /// Time between probes.
    #[arg(long, default_value = dur(latlab_stall::defaults::NET_PROBE_INTERVAL_NS), value_parser = parse_duration_ns)]
    pub probe_interval: u64,
    /// Bottleneck queue in packets (default: the kernel's, 1000 on veth).
    #[arg(long)]
    pub queue: Option<u32>,
}

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
    Analyze {
        /// The trace file.
        file: std::path::PathBuf,
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
    /// Longest one launch may take, seconds.
    #[arg(long, default_value_t = latlab_startup::defaults::TIMEOUT_S)]
    pub timeout: f64,
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
    /// The plan stored with this `startup record` run.
    #[arg(long)]
    pub plan_run: Option<i64>,
    /// Launches per state.
    #[arg(long, default_value_t = latlab_startup::defaults::RUNS)]
    pub runs: usize,
    /// Prefetch threads (default: one per two CPUs).
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
    /// Time between reads of every process's counters, ms.
    #[arg(long, default_value_t = latlab_startup::defaults::IO_INTERVAL_MS)]
    pub interval_ms: u64,
    /// Processes shown (the totals count all).
    #[arg(long, default_value_t = latlab_startup::defaults::IO_TOP)]
    pub top: usize,
}

/// `latlab idle`.
#[derive(Debug, Args)]
pub struct IdleArgs {
    /// Seconds per pass.
    #[arg(long, default_value_t = latlab_stall::defaults::IDLE_SECONDS)]
    pub seconds: u64,
    /// A gap longer than this is an interruption.
    #[arg(long, default_value = dur(latlab_stall::defaults::IDLE_THRESHOLD_NS), value_parser = parse_duration_ns)]
    pub threshold: u64,
    /// The CPU to watch (default: the last).
    #[arg(long)]
    pub cpu: Option<usize>,
    /// Measure a second pass while this shell command runs, and compare.
    #[arg(long)]
    pub with: Option<String>,
}

/// `latlab display`.
#[derive(Debug, Args)]
pub struct DisplayArgs {
    /// What to run.
    #[command(subcommand)]
    pub command: DisplayCommand,
}

/// Subcommands of `latlab display`.
#[derive(Debug, Subcommand)]
pub enum DisplayCommand {
    /// The bitmap-cache cliff: a looping animation swept across the 64×64 cache's capacity,
    /// bytes per policy (LRU, FIFO, SIEVE, S3-FIFO, ARC, LIRS, and the optimum), then the
    /// banner + ticker pair.
    Cache(DisplayCache),
    /// Traffic per user operation (typing, mouse, menus, scrolling, caret, banner, ticker,
    /// screensaver, animation, slide show): control and display bytes and packets per second,
    /// packet sizes, and TCP/IP/Ethernet header overhead, beside seed 003's figures.
    Ops(DisplayOps),
    /// Client CPU per stage (receive, decrypt, decompress, decode, cache, blit) for the
    /// animated slide show and other workloads over TCP on real time; the throughput limit;
    /// frames dropped by a slower client; sweeps over compression, encryption, orders,
    /// receive buffer and threshold (seed 000).
    Pipeline(DisplayPipeline),
    /// Serve display sessions over TCP to `latlab display view HOST` clients.
    Serve(DisplayServe),
    /// Run one session as the client: against `latlab display serve` on HOST, or with no
    /// HOST against an in-process server over loopback.
    View(DisplayView),
}

/// `latlab display pipeline`.
#[derive(Debug, Args)]
pub struct DisplayPipeline {
    /// The suite's short version (about 25 s) instead of the full one (about 2.5 minutes).
    #[arg(long)]
    pub short: bool,
    /// Seconds of the main slide-show run.
    #[arg(long)]
    pub seconds: Option<u64>,
}

/// `latlab display serve`.
#[derive(Debug, Args)]
pub struct DisplayServe {
    /// Address to listen on (loopback unless you choose otherwise).
    #[arg(long, default_value_t = format!("127.0.0.1:{}", latlab_display::defaults::PORT))]
    pub listen: String,
    /// Serve one connection, then exit.
    #[arg(long)]
    pub once: bool,
}

/// `latlab display view`.
#[derive(Debug, Args)]
pub struct DisplayView {
    /// Server HOST or HOST:PORT; none: an in-process server over loopback.
    pub host: Option<String>,
    /// The workload.
    #[arg(long, value_parser = choice::<WorkloadKind>(), default_value = latlab_display::defaults::VIEW_WORKLOAD)]
    pub workload: WorkloadKind,
    /// Seconds to run.
    #[arg(long, default_value_t = latlab_display::defaults::VIEW_SECONDS)]
    pub seconds: u64,
    /// Bulk compression.
    #[arg(long, value_parser = choice::<Codec>(), default_value = latlab_display::defaults::VIEW_CODEC)]
    pub codec: Codec,
    /// Encryption.
    #[arg(long, value_parser = choice::<Crypto>(), default_value = latlab_display::defaults::VIEW_CRYPTO)]
    pub crypto: Crypto,
    /// Bitmap updates instead of orders and the bitmap cache.
    #[arg(long)]
    pub bitmaps: bool,
    /// Receive buffer, bytes (seed 000: 64 KB default, try up to 1 MB).
    #[arg(long, default_value_t = latlab_display::defaults::RCVBUF)]
    pub rcvbuf: usize,
    /// Receive threshold, bytes (seed 000: 2 KB default, up to 5 % of the buffer).
    #[arg(long, default_value_t = latlab_display::defaults::RCV_THRESHOLD)]
    pub threshold: usize,
    /// Client CPU speed as a fraction of this one's (emulated), e.g. 0.13 for 233 MHz vs 1.8 GHz.
    #[arg(long, default_value_t = latlab_display::net::ViewConfig::default().speed)]
    pub speed: f64,
    /// Frames back to back instead of on real time (the throughput limit).
    #[arg(long)]
    pub flat_out: bool,
    /// Check the screens are equal after every frame, not only at the end.
    #[arg(long)]
    pub check_frames: bool,
    /// Screen width.
    #[arg(long, default_value_t = latlab_display::defaults::WIDTH)]
    pub width: usize,
    /// Screen height.
    #[arg(long, default_value_t = latlab_display::defaults::HEIGHT)]
    pub height: usize,
    /// Colour depth: 8, 16 or 24.
    #[arg(long, default_value_t = latlab_display::defaults::BPP)]
    pub bpp: u32,
    /// Seed of the script.
    #[arg(long, default_value_t = latlab_display::defaults::SEED)]
    pub seed: u64,
}

/// `latlab display ops`.
#[derive(Debug, Args)]
pub struct DisplayOps {
    /// Operations, comma-separated (default: all).
    #[arg(long, value_delimiter = ',', value_parser = choice::<WorkloadKind>())]
    pub workloads: Vec<WorkloadKind>,
    /// Virtual seconds measured per operation.
    #[arg(long, default_value_t = latlab_display::defaults::OPS_SECONDS)]
    pub seconds: u64,
    /// Bulk compression.
    #[arg(long, value_parser = choice::<Codec>(), default_value = latlab_display::defaults::OPS_CODEC)]
    pub codec: Codec,
    /// Encryption.
    #[arg(long, value_parser = choice::<Crypto>(), default_value = latlab_display::defaults::OPS_CRYPTO)]
    pub crypto: Crypto,
    /// Send bitmap updates instead of orders and the bitmap cache (the study's NPPerfTune).
    #[arg(long)]
    pub bitmaps: bool,
    /// Seed of the scripts.
    #[arg(long, default_value_t = latlab_display::defaults::SEED)]
    pub seed: u64,
}

/// `latlab display cache`.
#[derive(Debug, Args)]
pub struct DisplayCache {
    /// Animation frame counts, comma-separated (default: around the capacity, 84 frames).
    #[arg(long, value_delimiter = ',')]
    pub frames: Vec<u32>,
    /// Policies, comma-separated (default: all; opt always runs).
    #[arg(long, value_delimiter = ',', value_parser = choice::<PolicyKind>())]
    pub policies: Vec<PolicyKind>,
    /// Loops measured after one loop of warm-up.
    #[arg(long, default_value_t = latlab_display::defaults::CACHE_LOOPS)]
    pub loops: u32,
    /// Bulk compression.
    #[arg(long, value_parser = choice::<Codec>(), default_value = latlab_display::defaults::VIEW_CODEC)]
    pub codec: Codec,
    /// Skip the banner + ticker runs.
    #[arg(long)]
    pub no_banner: bool,
}

/// `latlab codec`.
#[derive(Debug, Args)]
pub struct CodecArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: CodecCommand,
}

/// Subcommands of `latlab codec`.
#[derive(Debug, Subcommand)]
pub enum CodecCommand {
    /// Compress every packet of a packet file (see docs/codec.md for the framing).
    Compress(CodecIo),
    /// Decompress every packet of a packet file, with the flags stored beside each.
    Decompress(CodecIo),
    /// Write latlab's built-in corpus of display-update PDUs as a packet file.
    Corpus(CodecCorpus),
    /// Compression ratio and MB/s in and out per algorithm on the built-in corpus.
    Bench(CodecBench),
    /// Compress a raw bitmap (scanlines bottom-up, little-endian pixels) with interleaved RLE.
    RleEncode(RleIo),
    /// Decompress an interleaved-RLE bitmap stream into raw scanlines (bottom-up).
    RleDecode(RleIo),
}

/// Input, output and geometry of `rle-encode` / `rle-decode`.
#[derive(Debug, Args)]
pub struct RleIo {
    /// Bitmap width in pixels.
    #[arg(long)]
    pub width: usize,
    /// Bitmap height in pixels.
    #[arg(long)]
    pub height: usize,
    /// Colour depth.
    #[arg(long, value_parser = named(vec!["8", "15", "16", "24"], |s| s.parse::<u32>().ok()))]
    pub bpp: u32,
    /// File to read.
    #[arg(long = "in")]
    pub input: PathBuf,
    /// File to write.
    #[arg(long = "out")]
    pub output: PathBuf,
}

/// Input and output of `compress` / `decompress`.
#[derive(Debug, Args)]
pub struct CodecIo {
    /// Algorithm: mppc8 (RDP 4.0), mppc64 (RDP 5.0), ncrush (RDP 6.0), xcrush (RDP 6.1).
    #[arg(long, value_parser = named(CompressionType::ALL.map(CompressionType::name).to_vec(), CompressionType::from_name))]
    pub algo: CompressionType,
    /// Packet file to read.
    #[arg(long = "in")]
    pub input: PathBuf,
    /// Packet file to write.
    #[arg(long = "out")]
    pub output: PathBuf,
}

/// `latlab codec corpus`.
#[derive(Debug, Args)]
pub struct CodecCorpus {
    /// Packet file to write.
    #[arg(long = "out")]
    pub output: PathBuf,
    /// Number of PDUs.
    #[arg(long, default_value_t = latlab_rdp::corpus::DEFAULT_PDUS)]
    pub packets: usize,
    /// Seed of the generator.
    #[arg(long, default_value_t = latlab_rdp::corpus::DEFAULT_SEED)]
    pub seed: u64,
    /// Which corpus: session (a simulated session's real wire PDUs) or synthetic (raw
    /// payload-like patterns, two kinds in five nearly incompressible).
    #[arg(long, default_value = "session", value_parser = named(Corpus::ALL.map(Corpus::name).to_vec(), Corpus::from_name))]
    pub corpus: Corpus,
}

/// `latlab codec bench`.
#[derive(Debug, Args)]
pub struct CodecBench {
    /// Which corpus: session, synthetic, or all (both, one table each).
    #[arg(long, default_value = "all", value_parser = named(corpus_or_all_names(), corpus_or_all))]
    pub corpus: Corpora,
    /// Number of PDUs in the corpus.
    #[arg(long, default_value_t = latlab_rdp::corpus::DEFAULT_PDUS)]
    pub packets: usize,
    /// Passes over the corpus (the best is reported).
    #[arg(long, default_value_t = latlab_rdp::corpus::DEFAULT_PASSES)]
    pub passes: usize,
}

fn corpus_or_all_names() -> Vec<&'static str> {
    let mut v = Corpus::ALL.map(Corpus::name).to_vec();
    v.push("all");
    v
}

/// One built-in corpus, or all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corpora {
    /// This one.
    One(Corpus),
    /// Every corpus, one table each.
    All,
}

fn corpus_or_all(s: &str) -> Option<Corpora> {
    if s == "all" { Some(Corpora::All) } else { Corpus::from_name(s).map(Corpora::One) }
}

/// `latlab runs`.
#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `latlab show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Run id, `latest`, or an experiment name (its latest run).
    pub run: String,
}

/// `latlab report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Runs to include (ids, `latest`, or experiment names); default: the latest run of each
    /// experiment.
    pub runs: Vec<String>,
    /// Output HTML file.
    #[arg(short, long, default_value = latlab_core::defaults::SUITE_REPORT)]
    pub output: PathBuf,
}

/// `latlab export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Run id, `latest`, or an experiment name.
    pub run: String,
    /// Output format. `flent`: a `stall net` run as a flent data file (gzip-compressed when
    /// the output file's name ends in `.gz`, as flent's own `.flent.gz` files are).
    #[arg(long, short, default_value = "json", value_parser = choice::<latlab_core::export::Format>())]
    pub format: latlab_core::export::Format,
    /// Write to this file instead of stdout.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// `latlab compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Run A (the baseline).
    pub a: String,
    /// Run B.
    pub b: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn db_defaults_and_overrides() {
        let c = Cli::try_parse_from(["latlab", "runs"]).unwrap();
        assert!(c.db.ends_with(latlab_core::defaults::DB_FILE) || std::env::var("LATLAB_DB").is_ok());
        let c = Cli::try_parse_from(["latlab", "--db", "/tmp/x.db", "runs", "--json"]).unwrap();
        assert_eq!(c.db, PathBuf::from("/tmp/x.db"));
        // Parsed here; the selftest's configuration refuses it (exit 2, a CLI test).
        assert!(Cli::try_parse_from(["latlab", "selftest", "--fifo-priority", "100"]).is_ok());
        assert!(Cli::try_parse_from(["latlab", "export", "1", "--format", "xml"]).is_err());
    }

    #[test]
    fn defaults_come_from_the_experiments_own_configurations() {
        let c = Cli::try_parse_from(["latlab", "rt"]).unwrap();
        let Command::Rt(a) = c.command else { panic!() };
        let d = latlab_rt::config::RtConfig::default();
        assert_eq!((a.period, a.duration), (d.period_ns, d.phase_ns));
        assert_eq!((a.common.l1_policy, a.common.l1_priority, a.common.signal), (d.l1.policy, d.l1.priority, d.signal));
        assert_eq!(a.common.load, d.load);
        let c = Cli::try_parse_from(["latlab", "udp"]).unwrap();
        let Command::Udp(a) = c.command else { panic!() };
        let d = latlab_udp::UdpConfig::default();
        assert_eq!(
            (a.send.interval, a.send.duration, a.send.size, a.send.wait),
            (d.interval_ns, d.duration_ns, d.size, d.wait_ns)
        );
        let c = Cli::try_parse_from(["latlab", "stall"]).unwrap();
        let Command::Stall(a) = c.command else { panic!() };
        let d = latlab_stall::cpu::CpuConfig::default();
        assert_eq!(
            (a.loads, a.policies, a.seconds, a.interval, a.work),
            (d.loads, d.policies, d.seconds, d.interval_ns, d.work_ns)
        );
        let c = Cli::try_parse_from(["latlab", "display", "ops"]).unwrap();
        let Command::Display(DisplayArgs { command: DisplayCommand::Ops(o) }) = c.command else { panic!() };
        let d = latlab_display::ops::OpsConfig::default();
        assert_eq!((o.seconds, o.codec, o.crypto, o.seed), (d.seconds, d.codec, d.crypto, d.seed));
        let c = Cli::try_parse_from(["latlab", "stall", "net"]).unwrap();
        let Command::Stall(StallArgs { command: Some(StallCommand::Net(n)), .. }) = c.command else { panic!() };
        let d = latlab_stall::net::NetConfig::default();
        assert_eq!(
            (n.rate, n.loads, n.step, n.probe_interval),
            (d.rate_bps, d.loads, d.step_seconds, d.probe_interval_ns)
        );
    }

    #[test]
    fn enumerated_options_refuse_unknown_values_with_the_choices() {
        for (args, listed) in [
            (&["latlab", "display", "cache", "--policies", "nope"][..], "lru"),
            (&["latlab", "rt", "--signal", "nope"][..], "eventfd"),
            (&["latlab", "codec", "compress", "--algo", "nope", "--in", "a", "--out", "b"][..], "ncrush"),
            (&["latlab", "display", "ops", "--workloads", "typing,nope"][..], "slideshow"),
            (&["latlab", "stall", "--policies", "nice19,fast"][..], "niceN"),
            (&["latlab", "startup", "record", "--tracer", "strace", "--", "true"][..], "fanotify"),
            (&["latlab", "export", "1", "--format", "xml"][..], "flent"),
        ] {
            let e = Cli::try_parse_from(args).unwrap_err();
            assert!(e.use_stderr(), "{args:?}");
            assert!(e.to_string().contains(listed), "{args:?}: {e}");
        }
    }

    #[test]
    fn rt_arguments() {
        let c = Cli::try_parse_from(["latlab", "rt", "--period", "1ms", "--signal", "futex", "--cpu", "0"]).unwrap();
        let Command::Rt(a) = c.command else { panic!() };
        assert_eq!(a.period, 1_000_000);
        assert!(a.command.is_none());
        let c = Cli::try_parse_from(["latlab", "rt", "sweep", "--max", "8000", "--step", "200ms"]).unwrap();
        let Command::Rt(a) = c.command else { panic!() };
        let Some(RtCommand::Sweep(s)) = a.command else { panic!() };
        assert_eq!((s.max, s.step), (8000.0, 200_000_000));
        assert!(Cli::try_parse_from(["latlab", "rt", "--period", "1ms", "sweep"]).is_err());
        assert!(Cli::try_parse_from(["latlab", "rt", "--period", "1ms", "--rate", "5"]).is_err());
        assert!(Cli::try_parse_from(["latlab", "rt", "--no-pin", "--cpu", "1"]).is_err());
        assert_eq!(parse_duration_ns("200us"), Ok(200_000));
        assert_eq!(parse_duration_ns(&dur(latlab_rt::defaults::PERIOD_NS)), Ok(latlab_rt::defaults::PERIOD_NS));
        assert!(parse_duration_ns("fast").is_err());
    }
}
