//! The HTML report: one self-contained file (inline CSS and SVG, no scripts, no network
//! fetches) rendered from a template compiled into the binary. This module turns run
//! records into a serializable context of preformatted strings and SVG plots; the template
//! holds no arithmetic. The first screen answers: the machine in one line, every paper row's
//! verdict, a headline per run; then each run opens with the figures that answer its study's
//! question (`figures.rs`), its tables, and its generic per-series plots folded away.

mod figures;
mod hosts;
pub mod plots;

use latlab_model::record::{RunRecord, fmt_ns, fmt_value};
use serde::Serialize;

const TEMPLATE: &str = include_str!("template.html");

/// A figure: a title, a caption saying what to read from it, and one or more charts (one per
/// unit). `id` is stable (`fig-001-8`) so a reader or a test can find it.
#[derive(Serialize, Clone)]
pub(crate) struct Plot {
    id: String,
    title: String,
    caption: String,
    charts: Vec<plots::Chart>,
}

impl Plot {
    fn one(title: impl Into<String>, chart: plots::Chart) -> Self {
        Plot { id: String::new(), title: title.into(), caption: String::new(), charts: vec![chart] }
    }
}

#[derive(Serialize)]
struct KeyVal {
    key: String,
    value: String,
}

#[derive(Serialize)]
struct MetricRow {
    name: String,
    value: String,
}

#[derive(Serialize)]
struct TableCtx {
    title: String,
    head: Vec<String>,
    rows: Vec<Vec<String>>,
}

#[derive(Serialize)]
struct PaperCtx {
    run: String,
    anchor: String,
    seed: String,
    study: &'static str,
    figure: String,
    setting: String,
    paper: String,
    here: String,
    verdict: String,
    verdict_key: latlab_model::verdict::Verdict,
    basis: String,
    note: String,
}

#[derive(Serialize)]
struct HeadlineCtx {
    anchor: String,
    title: String,
    status: String,
    figures: String,
}

#[derive(Serialize)]
struct RunCtx {
    anchor: String,
    experiment: String,
    kind: Option<String>,
    title: String,
    status: String,
    status_meaning: &'static str,
    facts: Vec<KeyVal>,
    capabilities: Vec<latlab_sys::platform::Capability>,
    warnings: Vec<String>,
    metrics: Vec<MetricRow>,
    tables: Vec<TableCtx>,
    figures: Vec<Plot>,
    plots: Vec<Plot>,
}

#[derive(Serialize)]
struct Ctx {
    generated: String,
    version: String,
    machine: String,
    headlines: Vec<HeadlineCtx>,
    runs: Vec<RunCtx>,
    paper: Vec<PaperCtx>,
    verdicts: String,
    studies: Vec<String>,
    hosts: Vec<hosts::HostsCtx>,
    hosts_note: String,
}

use latlab_model::verdict::study_name as study;

/// The machine in one line: host, CPU, kernel and preemption, clocksource, virtualization.
fn machine_line(runs: &[RunRecord]) -> String {
    let Some(r) = runs.iter().max_by_key(|r| r.started_at_ns) else { return String::new() };
    let m = &r.machine.info;
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "unknown".into());
    format!(
        "{} · {}{} × {} · Linux {} ({} preemption) · clocksource {} · {}",
        opt(&m.hostname),
        m.arch.as_deref().map(|a| format!("{a} · ")).unwrap_or_default(),
        m.cpus,
        opt(&m.cpu_model),
        opt(&m.kernel_release),
        opt(&m.preemption),
        opt(&m.clocksource),
        match m.virtualization.as_deref() {
            None | Some("none") => "bare metal".to_string(),
            Some(v) => format!("virtualized ({v})"),
        }
    )
}

fn when(ns: i64) -> String {
    latlab_model::record::fmt_unix_ns(ns)
}

fn run_title(r: &RunRecord) -> String {
    let mode = if r.mode().is_empty() { String::new() } else { format!(" {}", r.mode()) };
    format!("{}{mode} #{}", r.experiment, r.id.map(|i| i.to_string()).unwrap_or_else(|| "unsaved".into()))
}

fn run_ctx(r: &RunRecord, show_host: bool, study_figures: StudyFigures) -> RunCtx {
    let m = &r.machine.info;
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "unknown".into());
    let mut facts = vec![
        KeyVal { key: "started".into(), value: when(r.started_at_ns) },
        KeyVal { key: "duration".into(), value: fmt_ns(r.duration_ns() as f64) },
        KeyVal {
            key: "latlab".into(),
            value: format!("{} {}", r.latlab_version, r.git_commit.clone().unwrap_or_default()),
        },
        KeyVal { key: "host".into(), value: opt(&m.hostname) },
        KeyVal { key: "CPU".into(), value: format!("{} × {}", m.cpus, opt(&m.cpu_model)) },
        KeyVal {
            key: "kernel".into(),
            value: format!("{} (preemption: {})", opt(&m.kernel_release), opt(&m.preemption)),
        },
        KeyVal { key: "clocksource".into(), value: opt(&m.clocksource) },
        KeyVal { key: "governor".into(), value: opt(&m.governor) },
        KeyVal { key: "virtualization".into(), value: opt(&m.virtualization) },
        KeyVal {
            key: "RT throttling".into(),
            value: m.rt_throttling.map(|t| t.to_string()).unwrap_or_else(|| "unknown".into()),
        },
    ];
    let la = |s: &latlab_sys::machine::LoadSnapshot| {
        s.loadavg.map(|l| format!("{:.2} {:.2} {:.2}", l[0], l[1], l[2])).unwrap_or_else(|| "unknown".into())
    };
    facts.push(KeyVal {
        key: "load average before → after".into(),
        value: format!("{} → {}", la(&r.machine.before), r.machine.after.as_ref().map(la).unwrap_or_default()),
    });
    if let Some(f) = r.machine.steal_fraction() {
        facts.push(KeyVal { key: "steal during run".into(), value: format!("{:.2} %", f * 100.0) });
    }
    for (k, v) in &r.config {
        facts.push(KeyVal { key: format!("config: {k}"), value: v.to_string() });
    }
    let metrics =
        r.metrics.iter().map(|mt| MetricRow { name: mt.name.clone(), value: fmt_value(mt.value, &mt.unit) }).collect();
    let tables = r
        .tables
        .iter()
        .map(|t| {
            let (head, rows) = t.formatted();
            TableCtx { title: t.title.clone(), head, rows }
        })
        .collect();
    let mut plots = Vec::new();
    for t in &r.tables {
        for chart in plots::sweep(t) {
            plots.push(Plot::one(t.title.clone(), chart));
        }
    }
    // An A/B's arms (`X.baseline`, `X.remedy`) are one CDF overlay among the figures.
    let paired = figures::ab_pairs(r);
    for s in r.series.iter().filter(|s| !paired.contains(&s.name)) {
        for (kind, chart) in [
            ("histogram", plots::histogram(s, &marks(r, s))),
            ("CDF", plots::cdf(&[s])),
            ("time series", plots::time_series(s)),
        ] {
            if let Some(chart) = chart {
                plots.push(Plot::one(format!("{} — {kind}: {}", s.name, s.description), chart));
            }
        }
    }
    RunCtx {
        anchor: anchor(r),
        experiment: r.experiment.clone(),
        kind: Some(r.mode()).filter(|m| !m.is_empty()).map(str::to_string),
        title: if show_host {
            format!("{} on {}", run_title(r), crate::fleet::host_name(&r.machine))
        } else {
            run_title(r)
        },
        status: r.status.as_str().into(),
        status_meaning: r.status.meaning(),
        facts,
        capabilities: r.capabilities.clone(),
        warnings: r.warnings.clone(),
        metrics,
        tables,
        figures: figures::figures(r, study_figures).iter().filter_map(draw).collect(),
        plots,
    }
}

/// A figure drawn: each chart rendered (a chart without data draws nothing), `None` when no
/// chart could be drawn.
fn draw(f: &latlab_model::figure::Figure) -> Option<Plot> {
    use latlab_model::figure::Chart;
    let charts: Vec<plots::Chart> = f
        .charts
        .iter()
        .flat_map(|c| match c {
            Chart::Xy(x) => plots::xy(&thinned(x)).into_iter().collect(),
            Chart::Bars(b) => plots::bars(b).into_iter().collect(),
            Chart::Ranges(g) => plots::ranges(g).into_iter().collect(),
            Chart::Cdf(series) => plots::cdf(&series.iter().collect::<Vec<_>>()).into_iter().collect(),
            Chart::Gantt(t) => plots::gantt(t).into_iter().collect(),
            Chart::Sweep(t) => plots::sweep(t),
        })
        .collect::<Vec<_>>();
    (!charts.is_empty()).then(|| Plot { id: f.id.clone(), title: f.title.clone(), caption: f.caption.clone(), charts })
}

/// `x` with each curve thinned to at most [`REPORT_CURVE_POINTS`](crate::defaults::REPORT_CURVE_POINTS)
/// points (every k-th), so a long series draws as a readable, small SVG.
fn thinned(x: &latlab_model::figure::Xy) -> latlab_model::figure::Xy {
    let mut x = x.clone();
    for c in &mut x.curves {
        let step = c.pts.len().div_ceil(crate::defaults::REPORT_CURVE_POINTS).max(1);
        if step > 1 {
            c.pts = c.pts.iter().step_by(step).copied().collect();
        }
    }
    x
}

fn anchor(r: &RunRecord) -> String {
    format!("run-{}", r.id.unwrap_or(0))
}

/// A run's headline line: the headline figures it has, else what its paper rows say.
fn headline(r: &RunRecord, headlines: &[(&str, &str)]) -> String {
    let figs = r.headline_figures(headlines);
    if !figs.is_empty() {
        figs.join(" · ")
    } else if !r.paper.is_empty() {
        latlab_model::verdict::tally(&r.paper)
    } else {
        format!("{} metrics, {} series", r.metrics.len(), r.series.len())
    }
}

/// What the run found in a series' distribution, to mark on its histogram: the modes
/// (`<series>.mode<N>.centre` with `.share`) and the back wall (`<series>.back_wall`).
fn marks(r: &RunRecord, s: &latlab_model::record::Series) -> Vec<(f64, String)> {
    let mut out = Vec::new();
    for i in 1.. {
        let Some(c) = r.get_metric(&format!("{}.mode{i}.centre", s.name)) else { break };
        let share = r.get_metric(&format!("{}.mode{i}.share", s.name)).map_or(0.0, |m| m.value.as_f64());
        let v = c.value.as_f64();
        out.push((v, format!("mode {i}: {} ({:.0} %)", latlab_model::record::fmt_ns(v), share * 100.0)));
    }
    if let Some(w) = r.get_metric(&format!("{}.back_wall", s.name)) {
        let v = w.value.as_f64();
        out.push((v, format!("back wall (p99.9): {}", latlab_model::record::fmt_ns(v))));
    }
    out
}

/// The figures a run's experiment declares for its study (`Experiment::figures`), looked up by
/// the caller, who knows the experiments.
pub type StudyFigures<'a> = &'a dyn Fn(&RunRecord) -> Vec<latlab_model::figure::Figure>;

/// Render runs into one self-contained HTML document, with no headline figures per run and no
/// study figures (the generic plots only).
pub fn render(runs: &[RunRecord]) -> Result<String, minijinja::Error> {
    render_with(runs, &[], &|_| Vec::new())
}

/// Render runs into one self-contained HTML document; `headlines` (metric name, label) are
/// the experiments' headline figures: each run's line on the first screen shows those it has;
/// `study_figures` gives each run's study figures, which open its section.
///
/// Runs of several hosts (`latlab import`) are compared host by host first; the runs of at
/// most [`REPORT_DETAIL_HOSTS`](crate::defaults::REPORT_DETAIL_HOSTS) hosts are then drawn in
/// full, so a fleet's report stays readable and small.
pub fn render_with(
    runs: &[RunRecord],
    headlines: &[(&str, &str)],
    study_figures: StudyFigures,
) -> Result<String, minijinja::Error> {
    let mut env = minijinja::Environment::new();
    env.add_template("report.html", TEMPLATE)?;
    let all = runs;
    let n_hosts = hosts::host_count(all);
    let host_sections = if n_hosts > 1 { hosts::compare(all) } else { Vec::new() };
    let detailed: Vec<RunRecord>;
    let mut hosts_note = String::new();
    let runs: &[RunRecord] = if n_hosts > crate::defaults::REPORT_DETAIL_HOSTS {
        let mut names: Vec<String> = all.iter().map(|r| crate::fleet::host_key(&r.machine)).collect();
        names.sort_by_key(|k| {
            all.iter().find(|r| crate::fleet::host_key(&r.machine) == *k).map(|r| crate::fleet::host_name(&r.machine))
        });
        names.dedup();
        let keep: std::collections::BTreeSet<String> =
            names.into_iter().take(crate::defaults::REPORT_DETAIL_HOSTS).collect();
        detailed = all.iter().filter(|r| keep.contains(&crate::fleet::host_key(&r.machine))).cloned().collect();
        hosts_note = format!(
            "Runs of {n_hosts} hosts: the comparison below covers them all; the runs of the first {} hosts (by name) are drawn in full after it, and `latlab report RUN` draws any other.",
            crate::defaults::REPORT_DETAIL_HOSTS
        );
        &detailed
    } else {
        if n_hosts > 1 {
            hosts_note = format!("Runs of {n_hosts} hosts, compared below and each drawn in full after.");
        }
        all
    };
    let paper = runs
        .iter()
        .flat_map(|r| {
            r.paper.iter().map(move |p| PaperCtx {
                run: run_title(r),
                anchor: anchor(r),
                seed: p.seed.clone(),
                study: study(&p.seed),
                figure: p.figure.clone(),
                setting: p.paper_setting.clone(),
                paper: p.paper_value.clone(),
                here: p.here_value.clone(),
                verdict: p.judgement.label().into(),
                verdict_key: p.judgement.verdict,
                basis: p.judgement.basis.clone(),
                note: p.note.clone(),
            })
        })
        .collect();
    let verdicts = latlab_model::verdict::tally(runs.iter().flat_map(|r| r.paper.iter()));
    let studies = latlab_model::verdict::study_lines(runs.iter().flat_map(|r| r.paper.iter()));
    let headline_rows = runs
        .iter()
        .map(|r| HeadlineCtx {
            anchor: anchor(r),
            title: if n_hosts > 1 {
                format!("{} on {}", run_title(r), crate::fleet::host_name(&r.machine))
            } else {
                run_title(r)
            },
            status: r.status.as_str().into(),
            figures: headline(r, headlines),
        })
        .collect();
    let ctx = Ctx {
        generated: when(latlab_sys::clock::unix_now_ns()),
        version: latlab_model::VERSION.into(),
        machine: machine_line(runs),
        headlines: headline_rows,
        runs: runs.iter().map(|r| run_ctx(r, n_hosts > 1, study_figures)).collect(),
        paper,
        verdicts,
        studies,
        hosts: host_sections,
        hosts_note,
    };
    env.get_template("report.html")?.render(minijinja::value::Serde(&ctx))
}

#[cfg(test)]
mod tests;
