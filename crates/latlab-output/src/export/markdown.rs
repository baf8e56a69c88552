//! `latlab export --format md` and what every measuring command prints: a run's Markdown summary,
//! led by its answer (headline figures, the paper rows' tally, warnings), then the paper rows and
//! tables, and the detail (capabilities, every metric) last.

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

/// Markdown summary, led by its answer: what ran and its headline figures (none known here:
/// [`markdown_with`] takes the experiment's), what the paper rows found and what to heed, then
/// the tables, and last the detail (capabilities, every metric).
pub fn markdown(run: &RunRecord) -> String {
    markdown_with(run, &[])
}

/// [`markdown`] with the experiment's headline figures (`Experiment::HEADLINE`) in its answer.
pub fn markdown_with(run: &RunRecord, headlines: &[(&str, &str)]) -> String {
    markdown_led(run, &Lead { headlines, verdict: None, every_metric: true })
}

/// What leads a summary, and how much detail follows it.
pub struct Lead<'a> {
    /// The experiment's headline figures (`Experiment::HEADLINE`).
    pub headlines: &'a [(&'a str, &'a str)],
    /// Its verdict on this run, one sentence (`Experiment::verdict`), first in the answer.
    pub verdict: Option<String>,
    /// Every metric listed at the end (`show`, `export`, `--verbose`); otherwise their count
    /// and where to find them.
    pub every_metric: bool,
}

/// [`markdown`] led by `lead`.
pub fn markdown_led(run: &RunRecord, lead: &Lead) -> String {
    let headlines = lead.headlines;
    let mut o = String::new();
    let id = run.id.map(|i| format!(" #{i}")).unwrap_or_default();
    let mode = if run.mode().is_empty() { String::new() } else { format!(" {}", run.mode()) };
    let _ = writeln!(
        o,
        "# latlab {}{mode}{id} — {}
",
        run.experiment,
        run.status.as_str()
    );
    if !run.status.meaning().is_empty() {
        let _ = writeln!(
            o,
            "> {}: {}
",
            run.status.as_str(),
            run.status.meaning()
        );
    }
    // The answer first: the figures, what the paper rows found, what to heed.
    let figures = run.headline_figures(headlines);
    let mut answer = Vec::new();
    if let Some(v) = &lead.verdict {
        answer.push(md_escape(v));
    }
    if !figures.is_empty() {
        answer.push(format!("**{}**", md_escape(&figures.join(" · "))));
    }
    if !run.paper.is_empty() {
        answer.push(format!("against the papers: {}", latlab_model::verdict::tally(&run.paper)));
    }
    if !run.warnings.is_empty() {
        answer.push(format!("{} warning(s), below: heed them before the figures", run.warnings.len()));
    }
    if !answer.is_empty() {
        let _ = writeln!(
            o,
            "## In short
"
        );
        for a in &answer {
            let _ = writeln!(o, "- {a}");
        }
        o.push('\n');
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
    if !run.warnings.is_empty() {
        let _ = writeln!(o, "## Warnings\n");
        for w in &run.warnings {
            let _ = writeln!(o, "- {}", md_escape(w));
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
                p.judgement.label(),
                md_escape(&p.judgement.basis),
                md_escape(&p.note)
            );
        }
        o.push('\n');
    }
    for t in &run.tables {
        let _ = writeln!(o, "## {}\n", md_escape(&t.title));
        let (head, rows) = t.formatted();
        let head: Vec<String> = head.iter().map(|h| md_escape(h)).collect();
        let _ = writeln!(o, "| {} |\n|{}", head.join(" | "), "---|".repeat(head.len()));
        for r in rows {
            let cells: Vec<String> = r.iter().map(|c| md_escape(c)).collect();
            let _ = writeln!(o, "| {} |", cells.join(" | "));
        }
        o.push('\n');
    }
    // The detail: what the machine granted, every metric.
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
    if !lead.every_metric {
        let show = run.id.map_or("`latlab show` lists them".to_string(), |id| format!("`latlab show {id}` lists them"));
        let _ = writeln!(o, "## Metrics\n\n{} metrics: {show} (or give the command --verbose).", run.metrics.len());
        return o;
    }
    let _ = writeln!(o, "## Metrics\n\n| metric | value |\n|---|---:|");
    for mt in &run.metrics {
        let _ = writeln!(o, "| `{}` | {} |", mt.name, fmt_value(mt.value, &mt.unit));
    }
    o
}
