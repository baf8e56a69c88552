//! The process-wide stop flag: set by Ctrl-C (`latlab_sys::interrupt` installs the handler)
//! or by [`request_stop`], polled by measurement loops with one relaxed atomic load.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

/// True once the user asked to stop.
#[inline]
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Ask every measurement loop to stop (as Ctrl-C does); used by tests and by errors.
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}
