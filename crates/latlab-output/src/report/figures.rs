//! A run's figures: its study's, declared by the experiment that owns the study (with the
//! paper's points and captions, `Experiment::figures`), and an A/B's arms overlaid. A run
//! opens with these; the generic per-series plots are folded under it.

use latlab_model::figure::{Chart, Figure};
use latlab_model::record::RunRecord;
use std::collections::BTreeSet;

/// The series of an A/B run's arms (`X.baseline` with `X.remedy`): drawn as one overlay.
pub(super) fn ab_pairs(r: &RunRecord) -> BTreeSet<String> {
    let mut paired = BTreeSet::new();
    for a in &r.series {
        let Some(base) = a.name.strip_suffix(".baseline") else { continue };
        if r.get_series(&format!("{base}.remedy")).is_some() {
            paired.insert(a.name.clone());
            paired.insert(format!("{base}.remedy"));
        }
    }
    paired
}

/// An A/B's arms overlaid, with the verdict.
fn fig_ab(r: &RunRecord) -> Vec<Option<Figure>> {
    r.series
        .iter()
        .filter_map(|a| {
            let base = a.name.strip_suffix(".baseline")?;
            let b = r.get_series(&format!("{base}.remedy"))?;
            let verdict = r.config.get(&format!("effect.{base}")).and_then(|v| v.as_str()).unwrap_or("not judged");
            Some(Figure::new(
                &format!("fig-ab-{base}"),
                &format!("{base} — baseline vs remedy (CDF): {verdict}"),
                "Read the gap between the two curves at the percentile you care about: a remedy that helps moves its curve left.",
                vec![Some(Chart::Cdf(vec![a.clone(), b.clone()]))],
            ))
        })
        .collect()
}

/// The figures of a run: the study's, as its experiment declares them (`study`), then an
/// A/B's arms overlaid.
pub(super) fn figures(r: &RunRecord, study: &dyn Fn(&RunRecord) -> Vec<Figure>) -> Vec<Figure> {
    let mut out = study(r);
    out.extend(fig_ab(r).into_iter().flatten());
    out
}
