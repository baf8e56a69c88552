//! `latlab report`: render stored runs into one HTML file, without measuring anything.

use crate::cli::ReportArgs;
use crate::registry::Registry;
use crate::runner::open_existing;
use anyhow::Context;
use latlab_model::record::RunRecord;
use latlab_output::store::Store;
use std::path::Path;

/// Load the runs named (or the latest of each experiment) and write the report.
pub fn write_report(
    store: &Store,
    registry: &Registry,
    specs: &[String],
    output: &Path,
) -> anyhow::Result<Vec<RunRecord>> {
    let ids = if specs.is_empty() {
        store.latest_per_experiment()?
    } else {
        specs.iter().map(|s| store.resolve(s)).collect::<Result<Vec<_>, _>>()?
    };
    if ids.is_empty() {
        anyhow::bail!("the database has no runs to report: run `latlab suite` first");
    }
    let runs = ids.iter().map(|&id| store.load(id)).collect::<Result<Vec<_>, _>>()?;
    // Every experiment's headline figures: a run's line on the first screen shows those it has.
    let entries = registry.experiments(false);
    let headlines: Vec<(&str, &str)> = entries.iter().flat_map(|e| e.headline().iter().copied()).collect();
    // Each run's study figures, as the experiments of its name declare them.
    let figures = |r: &RunRecord| crate::registry::figures(&entries, r);
    let html = latlab_output::report::render_with(&runs, &headlines, &figures).context("cannot render the report")?;
    std::fs::write(output, html).with_context(|| format!("cannot write the report '{}'", output.display()))?;
    Ok(runs)
}

pub fn run(db: &Path, registry: &Registry, a: ReportArgs) -> anyhow::Result<i32> {
    let store = open_existing(db)?;
    let runs = write_report(&store, registry, &a.runs, &a.output)?;
    eprintln!(
        "wrote {} ({} run{}: {})",
        a.output.display(),
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        runs.iter().map(|r| format!("{} #{}", r.experiment, r.id.unwrap_or(0))).collect::<Vec<_>>().join(", ")
    );
    Ok(crate::exit::OK)
}
