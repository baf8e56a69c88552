//! One peer probed without end (`latlab monitor --probes udp`): a request sent on demand, the
//! replies that have arrived read without waiting, each one's round trip from the request's
//! send time to the kernel's receive time of the reply (both `CLOCK_REALTIME`, so a reply read
//! late is still timed right). Datagrams that are not valid replies from the peer are counted
//! and dropped. Sending and reading allocate nothing.

use crate::socket::{TimestampedSocket, cmsg_buffer};
use crate::wire::{self, Packet};
use latlab_sys::clock::{monotonic_now, unix_now_ns};
use std::net::SocketAddr;

/// A peer (a `latlab udp serve`) and the socket that talks to it.
pub struct Peer {
    sock: TimestampedSocket,
    target: SocketAddr,
    key: Option<Vec<u8>>,
    out: Vec<u8>,
    inb: Vec<u8>,
    cmsg: Vec<u8>,
    refused: u64,
}

impl Peer {
    /// Talk to `target` with requests of `size` bytes (at least the header), keyed or not.
    pub fn connect(target: SocketAddr, size: usize, key: Option<Vec<u8>>) -> std::io::Result<Self> {
        let bind: SocketAddr = if target.is_ipv6() { "[::]:0".parse().unwrap() } else { "0.0.0.0:0".parse().unwrap() };
        let len = wire::datagram_len(size, key.is_some());
        Ok(Self {
            sock: TimestampedSocket::bind(bind)?,
            target,
            key,
            out: vec![0; len],
            inb: vec![0; wire::MAX_SIZE.max(len) + 64],
            cmsg: cmsg_buffer(),
            refused: 0,
        })
    }

    /// Send request `seq` now.
    pub fn send(&mut self, seq: u64) -> std::io::Result<()> {
        let p = Packet {
            kind: wire::KIND_PROBE,
            seq,
            planned_ns: monotonic_now(),
            sent_mono_ns: monotonic_now(),
            sent_wall_ns: unix_now_ns(),
            ..Packet::default()
        };
        wire::encode(&p, &mut self.out, self.key.as_deref());
        self.sock.send_to(&self.out, self.target).map(|_| ())
    }

    /// A reply that has arrived, without waiting: its sequence number and round trip, ns.
    pub fn poll(&mut self) -> std::io::Result<Option<(u64, u64)>> {
        loop {
            let Some(r) = self.sock.recv_nowait(&mut self.inb, &mut self.cmsg)? else { return Ok(None) };
            if r.from != self.target {
                self.refused += 1;
                continue;
            }
            match wire::decode(&self.inb[..r.len], self.key.as_deref()) {
                Ok(p) if p.kind == wire::KIND_REPLY => {
                    return Ok(Some((p.seq, r.kernel_rx_ns.saturating_sub(p.sent_wall_ns).max(0) as u64)));
                }
                _ => self.refused += 1,
            }
        }
    }

    /// The local address the peer sends from.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.sock.local_addr()
    }

    /// Datagrams refused so far (not from the peer, malformed, unauthenticated, not replies).
    pub fn refused(&self) -> u64 {
        self.refused
    }
}
