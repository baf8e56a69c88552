//! `latlab monitor`'s figures: the worst wake-up per window over the run.

use latlab_model::figure::{Chart, Figure};
use latlab_model::record::RunRecord;

/// Every figure a `monitor` record can draw.
pub fn figures(r: &RunRecord) -> Vec<Figure> {
    fig_monitor(r).into_iter().flatten().collect()
}

/// latlab monitor: the worst wake-up per window over the run.
fn fig_monitor(r: &RunRecord) -> Vec<Option<Figure>> {
    r.tables
        .iter()
        .filter(|t| t.name.starts_with("monitor.") && t.name.ends_with(".windows"))
        .map(|t| {
            Figure::new(
                &format!("fig-{}", t.name.replace('.', "-")),
                &t.title,
                "Read the spikes: each point is one window's worst; a long run's rare events show as isolated peaks above the p99 line.",
                vec![Some(Chart::Sweep(t.clone()))],
            )
        })
        .collect()
}
