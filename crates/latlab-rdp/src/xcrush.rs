//! RDP 6.1 bulk compression ("XCRUSH"), MS-RDPEGDI 3.1.8.2 and 2.2.2.4: a byte-level
//! level-1 compressor over a 2,000,000-byte history whose output is chained into the RDP 5.0
//! (MPPC 64K) level-2 compressor. Decompression here.
//!
//! A packet whose outer flags say `PACKET_COMPRESSED` (type 3) carries RDP61_COMPRESSED_DATA
//! (2.2.2.4.1): `Level1ComprFlags` (1 byte), `Level2ComprFlags` (1 byte), then — after
//! level-2 decompression when `L1_INNER_COMPRESSION` (0x10) is set — either raw literals
//! (`L1_NO_COMPRESSION`, 0x02) or `MatchCount` (u16 LE), that many RDP61_MATCH_DETAILS
//! (2.2.2.4.1.1: `MatchLength` u16, `MatchOutputOffset` u16 — where in this block's output
//! the match goes — and `MatchHistoryOffset` u32 — where in the level-1 history it comes
//! from), then the literals that fill the gaps (`L1_COMPRESSED`, 0x01). `L1_PACKET_AT_FRONT`
//! (0x04) puts the block at the history's start (offset 0). The spec (3.1.8.2.3) also has the
//! history filled with zeros, but servers go on matching into its old contents after it:
//! FreeRDP's shadow server did, once a scrolling screen had filled the 2 MB history, and
//! latlab's client read zeros where a bitmap update's rectangles should have been; other
//! clients' decompressors reset only the offset. So the decompressor keeps the contents; its
//! own compressor zeros them and never matches into them, so either reading suits it. The
//! outer `PACKET_FLUSHED` reinitializes the history (zeros, offset 0). The block is appended
//! to the level-1 history.
//! Level-2 flags without `PACKET_COMPRESSED` mean the level-1 data follow as is (with
//! `PACKET_FLUSHED`, the level-2 history is reset too).
//!
//! The compressor finds long matches (at least [`MIN_L1_MATCH`] bytes: each costs 8 bytes of
//! match details) anywhere in the 2 MB history through a hash of 12-byte windows sampled
//! every 8 bytes (a match of 19 bytes or more holds one; sampling every 4 found no more on
//! the session corpus and took 7 % longer), and always chains the level-2 compressor
//! (`L1_INNER_COMPRESSION`, at the compressor's level), whose own flags say when it sent its
//! input as is. A block of more than 16,382 bytes (3.1.8.2.1) is
//! sent uncompressed, outside the histories.

use crate::level::Level;
use crate::mppc::{MppcCompressor, MppcDecompressor};
use crate::{BulkError, CompressionType, PACKET_COMPRESSED, PACKET_FLUSHED};

/// Level-1 history size (3.1.8.2.1).
pub const L1_HISTORY: usize = 2_000_000;
/// Level-1 flags (2.2.2.4.1).
pub const L1_COMPRESSED: u8 = 0x01;
/// No level-1 compression: the data are literals.
pub const L1_NO_COMPRESSION: u8 = 0x02;
/// The block goes at the level-1 history's start.
pub const L1_PACKET_AT_FRONT: u8 = 0x04;
/// The level-1 output was compressed again by the level-2 (RDP 5.0) compressor.
pub const L1_INNER_COMPRESSION: u8 = 0x10;

const TYPE: u8 = CompressionType::Xcrush as u8;
/// Largest block the level-1 compressor takes (3.1.8.2.1: smaller than 16,383 bytes).
pub const MAX_BLOCK: usize = 16_382;
/// Shortest level-1 match worth its 8 bytes of details (shorter repeats are left to level 2).
pub const MIN_L1_MATCH: usize = 24;
const WINDOW: usize = 12;
const SAMPLE: usize = 8;
const L1_HASH_BITS: u32 = 18;

/// Hash of the 12-byte window at the start of `b`: two multiplies, not one per byte.
#[inline]
fn hash_window(b: &[u8]) -> usize {
    let x = u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]));
    let y = u32::from_le_bytes(b[8..WINDOW].try_into().unwrap_or([0; 4])) as u64;
    let h = x.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ y.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (h >> (64 - L1_HASH_BITS)) as usize
}

/// An RDP 6.1 compressor: level-1 long-match finder over the 2 MB history, chained into an
/// MPPC 64K level-2 compressor.
pub struct XcrushCompressor {
    l2: MppcCompressor,
    hist: Vec<u8>,
    pos: usize,
    head: Vec<u32>,
    l1: Vec<u8>,
    lits: Vec<u8>,
    l2out: Vec<u8>,
    /// The level-1 output block, reused across packets.
    block: Vec<u8>,
    /// The level-2 compressor reset itself (it sent a block as is, with `PACKET_FLUSHED`):
    /// its next compressed block repeats `PACKET_FLUSHED`, because deployed decoders skip the
    /// level-2 stage — and so its reset — for blocks not marked compressed.
    l2_reset_pending: bool,
}

impl Default for XcrushCompressor {
    fn default() -> Self {
        Self::new()
    }
}

impl XcrushCompressor {
    /// A fresh compressor at the default level.
    pub fn new() -> Self {
        Self::with_level(Level::default())
    }

    /// A fresh compressor whose level-2 (MPPC) search is as hard as `level` says.
    pub fn with_level(level: Level) -> Self {
        Self {
            l2: MppcCompressor::with_level(CompressionType::Mppc64k, level)
                .unwrap_or_else(|_| unreachable!("64K is MPPC")),
            hist: vec![0; L1_HISTORY],
            pos: 0,
            head: vec![0; 1 << L1_HASH_BITS],
            l1: Vec::new(),
            lits: Vec::new(),
            l2out: Vec::new(),
            block: Vec::new(),
            l2_reset_pending: false,
        }
    }

    #[inline]
    fn insert(&mut self, j: usize) {
        if j.is_multiple_of(SAMPLE) && j + WINDOW <= self.hist.len() {
            let h = hash_window(&self.hist[j..]);
            self.head[h] = j as u32 + 1;
        }
    }

    /// Compress one packet into `out` (cleared first); returns the outer flags to send with it.
    pub fn compress(&mut self, src: &[u8], out: &mut Vec<u8>) -> u8 {
        out.clear();
        if src.len() > MAX_BLOCK || src.is_empty() {
            out.extend_from_slice(src);
            return TYPE;
        }
        let mut l1f = L1_INNER_COMPRESSION;
        if self.pos + src.len() > L1_HISTORY {
            self.hist.fill(0);
            self.head.fill(0);
            self.pos = 0;
            l1f |= L1_PACKET_AT_FRONT;
        }
        let start = self.pos;
        let end = start + src.len();
        self.hist[start..end].copy_from_slice(src);
        self.l1.clear();
        self.lits.clear();
        let mut matches = 0u16;
        let mut lit_start = start;
        let mut i = start;
        while i < end {
            if i + WINDOW <= end {
                let c = self.head[hash_window(&self.hist[i..])] as usize;
                if c > 0 && c - 1 < i && self.hist[c - 1..c - 1 + WINDOW] == self.hist[i..i + WINDOW] {
                    let (mut c, mut at) = (c - 1, i);
                    let mut len = WINDOW;
                    while at + len < end && self.hist[c + len] == self.hist[at + len] {
                        len += 1;
                    }
                    while at > lit_start && c > 0 && self.hist[c - 1] == self.hist[at - 1] {
                        c -= 1;
                        at -= 1;
                        len += 1;
                    }
                    if len >= MIN_L1_MATCH {
                        self.lits.extend_from_slice(&self.hist[lit_start..at]);
                        self.l1.extend_from_slice(&(len as u16).to_le_bytes());
                        self.l1.extend_from_slice(&((at - start) as u16).to_le_bytes());
                        self.l1.extend_from_slice(&(c as u32).to_le_bytes());
                        matches += 1;
                        for j in i..at + len {
                            self.insert(j);
                        }
                        i = at + len;
                        lit_start = i;
                        continue;
                    }
                }
            }
            self.insert(i);
            i += 1;
        }
        self.lits.extend_from_slice(&self.hist[lit_start..end]);
        // Level-1 output: match count, details, literals — or the literals alone.
        self.block.clear();
        if matches > 0 {
            l1f |= L1_COMPRESSED;
            self.block.extend_from_slice(&matches.to_le_bytes());
            self.block.extend_from_slice(&self.l1);
        } else {
            l1f |= L1_NO_COMPRESSION;
        }
        self.block.extend_from_slice(&self.lits);
        let mut l2f = self.l2.compress(&self.block, &mut self.l2out);
        if l2f & PACKET_COMPRESSED == 0 {
            self.l2_reset_pending |= l2f & PACKET_FLUSHED != 0;
        } else if self.l2_reset_pending {
            l2f |= PACKET_FLUSHED;
            self.l2_reset_pending = false;
        }
        self.pos = end;
        out.push(l1f);
        out.push(l2f);
        out.extend_from_slice(&self.l2out);
        TYPE | PACKET_COMPRESSED
    }
}

/// An RDP 6.1 decompressor: level-2 MPPC 64K context and level-1 history. Total: any input
/// returns a result or an error, never panics; memory is the fixed 2 MB + 64 KB histories.
pub struct XcrushDecompressor {
    l2: MppcDecompressor,
    hist: Vec<u8>,
    pos: usize,
}

impl Default for XcrushDecompressor {
    fn default() -> Self {
        Self::new()
    }
}

impl XcrushDecompressor {
    /// A fresh decompressor.
    pub fn new() -> Self {
        Self {
            l2: MppcDecompressor::new(CompressionType::Mppc64k).unwrap_or_else(|_| unreachable!("64K is MPPC")),
            hist: vec![0; L1_HISTORY + crate::lz::SLACK],
            pos: 0,
        }
    }

    /// Decompress one packet sent with outer `flags`; returns the original bytes.
    pub fn decompress<'a>(&'a mut self, src: &'a [u8], flags: u8) -> Result<&'a [u8], BulkError> {
        let t = flags & 0x0F;
        if flags & (PACKET_COMPRESSED | PACKET_FLUSHED) != 0 && t != TYPE {
            return Err(BulkError::TypeMismatch { expected: TYPE, found: t });
        }
        if flags & PACKET_FLUSHED != 0 {
            self.hist.fill(0);
            self.pos = 0;
        }
        if flags & PACKET_COMPRESSED == 0 {
            return Ok(src);
        }
        if src.len() < 2 {
            return Err(BulkError::Corrupt("RDP 6.1 packet shorter than its two flag bytes"));
        }
        let (l1f, l2f) = (src[0], src[1]);
        let Self { l2, hist, pos } = self;
        let data: &[u8] = if l1f & L1_INNER_COMPRESSION != 0 { l2.decompress(&src[2..], l2f)? } else { &src[2..] };
        // At front: the offset only (the old contents stay matchable; see the file's head).
        if l1f & L1_PACKET_AT_FRONT != 0 {
            *pos = 0;
        }
        let start = *pos;
        if l1f & L1_NO_COMPRESSION != 0 {
            if start + data.len() > L1_HISTORY {
                return Err(BulkError::Corrupt("level-1 block does not fit the history"));
            }
            hist[start..start + data.len()].copy_from_slice(data);
            *pos += data.len();
            return Ok(&hist[start..*pos]);
        }
        if l1f & L1_COMPRESSED == 0 {
            return Err(BulkError::Corrupt("level-1 flags say neither compressed nor uncompressed"));
        }
        if data.len() < 2 {
            return Err(BulkError::Corrupt("level-1 block without its match count"));
        }
        let count = u16::from_le_bytes([data[0], data[1]]) as usize;
        let details_end = 2 + count * 8;
        if data.len() < details_end {
            return Err(BulkError::Corrupt("level-1 match details run past the block"));
        }
        let mut lits = &data[details_end..];
        let mut out = 0usize; // bytes of this block produced so far
        for m in data[2..details_end].chunks_exact(8) {
            let len = u16::from_le_bytes([m[0], m[1]]) as usize;
            let at = u16::from_le_bytes([m[2], m[3]]) as usize;
            let from = u32::from_le_bytes([m[4], m[5], m[6], m[7]]) as usize;
            if at < out {
                return Err(BulkError::Corrupt("level-1 matches out of order"));
            }
            let gap = at - out;
            if gap > lits.len() {
                return Err(BulkError::Corrupt("level-1 literals run out before a match"));
            }
            let dst = start + out;
            if dst + gap + len > L1_HISTORY || from.saturating_add(len) > L1_HISTORY {
                return Err(BulkError::Corrupt("level-1 match outside the history"));
            }
            hist[dst..dst + gap].copy_from_slice(&lits[..gap]);
            lits = &lits[gap..];
            let dst = dst + gap;
            if from < dst && from + len > dst {
                // The source overlaps what this match writes: a run of period dst − from.
                // Past the position the level-1 history is zeros (reinitialized, never
                // written yet): put back the zeros the copy's last move may overwrite.
                crate::lz::copy_back(hist, dst, dst - from, len);
                hist[dst + len..dst + len + crate::lz::SLACK].fill(0);
            } else {
                hist.copy_within(from..from + len, dst);
            }
            out = at + len;
        }
        let dst = start + out;
        if dst + lits.len() > L1_HISTORY {
            return Err(BulkError::Corrupt("level-1 literals do not fit the history"));
        }
        hist[dst..dst + lits.len()].copy_from_slice(lits);
        *pos = dst + lits.len();
        Ok(&hist[start..*pos])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const C: u8 = PACKET_COMPRESSED | TYPE;

    fn block(l1f: u8, matches: &[(u16, u16, u32)], lits: &[u8]) -> Vec<u8> {
        let mut v = vec![l1f, 0];
        if l1f & L1_COMPRESSED != 0 {
            v.extend_from_slice(&(matches.len() as u16).to_le_bytes());
            for &(len, at, from) in matches {
                v.extend_from_slice(&len.to_le_bytes());
                v.extend_from_slice(&at.to_le_bytes());
                v.extend_from_slice(&from.to_le_bytes());
            }
        }
        v.extend_from_slice(lits);
        v
    }

    #[test]
    fn literals_then_matches_by_hand() {
        let mut d = XcrushDecompressor::new();
        assert_eq!(d.decompress(&block(L1_NO_COMPRESSION, &[], b"hello world"), C).unwrap(), b"hello world");
        // "say " + match "hello" (history 0, 5 bytes) at output 4 + "!" + match "world" at 10.
        let got = d.decompress(&block(L1_COMPRESSED, &[(5, 4, 0), (5, 10, 6)], b"say !"), C).unwrap().to_vec();
        assert_eq!(got, b"say hello!world");
        // A run: one literal, then a match from the byte just written (overlapping).
        let p = d.decompress(&block(L1_COMPRESSED, &[(7, 1, 26)], b"z"), C).unwrap().to_vec();
        assert_eq!(p, b"zzzzzzzz");
        // AT_FRONT: the block goes at offset 0 and the old contents stay: a match into them
        // ("wor" of "hello world") reads them, as FreeRDP's shadow server's stream needs.
        let p = d.decompress(&block(L1_COMPRESSED | L1_PACKET_AT_FRONT, &[(3, 0, 6)], b"ab"), C).unwrap().to_vec();
        assert_eq!(p, b"worab");
        // PACKET_FLUSHED zeros them.
        let p = d.decompress(&block(L1_COMPRESSED, &[(3, 0, 20)], b""), C | PACKET_FLUSHED).unwrap().to_vec();
        assert_eq!(p, b"\0\0\0");
        // Not compressed: passed through, history untouched.
        assert_eq!(d.decompress(b"raw", TYPE).unwrap(), b"raw");
    }

    #[test]
    fn hostile_blocks_are_errors() {
        let mut d = XcrushDecompressor::new();
        assert!(d.decompress(&[0], C).is_err());
        assert!(d.decompress(&block(0, &[], b"x"), C).is_err());
        assert!(d.decompress(&block(L1_COMPRESSED, &[(5, 0, 1_999_998)], b""), C).is_err());
        assert!(d.decompress(&block(L1_COMPRESSED, &[(5, 3, 0)], b"ab"), C).is_err());
        assert!(d.decompress(&block(L1_COMPRESSED, &[(2, 4, 0), (2, 1, 0)], b"abcd"), C).is_err());
        let mut v = block(L1_COMPRESSED, &[(2, 0, 0)], b"");
        v[2] = 9; // claims 9 matches
        assert!(d.decompress(&v, C).is_err());
        assert!(d.decompress(&[L1_INNER_COMPRESSION | L1_NO_COMPRESSION, 0x21, 0xFF], C).is_err());
        assert!(d.decompress(b"xx", PACKET_COMPRESSED | 2).is_err());
    }

    proptest! {
        #[test]
        fn hostile_input_never_panics(data in proptest::collection::vec(any::<u8>(), 0..300), flags in any::<u8>()) {
            let mut d = XcrushDecompressor::new();
            let _ = d.decompress(&data, flags);
            let _ = d.decompress(&data, C);
        }
    }
}
