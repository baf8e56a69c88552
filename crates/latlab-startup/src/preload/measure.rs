//! `latlab startup preload measure`: Superfetch proper, measured. Several built-in
//! applications (or given commands) are learned into a preload library with a launch history
//! that ranks them; then, each round, memory pressure evicts their pages and the top-ranked
//! application is launched twice from that state: once straight away, and once after the
//! preloader ran while the machine was idle. A warm launch follows as the bound.
//!
//! **Pressure.** The applications' warm-up launches run inside a memory control group of
//! their own (`latlab-preload-<pid>`), so the pages they read are charged to it; then the
//! group's limit is lowered to [`crate::defaults::PRELOAD_SQUEEZE_MIB`] and restored, and the
//! kernel's reclaim pushes their pages out as memory pressure would (not `fadvise`). Where no
//! memory controller can be used (not root, none mounted) the pages are evicted file by file
//! instead, and the record says so.

use crate::fixture::{Fixture, FixtureSpec};
use crate::launch::{LaunchSpec, Ready, launch, launch_in};
use crate::learn::{RecordConfig, StartupError, evict_all, learn};
use crate::plan::Plan;
use crate::preload::preloader::{Machine, PreloadConfig, PreloadReport, preload};
use crate::preload::{Entry, Library};
use latlab_model::numfmt::sig;
use latlab_model::record::{Column, PaperRow, RunRecord, RunStatus, Series, Table};
use latlab_model::verdict::Judgement;
use latlab_sys::cgroup::{self, Group, Hierarchy};
use latlab_sys::change::Undo;
use latlab_sys::ioerr::Doing;
use latlab_sys::record::Finish;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What to measure.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PreloadMeasureConfig {
    /// The application launcher (the data directory is appended): latlab's own
    /// `startup fixture-app`.
    pub app: Vec<String>,
    /// Where the data sets go (on a disk).
    pub parent: PathBuf,
    /// Each application's data set.
    pub spec: FixtureSpec,
    /// Applications in the library.
    pub apps: usize,
    /// Rounds.
    pub runs: usize,
    /// The preloader's idleness threshold, window and patience.
    pub idle_below: f64,
    /// See [`PreloadConfig::check_every`].
    pub check_every: Duration,
    /// See [`PreloadConfig::give_up_after`].
    pub give_up_after: Duration,
}

/// Launch states per round, in order.
pub const STATES: [&str; 3] = ["pressured", "preloaded", "warm"];

/// Progress steps: one per application learned, then each state of each round.
pub fn steps(apps: usize, runs: usize) -> u64 {
    (apps + STATES.len() * runs) as u64
}

/// How pages are pushed out between launches.
enum Pressure {
    /// A memory group the warm-up launches run in, squeezed then restored.
    Group { group: Group, hierarchy: Hierarchy, procs: std::fs::File, _undo: Undo },
    /// Per-file eviction, with why there is no group.
    Evict(String),
}

impl Pressure {
    fn new() -> Self {
        let made = (|| {
            let h = cgroup::find("memory")?;
            let mut undo = Undo::new();
            let name = format!("latlab-preload-{}", std::process::id());
            let group = cgroup::create(&mut undo, &h, "memory", &name)?;
            let procs = std::fs::OpenOptions::new().write(true).open(group.dir.join("cgroup.procs")).map_err(|e| {
                latlab_sys::ioerr::IoFailed::new(format!("opening {}/cgroup.procs", group.dir.display()), e)
            })?;
            Ok::<_, latlab_sys::SysError>(Pressure::Group { group, hierarchy: h, procs, _undo: undo })
        })();
        made.unwrap_or_else(|e| Pressure::Evict(e.to_string()))
    }

    fn describe(&self) -> String {
        match self {
            Pressure::Group { group, hierarchy, .. } => format!(
                "memory pressure: the warm-up launches ran in memory group {} (cgroup {}), whose limit was then lowered to {} MiB and restored, so the kernel's reclaim evicted their pages",
                group.dir.display(),
                hierarchy.version(),
                crate::defaults::PRELOAD_SQUEEZE_MIB
            ),
            Pressure::Evict(why) => format!("evicted file by file (no memory group: {why})"),
        }
    }

    /// Warm every application (its files first evicted, so the pages are charged afresh),
    /// then push their pages out. A squeeze the kernel refused (it could not reclaim below the
    /// limit) falls back to per-file eviction for that round, and is returned to be warned.
    fn apply(&self, launches: &[LaunchSpec], files: &[PathBuf]) -> Result<Option<String>, StartupError> {
        evict_all(files);
        let Pressure::Group { group, hierarchy, procs, .. } = self else { return Ok(None) };
        for l in launches {
            launch_in(l, Instant::now(), false, Some(procs))?;
        }
        let (limit, unlimited) = match hierarchy {
            Hierarchy::V1(_) => ("memory.limit_in_bytes", "-1"),
            Hierarchy::V2(_) => ("memory.max", "max"),
        };
        let squeeze = (crate::defaults::PRELOAD_SQUEEZE_MIB << 20).to_string();
        let squeezed = group.set(limit, &squeeze);
        group.set(limit, unlimited).map_err(|e| StartupError::Preload(format!("restoring the limit: {e}")))?;
        Ok(squeezed.err().map(|e| {
            evict_all(files);
            format!("the memory group could not be squeezed ({e}): a round evicted file by file instead")
        }))
    }
}

/// Pages of the plan's ranges resident now, and the plan's pages.
fn resident_in_plan(plan: &Plan) -> (u64, u64) {
    let mut hit = 0;
    for f in &plan.files {
        let Ok(r) = crate::pagecache::residency(&f.path) else { continue };
        for &(a, n) in &f.ranges {
            for &(b, m) in &r.ranges {
                let (lo, hi) = (a.max(b), (a + n).min(b + m));
                hit += hi.saturating_sub(lo);
            }
        }
    }
    (hit, plan.pages())
}

/// The measurement, as one record.
pub fn run_preload_measure(cfg: &PreloadMeasureConfig, progress: &AtomicU64) -> Result<RunRecord, StartupError> {
    if !crate::pagecache::evictable(&cfg.parent) {
        return Err(StartupError::InMemory(cfg.parent.display().to_string()));
    }
    let mut rec = latlab_sys::record::begin("startup");
    rec.mode = "preload".into();
    let mut fixtures: Vec<Fixture> = Vec::new();
    for _ in 0..cfg.apps {
        fixtures.push(
            crate::fixture::prepare(&cfg.parent, cfg.spec)
                .doing(format!("writing the built-in applications' data under '{}'", cfg.parent.display()))?,
        );
    }
    let launches: Vec<LaunchSpec> = fixtures
        .iter()
        .map(|fx| {
            let mut command = cfg.app.clone();
            command.push(fx.dir.display().to_string());
            LaunchSpec { command, ready: Ready::Exit, timeout: Duration::from_secs_f64(crate::defaults::TIMEOUT_S) }
        })
        .collect();
    // Learn every plan; a history where application k was launched (apps − k) times, an hour
    // apart, the last of them now: the first ranks top.
    let mut lib = Library::default();
    let now = crate::preload::now_ms();
    let mut tracer = None;
    for (k, l) in launches.iter().enumerate() {
        let learned = learn(&RecordConfig { launch: l.clone(), tracer: crate::trace::TracerChoice::Auto })?;
        tracer.get_or_insert((learned.tracer, learned.refusal.clone()));
        let times = cfg.apps - k;
        for t in 0..times {
            let at = now - ((times - 1 - t) as u64) * 3_600_000;
            let plan = (t == 0).then(|| learned.plan.clone());
            lib.launched(&l.command, plan, at)?;
        }
        progress.fetch_add(1, Ordering::Relaxed);
    }
    if let Some((t, refusal)) = tracer {
        rec.config("tracer", t);
        if let Some(r) = refusal {
            rec.config("tracer_refused", r);
        }
    }
    let ranked: Vec<(&Entry, f64)> = lib.ranked(now);
    let top = ranked[0].0.clone();
    let files: Vec<PathBuf> = lib.entries.iter().flat_map(|e| e.plan.files.iter().map(|f| f.path.clone())).collect();
    let budget = crate::preload::preloader::default_budget_pages();
    let pcfg = PreloadConfig {
        idle_below: cfg.idle_below,
        check_every: cfg.check_every,
        give_up_after: cfg.give_up_after,
        budget_pages: budget,
        top: crate::defaults::PRELOAD_TOP,
    };
    let pressure = Pressure::new();
    rec.config("eviction", pressure.describe());
    if let Pressure::Evict(why) = &pressure {
        rec.warn(format!("no memory group ({why}): pages were evicted file by file, not by memory pressure"));
    }
    let entries: Vec<&Entry> = ranked.iter().map(|(e, _)| *e).collect();
    let top_launch = launches.iter().find(|l| l.command == top.command).expect("the top entry is one of ours");
    let mut times: [Vec<i64>; 3] = Default::default();
    let mut left = Vec::new();
    let mut reports: Vec<PreloadReport> = Vec::new();
    let mut status = RunStatus::Complete;
    let mut squeeze_failed: Option<String> = None;
    'rounds: for _ in 0..cfg.runs {
        for (k, state) in STATES.iter().enumerate() {
            if latlab_sys::interrupt::stop_requested() {
                status = RunStatus::Interrupted;
                break 'rounds;
            }
            match *state {
                "pressured" => {
                    if let Some(w) = pressure.apply(&launches, &files)? {
                        squeeze_failed.get_or_insert(w);
                    }
                    let (hit, all) = resident_in_plan(&top.plan);
                    left.push(hit as f64 / all.max(1) as f64);
                }
                "preloaded" => {
                    if let Some(w) = pressure.apply(&launches, &files)? {
                        squeeze_failed.get_or_insert(w);
                    }
                    reports.push(preload(&entries, &pcfg, &mut Machine::default()));
                }
                _ => {}
            }
            times[k].push(launch(top_launch, Instant::now(), false)?.ready_ns as i64);
            progress.fetch_add(1, Ordering::Relaxed);
        }
    }
    // The library as it was measured.
    rec.tables.push(Table {
        name: "preload.library".into(),
        title: "The preload library by rank: launches, decayed score, plan size, and whether the preloader read it"
            .into(),
        columns: vec![
            Column::new("rank", ""),
            Column::new("command", ""),
            Column::new("launches", "count"),
            Column::new("score", ""),
            Column::new("plan", "pages"),
            Column::new("preloaded", ""),
        ],
        rows: ranked
            .iter()
            .enumerate()
            .map(|(i, (e, s))| {
                let name = e.command.join(" ");
                let read = reports.last().is_some_and(|r| r.preloaded.contains(&name));
                vec![
                    (i + 1).into(),
                    name.into(),
                    e.launches.into(),
                    ((s * 1000.0).round() / 1000.0).into(),
                    e.plan.pages().into(),
                    if read { "yes" } else { "no" }.into(),
                ]
            })
            .collect(),
        plot: None,
    });
    rec.config("apps", cfg.apps);
    rec.config("runs", cfg.runs);
    rec.config("builtin", crate::measure::describe_fixture(&cfg.spec));
    rec.config("top", top.command.join(" "));
    rec.config("idle_below", cfg.idle_below);
    rec.config("check_every_ms", cfg.check_every.as_millis() as u64);
    rec.config("budget_pages", budget);
    rec.config(
        "order",
        "each round: pressure, launch (pressured); pressure, the preloader, launch (preloaded); launch (warm)",
    );
    if let Some(w) = squeeze_failed {
        rec.warn(w);
    }
    drop(pressure);
    drop(fixtures);
    finish(&mut rec, &times, &left, &reports);
    rec.finish(status);
    Ok(rec)
}

fn finish(rec: &mut RunRecord, times: &[Vec<i64>; 3], left: &[f64], reports: &[PreloadReport]) {
    let mut p50 = [0i64; 3];
    for (k, state) in STATES.iter().enumerate() {
        if let Some(s) = latlab_model::stats::summarize(&times[k]) {
            rec.summary_metrics(&format!("preload.{state}"), &s, "ns");
            p50[k] = s.p50;
        }
        rec.series.push(Series {
            name: format!("preload.{state}"),
            unit: "ns".into(),
            description: format!("launch time of the top-ranked application, {state}, one per round"),
            values: times[k].clone(),
        });
    }
    if !left.is_empty() {
        rec.metric("preload.resident_after_pressure", left.iter().sum::<f64>() / left.len() as f64, "ratio");
    }
    if let Some(r) = reports.last() {
        rec.metric("preload.plans", r.preloaded.len() as u64, "count");
    }
    if !reports.is_empty() {
        let n = reports.len() as u64;
        rec.metric("preload.pages", reports.iter().map(|r| r.pages).sum::<u64>() / n, "pages");
        rec.metric("preload.pauses", reports.iter().map(|r| r.pauses).sum::<u64>(), "count");
        let mut el: Vec<i64> = reports.iter().map(|r| r.elapsed.as_nanos() as i64).collect();
        el.sort_unstable();
        rec.metric("preload.elapsed", el[el.len() / 2], "ns");
        let mut wt: Vec<i64> = reports.iter().map(|r| r.waited.as_nanos() as i64).collect();
        wt.sort_unstable();
        rec.metric("preload.waited", wt[wt.len() / 2], "ns");
        for r in reports {
            if let Some(why) = &r.ended_early {
                rec.warn(format!("a preloader pass ended early: {why}"));
            }
        }
    }
    let [pressured, preloaded, warm] = p50;
    // A pass that found the machine busy (or was stopped) ended before reading its plans: its
    // launch is one after pressure with little or nothing preloaded.
    let busy: Vec<&str> = reports.iter().filter_map(|r| r.ended_early.as_deref()).collect();
    if pressured > 0 && preloaded > 0 && warm > 0 {
        let gain = pressured as f64 / preloaded as f64;
        rec.metric("preload.speedup", gain, "×");
        rec.metric("preload.vs_warm", preloaded as f64 / warm as f64, "×");
        rec.paper.push(PaperRow {
            seed: "004".into(),
            figure: "Superfetch and processes: a launch with and without the service".into(),
            paper_setting: "Windows Embedded Standard 7: Superfetch keeps up to 123 launch plans and preloads them"
                .into(),
            paper_value: "\"without the Superfetch service … approximately double the start times for most processes\""
                .into(),
            here_value: format!(
                "after memory pressure: {} without the preloader, {} after it ran while idle ({}×; warm {})",
                latlab_model::record::fmt_ns(pressured as f64),
                latlab_model::record::fmt_ns(preloaded as f64), sig(gain),
                latlab_model::record::fmt_ns(warm as f64)
            ),
            note: "medians of interleaved rounds; the top-ranked of the library's applications; the preloader waits for an idle machine, then reads the top plans".into(),
            judgement: match busy.first() {
                Some(why) => Judgement::not_comparable(&format!(
                    "{} of {} preloader passes ended before reading their plans ({why}), so those launches \"after it ran\" are launches after pressure with little or nothing preloaded",
                    busy.len(),
                    reports.len()
                )),
                None => Judgement::within_factor(
                    gain,
                    2.0,
                    1.5,
                    "the gain is what reading from storage costs this launch: the built-in application is small and mostly reads, the seed's processes did more work per byte read, and this machine's storage is not the seed's disk",
                )
                .of("start-time ratio without/with the preloader"),
            },
        });
    }
    crate::measure::name_synthetic(rec, "latlab's built-in synthetic applications");
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_preload_measurement_runs_and_leaves_nothing_behind() {
        let var = Path::new(crate::defaults::FIXTURE_PARENT);
        if !crate::pagecache::evictable(var) {
            latlab_model::testing::skip("/var/tmp is in memory");
            return;
        }
        // A directory of this test's own, so other tests' data sets are not counted.
        let own = var.join(format!("latlab-preload-test-{}", std::process::id()));
        std::fs::create_dir_all(&own).unwrap();
        let parent = own.as_path();
        // Idle below 100 %: always idle, so a machine busy with other tests cannot stall it.
        let cfg = PreloadMeasureConfig {
            app: vec!["sh".into(), "-c".into(), "cat \"$0\"/part-* > /dev/null".into()],
            parent: parent.into(),
            spec: FixtureSpec { files: 4, file_kib: 64, header_kib: 8, section_kib: 16, passes: 1 },
            apps: 3,
            runs: 1,
            idle_below: 1.0,
            check_every: Duration::from_millis(20),
            give_up_after: Duration::from_secs(5),
        };
        let progress = AtomicU64::new(0);
        let rec = run_preload_measure(&cfg, &progress).unwrap();
        assert_eq!(progress.load(Ordering::Relaxed), steps(3, 1));
        assert_eq!(rec.status, RunStatus::Complete);
        for s in STATES {
            assert!(rec.get_metric(&format!("preload.{s}.p50")).is_some(), "{s}");
        }
        // Every plan fits the budget: all three read, the top first.
        assert_eq!(rec.get_metric("preload.plans").map(|m| m.value.as_f64()), Some(3.0));
        let lib = rec.tables.iter().find(|t| t.name == "preload.library").unwrap();
        assert_eq!(lib.rows[0][2], 3, "the most launched ranks first");
        assert_eq!(lib.rows.len(), 3);
        assert_eq!(rec.paper.len(), 1);
        // The memory group is gone, and so are the data sets.
        let name = format!("latlab-preload-{}", std::process::id());
        if let Ok(h) = cgroup::find("memory") {
            assert!(!h.root().join(&name).exists());
        }
        let left = std::fs::read_dir(parent).unwrap().count();
        std::fs::remove_dir(parent).unwrap();
        assert_eq!(left, 0);
    }
}
