//! One direction's counts in `display ops`: PDUs, payload, segments and headers on the wire.

/// One channel's counts.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Channel {
    /// PDUs.
    pub packets: u64,
    /// PDU bytes (TCP payload).
    pub bytes: u64,
    /// TCP segments on Ethernet.
    pub segments: u64,
    /// TCP/IP/Ethernet header bytes.
    pub headers: u64,
}

impl Channel {
    /// Count PDUs of these sizes.
    pub fn of(sizes: &[u32]) -> Self {
        let mut c = Channel::default();
        for &s in sizes {
            let (seg, hdr) = latlab_desktop::wire::framing(s as u64);
            c.packets += 1;
            c.bytes += s as u64;
            c.segments += seg;
            c.headers += hdr;
        }
        c
    }
    /// Add another channel's counts.
    pub fn add(&mut self, c: &Channel) {
        self.packets += c.packets;
        self.bytes += c.bytes;
        self.segments += c.segments;
        self.headers += c.headers;
    }
    /// What omitting the IPv4 header would save of the bytes at the IP layer (the study's
    /// measure: its trace counted IP packets).
    pub fn ip_header_share(&self) -> f64 {
        let ip = self.segments * latlab_desktop::defaults::IPV4_BYTES;
        ip as f64 / self.ip_layer_bytes().max(1) as f64
    }
    /// The bytes at the IP layer: the payload with each segment's TCP and IPv4 headers (what
    /// the study's packet trace counted).
    pub fn ip_layer_bytes(&self) -> u64 {
        self.bytes + self.segments * (latlab_desktop::defaults::IPV4_BYTES + latlab_desktop::defaults::TCP_BYTES)
    }
    /// Header share of what crossed the wire (what removing the headers would save).
    pub fn header_share(&self) -> f64 {
        self.headers as f64 / (self.bytes + self.headers).max(1) as f64
    }
}
