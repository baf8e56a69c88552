//! `latlab export --format csv`: every raw sample, long format (`series,unit,index,value`), so
//! series of different lengths fit one file.

use super::{ExportError, Exporter};
use latlab_model::record::RunRecord;
use std::io::{self, Write};

/// The CSV exporter.
pub struct Csv;

impl Exporter for Csv {
    fn render(&self, run: &RunRecord) -> Result<Vec<u8>, ExportError> {
        let mut v = Vec::new();
        write_csv(run, &mut v)?;
        Ok(v)
    }
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
