//! The worst case per hour of a latency series, into a record (issue #42): its metrics and a
//! row of the table that `rt` and `monitor` show beside the observed maximum. The method and
//! its refusals are [`crate::stats::extreme`]'s.

use crate::record::{Column, RunRecord, Table};
use crate::stats::extreme::{PotConfig, Refusal, TailFit, WorstCase, fit};
use serde_json::Value;

/// Nanoseconds in an hour.
const HOUR_NS: f64 = 3.6e12;

/// A series' worst case per hour: the fit and the level, or why there is none.
pub type PerHour = Result<(TailFit, WorstCase), Refusal>;

/// The level `samples` (latencies in ns, in time order, one every `period_ns`) exceed on
/// average [`crate::defaults::WORST_PER_HOUR`] times an hour.
pub fn per_hour(samples: &[i64], period_ns: u64) -> PerHour {
    let x: Vec<f64> = samples.iter().map(|&v| v as f64).collect();
    let f = fit(&x, &PotConfig::for_samples(x.len()))?;
    let w = f.level(HOUR_NS / period_ns.max(1) as f64, crate::defaults::WORST_PER_HOUR)?;
    Ok((f, w))
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
        // Too short a series: refused, and the row says why.
        let short = per_hour(&x[..500], 1_000_000);
        assert!(matches!(short, Err(Refusal::TooFew { .. })), "{short:?}");
        let r = row(&["unloaded", "l1"], 9, &short);
        assert!(r.last().unwrap().as_str().unwrap().starts_with("refused: "));
    }
}
