//! `latlab compare A B`: differences of medians and p99 with bootstrap intervals.

use crate::cli::CompareArgs;
use crate::runner::{open_existing, out};
use latlab_output::compare::compare;
use std::path::Path;

pub fn run(db: &Path, a: CompareArgs) -> anyhow::Result<i32> {
    let store = open_existing(db)?;
    let ra = store.load(store.resolve(&a.a)?)?;
    let rb = store.load(store.resolve(&a.b)?)?;
    if ra.experiment != rb.experiment {
        eprintln!(
            "note: comparing runs of different experiments ({} and {}); only shared names are compared",
            ra.experiment, rb.experiment
        );
    }
    let c = compare(&ra, &rb);
    if c.is_empty() {
        anyhow::bail!(
            "nothing to compare: run #{} ({}) and run #{} ({}) share no sample series and no metric, even matched by role (the same names but for one word, such as the application)",
            ra.id.unwrap_or(0),
            ra.experiment,
            rb.id.unwrap_or(0),
            rb.experiment
        );
    }
    if a.json {
        out(&(serde_json::to_string_pretty(&c)? + "\n"))?;
    } else {
        out(&c.to_text())?;
    }
    Ok(crate::exit::OK)
}
