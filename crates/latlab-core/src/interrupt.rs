//! Ctrl-C: the first SIGINT/SIGTERM sets a process-wide stop flag that measurement loops
//! poll (one relaxed atomic load, no lock), so the run ends cleanly and is stored as
//! `interrupted`; a second one exits at once with status 130.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
static HITS: AtomicU32 = AtomicU32::new(0);
static INSTALL: Once = Once::new();

/// Exit status used when a run was interrupted (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Install the handler (idempotent). Errors only if another handler is already installed.
pub fn install() -> Result<(), String> {
    let mut res = Ok(());
    INSTALL.call_once(|| {
        res = ctrlc::set_handler(|| {
            if HITS.fetch_add(1, Ordering::SeqCst) >= 1 {
                eprintln!("\ninterrupted twice: exiting without saving");
                std::process::exit(EXIT_INTERRUPTED);
            }
            STOP.store(true, Ordering::SeqCst);
        })
        .map_err(|e| format!("cannot install the Ctrl-C handler: {e}"));
    });
    res
}

/// True once the user asked to stop.
#[inline]
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Ask every measurement loop to stop (as Ctrl-C does); used by tests and by errors.
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}
