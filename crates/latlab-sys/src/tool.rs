//! Running the system tools latlab drives (`ip`, `swapon`, `swapoff`, `mkswap`): the tool's
//! stderr is the error when it fails.

use crate::ioerr::{Doing, SysError};
use std::process::Command;

/// Run a system command; its stderr is the error when it fails.
pub fn sh(cmd: &str, args: &[&str]) -> Result<(), SysError> {
    let out = Command::new(cmd).args(args).output().doing(format!("running `{cmd}`"))?;
    if out.status.success() {
        Ok(())
    } else {
        let command = format!("{cmd} {}", args.join(" "));
        Err(SysError::Tool { command, stderr: String::from_utf8_lossy(&out.stderr).trim().to_string() })
    }
}
