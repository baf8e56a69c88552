//! `latlab udp` — seed 002, "Windows Phone 7: UDP performance": isochronous UDP interval
//! timing. A sender on absolute deadlines, a reflector that returns kernel receive
//! timestamps, an impairment relay, and an analysis that names the study's pathology —
//! packets held and released in bursts while the sender kept its interval — and prices the
//! study's fix (playout by sender timestamp) as a de-jitter cost curve.
//!
//! The probe's packet, socket and peer are `latlab-udp-probe`'s (the monitor sends them too).
//!
//! | file | holds |
//! |---|---|
//! | `analysis.rs` | Analysis of a probe trace: send-interval fidelity, the receive inter-arrival beside the send interval, RTT, … |
//! | `defaults.rs` | Every default of `latlab udp` (seed 002), each with the reason it has that value |
//! | `experiment.rs` | `latlab udp` as an `Experiment` |
//! | `figures.rs` | Seed 002's figures from a `udp` run |
//! | `playout.rs` | The live playout buffer seed 002 proposed |
//! | `probe.rs` | The prober (`latlab udp probe`, and the sending half of the loopback run) |
//! | `reflector.rs` | The reflector (`latlab udp serve`) |
//! | `relay.rs` | `latlab udp relay`: a deterministic, seeded impairment relay for kernels without netem and for latlab's own … |
//! | `remedies.rs` | Seed 002's remedy, measured with a loopback `latlab udp` (`latlab tune`) |
//! | `report.rs` | Turns a probe trace into the run record |

pub mod analysis;
pub mod defaults;
pub mod experiment;
pub mod figures;
pub mod playout;
pub mod probe;
pub mod reflector;
pub mod relay;
pub mod remedies;
pub mod report;

use latlab_model::record::{RunRecord, RunStatus};
use latlab_sys::record::Finish;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// Where the probes go.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum Mode {
    /// Sender and reflector in this process on loopback (optionally through a relay).
    Loopback {
        /// Use `::1` instead of `127.0.0.1`.
        ipv6: bool,
        /// Put an impairment relay between them.
        relay: Option<relay::Impairment>,
    },
    /// A reflector on another host (`latlab udp serve` there).
    Probe {
        /// Its address.
        target: SocketAddr,
    },
}

/// Everything `latlab udp` needs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct UdpConfig {
    /// Loopback or a remote reflector.
    pub mode: Mode,
    /// Interval between packets, ns.
    pub interval_ns: u64,
    /// How long to send, ns.
    pub duration_ns: u64,
    /// Datagram size, bytes.
    pub size: usize,
    /// Shared key for HMAC-SHA256 on every packet (not stored in the run record).
    #[serde(skip)]
    pub key: Option<Vec<u8>>,
    /// Wait after the last send before counting a packet lost, ns.
    pub wait_ns: u64,
    /// How the loopback receiver plays packets out (measured live; a remote reflector's
    /// receiver is not ours to measure).
    pub playout: playout::PlayoutMode,
    /// Send intervals to sweep at the same time as the main stream, each its own stream of
    /// the same duration to the same kind of target (seed 002 sent at 1,000, 500 and 100 ms
    /// and found the same release period at each). Empty: no sweep.
    pub sweep_intervals_ns: Vec<u64>,
    /// Also send a stream at the main interval whose datagrams are padded with dummy data to
    /// this size, beside the main one (seed 002 padded its datagrams "to artificially increase
    /// the message size" and saw no change). `None`: no such stream.
    pub padded_size: Option<usize>,
}

impl Default for UdpConfig {
    /// A loopback run with the documented defaults.
    fn default() -> Self {
        Self {
            mode: Mode::Loopback { ipv6: false, relay: None },
            interval_ns: defaults::INTERVAL_NS,
            duration_ns: defaults::DURATION_NS,
            size: latlab_udp_probe::defaults::SIZE,
            key: None,
            wait_ns: defaults::WAIT_NS,
            playout: defaults::PLAYOUT,
            sweep_intervals_ns: Vec::new(),
            padded_size: None,
        }
    }
}

impl UdpConfig {
    /// Seed 002's pattern on loopback: a 100 ms sender through a relay that holds packets and
    /// releases them every 1.23 s (the Omnia 7's gaps), for `duration_ns`, waiting 2 s for
    /// the last release.
    pub fn study_pattern(duration_ns: u64) -> Self {
        Self {
            mode: Mode::Loopback {
                ipv6: false,
                relay: Some(relay::Impairment {
                    hold_every_ns: Some(defaults::STUDY_HOLD_EVERY_NS),
                    ..relay::Impairment::default()
                }),
            },
            interval_ns: defaults::STUDY_INTERVAL_NS,
            duration_ns,
            size: latlab_udp_probe::defaults::SIZE,
            key: None,
            wait_ns: defaults::STUDY_WAIT_NS,
            playout: defaults::PLAYOUT,
            sweep_intervals_ns: Vec::new(),
            padded_size: None,
        }
    }

    /// Packets the run sends.
    pub fn count(&self) -> usize {
        (self.duration_ns / self.interval_ns.max(1)).max(1) as usize
    }
    /// Check the values.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if !(10_000..=60_000_000_000).contains(&self.interval_ns) {
            return Err(format!("interval {} ns must be between 10 µs and 60 s", self.interval_ns).into());
        }
        if self.duration_ns < self.interval_ns {
            return Err("duration must be at least one interval".into());
        }
        if self.count() > 100_000_000 {
            return Err(format!("{} packets is more than the 100 M a run may hold", self.count()).into());
        }
        if let Mode::Loopback { relay: Some(r), .. } = &self.mode {
            r.validate().map_err(|e| format!("relay: {e}"))?;
        }
        for &iv in &self.sweep_intervals_ns {
            if !(10_000..=60_000_000_000).contains(&iv) {
                return Err(format!("sweep interval {iv} ns must be between 10 µs and 60 s").into());
            }
            if self.duration_ns < MIN_SWEEP_PACKETS * iv {
                return Err(format!(
                    "duration {} is too short for the sweep interval {}: each sweep stream needs {MIN_SWEEP_PACKETS} packets to show a release pattern",
                    latlab_model::record::fmt_ns(self.duration_ns as f64),
                    latlab_model::record::fmt_ns(iv as f64)
                ).into());
            }
        }
        if self.sweep_intervals_ns.len() > MAX_SWEEP_STREAMS {
            return Err(format!(
                "{} sweep intervals is more than the {MAX_SWEEP_STREAMS} streams a run sends at once",
                self.sweep_intervals_ns.len()
            )
            .into());
        }
        if let Some(n) = self.padded_size
            && !(latlab_udp_probe::wire::HEADER..=latlab_udp_probe::wire::MAX_SIZE).contains(&n)
        {
            return Err(format!(
                "padded size {n} must be between the {}-byte header and {} bytes",
                latlab_udp_probe::wire::HEADER,
                latlab_udp_probe::wire::MAX_SIZE
            )
            .into());
        }
        if self.size > latlab_udp_probe::wire::MAX_SIZE {
            return Err(format!(
                "size {} is above the {} bytes latlab sends",
                self.size,
                latlab_udp_probe::wire::MAX_SIZE
            )
            .into());
        }
        Ok(())
    }
}

/// Fewest packets a sweep stream sends: five, four gaps, the least that can show two bursts
/// or a steady interval.
pub const MIN_SWEEP_PACKETS: u64 = 5;
/// Most sweep streams at once: eight, each one sending thread and one receiving thread.
pub const MAX_SWEEP_STREAMS: usize = 8;

/// Why `latlab udp` could not run.
#[derive(Debug, thiserror::Error)]
pub enum UdpError {
    /// Bad configuration.
    #[error("invalid udp configuration: {0}")]
    Config(#[from] latlab_model::ConfigError),
    /// A socket could not be opened or used.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Run `latlab udp` as configured; `progress` counts packets sent.
pub fn run(cfg: &UdpConfig, progress: Arc<AtomicU64>) -> Result<RunRecord, UdpError> {
    run_checkpointed(cfg, progress, &latlab_model::checkpoint::Checkpoint::default())
}

/// [`run`], storing the packets whose fate is known through `ckpt` while it runs, so a kill
/// loses at most the last checkpoint's interval (and the loss wait).
pub fn run_checkpointed(
    cfg: &UdpConfig,
    progress: Arc<AtomicU64>,
    ckpt: &latlab_model::checkpoint::Checkpoint,
) -> Result<RunRecord, UdpError> {
    cfg.validate().map_err(UdpError::Config)?;
    let mut rec = latlab_sys::record::begin("udp");
    rec.config("keyed", cfg.key.is_some());
    let mut player = None;
    let (target, same_clock, refl, _relay) = match &cfg.mode {
        Mode::Loopback { ipv6, relay } => {
            let bind: SocketAddr = if *ipv6 { "[::1]:0".parse().unwrap() } else { "127.0.0.1:0".parse().unwrap() };
            // The receiver's live playout: the reflector hands every probe to the player.
            let scheduler =
                playout::Scheduler::new(cfg.playout, defaults::PLAYOUT_SHRINK_TAU_NS, defaults::PLAYOUT_GROW_MARGIN);
            let (p, tap) = playout::Player::spawn(scheduler, cfg.count())?;
            player = Some(p);
            let refl = reflector::spawn(
                bind,
                reflector::ReflectorConfig { key: cfg.key.clone(), tap: Some(tap), ..Default::default() },
            )?;
            let rl = match relay {
                Some(imp) => Some(relay::spawn(bind, refl.addr, imp.clone(), 4)?),
                None => None,
            };
            let target = rl.as_ref().map(|r| r.listen).unwrap_or(refl.addr);
            (target, true, Some(refl), rl)
        }
        Mode::Probe { target } => (*target, false, None, None),
    };
    let pc = probe::ProbeConfig {
        target,
        interval_ns: cfg.interval_ns,
        count: cfg.count(),
        size: cfg.size,
        key: cfg.key.clone(),
        wait_ns: cfg.wait_ns,
        same_clock,
    };
    // The sweep streams start before the main one and send beside it, each to its own
    // reflector (and relay) on loopback so the main stream's live playout sees only its own.
    let sweep = cfg
        .sweep_intervals_ns
        .iter()
        .map(|&iv| sweep_stream(cfg, iv, pc.size, &pc))
        .collect::<std::io::Result<Vec<_>>>()?;
    let padded = cfg.padded_size.map(|n| sweep_stream(cfg, cfg.interval_ns, n, &pc)).transpose()?;
    let count = cfg.count();
    let so_far = rec.clone();
    let mut look = |t: analysis::Trace| {
        let n = t.sent_mono.len();
        let mut partial = so_far.clone();
        report::fill(&mut partial, cfg, &t, &probe::ProbeCounts::default(), None);
        partial.warn(format!(
            "checkpoint: the {n} of {count} packets whose loss wait had passed (send errors and missed deadlines are counted at the end)"
        ));
        ckpt.save(partial);
    };
    let watch = ckpt.every().map(|every| probe::Watch { every, look: &mut look });
    let (trace, counts) = probe::run_watched(&pc, &progress, watch)?;
    // Stopping the reflector drops its tap, which ends the player's stream.
    let reflector_stats = refl.map(|r| {
        let s = r.stats.snapshot();
        drop(r);
        s
    });
    let log = player.map(playout::Player::finish);
    report::fill(&mut rec, cfg, &trace, &counts, log.as_ref());
    let swept = sweep
        .into_iter()
        .map(|s| {
            let out = s.thread.join().map_err(|_| std::io::Error::other("a sweep stream's thread panicked"))?;
            drop(s.ends);
            out.map(|(t, c)| (s.interval_ns, t, c))
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    if !swept.is_empty() {
        report::fill_sweep(&mut rec, cfg, &swept);
    }
    if let Some(s) = padded {
        let out = s.thread.join().map_err(|_| std::io::Error::other("the padded stream's thread panicked"))?;
        drop(s.ends);
        let (t, _) = out?;
        report::fill_padded(&mut rec, cfg, &trace, &t);
    }
    if let Some(r) = reflector_stats {
        let (rx, replied, malformed, unauth, limited) = r;
        rec.metric("reflector.received", rx, "count");
        rec.metric("reflector.replied", replied, "count");
        rec.metric("reflector.malformed", malformed, "count");
        rec.metric("reflector.unauthenticated", unauth, "count");
        rec.metric("reflector.rate_limited", limited, "count");
    }
    if let Some(r) = &_relay {
        use std::sync::atomic::Ordering::Relaxed;
        rec.metric("relay.dropped", r.stats.dropped.load(Relaxed), "count");
        rec.metric("relay.forwarded", r.stats.forwarded_out.load(Relaxed), "count");
    }
    rec.finish(if counts.interrupted { RunStatus::Interrupted } else { RunStatus::Complete });
    Ok(rec)
}

/// One sweep stream: its thread, and the loopback reflector and relay it sends to (kept
/// alive until the thread is joined).
struct SweepStream {
    interval_ns: u64,
    thread: std::thread::JoinHandle<std::io::Result<(analysis::Trace, probe::ProbeCounts)>>,
    ends: (Option<reflector::Running>, Option<relay::Relay>),
}

fn sweep_stream(
    cfg: &UdpConfig,
    interval_ns: u64,
    size: usize,
    main: &probe::ProbeConfig,
) -> std::io::Result<SweepStream> {
    let (target, ends) = match &cfg.mode {
        Mode::Loopback { ipv6, relay } => {
            let bind: SocketAddr = if *ipv6 { "[::1]:0".parse().unwrap() } else { "127.0.0.1:0".parse().unwrap() };
            let refl =
                reflector::spawn(bind, reflector::ReflectorConfig { key: cfg.key.clone(), ..Default::default() })?;
            let rl = match relay {
                Some(imp) => Some(relay::spawn(bind, refl.addr, imp.clone(), 4)?),
                None => None,
            };
            (rl.as_ref().map(|r| r.listen).unwrap_or(refl.addr), (Some(refl), rl))
        }
        Mode::Probe { target } => (*target, (None, None)),
    };
    let pc = probe::ProbeConfig {
        target,
        interval_ns,
        size,
        count: (cfg.duration_ns / interval_ns).max(1) as usize,
        ..main.clone()
    };
    let thread = std::thread::Builder::new()
        .name(format!("udp-sweep-{}", latlab_model::record::fmt_ns(interval_ns as f64)))
        .spawn(move || probe::run(&pc, &AtomicU64::new(0)))?;
    Ok(SweepStream { interval_ns, thread, ends })
}

/// Analyse a trace into a fresh `udp` run record (what [`run`] does after probing).
pub fn analyze(cfg: &UdpConfig, trace: &analysis::Trace, counts: &probe::ProbeCounts) -> RunRecord {
    let mut rec = latlab_sys::record::begin("udp");
    report::fill(&mut rec, cfg, trace, counts, None);
    rec.finish(RunStatus::Complete);
    rec
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_interval_needs_room_for_its_packets_and_a_sane_value() {
        let ok =
            UdpConfig { duration_ns: 5_000_000_000, sweep_intervals_ns: vec![1_000_000_000], ..UdpConfig::default() };
        assert_eq!(ok.validate(), Ok(()));
        let short = UdpConfig { duration_ns: 4_000_000_000, ..ok.clone() };
        let e = short.validate().unwrap_err();
        assert!(e.contains("too short for the sweep interval 1.00 s") || e.contains("too short"), "{e}");
        let tiny = UdpConfig { sweep_intervals_ns: vec![1_000], ..ok.clone() };
        assert!(tiny.validate().unwrap_err().to_string().contains("sweep interval 1000 ns"));
        let many = UdpConfig { sweep_intervals_ns: vec![100_000_000; MAX_SWEEP_STREAMS + 1], ..ok };
        assert!(many.validate().unwrap_err().to_string().contains("streams a run sends at once"));
    }
}
