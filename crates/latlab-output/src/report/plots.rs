//! Plots for the HTML report, drawn with plotters into SVG strings, and the rules every plot
//! follows (the report's "plot hygiene"):
//! - no text is drawn that could leave the plot: titles and legends are HTML beside the SVG
//!   (they wrap), tick labels are short ([`tick`]), long category labels are shortened;
//! - one unit per axis: a chart takes one y unit; a second quantity gets its own chart;
//! - the legend sits outside the data (under the plot, in HTML);
//! - logarithmic axes label decades only, and are used only across at least one decade;
//! - a curve of fewer than three points is drawn as points, not a line;
//! - a policy, codec, level or host keeps one colour in every plot ([`colour`]).
//!
//! Pure functions of data; every SVG they return is a standalone, well-formed document.

use crate::defaults::{REPORT_CURVE_POINTS, REPORT_HIST_BINS};
use latlab_model::numfmt::{Scale, scale, sig};
use latlab_model::record::{Series, Table};
use latlab_model::stats;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

pub use latlab_model::figure::{
    BarGroup, Bars, Categories, Curve, Group, Mark, MinTypMax, RangeGroup, Ranges, Style, Xy,
};

/// Size of every chart: two fit side by side on a laptop screen.
pub const W: u32 = 540;
/// Height of every chart.
pub const H: u32 = 300;
/// Widest a tick or category label may be, in characters, before it is shortened.
const MAX_LABEL_CHARS: usize = 14;

const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
    RGBColor(188, 189, 34),
    RGBColor(0, 95, 95),
];
/// The paper's points: black, whatever they stand beside.
const PAPER: RGBColor = RGBColor(0, 0, 0);
/// A second set of the paper's points (another system of the same study): grey.
const PAPER_2: RGBColor = RGBColor(120, 120, 120);

/// Keys with a fixed colour: cache policies, chain levels, scheduler policies, codecs. The
/// index is into the palette; unknown keys take a stable hash of their name.
const FIXED: &[(&str, usize)] = &[
    ("here", 0),
    ("lru", 0),
    ("fifo", 1),
    ("sieve", 2),
    ("s3fifo", 3),
    ("arc", 4),
    ("lirs", 5),
    ("opt", 8),
    ("l1", 0),
    ("l2", 1),
    ("hop", 2),
    ("load", 3),
    ("other", 0),
    ("idle", 1),
    ("baseline", 0),
    ("remedy", 2),
    ("mppc8", 0),
    ("mppc64", 1),
    ("ncrush", 2),
    ("xcrush", 3),
    ("none", 5),
    ("cold", 1),
    ("warm", 2),
    ("prefetch", 0),
    ("preloaded", 0),
    ("receive", 7),
    ("decrypt", 1),
    ("decompress", 2),
    ("decode", 3),
    ("cache", 4),
    ("blit", 5),
    ("capacity", 9),
];

/// The colour a key (policy, level, codec, host…) has in every plot of the report.
pub fn colour(key: &str) -> RGBColor {
    if key == "paper" {
        return PAPER;
    }
    if key.starts_with("paper") {
        return PAPER_2;
    }
    if let Some((_, i)) = FIXED.iter().find(|(k, _)| *k == key) {
        return PALETTE[*i];
    }
    let h = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    PALETTE[(h % PALETTE.len() as u64) as usize]
}

fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// One entry of a chart's legend, drawn in HTML under the plot.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LegendItem {
    /// CSS colour.
    pub colour: String,
    /// What the entry stands for.
    pub label: String,
    /// `line`, `points`, `paper` (a hollow diamond), `bar`, `outline` (a hollow bar) or
    /// `mark` (a dashed line): how the swatch is drawn.
    pub kind: &'static str,
}

/// A drawn chart: its SVG and its legend.
#[derive(Debug, Clone, Serialize)]
pub struct Chart {
    /// A standalone SVG document without an XML declaration.
    pub svg: String,
    /// Legend entries, in drawing order (empty for a single unlabelled curve).
    pub legend: Vec<LegendItem>,
}

/// Compact tick label: [`sig`]'s three significant digits, no padding zeros, and from 10,000
/// up a k, M or G suffix, so no label is wider than five characters and none at an axis' end
/// can run out of the plot (a 2 s outlier on a µs axis drew "2000000" half outside).
pub fn tick(v: &f64) -> String {
    let a = v.abs();
    match [(1e9, "G"), (1e6, "M"), (1e4, "k")].iter().find(|(at, _)| a >= *at) {
        Some((at, suffix)) => {
            let div = if *suffix == "k" { 1e3 } else { *at };
            format!("{}{suffix}", sig(v / div))
        }
        None => sig(*v),
    }
}

/// A tick label on a logarithmic axis: decades only, the other ticks unlabelled; from 10⁴
/// up and below 10⁻³ a power of ten (`10⁶`), as short as the decade is far.
pub fn log_tick(v: &f64) -> String {
    if !is_decade(*v) {
        return String::new();
    }
    let e = v.log10().round() as i32;
    if (-3..4).contains(&e) {
        return sig(*v);
    }
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let digits: String = e.unsigned_abs().to_string().chars().map(|c| SUP[c as usize - '0' as usize]).collect();
    format!("10{}{digits}", if e < 0 { "⁻" } else { "" })
}

/// How many labels to ask plotters for on a logarithmic axis over `lo..hi`: one per decade.
/// Asking for more makes plotters add minor ticks, and its last minor tick of a decade
/// repeats the next decade (drawn twice, overlapping).
fn decades(lo: f64, hi: f64) -> usize {
    if lo > 0.0 && hi > lo { ((hi / lo).log10().floor() as usize).max(1) } else { 1 }
}

fn is_decade(v: f64) -> bool {
    if v <= 0.0 {
        return false;
    }
    let l = v.log10();
    (l - l.round()).abs() < 1e-6
}

/// Whether a logarithmic axis is worth drawing over `lo..hi`: positive and at least one
/// decade wide (a narrower log axis would carry no decade label at all).
pub fn log_spans_a_decade(lo: f64, hi: f64) -> bool {
    lo > 0.0 && hi / lo >= 10.0
}

/// A series is drawn on a logarithmic value axis when it is positive and heavy-tailed (its
/// maximum more than 50× its median), so the bulk and the tail are both visible.
pub fn wants_log_axis(min: i64, p50: i64, max: i64) -> bool {
    min > 0 && max > p50.max(1).saturating_mul(50)
}

/// A display unit for a value axis (kept for callers that only scale nanoseconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisUnit {
    /// Divisor applied to raw values.
    pub div: f64,
    /// Unit label.
    pub label: &'static str,
}

/// Pick a readable unit for values of magnitude `typical` in `unit` (nanoseconds only).
pub fn axis_unit(unit: &str, typical: f64) -> AxisUnit {
    if unit != "ns" {
        return AxisUnit { div: 1.0, label: "" };
    }
    let s = scale("ns", typical);
    let label = match s.label.as_str() {
        "ns" => "ns",
        "µs" => "µs",
        "ms" => "ms",
        _ => "s",
    };
    AxisUnit { div: s.div, label }
}

/// `name (unit)` or `name` for plain numbers, with `, log` for a logarithmic axis.
fn desc(name: &str, s: &Scale, log: bool) -> String {
    let unit = match (s.label.is_empty(), log) {
        (true, false) => String::new(),
        (true, true) => " (log)".into(),
        (false, false) => format!(" ({})", s.label),
        (false, true) => format!(" ({}, log)", s.label),
    };
    format!("{name}{unit}")
}

/// Shorten a label to 14 characters (`MAX_LABEL_CHARS`) so it cannot run out of its axis area.
pub fn short(label: &str) -> String {
    if label.chars().count() <= MAX_LABEL_CHARS {
        label.to_string()
    } else {
        let mut s: String = label.chars().take(MAX_LABEL_CHARS - 1).collect();
        s.push('…');
        s
    }
}

type PlotResult = Result<(), Box<dyn std::error::Error>>;

/// The label of the category whose slot (one unit wide, the first from 0 to 1) has its middle
/// at `x`; other ticks are unlabelled.
fn slot_label(labels: &[String], x: f64) -> String {
    let i = (x - 0.5).round();
    if (x - 0.5 - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
        labels[i as usize].clone()
    } else {
        String::new()
    }
}

/// A category chart's horizontal reference lines (`spec.y_marks`), dashed across all `n`
/// slots; a non-positive one is left off a logarithmic axis.
macro_rules! category_marks {
    ($chart:expr, $spec:expr, $ay:expr, $n:expr) => {
        for m in &$spec.y_marks {
            let y = m.at / $ay.scale.div;
            if !$ay.log || y > 0.0 {
                $chart.draw_series(dashed((0.0, y), ($n as f64, y), colour(&m.key), true, false))?;
            }
        }
    };
}

/// The mesh of a chart with categories along x (`labels`, one slot each) and the value axis
/// `ay` named `y_name`.
macro_rules! category_mesh {
    ($chart:expr, $labels:expr, $ay:expr, $y_name:expr) => {
        $chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels($labels.len() * 2 + 1)
            .x_label_formatter(&|x: &f64| slot_label($labels, *x))
            .y_desc(desc($y_name, &$ay.scale, $ay.log))
            .y_labels(if $ay.log { decades($ay.lo, $ay.hi) } else { 7 })
            .y_label_formatter(if $ay.log { &log_tick } else { &tick })
            .label_style(("sans-serif", 11))
            .axis_desc_style(("sans-serif", 12))
            .light_line_style(WHITE.mix(0.0))
            .draw()?
    };
}

fn strip_xml_decl(svg: String) -> String {
    match svg.strip_prefix("<?xml") {
        Some(rest) => rest.split_once("?>").map(|(_, r)| r.trim_start().to_string()).unwrap_or_default(),
        None => svg,
    }
}

fn render(f: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> PlotResult) -> Option<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (W, H)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        f(&root).ok()?;
        root.present().ok()?;
    }
    Some(strip_xml_decl(out))
}

/// Range of values with a margin; a degenerate range is widened so the axis exists.
fn span(lo: f64, hi: f64, log: bool) -> (f64, f64) {
    if log {
        (lo * 0.8, hi * 1.25)
    } else if hi > lo {
        let m = (hi - lo) * 0.05;
        (lo - m, hi + m)
    } else {
        let m = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        (lo - m, hi + m)
    }
}

/// An axis as built: scale, range (in displayed units) and whether it is logarithmic.
struct Axis {
    scale: Scale,
    lo: f64,
    hi: f64,
    log: bool,
}

fn axis(values: &[f64], unit: &str, want_log: bool, from_zero: bool) -> Option<Axis> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        return None;
    }
    let s = scale(unit, hi.abs().max(lo.abs()));
    let (lo, hi) = (lo / s.div, hi / s.div);
    let log = want_log && log_spans_a_decade(lo, hi);
    let (mut a, b) = span(lo, hi, log);
    if from_zero && !log && lo >= 0.0 {
        a = 0.0;
    }
    Some(Axis { scale: s, lo: a, hi: b, log })
}

/// Draw an [`Xy`] chart.
pub fn xy(spec: &Xy) -> Option<Chart> {
    let curves: Vec<&Curve> = spec.curves.iter().filter(|c| !c.pts.is_empty()).collect();
    if curves.is_empty() {
        return None;
    }
    let xs: Vec<f64> = curves
        .iter()
        .flat_map(|c| c.pts.iter().map(|p| p.0))
        .chain(spec.x_marks.iter().map(|m| m.at))
        .filter(|x| !spec.log_x || *x > 0.0)
        .collect();
    let ys: Vec<f64> = curves
        .iter()
        .flat_map(|c| c.pts.iter().map(|p| p.1))
        .chain(spec.y_marks.iter().map(|m| m.at))
        .filter(|y| !spec.log_y || *y > 0.0)
        .collect();
    let ax = axis(&xs, &spec.x_unit, spec.log_x, false)?;
    let ay = axis(&ys, &spec.y_unit, spec.log_y, spec.y_from_zero)?;
    let mut legend = Vec::new();
    for c in &curves {
        let kind = match c.style {
            Style::Paper => "paper",
            Style::Points => "points",
            Style::Line if c.pts.len() < 3 => "points",
            Style::Line => "line",
        };
        legend.push(LegendItem { colour: hex(colour(&c.key)), label: c.label.clone(), kind });
    }
    for m in spec.x_marks.iter().chain(&spec.y_marks) {
        legend.push(LegendItem { colour: hex(colour(&m.key)), label: m.label.clone(), kind: "mark" });
    }
    let svg = render(|root| {
        let mut b = ChartBuilder::on(root);
        b.margin(10).x_label_area_size(36).y_label_area_size(56);
        macro_rules! draw {
            ($chart:expr) => {{
                let mut chart = $chart;
                chart
                    .configure_mesh()
                    .x_desc(desc(&spec.x_name, &ax.scale, ax.log))
                    .y_desc(desc(&spec.y_name, &ay.scale, ay.log))
                    .x_labels(if ax.log { decades(ax.lo, ax.hi) } else { 7 })
                    .y_labels(if ay.log { decades(ay.lo, ay.hi) } else { 7 })
                    .x_label_formatter(if ax.log { &log_tick } else { &tick })
                    .y_label_formatter(if ay.log { &log_tick } else { &tick })
                    .label_style(("sans-serif", 11))
                    .axis_desc_style(("sans-serif", 12))
                    .light_line_style(WHITE.mix(0.0))
                    .draw()?;
                let (dx, dy) = (ax.scale.div, ay.scale.div);
                let keep = |p: &(f64, f64)| (!ax.log || p.0 > 0.0) && (!ay.log || p.1 > 0.0);
                for c in &curves {
                    let col = colour(&c.key);
                    let pts: Vec<(f64, f64)> = c.pts.iter().filter(|p| keep(p)).map(|p| (p.0 / dx, p.1 / dy)).collect();
                    match c.style {
                        Style::Paper => {
                            chart.draw_series(pts.iter().map(|&p| {
                                EmptyElement::at(p)
                                    + Polygon::new(vec![(0, -6), (6, 0), (0, 6), (-6, 0)], WHITE.filled())
                                    + PathElement::new(
                                        vec![(0, -6), (6, 0), (0, 6), (-6, 0), (0, -6)],
                                        col.stroke_width(2),
                                    )
                            }))?;
                        }
                        Style::Line if pts.len() >= 3 => {
                            chart.draw_series(LineSeries::new(pts.clone(), col.stroke_width(2)))?;
                            if pts.len() <= 40 {
                                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, col.filled())))?;
                            }
                        }
                        _ => {
                            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, col.filled())))?;
                        }
                    }
                }
                let (xr, yr) = ((ax.lo, ax.hi), (ay.lo, ay.hi));
                for m in &spec.x_marks {
                    let x = m.at / dx;
                    if x >= xr.0 && x <= xr.1 && (!ax.log || x > 0.0) {
                        chart.draw_series(dashed((x, yr.0), (x, yr.1), colour(&m.key), m.key == "paper", ay.log))?;
                    }
                }
                for m in &spec.y_marks {
                    let y = m.at / dy;
                    if y >= yr.0 && y <= yr.1 && (!ay.log || y > 0.0) {
                        chart.draw_series(dashed((xr.0, y), (xr.1, y), colour(&m.key), m.key == "paper", ax.log))?;
                    }
                }
            }};
        }
        match (ax.log, ay.log) {
            (true, true) => draw!(b.build_cartesian_2d((ax.lo..ax.hi).log_scale(), (ay.lo..ay.hi).log_scale())?),
            (true, false) => draw!(b.build_cartesian_2d((ax.lo..ax.hi).log_scale(), ay.lo..ay.hi)?),
            (false, true) => draw!(b.build_cartesian_2d(ax.lo..ax.hi, (ay.lo..ay.hi).log_scale())?),
            (false, false) => draw!(b.build_cartesian_2d(ax.lo..ax.hi, ay.lo..ay.hi)?),
        }
        Ok(())
    })?;
    Some(Chart {
        svg,
        legend: if legend.len() > 1 || !spec.x_marks.is_empty() || !spec.y_marks.is_empty() {
            legend
        } else {
            Vec::new()
        },
    })
}

/// A reference line from `a` to `b`, dashed for the paper's values. Drawn as short segments
/// (plotters has no dash style for SVG), geometric along a logarithmic axis.
fn dashed(a: (f64, f64), b: (f64, f64), c: RGBColor, dash: bool, log: bool) -> Vec<PathElement<(f64, f64)>> {
    if !dash {
        return vec![PathElement::new(vec![a, b], c.stroke_width(2))];
    }
    let n = 24;
    let at = |t: f64| -> (f64, f64) {
        let lerp = |u: f64, v: f64| {
            if log && u > 0.0 && v > 0.0 { u * (v / u).powf(t) } else { u + (v - u) * t }
        };
        (lerp(a.0, b.0), lerp(a.1, b.1))
    };
    (0..n)
        .map(|i| {
            let t0 = i as f64 / n as f64;
            PathElement::new(vec![at(t0), at(t0 + 0.5 / n as f64)], c.stroke_width(2))
        })
        .collect()
}

mod categories;
mod distributions;
pub use categories::{bars, gantt, ranges};
pub use distributions::{cdf, histogram, sweep, time_series};
