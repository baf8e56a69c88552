//! Seed 001's figures from an `rt` run: Figure 8 (the sweep) and Figure 11 (start latency per
//! level), with the paper's points.

use crate::paper::{FIGURE_8_LOADED, FIGURE_11};
use latlab_model::figure::{
    Chart, Curve, Figure, MinTypMax, RangeGroup, Ranges, Xy, col, col_str, mark, metric, pairs, paper_curve, table,
};
use latlab_model::numfmt::sig;
use latlab_model::record::RunRecord;

/// Every figure an `rt` record can draw.
pub fn figures(r: &RunRecord) -> Vec<Figure> {
    [fig_001_8(r), fig_001_11(r)].into_iter().flatten().collect()
}

/// Seed 001, Figure 8: pulses delivered per level and the load's progress against the
/// stimulus rate; MF where a level starts missing, SF where the load stops.
fn fig_001_8(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "rt.sweep")?;
    let x = col(t, "rate_hz", None)?;
    let mut curves = Vec::new();
    for (c, label, key) in [
        ("l1_delivered", "level 1 (ISR) pulses delivered", "l1"),
        ("l2_delivered", "level 2 (APP) pulses delivered", "l2"),
        ("load_progress", "load progress", "load"),
    ] {
        if let Some(y) = col(t, c, None) {
            curves.push(Curve::line(label, key, pairs(&x, &y)));
        }
    }
    // Figure 8, loaded: MF-ISR / MF-APP / SF. Drawn at 100 % delivered (MF) and at 0 % load
    // progress (SF), where the figure's definitions put them.
    for (i, (system, [isr, app, sf])) in FIGURE_8_LOADED.iter().enumerate() {
        let khz = |v: &f64| sig(v / 1e3);
        let label = if i == 0 {
            format!(
                "paper, {system} loaded: MF-ISR {} kHz, MF-APP {} kHz (at 100 %), SF {} kHz (at 0 %)",
                khz(isr),
                khz(app),
                khz(sf)
            )
        } else {
            format!("paper, {system} loaded: MF-ISR {} kHz, MF-APP {} kHz, SF {} kHz", khz(isr), khz(app), khz(sf))
        };
        let key = if i == 0 { "paper" } else { "paper-net" };
        curves.push(paper_curve(&label, key, vec![(*isr, 1.0), (*app, 1.0), (*sf, 0.0)]));
    }
    let mut x_marks = Vec::new();
    for (m, label, key) in [
        ("sweep.mf_l1_hz", "MF-ISR here", "l1"),
        ("sweep.mf_l2_hz", "MF-APP here", "l2"),
        ("sweep.sf_hz", "SF here", "load"),
    ] {
        if let Some(v) = metric(r, m) {
            x_marks.push(mark(v, format!("{label}: {}", latlab_model::numfmt::value(v.into(), "Hz")), key));
        }
    }
    let chart = Some(Chart::Xy(Xy {
        x_name: "stimulus rate".into(),
        x_unit: "Hz".into(),
        y_name: "delivered / progress".into(),
        y_unit: "ratio".into(),
        log_x: true,
        y_from_zero: true,
        curves,
        x_marks,
        ..Default::default()
    }));
    Figure::new(
        "fig-001-8",
        "Seed 001, Figure 8: pulses delivered and load progress against the stimulus rate, loaded",
        "Read where each level's line leaves 100 %: that rate is its MF (the vertical lines); where the load's progress falls to 0 is SF (its line). The diamonds are the paper's MF and SF on a StrongARM SA-1110 at 206 MHz with Polygons as the load.",
        vec![chart],
    )
}

/// Seed 001, Figure 11: start latency min–max with the typical value, per level, unloaded and
/// loaded, this machine beside CE 3.0 and CE .NET.
fn fig_001_11(r: &RunRecord) -> Option<Figure> {
    let t = table(r, "rt.phases")?;
    let (phase, level) = (col_str(t, "phase")?, col_str(t, "level")?);
    let (min, p50, max) = (col(t, "min", None)?, col(t, "p50", None)?, col(t, "max", None)?);
    // The figure's order: ISR then APP, unloaded then loaded.
    let order = [("unloaded", "l1"), ("unloaded", "l2"), ("loaded", "l1"), ("loaded", "l2")];
    let here: Vec<Option<(f64, f64, f64)>> = order
        .iter()
        .map(|(ph, lv)| {
            let i = (0..phase.len()).find(|&i| phase[i] == *ph && level[i] == *lv)?;
            Some((min[i]?, p50[i]?, max[i]?))
        })
        .collect();
    // The paper's min–max with a bar at its latency (µs → ns), from the rows' Figure 11.
    let paper = |k: usize| -> Vec<Option<MinTypMax>> {
        order
            .iter()
            .map(|(ph, lv)| {
                let row = FIGURE_11.iter().find(|(l, p, _)| l == lv && p == ph)?;
                let [max, min, _, latency] = row.2[k].1;
                Some((min * 1e3, latency * 1e3, max * 1e3))
            })
            .collect()
    };
    let chart = Some(Chart::Ranges(Ranges {
        categories: vec!["ISR unloaded".into(), "APP unloaded".into(), "ISR loaded".into(), "APP loaded".into()],
        groups: vec![
            RangeGroup { label: "here: min–max, bar at the median".into(), key: "here".into(), values: here },
            RangeGroup {
                label: "paper, CE 3.0: min–max, bar at its latency".into(),
                key: "paper".into(),
                values: paper(0),
            },
            RangeGroup { label: "paper, CE .NET".into(), key: "paper-net".into(), values: paper(1) },
        ],
        y_name: "start latency".into(),
        y_unit: "ns".into(),
        log_y: true,
        ..Default::default()
    }));
    Figure::new(
        "fig-001-11",
        "Seed 001, Figure 11: start latency per level, unloaded and loaded",
        "Read the height of each range (the jitter) and its top (the back wall) against the paper's. Here level 1 is a timer-woken thread and level 2 the thread it wakes; there an ISR and an application thread on a StrongARM SA-1110 at 206 MHz, timed by an oscilloscope at 5 kHz.",
        vec![chart],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_model::figure::Style;
    use latlab_model::record::{Column, Table};

    #[test]
    fn an_rt_run_draws_figures_8_and_11_with_the_papers_points() {
        let mut r = RunRecord::new("rt", 0, Default::default());
        let c = Column::new;
        r.tables.push(Table {
            name: "rt.sweep".into(),
            title: "sweep".into(),
            columns: vec![
                c("rate_hz", "Hz"),
                c("l1_delivered", "ratio"),
                c("l2_delivered", "ratio"),
                c("load_progress", "ratio"),
            ],
            rows: [1e3, 1e4].iter().map(|&f| vec![f.into(), 1.0.into(), 1.0.into(), 1.0.into()]).collect(),
            plot: None,
        });
        assert_eq!(figures(&r).iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), ["fig-001-8"]);
        let rows = ["unloaded", "loaded"]
            .iter()
            .flat_map(|p| ["l1", "l2"].map(|l| vec![(*p).into(), l.into(), 2_000.into(), 5_000.into(), 40_000.into()]))
            .collect();
        r.tables.push(Table {
            name: "rt.phases".into(),
            title: "phases".into(),
            columns: vec![c("phase", ""), c("level", ""), c("min", "ns"), c("p50", "ns"), c("max", "ns")],
            rows,
            plot: None,
        });
        let f = figures(&r);
        assert_eq!(f.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), ["fig-001-8", "fig-001-11"]);
        // Figure 8 carries the paper's MF and SF per CE; Figure 11 a group per CE.
        let Chart::Xy(x) = &f[0].charts[0] else { panic!("Figure 8 is an x-y chart") };
        let paper: Vec<_> = x.curves.iter().filter(|c| c.style == Style::Paper).collect();
        assert_eq!(paper.len(), 2);
        assert!(paper[0].pts.contains(&(127e3, 1.0)) && paper[1].pts.contains(&(47e3, 1.0)));
        let Chart::Ranges(g) = &f[1].charts[0] else { panic!("Figure 11 is a range chart") };
        assert_eq!(g.groups.len(), 3);
        assert_eq!(g.groups[0].values.len(), 4);
    }
}
