//! `latlab startup` and `latlab boot` (seed 004): launch plans and prefetch, per-process
//! I/O summaries, and boot-trace analysis.

pub mod boot;
pub mod bootexp;
pub mod bootfile;
pub mod bootmeasure;
pub mod bootrows;
pub mod bootrun;
pub mod bootstored;
pub mod defaults;
pub mod device;
pub mod experiment;
pub mod figures;
pub mod fixture;
pub mod io;
pub mod iofiles;
pub mod launch;
pub mod measure;
pub mod pagecache;
pub mod plan;
pub mod preload;
pub mod preload_measure;
pub mod preloader;
pub mod record;
pub mod syscalls;
pub mod trace;
pub mod util;
