//! `latlab suite`: the main job — every registered experiment, short; stored; reported;
//! summarized with the papers' figures beside this machine's.

use super::report::write_report;
use crate::cli::{Small, SuiteArgs};
use crate::registry::Registry;
use crate::runner::{install_interrupt, open_store, out, save, usage};
use latlab_model::experiment::{ExperimentError, RunContext};
use latlab_model::record::{RunRecord, RunStatus, fmt_ns};
use latlab_output::progress::Progress;
use latlab_sys::interrupt::stop_requested;
use std::fmt::Write;
use std::path::Path;

/// Say once, before any experiment, what this machine refuses that experiments ask for
/// (real-time priority, memory locking, `/dev/cpu_dma_latency`), each with its advice; the
/// experiments then name only what they lost. Each probe is undone at once.
fn preflight() {
    use latlab_model::capability::said_once;
    use latlab_sys::platform;
    let (lock, mlock) = platform::lock_memory();
    drop(lock);
    let (dma, held) = platform::hold_cpu_dma_latency(0);
    drop(dma);
    let refused: Vec<String> =
        [platform::probe_fifo(latlab_sys::defaults::RT_PRIORITY), mlock, held].iter().filter_map(said_once).collect();
    if !refused.is_empty() {
        eprintln!("suite: this machine refuses what some experiments ask for (said once; each run records it):");
        for line in refused {
            eprintln!("  {line}");
        }
    }
}

pub fn run(db: &Path, strict: bool, registry: &Registry, a: SuiteArgs) -> anyhow::Result<i32> {
    let small = match a.small {
        Small::Yes => Some("--small yes".to_string()),
        Small::No => None,
        Small::Auto => latlab_sys::machine::small_board().map(|why| format!("a small board: {why}")),
    };
    if let Some(why) = &small {
        eprintln!(
            "suite: scaled down ({why}): the short configurations run shorter and smaller (--small no runs them whole)"
        );
    }
    let (all, outside): (Vec<_>, Vec<_>) =
        registry.experiments_for(strict, small.is_some()).into_iter().partition(|e| e.in_suite());
    let mut names: Vec<&str> = Vec::new();
    for e in &all {
        if !names.contains(&e.name()) {
            names.push(e.name());
        }
    }
    for name in &a.only {
        if let Some(e) = outside.iter().find(|e| e.name() == name) {
            return Err(usage(format!("'{name}' is not run by the suite ({}): run `latlab {name}`", e.about())).into());
        }
        if !names.contains(&name.as_str()) {
            return Err(
                usage(format!("unknown experiment '{name}' in --only (registered: {})", names.join(", "))).into()
            );
        }
    }
    let chosen: Vec<_> =
        all.into_iter().filter(|e| a.only.is_empty() || a.only.iter().any(|n| n == e.name())).collect();
    install_interrupt()?;
    preflight();
    let mut done: Vec<(RunRecord, &[(&str, &str)])> = Vec::new();
    let mut interrupted = false;
    for (i, e) in chosen.iter().enumerate() {
        if stop_requested() {
            interrupted = true;
            break;
        }
        let label = if e.mode().is_empty() { e.name().to_string() } else { format!("{} {}", e.name(), e.mode()) };
        eprintln!(
            "suite [{}/{}] {label}: {} (Ctrl-C stops and keeps what was measured)",
            i + 1,
            chosen.len(),
            e.about()
        );
        let progress = Progress::new(&label, e.steps());
        let result = e.run(&RunContext { progress: progress.counter(), ..Default::default() });
        progress.finish();
        let records = match result {
            Ok(o) => o.records,
            // The machine refused what it needs: a stored run says why, and the suite goes on.
            Err(why @ ExperimentError::Skipped(_)) => {
                let rec = latlab_sys::record::skipped(e.name(), &why);
                eprintln!("{}", rec.warnings[0]);
                vec![rec]
            }
            Err(other) => return Err(anyhow::Error::new(other).context(format!("suite: {label}"))),
        };
        for mut rec in records {
            save(db, &mut rec)?;
            interrupted |= rec.status == RunStatus::Interrupted;
            // Stored: the summary needs the figures, not the samples (a board has little memory).
            rec.series = Vec::new();
            done.push((rec, e.headline()));
        }
        // What this experiment's threads allocated goes back to the system before the next.
        latlab_sys::platform::return_free_memory();
    }
    let ids: Vec<String> = done.iter().filter_map(|(r, _)| r.id.map(|i| i.to_string())).collect();
    if !ids.is_empty() {
        let store = open_store(db)?;
        write_report(&store, registry, &ids, &a.output)?;
        eprintln!("wrote {}", a.output.display());
    }
    let mut text = summary(&done, &a.output, db);
    if let Some(why) = &small {
        text.push_str(&format!(
            "scaled down ({why}): shorter runs, fewer sessions and load levels than the usual suite (--small no runs them whole)\n"
        ));
    }
    // The suite's memory, said so a board's owner knows what it needs (`--small` keeps it small).
    let (me, child) = latlab_sys::platform::peak_memory();
    if let Some(me) = me {
        let mb = |b: u64| latlab_model::numfmt::sig(b as f64 / 1e6);
        text.push_str(&format!(
            "peak memory: {} MB in latlab itself{}\n",
            mb(me),
            child.map_or(String::new(), |c| format!(
                ", {} MB in the largest process it started (a server or a load)",
                mb(c)
            ))
        ));
    }
    out(&text)?;
    Ok(if interrupted { crate::exit::INTERRUPTED } else { crate::exit::OK })
}

fn summary(done: &[(RunRecord, &[(&str, &str)])], report: &Path, db: &Path) -> String {
    let mut o = String::new();
    let mut advised: Vec<String> = Vec::new();
    let _ = writeln!(o, "\nlatlab suite — summary\n");
    let _ = writeln!(o, "{:<10} {:>5} {:<12} {:>9}  headline figures", "experiment", "run", "status", "time");
    for (r, headline) in done {
        let figs = r.headline_figures(headline);
        let _ = writeln!(
            o,
            "{:<10} {:>5} {:<12} {:>9}  {}",
            r.experiment,
            r.id.map(|i| format!("#{i}")).unwrap_or_default(),
            r.status.as_str(),
            fmt_ns(r.duration_ns() as f64),
            figs.join(" · ")
        );
        for w in &r.warnings {
            // A refusal's advice is said once in the summary; later runs name what they lost.
            let refused = r.capabilities.iter().find(|c| c.warning().as_deref() == Some(w.as_str()));
            let line = match refused.and_then(|c| c.advice.as_ref().map(|a| (c, a))) {
                Some((c, advice)) if advised.contains(advice) => {
                    format!("{}: asked for {}, got {} (refused as said above)", c.name, c.requested, c.obtained)
                }
                Some((_, advice)) => {
                    advised.push(advice.clone());
                    w.clone()
                }
                None => w.clone(),
            };
            let _ = writeln!(o, "{:<10} warning: {line}", "");
        }
    }
    let rows: Vec<_> = done.iter().flat_map(|(r, _)| r.paper.iter()).collect();
    let _ = writeln!(o, "\npaper vs here");
    if rows.is_empty() {
        let _ = writeln!(o, "  (no experiment in this suite has a paper row)");
    } else {
        let _ = writeln!(o, "  {} (the studies: docs/studies.md)", latlab_model::verdict::tally(rows.iter().copied()));
        for line in latlab_model::verdict::study_lines(rows.iter().copied()) {
            let _ = writeln!(o, "  {line}");
        }
        let _ = writeln!(o);
    }
    for p in rows {
        let _ = writeln!(
            o,
            "  [{}] {}\n        paper:   {} ({})\n        here:    {}\n        verdict: {} ({})\n        {}",
            p.seed,
            p.figure,
            p.paper_value,
            p.paper_setting,
            p.here_value,
            p.judgement.label(),
            p.judgement.basis,
            p.note
        );
    }
    let _ = writeln!(o, "\nreport: {}   database: {}", report.display(), db.display());
    o
}
