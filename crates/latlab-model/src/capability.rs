//! What a run asked the machine for and what it got: each requested knob's outcome
//! ([`Capability`]), the collector that warns once per refusal ([`Capabilities`]), the
//! `--strict` error, and the kernel's RT throttling setting as stored with every run.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What one requested knob came to. Stored in every run record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capability {
    /// Short stable name, e.g. `sched.fifo`, `mlockall`, `cpu_dma_latency`.
    pub name: String,
    /// What was asked for, in words.
    pub requested: String,
    /// What the run actually got.
    pub obtained: String,
    /// True if `obtained` is what was requested.
    pub granted: bool,
    /// When refused: why, and what the user can do about it.
    pub advice: Option<String>,
}

impl Capability {
    /// A granted capability.
    pub fn granted(name: &str, requested: impl Into<String>, obtained: impl Into<String>) -> Self {
        Self { name: name.into(), requested: requested.into(), obtained: obtained.into(), granted: true, advice: None }
    }
    /// A refused capability with the reason and advice.
    pub fn refused(
        name: &str,
        requested: impl Into<String>,
        obtained: impl Into<String>,
        advice: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            requested: requested.into(),
            obtained: obtained.into(),
            granted: false,
            advice: Some(advice.into()),
        }
    }
    /// The one-line warning shown on stderr for a refusal.
    pub fn warning(&self) -> Option<String> {
        if self.granted {
            return None;
        }
        Some(format!(
            "{}: asked for {}, got {}{}",
            self.name,
            self.requested,
            self.obtained,
            self.advice.as_deref().map(|a| format!(" — {a}")).unwrap_or_default()
        ))
    }
}

/// Advice already said on stderr by this process.
static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// A refusal's line for stderr, saying its advice only the first time this process says
/// that advice (one voice across a suite's experiments: later refusals with the same cause
/// name only what they lost). `None` for a granted capability.
pub fn said_once(c: &Capability) -> Option<String> {
    let full = c.warning()?;
    let Some(advice) = &c.advice else { return Some(full) };
    let mut said = SAID.lock().unwrap_or_else(|p| p.into_inner());
    if said.contains(advice) {
        Some(format!("{}: asked for {}, got {} (refused as said above)", c.name, c.requested, c.obtained))
    } else {
        said.push(advice.clone());
        Some(full)
    }
}

/// Raised under `--strict` when the machine refuses a requested capability.
#[derive(Debug, thiserror::Error)]
#[error("capability refused (--strict): {0}")]
pub struct CapabilityRefused(pub String);

/// The kernel's real-time throttling setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RtThrottling {
    /// `sched_rt_runtime_us`; -1 means throttling is off.
    pub runtime_us: i64,
    /// `sched_rt_period_us`.
    pub period_us: i64,
}

impl RtThrottling {
    /// True if RT tasks are limited to less than the whole period.
    pub fn is_on(&self) -> bool {
        self.runtime_us >= 0 && self.runtime_us < self.period_us
    }
}

impl fmt::Display for RtThrottling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_on() {
            write!(f, "on ({} ms per {} ms)", self.runtime_us / 1000, self.period_us / 1000)
        } else {
            write!(f, "off")
        }
    }
}

/// Collects capability outcomes for one run and prints each refusal as a warning.
#[derive(Debug, Default, Clone)]
pub struct Capabilities {
    /// Everything requested so far, in order.
    pub list: Vec<Capability>,
    /// Turn refusals into errors.
    pub strict: bool,
}

impl Capabilities {
    /// A collector; `strict` turns the first refusal into an error.
    pub fn new(strict: bool) -> Self {
        Self { list: Vec::new(), strict }
    }
    /// Record an outcome. Refusals warn on stderr (once per name) and, under strict, fail.
    pub fn record(&mut self, c: Capability) -> Result<(), CapabilityRefused> {
        let seen = self.list.iter().any(|o| o.name == c.name && o.granted == c.granted);
        if let Some(w) = c.warning() {
            if self.strict {
                self.list.push(c);
                return Err(CapabilityRefused(format!("{w} (without --strict the run goes on without it)")));
            }
            if !seen {
                eprintln!("warning: {}; continuing without it", said_once(&c).unwrap_or(w));
            }
        }
        if !seen {
            self.list.push(c);
        }
        Ok(())
    }
    /// The warnings to copy into the run record.
    pub fn warnings(&self) -> Vec<String> {
        self.list.iter().filter_map(Capability::warning).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_advice_is_said_once_and_later_refusals_name_only_what_they_lost() {
        let advice = "grant the test's own capability (said once)";
        let a = Capability::refused("l1.sched.fifo", "fifo:80", "other", advice);
        let b = Capability::refused("l2.sched.rr", "rr:79", "other", advice);
        assert_eq!(said_once(&a).unwrap(), a.warning().unwrap());
        assert_eq!(said_once(&b).unwrap(), "l2.sched.rr: asked for rr:79, got other (refused as said above)");
        assert_eq!(said_once(&Capability::granted("mlockall", "x", "x")), None);
        // The record keeps every refusal whole.
        let mut caps = Capabilities::new(false);
        caps.record(b.clone()).unwrap();
        assert_eq!(caps.warnings(), vec![b.warning().unwrap()]);
    }
}
