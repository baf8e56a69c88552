//! Numbers for people: the one formatting function behind the report, `show`, the suite's
//! summary and the Markdown export. Three significant digits unless more are meaningful (an
//! integer part is never rounded away, a count is exact), no padding zeros, durations and sizes
//! in readable units, and a table column's unit chosen once for the whole column so the unit
//! sits in its header rather than in every cell.

use crate::value::Value;

/// `v` to three significant digits with no padding zeros: `5.3`, `12.8`, `0.0123`, `1235`.
/// Digits left of the point are kept (`12346`, not `1.23e4`); `-0` prints as `0`.
pub fn sig(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "—".into()
        } else if v > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    let a = v.abs();
    if a == 0.0 {
        return "0".into();
    }
    let mag = a.log10().floor() as i32;
    let decimals = (2 - mag).clamp(0, 12) as usize;
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    // Rounding can carry into a new digit (9.996 → "10.00" → "10"); the trim covers it.
    if s == "-0" { "0".into() } else { s }
}

/// A display scale for one unit: divide raw values by `div`, label with `label`.
#[derive(Debug, Clone, PartialEq)]
pub struct Scale {
    /// Divisor applied to raw values.
    pub div: f64,
    /// The unit shown (`µs`, `MB/s`, `%`; empty for plain numbers).
    pub label: String,
}

impl Scale {
    fn of(div: f64, label: &str) -> Self {
        Scale { div, label: label.into() }
    }

    /// A raw value in this scale, as [`sig`] digits without the unit.
    pub fn number(&self, v: f64) -> String {
        sig(v / self.div)
    }

    /// A raw value in this scale with its unit: `12.3 µs`, `1.27×`.
    pub fn with_unit(&self, v: f64) -> String {
        let n = self.number(v);
        match self.label.as_str() {
            "" => n,
            "×" => format!("{n}×"),
            l => format!("{n} {l}"),
        }
    }
}

/// The readable scale for values of magnitude `typical` in `unit` (`ns` → µs/ms/s, and
/// `ns/X` → µs/X…, `B` → KiB/MiB/GiB, `B/s` → kB/s/MB/s, `ratio` → %, `Hz` → kHz/MHz); other
/// units unchanged.
/// Milliseconds stay milliseconds: they are what boot and launch times are read in, and
/// `4614 ms` as `4.61 s` would round away digits the trace printed.
pub fn scale(unit: &str, typical: f64) -> Scale {
    let t = typical.abs();
    let pick = |steps: &[(f64, &str)]| {
        let (div, label) = steps.iter().rev().find(|(d, _)| t >= *d).copied().unwrap_or(steps[0]);
        Scale::of(div, label)
    };
    match unit {
        "ns" => pick(&[(1.0, "ns"), (1e3, "µs"), (1e6, "ms"), (1e9, "s")]),
        "B" | "bytes" => {
            pick(&[(1.0, "B"), (1024.0, "KiB"), (1024.0 * 1024.0, "MiB"), (1024.0 * 1024.0 * 1024.0, "GiB")])
        }
        "KiB" => pick(&[(1.0, "KiB"), (1024.0, "MiB"), (1024.0 * 1024.0, "GiB")]),
        "B/s" => pick(&[(1.0, "B/s"), (1e3, "kB/s"), (1e6, "MB/s"), (1e9, "GB/s")]),
        "Hz" => pick(&[(1.0, "Hz"), (1e3, "kHz"), (1e6, "MHz")]),
        "ratio" => Scale::of(0.01, "%"),
        "count" | "" => Scale::of(1.0, ""),
        // Time per something (`ns/MB`, `ns/key`): the time scaled, the "per" kept.
        u if u.starts_with("ns/") => {
            let t = scale("ns", typical);
            Scale::of(t.div, &format!("{}{}", t.label, &u[2..]))
        }
        u => Scale::of(1.0, u),
    }
}

/// A value with its unit for people: `12.3 µs`, `5.3 %`, `1.2 MiB`, `40`, `yes`.
/// Integer counts stay exact.
pub fn value(v: Value, unit: &str) -> String {
    match (unit, v) {
        ("bool", v) => (if v.as_f64() != 0.0 { "yes" } else { "no" }).into(),
        ("count" | "" | "pages", Value::Int(i)) => {
            if unit == "pages" {
                format!("{i} pages")
            } else {
                i.to_string()
            }
        }
        (u, v) => scale(u, v.as_f64()).with_unit(v.as_f64()),
    }
}

/// A duration in nanoseconds for people: `850 ns`, `12.3 µs`, `4.61 s`.
pub fn ns(v: f64) -> String {
    scale("ns", v).with_unit(v)
}

/// How one table column is shown: the unit goes in the header, once, and each cell is a bare
/// number in that unit. The scale is chosen from the column's median magnitude so most cells
/// read naturally (a latency column of microseconds is headed `µs`).
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnFormat {
    scale: Scale,
    exact_ints: bool,
}

impl ColumnFormat {
    /// The format for a column in `unit` holding `values` (non-numbers ignored).
    pub fn new(unit: &str, values: impl IntoIterator<Item = f64>) -> Self {
        let mut mags: Vec<f64> = values.into_iter().filter(|v| v.is_finite() && *v != 0.0).map(f64::abs).collect();
        mags.sort_by(f64::total_cmp);
        let typical = mags.get(mags.len() / 2).copied().unwrap_or(0.0);
        let scale = scale(unit, typical);
        let exact_ints = scale.div == 1.0 && scale.label != "%";
        ColumnFormat { scale, exact_ints }
    }

    /// The header for a column named `name`: `latency (µs)`, or `name` alone for plain numbers.
    pub fn header(&self, name: &str) -> String {
        if self.scale.label.is_empty() { name.to_string() } else { format!("{name} ({})", self.scale.label) }
    }

    /// One cell: a bare number in the column's unit, the text of a label, `—` for nothing.
    pub fn cell(&self, v: &serde_json::Value) -> String {
        match v {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Null => "—".into(),
            serde_json::Value::Bool(b) => (if *b { "yes" } else { "no" }).into(),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) if self.exact_ints => i.to_string(),
                _ => self.scale.number(n.as_f64().unwrap_or(f64::NAN)),
            },
            other => other.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits_without_padding() {
        assert_eq!(sig(5.3), "5.3");
        assert_eq!(sig(12.8), "12.8");
        assert_eq!(sig(12.800001), "12.8");
        assert_eq!(sig(0.012345), "0.0123");
        assert_eq!(sig(1234.56), "1235");
        assert_eq!(sig(12345.6), "12346");
        assert_eq!(sig(100.0), "100");
        assert_eq!(sig(9.996), "10");
        assert_eq!(sig(-0.0004), "-0.0004");
        assert_eq!(sig(-0.0), "0");
        assert_eq!(sig(0.0), "0");
        assert_eq!(sig(f64::NAN), "—");
        assert_eq!(sig(1.0), "1");
        assert_eq!(sig(2.5e-15), "0");
    }

    #[test]
    fn readable_units() {
        assert_eq!(ns(850.0), "850 ns");
        assert_eq!(ns(12_345.0), "12.3 µs");
        assert_eq!(ns(4_614_000_000.0), "4.61 s");
        assert_eq!(ns(1_000_000.0), "1 ms");
        assert_eq!(value(Value::Float(0.053), "ratio"), "5.3 %");
        assert_eq!(value(Value::Float(0.128), "ratio"), "12.8 %");
        assert_eq!(value(Value::Int(3 * 1024 * 1024 / 2), "B"), "1.5 MiB");
        assert_eq!(value(Value::Float(2_500_000.0), "B/s"), "2.5 MB/s");
        assert_eq!(value(Value::Int(12345), "count"), "12345");
        assert_eq!(value(Value::Float(2.0 / 3.0), "count"), "0.667");
        assert_eq!(value(Value::Int(1), "bool"), "yes");
        assert_eq!(value(Value::Float(1000.0), "Hz"), "1 kHz");
        assert_eq!(value(Value::Float(3.25), "Mbit/s"), "3.25 Mbit/s");
        assert_eq!(value(Value::Int(4614), "ms"), "4614 ms");
        assert_eq!(value(Value::Float(1.2712), "×"), "1.27×");
        // Time per something: the time scaled, the "per" kept (not "46258349 ns/MB").
        assert_eq!(value(Value::Float(46_258_349.0), "ns/MB"), "46.3 ms/MB");
        assert_eq!(value(Value::Float(850.0), "ns/key"), "850 ns/key");
    }

    #[test]
    fn a_column_carries_its_unit_in_the_header_once() {
        let vals = [12_000.0, 15_500.0, 9_000_000.0];
        let f = ColumnFormat::new("ns", vals);
        assert_eq!(f.header("latency"), "latency (µs)");
        let cells: Vec<String> = vals.iter().map(|v| f.cell(&serde_json::json!(v))).collect();
        assert_eq!(cells, ["12", "15.5", "9000"]);
        assert!(cells.iter().all(|c| !c.contains("µs")));
        let pct = ColumnFormat::new("ratio", [0.053]);
        assert_eq!(pct.header("dropped"), "dropped (%)");
        assert_eq!(pct.cell(&serde_json::json!(0.053)), "5.3");
        let count = ColumnFormat::new("count", [3.0]);
        assert_eq!(count.header("frames"), "frames");
        assert_eq!(count.cell(&serde_json::json!(123456)), "123456");
        assert_eq!(count.cell(&serde_json::Value::Null), "—");
        assert_eq!(count.cell(&serde_json::json!("fifo")), "fifo");
    }
}
