//! `latlab export --format md` and what every measuring command prints: a run's Markdown summary
//! (what ran, where, what it got, its metrics, tables and the paper rows).

use super::{ExportError, Exporter};
use latlab_model::record::{RunRecord, fmt_ns, fmt_value};
use std::fmt::Write as _;

/// The Markdown exporter.
pub struct Markdown;

impl Exporter for Markdown {
    fn render(&self, run: &RunRecord) -> Result<Vec<u8>, ExportError> {
        Ok(markdown(run).into_bytes())
    }
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Markdown summary: what ran, where, what it got, its metrics and the paper rows.
pub fn markdown(run: &RunRecord) -> String {
    let mut o = String::new();
    let id = run.id.map(|i| format!(" #{i}")).unwrap_or_default();
    let mode = if run.mode().is_empty() { String::new() } else { format!(" {}", run.mode()) };
    let _ = writeln!(o, "# latlab {}{mode}{id} — {}\n", run.experiment, run.status.as_str());
    if !run.status.meaning().is_empty() {
        let _ = writeln!(o, "> {}: {}\n", run.status.as_str(), run.status.meaning());
    }
    let m = &run.machine.info;
    let _ = writeln!(
        o,
        "- started: {}\n- duration: {}\n- latlab: {}{}\n- machine: {}{} · {} CPUs · kernel {} ({}) · clocksource {} · virtualization {}\n",
        latlab_model::record::fmt_unix_ns(run.started_at_ns),
        fmt_ns(run.duration_ns() as f64),
        run.latlab_version,
        run.git_commit.as_deref().map(|c| format!(" ({c})")).unwrap_or_default(),
        m.arch.as_deref().map(|a| format!("{a} · ")).unwrap_or_default(),
        m.cpu_model.as_deref().unwrap_or("unknown CPU"),
        m.cpus,
        m.kernel_release.as_deref().unwrap_or("?"),
        m.preemption.as_deref().unwrap_or("?"),
        m.clocksource.as_deref().unwrap_or("?"),
        m.virtualization.as_deref().unwrap_or("?"),
    );
    if !run.capabilities.is_empty() {
        let _ = writeln!(o, "## Capabilities\n\n| knob | requested | obtained | granted |\n|---|---|---|---|");
        for c in &run.capabilities {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} |",
                md_escape(&c.name),
                md_escape(&c.requested),
                md_escape(&c.obtained),
                if c.granted { "yes" } else { "**no**" }
            );
        }
        o.push('\n');
    }
    if !run.paper.is_empty() {
        let _ = writeln!(o, "## Paper vs here\n\n{}\n", latlab_model::verdict::tally(&run.paper));
        for line in latlab_model::verdict::study_lines(&run.paper) {
            let _ = writeln!(o, "- {}", md_escape(&line));
        }
        o.push('\n');
        o.push_str("| seed | figure | paper (setting) | here | verdict | note |\n|---|---|---|---|---|---|\n");
        for p in &run.paper {
            let _ = writeln!(
                o,
                "| {} | {} | {} ({}) | {} | **{}**: {} | {} |",
                p.seed,
                md_escape(&p.figure),
                md_escape(&p.paper_value),
                md_escape(&p.paper_setting),
                md_escape(&p.here_value),
                p.judgement.verdict.as_str(),
                md_escape(&p.judgement.basis),
                md_escape(&p.note)
            );
        }
        o.push('\n');
    }
    let _ = writeln!(o, "## Metrics\n\n| metric | value |\n|---|---:|");
    for mt in &run.metrics {
        let _ = writeln!(o, "| `{}` | {} |", mt.name, fmt_value(mt.value, &mt.unit));
    }
    for t in &run.tables {
        let _ = writeln!(o, "\n## {}\n", md_escape(&t.title));
        let (head, rows) = t.formatted();
        let head: Vec<String> = head.iter().map(|h| md_escape(h)).collect();
        let _ = writeln!(o, "| {} |\n|{}", head.join(" | "), "---|".repeat(head.len()));
        for r in rows {
            let cells: Vec<String> = r.iter().map(|c| md_escape(c)).collect();
            let _ = writeln!(o, "| {} |", cells.join(" | "));
        }
    }
    if !run.warnings.is_empty() {
        let _ = writeln!(o, "\n## Warnings\n");
        for w in &run.warnings {
            let _ = writeln!(o, "- {}", md_escape(w));
        }
    }
    o
}
