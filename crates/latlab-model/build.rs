//! Records the git commit latlab is built from (LATLAB_GIT_COMMIT), if git can tell.
fn main() {
    println!("cargo:rerun-if-changed=../../.git/HEAD");
    println!("cargo:rerun-if-changed=../../.git/refs/heads");
    println!("cargo:rerun-if-env-changed=LATLAB_GIT_COMMIT");
    if std::env::var("LATLAB_GIT_COMMIT").is_ok() {
        return;
    }
    let out = std::process::Command::new("git").args(["rev-parse", "--short=12", "HEAD"]).output();
    if let Ok(o) = out
        && o.status.success()
    {
        let c = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if !c.is_empty() {
            println!("cargo:rustc-env=LATLAB_GIT_COMMIT={c}");
        }
    }
}
