//! The typing probe: a key every interval on absolute deadlines to a small interactive
//! server (a thread at the default policy, like the study's Notepad), which spends a fixed
//! amount of CPU per key and answers with its "screen update"; the probe stamps each answer
//! on arrival. The probe's own threads run at SCHED_FIFO when granted, so they do not suffer
//! the load they measure; nothing in the timed loops allocates or logs.

use crate::analysis::{ProbeStats, analyze};
use latlab_sys::clock::{clock_nanosleep_abs, monotonic_now, thread_cpu_now};
use latlab_sys::platform::{Capability, Policy, Sched, set_sched};
use std::os::unix::net::UnixDatagram;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// One probe run's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeConfig {
    /// Time between keys, ns.
    pub interval_ns: u64,
    /// Keys to send.
    pub keys: u64,
    /// CPU the server spends per key, ns.
    pub work_ns: u64,
    /// Ask for SCHED_FIFO for the probe's threads.
    pub fifo: bool,
}

/// What a probe run produced.
#[derive(Debug, Clone)]
pub struct ProbeRun {
    /// The analysis.
    pub stats: ProbeStats,
    /// CPU the probe's own threads used per key, ns (its overhead).
    pub probe_cpu_per_key_ns: f64,
    /// CPU the server used per key, ns.
    pub server_cpu_per_key_ns: f64,
    /// What the probe's threads were granted.
    pub capability: Option<Capability>,
}

const STOP: u64 = u64::MAX;

/// Spend `ns` of this thread's CPU time.
fn burn(ns: u64) {
    let t0 = thread_cpu_now();
    let mut x = 1u64;
    while thread_cpu_now() - t0 < ns {
        for _ in 0..64 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
}

/// Run the probe once.
pub fn run_probe(cfg: &ProbeConfig) -> std::io::Result<ProbeRun> {
    let (client, server) = UnixDatagram::pair()?;
    let work = cfg.work_ns;
    let server_thread = std::thread::spawn(move || -> (u64, u64) {
        let (mut n, t0) = (0u64, thread_cpu_now());
        let mut buf = [0u8; 8];
        while let Ok(8) = server.recv(&mut buf) {
            if u64::from_le_bytes(buf) == STOP {
                break;
            }
            burn(work);
            if server.send(&buf).is_err() {
                break;
            }
            n += 1;
        }
        (n, thread_cpu_now() - t0)
    });
    let keys = cfg.keys as usize;
    let stop_at = Arc::new(AtomicU64::new(u64::MAX));
    let rx = client.try_clone()?;
    rx.set_read_timeout(Some(Duration::from_millis(50)))?;
    let fifo = cfg.fifo;
    let receiver = {
        let stop_at = stop_at.clone();
        std::thread::spawn(move || -> (Vec<u64>, u64) {
            if fifo {
                set_sched(Sched { policy: Policy::Fifo, priority: crate::defaults::PROBE_PRIORITY });
            }
            let t0 = thread_cpu_now();
            let mut answered = vec![0u64; keys];
            let mut got = 0usize;
            let mut buf = [0u8; 8];
            while got < keys && monotonic_now() < stop_at.load(Ordering::Relaxed) {
                if let Ok(8) = rx.recv(&mut buf) {
                    let now = monotonic_now();
                    let k = u64::from_le_bytes(buf) as usize;
                    if k < keys && answered[k] == 0 {
                        answered[k] = now;
                        got += 1;
                    }
                }
            }
            (answered, thread_cpu_now() - t0)
        })
    };
    let capability =
        cfg.fifo.then(|| set_sched(Sched { policy: Policy::Fifo, priority: crate::defaults::PROBE_PRIORITY }));
    let send_cpu0 = thread_cpu_now();
    let start = monotonic_now() + cfg.interval_ns;
    let intended: Vec<u64> = (0..cfg.keys).map(|k| start + k * cfg.interval_ns).collect();
    for (k, &deadline) in intended.iter().enumerate() {
        if latlab_sys::interrupt::stop_requested() {
            break;
        }
        clock_nanosleep_abs(deadline);
        let _ = client.send(&(k as u64).to_le_bytes());
    }
    let send_cpu = thread_cpu_now() - send_cpu0;
    if cfg.fifo {
        set_sched(Sched { policy: Policy::Other, priority: 0 });
    }
    stop_at.store(monotonic_now() + crate::defaults::GRACE_NS, Ordering::Relaxed);
    let (answered, recv_cpu) = receiver.join().map_err(|_| std::io::Error::other("the probe's receiver panicked"))?;
    let _ = client.send(&STOP.to_le_bytes());
    drop(client);
    let (served, server_cpu) = server_thread.join().map_err(|_| std::io::Error::other("the server panicked"))?;
    let answered: Vec<Option<u64>> = answered.into_iter().map(|t| (t != 0).then_some(t)).collect();
    let stats = analyze(&intended, &answered, cfg.interval_ns);
    Ok(ProbeRun {
        probe_cpu_per_key_ns: (send_cpu + recv_cpu) as f64 / cfg.keys.max(1) as f64,
        server_cpu_per_key_ns: server_cpu as f64 / served.max(1) as f64,
        stats,
        capability,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_answered_on_an_idle_machine() {
        let cfg = ProbeConfig { interval_ns: 5_000_000, keys: 20, work_ns: 100_000, fifo: false };
        let r = run_probe(&cfg).unwrap();
        // Counts and bounds only: the timings themselves are the machine's.
        assert_eq!(r.stats.keys, 20);
        assert_eq!(r.stats.lost, 0);
        assert_eq!(r.stats.echo.len(), 20);
        assert!(r.stats.echo.iter().all(|&e| e > 0), "an answer comes after its key");
        assert_eq!(r.stats.stalls.len(), 19);
        assert!(r.server_cpu_per_key_ns >= 100_000.0, "the server burned its work");
    }
}
