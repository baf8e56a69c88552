//! latlab-output: where runs go once measured — the SQLite store and checkpoints into it,
//! exporters, the HTML report, fleets of hosts, comparisons, the tune engine, and progress on
//! stderr. Only the binary depends on it.
//!
//! | file | holds |
//! |---|---|
//! | `store/` | the SQLite store and monitor windows |
//! | `checkpoint.rs` | the store as a checkpoint sink |
//! | `export/` | JSON, CSV, Markdown and flent exports |
//! | `report/` | the HTML report: page, figures, plots, hosts |
//! | `fleet.rs` | runs of many hosts in one database |
//! | `compare.rs` | `latlab compare` |
//! | `tune/` | the A/B engine behind `latlab tune` |
//! | `progress.rs` | progress bars |
//! | `defaults.rs` | the output side's defaults |
#![warn(missing_docs)]

pub mod checkpoint;
pub mod compare;
pub mod defaults;
pub mod export;
pub mod fleet;
pub mod progress;
pub mod report;
pub mod store;
pub mod tune;

/// latlab's version.
pub const VERSION: &str = latlab_model::VERSION;
