//! Writing a session's PDUs to a client without blocking the session: as much as the socket
//! takes now, or all of it by a deadline, failing once the client has taken nothing for the
//! idle timeout.

use super::*;
use latlab_sys::clock::monotonic_now;

/// Write as much of `pending[*at..]` as the socket takes now; false at end of stream.
pub(crate) fn push(s: &mut TcpStream, pending: &[u8], at: &mut usize, writes: &mut u64) -> Result<(), NetError> {
    while *at < pending.len() {
        match s.write(&pending[*at..]) {
            Ok(0) => return Err(NetError::Protocol("the client closed the connection".into())),
            Ok(n) => {
                *at += n;
                *writes += 1;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(IoFailed::new("sending display PDUs", e).into()),
        }
    }
    Ok(())
}

/// Flush `pending` until `deadline` (monotonic ns; `None`: until all is sent, failing once
/// the client has taken nothing for `idle_ns`).
pub(crate) fn flush(
    s: &mut TcpStream,
    pending: &mut Vec<u8>,
    at: &mut usize,
    writes: &mut u64,
    deadline: Option<u64>,
    idle_ns: u64,
) -> Result<(), NetError> {
    let mut progress = monotonic_now();
    loop {
        let before = *at;
        push(s, pending, at, writes)?;
        if *at == pending.len() {
            pending.clear();
            *at = 0;
            return Ok(());
        }
        if latlab_sys::interrupt::stop_requested() {
            return Err(NetError::Protocol("interrupted".into()));
        }
        let now = monotonic_now();
        if *at > before {
            progress = now;
        } else if now - progress >= idle_ns {
            return Err(idle(idle_ns));
        }
        let timeout_ms = match deadline {
            Some(d) => {
                if now >= d {
                    return Ok(());
                }
                (d - now).div_ceil(1_000_000)
            }
            None => (progress + idle_ns - now).div_ceil(1_000_000).min(1000),
        };
        wait(s, nix::poll::PollFlags::POLLOUT, timeout_ms).doing("waiting to send")?;
    }
}

/// The error of a session whose client went quiet for `idle_ns`.
pub(crate) fn idle(idle_ns: u64) -> NetError {
    NetError::Protocol(format!("the client took nothing for {:.1} s (idle timeout)", idle_ns as f64 / 1e9))
}
