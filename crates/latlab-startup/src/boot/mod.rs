//! `latlab boot` (seed 004): a boot trace analysed, a boot described in a file run and measured
//! for real, and the rows and figures both give.
//!
//! | file | holds |
//! |---|---|
//! | `analyze.rs` | `latlab boot analyze`: where a boot's time went, from a boot trace |
//! | `experiment.rs` | `latlab boot analyze` and `boot measure` as `Experiment`s |
//! | `file.rs` | The `latlab.boot/1` boot description `latlab boot measure` runs |
//! | `measure.rs` | `latlab boot measure`: a described boot run for real, cold, warm and prefetched |
//! | `rows.rs` | The paper rows of `latlab boot measure` (seed 004) |
//! | `run.rs` | Running a boot described by a `BootSpec` |
//! | `stored.rs` | `latlab boot analyze --run ID`: a stored measured boot analysed again |

pub mod analyze;
pub mod experiment;
pub mod file;
pub mod measure;
pub mod rows;
pub mod run;
pub mod stored;
