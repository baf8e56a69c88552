//! `latlab udp relay`: a deterministic, seeded impairment relay for kernels without netem
//! and for latlab's own tests. Datagrams from clients to `listen` are forwarded to `to`
//! after a fixed delay, uniform jitter, random loss, a rate limit, and optionally
//! *hold-and-release*: everything is held until the next multiple of P since the relay
//! started and then released together — the pattern seed 002 saw on Windows Phone 7.
//! Replies from `to` go straight back to the client that sent the request.
//!
//! The same seed and the same arrival order give the same decisions. Each client gets its
//! own upstream socket (so replies find their way back); at most `max_clients` at once.

use rand::{RngExt, SeedableRng, rngs::StdRng};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// What the relay does to the forward path.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Impairment {
    /// Fixed extra delay, ns.
    pub delay_ns: u64,
    /// Uniform extra delay in [0, jitter), ns.
    pub jitter_ns: u64,
    /// Probability of dropping a datagram.
    pub loss: f64,
    /// Rate limit, bits per second (None = unlimited).
    pub rate_bps: Option<u64>,
    /// Hold everything and release it every P ns (None = no holding).
    pub hold_every_ns: Option<u64>,
    /// Seed of the random decisions.
    pub seed: u64,
}

impl Default for Impairment {
    fn default() -> Self {
        Self { delay_ns: 0, jitter_ns: 0, loss: 0.0, rate_bps: None, hold_every_ns: None, seed: 1 }
    }
}

impl Impairment {
    /// Check the values.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if !(0.0..=1.0).contains(&self.loss) {
            return Err(format!("loss {} must be between 0 and 1", self.loss).into());
        }
        if self.hold_every_ns == Some(0) || self.rate_bps == Some(0) {
            return Err("a hold period and a rate must be above 0".into());
        }
        Ok(())
    }
}

/// Relay counters.
#[derive(Debug, Default)]
pub struct RelayStats {
    /// Datagrams from clients.
    pub forwarded_in: AtomicU64,
    /// Datagrams sent on to the target.
    pub forwarded_out: AtomicU64,
    /// Dropped by the loss setting.
    pub dropped: AtomicU64,
    /// Replies passed back.
    pub replies: AtomicU64,
    /// Datagrams from new clients refused because the client table was full.
    pub refused_clients: AtomicU64,
}

/// The release schedule: pure, so tests can check it without sockets.
pub struct Scheduler {
    imp: Impairment,
    rng: StdRng,
    t0: u64,
    link_free_at: u64,
}

impl Scheduler {
    /// A scheduler whose hold periods count from `t0`.
    pub fn new(imp: Impairment, t0: u64) -> Self {
        Self { rng: StdRng::seed_from_u64(imp.seed), imp, t0, link_free_at: 0 }
    }
    /// When a datagram of `len` bytes arriving at `now` leaves, or None if it is dropped.
    pub fn release_at(&mut self, now: u64, len: usize) -> Option<u64> {
        if self.imp.loss > 0.0 && self.rng.random::<f64>() < self.imp.loss {
            return None;
        }
        let jitter = if self.imp.jitter_ns > 0 { self.rng.random_range(0..self.imp.jitter_ns) } else { 0 };
        let mut t = now + self.imp.delay_ns + jitter;
        if let Some(p) = self.imp.hold_every_ns.filter(|&p| p > 0) {
            let since = t.saturating_sub(self.t0);
            t = self.t0 + since.div_ceil(p) * p;
        }
        if let Some(bps) = self.imp.rate_bps.filter(|&b| b > 0) {
            t = t.max(self.link_free_at);
            self.link_free_at = t + (len as u64 * 8).saturating_mul(1_000_000_000) / bps;
        }
        Some(t)
    }
}

struct Queued {
    at: u64,
    order: u64,
    client: usize,
    data: Vec<u8>,
}
impl PartialEq for Queued {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.order) == (o.at, o.order)
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Queued {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.order).cmp(&(o.at, o.order))
    }
}

/// A running relay, stopped on drop.
pub struct Relay {
    /// The address clients send to.
    pub listen: SocketAddr,
    /// Counters.
    pub stats: Arc<RelayStats>,
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

/// Start a relay from `listen` to `to`.
pub fn spawn(listen: SocketAddr, to: SocketAddr, imp: Impairment, max_clients: usize) -> std::io::Result<Relay> {
    let front = Arc::new(UdpSocket::bind(listen)?);
    front.set_read_timeout(Some(Duration::from_millis(100)))?;
    let listen = front.local_addr()?;
    let stats = Arc::new(RelayStats::default());
    let stop = Arc::new(AtomicBool::new(false));
    let queue = Arc::new((Mutex::new(BinaryHeap::<Reverse<Queued>>::new()), Condvar::new()));
    let uplinks: Arc<Mutex<Vec<Arc<UdpSocket>>>> = Arc::new(Mutex::new(Vec::new()));
    let mut threads = Vec::new();

    // Releaser: sends each queued datagram at its time.
    {
        let (queue, uplinks, stop, stats) = (queue.clone(), uplinks.clone(), stop.clone(), stats.clone());
        threads.push(std::thread::Builder::new().name("latlab-relay-out".into()).spawn(move || {
            let (lock, cv) = &*queue;
            let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
            while !stop.load(Ordering::Relaxed) {
                let now = latlab_sys::clock::monotonic_now();
                match q.peek().map(|r| r.0.at) {
                    Some(at) if at <= now => {
                        let Reverse(item) = q.pop().expect("peeked");
                        let up = uplinks.lock().unwrap_or_else(|e| e.into_inner())[item.client].clone();
                        if up.send(&item.data).is_ok() {
                            stats.forwarded_out.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    Some(at) => {
                        let wait = Duration::from_nanos((at - now).min(100_000_000));
                        q = cv.wait_timeout(q, wait).unwrap_or_else(|e| e.into_inner()).0;
                    }
                    None => {
                        q = cv.wait_timeout(q, Duration::from_millis(100)).unwrap_or_else(|e| e.into_inner()).0;
                    }
                }
            }
        })?);
    }

    // Receiver: takes client datagrams, schedules them; opens an uplink per new client.
    {
        let (front, queue, uplinks, stop, stats) =
            (front.clone(), queue.clone(), uplinks.clone(), stop.clone(), stats.clone());
        threads.push(std::thread::Builder::new().name("latlab-relay-in".into()).spawn(move || {
            let mut sched = Scheduler::new(imp, latlab_sys::clock::monotonic_now());
            let mut clients: HashMap<SocketAddr, usize> = HashMap::new();
            let mut reply_threads = Vec::new();
            let mut buf = vec![0u8; 65_536];
            let mut order = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let Ok((n, from)) = front.recv_from(&mut buf) else { continue };
                stats.forwarded_in.fetch_add(1, Ordering::Relaxed);
                let client = match clients.get(&from) {
                    Some(&c) => c,
                    None => {
                        if clients.len() >= max_clients {
                            stats.refused_clients.fetch_add(1, Ordering::Relaxed);
                            continue;
                        }
                        let bind: SocketAddr =
                            if to.is_ipv6() { "[::]:0".parse().unwrap() } else { "0.0.0.0:0".parse().unwrap() };
                        let Ok(up) = UdpSocket::bind(bind).and_then(|u| u.connect(to).map(|_| u)) else { continue };
                        let _ = up.set_read_timeout(Some(Duration::from_millis(100)));
                        let up = Arc::new(up);
                        let mut ul = uplinks.lock().unwrap_or_else(|e| e.into_inner());
                        ul.push(up.clone());
                        let idx = ul.len() - 1;
                        drop(ul);
                        clients.insert(from, idx);
                        // Replies from the target go straight back to this client.
                        let (front, stop, stats) = (front.clone(), stop.clone(), stats.clone());
                        if let Ok(h) = std::thread::Builder::new().name("latlab-relay-back".into()).spawn(move || {
                            let mut b = vec![0u8; 65_536];
                            while !stop.load(Ordering::Relaxed) {
                                if let Ok(n) = up.recv(&mut b)
                                    && front.send_to(&b[..n], from).is_ok()
                                {
                                    stats.replies.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                        }) {
                            reply_threads.push(h);
                        }
                        idx
                    }
                };
                let now = latlab_sys::clock::monotonic_now();
                match sched.release_at(now, n) {
                    None => {
                        stats.dropped.fetch_add(1, Ordering::Relaxed);
                    }
                    Some(at) => {
                        order += 1;
                        let (lock, cv) = &*queue;
                        lock.lock().unwrap_or_else(|e| e.into_inner()).push(Reverse(Queued {
                            at,
                            order,
                            client,
                            data: buf[..n].to_vec(),
                        }));
                        cv.notify_one();
                    }
                }
            }
            for h in reply_threads {
                let _ = h.join();
            }
        })?);
    }
    Ok(Relay { listen, stats, stop, threads })
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for h in self.threads.drain(..) {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hold_and_release_by_hand() {
        let imp = Impairment { hold_every_ns: Some(1_000), ..Impairment::default() };
        let mut s = Scheduler::new(imp, 10_000);
        assert_eq!(s.release_at(10_001, 10), Some(11_000));
        assert_eq!(s.release_at(10_999, 10), Some(11_000));
        assert_eq!(s.release_at(11_000, 10), Some(11_000));
        assert_eq!(s.release_at(11_001, 10), Some(12_000));
    }

    #[test]
    fn delay_rate_and_determinism() {
        let imp = Impairment { delay_ns: 100, rate_bps: Some(8_000_000_000), ..Impairment::default() };
        let mut s = Scheduler::new(imp, 0);
        // 1000 bytes at 8 Gbit/s = 1000 ns on the link.
        assert_eq!(s.release_at(0, 1000), Some(100));
        assert_eq!(s.release_at(0, 1000), Some(1_100), "queued behind the first");
        let imp = Impairment { jitter_ns: 1_000, loss: 0.3, seed: 42, ..Impairment::default() };
        let run = || {
            let mut s = Scheduler::new(imp.clone(), 0);
            (0..1000).map(|i| s.release_at(i * 10, 64)).collect::<Vec<_>>()
        };
        let a = run();
        assert_eq!(a, run(), "same seed, same decisions");
        let lost = a.iter().filter(|x| x.is_none()).count();
        assert!((200..400).contains(&lost), "{lost} of 1000 at 30 %");
        assert!(a.iter().flatten().all(|&t| t < 10_000 + 1_000));
    }

    #[test]
    fn relays_both_ways() {
        let echo = UdpSocket::bind("127.0.0.1:0").unwrap();
        echo.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let to = echo.local_addr().unwrap();
        let r =
            spawn("127.0.0.1:0".parse().unwrap(), to, Impairment { delay_ns: 1_000_000, ..Impairment::default() }, 4)
                .unwrap();
        let client = UdpSocket::bind("127.0.0.1:0").unwrap();
        client.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        client.send_to(b"ping", r.listen).unwrap();
        let mut b = [0u8; 16];
        let (n, from) = echo.recv_from(&mut b).unwrap();
        assert_eq!(&b[..n], b"ping");
        echo.send_to(b"pong", from).unwrap();
        let (n, from) = client.recv_from(&mut b).unwrap();
        assert_eq!((&b[..n], from), (&b"pong"[..], r.listen));
        // The relay counts a reply after its send returns, which may be after the client
        // already has it: wait (bounded) for the count rather than racing it.
        let t0 = std::time::Instant::now();
        while r.stats.replies.load(Ordering::Relaxed) == 0 && t0.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(r.stats.replies.load(Ordering::Relaxed), 1);
    }
}
