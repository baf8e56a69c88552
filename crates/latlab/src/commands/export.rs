//! `latlab export`: one stored run in one of core's exporters (JSON, CSV, Markdown, flent), or
//! a monitor run's windows as CSV.

use crate::cli::ExportArgs;
use crate::runner::open_existing;
use anyhow::Context;
use latlab_output::export::{export, export_file};
use std::path::Path;

pub fn run(db: &Path, a: ExportArgs) -> anyhow::Result<i32> {
    let store = open_existing(db)?;
    let id = store.resolve(&a.run)?;
    if a.format == latlab_output::export::Format::Windows {
        let windows = store.windows(id)?;
        if windows.is_empty() {
            anyhow::bail!("run #{id} has no windows: only `latlab monitor` runs do");
        }
        let bounds = latlab_monitor::window::BUCKETS_NS;
        match &a.output {
            Some(p) => {
                let mut f = std::fs::File::create(p).with_context(|| format!("cannot write '{}'", p.display()))?;
                latlab_output::export::windows_csv(&windows, &bounds, &mut f)?;
            }
            None => latlab_output::export::windows_csv(&windows, &bounds, &mut std::io::stdout().lock())?,
        }
        return Ok(crate::exit::OK);
    }
    let rec = store.load(id)?;
    match &a.output {
        Some(p) => export_file(&rec, a.format, p).with_context(|| format!("cannot write '{}'", p.display()))?,
        None => export(&rec, a.format, &mut std::io::stdout().lock())?,
    }
    Ok(crate::exit::OK)
}
