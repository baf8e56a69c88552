//! latlab-display's error: why a display study stopped, with the error beneath it.

use latlab_model::ConfigError;
use latlab_model::error::BoxError;

/// Why a display study could not go on.
#[derive(Debug, thiserror::Error)]
pub enum DisplayError {
    /// A setting out of range.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A file or system call failed.
    #[error(transparent)]
    Io(#[from] latlab_sys::ioerr::IoFailed),
    /// The machine would not do what the study needs (a cgroup, a page-out, a swap file).
    #[error(transparent)]
    System(#[from] latlab_sys::SysError),
    /// The network lab (namespaces, a shaped link) could not be made.
    #[error(transparent)]
    Lab(#[from] latlab_sys::netlab::LabError),
    /// The CPU load could not be started.
    #[error(transparent)]
    Spin(#[from] latlab_sys::spin::SpinError),
    /// latlab's own display stream failed (a connection, a session).
    #[error(transparent)]
    Net(#[from] latlab_display_net::NetError),
    /// An in-memory display session failed.
    #[error(transparent)]
    Session(#[from] latlab_desktop::session::SessionError),
    /// Key to screen failed (a screen, a server latlab started, the keys).
    #[error(transparent)]
    Screen(#[from] latlab_keyscreen::ScreenError),
    /// latlab's RDP client could not connect.
    #[error(transparent)]
    RdpConnect(#[from] latlab_rdp_peers::connect::ConnectError),
    /// latlab's RDP client's session failed.
    #[error(transparent)]
    RdpSession(#[from] latlab_rdp_peers::session::SessionError),
    /// A step of the study failed, with what it was doing.
    #[error("{what}")]
    Failed {
        /// What was being done.
        what: String,
        /// Why.
        #[source]
        source: Option<BoxError>,
    },
    /// The study could not be made as asked (no level ran, a thread ended without its result).
    #[error("{0}")]
    Study(String),
}

impl DisplayError {
    /// Doing `what` failed with `e`.
    pub fn failed(what: impl Into<String>, e: impl Into<BoxError>) -> Self {
        DisplayError::Failed { what: what.into(), source: Some(e.into()) }
    }
}

impl From<DisplayError> for latlab_model::experiment::ExperimentError {
    fn from(e: DisplayError) -> Self {
        match e {
            DisplayError::Config(c) => latlab_model::experiment::ExperimentError::Config(c),
            e => latlab_model::experiment::ExperimentError::failed(e),
        }
    }
}
