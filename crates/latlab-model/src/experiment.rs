//! The contract every experiment implements: a name, a validated configuration whose
//! `Default` is the documented defaults, the suite's short configuration, progress steps, and
//! a run that returns stored-to-be records or a typed error that tells "the machine refused
//! what this needs" (a skip) from a failure, keeping the cause chain.
//!
//! The binary drives every experiment the same way through [`Experiment`]: the suite is a
//! list of them ([`SuiteEntry`]), and each subcommand builds a configuration and hands it to
//! one runner (interrupt handling, progress, storing, printing, exit codes). A long-running
//! mode can drive any of them the same way.

use crate::capability::CapabilityRefused;
use crate::record::RunRecord;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

pub use crate::error::BoxError;

/// Why an experiment produced no records.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// The machine refused something the experiment cannot run without (root, swap,
    /// network namespaces, a disk-backed directory); nothing was measured. The suite stores
    /// a skipped run saying why and goes on; a subcommand reports it as an error.
    #[error("the machine refused what this experiment needs")]
    Skipped(#[source] BoxError),
    /// `--strict` and a capability was refused (exit code 3).
    #[error(transparent)]
    Capability(#[from] CapabilityRefused),
    /// The configuration (or the command line) does not make sense (exit code 2).
    #[error(transparent)]
    Config(#[from] crate::ConfigError),
    /// The peer the experiment measures (a remote server) could not be reached or does not
    /// speak its protocol (exit code 4).
    #[error(transparent)]
    Unreachable(BoxError),
    /// The peer refused latlab: its credentials, or a certificate that does not match the
    /// known-hosts file (exit code 5).
    #[error(transparent)]
    Refused(BoxError),
    /// The experiment failed.
    #[error(transparent)]
    Failed(BoxError),
}

impl ExperimentError {
    /// A failure from any error type, keeping its chain.
    pub fn failed(e: impl Into<BoxError>) -> Self {
        ExperimentError::Failed(e.into())
    }

    /// A skip from any error type, keeping its chain.
    pub fn skipped(e: impl Into<BoxError>) -> Self {
        ExperimentError::Skipped(e.into())
    }

    /// The process's exit code for this error: 2 for a bad configuration, 3 for a capability
    /// refused under `--strict`, 4 for a peer out of reach, 5 for a peer that refused latlab,
    /// 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            ExperimentError::Config(_) => crate::exit::USAGE,
            ExperimentError::Capability(_) => crate::exit::CAPABILITY,
            ExperimentError::Unreachable(_) => crate::exit::UNREACHABLE,
            ExperimentError::Refused(_) => crate::exit::REFUSED,
            ExperimentError::Skipped(_) | ExperimentError::Failed(_) => crate::exit::ERROR,
        }
    }

    /// The error and its causes, joined by ": " (as `anyhow`'s `{:#}` prints them).
    pub fn chain_text(&self) -> String {
        crate::error::chain(self)
    }
}

/// What a run hands back: its records, in the order they are stored, and optionally the
/// text that replaces their Markdown summaries on stdout (e.g. cyclictest's histogram) or
/// the answer said before them.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Records to store.
    pub records: Vec<RunRecord>,
    /// Text printed instead of the records' Markdown.
    pub stdout: Option<String>,
    /// Text printed before the records' Markdown (the run's answer in a sentence).
    pub preface: Option<String>,
}

impl From<RunRecord> for Outcome {
    fn from(r: RunRecord) -> Self {
        Outcome { records: vec![r], ..Default::default() }
    }
}

impl From<Vec<RunRecord>> for Outcome {
    fn from(records: Vec<RunRecord>) -> Self {
        Outcome { records, ..Default::default() }
    }
}

/// What every run receives besides its configuration.
#[derive(Clone, Default)]
pub struct RunContext {
    /// Progress counter: the run adds one per step (see [`Experiment::steps`]).
    pub progress: Arc<AtomicU64>,
    /// Where a long run stores what it has measured so far (off by default).
    pub checkpoint: crate::checkpoint::Checkpoint,
    /// The runner's store, for a run that writes its own row and windows as it goes (the
    /// monitor); `None` where the runner keeps none. A record the run wrote there comes back
    /// with its `id`, and the runner stores it in place of that row.
    pub runs: Option<crate::sink::SharedRunSink>,
    /// The runner's A/B engine, for a run that measures a remedy's effect on its own
    /// configuration (`rt doctor`); `None` where the runner gives none.
    pub ab: Option<std::sync::Arc<dyn crate::ab::AbRunner>>,
}

impl std::fmt::Debug for RunContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunContext")
            .field("progress", &self.progress)
            .field("checkpoint", &self.checkpoint)
            .field("runs", &self.runs.as_ref().map(|_| "the runner's store"))
            .field("ab", &self.ab.as_ref().map(|_| "the runner's A/B engine"))
            .finish()
    }
}

/// One experiment (or one mode of an experiment with its own configuration).
pub trait Experiment: 'static {
    /// The validated configuration. `Default` is the documented defaults (the full run).
    type Config: Default + Clone + std::fmt::Debug + serde::Serialize + Send + Sync + 'static;

    /// The name records carry and `suite --only` takes.
    const NAME: &'static str;

    /// One line on what it measures (shown as the suite runs it).
    const ABOUT: &'static str;

    /// Its metric docs, from the workspace's root (`docs/experiments/NAME.md`): a table
    /// naming every metric it emits, which the docs test holds to its runs.
    const DOCS: &'static str;

    /// Metrics shown in the suite's summary: (metric name, label).
    const HEADLINE: &'static [(&'static str, &'static str)] = &[];

    /// What distinguishes this mode from others of the same [`NAME`](Self::NAME) (e.g.
    /// `ops`, `cache`), or "" when the experiment has one mode.
    const MODE: &'static str = "";

    /// The configurations `latlab suite` runs, in order (short; `strict` from `--strict`);
    /// none for an experiment the suite does not run (the monitor runs for days).
    fn suite_configs(strict: bool) -> Vec<Self::Config>;

    /// A short configuration scaled down for a small board (one CPU, or under 1 GiB of
    /// memory: see [`small_machine`]), so the suite still finishes in minutes there and stays
    /// within its memory. Unchanged by default: only experiments whose short run is long or
    /// large override it.
    fn small(cfg: Self::Config) -> Self::Config {
        cfg
    }

    /// Check the configuration (the one place its ranges are checked); the command line
    /// turns an error into exit code 2.
    fn validate(cfg: &Self::Config) -> Result<(), crate::ConfigError> {
        let _ = cfg;
        Ok(())
    }

    /// Steps the run adds to the progress counter.
    fn steps(cfg: &Self::Config) -> u64;

    /// One line said on stderr before the run starts.
    fn announce(cfg: &Self::Config) -> String;

    /// Measure.
    fn run(cfg: &Self::Config, ctx: &RunContext) -> Result<Outcome, ExperimentError>;

    /// One sentence on what this run means for this machine, said first in its summary (the
    /// headline figures follow it); none by default.
    fn verdict(rec: &RunRecord) -> Option<String> {
        let _ = rec;
        None
    }

    /// The study's figures this mode's record can draw (with the paper's points), which the
    /// report renders; none by default. Called for every stored record of
    /// [`NAME`](Self::NAME), so each figure belongs to one mode and checks its own tables.
    fn figures(rec: &RunRecord) -> Vec<crate::figure::Figure> {
        let _ = rec;
        Vec::new()
    }
}

/// The key of `config` that holds a run's whole configuration, as run ([`run`] puts it there).
pub const SETTINGS: &str = "settings";

/// Run experiment `E` with `cfg`, the one way every runner does (the suite, `commands::measure`,
/// `latlab tune`): each of its records carries the whole configuration as `config.settings`
/// ([`SETTINGS`]). The other keys of `config` are facts the run found (the CPUs, the swap, the
/// cgroup, the best policy, …), some of them a setting repeated under the name older versions
/// gave it, which readers of old records still find there.
pub fn run<E: Experiment>(cfg: &E::Config, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
    let mut outcome = E::run(cfg, ctx)?;
    for r in outcome.records.iter_mut().filter(|r| r.experiment == E::NAME) {
        r.config(SETTINGS, cfg);
    }
    Ok(outcome)
}

/// An experiment as the suite holds it: object-safe, with its short configuration built in.
pub trait SuiteEntry {
    /// [`Experiment::NAME`].
    fn name(&self) -> &'static str;
    /// [`Experiment::MODE`].
    fn mode(&self) -> &'static str;
    /// [`Experiment::ABOUT`].
    fn about(&self) -> &'static str;
    /// [`Experiment::DOCS`].
    fn docs(&self) -> &'static str;
    /// [`Experiment::HEADLINE`].
    fn headline(&self) -> &'static [(&'static str, &'static str)];
    /// Steps of the short run.
    fn steps(&self) -> u64;
    /// Whether `latlab suite` runs it (it has short configurations; the monitor has none).
    fn in_suite(&self) -> bool;
    /// Run the short configuration.
    fn run(&self, ctx: &RunContext) -> Result<Outcome, ExperimentError>;
    /// [`Experiment::figures`].
    fn figures(&self, rec: &RunRecord) -> Vec<crate::figure::Figure>;
    /// [`Experiment::verdict`].
    fn verdict(&self, rec: &RunRecord) -> Option<String>;
}

/// The suite entry of experiment `E` with `E::suite_configs(strict)`.
pub struct Short<E: Experiment> {
    cfgs: Vec<E::Config>,
}

impl<E: Experiment> Short<E> {
    /// Boxed, for the suite's list.
    pub fn entry(strict: bool) -> Box<dyn SuiteEntry> {
        Self::entry_for(strict, false)
    }

    /// Boxed, for the suite's list; scaled down by [`Experiment::small`] when `small`.
    pub fn entry_for(strict: bool, small: bool) -> Box<dyn SuiteEntry> {
        let cfgs = E::suite_configs(strict);
        Box::new(Short::<E> { cfgs: if small { cfgs.into_iter().map(E::small).collect() } else { cfgs } })
    }
}

/// Why this is a small board the suite scales down for (one CPU or less than 1 GiB of memory,
/// [`SMALL_BOARD_CPUS`](crate::defaults::SMALL_BOARD_CPUS) and
/// [`SMALL_BOARD_MEM_BYTES`](crate::defaults::SMALL_BOARD_MEM_BYTES)), or `None`.
pub fn small_machine(cpus: usize, mem_bytes: Option<u64>) -> Option<String> {
    let few = cpus <= crate::defaults::SMALL_BOARD_CPUS;
    let little = mem_bytes.is_some_and(|m| m < crate::defaults::SMALL_BOARD_MEM_BYTES);
    let mem = mem_bytes.map_or("unknown memory".to_string(), |m| crate::numfmt::value((m as i64).into(), "B"));
    match (few, little) {
        (false, false) => None,
        (true, false) => Some(format!("{cpus} CPU")),
        (false, true) => Some(format!("{mem} of memory")),
        (true, true) => Some(format!("{cpus} CPU, {mem} of memory")),
    }
}

impl<E: Experiment> SuiteEntry for Short<E> {
    fn name(&self) -> &'static str {
        E::NAME
    }
    fn mode(&self) -> &'static str {
        E::MODE
    }
    fn about(&self) -> &'static str {
        E::ABOUT
    }
    fn docs(&self) -> &'static str {
        E::DOCS
    }
    fn headline(&self) -> &'static [(&'static str, &'static str)] {
        E::HEADLINE
    }
    fn steps(&self) -> u64 {
        self.cfgs.iter().map(E::steps).sum()
    }
    fn in_suite(&self) -> bool {
        !self.cfgs.is_empty()
    }
    fn figures(&self, rec: &RunRecord) -> Vec<crate::figure::Figure> {
        E::figures(rec)
    }
    fn verdict(&self, rec: &RunRecord) -> Option<String> {
        E::verdict(rec)
    }
    /// Each configuration in turn; stops early on Ctrl-C, keeping what was measured.
    fn run(&self, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        let mut all = Outcome::default();
        for cfg in &self.cfgs {
            if crate::interrupt::stop_requested() {
                break;
            }
            all.records.extend(run::<E>(cfg, ctx)?.records);
        }
        Ok(all)
    }
}

/// Named choices of an enumerated option (policies, codecs, ciphers, workloads, …): the
/// command line turns these into a list of valid values, so a bad value is refused before
/// anything runs (exit code 2) and `--help` shows them.
pub trait Choice: Sized + Clone + Send + Sync + 'static {
    /// Every name accepted, in the order shown.
    fn names() -> Vec<&'static str>;
    /// The choice called `s`.
    fn from_choice(s: &str) -> Option<Self>;
    /// "a, b, c".
    fn choice_list() -> String {
        Self::names().join(", ")
    }
}

/// An enumerated option in one place: the enum (unit variants, each with its name on the
/// command line and in records), `ALL` (every variant, in the order `--help` lists them),
/// `name()`, and its [`Choice`]. Attributes (docs, derives beyond `Debug, Clone, Copy,
/// PartialEq, Eq`, serde's) go on the enum and its variants as usual.
///
/// ```
/// latlab_model::choice! {
///     /// Which load.
///     pub enum Load {
///         /// Busy processes.
///         Spinners = "spinners",
///         /// A paced stream.
///         Link = "link",
///     }
/// }
/// use latlab_model::experiment::Choice;
/// assert_eq!(Load::choice_list(), "spinners, link");
/// assert_eq!(Load::from_choice("link"), Some(Load::Link));
/// assert_eq!(Load::ALL.map(Load::name), ["spinners", "link"]);
/// ```
///
/// A type that has `ALL` and `name()` of its own (variants with data: `Codec::Rdp(…)`) gets its
/// `Choice` alone: `latlab_model::choice!(impl Codec, Crypto);`.
#[macro_export]
macro_rules! choice {
    (impl $($t:ty),+ $(,)?) => {$(
        impl $crate::experiment::Choice for $t {
            fn names() -> Vec<&'static str> {
                <$t>::ALL.map(<$t>::name).to_vec()
            }
            fn from_choice(s: &str) -> Option<Self> {
                <$t>::ALL.into_iter().find(|c| c.name() == s)
            }
        }
    )+};
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every choice, in the order `--help` lists them.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];
            /// Its name on the command line and in records.
            pub const fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $text ),+
                }
            }
        }

        impl $crate::experiment::Choice for $name {
            fn names() -> Vec<&'static str> {
                $name::ALL.map($name::name).to_vec()
            }
            fn from_choice(s: &str) -> Option<Self> {
                $name::ALL.into_iter().find(|c| c.name() == s)
            }
        }
    };
}

/// Store a named choice (any type with a `name(self) -> &'static str`, such as those of
/// [`choice!`]) in records by its name: `latlab_model::serialize_by_name!(Codec, Crypto);`.
#[macro_export]
macro_rules! serialize_by_name {
    ($($t:ty),+ $(,)?) => {$(
        impl $crate::__serde::Serialize for $t {
            fn serialize<S: $crate::__serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
    )+};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] std::io::Error);

    #[test]
    fn the_cause_chain_is_kept() {
        let e = ExperimentError::skipped(Outer(std::io::Error::other("no swap")));
        assert_eq!(e.chain_text(), "the machine refused what this experiment needs: outer: no swap");
        let e = ExperimentError::failed(Outer(std::io::Error::other("disk")));
        assert_eq!(e.chain_text(), "outer: disk");
    }

    #[test]
    fn a_board_with_one_cpu_or_under_a_gibibyte_is_small() {
        const GIB: u64 = 1 << 30;
        assert_eq!(small_machine(2, Some(24 * GIB)), None);
        assert_eq!(small_machine(1, Some(4 * GIB)).as_deref(), Some("1 CPU"));
        assert_eq!(small_machine(4, Some(GIB / 2)).as_deref(), Some("512 MiB of memory"));
        assert_eq!(small_machine(1, Some(GIB / 2)).as_deref(), Some("1 CPU, 512 MiB of memory"));
        assert_eq!(small_machine(4, None), None);
    }
    crate::choice! {
        enum Colour {
            Red = "red",
            Blue = "blue",
        }
    }

    #[test]
    fn choices_round_trip() {
        assert_eq!(Colour::from_choice("blue"), Some(Colour::Blue));
        assert_eq!(Colour::from_choice("green"), None);
        assert_eq!(Colour::choice_list(), "red, blue");
    }
}
