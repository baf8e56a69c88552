//! A/B of a remedy (`latlab tune`): the verdict on a headline series from the baseline's and
//! the remedy's runs, the verdict over all headlines, and the record of an A/B.
//!
//! **The unit is the run, not the sample.** Two runs of the same configuration differ by
//! more than their samples' spread suggests: a p99 moves by 30 % between identical runs
//! here. Pooling the samples of every run and bootstrapping them calls that noise an effect
//! (an A/A run, `latlab tune none`, showed it). So each round pairs a baseline run with a
//! remedy run, and the verdict is drawn from the rounds' paired differences.
//!
//! **Rule.** For p50 and p99 of a headline, each round gives `d = stat(remedy run) −
//! stat(baseline run)`. The mean of the `d`s gets a 95 % Student-t interval over the rounds
//! (`mean ± t(0.975, n−1) · sd / √n`). A percentile *helps* when its interval lies wholly on the
//! better side of zero and the mean change is at least [`TUNE_MIN_EFFECT`] of the baseline
//! runs' mean value; it *hurts* when the same holds on the worse side; otherwise no effect is
//! detectable. One round gives no interval and so no verdict. A headline helps when one of
//! its p50 and p99 helps and the other does not hurt (and the reverse for hurts); one of
//! each is *mixed*. Over all headlines the same rule combines them.
//!
//! The machine changes a remedy makes live in `latlab_sys::change`, each undone by a guard.

use crate::defaults::TUNE_MIN_EFFECT;
use latlab_model::record::{Column, RunRecord, RunStatus, Series, Table};
use latlab_model::stats;
use latlab_sys::record::Finish;
use serde::Serialize;

pub use latlab_sys::remedy::Better;

/// What a remedy did to a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Effect {
    /// Better beyond the interval and the minimum effect.
    Helps,
    /// No difference the samples can tell.
    NoEffect,
    /// Worse beyond the interval and the minimum effect.
    Hurts,
    /// Better in one respect, worse in another.
    Mixed,
}

impl Effect {
    /// The word the record and the terminal use.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Helps => "helps",
            Effect::NoEffect => "no effect detectable",
            Effect::Hurts => "hurts",
            Effect::Mixed => "mixed",
        }
    }

    /// Combine: helps and hurts make mixed; no effect yields to either.
    pub fn combine(parts: impl IntoIterator<Item = Effect>) -> Effect {
        let (mut helps, mut hurts) = (false, false);
        for e in parts {
            match e {
                Effect::Helps => helps = true,
                Effect::Hurts => hurts = true,
                Effect::Mixed => (helps, hurts) = (true, true),
                Effect::NoEffect => {}
            }
        }
        match (helps, hurts) {
            (true, true) => Effect::Mixed,
            (true, false) => Effect::Helps,
            (false, true) => Effect::Hurts,
            (false, false) => Effect::NoEffect,
        }
    }
}

/// A series an A/B judges.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Headline {
    /// The series name in the experiment's records.
    pub series: String,
    /// What it is, for people.
    pub label: String,
    /// Which way is better.
    pub better: Better,
    /// A metric with one value per run (e.g. `rt sweep`'s MF), not a sample series.
    pub per_run_metric: bool,
}

impl Headline {
    /// A sample series where lower is better.
    pub fn lower(series: &str, label: &str) -> Self {
        Headline { series: series.into(), label: label.into(), better: Better::Lower, per_run_metric: false }
    }

    /// A metric, one value per run, where lower is better.
    pub fn lower_metric(metric: &str, label: &str) -> Self {
        Headline { series: metric.into(), label: label.into(), better: Better::Lower, per_run_metric: true }
    }

    /// A metric, one value per run, where higher is better.
    pub fn higher_metric(metric: &str, label: &str) -> Self {
        Headline { series: metric.into(), label: label.into(), better: Better::Higher, per_run_metric: true }
    }
}

/// One percentile's difference, remedy − baseline, with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PercentileEffect {
    /// The baseline runs' mean value of the percentile.
    pub a: f64,
    /// The remedy runs'.
    pub b: f64,
    /// Mean of the rounds' differences (remedy − baseline).
    pub diff: f64,
    /// Its 95 % interval (NaN with one round).
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
    /// The verdict on it.
    pub effect: Effect,
}

/// The verdict on one headline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeadlineEffect {
    /// The headline.
    pub headline: Headline,
    /// The series' unit.
    pub unit: String,
    /// Rounds with samples in both arms.
    pub rounds: usize,
    /// Samples in each arm, all rounds.
    pub n: (usize, usize),
    /// Medians.
    pub p50: PercentileEffect,
    /// 99th percentiles.
    pub p99: PercentileEffect,
    /// Both together.
    pub effect: Effect,
}

/// The 97.5th percentile of Student's t with `df` degrees of freedom (a standard table; 1.96
/// beyond 30).
pub fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => T[df - 1],
        _ => 1.96,
    }
}

/// The verdict on one percentile from paired rounds: `a[i]` and `b[i]` are round i's runs'
/// samples. Rounds where either run has no samples are left out.
pub fn percentile_effect(
    a: &[Vec<i64>],
    b: &[Vec<i64>],
    p: f64,
    better: Better,
    min_effect: f64,
) -> Option<PercentileEffect> {
    let pairs: Vec<(f64, f64)> = a
        .iter()
        .zip(b)
        .filter_map(|(x, y)| Some((stats::percentile(x, p)? as f64, stats::percentile(y, p)? as f64)))
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as f64;
    let d: Vec<f64> = pairs.iter().map(|(x, y)| y - x).collect();
    let mean = d.iter().sum::<f64>() / n;
    let (ma, mb) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
    let (lo, hi) = if pairs.len() < 2 {
        (f64::NAN, f64::NAN)
    } else {
        let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let half = t975(pairs.len() - 1) * sd / n.sqrt();
        (mean - half, mean + half)
    };
    let big = mean.abs() >= min_effect * ma.abs();
    let (up, down) = (lo > 0.0 && big, hi < 0.0 && big);
    let effect = match (better, up, down) {
        (Better::Lower, _, true) | (Better::Higher, true, _) => Effect::Helps,
        (Better::Lower, true, _) | (Better::Higher, _, true) => Effect::Hurts,
        _ => Effect::NoEffect,
    };
    Some(PercentileEffect { a: ma, b: mb, diff: mean, lo, hi, effect })
}

/// The verdict on a headline from each round's baseline and remedy samples (None when no
/// round has samples in both).
pub fn judge(h: &Headline, unit: &str, a: &[Vec<i64>], b: &[Vec<i64>]) -> Option<HeadlineEffect> {
    let p50 = percentile_effect(a, b, 50.0, h.better, TUNE_MIN_EFFECT)?;
    let p99 = percentile_effect(a, b, 99.0, h.better, TUNE_MIN_EFFECT)?;
    let rounds = a.iter().zip(b).filter(|(x, y)| !x.is_empty() && !y.is_empty()).count();
    Some(HeadlineEffect {
        headline: h.clone(),
        unit: unit.into(),
        rounds,
        n: (a.iter().map(Vec::len).sum(), b.iter().map(Vec::len).sum()),
        effect: Effect::combine([p50.effect, p99.effect]),
        p50,
        p99,
    })
}

/// What a remedy is, as the record and `--list` tell it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RemedyInfo {
    /// The name `latlab tune` takes.
    pub name: String,
    /// The study it comes from (e.g. "001").
    pub study: String,
    /// The experiment it is measured with (e.g. "rt", "display latency").
    pub experiment: String,
    /// What the baseline (A) is.
    pub baseline: String,
    /// What the remedy (B) changes.
    pub changes: String,
}

/// Per-run metrics are judged as integers in millionths of their unit, so that a ratio (a
/// share of packets late, say, 0.07 %) keeps its figures; the verdict's are scaled back.
pub const PER_RUN_SCALE: f64 = 1e6;

/// The samples of one headline in each run of an arm, in round order, with the unit (None
/// when no run of the arm has it; a run without it gives an empty round). A per-run metric
/// gives each run one sample, its value in millionths of its unit ([`PER_RUN_SCALE`]).
pub fn per_run(runs: &[RunRecord], h: &Headline) -> Option<(String, Vec<Vec<i64>>)> {
    if h.per_run_metric {
        let unit = runs.iter().find_map(|r| r.get_metric(&h.series)).map(|m| m.unit.clone())?;
        let values = runs
            .iter()
            .map(|r| {
                r.get_metric(&h.series)
                    .map(|m| m.value.as_f64())
                    .filter(|v| v.is_finite())
                    .map(|v| vec![(v * PER_RUN_SCALE).round() as i64])
                    .unwrap_or_default()
            })
            .collect();
        return Some((unit, values));
    }
    let unit = runs.iter().find_map(|r| r.get_series(&h.series)).map(|s| s.unit.clone())?;
    Some((unit, runs.iter().map(|r| r.get_series(&h.series).map(|s| s.values.clone()).unwrap_or_default()).collect()))
}

/// The record of an A/B: the remedy, the runs of each arm (by id, `a[i]` and `b[i]` being
/// round i's), each headline's verdict (table `tune.effects`, metrics
/// `tune.<series>.{p50,p99}_diff` with `_lo`/`_hi`), every round's samples pooled as series
/// `<series>.baseline` and `<series>.remedy` (the report overlays their CDFs), and the
/// overall verdict in `config.verdict`.
pub fn ab_record(remedy: &RemedyInfo, a: &[RunRecord], b: &[RunRecord], headlines: &[Headline]) -> RunRecord {
    let mut rec = latlab_sys::record::begin("tune");
    // The A/B began with its first run.
    if let Some(first) = a.iter().chain(b).map(|r| r.started_at_ns).min() {
        rec.started_at_ns = first;
    }
    rec.mode = "tune".into();
    rec.config("remedy", &remedy.name);
    rec.config("study", &remedy.study);
    rec.config("measured_with", &remedy.experiment);
    rec.config("baseline", &remedy.baseline);
    rec.config("changes", &remedy.changes);
    rec.config("rounds", a.len().min(b.len()));
    rec.config("baseline_runs", a.iter().filter_map(|r| r.id).collect::<Vec<_>>());
    rec.config("remedy_runs", b.iter().filter_map(|r| r.id).collect::<Vec<_>>());
    rec.config("min_effect", TUNE_MIN_EFFECT);
    let mut effects = Vec::new();
    let mut rows = Vec::new();
    let mut not_measured = Vec::new();
    for h in headlines {
        let (unit, va, vb) = match (per_run(a, h), per_run(b, h)) {
            (Some((unit, va)), Some((_, vb))) => (unit, va, vb),
            // Not measured by this configuration (e.g. MF without a sweep): not a headline here.
            (None, None) => {
                not_measured.push(h.series.clone());
                continue;
            }
            _ => {
                rec.warn(format!("{}: in one arm's runs only, not judged", h.series));
                continue;
            }
        };
        let Some(mut e) = judge(h, &unit, &va, &vb) else {
            rec.warn(format!("{}: no round has samples in both arms, not judged", h.series));
            continue;
        };
        let series_unit = if h.per_run_metric {
            for p in [&mut e.p50, &mut e.p99] {
                for v in [&mut p.a, &mut p.b, &mut p.diff, &mut p.lo, &mut p.hi] {
                    *v /= PER_RUN_SCALE;
                }
            }
            format!("1e-6 {unit}")
        } else {
            unit.clone()
        };
        if e.rounds < 2 {
            rec.warn(format!(
                "{}: {} round with samples in both arms gives no interval, so no verdict; use --rounds 2 or more",
                h.series, e.rounds
            ));
        }
        for (q, p) in [("p50", e.p50), ("p99", e.p99)] {
            rec.metric(&format!("tune.{}.{q}_diff", h.series), p.diff, &unit);
            if p.lo.is_finite() {
                rec.metric(&format!("tune.{}.{q}_diff_lo", h.series), p.lo, &unit);
                rec.metric(&format!("tune.{}.{q}_diff_hi", h.series), p.hi, &unit);
            }
        }
        rec.config(&format!("effect.{}", h.series), e.effect.as_str());
        for (arm, v) in [("baseline", va.concat()), ("remedy", vb.concat())] {
            rec.series.push(Series {
                name: format!("{}.{arm}", h.series),
                unit: series_unit.clone(),
                description: format!("{} — {arm}, every round pooled", h.label),
                values: v,
            });
        }
        // Two decimals, four below 1 (a share of packets late keeps its figure).
        let f = |v: f64| {
            let k = if v.abs() < 1.0 { 10_000.0 } else { 100.0 };
            serde_json::Value::from((v * k).round() / k)
        };
        // Latency samples in ns are shown in µs; a per-run metric keeps its own unit.
        let in_us = unit == "ns" && !h.per_run_metric;
        let ns = |v: f64| if in_us { f(v / 1000.0) } else { f(v) };
        let ci = |p: PercentileEffect| {
            if p.lo.is_finite() {
                format!("{} [{}, {}]", ns(p.diff), ns(p.lo), ns(p.hi))
            } else {
                format!("{} (one round: no interval)", ns(p.diff))
            }
        };
        rows.push(vec![
            h.label.clone().into(),
            (if in_us { "µs" } else { unit.as_str() }).into(),
            e.n.0.into(),
            e.n.1.into(),
            e.rounds.into(),
            ns(e.p50.a),
            ns(e.p50.b),
            ci(e.p50).into(),
            ns(e.p99.a),
            ns(e.p99.b),
            ci(e.p99).into(),
            e.effect.as_str().into(),
        ]);
        effects.push(e);
    }
    if !not_measured.is_empty() {
        rec.config("not_measured", &not_measured);
    }
    let overall = Effect::combine(effects.iter().map(|e| e.effect));
    rec.config("verdict", if effects.is_empty() { "not judged" } else { overall.as_str() });
    let c = Column::new;
    rec.tables.push(Table {
        name: "tune.effects".into(),
        title: format!(
            "{}: {} against {} ({} rounds, interleaved); per run p50 and p99, their mean over the runs of each arm, and the mean difference remedy − baseline over the rounds [95 % t interval]",
            remedy.name,
            remedy.changes,
            remedy.baseline,
            a.len().min(b.len())
        ),
        columns: vec![
            c("headline", ""),
            c("unit", ""),
            c("baseline samples", "count"),
            c("remedy samples", "count"),
            c("rounds", "count"),
            c("p50 baseline", ""),
            c("p50 remedy", ""),
            c("Δp50 [95 %]", ""),
            c("p99 baseline", ""),
            c("p99 remedy", ""),
            c("Δp99 [95 %]", ""),
            c("verdict", ""),
        ],
        rows,
        plot: None,
    });
    let failed = a.iter().chain(b).any(|r| r.status != RunStatus::Complete);
    rec.finish(if latlab_sys::interrupt::stop_requested() {
        RunStatus::Interrupted
    } else if failed || effects.is_empty() {
        RunStatus::Failed
    } else {
        RunStatus::Complete
    });
    rec
}

/// The verdict line printed first: "remedy: helps (…)".
pub fn verdict_line(rec: &RunRecord) -> String {
    let get = |k: &str| rec.config.get(k).and_then(|v| v.as_str()).unwrap_or("?").to_string();
    format!("{}: {} — {}", get("remedy"), get("verdict"), get("changes"))
}

#[cfg(test)]
mod tests;
