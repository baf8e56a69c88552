//! The worst case per hour of a latency series, into a record: its metrics and a
//! row of the table that `rt` and `monitor` show beside the observed maximum. The method and
//! its refusals are [`crate::stats::extreme`]'s.

use crate::record::{Column, RunRecord, Table};
use crate::stats::extreme::{
    PotConfig, Refusal, SplitCheck, TailFit, WorstCase, binomial_at_least, decluster_indexed, fit, fit_clusters,
};
use crate::window::WindowRow;
use serde_json::Value;

/// Nanoseconds in an hour.
const HOUR_NS: f64 = 3.6e12;

/// A series' worst case per hour: the fit and the level, or why there is none.
pub type PerHour = Result<(TailFit, WorstCase), Refusal>;

/// The level `samples` (latencies in ns, in time order, one every `period_ns`) exceed on
/// average [`crate::defaults::WORST_PER_HOUR`] times an hour.
pub fn per_hour(samples: &[i64], period_ns: u64) -> PerHour {
    long_enough(samples.len() as f64 * period_ns as f64)?;
    let x: Vec<f64> = samples.iter().map(|&v| v as f64).collect();
    let f = fit(&x, &PotConfig::for_samples(x.len()))?;
    let w = f.level(HOUR_NS / period_ns.max(1) as f64, crate::defaults::WORST_PER_HOUR)?;
    Ok((f, w))
}

/// Whether `span_ns` of data may answer for an hour ([`crate::defaults::WORST_MAX_EXTRAPOLATION`]).
fn long_enough(span_ns: f64) -> Result<(), Refusal> {
    let need_ns = HOUR_NS / crate::defaults::WORST_MAX_EXTRAPOLATION;
    if span_ns < need_ns {
        return Err(Refusal::TooShort { have_s: span_ns / 1e9, need_s: need_ns / 1e9 });
    }
    Ok(())
}

/// The worst case per hour of a long run's windows (in time order, one probe's): the tail from
/// the samples each window kept ([`crate::window::WindowRow::tops`]), above a threshold no
/// window's dropped samples reach, so the tail is exact; samples per hour from the windows'
/// counts and spans.
pub fn per_hour_windows(windows: &[&WindowRow]) -> PerHour {
    let n: u64 = windows.iter().map(|w| w.count.max(0) as u64).sum();
    let span: i64 = windows.iter().map(|w| (w.end_ns - w.start_ns).max(0)).sum();
    long_enough(span as f64)?;
    let cfg = PotConfig::for_samples(n as usize);
    // Every kept sample with its index in the run.
    let mut points: Vec<(u64, f64)> = Vec::new();
    let mut floor = f64::NEG_INFINITY;
    let mut before = 0u64;
    for w in windows {
        points.extend(w.top_samples().map(|(i, v)| (before + i, v as f64)));
        if w.tops.len() / 2 >= crate::window::TOPS {
            // A full window may have dropped samples up to its smallest kept one.
            floor = floor.max(w.top_samples().map(|p| p.1).min().unwrap_or(0) as f64);
        }
        before += w.count.max(0) as u64;
    }
    let mut values: Vec<f64> = points.iter().map(|p| p.1).collect();
    values.sort_by(f64::total_cmp);
    // The threshold with the wanted exceedances above it, or (fewer kept) the smallest kept;
    // never below what a full window may have dropped.
    let Some(&u) = values.get(values.len().saturating_sub(cfg.exceedances + 1)) else {
        return Err(Refusal::TooFew { clusters: 0, need: cfg.min_clusters });
    };
    let u = u.max(floor);
    let y = decluster_indexed(&points, u, cfg.run);
    let f = fit_clusters(u, y, n as usize, &cfg)?;
    let w = f.level(n as f64 * HOUR_NS / span.max(1) as f64, crate::defaults::WORST_PER_HOUR)?;
    Ok((f, w))
}

/// The honest check on a long run: the worst case per hour fitted on the windows of
/// the run's first half (by time), and how often the second half's samples exceeded it
/// (clusters, as fitted), against how often it says they would.
pub fn split_check_windows(windows: &[&WindowRow]) -> Result<SplitCheck, Refusal> {
    let (Some(first), Some(last)) = (windows.first(), windows.last()) else {
        return Err(Refusal::TooFew { clusters: 0, need: crate::defaults::EVT_MIN_CLUSTERS });
    };
    let mid = first.start_ns + (last.end_ns - first.start_ns) / 2;
    let (a, b): (Vec<&WindowRow>, Vec<&WindowRow>) = windows.iter().partition(|w| w.start_ns < mid);
    if a.is_empty() || b.is_empty() {
        return Err(Refusal::NoHalves);
    }
    let (_, worst) = per_hour_windows(&a)?;
    let mut points = Vec::new();
    let mut before = 0u64;
    for w in &b {
        points.extend(w.top_samples().map(|(i, v)| (before + i, v as f64)));
        before += w.count.max(0) as u64;
    }
    let run = PotConfig::for_samples(before as usize).run;
    let exceeded = decluster_indexed(&points, worst.level, run).len();
    let span: i64 = b.iter().map(|w| (w.end_ns - w.start_ns).max(0)).sum();
    let expected = worst.per_period * span as f64 / HOUR_NS;
    let p = (expected / before.max(1) as f64).min(1.0);
    Ok(SplitCheck { worst, exceeded, expected, p_value: binomial_at_least(before, p, exceeded as u64) })
}

/// Record the split check under `prefix.worst_check.` when there is one.
pub fn record_check(rec: &mut RunRecord, prefix: &str, c: &Result<SplitCheck, Refusal>) {
    if let Ok(c) = c {
        rec.metric(&format!("{prefix}.worst_check.first_half_worst_per_hour"), c.worst.level, "ns");
        rec.metric(&format!("{prefix}.worst_check.exceeded"), c.exceeded as u64, "count");
        rec.metric(&format!("{prefix}.worst_check.expected"), c.expected, "count");
        rec.metric(&format!("{prefix}.worst_check.p_value"), c.p_value, "ratio");
    }
}

/// Record `prefix.worst_per_hour` (with `.lo`, `.hi` when bounded, and the tail's shape,
/// clusters and fit p-value under `prefix.tail.`) when there is an estimate.
pub fn record_metrics(rec: &mut RunRecord, prefix: &str, r: &PerHour) {
    if let Ok((f, w)) = r {
        rec.metric(&format!("{prefix}.worst_per_hour"), w.level, "ns");
        rec.metric(&format!("{prefix}.worst_per_hour.lo"), w.lo, "ns");
        if let Some(hi) = w.hi {
            rec.metric(&format!("{prefix}.worst_per_hour.hi"), hi, "ns");
        }
        rec.metric(&format!("{prefix}.tail.shape"), f.xi, "ratio");
        rec.metric(&format!("{prefix}.tail.clusters"), f.clusters as u64, "count");
        rec.metric(&format!("{prefix}.tail.fit_p"), f.p_value, "ratio");
    }
}

/// The table's columns; each row starts with `labels` (e.g. phase and level).
pub fn table(name: &str, labels: &[&str], rows: Vec<Vec<Value>>) -> Table {
    let mut columns: Vec<Column> = labels.iter().map(|l| Column::new(l, "")).collect();
    columns.extend([
        Column::new("observed max", "ns"),
        Column::new("worst per hour", "ns"),
        Column::new("95 % from", "ns"),
        Column::new("95 % to", "ns"),
        Column::new("tail shape ξ", ""),
        Column::new("clusters", "count"),
        Column::new("fit p", ""),
        Column::new("note", ""),
    ]);
    Table {
        name: name.into(),
        title: format!(
            "Worst case per hour: the latency exceeded on average {} time(s) an hour (in a given hour with probability {:.0} %), from the run's tail (peaks over threshold, a generalized Pareto fit, its profile-likelihood interval; refused with the reason where the data do not support it)",
            crate::defaults::WORST_PER_HOUR,
            100.0 * (1.0 - (-crate::defaults::WORST_PER_HOUR).exp())
        ),
        columns,
        rows,
        plot: None,
    }
}

/// A table row: `labels`, then the observed maximum and the estimate or the refusal.
pub fn row(labels: &[&str], observed_max: i64, r: &PerHour) -> Vec<Value> {
    let mut out: Vec<Value> = labels.iter().map(|&l| l.into()).collect();
    out.push(observed_max.into());
    match r {
        Ok((f, w)) => {
            out.extend([
                w.level.round().into(),
                w.lo.round().into(),
                w.hi.map_or(Value::Null, |h| h.round().into()),
                ((f.xi * 100.0).round() / 100.0).into(),
                (f.clusters as u64).into(),
                ((f.p_value * 100.0).round() / 100.0).into(),
                match w.hi {
                    Some(_) => format!("fitted above {:.0} ns", f.threshold),
                    None => format!("fitted above {:.0} ns; the interval has no upper end", f.threshold),
                }
                .into(),
            ]);
        }
        Err(e) => {
            out.extend([Value::Null, Value::Null, Value::Null, Value::Null, Value::Null, Value::Null]);
            out.push(format!("refused: {e}").into());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::extreme::split_check;

    /// A window over `c` (1 ms a sample) that keeps its largest samples as the monitor does.
    fn window_of(k: i64, c: &[i64]) -> WindowRow {
        let mut idx: Vec<usize> = (0..c.len()).collect();
        idx.sort_by_key(|&i| std::cmp::Reverse(c[i]));
        idx.truncate(crate::window::TOPS);
        idx.sort_unstable();
        let n = c.len() as i64;
        WindowRow {
            probe: "rt".into(),
            start_ns: k * n * 1_000_000,
            end_ns: (k + 1) * n * 1_000_000,
            state: "idle".into(),
            count: n,
            sum_ns: c.iter().sum(),
            min_ns: *c.iter().min().unwrap(),
            p50_ns: 0,
            p99_ns: 0,
            p999_ns: 0,
            max_ns: *c.iter().max().unwrap(),
            missed: 0,
            lost: 0,
            buckets: Vec::new(),
            tops: idx.iter().flat_map(|&i| [i as i64, c[i]]).collect(),
        }
    }

    #[test]
    fn a_series_gets_its_metrics_and_row_or_the_reason_it_has_none() {
        let x = crate::synth::exponential_tail(200_000);
        let mut rec = RunRecord::new("rt", 0, Default::default());
        let r = per_hour(&x, 1_000_000);
        record_metrics(&mut rec, "unloaded.l1.latency", &r);
        let t = table("rt.worst", &["phase", "level"], vec![row(&["unloaded", "l1"], 700_000, &r)]);
        assert_eq!(t.rows[0].len(), t.columns.len());
        let (f, w) = r.as_ref().expect("an exponential tail is fitted");
        assert!(f.xi.abs() < 0.15, "{}", f.xi);
        assert_eq!(rec.get_metric("unloaded.l1.latency.worst_per_hour").unwrap().value.as_f64(), w.level);
        // Once an hour at 1 kHz is once in 3.6 M samples: 3 µs + 2 µs × ln(3.6 M) ≈ 33 µs.
        assert!(w.lo < 33_200.0 && 33_200.0 < w.hi.unwrap(), "{w:?}");
        assert!(t.rows[0].last().unwrap().as_str().unwrap().starts_with("fitted above "));
        // The same series cut into windows that keep their largest: the same tail.
        let windows: Vec<WindowRow> = x.chunks(10_000).enumerate().map(|(k, c)| window_of(k as i64, c)).collect();
        let refs: Vec<&WindowRow> = windows.iter().collect();
        let (fw, ww) = per_hour_windows(&refs).expect("fitted from the windows");
        assert_eq!((fw.threshold, fw.clusters, fw.xi), (f.threshold, f.clusters, f.xi));
        assert!((ww.level - w.level).abs() < 1e-6 * w.level, "{} vs {}", ww.level, w.level);
        // Fitted on the first half of the windows, counted in the second.
        // (A deterministic series whose first half passes the fit's own test.)
        let x = crate::synth::exponential_tail(160_000);
        let windows: Vec<WindowRow> = x.chunks(10_000).enumerate().map(|(k, c)| window_of(k as i64, c)).collect();
        let refs: Vec<&WindowRow> = windows.iter().collect();
        let c = split_check_windows(&refs).expect("a check");
        assert!(c.expected > 0.0 && c.p_value > 0.0 && c.p_value <= 1.0);
        let raw: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let halves = split_check(&raw, &PotConfig::for_samples(80_000), 3.6e6, 1.0).unwrap();
        assert_eq!(c.worst.level, halves.worst.level);
        assert_eq!(c.exceeded, halves.exceeded, "the windows' tops hold every exceedance of the estimate");
        assert!((c.expected - halves.expected).abs() < 1e-9 * halves.expected);
        assert_eq!(split_check_windows(&refs[..1]), Err(Refusal::NoHalves));
        // Too few samples for a tail (500 of them, a second apart): refused, and the row says why.
        let few = per_hour(&x[..500], 1_000_000_000);
        assert!(matches!(few, Err(Refusal::TooFew { .. })), "{few:?}");
        let r = row(&["unloaded", "l1"], 9, &few);
        assert!(r.last().unwrap().as_str().unwrap().starts_with("refused: "));
        // Half a second of data says nothing of an hour (7,200× past it): how long to run instead.
        let short = per_hour(&x[..500], 1_000_000);
        assert_eq!(short, Err(Refusal::TooShort { have_s: 0.5, need_s: 36.0 }));
        let why = short.unwrap_err().to_string();
        assert!(why.contains("500 ms of data is too little to say what an hour gives"), "{why}");
        assert!(why.ends_with("run at least 36 s"), "{why}");
    }
}
