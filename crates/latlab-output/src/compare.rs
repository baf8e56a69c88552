//! `latlab compare A B`: for every series both runs share, the difference of medians and of
//! p99 (B − A) with a 95 % bootstrap confidence interval; for every other shared metric, the
//! plain difference. Works from stored data only.

use crate::defaults::{BOOTSTRAP_MAX_N, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, COMPARE_MIN_N_P99};
use latlab_model::record::{RunRecord, Series, Value, fmt_value};
use latlab_model::stats::{self, bootstrap::percentile_diff_ci};
#[cfg(test)]
use latlab_sys::record::Finish;

impl Comparison {
    /// Whether anything was compared: a series or a metric.
    pub fn is_empty(&self) -> bool {
        self.series.is_empty() && self.metrics.is_empty()
    }
}
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
    /// True if an interval excludes 0 by more than the resolution (p99: with enough samples).
    pub significant: bool,
    /// What the measurement resolves (`<series>.resolution`), when the runs say.
    pub resolution: Option<f64>,
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

/// Where two series' names differ: (segment, word in A, word in B).
type Role<'n> = (usize, &'n str, &'n str);
/// A series of A with its match in B.
type Pair<'r> = (&'r Series, &'r Series);

/// The pairs of series to compare: those of one name in both runs, then, of the rest, those
/// whose names differ in one segment only, the same segment with the same two words for every
/// such pair (the role: `type.xterm.unloaded.latency` with `type.foot.unloaded.latency`, the
/// application told apart; condition, level and key kept). Each with its unit.
pub fn matched<'r>(a: &'r RunRecord, b: &'r RunRecord) -> Vec<(&'r Series, &'r Series)> {
    let usable = |s: &Series| !s.values.is_empty();
    let mut pairs: Vec<(&Series, &Series)> = a
        .series
        .iter()
        .filter_map(|sa| b.get_series(&sa.name).filter(|sb| sb.unit == sa.unit).map(|sb| (sa, sb)))
        .filter(|(sa, sb)| usable(sa) && usable(sb))
        .collect();
    let rest_a: Vec<&Series> = a.series.iter().filter(|s| usable(s) && b.get_series(&s.name).is_none()).collect();
    let rest_b: Vec<&Series> = b.series.iter().filter(|s| usable(s) && a.get_series(&s.name).is_none()).collect();
    // (segment index, word in A, word in B) → the pairs it explains.
    let mut by_role: std::collections::BTreeMap<Role, Vec<Pair>> = Default::default();
    for sa in &rest_a {
        let pa: Vec<&str> = sa.name.split('.').collect();
        for sb in rest_b.iter().filter(|sb| sb.unit == sa.unit) {
            let pb: Vec<&str> = sb.name.split('.').collect();
            if pa.len() != pb.len() {
                continue;
            }
            let diff: Vec<usize> = (0..pa.len()).filter(|&i| pa[i] != pb[i]).collect();
            if let [i] = diff[..] {
                by_role.entry((i, pa[i], pb[i])).or_default().push((sa, sb));
            }
        }
    }
    // One role only: two readings of the names would pair series by chance.
    if by_role.len() == 1 {
        pairs.extend(by_role.into_values().next().unwrap_or_default());
    }
    pairs
}

/// Compare two runs: the series [`matched`] gives; a difference is called significant only
/// when its interval excludes 0, it is larger than what the measurement can resolve
/// (`<series>.resolution`, in either run), and, for p99, each run has enough samples for a p99
/// that is not simply its maximum.
pub fn compare(a: &RunRecord, b: &RunRecord) -> Comparison {
    let mut series = Vec::new();
    for (sa, sb) in matched(a, b) {
        let (Some(m50), Some(m99)) = (
            percentile_diff_ci(&sa.values, &sb.values, 50.0, BOOTSTRAP_RESAMPLES, BOOTSTRAP_MAX_N, BOOTSTRAP_SEED),
            percentile_diff_ci(&sa.values, &sb.values, 99.0, BOOTSTRAP_RESAMPLES, BOOTSTRAP_MAX_N, BOOTSTRAP_SEED),
        ) else {
            continue;
        };
        let pa = |p| stats::percentile(&sa.values, p).unwrap_or(0);
        let pb = |p| stats::percentile(&sb.values, p).unwrap_or(0);
        let resolution =
            [a.get_metric(&format!("{}.resolution", sa.name)), b.get_metric(&format!("{}.resolution", sb.name))]
                .into_iter()
                .flatten()
                .map(|m| m.value.as_f64())
                .fold(0.0, f64::max);
        let beyond =
            |d: &latlab_model::stats::bootstrap::DiffCi| (d.lo > 0.0 || d.hi < 0.0) && d.diff.abs() > resolution;
        let enough_for_p99 = sa.values.len().min(sb.values.len()) >= COMPARE_MIN_N_P99;
        series.push(SeriesDiff {
            name: if sa.name == sb.name { sa.name.clone() } else { format!("{} ↔ {}", sa.name, sb.name) },
            unit: sa.unit.clone(),
            p50: (pa(50.0), pb(50.0)),
            p99: (pa(99.0), pb(99.0)),
            p50_diff: (m50.diff, m50.lo, m50.hi),
            p99_diff: (m99.diff, m99.lo, m99.hi),
            significant: beyond(&m50) || (enough_for_p99 && beyond(&m99)),
            resolution: (resolution > 0.0).then_some(resolution),
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
            let _ = writeln!(
                o,
                "\n* = an interval excludes 0 by more than the measurement resolves (p99: with at least {COMPARE_MIN_N_P99} samples in each run)"
            );
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

    fn typed(app: &str, id: i64, values: Vec<i64>, resolution: Option<f64>) -> RunRecord {
        let mut r = latlab_sys::record::begin("type");
        r.id = Some(id);
        for cond in ["unloaded", "cpu"] {
            let name = format!("type.{app}.{cond}");
            r.series.push(Series {
                name: name.clone(),
                unit: "ns".into(),
                description: String::new(),
                values: values.clone(),
            });
            if let Some(res) = resolution {
                r.metric(&format!("{name}.resolution"), res, "ns");
            }
        }
        r.finish(RunStatus::Complete);
        r
    }

    #[test]
    fn runs_of_two_applications_are_matched_by_role_and_a_difference_finer_than_the_resolution_is_not_significant() {
        // xterm against foot: the application told apart, each condition with its own.
        let a = typed("xterm", 1, (0..300).map(|i| 600_000 + i % 50).collect(), None);
        let b = typed("foot", 2, (0..300).map(|i| 900_000 + i % 50).collect(), None);
        let pairs: Vec<(&str, &str)> =
            matched(&a, &b).iter().map(|(x, y)| (x.name.as_str(), y.name.as_str())).collect();
        assert_eq!(pairs, [("type.xterm.unloaded", "type.foot.unloaded"), ("type.xterm.cpu", "type.foot.cpu")]);
        let c = compare(&a, &b);
        assert_eq!(c.series[0].name, "type.xterm.unloaded ↔ type.foot.unloaded");
        assert!(c.series[0].significant, "300 µs apart, resolved to the ns");
        // The same 300 µs, read at 2 kHz (500 µs resolution): not a difference the capture saw.
        let a = typed("xterm", 1, (0..300).map(|i| 600_000 + i % 50).collect(), Some(500_000.0));
        let c = compare(&a, &b);
        assert!(!c.series[0].significant && c.series[0].resolution == Some(500_000.0), "{:?}", c.series[0]);
        // Twenty keys: the p99 is their maximum, never called a difference on its own.
        let few = |app, id, base: i64| typed(app, id, (0..20).map(|i| base + i * 10).collect(), None);
        let (a, mut b) = (few("xterm", 1, 1000), few("foot", 2, 1000));
        for s in &mut b.series {
            *s.values.last_mut().unwrap() += 1_000_000;
        }
        assert!(!compare(&a, &b).series[0].significant, "one outlier among 20 moves only the p99");
        // Names that differ in two ways, or two readings of the role: not paired.
        let mut c = few("xterm", 1, 1000);
        c.series[1].name = "type.st.mem".into();
        assert_eq!(matched(&c, &few("foot", 2, 1000)).len(), 1, "only unloaded reads one way");
        let mut other = few("foot", 2, 1000);
        other.series[0].name = "rt.unloaded.l1.latency".into();
        other.series[1].name = "udp.rtt".into();
        assert!(matched(&few("xterm", 1, 1000), &other).is_empty());
    }

    #[test]
    fn same_run_is_not_significant() {
        let a = run(0, 1);
        let c = compare(&a, &a);
        assert!(!c.series[0].significant);
        assert_eq!(c.series.len(), 2);
    }
}
