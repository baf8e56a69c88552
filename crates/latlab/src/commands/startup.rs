//! `latlab startup record | measure | io` (and the hidden built-in application).

use super::{install_interrupt, open_existing, out, save, store_and_print};
use crate::cli::{LaunchArgs, StartupArgs, StartupCommand, StartupIo, StartupMeasure, StartupRecord};
use anyhow::Context;
use latlab_core::progress::Progress;
use latlab_startup::launch::{LaunchSpec, Ready};
use latlab_startup::plan::Plan;
use latlab_startup::trace::TracerChoice;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

pub fn run(db: &Path, a: StartupArgs) -> anyhow::Result<i32> {
    match a.command {
        StartupCommand::Record(r) => record(db, r),
        StartupCommand::Measure(m) => measure(db, m),
        StartupCommand::Io(i) => io(db, i),
        StartupCommand::FixtureApp { dir } => {
            let digest = latlab_startup::fixture::run_app(&dir)
                .with_context(|| format!("the built-in application's data in '{}'", dir.display()))?;
            out(&format!("ready {digest:016x}\n"))?;
            Ok(0)
        }
    }
}

/// The launch from the arguments; `fallback` is the command when none follows `--`.
fn launch_spec(a: &LaunchArgs, fallback: Option<&[String]>) -> anyhow::Result<LaunchSpec> {
    let ready = match (&a.ready, a.port) {
        (Some(r), _) => {
            Ready::Line(regex::Regex::new(r).with_context(|| format!("--ready '{r}' is not a regular expression"))?)
        }
        (None, Some(p)) => Ready::Port(p),
        (None, None) => Ready::Exit,
    };
    if !(a.timeout > 0.0 && a.timeout.is_finite()) {
        anyhow::bail!("--timeout must be a positive number of seconds, not {}", a.timeout);
    }
    let command = match (a.command.is_empty(), fallback) {
        (false, _) => a.command.clone(),
        (true, Some(c)) => c.to_vec(),
        (true, None) => {
            anyhow::bail!("no command given: put it after `--`, e.g. `latlab startup record -- /usr/bin/app --flag`")
        }
    };
    Ok(LaunchSpec { command, ready, timeout: Duration::from_secs_f64(a.timeout) })
}

fn tracer(s: &str) -> anyhow::Result<TracerChoice> {
    s.parse().map_err(|e: String| anyhow::anyhow!(e))
}

fn record(db: &Path, a: StartupRecord) -> anyhow::Result<i32> {
    use latlab_startup::record::{RecordConfig, learn, record_run};
    let cfg = RecordConfig { launch: launch_spec(&a.launch, None)?, tracer: tracer(&a.tracer)? };
    eprintln!("startup record: tracing `{}`, then one launch from evicted files", cfg.launch.command.join(" "));
    let learned = learn(&cfg)?;
    std::fs::write(&a.output, learned.plan.to_json())
        .with_context(|| format!("cannot write the plan to '{}'", a.output.display()))?;
    eprintln!(
        "plan: {} files, {} of their {} pages, written to {}",
        learned.plan.files.len(),
        learned.plan.pages(),
        learned.plan.whole_pages(),
        a.output.display()
    );
    let mut rec = record_run(&cfg, &learned);
    rec.config("plan_file", a.output.display().to_string());
    store_and_print(db, rec)
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

fn measure(db: &Path, a: StartupMeasure) -> anyhow::Result<i32> {
    use latlab_startup::measure::{MeasureConfig, builtin, builtin_steps, measure, measure_run, measure_steps};
    use latlab_startup::record::{RecordConfig, learn, record_run};
    let threads = a.threads.unwrap_or_else(latlab_startup::defaults::prefetch_threads);
    if a.runs == 0 || threads == 0 {
        anyhow::bail!("--runs and --threads must be at least 1");
    }
    install_interrupt()?;
    if a.builtin {
        let spec = latlab_startup::defaults::FIXTURE;
        eprintln!(
            "startup measure --builtin: {} under {}; {} launches per state",
            latlab_startup::measure::describe_fixture(&spec),
            latlab_startup::defaults::FIXTURE_PARENT,
            a.runs
        );
        let exe = std::env::current_exe().context("cannot find latlab's own executable")?;
        let app = vec![exe.display().to_string(), "startup".into(), "fixture-app".into()];
        let progress = Progress::new("startup", builtin_steps(a.runs, a.whole));
        let result = builtin(
            &app,
            Path::new(latlab_startup::defaults::FIXTURE_PARENT),
            spec,
            a.runs,
            threads,
            a.whole,
            &progress.counter(),
        );
        progress.finish();
        let mut recs = result?;
        let m = recs.pop().expect("builtin returns two runs");
        let mut r = recs.pop().expect("builtin returns two runs");
        save(db, &mut r)?;
        return store_and_print(db, m);
    }
    let given = load_plan(db, a.plan.as_deref(), a.plan_run)?;
    let launch = launch_spec(&a.launch, given.as_ref().map(|p| p.command.as_slice()))?;
    let plan = match given {
        Some(p) => p,
        None => {
            eprintln!("startup measure: no plan given, learning one first (see `latlab startup record`)");
            let rcfg = RecordConfig { launch: launch.clone(), tracer: tracer(&a.tracer)? };
            let learned = learn(&rcfg)?;
            let mut r = record_run(&rcfg, &learned);
            save(db, &mut r)?;
            learned.plan
        }
    };
    let cfg = MeasureConfig { launch, runs: a.runs, threads, whole: a.whole };
    eprintln!(
        "startup measure: {} launches each cold, warm and cold + prefetch, interleaved; plan of {} files, {} pages",
        cfg.runs,
        plan.files.len(),
        plan.pages()
    );
    let plan = Arc::new(plan);
    let progress = Progress::new("startup", measure_steps(cfg.runs, cfg.whole));
    let result = measure(&cfg, &plan, &progress.counter());
    progress.finish();
    let m = result?;
    store_and_print(db, measure_run(&cfg, &plan, &m))
}

fn io(db: &Path, a: StartupIo) -> anyhow::Result<i32> {
    use latlab_startup::io::{io_run, observe};
    if a.interval_ms == 0 {
        anyhow::bail!("--interval-ms must be at least 1");
    }
    let spec = launch_spec(&a.launch, None)?;
    let begun = latlab_core::record::RunRecord::begin("startup");
    let (tracker, l, reaped) = observe(&spec, Duration::from_millis(a.interval_ms))?;
    let rec = io_run(begun, &spec.command, &spec.ready.describe(), a.interval_ms, l.ready_ns, &tracker, reaped, a.top);
    store_and_print(db, rec)
}
