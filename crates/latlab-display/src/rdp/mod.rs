//! latlab as a real RDP client (issue #38): it connects to a real server (Windows Remote
//! Desktop Services, xrdp, FreeRDP's shadow server…) with IronRDP's connector and measures it
//! as `display latency`, `display ops` and `display pipeline` measure latlab's own stream.
//!
//! | file | holds |
//! |---|---|
//! | `trust.rs` | the target, credentials (file, environment, prompt) and known hosts |
//! | `connect.rs` | the connection sequence and what the server presented |
//! | `fastpath.rs` | fast-path output: headers, latlab's bulk decompression, reassembly |
//! | `slowpath.rs` | slow-path data PDUs: Update PDUs read by latlab, the rest rebuilt for IronRDP |
//! | `stream.rs` | latlab's side of the display stream: both paths into the decoder, counted |
//! | `session.rs` | the active phase: decoding into latlab's framebuffer, stage CPU, input |
//! | `keys.rs` | the keys typed, as scancodes |
//! | `typing.rs` | key to screen: typing on deadlines, glyphs found on the decoded screen |
//! | `experiment.rs` | `display latency|ops|pipeline --rdp` as one `Experiment` and its record |
//! | `link.rs` | a server reached through a shaped link between namespaces (a relay) |
//! | `ops.rs` | `display ops --rdp`: operations driven by input, bytes per direction and channel |
//! | `paper.rs` | seeds 003 and 000 beside a real server |
//! | `local.rs` | a real server on this machine: FreeRDP's shadow server over Xvfb and xterm |
//! | `serve/` | the other way round (issue #39): latlab's desktop served to real RDP clients, each measured |

//!
//! The parsers of a server's stream (`fastpath`, `slowpath`, `stream`) are always built; the
//! client itself is the default feature `rdp-client` (the fuzz build leaves it out).

pub mod fastpath;
pub mod slowpath;
pub mod stream;

#[cfg(feature = "rdp-client")]
pub mod connect;
#[cfg(feature = "rdp-client")]
pub mod experiment;
#[cfg(feature = "rdp-client")]
pub mod keys;
#[cfg(feature = "rdp-client")]
pub mod link;
#[cfg(feature = "rdp-client")]
pub mod local;
#[cfg(feature = "rdp-client")]
pub mod ops;
#[cfg(feature = "rdp-client")]
pub mod paper;
#[cfg(feature = "rdp-client")]
pub mod serve;
#[cfg(feature = "rdp-client")]
pub mod session;
#[cfg(feature = "rdp-client")]
pub mod trust;
#[cfg(feature = "rdp-client")]
pub mod typing;
