//! `latlab startup record`: learn a launch plan. A traced launch says which files the launch
//! opens and in what order; then those files are evicted, the command is launched again
//! untraced, and `mincore` says which page ranges of each it read (the kernel's readahead
//! included, as a prefetcher would read them too).

use crate::launch::{LaunchError, LaunchSpec, launch};
use crate::pagecache;
use crate::plan::{self, Plan};
use crate::trace::{FanotifyTrace, Refused, TracerChoice, ptrace_supported};
use latlab_model::record::{Column, RunRecord, RunStatus, Table};
use latlab_sys::ioerr::{Doing, IoFailed};
use latlab_sys::record::Finish;
use std::path::PathBuf;
use std::time::Instant;

/// Why a startup experiment could not run.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// A launch failed.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// No tracer may run here.
    #[error("{0}")]
    Refused(#[from] Refused),
    /// A file operation failed.
    #[error(transparent)]
    Io(#[from] IoFailed),
    /// The built-in launch's data would be in memory, where cold means nothing.
    #[error(
        "'{0}' is on an in-memory filesystem (tmpfs): its pages cannot be evicted, so there is no cold launch to measure"
    )]
    InMemory(String),
    /// The preload library or its memory pressure failed.
    #[error("preload: {0}")]
    Preload(String),
    /// A setting out of range.
    #[error(transparent)]
    Config(#[from] latlab_model::ConfigError),
    /// The machine would not do what the run needs (a cgroup, a throttle, a swap file).
    #[error(transparent)]
    System(#[from] latlab_sys::SysError),
    /// A step failed, with what it was doing.
    #[error("{what}")]
    Failed {
        /// What was being done.
        what: String,
        /// Why.
        #[source]
        source: Option<latlab_model::error::BoxError>,
    },
    /// What the run needs is not here (a block device, a stored run of the right kind).
    #[error("{0}")]
    Needs(String),
    /// The launch read nothing a plan could hold.
    #[error(
        "the launch opened no file on a disk-backed filesystem ({opened} opened, all in memory or gone): there is nothing to prefetch"
    )]
    NothingToPlan {
        /// Files opened.
        opened: usize,
    },
}

impl StartupError {
    /// Doing `what` failed with `e`.
    pub fn failed(what: impl Into<String>, e: impl Into<latlab_model::error::BoxError>) -> Self {
        StartupError::Failed { what: what.into(), source: Some(e.into()) }
    }
}

/// How to learn a plan.
#[derive(Debug, Clone)]
pub struct RecordConfig {
    /// The launch.
    pub launch: LaunchSpec,
    /// Which tracer.
    pub tracer: TracerChoice,
}

/// A learned plan and how it was learned.
#[derive(Debug, Clone)]
pub struct Learned {
    /// The plan.
    pub plan: Plan,
    /// The tracer used.
    pub tracer: &'static str,
    /// Why fanotify was not used, when it was not.
    pub refusal: Option<String>,
    /// Regular files the launch opened.
    pub opened: usize,
    /// Files left out of the plan, with why.
    pub skipped: Vec<(PathBuf, String)>,
    /// The traced launch's time, ns (tracing slows it; not a launch time to quote).
    pub traced_ns: u64,
    /// The untraced launch from evicted files, ns.
    pub cold_ns: u64,
    /// Pages of the candidate files still resident right after eviction (mapped by running
    /// processes, which `DONTNEED` cannot drop).
    pub pinned_pages: u64,
    /// Files whose residency the kernel hides from this user: planned whole.
    pub hidden: Vec<PathBuf>,
    /// The run record, begun (clock and machine snapshot) before the first launch.
    pub begun: RunRecord,
}

/// Learn the plan of `cfg.launch`.
pub fn learn(cfg: &RecordConfig) -> Result<Learned, StartupError> {
    let begun = latlab_sys::record::begin("startup");
    let (opened, tracer, refusal, traced_ns) = traced_launch(cfg)?;
    let n_opened = opened.len();
    let mut skipped = Vec::new();
    let mut candidates = Vec::new();
    for p in opened {
        if pagecache::evictable(&p) {
            candidates.push(p);
        } else {
            skipped.push((p, "on an in-memory filesystem (tmpfs/ramfs): always resident".to_string()));
        }
    }
    if candidates.is_empty() {
        return Err(StartupError::NothingToPlan { opened: n_opened });
    }
    let pinned_pages = evict_all(&candidates);
    let cold = launch(&cfg.launch, Instant::now(), false)?;
    let refs: Vec<&std::path::Path> = candidates.iter().map(|p| p.as_path()).collect();
    let hidden: Vec<PathBuf> = candidates.iter().filter(|p| pagecache::residency_hidden(p)).cloned().collect();
    let plan = plan::from_residency(cfg.launch.command.clone(), &refs).doing("reading the files' residency")?;
    for p in &candidates {
        if !plan.files.iter().any(|f| &f.path == p) {
            skipped.push((p.clone(), "opened but none of its pages read".into()));
        }
    }
    Ok(Learned {
        plan,
        tracer,
        refusal,
        opened: n_opened,
        skipped,
        traced_ns,
        cold_ns: cold.ready_ns,
        pinned_pages,
        hidden,
        begun,
    })
}

/// Evict every file; returns the pages seen to stay resident (files whose residency is
/// hidden from this user are not counted: the kernel calls all their pages resident).
pub fn evict_all(files: &[PathBuf]) -> u64 {
    let mut left = 0;
    for p in files {
        let _ = pagecache::evict(p);
        if !pagecache::residency_hidden(p) {
            left += pagecache::residency(p).map_or(0, |r| r.resident);
        }
    }
    left
}

type Traced = (Vec<PathBuf>, &'static str, Option<String>, u64);

/// The traced launch: fanotify if chosen or permitted, else ptrace.
fn traced_launch(cfg: &RecordConfig) -> Result<Traced, StartupError> {
    let fan = match cfg.tracer {
        TracerChoice::Ptrace => None,
        TracerChoice::Fanotify => Some(FanotifyTrace::start()?),
        TracerChoice::Auto => match FanotifyTrace::start() {
            Ok(t) => Some(t),
            Err(r) => {
                ptrace_supported()?;
                let t0 = Instant::now();
                let l = launch(&cfg.launch, t0, true)?;
                return Ok((l.opened, "ptrace", Some(r.to_string()), l.ready_ns));
            }
        },
    };
    match fan {
        Some(t) => {
            let l = launch(&cfg.launch, Instant::now(), false);
            let opened = t.finish();
            let l = l?;
            Ok((opened, "fanotify", None, l.ready_ns))
        }
        None => {
            ptrace_supported()?;
            let l = launch(&cfg.launch, Instant::now(), true)?;
            Ok((l.opened, "ptrace", None, l.ready_ns))
        }
    }
}

/// The stored run of `startup record`; the plan itself goes in the record's configuration
/// (`config.plan`), so `startup measure --plan-run ID` can read it back.
pub fn record_run(cfg: &RecordConfig, l: &Learned) -> RunRecord {
    let mut rec = l.begun.clone();
    rec.mode = "record".into();
    rec.config("command", &cfg.launch.command);
    rec.config("ready", cfg.launch.ready.describe());
    rec.config("tracer", l.tracer);
    if let Some(r) = &l.refusal {
        rec.config("tracer_refused", r);
        rec.warn(format!("{r}; the ptrace tracer was used instead"));
    }
    rec.config("plan", &l.plan);
    let p = &l.plan;
    rec.metric("plan.files", p.files.len() as u64, "count");
    rec.metric("plan.opened", l.opened as u64, "count");
    rec.metric("plan.pages", p.pages(), "pages");
    rec.metric("plan.whole_pages", p.whole_pages(), "pages");
    rec.metric("plan.bytes", p.pages() * p.page_size, "bytes");
    rec.metric("plan.fraction_of_whole", p.pages() as f64 / p.whole_pages().max(1) as f64, "ratio");
    rec.metric("plan.pinned_pages", l.pinned_pages, "pages");
    rec.metric("plan.hidden_files", l.hidden.len() as u64, "count");
    if !l.hidden.is_empty() {
        rec.warn(format!(
            "{} files' page-cache residency is hidden from this user (the kernel shows it only to root, the file's owner or a user who may write it), so they are planned whole, e.g. {}: record as root for their page ranges",
            l.hidden.len(),
            l.hidden[0].display()
        ));
    }
    rec.metric("launch.traced", l.traced_ns, "ns");
    rec.metric("launch.learn_cold", l.cold_ns, "ns");
    if l.pinned_pages > 0 {
        rec.warn(format!(
            "{} pages of the plan's files stayed in memory after eviction (mapped by running programs, e.g. shared libraries): cold launches read them from memory",
            l.pinned_pages
        ));
    }
    rec.tables.push(Table {
        name: "plan".into(),
        title: "The launch plan: files in the order first opened, and the pages read of each".into(),
        columns: vec![
            Column::new("file", ""),
            Column::new("size", "bytes"),
            Column::new("ranges", "count"),
            Column::new("pages read", "pages"),
            Column::new("whole file", "pages"),
        ],
        rows: p
            .files
            .iter()
            .map(|f| {
                serde_json::json!([
                    f.path.display().to_string(),
                    f.size,
                    f.ranges.len(),
                    f.ranges.iter().map(|r| r.1).sum::<u64>(),
                    f.size.div_ceil(p.page_size.max(1))
                ])
                .as_array()
                .cloned()
                .unwrap_or_default()
            })
            .collect(),
        plot: None,
    });
    if !l.skipped.is_empty() {
        rec.tables.push(Table {
            name: "skipped".into(),
            title: "Files the launch opened that the plan leaves out".into(),
            columns: vec![Column::new("file", ""), Column::new("why", "")],
            rows: l.skipped.iter().map(|(p, w)| vec![p.display().to_string().into(), w.clone().into()]).collect(),
            plot: None,
        });
    }
    rec.finish(RunStatus::Complete);
    rec
}

/// Seed 004: "You only have to execute each process one time as the plan does not change over
/// time unless the files being accessed to start the process change". `again` is a second
/// learning run of the same launch; `fixed_files` says the launch is latlab's built-in one,
/// whose files are fixed by design, so only the pages (which the kernel's readahead decides)
/// are judged.
pub fn once_is_enough(rec: &mut RunRecord, first: &crate::plan::Plan, again: &crate::plan::Plan, fixed_files: bool) {
    let a = first.agreement(again);
    let share = a.page_share();
    rec.metric("plan.relearn.files_both", a.files_both as u64, "count");
    rec.metric("plan.relearn.files_either", a.files_either as u64, "count");
    rec.metric("plan.relearn.page_share", share, "ratio");
    let want = crate::defaults::RELEARN_PAGE_SHARE;
    let pages = latlab_model::verdict::Judgement::finding(
        share >= want,
        &format!(
            "a second learning run plans the same pages (held to ≥ {} % of the pages in either plan)",
            want * 100.0
        ),
        &format!("{:.1} %", share * 100.0),
        "the launch reads different pages from one cold run to the next (its files changed, or the kernel's readahead moved)",
    );
    let judgement = if fixed_files {
        pages
    } else {
        latlab_model::verdict::Judgement::all(vec![
            latlab_model::verdict::Judgement::finding(
                a.files_both == a.files_either,
                "the same files",
                &format!("{} of {} in both", a.files_both, a.files_either),
                "the launch opens different files from one run to the next",
            ),
            pages,
        ])
    };
    rec.paper.push(latlab_model::record::PaperRow {
        seed: "004".into(),
        figure: "Superfetch and processes: one run learns the plan".into(),
        paper_setting: "Windows Embedded Standard 7, Superfetch's launch plans (up to 123 processes)".into(),
        paper_value: "\"You only have to execute each process one time as the plan does not change over time\"".into(),
        here_value: format!(
            "a second learning run: {} of {} files and {:.1} % of the pages in both plans",
            a.files_both,
            a.files_either,
            share * 100.0
        ),
        note: format!(
            "two traced launches, each then launched from evicted files, its plan the pages left resident (plan.relearn.*){}",
            if fixed_files {
                "; latlab's built-in launch opens a fixed set of files, so only the pages are judged"
            } else {
                ""
            }
        ),
        judgement,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Plan, PlanFile, SCHEMA};
    use latlab_model::verdict::Verdict;

    fn plan(ranges: &[(u64, u64)], extra: bool) -> Plan {
        let mut files = vec![PlanFile { path: "/a".into(), size: 1 << 20, ranges: ranges.to_vec() }];
        if extra {
            files.push(PlanFile { path: "/b".into(), size: 4096, ranges: vec![(0, 1)] });
        }
        Plan { schema: SCHEMA.into(), command: vec!["/app".into()], page_size: 4096, files }
    }

    #[test]
    fn one_learning_run_is_enough_when_the_second_plans_the_same() {
        let verdict = |a: &Plan, b: &Plan, fixed: bool| {
            let mut rec = latlab_sys::record::begin("startup");
            once_is_enough(&mut rec, a, b, fixed);
            (rec.paper[0].judgement.verdict, rec.get_metric("plan.relearn.page_share").unwrap().value.as_f64())
        };
        let a = plan(&[(0, 100)], false);
        assert_eq!(verdict(&a, &a, false), (Verdict::Reproduced, 1.0));
        // 97 of 100 pages: within 95 %.
        assert_eq!(verdict(&a, &plan(&[(0, 97)], false), false).0, Verdict::Reproduced);
        // 90 of 100: the plan moved.
        assert_eq!(verdict(&a, &plan(&[(10, 90)], false), false), (Verdict::Differs, 0.9));
        // A file of its own (1 page of 101): the pages hold, the files do not, unless the
        // launch's files are latlab's by design.
        let b = plan(&[(0, 100)], true);
        assert_eq!(verdict(&a, &b, false).0, Verdict::Differs);
        assert_eq!(verdict(&a, &b, true).0, Verdict::Reproduced);
    }
}
