//! `latlab rt` as an [`Experiment`]: the suite's short configuration, progress, the line said
//! before the run, and the errors mapped to the contract's.

use crate::RtError;
use crate::config::RtConfig;
use latlab_model::experiment::{Experiment, ExperimentError, Outcome, RunContext};
use latlab_model::figure::Figure;
use latlab_model::record::RunRecord;

/// The wake-up chain (seed 001).
pub struct Rt;

impl From<RtError> for ExperimentError {
    fn from(e: RtError) -> Self {
        match e {
            RtError::Capability(c) => ExperimentError::Capability(c),
            RtError::Config(c) => ExperimentError::Config(c),
            e @ RtError::Io(_) => ExperimentError::failed(e),
        }
    }
}

impl Experiment for Rt {
    type Config = RtConfig;
    const NAME: &'static str = "rt";
    const DOCS: &'static str = "docs/experiments/rt.md";
    const ABOUT: &'static str = "wake-up chain determinism, unloaded and loaded, with a quick MF/SF sweep (seed 001)";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("unloaded.l1.latency.p99", "L1 p99"),
        ("loaded.l2.latency.p99", "L2 p99 loaded"),
        ("sweep.mf_l1_hz", "MF-L1"),
        ("sweep.mf_l1_at_most_hz", "MF-L1 ≤"),
        ("sweep.mf_l1_above_hz", "MF-L1 >"),
        ("sweep.mf_l2_hz", "MF-L2"),
        ("sweep.mf_l2_at_most_hz", "MF-L2 ≤"),
        ("sweep.mf_l2_above_hz", "MF-L2 >"),
        ("sweep.sf_hz", "SF"),
        ("sweep.sf_at_most_hz", "SF ≤"),
        ("sweep.sf_above_hz", "SF >"),
    ];

    fn suite_configs(strict: bool) -> Vec<RtConfig> {
        vec![RtConfig { strict, ..RtConfig::suite() }]
    }
    /// Half as long a phase and sweep step.
    fn small(cfg: RtConfig) -> RtConfig {
        let sweep = cfg.sweep.map(|s| crate::config::SweepConfig { step_ns: s.step_ns / 2, ..s });
        RtConfig { phase_ns: cfg.phase_ns / 2, sweep, ..cfg }
    }
    fn validate(cfg: &RtConfig) -> Result<(), latlab_model::ConfigError> {
        cfg.validate()
    }
    fn steps(cfg: &RtConfig) -> u64 {
        cfg.total_steps()
    }
    fn announce(cfg: &RtConfig) -> String {
        // --duration is each phase's: say how long the run is.
        let loaded = !matches!(cfg.load, crate::config::LoadSpec::None);
        let phases = match (cfg.phases, loaded) {
            (false, _) => String::new(),
            (true, false) => format!(", one unloaded phase of {}", latlab_model::numfmt::ns(cfg.phase_ns as f64)),
            (true, true) => {
                format!(", an unloaded then a loaded phase of {} each", latlab_model::numfmt::ns(cfg.phase_ns as f64))
            }
        };
        format!(
            "rt: level 1 {} → level 2 {} via {}, load {}, CPUs: level 1 {}, level 2 {}, load {}{phases} (Ctrl-C stops and keeps what was measured)",
            cfg.l1,
            cfg.l2,
            cfg.signal,
            cfg.load,
            cpu(cfg.l1_cpu),
            cpu(cfg.l2_cpu),
            if cfg.load_cpus.is_empty() {
                "any".to_string()
            } else {
                cfg.load_cpus.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")
            }
        )
    }
    fn run(cfg: &RtConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        let o = crate::run_checkpointed(cfg, ctx.progress.clone(), &ctx.checkpoint)?;
        let stdout = cfg.cyclictest_output.then(|| o.cyclictest_histogram());
        Ok(Outcome { records: vec![o.record], stdout, preface: None })
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        crate::figures::figures(rec)
    }
}

/// A pinned CPU for people: its number, or "any".
fn cpu(c: Option<usize>) -> String {
    c.map_or_else(|| "any".to_string(), |c| c.to_string())
}
