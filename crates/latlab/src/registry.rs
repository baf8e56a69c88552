//! Every experiment latlab knows, one line each, in the order `latlab suite` runs those it runs;
//! an experiment whose command line is a file of its own ([`ExperimentCli`]) brings its
//! subcommand with its line. Their short configurations, headline figures, figures, docs and
//! skips live in their own crates (see `latlab_model::experiment`).

use crate::cli::ExperimentCli;
use crate::commands::display::{tuned_latency, tuned_pipeline};
use crate::commands::rt::tuned as rt_tuned;
use crate::commands::stall::tuned_pressure;
use crate::commands::udp::tuned as udp_tuned;
use latlab_display::experiment::{DisplayCache, DisplayCapacity, DisplayLatency, DisplayOps, DisplayPipeline};
use latlab_model::experiment::{Experiment, Short, SuiteEntry};
use latlab_model::figure::Figure;
use latlab_model::record::RunRecord;
use latlab_rt::experiment::Rt;
use latlab_stall::experiment::{Idle, StallCpu, StallMem, StallNet, StallPressure};
use latlab_startup::boot::experiment::{Boot, BootMeasure};
use latlab_startup::experiment::{StartupBuiltin, StartupIo, StartupPreload};
use latlab_sys::remedy::{About, Remedy};
use latlab_udp::experiment::Udp;
use std::path::Path;

/// The experiments latlab knows: [`Registry::standard`] is the binary's; a test adds its own.
#[derive(Default)]
pub struct Registry {
    entries: Vec<Entry>,
}

/// One experiment: its suite entry (built for `--strict` and a small board), and its
/// subcommand when its command line is a file of its own.
struct Entry {
    /// `Experiment::NAME`.
    name: &'static str,
    make: fn(bool, bool) -> Box<dyn SuiteEntry>,
    command: Option<Box<dyn Command>>,
    tune: Option<Box<dyn Tunable>>,
}

impl Registry {
    /// Every experiment of latlab, in the order the suite runs them.
    pub fn standard() -> Self {
        Registry::default()
            .with_cli::<crate::cli::selftest::SelftestArgs>()
            .with::<Rt>()
            .with_remedies::<Rt>(latlab_rt::remedies::all, rt_tuned)
            .with::<Udp>()
            .with_remedies::<Udp>(latlab_udp::remedies::all, udp_tuned)
            .with::<DisplayOps>()
            .with::<DisplayCache>()
            .with::<DisplayPipeline>()
            .with_remedies::<DisplayPipeline>(latlab_display::remedies::pipeline, tuned_pipeline)
            .with::<DisplayLatency>()
            .with_remedies::<DisplayLatency>(latlab_display::remedies::latency, tuned_latency)
            .with::<DisplayCapacity>()
            .with::<latlab_display::rdp::experiment::DisplayRdp>()
            .with_cli::<crate::cli::typing::TypeArgs>()
            .with::<StallCpu>()
            .with::<Idle>()
            .with::<StallMem>()
            .with::<StallPressure>()
            .with_remedies::<StallPressure>(latlab_stall::remedies::all, tuned_pressure)
            .with::<StallNet>()
            .with::<Boot>()
            .with::<BootMeasure>()
            .with::<StartupBuiltin>()
            .with::<StartupIo>()
            .with::<StartupPreload>()
            .with_cli::<crate::cli::monitor::MonitorArgs>()
    }

    /// Add experiment `E`, whose subcommand the CLI's grammar already has.
    pub fn with<E: Experiment>(mut self) -> Self {
        self.entries.push(Entry { name: E::NAME, make: Short::<E>::entry_for, command: None, tune: None });
        self
    }

    /// Add the experiment `A` runs, with `A` as its subcommand (`latlab NAME`).
    pub fn with_cli<A: ExperimentCli>(mut self) -> Self {
        self.entries.push(Entry {
            name: A::E::NAME,
            make: Short::<A::E>::entry_for,
            command: Some(Box::new(Cli::<A>(std::marker::PhantomData))),
            tune: None,
        });
        self
    }

    /// Give the experiment `E` added last its remedies for `latlab tune`: those its crate
    /// declares, and `config`, the configuration a command line of `E` makes (`None` for a
    /// command line of another experiment).
    pub fn with_remedies<E: Experiment>(
        mut self,
        remedies: fn() -> Vec<Remedy<E::Config>>,
        config: ConfigOf<E>,
    ) -> Self {
        let last = self.entries.last_mut().expect("with_remedies follows the experiment's own line");
        assert_eq!(last.name, E::NAME, "with_remedies follows the experiment's own line");
        last.tune = Some(Box::new(Tune::<E> { remedies, config }));
        self
    }

    /// Every remedy `latlab tune` knows, in the registry's order, with the experiment it is
    /// measured with.
    pub(crate) fn remedies(&self) -> Vec<(About, &dyn Tunable)> {
        self.entries
            .iter()
            .filter_map(|e| e.tune.as_deref())
            .flat_map(|t| t.remedies().into_iter().map(move |a| (a, t)))
            .collect()
    }

    /// Every entry, in order (`strict` from `--strict`; `small`: scaled down for a small board).
    pub fn experiments_for(&self, strict: bool, small: bool) -> Vec<Box<dyn SuiteEntry>> {
        self.entries.iter().map(|e| (e.make)(strict, small)).collect()
    }

    /// Every entry at its usual size.
    pub fn experiments(&self, strict: bool) -> Vec<Box<dyn SuiteEntry>> {
        self.experiments_for(strict, false)
    }

    /// The whole grammar: the commands around the experiments (`cli::Cli`) and every
    /// subcommand an experiment brought.
    pub fn grammar(&self) -> clap::Command {
        use clap::CommandFactory;
        crate::cli::with_measuring_options(
            self.commands().fold(crate::cli::Cli::command(), |c, e| c.subcommand(e.grammar())),
        )
    }

    /// The subcommands experiments brought.
    pub(crate) fn commands(&self) -> impl Iterator<Item = &dyn Command> {
        self.entries.iter().filter_map(|e| e.command.as_deref())
    }
}

/// An experiment's own subcommand, as the grammar and the dispatch see it.
pub(crate) trait Command {
    /// Its name (`Experiment::NAME`).
    fn name(&self) -> &'static str;
    /// Its grammar.
    fn grammar(&self) -> clap::Command;
    /// Run it from its parsed arguments.
    fn run(&self, m: &clap::ArgMatches, db: &std::path::Path, strict: bool) -> anyhow::Result<i32>;
}

struct Cli<A>(std::marker::PhantomData<fn() -> A>);

impl<A: ExperimentCli> Command for Cli<A> {
    fn name(&self) -> &'static str {
        A::E::NAME
    }
    fn grammar(&self) -> clap::Command {
        A::augment_args(clap::Command::new(A::E::NAME)).about(capitalised(A::E::ABOUT)).long_about(A::HELP)
    }
    fn run(&self, m: &clap::ArgMatches, db: &std::path::Path, strict: bool) -> anyhow::Result<i32> {
        let a = <A as clap::FromArgMatches>::from_arg_matches(m).map_err(|e| crate::runner::usage(e.to_string()))?;
        crate::runner::measure::<A::E>(db, a.config(strict))
    }
}

/// `s` with its first letter a capital, as `--help` lists subcommands.
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// The configuration a parsed command line makes for experiment `E`, or `None` when the
/// command line is another experiment's.
pub type ConfigOf<E> = fn(crate::cli::Command, bool) -> anyhow::Result<Option<<E as Experiment>::Config>>;

/// An experiment's remedies, as `latlab tune` sees them.
pub(crate) trait Tunable {
    /// What each remedy is.
    fn remedies(&self) -> Vec<About>;
    /// Run the A/B of `remedy` on the configuration `command` makes.
    fn ab(
        &self,
        db: &Path,
        remedy: &str,
        command: crate::cli::Command,
        strict: bool,
        rounds: usize,
    ) -> anyhow::Result<(Vec<RunRecord>, Vec<RunRecord>)>;
    /// Whether the two arms of `remedy` make different configurations from the defaults, each
    /// valid (`None`: the remedy needs what this machine lacks). For the tests.
    #[cfg(test)]
    fn arms_differ(&self, remedy: &str) -> Result<Option<bool>, String>;
}

struct Tune<E: Experiment> {
    remedies: fn() -> Vec<Remedy<E::Config>>,
    config: ConfigOf<E>,
}

impl<E: Experiment> Tune<E> {
    fn find(&self, remedy: &str) -> anyhow::Result<Remedy<E::Config>> {
        (self.remedies)()
            .into_iter()
            .find(|r| r.about.name == remedy)
            .ok_or_else(|| anyhow::anyhow!("{remedy} is not a remedy of {}", E::NAME))
    }
}

impl<E: Experiment> Tunable for Tune<E> {
    fn remedies(&self) -> Vec<About> {
        (self.remedies)().into_iter().map(|r| r.about).collect()
    }
    fn ab(
        &self,
        db: &Path,
        remedy: &str,
        command: crate::cli::Command,
        strict: bool,
        rounds: usize,
    ) -> anyhow::Result<(Vec<RunRecord>, Vec<RunRecord>)> {
        let r = self.find(remedy)?;
        let base = (self.config)(command, strict)?
            .ok_or_else(|| anyhow::anyhow!("{remedy} is measured with `latlab {}`", r.about.command.join(" ")))?;
        crate::runner::ab::<E>(db, remedy, base, &r.arms, rounds)
    }
    #[cfg(test)]
    fn arms_differ(&self, remedy: &str) -> Result<Option<bool>, String> {
        let r = self.find(remedy).map_err(|e| e.to_string())?;
        let (mut a, mut b) = (E::Config::default(), E::Config::default());
        (r.arms.baseline)(&mut a);
        match (r.arms.remedy)(&mut b) {
            Ok((undo, _)) => {
                let errors = undo.undo();
                if !errors.is_empty() {
                    return Err(errors.join("; "));
                }
            }
            Err(latlab_sys::change::ChangeError::Needs { .. }) => return Ok(None),
            Err(e) => return Err(e.to_string()),
        }
        for c in [&a, &b] {
            E::validate(c).map_err(|e| e.to_string())?;
        }
        let json = |c: &E::Config| serde_json::to_value(c).map_err(|e| e.to_string());
        Ok(Some(json(&a)? != json(&b)?))
    }
}

/// The study figures of a stored run: those every entry of its experiment declares
/// (`Experiment::figures`).
pub fn figures(entries: &[Box<dyn SuiteEntry>], r: &RunRecord) -> Vec<Figure> {
    entries.iter().filter(|e| e.name() == r.experiment).flat_map(|e| e.figures(r)).collect()
}

#[cfg(test)]
mod tests {
    use super::Registry;

    #[test]
    fn entries_are_unique_and_names_valid() {
        let e = Registry::standard().experiments(false);
        let mut keys: Vec<_> = e.iter().map(|x| (x.name(), x.mode())).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), e.len());
        assert!(e.iter().all(|x| latlab_model::record::valid_name(x.name())));
        assert!(e.iter().all(|x| x.steps() > 0 || x.name() == "idle" || x.name() == "stall" || !x.in_suite()));
        // Only the monitor, which runs for days, stays out of the suite.
        let out: Vec<_> = e.iter().filter(|x| !x.in_suite()).map(|x| x.name()).collect();
        assert_eq!(out, ["monitor"]);
        // Every experiment names its docs, a file that exists.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for x in &e {
            assert!(root.join(x.docs()).is_file(), "{} {}: no docs at '{}'", x.name(), x.mode(), x.docs());
        }
    }

    #[test]
    fn a_small_board_gets_the_same_entries_scaled_down() {
        let r = Registry::standard();
        let full = r.experiments_for(false, false);
        let small = r.experiments_for(false, true);
        let names = |v: &[Box<dyn latlab_model::experiment::SuiteEntry>]| {
            v.iter().map(|e| (e.name(), e.mode())).collect::<Vec<_>>()
        };
        assert_eq!(names(&full), names(&small));
        for (f, s) in full.iter().zip(&small) {
            assert!(s.steps() <= f.steps(), "{} {} grew on a small board", f.name(), f.mode());
        }
        // Fewer capacity levels and stall loads: fewer steps.
        let steps = |v: &[Box<dyn latlab_model::experiment::SuiteEntry>], name: &str, mode: &str| {
            v.iter().find(|e| e.name() == name && e.mode() == mode).map(|e| e.steps()).unwrap()
        };
        assert!(steps(&small, "display", "capacity") < steps(&full, "display", "capacity"));
        assert!(steps(&small, "stall", "cpu") < steps(&full, "stall", "cpu"));
    }
}
