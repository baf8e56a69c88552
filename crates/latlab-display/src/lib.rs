//! `latlab display`: the studies of the Network Projector (seed 000) and the Terminal Server
//! (seed 003) on latlab's own display stream and on real RDP servers: what each operation
//! costs on the wire, the bitmap-cache cliff, where the client's CPU goes, key-to-screen
//! latency under load, and how many users a server holds.
//!
//! | file | holds |
//! |---|---|
//! | `cache_exp.rs` | `latlab display cache`: the bitmap-cache cliff (seed 003, Figure 4) |
//! | `capacity.rs` | `latlab display capacity`: users per server (seed 003; `capacity/`) |
//! | `defaults.rs` | Every default of the display studies, with the reason it has that value |
//! | `error.rs` | Why a display study stopped (`DisplayError`), with the error beneath it |
//! | `experiment.rs` | `latlab display` as `Experiment`s |
//! | `figures.rs` | Seeds 000 and 003's figures from `display` runs, one set per mode |
//! | `latency.rs` | `latlab display latency`: key to screen under load (seed 003, section 4; `latency/`) |
//! | `ops.rs` | `latlab display ops`: what each user operation costs on the wire (seed 003, section 3.3) |
//! | `paper.rs` | The published figures of seeds 000 and 003 that both a paper row and a report figure read |
//! | `pipeline.rs` | `latlab display pipeline`: where the client's CPU goes (seed 000; `pipeline/`) |
//! | `rdp/` | The same studies on a real RDP server (`display … --rdp`) |
//! | `remedies.rs` | Seeds 000 and 003's remedies measured with `latlab display` (`latlab tune`) |

pub mod cache_exp;
pub mod capacity;
pub mod defaults;
pub mod error;
pub use error::DisplayError;
pub mod experiment;
pub mod figures;
pub mod latency;
pub mod ops;
pub mod paper;
pub mod pipeline;
pub mod rdp;
pub mod remedies;
