//! `latlab runs` and `latlab show`: what is stored.

use crate::cli::{RunsArgs, ShowArgs};
use crate::runner::{open_existing, out};
use latlab_model::record::{fmt_ns, fmt_unix_ns};
use latlab_output::export::{Lead, markdown_led};
use std::fmt::Write;
use std::path::Path;

pub fn list(db: &Path, a: RunsArgs) -> anyhow::Result<i32> {
    let store = open_existing(db)?;
    let runs = store.list()?;
    if a.json {
        out(&(serde_json::to_string_pretty(&runs)? + "\n"))?;
        return Ok(crate::exit::OK);
    }
    let mut o = String::new();
    writeln!(
        o,
        "{:>5}  {:<10} {:<10} {:<16} {:<12} {:<20} {:>10} {:>8} {:>10}  host",
        "id", "experiment", "mode", "subject", "status", "started (UTC)", "duration", "metrics", "samples"
    )?;
    for r in &runs {
        let started = fmt_unix_ns(r.started_at_ns);
        let subject: String = r.subject.as_deref().unwrap_or("").chars().take(16).collect();
        writeln!(
            o,
            "{:>5}  {:<10} {:<10} {:<16} {:<12} {:<20} {:>10} {:>8} {:>10}  {}",
            r.id,
            r.experiment,
            r.mode,
            subject,
            r.status,
            started,
            fmt_ns(r.duration_ns as f64),
            r.metrics,
            r.samples,
            r.hostname.as_deref().unwrap_or("")
        )?;
    }
    if runs.is_empty() {
        writeln!(o, "(no runs yet: try `latlab suite`)")?;
    }
    out(&o)?;
    Ok(crate::exit::OK)
}

pub fn show(db: &Path, registry: &crate::registry::Registry, a: ShowArgs) -> anyhow::Result<i32> {
    let store = open_existing(db)?;
    let id = store.resolve(&a.run)?;
    let rec = store.load(id)?;
    // Its experiment's headline figures lead the summary.
    let entries = registry.experiments(false);
    let own = || entries.iter().filter(|e| e.name() == rec.experiment);
    let headlines: Vec<(&str, &str)> = own().flat_map(|e| e.headline().iter().copied()).collect();
    let verdict = own().find_map(|e| e.verdict(&rec));
    out(&markdown_led(&rec, &Lead { headlines: &headlines, verdict, every_metric: true }))?;
    Ok(crate::exit::OK)
}
