//! The display stream on the wire, shaped as RDP fast-path (MS-RDPBCGR 2.2.9.1.2 output,
//! 2.2.8.1.2 input): an output PDU is fpOutputHeader, a 1- or 2-byte length, an 8-byte
//! signature when encrypted with RC4 (or a 16-byte tag after the data with an AEAD), then
//! one TS_FP_UPDATE: updateHeader (updateCode orders 0 or bitmap 1; compression bit),
//! compressionFlags, size, and the update data — bulk-compressed with MPPC/NCRUSH/XCRUSH, or
//! with LZ4 over a 64 KB dictionary of the stream so far (compressionFlags type 0x0F,
//! latlab's own, for comparison). Input PDUs carry scancode and mouse events.

use latlab_rdp::CompressionType;
use latlab_rdp::bulk::{Compressor, Decompressor};
use latlab_rdp::security::{Channel, Protection};
use latlab_rdp::updates::{ORDERS_HEADER, UPDATETYPE_BITMAP, UPDATETYPE_ORDERS};
use thiserror::Error;

/// Bulk compression of update PDUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// None.
    None,
    /// An RDP bulk compressor.
    Rdp(CompressionType),
    /// LZ4 block over a 64 KB dictionary of what was sent before (a modern comparison).
    Lz4,
}

impl Codec {
    /// Every codec.
    pub const ALL: [Codec; 6] = [
        Codec::None,
        Codec::Rdp(CompressionType::Mppc8k),
        Codec::Rdp(CompressionType::Mppc64k),
        Codec::Rdp(CompressionType::Ncrush),
        Codec::Rdp(CompressionType::Xcrush),
        Codec::Lz4,
    ];
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Rdp(t) => t.name(),
            Codec::Lz4 => "lz4",
        }
    }
    /// The codec called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Encryption of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crypto {
    /// None.
    None,
    /// A latlab-rdp protection.
    On(Protection),
}

impl Crypto {
    /// Every option.
    pub const ALL: [Crypto; 4] = [
        Crypto::None,
        Crypto::On(Protection::Rc4Mac { salted: false }),
        Crypto::On(Protection::Aes128Gcm),
        Crypto::On(Protection::ChaCha20Poly1305),
    ];
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Crypto::None => "none",
            Crypto::On(Protection::Rc4Mac { .. }) => "rc4",
            Crypto::On(Protection::Aes128Gcm) => "aes-gcm",
            Crypto::On(Protection::ChaCha20Poly1305) => "chacha20",
        }
    }
    /// The option called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Why a PDU could not be read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum WireError {
    /// Malformed framing.
    #[error("display stream: {0}")]
    Framing(&'static str),
    /// Bulk decompression failed.
    #[error("bulk decompression: {0}")]
    Bulk(#[from] latlab_rdp::BulkError),
    /// Decryption or integrity check failed.
    #[error("decryption: {0}")]
    Crypto(#[from] latlab_rdp::security::SecurityError),
}

const FASTPATH_OUTPUT_ENCRYPTED: u8 = 0x2;
const FASTPATH_UPDATETYPE_ORDERS: u8 = 0x0;
const FASTPATH_UPDATETYPE_BITMAP: u8 = 0x1;
const FASTPATH_OUTPUT_COMPRESSION_USED: u8 = 0x2;
const LZ4_TYPE: u8 = 0x0F;
const LZ4_DICT: usize = 65_536;

/// Fixed keys of the in-process pair and of serve/view (a lab tool: the key exchange of
/// Standard RDP Security is not the point; see docs/display.md).
const MAC_KEY: [u8; 16] = *b"latlab-mac-key-0";
const ENC_KEY: [u8; 16] = *b"latlab-enc-key-0";

fn channel(c: Crypto) -> Option<Channel> {
    match c {
        Crypto::None => None,
        Crypto::On(p) => Some(Channel::new(p, MAC_KEY, ENC_KEY)),
    }
}

fn put_len(out: &mut [u8], at: usize, len: usize) {
    // The length field is 2 bytes (0x8000 | len) whenever the PDU could exceed 127 bytes;
    // it is written after the PDU is built, so both forms are handled by reserving 2.
    out[at] = 0x80 | (len >> 8) as u8;
    out[at + 1] = len as u8;
}

/// The server's end: frames update PDUs.
pub struct Sender {
    codec: Codec,
    rdp: Option<Compressor>,
    dict: Vec<u8>,
    seal: Option<Channel>,
    body: Vec<u8>,
    sealed: Vec<u8>,
    tmp: Vec<u8>,
}

impl Sender {
    /// A sender with `codec` and `crypto`.
    pub fn new(codec: Codec, crypto: Crypto) -> Self {
        let rdp = match codec {
            Codec::Rdp(t) => Some(Compressor::new(t).expect("every RDP type has a compressor")),
            _ => None,
        };
        Self {
            codec,
            rdp,
            dict: Vec::new(),
            seal: channel(crypto),
            body: Vec::new(),
            sealed: Vec::new(),
            tmp: Vec::new(),
        }
    }

    /// Frame one update PDU (as [`latlab_rdp::updates::UpdateBuilder`] makes them) into `out`
    /// (appended). Returns the update's size before compression.
    pub fn frame(&mut self, update: &[u8], out: &mut Vec<u8>) -> usize {
        let (code, data): (u8, &[u8]) = if update.get(..2) == Some(&UPDATETYPE_ORDERS.to_le_bytes()[..]) {
            self.tmp.clear();
            self.tmp.extend_from_slice(&update[4..6]);
            self.tmp.extend_from_slice(&update[ORDERS_HEADER..]);
            (FASTPATH_UPDATETYPE_ORDERS, &self.tmp)
        } else {
            debug_assert_eq!(update.get(..2), Some(&UPDATETYPE_BITMAP.to_le_bytes()[..]));
            (FASTPATH_UPDATETYPE_BITMAP, update)
        };
        let plain = data.len();
        let mut wire = Vec::new();
        let flags = match self.codec {
            Codec::None => {
                wire.extend_from_slice(data);
                None
            }
            Codec::Rdp(_) => {
                let f = self.rdp.as_mut().expect("made with the codec").compress(data, &mut wire);
                Some(f)
            }
            Codec::Lz4 => {
                wire = lz4_flex::block::compress_with_dict(data, &self.dict);
                self.dict.extend_from_slice(data);
                if self.dict.len() > 2 * LZ4_DICT {
                    self.dict.drain(..self.dict.len() - LZ4_DICT);
                }
                Some(latlab_rdp::PACKET_COMPRESSED | LZ4_TYPE)
            }
        };
        self.body.clear();
        self.body.push(code | if flags.is_some() { FASTPATH_OUTPUT_COMPRESSION_USED << 6 } else { 0 });
        if let Some(f) = flags {
            self.body.push(f);
        }
        self.body.extend_from_slice(&(wire.len() as u16).to_le_bytes());
        self.body.extend_from_slice(&wire);
        let start = out.len();
        let enc = self.seal.is_some();
        out.push(if enc { FASTPATH_OUTPUT_ENCRYPTED << 6 } else { 0 });
        out.extend_from_slice(&[0, 0]);
        match &mut self.seal {
            Some(ch) => {
                ch.seal(&self.body, &mut self.sealed);
                out.extend_from_slice(&self.sealed);
            }
            None => out.extend_from_slice(&self.body),
        }
        let len = out.len() - start;
        put_len(out, start + 1, len);
        plain
    }
}

/// Stage times of reading PDUs, nanoseconds of the reading thread's CPU time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WireTimes {
    /// Copying each PDU from the receive buffer into the data buffer.
    pub copy_ns: u64,
    /// Bytes so copied.
    pub bytes_copied: u64,
    /// Decrypting and checking.
    pub decrypt_ns: u64,
    /// Bulk decompression.
    pub decompress_ns: u64,
}

/// The client's end: reads framed PDUs back into update PDUs.
pub struct Receiver {
    codec: Codec,
    rdp: Option<Decompressor>,
    dict: Vec<u8>,
    open: Option<Channel>,
    check_mac: bool,
    data: Vec<u8>,
    /// Stage times, when timing is on.
    pub times: WireTimes,
    /// Each compressed PDU's sizes and decompression time, when timing is on.
    pub pdus: crate::pdu_stats::PduStats,
    timed: bool,
}

/// Length of the PDU at the front of `buf`, once its header is there.
pub fn pdu_len(buf: &[u8]) -> Option<usize> {
    let b = *buf.get(1)?;
    if b & 0x80 != 0 { Some(((b as usize & 0x7F) << 8) | *buf.get(2)? as usize) } else { Some(b as usize) }
}

impl Receiver {
    /// A receiver with `codec` and `crypto`; `timed` turns on the stage clock.
    pub fn new(codec: Codec, crypto: Crypto, timed: bool) -> Self {
        let rdp = match codec {
            Codec::Rdp(t) => Some(Decompressor::new(t).expect("every RDP type has a decompressor")),
            _ => None,
        };
        Self {
            codec,
            rdp,
            dict: Vec::new(),
            open: channel(crypto),
            check_mac: true,
            data: Vec::new(),
            times: WireTimes::default(),
            pdus: crate::pdu_stats::PduStats::default(),
            timed,
        }
    }

    /// Skip RC4's MAC check (seed 000's DisableMACCheck); an AEAD's tag is always checked.
    pub fn skip_mac_check(&mut self) {
        self.check_mac = false;
    }

    /// Read one whole PDU into its update PDU (slow-path form, for the decoder) in `update`,
    /// as seed 000's client did: the PDU is first copied from the receive buffer into the
    /// data buffer, and decrypted and decompressed from there.
    pub fn read(&mut self, pdu: &[u8], update: &mut Vec<u8>) -> Result<(), WireError> {
        let t = self.timed.then(latlab_sys::clock::thread_cpu_now);
        let mut data = std::mem::take(&mut self.data);
        data.clear();
        data.extend_from_slice(pdu);
        if let Some(t) = t {
            self.times.copy_ns += latlab_sys::clock::thread_cpu_now().saturating_sub(t);
        }
        self.times.bytes_copied += pdu.len() as u64;
        let r = self.read_direct(&mut data, update);
        self.data = data;
        r
    }

    /// Read one whole PDU where it lies, in the receive buffer (seed 000's cure: the
    /// decompressor reads straight from the receive buffer, no copy). Decrypting overwrites
    /// the PDU's body in place.
    pub fn read_direct(&mut self, pdu: &mut [u8], update: &mut Vec<u8>) -> Result<(), WireError> {
        let len = pdu_len(pdu).ok_or(WireError::Framing("short header"))?;
        let hdr = if pdu[1] & 0x80 != 0 { 3 } else { 2 };
        if len != pdu.len() || len < hdr {
            return Err(WireError::Framing("length field disagrees with the PDU"));
        }
        let enc = pdu[0] >> 6 & FASTPATH_OUTPUT_ENCRYPTED != 0;
        let t = self.timed.then(latlab_sys::clock::thread_cpu_now);
        let body: &[u8] = match (&mut self.open, enc) {
            (Some(ch), true) => {
                let sealed = &mut pdu[hdr..];
                let r = ch.open_in_place(sealed, self.check_mac)?;
                &sealed[r]
            }
            (None, false) => &pdu[hdr..],
            _ => return Err(WireError::Framing("encryption flag disagrees with the session")),
        };
        if let Some(t) = t {
            self.times.decrypt_ns += latlab_sys::clock::thread_cpu_now().saturating_sub(t);
        }
        let (&uh, rest) = body.split_first().ok_or(WireError::Framing("no update header"))?;
        let compressed = uh >> 6 & FASTPATH_OUTPUT_COMPRESSION_USED != 0;
        let (flags, rest) = if compressed {
            let (&f, r) = rest.split_first().ok_or(WireError::Framing("no compression flags"))?;
            (Some(f), r)
        } else {
            (None, rest)
        };
        if rest.len() < 2 {
            return Err(WireError::Framing("no update size"));
        }
        let size = u16::from_le_bytes([rest[0], rest[1]]) as usize;
        let data = rest.get(2..2 + size).filter(|_| rest.len() == 2 + size).ok_or(WireError::Framing("update size"))?;
        let t = self.timed.then(latlab_sys::clock::thread_cpu_now);
        let lz4_out: Vec<u8>;
        let plain: &[u8] = match (self.codec, flags) {
            (Codec::None, None) => data,
            (Codec::Rdp(_), Some(f)) => self.rdp.as_mut().expect("made with the codec").decompress(data, f)?,
            (Codec::Lz4, Some(f)) if f == latlab_rdp::PACKET_COMPRESSED | LZ4_TYPE => {
                // An update is at most 64 KB (its size field is 16 bits, before compression too).
                lz4_out = lz4_flex::block::decompress_with_dict(data, 65_535, &self.dict)
                    .map_err(|_| WireError::Framing("LZ4 block corrupt"))?;
                self.dict.extend_from_slice(&lz4_out);
                if self.dict.len() > 2 * LZ4_DICT {
                    self.dict.drain(..self.dict.len() - LZ4_DICT);
                }
                &lz4_out
            }
            _ => return Err(WireError::Framing("compression flags disagree with the session")),
        };
        if let Some(t) = t {
            let ns = latlab_sys::clock::thread_cpu_now().saturating_sub(t);
            self.times.decompress_ns += ns;
            if flags.is_some() {
                self.pdus.record(data.len(), plain.len(), ns);
            }
        }
        update.clear();
        match uh & 0x0F {
            FASTPATH_UPDATETYPE_ORDERS => {
                if plain.len() < 2 {
                    return Err(WireError::Framing("orders update without numberOrders"));
                }
                update.extend_from_slice(&UPDATETYPE_ORDERS.to_le_bytes());
                update.extend_from_slice(&[0, 0]);
                update.extend_from_slice(&plain[..2]);
                update.extend_from_slice(&[0, 0]);
                update.extend_from_slice(&plain[2..]);
            }
            FASTPATH_UPDATETYPE_BITMAP => update.extend_from_slice(plain),
            _ => return Err(WireError::Framing("unknown updateCode")),
        }
        Ok(())
    }
}

/// An input event the client sends (fast-path input, MS-RDPBCGR 2.2.8.1.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// A key press or release (scancode).
    Key {
        /// Scancode.
        code: u8,
        /// Released.
        up: bool,
    },
    /// The pointer moved.
    Move {
        /// x.
        x: u16,
        /// y.
        y: u16,
    },
    /// A button or wheel event at the pointer.
    Button {
        /// pointerFlags.
        flags: u16,
        /// x.
        x: u16,
        /// y.
        y: u16,
    },
}

/// Encode input events as one fast-path input PDU (2.2.8.1.2), unencrypted, into `out`
/// (appended).
pub fn encode_input(events: &[Input], out: &mut Vec<u8>) {
    let start = out.len();
    let n = events.len();
    // numEvents in the header's four bits when 1–15; otherwise 0 there and the count in a
    // byte of its own (2.2.8.1.2: a header count of 0 means the byte follows, so no events
    // also needs it).
    let in_header = (1..=15).contains(&n);
    out.push(if in_header { (n as u8) << 2 } else { 0 });
    out.extend_from_slice(&[0, 0]);
    if !in_header {
        out.push(n.min(255) as u8);
    }
    for e in events.iter().take(255) {
        match *e {
            Input::Key { code, up } => out.extend_from_slice(&[u8::from(up), code]),
            Input::Move { x, y } => {
                out.push(0x1 << 5);
                out.extend_from_slice(&0x0800u16.to_le_bytes());
                out.extend_from_slice(&x.to_le_bytes());
                out.extend_from_slice(&y.to_le_bytes());
            }
            Input::Button { flags, x, y } => {
                out.push(0x1 << 5);
                out.extend_from_slice(&flags.to_le_bytes());
                out.extend_from_slice(&x.to_le_bytes());
                out.extend_from_slice(&y.to_le_bytes());
            }
        }
    }
    let len = out.len() - start;
    put_len(out, start + 1, len);
}

/// Decode a fast-path input PDU's events.
pub fn decode_input(pdu: &[u8]) -> Result<Vec<Input>, WireError> {
    let len = pdu_len(pdu).ok_or(WireError::Framing("short input header"))?;
    if len != pdu.len() {
        return Err(WireError::Framing("input length"));
    }
    let mut at = if pdu[1] & 0x80 != 0 { 3 } else { 2 };
    let mut n = (pdu[0] >> 2 & 0x0F) as usize;
    if n == 0 {
        n = *pdu.get(at).ok_or(WireError::Framing("numEvents"))? as usize;
        at += 1;
    }
    let mut out = Vec::with_capacity(n);
    let take = |at: &mut usize, k: usize| -> Result<&[u8], WireError> {
        let s = pdu.get(*at..*at + k).ok_or(WireError::Framing("input event truncated"))?;
        *at += k;
        Ok(s)
    };
    for _ in 0..n {
        let h = take(&mut at, 1)?[0];
        match h >> 5 {
            0 => out.push(Input::Key { code: take(&mut at, 1)?[0], up: h & 1 != 0 }),
            1 => {
                let b = take(&mut at, 6)?;
                let (f, x, y) = (
                    u16::from_le_bytes([b[0], b[1]]),
                    u16::from_le_bytes([b[2], b[3]]),
                    u16::from_le_bytes([b[4], b[5]]),
                );
                out.push(if f == 0x0800 { Input::Move { x, y } } else { Input::Button { flags: f, x, y } });
            }
            _ => return Err(WireError::Framing("unsupported input event")),
        }
    }
    if at != pdu.len() {
        return Err(WireError::Framing("bytes after the input events"));
    }
    Ok(out)
}

/// Headers a payload of `bytes` carries on Ethernet: segments and header bytes (TCP, IPv4,
/// Ethernet II with FCS), one segment per MSS.
pub fn framing(bytes: u64) -> (u64, u64) {
    let segments = bytes.div_ceil(crate::defaults::ETHERNET_MSS).max(1);
    (segments, header_bytes(segments))
}

/// The TCP, IPv4 and Ethernet header bytes of `segments` segments.
pub fn header_bytes(segments: u64) -> u64 {
    segments * (crate::defaults::ETHERNET_BYTES + crate::defaults::IPV4_BYTES + crate::defaults::TCP_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_codec_and_cipher_round_trips() {
        let orders = {
            let mut v = vec![0, 0, 0, 0, 2, 0, 0, 0];
            v.extend_from_slice(&[0x09, 0x0a, 1, 2, 3]);
            v
        };
        let bitmap = [1u8, 0, 0, 0];
        for codec in Codec::ALL {
            for crypto in Crypto::ALL {
                let mut s = Sender::new(codec, crypto);
                let mut r = Receiver::new(codec, crypto, true);
                let mut wire = Vec::new();
                let mut got = Vec::new();
                for u in [&orders[..], &bitmap[..], &orders[..]] {
                    wire.clear();
                    s.frame(u, &mut wire);
                    assert_eq!(pdu_len(&wire), Some(wire.len()));
                    r.read(&wire, &mut got).unwrap();
                    assert_eq!(got, u, "{} {}", codec.name(), crypto.name());
                }
                // A flipped byte is an error, never a panic.
                let last = wire.len() - 1;
                wire[last] ^= 0x55;
                let _ = r.read(&wire, &mut got);
            }
        }
    }

    #[test]
    fn input_round_trips() {
        let ev =
            [Input::Key { code: 0x1e, up: false }, Input::Key { code: 0x1e, up: true }, Input::Move { x: 5, y: 700 }];
        let mut out = Vec::new();
        encode_input(&ev, &mut out);
        // Header 3 + 2 + 2 + 7 bytes.
        assert_eq!(out.len(), 14);
        assert_eq!(decode_input(&out).unwrap(), ev);
        let many = vec![Input::Move { x: 1, y: 2 }; 20];
        out.clear();
        encode_input(&many, &mut out);
        assert_eq!(decode_input(&out).unwrap(), many);
        assert!(decode_input(&out[..out.len() - 1]).is_err());
        // No events: a header count of 0 says the count byte follows (found by fuzzing: the
        // encoder once left it out, and the decoder rightly refused the PDU).
        out.clear();
        encode_input(&[], &mut out);
        assert_eq!(out.len(), 4);
        assert_eq!(decode_input(&out).unwrap(), vec![]);
        assert_eq!(decode_input(&[0, 3, 0]).unwrap(), vec![], "the fuzzer's input: a 1-byte length");
    }
}

latlab_model::serialize_by_name!(Codec, Crypto);
