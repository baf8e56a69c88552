//! The report's comparison of hosts (runs imported from several machines by `latlab import`):
//! per experiment, one row per host with its latency summary and its paper rows' figures,
//! the paper's own figure in a row above them, and the hosts' distributions overlaid.

use super::{Plot, TableCtx, plots};
use crate::defaults::REPORT_OVERLAY_HOSTS;
use crate::fleet::{host_key, host_name};
use latlab_model::record::{RunRecord, Series};
use latlab_model::stats;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One experiment across hosts.
#[derive(Serialize)]
pub(super) struct HostsCtx {
    pub experiment: String,
    pub hosts: usize,
    pub table: TableCtx,
    pub plots: Vec<Plot>,
    pub note: String,
}

/// How many hosts the runs come from.
pub(super) fn host_count(runs: &[RunRecord]) -> usize {
    runs.iter().map(|r| host_key(&r.machine)).collect::<BTreeSet<_>>().len()
}

/// The series a run is compared by: the one the run's headlines are about (the first stored).
fn main_series(r: &RunRecord) -> Option<&Series> {
    r.series.iter().find(|s| !s.values.is_empty())
}

/// The comparison for every experiment (and mode) measured on at least two hosts.
pub(super) fn compare(runs: &[RunRecord]) -> Vec<HostsCtx> {
    // Each experiment and mode apart (`display ops` and `display cache` compare their own).
    let mut by_exp: BTreeMap<String, Vec<&RunRecord>> = BTreeMap::new();
    for r in runs {
        let key = if r.mode().is_empty() { r.experiment.clone() } else { format!("{} {}", r.experiment, r.mode()) };
        by_exp.entry(key).or_default().push(r);
    }
    let mut out = Vec::new();
    for (exp, mut rs) in by_exp {
        // The newest run of each host.
        rs.sort_by_key(|r| std::cmp::Reverse(r.id.unwrap_or(0)));
        let mut seen = BTreeSet::new();
        rs.retain(|r| seen.insert(host_key(&r.machine)));
        if rs.len() < 2 {
            continue;
        }
        rs.sort_by_key(|r| host_name(&r.machine));
        out.push(one(&exp, &rs));
    }
    out
}

fn one(exp: &str, rs: &[&RunRecord]) -> HostsCtx {
    // The paper rows' figures, in the order the runs first give them.
    let mut figures: Vec<(String, String)> = Vec::new(); // (figure, paper value with its setting)
    for r in rs {
        for p in &r.paper {
            if !figures.iter().any(|(f, _)| *f == p.figure) {
                figures.push((p.figure.clone(), format!("{} ({})", p.paper_value, p.paper_setting)));
            }
        }
    }
    let unit = rs.iter().find_map(|r| main_series(r)).map(|s| s.unit.clone()).unwrap_or_default();
    let series_name = rs.iter().find_map(|r| main_series(r)).map(|s| s.name.clone()).unwrap_or_default();
    // One unit for the series' columns, in their headers: chosen from every host's figures.
    let sums: Vec<Option<stats::Summary>> =
        rs.iter().map(|r| r.get_series(&series_name).and_then(|s| stats::summarize(&s.values))).collect();
    let col = latlab_model::numfmt::ColumnFormat::new(
        &unit,
        sums.iter().flatten().flat_map(|s| [s.p50 as f64, s.p99 as f64, s.max as f64]),
    );
    let mut head = vec!["host".to_string(), "run".into(), "status".into(), "CPU".into(), "kernel".into()];
    if !series_name.is_empty() {
        head.push(format!("{series_name} samples"));
        for q in ["p50", "p99", "max"] {
            head.push(col.header(&format!("{series_name} {q}")));
        }
    }
    head.extend(figures.iter().map(|(f, _)| format!("{f} (here)")));
    let mut rows = Vec::new();
    if !figures.is_empty() {
        let mut paper = vec!["paper".to_string(), String::new(), String::new(), String::new(), String::new()];
        if !series_name.is_empty() {
            paper.extend(std::iter::repeat_n(String::new(), 4));
        }
        paper.extend(figures.iter().map(|(_, v)| v.clone()));
        rows.push(paper);
    }
    let mut ranked: Vec<(i64, &RunRecord)> = Vec::new();
    for (r, sum) in rs.iter().zip(&sums) {
        let m = &r.machine.info;
        let mut row = vec![
            host_name(&r.machine),
            format!("#{}", r.id.unwrap_or(0)),
            r.status.as_str().to_string(),
            format!("{} × {}", m.cpus, m.cpu_model.clone().unwrap_or_else(|| "unknown".into())),
            format!("{} ({})", m.kernel_release.clone().unwrap_or_default(), m.preemption.clone().unwrap_or_default()),
        ];
        if !series_name.is_empty() {
            match sum {
                Some(sum) => {
                    row.push(sum.count.to_string());
                    for v in [sum.p50, sum.p99, sum.max] {
                        row.push(col.cell(&serde_json::json!(v)));
                    }
                    ranked.push((sum.p99, r));
                }
                None => row.extend(std::iter::repeat_n("—".to_string(), 4)),
            }
        }
        for (f, _) in &figures {
            row.push(
                r.paper.iter().find(|p| p.figure == *f).map(|p| p.here_value.clone()).unwrap_or_else(|| "—".into()),
            );
        }
        rows.push(row);
    }
    // Overlay: at most REPORT_OVERLAY_HOSTS, spread over the p99 ranking, best and worst kept.
    ranked.sort_by_key(|(p99, _)| *p99);
    let picked: Vec<&RunRecord> = spread(&ranked, REPORT_OVERLAY_HOSTS).into_iter().map(|(_, r)| r).collect();
    let mut plots = Vec::new();
    let named: Vec<Series> = picked
        .iter()
        .filter_map(|r| r.get_series(&series_name).map(|s| Series { name: host_name(&r.machine), ..s.clone() }))
        .collect();
    if named.len() >= 2
        && let Some(chart) = plots::cdf(&named.iter().collect::<Vec<_>>())
    {
        plots.push(Plot::one(format!("{exp}: {series_name} on {} hosts (CDF)", named.len()), chart));
    }
    let note = if ranked.len() > picked.len() {
        format!(
            "The plot overlays {} of the {} hosts, spread over their p99 ranking from best to worst.",
            picked.len(),
            ranked.len()
        )
    } else {
        String::new()
    };
    HostsCtx {
        experiment: exp.to_string(),
        hosts: rs.len(),
        table: TableCtx { title: format!("{exp} on {} hosts", rs.len()), head, rows },
        plots,
        note,
    }
}

/// At most `n` items of `sorted`, evenly spread, first and last included.
fn spread<T: Copy>(sorted: &[T], n: usize) -> Vec<T> {
    if sorted.len() <= n || n < 2 {
        return sorted.iter().take(n.max(sorted.len().min(n))).copied().collect();
    }
    (0..n).map(|i| sorted[i * (sorted.len() - 1) / (n - 1)]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_keeps_the_ends_and_never_repeats() {
        let v: Vec<usize> = (0..1000).collect();
        let s = spread(&v, 6);
        assert_eq!(s.first(), Some(&0));
        assert_eq!(s.last(), Some(&999));
        assert_eq!(s.len(), 6);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(spread(&v[..3], 6), vec![0, 1, 2]);
    }
}
