//! `latlab stall` (CPU, memory, network) and `latlab idle` as [`Experiment`]s: the suite's
//! short configurations, progress, the line said before each run, and the errors mapped to
//! the contract's (no swap, no namespaces: skips; the rest: failures).

use crate::cpu::{CpuConfig, StallError, run_cpu};
use crate::idle::{IdleConfig, run_idle};
use crate::mem::{MemConfig, MemError, run_mem};
use crate::net::{NetConfig, NetError, run_net};
use crate::pressure::{PressureConfig, run_pressure};
use latlab_model::experiment::{Experiment, ExperimentError, Outcome, RunContext};
use latlab_model::figure::Figure;
use latlab_model::numfmt::sig;
use latlab_model::record::RunRecord;

impl From<StallError> for ExperimentError {
    fn from(e: StallError) -> Self {
        match e {
            StallError::Config(c) => ExperimentError::Config(c),
            e => ExperimentError::failed(e),
        }
    }
}

impl From<MemError> for ExperimentError {
    fn from(e: MemError) -> Self {
        match e {
            MemError::Config(c) => ExperimentError::Config(c),
            e @ MemError::NoSwap(_) => ExperimentError::skipped(e),
            e => ExperimentError::failed(e),
        }
    }
}

impl From<NetError> for ExperimentError {
    fn from(e: NetError) -> Self {
        match e {
            NetError::Config(c) => ExperimentError::Config(c),
            e @ NetError::Refused(_) => ExperimentError::skipped(e),
            e => ExperimentError::failed(e),
        }
    }
}

/// Typing-probe stalls and echo latency under CPU load (seed 003, §4).
pub struct StallCpu;

impl Experiment for StallCpu {
    type Config = CpuConfig;
    const NAME: &'static str = "stall";
    const DOCS: &'static str = "docs/experiments/stall.md";
    const MODE: &'static str = "cpu";
    const ABOUT: &'static str = "typing probe stalls and echo latency under CPU load at two policies (seed 003)";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("cpu.n20.waiting_fraction", "waiting at 20 spinners"),
        ("cpu.n20.stall.p99", "stall p99 at 20"),
        ("cpu.n20.echo.p99", "echo p99 at 20"),
        ("cpu.idle.n20.echo.p99", "echo p99 at 20 idle-policy spinners"),
    ];
    fn suite_configs(_: bool) -> Vec<CpuConfig> {
        vec![CpuConfig::short()]
    }
    /// No load and a load of four: twenty spinners on one CPU say nothing more.
    fn small(mut cfg: CpuConfig) -> CpuConfig {
        cfg.loads.retain(|&n| n <= 4);
        cfg
    }
    fn validate(cfg: &CpuConfig) -> Result<(), latlab_model::ConfigError> {
        cfg.validate().map_err(|e| e.to_string().into())
    }
    fn steps(cfg: &CpuConfig) -> u64 {
        cfg.steps()
    }
    fn announce(cfg: &CpuConfig) -> String {
        format!(
            "stall: {} load levels × {} policies, {} s each, load 0 once (about {} s); Ctrl-C stops and keeps what was measured",
            cfg.loads.len(),
            cfg.policies.len(),
            cfg.seconds,
            cfg.runs() * (cfg.seconds + 1)
        )
    }
    fn run(cfg: &CpuConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(run_cpu(cfg, ctx.progress.clone())?.into())
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        crate::figures::cpu(rec)
    }
}

/// Lost time on an idle system (seed 003, §3.1).
pub struct Idle;

impl Experiment for Idle {
    type Config = IdleConfig;
    const NAME: &'static str = "idle";
    const DOCS: &'static str = "docs/experiments/stall.md";
    const ABOUT: &'static str = "idle lost time: every interval taken from a lowest-priority thread (seed 003, §3.1)";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[("idle.lost_fraction", "idle lost time")];
    fn suite_configs(_: bool) -> Vec<IdleConfig> {
        vec![IdleConfig::short()]
    }
    fn validate(cfg: &IdleConfig) -> Result<(), latlab_model::ConfigError> {
        if cfg.seconds == 0 {
            return Err("--duration must be at least 1s".into());
        }
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        if let Some(c) = cfg.cpu.filter(|&c| c >= n) {
            return Err(format!("CPU {c} does not exist (this machine has CPUs 0–{})", n - 1).into());
        }
        Ok(())
    }
    fn steps(_: &IdleConfig) -> u64 {
        0
    }
    fn announce(cfg: &IdleConfig) -> String {
        format!(
            "idle: watching CPU {} for {} s{}",
            cfg.cpu.map_or("(last)".to_string(), |c| c.to_string()),
            cfg.seconds,
            cfg.with.as_ref().map_or(String::new(), |c| format!(", then again while `{c}` runs"))
        )
    }
    fn run(cfg: &IdleConfig, _: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(run_idle(cfg)?.into())
    }
}

/// The warm-start test: a keystroke after the server was paged out (seed 003, §4.2).
pub struct StallMem;

impl Experiment for StallMem {
    type Config = MemConfig;
    const NAME: &'static str = "stall";
    const DOCS: &'static str = "docs/experiments/stall.md";
    const MODE: &'static str = "mem";
    const ABOUT: &'static str = "warm start: a keystroke to a server whose working set was paged out (seed 003, §4.2)";
    const HEADLINE: &'static [(&'static str, &'static str)] =
        &[("mem.warm_start.after_pageout", "warm start after page-out")];
    fn suite_configs(_: bool) -> Vec<MemConfig> {
        vec![MemConfig::short()]
    }
    /// Half the working set: still far more pages than a keystroke touches when resident.
    fn small(mut cfg: MemConfig) -> MemConfig {
        cfg.working_set_mib = cfg.working_set_mib.min(32);
        cfg
    }
    fn validate(cfg: &MemConfig) -> Result<(), latlab_model::ConfigError> {
        cfg.validate().map_err(|e| e.to_string().into())
    }
    fn steps(_: &MemConfig) -> u64 {
        0
    }
    fn announce(cfg: &MemConfig) -> String {
        format!(
            "stall mem: {} trials with a {} MiB working set paged out to swap between keystrokes",
            cfg.trials, cfg.working_set_mib
        )
    }
    fn run(cfg: &MemConfig, _: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(run_mem(cfg)?.into())
    }
}

/// Round-trip time under network load between namespaces (seed 003, Figure 6).
pub struct StallNet;

impl Experiment for StallNet {
    type Config = NetConfig;
    const NAME: &'static str = "stall";
    const DOCS: &'static str = "docs/experiments/stall.md";
    const MODE: &'static str = "net";
    const ABOUT: &'static str = "RTT under network load between namespaces on an HTB-shaped link (seed 003)";
    const HEADLINE: &'static [(&'static str, &'static str)] =
        &[("net.load0.rtt.p50", "RTT unloaded"), ("net.load120.rtt.p50", "RTT, link saturated")];
    fn suite_configs(_: bool) -> Vec<NetConfig> {
        vec![NetConfig::short()]
    }
    fn validate(cfg: &NetConfig) -> Result<(), latlab_model::ConfigError> {
        cfg.validate().map_err(|e| e.to_string().into())
    }
    fn steps(cfg: &NetConfig) -> u64 {
        cfg.plan().len() as u64
    }
    fn announce(cfg: &NetConfig) -> String {
        format!(
            "stall net: {} load steps of {} s (the saturating one {} times) on a {} Mbit/s link between two network namespaces (removed afterwards)",
            cfg.plan().len(),
            cfg.step_seconds,
            if cfg.saturating().is_some() { cfg.repeats } else { 0 },
            sig(cfg.rate_bps as f64 / 1e6)
        )
    }
    fn run(cfg: &NetConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(run_net(cfg, ctx.progress.clone())?.into())
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        crate::figures::net(rec)
    }
}

impl Default for CpuConfig {
    fn default() -> Self {
        CpuConfig::full()
    }
}

impl Default for IdleConfig {
    fn default() -> Self {
        IdleConfig::full()
    }
}

impl Default for MemConfig {
    fn default() -> Self {
        MemConfig::full()
    }
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig::full()
    }
}

/// The warm start under real memory pressure: a server and a hog in one memory cgroup
/// smaller than both (seed 003, §4.2).
pub struct StallPressure;

impl Experiment for StallPressure {
    type Config = PressureConfig;
    const NAME: &'static str = "stall";
    const DOCS: &'static str = "docs/experiments/stall.md";
    const MODE: &'static str = "pressure";
    const ABOUT: &'static str =
        "warm start under memory pressure: a server beside a memory hog in one memory cgroup (seed 003, §4.2)";
    const HEADLINE: &'static [(&'static str, &'static str)] =
        &[("pressure.d150.warm_start.p50", "warm start at 150 % demand")];
    fn suite_configs(_: bool) -> Vec<PressureConfig> {
        vec![PressureConfig::short()]
    }
    /// Half the group and half the server: the server still fills over a third of a group the
    /// hog pushes past its limit, and the board keeps its memory.
    fn small(mut cfg: PressureConfig) -> PressureConfig {
        cfg.limit_mib = cfg.limit_mib.min(64);
        cfg.server_mib = cfg.server_mib.min(24);
        cfg
    }
    fn validate(cfg: &PressureConfig) -> Result<(), latlab_model::ConfigError> {
        cfg.validate().map_err(|e| e.to_string().into())
    }
    fn steps(_: &PressureConfig) -> u64 {
        0
    }
    fn announce(cfg: &PressureConfig) -> String {
        format!(
            "stall pressure: a {} MiB server and a hog in a {} MiB memory group at {} demand, {} keys each (about {:.0} s)",
            cfg.server_mib,
            cfg.limit_mib,
            cfg.demands.iter().map(|d| format!("{:.0} %", d * 100.0)).collect::<Vec<_>>().join(" and "),
            cfg.trials,
            cfg.estimate_s()
        )
    }
    fn run(cfg: &PressureConfig, _: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(run_pressure(cfg)?.into())
    }
}
