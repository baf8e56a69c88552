//! The boxed error the contract's fallible parts return (a run's skip or failure, the runner's
//! store), keeping its source chain.

/// Any error, boxed, with its source chain.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;
