//! `latlab startup` (built-in launch, record, measure, io) and `latlab boot analyze` as
//! [`Experiment`]s: configurations with their defaults, the suite's short one, progress, the
//! line said before each run, and errors mapped to the contract's (no tracer, an in-memory
//! directory: skips; the rest: failures).

use crate::boot::{SAMPLE_XPERF, analyze, parse, record};
use crate::defaults as d;
use crate::fixture::FixtureSpec;
use crate::launch::{LaunchSpec, Ready};
use crate::measure::{MeasureConfig, builtin, builtin_steps, describe_fixture, measure, measure_run, measure_steps};
use crate::plan::Plan;
use crate::record::{RecordConfig, StartupError, learn, record_run};
use crate::trace::TracerChoice;
use latlab_core::experiment::{Choice, Experiment, ExperimentError, Outcome, RunContext};
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

impl Choice for TracerChoice {
    fn names() -> Vec<&'static str> {
        vec!["auto", "fanotify", "ptrace"]
    }
    fn from_choice(s: &str) -> Option<Self> {
        s.parse().ok()
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
    pub fn validate(&self) -> Result<(), String> {
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

fn check_counts(runs: usize, threads: usize) -> Result<(), String> {
    if runs == 0 || threads == 0 {
        return Err("--runs and --threads must be at least 1".into());
    }
    Ok(())
}

/// The built-in file-heavy launch, recorded and then measured cold, warm and cold + prefetch.
#[derive(Debug, Clone)]
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
    fn validate(cfg: &BuiltinRun) -> Result<(), String> {
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
}

/// `latlab startup measure`: a command's launch cold, warm and cold + prefetch.
#[derive(Debug, Clone)]
pub struct MeasureRun {
    /// The launch.
    pub launch: LaunchSpec,
    /// The plan; `None`: learn one first (stored as a `startup record` run).
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
    const MODE: &'static str = "measure";
    const ABOUT: &'static str = "a command's launch cold, warm and cold + prefetch (seed 004)";
    fn suite_configs(_: bool) -> Vec<MeasureRun> {
        vec![MeasureRun::default()]
    }
    fn validate(cfg: &MeasureRun) -> Result<(), String> {
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

impl Default for crate::preload_measure::PreloadMeasureConfig {
    /// The built-in applications, the default rounds and the preloader's defaults.
    fn default() -> Self {
        let b = BuiltinRun::default();
        crate::preload_measure::PreloadMeasureConfig {
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
    type Config = crate::preload_measure::PreloadMeasureConfig;
    const NAME: &'static str = "startup";
    const MODE: &'static str = "preload";
    const ABOUT: &'static str = "Superfetch proper (seed 004): a library of ranked launch plans preloaded while the machine is idle; a launch after memory pressure with and without it";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("preload.pressured.p50", "launch after memory pressure"),
        ("preload.preloaded.p50", "the same, the preloader having run"),
        ("preload.speedup", "preloader speedup"),
    ];
    fn suite_configs(_: bool) -> Vec<Self::Config> {
        vec![crate::preload_measure::PreloadMeasureConfig { runs: d::SUITE_PRELOAD_RUNS, ..Default::default() }]
    }
    fn validate(cfg: &Self::Config) -> Result<(), String> {
        if cfg.apps == 0 || cfg.runs == 0 {
            return Err("--apps and --runs must be at least 1".into());
        }
        if !(cfg.idle_below > 0.0 && cfg.idle_below <= 1.0) {
            return Err(format!("--idle-below must be a share of the CPUs in (0, 1], not {}", cfg.idle_below));
        }
        if cfg.check_every.is_zero() {
            return Err("--check-ms must be at least 1".into());
        }
        Ok(())
    }
    fn steps(cfg: &Self::Config) -> u64 {
        crate::preload_measure::steps(cfg.apps, cfg.runs)
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
        Ok(crate::preload_measure::run_preload_measure(cfg, &ctx.progress)?.into())
    }
}

/// `latlab startup record`: learn a launch plan and write it to a file.
#[derive(Debug, Clone)]
pub struct RecordRun {
    /// The launch.
    pub launch: LaunchSpec,
    /// Which tracer.
    pub tracer: TracerChoice,
    /// Where the plan is written.
    pub output: PathBuf,
}

impl Default for RecordRun {
    fn default() -> Self {
        Self { launch: LaunchSpec::default(), tracer: TracerChoice::Auto, output: PathBuf::from(d::PLAN_FILE) }
    }
}

/// `latlab startup record`.
pub struct StartupRecord;

impl Experiment for StartupRecord {
    type Config = RecordRun;
    const NAME: &'static str = "startup";
    const MODE: &'static str = "record";
    const ABOUT: &'static str = "learn a launch plan: the files and page ranges a launch reads (seed 004)";
    fn suite_configs(_: bool) -> Vec<RecordRun> {
        vec![RecordRun::default()]
    }
    fn validate(cfg: &RecordRun) -> Result<(), String> {
        cfg.launch.validate()
    }
    fn steps(_: &RecordRun) -> u64 {
        0
    }
    fn announce(cfg: &RecordRun) -> String {
        format!("startup record: tracing `{}`, then one launch from evicted files", cfg.launch.command.join(" "))
    }
    fn run(cfg: &RecordRun, _: &RunContext) -> Result<Outcome, ExperimentError> {
        let rcfg = RecordConfig { launch: cfg.launch.clone(), tracer: cfg.tracer };
        let learned = learn(&rcfg)?;
        std::fs::write(&cfg.output, learned.plan.to_json()).map_err(|e| {
            ExperimentError::failed(latlab_core::ioerr::IoFailed::new(
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
        rec.config("plan_file", cfg.output.display().to_string());
        Ok(rec.into())
    }
}

/// `latlab startup io`: disk I/O per process while a command runs.
#[derive(Debug, Clone)]
pub struct IoRun {
    /// The launch (the scenario ends at readiness).
    pub launch: LaunchSpec,
    /// Time between reads of every process's counters, ms.
    pub interval_ms: u64,
    /// Processes listed.
    pub top: usize,
}

impl Default for IoRun {
    fn default() -> Self {
        Self { launch: LaunchSpec::default(), interval_ms: d::IO_INTERVAL_MS, top: d::IO_TOP }
    }
}

/// `latlab startup io`.
pub struct StartupIo;

impl Experiment for StartupIo {
    type Config = IoRun;
    const NAME: &'static str = "startup";
    const MODE: &'static str = "io";
    const ABOUT: &'static str = "disk I/O per process of a scenario (seed 004)";
    fn suite_configs(_: bool) -> Vec<IoRun> {
        vec![IoRun::default()]
    }
    fn validate(cfg: &IoRun) -> Result<(), String> {
        if cfg.interval_ms == 0 {
            return Err("--interval-ms must be at least 1".into());
        }
        cfg.launch.validate()
    }
    fn steps(_: &IoRun) -> u64 {
        0
    }
    fn announce(cfg: &IoRun) -> String {
        format!("startup io: `{}`, every process's counters each {} ms", cfg.launch.command.join(" "), cfg.interval_ms)
    }
    fn run(cfg: &IoRun, _: &RunContext) -> Result<Outcome, ExperimentError> {
        use crate::io::io_run;
        use crate::iofiles::{files_table, observe_with_files};
        let begun = latlab_core::record::RunRecord::begin("startup");
        let (tracker, l, reaped, files) =
            observe_with_files(&cfg.launch, Duration::from_millis(cfg.interval_ms)).map_err(ExperimentError::failed)?;
        let spec = &cfg.launch;
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
        Ok(rec.into())
    }
}

/// `latlab boot analyze`: a boot trace file, or (the suite) this machine's own boot.
#[derive(Debug, Clone, Default)]
pub struct BootFile {
    /// The trace; `None`: this machine's boot from `systemd-analyze blame`, and where there
    /// is none, the bundled xperf excerpt of seed 004's trace as a check of the parser.
    pub file: Option<PathBuf>,
    /// Instead of a file: a stored `boot measure` run (its id and record) to analyse.
    pub measured: Option<(i64, latlab_core::record::RunRecord)>,
}

/// This machine's boot as `systemd-analyze blame` prints it, or why there is none.
fn this_machines_boot() -> Result<String, String> {
    let out = std::process::Command::new("systemd-analyze")
        .arg("blame")
        .output()
        .map_err(|e| format!("no systemd-analyze here ({e})"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() || text.trim().is_empty() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "systemd-analyze blame found no boot to read ({})",
            err.lines().next().unwrap_or("no output").trim()
        ));
    }
    Ok(text)
}

/// The row that checks latlab's xperf reader on seed 004's own excerpt: the figures read back
/// must be the seed's (4,614 ms of auto-start, PlugPlay 621 ms). A check, not a measurement:
/// it is never counted as reproduced, and a reader that gets other figures shows as differing.
fn reader_check_row() -> latlab_core::record::PaperRow {
    use latlab_core::verdict::Judgement;
    let got = parse(SAMPLE_XPERF).map(|t| analyze(&t));
    let (ms, slowest) = match &got {
        Ok(a) => (a.autostart_ms, a.by_cost.first().map(|s| (s.name.clone(), s.duration_ms))),
        Err(_) => (0.0, None),
    };
    let right = ms.round() == 4614.0 && slowest.as_ref().is_some_and(|(n, d)| n == "PlugPlay" && d.round() == 621.0);
    let here = match (&got, &slowest) {
        (Err(e), _) => format!("the excerpt did not parse: {e}"),
        (Ok(_), Some((n, d))) => format!("read back: autoStartDuration {ms:.0} ms; slowest {n} {d:.0} ms"),
        (Ok(_), None) => format!("read back: autoStartDuration {ms:.0} ms; no services"),
    };
    latlab_core::record::PaperRow {
        seed: "004".into(),
        figure: "boot trace reader: the seed's own xperf excerpt read back".into(),
        paper_setting: "the xperf -a boot XML excerpt printed in the seed, bundled".into(),
        paper_value: "autoStartDuration 4,614 ms (8,531–13,146); PlugPlay 621 ms the slowest".into(),
        here_value: here,
        note: "a check of latlab's reader, not a measurement of any machine: the seed's figures must come back".into(),
        judgement: if right {
            Judgement::not_comparable(
                "a check of the reader on the seed's own data, which it passed; no machine was measured",
            )
        } else {
            Judgement::finding(
                false,
                "the reader gives the seed's own figures from the seed's excerpt",
                "other figures",
                "the xperf reader is wrong",
            )
        },
    }
}

/// The suite's boot rows: this machine's own boot beside the seed's when it has one
/// (`systemd-analyze blame`), and always the reader's check on the seed's excerpt. Where the
/// machine has no boot trace, the record's figures are the excerpt's, so its metrics are
/// renamed `boot.reader_check.*`: they must never read as this machine's boot (the measured
/// boot of `boot measure` is).
fn boot_row(rec: &mut latlab_core::record::RunRecord, here: Result<(), String>) {
    let (ms, slowest) = (
        rec.get_metric("boot.autostart_ms").map_or(0.0, |m| m.value.as_f64()),
        rec.config.get("slowest").and_then(|v| v.as_str()).unwrap_or("none").to_string(),
    );
    let slowest_ms = rec.get_metric("boot.slowest_ms").map_or(0.0, |m| m.value.as_f64());
    rec.paper.retain(|p| p.seed != "004");
    match &here {
        Ok(()) => rec.paper.push(latlab_core::record::PaperRow {
            seed: "004".into(),
            figure: "boot trace: services auto-start".into(),
            paper_setting: "Windows Embedded Standard 7, xperf -a boot".into(),
            paper_value: "autoStartDuration 4,614 ms (8,531–13,146); PlugPlay 621 ms the slowest".into(),
            here_value: format!(
                "{ms:.0} ms of service start time (systemd-analyze blame); slowest {slowest} {slowest_ms:.0} ms"
            ),
            note: "this machine's last boot: systemd's per-unit activation times summed, as xperf's autoStartDuration sums the services'; another OS and another boot".into(),
            judgement: latlab_core::verdict::Judgement::within_factor(
                ms,
                4614.0,
                2.0,
                "another OS and another boot: systemd starts units in parallel and blame sums their activation times",
            )
            .of("service start time"),
        }),
        Err(why) => {
            rec.warn(format!(
                "{why}: this record holds seed 004's bundled excerpt, read as a check of the reader (metrics boot.reader_check.*); this machine's boot is measured by `boot measure`"
            ));
            for m in &mut rec.metrics {
                if let Some(rest) = m.name.strip_prefix("boot.") {
                    m.name = format!("boot.reader_check.{rest}");
                }
            }
        }
    }
    rec.paper.push(reader_check_row());
    rec.link_studies();
}

/// Boot-trace analysis.
pub struct Boot;

/// Why a boot trace could not be read.
#[derive(Debug, thiserror::Error)]
#[error("'{file}' is not a boot trace latlab reads")]
struct NotATrace {
    file: String,
    #[source]
    cause: crate::boot::ParseError,
}

impl Experiment for Boot {
    type Config = BootFile;
    const NAME: &'static str = "boot";
    const ABOUT: &'static str = "boot-trace analysis of this machine's boot (systemd-analyze), or where it has none, of seed 004's bundled excerpt as a check of the reader";
    const HEADLINE: &'static [(&'static str, &'static str)] =
        &[("boot.autostart_ms", "auto-start"), ("boot.slowest_ms", "slowest service")];
    fn suite_configs(_: bool) -> Vec<BootFile> {
        vec![BootFile::default()]
    }
    fn steps(_: &BootFile) -> u64 {
        1
    }
    fn announce(cfg: &BootFile) -> String {
        if let Some((id, _)) = &cfg.measured {
            return format!("boot analyze: the measured boot of run #{id}");
        }
        match &cfg.file {
            Some(f) => format!("boot analyze: {}", f.display()),
            None => "boot analyze: this machine's boot (systemd-analyze blame), else seed 004's bundled excerpt".into(),
        }
    }
    fn run(cfg: &BootFile, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        if let Some((id, run)) = &cfg.measured {
            let rec = crate::bootstored::analyze_stored(run, *id).map_err(ExperimentError::Config)?;
            ctx.progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return Ok(rec.into());
        }
        let mut mine: Option<Result<(), String>> = None;
        let (source, text) = match &cfg.file {
            None => match this_machines_boot() {
                Ok(text) => {
                    mine = Some(Ok(()));
                    ("this machine: systemd-analyze blame".to_string(), text)
                }
                Err(why) => {
                    mine = Some(Err(why));
                    ("bundled: seed 004's xperf excerpt (a check of the reader)".to_string(), SAMPLE_XPERF.to_string())
                }
            },
            Some(f) => {
                let text = std::fs::read_to_string(f).map_err(|e| {
                    ExperimentError::failed(latlab_core::ioerr::IoFailed::new(
                        format!("cannot read the trace '{}'", f.display()),
                        e,
                    ))
                })?;
                (f.display().to_string(), text)
            }
        };
        let t = parse(&text).map_err(|cause| ExperimentError::failed(NotATrace { file: source.clone(), cause }))?;
        ctx.progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut rec = record(&source, &t, &analyze(&t));
        if let Some(here) = mine {
            boot_row(&mut rec, here);
        }
        Ok(rec.into())
    }
}

/// `latlab boot measure`: a boot run for real, cold, warm and cold + prefetch.
pub struct BootMeasure;

impl Default for crate::bootmeasure::BootMeasureConfig {
    /// The built-in boot with the default rounds and threads.
    fn default() -> Self {
        let b = BuiltinRun::default();
        crate::bootmeasure::BootMeasureConfig {
            source: crate::bootmeasure::BootSource::Builtin { app: b.app, parent: b.parent, spec: d::BOOT_FIXTURE },
            runs: d::BOOT_RUNS,
            threads: d::prefetch_threads(),
            apply_recommendations: true,
            throttle: crate::device::Limit::default(),
        }
    }
}

impl From<crate::bootmeasure::BootMeasureError> for ExperimentError {
    fn from(e: crate::bootmeasure::BootMeasureError) -> Self {
        use crate::bootmeasure::BootMeasureError as E;
        match e {
            e @ E::File { .. } => ExperimentError::Config(e.to_string()),
            e => ExperimentError::failed(e),
        }
    }
}

impl Experiment for BootMeasure {
    type Config = crate::bootmeasure::BootMeasureConfig;
    const NAME: &'static str = "boot";
    const MODE: &'static str = "measure";
    const ABOUT: &'static str = "a boot run for real (seed 004): services in dependency order, cold, warm and cold + boot-plan prefetch; time to target, each service's start and ready, the critical path";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("boot.cold.target.p50", "cold boot to target"),
        ("boot.warm.target.p50", "warm boot to target"),
        ("boot.prefetch.target.p50", "cold + prefetch boot to target"),
        ("boot.prefetch.speedup", "prefetch speedup over cold"),
    ];
    fn suite_configs(_: bool) -> Vec<Self::Config> {
        let mut c = crate::bootmeasure::BootMeasureConfig { runs: d::SUITE_BOOT_RUNS, ..Default::default() };
        if let crate::bootmeasure::BootSource::Builtin { spec, .. } = &mut c.source {
            *spec = d::SUITE_BOOT_FIXTURE;
        }
        vec![c]
    }
    fn validate(cfg: &Self::Config) -> Result<(), String> {
        check_counts(cfg.runs, cfg.threads)
    }
    fn steps(cfg: &Self::Config) -> u64 {
        crate::bootmeasure::steps(cfg.runs, cfg.apply_recommendations, cfg.throttle.is_some())
    }
    fn announce(cfg: &Self::Config) -> String {
        let what = match &cfg.source {
            crate::bootmeasure::BootSource::File(f) => f.display().to_string(),
            crate::bootmeasure::BootSource::Builtin { parent, spec, .. } => {
                format!(
                    "the built-in boot (5 services and a disabled one, each {} under {})",
                    describe_fixture(spec),
                    parent.display()
                )
            }
        };
        format!("boot measure: {what}; {} rounds of cold, warm and cold + prefetch", cfg.runs)
    }
    fn run(cfg: &Self::Config, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(crate::bootmeasure::run_boot_measure(cfg, &ctx.progress)?.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_excerpt_is_a_reader_check_of_its_own_and_never_this_machines_boot() {
        let t = parse(SAMPLE_XPERF).unwrap();
        let mut rec = record("bundled", &t, &analyze(&t));
        boot_row(&mut rec, Err("PID 1 is not systemd".into()));
        let rows: Vec<_> = rec.paper.iter().filter(|p| p.seed == "004").collect();
        assert_eq!(rows.len(), 1);
        assert!(rows[0].figure.starts_with("boot trace reader"), "{}", rows[0].figure);
        assert_eq!(rows[0].here_value, "read back: autoStartDuration 4614 ms; slowest PlugPlay 621 ms");
        assert_eq!(rows[0].judgement.verdict, latlab_core::verdict::Verdict::NotComparable);
        // The excerpt's figures are not this machine's: renamed.
        assert!(rec.get_metric("boot.autostart_ms").is_none());
        assert_eq!(rec.get_metric("boot.reader_check.autostart_ms").map(|m| m.value.as_f64()), Some(4614.0));
        // A machine with its own boot: its row, and the check beside it.
        let mut rec = record("this machine", &t, &analyze(&t));
        boot_row(&mut rec, Ok(()));
        assert_eq!(rec.paper.len(), 2);
        assert!(rec.paper[0].here_value.contains("systemd-analyze blame"));
        assert!(rec.get_metric("boot.autostart_ms").is_some());
    }
}
