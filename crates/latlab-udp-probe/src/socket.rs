//! A UDP socket (IPv4 or IPv6) that returns the kernel's receive timestamp of every
//! datagram (`SO_TIMESTAMPNS`, `CLOCK_REALTIME`), with a short read timeout so loops can
//! notice a stop request.

use nix::sys::socket::{self, ControlMessageOwned, MsgFlags, SockaddrStorage, sockopt};
use std::io::IoSliceMut;
use std::net::{SocketAddr, SocketAddrV4, SocketAddrV6, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::Duration;

/// How long a receive waits before giving its loop a chance to check for a stop.
pub const READ_TIMEOUT: Duration = Duration::from_millis(100);

/// One received datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Received {
    /// Bytes received.
    pub len: usize,
    /// Sender.
    pub from: SocketAddr,
    /// Kernel receive time, `CLOCK_REALTIME` ns (userspace time if the kernel gave none).
    pub kernel_rx_ns: i64,
}

/// A UDP socket with kernel receive timestamps.
pub struct TimestampedSocket {
    sock: UdpSocket,
}

/// A control-message buffer for [`TimestampedSocket::recv`], owned by the receiving loop
/// and reused, so receiving allocates nothing.
pub fn cmsg_buffer() -> Vec<u8> {
    nix::cmsg_space!(nix::sys::time::TimeSpec)
}

fn to_std(a: &SockaddrStorage) -> Option<SocketAddr> {
    if let Some(v4) = a.as_sockaddr_in() {
        return Some(SocketAddr::V4(SocketAddrV4::new(v4.ip(), v4.port())));
    }
    a.as_sockaddr_in6().map(|v6| SocketAddr::V6(SocketAddrV6::new(v6.ip(), v6.port(), v6.flowinfo(), v6.scope_id())))
}

impl TimestampedSocket {
    /// Bind to `addr` (port 0 = any free port) with timestamps on.
    pub fn bind(addr: SocketAddr) -> std::io::Result<Self> {
        let sock = UdpSocket::bind(addr)?;
        sock.set_read_timeout(Some(READ_TIMEOUT))?;
        socket::setsockopt(&sock, sockopt::ReceiveTimestampns, &true).map_err(std::io::Error::from)?;
        Ok(Self { sock })
    }

    /// The bound address.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.sock.local_addr()
    }

    /// Send a datagram.
    pub fn send_to(&self, data: &[u8], to: SocketAddr) -> std::io::Result<usize> {
        self.sock.send_to(data, to)
    }

    /// Receive one datagram into `buf`; `Ok(None)` when the read timeout passed first.
    /// `cmsg` comes from [`cmsg_buffer`].
    pub fn recv(&self, buf: &mut [u8], cmsg: &mut [u8]) -> std::io::Result<Option<Received>> {
        self.recv_with(buf, cmsg, MsgFlags::empty())
    }

    /// [`TimestampedSocket::recv`] without waiting: `Ok(None)` when nothing has arrived.
    pub fn recv_nowait(&self, buf: &mut [u8], cmsg: &mut [u8]) -> std::io::Result<Option<Received>> {
        self.recv_with(buf, cmsg, MsgFlags::MSG_DONTWAIT)
    }

    fn recv_with(&self, buf: &mut [u8], cmsg: &mut [u8], flags: MsgFlags) -> std::io::Result<Option<Received>> {
        let mut iov = [IoSliceMut::new(buf)];
        let r = socket::recvmsg::<SockaddrStorage>(self.sock.as_raw_fd(), &mut iov, Some(cmsg), flags);
        let msg = match r {
            Ok(m) => m,
            Err(nix::errno::Errno::EAGAIN | nix::errno::Errno::EINTR) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let mut ts = None;
        if let Ok(c) = msg.cmsgs() {
            for m in c {
                if let ControlMessageOwned::ScmTimestampns(t) = m {
                    ts = Some(timespec_ns(&t));
                }
            }
        }
        let from = msg
            .address
            .as_ref()
            .and_then(to_std)
            .ok_or_else(|| std::io::Error::other("datagram without a source address"))?;
        Ok(Some(Received { len: msg.bytes, from, kernel_rx_ns: ts.unwrap_or_else(latlab_sys::clock::unix_now_ns) }))
    }
}

/// A kernel timestamp in ns. `time_t` and `long` are 32-bit on 32-bit ARM: widen before
/// multiplying (the conversions are no-ops on 64-bit targets).
#[allow(clippy::useless_conversion)]
fn timespec_ns(t: &nix::sys::time::TimeSpec) -> i64 {
    i64::from(t.tv_sec()) * 1_000_000_000 + i64::from(t.tv_nsec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_and_timeout_v4_and_v6() {
        for bind in ["127.0.0.1:0", "[::1]:0"] {
            let Ok(a) = TimestampedSocket::bind(bind.parse().unwrap()) else {
                eprintln!("note: {bind} not available here; skipping that family");
                continue;
            };
            let b = TimestampedSocket::bind(bind.parse().unwrap()).unwrap();
            let before = latlab_sys::clock::unix_now_ns();
            a.send_to(b"hello", b.local_addr().unwrap()).unwrap();
            let mut buf = [0u8; 64];
            let mut c = cmsg_buffer();
            let r = loop {
                if let Some(r) = b.recv(&mut buf, &mut c).unwrap() {
                    break r;
                }
            };
            assert_eq!(r.len, 5);
            assert_eq!(r.from, a.local_addr().unwrap());
            assert!(r.kernel_rx_ns >= before - 1_000_000_000, "a realtime timestamp");
            assert_eq!(b.recv(&mut buf, &mut c).unwrap(), None, "times out with nothing to read");
            assert_eq!(b.recv_nowait(&mut buf, &mut c).unwrap(), None, "nothing waiting");
            a.send_to(b"again", b.local_addr().unwrap()).unwrap();
            let r = loop {
                if let Some(r) = b.recv_nowait(&mut buf, &mut c).unwrap() {
                    break r;
                }
                std::thread::yield_now();
            };
            assert_eq!(r.len, 5);
        }
    }
}
