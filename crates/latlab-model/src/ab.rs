//! A/B measurements an experiment asks of the runner: a remedy's arms run interleaved over
//! rounds on a configuration the experiment made, stored as a `tune` run, and judged on one
//! headline. The engine is the binary's (it stores runs); an experiment sees it only as
//! [`AbRunner`] in its [`RunContext`](crate::experiment::RunContext) (`latlab rt doctor`
//! measures each costly setting it finds so).

use crate::error::BoxError;

/// One A/B an experiment asks for.
pub struct AbAsk {
    /// The experiment whose remedy it is (`Experiment::NAME`).
    pub experiment: &'static str,
    /// The remedy (`latlab tune --list`).
    pub remedy: &'static str,
    /// The configuration both arms start from: the experiment's own `Config` type.
    pub base: Box<dyn std::any::Any + Send>,
    /// Rounds of baseline and remedy.
    pub rounds: usize,
    /// The headline series judged.
    pub headline: &'static str,
    /// Its words.
    pub label: String,
    /// Judge each run's maximum (a per-run metric `<headline>.max`) rather than the series' p99.
    pub max: bool,
    /// A key and value the stored `tune` run carries (`doctor.finding`).
    pub note: (&'static str, String),
}

/// What an A/B found, in the headline's unit (ns for latencies).
#[derive(Debug, Clone, PartialEq)]
pub struct AbVerdict {
    /// The baseline's figure (the mean over its runs).
    pub as_found: f64,
    /// The remedy's.
    pub remedied: f64,
    /// The mean difference remedy − baseline over the rounds.
    pub diff: f64,
    /// Its 95 % interval (NaN with one round).
    pub lo: f64,
    /// See `lo`.
    pub hi: f64,
    /// helps, hurts, no effect detectable.
    pub effect: String,
    /// The stored `tune` run.
    pub tune_run: Option<i64>,
}

/// The runner's A/B engine, as an experiment sees it.
pub trait AbRunner: Send + Sync {
    /// Run `ask`, store it, judge it.
    fn ab(&self, ask: AbAsk) -> Result<AbVerdict, BoxError>;
}

/// Check an A/B's rounds: 1 to [`AB_MAX_ROUNDS`](crate::defaults::AB_MAX_ROUNDS).
pub fn check_rounds(rounds: usize) -> Result<(), crate::ConfigError> {
    let most = crate::defaults::AB_MAX_ROUNDS;
    if rounds == 0 || rounds > most {
        return Err(format!("--rounds {rounds}: 1 to {most}").into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn rounds_are_one_to_the_most() {
        assert!(super::check_rounds(0).unwrap_err().to_string().contains("--rounds 0: 1 to 100"));
        assert_eq!(super::check_rounds(1), Ok(()));
        assert_eq!(super::check_rounds(100), Ok(()));
        assert!(super::check_rounds(101).is_err());
    }
}
