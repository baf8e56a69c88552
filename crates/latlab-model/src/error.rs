//! The errors of the contract: the boxed error a run's skip or failure carries (keeping its
//! source chain), and the configuration error every check of settings returns.

/// Any error, boxed, with its source chain.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A configuration or command line that does not make sense: what is wrong and what to give
/// instead. Nothing lies beneath it (the setting is the cause); the command line turns it into
/// exit code 2 before anything is measured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl From<String> for ConfigError {
    fn from(s: String) -> Self {
        ConfigError(s)
    }
}

impl From<&str> for ConfigError {
    fn from(s: &str) -> Self {
        ConfigError(s.to_string())
    }
}

impl std::ops::Deref for ConfigError {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<&str> for ConfigError {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<str> for ConfigError {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}
