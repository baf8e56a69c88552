//! latlab-keyscreen's error: what could not be started, read from the screen or typed, with
//! the error beneath it.

use latlab_model::ConfigError;
use latlab_model::error::BoxError;
use latlab_sys::SysError;
use latlab_sys::ioerr::IoFailed;

/// Why key to screen could not go on.
#[derive(Debug, thiserror::Error)]
pub enum ScreenError {
    /// A program latlab starts (Xvfb, sway, an RDP server, the application, a system tool)
    /// could not be started or did not get ready.
    #[error("{what}")]
    Start {
        /// What was being started.
        what: String,
        /// Why, when something beneath said.
        #[source]
        source: Option<BoxError>,
    },
    /// The display server (X11, Wayland) failed a request.
    #[error("{what}")]
    Display {
        /// The request.
        what: String,
        /// The display server's error.
        #[source]
        source: Option<BoxError>,
    },
    /// The surface (an RDP session, a display) failed while latlab read or typed.
    #[error(transparent)]
    Surface(BoxError),
    /// The screen does not show what latlab can read, or the keys did not do what they should.
    #[error("{0}")]
    Screen(String),
    /// A file or system call failed.
    #[error(transparent)]
    Io(#[from] IoFailed),
    /// The machine would not do what this needs.
    #[error(transparent)]
    System(#[from] SysError),
    /// A setting out of range.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

impl ScreenError {
    /// Starting `what` failed with `e`.
    pub fn start(what: impl Into<String>, e: impl Into<BoxError>) -> Self {
        ScreenError::Start { what: what.into(), source: Some(e.into()) }
    }
    /// Starting something failed, said in `what` (nothing beneath).
    pub fn not_started(what: impl Into<String>) -> Self {
        ScreenError::Start { what: what.into(), source: None }
    }
    /// The display server's request `what` failed with `e`.
    pub fn display(what: impl Into<String>, e: impl Into<BoxError>) -> Self {
        ScreenError::Display { what: what.into(), source: Some(e.into()) }
    }
}
