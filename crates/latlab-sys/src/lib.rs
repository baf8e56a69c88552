//! latlab-sys: the machine mechanics experiments measure with — clocks and deadlines,
//! scheduling and memory knobs, the machine's description, loads, network namespaces, page-out,
//! cgroups and every change's undo, and what a killed run leaves behind.
//!
//! | file | holds |
//! |---|---|
//! | `clock.rs` | monotonic time, absolute-deadline sleeping, timer slack |
//! | `platform.rs` | scheduling, affinity, memory locking, cpu_dma_latency, RT throttling |
//! | `machine.rs` | reading the machine description |
//! | `background.rs` | the machine's own background during a quiet phase: pressure, steal, other runnable tasks |
//! | `record.rs` | records begun and finished as of now |
//! | `remedy.rs` | a study's remedy as its experiment declares it |
//! | `interrupt.rs` | the Ctrl-C and SIGUSR1 handlers |
//! | `load.rs`, `spin.rs` | the polygons load; spinning processes |
//! | `netlab.rs` | network namespaces and a shaped link |
//! | `pageout.rs` | memory pressure on a process's own pages |
//! | `procmem.rs` | a process's memory: PSS and its private pages |
//! | `cgroup.rs`, `change.rs`, `shield.rs` | cgroups, undoable machine changes, CPU shielding |
//! | `owner.rs`, `leftovers.rs` | whose an object is; finding and clearing what killed runs left |
//! | `door.rs` | the front door of latlab's servers: one admission gate and serve loop for any protocol |
//! | `tool.rs` | running system tools |
//! | `wake.rs` | how one thread wakes another: eventfd, futex, pipe or condvar |
//! | `tcpinfo.rs` | what the kernel counted on a TCP connection (`TCP_INFO`) |
//! | `ioerr.rs`, `slots.rs` | I/O errors with context and the crate's error (`SysError`); per-sample slots |
//! | `defaults.rs` | the mechanics' defaults |
#![warn(missing_docs)]

pub mod background;
pub mod cgroup;
pub mod change;
pub mod clock;
pub mod defaults;
pub mod door;
pub mod interrupt;
pub mod ioerr;
pub use ioerr::SysError;
pub mod leftovers;
pub mod load;
pub mod machine;
pub mod netlab;
pub mod owner;
pub mod pageout;
pub mod platform;
pub mod procmem;
pub mod record;
pub mod remedy;
pub mod shield;
pub mod slots;
pub mod spin;
pub mod tcpinfo;
pub mod tool;
pub mod wake;
