//! The busy screen of `--conditions busy` on FreeRDP's shadow server: a third xterm beside the
//! two the keys and pages go to, scrolling continuously while the keys are typed.

use super::{LocalShadow, spawn, wait_for};
use std::process::{Child, Command};
use std::time::Duration;

impl LocalShadow {
    /// Make the screen busy: an xterm at its right, clear of the two the keys and pages go to,
    /// printing a line every [`crate::defaults::BUSY_LINE_MS`] ms so it scrolls continuously
    /// (what [`Busy::describe`] says). Stopped when the returned guard is dropped.
    pub fn busy(&self) -> Result<Busy, crate::ScreenError> {
        let (cols, rows, x) = crate::defaults::BUSY_XTERM;
        let script =
            format!("while :; do date +%H:%M:%S.%N; sleep {}; done", crate::defaults::BUSY_LINE_MS as f64 / 1000.0);
        let child = spawn(
            Command::new("xterm").env("DISPLAY", format!(":{}", self.display)).args([
                "-geometry",
                &format!("{cols}x{rows}+{x}+0"),
                "-fn",
                "fixed",
                "+sb",
                "-e",
                "sh",
                "-c",
                &script,
            ]),
            "xterm",
        )?;
        // Until it scrolls: its shell running.
        let pid = child.id();
        let mut guard = Busy { child };
        wait_for("the busy xterm", Duration::from_secs(15), || {
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).is_ok_and(|k| !k.trim().is_empty())
        })
        .inspect_err(|_| guard.stop())?;
        Ok(guard)
    }
}

/// The busy screen's animation ([`LocalShadow::busy`]); stopped when dropped.
pub struct Busy {
    child: Child,
}

impl Busy {
    /// What runs, as the record states it.
    pub fn describe() -> String {
        let (cols, rows, x) = crate::defaults::BUSY_XTERM;
        format!(
            "an xterm of {cols}×{rows} characters (6×13-pixel font: about {}×{} pixels) at x = {x}, a line printed every {} ms so it scrolls continuously",
            cols * 6,
            rows * 13,
            crate::defaults::BUSY_LINE_MS
        )
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop();
    }
}
