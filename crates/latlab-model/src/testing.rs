//! What tests share across the workspace: the one way a test says it could not check
//! something here (a missing tool, no root, an in-memory directory), and the one way it waits
//! for something another thread does.

/// Say a check was skipped, and why. Under `CI=true` this fails instead: CI runs as root
/// with every tool its script installs, so a skip there is a broken install step, not a pass.
#[track_caller]
pub fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("SKIPPED under CI=true, where every check must run: {why}");
    }
    eprintln!("SKIPPED: {why}");
}

/// Poll `cond` every 5 ms until it holds; fail naming `what` after 10 s (a bound on a hang,
/// not a timing claim).
#[track_caller]
pub fn eventually(what: &str, cond: impl Fn() -> bool) {
    let t = std::time::Instant::now();
    while !cond() {
        assert!(t.elapsed() < std::time::Duration::from_secs(10), "never: {what}");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
