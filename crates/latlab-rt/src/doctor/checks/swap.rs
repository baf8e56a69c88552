//! The doctor's check of swap and what it does to a woken thread.

use super::*;

/// Swap and what it does to a woken thread.
pub struct Swap;

impl Check for Swap {
    fn inspect(&self, m: &Machine) -> Finding {
        swap(m.src)
    }
}

fn swap(src: &dyn Source) -> Finding {
    let f = Finding::new(
        "swap",
        "Swap and memory locking",
        "a page of a real-time program that was swapped out or dropped costs a major fault (milliseconds) when next touched; locked memory (mlockall) cannot be",
    );
    let swaps =
        src.read("/proc/swaps").map(|s| s.lines().skip(1).filter(|l| !l.trim().is_empty()).count()).unwrap_or(0);
    let limit = src
        .read("/proc/self/limits")
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("Max locked memory"))
                .map(|l| l.split_whitespace().nth(3).unwrap_or("?").to_string())
        })
        .unwrap_or_else(|| "?".into());
    let root = latlab_sys::platform::is_root();
    let can_lock = root || limit == "unlimited";
    let seen = format!(
        "{} swap area(s); locked memory limit {limit}{}",
        swaps,
        if root { " (root: mlockall works regardless)" } else { "" }
    );
    match (swaps > 0, can_lock) {
        (_, true) => f.with(if swaps > 0 { Severity::Note } else { Severity::Fine }, seen, "lock real-time programs' memory (mlockall(MCL_CURRENT|MCL_FUTURE), as latlab rt does)"),
        (true, false) => f.with(Severity::Costly, seen, "raise RLIMIT_MEMLOCK (ulimit -l unlimited, limits.conf memlock) or grant CAP_IPC_LOCK so a real-time program can lock its memory"),
        (false, false) => f.with(Severity::Note, seen, "no swap now, but file pages can still be dropped: raise RLIMIT_MEMLOCK so real-time programs can lock memory"),
    }
}
