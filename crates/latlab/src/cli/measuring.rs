//! The options of every command that measures (`--strict`, `--checkpoint`, `--verbose`): given
//! to those commands only, after their name, and read back from the deepest subcommand; the
//! old place before the command still works, hidden and warned of.

use super::{Global, dur};

/// A checkpoint interval in seconds: a duration with its unit (`5s`, `500ms`; `0s` turns
/// checkpoints off), or a bare number of seconds, the old spelling (said to be old, kept for one
/// release).
pub(super) fn checkpoint_secs(s: &str) -> Result<f64, String> {
    super::duration_or_seconds(s).map(|ns| ns as f64 / 1e9)
}

/// The commands that only read what is stored, or measure nothing the runner keeps: they take
/// neither `--strict` nor `--checkpoint` (every other command does, after its name).
pub const READ_ONLY: &[&str] =
    &["runs", "show", "report", "export", "compare", "import", "clean", "completions", "man", "codec"];

/// `--strict`, `--checkpoint` and `--verbose`, given to every measuring command of `grammar`
/// (and, through clap's globals, to its subcommands): a read-only command does not list them.
pub fn with_measuring_options(grammar: clap::Command) -> clap::Command {
    use clap::Arg;
    let names: Vec<String> = grammar.get_subcommands().map(|c| c.get_name().to_string()).collect();
    names.iter().filter(|n| !READ_ONLY.contains(&n.as_str())).fold(grammar, |g, name| {
        g.mut_subcommand(name, |c| {
            c.arg(
                Arg::new(STRICT)
                    .long(STRICT)
                    .global(true)
                    .action(clap::ArgAction::SetTrue)
                    .help("Fail (exit 3) instead of warning when the machine refuses a requested capability (real-time priority, memory locking, cpu_dma_latency, …)"),
            )
            .arg(
                Arg::new(CHECKPOINT)
                    .long(CHECKPOINT)
                    .global(true)
                    .value_name("DURATION")
                    .value_parser(checkpoint_secs)
                    .default_value(dur((latlab_output::defaults::CHECKPOINT_SECS * 1e9) as u64))
                    .help("How often a long run stores what it measured so far, as an `incomplete` run, so a kill or power cut loses at most this much [0s: no checkpoints]"),
            )
            .arg(
                Arg::new(VERBOSE)
                    .long(VERBOSE)
                    .short('v')
                    .env("LATLAB_VERBOSE")
                    .global(true)
                    .action(clap::ArgAction::SetTrue)
                    .help("List every metric at the end of the summary (without it: their count, and `latlab show` lists them)"),
            )
        })
    })
}

const STRICT: &str = "strict";
const CHECKPOINT: &str = "checkpoint";
const VERBOSE: &str = "verbose";

/// What a measuring command was told by `--strict` and `--checkpoint` (read from the deepest
/// subcommand's matches, where clap puts a global's value), or before the command's name (the
/// old place, hidden, said to be old).
#[derive(Debug, Clone, Copy)]
pub struct Measuring {
    /// `--strict`.
    pub strict: bool,
    /// `--checkpoint`, in seconds.
    pub checkpoint: f64,
    /// `--verbose`: the summary lists every metric.
    pub verbose: bool,
}

impl Measuring {
    /// Read from a parsed command line (`global`: the top level's hidden old spellings).
    pub fn of(m: &clap::ArgMatches, global: &Global) -> Measuring {
        let mut deepest = m;
        while let Some((_, s)) = deepest.subcommand() {
            deepest = s;
        }
        let given = |id: &str| deepest.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
        let mut strict = deepest.try_get_one::<bool>(STRICT).ok().flatten().copied().unwrap_or(false);
        let mut checkpoint = deepest
            .try_get_one::<f64>(CHECKPOINT)
            .ok()
            .flatten()
            .copied()
            .unwrap_or(latlab_output::defaults::CHECKPOINT_SECS);
        let name = m.subcommand_name().unwrap_or("COMMAND");
        if READ_ONLY.contains(&name) {
            for (given, option) in [(global.strict, "--strict"), (global.checkpoint.is_some(), "--checkpoint")] {
                if given {
                    eprintln!(
                        "warning: {option} does nothing for latlab {name}, which measures nothing (it is a measuring command's option)"
                    );
                }
            }
            return Measuring { strict: false, checkpoint: latlab_output::defaults::CHECKPOINT_SECS, verbose: false };
        }
        if global.strict {
            eprintln!(
                "warning: --strict before the command is the old place, kept for this release: give it after the command (latlab {name} --strict)"
            );
            strict = true;
        }
        if let Some(c) = global.checkpoint {
            eprintln!(
                "warning: --checkpoint before the command is the old place, kept for this release: give it after the command (latlab {name} --checkpoint {})",
                dur((c * 1e9) as u64)
            );
            if !given(CHECKPOINT) {
                checkpoint = c;
            }
        }
        let verbose = deepest.try_get_one::<bool>(VERBOSE).ok().flatten().copied().unwrap_or(false);
        Measuring { strict, checkpoint, verbose }
    }
}
