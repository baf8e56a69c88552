//! The errors of the contract: the boxed error a run's skip or failure carries (keeping its
//! source chain), and the configuration error every check of settings returns.

/// Any error, boxed, with its source chain.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// `e` and its causes, joined by ": " (as `anyhow`'s `{:#}` prints them): for a message or a
/// record's warning that must keep what lies beneath.
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        // An error whose text already ends with its cause's (`what: cause`) is not said twice.
        if !s.ends_with(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = c.source();
    }
    s
}

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

#[cfg(test)]
mod tests {
    #[derive(Debug, thiserror::Error)]
    #[error("starting xterm")]
    struct Start(#[source] std::io::Error);

    #[derive(Debug, thiserror::Error)]
    #[error("reading x: {0}")]
    struct SaysItsCause(#[source] std::io::Error);

    #[test]
    fn a_chain_says_every_cause_once() {
        let e = Start(std::io::Error::other("not found"));
        assert_eq!(super::chain(&e), "starting xterm: not found");
        let e = SaysItsCause(std::io::Error::other("denied"));
        assert_eq!(super::chain(&e), "reading x: denied", "a cause the text already ends with is not repeated");
        let c = super::ConfigError::from("--rounds: 1 to 1000");
        assert_eq!(super::chain(&c), "--rounds: 1 to 1000");
        assert_eq!(c, "--rounds: 1 to 1000");
    }
}
