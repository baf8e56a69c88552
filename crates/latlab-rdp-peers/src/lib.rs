//! latlab's two RDP peers, on IronRDP and latlab-rdp's wire formats: a client that connects to
//! a real server (Windows Remote Desktop Services, xrdp, FreeRDP's shadow server) and times
//! it, and a server that serves latlab's desktop to real clients and measures each.
//!
//! | file | holds |
//! |---|---|
//! | `connect.rs` | the connection sequence and what the server presented |
//! | `defaults.rs` | Every default of the two peers, with the reason it has that value |
//! | `link.rs` | a server reached through a shaped link between namespaces (a relay) |
//! | `serve/` | latlab's desktop served to real RDP clients, each measured |
//! | `session.rs` | the active phase: decoding into latlab's framebuffer, stage CPU, input |
//! | `trust.rs` | the target, credentials (file, environment, prompt) and known hosts |
//! | `typing.rs` | key to screen on a real server: the client as a typist's `Surface` |

pub mod connect;
pub mod defaults;
pub mod link;
pub mod serve;
pub mod session;
pub mod trust;
pub mod typing;
