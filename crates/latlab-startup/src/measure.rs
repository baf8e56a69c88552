//! `latlab startup measure`: launch time in three states, interleaved round by round —
//! **cold** (the plan's files evicted, file by file), **warm** (right after a launch), and
//! **cold + prefetch** (evicted, then the plan replayed on parallel threads while the command
//! starts; the clock starts before the replay). Medians, spread and speedups, with the device
//! facts that say what "cold" meant.

use crate::device::{self, DeviceFacts};
use crate::launch::{LaunchSpec, launch};
use crate::learn::{StartupError, evict_all};
use crate::plan::Plan;
use latlab_model::numfmt::sig;
use latlab_model::record::{Column, PaperRow, RunRecord, RunStatus, Series, Table};
use latlab_model::stats::summarize;
use latlab_sys::ioerr::Doing;
use latlab_sys::record::Finish;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// How to measure.
#[derive(Debug, Clone)]
pub struct MeasureConfig {
    /// The launch.
    pub launch: LaunchSpec,
    /// Launches per state.
    pub runs: usize,
    /// Prefetch threads.
    pub threads: usize,
    /// Also measure cold + whole-file prefetch (every file of the plan read whole), to set
    /// the plan's page ranges against.
    pub whole: bool,
}

/// The states, in the order each round runs them (warm follows cold, so it finds exactly
/// what a launch leaves in the cache); the last only with [`MeasureConfig::whole`].
pub const STATES: [&str; 4] = ["cold", "warm", "prefetch", "prefetch_whole"];

impl MeasureConfig {
    /// The states this configuration measures, in round order.
    pub fn states(&self) -> &'static [&'static str] {
        &STATES[..if self.whole { 4 } else { 3 }]
    }
}

/// Launches `measure` reports through its progress counter: the warm-up, then every state
/// of every round.
pub fn measure_steps(runs: usize, whole: bool) -> u64 {
    1 + if whole { 4 } else { 3 } * runs as u64 + 1
}

/// What was measured.
#[derive(Debug, Clone)]
pub struct Measured {
    /// Launch times per state (ns), in run order; index as [`STATES`].
    pub times: [Vec<i64>; 4],
    /// Fraction of the plan's files' pages left resident after each eviction.
    pub left_after_evict: Vec<f64>,
    /// Plan files missing or changed when replayed (summed over prefetch runs).
    pub replay_skipped: usize,
    /// Device under the plan's largest file.
    pub device: Option<DeviceFacts>,
    /// The run record, begun (clock and machine snapshot) before the first launch.
    pub begun: RunRecord,
    /// A launch that failed after the warm-up: the rounds before it are kept.
    pub failure: Option<String>,
    /// CPU and disk utilisation during one more cold launch after the rounds, and its time.
    pub profile: Option<(Vec<crate::utilisation::Sample>, u64)>,
}

/// Measure; `progress` counts launches ([`measure_steps`]: the warm-up, then every state of every round).
pub fn measure(cfg: &MeasureConfig, plan: &Arc<Plan>, progress: &AtomicU64) -> Result<Measured, StartupError> {
    let files: Vec<PathBuf> = plan.files.iter().map(|f| f.path.clone()).collect();
    let whole_plan = Arc::new(Plan {
        files: plan
            .files
            .iter()
            .map(|f| crate::plan::PlanFile {
                ranges: vec![(0, f.size.div_ceil(plan.page_size.max(1)).max(1))],
                ..f.clone()
            })
            .collect(),
        ..(**plan).clone()
    });
    let whole = plan.whole_pages().max(1);
    let mut m = Measured {
        times: Default::default(),
        left_after_evict: Vec::new(),
        replay_skipped: 0,
        device: plan.files.iter().max_by_key(|f| f.size).and_then(|f| device::facts(&f.path).ok()),
        begun: latlab_sys::record::begin("startup"),
        failure: None,
        profile: None,
    };
    // Warm-up: the program's own first-run costs (and a check that it launches at all).
    launch(&cfg.launch, Instant::now(), false)?;
    progress.fetch_add(1, Ordering::Relaxed);
    'rounds: for _ in 0..cfg.runs {
        if latlab_sys::interrupt::stop_requested() {
            break;
        }
        for (i, state) in cfg.states().iter().enumerate() {
            let launched = match *state {
                "warm" => launch(&cfg.launch, Instant::now(), false),
                cold_or_prefetch => {
                    m.left_after_evict.push(evict_all(&files) as f64 / whole as f64);
                    let t0 = Instant::now();
                    let replay = match cold_or_prefetch {
                        "prefetch" => Some(plan.clone()),
                        "prefetch_whole" => Some(whole_plan.clone()),
                        _ => None,
                    }
                    .map(|plan| {
                        let threads = cfg.threads;
                        std::thread::spawn(move || plan.replay(threads))
                    });
                    let l = launch(&cfg.launch, t0, false);
                    if let Some(h) = replay {
                        m.replay_skipped += h.join().unwrap_or(0);
                    }
                    l
                }
            };
            let ns = match launched {
                Ok(l) => l.ready_ns,
                Err(e) => {
                    m.failure = Some(format!("a {state} launch failed, measuring stopped: {e}"));
                    break 'rounds;
                }
            };
            m.times[i].push(ns as i64);
            progress.fetch_add(1, Ordering::Relaxed);
        }
    }
    // One more cold launch with CPU and disk sampled (seed 004's Figures 2 and 4).
    if m.failure.is_none() && !latlab_sys::interrupt::stop_requested() {
        evict_all(&files);
        let dev = m.device.as_ref().and_then(|d| d.block.clone());
        let sampler = crate::utilisation::Sampler::start(dev, crate::defaults::UTIL_INTERVAL_MS);
        let l = launch(&cfg.launch, Instant::now(), false);
        let samples = sampler.finish();
        if let Ok(l) = l {
            m.profile = Some((samples, l.ready_ns));
        }
    }
    progress.fetch_add(1, Ordering::Relaxed);
    Ok(m)
}

fn p50(v: &[i64]) -> i64 {
    summarize(v).map_or(0, |s| s.p50)
}

/// The stored run of `startup measure`.
pub fn measure_run(cfg: &MeasureConfig, plan: &Plan, m: &Measured) -> RunRecord {
    let mut rec = m.begun.clone();
    rec.mode = "measure".into();
    rec.config("command", &cfg.launch.command);
    rec.config("ready", cfg.launch.ready.describe());
    rec.config("runs_per_state", cfg.runs);
    rec.config("prefetch_threads", cfg.threads);
    rec.config("order", "each round: cold, warm, cold + prefetch (after one untimed warm-up launch)");
    rec.config("plan_files", plan.files.len());
    rec.config("plan_pages", plan.pages());
    if let Some(d) = &m.device {
        rec.config("device", d);
        rec.config("device_summary", d.describe());
        if d.block.is_none() {
            rec.warn(format!("the plan's files are on {}: a cold read is not a block-device read", d.describe()));
        }
    }
    if let Some(v) = &rec.machine.info.virtualization {
        let v = v.clone();
        rec.warn(format!(
            "virtualized ({v}): a cold read may be served from a host's cache, so cold can be faster than on bare metal"
        ));
    }
    if let Some((samples, ns)) = &m.profile {
        let dev = m.device.as_ref().and_then(|d| d.block.clone());
        let what = format!("a cold launch (ready at {} ms)", sig(*ns as f64 / 1e6));
        crate::utilisation::record(
            &mut rec,
            "launch.utilisation",
            "launch.profile",
            &what,
            samples,
            *ns,
            dev.as_deref(),
        );
    }
    let mut rows = Vec::new();
    for (i, state) in STATES.iter().enumerate() {
        let v = &m.times[i];
        let Some(s) = summarize(v) else { continue };
        rec.metric(&format!("launch.{state}.p50"), s.p50, "ns");
        rec.metric(&format!("launch.{state}.min"), s.min, "ns");
        rec.metric(&format!("launch.{state}.max"), s.max, "ns");
        rec.metric(&format!("launch.{state}.mad"), s.mad, "ns");
        rows.push(vec![(*state).into(), v.len().into(), s.p50.into(), s.min.into(), s.max.into(), s.mad.into()]);
        rec.series.push(Series {
            name: format!("launch.{state}"),
            unit: "ns".into(),
            description: format!("launch time, {state}, in run order"),
            values: v.clone(),
        });
    }
    let (cold, warm, pre) = (p50(&m.times[0]), p50(&m.times[1]), p50(&m.times[2]));
    if cold > 0 && warm > 0 && pre > 0 {
        rec.metric("launch.prefetch_speedup", cold as f64 / pre as f64, "×");
        rec.metric("launch.warm_speedup", cold as f64 / warm as f64, "×");
        rec.metric("launch.prefetch_vs_warm", pre as f64 / warm as f64, "×");
        rec.paper.push(PaperRow {
            seed: "004".into(),
            figure: "Superfetch".into(),
            paper_setting: "Windows Embedded Standard 7, Superfetch prefetching what launches read".into(),
            paper_value: "about 2× faster application starts".into(),
            here_value: format!(
                "{}× faster than cold with the plan prefetched ({}× of warm; warm is {}× faster than cold)",
                sig(cold as f64 / pre as f64),
                sig(pre as f64 / warm as f64),
                sig(cold as f64 / warm as f64)
            ),
            note: "medians of interleaved launches; per-file eviction, never the whole cache".into(),
            judgement: latlab_model::verdict::Judgement::within_factor(
                cold as f64 / pre as f64,
                2.0,
                1.5,
                "the gain is what reading from storage costs a launch: the seed itself turns Superfetch off where random reads exceed about 8 Mb/s, and this machine's storage may be far faster than the disk it had in mind",
            )
            .of("speed-up with the plan prefetched"),
        });
    }
    let left = m.left_after_evict.iter().sum::<f64>() / m.left_after_evict.len().max(1) as f64;
    rec.metric("launch.cold.resident_after_evict", left, "ratio");
    if left > 0.05 {
        rec.warn(format!(
            "{:.0} % of the plan's files stayed in memory after each eviction (mapped by running programs): cold is partly warm",
            left * 100.0
        ));
    }
    if m.replay_skipped > 0 {
        rec.warn(format!(
            "{} file replays were skipped: the file is gone or changed size since the plan was learned (record it again)",
            m.replay_skipped
        ));
    }
    if cfg.whole {
        let whole = p50(&m.times[3]);
        if whole > 0 && pre > 0 {
            rec.metric("launch.whole_vs_plan", whole as f64 / pre as f64, "×");
        }
    }
    rec.config("whole_file_state", cfg.whole);
    rec.metric("plan.pages", plan.pages(), "pages");
    rec.metric("plan.whole_pages", plan.whole_pages(), "pages");
    rec.tables.push(Table {
        name: "launch".into(),
        title: "Launch time to readiness by state".into(),
        columns: vec![
            Column::new("state", ""),
            Column::new("runs", "count"),
            Column::new("median", "ns"),
            Column::new("min", "ns"),
            Column::new("max", "ns"),
            Column::new("MAD", "ns"),
        ],
        rows,
        plot: None,
    });
    let complete = m.times.iter().take(cfg.states().len()).all(|v| v.len() == cfg.runs);
    if let Some(f) = &m.failure {
        rec.warn(f.clone());
    }
    rec.finish(match (&m.failure, complete) {
        (Some(_), _) => RunStatus::Failed,
        (None, true) => RunStatus::Complete,
        (None, false) => RunStatus::Interrupted,
    });
    rec
}

/// The built-in launch: its data set written under `parent` (on a disk: refused on tmpfs),
/// removed when the returned fixture is dropped, and the command that launches `app` on it.
pub fn builtin_launch(
    app: &[String],
    parent: &std::path::Path,
    spec: crate::fixture::FixtureSpec,
) -> Result<(crate::fixture::Fixture, LaunchSpec), StartupError> {
    if !crate::pagecache::evictable(parent) {
        return Err(StartupError::InMemory(parent.display().to_string()));
    }
    let fx = crate::fixture::prepare(parent, spec)
        .doing(format!("writing the built-in launch's data under '{}'", parent.display()))?;
    let mut command = app.to_vec();
    command.push(fx.dir.display().to_string());
    let launch = LaunchSpec {
        command,
        ready: crate::launch::Ready::Exit,
        timeout: std::time::Duration::from_secs_f64(crate::defaults::TIMEOUT_S),
    };
    Ok((fx, launch))
}

/// The built-in file-heavy launch, learned and measured: writes the data set under `parent`,
/// launches `app` + its directory (the binary's hidden `startup fixture-app`), and returns
/// the record run and the measure run. The data set is removed afterwards.
pub fn builtin(
    app: &[String],
    parent: &std::path::Path,
    spec: crate::fixture::FixtureSpec,
    runs: usize,
    threads: usize,
    whole: bool,
    progress: &AtomicU64,
) -> Result<Vec<RunRecord>, StartupError> {
    use crate::learn::{RecordConfig, learn, record_run};
    let (fx, launch) = builtin_launch(app, parent, spec)?;
    let rcfg = RecordConfig { launch: launch.clone(), tracer: crate::trace::TracerChoice::Auto };
    let learned = learn(&rcfg)?;
    // Seed 004's "one time is enough": the same launch learned again.
    let again = learn(&rcfg)?;
    progress.fetch_add(1, Ordering::Relaxed);
    let mut rec = record_run(&rcfg, &learned);
    crate::learn::once_is_enough(&mut rec, &learned.plan, &again.plan, true);
    rec.config("builtin", describe_fixture(&spec));
    name_synthetic(&mut rec, "latlab's built-in synthetic application");
    let mcfg = MeasureConfig { launch, runs, threads, whole };
    let plan = Arc::new(learned.plan.clone());
    let m = measure(&mcfg, &plan, progress)?;
    let mut mrec = measure_run(&mcfg, &plan, &m);
    mrec.config("builtin", describe_fixture(&spec));
    name_synthetic(&mut mrec, "latlab's built-in synthetic application");
    drop(fx);
    Ok(vec![rec, mrec])
}

/// Say in every paper row's "here" that what was measured is latlab's own stand-in (`what`),
/// not an application or boot of the user's.
pub fn name_synthetic(rec: &mut RunRecord, what: &str) {
    for p in rec.paper.iter_mut() {
        p.here_value = format!("{what}: {}", p.here_value);
    }
}

/// One line on the built-in launch's shape.
pub fn describe_fixture(s: &crate::fixture::FixtureSpec) -> String {
    format!(
        "{} files of {} KiB; reads a {} KiB header and a {} KiB section of each, parsing every byte {} times",
        s.files, s.file_kib, s.header_kib, s.section_kib, s.passes
    )
}

/// Launches `builtin` reports through its progress counter.
pub fn builtin_steps(runs: usize, whole: bool) -> u64 {
    1 + measure_steps(runs, whole)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::Ready;
    use crate::plan::{PlanFile, SCHEMA};

    #[test]
    fn a_launch_that_fails_midway_keeps_the_rounds_before_it() {
        let dir = std::path::Path::new("/var/tmp");
        if !crate::pagecache::evictable(dir) {
            latlab_model::testing::skip("/var/tmp is in memory");
            return;
        }
        let data = dir.join(format!("latlab-measure-test-{}", std::process::id()));
        let count = dir.join(format!("latlab-measure-count-{}", std::process::id()));
        std::fs::write(&data, vec![3u8; 16 * 4096]).unwrap();
        // Succeeds three times (warm-up, cold, warm), then fails (the prefetch launch).
        let script = format!(
            "n=$(cat {c} 2>/dev/null || echo 0); echo $((n+1)) > {c}; cat {d} >/dev/null; [ $n -lt 3 ] || {{ echo disk full >&2; exit 9; }}",
            c = count.display(),
            d = data.display()
        );
        let cfg = MeasureConfig {
            launch: LaunchSpec {
                command: vec!["sh".into(), "-c".into(), script],
                ready: Ready::Exit,
                timeout: std::time::Duration::from_secs(20),
            },
            runs: 3,
            threads: 1,
            whole: false,
        };
        let plan = Arc::new(Plan {
            schema: SCHEMA.into(),
            command: vec![],
            page_size: crate::pagecache::page_size() as u64,
            files: vec![PlanFile { path: data.clone(), size: 16 * 4096, ranges: vec![(0, 16)] }],
        });
        let m = measure(&cfg, &plan, &AtomicU64::new(0)).unwrap();
        assert_eq!((m.times[0].len(), m.times[1].len(), m.times[2].len()), (1, 1, 0));
        let f = m.failure.clone().unwrap();
        assert!(f.contains("prefetch launch failed") && f.contains("disk full"), "{f}");
        let rec = measure_run(&cfg, &plan, &m);
        assert_eq!(rec.status, RunStatus::Failed);
        assert!(rec.warnings.iter().any(|w| w.contains("exit status: 9")), "{:?}", rec.warnings);
        assert!(rec.get_metric("launch.cold.p50").is_some(), "what was measured is kept");
        assert!(rec.get_metric("launch.prefetch_speedup").is_none(), "no speedup without a prefetch launch");
        std::fs::remove_file(&data).unwrap();
        std::fs::remove_file(&count).unwrap();
    }
}
