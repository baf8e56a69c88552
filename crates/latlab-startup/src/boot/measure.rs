//! `latlab boot measure`: a boot described by a `latlab.boot/1` file (or the built-in one),
//! run for real, in three states per round like `startup measure`'s launches:
//! **cold** (every file the boot read evicted, file by file), **warm** (right after), and
//! **cold + prefetch** (evicted, then the boot plan replayed on parallel threads as the boot
//! starts). The boot plan is learned first: one boot traced with fanotify (every file any
//! service opened, in order), then one from evicted files, whose residency gives the pages
//! each file needs. Without fanotify (not root) only warm boots are measured, and the record
//! says why. The record: time to target per state, each service's start and ready times (the
//! Gantt table), and the critical path.

use crate::boot::file::{BootSpec, Ready, StartType};
use crate::boot::run::{BootError, BootTimes, apply, critical_path, recommend, run_once};
use crate::fixture::{Fixture, FixtureSpec};
use crate::learn::evict_all;
use crate::plan::Plan;
use latlab_model::numfmt::sig;
use latlab_model::record::{Column, RunRecord, RunStatus, Table};
use latlab_sys::record::Finish;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// What to boot.
#[derive(Debug, Clone, serde::Serialize)]
pub enum BootSource {
    /// A `latlab.boot/1` file.
    File(PathBuf),
    /// The built-in boot: latlab's own file-heavy fixture application as services, data sets
    /// written under `parent`.
    Builtin {
        /// The fixture application's command (the data directory is appended).
        app: Vec<String>,
        /// Where the data sets go (on a disk, not tmpfs).
        parent: PathBuf,
        /// Each data set's shape.
        spec: FixtureSpec,
    },
}

/// How to measure.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BootMeasureConfig {
    /// The boot.
    pub source: BootSource,
    /// Rounds (each: cold, warm, prefetch).
    pub runs: usize,
    /// Prefetch threads.
    pub threads: usize,
    /// Also measure the boot with its recommendations applied, in each round.
    pub apply_recommendations: bool,
    /// Also measure cold and prefetched boots on the device throttled to this limit (a
    /// blkio/io group): where prefetching pays on a slow device and where not.
    pub throttle: crate::device::Limit,
}

/// The states, in round order.
pub const STATES: [&str; 3] = ["cold", "warm", "prefetch"];

/// Boots a measurement makes (for progress): the traced and the cold learning boots, then
/// three per round, four with the recommendations applied, two more per round on a throttled
/// device, then the profiled cold boot.
pub fn steps(runs: usize, apply: bool, throttled: bool) -> u64 {
    2 + (if apply { 4 } else { 3 } + if throttled { 2 } else { 0 }) * runs as u64 + 1
}

/// Why a boot measurement failed.
#[derive(Debug, thiserror::Error)]
pub enum BootMeasureError {
    /// The boot file does not read.
    #[error("{file}: {source}")]
    File {
        /// The file.
        file: String,
        /// Where and what.
        source: crate::boot::file::BootFileError,
    },
    /// A boot failed.
    #[error(transparent)]
    Boot(#[from] BootError),
    /// The built-in boot's data could not be written, or the file not read.
    #[error("{0}")]
    Io(String),
}

/// The built-in boot: five services on the fixture application, two jobs at a time, with the
/// shapes boots have: two roots, the user's session after both, a telemetry service the
/// session does not need (a candidate to delay), an indexer delayed until after the session,
/// and a disabled updater.
fn builtin_spec(app: &[String], dirs: &[&Fixture]) -> String {
    let cmd = |d: &Fixture| {
        let mut c: Vec<String> = app.to_vec();
        c.push(d.dir.display().to_string());
        serde_json::to_string(&c).unwrap_or_default()
    };
    format!(
        r#"format = "latlab.boot/1"
target = "session"
jobs = 2

[[service]]
name = "storage"
command = {}
ready = {{ exit = true }}

[[service]]
name = "network"
command = {}
ready = {{ exit = true }}

[[service]]
name = "telemetry"
command = {}
ready = {{ exit = true }}

[[service]]
name = "session"
command = {}
after = ["storage", "network"]
ready = {{ exit = true }}

[[service]]
name = "indexer"
command = {}
after = ["storage"]
start = "delayed"
ready = {{ exit = true }}

[[service]]
name = "updater"
command = ["true"]
start = "disabled"
ready = {{ exit = true }}
"#,
        cmd(dirs[0]),
        cmd(dirs[1]),
        cmd(dirs[2]),
        cmd(dirs[3]),
        cmd(dirs[4])
    )
}

/// The files of `opened` (in order) opened by the time `target_at` (monotonic ns), on a disk.
fn before_target(opened: &[crate::trace::Opened], target_at: u64) -> Vec<PathBuf> {
    opened
        .iter()
        .filter(|o| o.at_ns <= target_at)
        .map(|o| o.path.clone())
        .filter(|p| crate::pagecache::evictable(p))
        .collect()
}

/// The boot plan: a traced boot, then one from evicted files; `Err` says why there is none.
type Learned = Result<(Plan, Vec<PathBuf>, BootTimes), NoBootPlan>;

/// Why a boot has no plan (only warm boots are measured then).
#[derive(Debug, thiserror::Error)]
enum NoBootPlan {
    /// fanotify is refused here.
    #[error(transparent)]
    Refused(#[from] crate::trace::Refused),
    /// The boot opened nothing a cold boot could be made of.
    #[error("the boot opened no file on a disk-backed filesystem: nothing to evict or prefetch")]
    NothingOnDisk,
}

fn learn(spec: &BootSpec, progress: &AtomicU64) -> Result<Learned, BootMeasureError> {
    let trace = match crate::trace::FanotifyTrace::start() {
        Ok(t) => t,
        Err(r) => return Ok(Err(r.into())),
    };
    let t0 = latlab_sys::clock::monotonic_now();
    let traced = run_once(spec);
    let opened = trace.finish_opened();
    let traced = traced?;
    progress.fetch_add(1, Ordering::Relaxed);
    // Every file the boot opened is evicted for a cold boot; the plan holds only what the
    // boot read before its target was ready: prefetching what comes later would compete with
    // the boot for the disk and cannot shorten the time to the target.
    let early = before_target(&opened, t0.saturating_add(traced.target_ns));
    let candidates: Vec<PathBuf> =
        opened.into_iter().map(|o| o.path).filter(|p| crate::pagecache::evictable(p)).collect();
    if candidates.is_empty() {
        return Ok(Err(NoBootPlan::NothingOnDisk));
    }
    evict_all(&candidates);
    let cold = run_once(spec)?;
    progress.fetch_add(1, Ordering::Relaxed);
    let refs: Vec<&std::path::Path> = early.iter().map(|p| p.as_path()).collect();
    let plan = crate::plan::from_residency(vec!["boot".into()], &refs)
        .map_err(|e| BootMeasureError::Io(format!("reading the boot's files' residency: {e}")))?;
    Ok(Ok((plan, candidates, cold)))
}

/// Measure the boot into a record.
pub fn run_boot_measure(cfg: &BootMeasureConfig, progress: &AtomicU64) -> Result<RunRecord, BootMeasureError> {
    // Services a killed boot measure left running go before this one starts its own.
    latlab_sys::leftovers::clear(&latlab_sys::leftovers::stale_processes(std::path::Path::new("/proc")));
    let mut rec = latlab_sys::record::begin("boot");
    rec.mode = "measure".into();
    let mut fixtures = Vec::new();
    let (text, source) = match &cfg.source {
        BootSource::File(f) => (
            std::fs::read_to_string(f)
                .map_err(|e| BootMeasureError::Io(format!("cannot read '{}': {e}", f.display())))?,
            f.display().to_string(),
        ),
        BootSource::Builtin { app, parent, spec } => {
            if !crate::pagecache::evictable(parent) {
                return Err(BootMeasureError::Io(format!(
                    "'{}' is in memory (tmpfs): a cold boot means nothing there",
                    parent.display()
                )));
            }
            for _ in 0..5 {
                fixtures.push(crate::fixture::prepare(parent, *spec).map_err(|e| {
                    BootMeasureError::Io(format!("writing the built-in boot's data under '{}': {e}", parent.display()))
                })?);
            }
            let refs: Vec<&Fixture> = fixtures.iter().collect();
            (builtin_spec(app, &refs), "built-in".to_string())
        }
    };
    let spec = BootSpec::parse(&text).map_err(|e| BootMeasureError::File { file: source.clone(), source: e })?;
    rec.config("boot", &source);
    // The file itself, so `boot analyze --run` can rebuild the boot from the stored run.
    rec.config("boot_spec", &text);
    rec.config("services", spec.services.iter().map(|s| s.name.clone()).collect::<Vec<_>>());
    rec.config("target", &spec.services[spec.target].name);
    rec.config("jobs", spec.jobs);
    rec.config("runs", cfg.runs);
    rec.config("threads", cfg.threads);
    let learned = learn(&spec, progress)?;
    let states: &[&str] = match &learned {
        Ok((plan, files, _)) => {
            rec.metric("boot.plan.files", plan.files.len() as u64, "count");
            rec.metric("boot.plan.pages", plan.pages(), "count");
            rec.metric("boot.plan.opened", files.len() as u64, "count");
            &STATES
        }
        Err(why) => {
            rec.warn(format!("{why}: only warm boots are measured (cold and prefetch need the boot plan)"));
            progress.fetch_add(2, Ordering::Relaxed);
            &STATES[1..2]
        }
    };
    // The device's random-read rate, for Superfetch's rule (seed 004).
    let where_ = match (&learned, &cfg.source) {
        (Ok((plan, _, _)), _) => plan.files.first().and_then(|f| f.path.parent().map(|p| p.to_path_buf())),
        (Err(_), BootSource::Builtin { parent, .. }) => Some(parent.clone()),
        (Err(_), BootSource::File(_)) => None,
    };
    if let Some(dir) = where_ {
        let d = crate::defaults::RANDREAD_FILE_MIB;
        match crate::device::random_read(&dir, d, crate::defaults::RANDREAD_MAX_READS, crate::defaults::RANDREAD_MAX_MS)
        {
            Ok(r) => {
                rec.metric("device.random_read.bytes_per_s", r.bytes_per_s, "B/s");
                rec.metric("device.random_read.iops", r.iops, "1/s");
                rec.config("random_read_dir", dir.display().to_string());
            }
            Err(e) => rec.warn(format!("the random-read rate was not measured: {e}")),
        }
    }
    // The recommendations, from the cold learning boot (a warm one without a plan), applied
    // in each round in that boot's state.
    let advised = if cfg.apply_recommendations {
        let basis = match &learned {
            Ok((_, _, cold)) => cold.clone(),
            Err(_) => run_once(&spec)?,
        };
        let advice = recommend(&spec, &basis);
        rec.tables.push(Table {
            name: "boot.recommendations".into(),
            title: format!(
                "Recommendations from the {} boot before the rounds, each applied in the 'recommended' boots",
                if learned.is_ok() { "cold learning" } else { "first warm" }
            ),
            columns: vec![Column::new("recommendation", "")],
            rows: advice.iter().map(|(_, why)| vec![why.clone().into()]).collect(),
            plot: None,
        });
        if advice.is_empty() {
            rec.config("recommendations", "none: every service that started before the target is needed by it");
            None
        } else {
            Some(apply(&spec, &advice))
        }
    } else {
        None
    };
    let mut runs: Vec<Vec<BootTimes>> = vec![Vec::new(); STATES.len() + 1];
    for _ in 0..cfg.runs {
        for &state in states {
            if latlab_sys::interrupt::stop_requested() {
                return finish(rec, &spec, &runs, RunStatus::Interrupted);
            }
            let t = match (state, &learned) {
                ("cold", Ok((plan, files, _))) => cold_boot(&spec, plan, files, None)?,
                ("prefetch", Ok((plan, files, _))) => cold_boot(&spec, plan, files, Some(cfg.threads))?,
                _ => run_once(&spec)?,
            };
            let k = STATES.iter().position(|s| *s == state).unwrap_or(1);
            runs[k].push(t);
            progress.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(better) = &advised {
            // In the basis boot's state: cold with a plan, else warm.
            if let Ok((_, files, _)) = &learned {
                evict_all(files);
            }
            runs[STATES.len()].push(run_once(better)?);
            progress.fetch_add(1, Ordering::Relaxed);
        } else if cfg.apply_recommendations {
            progress.fetch_add(1, Ordering::Relaxed);
        }
    }
    // The same device throttled: cold and prefetched boots, and its random-read rate.
    let mut throttled: Vec<Vec<BootTimes>> = vec![Vec::new(); 2];
    if let (true, Ok((plan, files, _))) = (cfg.throttle.is_some(), &learned) {
        let at = plan.files.first().map(|f| f.path.clone()).unwrap_or_default();
        match crate::device::Throttle::start(&at, cfg.throttle) {
            Ok(t) => {
                rec.config(
                    "throttle",
                    format!("reads from disk {} limited to {} ({})", t.disk, t.limit.describe(), t.group.display()),
                );
                let dir = at.parent().map(|p| p.to_path_buf()).unwrap_or_default();
                let d = crate::defaults::RANDREAD_FILE_MIB;
                match crate::device::random_read(
                    &dir,
                    d,
                    crate::defaults::RANDREAD_MAX_READS,
                    crate::defaults::RANDREAD_MAX_MS,
                ) {
                    Ok(r) => {
                        rec.metric("device.throttled.random_read.bytes_per_s", r.bytes_per_s, "B/s");
                        rec.metric("device.throttled.random_read.iops", r.iops, "1/s");
                    }
                    Err(e) => rec.warn(format!("the throttled random-read rate was not measured: {e}")),
                }
                let mut failed = None;
                'throttled: for _ in 0..cfg.runs {
                    for (k, pre) in [false, true].into_iter().enumerate() {
                        if latlab_sys::interrupt::stop_requested() {
                            break 'throttled;
                        }
                        let b = cold_boot(&spec, plan, files, pre.then_some(cfg.threads));
                        match b {
                            Ok(b) => throttled[k].push(b),
                            Err(e) => {
                                failed = Some(e);
                                break 'throttled;
                            }
                        }
                        progress.fetch_add(1, Ordering::Relaxed);
                    }
                }
                for e in t.stop() {
                    rec.warn(e);
                }
                if let Some(e) = failed {
                    return Err(e.into());
                }
            }
            Err(why) => {
                rec.warn(format!("the device could not be throttled ({why}): no throttled boots"));
                progress.fetch_add(2 * cfg.runs as u64, Ordering::Relaxed);
            }
        }
    } else if cfg.throttle.is_some() {
        rec.warn("no boot plan: the throttled cold and prefetched boots need one");
        progress.fetch_add(2 * cfg.runs as u64, Ordering::Relaxed);
    }
    throttled_metrics(&mut rec, &throttled);
    // One more boot, cold when there is a plan, with CPU and disk utilisation sampled
    // (seed 004's Figures 2 and 4).
    let device = match &learned {
        Ok((plan, files, _)) => {
            evict_all(files);
            plan.files.first().and_then(|f| crate::device::facts(&f.path).ok()).and_then(|d| d.block)
        }
        Err(_) => None,
    };
    let sampler = crate::utilisation::Sampler::start(device.clone(), crate::defaults::UTIL_INTERVAL_MS);
    let profiled = run_once(&spec);
    let samples = sampler.finish();
    let profiled = profiled?;
    progress.fetch_add(1, Ordering::Relaxed);
    let what = format!(
        "a {} boot (target ready at {} ms)",
        if learned.is_ok() { "cold" } else { "warm" },
        sig(profiled.target_ns as f64 / 1e6)
    );
    crate::utilisation::record(
        &mut rec,
        "boot.utilisation",
        "boot.profile",
        &what,
        &samples,
        profiled.all_ns,
        device.as_deref(),
    );
    drop(fixtures);
    finish(rec, &spec, &runs, RunStatus::Complete)
}

/// A boot from evicted files; with `prefetch`, the plan replayed on that many threads as it
/// starts (its clock begins a thread start later, as the boot's does).
fn cold_boot(spec: &BootSpec, plan: &Plan, files: &[PathBuf], prefetch: Option<usize>) -> Result<BootTimes, BootError> {
    evict_all(files);
    match prefetch {
        None => run_once(spec),
        Some(threads) => std::thread::scope(|sc| {
            sc.spawn(|| plan.replay(threads));
            run_once(spec)
        }),
    }
}

/// The run of `state` whose time to target is the median.
fn median_run(runs: &[BootTimes]) -> Option<&BootTimes> {
    let mut v: Vec<&BootTimes> = runs.iter().collect();
    v.sort_by_key(|t| t.target_ns);
    v.get(v.len() / 2).copied()
}

fn finish(
    mut rec: RunRecord,
    spec: &BootSpec,
    runs: &[Vec<BootTimes>],
    status: RunStatus,
) -> Result<RunRecord, BootMeasureError> {
    let ms = |ns: u64| (ns as f64 / 1e4).round() / 100.0;
    let mut p50 = [None; 3];
    for (k, state) in STATES.iter().enumerate() {
        if runs[k].is_empty() {
            continue;
        }
        let target: Vec<i64> = runs[k].iter().map(|t| t.target_ns as i64).collect();
        let all: Vec<i64> = runs[k].iter().map(|t| t.all_ns as i64).collect();
        for (name, v, what) in
            [("target", target, "time to the target's readiness"), ("all", all, "time until every service was ready")]
        {
            let s = rec.summarized_series(
                &format!("boot.{state}.{name}"),
                "ns",
                format!("{what}, {state} boots, one per round"),
                v,
            );
            if name == "target" {
                p50[k] = s.map(|s| s.p50);
            }
        }
    }
    if let (Some(c), Some(w)) = (p50[0], p50[1]) {
        rec.metric("boot.warm.speedup", c as f64 / w.max(1) as f64, "×");
    }
    let recommended: Vec<i64> = runs[STATES.len()].iter().map(|t| t.target_ns as i64).collect();
    let description = "time to the target's readiness with the recommendations applied, one per round".into();
    if let Some(s) = rec.summarized_series("boot.recommended.target", "ns", description, recommended) {
        // Against the boots in the same state: cold with a plan, else warm.
        if let Some(b) = p50[0].or(p50[1]) {
            rec.metric("boot.recommended.gain", b as f64 / s.p50.max(1) as f64, "×");
        }
    }
    if let (Some(c), Some(p)) = (p50[0], p50[2]) {
        rec.metric("boot.prefetch.speedup", c as f64 / p.max(1) as f64, "×");
    }
    // The Gantt table: each service's start and ready in each state's median boot.
    let medians: Vec<Option<&BootTimes>> = runs[..STATES.len()].iter().map(|r| median_run(r)).collect();
    let basis = medians[0].or(medians[1]);
    let path = basis.map(|b| critical_path(spec, &b.services)).unwrap_or_default();
    rec.config("critical_path", path.iter().map(|&i| spec.services[i].name.clone()).collect::<Vec<_>>());
    let mut rows = Vec::new();
    for (i, s) in spec.services.iter().enumerate() {
        let mut row: Vec<serde_json::Value> = vec![
            s.name.clone().into(),
            match s.start {
                StartType::Auto => "auto",
                StartType::Delayed => "delayed",
                StartType::Disabled => "disabled",
            }
            .into(),
            match &s.ready {
                Ready::Exit => "exit".to_string(),
                Ready::Line(l) => format!("line \"{l}\""),
                Ready::Port(p) => format!("port {p}"),
            }
            .into(),
        ];
        for m in &medians {
            match m.and_then(|b| b.services[i]) {
                Some((a, b)) => {
                    row.push(ms(a).into());
                    row.push(ms(b).into());
                }
                None => row.extend([serde_json::Value::Null, serde_json::Value::Null]),
            }
        }
        row.push(if path.contains(&i) { "yes" } else { "" }.into());
        rows.push(row);
        if let Some((a, b)) = medians[1].and_then(|m| m.services[i]) {
            let key = s.name.replace('-', "_");
            rec.metric(&format!("boot.service.{key}.warm_start"), a, "ns");
            rec.metric(&format!("boot.service.{key}.warm_ready"), b, "ns");
        }
    }
    let c = Column::new;
    let mut columns = vec![c("service", ""), c("start type", ""), c("ready when", "")];
    for state in STATES {
        columns.push(c(&format!("{state} start"), "ms"));
        columns.push(c(&format!("{state} ready"), "ms"));
    }
    columns.push(c("critical path", ""));
    rec.tables.push(Table {
        name: "boot.gantt".into(),
        title: "Each service's start and ready time in each state's median boot (ms from the boot's start); the critical path is the chain of waits that set the target's time".into(),
        columns,
        rows,
        plot: None,
    });
    crate::boot::rows::figure1_row(&mut rec, p50[0], p50[2]);
    crate::boot::rows::autostart_row(&mut rec, spec, runs);
    crate::boot::rows::superfetch_rule_row(&mut rec, false);
    crate::boot::rows::superfetch_rule_row(&mut rec, true);
    if rec.config.get("boot").and_then(|v| v.as_str()) == Some("built-in") {
        // The autostart row names the built-in boot itself; the others say it here.
        for p in rec.paper.iter_mut().filter(|p| !p.here_value.starts_with("latlab's built-in")) {
            p.here_value = format!("latlab's built-in synthetic boot: {}", p.here_value);
        }
    }
    rec.finish(status);
    Ok(rec)
}

/// The throttled device's cold and prefetched boots: their time to target and the gain.
fn throttled_metrics(rec: &mut RunRecord, runs: &[Vec<BootTimes>]) {
    let mut p50 = [None; 2];
    for (k, state) in ["cold", "prefetch"].into_iter().enumerate() {
        let v: Vec<i64> = runs[k].iter().map(|t| t.target_ns as i64).collect();
        let what = format!("time to the target's readiness, {state} boots on the throttled device");
        p50[k] = rec.summarized_series(&format!("boot.throttled.{state}.target"), "ns", what, v).map(|s| s.p50);
    }
    if let [Some(c), Some(p)] = p50 {
        rec.metric("boot.throttled.prefetch.speedup", c as f64 / p.max(1) as f64, "×");
    }
}

#[cfg(test)]
mod tests;
