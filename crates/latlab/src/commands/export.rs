//! `latlab export`: one stored run as JSON, CSV or Markdown, or a `stall net` run as a flent
//! data file.

use super::open_existing;
use crate::cli::ExportArgs;
use anyhow::Context;
use latlab_core::export::{Format, export};
use latlab_core::record::RunRecord;
use std::path::Path;

pub fn run(db: &Path, a: ExportArgs) -> anyhow::Result<i32> {
    let format = (a.format != "flent").then(|| a.format.parse::<Format>()).transpose().map_err(anyhow::Error::msg)?;
    let store = open_existing(db)?;
    let rec = store.load(store.resolve(&a.run)?)?;
    let Some(format) = format else { return flent(&rec, a.output.as_deref()) };
    match &a.output {
        Some(p) => {
            let mut f = std::fs::File::create(p).with_context(|| format!("cannot create '{}'", p.display()))?;
            export(&rec, format, &mut f).with_context(|| format!("cannot write '{}'", p.display()))?;
        }
        None => export(&rec, format, &mut std::io::stdout().lock())?,
    }
    Ok(crate::exit::OK)
}

/// The flent form, gzip-compressed when the file's name ends in `.gz` (flent's own files are
/// `.flent.gz`). A run without a network timeline is refused before any file is created.
fn flent(rec: &RunRecord, output: Option<&Path>) -> anyhow::Result<i32> {
    use std::io::Write;
    let mut text = serde_json::to_vec(&latlab_stall::flent::to_flent(rec)?)?;
    text.push(b'\n');
    match output {
        Some(p) => {
            let cannot = || format!("cannot write '{}'", p.display());
            let f = std::fs::File::create(p).with_context(|| format!("cannot create '{}'", p.display()))?;
            if p.extension().is_some_and(|e| e == "gz") {
                let mut z = flate2::write::GzEncoder::new(f, flate2::Compression::default());
                z.write_all(&text).with_context(cannot)?;
                z.finish().with_context(cannot)?;
            } else {
                let mut f = f;
                f.write_all(&text).with_context(cannot)?;
            }
        }
        None => std::io::stdout().lock().write_all(&text)?,
    }
    Ok(crate::exit::OK)
}
