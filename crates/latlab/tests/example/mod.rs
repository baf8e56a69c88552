//! A test experiment, added as a contributor adds one: this folder stands for its crate
//! (`mod.rs`: the experiment under the contract, its defaults, its figure; `example.md`: its
//! metric docs) and `cli.rs` for its command-line file; `adding_an_experiment.rs` holds the one
//! registry line. Nothing else in latlab names it.

pub mod cli;

use latlab_model::experiment::{Experiment, ExperimentError, Outcome, RunContext};
use latlab_model::figure::{Chart, Figure};
use latlab_model::record::{RunRecord, RunStatus, Table};
use latlab_sys::record::Finish;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Rounds of the full run: 20, enough for a median.
pub const ROUNDS: u32 = 20;
/// Rounds of the suite's short run: 3.
pub const SUITE_ROUNDS: u32 = 3;
/// Each round sleeps 1 ms.
pub const SLEEP: Duration = Duration::from_millis(1);

/// How long asking for a 1 ms sleep takes.
pub struct Example;

/// Its configuration (stored whole in each record's `config.settings`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ExampleConfig {
    /// Sleeps timed.
    pub rounds: u32,
}

impl Default for ExampleConfig {
    fn default() -> Self {
        ExampleConfig { rounds: ROUNDS }
    }
}

impl Experiment for Example {
    type Config = ExampleConfig;
    const NAME: &'static str = "example";
    const ABOUT: &'static str = "sleeps of 1 ms, each timed (the test experiment)";
    const DOCS: &'static str = "crates/latlab/tests/example/example.md";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[("example.sleep.max", "longest 1 ms sleep")];

    fn suite_configs(_strict: bool) -> Vec<ExampleConfig> {
        vec![ExampleConfig { rounds: SUITE_ROUNDS }]
    }
    fn validate(cfg: &ExampleConfig) -> Result<(), latlab_model::ConfigError> {
        if !(1..=1000).contains(&cfg.rounds) {
            return Err(format!("--rounds must be 1 to 1000, not {}", cfg.rounds).into());
        }
        Ok(())
    }
    fn steps(cfg: &ExampleConfig) -> u64 {
        cfg.rounds.into()
    }
    fn announce(cfg: &ExampleConfig) -> String {
        format!("example: {} sleeps of 1 ms", cfg.rounds)
    }
    fn run(cfg: &ExampleConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        let mut rec = latlab_sys::record::begin(Self::NAME);
        rec.config("rounds", cfg.rounds);
        let mut took = Vec::with_capacity(cfg.rounds as usize);
        for _ in 0..cfg.rounds {
            let t = Instant::now();
            std::thread::sleep(SLEEP);
            took.push(t.elapsed().as_nanos() as u64);
            ctx.progress.fetch_add(1, Ordering::Relaxed);
        }
        rec.metric("example.rounds", u64::from(cfg.rounds), "count");
        rec.metric("example.sleep.max", *took.iter().max().expect("at least one round"), "ns");
        rec.tables.push(
            Table::new("example.sleeps", "Each 1 ms sleep, as long as it took")
                .column("round", "count")
                .column("took", "ns")
                .rows(took.iter().enumerate().map(|(i, &t)| vec![(i + 1).into(), t.into()]))
                .plot("round", &["took"]),
        );
        rec.finish(RunStatus::Complete);
        Ok(rec.into())
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        let t = rec.tables.iter().find(|t| t.name == "example.sleeps");
        Figure::new(
            "fig-example-sleeps",
            "How long 1 ms sleeps took",
            "Read the spread: a sleep ends at or after its time, never before.",
            vec![t.map(|t| Chart::Sweep(t.clone()))],
        )
        .into_iter()
        .collect()
    }
}
