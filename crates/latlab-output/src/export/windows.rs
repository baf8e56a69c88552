//! `latlab export --format windows`: a monitor run's windows as CSV. They are stored beside the
//! run, not in its record, so the command reads them from the database and calls
//! [`windows_csv`]; the record alone has no form in this format.

use super::{ExportError, Exporter};
use latlab_model::record::RunRecord;
use std::io::{self, Write};

/// The windows exporter.
pub struct Windows;

impl Exporter for Windows {
    fn render(&self, _run: &RunRecord) -> Result<Vec<u8>, ExportError> {
        Err(ExportError::Windows)
    }
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
