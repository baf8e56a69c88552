//! The capacity server as its own process: started, its address read, its CPU, faults and
//! memory (PSS) read from `/proc`, and stopped.

use super::*;

/// The server's process, when it is one.
pub(super) struct ServerProc {
    child: std::process::Child,
    pub(super) addr: SocketAddr,
}

impl ServerProc {
    /// Start the server for sessions of up to `most` at once.
    pub(super) fn start(exe: &PathBuf, lab: Option<&NetLab>, most: usize) -> Result<Self, crate::DisplayError> {
        let host = if lab.is_some() { SERVER_ADDR } else { "127.0.0.1" };
        let mut cmd = match lab {
            Some(l) => {
                let mut c = std::process::Command::new("ip");
                c.args(["netns", "exec", &l.server]).arg(exe);
                c
            }
            None => std::process::Command::new(exe),
        };
        latlab_sys::leftovers::mark(&mut cmd);
        // Every session of the largest step at once, and room for them all to wait.
        cmd.args(["display", "serve", "--listen", &format!("{host}:0")])
            .args(["--max-sessions", &most.to_string(), "--max-waiting", &(2 * most).to_string()])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd
            .spawn()
            .map_err(|e| crate::DisplayError::failed(format!("starting the server ({})", exe.display()), e))?;
        let stderr = child.stderr.take().ok_or_else(|| crate::DisplayError::Study("the server's stderr".into()))?;
        let mut line = String::new();
        let mut r = std::io::BufReader::new(stderr);
        r.read_line(&mut line).map_err(|e| crate::DisplayError::failed("reading the server's first line", e))?;
        let addr = line
            .split("listening on ")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .and_then(|a| a.parse().ok())
            .ok_or_else(|| {
                let _ = child.kill();
                crate::DisplayError::Study(format!("the server did not say where it listens: {}", line.trim()))
            })?;
        // Keep draining its reports so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in r.lines() {});
        Ok(Self { child, addr })
    }

    pub(super) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for ServerProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The server's resident memory as PSS, KiB (`/proc/PID/smaps_rollup`).
pub fn pss_kib(pid: u32) -> Option<u64> {
    latlab_sys::procmem::memory(pid).map(|m| m.pss_kib)
}

/// CPU time (user + system) and major faults of a process, from `/proc/PID/stat`.
pub fn cpu_and_faults(pid: u32) -> Option<(u64, u64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command's closing parenthesis: state is field 3.
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let majflt: u64 = f.get(9)?.parse().ok()?;
    let (ut, st): (u64, u64) = (f.get(11)?.parse().ok()?, f.get(12)?.parse().ok()?);
    // SAFETY: sysconf only reads a constant.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Some(((ut + st) * 1_000_000_000 / hz, majflt))
}
