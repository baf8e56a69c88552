//! `latlab monitor`: probes that run for days (the rt wake-up chain's timer, as cyclictest
//! runs on OSADL's QA farm), measured in windows (default 5 minutes) that are stored as they
//! close, so a kill or a power cut loses at most the open window; memory stays flat however
//! long it runs; an optional schedule alternates idle and load; the windows are exported in
//! the OpenMetrics text format for Prometheus to scrape.
//!
//! | file | holds |
//! |---|---|
//! | `defaults.rs` | Every default of `latlab monitor`, with the reason it has that value |
//! | `error.rs` | why a monitor could not run (`MonitorError`), with the error beneath it |
//! | `engine.rs` | the timer probe's loop on any clock, windows handed over as they close |
//! | `experiment.rs` | the monitor under the experiment contract: what the runner checks, says, and drives |
//! | `export.rs` | OpenMetrics |
//! | `figures.rs` | the worst wake-up per window, for the report |
//! | `load.rs` | the schedule's load: spinners, polygons or a link |
//! | `probes.rs` | the idle and udp probes' loops, the [`probes::Echo`] a peer answers |
//! | `run.rs` | the threads, the runner's store as a sink, resuming |
//! | `schedule.rs` | idle/load steps |
//! | `settings.rs` | the settings, the probes, where they are checked |
//! | `summary.rs` | the run's record: per-probe metrics and the long-run tables |
//! | `window.rs` | one window's summary and buckets |

pub mod defaults;
pub mod engine;
pub mod error;
pub mod experiment;
pub mod export;
pub mod figures;
pub mod load;
pub mod probes;
pub mod run;
pub mod schedule;
pub mod settings;
pub mod summary;
pub mod window;
