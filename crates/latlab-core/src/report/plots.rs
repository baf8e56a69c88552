//! Plots for the HTML report, drawn with plotters into SVG strings: histogram with
//! log-scale counts, CDF, time series (min/max envelope) and sweep curves. Pure functions of
//! data; every SVG they return is a standalone, well-formed document.

use crate::defaults::{REPORT_CURVE_POINTS, REPORT_HIST_BINS};
use crate::record::{Series, Table};
use crate::stats;
use plotters::prelude::*;

const W: u32 = 520;
const H: u32 = 300;
const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// A display unit for a value axis: divide by `div`, label with `label`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisUnit {
    /// Divisor applied to raw values.
    pub div: f64,
    /// Unit label.
    pub label: &'static str,
}

/// Pick a readable unit for values of magnitude `typical` in `unit`.
pub fn axis_unit(unit: &str, typical: f64) -> AxisUnit {
    if unit != "ns" {
        return AxisUnit { div: 1.0, label: "" };
    }
    let t = typical.abs();
    if t < 1e3 {
        AxisUnit { div: 1.0, label: "ns" }
    } else if t < 1e6 {
        AxisUnit { div: 1e3, label: "µs" }
    } else if t < 1e9 {
        AxisUnit { div: 1e6, label: "ms" }
    } else {
        AxisUnit { div: 1e9, label: "s" }
    }
}

fn unit_label(u: AxisUnit, raw_unit: &str) -> String {
    if u.label.is_empty() { raw_unit.to_string() } else { u.label.to_string() }
}

/// Compact tick label: no trailing `.0`, at most three significant decimals.
pub fn tick(v: &f64) -> String {
    let a = v.abs();
    if a >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        // Enough decimals for three significant digits, however small the value.
        let d = if a >= 10.0 {
            1
        } else if a >= 1.0 {
            2
        } else {
            ((-a.log10()).floor() as usize + 3).min(12)
        };
        let s = format!("{v:.d$}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A series is drawn on a logarithmic value axis when it is positive and heavy-tailed (its
/// maximum more than 50× its median), so the bulk and the tail are both visible.
pub fn wants_log_axis(min: i64, p50: i64, max: i64) -> bool {
    min > 0 && max > p50.max(1).saturating_mul(50)
}

/// The mesh every chart uses: axis descriptions, compact tick labels, small font.
macro_rules! mesh {
    ($chart:expr, $xdesc:expr, $ydesc:expr) => {
        $chart
            .configure_mesh()
            .x_desc($xdesc)
            .y_desc($ydesc)
            .x_labels(8)
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .label_style(("sans-serif", 11))
            .draw()?
    };
}

/// The legend box of multi-curve charts.
macro_rules! legend {
    ($chart:expr, $pos:expr) => {
        $chart
            .configure_series_labels()
            .position($pos)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 10))
            .draw()?
    };
}

type PlotResult = Result<(), Box<dyn std::error::Error>>;

fn render(f: impl FnOnce(&DrawingArea<SVGBackend, plotters::coord::Shift>) -> PlotResult) -> Option<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (W, H)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        f(&root).ok()?;
        root.present().ok()?;
    }
    Some(out)
}

/// Histogram of a series with logarithmic counts (so single outliers stay visible), with
/// `marks` (a value in the series' unit and its label: the modes found, the back wall) as
/// labelled vertical lines.
pub fn histogram(s: &Series, marks: &[(f64, String)]) -> Option<String> {
    let sum = stats::summarize(&s.values)?;
    let u = axis_unit(&s.unit, sum.p50 as f64);
    let log_x = wants_log_axis(sum.min, sum.p50, sum.max);
    let bins = if log_x {
        stats::histogram_log(&s.values, REPORT_HIST_BINS)
    } else {
        stats::histogram_linear(&s.values, REPORT_HIST_BINS)
    };
    let maxc = bins.iter().map(|b| b.count).max().unwrap_or(1).max(1) as f64;
    let (x0, x1) = (bins.first()?.lo / u.div, bins.last()?.hi / u.div);
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    let xdesc = format!("{}{}", unit_label(u, &s.unit), if log_x { " (log)" } else { "" });
    render(|root| {
        let mut b = ChartBuilder::on(root);
        b.caption(format!("{} — histogram", s.name), ("sans-serif", 14))
            .margin(8)
            .x_label_area_size(34)
            .y_label_area_size(52);
        macro_rules! draw {
            ($chart:expr) => {{
                let mut chart = $chart;
                mesh!(chart, xdesc.clone(), "count (log)");
                chart.draw_series(bins.iter().filter(|b| b.count > 0).map(|b| {
                    Rectangle::new([(b.lo / u.div, 0.8), (b.hi / u.div, b.count as f64)], PALETTE[0].mix(0.8).filled())
                }))?;
                let shown: Vec<_> =
                    marks.iter().filter(|(v, _)| (x0..=x1).contains(&(v / u.div)) && (!log_x || *v > 0.0)).collect();
                for (i, (v, label)) in shown.iter().enumerate() {
                    let c = PALETTE[(i + 1) % PALETTE.len()];
                    let x = v / u.div;
                    chart
                        .draw_series(LineSeries::new([(x, 0.8), (x, maxc * 1.5)], c.stroke_width(2)))?
                        .label(label.clone())
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)));
                }
                if !shown.is_empty() {
                    legend!(chart, SeriesLabelPosition::UpperRight);
                }
            }};
        }
        if log_x {
            draw!(b.build_cartesian_2d((x0..x1).log_scale(), (0.8f64..maxc * 1.5).log_scale())?);
        } else {
            draw!(b.build_cartesian_2d(x0..x1, (0.8f64..maxc * 1.5).log_scale())?);
        }
        Ok(())
    })
}

/// Cumulative distribution of one or more series on one chart.
pub fn cdf(series: &[&Series]) -> Option<String> {
    let first = series.first()?;
    let sorted: Vec<Vec<i64>> = series.iter().map(|s| stats::sorted(&s.values)).collect();
    let hi = sorted.iter().filter_map(|v| v.last().copied()).max()? as f64;
    let lo = sorted.iter().filter_map(|v| v.first().copied()).min()? as f64;
    let med = stats::percentile_sorted(&sorted[0], 50.0)?;
    let u = axis_unit(&first.unit, med as f64);
    let log_x = wants_log_axis(lo as i64, med, hi as i64);
    let (x0, x1) = (lo / u.div, if hi > lo { hi / u.div } else { lo / u.div + 1.0 });
    let title = if series.len() == 1 { format!("{} — CDF", first.name) } else { "CDF".to_string() };
    let xdesc = format!("{}{}", unit_label(u, &first.unit), if log_x { " (log)" } else { "" });
    render(|root| {
        let mut b = ChartBuilder::on(root);
        b.caption(title, ("sans-serif", 14)).margin(8).x_label_area_size(34).y_label_area_size(44);
        macro_rules! draw {
            ($chart:expr) => {{
                let mut chart = $chart;
                mesh!(chart, xdesc.clone(), "fraction ≤ x");
                for (i, (s, v)) in series.iter().zip(&sorted).enumerate() {
                    let c = PALETTE[i % PALETTE.len()];
                    let pts = stats::cdf_points(v, REPORT_CURVE_POINTS);
                    chart
                        .draw_series(LineSeries::new(
                            pts.into_iter().map(|(x, f)| (x as f64 / u.div, f)),
                            c.stroke_width(2),
                        ))?
                        .label(s.name.clone())
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)));
                }
                if series.len() > 1 {
                    legend!(chart, SeriesLabelPosition::LowerRight);
                }
            }};
        }
        if log_x {
            draw!(b.build_cartesian_2d((x0..x1).log_scale(), 0f64..1.0)?);
        } else {
            draw!(b.build_cartesian_2d(x0..x1, 0f64..1.0)?);
        }
        Ok(())
    })
}

/// Time series of a series against sample index, as a min/max envelope per bucket so that
/// single spikes survive thinning.
pub fn time_series(s: &Series) -> Option<String> {
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
    let lo = env.iter().map(|e| e.1).min()? as f64;
    let hi = env.iter().map(|e| e.2).max()? as f64;
    let med = stats::percentile(&s.values, 50.0)? as f64;
    let u = axis_unit(&s.unit, med);
    let (y0, y1) = (lo / u.div, if hi > lo { hi / u.div } else { lo / u.div + 1.0 });
    render(|root| {
        let mut chart = ChartBuilder::on(root)
            .caption(format!("{} — over the run", s.name), ("sans-serif", 14))
            .margin(8)
            .x_label_area_size(34)
            .y_label_area_size(52)
            .build_cartesian_2d(0f64..n.max(2) as f64, y0..y1)?;
        mesh!(chart, "sample", unit_label(u, &s.unit));
        chart
            .draw_series(LineSeries::new(env.iter().map(|e| (e.0, e.2 as f64 / u.div)), PALETTE[1].stroke_width(1)))?;
        chart
            .draw_series(LineSeries::new(env.iter().map(|e| (e.0, e.1 as f64 / u.div)), PALETTE[0].stroke_width(1)))?;
        Ok(())
    })
}

fn column_f64(t: &Table, col: &str) -> Option<Vec<f64>> {
    let i = t.columns.iter().position(|c| c.name == col)?;
    t.rows.iter().map(|r| r.get(i).and_then(|v| v.as_f64())).collect()
}

/// Sweep curves of a table with a plot hint: each y column against the x column.
pub fn sweep(t: &Table) -> Option<String> {
    let p = t.plot.as_ref()?;
    let xs = column_f64(t, &p.x)?;
    let ys: Vec<(String, Vec<f64>)> = p.ys.iter().filter_map(|y| Some((y.clone(), column_f64(t, y)?))).collect();
    if xs.is_empty() || ys.is_empty() {
        return None;
    }
    let yunit = t.columns.iter().find(|c| c.name == p.ys[0]).map(|c| c.unit.clone()).unwrap_or_default();
    let xunit = t.columns.iter().find(|c| c.name == p.x).map(|c| c.unit.clone()).unwrap_or_default();
    let all_y: Vec<f64> = ys.iter().flat_map(|(_, v)| v.iter().copied()).collect();
    let (ylo, yhi) = all_y.iter().fold((f64::MAX, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
    let (xlo, xhi) = xs.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let uy = axis_unit(&yunit, yhi);
    let ux = axis_unit(&xunit, xhi);
    let (x0, x1) = (xlo / ux.div, if xhi > xlo { xhi / ux.div } else { xlo / ux.div + 1.0 });
    let (y0, y1) = (ylo / uy.div, if yhi > ylo { yhi / uy.div } else { ylo / uy.div + 1.0 });
    let xl = format!("{} ({})", p.x, unit_label(ux, &xunit));
    let yl = unit_label(uy, &yunit);
    render(|root| {
        let mut b = ChartBuilder::on(root);
        b.caption(t.title.clone(), ("sans-serif", 14)).margin(8).x_label_area_size(34).y_label_area_size(52);
        macro_rules! draw {
            ($chart:expr) => {{
                let mut chart = $chart;
                mesh!(chart, xl.clone(), yl.clone());
                for (i, (name, v)) in ys.iter().enumerate() {
                    let c = PALETTE[i % PALETTE.len()];
                    let pts: Vec<(f64, f64)> = xs.iter().zip(v).map(|(&x, &y)| (x / ux.div, y / uy.div)).collect();
                    chart
                        .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?
                        .label(name.clone())
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)));
                    chart.draw_series(pts.into_iter().map(|pt| Circle::new(pt, 3, c.filled())))?;
                }
                legend!(chart, SeriesLabelPosition::UpperLeft);
            }};
        }
        let y_lo_log = (y0.max(1e-9) * 0.8).max(1e-9);
        match (p.log_x && x0 > 0.0, p.log_y && y0 > 0.0) {
            (true, true) => {
                draw!(b.build_cartesian_2d((x0 * 0.9..x1 * 1.1).log_scale(), (y_lo_log..y1 * 1.2).log_scale())?)
            }
            (true, false) => draw!(b.build_cartesian_2d((x0 * 0.9..x1 * 1.1).log_scale(), y0.min(0.0)..y1 * 1.1)?),
            (false, true) => draw!(b.build_cartesian_2d(x0..x1, (y_lo_log..y1 * 1.2).log_scale())?),
            (false, false) => draw!(b.build_cartesian_2d(x0..x1, y0.min(0.0)..y1 * 1.1)?),
        }
        Ok(())
    })
}

/// A Gantt chart of a table named `*.gantt`: one row per table row (labelled by the first
/// column), one bar per pair of columns `<state> start` / `<state> ready` (in the columns'
/// unit), the states side by side within a row. Rows with no times (a disabled service)
/// keep their label and have no bar.
pub fn gantt(t: &Table) -> Option<String> {
    if !t.name.ends_with(".gantt") || t.rows.is_empty() {
        return None;
    }
    let pairs: Vec<(String, usize, usize)> = t
        .columns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let state = c.name.strip_suffix(" start")?;
            let j = t.columns.iter().position(|d| d.name == format!("{state} ready"))?;
            Some((state.to_string(), i, j))
        })
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let unit = t.columns[pairs[0].1].unit.clone();
    let at = |r: &[serde_json::Value], i: usize| r.get(i).and_then(|v| v.as_f64());
    let xmax = t.rows.iter().flat_map(|r| pairs.iter().filter_map(|p| at(r, p.2))).fold(0.0f64, f64::max);
    if xmax <= 0.0 {
        return None;
    }
    let labels: Vec<String> =
        t.rows.iter().map(|r| r.first().and_then(|v| v.as_str()).unwrap_or("").to_string()).collect();
    let n = t.rows.len();
    let band = 0.8 / pairs.len() as f64;
    render(|root| {
        let mut chart = ChartBuilder::on(root)
            .caption(t.title.chars().take(90).collect::<String>(), ("sans-serif", 12))
            .margin(8)
            .x_label_area_size(34)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..xmax * 1.05, 0.0..n as f64)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc(if unit.is_empty() { "time".to_string() } else { format!("time ({unit})") })
            .y_labels(n * 2 + 1)
            .y_label_formatter(&|y: &f64| {
                // Label each row at its middle: rows are drawn top to bottom.
                let k = (*y - 0.5).round();
                if (*y - 0.5 - k).abs() < 1e-6 && k >= 0.0 && (k as usize) < n {
                    labels[n - 1 - k as usize].clone()
                } else {
                    String::new()
                }
            })
            .x_label_formatter(&tick)
            .label_style(("sans-serif", 10))
            .draw()?;
        for (k, (state, si, ri)) in pairs.iter().enumerate() {
            let c = PALETTE[k % PALETTE.len()];
            let bars: Vec<Rectangle<(f64, f64)>> = t
                .rows
                .iter()
                .enumerate()
                .filter_map(|(row, r)| {
                    let (s, e) = (at(r, *si)?, at(r, *ri)?);
                    let top = (n - row) as f64 - 0.1 - k as f64 * band;
                    Some(Rectangle::new([(s, top - band * 0.9), (e.max(s), top)], c.filled()))
                })
                .collect();
            chart
                .draw_series(bars)?
                .label(state.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], c.filled()));
        }
        legend!(chart, SeriesLabelPosition::LowerRight);
        Ok(())
    })
}
