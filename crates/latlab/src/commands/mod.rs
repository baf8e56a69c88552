//! Subcommand dispatch: one module per subcommand around the experiments and per experiment
//! whose grammar is `cli::Command`'s; each builds a configuration and hands it to
//! [`crate::runner::measure`].

mod boot;
mod clean;
mod codec;
mod compare;
mod completions;
pub(crate) mod display;
mod doctor;
mod export;
mod import;
mod report;
pub(crate) mod rt;
mod runs;
pub(crate) mod stall;
mod startup;
mod suite;
mod tune;
pub(crate) mod udp;

use crate::cli::{Cli, Command};
use crate::registry::Registry;

pub fn dispatch(cli: Cli, registry: &Registry, measuring: crate::cli::Measuring) -> anyhow::Result<i32> {
    let db = cli.global.db.clone();
    let strict = measuring.strict;
    crate::runner::set_checkpoint(measuring.checkpoint);
    crate::runner::set_verbose(measuring.verbose);
    match cli.command {
        Command::Suite(a) => suite::run(&db, strict, registry, a),
        Command::Rt(a) => match a.command {
            Some(crate::cli::RtCommand::Doctor(d)) => doctor::run(&db, strict, d),
            _ => rt::run(&db, strict, *a),
        },
        Command::Udp(a) => udp::run(&db, *a),
        Command::Codec(a) => codec::run(a),
        Command::Display(a) => display::run(&db, a),
        Command::Stall(a) => stall::stall(&db, a),
        Command::Boot(a) => boot::run(&db, a),
        Command::Startup(a) => startup::run(&db, a),
        Command::Idle(a) => stall::idle(&db, a),
        Command::Runs(a) => runs::list(&db, a),
        Command::Show(a) => runs::show(&db, registry, a),
        Command::Report(a) => report::run(&db, registry, a),
        Command::Export(a) => export::run(&db, a),
        Command::Compare(a) => compare::run(&db, a),
        Command::Tune(a) => tune::run(&db, strict, registry, a),
        Command::Clean(a) => clean::run(a),
        Command::Import(a) => import::run(&db, a),
        Command::Completions(a) => completions::completions(registry, a),
        Command::Man(a) => completions::man(registry, a),
    }
}
