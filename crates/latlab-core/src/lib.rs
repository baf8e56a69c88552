//! latlab-core: what every latlab experiment shares — clock and deadlines, platform knobs,
//! machine description, statistics, the run record, the SQLite store, exporters, the HTML
//! report, progress and Ctrl-C handling, the polygons load, and the selftest.
#![warn(missing_docs)]

pub mod checkpoint;
pub mod clock;
pub mod compare;
pub mod defaults;
pub mod experiment;
pub mod export;
pub mod fleet;
pub mod interrupt;
pub mod ioerr;
pub mod leftovers;
pub mod load;
pub mod machine;
pub mod netlab;
pub mod numfmt;
pub mod pageout;
pub mod platform;
pub mod progress;
pub mod record;
pub mod report;
pub mod selftest;
pub mod slots;
pub mod spin;
pub mod stats;
pub mod store;
pub mod synth;
pub mod testing;
pub mod tune;
pub mod verdict;

/// latlab's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git commit latlab was built from, when the build could tell.
pub const GIT_COMMIT: Option<&str> = option_env!("LATLAB_GIT_COMMIT");
