//! latlab's "polygons" load (seed 001's *Polygons* analog): N worker threads rasterizing
//! pseudo-random triangles into their own framebuffers with integer edge functions, each
//! counting finished polygons so a caller can see how much progress the load made (and find
//! the saturation frequency where it stops). Also a paced byte stream, the network load of
//! seed 003's RTT experiment; spinning processes are in [`crate::spin`].

use crate::clock::monotonic_now;
use crate::platform::{Capability, Sched, set_affinity, set_sched};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;

/// Framebuffer edge in pixels: 256×256 bytes = 64 KiB per worker, so the load stresses the
/// integer units and L1/L2 rather than memory bandwidth, like a 2-D drawing benchmark.
pub const FB_SIZE: i32 = 256;

/// Configuration of the polygons load.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PolygonsConfig {
    /// Worker threads.
    pub workers: usize,
    /// Scheduling of each worker; `None` keeps the caller's default.
    pub sched: Option<Sched>,
    /// CPUs worker i is pinned to (`cpus[i % len]`); empty = unpinned.
    pub cpus: Vec<usize>,
    /// Longest the workers run before stopping on their own, ns (None: until stopped). A
    /// real-time load that never blocks can starve the thread that would stop it (one CPU,
    /// no RT throttling): this bound ends it anyway.
    #[serde(default)]
    pub limit_ns: Option<u64>,
    /// Seed of the polygon generator.
    pub seed: u64,
    /// How each worker gives the CPU back: `None` never (a hog that only a higher priority,
    /// RT throttling or the fair server can interrupt), or draw for a slice and then sleep.
    #[serde(default)]
    pub pace: Option<Pace>,
}

/// A worker that draws for `draw_ns`, then sleeps `rest_ns` (so every lower scheduling class
/// runs in the gaps), as the seed's Polygons gave the CPU back between polygons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pace {
    /// Drawing time before each rest, ns.
    pub draw_ns: u64,
    /// Sleep after each slice, ns.
    pub rest_ns: u64,
}

/// What the load did.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoadReport {
    /// Polygons drawn per worker.
    pub polygons: Vec<u64>,
    /// Wall time the load ran, ns.
    pub elapsed_ns: u64,
    /// Total polygons per second.
    pub polygons_per_s: f64,
    /// What each worker got (scheduling, affinity).
    pub capabilities: Vec<Capability>,
}

/// A running load; stop it with [`PolygonLoad::stop`] (dropping also stops it).
pub struct PolygonLoad {
    counters: Vec<Arc<AtomicU64>>,
    stop: Arc<AtomicBool>,
    handles: Vec<JoinHandle<()>>,
    started: u64,
    capabilities: Vec<Capability>,
}

impl PolygonLoad {
    /// Start the workers; returns once every worker has applied its scheduling.
    pub fn start(cfg: &PolygonsConfig) -> std::io::Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel::<Vec<Capability>>();
        let mut counters = Vec::new();
        let mut handles = Vec::new();
        for i in 0..cfg.workers {
            let counter = Arc::new(AtomicU64::new(0));
            counters.push(counter.clone());
            let (stop, tx) = (stop.clone(), tx.clone());
            let sched = cfg.sched;
            let cpu = (!cfg.cpus.is_empty()).then(|| cfg.cpus[i % cfg.cpus.len()]);
            let seed = cfg.seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let until = cfg.limit_ns.map_or(u64::MAX, |l| monotonic_now().saturating_add(l));
            let pace = cfg.pace;
            handles.push(std::thread::Builder::new().name(format!("latlab-polygons-{i}")).spawn(move || {
                let mut caps = Vec::new();
                if let Some(c) = cpu {
                    caps.push(set_affinity(&[c]));
                }
                if let Some(s) = sched {
                    caps.push(set_sched(s));
                }
                let _ = tx.send(caps);
                drop(tx);
                worker(seed, &stop, &counter, until, pace);
            })?);
        }
        drop(tx);
        let mut capabilities = Vec::new();
        for caps in rx.iter().take(cfg.workers) {
            for c in caps {
                if !capabilities.iter().any(|o: &Capability| o.name == c.name && o.obtained == c.obtained) {
                    capabilities.push(c);
                }
            }
        }
        Ok(Self { counters, stop, handles, started: monotonic_now(), capabilities })
    }

    /// Polygons drawn so far, all workers together (one relaxed load per worker).
    pub fn progress(&self) -> u64 {
        self.counters.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }

    /// What the workers got when they applied their scheduling and affinity.
    pub fn capabilities(&self) -> &[Capability] {
        &self.capabilities
    }

    /// Stop the workers and report their progress.
    pub fn stop(mut self) -> LoadReport {
        self.halt()
    }

    fn halt(&mut self) -> LoadReport {
        self.stop.store(true, Ordering::Relaxed);
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
        let elapsed_ns = monotonic_now().saturating_sub(self.started);
        let polygons: Vec<u64> = self.counters.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        let total: u64 = polygons.iter().sum();
        LoadReport {
            polygons,
            elapsed_ns,
            polygons_per_s: if elapsed_ns > 0 { total as f64 * 1e9 / elapsed_ns as f64 } else { 0.0 },
            capabilities: self.capabilities.clone(),
        }
    }
}

impl Drop for PolygonLoad {
    fn drop(&mut self) {
        if !self.handles.is_empty() {
            self.halt();
        }
    }
}

fn worker(seed: u64, stop: &AtomicBool, counter: &AtomicU64, until: u64, pace: Option<Pace>) {
    let mut fb = vec![0u8; (FB_SIZE * FB_SIZE) as usize];
    let mut rng = seed | 1;
    let mut color = 0u8;
    let mut n = 0u64;
    let mut slice_end = pace.map_or(u64::MAX, |p| monotonic_now().saturating_add(p.draw_ns));
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        if let Some(p) = pace {
            // Paced: the clock is read after every polygon (a few µs of work) to end the
            // slice on time, then the worker sleeps and starts a new slice.
            let now = monotonic_now();
            if now >= until {
                break;
            }
            if now >= slice_end {
                std::thread::sleep(std::time::Duration::from_nanos(p.rest_ns));
                slice_end = monotonic_now().saturating_add(p.draw_ns);
            }
        } else if n.is_multiple_of(256) && monotonic_now() >= until {
            // A hog reads the clock every 256 polygons (well under a millisecond of work).
            break;
        }
        let mut v = [(0i32, 0i32); 3];
        let (cx, cy) = ((xorshift(&mut rng) % FB_SIZE as u64) as i32, (xorshift(&mut rng) % FB_SIZE as u64) as i32);
        for p in v.iter_mut() {
            *p = (
                (cx + (xorshift(&mut rng) % 97) as i32 - 48).clamp(0, FB_SIZE),
                (cy + (xorshift(&mut rng) % 97) as i32 - 48).clamp(0, FB_SIZE),
            );
        }
        color = color.wrapping_add(37);
        fill_triangle(&mut fb, FB_SIZE, v, |px| *px = px.wrapping_add(color));
        counter.fetch_add(1, Ordering::Relaxed);
    }
    std::hint::black_box(&fb);
}

#[inline]
fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// Rasterize a triangle with vertices on integer pixel corners into a `w`×`w` buffer,
/// calling `paint` once per covered pixel. A pixel is covered when its centre is inside;
/// centres exactly on an edge are given to one side only (an antisymmetric tie rule), so
/// triangles sharing an edge never paint a pixel twice or leave a gap. Returns the count.
pub fn fill_triangle(fb: &mut [u8], w: i32, v: [(i32, i32); 3], mut paint: impl FnMut(&mut u8)) -> u64 {
    // Work in doubled coordinates so pixel centres (x + ½) are the odd integers.
    let [mut a, mut b, c] = v.map(|(x, y)| (2 * x as i64, 2 * y as i64));
    let edge = |a: (i64, i64), b: (i64, i64), px: i64, py: i64| (b.0 - a.0) * (py - a.1) - (b.1 - a.1) * (px - a.0);
    let area = edge(a, b, c.0, c.1);
    if area == 0 {
        return 0;
    }
    if area < 0 {
        std::mem::swap(&mut a, &mut b);
    }
    // Include centres on edge a→b only if its direction satisfies an antisymmetric rule.
    let bias = |a: (i64, i64), b: (i64, i64)| {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        if dy > 0 || (dy == 0 && dx < 0) { 0 } else { 1 }
    };
    let (b0, b1, b2) = (bias(b, c), bias(c, a), bias(a, b));
    let xs = [a.0, b.0, c.0];
    let ys = [a.1, b.1, c.1];
    let (x0, x1) = ((*xs.iter().min().unwrap() / 2).max(0), (*xs.iter().max().unwrap() / 2).min(w as i64));
    let (y0, y1) = ((*ys.iter().min().unwrap() / 2).max(0), (*ys.iter().max().unwrap() / 2).min(w as i64));
    let mut n = 0;
    for y in y0..y1 {
        let py = 2 * y + 1;
        for x in x0..x1 {
            let px = 2 * x + 1;
            if edge(b, c, px, py) >= b0 && edge(c, a, px, py) >= b1 && edge(a, b, px, py) >= b2 {
                paint(&mut fb[(y * w as i64 + x) as usize]);
                n += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_triangles_tile_a_rectangle_exactly() {
        for (w, h) in [(8, 8), (13, 5), (1, 9), (64, 64)] {
            let mut fb = vec![0u8; 64 * 64];
            let n1 = fill_triangle(&mut fb, 64, [(0, 0), (w, 0), (w, h)], |p| *p += 1);
            let n2 = fill_triangle(&mut fb, 64, [(0, 0), (w, h), (0, h)], |p| *p += 1);
            assert_eq!(n1 + n2, (w * h) as u64, "{w}x{h}");
            assert!(fb.iter().all(|&p| p <= 1), "a pixel painted twice for {w}x{h}");
            assert_eq!(fb.iter().map(|&p| p as u64).sum::<u64>(), (w * h) as u64);
        }
    }

    #[test]
    fn orientation_and_degenerate() {
        let mut fb = vec![0u8; 16 * 16];
        let cw = fill_triangle(&mut fb, 16, [(0, 0), (4, 0), (0, 4)], |_| {});
        let ccw = fill_triangle(&mut fb, 16, [(0, 0), (0, 4), (4, 0)], |_| {});
        assert_eq!(cw, ccw);
        // Right triangle with legs 4: centres strictly inside x+y<4 → 1+2+3+4 − diagonal ties.
        assert!(cw == 6 || cw == 10, "{cw}");
        assert_eq!(fill_triangle(&mut fb, 16, [(0, 0), (5, 5), (10, 10)], |_| {}), 0);
        // Clipped to the buffer.
        // Clipped to the buffer: centres with y < x (120 of them), plus the 16 on the diagonal
        // if the tie rule gives that edge to this triangle.
        let clipped = fill_triangle(&mut fb, 16, [(0, 0), (40, 0), (40, 40)], |_| {});
        assert!(clipped == 120 || clipped == 136, "{clipped}");
    }

    #[test]
    fn a_limited_load_stops_on_its_own() {
        let load = PolygonLoad::start(&PolygonsConfig {
            workers: 1,
            sched: None,
            cpus: vec![],
            seed: 1,
            limit_ns: Some(0),
            pace: None,
        })
        .unwrap();
        // With a limit already past, the worker ends at its first look at the clock, after
        // 255 polygons; without the limit it would go on drawing.
        let t0 = std::time::Instant::now();
        while load.progress() < 255 && t0.elapsed() < std::time::Duration::from_secs(30) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert_eq!(load.progress(), 255, "the worker stopped by itself");
        load.stop();
    }

    #[test]
    fn a_paced_load_draws_and_rests_until_its_limit() {
        let pace = Some(Pace { draw_ns: 50_000, rest_ns: 10_000 });
        let cfg = |limit_ns| PolygonsConfig { workers: 1, sched: None, cpus: vec![], seed: 1, limit_ns, pace };
        // A paced worker looks at the clock before every polygon: with its limit past it
        // draws nothing at all.
        let load = PolygonLoad::start(&cfg(Some(0))).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(load.stop().polygons, vec![0]);
        // Through its rests it still draws.
        let load = PolygonLoad::start(&cfg(None)).unwrap();
        let t0 = std::time::Instant::now();
        while load.progress() < 10 && t0.elapsed() < std::time::Duration::from_secs(30) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(load.stop().polygons[0] >= 10);
    }

    #[test]
    fn load_makes_progress_and_stops() {
        let load = PolygonLoad::start(&PolygonsConfig {
            workers: 2,
            sched: None,
            cpus: vec![],
            seed: 1,
            limit_ns: None,
            pace: None,
        })
        .unwrap();
        let t0 = std::time::Instant::now();
        while load.progress() < 100 && t0.elapsed() < std::time::Duration::from_secs(30) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let r = load.stop();
        assert_eq!(r.polygons.len(), 2);
        assert!(r.polygons.iter().sum::<u64>() >= 100);
        assert!(r.polygons_per_s > 0.0);
    }
}

/// Write `rate_bps` of filler to `w` in 8 KB chunks on absolute deadlines until `stop` or a
/// write fails (the peer closed). Above what the path carries, writes block and the stream
/// becomes a bulk transfer. Returns the bytes written.
pub fn paced_write(w: &mut impl std::io::Write, rate_bps: u64, stop: &AtomicBool) -> u64 {
    const CHUNK: usize = 8 * 1024;
    let chunk = [0x5Au8; CHUNK];
    if rate_bps == 0 {
        return 0;
    }
    let period = CHUNK as u64 * 8 * 1_000_000_000 / rate_bps;
    let start = monotonic_now();
    let mut sent = 0u64;
    let mut k = 0u64;
    while !stop.load(Ordering::Relaxed) {
        crate::clock::clock_nanosleep_abs(start + k * period);
        if w.write_all(&chunk).is_err() {
            break;
        }
        sent += CHUNK as u64;
        k += 1;
    }
    sent
}

#[cfg(test)]
mod paced_tests {
    use super::*;

    #[test]
    fn a_paced_stream_stops_on_request_and_on_a_closed_peer() {
        struct Sink(u64, Arc<AtomicBool>);
        impl std::io::Write for Sink {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0 += b.len() as u64;
                if self.0 >= 3 * 8192 {
                    self.1.store(true, Ordering::Relaxed);
                }
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let stop = Arc::new(AtomicBool::new(false));
        let mut sink = Sink(0, stop.clone());
        // 1 Gbit/s: 8 KB every 65 µs; stops after the third chunk.
        assert_eq!(paced_write(&mut sink, 1_000_000_000, &stop), 3 * 8192);
        assert_eq!(paced_write(&mut Vec::new(), 0, &AtomicBool::new(false)), 0);
        struct Closed;
        impl std::io::Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        assert_eq!(paced_write(&mut Closed, 1_000_000, &AtomicBool::new(false)), 0);
    }
}
