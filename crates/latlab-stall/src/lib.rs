//! `latlab stall` and `latlab idle` (seed 003, §3.1 and §4): the typing probe's echo
//! latency and stalls as CPU load grows, and Endo-style lost time on an idle system.

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
