//! The front door of latlab's servers (`display serve` and `display serve --rdp`): one serve
//! loop and one admission gate for any protocol. Every connection waits for its first message
//! in one thread (poll), holding a socket and at most [`Door::MAX_HELLO`] bytes; only a
//! complete first message gets a thread of its own, where the protocol finishes its handshake
//! and takes a session slot. A deadline for the first message; one bound on connections not
//! yet in a session, waiting or in their handshake (the one there longest goes first); one on
//! sessions at once; refusals answered the protocol's way; counters of what was refused and why.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a server's front door allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DoorLimits {
    /// Time a connection has to send its first message.
    pub hello_deadline: Duration,
    /// Connections not yet in a session (waiting for their first message, or in their
    /// handshake) at once; past it the one there longest is closed.
    pub max_waiting: usize,
    /// Sessions at once.
    pub max_sessions: usize,
    /// Serve one session, then return.
    pub once: bool,
}

/// What the front door did, updated as it runs.
#[derive(Debug, Default)]
pub struct DoorStats {
    /// Connections accepted by TCP.
    pub connections: AtomicU64,
    /// Sessions begun (a slot taken).
    pub sessions: AtomicU64,
    /// Closed: no first message, or no finished handshake, within the deadline.
    pub deadline: AtomicU64,
    /// Refused: a first message that does not read, or a handshake that failed.
    pub failed: AtomicU64,
    /// Closed: pushed out of a full waiting room (the one there longest goes).
    pub pushed_out: AtomicU64,
    /// Refused: every session slot taken.
    pub busy: AtomicU64,
    /// Refused: a session longer than the server allows.
    pub too_long: AtomicU64,
}

impl DoorStats {
    /// One line for people.
    pub fn line(&self) -> String {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        format!(
            "{} connections, {} sessions; closed: {} past the deadline, {} pushed out of a full waiting room; refused: {} failed or bad first messages, {} busy, {} too long",
            l(&self.connections),
            l(&self.sessions),
            l(&self.deadline),
            l(&self.pushed_out),
            l(&self.failed),
            l(&self.busy),
            l(&self.too_long)
        )
    }
}

/// Why the door closed a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No first message within the deadline.
    Deadline(Duration),
    /// Pushed out of a full waiting room.
    PushedOut,
    /// The server is out of descriptors: the one waiting longest gives its up.
    OutOfDescriptors,
    /// A first message that does not read (why).
    Bad(String),
    /// A first message longer than the protocol allows (its limit, bytes).
    Oversized(usize),
    /// A session longer than the server allows (why).
    TooLong(String),
    /// Every session slot is taken.
    Busy,
}

/// A first message, as far as it came.
#[derive(Debug)]
pub enum Hello<H> {
    /// Not complete yet: read on.
    More,
    /// Complete in its first `used` bytes.
    Done {
        /// What it said.
        hello: H,
        /// Its length, bytes (what follows is the session's).
        used: usize,
    },
    /// Refused: the session cannot go on.
    Refuse(Refusal),
}

/// A protocol at the front door.
pub trait Door: Send + Sync + 'static {
    /// What a first message says.
    type Hello: Send + 'static;
    /// The longest first message, bytes.
    const MAX_HELLO: usize;
    /// Read the first message so far.
    fn hello(&self, bytes: &[u8]) -> Hello<Self::Hello>;
    /// Tell a refused connection why, the protocol's way (best effort: its socket does not
    /// block and is closed next).
    fn refuse(&self, stream: &mut TcpStream, peer: SocketAddr, why: &Refusal);
    /// Serve a connection whose first message came, on its own thread with its socket
    /// blocking: finish the handshake, then [`Admission::admitted`] and
    /// [`Admission::take_slot`] (the session, held until its slot drops).
    fn serve(&self, stream: TcpStream, hello: Self::Hello, early: Vec<u8>, admission: Admission);
}

/// A connection let in to finish its handshake: its place in the waiting room until
/// [`admitted`](Self::admitted), then the session slot it may take.
pub struct Admission {
    /// Who.
    pub peer: SocketAddr,
    /// When TCP accepted it.
    pub since: Instant,
    id: u64,
    shared: Arc<Shared>,
}

/// A session's slot: held while the session runs, given back when dropped.
pub struct Slot(Arc<Shared>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Admission {
    /// The handshake finished: leave the waiting room. False when the connection was pushed
    /// out meanwhile (its socket is shut; the session must not go on).
    pub fn admitted(&self) -> bool {
        let mut hs = self.shared.handshakes.lock().unwrap_or_else(|p| p.into_inner());
        match hs.iter().position(|h| h.id == self.id) {
            Some(i) => {
                hs.remove(i);
                true
            }
            None => false,
        }
    }

    /// A session slot, or none when every one is taken (counted as busy; the protocol tells the
    /// client).
    pub fn take_slot(&self) -> Option<Slot> {
        let s = &self.shared;
        if s.running.fetch_add(1, Ordering::AcqRel) >= s.limits.max_sessions {
            s.running.fetch_sub(1, Ordering::AcqRel);
            s.stats.busy.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        s.stats.sessions.fetch_add(1, Ordering::Relaxed);
        Some(Slot(s.clone()))
    }

    /// The door's counters (a protocol counts its own handshake's failures there).
    pub fn stats(&self) -> &DoorStats {
        &self.shared.stats
    }

    /// Time left of the deadline for the whole handshake `deadline`, from TCP's accept.
    pub fn left_of(&self, deadline: Duration) -> Duration {
        deadline.saturating_sub(self.since.elapsed())
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        // A handshake that ended without `admitted` (it failed) leaves the room too.
        let _ = self.admitted();
    }
}

/// A connection in its handshake, on its own thread.
struct InHandshake {
    id: u64,
    since: Instant,
    /// The same socket, to shut when it is pushed out.
    stream: TcpStream,
}

/// What the door and its sessions share.
struct Shared {
    limits: DoorLimits,
    stats: Arc<DoorStats>,
    running: AtomicUsize,
    handshakes: Mutex<VecDeque<InHandshake>>,
}

/// A connection waiting for its first message.
struct Waiting {
    stream: TcpStream,
    peer: SocketAddr,
    since: Instant,
    /// The message so far: empty (no allocation) until its first bytes.
    hello: Vec<u8>,
}

/// Serve `door` on `listener` until `stop` says so (checked every 100 ms at most) or, with
/// `limits.once`, until the first session has ended; it returns once every session it began
/// has ended (sessions stop at Ctrl-C).
pub fn serve<D: Door>(
    listener: &TcpListener,
    door: Arc<D>,
    limits: DoorLimits,
    stats: Arc<DoorStats>,
    stop: &dyn Fn() -> bool,
) -> io::Result<()> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    if limits.max_waiting == 0 || limits.max_sessions == 0 || limits.hello_deadline.is_zero() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "a front door needs room, slots and a deadline"));
    }
    listener.set_nonblocking(true)?;
    let shared = Arc::new(Shared { limits, stats, running: AtomicUsize::new(0), handshakes: Mutex::default() });
    let mut waiting: VecDeque<Waiting> = VecDeque::new();
    let mut threads: Vec<std::thread::JoinHandle<()>> = Vec::new();
    let mut scratch = vec![0u8; D::MAX_HELLO];
    let mut next_id = 0u64;
    loop {
        threads.retain(|t| !t.is_finished());
        if stop() {
            break;
        }
        let began = shared.stats.sessions.load(Ordering::Relaxed) > 0;
        if limits.once && began && shared.running.load(Ordering::Acquire) == 0 {
            break;
        }
        // With `once`, no one new once the session began.
        let listening = !(limits.once && began);
        // Sleep until a socket is ready, the oldest deadline passes, or 100 ms (Ctrl-C).
        let now = Instant::now();
        let next = waiting.front().map(|w| (w.since + limits.hello_deadline).saturating_duration_since(now));
        let wait_ms = next.unwrap_or(Duration::from_millis(100)).min(Duration::from_millis(100)).as_millis();
        let (listener_ready, ready) = {
            let mut fds = Vec::with_capacity(waiting.len() + 1);
            fds.push(PollFd::new(listener.as_fd(), if listening { PollFlags::POLLIN } else { PollFlags::empty() }));
            fds.extend(waiting.iter().map(|w| PollFd::new(w.stream.as_fd(), PollFlags::POLLIN)));
            match poll(&mut fds, PollTimeout::try_from(wait_ms as i32).unwrap_or(PollTimeout::MAX)) {
                Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                Err(e) => return Err(e.into()),
            }
            let is = |f: &PollFd| f.revents().is_some_and(|r| !r.is_empty());
            (listening && is(&fds[0]), fds[1..].iter().map(is).collect::<Vec<bool>>())
        };
        // The waiting connections: read what came, let in or refuse, close the late.
        let now = Instant::now();
        let mut still = VecDeque::with_capacity(waiting.len());
        for (mut w, r) in waiting.drain(..).zip(ready) {
            if r {
                let room = D::MAX_HELLO - w.hello.len();
                match w.stream.read(&mut scratch[..room.max(1)]) {
                    Ok(0) => continue,
                    Ok(n) => w.hello.extend_from_slice(&scratch[..n]),
                    Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {}
                    Err(_) => continue,
                }
                match door.hello(&w.hello) {
                    Hello::Done { hello, used } => {
                        next_id += 1;
                        if let Some(t) = let_in(&door, &shared, w, hello, used, next_id) {
                            threads.push(t);
                        }
                        continue;
                    }
                    Hello::Refuse(why) => {
                        refuse(&*door, &shared.stats, w, &why);
                        continue;
                    }
                    Hello::More if w.hello.len() >= D::MAX_HELLO => {
                        refuse(&*door, &shared.stats, w, &Refusal::Oversized(D::MAX_HELLO));
                        continue;
                    }
                    Hello::More => {}
                }
            }
            if now.duration_since(w.since) >= limits.hello_deadline {
                refuse(&*door, &shared.stats, w, &Refusal::Deadline(limits.hello_deadline));
                continue;
            }
            still.push_back(w);
        }
        waiting = still;
        // New connections join the waiting room; when it is full, the one there longest goes.
        if listener_ready {
            loop {
                match listener.accept() {
                    Ok((stream, peer)) => {
                        shared.stats.connections.fetch_add(1, Ordering::Relaxed);
                        if stream.set_nonblocking(true).is_err() {
                            continue;
                        }
                        make_room(&*door, &shared, &mut waiting);
                        waiting.push_back(Waiting { stream, peer, since: Instant::now(), hello: Vec::new() });
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    // Out of descriptors: the connection waiting longest gives its up (else the
                    // pending connection would wake this loop at once, for ever).
                    Err(e) if matches!(e.raw_os_error(), Some(libc::EMFILE) | Some(libc::ENFILE)) => {
                        match waiting.pop_front() {
                            Some(old) => refuse(&*door, &shared.stats, old, &Refusal::OutOfDescriptors),
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
    // Those not yet in a session are closed; sessions end at the stop (they check it).
    for w in waiting.drain(..) {
        let _ = w.stream.shutdown(std::net::Shutdown::Both);
    }
    for h in shared.handshakes.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
        let _ = h.stream.shutdown(std::net::Shutdown::Both);
    }
    // Each session ends (at the stop, or its own end) before the door says it is closed: what
    // a session stores as it ends is stored before the server's own run.
    for t in threads {
        let _ = t.join();
    }
    Ok(())
}

/// Answer a refusal and close, counted.
fn refuse<D: Door>(door: &D, stats: &DoorStats, mut w: Waiting, why: &Refusal) {
    let counter = match why {
        Refusal::Deadline(_) => &stats.deadline,
        Refusal::PushedOut | Refusal::OutOfDescriptors => &stats.pushed_out,
        Refusal::Bad(_) | Refusal::Oversized(_) => &stats.failed,
        Refusal::TooLong(_) => &stats.too_long,
        Refusal::Busy => &stats.busy,
    };
    counter.fetch_add(1, Ordering::Relaxed);
    door.refuse(&mut w.stream, w.peer, why);
}

/// Make a place for one more: while the room (those waiting and those in their handshake) is
/// full, the one there longest goes.
fn make_room<D: Door>(door: &D, shared: &Shared, waiting: &mut VecDeque<Waiting>) {
    let mut hs = shared.handshakes.lock().unwrap_or_else(|p| p.into_inner());
    while waiting.len() + hs.len() >= shared.limits.max_waiting {
        let oldest_waiting = waiting.front().map(|w| w.since);
        let oldest_handshake = hs.front().map(|h| h.since);
        match (oldest_waiting, oldest_handshake) {
            (Some(w), Some(h)) if h < w => push_out_handshake(shared, &mut hs),
            (None, Some(_)) => push_out_handshake(shared, &mut hs),
            (Some(_), _) => {
                let old = waiting.pop_front().expect("there is one");
                refuse(door, &shared.stats, old, &Refusal::PushedOut);
            }
            (None, None) => break,
        }
    }
}

/// Close the connection in its handshake longest: its thread sees the socket shut.
fn push_out_handshake(shared: &Shared, hs: &mut VecDeque<InHandshake>) {
    if let Some(h) = hs.pop_front() {
        shared.stats.pushed_out.fetch_add(1, Ordering::Relaxed);
        let _ = h.stream.shutdown(std::net::Shutdown::Both);
    }
}

/// A complete first message on `w`: its handshake and session on a thread of their own.
fn let_in<D: Door>(
    door: &Arc<D>,
    shared: &Arc<Shared>,
    w: Waiting,
    hello: D::Hello,
    used: usize,
    id: u64,
) -> Option<std::thread::JoinHandle<()>> {
    let early = w.hello[used.min(w.hello.len())..].to_vec();
    let Waiting { stream, peer, since, .. } = w;
    if stream.set_nonblocking(false).is_err() {
        return None;
    }
    if let Ok(c) = stream.try_clone() {
        shared.handshakes.lock().unwrap_or_else(|p| p.into_inner()).push_back(InHandshake { id, since, stream: c });
    }
    let admission = Admission { peer, since, id, shared: shared.clone() };
    let door = door.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("latlab-session {peer}"))
        .spawn(move || door.serve(stream, hello, early, admission));
    // Out of threads: this connection is lost (its place freed with it), the server goes on.
    spawned.ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_model::testing::eventually;
    use std::io::{BufRead, Write};
    use std::sync::atomic::AtomicBool;

    /// A line protocol: `HELLO n\n` asks for a session of n ms (at most 1000); `ERR why\n`
    /// answers a refusal; a session echoes `OK\n` and holds its slot n ms.
    struct Lines;

    impl Door for Lines {
        type Hello = u64;
        const MAX_HELLO: usize = 64;
        fn hello(&self, bytes: &[u8]) -> Hello<u64> {
            let Some(end) = bytes.iter().position(|&b| b == b'\n') else { return Hello::More };
            match std::str::from_utf8(&bytes[..end]).ok().and_then(|l| l.strip_prefix("HELLO ")) {
                Some(n) => match n.parse::<u64>() {
                    Ok(ms) if ms > 1000 => Hello::Refuse(Refusal::TooLong(format!("{ms} ms is over 1000"))),
                    Ok(ms) => Hello::Done { hello: ms, used: end + 1 },
                    Err(_) => Hello::Refuse(Refusal::Bad("not a number".into())),
                },
                None => Hello::Refuse(Refusal::Bad("not a hello".into())),
            }
        }
        fn refuse(&self, stream: &mut TcpStream, _: SocketAddr, why: &Refusal) {
            let _ = stream.write_all(format!("ERR {why:?}\n").as_bytes());
        }
        fn serve(&self, mut stream: TcpStream, ms: u64, _: Vec<u8>, a: Admission) {
            if !a.admitted() {
                return;
            }
            let Some(_slot) = a.take_slot() else {
                let _ = stream.write_all(b"ERR Busy\n");
                return;
            };
            let _ = stream.write_all(b"OK\n");
            std::thread::sleep(Duration::from_millis(ms));
        }
    }

    fn limits() -> DoorLimits {
        DoorLimits { hello_deadline: Duration::from_secs(5), max_waiting: 8, max_sessions: 1, once: false }
    }

    /// A door on loopback with `limits`, stopped when the returned flag is set.
    fn door(limits: DoorLimits) -> (SocketAddr, Arc<DoorStats>, Arc<AtomicBool>, std::thread::JoinHandle<()>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let (stats, stop) = (Arc::new(DoorStats::default()), Arc::new(AtomicBool::new(false)));
        let (st, sp) = (stats.clone(), stop.clone());
        let h =
            std::thread::spawn(move || serve(&l, Arc::new(Lines), limits, st, &|| sp.load(Ordering::Relaxed)).unwrap());
        (addr, stats, stop, h)
    }

    fn answer(addr: SocketAddr, hello: &str) -> String {
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(hello.as_bytes()).unwrap();
        let mut a = String::new();
        let _ = io::BufReader::new(c).read_line(&mut a);
        a
    }

    #[test]
    fn the_room_is_bounded_the_late_are_closed_and_each_refusal_is_counted() {
        let (addr, stats, stop, h) = door(DoorLimits { hello_deadline: Duration::from_millis(300), ..limits() });
        let idle: Vec<TcpStream> = (0..20).map(|_| TcpStream::connect(addr).unwrap()).collect();
        eventually("20 accepted", || stats.connections.load(Ordering::Relaxed) == 20);
        assert_eq!(stats.pushed_out.load(Ordering::Relaxed), 12, "the room holds 8; the 12 oldest went");
        eventually("the other 8 closed at the deadline", || stats.deadline.load(Ordering::Relaxed) == 8);
        let mut told = String::new();
        io::BufReader::new(&idle[0]).read_line(&mut told).unwrap();
        assert_eq!(told, "ERR PushedOut\n");
        assert!(answer(addr, "nonsense\n").starts_with("ERR Bad"));
        assert!(answer(addr, "HELLO 5000\n").starts_with("ERR TooLong"));
        assert_eq!(answer(addr, &"x".repeat(100)), "ERR Oversized(64)\n", "longer than MAX_HELLO");
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        assert_eq!((l(&stats.failed), l(&stats.too_long), l(&stats.sessions)), (2, 1, 0));
        stop.store(true, Ordering::Relaxed);
        h.join().unwrap();
    }

    #[test]
    fn a_session_holds_its_slot_the_next_is_busy_and_the_slot_comes_back() {
        let (addr, stats, stop, h) = door(limits());
        let mut first = TcpStream::connect(addr).unwrap();
        first.write_all(b"HELLO 1000\n").unwrap();
        let mut ok = [0u8; 3];
        first.read_exact(&mut ok).unwrap();
        assert_eq!(&ok, b"OK\n");
        assert_eq!(answer(addr, "HELLO 1\n"), "ERR Busy\n");
        assert_eq!(stats.busy.load(Ordering::Relaxed), 1);
        eventually("the slot freed", || answer(addr, "HELLO 1\n") == "OK\n");
        assert_eq!(stats.sessions.load(Ordering::Relaxed), 2);
        stop.store(true, Ordering::Relaxed);
        h.join().unwrap();
    }

    #[test]
    fn once_returns_after_its_session_and_a_handshake_pushed_out_is_told_so() {
        // `once`: the door returns when its one session has ended.
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let stats = Arc::new(DoorStats::default());
        let st = stats.clone();
        let h = std::thread::spawn(move || {
            serve(&l, Arc::new(Lines), DoorLimits { once: true, ..limits() }, st, &|| false).unwrap()
        });
        assert_eq!(answer(addr, "HELLO 10\n"), "OK\n");
        h.join().unwrap();
        assert_eq!(stats.sessions.load(Ordering::Relaxed), 1);
        // A handshake in the room: a newer connection past the bound pushes it out, and the
        // protocol learns it at `admitted`.
        let shared = Arc::new(Shared {
            limits: DoorLimits { max_waiting: 1, ..limits() },
            stats: Arc::new(DoorStats::default()),
            running: AtomicUsize::new(0),
            handshakes: Mutex::default(),
        });
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (s, peer) = l.accept().unwrap();
        shared.handshakes.lock().unwrap().push_back(InHandshake { id: 1, since: Instant::now(), stream: s });
        let a = Admission { peer, since: Instant::now(), id: 1, shared: shared.clone() };
        make_room(&Lines, &shared, &mut VecDeque::new());
        assert!(!a.admitted(), "pushed out");
        assert_eq!(shared.stats.pushed_out.load(Ordering::Relaxed), 1);
        drop(c);
    }
}
