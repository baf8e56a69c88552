//! `latlab export`: one stored run in one of core's exporters (JSON, CSV, Markdown, flent).

use super::open_existing;
use crate::cli::ExportArgs;
use anyhow::Context;
use latlab_core::export::{export, export_file};
use std::path::Path;

pub fn run(db: &Path, a: ExportArgs) -> anyhow::Result<i32> {
    let store = open_existing(db)?;
    let rec = store.load(store.resolve(&a.run)?)?;
    match &a.output {
        Some(p) => export_file(&rec, a.format, p).with_context(|| format!("cannot write '{}'", p.display()))?,
        None => export(&rec, a.format, &mut std::io::stdout().lock())?,
    }
    Ok(crate::exit::OK)
}
