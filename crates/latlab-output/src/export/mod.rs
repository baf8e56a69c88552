//! Exporters of a stored run — the one list `latlab export --format` reads: JSON (the whole
//! self-describing record), CSV (raw samples, long format), a Markdown summary, and flent's
//! data file for runs with a network timeline. Each is a pure function of a [`RunRecord`].

pub mod flent;

use latlab_model::record::{RunRecord, fmt_ns, fmt_value};
#[cfg(test)]
use latlab_sys::record::Finish;
use std::fmt::Write as _;
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
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "markdown" => Ok(Format::Markdown),
            _ => Format::ALL
                .into_iter()
                .find(|f| f.name() == s)
                .ok_or_else(|| format!("unknown format '{s}' ({})", Format::ALL.map(Format::name).join(", "))),
        }
    }
}

/// Why a run could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The run has no form in this format.
    #[error(transparent)]
    Flent(#[from] flent::FlentError),
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// Windows are stored beside the run, not in its record: [`windows_csv`] writes them.
    #[error("a run's windows are read from the database, beside its record")]
    Windows,
}

/// Write `run` in `format` to `w`.
pub fn export(run: &RunRecord, format: Format, w: &mut dyn Write) -> Result<(), ExportError> {
    // Serialize first so a run without a form writes nothing, and a write error (a closed
    // pipe) reaches the caller as itself.
    let text = render(run, format)?;
    Ok(w.write_all(&text)?)
}

fn render(run: &RunRecord, format: Format) -> Result<Vec<u8>, ExportError> {
    Ok(match format {
        Format::Json => {
            let mut text = serde_json::to_vec_pretty(run).map_err(io::Error::other)?;
            text.push(b'\n');
            text
        }
        Format::Csv => {
            let mut v = Vec::new();
            write_csv(run, &mut v)?;
            v
        }
        Format::Markdown => markdown(run).into_bytes(),
        Format::Flent => {
            let mut text = serde_json::to_vec(&flent::to_flent(run)?).map_err(io::Error::other)?;
            text.push(b'\n');
            text
        }
        Format::Windows => return Err(ExportError::Windows),
    })
}

/// A monitor run's windows as CSV: one row per probe and window, times in ns since the Unix
/// epoch, then the samples in each bucket (not cumulative; the columns name their upper
/// bounds in seconds, as Prometheus's `le` does).
pub fn windows_csv(windows: &[crate::store::WindowRow], bounds_ns: &[u64], w: &mut dyn Write) -> io::Result<()> {
    let mut head =
        String::from("probe,start_ns,end_ns,state,count,sum_ns,min_ns,p50_ns,p99_ns,p999_ns,max_ns,missed,lost");
    for b in bounds_ns {
        head += &format!(",le_{}", *b as f64 / 1e9);
    }
    head += ",le_+Inf\n";
    w.write_all(head.as_bytes())?;
    for x in windows {
        let mut line = format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            x.probe,
            x.start_ns,
            x.end_ns,
            x.state,
            x.count,
            x.sum_ns,
            x.min_ns,
            x.p50_ns,
            x.p99_ns,
            x.p999_ns,
            x.max_ns,
            x.missed,
            x.lost
        );
        for b in &x.buckets {
            line += &format!(",{b}");
        }
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Write `run` in `format` to the file `path`: flent files gzip-compressed when the name ends
/// in `.gz`, as flent's own `.flent.gz` files are. A run without a form creates no file.
pub fn export_file(run: &RunRecord, format: Format, path: &Path) -> Result<(), ExportError> {
    let text = render(run, format)?;
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

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// CSV of every raw sample (long format, so series of different lengths fit one file).
pub fn write_csv(run: &RunRecord, w: &mut dyn Write) -> io::Result<()> {
    let mut w = io::BufWriter::new(w);
    writeln!(w, "series,unit,index,value")?;
    for s in &run.series {
        let (name, unit) = (csv_field(&s.name), csv_field(&s.unit));
        for (i, v) in s.values.iter().enumerate() {
            writeln!(w, "{name},{unit},{i},{v}")?;
        }
    }
    w.flush()
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Markdown summary: what ran, where, what it got, its metrics and the paper rows.
pub fn markdown(run: &RunRecord) -> String {
    let mut o = String::new();
    let id = run.id.map(|i| format!(" #{i}")).unwrap_or_default();
    let mode = if run.mode().is_empty() { String::new() } else { format!(" {}", run.mode()) };
    let _ = writeln!(o, "# latlab {}{mode}{id} — {}\n", run.experiment, run.status.as_str());
    if !run.status.meaning().is_empty() {
        let _ = writeln!(o, "> {}: {}\n", run.status.as_str(), run.status.meaning());
    }
    let m = &run.machine.info;
    let _ = writeln!(
        o,
        "- started: {}\n- duration: {}\n- latlab: {}{}\n- machine: {}{} · {} CPUs · kernel {} ({}) · clocksource {} · virtualization {}\n",
        latlab_model::record::fmt_unix_ns(run.started_at_ns),
        fmt_ns(run.duration_ns() as f64),
        run.latlab_version,
        run.git_commit.as_deref().map(|c| format!(" ({c})")).unwrap_or_default(),
        m.arch.as_deref().map(|a| format!("{a} · ")).unwrap_or_default(),
        m.cpu_model.as_deref().unwrap_or("unknown CPU"),
        m.cpus,
        m.kernel_release.as_deref().unwrap_or("?"),
        m.preemption.as_deref().unwrap_or("?"),
        m.clocksource.as_deref().unwrap_or("?"),
        m.virtualization.as_deref().unwrap_or("?"),
    );
    if !run.capabilities.is_empty() {
        let _ = writeln!(o, "## Capabilities\n\n| knob | requested | obtained | granted |\n|---|---|---|---|");
        for c in &run.capabilities {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} |",
                md_escape(&c.name),
                md_escape(&c.requested),
                md_escape(&c.obtained),
                if c.granted { "yes" } else { "**no**" }
            );
        }
        o.push('\n');
    }
    if !run.paper.is_empty() {
        let _ = writeln!(o, "## Paper vs here\n\n{}\n", latlab_model::verdict::tally(&run.paper));
        for line in latlab_model::verdict::study_lines(&run.paper) {
            let _ = writeln!(o, "- {}", md_escape(&line));
        }
        o.push('\n');
        o.push_str("| seed | figure | paper (setting) | here | verdict | note |\n|---|---|---|---|---|---|\n");
        for p in &run.paper {
            let _ = writeln!(
                o,
                "| {} | {} | {} ({}) | {} | **{}**: {} | {} |",
                p.seed,
                md_escape(&p.figure),
                md_escape(&p.paper_value),
                md_escape(&p.paper_setting),
                md_escape(&p.here_value),
                p.judgement.verdict.as_str(),
                md_escape(&p.judgement.basis),
                md_escape(&p.note)
            );
        }
        o.push('\n');
    }
    let _ = writeln!(o, "## Metrics\n\n| metric | value |\n|---|---:|");
    for mt in &run.metrics {
        let _ = writeln!(o, "| `{}` | {} |", mt.name, fmt_value(mt.value, &mt.unit));
    }
    for t in &run.tables {
        let _ = writeln!(o, "\n## {}\n", md_escape(&t.title));
        let (head, rows) = t.formatted();
        let head: Vec<String> = head.iter().map(|h| md_escape(h)).collect();
        let _ = writeln!(o, "| {} |\n|{}", head.join(" | "), "---|".repeat(head.len()));
        for r in rows {
            let cells: Vec<String> = r.iter().map(|c| md_escape(c)).collect();
            let _ = writeln!(o, "| {} |", cells.join(" | "));
        }
    }
    if !run.warnings.is_empty() {
        let _ = writeln!(o, "\n## Warnings\n");
        for w in &run.warnings {
            let _ = writeln!(o, "- {}", md_escape(w));
        }
    }
    o
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
