//! `latlab udp` — seed 002, "Windows Phone 7: UDP performance": isochronous UDP interval
//! timing. A sender on absolute deadlines, a reflector that returns kernel receive
//! timestamps, an impairment relay, and an analysis that names the study's pathology —
//! packets held and released in bursts while the sender kept its interval — and prices the
//! study's fix (playout by sender timestamp) as a de-jitter cost curve.

pub mod analysis;
pub mod defaults;
pub mod experiment;
pub mod peer;
pub mod playout;
pub mod probe;
pub mod reflector;
pub mod relay;
mod report;
pub mod socket;
pub mod wire;

use latlab_core::record::{RunRecord, RunStatus};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// Default UDP port of `latlab udp serve` ([`defaults::PORT`]).
pub const DEFAULT_PORT: u16 = defaults::PORT;

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
}

impl Default for UdpConfig {
    /// A loopback run with the documented defaults.
    fn default() -> Self {
        Self {
            mode: Mode::Loopback { ipv6: false, relay: None },
            interval_ns: defaults::INTERVAL_NS,
            duration_ns: defaults::DURATION_NS,
            size: defaults::SIZE,
            key: None,
            wait_ns: defaults::WAIT_NS,
            playout: defaults::PLAYOUT,
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
            size: defaults::SIZE,
            key: None,
            wait_ns: defaults::STUDY_WAIT_NS,
            playout: defaults::PLAYOUT,
        }
    }

    /// Packets the run sends.
    pub fn count(&self) -> usize {
        (self.duration_ns / self.interval_ns.max(1)).max(1) as usize
    }
    /// Check the values.
    pub fn validate(&self) -> Result<(), String> {
        if !(10_000..=60_000_000_000).contains(&self.interval_ns) {
            return Err(format!("interval {} ns must be between 10 µs and 60 s", self.interval_ns));
        }
        if self.duration_ns < self.interval_ns {
            return Err("duration must be at least one interval".into());
        }
        if self.count() > 100_000_000 {
            return Err(format!("{} packets is more than the 100 M a run may hold", self.count()));
        }
        if let Mode::Loopback { relay: Some(r), .. } = &self.mode {
            r.validate().map_err(|e| format!("relay: {e}"))?;
        }
        if self.size > wire::MAX_SIZE {
            return Err(format!("size {} is above the {} bytes latlab sends", self.size, wire::MAX_SIZE));
        }
        Ok(())
    }
}

/// Why `latlab udp` could not run.
#[derive(Debug, thiserror::Error)]
pub enum UdpError {
    /// Bad configuration.
    #[error("invalid udp configuration: {0}")]
    Config(String),
    /// A socket could not be opened or used.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Run `latlab udp` as configured; `progress` counts packets sent.
pub fn run(cfg: &UdpConfig, progress: Arc<AtomicU64>) -> Result<RunRecord, UdpError> {
    run_checkpointed(cfg, progress, &latlab_core::checkpoint::Checkpoint::default())
}

/// [`run`], storing the packets whose fate is known through `ckpt` while it runs, so a kill
/// loses at most the last checkpoint's interval (and the loss wait).
pub fn run_checkpointed(
    cfg: &UdpConfig,
    progress: Arc<AtomicU64>,
    ckpt: &latlab_core::checkpoint::Checkpoint,
) -> Result<RunRecord, UdpError> {
    cfg.validate().map_err(UdpError::Config)?;
    let mut rec = RunRecord::begin("udp");
    rec.config("udp", cfg);
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

/// Analyse a trace into a fresh `udp` run record (what [`run`] does after probing).
pub fn analyze(cfg: &UdpConfig, trace: &analysis::Trace, counts: &probe::ProbeCounts) -> RunRecord {
    let mut rec = RunRecord::begin("udp");
    report::fill(&mut rec, cfg, trace, counts, None);
    rec.finish(RunStatus::Complete);
    rec
}
