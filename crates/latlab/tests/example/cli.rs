//! `latlab example`'s command line: its arguments and the configuration they make.

use super::{Example, ExampleConfig};
use latlab::cli::ExperimentCli;

/// `latlab example`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ExampleArgs {
    /// Sleeps timed.
    #[arg(long, default_value_t = super::ROUNDS)]
    pub rounds: u32,
}

impl ExperimentCli for ExampleArgs {
    type E = Example;
    const HELP: &'static str = "Time sleeps of 1 ms: the test experiment that shows what adding one takes.";

    fn config(self, _strict: bool) -> ExampleConfig {
        ExampleConfig { rounds: self.rounds }
    }
}
