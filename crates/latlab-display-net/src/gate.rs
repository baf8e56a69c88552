//! The front door of `latlab display serve`: every connection waits for its hello in one
//! thread (poll), holding a socket and at most a 1 KiB partial hello; only a valid hello gets
//! a session and its threads. Deadlines, a bound on waiting connections (the one waiting
//! longest goes first), on sessions at once and on their length; refusals answered with
//! `ERR reason`, which the client reports; counters of what was refused and why.

use super::*;
use crate::server::run_session;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What `display serve` allows (every default in [`crate::defaults`], with its reason).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Time a connection has to send its hello.
    pub hello_deadline: Duration,
    /// Time a session may go without the client taking (or sending) a byte.
    pub idle_timeout: Duration,
    /// Longest session a hello may ask for, and an echo session may last.
    pub max_session: Duration,
    /// Sessions at once.
    pub max_sessions: usize,
    /// Connections waiting for their hello at once.
    pub max_waiting: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            hello_deadline: Duration::from_secs_f64(crate::defaults::HELLO_DEADLINE_SECS),
            idle_timeout: Duration::from_secs_f64(crate::defaults::IDLE_TIMEOUT_SECS),
            max_session: Duration::from_secs_f64(crate::defaults::MAX_SESSION_SECS),
            max_sessions: crate::defaults::MAX_SESSIONS,
            max_waiting: crate::defaults::MAX_WAITING,
        }
    }
}

impl Limits {
    /// A session's bounds under these limits.
    pub fn session(&self) -> SessionBounds {
        SessionBounds { idle_ns: self.idle_timeout.as_nanos() as u64, max_ns: self.max_session.as_nanos() as u64 }
    }
    /// Every limit non-zero.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if self.hello_deadline.is_zero() || self.idle_timeout.is_zero() || self.max_session.is_zero() {
            return Err("the hello deadline, idle timeout and session bound must be above zero".into());
        }
        if self.max_sessions == 0 || self.max_waiting == 0 {
            return Err("--max-sessions and --max-waiting must be at least 1".into());
        }
        Ok(())
    }
}

/// A session's bounds, in ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionBounds {
    /// Longest stretch without the client taking (or sending) a byte.
    pub idle_ns: u64,
    /// Longest session.
    pub max_ns: u64,
}

impl Default for SessionBounds {
    fn default() -> Self {
        Limits::default().session()
    }
}

/// What the front door did, updated as it runs.
#[derive(Debug, Default)]
pub struct GateStats {
    /// Connections accepted.
    pub accepted: AtomicU64,
    /// Sessions started (a valid hello within the limits).
    pub sessions: AtomicU64,
    /// Closed: no complete hello within the deadline.
    pub hello_timeouts: AtomicU64,
    /// Closed: the waiting room was full and this one had waited longest.
    pub waiting_dropped: AtomicU64,
    /// Refused: a hello that did not parse, or was longer than 1 KiB.
    pub bad_hello: AtomicU64,
    /// Refused: every session slot taken.
    pub busy: AtomicU64,
    /// Refused: the session asked for was longer than the bound.
    pub too_long: AtomicU64,
}

impl GateStats {
    /// One line for people.
    pub fn line(&self) -> String {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        format!(
            "{} connections, {} sessions; closed: {} without a hello in time, {} pushed out of a full waiting room; refused: {} bad hellos, {} busy, {} too long",
            l(&self.accepted),
            l(&self.sessions),
            l(&self.hello_timeouts),
            l(&self.waiting_dropped),
            l(&self.bad_hello),
            l(&self.busy),
            l(&self.too_long)
        )
    }
}

/// A connection waiting for its hello.
struct Waiting {
    stream: TcpStream,
    peer: SocketAddr,
    since: Instant,
    /// The hello so far: empty (no allocation) until its first bytes, at most [`MAX_HELLO`].
    hello: Vec<u8>,
}

/// Answer a refusal and close (best effort: the socket is non-blocking and the answer short).
fn refuse(mut w: Waiting, why: &str, counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
    let _ = w.stream.write(format!("ERR {why}\n").as_bytes());
}

/// Decrements the running-session count when a session thread ends, however it ends.
struct Slot(Arc<AtomicUsize>);
impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Listen on `listener` until `stop` says so (checked every 100 ms at most) or, with `once`,
/// until the first session ends, under `limits`; `report` is told of every session's end,
/// and `stats` counts the rest. Sessions still running when it returns finish on their own
/// threads (they stop at Ctrl-C).
pub fn serve_bounded(
    listener: &TcpListener,
    once: bool,
    limits: Limits,
    stats: Arc<GateStats>,
    stop: &dyn Fn() -> bool,
    report: impl Fn(SocketAddr, Result<ServerReport, NetError>) + Send + Sync + 'static,
) -> Result<(), NetError> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    limits.validate()?;
    listener.set_nonblocking(true).doing("making the listener non-blocking")?;
    let report = Arc::new(report);
    let running = Arc::new(AtomicUsize::new(0));
    let mut waiting: VecDeque<Waiting> = VecDeque::new();
    let mut scratch = [0u8; MAX_HELLO];
    loop {
        if stop() {
            return Ok(());
        }
        // Sleep until a socket is ready, the oldest hello deadline passes, or 100 ms (Ctrl-C).
        let now = Instant::now();
        let next = waiting.front().map(|w| (w.since + limits.hello_deadline).saturating_duration_since(now));
        let wait_ms = next.unwrap_or(Duration::from_millis(100)).min(Duration::from_millis(100)).as_millis();
        let (listener_ready, ready) = {
            let mut fds = Vec::with_capacity(waiting.len() + 1);
            fds.push(PollFd::new(listener.as_fd(), PollFlags::POLLIN));
            fds.extend(waiting.iter().map(|w| PollFd::new(w.stream.as_fd(), PollFlags::POLLIN)));
            match poll(&mut fds, PollTimeout::try_from(wait_ms as i32).unwrap_or(PollTimeout::MAX)) {
                Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                Err(e) => return Err(IoFailed::new("waiting for connections", e.into()).into()),
            }
            let is = |f: &PollFd| f.revents().is_some_and(|r| !r.is_empty());
            (is(&fds[0]), fds[1..].iter().map(is).collect::<Vec<bool>>())
        };
        // The waiting connections: read what came, start or refuse, close the late.
        let now = Instant::now();
        let mut still = VecDeque::with_capacity(waiting.len());
        for (mut w, r) in waiting.drain(..).zip(ready) {
            if r {
                let room = MAX_HELLO - w.hello.len();
                match w.stream.read(&mut scratch[..room]) {
                    Ok(0) => continue,
                    Ok(n) => w.hello.extend_from_slice(&scratch[..n]),
                    Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {}
                    Err(_) => continue,
                }
                if let Some(end) = w.hello.iter().position(|&b| b == b'\n') {
                    if let Some(done) = start(w, end, &limits, &stats, &running, &report, once) {
                        return done;
                    }
                    continue;
                }
                if w.hello.len() >= MAX_HELLO {
                    refuse(w, &format!("a hello is one line of at most {MAX_HELLO} bytes"), &stats.bad_hello);
                    continue;
                }
            }
            if now.duration_since(w.since) >= limits.hello_deadline {
                let why = format!("no hello within {:.1} s", limits.hello_deadline.as_secs_f64());
                refuse(w, &why, &stats.hello_timeouts);
                continue;
            }
            still.push_back(w);
        }
        waiting = still;
        // New connections join the waiting room; when it is full, the one waiting longest goes.
        if listener_ready {
            loop {
                match listener.accept() {
                    Ok((stream, peer)) => {
                        stats.accepted.fetch_add(1, Ordering::Relaxed);
                        if stream.set_nonblocking(true).is_err() {
                            continue;
                        }
                        if waiting.len() >= limits.max_waiting
                            && let Some(old) = waiting.pop_front()
                        {
                            refuse(old, "too many connections waiting for their hello", &stats.waiting_dropped);
                        }
                        waiting.push_back(Waiting { stream, peer, since: Instant::now(), hello: Vec::new() });
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    // Out of descriptors: the connection waiting longest gives its up (else the
                    // pending connection would wake this loop at once, for ever).
                    Err(e) if matches!(e.raw_os_error(), Some(libc::EMFILE) | Some(libc::ENFILE)) => {
                        match waiting.pop_front() {
                            Some(old) => refuse(old, "the server is out of descriptors", &stats.waiting_dropped),
                            None => std::thread::sleep(Duration::from_millis(10)),
                        }
                        break;
                    }
                    // A connection reset before it was accepted: nothing to do.
                    Err(_) => break,
                }
            }
        }
    }
}

/// A complete hello (up to `end`) arrived on `w`: start its session on its own threads, or in
/// this one with `once` (then `Some` is the serve loop's result), or refuse it.
fn start(
    w: Waiting,
    end: usize,
    limits: &Limits,
    stats: &GateStats,
    running: &Arc<AtomicUsize>,
    report: &Arc<impl Fn(SocketAddr, Result<ServerReport, NetError>) + Send + Sync + 'static>,
    once: bool,
) -> Option<Result<(), NetError>> {
    let line = String::from_utf8_lossy(&w.hello[..end]).trim_end().to_string();
    let (cfg, pace) = match parse_hello(&line) {
        Ok(x) => x,
        Err(e) => {
            refuse(w, &e, &stats.bad_hello);
            return None;
        }
    };
    if cfg.duration_ms.saturating_mul(1_000_000) > limits.session().max_ns {
        let why = format!(
            "a session of {:.1} s is longer than this server allows ({:.0} s, --max-session)",
            cfg.duration_ms as f64 / 1e3,
            limits.max_session.as_secs_f64()
        );
        refuse(w, &why, &stats.too_long);
        return None;
    }
    if running.load(Ordering::Acquire) >= limits.max_sessions {
        let why =
            format!("busy: {} sessions running, the most this server allows (--max-sessions)", limits.max_sessions);
        refuse(w, &why, &stats.busy);
        return None;
    }
    stats.sessions.fetch_add(1, Ordering::Relaxed);
    running.fetch_add(1, Ordering::AcqRel);
    let slot = Slot(running.clone());
    let early = w.hello[end + 1..].to_vec();
    let (stream, peer, bounds) = (w.stream, w.peer, limits.session());
    let go = move || {
        let _slot = slot;
        stream
            .set_nonblocking(false)
            .doing("making the connection blocking")
            .map_err(NetError::from)
            .and_then(|_| run_session(stream, cfg, pace, &early, bounds))
    };
    if once {
        let r = go();
        report(peer, r);
        return Some(Ok(()));
    }
    let (r1, r2) = (report.clone(), report.clone());
    let spawned = std::thread::Builder::new().name("latlab-display-session".into()).spawn(move || r1(peer, go()));
    if let Err(e) = spawned {
        // Out of threads: this session is lost (its slot freed with it), the server goes on.
        r2(peer, Err(IoFailed::new("starting a session thread", e).into()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_desktop::session::SessionConfig;
    use latlab_desktop::workload::WorkloadKind;
    use std::sync::atomic::AtomicBool;

    /// A bounded server on loopback with `limits`, stopped when the returned flag is set.
    fn server(limits: Limits) -> (SocketAddr, Arc<GateStats>, Arc<AtomicBool>, std::thread::JoinHandle<()>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let (stats, stop) = (Arc::new(GateStats::default()), Arc::new(AtomicBool::new(false)));
        let (st, sp) = (stats.clone(), stop.clone());
        let h = std::thread::spawn(move || {
            serve_bounded(&l, false, limits, st, &|| sp.load(Ordering::Relaxed), |_, _| {}).unwrap();
        });
        (addr, stats, stop, h)
    }

    /// Poll `cond` until it holds (10 s at most: a bound on a hang, not a timing claim).
    fn eventually(what: &str, cond: impl Fn() -> bool) {
        let t = Instant::now();
        while !cond() {
            assert!(t.elapsed() < Duration::from_secs(10), "never: {what}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The server's answer to `hello` sent on a new connection.
    fn answer(addr: SocketAddr, hello: &str) -> String {
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(hello.as_bytes()).unwrap();
        let mut a = String::new();
        let _ = io::BufReader::new(c).read_line(&mut a);
        a
    }

    fn short(ms: u64) -> String {
        let mut cfg = SessionConfig::standard(WorkloadKind::Cursor, ms);
        (cfg.width, cfg.height) = (64, 64);
        hello_line(&cfg, Pace::FlatOut)
    }

    use std::io::BufRead;

    #[test]
    fn idle_connections_wait_in_a_bounded_room_and_leave_at_their_deadline() {
        let limits = Limits { max_waiting: 8, hello_deadline: Duration::from_millis(300), ..Limits::default() };
        let (addr, stats, stop, h) = server(limits);
        let idle: Vec<TcpStream> = (0..20).map(|_| TcpStream::connect(addr).unwrap()).collect();
        eventually("20 accepted", || stats.accepted.load(Ordering::Relaxed) == 20);
        assert_eq!(stats.waiting_dropped.load(Ordering::Relaxed), 12, "the room holds 8; the 12 oldest went");
        eventually("the other 8 closed at the deadline", || stats.hello_timeouts.load(Ordering::Relaxed) == 8);
        // Each idle client was told why, then closed.
        let mut told = String::new();
        io::BufReader::new(&idle[19]).read_line(&mut told).unwrap();
        assert!(told.starts_with("ERR no hello within 0.3 s"), "{told}");
        let mut pushed = String::new();
        io::BufReader::new(&idle[0]).read_line(&mut pushed).unwrap();
        assert!(pushed.contains("too many connections waiting"), "{pushed}");
        assert_eq!(stats.sessions.load(Ordering::Relaxed), 0);
        stop.store(true, Ordering::Relaxed);
        h.join().unwrap();
    }

    #[test]
    fn bad_long_and_busy_hellos_are_refused_with_their_reason() {
        let limits = Limits { max_sessions: 1, max_session: Duration::from_secs(3), ..Limits::default() };
        let (addr, stats, stop, h) = server(limits);
        assert!(answer(addr, "HELLO\n").starts_with("ERR not a latlab display hello"));
        assert!(answer(addr, &"x".repeat(MAX_HELLO + 10)).starts_with("ERR a hello is one line of at most 1024"));
        let a = answer(addr, &short(4_000));
        assert!(a.starts_with("ERR a session of 4.0 s is longer than this server allows (3 s"), "{a}");
        // One session runs (a client that reads nothing and keeps it open); the next is busy.
        let mut first = TcpStream::connect(addr).unwrap();
        first.write_all(short(2_000).as_bytes()).unwrap();
        let mut ok = [0u8; 3];
        first.read_exact(&mut ok).unwrap();
        assert_eq!(&ok, b"OK\n");
        assert!(answer(addr, &short(100)).starts_with("ERR busy: 1 sessions running"));
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        assert_eq!((l(&stats.bad_hello), l(&stats.too_long), l(&stats.busy), l(&stats.sessions)), (2, 1, 1, 1));
        drop(first);
        // Its slot comes back when it ends.
        eventually("the slot freed", || answer(addr, &short(50)) == "OK\n");
        stop.store(true, Ordering::Relaxed);
        h.join().unwrap();
    }

    #[test]
    fn a_client_that_stops_reading_is_cut_off_at_the_idle_timeout() {
        let (tx, rx) = std::sync::mpsc::channel();
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let limits = Limits { idle_timeout: Duration::from_millis(200), ..Limits::default() };
        let h = std::thread::spawn(move || {
            serve_bounded(&l, true, limits, Arc::new(GateStats::default()), &|| false, move |_, r| {
                tx.send(r.map(|_| ()).map_err(|e| e.to_string())).unwrap()
            })
            .unwrap();
        });
        // A flat-out session of big screens to a client that never reads: the socket fills,
        // nothing moves for 200 ms, and the session ends with the idle error.
        let mut cfg = SessionConfig::standard(WorkloadKind::Slideshow, 60_000);
        cfg.encoder.orders = false;
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(hello_line(&cfg, Pace::FlatOut).as_bytes()).unwrap();
        let r = rx.recv_timeout(Duration::from_secs(30)).expect("the session never ended");
        assert!(r.unwrap_err().to_string().contains("idle timeout"));
        h.join().unwrap();
        drop(c);
    }
}
