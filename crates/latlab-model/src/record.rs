//! The run record: the one result model every experiment produces and every exporter,
//! the store and the report consume. Field-by-field documentation: `docs/run-record.md`.

use crate::capability::Capability;
use crate::machine::Machine;
use crate::stats::{self, Summary};
pub use crate::value::Value;
pub use crate::verdict::PaperRow;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version tag written into every JSON export (`"schema"`), bumped on incompatible changes.
pub const SCHEMA: &str = "latlab.run/7";

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Measured everything it set out to.
    Complete,
    /// Stopped by Ctrl-C; holds what was measured until then.
    Interrupted,
    /// Stopped by an error; holds what was measured until then.
    Failed,
    /// Its process died (killed, power cut) before it ended: holds what was measured up to
    /// its last checkpoint. A run being measured also reads as incomplete until it ends.
    Incomplete,
}

impl RunStatus {
    /// The exit code of a command whose run ended so.
    pub fn exit_code(self) -> i32 {
        match self {
            RunStatus::Complete => crate::exit::OK,
            RunStatus::Interrupted => crate::exit::INTERRUPTED,
            RunStatus::Failed | RunStatus::Incomplete => crate::exit::ERROR,
        }
    }

    /// Lowercase name as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Complete => "complete",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Failed => "failed",
            RunStatus::Incomplete => "incomplete",
        }
    }
    /// What the status means for the figures a reader sees (empty for a complete run).
    pub fn meaning(self) -> &'static str {
        match self {
            RunStatus::Complete => "",
            RunStatus::Interrupted => "stopped by Ctrl-C: the figures cover what was measured until then",
            RunStatus::Failed => {
                "stopped by an error (see the warnings): the figures cover what was measured until then"
            }
            RunStatus::Incomplete => {
                "its process died (killed, power cut) or is still measuring: the figures cover what was measured up to its last checkpoint"
            }
        }
    }
    /// Parse the stored name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "complete" => RunStatus::Complete,
            "interrupted" => RunStatus::Interrupted,
            "failed" => RunStatus::Failed,
            "incomplete" => RunStatus::Incomplete,
            _ => return None,
        })
    }
}

/// A named scalar result. Names are dotted lowercase paths (`sleep.fifo.1ms.p99`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    /// Dotted lowercase path.
    pub name: String,
    /// The value.
    pub value: Value,
    /// Unit: `ns`, `count`, `ratio`, `Hz`, `B`, `B/s`, `s`, `bool`, …
    pub unit: String,
}

/// A column of a [`Table`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    /// Column name.
    pub name: String,
    /// Unit of its values ("" for labels).
    pub unit: String,
}

impl Column {
    /// A column named `name` whose values are in `unit` ("" for labels).
    pub fn new(name: &str, unit: &str) -> Self {
        Column { name: name.into(), unit: unit.into() }
    }
}

/// How the report should draw a table as curves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TablePlot {
    /// Column used for x.
    pub x: String,
    /// Columns drawn as y curves.
    pub ys: Vec<String>,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
}

/// A small table of results, e.g. the rows of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Dotted lowercase name.
    pub name: String,
    /// Human title.
    pub title: String,
    /// Columns.
    pub columns: Vec<Column>,
    /// Rows; each has one value per column (strings for labels, numbers otherwise).
    pub rows: Vec<Vec<serde_json::Value>>,
    /// Draw as a sweep curve in the report.
    pub plot: Option<TablePlot>,
}

impl Table {
    /// An empty table named `name` (dotted lowercase) titled `title`; columns, rows and a plot
    /// follow: `Table::new("rt.sweep", "…").column("rate", "Hz").column("p99", "ns").plot("rate", &["p99"])`.
    pub fn new(name: impl Into<String>, title: impl Into<String>) -> Self {
        Table { name: name.into(), title: title.into(), columns: Vec::new(), rows: Vec::new(), plot: None }
    }

    /// With one more column, its values in `unit` ("" for labels).
    pub fn column(mut self, name: &str, unit: &str) -> Self {
        self.columns.push(Column::new(name, unit));
        self
    }

    /// With these rows (one value per column each).
    pub fn rows(mut self, rows: impl IntoIterator<Item = Vec<serde_json::Value>>) -> Self {
        self.rows.extend(rows);
        self
    }

    /// Drawn by the report as curves of the columns `ys` against the column `x`.
    pub fn plot(mut self, x: &str, ys: &[&str]) -> Self {
        self.plot =
            Some(TablePlot { x: x.into(), ys: ys.iter().map(|y| y.to_string()).collect(), log_x: false, log_y: false });
        self
    }

    /// The table for people: each column's header with its unit, and every cell formatted by its
    /// column's [`ColumnFormat`](crate::numfmt::ColumnFormat).
    pub fn formatted(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let t = self;
        let formats: Vec<crate::numfmt::ColumnFormat> = t
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                crate::numfmt::ColumnFormat::new(
                    &c.unit,
                    t.rows.iter().filter_map(|r| r.get(i).and_then(|v| v.as_f64())),
                )
            })
            .collect();
        let head = t.columns.iter().zip(&formats).map(|(c, f)| f.header(&c.name)).collect();
        let rows = t
            .rows
            .iter()
            .map(|r| {
                r.iter().enumerate().map(|(i, v)| formats.get(i).map_or_else(|| v.to_string(), |f| f.cell(v))).collect()
            })
            .collect();
        (head, rows)
    }
}

/// A raw sample series in integer units (usually nanoseconds), in the order measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Dotted lowercase name.
    pub name: String,
    /// Unit of every value.
    pub unit: String,
    /// What a value is, in a sentence.
    pub description: String,
    /// The samples.
    pub values: Vec<i64>,
}

impl Series {
    /// Summary of the values.
    pub fn summary(&self) -> Option<Summary> {
        stats::summarize(&self.values)
    }
}

/// Everything one run produced. See `docs/run-record.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// Store id; `None` until stored.
    pub id: Option<i64>,
    /// The subcommand that made the run (`selftest`, `rt`, `udp`, …).
    pub experiment: String,
    /// Which mode of it (`ops`, `measure`, …), or `skipped` for a suite entry the machine
    /// refused; "" when the experiment has one mode. Records before `latlab.run/6` kept it in
    /// `config.experiment`: read it with [`RunRecord::mode`].
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub mode: String,
    /// How it ended.
    pub status: RunStatus,
    /// Wall-clock start, ns since the Unix epoch.
    pub started_at_ns: i64,
    /// Wall-clock end, ns since the Unix epoch.
    pub ended_at_ns: i64,
    /// latlab version.
    pub latlab_version: String,
    /// Git commit latlab was built from, if known.
    pub git_commit: Option<String>,
    /// Machine description.
    pub machine: Machine,
    /// What each requested knob came to.
    pub capabilities: Vec<Capability>,
    /// The configuration actually used (all defaults filled in).
    pub config: BTreeMap<String, serde_json::Value>,
    /// Named scalar results.
    pub metrics: Vec<Metric>,
    /// Tables (sweeps, per-case rows).
    pub tables: Vec<Table>,
    /// Raw sample series.
    pub series: Vec<Series>,
    /// Warnings raised during the run.
    pub warnings: Vec<String>,
    /// Paper-vs-here rows.
    pub paper: Vec<PaperRow>,
}

impl RunRecord {
    /// A new, empty, `complete` record for `experiment`, started at `started_at_ns` (Unix
    /// time) on `machine` (`latlab_sys::record::begin` gives both as of now).
    pub fn new(experiment: &str, started_at_ns: i64, machine: Machine) -> Self {
        Self {
            schema: SCHEMA.into(),
            id: None,
            experiment: experiment.into(),
            mode: String::new(),
            status: RunStatus::Complete,
            started_at_ns,
            ended_at_ns: 0,
            latlab_version: crate::VERSION.into(),
            git_commit: crate::GIT_COMMIT.map(str::to_string),
            machine,
            capabilities: Vec::new(),
            config: BTreeMap::new(),
            metrics: Vec::new(),
            tables: Vec::new(),
            series: Vec::new(),
            warnings: Vec::new(),
            paper: Vec::new(),
        }
    }

    /// Mark the end at `ended_at_ns` (Unix time) with the machine's load `after`, and set the
    /// status (`latlab_sys::record::Finish` does it as of now).
    pub fn close(&mut self, status: RunStatus, ended_at_ns: i64, after: crate::machine::LoadSnapshot) {
        self.status = status;
        self.link_studies();
        self.ended_at_ns = ended_at_ns;
        self.machine.after = Some(after);
    }

    /// The run's mode (see [`RunRecord::mode`](field@RunRecord::mode)), read from `config.experiment`
    /// for records stored before `latlab.run/6`.
    pub fn mode(&self) -> &str {
        if self.mode.is_empty() {
            self.config.get("experiment").and_then(|v| v.as_str()).unwrap_or("")
        } else {
            &self.mode
        }
    }

    /// Point every paper row's note at its study's section of `docs/studies.md` (done by
    /// [`RunRecord::close`]; call again for rows added after it). Idempotent.
    pub fn link_studies(&mut self) {
        for p in &mut self.paper {
            if !p.note.contains("docs/studies.md") {
                p.note.push_str(&format!(" (the study: docs/studies.md#s{})", p.seed));
            }
        }
    }

    /// Add a configuration entry.
    pub fn config(&mut self, key: &str, value: impl Serialize) {
        self.config.insert(key.into(), serde_json::to_value(value).unwrap_or(serde_json::Value::Null));
    }

    /// Add a metric.
    pub fn metric(&mut self, name: &str, value: impl Into<Value>, unit: &str) {
        debug_assert!(valid_name(name), "metric name {name:?} is not a dotted lowercase path");
        // A run stores each name once: a second metric of one name is refused by the store.
        debug_assert!(!self.metrics.iter().any(|m| m.name == name), "metric {name:?} recorded twice");
        self.metrics.push(Metric { name: name.into(), value: value.into(), unit: unit.into() });
    }

    /// Add `prefix.{min,p50,p95,p99,p999,max,mean,jitter,count}` from a summary (ns).
    pub fn summary_metrics(&mut self, prefix: &str, s: &Summary, unit: &str) {
        for (k, v) in [
            ("min", s.min),
            ("p50", s.p50),
            ("p95", s.p95),
            ("p99", s.p99),
            ("p999", s.p999),
            ("max", s.max),
            ("jitter", s.jitter),
        ] {
            self.metric(&format!("{prefix}.{k}"), v, unit);
        }
        self.metric(&format!("{prefix}.mean"), s.mean, unit);
        self.metric(&format!("{prefix}.count"), s.count, "count");
    }

    /// Store `values` as the series `name` with its summary metrics under the same name
    /// ([`RunRecord::summary_metrics`]); nothing when there are no values. Returns the summary.
    pub fn summarized_series(
        &mut self,
        name: &str,
        unit: &str,
        description: String,
        values: Vec<i64>,
    ) -> Option<Summary> {
        let s = stats::summarize(&values)?;
        self.summary_metrics(name, &s, unit);
        self.series.push(Series { name: name.into(), unit: unit.into(), description, values });
        Some(s)
    }

    /// The headline figures this run has, as `label value` (an experiment's
    /// [`crate::experiment::Experiment::HEADLINE`]): a name's `*` segment matches any one
    /// segment (`type.*.unloaded.p50`: whatever the application), and each `{}` of the label
    /// takes the matched segments in order; a metric shown once is not shown again by a later,
    /// broader pattern.
    pub fn headline_figures(&self, headlines: &[(&str, &str)]) -> Vec<String> {
        let mut shown: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for (pattern, label) in headlines {
            let pat: Vec<&str> = pattern.split('.').collect();
            for m in &self.metrics {
                let parts: Vec<&str> = m.name.split('.').collect();
                if parts.len() != pat.len() || shown.contains(&m.name.as_str()) {
                    continue;
                }
                let mut stars = Vec::new();
                if !pat.iter().zip(&parts).all(|(p, s)| {
                    if *p == "*" {
                        stars.push(*s);
                        true
                    } else {
                        p == s
                    }
                }) {
                    continue;
                }
                let mut text = label.to_string();
                for s in stars {
                    text = text.replacen("{}", s, 1);
                }
                shown.push(&m.name);
                out.push(format!("{text} {}", fmt_value(m.value, &m.unit)));
            }
        }
        out
    }

    /// Find a metric by name.
    pub fn get_metric(&self, name: &str) -> Option<&Metric> {
        self.metrics.iter().find(|m| m.name == name)
    }

    /// Find a series by name.
    pub fn get_series(&self, name: &str) -> Option<&Series> {
        self.series.iter().find(|s| s.name == name)
    }

    /// Add a warning (also printed to stderr by the caller's choice).
    pub fn warn(&mut self, w: impl Into<String>) {
        self.warnings.push(w.into());
    }

    /// Duration of the run in nanoseconds.
    pub fn duration_ns(&self) -> i64 {
        (self.ended_at_ns - self.started_at_ns).max(0)
    }
}

/// True if `name` is a dotted lowercase path: segments of `[a-z0-9_]`, separated by dots.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|seg| {
            !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        })
}

/// The table a run must hold to have a flent form (`latlab stall net` writes it): columns
/// `time` (s), `RTT mean` (ms), `upload` and `download` (Mbit/s).
pub const FLENT_TIMELINE: &str = "net.timeline";

/// A duration in nanoseconds for people (see [`crate::numfmt`]): `12.3 µs`.
pub fn fmt_ns(ns: f64) -> String {
    crate::numfmt::ns(ns)
}

/// Format a wall-clock time (ns since the Unix epoch) as RFC 3339 UTC, to the second.
pub fn fmt_unix_ns(ns: i64) -> String {
    humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + std::time::Duration::from_nanos(ns.max(0) as u64))
        .to_string()
}

/// A metric value with its unit for people (see [`crate::numfmt`]): `5.3 %`, `1.2 MiB`.
pub fn fmt_value(v: Value, unit: &str) -> String {
    crate::numfmt::value(v, unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headline_figures_match_any_application_and_say_each_metric_once() {
        let mut r = RunRecord::new("type", 0, Machine::default());
        for (name, v) in
            [("type.foot.unloaded.p50", 970_000i64), ("type.foot.cpu.p50", 1_500_000), ("type.foot.unloaded.keys", 40)]
        {
            r.metrics.push(Metric {
                name: name.into(),
                value: Value::Int(v),
                unit: if v > 100 { "ns" } else { "count" }.into(),
            });
        }
        let h = [("type.*.unloaded.p50", "{}, key to screen p50"), ("type.*.*.p50", "{} under {}, key to screen p50")];
        assert_eq!(
            r.headline_figures(&h),
            ["foot, key to screen p50 970 µs", "foot under cpu, key to screen p50 1.5 ms"]
        );
        assert!(r.headline_figures(&[("rt.unloaded.l1.latency.p99", "L1 p99")]).is_empty());
    }

    #[test]
    fn names() {
        assert!(valid_name("unloaded.l1.latency.p50"));
        assert!(valid_name("sleep.fifo.100us.p99"));
        assert!(!valid_name("Unloaded.l1"));
        assert!(!valid_name("a..b"));
        assert!(!valid_name(""));
        assert!(!valid_name("a.b-c"));
    }

    #[test]
    fn formatting() {
        // The rules themselves are numfmt's; these are the names the crates call.
        assert_eq!(fmt_ns(850.0), "850 ns");
        assert_eq!(fmt_ns(4_560_000.0), "4.56 ms");
        assert_eq!(fmt_ns(1_234_000_000.0), "1.23 s");
        assert_eq!(fmt_value(Value::Float(0.5), "ratio"), "50 %");
        assert_eq!(fmt_value(Value::Int(3), "count"), "3");
        assert_eq!(fmt_value(Value::Float(15742.6), "Hz"), "15.7 kHz");
    }

    #[test]
    fn value_json_keeps_ints_and_floats_apart() {
        assert_eq!(serde_json::to_string(&Value::Int(3)).unwrap(), "3");
        assert_eq!(serde_json::to_string(&Value::Float(2.5)).unwrap(), "2.5");
        let v: Value = serde_json::from_str("3").unwrap();
        assert_eq!(v, Value::Int(3));
        let v: Value = serde_json::from_str("3.5").unwrap();
        assert_eq!(v, Value::Float(3.5));
    }

    #[test]
    fn summary_metrics_named_and_united() {
        let mut r = RunRecord::new("selftest", 0, Machine::default());
        let s = stats::summarize(&[1, 2, 3]).unwrap();
        r.summary_metrics("sleep.other.1ms", &s, "ns");
        assert_eq!(r.get_metric("sleep.other.1ms.p50").unwrap().value, Value::Int(2));
        assert_eq!(r.get_metric("sleep.other.1ms.count").unwrap().unit, "count");
        assert!(r.metrics.iter().all(|m| valid_name(&m.name)));
    }
}
