//! Seed 002's figures from a `udp` run: the receive gaps over time and the de-jitter cost
//! curve.

use latlab_model::figure::{Chart, Curve, Figure, Style, Xy, col, mark, metric, pairs, table};
use latlab_model::record::RunRecord;

/// Every figure a `udp` record can draw.
pub fn figures(r: &RunRecord) -> Vec<Figure> {
    [fig_002_gaps(r), fig_002_dejitter(r)].into_iter().flatten().collect()
}

/// Seed 002: receive gaps over time, as a multiple of the send interval, with the release
/// period the detector found and the gaps the paper's phones showed.
fn fig_002_gaps(r: &RunRecord) -> Option<Figure> {
    let s = r.get_series("recv_gap")?;
    // Older records kept the configuration under `udp`.
    let settings = r.config.get(latlab_model::experiment::SETTINGS).or_else(|| r.config.get("udp"))?;
    let interval = settings.get("interval_ns")?.as_f64()?;
    if interval <= 0.0 || s.values.is_empty() {
        return None;
    }
    let mut t = 0.0;
    let mut pts = Vec::with_capacity(s.values.len());
    for g in &s.values {
        t += *g as f64;
        pts.push((t, *g as f64 / interval));
    }
    let mut y_marks = vec![mark(1.0, "the send interval", "here")];
    // The phones' gaps as multiples of the seed's 1,000 ms interval.
    use crate::report::{MOZART_GAP_MS, OMNIA_GAP_MS};
    y_marks.push(mark(
        OMNIA_GAP_MS / 1000.0,
        format!("paper: Omnia 7's gaps, ~{OMNIA_GAP_MS} ms at a 1,000 ms interval"),
        "paper",
    ));
    y_marks.push(mark(MOZART_GAP_MS / 1000.0, format!("paper: HTC Mozart's, ~{MOZART_GAP_MS} ms"), "paper-m"));
    let mut x_marks = Vec::new();
    if let Some(p) = metric(r, "burst.release_period").filter(|p| *p > 0.0) {
        for k in 1..=12 {
            let at = p * k as f64;
            if at > t {
                break;
            }
            let label =
                if k == 1 { format!("release period found: {}", latlab_model::numfmt::ns(p)) } else { String::new() };
            x_marks.push(mark(at, label, "l2"));
        }
    }
    let chart = Some(Chart::Xy(Xy {
        x_name: "receive time".into(),
        x_unit: "ns".into(),
        y_name: "gap ÷ send interval".into(),
        curves: vec![Curve { style: Style::Points, ..Curve::line("each receive gap", "here", pts) }],
        x_marks,
        y_marks,
        ..Default::default()
    }));
    Figure::new(
        "fig-002-gaps",
        "Seed 002: receive gaps over time, as a multiple of the send interval",
        format!(
            "Points at 1 are packets arriving as sent ({} apart); a held-then-released pattern shows as long gaps followed by near-zero ones. The dashed lines are the gaps the paper's phones showed (Windows Phone 7, 1,000 ms interval), as multiples of their interval.",
            latlab_model::numfmt::ns(interval)
        ),
        vec![chart],
    )
}

/// Seed 002's fix: how many packets a playout delay leaves late.
fn fig_002_dejitter(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "udp.dejitter")?;
    let pts = pairs(&col(t, "playout_delay", None)?, &col(t, "late", None)?);
    let chart = Some(Chart::Xy(Xy {
        x_name: "playout delay".into(),
        x_unit: "ns".into(),
        y_name: "packets too late".into(),
        y_unit: "ratio".into(),
        y_from_zero: true,
        curves: vec![Curve::line("late at this delay", "here", pts)],
        ..Default::default()
    }));
    Figure::new(
        "fig-002-dejitter",
        "Seed 002's fix: the de-jitter cost curve",
        "Read the delay where the curve reaches the share of late packets you can bear: that is the latency the seed's fix (playing out by sender timestamp) adds. The seed proposes the fix without measuring it, so there is no paper point.",
        vec![chart],
    )
}

#[cfg(test)]
mod tests {
    use latlab_model::record::{RunRecord, Series};

    /// A udp record with a few receive gaps, its interval stored under `key` as a version stored it.
    fn record(key: &str) -> RunRecord {
        let mut r = RunRecord::new("udp", 0, Default::default());
        r.config(key, serde_json::json!({ "interval_ns": 1_000_000 }));
        r.series.push(Series {
            name: "recv_gap".into(),
            unit: "ns".into(),
            description: "gap".into(),
            values: vec![1_000_000, 2_000_000, 1_000_000],
        });
        r
    }

    #[test]
    fn the_gaps_figure_reads_the_interval_from_new_and_old_records() {
        // latlab.run/7 keeps the configuration in `settings`; earlier versions in `udp`.
        for key in [latlab_model::experiment::SETTINGS, "udp"] {
            assert!(super::fig_002_gaps(&record(key)).is_some(), "{key}");
        }
        assert!(super::fig_002_gaps(&record("other")).is_none());
    }
}
