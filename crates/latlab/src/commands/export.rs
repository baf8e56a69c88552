//! `latlab export`: one stored run as JSON, CSV or Markdown.

use super::open_existing;
use crate::cli::ExportArgs;
use anyhow::Context;
use latlab_core::export::{Format, export};
use std::path::Path;

pub fn run(db: &Path, a: ExportArgs) -> anyhow::Result<i32> {
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
