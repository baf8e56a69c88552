//! Charts of samples and sweeps: histograms, CDFs, time series and a sweep table's curves.

use super::*;

/// Histogram of a series with logarithmic counts (so single outliers stay visible), with
/// `marks` (a value in the series' unit and its label: the modes found, the back wall) as
/// vertical lines named in the legend.
pub fn histogram(s: &Series, marks: &[(f64, String)]) -> Option<Chart> {
    let sum = stats::summarize(&s.values)?;
    let log_x = wants_log_axis(sum.min, sum.p50, sum.max) && log_spans_a_decade(sum.min as f64, sum.max as f64);
    // A log axis is read at its bulk; a linear one in the unit of its far end, so its ticks
    // stay short (a 2 s outlier among 10 µs wake-ups: 0–2 s, not 0–2,000,000 µs).
    let sc = if log_x {
        scale(&s.unit, sum.p50 as f64)
    } else {
        scale(&s.unit, sum.max.unsigned_abs().max(sum.min.unsigned_abs()) as f64)
    };
    let bins = if log_x {
        stats::histogram_log(&s.values, REPORT_HIST_BINS)
    } else {
        stats::histogram_linear(&s.values, REPORT_HIST_BINS)
    };
    let maxc = bins.iter().map(|b| b.count).max().unwrap_or(1).max(1) as f64;
    let (x0, x1) = (bins.first()?.lo / sc.div, bins.last()?.hi / sc.div);
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    let shown: Vec<(usize, &(f64, String))> = marks
        .iter()
        .filter(|(v, _)| (x0..=x1).contains(&(v / sc.div)) && (!log_x || *v > 0.0))
        .enumerate()
        .map(|(i, m)| (i + 1, m))
        .collect();
    let legend = shown
        .iter()
        .map(|(i, (_, l))| LegendItem { colour: hex(PALETTE[i % PALETTE.len()]), label: l.clone(), kind: "mark" })
        .collect();
    let top = if maxc >= 10.0 { maxc * 1.5 } else { 10.0 };
    let svg = render(|root| {
        let mut b = ChartBuilder::on(root);
        b.margin(10).x_label_area_size(36).y_label_area_size(56);
        macro_rules! draw {
            ($chart:expr) => {{
                let mut chart = $chart;
                chart
                    .configure_mesh()
                    .x_desc(desc(&s.name, &sc, log_x))
                    .y_desc("count (log)")
                    .x_labels(if log_x { decades(x0, x1) } else { 7 })
                    .y_labels(decades(0.8, top))
                    .x_label_formatter(if log_x { &log_tick } else { &tick })
                    .y_label_formatter(&log_tick)
                    .label_style(("sans-serif", 11))
                    .axis_desc_style(("sans-serif", 12))
                    .light_line_style(WHITE.mix(0.0))
                    .draw()?;
                chart.draw_series(bins.iter().filter(|b| b.count > 0).map(|b| {
                    Rectangle::new(
                        [(b.lo / sc.div, 0.8), (b.hi / sc.div, b.count as f64)],
                        PALETTE[0].mix(0.8).filled(),
                    )
                }))?;
                for (i, (v, _)) in &shown {
                    let x = v / sc.div;
                    chart.draw_series(LineSeries::new(
                        [(x, 0.8), (x, top)],
                        PALETTE[i % PALETTE.len()].stroke_width(2),
                    ))?;
                }
            }};
        }
        if log_x {
            draw!(b.build_cartesian_2d((x0..x1).log_scale(), (0.8f64..top).log_scale())?);
        } else {
            draw!(b.build_cartesian_2d(x0..x1, (0.8f64..top).log_scale())?);
        }
        Ok(())
    })?;
    Some(Chart { svg, legend })
}

/// Cumulative distribution of one or more series on one chart, each coloured by its name.
pub fn cdf(series: &[&Series]) -> Option<Chart> {
    let first = series.first()?;
    let sorted: Vec<Vec<i64>> = series.iter().map(|s| stats::sorted(&s.values)).collect();
    let hi = sorted.iter().filter_map(|v| v.last().copied()).max()?;
    let lo = sorted.iter().filter_map(|v| v.first().copied()).min()?;
    let med = stats::percentile_sorted(&sorted[0], 50.0)?;
    let curves = series
        .iter()
        .zip(&sorted)
        .map(|(s, v)| {
            // An arm or level keeps its fixed colour; anything else (a host) its own.
            let last = s.name.rsplit('.').next().unwrap_or(&s.name);
            let key = if FIXED.iter().any(|(k, _)| *k == last) { last } else { s.name.as_str() };
            let pts = stats::cdf_points(v, REPORT_CURVE_POINTS).into_iter().map(|(x, f)| (x as f64, f)).collect();
            Curve::line(s.name.clone(), if series.len() > 1 { key } else { "here" }, pts)
        })
        .collect();
    xy(&Xy {
        x_name: if series.len() == 1 { first.name.clone() } else { "value".into() },
        x_unit: first.unit.clone(),
        y_name: "fraction ≤ x".into(),
        y_unit: String::new(),
        log_x: wants_log_axis(lo, med, hi),
        curves,
        ..Default::default()
    })
}

/// Time series of a series against sample index, as a min/max envelope per bucket so that
/// single spikes survive thinning.
pub fn time_series(s: &Series) -> Option<Chart> {
    let n = s.values.len();
    if n == 0 {
        return None;
    }
    let buckets = REPORT_CURVE_POINTS.min(n);
    let per = n.div_ceil(buckets);
    let env: Vec<(f64, i64, i64)> = s
        .values
        .chunks(per)
        .enumerate()
        .map(|(i, c)| ((i * per) as f64, *c.iter().min().unwrap(), *c.iter().max().unwrap()))
        .collect();
    let hi_key = if n > per { "bucket max" } else { "value" };
    let mut curves = vec![Curve::line(hi_key, "l2", env.iter().map(|e| (e.0, e.2 as f64)).collect())];
    if per > 1 {
        curves.push(Curve::line("bucket min", "l1", env.iter().map(|e| (e.0, e.1 as f64)).collect()));
    }
    xy(&Xy { x_name: "sample".into(), y_name: s.name.clone(), y_unit: s.unit.clone(), curves, ..Default::default() })
}

pub(super) fn column_f64(t: &Table, col: &str) -> Option<Vec<f64>> {
    let i = t.columns.iter().position(|c| c.name == col)?;
    t.rows.iter().map(|r| r.get(i).and_then(|v| v.as_f64())).collect()
}

/// Sweep curves of a table with a plot hint: each y column against the x column, one chart
/// per y unit (one unit per axis).
pub fn sweep(t: &Table) -> Vec<Chart> {
    let Some(p) = t.plot.as_ref() else { return Vec::new() };
    let Some(xs) = column_f64(t, &p.x) else { return Vec::new() };
    let unit_of = |c: &str| t.columns.iter().find(|k| k.name == c).map(|k| k.unit.clone()).unwrap_or_default();
    let mut units: Vec<String> = Vec::new();
    for y in &p.ys {
        let u = unit_of(y);
        if !units.contains(&u) {
            units.push(u);
        }
    }
    units
        .iter()
        .filter_map(|u| {
            let curves: Vec<Curve> =
                p.ys.iter()
                    .filter(|y| unit_of(y) == *u)
                    .filter_map(|y| {
                        let v = column_f64(t, y)?;
                        let key = y.split(['_', ' ']).next().unwrap_or(y);
                        Some(Curve::line(y.clone(), key, xs.iter().copied().zip(v).collect()))
                    })
                    .collect();
            let y_name = if curves.len() == 1 { curves[0].label.clone() } else { String::new() };
            xy(&Xy {
                x_name: p.x.clone(),
                x_unit: unit_of(&p.x),
                y_name,
                y_unit: u.clone(),
                log_x: p.log_x,
                log_y: p.log_y,
                curves,
                ..Default::default()
            })
        })
        .collect()
}
