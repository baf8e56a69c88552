//! latlab-type's error: why a `latlab type` run stopped, with the error beneath it.

use latlab_keyscreen::ScreenError;
use latlab_model::ConfigError;
use latlab_model::error::BoxError;
use latlab_sys::SysError;

/// Why `latlab type` could not go on.
#[derive(Debug, thiserror::Error)]
pub enum TypeError {
    /// A setting out of range.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The screen, the application or a program started for it failed.
    #[error(transparent)]
    Screen(#[from] ScreenError),
    /// The machine would not do what a condition needs (a page-out, a swap file).
    #[error(transparent)]
    System(#[from] SysError),
    /// The load or the swap a condition needs could not be made.
    #[error("the {condition} condition")]
    Condition {
        /// The condition (`cpu`, `mem`).
        condition: &'static str,
        /// Why.
        #[source]
        source: BoxError,
    },
    /// What was asked for needs something this machine or command line lacks.
    #[error("{0}")]
    Needs(String),
}
