//! The latlab binary's library: the CLI, one module per subcommand, and the registry of
//! experiments `latlab suite` runs. Exit codes are documented in [`exit`].

pub mod cli;
mod commands;
pub mod registry;

use std::io::Write;

/// Exit codes.
pub use latlab_model::exit;

/// Parse the command line and run; returns the process exit code.
pub fn main_exit_code() -> i32 {
    use clap::Parser;
    latlab_sys::platform::limit_malloc_arenas();
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { exit::OK };
            let _ = e.print();
            return code;
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            if is_broken_pipe(&e) {
                return exit::OK;
            }
            let _ = writeln!(std::io::stderr(), "error: {e:#}");
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

/// Run a parsed command line; returns the exit code for outcomes that are not errors.
pub fn run(cli: cli::Cli) -> anyhow::Result<i32> {
    commands::dispatch(cli)
}
