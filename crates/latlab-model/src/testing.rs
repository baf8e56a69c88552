//! What tests share across the workspace: the one way a test says it could not check
//! something here (a missing tool, no root, an in-memory directory).

/// Say a check was skipped, and why. Under `CI=true` this fails instead: CI runs as root
/// with every tool its script installs, so a skip there is a broken install step, not a pass.
#[track_caller]
pub fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("SKIPPED under CI=true, where every check must run: {why}");
    }
    eprintln!("SKIPPED: {why}");
}
