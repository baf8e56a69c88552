//! Running the system tools latlab drives (`ip`, `swapon`, `swapoff`, `mkswap`): the tool's
//! stderr is the error when it fails.

use std::process::Command;

/// Run a system command; its stderr is the error when it fails.
pub fn sh(cmd: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new(cmd).args(args).output().map_err(|e| format!("cannot run `{cmd}`: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("`{cmd} {}`: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}
