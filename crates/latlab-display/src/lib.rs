//! `latlab display`: a remote-display server and client built on RDP's mechanisms
//! (`latlab-rdp`), and the experiments of the Network Projector (seed 000) and Terminal
//! Server (seed 003) studies.

pub mod cache;
pub mod cache_exp;
pub mod capacity;
pub mod decoder;
pub mod defaults;
pub mod editor;
pub mod encoder;
pub mod experiment;
pub mod fb;
pub mod figures;
pub mod latency;
pub mod net;
pub mod ops;
pub mod paper;
pub mod pipeline;
pub mod policy;
pub mod remedies;
pub mod render;
pub mod session;
pub mod typometer;
pub mod wire;
pub mod workload;
