//! Arguments of `latlab selftest`, `latlab rt`, `latlab rt sweep` and `latlab rt doctor` (seed 001).

use super::{choice, dur, parse_duration_ns};
use clap::{Args, Subcommand, ValueEnum};
use latlab_sys::platform::Policy;
use latlab_sys::wake::SignalKind;

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
    /// Stimulus period of the phases (e.g. 200us, 1ms); the default is the paper's 5 kHz [at least 1µs].
    #[arg(long, value_parser = parse_duration_ns, conflicts_with = "rate", default_value = dur(latlab_rt::defaults::PERIOD_NS))]
    pub period: u64,
    /// Stimulus rate of the phases in Hz (instead of --period) [above 0, at most 1000000].
    #[arg(long)]
    pub rate: Option<f64>,
    /// Length of each phase (e.g. 5s): the run measures an unloaded phase, then (with a load)
    /// a loaded one, so it lasts about twice this, plus the load's baseline [at least one period].
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
    /// Find what spoils wake-up latency on this machine (preemption, RT throttling, idle
    /// states, governor, SMT, IRQs, isolation, timer slack, huge pages, a hypervisor, swap,
    /// hardware gaps) and measure what each costs where latlab can toggle it (an A/B with
    /// `latlab tune`'s engine); ranked worst first.
    Doctor(RtDoctorArgs),
}

/// `latlab rt doctor`.
#[derive(Debug, Args)]
pub struct RtDoctorArgs {
    /// The CPU to examine (and to measure on); default: the last CPU, as `latlab rt` pins.
    #[arg(long)]
    pub cpu: Option<usize>,
    /// Only read the machine's settings: no gap detector, no A/Bs (a second, not a minute).
    #[arg(long)]
    pub no_measure: bool,
    /// Run the gap detector but not the A/Bs of the toggles.
    #[arg(long, conflicts_with = "no_measure")]
    pub no_toggle: bool,
    /// Measure only these findings' toggles (comma-separated keys: rt-throttling,
    /// idle-states, irqs, timer-slack); the rest are inspected but not A/B'd.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Length of each `latlab rt` phase in a toggle's A/B [at least one period].
    #[arg(long, value_parser = parse_duration_ns, default_value = dur(latlab_rt::defaults::DOCTOR_PHASE_NS))]
    pub duration: u64,
    /// Rounds of each A/B (baseline and remedy, interleaved; 2 or more give an interval) [1–100].
    #[arg(long, default_value_t = latlab_rt::defaults::DOCTOR_ROUNDS)]
    pub rounds: usize,
    /// Length of the gap detector's run [above 0].
    #[arg(long, value_parser = parse_duration_ns, default_value = dur(latlab_rt::defaults::HWLAT_NS))]
    pub gaps_for: u64,
    /// Print the findings as JSON instead of the list.
    #[arg(long)]
    pub json: bool,
}

/// `latlab rt sweep`.
#[derive(Debug, Args)]
pub struct RtSweepArgs {
    /// Options shared with the phases.
    #[command(flatten)]
    pub common: RtCommon,
    /// First rate, Hz [above 0, at most 10000000].
    #[arg(long, default_value_t = latlab_rt::defaults::SWEEP_START_HZ)]
    pub start: f64,
    /// Factor between rates (> 1).
    #[arg(long, default_value_t = latlab_rt::defaults::SWEEP_FACTOR)]
    pub factor: f64,
    /// Highest rate, Hz [--start to 10000000].
    #[arg(long, default_value_t = latlab_rt::defaults::SWEEP_MAX_HZ)]
    pub max: f64,
    /// Duration of each step (e.g. 1s, 500ms) [at least 10ms].
    #[arg(long, value_parser = parse_duration_ns, default_value = dur(latlab_rt::defaults::SWEEP_STEP_NS))]
    pub step: u64,
    /// A level misses at a rate when more than this fraction of pulses went unserved, and more than
    /// one [0 to below 1].
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
    /// How level 2 and the load share their one priority: rr (both SCHED_RR just below level
    /// 1, as the seed's CE shared "the highest priority level"), fifo, or other (both
    /// SCHED_OTHER). See docs/experiments/rt.md.
    #[arg(long, value_parser = choice::<latlab_rt::arbitration::Arbitration>(), default_value = latlab_rt::defaults::ARBITRATION.name())]
    pub arbitration: latlab_rt::arbitration::Arbitration,
    /// Level 2 scheduling policy, overriding --arbitration's.
    #[arg(long, value_parser = choice::<Policy>())]
    pub l2_policy: Option<Policy>,
    /// Level 2 real-time priority (fifo/rr, 1–99; default: level 1's less one).
    #[arg(long)]
    pub l2_priority: Option<i32>,
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
    /// Load: none, `polygons[:N[:POLICY:PRIO]]` (default polygons:1 at level 2's priority: each
    /// worker draws for 50 µs, then rests 10 µs, as the seed's Polygons gave the CPU back),
    /// `hog[:N[:POLICY:PRIO]]` (the same, never yielding), or cmd:'COMMAND'.
    #[arg(long, default_value = "polygons", value_parser = |s: &str| s.parse::<latlab_rt::config::LoadSpec>())]
    pub load: latlab_rt::config::LoadSpec,
    /// RT throttling while a real-time load or a sweep runs: lift (as root: sched_rt_runtime_us
    /// -1 and the measured CPUs' fair server off for the run, restored afterwards; without root
    /// the loaded rows are judged not comparable), or keep (measure with the kernel's hold).
    #[arg(long, value_parser = choice::<latlab_rt::throttle::Throttling>(), default_value = latlab_rt::defaults::THROTTLING.name())]
    pub rt_throttling: latlab_rt::throttle::Throttling,
    /// Leave /dev/cpu_dma_latency at the system default.
    #[arg(long)]
    pub no_dma_latency: bool,
    /// Do not lock memory.
    #[arg(long)]
    pub no_mlock: bool,
}
