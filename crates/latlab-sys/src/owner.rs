//! Whose an object is: latlab names objects it makes `latlab-<what>-<pid>` and marks the
//! processes it starts with `LATLAB_OWNER=<pid>`, so an object whose owner is gone is known
//! for a leftover (found and removed by `leftovers`, or by the mechanic that makes its kind).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable that marks a process latlab started, with its owner's pid.
pub const OWNER_ENV: &str = "LATLAB_OWNER";

/// The latlab name of an object of kind `what` owned by this process: `latlab-<what>-<pid>`.
pub fn name(what: &str) -> String {
    format!("latlab-{what}-{}", std::process::id())
}

/// Mark a process about to be started as this latlab's, in a process group of its own: a
/// terminal's Ctrl-C (or `timeout -s INT`) goes to the whole foreground group, and a server
/// that died of it would end the run in an error instead of an interrupted run; latlab stops
/// what it started itself, in order.
pub fn mark(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    cmd.env(OWNER_ENV, std::process::id().to_string()).process_group(0)
}

/// The owner's pid in a latlab name: `latlab-` and then the first segment that is a number
/// (`latlab-swap-123`, `latlab-123-0-c`, `latlab-tune-123-others`). None: not latlab's.
pub fn owner(name: &str) -> Option<u32> {
    name.strip_prefix("latlab-")?.split(['-', '.']).find_map(|s| s.parse::<u32>().ok().filter(|p| *p > 0))
}

/// Whether process `pid` is alive (this one always is).
pub(crate) fn alive(pid: u32) -> bool {
    pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists()
}

/// Entries of `dir` with a latlab name whose owner is gone.
pub(crate) fn stale_in(dir: &Path) -> Vec<PathBuf> {
    owned_in(dir, |p| !alive(p))
}

/// Entries of `dir` with a latlab name whose owner's pid `takes` accepts, sorted.
pub(crate) fn owned_in(dir: &Path, takes: impl Fn(u32) -> bool) -> Vec<PathBuf> {
    let Ok(d) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut v: Vec<PathBuf> =
        d.flatten().filter(|e| owner(&e.file_name().to_string_lossy()).is_some_and(&takes)).map(|e| e.path()).collect();
    v.sort();
    v
}

/// Say on stderr what became of a leftover a run removed before making objects like it (the
/// run goes on either way).
pub fn report(what: &str, r: Result<(), crate::SysError>) {
    match r {
        Ok(()) => eprintln!("latlab: removed {what}, left by a latlab that is gone"),
        Err(e) => eprintln!("latlab: could not remove {what} (left by a latlab that is gone): {e}"),
    }
}
