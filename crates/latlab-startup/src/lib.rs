//! `latlab startup` and `latlab boot` (seed 004): launch plans and prefetch, per-process
//! I/O summaries, and boot-trace analysis.
//!
//! | file | holds |
//! |---|---|
//! | `boot.rs` | `latlab boot analyze`: where a boot's time went, from a boot trace |
//! | `bootexp.rs` | `latlab boot analyze` (a trace file, a stored measured boot, or in the suite this machine's own boot beside … |
//! | `bootfile.rs` | The `latlab.boot/1` boot description `latlab boot measure` runs |
//! | `bootmeasure.rs` | `latlab boot measure`: a boot described by a `latlab.boot/1` file (or the built-in one), run for real, in … |
//! | `bootrows.rs` | The paper rows of `latlab boot measure` (seed 004) |
//! | `bootrun.rs` | Running a boot described by a `BootSpec` |
//! | `bootstored.rs` | `latlab boot analyze --run ID` |
//! | `defaults.rs` | Every default of `latlab startup`, with the reason it has that value |
//! | `device.rs` | The facts that bound what "cold" means for a plan's files |
//! | `experiment.rs` | `latlab startup` (built-in launch, record, measure, io) and `latlab boot analyze` as `Experiment`s |
//! | `figures.rs` | Seed 004's figures: launch times cold, warm and prefetched |
//! | `fixture.rs` | The built-in file-heavy launch, so `startup measure --builtin` and the suite need nothing installed |
//! | `io.rs` | `latlab startup io`: the per-process disk I/O of a scenario (seed 004, Figure 3) |
//! | `iofiles.rs` | The files of `latlab startup io` (seed 004's Figures 3 and 5 name a path beside each process) |
//! | `launch.rs` | Launching a command and timing it to readiness |
//! | `measure.rs` | `latlab startup measure`: launch time in three states, interleaved round by round |
//! | `pagecache.rs` | The page cache, file by file |
//! | `plan.rs` | Launch plans: which files a launch reads, in the order it first reads them, and which page ranges of each |
//! | `preload.rs` | The library of `latlab startup preload` (seed 004's Superfetch proper) |
//! | `preload_measure.rs` | `latlab startup preload measure` |
//! | `preloader.rs` | The preloader of `latlab startup preload` (seed 004's Superfetch) |
//! | `record.rs` | `latlab startup record`: learn a launch plan |
//! | `syscalls.rs` | What the ptrace tracer needs to know per architecture |
//! | `trace.rs` | Which files a launch opens, in order |
//! | `util.rs` | CPU and disk utilisation over time (seed 004's Figures 2 and 4) |

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
