//! `latlab startup` and `latlab boot` (seed 004): launch plans and prefetch, per-process
//! I/O summaries, and boot-trace analysis.
//!
//! | file | holds |
//! |---|---|
//! | `boot/` | `latlab boot`: a boot trace analysed, a described boot run and measured, their rows (see `boot/mod.rs`) |
//! | `defaults.rs` | Every default of `latlab startup`, with the reason it has that value |
//! | `device.rs` | The facts that bound what "cold" means for a plan's files |
//! | `experiment.rs` | `latlab startup` (built-in launch, record, measure, io) and `latlab boot analyze` as `Experiment`s |
//! | `figures.rs` | Seed 004's figures: launch times cold, warm and prefetched |
//! | `fixture.rs` | The built-in file-heavy launch, so `startup measure --builtin` and the suite need nothing installed |
//! | `io.rs`, `io/files.rs` | `latlab startup io`: the per-process disk I/O of a scenario (seed 004, Figure 3); its files (Figures 3 and 5 name a path beside each process) |
//! | `launch.rs` | Launching a command and timing it to readiness |
//! | `learn.rs` | `latlab startup record`: learn a launch plan |
//! | `measure.rs` | `latlab startup measure`: launch time in three states, interleaved round by round |
//! | `pagecache.rs` | The page cache, file by file |
//! | `plan.rs` | Launch plans: which files a launch reads, in the order it first reads them, and which page ranges of each |
//! | `preload/` | `latlab startup preload` (seed 004's Superfetch): the library (`mod.rs`), the preloader (`preloader.rs`), its measurement (`measure.rs`) |
//! | `syscalls.rs` | What the ptrace tracer needs to know per architecture |
//! | `trace.rs` | Which files a launch opens, in order |
//! | `utilisation.rs` | CPU and disk utilisation over time (seed 004's Figures 2 and 4) |

pub mod boot;
pub mod defaults;
pub mod device;
pub mod experiment;
pub mod figures;
pub mod fixture;
pub mod io;
pub mod launch;
pub mod learn;
pub mod measure;
pub mod pagecache;
pub mod plan;
pub mod preload;
pub mod syscalls;
pub mod trace;
pub mod utilisation;
