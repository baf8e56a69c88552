//! What the kernel counted on one TCP connection (`TCP_INFO`, tcp(7)): segments and bytes in
//! each direction, so a remote-display client counts its wire the way seed 003 did, headers
//! and acknowledgements included, without capturing packets.

use std::io;
use std::os::fd::AsRawFd;

/// Counters of one TCP connection since it opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TcpCounts {
    /// Segments received (data and pure acknowledgements).
    pub segs_in: u64,
    /// Segments sent (data and pure acknowledgements).
    pub segs_out: u64,
    /// Payload bytes received.
    pub bytes_in: u64,
    /// Payload bytes sent and acknowledged by the peer.
    pub bytes_out: u64,
    /// Segments retransmitted.
    pub retrans: u64,
    /// The smallest round-trip time the kernel saw on the connection, ns: the path's own
    /// delay (the smoothed RTT also holds the peer's delayed acknowledgements).
    pub min_rtt_ns: u64,
}

/// The counters of the TCP socket `sock`.
pub fn tcp_counts(sock: &impl AsRawFd) -> io::Result<TcpCounts> {
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: tcp_info is plain integers (all-zero is a valid value); `info` is a writable
    // tcp_info of `len` bytes and the kernel writes at most `len`.
    let (rc, info) = unsafe {
        let mut info: libc::tcp_info = std::mem::zeroed();
        let rc = libc::getsockopt(
            sock.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        );
        (rc, info)
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(TcpCounts {
        segs_in: info.tcpi_segs_in as u64,
        segs_out: info.tcpi_segs_out as u64,
        bytes_in: info.tcpi_bytes_received,
        // Linux counts the SYN in bytes_acked (snd_una − ISN): one byte no application sent.
        bytes_out: info.tcpi_bytes_acked.saturating_sub(1),
        retrans: info.tcpi_total_retrans as u64,
        min_rtt_ns: info.tcpi_min_rtt as u64 * 1000,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn counts_what_crossed_loopback() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (mut s, _) = l.accept().unwrap();
        c.write_all(&[7u8; 3000]).unwrap();
        let mut buf = vec![0u8; 3000];
        s.read_exact(&mut buf).unwrap();
        s.write_all(b"ok").unwrap();
        let mut two = [0u8; 2];
        c.read_exact(&mut two).unwrap();
        let k = tcp_counts(&c).unwrap();
        assert_eq!(k.bytes_in, 2);
        assert_eq!(k.bytes_out, 3000, "the peer acknowledged everything before answering");
        assert!(k.segs_out >= 2 && k.segs_in >= 2, "{k:?}");
        let r = tcp_counts(&s).unwrap();
        assert_eq!(r.bytes_in, 3000);
    }
}
