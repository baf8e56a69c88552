//! `latlab startup` and `latlab boot` (seed 004): launch plans and prefetch, per-process
//! I/O summaries, and boot-trace analysis.

pub mod boot;
pub mod launch;
pub mod pagecache;
pub mod plan;
pub mod trace;
