//! A/B of a remedy (`latlab tune`): the verdict on a headline series from the baseline's and
//! the remedy's samples (difference of p50 and p99 with 95 % bootstrap intervals, as
//! `latlab compare`), the verdict over all headlines, and the record of an A/B.
//!
//! **Rule.** A percentile *helps* when its interval lies wholly on the better side of zero
//! and the change is at least [`TUNE_MIN_EFFECT`] of the baseline's value; it *hurts* when the
//! same holds on the worse side; otherwise no effect is detectable. A headline helps when one
//! of its p50 and p99 helps and the other does not hurt (and the reverse for hurts); one of
//! each is *mixed*. Over all headlines the same rule combines them. The samples of every round
//! of an arm are pooled, which treats them as independent: the rounds' interleaving (A B A B)
//! is what guards against drift, not the interval.
//!
//! The machine changes a remedy makes live in [`change`], each undone by a guard.

pub mod cgroup;
pub mod change;
pub mod shield;

use crate::defaults::{BOOTSTRAP_MAX_N, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, TUNE_MIN_EFFECT};
use crate::record::{Column, RunRecord, RunStatus, Series, Table};
use crate::stats::{self, bootstrap::percentile_diff_ci};
use serde::Serialize;

/// Which way a headline improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Better {
    /// Latencies, stalls, jitter.
    Lower,
    /// Rates, frequencies.
    Higher,
}

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
}

impl Headline {
    /// A headline where lower is better.
    pub fn lower(series: &str, label: &str) -> Self {
        Headline { series: series.into(), label: label.into(), better: Better::Lower }
    }
}

/// One percentile's difference, remedy − baseline, with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PercentileEffect {
    /// The baseline's and the remedy's value.
    pub a: i64,
    /// The remedy's.
    pub b: i64,
    /// B − A and its 95 % interval.
    pub diff: f64,
    /// Lower bound.
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
    /// Samples pooled in each arm.
    pub n: (usize, usize),
    /// Medians.
    pub p50: PercentileEffect,
    /// 99th percentiles.
    pub p99: PercentileEffect,
    /// Both together.
    pub effect: Effect,
}

/// The verdict on one percentile: the interval must exclude zero and the change reach
/// `min_effect` of the baseline's value.
pub fn percentile_effect(a: &[i64], b: &[i64], p: f64, better: Better, min_effect: f64) -> Option<PercentileEffect> {
    let ci = percentile_diff_ci(a, b, p, BOOTSTRAP_RESAMPLES, BOOTSTRAP_MAX_N, BOOTSTRAP_SEED)?;
    let (pa, pb) = (stats::percentile(a, p)?, stats::percentile(b, p)?);
    let big = ci.diff.abs() >= min_effect * (pa as f64).abs();
    let (up, down) = (ci.lo > 0.0 && big, ci.hi < 0.0 && big);
    let effect = match (better, up, down) {
        (Better::Lower, _, true) | (Better::Higher, true, _) => Effect::Helps,
        (Better::Lower, true, _) | (Better::Higher, _, true) => Effect::Hurts,
        _ => Effect::NoEffect,
    };
    Some(PercentileEffect { a: pa, b: pb, diff: ci.diff, lo: ci.lo, hi: ci.hi, effect })
}

/// The verdict on a headline from the pooled samples of each arm (None when an arm has none).
pub fn judge(h: &Headline, unit: &str, a: &[i64], b: &[i64]) -> Option<HeadlineEffect> {
    let p50 = percentile_effect(a, b, 50.0, h.better, TUNE_MIN_EFFECT)?;
    let p99 = percentile_effect(a, b, 99.0, h.better, TUNE_MIN_EFFECT)?;
    Some(HeadlineEffect {
        headline: h.clone(),
        unit: unit.into(),
        n: (a.len(), b.len()),
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

/// The samples of one headline in one arm: every round's series of that name, pooled, with
/// its unit (None when no run of the arm has it).
pub fn pooled(runs: &[RunRecord], series: &str) -> Option<(String, Vec<i64>)> {
    let mut unit = None;
    let mut values = Vec::new();
    for r in runs {
        if let Some(s) = r.get_series(series) {
            unit.get_or_insert_with(|| s.unit.clone());
            values.extend_from_slice(&s.values);
        }
    }
    Some((unit?, values))
}

/// The record of an A/B: the remedy, the runs of each arm (by id), each headline's verdict
/// (table `tune.effects`, metrics `tune.<series>.{p50,p99}_diff` with `_lo`/`_hi`), the pooled
/// samples as series `<series>.baseline` and `<series>.remedy` (the report overlays their
/// CDFs), and the overall verdict in `config.verdict`.
pub fn ab_record(remedy: &RemedyInfo, a: &[RunRecord], b: &[RunRecord], headlines: &[Headline]) -> RunRecord {
    let mut rec = RunRecord::begin("tune");
    rec.config("experiment", "tune");
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
    for h in headlines {
        let (Some((unit, va)), Some((_, vb))) = (pooled(a, &h.series), pooled(b, &h.series)) else {
            rec.warn(format!("{}: not in both arms' runs, not judged", h.series));
            continue;
        };
        let Some(e) = judge(h, &unit, &va, &vb) else {
            rec.warn(format!("{}: an arm has no samples, not judged", h.series));
            continue;
        };
        for (q, p) in [("p50", e.p50), ("p99", e.p99)] {
            rec.metric(&format!("tune.{}.{q}_diff", h.series), p.diff, &unit);
            rec.metric(&format!("tune.{}.{q}_diff_lo", h.series), p.lo, &unit);
            rec.metric(&format!("tune.{}.{q}_diff_hi", h.series), p.hi, &unit);
        }
        rec.config(&format!("effect.{}", h.series), e.effect.as_str());
        for (arm, v) in [("baseline", va), ("remedy", vb)] {
            rec.series.push(Series {
                name: format!("{}.{arm}", h.series),
                unit: unit.clone(),
                description: format!("{} — {arm}, every round pooled", h.label),
                values: v,
            });
        }
        let f = |v: f64| serde_json::Value::from((v * 100.0).round() / 100.0);
        let ns = |v: f64| if unit == "ns" { f(v / 1000.0) } else { f(v) };
        rows.push(vec![
            h.label.clone().into(),
            e.n.0.into(),
            e.n.1.into(),
            ns(e.p50.a as f64),
            ns(e.p50.b as f64),
            format!("{} [{}, {}]", ns(e.p50.diff), ns(e.p50.lo), ns(e.p50.hi)).into(),
            ns(e.p99.a as f64),
            ns(e.p99.b as f64),
            format!("{} [{}, {}]", ns(e.p99.diff), ns(e.p99.lo), ns(e.p99.hi)).into(),
            e.effect.as_str().into(),
        ]);
        effects.push(e);
    }
    let overall = Effect::combine(effects.iter().map(|e| e.effect));
    rec.config("verdict", if effects.is_empty() { "not judged" } else { overall.as_str() });
    let unit = effects.first().map_or("ns", |e| e.unit.as_str());
    let u = if unit == "ns" { "µs" } else { unit };
    let c = Column::new;
    rec.tables.push(Table {
        name: "tune.effects".into(),
        title: format!(
            "{}: {} against {} ({} rounds, interleaved); differences are remedy − baseline [95 % bootstrap interval]",
            remedy.name,
            remedy.changes,
            remedy.baseline,
            a.len().min(b.len())
        ),
        columns: vec![
            c("headline", ""),
            c("baseline samples", "count"),
            c("remedy samples", "count"),
            c("p50 baseline", u),
            c("p50 remedy", u),
            c("Δp50", ""),
            c("p99 baseline", u),
            c("p99 remedy", u),
            c("Δp99", ""),
            c("verdict", ""),
        ],
        rows,
        plot: None,
    });
    let failed = a.iter().chain(b).any(|r| r.status != RunStatus::Complete);
    rec.finish(if crate::interrupt::stop_requested() {
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
