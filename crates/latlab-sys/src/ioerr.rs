//! ioerr: an I/O error with what was being done, shared by every experiment's error type, and
//! the `doing` helper that attaches it.

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
