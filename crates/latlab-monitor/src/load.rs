//! The load a monitor's schedule switches on and off, any of latlab's own: `spinners` (busy
//! processes, one per CPU unless told), `polygons` (seed 001's drawing load, a thread per
//! CPU), or `link` (a paced TCP stream over loopback, seed 003's network load: the kernel's
//! network path and its softirqs at a set rate).

use latlab_sys::load::{PolygonLoad, PolygonsConfig};
use latlab_sys::platform::Policy;
use latlab_sys::spin::{SpinLoad, SpinSched};
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

latlab_model::choice! {
    /// Which load.
    #[derive(serde::Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum LoadKind {
        /// Busy processes.
        Spinners = "spinners",
        /// Threads drawing triangles.
        Polygons = "polygons",
        /// A paced TCP stream over loopback.
        Link = "link",
    }
}

/// A link rate such as `100mbit`, `56kbit`, `1gbit` or `9600bit`, in bits per second.
pub fn parse_rate(s: &str) -> Result<u64, latlab_model::ConfigError> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = [("gbit", 1_000_000_000u64), ("mbit", 1_000_000), ("kbit", 1_000), ("bit", 1)]
        .iter()
        .find_map(|(suffix, m)| t.strip_suffix(suffix).map(|n| (n.to_string(), *m)))
        .ok_or_else(|| format!("'{s}': give a rate such as 100mbit, 56kbit or 1gbit"))?;
    let v: f64 = num.trim().parse().map_err(|_| format!("'{s}': give a rate such as 100mbit, 56kbit or 1gbit"))?;
    let bps = v * mult as f64;
    if !(9_600.0..=100e9).contains(&bps) {
        return Err(format!("'{s}': a rate between 9.6 kbit/s and 100 Gbit/s").into());
    }
    Ok(bps as u64)
}

/// A rate as [`parse_rate`] reads it: `100mbit`, `56kbit`, `1gbit`, `9600bit`.
pub fn format_rate(bps: u64) -> String {
    match bps {
        b if b.is_multiple_of(1_000_000_000) => format!("{}gbit", b / 1_000_000_000),
        b if b.is_multiple_of(1_000_000) => format!("{}mbit", b / 1_000_000),
        b if b.is_multiple_of(1_000) => format!("{}kbit", b / 1_000),
        b => format!("{b}bit"),
    }
}

/// A load while it runs; [`Running::stop`] ends it (so does dropping it).
pub enum Running {
    /// Busy processes.
    Spinners(SpinLoad),
    /// Drawing threads.
    Polygons(PolygonLoad),
    /// The stream's writer and sink.
    Link {
        /// Tells both to stop.
        stop: Arc<AtomicBool>,
        /// Writer and sink.
        threads: Vec<JoinHandle<()>>,
    },
}

/// Start `kind` with `n` workers (spinners, polygons) or at `rate_bps` (link).
pub fn start(kind: LoadKind, n: usize, rate_bps: u64) -> Result<Running, crate::error::MonitorError> {
    match kind {
        LoadKind::Spinners => SpinLoad::start(n, SpinSched { policy: Policy::Other, nice: 0 })
            .map(Running::Spinners)
            .map_err(|e| crate::error::MonitorError::system("starting the spinners".to_string(), e)),
        LoadKind::Polygons => PolygonLoad::start(&PolygonsConfig {
            workers: n,
            sched: None,
            cpus: Vec::new(),
            limit_ns: None,
            seed: 1,
            pace: None,
        })
        .map(Running::Polygons)
        .map_err(|e| crate::error::MonitorError::system("starting the polygons".to_string(), e)),
        LoadKind::Link => {
            let listener = TcpListener::bind("127.0.0.1:0")
                .map_err(|e| crate::error::MonitorError::system("the link load's sink".to_string(), e))?;
            let addr =
                listener.local_addr().map_err(|e| crate::error::MonitorError::system("the link load's sink", e))?;
            let stop = Arc::new(AtomicBool::new(false));
            let s1 = stop.clone();
            let sink = std::thread::Builder::new()
                .name("latlab-link-sink".into())
                .spawn(move || {
                    let Ok((mut c, _)) = listener.accept() else { return };
                    let _ = c.set_read_timeout(Some(std::time::Duration::from_millis(100)));
                    let mut buf = vec![0u8; 64 * 1024];
                    while !s1.load(Ordering::Relaxed) {
                        match c.read(&mut buf) {
                            Ok(0) => break,
                            Ok(_) => {}
                            Err(e)
                                if matches!(
                                    e.kind(),
                                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                                ) => {}
                            Err(_) => break,
                        }
                    }
                })
                .map_err(|e| crate::error::MonitorError::system("the link load's sink".to_string(), e))?;
            let mut conn = TcpStream::connect(addr)
                .map_err(|e| crate::error::MonitorError::system("the link load's stream".to_string(), e))?;
            let s2 = stop.clone();
            let writer = std::thread::Builder::new()
                .name("latlab-link-load".into())
                .spawn(move || {
                    latlab_sys::load::paced_write(&mut conn, rate_bps, &s2);
                })
                .map_err(|e| crate::error::MonitorError::system("the link load's stream".to_string(), e))?;
            Ok(Running::Link { stop, threads: vec![writer, sink] })
        }
    }
}

impl Running {
    /// Stop the load and wait for it.
    pub fn stop(self) {
        match self {
            Running::Spinners(s) => s.stop(),
            Running::Polygons(p) => {
                p.stop();
            }
            Running::Link { stop, threads } => {
                stop.store(true, Ordering::Relaxed);
                for t in threads {
                    let _ = t.join();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_formats_as_it_parses() {
        for bps in [100_000_000, 1_000_000_000, 56_000, 9_600, crate::defaults::LINK_LOAD_BPS] {
            assert_eq!(parse_rate(&format_rate(bps)), Ok(bps), "{}", format_rate(bps));
        }
        assert_eq!(format_rate(100_000_000), "100mbit");
    }

    #[test]
    fn rates_parse_with_their_units_and_bad_ones_say_what_to_give() {
        assert_eq!(parse_rate("100mbit"), Ok(100_000_000));
        assert_eq!(parse_rate("56kbit"), Ok(56_000));
        assert_eq!(parse_rate("1.5Gbit"), Ok(1_500_000_000));
        assert_eq!(parse_rate("9600bit"), Ok(9_600));
        assert!(parse_rate("10").unwrap_err().to_string().contains("100mbit"));
        assert!(parse_rate("fastmbit").is_err());
        assert!(parse_rate("1bit").unwrap_err().to_string().contains("between"));
    }

    #[test]
    fn each_load_starts_and_stops() {
        for kind in LoadKind::ALL {
            let l = start(kind, 1, 10_000_000).unwrap_or_else(|e| panic!("{}: {e}", kind.name()));
            std::thread::sleep(std::time::Duration::from_millis(50));
            l.stop();
        }
    }
}
