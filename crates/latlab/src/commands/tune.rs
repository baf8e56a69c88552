//! `latlab tune`: run a remedy against its baseline, interleaved (A B B A A B …), store every
//! run, then store and print the A/B: each headline's p50 and p99 difference with its 95 %
//! bootstrap interval, and the verdict. Machine changes are undone after each remedy run. The
//! remedies are those the registry's experiments declare (`Registry::with_remedies`).

use crate::cli::{Cli, TuneArgs};
use crate::registry::Registry;
use crate::runner::{out, save, usage};
use latlab_output::tune::{Better, Headline, RemedyInfo};
use latlab_sys::remedy::About;
use std::path::Path;

pub fn run(db: &Path, strict: bool, registry: &Registry, a: TuneArgs) -> anyhow::Result<i32> {
    if a.list {
        out(&list(registry))?;
        return Ok(crate::exit::OK);
    }
    let name = a.remedy.as_deref().unwrap_or_default();
    let (about, tunable) = find(registry, name).map_err(usage)?;
    latlab_model::ab::check_rounds(a.rounds).map_err(usage)?;
    // The experiment's own command line, parsed by its own parser.
    let mut argv: Vec<String> = vec!["latlab".into()];
    argv.extend(about.command.iter().map(|s| s.to_string()));
    if a.experiment_args.is_empty() {
        argv.extend(about.default_args.iter().map(|s| s.to_string()));
    } else {
        argv.extend(a.experiment_args.iter().cloned());
    }
    let cli = <Cli as clap::Parser>::try_parse_from(&argv).map_err(|e| {
        usage(format!("the options after -- are `latlab {}`'s: {}", about.command.join(" "), e.render()))
    })?;
    let info = info(&about);
    let (a_runs, b_runs) = tunable.ab(db, name, cli.command, strict, a.rounds)?;
    let mut rec = latlab_output::tune::ab_record(&info, &a_runs, &b_runs, &headlines(&about));
    rec.link_studies();
    save(db, &mut rec)?;
    let mut text = format!("{}\n\n", latlab_output::tune::verdict_line(&rec));
    text.push_str(&latlab_output::export::markdown(&rec));
    out(&text)?;
    Ok(crate::runner::status_code(&rec))
}

/// The remedy called `name` and the experiment it is measured with, or an error listing them.
pub(crate) fn find<'r>(
    registry: &'r Registry,
    name: &str,
) -> Result<(About, &'r dyn crate::registry::Tunable), String> {
    let all = registry.remedies();
    all.iter().find(|(a, _)| a.name == name).copied().ok_or_else(|| {
        format!(
            "no remedy called '{name}': one of {} (latlab tune --list says what each does)",
            all.iter().map(|(a, _)| a.name).collect::<Vec<_>>().join(", ")
        )
    })
}

/// For the record.
pub(crate) fn info(a: &About) -> RemedyInfo {
    RemedyInfo {
        name: a.name.into(),
        study: a.study.into(),
        experiment: a.command.join(" "),
        baseline: a.baseline.into(),
        changes: a.changes.into(),
    }
}

/// The headlines: the latencies, then the per-run figures.
pub(crate) fn headlines(a: &About) -> Vec<Headline> {
    let series = a.headlines.iter().map(|(s, l)| Headline::lower(s, l));
    series
        .chain(a.scalars.iter().map(|(m, l, b)| match b {
            Better::Higher => Headline::higher_metric(m, l),
            Better::Lower => Headline::lower_metric(m, l),
        }))
        .collect()
}

/// The `--list` text.
fn list(registry: &Registry) -> String {
    let mut o = String::new();
    for (a, _) in registry.remedies() {
        o.push_str(&format!(
            "{} (study {}, measured with `latlab {}`)\n  baseline: {}\n  remedy:   {}\n  needs:    {}\n  undone:   {}\n\n",
            a.name,
            a.study,
            a.command.join(" "),
            a.baseline,
            a.changes,
            a.needs,
            a.undo
        ));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remedies_have_unique_names_and_say_what_they_need_and_how_they_are_undone() {
        let r = Registry::standard();
        let all = r.remedies();
        let mut names: Vec<&str> = all.iter().map(|(a, _)| a.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for (a, _) in &all {
            assert!(!a.needs.is_empty() && !a.undo.is_empty(), "{}", a.name);
            assert!(!a.headlines.is_empty() || !a.scalars.is_empty(), "{}", a.name);
        }
        assert!(find(&r, "shield").is_ok());
        assert!(find(&r, "nope").err().unwrap().contains("none, shield, dma-latency"));
        assert!(list(&r).contains("timer-slack (study 001"));
    }

    #[test]
    fn the_arms_differ_only_in_the_remedy_and_each_is_a_valid_configuration() {
        for (a, t) in Registry::standard().remedies() {
            // `none` changes nothing; shield and dma-latency change the machine (tested in latlab-sys).
            let machine_only = ["none", "shield", "dma-latency"].contains(&a.name);
            match t.arms_differ(a.name) {
                Ok(Some(differ)) => assert!(differ || machine_only, "{}: the arms are the same", a.name),
                // The remedy needs what this machine lacks (a controller, a kernel).
                Ok(None) => {}
                Err(e) => panic!("{}: {e}", a.name),
            }
        }
    }
}
