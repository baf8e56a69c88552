//! `latlab stall` and `latlab idle` (seed 003, §3.1 and §4): the typing probe's echo
//! latency and stalls as CPU load grows, and Endo-style lost time on an idle system.
//!
//! | file | holds |
//! |---|---|
//! | `analysis.rs` | The typing probe's arithmetic |
//! | `cpu.rs` | `latlab stall`: the typing probe under CPU load (seed 003, §4.1, Figure 5) |
//! | `defaults.rs` | Every default of `latlab stall` and `latlab idle`, with the reason it has that value |
//! | `experiment.rs` | `latlab stall` (CPU, memory, network) and `latlab idle` as `Experiment`s |
//! | `figures.rs` | Seed 003's stall figures: time waiting against CPU load (Figure 5) and round trip against offered load … |
//! | `idle.rs` | `latlab idle`: lost time on an idle system, after Endo et al |
//! | `mem.rs` | `latlab stall mem`: the warm-start test (seed 003, §4.2) |
//! | `net.rs` | `latlab stall net`: round-trip time under network load (seed 003, §4.3, Figure 6) |
//! | `pressure.rs` | `latlab stall pressure`: seed 003 §4.2's situation built for real, not forced with `MADV_PAGEOUT` |
//! | `probe.rs` | The typing probe: a key every interval on absolute deadlines to a small interactive server (a thread at the … |
//! | `remedies.rs` | Seed 003 §4.2's remedies, measured with `latlab stall pressure` (`latlab tune`) |

pub mod analysis;
pub mod cpu;
pub mod defaults;
pub mod experiment;
pub mod figures;
pub mod idle;
pub mod mem;
pub mod net;
pub use latlab_sys::netlab;
pub mod pressure;
pub mod probe;
pub mod remedies;
