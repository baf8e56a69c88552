//! Launching a command and timing it to readiness: process exit, a line of its output that
//! matches a pattern, or a TCP port on loopback accepting. The command runs in its own
//! process group, which is killed once readiness is decided, so a launch never outlives its
//! measurement. Optionally the launch runs under the ptrace tracer (see `trace`).

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::time::{Duration, Instant};

/// When a launch counts as done.
#[derive(Debug, Clone)]
pub enum Ready {
    /// The command exits with status 0.
    Exit,
    /// A line of its standard output or error matches.
    Line(regex::Regex),
    /// A TCP connect to 127.0.0.1:port succeeds.
    Port(u16),
}

impl Ready {
    /// How the run record names it.
    pub fn describe(&self) -> String {
        match self {
            Ready::Exit => "exit".into(),
            Ready::Line(r) => format!("line matching /{}/", r.as_str()),
            Ready::Port(p) => format!("TCP port {p} on 127.0.0.1 accepting"),
        }
    }
}

/// Stored as the run record names it ([`Ready::describe`]).
impl serde::Serialize for Ready {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.describe())
    }
}

/// What to launch and when it is ready.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LaunchSpec {
    /// Program and arguments.
    pub command: Vec<String>,
    /// Readiness.
    pub ready: Ready,
    /// Longest a launch may take before it is killed and reported.
    pub timeout: Duration,
}

/// Why a launch did not reach readiness.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// Nothing to run.
    #[error("no command given: put it after `--`, e.g. `latlab startup measure -- /usr/bin/app --flag`")]
    NoCommand,
    /// The program could not be started.
    #[error("cannot start '{program}': {err}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        err: std::io::Error,
    },
    /// Exit was the readiness and it was not a success.
    #[error("'{program}' exited with {status}{tail}")]
    Failed {
        /// The program.
        program: String,
        /// Its status.
        status: String,
        /// The end of its standard error, if any.
        tail: String,
    },
    /// It ended before the line or port appeared.
    #[error("'{program}' exited ({status}) before it was ready ({ready}){tail}")]
    ExitedBeforeReady {
        /// The program.
        program: String,
        /// Its status.
        status: String,
        /// The readiness waited for.
        ready: String,
        /// The end of its standard error, if any.
        tail: String,
    },
    /// Not ready in time.
    #[error("'{program}' was not ready ({ready}) within {secs} s: killed (raise --timeout, or check the readiness)")]
    Timeout {
        /// The program.
        program: String,
        /// The readiness waited for.
        ready: String,
        /// The limit.
        secs: f64,
    },
    /// The tracer failed.
    #[error("ptrace tracer")]
    Trace(#[source] crate::trace::TraceError),
}

/// One finished launch.
#[derive(Debug, Clone)]
pub struct Launch {
    /// From `t0` (before the spawn, or before the prefetch that goes with it) to readiness.
    pub ready_ns: u64,
    /// Files the launch opened, in order (ptrace only; empty otherwise).
    pub opened: Vec<PathBuf>,
}

/// What the helpers report; the first decisive one wins.
#[derive(Debug)]
enum Event {
    Ready(Instant),
    Exited(Instant, String, bool),
    TimedOut,
}

/// Launch `spec`, timing from `t0`. With `ptrace`, the calling thread traces the launch and
/// its children and returns the files they opened.
pub fn launch(spec: &LaunchSpec, t0: Instant, ptrace: bool) -> Result<Launch, LaunchError> {
    launch_in(spec, t0, ptrace, None)
}

/// Make the child join the control group whose `cgroup.procs` is open as `procs` before it
/// executes the command (so what it reads is charged to that group).
fn join_cgroup_on_exec(cmd: &mut Command, procs: std::os::fd::RawFd) {
    // SAFETY: the closure runs in the forked child before exec and makes one system call,
    // write(2) of a static buffer ("0": the writing process), which is async-signal-safe; it
    // allocates nothing. The descriptor is the parent's, open until the spawn returns.
    unsafe {
        cmd.pre_exec(move || {
            if libc::write(procs, b"0".as_ptr().cast(), 1) == 1 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
        });
    }
}

/// [`launch`], the command placed in the control group whose `cgroup.procs` file is `group`.
pub fn launch_in(
    spec: &LaunchSpec,
    t0: Instant,
    ptrace: bool,
    group: Option<&std::fs::File>,
) -> Result<Launch, LaunchError> {
    let program = spec.command.first().ok_or(LaunchError::NoCommand)?.clone();
    let mut cmd = Command::new(&program);
    latlab_sys::leftovers::mark(&mut cmd);
    cmd.args(&spec.command[1..]).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    if ptrace {
        crate::trace::ask_to_be_traced(&mut cmd);
    }
    if let Some(g) = group {
        join_cgroup_on_exec(&mut cmd, std::os::fd::AsRawFd::as_raw_fd(g));
    }
    let mut child = cmd.spawn().map_err(|err| LaunchError::Spawn { program: program.clone(), err })?;
    let pid = Pid::from_raw(child.id() as i32);
    let (tx, rx) = channel();
    let stop = Arc::new(AtomicBool::new(false));
    let tail = Arc::new(std::sync::Mutex::new(String::new()));
    let mut helpers = Vec::new();
    let line = match &spec.ready {
        Ready::Line(r) => Some(r.clone()),
        _ => None,
    };
    if let Some(out) = child.stdout.take() {
        helpers.push(watch_output(out, line.clone(), pid, tx.clone(), None));
    }
    if let Some(err) = child.stderr.take() {
        helpers.push(watch_output(err, line, pid, tx.clone(), Some(tail.clone())));
    }
    if let Ready::Port(port) = spec.ready {
        let (tx, stop) = (tx.clone(), stop.clone());
        helpers.push(std::thread::spawn(move || poll_port(port, pid, &tx, &stop)));
    }
    let (watchdog_tx, watchdog_rx) = channel::<()>();
    {
        let (tx, timeout) = (tx.clone(), spec.timeout);
        helpers.push(std::thread::spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = watchdog_rx.recv_timeout(timeout) {
                let _ = tx.send(Event::TimedOut);
                let _ = killpg(pid, Signal::SIGKILL);
            }
        }));
    }
    let mut opened = Vec::new();
    let mut trace_err = None;
    if ptrace {
        drop(child);
        let exited = |t, text, ok| {
            let _ = tx.send(Event::Exited(t, text, ok));
        };
        match crate::trace::ptrace_loop(pid, &exited) {
            Ok(files) => opened = files,
            Err(e) => {
                let _ = killpg(pid, Signal::SIGKILL);
                trace_err = Some(e);
            }
        }
    } else {
        let tx = tx.clone();
        helpers.push(std::thread::spawn(move || {
            let status = child.wait();
            let t = Instant::now();
            let (text, ok) = match status {
                Ok(s) => (s.to_string(), s.success()),
                Err(e) => (format!("unknown status ({e})"), false),
            };
            let _ = tx.send(Event::Exited(t, text, ok));
        }));
    }
    drop(tx);
    // The first event decides: for a line or a port, an exit only counts when it comes first.
    let first = rx.recv().ok();
    let _ = killpg(pid, Signal::SIGKILL);
    stop.store(true, Ordering::Relaxed);
    drop(watchdog_tx);
    for h in helpers {
        let _ = h.join();
    }
    if let Some(e) = trace_err {
        return Err(LaunchError::Trace(e));
    }
    let tail = tail_text(&tail.lock().map(|t| t.clone()).unwrap_or_default());
    let ready = spec.ready.describe();
    match first {
        Some(Event::Ready(t)) => Ok(Launch { ready_ns: t.saturating_duration_since(t0).as_nanos() as u64, opened }),
        Some(Event::Exited(t, _, true)) if matches!(spec.ready, Ready::Exit) => {
            Ok(Launch { ready_ns: t.saturating_duration_since(t0).as_nanos() as u64, opened })
        }
        Some(Event::Exited(_, status, _)) if matches!(spec.ready, Ready::Exit) => {
            Err(LaunchError::Failed { program, status, tail })
        }
        Some(Event::Exited(_, status, _)) => Err(LaunchError::ExitedBeforeReady { program, status, ready, tail }),
        Some(Event::TimedOut) | None => Err(LaunchError::Timeout { program, ready, secs: spec.timeout.as_secs_f64() }),
    }
}

/// Read one output stream to its end, keeping the last of it (stderr) and announcing the
/// first line that matches.
fn watch_output(
    stream: impl Read + Send + 'static,
    pattern: Option<regex::Regex>,
    pid: Pid,
    tx: Sender<Event>,
    keep: Option<Arc<std::sync::Mutex<String>>>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut r = BufReader::new(stream);
        let mut buf = Vec::new();
        let mut matched = false;
        loop {
            buf.clear();
            match r.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let line = String::from_utf8_lossy(&buf);
            if !matched && pattern.as_ref().is_some_and(|p| p.is_match(line.trim_end())) {
                matched = true;
                let _ = tx.send(Event::Ready(Instant::now()));
                let _ = killpg(pid, Signal::SIGKILL);
            }
            if let Some(k) = &keep
                && let Ok(mut k) = k.lock()
            {
                k.push_str(&line);
                if k.len() > 4096 {
                    let cut = k.len() - 2048;
                    let cut = (cut..k.len()).find(|&i| k.is_char_boundary(i)).unwrap_or(k.len());
                    k.drain(..cut);
                }
            }
        }
    })
}

/// The last lines of standard error, for an error message.
fn tail_text(s: &str) -> String {
    let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let from = lines.len().saturating_sub(5);
    format!("; its standard error ended:\n  {}", lines[from..].join("\n  "))
}

/// Try to connect every millisecond until it works or the launch is decided.
fn poll_port(port: u16, pid: Pid, tx: &Sender<Event>, stop: &AtomicBool) {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    while !stop.load(Ordering::Relaxed) {
        if std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(100)).is_ok() {
            let _ = tx.send(Event::Ready(Instant::now()));
            let _ = killpg(pid, Signal::SIGKILL);
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(cmd: &[&str], ready: Ready) -> LaunchSpec {
        LaunchSpec { command: cmd.iter().map(|s| s.to_string()).collect(), ready, timeout: Duration::from_secs(20) }
    }

    #[test]
    fn exit_is_readiness_and_a_failure_says_what_the_command_wrote() {
        let l = launch(&spec(&["true"], Ready::Exit), Instant::now(), false).unwrap();
        assert!(l.ready_ns > 0);
        let e = launch(&spec(&["sh", "-c", "echo broken config >&2; exit 3"], Ready::Exit), Instant::now(), false)
            .unwrap_err();
        let m = e.to_string();
        assert!(m.contains("exit status: 3") && m.contains("broken config"), "{m}");
        let e = launch(&spec(&["/nonexistent/app"], Ready::Exit), Instant::now(), false).unwrap_err();
        assert!(matches!(e, LaunchError::Spawn { .. }), "{e}");
        assert!(matches!(launch(&spec(&[], Ready::Exit), Instant::now(), false), Err(LaunchError::NoCommand)));
    }

    #[test]
    fn a_matching_line_ends_the_launch_and_kills_what_keeps_running() {
        let re = regex::Regex::new("^listening on").unwrap();
        let s = spec(&["sh", "-c", "echo starting; echo listening on 1; sleep 30"], Ready::Line(re));
        let t = Instant::now();
        launch(&s, t, false).unwrap();
        assert!(t.elapsed() < Duration::from_secs(20), "the sleeping command was killed, not waited for");
        let re = regex::Regex::new("never").unwrap();
        let e = launch(&spec(&["sh", "-c", "echo hello"], Ready::Line(re)), Instant::now(), false).unwrap_err();
        assert!(matches!(e, LaunchError::ExitedBeforeReady { .. }), "{e}");
    }

    #[test]
    fn a_port_that_opens_is_readiness_and_a_silent_command_times_out() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        drop(l);
        // The port opens a moment after the launch (anyone may open it: readiness is the port).
        let opener = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            let l = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
            std::thread::sleep(Duration::from_secs(2));
            drop(l);
        });
        let l = launch(&spec(&["sleep", "30"], Ready::Port(port)), Instant::now(), false).unwrap();
        assert!(l.ready_ns > 0);
        opener.join().unwrap();
        let mut s = spec(&["sleep", "30"], Ready::Port(port));
        s.timeout = Duration::from_millis(300);
        let e = launch(&s, Instant::now(), false).unwrap_err();
        assert!(matches!(e, LaunchError::Timeout { .. }), "{e}");
        assert!(e.to_string().contains("--timeout"), "{e}");
    }
}
