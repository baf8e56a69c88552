//! Configuration of `latlab rt`: the stimulus, both levels, the wake path, CPU placement,
//! the load, and the sweep. Parsed and validated by the binary; defaults live in
//! `latlab_rt::defaults` with their reasons.

use crate::arbitration::Arbitration;
use crate::defaults as d;
use latlab_sys::defaults;
use latlab_sys::load::Pace;
use latlab_sys::platform::{Policy, Sched};
use latlab_sys::wake::SignalKind;
use serde::Serialize;

/// The background load of the loaded phase (`--load`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum LoadSpec {
    /// No load: only the unloaded phase runs.
    None,
    /// latlab's polygons load: `workers` threads at `sched` (default: level 2's scheduling,
    /// contending at parity as in the paper). Named `polygons` when each worker draws for a
    /// slice and then rests (`pace`, the default, as the seed's Polygons gave the CPU back),
    /// `hog` when it never yields (`pace: None`).
    Polygons {
        /// Worker threads.
        workers: usize,
        /// Scheduling; `None` = same as level 2.
        sched: Option<Sched>,
        /// Draw-then-rest slices; `None` = a hog that never yields.
        pace: Option<Pace>,
    },
    /// Any command, run with `sh -c` for the loaded phase and stopped afterwards (its
    /// progress is unknown, so no saturation frequency).
    Cmd {
        /// The shell command.
        command: String,
    },
}

impl std::fmt::Display for LoadSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadSpec::None => f.write_str("none"),
            LoadSpec::Polygons { workers, sched, pace } => {
                match pace {
                    Some(_) => write!(f, "polygons:{workers}")?,
                    None => write!(f, "hog:{workers}")?,
                }
                match sched {
                    Some(s) => write!(f, " at {s}")?,
                    None => write!(f, " at level 2's priority")?,
                }
                match pace {
                    Some(p) => {
                        write!(f, ", drawing {} µs then resting {} µs", p.draw_ns as f64 / 1e3, p.rest_ns as f64 / 1e3)
                    }
                    None => write!(f, ", never yielding"),
                }
            }
            LoadSpec::Cmd { command } => write!(f, "cmd:'{command}'"),
        }
    }
}

impl std::str::FromStr for LoadSpec {
    type Err = latlab_model::ConfigError;
    /// `none`, `polygons`, `polygons:N`, `polygons:N:POLICY:PRIO` (each worker draws for a
    /// slice, then rests), the same with `hog` (never yields), or `cmd:COMMAND`.
    fn from_str(s: &str) -> Result<Self, latlab_model::ConfigError> {
        if s == "none" {
            return Ok(LoadSpec::None);
        }
        if let Some(c) = s.strip_prefix("cmd:") {
            let c = c.trim().trim_matches('\'').trim_matches('"');
            if c.is_empty() {
                return Err("--load cmd: needs a command, e.g. cmd:'stress-ng --cpu 1'".into());
            }
            return Ok(LoadSpec::Cmd { command: c.to_string() });
        }
        let (rest, pace) = match (s.strip_prefix("polygons"), s.strip_prefix("hog")) {
            (Some(r), _) => (r, Some(Pace { draw_ns: d::LOAD_DRAW_NS, rest_ns: d::LOAD_REST_NS })),
            (_, Some(r)) => (r, None),
            _ => {
                return Err(format!(
                    "unknown load '{s}' (none, polygons[:N[:POLICY:PRIO]], hog[:N[:POLICY:PRIO]], cmd:'COMMAND')"
                )
                .into());
            }
        };
        if !(rest.is_empty() || rest.starts_with(':')) {
            return Err(format!(
                "unknown load '{s}' (none, polygons[:N[:POLICY:PRIO]], hog[:N[:POLICY:PRIO]], cmd:'COMMAND')"
            )
            .into());
        }
        let parts: Vec<&str> = rest.strip_prefix(':').map(|r| r.split(':').collect()).unwrap_or_default();
        let workers = match parts.first() {
            None => d::LOAD_WORKERS,
            Some(n) => n
                .parse::<usize>()
                .ok()
                .filter(|&n| (1..=1024).contains(&n))
                .ok_or_else(|| format!("polygons worker count '{n}' must be a number from 1 to 1024"))?,
        };
        let sched = match parts.len() {
            0 | 1 => None,
            2 | 3 => {
                let policy: Policy = parts[1].parse()?;
                let priority = match parts.get(2) {
                    Some(p) => p.parse::<i32>().map_err(|_| format!("polygons priority '{p}' is not a number"))?,
                    None if policy.is_realtime() => {
                        return Err("a real-time load policy needs a priority: polygons:N:fifo:PRIO".into());
                    }
                    None => 0,
                };
                if policy.is_realtime() && !(1..=99).contains(&priority) {
                    return Err(format!("real-time priority {priority} out of range 1–99").into());
                }
                Some(Sched { policy, priority: if policy.is_realtime() { priority } else { 0 } })
            }
            _ => return Err(format!("too many fields in '{s}': polygons:N:POLICY:PRIO").into()),
        };
        Ok(LoadSpec::Polygons { workers, sched, pace })
    }
}

/// Arbitration as the two levels' scheduling.
impl Arbitration {
    /// Level 2's scheduling (and so the load's) under this arbitration, below `l1`. When
    /// level 1 is not real-time, neither is level 2: it must never outrank level 1.
    pub fn level2(self, l1: Sched) -> Sched {
        let rt = |policy| Sched { policy, priority: priority_below(l1) };
        match self {
            _ if !l1.policy.is_realtime() => Sched { policy: Policy::Other, priority: 0 },
            Arbitration::Fifo => rt(Policy::Fifo),
            Arbitration::Rr => rt(Policy::Rr),
            Arbitration::Other => Sched { policy: Policy::Other, priority: 0 },
        }
    }
}

/// The real-time priority level 2 takes by default: just below level 1's, never under 1.
pub fn priority_below(l1: Sched) -> i32 {
    (l1.priority - d::L2_BELOW_L1).max(1)
}

/// The two levels' scheduling from what the command line gave: level 1's policy and priority
/// (a priority only for a real-time policy), and level 2's as given or, where not, as
/// `arbitration` derives it from level 1 (real-time just below level 1, or the normal policy).
pub fn levels(
    l1_policy: Policy,
    l1_priority: i32,
    arbitration: Arbitration,
    l2_policy: Option<Policy>,
    l2_priority: Option<i32>,
) -> (Sched, Sched) {
    let sched = |policy: Policy, priority| Sched { policy, priority: if policy.is_realtime() { priority } else { 0 } };
    let l1 = sched(l1_policy, l1_priority);
    let derived = arbitration.level2(l1);
    let l2 = sched(l2_policy.unwrap_or(derived.policy), l2_priority.unwrap_or(priority_below(l1)));
    (l1, l2)
}

#[cfg(test)]
mod arbitration_tests {
    use super::*;

    #[test]
    fn each_arbitration_puts_level_2_just_below_level_1() {
        let l1 = Sched { policy: Policy::Fifo, priority: 80 };
        assert_eq!(Arbitration::Fifo.level2(l1), Sched { policy: Policy::Fifo, priority: 79 });
        assert_eq!(Arbitration::Rr.level2(l1), Sched { policy: Policy::Rr, priority: 79 });
        assert_eq!(Arbitration::Other.level2(l1), Sched { policy: Policy::Other, priority: 0 });
        // Never at or above level 1, never out of range.
        let low = Sched { policy: Policy::Rr, priority: 1 };
        assert_eq!(Arbitration::Fifo.level2(low).priority, 1);
        let other = Sched { policy: Policy::Other, priority: 0 };
        assert_eq!(Arbitration::Rr.level2(other).policy, Policy::Other);
        use latlab_model::experiment::Choice;
        assert_eq!(Arbitration::from_choice("rr"), Some(Arbitration::Rr));
        assert_eq!(Arbitration::names(), ["fifo", "rr", "other"]);
    }
}

/// The frequency sweep (`latlab rt sweep`, and the suite's quick one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepConfig {
    /// First stimulus rate, Hz.
    pub start_hz: f64,
    /// Geometric factor between steps (> 1).
    pub factor: f64,
    /// Highest rate tried, Hz.
    pub max_hz: f64,
    /// Duration of each step, ns.
    pub step_ns: u64,
    /// Miss fraction above which a level counts as missing pulses.
    pub miss_threshold: f64,
    /// Load progress (fraction of unloaded) below which the system counts as saturated.
    pub sf_fraction: f64,
}

impl Default for SweepConfig {
    fn default() -> Self {
        Self {
            start_hz: d::SWEEP_START_HZ,
            factor: d::SWEEP_FACTOR,
            max_hz: d::SWEEP_MAX_HZ,
            step_ns: d::SWEEP_STEP_NS,
            miss_threshold: d::MISS_THRESHOLD,
            sf_fraction: d::SF_PROGRESS_FRACTION,
        }
    }
}

impl SweepConfig {
    /// The rates of the sweep, ascending.
    pub fn rates(&self) -> Vec<f64> {
        let mut v = Vec::new();
        let mut r = self.start_hz;
        while r <= self.max_hz * (1.0 + 1e-9) && v.len() < 1000 {
            v.push(r);
            r *= self.factor;
        }
        v
    }
    /// Check the values make sense.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if !(self.start_hz > 0.0 && self.start_hz <= 1e7) {
            return Err(format!("sweep start {} Hz must be in (0, 10 MHz]", self.start_hz).into());
        }
        if self.factor <= 1.0 {
            return Err(format!("sweep factor {} must be greater than 1", self.factor).into());
        }
        if self.max_hz < self.start_hz || self.max_hz > 1e7 {
            return Err(format!("sweep max {} Hz must be between the start and 10 MHz", self.max_hz).into());
        }
        if !(0.0..1.0).contains(&self.miss_threshold) || !(0.0..1.0).contains(&self.sf_fraction) {
            return Err("miss threshold and SF fraction must be in [0, 1)".into());
        }
        if self.step_ns < 10_000_000 {
            return Err("sweep steps must last at least 10 ms".into());
        }
        Ok(())
    }
}

/// Everything `latlab rt` needs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RtConfig {
    /// Stimulus period for the phases, ns.
    pub period_ns: u64,
    /// Duration of each phase, ns.
    pub phase_ns: u64,
    /// Run the unloaded/loaded phases.
    pub phases: bool,
    /// Run the sweep.
    pub sweep: Option<SweepConfig>,
    /// Level 1 scheduling.
    pub l1: Sched,
    /// Level 2 scheduling.
    pub l2: Sched,
    /// Wake path from level 1 to level 2 (`none` = level 1 only).
    pub signal: SignalKind,
    /// CPU of level 1 (None = unpinned).
    pub l1_cpu: Option<usize>,
    /// CPU of level 2.
    pub l2_cpu: Option<usize>,
    /// CPUs of the load workers.
    pub load_cpus: Vec<usize>,
    /// Load of the loaded phase and of the sweep.
    pub load: LoadSpec,
    /// `mlockall` for the run.
    pub lock_memory: bool,
    /// Hold /dev/cpu_dma_latency at 0 for the run.
    pub hold_cpu_dma_latency: bool,
    /// Timer slack asked for on both levels, ns.
    pub timer_slack_ns: u64,
    /// RT throttling (and the fair server) during the loaded phase and the sweeps.
    pub throttling: crate::throttle::Throttling,
    /// Refused capability = error.
    pub strict: bool,
    /// Print cyclictest's `-h` histogram text instead of the Markdown summary.
    #[serde(skip)]
    pub cyclictest_output: bool,
}

/// The period of a stimulus rate in Hz (`--rate`), which must be in (0, 1 MHz].
pub fn period_of_rate(hz: f64) -> Result<u64, latlab_model::ConfigError> {
    if !(hz > 0.0 && hz <= 1e6) {
        return Err(format!("--rate {hz} must be in (0, 1000000] Hz").into());
    }
    Ok((1e9 / hz).round() as u64)
}

/// The CPU everything is pinned to by default: the last one (CPU 0 usually takes more
/// housekeeping interrupts), as one CPU like the paper's board.
pub fn default_cpu() -> Option<usize> {
    let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    Some(n - 1)
}

impl Default for RtConfig {
    fn default() -> Self {
        let cpu = default_cpu();
        Self {
            period_ns: d::PERIOD_NS,
            phase_ns: d::PHASE_NS,
            phases: true,
            sweep: None,
            l1: Sched { policy: Policy::Fifo, priority: defaults::RT_PRIORITY },
            l2: d::ARBITRATION.level2(Sched { policy: Policy::Fifo, priority: defaults::RT_PRIORITY }),
            signal: SignalKind::Eventfd,
            l1_cpu: cpu,
            l2_cpu: cpu,
            load_cpus: cpu.into_iter().collect(),
            load: LoadSpec::Polygons {
                workers: d::LOAD_WORKERS,
                sched: None,
                pace: Some(Pace { draw_ns: d::LOAD_DRAW_NS, rest_ns: d::LOAD_REST_NS }),
            },
            throttling: d::THROTTLING,
            lock_memory: true,
            hold_cpu_dma_latency: true,
            timer_slack_ns: defaults::MEASURE_TIMER_SLACK_NS,
            strict: false,
            cyclictest_output: false,
        }
    }
}

impl RtConfig {
    /// The short version `latlab suite` runs: 3 s phases and a quick sweep.
    pub fn suite() -> Self {
        Self {
            phase_ns: d::SUITE_PHASE_NS,
            sweep: Some(SweepConfig { step_ns: d::SUITE_SWEEP_STEP_NS, ..SweepConfig::default() }),
            ..Self::default()
        }
    }
    /// The scheduling the load runs at.
    pub fn load_sched(&self) -> Option<Sched> {
        match &self.load {
            LoadSpec::Polygons { sched, .. } => Some(sched.unwrap_or(self.l2)),
            _ => None,
        }
    }
    /// Check the configuration.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if self.period_ns < 1_000 {
            return Err(format!("period {} ns is below 1 µs", self.period_ns).into());
        }
        for (level, s) in [("level 1", self.l1), ("level 2", self.l2)] {
            if s.policy.is_realtime() && !(1..=99).contains(&s.priority) {
                return Err(format!("{level} priority {} must be 1–99", s.priority).into());
            }
        }
        if self.phases && self.phase_ns < self.period_ns {
            return Err("a phase must last at least one period".into());
        }
        let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        for c in self.l1_cpu.iter().chain(self.l2_cpu.iter()).chain(self.load_cpus.iter()) {
            if *c >= n {
                return Err(format!("CPU {c} does not exist (this machine has CPUs 0–{})", n - 1).into());
            }
        }
        if let Some(s) = &self.sweep {
            s.validate()?;
        }
        if !self.phases && self.sweep.is_none() {
            return Err("nothing to run: no phases and no sweep".into());
        }
        Ok(())
    }
    /// Total progress steps (pulses) for the progress bar.
    pub fn total_steps(&self) -> u64 {
        let phases = if matches!(self.load, LoadSpec::None) { 1 } else { 2 };
        let mut n = if self.phases { phases * (self.phase_ns / self.period_ns.max(1)) } else { 0 };
        if let Some(s) = &self.sweep {
            // Unloaded, then under the load (one sweep when there is no load).
            let sweeps = if matches!(self.load, LoadSpec::None) { 1 } else { 2 };
            n += sweeps * s.rates().iter().map(|r| (r * s.step_ns as f64 / 1e9) as u64).sum::<u64>();
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_2_follows_the_arbitration_unless_given() {
        let (l1, l2) = levels(Policy::Fifo, 80, Arbitration::Rr, None, None);
        assert_eq!(
            (l1, l2),
            (Sched { policy: Policy::Fifo, priority: 80 }, Sched { policy: Policy::Rr, priority: priority_below(l1) })
        );
        let (_, l2) = levels(Policy::Fifo, 80, Arbitration::Other, None, None);
        assert_eq!(l2, Sched { policy: Policy::Other, priority: 0 });
        let (_, l2) = levels(Policy::Fifo, 80, Arbitration::Other, Some(Policy::Fifo), Some(50));
        assert_eq!(l2, Sched { policy: Policy::Fifo, priority: 50 });
        // A normal-policy level 1 has no priority, and level 2 follows it.
        let (l1, l2) = levels(Policy::Other, 80, Arbitration::Fifo, None, None);
        assert_eq!((l1.priority, l2.policy), (0, Policy::Other));
    }

    #[test]
    fn load_specs() {
        assert_eq!("none".parse::<LoadSpec>().unwrap(), LoadSpec::None);
        let pace = Some(Pace { draw_ns: d::LOAD_DRAW_NS, rest_ns: d::LOAD_REST_NS });
        assert_eq!("polygons".parse::<LoadSpec>().unwrap(), LoadSpec::Polygons { workers: 1, sched: None, pace });
        assert_eq!("polygons:3".parse::<LoadSpec>().unwrap(), LoadSpec::Polygons { workers: 3, sched: None, pace });
        assert_eq!(
            "polygons:2:fifo:50".parse::<LoadSpec>().unwrap(),
            LoadSpec::Polygons { workers: 2, sched: Some(Sched { policy: Policy::Fifo, priority: 50 }), pace }
        );
        assert_eq!(
            "polygons:2:batch".parse::<LoadSpec>().unwrap(),
            LoadSpec::Polygons { workers: 2, sched: Some(Sched { policy: Policy::Batch, priority: 0 }), pace }
        );
        // The never-yielding hog keeps its name and its syntax.
        assert_eq!("hog".parse::<LoadSpec>().unwrap(), LoadSpec::Polygons { workers: 1, sched: None, pace: None });
        assert_eq!(
            "hog:2:fifo:50".parse::<LoadSpec>().unwrap(),
            LoadSpec::Polygons { workers: 2, sched: Some(Sched { policy: Policy::Fifo, priority: 50 }), pace: None }
        );
        assert_eq!("hog".parse::<LoadSpec>().unwrap().to_string(), "hog:1 at level 2's priority, never yielding");
        assert_eq!(
            "polygons".parse::<LoadSpec>().unwrap().to_string(),
            "polygons:1 at level 2's priority, drawing 50 µs then resting 10 µs"
        );
        assert_eq!(
            "cmd:'stress-ng --cpu 1'".parse::<LoadSpec>().unwrap(),
            LoadSpec::Cmd { command: "stress-ng --cpu 1".into() }
        );
        for bad in [
            "polygon",
            "polygons:0",
            "polygons:x",
            "polygons:1:fifo",
            "polygons:1:fifo:100",
            "cmd:",
            "polygons:1:rr:5:9",
            "hogs",
            "polygonsx",
        ] {
            assert!(bad.parse::<LoadSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn sweep_rates_and_validation() {
        let s = SweepConfig { start_hz: 1000.0, factor: 2.0, max_hz: 8000.0, ..SweepConfig::default() };
        assert_eq!(s.rates(), vec![1000.0, 2000.0, 4000.0, 8000.0]);
        assert!(s.validate().is_ok());
        assert!(SweepConfig { factor: 1.0, ..s.clone() }.validate().is_err());
        assert!(SweepConfig { max_hz: 10.0, ..s.clone() }.validate().is_err());
        assert!(SweepConfig { step_ns: 1, ..s }.validate().is_err());
    }

    #[test]
    fn config_validation() {
        assert!(RtConfig::default().validate().is_ok());
        assert!(RtConfig { period_ns: 10, ..RtConfig::default() }.validate().is_err());
        assert!(RtConfig { l1_cpu: Some(4096), ..RtConfig::default() }.validate().is_err());
        assert!(RtConfig { phases: false, sweep: None, ..RtConfig::default() }.validate().is_err());
        assert_eq!(RtConfig::default().load_sched(), Some(RtConfig::default().l2));
        // The seed's setting: level 2 real-time just below level 1, the load beside it.
        let d = RtConfig::default();
        assert_eq!((d.l1.policy, d.l1.priority), (Policy::Fifo, 80));
        assert_eq!((d.l2.policy, d.l2.priority), (Policy::Rr, 79));
        let c = RtConfig { phase_ns: 1_000_000_000, period_ns: 1_000_000, ..RtConfig::default() };
        assert_eq!(c.total_steps(), 2_000);
    }
}
