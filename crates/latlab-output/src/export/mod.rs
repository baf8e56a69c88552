//! Exporters of a stored run — the one list `latlab export --format` reads: JSON (the whole
//! self-describing record), CSV (raw samples, long format), a Markdown summary, flent's data
//! file for runs with a network timeline, and a monitor run's windows. Each is a file of its
//! own behind one trait, [`Exporter`], a pure function of a [`RunRecord`].

mod csv;
pub mod flent;
mod json;
mod markdown;
mod windows;

pub use csv::write_csv;
pub use markdown::{Lead, markdown, markdown_led, markdown_with};
pub use windows::windows_csv;

/// One export format: a pure function of a run record (one file each: `json.rs`, `csv.rs`,
/// `markdown.rs`, `flent.rs`, `windows.rs`).
pub trait Exporter {
    /// The run in this format, or why it has none.
    fn render(&self, run: &RunRecord) -> Result<Vec<u8>, ExportError>;
}

use latlab_model::record::RunRecord;
#[cfg(test)]
use latlab_sys::record::Finish;
use std::io::{self, Write};
use std::path::Path;

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The full record as pretty JSON (`docs/run-record.md`).
    Json,
    /// Raw samples: `series,unit,index,value`, one row per sample.
    Csv,
    /// A human summary in Markdown.
    Markdown,
    /// flent's data file (format 4) of a run with a network timeline ([`flent`]).
    Flent,
    /// A `latlab monitor` run's windows, one CSV row each with its buckets ([`windows_csv`]).
    Windows,
}

impl Format {
    /// Its exporter.
    pub fn exporter(self) -> &'static dyn Exporter {
        match self {
            Format::Json => &json::Json,
            Format::Csv => &csv::Csv,
            Format::Markdown => &markdown::Markdown,
            Format::Flent => &flent::Flent,
            Format::Windows => &windows::Windows,
        }
    }

    /// Every exporter, in the order `--help` lists them.
    pub const ALL: [Format; 5] = [Format::Json, Format::Csv, Format::Markdown, Format::Flent, Format::Windows];
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "md",
            Format::Flent => "flent",
            Format::Windows => "windows",
        }
    }
}

impl latlab_model::experiment::Choice for Format {
    fn names() -> Vec<&'static str> {
        Format::ALL.map(Format::name).to_vec()
    }
    fn from_choice(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

impl std::str::FromStr for Format {
    type Err = latlab_model::ConfigError;
    fn from_str(s: &str) -> Result<Self, latlab_model::ConfigError> {
        match s {
            "markdown" => Ok(Format::Markdown),
            _ => Format::ALL
                .into_iter()
                .find(|f| f.name() == s)
                .ok_or_else(|| format!("unknown format '{s}' ({})", Format::ALL.map(Format::name).join(", ")).into()),
        }
    }
}

/// Why a run could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The run has no form in this format.
    #[error(transparent)]
    Flent(#[from] flent::FlentError),
    /// Writing failed. Not transparent: the I/O error stays in the chain as itself, so a
    /// closed pipe (`latlab export … | head`) is known for one and ends quietly.
    #[error("the export could not be written")]
    Io(#[from] io::Error),
    /// Windows are stored beside the run, not in its record: [`windows_csv`] writes them.
    #[error("a run's windows are read from the database, beside its record")]
    Windows,
}

/// Write `run` in `format` to `w`.
pub fn export(run: &RunRecord, format: Format, w: &mut dyn Write) -> Result<(), ExportError> {
    // Serialize first so a run without a form writes nothing, and a write error (a closed
    // pipe) reaches the caller as itself.
    let text = format.exporter().render(run)?;
    Ok(w.write_all(&text)?)
}

/// Write `run` in `format` to the file `path`: flent files gzip-compressed when the name ends
/// in `.gz`, as flent's own `.flent.gz` files are. A run without a form creates no file.
pub fn export_file(run: &RunRecord, format: Format, path: &Path) -> Result<(), ExportError> {
    let text = format.exporter().render(run)?;
    let f = std::fs::File::create(path)?;
    if format == Format::Flent && path.extension().is_some_and(|e| e == "gz") {
        let mut z = flate2::write::GzEncoder::new(f, flate2::Compression::default());
        z.write_all(&text)?;
        z.finish()?;
    } else {
        let mut f = f;
        f.write_all(&text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_model::record::{RunStatus, Series};

    fn sample() -> RunRecord {
        let mut r = latlab_sys::record::begin("selftest");
        r.metric("clock.read_cost.mean", 21.5, "ns");
        r.series.push(Series { name: "a".into(), unit: "ns".into(), description: "x".into(), values: vec![1, 2] });
        r.series.push(Series { name: "b,c".into(), unit: "ns".into(), description: "y".into(), values: vec![3] });
        r.finish(RunStatus::Complete);
        r
    }

    #[test]
    fn csv_is_long_format_and_quotes() {
        let mut out = Vec::new();
        export(&sample(), Format::Csv, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "series,unit,index,value\na,ns,0,1\na,ns,1,2\n\"b,c\",ns,0,3\n");
    }

    #[test]
    fn json_round_trips() {
        let r = sample();
        let mut out = Vec::new();
        export(&r, Format::Json, &mut out).unwrap();
        let back: RunRecord = serde_json::from_slice(&out).unwrap();
        assert_eq!(back, r);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["schema"], "latlab.run/7");
    }

    #[test]
    fn markdown_has_metrics() {
        let md = markdown(&sample());
        assert!(md.starts_with("# latlab selftest — complete"));
        assert!(md.contains("| `clock.read_cost.mean` | 21.5 ns |"), "{md}");
        assert!(!md.contains("Paper vs here"), "no rows, no section");
        assert!("json".parse::<Format>().is_ok() && "xml".parse::<Format>().is_err());
    }

    #[test]
    fn paper_rows_carry_their_verdict_everywhere() {
        let mut r = sample();
        r.paper.push(latlab_model::record::PaperRow {
            seed: "004".into(),
            figure: "boot".into(),
            paper_setting: "XP".into(),
            paper_value: "4,614 ms".into(),
            here_value: "no trace".into(),
            note: "n".into(),
            judgement: latlab_model::verdict::Judgement::not_comparable("no boot trace | here"),
        });
        let md = markdown(&r);
        assert!(
            md.contains("1 paper row measured this machine: 0 reproduced, 0 differ, 1 not comparable here"),
            "{md}"
        );
        assert!(
            md.contains("- seed 004 (Embedded start-up (WES 7)): nothing held here — could not be measured here: boot"),
            "{md}"
        );
        assert!(md.contains("| no trace | **not comparable here**: no boot trace \\| here | n |"), "{md}");
        let mut out = Vec::new();
        export(&r, Format::Json, &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["paper"][0]["verdict"], "not_comparable");
        assert_eq!(v["paper"][0]["basis"], "no boot trace | here");
        // A row stored before verdicts loads, unjudged.
        let mut old = v.clone();
        let row = old["paper"][0].as_object_mut().unwrap();
        row.remove("verdict");
        row.remove("basis");
        let back: RunRecord = serde_json::from_value(old).unwrap();
        assert_eq!(back.paper[0].judgement.verdict, latlab_model::verdict::Verdict::Unjudged);
    }
}
