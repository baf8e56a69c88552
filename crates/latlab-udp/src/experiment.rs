//! `latlab udp` as an [`Experiment`]: the suite's two runs (clean loopback, then seed 002's
//! hold-and-release pattern through the relay), progress, and errors mapped to the contract's.

use crate::{UdpConfig, UdpError, defaults as d};
use latlab_model::experiment::{Experiment, ExperimentError, Outcome, RunContext};
use latlab_model::figure::Figure;
use latlab_model::record::RunRecord;

/// Isochronous UDP interval timing (seed 002).
pub struct Udp;

impl From<UdpError> for ExperimentError {
    fn from(e: UdpError) -> Self {
        match e {
            UdpError::Config(c) => ExperimentError::Config(c),
            e @ UdpError::Io(_) => ExperimentError::failed(e),
        }
    }
}

impl Experiment for Udp {
    type Config = UdpConfig;
    const NAME: &'static str = "udp";
    const DOCS: &'static str = "docs/experiments/udp.md";
    const ABOUT: &'static str =
        "UDP interval timing on loopback, then seed 002's hold-and-release pattern through the relay";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("rtt.p50", "RTT p50"),
        ("timer_error.p99", "timer error p99"),
        ("loss.ratio", "loss"),
        ("burst.release_period", "release period"),
        ("dejitter.delay_for_1pct_late", "de-jitter for 1 % late"),
    ];

    /// 5 s at 1 ms on clean loopback (with streams at seed 002's 1,000, 500 and 100 ms
    /// beside it, and one at 1 ms padded to [`d::PADDED_SIZE`]), then the study's pattern: a 100 ms sender through a
    /// relay that holds packets and releases them every 1.23 s, for 7.5 s (six releases).
    fn suite_configs(_strict: bool) -> Vec<UdpConfig> {
        vec![
            UdpConfig {
                duration_ns: d::SUITE_DURATION_NS,
                wait_ns: d::SUITE_WAIT_NS,
                sweep_intervals_ns: d::STUDY_SWEEP_INTERVALS_NS.to_vec(),
                padded_size: Some(d::PADDED_SIZE),
                ..UdpConfig::default()
            },
            UdpConfig::study_pattern(d::SUITE_STUDY_DURATION_NS),
        ]
    }
    fn validate(cfg: &UdpConfig) -> Result<(), latlab_model::ConfigError> {
        cfg.validate()
    }
    fn steps(cfg: &UdpConfig) -> u64 {
        cfg.count() as u64
    }
    fn announce(cfg: &UdpConfig) -> String {
        format!(
            "udp: {} packets of {} bytes every {} ({:?}) (Ctrl-C stops and keeps what was measured)",
            cfg.count(),
            cfg.size.max(latlab_udp_probe::wire::HEADER),
            latlab_model::record::fmt_ns(cfg.interval_ns as f64),
            cfg.mode
        )
    }
    fn run(cfg: &UdpConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(crate::run_checkpointed(cfg, ctx.progress.clone(), &ctx.checkpoint)?.into())
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        crate::figures::figures(rec)
    }
}
