//! Key to screen on any surface that shows pixels and takes keys: the typist (keys on absolute
//! deadlines, latency from the intended time), the glyph detector (typometer's method), the
//! keys as scancodes, the conditions a key is timed under, and the surfaces latlab can start
//! and type into here: an X11 display, a wlroots compositor, FreeRDP's shadow server and xrdp.
//!
//! | file | holds |
//! |---|---|
//! | `condition.rs` | The conditions a key is timed under (unloaded, cpu, mem, a link rate) |
//! | `defaults.rs` | Every default of key to screen, with the reason it has that value |
//! | `error.rs` | The crate's error: what could not be started, read or typed, and why |
//! | `keys.rs` | The keys typed, as PC/AT scancodes (set 1) |
//! | `launch.rs` | The programs started for a surface: Xvfb, sway, the application, as whom |
//! | `local.rs` | A real RDP server on this machine: FreeRDP's shadow server or xrdp, started and stopped (`local/`: its busy screen) |
//! | `started.rs` | A program latlab started: its error output kept to say why it ended, its tree ended when dropped |
//! | `typist.rs` | The typist and its timing on any `Surface` |
//! | `typometer.rs` | Keystroke-to-screen detection by pixels (typometer's method) |
//! | `wayland.rs` | A wlroots compositor's output as a `Surface` |
//! | `x11.rs` | An X11 display as a `Surface` (XTEST keys, MIT-SHM reads) |

pub mod condition;
pub mod defaults;
pub mod error;
pub use error::ScreenError;
pub mod keys;
pub mod launch;
pub mod local;
mod started;
pub mod typist;
pub mod typometer;
pub mod wayland;
pub mod x11;
