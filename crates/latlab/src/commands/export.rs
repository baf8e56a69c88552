//! `latlab export`: one stored run as JSON, CSV or Markdown, or a `stall net` run as a flent
//! data file.

use super::open_existing;
use crate::cli::ExportArgs;
use anyhow::Context;
use latlab_core::export::{Format, export};
use std::path::Path;

pub fn run(db: &Path, a: ExportArgs) -> anyhow::Result<i32> {
    if a.format == "flent" {
        return flent(db, &a);
    }
    let format: Format = a.format.parse().map_err(anyhow::Error::msg)?;
    let store = open_existing(db)?;
    let rec = store.load(store.resolve(&a.run)?)?;
    match &a.output {
        Some(p) => {
            let mut f = std::fs::File::create(p).with_context(|| format!("cannot create '{}'", p.display()))?;
            export(&rec, format, &mut f).with_context(|| format!("cannot write '{}'", p.display()))?;
        }
        None => export(&rec, format, &mut std::io::stdout().lock())?,
    }
    Ok(crate::exit::OK)
}

fn flent(db: &Path, a: &ExportArgs) -> anyhow::Result<i32> {
    use std::io::Write;
    let store = open_existing(db)?;
    let rec = store.load(store.resolve(&a.run)?)?;
    let mut text = serde_json::to_vec(&latlab_stall::flent::to_flent(&rec)?)?;
    text.push(b'\n');
    match &a.output {
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
