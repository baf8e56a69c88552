//! The latlab binary's library: the CLI, one module per subcommand, and the registry of
//! experiments `latlab suite` runs. Exit codes are documented in [`exit`].

pub mod cli;
mod commands;
pub mod registry;

use std::io::Write;

/// Exit codes.
pub mod exit {
    /// Success.
    pub const OK: i32 = 0;
    /// An error (message on stderr).
    pub const ERROR: i32 = 1;
    /// Invalid command line (including a configuration the experiment refuses).
    pub const USAGE: i32 = 2;
    /// `--strict` and the machine refused a requested capability.
    pub const CAPABILITY: i32 = 3;
    /// Interrupted by Ctrl-C; what was measured is stored as an `interrupted` run.
    pub const INTERRUPTED: i32 = latlab_sys::interrupt::EXIT_INTERRUPTED;
}

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

/// The exit code of an error: 3 for a refused capability under `--strict`, 2 for an invalid
/// configuration, 1 otherwise — however it was wrapped.
fn error_code(e: &anyhow::Error) -> i32 {
    use latlab_model::experiment::ExperimentError;
    match e.downcast_ref::<ExperimentError>() {
        Some(ExperimentError::Capability(_)) => return exit::CAPABILITY,
        Some(ExperimentError::Config(_)) => return exit::USAGE,
        _ => {}
    }
    if e.downcast_ref::<latlab_sys::platform::CapabilityRefused>().is_some() {
        exit::CAPABILITY
    } else if e.downcast_ref::<commands::Usage>().is_some() {
        exit::USAGE
    } else {
        exit::ERROR
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

/// Run a parsed command line; returns the exit code for outcomes that are not errors.
pub fn run(cli: cli::Cli) -> anyhow::Result<i32> {
    commands::dispatch(cli)
}
