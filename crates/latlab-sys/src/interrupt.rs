//! Ctrl-C: the first SIGINT/SIGTERM/SIGHUP sets a process-wide stop flag that measurement
//! loops poll (one relaxed atomic load, no lock), so the run ends cleanly and is stored as
//! `interrupted`; a second one exits at once with status 130. SIGUSR1 asks a server for its
//! counters ([`status_requested`]).

use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

pub use latlab_model::interrupt::{request_stop, stop_requested};

static HITS: AtomicU32 = AtomicU32::new(0);
static INSTALL: Once = Once::new();

/// Install the handler (idempotent). Errors only if another handler is already installed.
pub fn install() -> Result<(), crate::SysError> {
    let mut res = Ok(());
    INSTALL.call_once(|| {
        res = ctrlc::set_handler(|| {
            if HITS.fetch_add(1, Ordering::SeqCst) >= 1 {
                eprintln!("\ninterrupted twice: exiting without saving");
                std::process::exit(latlab_model::exit::INTERRUPTED);
            }
            request_stop();
        })
        .map_err(|e| crate::SysError::Handler { what: "Ctrl-C", source: e.into() });
    });
    res
}

static USR1: std::sync::OnceLock<std::sync::Arc<AtomicBool>> = std::sync::OnceLock::new();

/// Count SIGUSR1 from now on (idempotent): until then it would kill the process, its default.
pub fn install_status_signal() -> Result<(), crate::SysError> {
    if USR1.get().is_some() {
        return Ok(());
    }
    let flag = std::sync::Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGUSR1, flag.clone())
        .map_err(|e| crate::SysError::Handler { what: "SIGUSR1", source: e.into() })?;
    let _ = USR1.set(flag);
    Ok(())
}

/// True (once per signal) when SIGUSR1 arrived since the last call: print the counters.
pub fn status_requested() -> bool {
    USR1.get().is_some_and(|f| f.swap(false, Ordering::Relaxed))
}
