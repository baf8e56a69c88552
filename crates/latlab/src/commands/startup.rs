//! `latlab startup record | measure | io` from the arguments (and the hidden built-in
//! application). A plan stored with a run is read from the database here.

use crate::cli::{LaunchArgs, PreloadCommand, StartupArgs, StartupCommand, StartupMeasure};
use crate::runner::{measure, open_existing, out};
use anyhow::Context;
use latlab_startup::experiment::{
    BuiltinRun, IoRun, MeasureRun, RecordRun, StartupBuiltin, StartupIo, StartupMeasure as Measure, StartupRecord,
};
use latlab_startup::launch::{LaunchSpec, Ready};
use latlab_startup::plan::Plan;
use std::path::Path;
use std::time::Duration;

pub fn run(db: &Path, a: StartupArgs) -> anyhow::Result<i32> {
    match a.command {
        StartupCommand::Record(r) => measure::<StartupRecord>(
            db,
            RecordRun {
                launch: launch_spec(&r.launch, None)?,
                tracer: r.tracer,
                output: r.output,
                builtin: r
                    .builtin
                    .then(|| BuiltinRun { spec: latlab_startup::defaults::RECORD_FIXTURE, ..BuiltinRun::default() }),
            },
        ),
        StartupCommand::Measure(m) => measure_cmd(db, m),
        StartupCommand::Io(i) => measure::<StartupIo>(
            db,
            IoRun {
                launch: launch_spec(&i.launch, None)?,
                interval_ms: io_interval_ms(&i),
                top: i.top,
                builtin: i
                    .builtin
                    .then(|| BuiltinRun { spec: latlab_startup::defaults::SUITE_FIXTURE, ..BuiltinRun::default() }),
            },
        ),
        StartupCommand::Preload(p) => preload_cmd(db, p.command),
        StartupCommand::FixtureApp { dir } => {
            let digest = latlab_startup::fixture::run_app(&dir)
                .with_context(|| format!("the built-in application's data in '{}'", dir.display()))?;
            out(&format!("ready {digest:016x}\n"))?;
            Ok(crate::exit::OK)
        }
    }
}

/// The launch from the arguments; `fallback` is the command when none follows `--`.
fn launch_spec(a: &LaunchArgs, fallback: Option<&[String]>) -> anyhow::Result<LaunchSpec> {
    let ready = match (&a.ready, a.port) {
        (Some(r), _) => Ready::Line(
            regex::Regex::new(r)
                .map_err(|e| crate::runner::usage(format!("--ready '{r}' is not a regular expression: {e}")))?,
        ),
        (None, Some(p)) => Ready::Port(p),
        (None, None) => Ready::Exit,
    };
    let timeout = match a.timeout.as_deref() {
        None => Duration::from_secs_f64(latlab_startup::defaults::TIMEOUT_S),
        Some(t) => match t.parse::<f64>() {
            // A bare number: the old spelling, seconds.
            Ok(s) => {
                let d = Duration::try_from_secs_f64(s).map_err(|_| {
                    crate::runner::usage(format!("--timeout must be a positive duration such as 30s, not {t}"))
                })?;
                crate::cli::old_spelling(
                    &format!("--timeout {t} (bare seconds)"),
                    &format!("--timeout {}", crate::cli::dur(d.as_nanos() as u64)),
                );
                d
            }
            Err(_) => Duration::from_nanos(crate::cli::parse_duration_ns(t).map_err(crate::runner::usage)?),
        },
    };
    let command = match (a.command.is_empty(), fallback) {
        (true, Some(c)) => c.to_vec(),
        _ => a.command.clone(),
    };
    Ok(LaunchSpec { command, ready, timeout })
}

/// A plan from a file or a stored record run.
fn load_plan(db: &Path, file: Option<&Path>, run: Option<i64>) -> anyhow::Result<Option<Plan>> {
    if let Some(f) = file {
        let text = std::fs::read_to_string(f).with_context(|| format!("cannot read the plan '{}'", f.display()))?;
        return Ok(Some(Plan::from_json(&text).with_context(|| format!("'{}' is not a launch plan", f.display()))?));
    }
    let Some(id) = run else { return Ok(None) };
    let rec = open_existing(db)?.load(id).with_context(|| format!("cannot load run #{id}"))?;
    let plan = rec
        .config
        .get("plan")
        .filter(|_| rec.experiment == "startup")
        .ok_or_else(|| anyhow::anyhow!("run #{id} is not a `startup record` run: it holds no plan"))?;
    let text = serde_json::to_string(plan)?;
    Ok(Some(Plan::from_json(&text).with_context(|| format!("the plan stored with run #{id}"))?))
}

fn measure_cmd(db: &Path, a: StartupMeasure) -> anyhow::Result<i32> {
    let threads = a.threads.unwrap_or_else(latlab_startup::defaults::prefetch_threads);
    if a.builtin {
        return measure::<StartupBuiltin>(
            db,
            BuiltinRun { runs: a.runs, threads, whole: a.whole, ..BuiltinRun::default() },
        );
    }
    let plan = load_plan(db, a.plan.as_deref(), a.plan_run)?;
    let launch = launch_spec(&a.launch, plan.as_ref().map(|p| p.command.as_slice()))?;
    measure::<Measure>(db, MeasureRun { launch, plan, runs: a.runs, threads, whole: a.whole, tracer: a.tracer })
}

fn preload_cmd(db: &Path, c: PreloadCommand) -> anyhow::Result<i32> {
    use latlab_startup::preload::preloader;
    use latlab_startup::preload::{self, Library};
    match c {
        PreloadCommand::Launch { library, tracer, launch } => {
            let spec = launch_spec(&launch, None)?;
            if spec.command.is_empty() {
                return Err(crate::runner::usage(
                    "no command given: put it after `--`, e.g. `latlab startup preload launch -- /usr/bin/app`",
                )
                .into());
            }
            let said = preload::launch_through(&library, &spec, tracer)?;
            out(&format!("{said}\n"))?;
            Ok(crate::exit::OK)
        }
        PreloadCommand::List { library } => {
            let lib = Library::load(&library)?;
            out(&preload::ranking_text(&lib, preload::now_ms()))?;
            Ok(crate::exit::OK)
        }
        PreloadCommand::Run { library, budget_mib, top, idle_below, check_every, check_ms, give_up, every } => {
            let check_every = match check_ms {
                Some(ms) => {
                    crate::cli::old_spelling(&format!("--check-ms {ms}"), &format!("--check-every {ms}ms"));
                    Duration::from_millis(ms)
                }
                None => Duration::from_nanos(check_every),
            };
            let every = every.map(|ns| ns / 1_000_000_000);
            let cfg = preloader::PreloadConfig {
                idle_below,
                check_every,
                give_up_after: Duration::from_nanos(give_up),
                budget_pages: 0,
                top,
            };
            cfg.validate().map_err(crate::runner::usage)?;
            if every == Some(0) {
                return Err(crate::runner::usage("--every must be at least 1s").into());
            }
            latlab_sys::interrupt::install()?;
            loop {
                let code = preload_pass(&library, budget_mib, &cfg, every.is_some())?;
                let Some(secs) = every else { return Ok(code) };
                // Until the next pass, or Ctrl-C.
                let next = std::time::Instant::now() + Duration::from_secs(secs);
                while std::time::Instant::now() < next {
                    if latlab_sys::interrupt::stop_requested() {
                        return Ok(crate::exit::INTERRUPTED);
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
        PreloadCommand::Measure { runs, apps, idle_below } => measure::<latlab_startup::experiment::StartupPreload>(
            db,
            latlab_startup::preload::measure::PreloadMeasureConfig { runs, apps, idle_below, ..Default::default() },
        ),
    }
}

/// One preloader pass over the library as it is now (reread each pass, so launches counted
/// meanwhile re-rank it); the budget from `budget_mib` or the memory available now. With
/// `watching`, an empty library is said and waited out rather than an error.
fn preload_pass(
    library: &Path,
    budget_mib: Option<u64>,
    cfg: &latlab_startup::preload::preloader::PreloadConfig,
    watching: bool,
) -> anyhow::Result<i32> {
    use latlab_startup::preload::preloader;
    use latlab_startup::preload::{self, Library};
    let lib = Library::load(library)?;
    if lib.entries.is_empty() {
        let why = format!(
            "'{}' holds no plans yet: launch commands through it first (`latlab startup preload launch -- CMD`)",
            library.display()
        );
        if watching {
            eprintln!("preload: {why}");
            return Ok(crate::exit::OK);
        }
        return Err(anyhow::anyhow!(why));
    }
    let page = latlab_startup::pagecache::page_size() as u64;
    let budget_pages = match budget_mib {
        Some(m) => (m << 20) / page,
        None => preloader::default_budget_pages(),
    };
    let cfg = preloader::PreloadConfig { budget_pages, ..cfg.clone() };
    let ranked: Vec<&preload::Entry> = lib.ranked(preload::now_ms()).into_iter().map(|(e, _)| e).collect();
    eprintln!(
        "preload: waiting until everything else uses under {:.0} % of the CPUs, then reading up to {} plans ({} MiB at most)",
        cfg.idle_below * 100.0,
        ranked.len().min(cfg.top),
        budget_pages.saturating_mul(page) >> 20
    );
    let r = preloader::preload(&ranked, &cfg, &mut preloader::Machine::default());
    out(&preloader::report_text(&r, page))?;
    Ok(if r.ended_early.is_some() && r.preloaded.is_empty() { crate::exit::ERROR } else { crate::exit::OK })
}

/// `startup io --interval` (or the old `--interval-ms`) in milliseconds.
fn io_interval_ms(i: &crate::cli::StartupIo) -> u64 {
    match (i.interval, i.interval_ms) {
        (Some(ns), _) => ns / 1_000_000,
        (None, Some(ms)) => {
            crate::cli::old_spelling(&format!("--interval-ms {ms}"), &format!("--interval {ms}ms"));
            ms
        }
        (None, None) => latlab_startup::defaults::IO_INTERVAL_MS,
    }
}
