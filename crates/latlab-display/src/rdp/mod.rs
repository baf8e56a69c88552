//! The display studies on a real RDP server (Windows Remote Desktop Services, xrdp, FreeRDP's
//! shadow server…), reached with latlab's RDP client (`latlab-rdp-peers`): `display latency`,
//! `display ops` and `display pipeline` with `--rdp`, measured as they are on latlab's own stream.
//!
//! | file | holds |
//! |---|---|
//! | `config.rs` | what `display … --rdp` runs: the server (the one `--rdp` parser), mode, conditions, checked |
//! | `experiment.rs` | `display latency|ops|pipeline --rdp` as one `Experiment` and its record |
//! | `instances.rs` | seed 003's memory for each instance of a typical application, on the local server |
//! | `ops.rs` | `display ops --rdp`: operations driven by input, bytes per direction and channel |
//! | `paper.rs` | seeds 003 and 000 beside a real server |
//! | `serve.rs` | `display serve --rdp` as an `Experiment`: the server's run and each session's, stored as they end |

pub mod config;
pub mod experiment;
pub mod instances;
pub mod ops;
pub mod paper;
pub mod serve;
