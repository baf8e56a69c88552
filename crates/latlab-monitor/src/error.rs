//! latlab-monitor's error: why a monitor could not run, with the error beneath it.

use latlab_model::experiment::BoxError;
use latlab_sys::platform::CapabilityRefused;

/// Why a monitor could not run.
#[derive(Debug, thiserror::Error)]
pub enum MonitorError {
    /// Bad settings.
    #[error("{0}")]
    Config(#[from] latlab_model::ConfigError),
    /// `--strict` and a capability was refused.
    #[error(transparent)]
    Capability(#[from] CapabilityRefused),
    /// The store the runner gave.
    #[error("the database: {0}")]
    Store(#[from] BoxError),
    /// Something the monitor starts (a load, the metrics endpoint) could not start.
    #[error("{what}")]
    System {
        /// What was being started.
        what: String,
        /// Why.
        #[source]
        source: BoxError,
    },
}

impl MonitorError {
    /// Starting `what` failed with `e`.
    pub fn system(what: impl Into<String>, e: impl Into<BoxError>) -> Self {
        MonitorError::System { what: what.into(), source: e.into() }
    }
}
