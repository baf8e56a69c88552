//! `latlab startup record | measure | io` from the arguments (and the hidden built-in
//! application). A plan stored with a run is read from the database here.

use super::{measure, open_existing, out};
use crate::cli::{LaunchArgs, StartupArgs, StartupCommand, StartupMeasure};
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
            RecordRun { launch: launch_spec(&r.launch, None)?, tracer: r.tracer, output: r.output },
        ),
        StartupCommand::Measure(m) => measure_cmd(db, m),
        StartupCommand::Io(i) => measure::<StartupIo>(
            db,
            IoRun { launch: launch_spec(&i.launch, None)?, interval_ms: i.interval_ms, top: i.top },
        ),
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
                .map_err(|e| super::Usage(format!("--ready '{r}' is not a regular expression: {e}")))?,
        ),
        (None, Some(p)) => Ready::Port(p),
        (None, None) => Ready::Exit,
    };
    let timeout = Duration::try_from_secs_f64(a.timeout)
        .map_err(|_| super::Usage(format!("--timeout must be a positive number of seconds, not {}", a.timeout)))?;
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
