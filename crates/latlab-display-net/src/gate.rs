//! `latlab display serve`'s limits and its protocol at latlab's front door
//! ([`latlab_sys::door`]: one thread awaits every hello, holding a socket and at most a 1 KiB
//! partial hello; only a valid hello gets a session and its threads). The hello's deadline, a
//! bound on waiting connections, on sessions at once and on their length; refusals answered
//! with `ERR reason`, which the client reports.

use super::*;
use crate::server::run_session;
use latlab_sys::door::{Admission, Door, DoorLimits, DoorStats, Hello, Refusal};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

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

/// `display serve`'s protocol at latlab's front door ([`latlab_sys::door`]): the first
/// message is the hello line; a refusal is answered `ERR reason`, which the client reports.
struct DisplayDoor<R> {
    limits: Limits,
    report: R,
}

impl<R> Door for DisplayDoor<R>
where
    R: Fn(SocketAddr, Result<ServerReport, NetError>) + Send + Sync + 'static,
{
    type Hello = (latlab_desktop::session::SessionConfig, Pace);
    const MAX_HELLO: usize = MAX_HELLO;

    fn hello(&self, bytes: &[u8]) -> Hello<Self::Hello> {
        let Some(end) = bytes.iter().position(|&b| b == b'\n') else { return Hello::More };
        let line = String::from_utf8_lossy(&bytes[..end]).trim_end().to_string();
        let (cfg, pace) = match parse_hello(&line) {
            Ok(x) => x,
            Err(e) => return Hello::Refuse(Refusal::Bad(e.to_string())),
        };
        if cfg.duration_ms.saturating_mul(1_000_000) > self.limits.session().max_ns {
            return Hello::Refuse(Refusal::TooLong(format!(
                "a session of {:.1} s is longer than this server allows ({:.0} s, --max-session)",
                cfg.duration_ms as f64 / 1e3,
                self.limits.max_session.as_secs_f64()
            )));
        }
        Hello::Done { hello: (cfg, pace), used: end + 1 }
    }

    fn refuse(&self, stream: &mut TcpStream, _: SocketAddr, why: &Refusal) {
        let why = match why {
            Refusal::Deadline(d) => format!("no hello within {:.1} s", d.as_secs_f64()),
            Refusal::PushedOut => "too many connections waiting for their hello".into(),
            Refusal::OutOfDescriptors => "the server is out of descriptors".into(),
            Refusal::Bad(e) | Refusal::TooLong(e) => e.clone(),
            Refusal::Oversized(n) => format!("a hello is one line of at most {n} bytes"),
            Refusal::Busy => format!(
                "busy: {} sessions running, the most this server allows (--max-sessions)",
                self.limits.max_sessions
            ),
        };
        let _ = stream.write(format!("ERR {why}\n").as_bytes());
    }

    fn serve(&self, mut stream: TcpStream, (cfg, pace): Self::Hello, early: Vec<u8>, a: Admission) {
        // The hello was the whole handshake.
        if !a.admitted() {
            return;
        }
        let Some(_slot) = a.take_slot() else {
            self.refuse(&mut stream, a.peer, &Refusal::Busy);
            return;
        };
        (self.report)(a.peer, run_session(stream, cfg, pace, &early, self.limits.session()));
    }
}

/// Listen on `listener` until `stop` says so (checked every 100 ms at most) or, with `once`,
/// until the first session ends, under `limits`, through latlab's front door; `report` is told
/// of every session's end, and `stats` counts the rest. Returns when every session has ended
/// (they stop at Ctrl-C).
pub fn serve_bounded(
    listener: &TcpListener,
    once: bool,
    limits: Limits,
    stats: Arc<DoorStats>,
    stop: &dyn Fn() -> bool,
    report: impl Fn(SocketAddr, Result<ServerReport, NetError>) + Send + Sync + 'static,
) -> Result<(), NetError> {
    limits.validate()?;
    let door_limits = DoorLimits {
        hello_deadline: limits.hello_deadline,
        max_waiting: limits.max_waiting,
        max_sessions: limits.max_sessions,
        once,
    };
    let door = Arc::new(DisplayDoor { limits, report });
    latlab_sys::door::serve(listener, door, door_limits, stats, stop).doing("serving")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_desktop::session::SessionConfig;
    use latlab_desktop::workload::WorkloadKind;
    use latlab_model::testing::eventually;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    /// A bounded server on loopback with `limits`, stopped when the returned flag is set.
    fn server(limits: Limits) -> (SocketAddr, Arc<DoorStats>, Arc<AtomicBool>, std::thread::JoinHandle<()>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let (stats, stop) = (Arc::new(DoorStats::default()), Arc::new(AtomicBool::new(false)));
        let (st, sp) = (stats.clone(), stop.clone());
        let h = std::thread::spawn(move || {
            serve_bounded(&l, false, limits, st, &|| sp.load(Ordering::Relaxed), |_, _| {}).unwrap();
        });
        (addr, stats, stop, h)
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
        eventually("20 accepted", || stats.connections.load(Ordering::Relaxed) == 20);
        assert_eq!(stats.pushed_out.load(Ordering::Relaxed), 12, "the room holds 8; the 12 oldest went");
        eventually("the other 8 closed at the deadline", || stats.deadline.load(Ordering::Relaxed) == 8);
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
        assert_eq!((l(&stats.failed), l(&stats.too_long), l(&stats.busy), l(&stats.sessions)), (2, 1, 1, 1));
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
            serve_bounded(&l, true, limits, Arc::new(DoorStats::default()), &|| false, move |_, r| {
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
