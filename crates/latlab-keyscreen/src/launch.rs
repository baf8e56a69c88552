//! The programs `latlab type` starts and stops: a headless X server of its own (Xvfb), the
//! application typed into, and its window found on the screen; the application's name and
//! version as its package gives them. Dropping one kills what it started, on failure too.

use crate::local::{free_display, on_path, spawn, wait_for};
pub use crate::started::Started;
use crate::started::last_lines;
use crate::x11::{TopLevel, X11Surface};
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
    pub fn start(w: u16, h: u16) -> Result<Self, crate::ScreenError> {
        if !on_path("Xvfb") {
            return Err(crate::ScreenError::Screen("no X display to type into: Xvfb is not installed (apt-get install xvfb), or give --on :N for a running X server".into()));
        }
        let number =
            free_display().ok_or_else(|| crate::ScreenError::Screen("no free X display number in 40..400".into()))?;
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
    child: Started,
    /// Its window.
    pub window: TopLevel,
}

impl App {
    /// Start `argv` on X display `display` and wait up to `timeout` for a new top-level window
    /// (one that was not on the screen before) to be mapped; then wait for its first drawing
    /// to settle.
    pub fn start(
        argv: &[String],
        display: &str,
        x: &X11Surface,
        timeout: Duration,
    ) -> Result<Self, crate::ScreenError> {
        let (prog, args) = argv
            .split_first()
            .ok_or_else(|| crate::ScreenError::Screen("no application to start: give one after --".into()))?;
        let before: Vec<u32> = x.top_levels()?.iter().map(|t| t.id).collect();
        let mut cmd = Command::new(prog);
        cmd.args(args).env("DISPLAY", display).env_remove("WAYLAND_DISPLAY");
        let child = Started::spawn(&mut cmd, prog)?;
        let mut me = Self { child, window: TopLevel { id: 0, area: x.screen_area() } };
        let mut found = None;
        let mut exited = None;
        let waited = wait_for(&format!("{prog}'s window"), timeout, || {
            if let Some(st) = me.child.exited() {
                exited = Some(st);
                return true;
            }
            found = x.top_levels().ok().and_then(|t| t.into_iter().rev().find(|w| !before.contains(&w.id)));
            found.is_some()
        });
        if let Some(st) = exited {
            return Err(me.child.exit_error(st, "before it showed a window"));
        }
        waited?;
        me.window = found.expect("found when waiting ended without an exit");
        Ok(me)
    }

    /// Its process and every process below it (what `mem` pages out).
    pub fn pids(&self) -> Vec<u32> {
        self.child.pids()
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

/// Start `argv` on a running Wayland compositor (`--on`), as this user.
pub fn spawn_on(socket: &std::path::Path, argv: &[String]) -> Result<Started, crate::ScreenError> {
    let (prog, args) = argv
        .split_first()
        .ok_or_else(|| crate::ScreenError::Screen("no application to start: give one after --".into()))?;
    let mut cmd = Command::new(prog);
    cmd.args(args).env("WAYLAND_DISPLAY", socket).env_remove("DISPLAY");
    Started::spawn(&mut cmd, prog)
}

/// Who a compositor and its applications run as: sway refuses to run as root, so root runs
/// them as an unprivileged account (`nobody` unless told).
#[derive(Debug, Clone)]
pub struct RunAs {
    /// The account's name.
    pub name: String,
    uid: u32,
    gid: u32,
}

impl RunAs {
    /// The account `name` when latlab is root (default `nobody`); this process's own
    /// otherwise.
    pub fn pick(name: Option<&str>) -> Result<Option<Self>, crate::ScreenError> {
        if !latlab_sys::platform::is_root() {
            return Ok(None);
        }
        let name = name.unwrap_or(crate::defaults::TYPE_WAYLAND_USER);
        let u = nix::unistd::User::from_name(name)
            .map_err(|e| crate::ScreenError::start(format!("looking up account {name}"), e))?
            .ok_or_else(|| {
                crate::ScreenError::not_started(format!(
                    "no account {name} to run the compositor as (sway refuses root): give --wayland-user"
                ))
            })?;
        if u.uid.is_root() {
            return Err(crate::ScreenError::Screen(format!(
                "account {name} is root: sway refuses to run as root; give --wayland-user an unprivileged account"
            )));
        }
        Ok(Some(Self { name: name.to_string(), uid: u.uid.as_raw(), gid: u.gid.as_raw() }))
    }

    fn apply(&self, cmd: &mut Command) {
        use std::os::unix::process::CommandExt;
        cmd.uid(self.uid).gid(self.gid);
    }
}

/// A headless wlroots compositor (sway) latlab started, with its own runtime directory.
pub struct OwnSway {
    /// Its socket.
    pub socket: std::path::PathBuf,
    /// Its runtime directory (`XDG_RUNTIME_DIR` for its applications; also their `HOME`).
    pub dir: std::path::PathBuf,
    /// Who it runs as.
    pub user: Option<RunAs>,
    /// Its output's refresh rate, Hz.
    pub refresh_hz: u32,
    child: Child,
}

impl OwnSway {
    /// Start sway headless (pixman renderer, no input devices) with one `w`×`h` output at
    /// `refresh_hz`, as `user`; returns once its socket exists.
    pub fn start(w: u16, h: u16, refresh_hz: u32, user: Option<RunAs>) -> Result<Self, crate::ScreenError> {
        if !on_path("sway") {
            return Err(crate::ScreenError::Screen("no Wayland compositor to type into: sway is not installed (apt-get install sway), or give --on with a running wlroots compositor's socket".into()));
        }
        let dir = std::env::temp_dir().join(format!("latlab-wayland-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("home"))
            .map_err(|e| crate::ScreenError::start(format!("{}", dir.display()), e))?;
        let config = dir.join("sway.config");
        // No bar, no borders: the application fills the output.
        std::fs::write(
            &config,
            format!(
                "output HEADLESS-1 mode --custom {w}x{h}@{refresh_hz}Hz\ndefault_border none\nfocus_follows_mouse no\n"
            ),
        )
        .map_err(|e| crate::ScreenError::start(format!("{}", config.display()), e))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| crate::ScreenError::start(format!("securing {}", dir.display()), e))?;
        if let Some(u) = &user {
            for p in [dir.clone(), dir.join("home"), config.clone()] {
                nix::unistd::chown(
                    &p,
                    Some(nix::unistd::Uid::from_raw(u.uid)),
                    Some(nix::unistd::Gid::from_raw(u.gid)),
                )
                .map_err(|e| crate::ScreenError::start(format!("giving {} to {}", p.display(), u.name), e))?;
            }
        }
        let log =
            std::fs::File::create(dir.join("sway.log")).map_err(|e| crate::ScreenError::start("sway's log file", e))?;
        let mut cmd = Command::new("sway");
        cmd.arg("-c").arg(&config);
        Self::env(&mut cmd, &dir);
        cmd.env("WLR_BACKENDS", "headless").env("WLR_LIBINPUT_NO_DEVICES", "1").env("WLR_RENDERER", "pixman");
        if let Some(u) = &user {
            u.apply(&mut cmd);
        }
        latlab_sys::owner::mark(&mut cmd)
            .stdin(std::process::Stdio::null())
            .stdout(log.try_clone().map_err(|e| crate::ScreenError::start("sway's log file", e))?)
            .stderr(log);
        let child = cmd.spawn().map_err(|e| crate::ScreenError::start("sway".to_string(), e))?;
        let mut me = Self { socket: dir.join("wayland-1"), dir, user, refresh_hz, child };
        let mut exited = None;
        let found = wait_for("sway", Duration::from_secs(15), || {
            if let Ok(Some(st)) = me.child.try_wait() {
                exited = Some(st);
                return true;
            }
            std::fs::read_dir(&me.dir)
                .ok()
                .and_then(|d| {
                    d.flatten().map(|e| e.path()).find(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("wayland-") && !n.ends_with(".lock"))
                    })
                })
                .map(|p| me.socket = p)
                .is_some()
        });
        if let Some(st) = exited {
            let log = std::fs::read_to_string(me.dir.join("sway.log")).unwrap_or_default();
            return Err(crate::ScreenError::Screen(format!(
                "sway exited ({st}) before it listened: {}",
                last_lines(&log, crate::defaults::TYPE_STDERR_TAIL_LINES)
            )));
        }
        found?;
        Ok(me)
    }

    /// What a program needs to reach this compositor.
    fn env(cmd: &mut Command, dir: &std::path::Path) {
        cmd.env("XDG_RUNTIME_DIR", dir)
            .env("HOME", dir.join("home"))
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY");
    }

    /// Start `argv` on this compositor, as its user. Run as another account, a terminal is
    /// given latlab's own shell (`$SHELL`, else [`crate::defaults::TYPE_SHELL_FALLBACK`]), not
    /// that account's login shell (`nologin` for `nobody`).
    pub fn spawn(&self, argv: &[String]) -> Result<Started, crate::ScreenError> {
        let (prog, args) = argv
            .split_first()
            .ok_or_else(|| crate::ScreenError::Screen("no application to start: give one after --".into()))?;
        // Found here, on latlab's PATH: run as another account, the program would be looked
        // for on root's PATH as that account, and a directory closed to it reads as
        // "Permission denied" whether the program is there or not.
        let found = crate::local::which(prog).ok_or_else(|| {
            crate::ScreenError::not_started(format!("{prog} is not installed (no {prog} on the PATH)"))
        })?;
        if let Some(u) = &self.user
            && let Some(closed) = closed_to_others(&found)
        {
            return Err(crate::ScreenError::not_started(format!(
                "{} cannot be run by {}, the account the compositor's applications run as: {} is closed to other users; install {prog} where every user can run it, or give --wayland-user an account that may",
                found.display(),
                u.name,
                closed.display()
            )));
        }
        let mut cmd = Command::new(&found);
        cmd.args(args);
        Self::env(&mut cmd, &self.dir);
        cmd.env("WAYLAND_DISPLAY", self.socket.file_name().unwrap_or_default());
        if let Some(u) = &self.user {
            u.apply(&mut cmd);
            cmd.env("SHELL", shell_for_others(std::env::var_os("SHELL")));
        }
        Started::spawn(&mut cmd, prog)
    }
}

/// The first of `path` and the directories above it that other users may not pass (a
/// directory without their execute bit) or run (the file without it); `None`: they may.
fn closed_to_others(path: &std::path::Path) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let open = |p: &std::path::Path| std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o001 != 0);
    let mut dirs: Vec<&std::path::Path> = path.ancestors().skip(1).filter(|d| !d.as_os_str().is_empty()).collect();
    dirs.reverse();
    dirs.into_iter().find(|d| !open(d)).map(|d| d.to_path_buf()).or_else(|| (!open(path)).then(|| path.to_path_buf()))
}

/// The shell a terminal run as another account is given: `shell` (latlab's `$SHELL`) when it
/// is an absolute path to a file, else [`crate::defaults::TYPE_SHELL_FALLBACK`].
fn shell_for_others(shell: Option<std::ffi::OsString>) -> std::ffi::OsString {
    shell
        .filter(|s| std::path::Path::new(s).is_absolute() && std::path::Path::new(s).is_file())
        .unwrap_or_else(|| crate::defaults::TYPE_SHELL_FALLBACK.into())
}

impl Drop for OwnSway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_of_an_error_output_is_its_last_non_empty_lines() {
        assert_eq!(last_lines("", 5), "");
        assert_eq!(last_lines("one\n\n  two  \n", 5), "one | two");
        assert_eq!(last_lines("1\n2\n3\n4\n5\n6\n7\n", 3), "5 | 6 | 7");
    }

    #[test]
    fn a_terminal_run_as_another_account_gets_a_real_shell() {
        let sh = crate::defaults::TYPE_SHELL_FALLBACK;
        assert_eq!(shell_for_others(None), sh);
        assert_eq!(shell_for_others(Some("bash".into())), sh, "not an absolute path");
        assert_eq!(shell_for_others(Some("/nonexistent/zsh".into())), sh, "not a file");
        assert_eq!(shell_for_others(Some("/bin/sh".into())), "/bin/sh");
    }
}
