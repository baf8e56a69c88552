//! The command line (clap derive): the top-level grammar, the value parsers every part uses,
//! and the arguments of the commands around the experiments (suite, runs, show, report,
//! export, compare, completions, man). Each experiment's arguments are in a file of its own
//! here. Only the binary knows clap; each subcommand converts its arguments into the
//! configuration of the experiment that runs it. Defaults shown in
//! `--help` come from each experiment's own `Default` configuration; enumerated options
//! list their choices, and a bad value exits 2 before anything runs.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use latlab_model::experiment::Choice;
use std::path::PathBuf;

mod codec;
mod display;
mod measuring;
pub mod monitor;
#[cfg(test)]
mod ranges;
mod rt;
pub mod selftest;
mod stall;
mod startup;
pub mod typing;
mod udp;

pub use codec::*;
pub use display::*;
pub use measuring::{Measuring, READ_ONLY, with_measuring_options};
pub use rt::*;
pub use stall::*;
pub use startup::*;
pub use udp::*;

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

/// An experiment's command line in a file of its own (`cli/NAME.rs`): its arguments, and the
/// configuration they make. Its registry line (`Registry::with_cli`) adds it as `latlab NAME`
/// and runs it through the one runner; nothing else in the binary names it.
pub trait ExperimentCli: clap::Args + 'static {
    /// The experiment these arguments run.
    type E: latlab_model::experiment::Experiment;
    /// `latlab NAME --help`'s paragraph (`-h` shows the experiment's `ABOUT`).
    const HELP: &'static str;
    /// The configuration (`strict` from `--strict`); its `validate` checks the ranges.
    fn config(self, strict: bool) -> <Self::E as latlab_model::experiment::Experiment>::Config;
}

/// A duration in the form `--help` shows and [`parse_duration_ns`] reads back (`1ms`, `10s`).
pub fn dur(ns: u64) -> String {
    humantime::format_duration(std::time::Duration::from_nanos(ns)).to_string()
}

/// Say that `old` is an old spelling, kept for this release, and what to give instead.
pub fn old_spelling(old: &str, new: &str) {
    eprintln!("warning: {old} is the old spelling, kept for this release: give {new}");
}

/// A length of time a command was given, in seconds: `--NEW D` (a duration with its unit:
/// `500ms`, `20s`, `2m`), else the old spelling `--OLD N` (bare seconds, hidden from `--help`;
/// said to be old, and kept for one release), else `default_s`.
pub fn seconds_of(new: Option<u64>, old: Option<f64>, (new_name, old_name): (&str, &str), default_s: f64) -> f64 {
    match (new, old) {
        (Some(ns), _) => ns as f64 / 1e9,
        (None, Some(s)) => {
            old_spelling(&format!("--{old_name} {s}"), &format!("--{new_name} {}", dur((s * 1e9) as u64)));
            s
        }
        (None, None) => default_s,
    }
}

/// latlab — measure what users of interactive and embedded systems feel.
#[derive(Debug, Parser)]
#[command(name = "latlab", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,

    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
/// The options every subcommand takes.
#[derive(Debug, Args)]
pub struct Global {
    /// SQLite database holding the runs.
    #[arg(long, global = true, env = "LATLAB_DB", default_value = latlab_output::defaults::DB_FILE)]
    pub db: PathBuf,

    /// `--strict` before the command: the old place, hidden (a measuring command takes it after
    /// its name; see [`with_measuring_options`]).
    #[arg(long = "strict", id = "old_strict", hide = true)]
    pub strict: bool,

    /// `--checkpoint` before the command: the old place, hidden.
    #[arg(long = "checkpoint", id = "old_checkpoint", hide = true, value_parser = measuring::checkpoint_secs)]
    pub checkpoint: Option<f64>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run every registered experiment with short defaults, store the runs, write the HTML
    /// report and print a summary with the papers' figures beside this machine's.
    Suite(SuiteArgs),
    /// Wake-up chain determinism (seed 001): a periodic stimulus wakes level 1 (SCHED_FIFO 80,
    /// the ISR analog), which signals level 2 (SCHED_RR 79 beside the Polygons load, the APP
    /// analog); unloaded and under load. `latlab rt sweep` finds the maximum and saturation
    /// frequencies.
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
    /// Export a stored run as JSON (the whole record), CSV (raw samples), Markdown, a flent
    /// data file (`stall net`), or a monitor run's windows as CSV.
    Export(ExportArgs),
    /// Compare two stored runs: median and p99 differences with 95% bootstrap intervals.
    Compare(CompareArgs),
    /// Measure a study's remedy as an A/B on this machine: the experiment it belongs to, run
    /// with and without it, interleaved; the effect on its headline figures with 95 %
    /// intervals over the rounds, and a verdict (helps, no effect detectable, hurts, mixed).
    /// Every change to the machine is undone. `--list` names the remedies.
    Tune(TuneArgs),
    /// Merge the runs of other latlab databases (other machines') into this one: each run keeps
    /// the machine it was measured on, a run already here is refused and named, and the
    /// sources are only read. `latlab report` then compares the hosts.
    Import(ImportArgs),
    /// Find and remove what killed latlab runs left behind: network namespaces, cgroups,
    /// swap files, temporary files, and processes latlab started. Each carries a latlab name
    /// with its owner's pid; only those whose owner is gone are touched.
    Clean(CleanArgs),
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
    #[arg(short, long, default_value = latlab_output::defaults::SUITE_REPORT)]
    pub output: PathBuf,
    /// Run only these experiments (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Scale the short configurations down for a small board: auto (when this machine has one
    /// CPU or less than 1 GiB of memory), yes, or no.
    #[arg(long, default_value = Small::Auto.name(), value_parser = choice::<Small>())]
    pub small: Small,
}

latlab_model::choice! {
    /// `latlab suite --small`.
    pub enum Small {
        /// When this machine has one CPU or less than 1 GiB of memory.
        Auto = "auto",
        /// Always.
        Yes = "yes",
        /// Never.
        No = "no",
    }
}

/// A length of time with its unit (`30s`, `2m`), or a bare number of seconds: the old spelling,
/// said to be old and kept for one release. In nanoseconds.
pub fn duration_or_seconds(s: &str) -> Result<u64, String> {
    if let Ok(v) = s.parse::<f64>()
        && v.is_finite()
        && v >= 0.0
    {
        old_spelling(&format!("{s} (bare seconds)"), &dur((v * 1e9) as u64));
        return Ok((v * 1e9) as u64);
    }
    parse_duration_ns(s)
}

/// A count of 1 or more (a bad value exits 2 before anything runs).
pub fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("'{s}': give a whole number, 1 or more")),
    }
}

/// Parse a duration such as `200us`, `1ms`, `5s` into nanoseconds.
pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    let d = humantime::parse_duration(s).map_err(|e| format!("'{s}' is not a duration like 200us, 1ms or 5s: {e}"))?;
    u64::try_from(d.as_nanos()).map_err(|_| format!("'{s}' is too long"))
}

/// `latlab import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Databases to import from (other hosts' `latlab.db`), read-only.
    #[arg(required = true, value_name = "DB")]
    pub sources: Vec<PathBuf>,
}

/// `latlab clean`.
#[derive(Debug, Args)]
pub struct CleanArgs {
    /// Only say what would be removed.
    #[arg(long)]
    pub dry_run: bool,
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
    #[arg(short, long, default_value = latlab_output::defaults::SUITE_REPORT)]
    pub output: PathBuf,
}

/// `latlab export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Run id, `latest`, or an experiment name.
    pub run: String,
    /// Output format. `flent`: a `stall net` run as a flent data file (gzip-compressed when
    /// the output file's name ends in `.gz`, as flent's own `.flent.gz` files are).
    #[arg(long, short, default_value = "json", value_parser = choice::<latlab_output::export::Format>())]
    pub format: latlab_output::export::Format,
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

/// `latlab tune`.
#[derive(Debug, Args)]
pub struct TuneArgs {
    /// The remedy (`--list` names them).
    #[arg(required_unless_present = "list")]
    pub remedy: Option<String>,
    /// List the remedies: their study, what each changes, what it needs, how it is undone.
    #[arg(long)]
    pub list: bool,
    /// Pairs of runs (baseline, remedy), interleaved so drift hits both arms [1–100].
    #[arg(long, default_value_t = latlab_output::defaults::TUNE_ROUNDS)]
    pub rounds: usize,
    /// The experiment's own options, after `--` (e.g. `latlab tune shield -- --duration 5s`);
    /// without them, the remedy's defaults.
    #[arg(last = true)]
    pub experiment_args: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
        // With every experiment's own subcommand too.
        let whole = crate::registry::Registry::standard().grammar();
        whole.clone().debug_assert();
        for name in ["selftest", "monitor"] {
            assert!(whole.find_subcommand(name).is_some(), "{name}");
        }
    }

    #[test]
    fn db_defaults_and_overrides() {
        let c = Cli::try_parse_from(["latlab", "runs"]).unwrap();
        assert!(c.global.db.ends_with(latlab_output::defaults::DB_FILE) || std::env::var("LATLAB_DB").is_ok());
        let c = Cli::try_parse_from(["latlab", "--db", "/tmp/x.db", "runs", "--json"]).unwrap();
        assert_eq!(c.global.db, PathBuf::from("/tmp/x.db"));
        // Parsed here; the selftest's configuration refuses it (exit 2, a CLI test).
        let whole = crate::registry::Registry::standard().grammar();
        assert!(whole.try_get_matches_from(["latlab", "selftest", "--fifo-priority", "100"]).is_ok());
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
            (a.loads, a.policies, a.duration, a.interval, a.work),
            (d.loads, d.policies, None, d.interval_ns, d.work_ns)
        );
        let c = Cli::try_parse_from(["latlab", "display", "ops"]).unwrap();
        let Command::Display(DisplayArgs { command: DisplayCommand::Ops(o) }) = c.command else { panic!() };
        let d = latlab_display::ops::OpsConfig::default();
        // No length given: the configuration's own (`commands::display` takes `d.seconds`).
        assert_eq!((o.duration, o.seconds, o.codec, o.crypto, o.seed), (None, None, d.codec, d.crypto, d.seed));
        let c = Cli::try_parse_from(["latlab", "stall", "net"]).unwrap();
        let Command::Stall(StallArgs { command: Some(StallCommand::Net(n)), .. }) = c.command else { panic!() };
        let d = latlab_stall::net::NetConfig::default();
        assert_eq!(
            (n.rate, n.loads, n.step / 1_000_000_000, n.probe_interval),
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
