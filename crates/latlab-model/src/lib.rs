//! latlab-model: the data every latlab experiment produces and the contract it keeps, with no
//! system calls and no output formats — the run record, statistics, verdicts, number
//! formatting, capabilities and the machine description as stored, the experiment contract
//! and its checkpoints, and the stop flag.
//!
//! | file | holds |
//! |---|---|
//! | `ab.rs` | the A/B an experiment asks of the runner, and its verdict |
//! | `record.rs` | the run record: metrics, tables, series |
//! | `value.rs` | a metric's value |
//! | `stats/` | summaries, percentiles, delay variation, bootstrap, modes, extremes |
//! | `worst.rs` | a series' worst case per hour, as metrics and a table row |
//! | `verdict.rs` | paper rows, their verdicts and tallies |
//! | `numfmt.rs` | numbers for people |
//! | `capability.rs` | what a run asked the machine for and got |
//! | `machine.rs` | the machine description as stored |
//! | `experiment.rs`, `error.rs` | the experiment contract, the suite's entries, `Choice`; the boxed error it returns and the configuration error |
//! | `figure.rs` | figures as data: charts, the paper's points, captions |
//! | `checkpoint.rs` | partial records handed to the runner's sink |
//! | `sink.rs`, `window.rs` | the runner's store as a long run sees it; a window as stored |
//! | `interrupt.rs`, `exit.rs` | the stop flag; the exit codes |
//! | `defaults.rs` | the model's defaults |
//! | `synth.rs`, `testing.rs` | synthetic samples; how a test says it skipped |
#![warn(missing_docs)]

pub mod ab;
pub mod capability;
pub mod checkpoint;
pub mod defaults;
pub mod error;
pub use error::ConfigError;
pub mod exit;
pub mod experiment;
pub mod figure;
pub mod interrupt;
pub mod machine;
pub mod numfmt;
pub mod record;
pub mod sink;
pub mod stats;
pub mod synth;
pub mod testing;
pub mod value;
pub mod verdict;
pub mod window;
pub mod worst;

#[doc(hidden)]
pub use serde as __serde;

/// latlab's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git commit latlab was built from, when the build could tell.
pub const GIT_COMMIT: Option<&str> = option_env!("LATLAB_GIT_COMMIT");
