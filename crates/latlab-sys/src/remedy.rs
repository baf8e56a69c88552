//! A remedy of a study, as the experiment it is measured with declares it: what it changes,
//! what it needs and how it is undone, the figures it is judged on, and its two arms as
//! changes to that experiment's configuration (the remedy's arm may also change the machine,
//! under an [`Undo`] guard dropped right after its run). `latlab tune` runs the A/B.

use crate::change::{ChangeError, Undo};

/// Which way a figure improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Better {
    /// Latencies, stalls, jitter.
    Lower,
    /// Rates, frequencies.
    Higher,
}

/// A machine change made for the remedy's run: the guard, and what it did (for the record).
pub type Applied = (Undo, String);

/// No machine change.
pub fn nothing() -> Applied {
    (Undo::new(), String::new())
}

/// The arms of an A/B on configuration `C`.
pub struct Arms<C> {
    /// Make `C` the baseline.
    pub baseline: fn(&mut C),
    /// Make `C` the remedy, changing the machine if the remedy does.
    pub remedy: fn(&mut C) -> Result<Applied, ChangeError>,
}

/// What a remedy is, in words and figures.
#[derive(Debug, Clone, Copy)]
pub struct About {
    /// The name `latlab tune` takes.
    pub name: &'static str,
    /// Study and section.
    pub study: &'static str,
    /// The command it is measured with (words after `latlab`).
    pub command: &'static [&'static str],
    /// That command's options when none are given after `--`.
    pub default_args: &'static [&'static str],
    /// The baseline.
    pub baseline: &'static str,
    /// What the remedy changes.
    pub changes: &'static str,
    /// What it needs.
    pub needs: &'static str,
    /// How it is undone.
    pub undo: &'static str,
    /// The series judged, lower is better: (name, label).
    pub headlines: &'static [(&'static str, &'static str)],
    /// Metrics judged with one value a run, and which way is better (judged when the options
    /// run them, e.g. MF and SF with `-- sweep`).
    pub scalars: &'static [(&'static str, &'static str, Better)],
}

/// A remedy measured with an experiment whose configuration is `C`.
pub struct Remedy<C> {
    /// What it is.
    pub about: About,
    /// Its arms.
    pub arms: Arms<C>,
}
