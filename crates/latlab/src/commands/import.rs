//! `latlab import`: other hosts' databases merged into this one (core's `fleet::import`), a
//! line per source saying what was copied and what was refused.

use crate::cli::ImportArgs;
use crate::runner::open_store;
use latlab_output::fleet;
use latlab_output::progress::Progress;
use std::path::Path;
use std::sync::atomic::Ordering;

pub fn run(db: &Path, a: ImportArgs) -> anyhow::Result<i32> {
    let here = std::fs::canonicalize(db).ok();
    for s in &a.sources {
        if !s.exists() {
            anyhow::bail!("no database at '{}': nothing was imported", s.display());
        }
        if here.is_some() && std::fs::canonicalize(s).ok() == here {
            anyhow::bail!("'{}' is this database (--db): a database cannot import itself", s.display());
        }
    }
    let mut store = open_store(db)?;
    let bar = Progress::new("import", a.sources.len() as u64);
    let counter = bar.counter();
    let (mut copied, mut refused, mut failed) = (0, 0, 0);
    for (i, s) in a.sources.iter().enumerate() {
        bar.message(&s.display().to_string());
        match fleet::import(&mut store, s, &mut |_, _| {}) {
            Ok(got) => {
                copied += got.copied.len();
                refused += got.duplicates.len();
                let hosts = got.hosts.iter().cloned().collect::<Vec<_>>().join(", ");
                let mut line = format!(
                    "{}: {} run{} imported{}{}",
                    s.display(),
                    got.copied.len(),
                    if got.copied.len() == 1 { "" } else { "s" },
                    if hosts.is_empty() { String::new() } else { format!(" (host {hosts})") },
                    if got.windows > 0 { format!(", {} monitor windows", got.windows) } else { String::new() },
                );
                if !got.duplicates.is_empty() {
                    let named = got.duplicates.iter().take(5).map(|(src, here)| format!("#{src} is #{here}"));
                    line += &format!(
                        "; {} already here, refused ({}{})",
                        got.duplicates.len(),
                        named.collect::<Vec<_>>().join(", "),
                        if got.duplicates.len() > 5 { ", …" } else { "" }
                    );
                }
                eprintln!("{line}");
            }
            Err(e) => {
                // The runs imported before stay; the next sources are still tried.
                failed += 1;
                eprintln!("error: {e}");
            }
        }
        counter.store(i as u64 + 1, Ordering::Relaxed);
    }
    bar.finish();
    eprintln!(
        "imported {copied} run{} into {} from {} source{}{}{}",
        if copied == 1 { "" } else { "s" },
        db.display(),
        a.sources.len(),
        if a.sources.len() == 1 { "" } else { "s" },
        if refused > 0 { format!("; {refused} refused as already present") } else { String::new() },
        if failed > 0 { format!("; {failed} source(s) could not be read") } else { String::new() },
    );
    Ok(if failed > 0 { crate::exit::ERROR } else { crate::exit::OK })
}
