//! `latlab compare A B`: for every series both runs share, the difference of medians and of
//! p99 (B − A) with a 95 % bootstrap confidence interval; for every other shared metric, the
//! plain difference. Works from stored data only.

use crate::defaults::{BOOTSTRAP_MAX_N, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED};
use latlab_model::record::{RunRecord, Value, fmt_value};
use latlab_model::stats::{self, bootstrap::percentile_diff_ci};
#[cfg(test)]
use latlab_sys::record::Finish;
use serde::Serialize;

/// One compared series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeriesDiff {
    /// Series name.
    pub name: String,
    /// Unit.
    pub unit: String,
    /// Median of A and of B.
    pub p50: (i64, i64),
    /// p99 of A and of B.
    pub p99: (i64, i64),
    /// Median difference B − A and its 95 % interval.
    pub p50_diff: (f64, f64, f64),
    /// p99 difference B − A and its 95 % interval.
    pub p99_diff: (f64, f64, f64),
    /// True if neither interval contains 0.
    pub significant: bool,
}

/// One compared scalar metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricDiff {
    /// Metric name.
    pub name: String,
    /// Unit.
    pub unit: String,
    /// Value in A.
    pub a: Value,
    /// Value in B.
    pub b: Value,
    /// B − A.
    pub diff: f64,
}

/// The comparison of two runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Id of A.
    pub a: Option<i64>,
    /// Id of B.
    pub b: Option<i64>,
    /// Shared series with bootstrap intervals.
    pub series: Vec<SeriesDiff>,
    /// Shared metrics.
    pub metrics: Vec<MetricDiff>,
}

/// Compare two runs.
pub fn compare(a: &RunRecord, b: &RunRecord) -> Comparison {
    let mut series = Vec::new();
    for sa in &a.series {
        let Some(sb) = b.get_series(&sa.name) else { continue };
        if sa.values.is_empty() || sb.values.is_empty() || sa.unit != sb.unit {
            continue;
        }
        let (Some(m50), Some(m99)) = (
            percentile_diff_ci(&sa.values, &sb.values, 50.0, BOOTSTRAP_RESAMPLES, BOOTSTRAP_MAX_N, BOOTSTRAP_SEED),
            percentile_diff_ci(&sa.values, &sb.values, 99.0, BOOTSTRAP_RESAMPLES, BOOTSTRAP_MAX_N, BOOTSTRAP_SEED),
        ) else {
            continue;
        };
        let pa = |p| stats::percentile(&sa.values, p).unwrap_or(0);
        let pb = |p| stats::percentile(&sb.values, p).unwrap_or(0);
        series.push(SeriesDiff {
            name: sa.name.clone(),
            unit: sa.unit.clone(),
            p50: (pa(50.0), pb(50.0)),
            p99: (pa(99.0), pb(99.0)),
            p50_diff: (m50.diff, m50.lo, m50.hi),
            p99_diff: (m99.diff, m99.lo, m99.hi),
            significant: (m50.lo > 0.0 || m50.hi < 0.0) || (m99.lo > 0.0 || m99.hi < 0.0),
        });
    }
    let metrics = a
        .metrics
        .iter()
        .filter_map(|ma| {
            let mb = b.get_metric(&ma.name)?;
            (ma.unit == mb.unit).then(|| MetricDiff {
                name: ma.name.clone(),
                unit: ma.unit.clone(),
                a: ma.value,
                b: mb.value,
                diff: mb.value.as_f64() - ma.value.as_f64(),
            })
        })
        .collect();
    Comparison { a: a.id, b: b.id, series, metrics }
}

impl Comparison {
    /// A plain-text table for the terminal.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let id = |i: Option<i64>| i.map(|i| format!("#{i}")).unwrap_or_else(|| "?".into());
        let mut o = String::new();
        let _ = writeln!(
            o,
            "comparing {} (A) with {} (B): differences are B − A, [95% bootstrap CI]\n",
            id(self.a),
            id(self.b)
        );
        if self.series.is_empty() {
            let _ = writeln!(o, "no shared sample series");
        } else {
            let _ = writeln!(
                o,
                "{:<28} {:>10} {:>10} {:>32} {:>10} {:>10} {:>32}",
                "series", "p50 A", "p50 B", "Δp50 [CI]", "p99 A", "p99 B", "Δp99 [CI]"
            );
            for s in &self.series {
                let f = |v: f64| fmt_value(Value::Float(v), &s.unit);
                let fi = |v: i64| fmt_value(Value::Int(v), &s.unit);
                let ci = |d: (f64, f64, f64)| format!("{} [{}, {}]", f(d.0), f(d.1), f(d.2));
                let _ = writeln!(
                    o,
                    "{:<28} {:>10} {:>10} {:>32} {:>10} {:>10} {:>32}{}",
                    s.name,
                    fi(s.p50.0),
                    fi(s.p50.1),
                    ci(s.p50_diff),
                    fi(s.p99.0),
                    fi(s.p99.1),
                    ci(s.p99_diff),
                    if s.significant { "  *" } else { "" }
                );
            }
            let _ = writeln!(o, "\n* = an interval excludes 0");
        }
        if !self.metrics.is_empty() {
            let _ = writeln!(o, "\n{:<36} {:>14} {:>14} {:>14}", "metric", "A", "B", "B − A");
            for m in &self.metrics {
                let _ = writeln!(
                    o,
                    "{:<36} {:>14} {:>14} {:>14}",
                    m.name,
                    fmt_value(m.a, &m.unit),
                    fmt_value(m.b, &m.unit),
                    fmt_value(Value::Float(m.diff), &m.unit)
                );
            }
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_model::record::{RunStatus, Series};

    fn run(shift: i64, id: i64) -> RunRecord {
        let mut r = latlab_sys::record::begin("selftest");
        r.id = Some(id);
        r.series.push(Series {
            name: "lat".into(),
            unit: "ns".into(),
            description: String::new(),
            values: (0..3000).map(|i| 1000 + (i * 37) % 200 + shift).collect(),
        });
        r.series.push(Series { name: "only_a".into(), unit: "ns".into(), description: String::new(), values: vec![1] });
        r.metric("x.count", 10i64 + shift, "count");
        r.finish(RunStatus::Complete);
        r
    }

    #[test]
    fn detects_a_shift_and_ignores_unshared() {
        let mut b = run(300, 2);
        b.series.pop();
        let c = compare(&run(0, 1), &b);
        assert_eq!(c.series.len(), 1);
        let s = &c.series[0];
        assert_eq!(s.p50_diff.0, 300.0);
        assert!(s.p50_diff.1 <= 300.0 && s.p50_diff.2 >= 300.0);
        assert!(s.significant);
        assert_eq!(c.metrics[0].diff, 300.0);
        let t = c.to_text();
        assert!(t.contains("comparing #1 (A) with #2 (B)") && t.contains("lat"), "{t}");
    }

    #[test]
    fn same_run_is_not_significant() {
        let a = run(0, 1);
        let c = compare(&a, &a);
        assert!(!c.series[0].significant);
        assert_eq!(c.series.len(), 2);
    }
}
