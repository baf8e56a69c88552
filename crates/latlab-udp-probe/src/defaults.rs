//! Every default of the UDP probe, with the reason it has that value.

/// UDP port of `latlab udp serve` (unassigned by IANA, easy to remember: "LL").
pub const PORT: u16 = 4848;

/// Datagram size: 64 bytes, latlab's header and nothing more (a small interactive packet).
pub const SIZE: usize = 64;
