//! Which files a launch opens, in order: fanotify where permitted (CAP_SYS_ADMIN; sees every
//! open, including the kernel's own of the executable and its interpreter), a ptrace tracer
//! otherwise (any user may trace their own child; any architecture with a table in
//! [`crate::syscalls`]). Both keep only what the
//! launched command and its descendants opened.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

latlab_model::choice! {
    /// Which tracer to use.
    pub enum TracerChoice {
        /// fanotify, and ptrace when fanotify is refused.
        Auto = "auto",
        /// fanotify only.
        Fanotify = "fanotify",
        /// ptrace only.
        Ptrace = "ptrace",
    }
}
latlab_model::serialize_by_name!(TracerChoice);

/// Why a tracer cannot be used here.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{tracer} is not available: {why}")]
pub struct Refused {
    /// Which one.
    pub tracer: &'static str,
    /// Why, with advice.
    pub why: String,
}

/// Filesystems whose files are never in a launch plan (no page cache to warm), and that the
/// fanotify tracer must not watch (its own /proc reads would wait on itself).
const PSEUDO_FS: &[&str] = &[
    "proc",
    "sysfs",
    "cgroup",
    "cgroup2",
    "devpts",
    "devtmpfs",
    "mqueue",
    "debugfs",
    "tracefs",
    "securityfs",
    "pstore",
    "bpf",
    "hugetlbfs",
    "fusectl",
    "configfs",
    "autofs",
    "binfmt_misc",
    "nsfs",
    "efivarfs",
    "rpc_pipefs",
];

/// Mount points worth watching: every listed one that is not a pseudo filesystem, and `/`
/// always (in a chroot the mount holding the root directory is not in mountinfo, whose
/// mount point lies outside the root: without it, nothing on the root filesystem was seen).
fn mount_points() -> Vec<String> {
    let mut out: Vec<String> = crate::device::mounts()
        .into_iter()
        .filter(|(_, fs)| !PSEUDO_FS.contains(&fs.as_str()))
        .map(|(mp, _)| mp)
        .chain(["/".to_string()])
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Parent pid of `pid`, from /proc/PID/stat (the field after the parenthesized name).
fn parent_of(pid: i32) -> Option<i32> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &s[s.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Whether `pid` is a descendant of `ancestor` (not `ancestor` itself).
fn descends_from(pid: i32, ancestor: i32) -> bool {
    let mut p = pid;
    for _ in 0..128 {
        match parent_of(p) {
            Some(pp) if pp == ancestor => return true,
            Some(pp) if pp > 1 => p = pp,
            _ => return false,
        }
    }
    false
}

/// A file's first open by the traced processes (fanotify).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    /// The file.
    pub path: PathBuf,
    /// The process that opened it first.
    pub pid: i32,
    /// That process's name (`/proc/PID/comm`) at the open.
    pub comm: String,
    /// Its pages resident in the page cache at that open (before the opener read anything).
    pub resident_before: u64,
    /// When the open was seen (`CLOCK_MONOTONIC`, ns): the opener waits for the answer, so
    /// this is within microseconds of the open.
    pub at_ns: u64,
}

/// Whether an opened path is a regular file not seen before (and note it as seen).
fn first_open(seen: &mut std::collections::HashSet<PathBuf>, link: &Path) -> bool {
    link.is_absolute()
        && !link.to_string_lossy().ends_with(" (deleted)")
        && std::fs::metadata(link).is_ok_and(|m| m.is_file())
        && seen.insert(link.to_path_buf())
}

/// Keep an opened path if it is a regular file not seen before.
fn keep(out: &mut Vec<PathBuf>, seen: &mut std::collections::HashSet<PathBuf>, link: PathBuf) {
    if first_open(seen, &link) {
        out.push(link);
    }
}

/// [`keep`], with the opener and the file's residency as it is opened (read through
/// fanotify's own descriptor, so nothing is opened here).
fn keep_opened(
    out: &mut Vec<Opened>,
    seen: &mut std::collections::HashSet<PathBuf>,
    link: PathBuf,
    pid: i32,
    fd: std::os::fd::BorrowedFd,
) {
    if first_open(seen, &link) {
        let at_ns = latlab_sys::clock::monotonic_now();
        let comm =
            std::fs::read_to_string(format!("/proc/{pid}/comm")).map(|c| c.trim().to_string()).unwrap_or_default();
        let resident_before = fd
            .try_clone_to_owned()
            .ok()
            .and_then(|o| crate::pagecache::resident_pages(&std::fs::File::from(o)).ok())
            .unwrap_or(0);
        out.push(Opened { path: link, pid, comm, resident_before, at_ns });
    }
}

/// One fanotify trace at a time in a process. A trace keeps what any descendant of this
/// process opens, so two at once (two launches measured side by side, or two tests in one test
/// binary) would each list the other's files, and a caller that evicts what its trace listed
/// (a cold start) would evict the other's from under it.
static ONE_TRACE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A running fanotify trace of this process's descendants.
pub struct FanotifyTrace {
    stop: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<Vec<Opened>>,
    /// Mounts watched.
    pub mounts: usize,
    /// This process's turn to trace, held until the trace is finished or dropped.
    _turn: std::sync::MutexGuard<'static, ()>,
}

impl FanotifyTrace {
    /// Start watching every non-pseudo mount for opens by this process's descendants. Uses
    /// permission events, so an opener waits (microseconds) until it is attributed, and a
    /// short-lived child cannot exit before its parentage is read. Waits while another trace
    /// of this process runs (one at a time: each keeps every descendant's opens).
    pub fn start() -> Result<Self, Refused> {
        use nix::sys::fanotify::{EventFFlags, Fanotify, InitFlags, MarkFlags, MaskFlags};
        // A panicked holder left nothing to repair: the guard only orders the traces.
        let turn = ONE_TRACE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let refuse = |why: String| Refused { tracer: "fanotify", why };
        let fan = Fanotify::init(
            InitFlags::FAN_CLASS_CONTENT | InitFlags::FAN_CLOEXEC | InitFlags::FAN_NONBLOCK,
            EventFFlags::O_RDONLY | EventFFlags::O_LARGEFILE | EventFFlags::O_CLOEXEC,
        )
        .map_err(|e| {
            refuse(match e {
                nix::errno::Errno::EPERM => {
                    "fanotify_init was refused (it needs CAP_SYS_ADMIN: run as root, or use --tracer ptrace)".into()
                }
                nix::errno::Errno::ENOSYS | nix::errno::Errno::EINVAL => {
                    format!("this kernel has no fanotify with permission events ({e})")
                }
                e => format!("fanotify_init failed: {e}"),
            })
        })?;
        let mut mounts = 0;
        for mp in mount_points() {
            if fan
                .mark(
                    MarkFlags::FAN_MARK_ADD | MarkFlags::FAN_MARK_MOUNT,
                    MaskFlags::FAN_OPEN_PERM,
                    nix::fcntl::AT_FDCWD,
                    Some(mp.as_str()),
                )
                .is_ok()
            {
                mounts += 1;
            }
        }
        if mounts == 0 {
            return Err(refuse("no mount could be marked (fanotify_mark refused every one)".into()));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || fanotify_reader(&fan, &flag));
        Ok(Self { stop, handle, mounts, _turn: turn })
    }

    /// Stop and return the files opened, in order.
    pub fn finish(self) -> Vec<PathBuf> {
        self.finish_opened().into_iter().map(|o| o.path).collect()
    }

    /// Stop and return each file's first open, in order: who opened it and what was resident.
    pub fn finish_opened(self) -> Vec<Opened> {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().unwrap_or_default()
    }
}

/// Answer every permission event (allow), keeping the paths our descendants opened. This
/// thread opens nothing on a watched mount (it reads only /proc), so it never waits on itself.
fn fanotify_reader(fan: &nix::sys::fanotify::Fanotify, stop: &AtomicBool) -> Vec<Opened> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use nix::sys::fanotify::{FanotifyResponse, MaskFlags, Response};
    use std::os::fd::{AsFd, AsRawFd};
    let me = std::process::id() as i32;
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    loop {
        let ready = {
            let mut fds = [PollFd::new(fan.as_fd(), PollFlags::POLLIN)];
            poll(&mut fds, PollTimeout::from(20u8)).unwrap_or(0)
        };
        if ready == 0 {
            if stop.load(Ordering::Relaxed) {
                return out;
            }
            continue;
        }
        let Ok(events) = fan.read_events() else { continue };
        for ev in events {
            let Some(fd) = ev.fd() else { continue };
            if ev.pid() != me
                && descends_from(ev.pid(), me)
                && let Ok(link) = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
            {
                keep_opened(&mut out, &mut seen, link, ev.pid(), fd);
            }
            if ev.mask().contains(MaskFlags::FAN_OPEN_PERM) {
                let _ = fan.write_response(FanotifyResponse::new(fd, Response::FAN_ALLOW));
            }
        }
    }
}

/// Make the child ask to be traced before it executes the command.
pub(crate) fn ask_to_be_traced(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec and makes one system call
    // (ptrace(PTRACE_TRACEME)), which is async-signal-safe; it allocates nothing.
    unsafe {
        cmd.pre_exec(|| nix::sys::ptrace::traceme().map_err(std::io::Error::from));
    }
}

/// Whether this build has the ptrace tracer: every Linux architecture with a system-call table
/// in [`crate::syscalls`] (x86-64, i386, aarch64, arm, riscv64); the kernel must have
/// `PTRACE_GET_SYSCALL_INFO` (5.3 or later), which the tracer finds out at its first stop.
pub fn ptrace_supported() -> Result<(), Refused> {
    if cfg!(any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64"
    )) {
        Ok(())
    } else {
        Err(Refused {
            tracer: "ptrace",
            why: format!("latlab has no system-call table for {}; use fanotify (root)", std::env::consts::ARCH),
        })
    }
}

/// Why the ptrace tracer stopped.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// A ptrace request failed.
    #[error("{what}")]
    Call {
        /// The request.
        what: &'static str,
        /// The kernel's error.
        #[source]
        source: nix::errno::Errno,
    },
    /// The tracee did something the tracer did not expect, or waiting for it failed.
    #[error("{0}")]
    Unexpected(String),
}

/// Trace `root` (stopped after exec under PTRACE_TRACEME) and its descendants to their end,
/// collecting the files opened (`open`, `openat`, `openat2`, and each executable with its
/// mapped interpreter and libraries at exec). Calls `exited(when, status text, success)` when
/// `root` ends, and then kills what it left behind. The system call a tracee stops in is asked
/// of the kernel (`PTRACE_GET_SYSCALL_INFO`) with the architecture it runs as, so no register
/// layout is read and a 32-bit program is traced with its own numbers.
pub(crate) fn ptrace_loop(
    root: nix::unistd::Pid,
    exited: &dyn Fn(Instant, String, bool),
) -> Result<Vec<PathBuf>, TraceError> {
    use crate::syscalls::{Stop, arch_name, open_calls, syscall_stop};
    use nix::errno::Errno;
    use nix::sys::ptrace::{self, Event as PEvent, Options};
    use nix::sys::signal::Signal;
    use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
    use nix::unistd::Pid;
    // The system call each tracee is in, from its entry stop to its exit stop.
    let mut entered: std::collections::HashMap<Pid, (u32, u64)> = std::collections::HashMap::new();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let at_exec = |pid: Pid, out: &mut Vec<PathBuf>, seen: &mut std::collections::HashSet<PathBuf>| {
        if let Ok(exe) = std::fs::read_link(format!("/proc/{pid}/exe")) {
            keep(out, seen, exe);
        }
        for line in std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap_or_default().lines() {
            if let Some(p) = line.split_whitespace().nth(5) {
                keep(out, seen, PathBuf::from(p));
            }
        }
    };
    match waitpid(root, Some(WaitPidFlag::__WALL)) {
        Ok(WaitStatus::Stopped(_, Signal::SIGTRAP)) => {}
        Ok(s) => return Err(TraceError::Unexpected(format!("the command did not stop at exec as expected ({s:?})"))),
        Err(e) => return Err(TraceError::Unexpected(format!("waiting for the command: {e}"))),
    }
    let opts = Options::PTRACE_O_EXITKILL
        | Options::PTRACE_O_TRACESYSGOOD
        | Options::PTRACE_O_TRACEFORK
        | Options::PTRACE_O_TRACEVFORK
        | Options::PTRACE_O_TRACECLONE
        | Options::PTRACE_O_TRACEEXEC;
    ptrace::setoptions(root, opts).map_err(|e| TraceError::Call { what: "PTRACE_SETOPTIONS", source: e })?;
    at_exec(root, &mut out, &mut seen);
    let mut alive: std::collections::HashSet<Pid> = [root].into();
    ptrace::syscall(root, None).map_err(|e| TraceError::Call { what: "PTRACE_SYSCALL", source: e })?;
    while !alive.is_empty() {
        let status = match waitpid(None, Some(WaitPidFlag::__WALL)) {
            Ok(s) => s,
            Err(Errno::EINTR) => continue,
            Err(Errno::ECHILD) => break,
            Err(e) => return Err(TraceError::Unexpected(format!("waitpid: {e}"))),
        };
        match status {
            WaitStatus::PtraceSyscall(pid) => {
                match syscall_stop(pid.as_raw()) {
                    Ok(Stop::Entry { arch, nr }) => {
                        if open_calls(arch).is_none() {
                            let _ = nix::sys::signal::kill(root, Signal::SIGKILL);
                            return Err(TraceError::Unexpected(format!(
                                "the command runs as {} (AUDIT_ARCH {arch:#x}), for which latlab has no system-call table; use fanotify (root)",
                                arch_name(arch)
                            )));
                        }
                        entered.insert(pid, (arch, nr));
                    }
                    Ok(Stop::Exit { rval, is_error }) => {
                        if let Some((arch, nr)) = entered.remove(&pid) {
                            let opens = open_calls(arch).unwrap_or_default();
                            if !is_error
                                && rval >= 0
                                && opens.contains(&nr)
                                && let Ok(link) = std::fs::read_link(format!("/proc/{pid}/fd/{rval}"))
                            {
                                keep(&mut out, &mut seen, link);
                            }
                        }
                    }
                    Ok(Stop::Other) => {}
                    Err(e) if e.raw_os_error() == Some(libc::EIO) || e.raw_os_error() == Some(libc::EINVAL) => {
                        let _ = nix::sys::signal::kill(root, Signal::SIGKILL);
                        return Err(TraceError::Unexpected(format!(
                            "this kernel cannot say which system call a tracee is in (PTRACE_GET_SYSCALL_INFO: {e}; Linux 5.3 or later has it); use fanotify (root)"
                        )));
                    }
                    // The tracee is gone (killed between its stop and this question).
                    Err(_) => {}
                }
                let _ = ptrace::syscall(pid, None);
            }
            WaitStatus::PtraceEvent(pid, _, ev) => {
                alive.insert(pid);
                if ev == PEvent::PTRACE_EVENT_EXEC as i32 {
                    at_exec(pid, &mut out, &mut seen);
                }
                let _ = ptrace::syscall(pid, None);
            }
            WaitStatus::Stopped(pid, sig) => {
                // A new child's first stop is a SIGSTOP that is not to be delivered.
                let new = alive.insert(pid);
                let deliver = if new && sig == Signal::SIGSTOP { None } else { Some(sig) };
                let _ = ptrace::syscall(pid, deliver);
            }
            WaitStatus::Exited(pid, _) | WaitStatus::Signaled(pid, _, _) => {
                alive.remove(&pid);
                if pid == root {
                    let (text, ok) = match status {
                        WaitStatus::Exited(_, 0) => ("exit status: 0".to_string(), true),
                        WaitStatus::Exited(_, c) => (format!("exit status: {c}"), false),
                        _ => (format!("{status:?}"), false),
                    };
                    exited(Instant::now(), text, ok);
                    for p in &alive {
                        let _ = nix::sys::signal::kill(*p, Signal::SIGKILL);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::{LaunchSpec, Ready, launch};
    use latlab_model::experiment::Choice;
    use std::time::Duration;

    fn files(n: usize, tag: &str) -> (PathBuf, Vec<PathBuf>) {
        let dir = std::env::temp_dir().join(format!("latlab-trace-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let v: Vec<PathBuf> = (0..n).map(|i| dir.join(format!("f{i}"))).collect();
        for p in &v {
            std::fs::write(p, b"x").unwrap();
        }
        (dir, v)
    }

    fn cat_spec(v: &[PathBuf]) -> LaunchSpec {
        // The shell forks cat: the files are opened by a grandchild that exits at once.
        let script = format!("cat {} {} >/dev/null; cat {} >/dev/null", v[2].display(), v[0].display(), v[1].display());
        LaunchSpec {
            command: vec!["sh".into(), "-c".into(), script],
            ready: Ready::Exit,
            timeout: Duration::from_secs(20),
        }
    }

    fn order_of(opened: &[PathBuf], v: &[PathBuf]) -> Vec<usize> {
        opened.iter().filter_map(|p| v.iter().position(|q| q == p)).collect()
    }

    #[test]
    fn ptrace_sees_the_opens_of_children_in_order() {
        if let Err(r) = ptrace_supported() {
            latlab_model::testing::skip(&r.to_string());
            return;
        }
        let (dir, v) = files(3, "ptrace");
        let l = match launch(&cat_spec(&v), Instant::now(), true) {
            Ok(l) => l,
            Err(e) if e.to_string().contains("EPERM") => {
                latlab_model::testing::skip(&format!("ptrace is not permitted here: {e}"));
                return;
            }
            Err(e) => panic!("{e}"),
        };
        assert_eq!(order_of(&l.opened, &v), vec![2, 0, 1], "{:?}", l.opened);
        assert!(
            l.opened.iter().any(|p| p.ends_with("sh")
                || p.to_string_lossy().contains("dash")
                || p.to_string_lossy().contains("bash")),
            "the executable itself: {:?}",
            l.opened
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn fanotify_sees_the_opens_of_descendants_only_or_says_why_not() {
        let t = match FanotifyTrace::start() {
            Ok(t) => t,
            Err(r) => {
                latlab_model::testing::skip(&r.to_string());
                assert!(!r.why.is_empty());
                return;
            }
        };
        let (dir, v) = files(4, "fanotify");
        launch(&cat_spec(&v), Instant::now(), false).unwrap();
        // This process's own open is not the launch's.
        std::fs::read(&v[3]).unwrap();
        let opened = t.finish();
        assert_eq!(order_of(&opened, &v), vec![2, 0, 1], "{opened:?}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_fanotify_trace_holds_the_process_s_turn_until_it_is_finished() {
        // Two at once would each list the other's descendants' files (and a cold start evict
        // them): a running trace holds the one turn, so another start waits.
        let t = match FanotifyTrace::start() {
            Ok(t) => t,
            Err(r) => return latlab_model::testing::skip(&r.to_string()),
        };
        assert!(
            matches!(ONE_TRACE_AT_A_TIME.try_lock(), Err(std::sync::TryLockError::WouldBlock)),
            "a second trace could start beside a running one"
        );
        t.finish();
    }

    /// Run by `fanotify_refused_without_the_capability_is_a_clear_refusal` as user nobody.
    #[test]
    fn fanotify_refusal_child() {
        if std::env::var_os("LATLAB_FANOTIFY_REFUSAL_CHILD").is_none() {
            return;
        }
        let r = FanotifyTrace::start().err().expect("without CAP_SYS_ADMIN fanotify must be refused");
        assert!(r.why.contains("CAP_SYS_ADMIN"), "{r}");
    }

    #[test]
    fn fanotify_refused_without_the_capability_is_a_clear_refusal() {
        if !nix::unistd::geteuid().is_root() {
            let r = FanotifyTrace::start().err().expect("non-root cannot use fanotify permission events");
            assert!(r.why.contains("CAP_SYS_ADMIN"), "{r}");
            return;
        }
        // As root, run this test binary's child test as user nobody (no capabilities).
        use std::os::unix::process::CommandExt;
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "trace::tests::fanotify_refusal_child", "--nocapture"])
            .env("LATLAB_FANOTIFY_REFUSAL_CHILD", "1")
            .uid(65534)
            .gid(65534)
            .output();
        match out {
            Ok(o) => assert!(
                o.status.success(),
                "as nobody: {}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
            // Not an install fault: a clone under a private directory (mktemp's 0700) keeps
            // nobody from executing the test binary, whatever CI installs.
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                eprintln!("SKIPPED: the test binary's directory is closed to nobody ({e})")
            }
            Err(e) => latlab_model::testing::skip(&format!("cannot run the test binary as nobody ({e})")),
        }
    }

    #[test]
    fn tracer_names_parse_and_mounts_are_found() {
        assert_eq!(TracerChoice::from_choice("ptrace"), Some(TracerChoice::Ptrace));
        assert_eq!(TracerChoice::from_choice("strace"), None);
        assert_eq!(TracerChoice::choice_list(), "auto, fanotify, ptrace");
        assert!(mount_points().iter().any(|m| m == "/"));
        assert!(descends_from(std::process::id() as i32, 1) || parent_of(std::process::id() as i32) == Some(1));
    }
}
