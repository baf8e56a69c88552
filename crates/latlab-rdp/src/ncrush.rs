//! RDP 6.0 bulk compression ("NCRUSH"), MS-RDPEGDI 3.1.8.1: LZ77 over a 64 KB history with
//! static Huffman codes, an offset cache and a half-sliding history.
//!
//! - Stream (3.1.8.1.4): bits least-significant first. Each item is a code from the
//!   LiteralOrEosOrCopyOffset ("LEC") alphabet of 294 symbols: 0–255 literals, 256 end of
//!   stream, 257–288 copy-offset classes (followed by `CopyOffsetBitsLUT[i]` extra bits:
//!   offset = `CopyOffsetBaseLUT[i]` + extra − 1), 289–292 the four cached offsets. A copy is
//!   followed by a length-of-match ("LoM") code of 32 symbols (then `LoMBitsLUT[i]` extra
//!   bits: length = `LoMBaseLUT[i]` + extra). The codes are canonical Huffman codes built
//!   from the bit lengths of tables 1 and 4 (3.1.8.1.4.1, 3.1.8.1.4.2), written bit-reversed.
//! - Offset cache (3.1.8.1.1): the last four offsets. A new offset is pushed at the front; a
//!   cache hit swaps the hit entry with the front one. Emptied (zeros) when the history is.
//! - History (3.1.8.1.1–3): 65,536 bytes. When a packet does not fit, the sender slides the
//!   history back by half (the 32 KB before the current offset move to the front, the offset
//!   becomes 32,768) and sets `PACKET_AT_FRONT`; `PACKET_FLUSHED` reinitializes it. As in the
//!   deployed implementations, offsets reaching past the start of the buffer continue at its
//!   end (the whole history is valid from initialization on).
//!
//! The tables here are transcribed from the specification (tables 1, 3, 4 and 6 of
//! 3.1.8.1.4); the codebooks (tables 2 and 5) are derived from them and checked against the
//! spec's printed values in the tests.

use crate::bits::{LsbReader, LsbWriter};
use crate::level::{Level, Search};
use crate::{BulkError, CompressionType, PACKET_AT_FRONT, PACKET_COMPRESSED, PACKET_FLUSHED};

const HISTORY: usize = 65536;
/// What an RDP 6.0 history holds past its position: zeros.
static ZEROS: [u8; HISTORY] = [0; HISTORY];
const HALF: usize = HISTORY / 2;
/// Room the sender keeps free at the end of the history (the deployed encoders slide when a
/// packet would come within a few bytes of the end; so do we, to stay decodable by them).
const END_GUARD: usize = 8;
const TYPE: u8 = CompressionType::Ncrush as u8;

mod tables;
use tables::{
    CACHE_MOVES, COPY_OFFSET_BASE, COPY_OFFSET_BITS, LEC_BITS, LEC_TABLE, LOM_BASE, LOM_BITS, LOM_BITS_MAX, LOM_DECODE,
    MAX_LOM, OFFSET_DECODE, lom_class, lom_cost, offset_class, offset_cost,
};
pub use tables::{HUFF_CODE_LEC, HUFF_CODE_LOM, HUFF_LENGTH_LEC, HUFF_LENGTH_LOM};

/// An RDP 6.0 decompressor with its persistent history and offset cache. Total: any input
/// returns a result or an error, never panics; memory is the fixed 64 KB history.
pub struct NcrushDecompressor {
    /// Fixed size, so that indexing checks against a constant.
    hist: Box<[u8; HISTORY + crate::lz::SLACK]>,
    pos: usize,
    cache: [u32; 4],
}

impl Default for NcrushDecompressor {
    fn default() -> Self {
        Self::new()
    }
}

impl NcrushDecompressor {
    /// A fresh decompressor (history zeroed, offset cache empty).
    pub fn new() -> Self {
        Self { hist: Box::new([0; HISTORY + crate::lz::SLACK]), pos: 0, cache: [0; 4] }
    }

    /// Decompress one packet sent with `flags`; returns the original bytes.
    pub fn decompress<'a>(&'a mut self, src: &'a [u8], flags: u8) -> Result<&'a [u8], BulkError> {
        let t = flags & 0x0F;
        if flags & (PACKET_COMPRESSED | PACKET_FLUSHED | PACKET_AT_FRONT) != 0 && t != TYPE {
            return Err(BulkError::TypeMismatch { expected: TYPE, found: t });
        }
        if flags & PACKET_AT_FRONT != 0 {
            if self.pos < HALF {
                return Err(BulkError::Corrupt("PACKET_AT_FRONT with less than half the history used"));
            }
            self.hist.copy_within(self.pos - HALF..self.pos, 0);
            self.hist[HALF..].fill(0);
            self.pos = HALF;
        }
        if flags & PACKET_FLUSHED != 0 {
            self.hist.fill(0);
            self.pos = 0;
            self.cache = [0; 4];
        }
        if flags & PACKET_COMPRESSED == 0 {
            return Ok(src);
        }
        let start = self.pos;
        let hist = &mut *self.hist;
        let mut pos = self.pos;
        let mut cache = self.cache;
        let mut r = LsbReader::new(src);
        let done: Result<(), BulkError> = loop {
            // Up to 13 bits of LEC code and 14 of offset: one refill covers both.
            r.need(LEC_BITS + 14);
            let e = LEC_TABLE[r.peek_ready(LEC_BITS) as usize];
            r.consume((e >> 9) as u32);
            let sym = (e & 0x1FF) as usize;
            if sym < 256 {
                if pos >= HISTORY {
                    break Err(BulkError::Corrupt("literal past the end of the history"));
                }
                hist[pos] = sym as u8;
                pos += 1;
                continue;
            }
            if sym == 256 {
                break Ok(());
            }
            if sym == 293 {
                // LEC code 293 has a length in table 1 but no meaning (3.1.8.1.4.1 defines
                // 0–292): found by fuzzing.
                break Err(BulkError::Corrupt("LEC code 293 (undefined)"));
            }
            // A new offset (257–288) or a cached one (289–292) without a branch between them
            // (they alternate unpredictably): the new offset has no extra bits when cached,
            // and one permutation of [new, cache…] gives both the offset and the next cache.
            let hit = sym >= 289;
            let d = OFFSET_DECODE[(sym - 257) & 31];
            let k = (d >> 16) * u32::from(!hit);
            let fresh = (d & 0xFFFF) + r.peek_ready(k);
            r.consume(k);
            let src = [fresh, cache[0], cache[1], cache[2], cache[3]];
            let p = &CACHE_MOVES[if hit { sym - 288 } else { 0 }];
            cache = [src[p[0]], src[p[1]], src[p[2]], src[p[3]]];
            let off = cache[0] as usize;
            // Up to 9 bits of LoM code and 14 extra.
            r.need(LOM_BITS_MAX + 14);
            let d = LOM_DECODE[r.peek_ready(LOM_BITS_MAX) as usize];
            r.consume(d >> 24);
            let k = (d >> 16) & 0xFF;
            if k > 14 {
                break Err(BulkError::Corrupt("unused length-of-match code"));
            }
            let len = ((d & 0xFFFF) + r.peek_ready(k)) as usize;
            r.consume(k);
            if r.overrun() {
                // Past the end the reader gives zeros, which decode as copies: stop at once.
                break Err(BulkError::Truncated);
            }
            if off == 0 {
                break Err(BulkError::Corrupt("copy-offset 0 (empty offset cache entry)"));
            }
            if pos + len > HISTORY {
                break Err(BulkError::Corrupt("copy runs past the end of the history"));
            }
            if off > pos {
                // Past `pos` the history is zeros (a flush or a slide left them, and the
                // garbage copies write past their end is zeroed again just below).
                crate::lz::copy_wrapped(hist, &ZEROS, pos, off, len, HISTORY);
            } else {
                crate::lz::copy_back(hist, pos, off, len);
            }
            hist[pos + len..pos + len + crate::lz::SLACK].fill(0);
            pos += len;
        };
        // Committed also after an error: past `pos` the history stays as it was (zeros).
        self.pos = pos;
        self.cache = cache;
        done?;
        if r.overrun() {
            return Err(BulkError::Truncated);
        }
        Ok(&self.hist[start..pos])
    }
}

const HASH_BITS: u32 = 16;

#[inline]
fn hash3(b: &[u8]) -> usize {
    let v = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
    (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
}

/// One way to code the bytes at a position.
#[derive(Debug, Clone, Copy, Default)]
struct Choice {
    len: usize,
    off: usize,
    /// Offset-cache slot, or 4 for a plain offset.
    slot: usize,
    /// Bits saved against sending the bytes as literals (may be ≤ 0: not worth it).
    gain: i64,
}

/// An RDP 6.0 compressor: hash-chain match finder over the history, offset-cache matches
/// tried first, each candidate weighed by its exact Huffman cost against the literals it
/// replaces, with one step of lazy evaluation where the level asks for it.
pub struct NcrushCompressor {
    search: Search,
    hist: Vec<u8>,
    pos: usize,
    cache: [u32; 4],
    head: Vec<u32>,
    prev: Vec<u32>,
    /// Prefix sums of literal costs (bits) over the current packet.
    lit_cost: Vec<u32>,
}

impl Default for NcrushCompressor {
    fn default() -> Self {
        Self::new()
    }
}

impl NcrushCompressor {
    /// A fresh compressor at the default level.
    pub fn new() -> Self {
        Self::with_level(Level::default())
    }

    /// A fresh compressor searching as hard as `level` says.
    pub fn with_level(level: Level) -> Self {
        Self {
            search: level.ncrush(),
            hist: vec![0; HISTORY],
            pos: 0,
            cache: [0; 4],
            head: vec![0; 1 << HASH_BITS],
            prev: vec![0; HISTORY],
            lit_cost: Vec::new(),
        }
    }

    fn reset(&mut self) {
        self.hist.fill(0);
        self.pos = 0;
        self.cache = [0; 4];
        self.head.fill(0);
    }

    /// Slide the history back by half: the 32 KB before the offset move to the front.
    fn slide(&mut self) {
        self.hist.copy_within(self.pos - HALF..self.pos, 0);
        self.hist[HALF..].fill(0);
        self.pos = HALF;
        self.head.fill(0);
        for j in 0..HALF - 2 {
            self.index(j);
        }
    }

    #[inline]
    fn index(&mut self, j: usize) {
        let h = hash3(&self.hist[j..j + 3]);
        self.prev[j] = self.head[h];
        self.head[h] = j as u32 + 1;
    }

    /// Compress one packet into `out` (cleared first); returns the flags to send with it.
    /// When compression would not make the packet smaller, `out` holds the packet as is with
    /// `PACKET_FLUSHED` (both histories reset), as the spec requires.
    pub fn compress(&mut self, src: &[u8], out: &mut Vec<u8>) -> u8 {
        out.clear();
        let mut flags = TYPE;
        if src.is_empty() {
            // Nothing to code (a compressed stream needs at least its end-of-stream code).
            return flags;
        }
        if src.len() > HISTORY - END_GUARD {
            return self.flush(src, out);
        }
        if self.pos + src.len() > HISTORY - END_GUARD {
            if src.len() <= HALF - END_GUARD {
                self.slide();
                flags |= PACKET_AT_FRONT;
            } else {
                self.reset();
                flags |= PACKET_FLUSHED;
            }
        }
        let start = self.pos;
        let end = start + src.len();
        self.hist[start..end].copy_from_slice(src);
        self.lit_cost.clear();
        let mut acc = 0u32;
        self.lit_cost.push(0);
        for &b in src {
            acc += HUFF_LENGTH_LEC[b as usize] as u32;
            self.lit_cost.push(acc);
        }
        {
            let mut w = LsbWriter::new(out);
            let mut i = start;
            let mut pending: Option<Choice> = None;
            while i < end {
                let here = match pending.take() {
                    Some(c) => c,
                    None => self.best(i, start, end),
                };
                if here.gain <= 0 {
                    self.literal(&mut w, i, end);
                    i += 1;
                    continue;
                }
                // Lazy step: a better copy starting at the next byte wins over this one.
                if self.search.lazy && here.len < self.search.good && i + 3 < end {
                    self.index(i);
                    let next = self.best(i + 1, start, end);
                    let lit = (self.lit_cost[i + 1 - start] - self.lit_cost[i - start]) as i64;
                    if next.gain > here.gain + lit / 2 {
                        self.put_lit(&mut w, i);
                        i += 1;
                        pending = Some(next);
                        continue;
                    }
                    self.put_copy(&mut w, here);
                    for j in i + 1..i + here.len.min(self.search.insert) {
                        if j + 3 <= end {
                            self.index(j);
                        }
                    }
                } else {
                    self.put_copy(&mut w, here);
                    for j in i..i + here.len.min(self.search.insert) {
                        if j + 3 <= end {
                            self.index(j);
                        }
                    }
                }
                i += here.len;
                if w.len_bytes() >= src.len() {
                    break;
                }
            }
            w.put(HUFF_CODE_LEC[256] as u32, HUFF_LENGTH_LEC[256] as u32);
            w.finish();
        }
        // Some deployed decoders read the first 32 bits at once.
        while out.len() < 4 {
            out.push(0);
        }
        if out.len() >= src.len() {
            // flush() resets the history and the offset cache the copies above touched.
            return self.flush(src, out);
        }
        self.pos = end;
        flags | PACKET_COMPRESSED
    }

    fn flush(&mut self, src: &[u8], out: &mut Vec<u8>) -> u8 {
        out.clear();
        out.extend_from_slice(src);
        self.reset();
        TYPE | PACKET_FLUSHED
    }

    #[inline]
    fn literal(&mut self, w: &mut LsbWriter<'_>, i: usize, end: usize) {
        self.put_lit(w, i);
        if i + 3 <= end {
            self.index(i);
        }
    }

    #[inline]
    fn put_lit(&self, w: &mut LsbWriter<'_>, i: usize) {
        let b = self.hist[i] as usize;
        w.put(HUFF_CODE_LEC[b] as u32, HUFF_LENGTH_LEC[b] as u32);
    }

    fn put_copy(&mut self, w: &mut LsbWriter<'_>, c: Choice) {
        if c.slot < 4 {
            let s = 289 + c.slot;
            w.put(HUFF_CODE_LEC[s] as u32, HUFF_LENGTH_LEC[s] as u32);
            self.cache.swap(0, c.slot);
        } else {
            let k = offset_class(c.off);
            let s = 257 + k;
            w.put(HUFF_CODE_LEC[s] as u32, HUFF_LENGTH_LEC[s] as u32);
            w.put((c.off + 1) as u32 - COPY_OFFSET_BASE[k], COPY_OFFSET_BITS[k] as u32);
            self.cache = [c.off as u32, self.cache[0], self.cache[1], self.cache[2]];
        }
        let k = lom_class(c.len);
        w.put(HUFF_CODE_LOM[k] as u32, HUFF_LENGTH_LOM[k] as u32);
        w.put((c.len as u32) - LOM_BASE[k], LOM_BITS[k] as u32);
    }

    /// The best copy for position `i` of the packet `start..end`, by bits saved.
    fn best(&self, i: usize, start: usize, end: usize) -> Choice {
        let max = (end - i).min(MAX_LOM);
        let mut best = Choice::default();
        if max < 2 {
            return best;
        }
        let lits = |len: usize| (self.lit_cost[i + len - start] - self.lit_cost[i - start]) as i64;
        // Offset-cache candidates: cheap codes, worth it from two bytes.
        for (slot, &off) in self.cache.iter().enumerate() {
            let off = off as usize;
            if off == 0 || off > i {
                continue;
            }
            let len = crate::lz::match_len(&self.hist, i - off, i, max);
            if len >= 2 {
                let cost = HUFF_LENGTH_LEC[289 + slot] as u32 + lom_cost(len);
                let gain = lits(len) - cost as i64;
                if gain > best.gain {
                    best = Choice { len, off, slot, gain };
                }
            }
        }
        if max < 3 || i + 3 > end {
            return best;
        }
        let mut cand = self.head[hash3(&self.hist[i..i + 3])];
        let mut best_len = best.len;
        for _ in 0..self.search.chain {
            if cand == 0 {
                break;
            }
            let c = cand as usize - 1;
            if c >= i {
                break;
            }
            let off = i - c;
            // Quick reject: cannot beat the best length found so far.
            if best_len >= 3 && (i + best_len >= end || self.hist[c + best_len] != self.hist[i + best_len]) {
                cand = self.prev[c];
                continue;
            }
            let len = crate::lz::match_len(&self.hist, c, i, max);
            if len >= 3 {
                let slot = self.cache.iter().position(|&o| o as usize == off).unwrap_or(4);
                let cost = if slot < 4 { HUFF_LENGTH_LEC[289 + slot] as u32 } else { offset_cost(off) } + lom_cost(len);
                let gain = lits(len) - cost as i64;
                if gain > best.gain {
                    best = Choice { len, off, slot, gain };
                }
                if len > best_len {
                    best_len = len;
                }
                if len >= self.search.good || len == max {
                    break;
                }
            }
            cand = self.prev[c];
        }
        best
    }
}

#[cfg(test)]
mod tests;
