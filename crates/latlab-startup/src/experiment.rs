//! `latlab startup` (built-in launch, record, measure, io) and `latlab boot analyze` as
//! [`Experiment`]s: configurations with their defaults, the suite's short one, progress, the
//! line said before each run, and errors mapped to the contract's (no tracer, an in-memory
//! directory: skips; the rest: failures).

use crate::defaults as d;
use crate::fixture::FixtureSpec;
use crate::launch::{LaunchSpec, Ready};
use crate::learn::{RecordConfig, StartupError, learn, record_run};
use crate::measure::{MeasureConfig, builtin, builtin_steps, describe_fixture, measure, measure_run, measure_steps};
use crate::plan::Plan;
use crate::trace::TracerChoice;
use latlab_model::experiment::{Experiment, ExperimentError, Outcome, RunContext};
use latlab_model::figure::Figure;
use latlab_model::record::RunRecord;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

impl From<StartupError> for ExperimentError {
    fn from(e: StartupError) -> Self {
        match e {
            e @ (StartupError::Refused(_) | StartupError::InMemory(_)) => ExperimentError::skipped(e),
            e => ExperimentError::failed(e),
        }
    }
}

impl Default for LaunchSpec {
    /// No command yet (the command line gives it), ready at exit, the default timeout.
    fn default() -> Self {
        LaunchSpec { command: Vec::new(), ready: Ready::Exit, timeout: Duration::from_secs_f64(d::TIMEOUT_S) }
    }
}

impl LaunchSpec {
    /// Check there is a command and a usable timeout.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if self.command.is_empty() {
            return Err(
                "no command given: put it after `--`, e.g. `latlab startup record -- /usr/bin/app --flag`".into()
            );
        }
        if self.timeout.is_zero() {
            return Err("--timeout must be a positive number of seconds".into());
        }
        Ok(())
    }
}

pub(crate) fn check_counts(runs: usize, threads: usize) -> Result<(), latlab_model::ConfigError> {
    if runs == 0 || threads == 0 {
        return Err("--runs and --threads must be at least 1".into());
    }
    Ok(())
}

/// The built-in file-heavy launch, recorded and then measured cold, warm and cold + prefetch.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BuiltinRun {
    /// The launcher: latlab's own `startup fixture-app`, the data directory appended.
    pub app: Vec<String>,
    /// Where the data set is written (and removed afterwards).
    pub parent: PathBuf,
    /// The data set's shape.
    pub spec: FixtureSpec,
    /// Launches per state.
    pub runs: usize,
    /// Prefetch threads.
    pub threads: usize,
    /// Also cold + whole-file prefetch.
    pub whole: bool,
}

impl Default for BuiltinRun {
    fn default() -> Self {
        let exe = std::env::current_exe().map_or_else(|_| "latlab".to_string(), |p| p.display().to_string());
        Self {
            app: vec![exe, "startup".into(), "fixture-app".into()],
            parent: PathBuf::from(d::FIXTURE_PARENT),
            spec: d::FIXTURE,
            runs: d::RUNS,
            threads: d::prefetch_threads(),
            whole: false,
        }
    }
}

/// `latlab startup measure --builtin`, and the suite's startup entry.
pub struct StartupBuiltin;

impl Experiment for StartupBuiltin {
    type Config = BuiltinRun;
    const NAME: &'static str = "startup";
    const DOCS: &'static str = "docs/experiments/boot.md";
    const ABOUT: &'static str =
        "launch plans (seed 004): record and measure the built-in file-heavy launch cold, warm and cold + prefetch";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("launch.cold.p50", "cold launch"),
        ("launch.warm.p50", "warm launch"),
        ("launch.prefetch.p50", "cold + prefetch launch"),
        ("launch.prefetch_speedup", "prefetch speedup over cold"),
        ("plan.fraction_of_whole", "plan pages / whole files"),
    ];
    fn suite_configs(_: bool) -> Vec<BuiltinRun> {
        vec![BuiltinRun { spec: d::SUITE_FIXTURE, runs: d::SUITE_RUNS, ..BuiltinRun::default() }]
    }
    fn validate(cfg: &BuiltinRun) -> Result<(), latlab_model::ConfigError> {
        check_counts(cfg.runs, cfg.threads)
    }
    fn steps(cfg: &BuiltinRun) -> u64 {
        builtin_steps(cfg.runs, cfg.whole)
    }
    fn announce(cfg: &BuiltinRun) -> String {
        format!(
            "startup measure --builtin: {} under {}; {} launches per state",
            describe_fixture(&cfg.spec),
            cfg.parent.display(),
            cfg.runs
        )
    }
    fn run(cfg: &BuiltinRun, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(builtin(&cfg.app, &cfg.parent, cfg.spec, cfg.runs, cfg.threads, cfg.whole, &ctx.progress)?.into())
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        crate::figures::launch(rec)
    }
}

/// `latlab startup measure`: a command's launch cold, warm and cold + prefetch.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MeasureRun {
    /// The launch.
    pub launch: LaunchSpec,
    /// The plan; `None`: learn one first (stored as a `startup record` run). Not in the
    /// record's settings: a plan lists every page it reads (the record keeps its size).
    #[serde(skip)]
    pub plan: Option<Plan>,
    /// Launches per state.
    pub runs: usize,
    /// Prefetch threads.
    pub threads: usize,
    /// Also cold + whole-file prefetch.
    pub whole: bool,
    /// Tracer for learning the plan.
    pub tracer: TracerChoice,
}

impl Default for MeasureRun {
    fn default() -> Self {
        Self {
            launch: LaunchSpec::default(),
            plan: None,
            runs: d::RUNS,
            threads: d::prefetch_threads(),
            whole: false,
            tracer: TracerChoice::Auto,
        }
    }
}

/// `latlab startup measure` of a command.
pub struct StartupMeasure;

impl Experiment for StartupMeasure {
    type Config = MeasureRun;
    const NAME: &'static str = "startup";
    const DOCS: &'static str = "docs/experiments/boot.md";
    const MODE: &'static str = "measure";
    const ABOUT: &'static str = "a command's launch cold, warm and cold + prefetch (seed 004)";
    fn suite_configs(_: bool) -> Vec<MeasureRun> {
        vec![MeasureRun::default()]
    }
    fn validate(cfg: &MeasureRun) -> Result<(), latlab_model::ConfigError> {
        check_counts(cfg.runs, cfg.threads)?;
        cfg.launch.validate()
    }
    fn steps(cfg: &MeasureRun) -> u64 {
        measure_steps(cfg.runs, cfg.whole)
    }
    fn announce(cfg: &MeasureRun) -> String {
        let plan = match &cfg.plan {
            Some(p) => format!("plan of {} files, {} pages", p.files.len(), p.pages()),
            None => "no plan given: learning one first (see `latlab startup record`)".into(),
        };
        format!("startup measure: {} launches each cold, warm and cold + prefetch, interleaved; {plan}", cfg.runs)
    }
    fn run(cfg: &MeasureRun, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        let mut records = Vec::new();
        let plan = match &cfg.plan {
            Some(p) => p.clone(),
            None => {
                let rcfg = RecordConfig { launch: cfg.launch.clone(), tracer: cfg.tracer };
                let learned = learn(&rcfg)?;
                records.push(record_run(&rcfg, &learned));
                learned.plan
            }
        };
        let mcfg = MeasureConfig { launch: cfg.launch.clone(), runs: cfg.runs, threads: cfg.threads, whole: cfg.whole };
        let plan = Arc::new(plan);
        let m = measure(&mcfg, &plan, &ctx.progress)?;
        records.push(measure_run(&mcfg, &plan, &m));
        Ok(records.into())
    }
}

impl Default for crate::preload::measure::PreloadMeasureConfig {
    /// The built-in applications, the default rounds and the preloader's defaults.
    fn default() -> Self {
        let b = BuiltinRun::default();
        crate::preload::measure::PreloadMeasureConfig {
            app: b.app,
            parent: b.parent,
            spec: d::PRELOAD_FIXTURE,
            apps: d::PRELOAD_APPS,
            runs: d::PRELOAD_RUNS,
            idle_below: d::PRELOAD_IDLE_BELOW,
            check_every: Duration::from_millis(d::PRELOAD_CHECK_MS),
            give_up_after: Duration::from_secs(d::PRELOAD_GIVE_UP_S),
        }
    }
}

/// `latlab startup preload measure`: Superfetch proper — a launch after memory pressure, with
/// and without the idle-time preloader.
pub struct StartupPreload;

impl Experiment for StartupPreload {
    type Config = crate::preload::measure::PreloadMeasureConfig;
    const NAME: &'static str = "startup";
    const DOCS: &'static str = "docs/experiments/boot.md";
    const MODE: &'static str = "preload";
    const ABOUT: &'static str = "Superfetch proper (seed 004): a library of ranked launch plans preloaded while the machine is idle; a launch after memory pressure with and without it";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("preload.pressured.p50", "launch after memory pressure"),
        ("preload.preloaded.p50", "the same, the preloader having run"),
        ("preload.speedup", "preloader speedup"),
    ];
    fn suite_configs(_: bool) -> Vec<Self::Config> {
        vec![crate::preload::measure::PreloadMeasureConfig {
            runs: d::SUITE_PRELOAD_RUNS,
            give_up_after: std::time::Duration::from_secs(d::SUITE_PRELOAD_GIVE_UP_S),
            ..Default::default()
        }]
    }
    fn validate(cfg: &Self::Config) -> Result<(), latlab_model::ConfigError> {
        if cfg.apps == 0 || cfg.runs == 0 {
            return Err("--apps and --runs must be at least 1".into());
        }
        if !(cfg.idle_below > 0.0 && cfg.idle_below <= 1.0) {
            return Err(format!("--idle-below must be a share of the CPUs in (0, 1], not {}", cfg.idle_below).into());
        }
        if cfg.check_every.is_zero() {
            return Err("--check-every must be at least 1ms".into());
        }
        Ok(())
    }
    fn steps(cfg: &Self::Config) -> u64 {
        crate::preload::measure::steps(cfg.apps, cfg.runs)
    }
    fn announce(cfg: &Self::Config) -> String {
        format!(
            "startup preload measure: {} built-in applications ({}) under {}; {} rounds of a launch after memory pressure without and with the preloader, then warm",
            cfg.apps,
            describe_fixture(&cfg.spec),
            cfg.parent.display(),
            cfg.runs
        )
    }
    fn run(cfg: &Self::Config, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(crate::preload::measure::run_preload_measure(cfg, &ctx.progress)?.into())
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        crate::figures::preload(rec)
    }
}

/// `latlab startup record`: learn a launch plan and write it to a file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RecordRun {
    /// The launch.
    pub launch: LaunchSpec,
    /// Which tracer.
    pub tracer: TracerChoice,
    /// Where the plan is written.
    pub output: PathBuf,
    /// Record the built-in launch instead of `launch`: its data set ([`d::RECORD_FIXTURE`])
    /// written under `parent` and removed afterwards, launched by `app` + its directory.
    pub builtin: Option<BuiltinRun>,
}

impl Default for RecordRun {
    fn default() -> Self {
        Self {
            launch: LaunchSpec::default(),
            tracer: TracerChoice::Auto,
            output: PathBuf::from(d::PLAN_FILE),
            builtin: None,
        }
    }
}

/// `latlab startup record`.
pub struct StartupRecord;

impl Experiment for StartupRecord {
    type Config = RecordRun;
    const NAME: &'static str = "startup";
    const DOCS: &'static str = "docs/experiments/boot.md";
    const MODE: &'static str = "record";
    const ABOUT: &'static str = "learn a launch plan: the files and page ranges a launch reads (seed 004)";
    fn suite_configs(_: bool) -> Vec<RecordRun> {
        vec![RecordRun::default()]
    }
    fn validate(cfg: &RecordRun) -> Result<(), latlab_model::ConfigError> {
        match cfg.builtin {
            Some(_) if !cfg.launch.command.is_empty() => {
                Err("--builtin records latlab's own launch: give no command after `--`".into())
            }
            Some(_) => Ok(()),
            None => cfg.launch.validate(),
        }
    }
    fn steps(_: &RecordRun) -> u64 {
        0
    }
    fn announce(cfg: &RecordRun) -> String {
        let what = match &cfg.builtin {
            Some(b) => format!("the built-in launch ({} under {})", describe_fixture(&b.spec), b.parent.display()),
            None => format!("`{}`", cfg.launch.command.join(" ")),
        };
        format!(
            "startup record: tracing {what}, then one launch from evicted files; twice, to see whether one run is enough"
        )
    }
    fn run(cfg: &RecordRun, _: &RunContext) -> Result<Outcome, ExperimentError> {
        let (fixture, launch) = match &cfg.builtin {
            Some(b) => {
                let (fx, launch) = crate::measure::builtin_launch(&b.app, &b.parent, b.spec)?;
                (Some(fx), launch)
            }
            None => (None, cfg.launch.clone()),
        };
        let rcfg = RecordConfig { launch, tracer: cfg.tracer };
        let learned = learn(&rcfg)?;
        // Seed 004's "one time is enough": the same launch learned again.
        let again = learn(&rcfg)?;
        std::fs::write(&cfg.output, learned.plan.to_json()).map_err(|e| {
            ExperimentError::failed(latlab_sys::ioerr::IoFailed::new(
                format!("writing the plan to '{}'", cfg.output.display()),
                e,
            ))
        })?;
        eprintln!(
            "plan: {} files, {} of their {} pages, written to {}",
            learned.plan.files.len(),
            learned.plan.pages(),
            learned.plan.whole_pages(),
            cfg.output.display()
        );
        let mut rec = record_run(&rcfg, &learned);
        crate::learn::once_is_enough(&mut rec, &learned.plan, &again.plan, cfg.builtin.is_some());
        rec.config("plan_file", cfg.output.display().to_string());
        if let Some(b) = &cfg.builtin {
            rec.config("builtin", describe_fixture(&b.spec));
        }
        drop(fixture);
        Ok(rec.into())
    }
}

/// `latlab startup io`: disk I/O per process while a command runs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct IoRun {
    /// The launch (the scenario ends at readiness).
    pub launch: LaunchSpec,
    /// Time between reads of every process's counters, ms.
    pub interval_ms: u64,
    /// Processes listed.
    pub top: usize,
    /// Observe the built-in launch instead of `launch`: its data set written under `parent`,
    /// evicted from memory so the launch reads it from the disk, and removed afterwards
    /// (`runs`, `threads` and `whole` are not used).
    pub builtin: Option<BuiltinRun>,
}

impl Default for IoRun {
    fn default() -> Self {
        Self { launch: LaunchSpec::default(), interval_ms: d::IO_INTERVAL_MS, top: d::IO_TOP, builtin: None }
    }
}

/// `latlab startup io`.
pub struct StartupIo;

impl Experiment for StartupIo {
    type Config = IoRun;
    const NAME: &'static str = "startup";
    const DOCS: &'static str = "docs/experiments/boot.md";
    const MODE: &'static str = "io";
    const ABOUT: &'static str = "disk I/O per process of a scenario (seed 004)";
    /// The built-in launch from a cold cache: the disk summary of Figures 3 and 5 on a launch
    /// every machine has.
    fn suite_configs(_: bool) -> Vec<IoRun> {
        let b = BuiltinRun { spec: d::SUITE_FIXTURE, ..BuiltinRun::default() };
        vec![IoRun { builtin: Some(b), ..IoRun::default() }]
    }
    fn validate(cfg: &IoRun) -> Result<(), latlab_model::ConfigError> {
        if cfg.interval_ms == 0 {
            return Err("--interval must be at least 1ms".into());
        }
        match cfg.builtin {
            Some(_) if !cfg.launch.command.is_empty() => {
                Err("--builtin observes latlab's own launch: give no command after `--`".into())
            }
            Some(_) => Ok(()),
            None => cfg.launch.validate(),
        }
    }
    fn steps(_: &IoRun) -> u64 {
        1
    }
    fn announce(cfg: &IoRun) -> String {
        let what = match &cfg.builtin {
            Some(b) => format!(
                "the built-in launch ({} under {}) from evicted files",
                describe_fixture(&b.spec),
                b.parent.display()
            ),
            None => format!("`{}`", cfg.launch.command.join(" ")),
        };
        format!("startup io: {what}, every process's counters each {} ms", cfg.interval_ms)
    }
    fn run(cfg: &IoRun, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        use crate::io::files::{files_table, observe_with_files};
        use crate::io::io_run;
        let (fixture, launch) = match &cfg.builtin {
            Some(b) => {
                let (fx, launch) = crate::measure::builtin_launch(&b.app, &b.parent, b.spec)?;
                let files: Vec<PathBuf> =
                    std::fs::read_dir(&fx.dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
                crate::learn::evict_all(&files);
                (Some(fx), launch)
            }
            None => (None, cfg.launch.clone()),
        };
        let begun = latlab_sys::record::begin("startup");
        let (tracker, l, reaped, files) =
            observe_with_files(&launch, Duration::from_millis(cfg.interval_ms)).map_err(ExperimentError::failed)?;
        ctx.progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let spec = &launch;
        let mut rec = io_run(
            begun,
            &spec.command,
            &spec.ready.describe(),
            cfg.interval_ms,
            l.ready_ns,
            &tracker,
            reaped,
            cfg.top,
        );
        files_table(&mut rec, &files, cfg.top);
        if let Some(b) = &cfg.builtin {
            rec.config("builtin", describe_fixture(&b.spec));
        }
        drop(fixture);
        Ok(rec.into())
    }
}
