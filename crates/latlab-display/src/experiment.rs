//! `latlab display` as [`Experiment`]s — ops, cache, pipeline, latency and view — with the suite's
//! short configurations, progress, the line said before each run, and the named choices
//! (codecs, ciphers, policies, workloads) the command line offers.

use crate::cache_exp::{CacheConfig, run_cache};
use crate::capacity::{CapacityConfig, run_capacity};
use crate::latency::{LatencyConfig, run_latency};
use crate::ops::{OpsConfig, run_ops};
use crate::pipeline::{PipelineConfig, run_pipeline, view_record};
use latlab_desktop::session::SessionConfig;
use latlab_desktop::wire::{Codec, Crypto};
use latlab_desktop::workload::WorkloadKind;
use latlab_display_net::{Pace, ViewConfig};
use latlab_model::experiment::{Experiment, ExperimentError, Outcome, RunContext};
use latlab_model::figure::Figure;
use latlab_model::record::RunRecord;

/// Traffic per user operation (seed 003, Table 1 and Figure 3).
pub struct DisplayOps;

impl Experiment for DisplayOps {
    type Config = OpsConfig;
    const NAME: &'static str = "display";
    const DOCS: &'static str = "docs/experiments/display.md";
    const MODE: &'static str = "ops";
    const ABOUT: &'static str = "remote display (seed 003): traffic per operation, control and display bytes";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("ops.typing.display_bps", "typing 100 wpm, display"),
        ("ops.typing.keystroke_wire_bytes", "one keystroke on the wire"),
    ];
    fn suite_configs(_: bool) -> Vec<OpsConfig> {
        vec![OpsConfig::short()]
    }
    fn validate(cfg: &OpsConfig) -> Result<(), latlab_model::ConfigError> {
        if cfg.seconds == 0 {
            return Err("--duration must be at least 1s".into());
        }
        if cfg.workloads.is_empty() {
            return Err("no workloads to run".into());
        }
        Ok(())
    }
    fn steps(cfg: &OpsConfig) -> u64 {
        cfg.steps()
    }
    fn announce(cfg: &OpsConfig) -> String {
        format!(
            "display ops: {} operations × {} virtual s (runs as fast as the CPU allows)",
            cfg.workloads.len(),
            cfg.seconds
        )
    }
    fn run(cfg: &OpsConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(run_ops(cfg, ctx.progress.clone())?.into())
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        crate::figures::ops(rec)
    }
}

/// The bitmap-cache cliff per eviction policy, and banner + ticker (seed 003, Figure 4).
pub struct DisplayCache;

impl Experiment for DisplayCache {
    type Config = CacheConfig;
    const NAME: &'static str = "display";
    const DOCS: &'static str = "docs/experiments/display.md";
    const MODE: &'static str = "cache";
    const ABOUT: &'static str =
        "remote display (seed 003): the bitmap-cache cliff per eviction policy with banner + ticker";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("cache.lru.cliff_ratio", "LRU cliff (bytes at capacity+1 / at capacity)"),
        ("cache.best_policy_vs_opt", "best policy vs optimum at capacity+1"),
        ("cache.banner_ticker.lru.excess_ratio", "banner+ticker vs the sum alone (LRU)"),
    ];
    fn suite_configs(_: bool) -> Vec<CacheConfig> {
        vec![CacheConfig::short()]
    }
    fn validate(cfg: &CacheConfig) -> Result<(), latlab_model::ConfigError> {
        if cfg.frame_counts.is_empty() || cfg.frame_counts.contains(&0) {
            return Err("--frames: frame counts start at 1".into());
        }
        if cfg.loops == 0 {
            return Err("--loops must be at least 1".into());
        }
        cfg.geometry.validate()
    }
    fn steps(cfg: &CacheConfig) -> u64 {
        cfg.steps()
    }
    fn announce(cfg: &CacheConfig) -> String {
        let g = &cfg.geometry;
        format!(
            "display cache: {} frame counts × {} policies{}; caches of {}/{}/{} cells at {} bpp ({} frames fit); virtual time, as fast as the CPU allows",
            cfg.frame_counts.len(),
            cfg.policies.len(),
            if cfg.banner_ticker { ", then banner + ticker" } else { "" },
            g.cells[0],
            g.cells[1],
            g.cells[2],
            g.bpp,
            g.capacity_frames()
        )
    }
    fn run(cfg: &CacheConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(run_cache(cfg, ctx.progress.clone())?.into())
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        crate::figures::cache(rec)
    }
}

/// The client's CPU per stage over TCP (seed 000).
pub struct DisplayPipeline;

impl Experiment for DisplayPipeline {
    type Config = PipelineConfig;
    const NAME: &'static str = "display";
    const DOCS: &'static str = "docs/experiments/display.md";
    const MODE: &'static str = "pipeline";
    const ABOUT: &'static str = "remote display (seed 000): the client's CPU per stage over TCP";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("pipeline.client.share_at_paper_peak", "client CPU at 3.7 MB/s (share of a core)"),
        ("pipeline.decompress.cpu_share", "decompression's share of client CPU"),
    ];
    fn suite_configs(_: bool) -> Vec<PipelineConfig> {
        vec![PipelineConfig::short()]
    }
    /// Half the seconds per setting.
    fn small(cfg: PipelineConfig) -> PipelineConfig {
        PipelineConfig { seconds: cfg.seconds.div_ceil(2), sweep_seconds: cfg.sweep_seconds.div_ceil(2), ..cfg }
    }
    fn validate(cfg: &PipelineConfig) -> Result<(), latlab_model::ConfigError> {
        if cfg.seconds == 0 || cfg.sweep_seconds == 0 {
            return Err("--duration must be at least 1s".into());
        }
        cfg.view.validate()?;
        cfg.view.cures.validate(cfg.crypto).map_err(|e| format!("--skip-mac, --direct, --decode-thread: {e}").into())
    }
    fn steps(cfg: &PipelineConfig) -> u64 {
        cfg.steps()
    }
    fn announce(cfg: &PipelineConfig) -> String {
        format!(
            "display pipeline: {} runs on real time through TCP over loopback (about {} s)",
            cfg.steps(),
            cfg.seconds + (cfg.steps() - 1) * cfg.sweep_seconds
        )
    }
    fn run(cfg: &PipelineConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(run_pipeline(cfg, ctx.progress.clone())?.into())
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        crate::figures::pipeline(rec)
    }
}

/// Keystroke to pixels through the pipeline under load, memory pressure and shaped links
/// (seed 003, §4).
pub struct DisplayLatency;

impl Experiment for DisplayLatency {
    type Config = LatencyConfig;
    const NAME: &'static str = "display";
    const DOCS: &'static str = "docs/experiments/display.md";
    const MODE: &'static str = "latency";
    const ABOUT: &'static str = "remote display (seed 003): keystroke to pixels through the pipeline, unloaded, loaded, paged out, on shaped links";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("latency.unloaded.p95", "key to screen p95, unloaded"),
        ("latency.10mbit.p95", "key to screen p95, 10 Mbit/s"),
    ];
    fn suite_configs(_: bool) -> Vec<LatencyConfig> {
        vec![LatencyConfig::short()]
    }
    /// Two seconds of typing per condition and a smaller working set to page out.
    fn small(mut cfg: LatencyConfig) -> LatencyConfig {
        cfg.typist.seconds = cfg.typist.seconds.min(2.0);
        cfg.working_set_mib = cfg.working_set_mib.min(8);
        cfg
    }
    fn validate(cfg: &LatencyConfig) -> Result<(), latlab_model::ConfigError> {
        cfg.validate()
    }
    fn steps(cfg: &LatencyConfig) -> u64 {
        cfg.conditions.len() as u64
    }
    fn announce(cfg: &LatencyConfig) -> String {
        format!(
            "display latency: typing at {} wpm for {} s under each of {} conditions ({}), about {:.0} s",
            cfg.typist.wpm,
            cfg.typist.seconds,
            cfg.conditions.len(),
            cfg.conditions.iter().map(|c| c.name()).collect::<Vec<_>>().join(", "),
            cfg.estimate_s()
        )
    }
    fn run(cfg: &LatencyConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(run_latency(cfg, ctx.progress.clone())?.into())
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        crate::figures::latency(rec)
    }
}

/// Users per server (seed 003): N sessions of a user mix on one server, ramped until the
/// latency they feel breaks.
pub struct DisplayCapacity;

impl Experiment for DisplayCapacity {
    type Config = CapacityConfig;
    const NAME: &'static str = "display";
    const DOCS: &'static str = "docs/experiments/display.md";
    const MODE: &'static str = "capacity";
    const ABOUT: &'static str =
        "remote display (seed 003): users of a mix per server before a typist's p95 passes 100 ms";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[("capacity.users", "users before p95 passes 100 ms")];
    fn suite_configs(_: bool) -> Vec<CapacityConfig> {
        vec![CapacityConfig::short()]
    }
    /// At most four sessions (each is a server thread set and a client), two seconds a level.
    fn small(mut cfg: CapacityConfig) -> CapacityConfig {
        cfg.ramp.retain(|&n| n <= 4);
        if cfg.ramp.is_empty() {
            cfg.ramp = vec![1];
        }
        cfg.seconds = cfg.seconds.min(2.0);
        cfg.until_limit = false;
        cfg
    }
    fn validate(cfg: &CapacityConfig) -> Result<(), latlab_model::ConfigError> {
        cfg.validate()
    }
    fn steps(cfg: &CapacityConfig) -> u64 {
        cfg.steps()
    }
    fn announce(cfg: &CapacityConfig) -> String {
        format!(
            "display capacity: {} sessions{} of {} s each on {}, stopping when the level's p95 passes {} ms",
            cfg.ramp.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "),
            if cfg.until_limit {
                format!(", then doubling up to {}", cfg.levels().last().copied().unwrap_or(1))
            } else {
                String::new()
            },
            cfg.seconds,
            match (cfg.real, cfg.link_bps) {
                (Some(_), _) => format!(
                    "xrdp started here, one account per session, logging in one every {} ms, over loopback",
                    cfg.login_every_ms
                ),
                (None, None) => "loopback".into(),
                (None, Some(r)) => format!("a {r} bit/s link between namespaces"),
            },
            latlab_keyscreen::defaults::NOTICEABLE_MS
        )
    }
    fn run(cfg: &CapacityConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        let (rec, said) = run_capacity(cfg, ctx.progress.clone())?;
        Ok(Outcome { records: vec![rec], preface: Some(said), ..Default::default() })
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        crate::figures::capacity(rec)
    }
}

impl Default for CapacityConfig {
    fn default() -> Self {
        CapacityConfig::full()
    }
}

impl Default for LatencyConfig {
    fn default() -> Self {
        LatencyConfig::full()
    }
}

/// One client session: against `latlab display serve` on a host, or an in-process server.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ViewRun {
    /// The session (workload, screen, codec, cipher, …).
    pub session: SessionConfig,
    /// The client's receive side.
    pub view: ViewConfig,
    /// Real time or flat out.
    pub pace: Pace,
    /// `HOST` or `HOST:PORT` (default port [`crate::defaults::PORT`]); `None`: in-process.
    pub host: Option<String>,
}

impl Default for ViewRun {
    fn default() -> Self {
        let mut session = SessionConfig::standard(
            WorkloadKind::from_name(crate::defaults::VIEW_WORKLOAD).expect("a workload"),
            crate::defaults::VIEW_SECONDS * 1000,
        );
        session.timed = true;
        session.codec = Codec::from_name(crate::defaults::VIEW_CODEC).expect("a codec");
        session.crypto = Crypto::from_name(crate::defaults::VIEW_CRYPTO).expect("a cipher");
        Self { session, view: ViewConfig::default(), pace: Pace::RealTime, host: None }
    }
}

impl ViewRun {
    /// The server's address with the default port added when none is given.
    pub fn address(&self) -> Option<String> {
        self.host.as_ref().map(|h| {
            if h.parse::<std::net::SocketAddr>().is_ok() || h.contains(':') {
                h.clone()
            } else {
                format!("{h}:{}", crate::defaults::PORT)
            }
        })
    }
}

/// `latlab display view`.
pub struct DisplayView;

impl Experiment for DisplayView {
    type Config = ViewRun;
    const NAME: &'static str = "display";
    const DOCS: &'static str = "docs/experiments/display.md";
    const MODE: &'static str = "view";
    const ABOUT: &'static str = "one remote-display session as the client";
    fn suite_configs(_: bool) -> Vec<ViewRun> {
        vec![ViewRun::default()]
    }
    fn validate(cfg: &ViewRun) -> Result<(), latlab_model::ConfigError> {
        if cfg.session.duration_ms == 0 {
            return Err("--duration must be at least 1s".into());
        }
        cfg.session.validate().map_err(|e| e.to_string())?;
        cfg.view.validate()
    }
    fn steps(_: &ViewRun) -> u64 {
        0
    }
    fn announce(cfg: &ViewRun) -> String {
        let what = format!("{} for {} s", cfg.session.workload.name(), cfg.session.duration_ms / 1000);
        match cfg.address() {
            None => format!("display view: {what}, in-process server over loopback"),
            Some(a) => format!("display view: {what} from {a}"),
        }
    }
    fn run(cfg: &ViewRun, _: &RunContext) -> Result<Outcome, ExperimentError> {
        let rec = latlab_sys::record::begin("display");
        let (peer, server, client) = match cfg.address() {
            None => {
                let (s, c) = latlab_display_net::pair(&cfg.session, cfg.pace, &cfg.view)?;
                ("in-process (loopback)".to_string(), Some(s), c)
            }
            Some(addr) => {
                let c = latlab_display_net::view(&addr, &cfg.session, cfg.pace, &cfg.view)?;
                (addr, None, c)
            }
        };
        Ok(view_record(rec, &cfg.session, cfg.pace, &cfg.view, &peer, server.as_ref(), &client).into())
    }
}

impl Default for OpsConfig {
    fn default() -> Self {
        OpsConfig::full()
    }
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig::full()
    }
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig::full()
    }
}
