//! `latlab display`: a remote-display server and client built on RDP's mechanisms
//! (`latlab-rdp`), and the experiments of the Network Projector (seed 000) and Terminal
//! Server (seed 003) studies.

pub mod fb;
pub mod policy;
pub mod cache;
pub mod decoder;
pub mod encoder;
pub mod render;
pub mod defaults;
pub mod workload;
pub mod wire;
pub mod session;
