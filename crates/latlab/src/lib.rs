//! The latlab binary's library: the CLI, one module per subcommand, and the registry of
//! experiments `latlab suite` runs. Exit codes are documented in [`exit`].
//!
//! | file | holds |
//! |---|---|
//! | `cli/` | the grammar (clap): one file per experiment whose arguments are many |
//! | `commands/` | one file per subcommand: its arguments into a configuration, handed to the runner |
//! | `registry.rs` | every experiment latlab knows, in the suite's order |
//! | `runner.rs` | the one runner: validation, progress, checkpoints, interruption, storing |

pub mod cli;
mod commands;
pub mod registry;
mod runner;

use std::io::Write;

/// Exit codes.
pub use latlab_model::exit;

/// Parse the command line and run latlab's own experiments; returns the process exit code.
pub fn main_exit_code() -> i32 {
    run_with(&registry::Registry::standard(), std::env::args_os())
}

/// Parse `args` (the program's name first) against the grammar of `registry`'s experiments and
/// run; returns the process exit code. A test runs an experiment of its own this way.
pub fn run_with<I, T>(registry: &registry::Registry, args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    latlab_sys::platform::limit_malloc_arenas();
    let matches = match registry.grammar().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { exit::OK };
            let _ = e.print();
            return code;
        }
    };
    match run(registry, &matches) {
        Ok(code) => code,
        Err(e) => {
            if is_broken_pipe(&e) {
                return exit::OK;
            }
            // Each cause once: an error whose text already ends with its cause's is not
            // followed by it again.
            let _ = writeln!(std::io::stderr(), "error: {}", latlab_model::error::chain(e.as_ref()));
            error_code(&e)
        }
    }
}

/// The exit code of an error: the one its `ExperimentError` gives, however it was wrapped (2
/// for an invalid configuration or command line, 3 for a refused capability under `--strict`),
/// 1 for any other.
fn error_code(e: &anyhow::Error) -> i32 {
    use latlab_model::experiment::ExperimentError;
    e.chain().find_map(|c| c.downcast_ref::<ExperimentError>()).map_or(exit::ERROR, ExperimentError::exit_code)
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

/// Run a parsed command line; returns the exit code for outcomes that are not errors. An
/// experiment's own subcommand goes to its registry entry, the rest to [`cli::Cli`]'s.
fn run(registry: &registry::Registry, m: &clap::ArgMatches) -> anyhow::Result<i32> {
    use clap::FromArgMatches;
    // What a killed latlab left goes first, whatever the command (`clean` shows it instead).
    if m.subcommand_name() != Some("clean") {
        latlab_sys::leftovers::clear_before_a_command();
    }
    if let Some((name, sub)) = m.subcommand()
        && let Some(c) = registry.commands().find(|c| c.name() == name)
    {
        let global = cli::Global::from_arg_matches(m).map_err(|e| runner::usage(e.to_string()))?;
        let measuring = cli::Measuring::of(m, &global);
        runner::set_checkpoint(measuring.checkpoint);
        runner::set_verbose(measuring.verbose);
        return c.run(sub, &global.db, measuring.strict);
    }
    let cli = cli::Cli::from_arg_matches(m).map_err(|e| runner::usage(e.to_string()))?;
    let measuring = cli::Measuring::of(m, &cli.global);
    commands::dispatch(cli, registry, measuring)
}
