//! ioerr: an I/O error with what was being done, shared by every experiment's error type, and
//! the `doing` helper that attaches it; latlab-sys's own error ([`SysError`]).

use std::borrow::Cow;
use std::io;

/// An I/O call failed while doing `what`.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {err}")]
pub struct IoFailed {
    /// What was being done ("binding the probe", "reading /proc/meminfo").
    pub what: Cow<'static, str>,
    /// The error the call returned.
    #[source]
    pub err: io::Error,
}

impl IoFailed {
    /// `err`, met while doing `what`.
    pub fn new(what: impl Into<Cow<'static, str>>, err: io::Error) -> Self {
        IoFailed { what: what.into(), err }
    }
}

/// Names what an I/O call was doing when it failed.
pub trait Doing<T> {
    /// The result, with its error wrapped in an [`IoFailed`] that says `what`.
    fn doing(self, what: impl Into<Cow<'static, str>>) -> Result<T, IoFailed>;
}

impl<T> Doing<T> for io::Result<T> {
    fn doing(self, what: impl Into<Cow<'static, str>>) -> Result<T, IoFailed> {
        self.map_err(|err| IoFailed::new(what, err))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_what_was_being_done_and_keeps_the_source() {
        let r: io::Result<()> = Err(io::Error::new(io::ErrorKind::NotFound, "no such file"));
        let e = r.doing(format!("opening {}", "/x")).unwrap_err();
        assert_eq!(e.to_string(), "opening /x: no such file");
        assert_eq!(e.err.kind(), io::ErrorKind::NotFound);
        assert!(std::error::Error::source(&e).is_some());
        let ok: io::Result<u8> = Ok(3);
        assert_eq!(ok.doing("nothing").unwrap(), 3);
    }
}

/// What latlab-sys could not do on this machine, with the error beneath it.
#[derive(Debug, thiserror::Error)]
pub enum SysError {
    /// A file or system call failed while doing something named.
    #[error(transparent)]
    Io(#[from] IoFailed),
    /// The machine lacks what this needs (a cgroup controller, root, a kernel version).
    #[error("{0}")]
    Missing(String),
    /// Something stands in the way (a group another latlab holds).
    #[error("{0}")]
    InTheWay(String),
    /// A system tool latlab ran failed: the command, and what it said on stderr.
    #[error("`{command}`: {stderr}")]
    Tool {
        /// The command line.
        command: String,
        /// Its stderr.
        stderr: String,
    },
    /// A signal handler could not be installed.
    #[error("cannot install the {what} handler")]
    Handler {
        /// Which (Ctrl-C, SIGUSR1).
        what: &'static str,
        /// Why.
        #[source]
        source: latlab_model::error::BoxError,
    },
}

impl SysError {
    /// A failed system call (`nix`'s errno) while doing `what`.
    pub fn errno(what: impl Into<Cow<'static, str>>, e: nix::errno::Errno) -> Self {
        SysError::Io(IoFailed::new(what, std::io::Error::from(e)))
    }
}
