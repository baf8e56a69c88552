//! `latlab tune`: run a remedy against its baseline, interleaved (A B B A A B …), store every
//! run, then store and print the A/B: each headline's p50 and p99 difference with its 95 %
//! bootstrap interval, and the verdict. Machine changes are undone after each remedy run.

use super::remedies::{self, Plan};
use crate::cli::{Cli, Command, DisplayCommand, StallCommand, TuneArgs};
use crate::runner::{install_interrupt, out, save};
use anyhow::Context;
use latlab_display::experiment::{DisplayLatency, DisplayPipeline};
use latlab_model::experiment::{Experiment, RunContext};
use latlab_model::record::RunRecord;
use latlab_output::progress::Progress;
use latlab_rt::experiment::Rt;
use latlab_stall::experiment::StallPressure;
use latlab_sys::remedy::Arms;
use latlab_udp::experiment::Udp;
use std::path::Path;

pub fn run(db: &Path, strict: bool, a: TuneArgs) -> anyhow::Result<i32> {
    if a.list {
        out(&remedies::list())?;
        return Ok(crate::exit::OK);
    }
    let name = a.remedy.as_deref().unwrap_or_default();
    let remedy = remedies::find(name).map_err(crate::runner::usage)?;
    latlab_output::tune::check_rounds(a.rounds).map_err(crate::runner::usage)?;
    // The experiment's own command line, parsed by its own parser.
    let mut argv: Vec<String> = vec!["latlab".into()];
    argv.extend(remedy.about.command.iter().map(|s| s.to_string()));
    if a.experiment_args.is_empty() {
        argv.extend(remedy.about.default_args.iter().map(|s| s.to_string()));
    } else {
        argv.extend(a.experiment_args.iter().cloned());
    }
    let cli = <Cli as clap::Parser>::try_parse_from(&argv).map_err(|e| {
        crate::runner::usage(format!(
            "the options after -- are `latlab {}`'s: {}",
            remedy.about.command.join(" "),
            e.render()
        ))
    })?;
    let info = remedy.info();
    let headlines = remedy.headlines();
    let (a_runs, b_runs) = match (remedy.plan, cli.command) {
        (Plan::Rt(arms), Command::Rt(r)) => ab::<Rt>(db, &info.name, super::rt::config(strict, &r)?, &arms, a.rounds)?,
        (Plan::DisplayLatency(arms), Command::Display(d)) => match d.command {
            DisplayCommand::Latency(l) => {
                ab::<DisplayLatency>(db, &info.name, super::display::latency_config(l), &arms, a.rounds)?
            }
            _ => anyhow::bail!("{} is measured with `latlab display latency`", info.name),
        },
        (Plan::Udp(arms), Command::Udp(u)) => match u.command {
            None => ab::<Udp>(db, &info.name, super::udp::loopback_config(&u), &arms, a.rounds)?,
            Some(_) => anyhow::bail!("{} is measured with a loopback `latlab udp` run", info.name),
        },
        (Plan::DisplayPipeline(arms), Command::Display(d)) => match d.command {
            DisplayCommand::Pipeline(p) => {
                ab::<DisplayPipeline>(db, &info.name, super::display::pipeline_config(p), &arms, a.rounds)?
            }
            _ => anyhow::bail!("{} is measured with `latlab display pipeline`", info.name),
        },
        (Plan::StallPressure(arms), Command::Stall(s)) => match s.command {
            Some(StallCommand::Pressure(p)) => {
                ab::<StallPressure>(db, &info.name, super::stall::pressure_config(p), &arms, a.rounds)?
            }
            _ => anyhow::bail!("{} is measured with `latlab stall pressure`", info.name),
        },
        _ => anyhow::bail!("{}: the remedy's command and its plan disagree", info.name),
    };
    let mut rec = latlab_output::tune::ab_record(&info, &a_runs, &b_runs, &headlines);
    rec.link_studies();
    save(db, &mut rec)?;
    let mut text = format!("{}\n\n", latlab_output::tune::verdict_line(&rec));
    text.push_str(&latlab_output::export::markdown(&rec));
    out(&text)?;
    Ok(crate::runner::status_code(&rec))
}

/// Run `rounds` pairs of experiment `E`: the baseline and the remedy (with its machine
/// change applied for that run only), in A B, B A, A B … order. Every run is stored, marked with its arm and round.
fn ab<E: Experiment>(
    db: &Path,
    remedy: &str,
    base: E::Config,
    arms: &Arms<E::Config>,
    rounds: usize,
) -> anyhow::Result<(Vec<RunRecord>, Vec<RunRecord>)> {
    let (mut a, b) = (base.clone(), base);
    (arms.baseline)(&mut a);
    E::validate(&a).map_err(crate::runner::usage)?;
    // Refused before anything is measured: apply the remedy once and undo it at once, so a
    // missing requirement (root, a controller, a kernel) stops the A/B before its first run.
    let (undo, _) =
        (arms.remedy)(&mut b.clone()).with_context(|| format!("the remedy {remedy} cannot be applied here"))?;
    let errors = undo.undo();
    if !errors.is_empty() {
        anyhow::bail!("trying the remedy {remedy}: it could not be undone cleanly: {}", errors.join("; "));
    }
    install_interrupt()?;
    eprintln!("tune {remedy}: {rounds} rounds of baseline then remedy; {}", E::announce(&a));
    let steps = E::steps(&a) * 2 * rounds as u64;
    let progress = (steps > 0).then(|| Progress::new(&format!("tune {remedy}"), steps));
    let ctx =
        RunContext { progress: progress.as_ref().map(Progress::counter).unwrap_or_default(), ..Default::default() };
    let (mut a_runs, mut b_runs) = (Vec::new(), Vec::new());
    let result = (|| -> anyhow::Result<()> {
        for round in 1..=rounds {
            // A B, then B A: interleaved, and each arm goes first as often as the other, so
            // neither a linear drift nor running second (warm caches, a settled CPU
            // frequency) favours one arm.
            let order = if round % 2 == 1 { ["baseline", "remedy"] } else { ["remedy", "baseline"] };
            for arm in order {
                if latlab_sys::interrupt::stop_requested() {
                    return Ok(());
                }
                let mut cfg = if arm == "baseline" { a.clone() } else { b.clone() };
                let applied = if arm == "remedy" {
                    Some((arms.remedy)(&mut cfg).with_context(|| format!("applying the remedy {remedy}"))?)
                } else {
                    None
                };
                let outcome = latlab_model::experiment::run::<E>(&cfg, &ctx);
                // Undo before anything else can fail: the machine is put back first.
                let (what, undo_errors) = match applied {
                    Some((undo, what)) => (what, undo.undo()),
                    None => (String::new(), Vec::new()),
                };
                for mut rec in outcome?.records {
                    rec.config("tune.remedy", remedy);
                    rec.config("tune.arm", arm);
                    rec.config("tune.round", round);
                    if !what.is_empty() {
                        rec.config("tune.change", &what);
                    }
                    for e in &undo_errors {
                        rec.warn(format!("the machine was not fully put back: {e}"));
                    }
                    save(db, &mut rec)?;
                    if arm == "baseline" { &mut a_runs } else { &mut b_runs }.push(rec);
                }
                if !undo_errors.is_empty() {
                    anyhow::bail!("undoing {remedy} failed: {}", undo_errors.join("; "));
                }
            }
        }
        Ok(())
    })();
    if let Some(p) = progress {
        p.finish();
    }
    result?;
    Ok((a_runs, b_runs))
}
