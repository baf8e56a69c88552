//! TLS on a served session's non-blocking socket, with its byte counts, and why a session
//! stopped early.

use ironrdp_pdu::rdp::server_error_info::ProtocolIndependentCode;
use latlab_sys::clock::monotonic_now;
use std::io::{self, Read};
use std::net::TcpStream;
use std::os::fd::AsFd;

/// Why a session stopped early, and what the client is told (a Set Error Info code).
pub(super) struct Stop(pub(super) String, pub(super) Option<ProtocolIndependentCode>);

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        Stop(format!("socket: {e}"), None)
    }
}

/// TLS on the non-blocking socket, with the counts.
pub(super) struct Link {
    pub(super) conn: rustls::ServerConnection,
    pub(super) sock: TcpStream,
    pub(super) inbuf: Vec<u8>,
    pub(super) wire_in: u64,
    pub(super) wire_out: u64,
    pub(super) eof: bool,
    /// Last time the client took or sent a byte.
    pub(super) activity: u64,
}

impl Link {
    pub(super) fn new(conn: rustls::ServerConnection, sock: TcpStream, inbuf: Vec<u8>) -> Self {
        Link { conn, sock, inbuf, wire_in: 0, wire_out: 0, eof: false, activity: monotonic_now() }
    }

    /// Write what TLS has queued as far as the socket takes it; the bytes written.
    pub(super) fn pump_out(&mut self) -> Result<u64, Stop> {
        let mut wrote = 0;
        while self.conn.wants_write() {
            match self.conn.write_tls(&mut self.sock) {
                Ok(0) => return Err(Stop("the client closed the connection".into(), None)),
                Ok(n) => wrote += n as u64,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe || e.kind() == io::ErrorKind::ConnectionReset => {
                    return Err(Stop("the client closed the connection".into(), None));
                }
                Err(e) => return Err(e.into()),
            }
        }
        if wrote > 0 {
            self.wire_out += wrote;
            self.activity = monotonic_now();
        }
        Ok(wrote)
    }

    /// Read what the client sent into `inbuf` (plaintext).
    pub(super) fn pump_in(&mut self) -> Result<(), Stop> {
        while !self.eof {
            match self.conn.read_tls(&mut self.sock) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.wire_in += n as u64;
                    self.activity = monotonic_now();
                    self.conn.process_new_packets().map_err(|e| Stop(format!("TLS: {e}"), None))?;
                    self.drain()?;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => self.eof = true,
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    pub(super) fn drain(&mut self) -> Result<(), Stop> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match self.conn.reader().read(&mut chunk) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => self.inbuf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) => return Err(Stop(format!("TLS: {e}"), None)),
            }
        }
    }

    /// Wait up to `ms` for input, or for room when output is queued.
    pub(super) fn wait(&self, ms: u64) -> Result<(), Stop> {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        let mut flags = PollFlags::empty();
        if !self.eof {
            flags |= PollFlags::POLLIN;
        }
        if self.conn.wants_write() {
            flags |= PollFlags::POLLOUT;
        }
        if flags.is_empty() {
            return Ok(());
        }
        let mut fds = [PollFd::new(self.sock.as_fd(), flags)];
        let t = PollTimeout::try_from(ms.min(1000) as i32).unwrap_or(PollTimeout::MAX);
        match poll(&mut fds, t) {
            Ok(_) | Err(nix::errno::Errno::EINTR) => Ok(()),
            Err(e) => Err(Stop(format!("poll: {e}"), None)),
        }
    }
}
