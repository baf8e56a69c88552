//! The HTML report: one self-contained file (inline CSS and SVG, no scripts, no network
//! fetches) rendered from a template compiled into the binary. This module turns run
//! records into a serializable context of preformatted strings and SVG plots; the template
//! holds no arithmetic.

mod hosts;
pub mod plots;

use crate::record::{RunRecord, fmt_ns, fmt_value};
use serde::Serialize;

const TEMPLATE: &str = include_str!("template.html");

#[derive(Serialize)]
struct Plot {
    title: String,
    svg: String,
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
    unit: String,
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
    seed: String,
    figure: String,
    setting: String,
    paper: String,
    here: String,
    verdict: String,
    verdict_key: crate::verdict::Verdict,
    basis: String,
    note: String,
}

#[derive(Serialize)]
struct RunCtx {
    anchor: String,
    title: String,
    status: String,
    status_meaning: &'static str,
    facts: Vec<KeyVal>,
    capabilities: Vec<crate::platform::Capability>,
    warnings: Vec<String>,
    metrics: Vec<MetricRow>,
    tables: Vec<TableCtx>,
    plots: Vec<Plot>,
}

#[derive(Serialize)]
struct Ctx {
    generated: String,
    version: String,
    runs: Vec<RunCtx>,
    paper: Vec<PaperCtx>,
    verdicts: String,
    hosts: Vec<hosts::HostsCtx>,
    hosts_note: String,
}

fn strip_xml_decl(svg: String) -> String {
    match svg.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map(|(_, r)| r.trim_start().to_string()).unwrap_or_default(),
        None => svg,
    }
}

fn when(ns: i64) -> String {
    crate::record::fmt_unix_ns(ns)
}

fn run_title(r: &RunRecord) -> String {
    format!("{} #{}", r.experiment, r.id.map(|i| i.to_string()).unwrap_or_else(|| "unsaved".into()))
}

/// A table cell for people: units applied, floats rounded, missing values as a dash.
fn cell(v: &serde_json::Value, unit: &str) -> String {
    use crate::record::Value;
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "—".into(),
        serde_json::Value::Number(n) => {
            let value = n.as_i64().map(Value::Int).unwrap_or_else(|| Value::Float(n.as_f64().unwrap_or(0.0)));
            match unit {
                "ns" => fmt_ns(value.as_f64()),
                "" | "count" => match value {
                    Value::Int(i) => i.to_string(),
                    Value::Float(f) if f.fract() == 0.0 => format!("{f:.0}"),
                    Value::Float(f) => format!("{f:.4}"),
                },
                u => fmt_value(value, u),
            }
        }
        other => other.to_string(),
    }
}

fn run_ctx(r: &RunRecord, show_host: bool) -> RunCtx {
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
    let la = |s: &crate::machine::LoadSnapshot| {
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
    let metrics = r
        .metrics
        .iter()
        .map(|mt| MetricRow { name: mt.name.clone(), value: fmt_value(mt.value, &mt.unit), unit: mt.unit.clone() })
        .collect();
    let tables = r
        .tables
        .iter()
        .map(|t| TableCtx {
            title: t.title.clone(),
            head: t
                .columns
                .iter()
                .map(|c| if c.unit.is_empty() { c.name.clone() } else { format!("{} ({})", c.name, c.unit) })
                .collect(),
            rows: t
                .rows
                .iter()
                .map(|row| {
                    row.iter()
                        .enumerate()
                        .map(|(i, v)| cell(v, t.columns.get(i).map(|c| c.unit.as_str()).unwrap_or("")))
                        .collect()
                })
                .collect(),
        })
        .collect();
    let mut plots = Vec::new();
    for t in &r.tables {
        if let Some(svg) = plots::sweep(t) {
            plots.push(Plot { title: t.title.clone(), svg: strip_xml_decl(svg) });
        }
        if let Some(svg) = plots::gantt(t) {
            plots.push(Plot { title: format!("{} — Gantt chart", t.name), svg: strip_xml_decl(svg) });
        }
    }
    // An A/B's arms (`X.baseline`, `X.remedy`): one CDF overlay with the verdict.
    let arm = |s: &crate::record::Series, suffix: &str| s.name.strip_suffix(suffix).map(str::to_string);
    let mut paired = std::collections::BTreeSet::new();
    for a in &r.series {
        let Some(base) = arm(a, ".baseline") else { continue };
        let Some(b) = r.get_series(&format!("{base}.remedy")) else { continue };
        let verdict = r.config.get(&format!("effect.{base}")).and_then(|v| v.as_str()).unwrap_or("not judged");
        if let Some(svg) = plots::cdf(&[a, b]) {
            plots.push(Plot {
                title: format!("{base} — baseline vs remedy (CDF): {verdict}"),
                svg: strip_xml_decl(svg),
            });
        }
        paired.insert(a.name.clone());
        paired.insert(b.name.clone());
    }
    for s in r.series.iter().filter(|s| !paired.contains(&s.name)) {
        for (kind, svg) in [
            ("histogram", plots::histogram(s, &marks(r, s))),
            ("CDF", plots::cdf(&[s])),
            ("time series", plots::time_series(s)),
        ] {
            if let Some(svg) = svg {
                plots.push(Plot {
                    title: format!("{} — {kind}: {}", s.name, s.description), svg: strip_xml_decl(svg)
                });
            }
        }
    }
    RunCtx {
        anchor: format!("run-{}", r.id.unwrap_or(0)),
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
        plots,
    }
}

/// What the run found in a series' distribution, to mark on its histogram: the modes
/// (`<series>.mode<N>.centre` with `.share`) and the back wall (`<series>.back_wall`).
fn marks(r: &RunRecord, s: &crate::record::Series) -> Vec<(f64, String)> {
    let mut out = Vec::new();
    for i in 1.. {
        let Some(c) = r.get_metric(&format!("{}.mode{i}.centre", s.name)) else { break };
        let share = r.get_metric(&format!("{}.mode{i}.share", s.name)).map_or(0.0, |m| m.value.as_f64());
        let v = c.value.as_f64();
        out.push((v, format!("mode {i}: {} ({:.0} %)", crate::record::fmt_ns(v), share * 100.0)));
    }
    if let Some(w) = r.get_metric(&format!("{}.back_wall", s.name)) {
        let v = w.value.as_f64();
        out.push((v, format!("back wall (p99.9): {}", crate::record::fmt_ns(v))));
    }
    out
}

/// Render runs into one self-contained HTML document.
///
/// Runs of several hosts (`latlab import`) are compared host by host first; the runs of at
/// most [`REPORT_DETAIL_HOSTS`](crate::defaults::REPORT_DETAIL_HOSTS) hosts are then drawn in
/// full, so a fleet's report stays readable and small.
pub fn render(runs: &[RunRecord]) -> Result<String, minijinja::Error> {
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
                seed: p.seed.clone(),
                figure: p.figure.clone(),
                setting: p.paper_setting.clone(),
                paper: p.paper_value.clone(),
                here: p.here_value.clone(),
                verdict: p.judgement.verdict.as_str().into(),
                verdict_key: p.judgement.verdict,
                basis: p.judgement.basis.clone(),
                note: p.note.clone(),
            })
        })
        .collect();
    let verdicts = crate::verdict::tally(runs.iter().flat_map(|r| r.paper.iter()));
    let ctx = Ctx {
        generated: when(crate::clock::unix_now_ns()),
        version: crate::VERSION.into(),
        runs: runs.iter().map(|r| run_ctx(r, n_hosts > 1)).collect(),
        paper,
        verdicts,
        hosts: host_sections,
        hosts_note,
    };
    env.get_template("report.html")?.render(minijinja::value::Serde(&ctx))
}

#[cfg(test)]
mod tests;
