//! The latlab UDP wire format, version 1 (documented in `docs/experiments/udp.md`).
//!
//! Every datagram, probe or reply, is a 64-byte big-endian header, then zero padding up to
//! the requested size, then — when a shared key is configured — a 32-byte HMAC-SHA256 of
//! everything before it:
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 4 | magic `LLUD` |
//! | 4 | 1 | version (1) |
//! | 5 | 1 | kind: 1 probe, 2 reply |
//! | 6 | 2 | flags: bit 0 = HMAC trailer present |
//! | 8 | 8 | sequence number |
//! | 16 | 8 | planned send time, sender `CLOCK_MONOTONIC` ns |
//! | 24 | 8 | actual send time, sender `CLOCK_MONOTONIC` ns |
//! | 32 | 8 | actual send time, sender `CLOCK_REALTIME` ns |
//! | 40 | 8 | the sender's own previous send gap, ns (0 for the first) |
//! | 48 | 8 | reflector receive time, kernel `SO_TIMESTAMPNS` (`CLOCK_REALTIME`) ns; 0 in probes |
//! | 56 | 8 | reflector send time, `CLOCK_REALTIME` ns; 0 in probes |
//!
//! A reply is the probe's own bytes with kind, the two reflector fields and the MAC
//! rewritten: it is never larger than the request. Parsing never panics and never reads
//! out of bounds; anything malformed is an error the caller counts and drops.

use hmac::{Hmac, KeyInit, Mac};

/// `LLUD`.
pub const MAGIC: [u8; 4] = *b"LLUD";
/// Wire version.
pub const VERSION: u8 = 1;
/// Header size.
pub const HEADER: usize = 64;
/// HMAC-SHA256 trailer size.
pub const MAC_LEN: usize = 32;
/// Largest datagram latlab sends or accepts (fits a 9000-byte jumbo frame's payload).
pub const MAX_SIZE: usize = 8972;
/// Kind: a probe from the sender.
pub const KIND_PROBE: u8 = 1;
/// Kind: a reply from the reflector.
pub const KIND_REPLY: u8 = 2;
const FLAG_MAC: u16 = 1;

type HmacSha256 = Hmac<sha2::Sha256>;

/// The fields of a datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Packet {
    /// 1 probe, 2 reply.
    pub kind: u8,
    /// Sequence number.
    pub seq: u64,
    /// Planned send time (sender monotonic).
    pub planned_ns: u64,
    /// Actual send time (sender monotonic).
    pub sent_mono_ns: u64,
    /// Actual send time (sender realtime).
    pub sent_wall_ns: i64,
    /// Sender's previous send gap.
    pub prev_gap_ns: u64,
    /// Reflector kernel receive time (realtime), 0 in probes.
    pub refl_rx_ns: i64,
    /// Reflector send time (realtime), 0 in probes.
    pub refl_tx_ns: i64,
}

/// Why a datagram was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Shorter than the header (and MAC).
    #[error("datagram too short")]
    Short,
    /// Not `LLUD`.
    #[error("bad magic")]
    Magic,
    /// Another version.
    #[error("unsupported version")]
    Version,
    /// Unknown kind.
    #[error("unknown kind")]
    Kind,
    /// A key is configured and the MAC is missing or wrong (or a MAC came without a key).
    #[error("authentication failed")]
    Auth,
}

/// Bytes needed for a datagram of requested `size` (at least the header, plus the MAC).
pub fn datagram_len(size: usize, keyed: bool) -> usize {
    let base = size.max(HEADER);
    if keyed { (base + MAC_LEN).min(MAX_SIZE.max(HEADER + MAC_LEN)) } else { base.min(MAX_SIZE) }
}

fn put(buf: &mut [u8], at: usize, v: u64) {
    buf[at..at + 8].copy_from_slice(&v.to_be_bytes());
}

fn get(buf: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[at..at + 8]);
    u64::from_be_bytes(b)
}

fn mac_of(key: &[u8], data: &[u8]) -> [u8; MAC_LEN] {
    let mut m = <HmacSha256 as KeyInit>::new_from_slice(key).expect("HMAC takes keys of any length");
    m.update(data);
    m.finalize().into_bytes().into()
}

/// Write `p` into `buf` (whose length is the datagram length; padding bytes are left as
/// they are) and, with a key, the MAC. Allocates nothing. `buf` must hold the header (and
/// MAC): [`datagram_len`] guarantees it.
pub fn encode(p: &Packet, buf: &mut [u8], key: Option<&[u8]>) {
    buf[0..4].copy_from_slice(&MAGIC);
    buf[4] = VERSION;
    buf[5] = p.kind;
    buf[6..8].copy_from_slice(&(if key.is_some() { FLAG_MAC } else { 0 }).to_be_bytes());
    put(buf, 8, p.seq);
    put(buf, 16, p.planned_ns);
    put(buf, 24, p.sent_mono_ns);
    put(buf, 32, p.sent_wall_ns as u64);
    put(buf, 40, p.prev_gap_ns);
    put(buf, 48, p.refl_rx_ns as u64);
    put(buf, 56, p.refl_tx_ns as u64);
    if let Some(k) = key {
        let n = buf.len() - MAC_LEN;
        let tag = mac_of(k, &buf[..n]);
        buf[n..].copy_from_slice(&tag);
    }
}

/// Parse and authenticate a datagram. With a key, the MAC must be present and correct;
/// without one, a datagram that carries a MAC is refused too (the peers disagree).
pub fn decode(buf: &[u8], key: Option<&[u8]>) -> Result<Packet, WireError> {
    if buf.len() < HEADER {
        return Err(WireError::Short);
    }
    if buf[0..4] != MAGIC {
        return Err(WireError::Magic);
    }
    if buf[4] != VERSION {
        return Err(WireError::Version);
    }
    let kind = buf[5];
    if kind != KIND_PROBE && kind != KIND_REPLY {
        return Err(WireError::Kind);
    }
    let flags = u16::from_be_bytes([buf[6], buf[7]]);
    match (key, flags & FLAG_MAC != 0) {
        (Some(k), true) => {
            if buf.len() < HEADER + MAC_LEN {
                return Err(WireError::Short);
            }
            let n = buf.len() - MAC_LEN;
            let mut m = <HmacSha256 as KeyInit>::new_from_slice(k).expect("HMAC takes keys of any length");
            m.update(&buf[..n]);
            m.verify_slice(&buf[n..]).map_err(|_| WireError::Auth)?;
        }
        (None, false) => {}
        _ => return Err(WireError::Auth),
    }
    Ok(Packet {
        kind,
        seq: get(buf, 8),
        planned_ns: get(buf, 16),
        sent_mono_ns: get(buf, 24),
        sent_wall_ns: get(buf, 32) as i64,
        prev_gap_ns: get(buf, 40),
        refl_rx_ns: get(buf, 48) as i64,
        refl_tx_ns: get(buf, 56) as i64,
    })
}

/// Turn a received probe (in place) into its reply: kind, reflector times, MAC. The length
/// is unchanged, so a reply is never larger than its request.
pub fn make_reply(buf: &mut [u8], rx_ns: i64, tx_ns: i64, key: Option<&[u8]>) {
    buf[5] = KIND_REPLY;
    put(buf, 48, rx_ns as u64);
    put(buf, 56, tx_ns as u64);
    if let Some(k) = key {
        let n = buf.len() - MAC_LEN;
        let tag = mac_of(k, &buf[..n]);
        buf[n..].copy_from_slice(&tag);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Packet {
        Packet {
            kind: KIND_PROBE,
            seq: 7,
            planned_ns: 1_000,
            sent_mono_ns: 1_050,
            sent_wall_ns: -5,
            prev_gap_ns: 999,
            refl_rx_ns: 0,
            refl_tx_ns: 0,
        }
    }

    #[test]
    fn layout_by_hand() {
        let mut buf = vec![0u8; 64];
        encode(&sample(), &mut buf, None);
        assert_eq!(&buf[0..8], &[b'L', b'L', b'U', b'D', 1, 1, 0, 0]);
        assert_eq!(&buf[8..16], &7u64.to_be_bytes());
        assert_eq!(&buf[32..40], &(-5i64 as u64).to_be_bytes());
        assert_eq!(decode(&buf, None).unwrap(), sample());
    }

    #[test]
    fn keyed_round_trip_and_reply_in_place() {
        let key = b"secret";
        let mut buf = vec![0xAAu8; datagram_len(100, true)];
        assert_eq!(buf.len(), 132);
        encode(&sample(), &mut buf, Some(key));
        assert_eq!(decode(&buf, Some(key)).unwrap(), sample());
        assert_eq!(decode(&buf, Some(b"other")), Err(WireError::Auth));
        assert_eq!(decode(&buf, None), Err(WireError::Auth));
        let before = buf.len();
        make_reply(&mut buf, 10, 20, Some(key));
        assert_eq!(buf.len(), before);
        let r = decode(&buf, Some(key)).unwrap();
        assert_eq!((r.kind, r.refl_rx_ns, r.refl_tx_ns, r.seq), (KIND_REPLY, 10, 20, 7));
        // Tampering with any byte breaks the MAC.
        buf[70] ^= 1;
        assert_eq!(decode(&buf, Some(key)), Err(WireError::Auth));
        // Unkeyed peer against keyed datagram and vice versa.
        let mut plain = vec![0u8; 64];
        encode(&sample(), &mut plain, None);
        assert_eq!(decode(&plain, Some(key)), Err(WireError::Auth));
    }

    #[test]
    fn malformed() {
        let mut buf = vec![0u8; 64];
        encode(&sample(), &mut buf, None);
        assert_eq!(decode(&buf[..63], None), Err(WireError::Short));
        let mut b = buf.clone();
        b[0] = b'X';
        assert_eq!(decode(&b, None), Err(WireError::Magic));
        let mut b = buf.clone();
        b[4] = 2;
        assert_eq!(decode(&b, None), Err(WireError::Version));
        let mut b = buf.clone();
        b[5] = 9;
        assert_eq!(decode(&b, None), Err(WireError::Kind));
        assert_eq!(datagram_len(10, false), 64);
        assert_eq!(datagram_len(100_000, false), MAX_SIZE);
    }

    proptest! {
        #[test]
        fn any_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200), keyed in any::<bool>()) {
            let _ = decode(&data, if keyed { Some(b"k".as_slice()) } else { None });
        }

        #[test]
        fn round_trip(seq in any::<u64>(), a in any::<u64>(), w in any::<i64>(), size in 0usize..300) {
            let p = Packet { kind: KIND_PROBE, seq, planned_ns: a, sent_mono_ns: a ^ 1, sent_wall_ns: w, prev_gap_ns: 3, refl_rx_ns: 0, refl_tx_ns: 0 };
            let mut buf = vec![0u8; datagram_len(size, false)];
            encode(&p, &mut buf, None);
            prop_assert_eq!(decode(&buf, None).unwrap(), p);
        }
    }
}
