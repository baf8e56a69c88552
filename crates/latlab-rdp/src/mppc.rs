//! MPPC bulk compression for RDP 4.0 (8 KB history) and RDP 5.0 (64 KB history), as
//! specified in MS-RDPBCGR 3.1.8 (3.1.8.4.1 and 3.1.8.4.2 for the encodings) after RFC 2118.
//!
//! The bitstream is MSB-first. Codes:
//! - literal `0x00..=0x7F`: `0` + 7 bits; literal `0x80..=0xFF`: `10` + its low 7 bits;
//! - copy-offset, RDP 4.0: `1111`+6 bits (0–63), `1110`+8 bits (64–319, minus 64),
//!   `110`+13 bits (320–8191, minus 320); RDP 5.0: `11111`+6, `11110`+8 (minus 64),
//!   `1110`+11 (320–2367, minus 320), `110`+16 (2368–65535, minus 2368);
//! - length-of-match: `0` for 3, else k ones, a zero, and k+1 bits: length `2^(k+1) + bits`
//!   (4–7: `10`+2 bits, …, up to 8191 for RDP 4.0 and 65535 for RDP 5.0).
//!
//! The last byte is padded with zero bits; since every code is at least 8 bits long, fewer
//! than 8 remaining bits end the packet.
//!
//! Packet flags (MS-RDPBCGR 3.1.8.2): `PACKET_COMPRESSED` (0x20) — the payload is
//! compressed; `PACKET_AT_FRONT` (0x40) — the history offset was reset to the start before
//! this packet; `PACKET_FLUSHED` (0x80) — the history was reinitialized (a packet sent
//! uncompressed carries it, and is not added to the history). The low 4 bits carry the
//! compression type.

use crate::bits::{BitReader, BitWriter};
use crate::level::{Level, Search};
use crate::{BulkError, CompressionType, PACKET_AT_FRONT, PACKET_COMPRESSED, PACKET_FLUSHED};

/// History size and code limits of one MPPC variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Variant {
    history: usize,
    max_offset: usize,
    max_len: usize,
    ctype: CompressionType,
}

fn variant(t: CompressionType) -> Result<Variant, BulkError> {
    match t {
        CompressionType::Mppc8k => Ok(Variant { history: 8192, max_offset: 8191, max_len: 8191, ctype: t }),
        CompressionType::Mppc64k => Ok(Variant { history: 65536, max_offset: 65535, max_len: 65535, ctype: t }),
        other => Err(BulkError::UnsupportedType(other as u8)),
    }
}

/// One row of a copy-offset encoding table: offsets up to `max` are written as `prefix`
/// (`prefix_bits` long) followed by `offset − base` in `value_bits` bits.
struct OffsetCode {
    max: usize,
    prefix: u32,
    prefix_bits: u32,
    value_bits: u32,
    base: usize,
}

/// RDP 4.0 copy-offsets (MS-RDPBCGR 3.1.8.4.1.2.1).
const OFFSETS_8K: [OffsetCode; 3] = [
    OffsetCode { max: 63, prefix: 0b1111, prefix_bits: 4, value_bits: 6, base: 0 },
    OffsetCode { max: 319, prefix: 0b1110, prefix_bits: 4, value_bits: 8, base: 64 },
    OffsetCode { max: 8191, prefix: 0b110, prefix_bits: 3, value_bits: 13, base: 320 },
];

/// RDP 5.0 copy-offsets (MS-RDPBCGR 3.1.8.4.2.2.1).
const OFFSETS_64K: [OffsetCode; 4] = [
    OffsetCode { max: 63, prefix: 0b11111, prefix_bits: 5, value_bits: 6, base: 0 },
    OffsetCode { max: 319, prefix: 0b11110, prefix_bits: 5, value_bits: 8, base: 64 },
    OffsetCode { max: 2367, prefix: 0b1110, prefix_bits: 4, value_bits: 11, base: 320 },
    OffsetCode { max: 65535, prefix: 0b110, prefix_bits: 3, value_bits: 16, base: 2368 },
];

/// Hash-table size (bits) of the match finder.
const HASH_BITS: u32 = 15;

#[inline]
fn hash3(b: &[u8]) -> usize {
    let v = u32::from_le_bytes([b[0], b[1], b[2], 0]);
    (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
}

/// An MPPC compressor with its persistent history.
pub struct MppcCompressor {
    v: Variant,
    search: Search,
    hist: Vec<u8>,
    pos: usize,
    /// Hash chains: the latest position (+1) per hash, and the one before each position.
    head: Vec<u32>,
    prev: Vec<u32>,
}

impl MppcCompressor {
    /// A compressor for RDP 4.0 (`Mppc8k`) or RDP 5.0 (`Mppc64k`) at the default level.
    pub fn new(t: CompressionType) -> Result<Self, BulkError> {
        Self::with_level(t, Level::default())
    }

    /// A compressor for RDP 4.0 or 5.0 searching as hard as `level` says.
    pub fn with_level(t: CompressionType, level: Level) -> Result<Self, BulkError> {
        let v = variant(t)?;
        Ok(Self {
            v,
            search: level.mppc(),
            hist: vec![0; v.history],
            pos: 0,
            head: vec![0; 1 << HASH_BITS],
            prev: vec![0; v.history],
        })
    }

    fn reset_index(&mut self) {
        self.head.fill(0);
    }

    /// Compress one packet into `out` (cleared first); returns the flags to send with it.
    /// When compression would not make the packet smaller, `out` holds the packet as is and
    /// the flags say `PACKET_FLUSHED` (history reset on both sides), as the spec requires.
    pub fn compress(&mut self, src: &[u8], out: &mut Vec<u8>) -> u8 {
        out.clear();
        let mut flags = self.v.ctype as u8;
        if src.is_empty() {
            return flags | PACKET_COMPRESSED;
        }
        if src.len() >= self.v.history {
            return self.flush(src, out);
        }
        if self.pos + src.len() > self.v.history {
            self.pos = 0;
            self.reset_index();
            flags |= PACKET_AT_FRONT;
        }
        let start = self.pos;
        let end = start + src.len();
        self.hist[start..end].copy_from_slice(src);
        let mut w = BitWriter::new(out);
        self.run(&mut w, start, end);
        w.finish();
        if out.len() >= src.len() {
            return self.flush(src, out);
        }
        self.pos = end;
        flags | PACKET_COMPRESSED
    }

    /// Code `start..end` of the history: at each position the longest match among the hash's
    /// candidates, else a literal; the whole loop on locals. Stops early when the packet will
    /// not shrink.
    fn run(&mut self, w: &mut BitWriter<'_>, start: usize, end: usize) {
        let (s, v) = (self.search, self.v);
        let hist = &self.hist[..];
        let head = &mut self.head[..];
        let prev = &mut self.prev[..];
        let limit = end - start;
        let mut i = start;
        // Positions searched in a row without a match; with `skip`, every 32 of them make the
        // search step one byte further (the bytes between go out as literals).
        let mut misses = 0usize;
        while i + 3 <= end {
            // The position's hash, once: for the search and for the index.
            let h = hash3(&hist[i..i + 3]);
            let (len, off) = longest_match(hist, head, prev, &s, &v, i, end, h);
            insert(head, prev, s.chain, i, h);
            if len >= 3 {
                put_copy(w, v.history, off, len);
                // The first positions of the copy go into the index too (not all: time).
                for j in i + 1..(i + len.min(s.insert)).min(end - 2) {
                    insert(head, prev, s.chain, j, hash3(&hist[j..j + 3]));
                }
                i += len;
                misses = 0;
            } else {
                let step = if s.skip { 1 + (misses >> 5) } else { 1 };
                for &b in &hist[i..(i + step).min(end)] {
                    put_literal(w, b);
                }
                i += step;
                misses += 1;
            }
            if w.len_bytes() >= limit {
                return;
            }
        }
        for &b in &hist[i.min(end)..end] {
            put_literal(w, b);
        }
    }

    fn flush(&mut self, src: &[u8], out: &mut Vec<u8>) -> u8 {
        out.clear();
        out.extend_from_slice(src);
        self.pos = 0;
        self.hist.fill(0);
        self.reset_index();
        self.v.ctype as u8 | PACKET_FLUSHED
    }
}

/// Put position `j` (hashing to `h`) into the index: the latest position (+1) per hash, and
/// with chains longer than one, the one before each position.
#[inline(always)]
fn insert(head: &mut [u32], prev: &mut [u32], chain: usize, j: usize, h: usize) {
    if chain > 1 {
        prev[j] = head[h];
    }
    head[h] = j as u32 + 1;
}

/// Longest earlier match for position `i` of `hist` (at least 3 bytes before `end`, hashing
/// to `h`) within this history generation, over as many candidates as the search allows:
/// (length, offset), length 0 when there is none.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn longest_match(
    hist: &[u8],
    head: &[u32],
    prev: &[u32],
    s: &Search,
    v: &Variant,
    i: usize,
    end: usize,
    h: usize,
) -> (usize, usize) {
    let max_len = (end - i).min(v.max_len);
    let good = s.good.min(max_len);
    let (mut best_len, mut best_off) = (0, 0);
    let mut cand = head[h] as usize;
    for _ in 0..s.chain {
        if cand == 0 {
            break;
        }
        let c = cand - 1;
        let off = i - c;
        if off > v.max_offset || off == 0 {
            break;
        }
        // Quick reject: a candidate that differs where the best so far ends cannot beat it.
        if best_len == 0 || (best_len < max_len && hist[c + best_len] == hist[i + best_len]) {
            let l = crate::lz::match_len(hist, c, i, max_len);
            if l > best_len {
                best_len = l;
                best_off = off;
                if l >= good {
                    break;
                }
            }
        }
        cand = prev[c] as usize;
    }
    (best_len, best_off)
}

/// What the first five bits of a copy-offset code say (the first two are 11): the code's
/// length, and the offset as `base + the bits after the prefix` (masked).
#[derive(Clone, Copy)]
struct Code {
    used: u8,
    mask: u32,
    base: u32,
}

/// The copy-offset decoding table of one variant, by the stream's next five bits (entries
/// below 0b11000 are literals and never looked up).
const fn code_table(big: bool) -> [Code; 32] {
    let mut t = [Code { used: 8, mask: 0x7F, base: 0 }; 32];
    let mut i = 0b11000;
    while i < 32 {
        // (prefix length, value bits, base) of the offset code whose prefix the bits start with.
        let (plen, vbits, base) = if i >> 2 == 0b110 {
            if big { (3, 16, 2368) } else { (3, 13, 320) }
        } else if i >> 1 == 0b1110 {
            if big { (4, 11, 320) } else { (4, 8, 64) }
        } else if !big {
            (4, 6, 0) // 1111 + 6 bits
        } else if i == 0b11110 {
            (5, 8, 64)
        } else {
            (5, 6, 0)
        };
        t[i] = Code { used: plen + vbits, mask: (1 << vbits) - 1, base };
        i += 1;
    }
    t
}

static CODES_8K: [Code; 32] = code_table(false);
static CODES_64K: [Code; 32] = code_table(true);

/// A copy-tuple: the offset's code for a history of `history` bytes, then the length's.
#[inline]
fn put_copy(w: &mut BitWriter<'_>, history: usize, off: usize, len: usize) {
    let table: &[OffsetCode] = if history == 8192 { &OFFSETS_8K } else { &OFFSETS_64K };
    let code = table.iter().find(|c| off <= c.max).unwrap_or(&table[table.len() - 1]);
    w.put(code.prefix, code.prefix_bits);
    w.put((off - code.base) as u32, code.value_bits);
    if len == 3 {
        w.put(0, 1);
    } else {
        // k+1 = number of bits after the prefix; length in [2^(k+1), 2^(k+2)).
        let nbits = usize::BITS - 1 - len.leading_zeros(); // floor(log2(len))
        let k = nbits - 1;
        w.put((1u32 << k) - 1, k); // k ones
        w.put(0, 1);
        w.put(len as u32 - (1 << nbits), nbits);
    }
}

/// A literal: 0 + 7 bits, or 10 + 7 bits (0x80–0xFF become 0x100–0x17F in 9 bits).
#[inline]
fn put_literal(w: &mut BitWriter<'_>, b: u8) {
    // 0x80–0xFF: 0x100 | low 7 bits, which is the byte + 0x80.
    let hi = b as u32 >> 7;
    w.put(b as u32 + (hi << 7), 8 + hi);
}

/// Physical history of every decompressor: 64 KB. An RDP 4.0 packet may not exceed its 8 KB
/// history by the spec (MS-RDPBCGR 3.1.8.1), but some senders keep a 64 KB buffer in 8K mode
/// and send larger packets; accepting them (offsets still limited to 8 KB) keeps those
/// streams decodable at a bounded cost.
const DECODE_HISTORY: usize = 65536;

/// An MPPC decompressor with its persistent history. Total: any input returns a result or an
/// error, never panics, and output never exceeds 64 KB per packet.
pub struct MppcDecompressor {
    v: Variant,
    /// Fixed size, so that indexing checks against a constant.
    hist: Box<[u8; DECODE_HISTORY + crate::lz::SLACK]>,
    /// The history as it was before the current pass over the buffer began (at the last
    /// `PACKET_AT_FRONT`): what offsets reaching past the start read, since in `hist` the
    /// bytes past the position may be a copy's overrun.
    older: Box<[u8; DECODE_HISTORY]>,
    pos: usize,
}

impl MppcDecompressor {
    /// A decompressor for RDP 4.0 (`Mppc8k`) or RDP 5.0 (`Mppc64k`).
    pub fn new(t: CompressionType) -> Result<Self, BulkError> {
        let v = variant(t)?;
        Ok(Self {
            v,
            hist: Box::new([0; DECODE_HISTORY + crate::lz::SLACK]),
            older: Box::new([0; DECODE_HISTORY]),
            pos: 0,
        })
    }

    /// Decompress one packet sent with `flags`; returns the original bytes.
    pub fn decompress<'a>(&'a mut self, src: &'a [u8], flags: u8) -> Result<&'a [u8], BulkError> {
        let t = flags & 0x0F;
        if flags & (PACKET_COMPRESSED | PACKET_FLUSHED | PACKET_AT_FRONT) != 0 && t != self.v.ctype as u8 {
            return Err(BulkError::TypeMismatch { expected: self.v.ctype as u8, found: t });
        }
        if flags & PACKET_FLUSHED != 0 {
            self.hist.fill(0);
            self.older.fill(0);
            self.pos = 0;
        }
        if flags & PACKET_AT_FRONT != 0 {
            // The pass that ends: below its position the history is what it wrote; above,
            // what `older` already holds.
            let p = self.pos;
            self.older[..p].copy_from_slice(&self.hist[..p]);
            self.pos = 0;
        }
        if flags & PACKET_COMPRESSED == 0 {
            return Ok(src);
        }
        let start = self.pos;
        let size = self.v.history;
        let big = size == 65536;
        let max_k = if big { 14 } else { 11 };
        let codes = if big { &CODES_64K } else { &CODES_8K };
        let hist = &mut *self.hist;
        let mut pos = self.pos;
        let mut r = BitReader::new(src);
        // Every code is at least 8 bits long: fewer than 8 left are the last byte's padding.
        let done: Result<(), BulkError> = loop {
            if !r.plenty() && r.remaining() < 8 {
                break Ok(());
            }
            // A whole code (at most 19 bits of offset and 30 of length) in one refill.
            let t = r.peek56();
            if t < 0xC000_0000_0000_0000 {
                // A literal, without a branch on its kind: 0 + 7 bits, or (`hi`) 10 + 7 bits
                // for 0x80–0xFF, whose leading 1 the shift drops.
                if pos >= DECODE_HISTORY {
                    break Err(BulkError::Corrupt("literal past the history buffer"));
                }
                let hi = (t >> 63) as u32;
                hist[pos] = ((hi << 7) as u64 | ((t << hi) >> 56)) as u8;
                pos += 1;
                r.consume(8 + hi);
                continue;
            }
            // A copy: the first five bits name the offset's class.
            let c = codes[(t >> 59) as usize];
            let used = c.used as u32;
            let off = (c.base + ((t >> (64 - used)) as u32 & c.mask)) as usize;
            // Length-of-match: k ones, a zero, k+1 bits (at most 30 bits for k = 14); a lone
            // zero is 3.
            let l = t << used;
            let k = l.leading_ones();
            if k > max_k {
                break Err(BulkError::Corrupt("length-of-match prefix too long"));
            }
            // Without a branch on k = 0 (three bytes or more is as good as a coin toss): the
            // general form, then 3 selected over it by a mask.
            let general = (1usize << (k + 1)) + ((l << (k + 1)) >> (63 - k)) as usize;
            let short = 0usize.wrapping_sub((k == 0) as usize);
            let len = (general & !short) | (3 & short);
            r.consume(used + 2 * k + 2 - (k == 0) as u32);
            if r.overrun() {
                break Err(BulkError::Truncated);
            }
            if off == 0 || off > self.v.max_offset {
                // 13 bits + 320 can say 8,511 and 16 bits + 2,368 can say 67,903: beyond the history.
                break Err(BulkError::Corrupt("copy-offset 0 or beyond the history"));
            }
            if pos + len > DECODE_HISTORY {
                break Err(BulkError::Corrupt("copy runs past the history buffer"));
            }
            // The whole history is valid from the start (MS-RDPBCGR 3.1.8.1): an offset reaching
            // back past the current position continues at the end of the history (circularly),
            // where older data (or the initial zeros) still is.
            if off > pos {
                crate::lz::copy_wrapped(hist, &*self.older, pos, off, len, size);
            } else {
                // Its last move may overwrite up to 15 bytes past the copy: nothing reads
                // them there (the older end is read from `older`), and later bytes replace them.
                crate::lz::copy_back(hist, pos, off, len);
            }
            pos += len;
        };
        // Committed also after an error, as a decoder writing in place would.
        self.pos = pos;
        done?;
        if r.overrun() {
            return Err(BulkError::Truncated);
        }
        Ok(&self.hist[start..pos])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn literals_by_hand() {
        // 'A' (0x41) = 0 1000001; 0xC1 = 10 1000001 → bits 0100 0001 1010 0000 1(pad 0000000)
        let mut c = MppcCompressor::new(CompressionType::Mppc8k).unwrap();
        let mut out = Vec::new();
        // Too short to shrink: sent flushed, as is.
        let f = c.compress(&[0x41, 0xC1], &mut out);
        assert_eq!(f, PACKET_FLUSHED);
        assert_eq!(out, vec![0x41, 0xC1]);
        let mut d = MppcDecompressor::new(CompressionType::Mppc8k).unwrap();
        assert_eq!(d.decompress(&[0x41, 0xA0, 0x80], PACKET_COMPRESSED).unwrap(), &[0x41, 0xC1]);
    }

    #[test]
    fn copy_tuple_by_hand_rdp5() {
        // "abcabcabcabc": a b c literals, then offset 3 (11111 000011), length 9 (110 001).
        let bits = "0".to_string() + "1100001" + "0" + "1100010" + "0" + "1100011" + "11111000011" + "110001";
        let mut bytes = Vec::new();
        let mut cur = 0u8;
        let mut n = 0;
        for ch in bits.chars() {
            cur = cur << 1 | (ch == '1') as u8;
            n += 1;
            if n == 8 {
                bytes.push(cur);
                cur = 0;
                n = 0;
            }
        }
        if n > 0 {
            bytes.push(cur << (8 - n));
        }
        let mut d = MppcDecompressor::new(CompressionType::Mppc64k).unwrap();
        let got = d.decompress(&bytes, PACKET_COMPRESSED | 1).unwrap();
        assert_eq!(got, b"abcabcabcabc");
        // Our compressor makes exactly this stream.
        let mut c = MppcCompressor::new(CompressionType::Mppc64k).unwrap();
        let mut out = Vec::new();
        let f = c.compress(b"abcabcabcabc", &mut out);
        assert_eq!(f, PACKET_COMPRESSED | 1);
        assert_eq!(out, bytes);
    }

    #[test]
    fn length_encoding_matches_the_spec_examples() {
        // MS-RDPBCGR 3.1.8.4.1.2.2: 15 → 110 111; 120 → 111110 111000; 4097 → 111111111110 000000000001.
        for (len, expect) in
            [(15, "110111"), (120, "111110111000"), (4097, "111111111110000000000001"), (3, "0"), (4, "1000")]
        {
            let mut out = Vec::new();
            let mut w = BitWriter::new(&mut out);
            put_copy(&mut w, 8192, 1, len); // offset 1: "1111" + "000001"
            w.finish();
            let bits: String = out.iter().map(|b| format!("{b:08b}")).collect();
            assert!(bits.starts_with(&format!("1111000001{expect}")), "{len}: {bits}");
        }
    }

    #[test]
    fn hostile_offsets_and_lengths_are_errors() {
        let mut d = MppcDecompressor::new(CompressionType::Mppc8k).unwrap();
        // A copy at the very start reads the zero-filled history, which is valid by the spec:
        // offset 1 ("1111 000001"), length 3 ("0") → three zeros.
        assert_eq!(d.decompress(&[0b1111_0000, 0b0100_0000], PACKET_COMPRESSED).unwrap(), &[0, 0, 0]);
        // Offset 0 is not a copy.
        let mut d = MppcDecompressor::new(CompressionType::Mppc8k).unwrap();
        assert!(d.decompress(&[0b1111_0000, 0b0000_0000], PACKET_COMPRESSED).is_err());
        // Offset 8,511 ("110" + 13 ones) is beyond an 8 KB history.
        let mut d = MppcDecompressor::new(CompressionType::Mppc8k).unwrap();
        assert!(d.decompress(&[0b1101_1111, 0b1111_1111, 0b0000_0000], PACKET_COMPRESSED).is_err());
        // Wrong type.
        assert!(d.decompress(&[0], PACKET_COMPRESSED | 1).is_err());
        // All ones: an endless length prefix.
        let mut d = MppcDecompressor::new(CompressionType::Mppc8k).unwrap();
        assert!(d.decompress(&[0x41, 0xFF, 0xFF, 0xFF, 0xFF], PACKET_COMPRESSED).is_err());
    }

    fn roundtrip(t: CompressionType, packets: &[Vec<u8>]) {
        let mut c = MppcCompressor::new(t).unwrap();
        let mut d = MppcDecompressor::new(t).unwrap();
        let mut out = Vec::new();
        for p in packets {
            let f = c.compress(p, &mut out);
            assert_eq!(d.decompress(&out, f).unwrap(), &p[..]);
        }
    }

    #[test]
    fn after_at_front_offsets_reach_the_older_end_of_the_history() {
        // 8K: fill the history with a known pattern up to 8000, then wrap to the front and copy
        // from offset 100 at position 0 → bytes 8092.. of the old history.
        let mut d = MppcDecompressor::new(CompressionType::Mppc8k).unwrap();
        let mut c = MppcCompressor::new(CompressionType::Mppc8k).unwrap();
        let old: Vec<u8> = (0..8000u32).map(|i| (i % 200) as u8).collect();
        let mut wire = Vec::new();
        let f = c.compress(&old, &mut wire);
        assert_eq!(d.decompress(&wire, f).unwrap(), &old[..]);
        // Hand-built: offset 100 = "1110" + (100-64=36 in 8 bits) = 1110 00100100, length 4 = "1000".
        let out = d.decompress(&[0b1110_0010, 0b0100_1000], PACKET_COMPRESSED | PACKET_AT_FRONT).unwrap();
        // Position 0 − 100 → 8092: bytes 8092..8095 of the history; 8000.. are still zero.
        assert_eq!(out, &[0, 0, 0, 0]);
    }

    #[test]
    fn history_wraps_with_at_front() {
        let block: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 251) as u8).collect();
        let packets: Vec<Vec<u8>> = (0..10).map(|i| block.iter().map(|b| b.wrapping_add(i)).collect()).collect();
        roundtrip(CompressionType::Mppc8k, &packets);
        roundtrip(CompressionType::Mppc64k, &packets);
    }

    proptest! {
        #[test]
        fn any_packets_round_trip(packets in proptest::collection::vec(proptest::collection::vec(0u8..6, 0..3000), 1..12), big in any::<bool>()) {
            roundtrip(if big { CompressionType::Mppc64k } else { CompressionType::Mppc8k }, &packets);
        }

        #[test]
        fn hostile_input_never_panics(data in proptest::collection::vec(any::<u8>(), 0..400), flags in any::<u8>(), big in any::<bool>()) {
            let t = if big { CompressionType::Mppc64k } else { CompressionType::Mppc8k };
            let mut d = MppcDecompressor::new(t).unwrap();
            let _ = d.decompress(&data, flags);
            let _ = d.decompress(&data, flags | PACKET_COMPRESSED | t as u8);
        }
    }
}
