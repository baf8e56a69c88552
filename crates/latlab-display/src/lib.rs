//! `latlab display`: a remote-display server and client built on RDP's mechanisms
//! (`latlab-rdp`), and the experiments of the Network Projector (seed 000) and Terminal
//! Server (seed 003) studies.
//!
//! | file | holds |
//! |---|---|
//! | `apps/` | `latlab type`: keystroke to screen on real applications (issue #40) |
//! | `cache.rs` | The server's mirror of the client's bitmap cache |
//! | `cache_exp.rs` | `latlab display cache`: the bitmap-cache cliff (seed 003, Figure 4) |
//! | `capacity.rs` | `latlab display capacity` (seed 003; issue #17) |
//! | `decoder.rs` | The client's display decoder |
//! | `defaults.rs` | Every default of `latlab display`, with the reason it has that value |
//! | `editor.rs` | The typist's editor of `display latency` and `display capacity` (issue #17) |
//! | `encoder.rs` | The server's display encoder |
//! | `experiment.rs` | `latlab display` as `Experiment`s |
//! | `fb.rs` | The framebuffer both ends keep |
//! | `figures.rs` | Seeds 000 and 003's figures from `display` runs, one set per mode |
//! | `keyscreen.rs` | Key to screen on any surface (a real RDP server, X11, Wayland): the typist and its timing |
//! | `latency.rs` | `latlab display latency` (seed 003, §4; issue #17) |
//! | `net/` | The display pipeline across TCP |
//! | `ops.rs` | `latlab display ops`: what each user operation costs on the wire (seed 003, §3.3) |
//! | `paper.rs` | The published figures of seeds 000 and 003 that both a paper row and a report figure read |
//! | `pipeline.rs` | `latlab display pipeline`: where the client's CPU goes (seed 000) |
//! | `policy.rs` | Eviction policies for the server's mirror of the client's bitmap cache |
//! | `rdp/` | latlab as a real RDP client, measuring real servers (issue #38) |
//! | `remedies.rs` | Seeds 000 and 003's remedies measured with `latlab display` (`latlab tune`) |
//! | `render.rs` | The server's drawing surface |
//! | `session.rs` | One display session on virtual time, server and client in one thread |
//! | `typometer.rs` | Keystroke-to-screen detection by pixels (typometer's method), for `display latency` (issue #17) |
//! | `wire.rs` | The display stream on the wire, shaped as RDP fast-path (MS-RDPBCGR 2.2.9.1.2 output, 2.2.8.1.2 input) |
//! | `workload.rs` | Scripted, seeded UI workloads on virtual time |

#[cfg(feature = "rdp-client")]
pub mod apps;
pub mod cache;
pub mod cache_exp;
pub mod condition;
pub mod capacity;
pub mod decoder;
pub mod defaults;
pub mod editor;
pub mod encoder;
pub mod experiment;
pub mod fb;
pub mod figures;
#[cfg(feature = "rdp-client")]
pub mod keyscreen;
pub mod latency;
pub mod net;
pub mod ops;
pub mod paper;
pub mod pipeline;
pub mod pixels;
pub mod policy;
pub mod rdp;
pub mod remedies;
pub mod render;
pub mod session;
pub mod typometer;
pub mod wire;
pub mod workload;
