//! Why latlab's RDP server could not start or go on: its certificate, TLS, the graphics
//! pipeline's channel, with the error beneath.

use latlab_model::error::BoxError;

/// Why the server (or one session's channel) failed.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The kept certificate or key could not be read or written, or a socket call failed.
    #[error(transparent)]
    Io(#[from] latlab_sys::ioerr::IoFailed),
    /// The certificate could not be made or read, or does not go with its key.
    #[error("{what}")]
    Certificate {
        /// What was done with it.
        what: String,
        /// Why it failed.
        #[source]
        source: Option<BoxError>,
    },
    /// The dynamic channel or the graphics pipeline on it failed.
    #[error("{what}")]
    Channel {
        /// What was being done.
        what: String,
        /// Why it failed, when something beneath said.
        #[source]
        source: Option<BoxError>,
    },
}

impl ServeError {
    /// The certificate failed while doing `what`.
    pub fn certificate(what: impl Into<String>, e: impl Into<BoxError>) -> Self {
        ServeError::Certificate { what: what.into(), source: Some(e.into()) }
    }
    /// The channel failed while doing `what`.
    pub fn channel(what: impl Into<String>, e: impl Into<BoxError>) -> Self {
        ServeError::Channel { what: what.into(), source: Some(e.into()) }
    }
    /// The channel lacks what it needs (`what`).
    pub fn no_channel(what: impl Into<String>) -> Self {
        ServeError::Channel { what: what.into(), source: None }
    }
}
