//! The reflector (`latlab udp serve`): answers each valid probe with a reply of the same
//! size carrying the kernel's receive timestamp (`SO_TIMESTAMPNS`) and its send time.
//!
//! Safe on an open network: a reply is never larger than its request (it *is* the request,
//! rewritten in place); malformed and unauthenticated datagrams are counted and dropped; each
//! source address gets a token bucket, and the table of sources is bounded (the least
//! recently seen source is forgotten first), so a flood from many addresses cannot grow
//! memory or amplify traffic.

use latlab_udp_probe::socket::{Received, TimestampedSocket, cmsg_buffer};
use latlab_udp_probe::wire;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Reflector settings.
#[derive(Debug, Clone)]
pub struct ReflectorConfig {
    /// Shared key: probes must carry a valid HMAC-SHA256, and replies do.
    pub key: Option<Vec<u8>>,
    /// Most replies per second to one source (token bucket rate; burst = one second's worth).
    pub max_pps_per_source: u32,
    /// Most sources tracked at once.
    pub max_sources: usize,
    /// Hand every valid probe to a local player (the loopback run's live playout).
    pub tap: Option<crate::playout::Tap>,
}

impl Default for ReflectorConfig {
    fn default() -> Self {
        Self { key: None, max_pps_per_source: 200_000, max_sources: 4096, tap: None }
    }
}

/// What the reflector did, updated as it runs.
#[derive(Debug, Default)]
pub struct ReflectorStats {
    /// Datagrams received.
    pub received: AtomicU64,
    /// Replies sent.
    pub replied: AtomicU64,
    /// Dropped: not a latlab probe (short, bad magic, version or kind).
    pub malformed: AtomicU64,
    /// Dropped: missing or wrong MAC.
    pub unauthenticated: AtomicU64,
    /// Dropped: the source exceeded its rate.
    pub rate_limited: AtomicU64,
    /// Sources forgotten to keep the table bounded (a flood from many addresses shows here).
    pub sources_forgotten: AtomicU64,
}

impl ReflectorStats {
    /// (received, replied, malformed, unauthenticated, rate_limited).
    pub fn snapshot(&self) -> (u64, u64, u64, u64, u64) {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        (l(&self.received), l(&self.replied), l(&self.malformed), l(&self.unauthenticated), l(&self.rate_limited))
    }

    /// One line for people: what came in, what went out, and what was dropped and why.
    pub fn line(&self) -> String {
        let (rx, replied, malformed, unauth, limited) = self.snapshot();
        let forgot = self.sources_forgotten.load(Ordering::Relaxed);
        format!(
            "{rx} received, {replied} replied; dropped: {malformed} malformed, {unauth} unauthenticated, {limited} rate-limited; {forgot} sources forgotten (table bounded)"
        )
    }
}

struct Bucket {
    tokens: f64,
    last_ns: u64,
}

/// Per-source token buckets in a bounded table.
struct Limiter {
    rate: f64,
    max: usize,
    table: HashMap<SocketAddr, Bucket>,
}

impl Limiter {
    /// Whether `src` may have a reply now; true in the second field when a source was
    /// forgotten to make room for it.
    fn allow(&mut self, src: SocketAddr, now_ns: u64) -> (bool, bool) {
        let mut forgot = false;
        if !self.table.contains_key(&src) && self.table.len() >= self.max {
            // Forget the least recently seen source.
            if let Some(old) = self.table.iter().min_by_key(|(_, b)| b.last_ns).map(|(a, _)| *a) {
                self.table.remove(&old);
                forgot = true;
            }
        }
        let rate = self.rate;
        let b = self.table.entry(src).or_insert(Bucket { tokens: rate, last_ns: now_ns });
        b.tokens = (b.tokens + (now_ns.saturating_sub(b.last_ns)) as f64 * rate / 1e9).min(rate);
        b.last_ns = now_ns;
        let ok = b.tokens >= 1.0;
        if ok {
            b.tokens -= 1.0;
        }
        (ok, forgot)
    }
}

/// Serve until `stop` is set (checked at least every 100 ms).
pub fn serve(
    sock: &TimestampedSocket,
    cfg: &ReflectorConfig,
    stats: &ReflectorStats,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    let mut buf = vec![0u8; wire::MAX_SIZE + 64];
    let mut cmsg = cmsg_buffer();
    let mut lim =
        Limiter { rate: cfg.max_pps_per_source.max(1) as f64, max: cfg.max_sources.max(1), table: HashMap::new() };
    let key = cfg.key.as_deref();
    while !stop.load(Ordering::Relaxed) {
        let Some(Received { len, from, kernel_rx_ns }) = sock.recv(&mut buf, &mut cmsg)? else { continue };
        stats.received.fetch_add(1, Ordering::Relaxed);
        let data = &mut buf[..len];
        let probe = match wire::decode(data, key) {
            Ok(p) if p.kind == wire::KIND_PROBE => p,
            Err(wire::WireError::Auth) => {
                stats.unauthenticated.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            _ => {
                stats.malformed.fetch_add(1, Ordering::Relaxed);
                continue;
            }
        };
        if let Some(t) = &cfg.tap {
            t.arrived(probe.seq, probe.sent_mono_ns as i64);
        }
        let (ok, forgot) = lim.allow(from, latlab_sys::clock::monotonic_now());
        if forgot {
            stats.sources_forgotten.fetch_add(1, Ordering::Relaxed);
        }
        if !ok {
            stats.rate_limited.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        wire::make_reply(data, kernel_rx_ns, latlab_sys::clock::unix_now_ns(), key);
        if sock.send_to(data, from).is_ok() {
            stats.replied.fetch_add(1, Ordering::Relaxed);
        }
    }
    Ok(())
}

/// A reflector on its own thread, stopped on drop.
pub struct Running {
    /// Its address.
    pub addr: SocketAddr,
    /// Its counters.
    pub stats: Arc<ReflectorStats>,
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

/// Start a reflector on `bind` in a background thread.
pub fn spawn(bind: SocketAddr, cfg: ReflectorConfig) -> std::io::Result<Running> {
    let sock = TimestampedSocket::bind(bind)?;
    let addr = sock.local_addr()?;
    let stats = Arc::new(ReflectorStats::default());
    let stop = Arc::new(AtomicBool::new(false));
    let (s2, st2) = (stats.clone(), stop.clone());
    let handle =
        std::thread::Builder::new().name("latlab-udp-reflector".into()).spawn(move || serve(&sock, &cfg, &s2, &st2))?;
    Ok(Running { addr, stats, stop, handle: Some(handle) })
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limiter_bounds_rate_and_table() {
        let mut l = Limiter { rate: 10.0, max: 2, table: HashMap::new() };
        let a: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let allowed = (0..100).filter(|_| l.allow(a, 0).0).count();
        assert_eq!(allowed, 10, "one second's burst, then nothing without time passing");
        assert!(l.allow(a, 200_000_000).0, "tokens come back with time");
        let forgotten = (2..50).filter(|&p| l.allow(format!("127.0.0.1:{p}").parse().unwrap(), p as u64).1).count();
        assert!(l.table.len() <= 2);
        assert_eq!(forgotten, 47, "source 2 fills the table beside a; each of the 47 after forgets one");
    }

    #[test]
    fn requests_to_a_reflector_come_back_with_their_sequence_numbers_and_junk_is_refused() {
        for key in [None, Some(b"k".to_vec())] {
            let refl =
                spawn("127.0.0.1:0".parse().unwrap(), ReflectorConfig { key: key.clone(), ..Default::default() })
                    .unwrap();
            let mut p = latlab_udp_probe::peer::Peer::connect(refl.addr, 64, key).unwrap();
            for seq in [5, 6, 7] {
                p.send(seq).unwrap();
            }
            // Junk from elsewhere to the peer's socket.
            let me = p.local_addr().unwrap();
            std::net::UdpSocket::bind("127.0.0.1:0").unwrap().send_to(b"junk", ("127.0.0.1", me.port())).unwrap();
            let mut got = Vec::new();
            let t = std::time::Instant::now();
            while got.len() < 3 && t.elapsed() < std::time::Duration::from_secs(10) {
                if let Some((seq, _rtt)) = p.poll().unwrap() {
                    got.push(seq);
                }
            }
            got.sort_unstable();
            assert_eq!(got, vec![5, 6, 7]);
            while p.refused() == 0 && t.elapsed() < std::time::Duration::from_secs(10) {
                let _ = p.poll().unwrap();
            }
            assert_eq!(p.refused(), 1, "the junk datagram");
        }
    }
}
