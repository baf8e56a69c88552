//! Ctrl-C: the first SIGINT/SIGTERM/SIGHUP sets a process-wide stop flag that measurement
//! loops poll (one relaxed atomic load, no lock), so the run ends cleanly and is stored as
//! `interrupted` (the same signal again within `defaults::SIGNAL_ECHO`, as `timeout -s INT`
//! sends it, is the same stop); a second one skips saving but never the undo: it puts back every change the
//! process holds (`change::undo_everything`), removes what it made (its processes, namespaces,
//! cgroups and files: `leftovers::mine`), and exits with status 130. SIGUSR1 asks a server
//! for its counters ([`status_requested`]).

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

pub use latlab_model::interrupt::{request_stop, stop_requested};

/// When the first stop signal came (the handler runs on ctrlc's own thread, not in a signal
/// context: a lock is fine).
static FIRST: std::sync::Mutex<Option<std::time::Instant>> = std::sync::Mutex::new(None);
static INSTALL: Once = Once::new();

/// Install the handler (idempotent). Errors only if another handler is already installed.
pub fn install() -> Result<(), crate::SysError> {
    let mut res = Ok(());
    INSTALL.call_once(|| {
        res = ctrlc::set_handler(|| {
            let now = std::time::Instant::now();
            let mut first = FIRST.lock().unwrap_or_else(|p| p.into_inner());
            match *first {
                None => *first = Some(now),
                // The same stop said twice (`timeout -s INT`): one stop.
                Some(t) if now.duration_since(t) < crate::defaults::SIGNAL_ECHO => return,
                Some(_) => second_signal(),
            }
            request_stop();
        })
        .map_err(|e| crate::SysError::Handler { what: "Ctrl-C", source: e.into() });
    });
    res
}

/// How long a second Ctrl-C waits for undo steps other threads are running.
const UNDO_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The second signal: put the machine back, say what was done, exit 130 without saving.
fn second_signal() -> ! {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "\ninterrupted twice: putting the machine back, then exiting without saving");
    for e in crate::change::undo_everything(UNDO_WAIT) {
        let _ = writeln!(err, "warning: {e}");
    }
    for (what, r) in crate::leftovers::remove_all(&crate::leftovers::mine(&crate::leftovers::Places::here())) {
        let _ = match r {
            Ok(()) => writeln!(err, "removed {what}"),
            Err(e) => writeln!(err, "could not remove {what}: {e} (`latlab clean` tries again)"),
        };
    }
    std::process::exit(latlab_model::exit::INTERRUPTED);
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
