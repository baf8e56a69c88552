//! The programs `latlab type` starts and stops: a headless X server of its own (Xvfb), the
//! application typed into, and its window found on the screen; the application's name and
//! version as its package gives them. Dropping one kills what it started, on failure too.

use super::x11::{TopLevel, X11Surface};
use crate::rdp::local::{free_display, on_path, spawn, wait_for};
use std::process::{Child, Command};
use std::time::Duration;

/// A headless X server latlab started.
pub struct OwnXvfb {
    /// Its display (`:N`).
    pub display: String,
    number: u32,
    child: Child,
}

impl OwnXvfb {
    /// Start Xvfb with one `w`×`h` 24-bit screen; returns once its socket exists. It does not
    /// reset when its last client leaves (`-noreset`): one application's exit must not take
    /// the display from under the next.
    pub fn start(w: u16, h: u16) -> Result<Self, String> {
        if !on_path("Xvfb") {
            return Err("no X display to type into: Xvfb is not installed (apt-get install xvfb), or give --on :N for a running X server".into());
        }
        let number = free_display().ok_or("no free X display number in 40..400")?;
        let display = format!(":{number}");
        let screen = format!("{w}x{h}x24");
        let child = spawn(
            Command::new("Xvfb").args([&display, "-screen", "0", &screen, "-nolisten", "tcp", "-noreset"]),
            "Xvfb",
        )?;
        let me = Self { display, number, child };
        let sock = format!("/tmp/.X11-unix/X{number}");
        wait_for("Xvfb", Duration::from_secs(10), || std::path::Path::new(&sock).exists())?;
        Ok(me)
    }
}

impl Drop for OwnXvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(format!("/tmp/.X{}-lock", self.number));
        let _ = std::fs::remove_file(format!("/tmp/.X11-unix/X{}", self.number));
    }
}

/// An application latlab started on a display.
pub struct App {
    child: Child,
    /// Its window.
    pub window: TopLevel,
}

impl App {
    /// Start `argv` on X display `display` and wait up to `timeout` for a new top-level window
    /// (one that was not on the screen before) to be mapped; then wait for its first drawing
    /// to settle.
    pub fn start(argv: &[String], display: &str, x: &X11Surface, timeout: Duration) -> Result<Self, String> {
        let (prog, args) = argv.split_first().ok_or("no application to start: give one after --")?;
        let before: Vec<u32> = x.top_levels()?.iter().map(|t| t.id).collect();
        let mut cmd = Command::new(prog);
        cmd.args(args).env("DISPLAY", display).env_remove("WAYLAND_DISPLAY");
        let child = spawn(&mut cmd, prog).map_err(|e| {
            if e.contains("No such file") { format!("{e}: is {prog} installed and on the PATH?") } else { e }
        })?;
        let mut me = Self { child, window: TopLevel { id: 0, area: x.screen_area() } };
        let mut found = None;
        let mut exited = None;
        let waited = wait_for(&format!("{prog}'s window"), timeout, || {
            if let Ok(Some(st)) = me.child.try_wait() {
                exited = Some(st);
                return true;
            }
            found = x.top_levels().ok().and_then(|t| t.into_iter().rev().find(|w| !before.contains(&w.id)));
            found.is_some()
        });
        if let Some(st) = exited {
            return Err(format!("{prog} exited ({st}) before it showed a window"));
        }
        waited?;
        me.window = found.expect("found when waiting ended without an exit");
        Ok(me)
    }

    /// Its process and every process below it (what `mem` pages out).
    pub fn pids(&self) -> Vec<u32> {
        latlab_sys::pageout::with_descendants(self.child.id())
    }
}

impl Drop for App {
    fn drop(&mut self) {
        // Its children too (a terminal's shell): kill the tree, youngest last.
        for p in self.pids().into_iter().rev() {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(p as i32), nix::sys::signal::Signal::SIGTERM);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The name and version of program `prog` as the package manager knows it (`dpkg`), else the
/// program's path; never runs the program itself (`--version` is not safe to assume).
pub fn product(prog: &str) -> String {
    let path = if prog.contains('/') {
        Some(std::path::PathBuf::from(prog))
    } else {
        std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join(prog)).find(|f| f.is_file()))
    };
    let Some(path) = path else { return prog.to_string() };
    let real = std::fs::canonicalize(&path).unwrap_or(path.clone());
    let pkg = [&path, &real].iter().find_map(|p| {
        let o = Command::new("dpkg-query").arg("-S").arg(p).output().ok()?;
        let s = String::from_utf8(o.stdout).ok()?;
        Some(s.lines().next()?.split(':').next()?.trim().to_string()).filter(|p| !p.is_empty())
    });
    let version = pkg.as_ref().and_then(|p| {
        let o = Command::new("dpkg-query").args(["-W", "-f", "${Version}", p]).output().ok()?;
        String::from_utf8(o.stdout).ok().filter(|v| !v.is_empty())
    });
    match (pkg, version) {
        (Some(p), Some(v)) => format!("{prog} ({p} {v})"),
        _ => format!("{prog} ({}, not from a package latlab can read)", real.display()),
    }
}
