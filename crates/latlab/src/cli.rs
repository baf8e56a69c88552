//! The command line (clap derive). Only the binary knows clap; each subcommand converts its
//! arguments into a validated configuration of the library that runs it.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

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
    #[arg(long, default_value_t = latlab_core::defaults::SELFTEST_SLEEP_SAMPLES)]
    pub samples: usize,
    /// SCHED_FIFO priority to ask for (1–99).
    #[arg(long, default_value_t = latlab_core::defaults::RT_PRIORITY, value_parser = clap::value_parser!(i32).range(1..=99))]
    pub fifo_priority: i32,
    /// Leave /dev/cpu_dma_latency at the system default instead of holding it at 0.
    #[arg(long)]
    pub no_dma_latency: bool,
    /// Do not lock memory (mlockall).
    #[arg(long)]
    pub no_mlock: bool,
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
    /// Output format.
    #[arg(long, short, default_value = "json", value_parser = ["json", "csv", "md"])]
    pub format: String,
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
        assert!(Cli::try_parse_from(["latlab", "selftest", "--fifo-priority", "100"]).is_err());
        assert!(Cli::try_parse_from(["latlab", "export", "1", "--format", "xml"]).is_err());
    }
}
