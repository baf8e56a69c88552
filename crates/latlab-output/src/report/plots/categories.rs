//! Charts by category: bars, min–typical–max ranges and Gantt charts, with their legends.

use super::*;

/// A category chart's legend: the groups, then the reference lines.
pub(super) fn legend_of<V>(c: &Categories<V>, group_kind: &'static str) -> Vec<LegendItem> {
    c.groups
        .iter()
        .map(|g| LegendItem {
            colour: hex(colour(&g.key)),
            label: g.label.clone(),
            kind: if g.key.starts_with("paper") { "outline" } else { group_kind },
        })
        .chain(c.y_marks.iter().map(|m| LegendItem {
            colour: hex(colour(&m.key)),
            label: m.label.clone(),
            kind: "mark",
        }))
        .collect()
}

/// Draw a [`Bars`] chart.
pub fn bars(spec: &Bars) -> Option<Chart> {
    let n = spec.categories.len();
    if n == 0 || spec.groups.is_empty() {
        return None;
    }
    let tops: Vec<f64> = if spec.stacked {
        (0..n).map(|i| spec.groups.iter().filter_map(|g| g.values.get(i).copied().flatten()).sum()).collect()
    } else {
        spec.groups.iter().flat_map(|g| g.values.iter().copied().flatten()).collect()
    };
    let mut ys: Vec<f64> = tops.iter().copied().filter(|v| !spec.log_y || *v > 0.0).collect();
    ys.extend(spec.y_marks.iter().map(|m| m.at));
    if ys.is_empty() {
        return None;
    }
    let mut ay = axis(&ys, &spec.y_unit, spec.log_y, true)?;
    if !ay.log {
        ay.lo = 0.0;
    }
    let floor = if ay.log { ay.lo } else { 0.0 };
    let labels: Vec<String> = spec.categories.iter().map(|c| short(c)).collect();
    let legend = legend_of(spec, "bar");
    let svg = render(|root| {
        let mut b = ChartBuilder::on(root);
        b.margin(10).x_label_area_size(36).y_label_area_size(56);
        let k = spec.groups.len() as f64;
        let width = if spec.stacked { 0.6 } else { 0.8 / k };
        macro_rules! draw {
            ($chart:expr) => {{
                let mut chart = $chart;
                category_mesh!(chart, &labels, ay, &spec.y_name);
                let mut base = vec![floor; n];
                for (gi, g) in spec.groups.iter().enumerate() {
                    let col = colour(&g.key);
                    let mut rects = Vec::new();
                    for (i, v) in g.values.iter().enumerate() {
                        let Some(v) = v else { continue };
                        let v = v / ay.scale.div;
                        if ay.log && v <= 0.0 {
                            continue;
                        }
                        let (x0, y0, y1) = if spec.stacked {
                            let y0 = base[i];
                            base[i] += v;
                            (i as f64 + 0.2, y0, y0 + v)
                        } else {
                            (i as f64 + 0.1 + gi as f64 * width, floor, v)
                        };
                        let style =
                            if g.key.starts_with("paper") { col.stroke_width(2) } else { col.mix(0.85).filled() };
                        rects.push(Rectangle::new([(x0, y0), (x0 + width, y1)], style));
                    }
                    chart.draw_series(rects)?;
                }
                category_marks!(chart, spec, ay, n);
            }};
        }
        if ay.log {
            draw!(b.build_cartesian_2d(0f64..n as f64, (ay.lo..ay.hi).log_scale())?);
        } else {
            draw!(b.build_cartesian_2d(0f64..n as f64, ay.lo..ay.hi)?);
        }
        Ok(())
    })?;
    Some(Chart { svg, legend })
}

/// A Gantt chart of a table named `*.gantt`: one row per table row (labelled by the first
/// column), one bar per pair of columns `<state> start` / `<state> ready` (in the columns'
/// unit), the states side by side within a row. Rows with no times (a disabled service)
/// keep their label and have no bar.
pub fn gantt(t: &Table) -> Option<Chart> {
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
    let bottom_up: Vec<String> =
        t.rows.iter().rev().map(|r| short(r.first().and_then(|v| v.as_str()).unwrap_or(""))).collect();
    let n = t.rows.len();
    let band = 0.8 / pairs.len() as f64;
    let legend = pairs
        .iter()
        .map(|(state, _, _)| LegendItem { colour: hex(colour(state)), label: state.clone(), kind: "bar" })
        .collect();
    let svg = render(|root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(96)
            .build_cartesian_2d(0.0..xmax * 1.05, 0.0..n as f64)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc(if unit.is_empty() { "time".to_string() } else { format!("time ({unit})") })
            .y_labels(n * 2 + 1)
            // Each row labelled at its middle; rows are drawn top to bottom.
            .y_label_formatter(&|y: &f64| slot_label(&bottom_up, *y))
            .x_label_formatter(&tick)
            .label_style(("sans-serif", 10))
            .axis_desc_style(("sans-serif", 12))
            .draw()?;
        for (k, (state, si, ri)) in pairs.iter().enumerate() {
            let c = colour(state);
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
            chart.draw_series(bars)?;
        }
        Ok(())
    })?;
    Some(Chart { svg, legend })
}

/// Draw a [`Ranges`] chart.
pub fn ranges(spec: &Ranges) -> Option<Chart> {
    let n = spec.categories.len();
    let ys: Vec<f64> = spec
        .groups
        .iter()
        .flat_map(|g| g.values.iter().flatten().flat_map(|&(a, b, c)| [a, b, c]))
        .chain(spec.y_marks.iter().map(|m| m.at))
        .filter(|v| !spec.log_y || *v > 0.0)
        .collect();
    if n == 0 || ys.is_empty() {
        return None;
    }
    let ay = axis(&ys, &spec.y_unit, spec.log_y, true)?;
    let labels: Vec<String> = spec.categories.iter().map(|c| short(c)).collect();
    let legend = legend_of(spec, "bar");
    let svg = render(|root| {
        let mut b = ChartBuilder::on(root);
        b.margin(10).x_label_area_size(36).y_label_area_size(56);
        let k = spec.groups.len() as f64;
        let width = 0.7 / k;
        macro_rules! draw {
            ($chart:expr) => {{
                let mut chart = $chart;
                category_mesh!(chart, &labels, ay, &spec.y_name);
                for (gi, g) in spec.groups.iter().enumerate() {
                    let col = colour(&g.key);
                    let paper = g.key.starts_with("paper");
                    for (i, v) in g.values.iter().enumerate() {
                        let Some((lo, typ, hi)) = v else { continue };
                        let d = ay.scale.div;
                        let (lo, typ, hi) = (lo / d, typ / d, hi / d);
                        if ay.log && (lo <= 0.0 || hi <= 0.0) {
                            continue;
                        }
                        let x0 = i as f64 + 0.15 + gi as f64 * width;
                        let style = if paper { col.stroke_width(2) } else { col.mix(0.6).filled() };
                        chart.draw_series([Rectangle::new([(x0, lo), (x0 + width * 0.8, hi.max(lo))], style)])?;
                        if !ay.log || typ > 0.0 {
                            chart.draw_series([PathElement::new(
                                vec![(x0 - width * 0.1, typ), (x0 + width * 0.9, typ)],
                                col.stroke_width(3),
                            )])?;
                        }
                    }
                }
                category_marks!(chart, spec, ay, n);
            }};
        }
        if ay.log {
            draw!(b.build_cartesian_2d(0f64..n as f64, (ay.lo..ay.hi).log_scale())?);
        } else {
            draw!(b.build_cartesian_2d(0f64..n as f64, ay.lo..ay.hi)?);
        }
        Ok(())
    })?;
    Some(Chart { svg, legend })
}
