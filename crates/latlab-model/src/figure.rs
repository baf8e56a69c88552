//! Figures as data: what a study's figure shows (curves, bars, ranges, the paper's points and
//! reference lines, a title and a caption saying what to read), declared by the experiment
//! that owns the study and drawn by the report, which adds nothing of its own.

use crate::record::{RunRecord, Series, Table};

/// A figure: a title, a caption saying what to read from it, and one or more charts (one per
/// unit). `id` is stable (`fig-001-8`) so a reader or a test can find it.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Stable id.
    pub id: String,
    /// Title.
    pub title: String,
    /// What to read from it.
    pub caption: String,
    /// Its charts.
    pub charts: Vec<Chart>,
}

impl Figure {
    /// A figure of these charts; `None` when none of them could be built.
    pub fn new(id: &str, title: &str, caption: impl Into<String>, charts: Vec<Option<Chart>>) -> Option<Self> {
        let charts: Vec<Chart> = charts.into_iter().flatten().collect();
        (!charts.is_empty()).then(|| Figure { id: id.into(), title: title.into(), caption: caption.into(), charts })
    }
}

/// One chart of a figure.
#[derive(Debug, Clone)]
pub enum Chart {
    /// Curves against a numeric x axis.
    Xy(Xy),
    /// Bars per category.
    Bars(Bars),
    /// A min–typical–max range per category.
    Ranges(Ranges),
    /// The distributions of these series, overlaid.
    Cdf(Vec<Series>),
    /// A table of start and end times as a Gantt chart.
    Gantt(Table),
    /// A sweep table: its numeric columns against its first.
    Sweep(Table),
}

/// How a curve is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Style {
    /// A line through markers (points when there are fewer than three).
    Line,
    /// Markers only.
    Points,
    /// The paper's values: black hollow diamonds, never joined.
    Paper,
}

/// A named curve of an [`Xy`] chart, coloured by `key`.
#[derive(Debug, Clone)]
pub struct Curve {
    /// Legend text.
    pub label: String,
    /// Colour key (the report gives each key one colour in every plot).
    pub key: String,
    /// Points in raw units.
    pub pts: Vec<(f64, f64)>,
    /// Drawing style.
    pub style: Style,
}

impl Curve {
    /// A line coloured by `key`.
    pub fn line(label: impl Into<String>, key: &str, pts: Vec<(f64, f64)>) -> Self {
        Curve { label: label.into(), key: key.into(), pts, style: Style::Line }
    }
    /// The paper's points.
    pub fn paper(label: impl Into<String>, pts: Vec<(f64, f64)>) -> Self {
        Curve { label: label.into(), key: "paper".into(), pts, style: Style::Paper }
    }
}

/// A vertical (`x`) or horizontal (`y`) reference line, labelled in the legend.
#[derive(Debug, Clone)]
pub struct Mark {
    /// Position in the axis' raw unit.
    pub at: f64,
    /// Legend text.
    pub label: String,
    /// Colour key; `paper` draws it dashed black.
    pub key: String,
}

/// An x–y chart: curves in one x unit and one y unit, with reference lines.
#[derive(Debug, Clone, Default)]
pub struct Xy {
    /// X quantity name (the unit is appended).
    pub x_name: String,
    /// Raw x unit (`ns`, `B/s`, `ratio`, `Hz`, …), scaled for reading when drawn.
    pub x_unit: String,
    /// Y quantity name.
    pub y_name: String,
    /// Raw y unit.
    pub y_unit: String,
    /// Ask for a logarithmic x axis (used only when the data span a decade).
    pub log_x: bool,
    /// Ask for a logarithmic y axis.
    pub log_y: bool,
    /// Start the y axis at zero (linear axes only).
    pub y_from_zero: bool,
    /// The curves.
    pub curves: Vec<Curve>,
    /// Vertical reference lines.
    pub x_marks: Vec<Mark>,
    /// Horizontal reference lines.
    pub y_marks: Vec<Mark>,
}

/// One group of a category chart: a value per category (a bar's height, or a range), coloured
/// by `key` (`paper…` keys: the paper's values, drawn as black or grey outlines).
#[derive(Debug, Clone, Default)]
pub struct Group<V> {
    /// Legend text.
    pub label: String,
    /// Colour key.
    pub key: String,
    /// A value per category (`None`: nothing drawn).
    pub values: Vec<Option<V>>,
}

/// A chart with categories along x and one group of values per legend entry: bars
/// ([`Bars`]) or ranges ([`Ranges`]).
#[derive(Debug, Clone, Default)]
pub struct Categories<V> {
    /// Category labels along x (shortened to fit).
    pub categories: Vec<String>,
    /// The groups.
    pub groups: Vec<Group<V>>,
    /// Y quantity name.
    pub y_name: String,
    /// Raw y unit.
    pub y_unit: String,
    /// Ask for a logarithmic y axis.
    pub log_y: bool,
    /// Bars only: stack the groups instead of placing them side by side.
    pub stacked: bool,
    /// Horizontal reference lines.
    pub y_marks: Vec<Mark>,
}

/// A bar chart's group: a height per category.
pub type BarGroup = Group<f64>;
/// A bar chart: one bar per group side by side (or stacked) in each category.
pub type Bars = Categories<f64>;
/// (min, typical, max).
pub type MinTypMax = (f64, f64, f64);
/// A range chart's group: a (min, typical, max) per category.
pub type RangeGroup = Group<MinTypMax>;
/// A range chart: per group a bar from min to max with a mark at the typical value.
pub type Ranges = Categories<MinTypMax>;

/// The table `name` of a run.
pub fn table<'a>(r: &'a RunRecord, name: &str) -> Option<&'a Table> {
    r.tables.iter().find(|t| t.name == name)
}

/// The column named `name` (and, when given, in `unit`) as numbers.
pub fn col(t: &Table, name: &str, unit: Option<&str>) -> Option<Vec<Option<f64>>> {
    let i = t.columns.iter().position(|c| c.name == name && unit.is_none_or(|u| c.unit == u))?;
    Some(t.rows.iter().map(|r| r.get(i).and_then(|v| v.as_f64())).collect())
}

/// The column named `name` as text.
pub fn col_str(t: &Table, name: &str) -> Option<Vec<String>> {
    let i = t.columns.iter().position(|c| c.name == name)?;
    Some(t.rows.iter().map(|r| r.get(i).and_then(|v| v.as_str()).unwrap_or("").to_string()).collect())
}

/// The unit of column `name` ("" when absent).
pub fn unit_of(t: &Table, name: &str) -> String {
    t.columns.iter().find(|c| c.name == name).map(|c| c.unit.clone()).unwrap_or_default()
}

/// The points where both coordinates are known.
pub fn pairs(xs: &[Option<f64>], ys: &[Option<f64>]) -> Vec<(f64, f64)> {
    xs.iter().zip(ys).filter_map(|(x, y)| Some(((*x)?, (*y)?))).collect()
}

/// A metric's value as a number.
pub fn metric(r: &RunRecord, name: &str) -> Option<f64> {
    r.get_metric(name).map(|m| m.value.as_f64())
}

/// The paper's points, coloured by `key` (`paper…`).
pub fn paper_curve(label: &str, key: &str, pts: Vec<(f64, f64)>) -> Curve {
    Curve { label: label.into(), key: key.into(), pts, style: Style::Paper }
}

/// A reference line at `at`.
pub fn mark(at: f64, label: impl Into<String>, key: &str) -> Mark {
    Mark { at, label: label.into(), key: key.into() }
}
