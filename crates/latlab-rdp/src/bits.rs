//! Bit streams. MSB-first, as MPPC packs its codes (RFC 2118 §4; MS-RDPBCGR 3.1.8.4): the
//! first bit of a code is the most significant unwritten bit of the current byte. LSB-first,
//! as RDP 6.0 bulk compression packs its Huffman codes (MS-RDPEGDI 3.1.8.1.4): the first bit
//! is the least significant unwritten bit. The readers are total and branch-light: past the
//! end they read zero bits and remember it ([`BitReader::overrun`]), so a decoder checks once
//! per packet instead of once per code, and never panics.

/// Writes bits most-significant first into a byte vector: 32 bits at a time into room made
/// ahead (the vector is grown in steps, then cut to the bytes written by `finish`).
#[derive(Debug)]
pub struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    /// Bytes written so far (the vector may be longer: room made ahead).
    at: usize,
    acc: u64,
    nbits: u32,
}

/// Make room for four more bytes at `at`.
#[inline(always)]
fn room(out: &mut Vec<u8>, at: usize) {
    if at + 4 > out.len() {
        let grow = (out.len() * 2).max(at + 256);
        out.resize(grow, 0);
    }
}

impl<'a> BitWriter<'a> {
    /// Append to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        let at = out.len();
        Self { out, at, acc: 0, nbits: 0 }
    }
    /// Write the low `n` bits of `v` (n ≤ 32), most significant first; 32 bits go out at once.
    #[inline(always)]
    pub fn put(&mut self, v: u32, n: u32) {
        debug_assert!(n <= 32);
        self.acc = (self.acc << n) | (v as u64 & ((1u64 << n) - 1));
        self.nbits += n;
        if self.nbits >= 32 {
            self.nbits -= 32;
            room(self.out, self.at);
            self.out[self.at..self.at + 4].copy_from_slice(&((self.acc >> self.nbits) as u32).to_be_bytes());
            self.at += 4;
        }
    }
    /// Bytes the stream would take if finished now.
    #[inline]
    pub fn len_bytes(&self) -> usize {
        self.at + self.nbits.div_ceil(8) as usize
    }
    /// Pad the last byte with zero bits.
    pub fn finish(mut self) {
        self.out.truncate(self.at);
        while self.nbits >= 8 {
            self.nbits -= 8;
            self.out.push((self.acc >> self.nbits) as u8);
        }
        if self.nbits > 0 {
            self.out.push((self.acc << (8 - self.nbits)) as u8);
            self.nbits = 0;
        }
    }
}

/// Reads bits most-significant first from a byte slice, through a 64-bit accumulator
/// (left-aligned: its top bit is the next bit of the stream). Past the end it reads zeros.
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    byte: usize,
    acc: u64,
    /// Bits in `acc` (stream bits, then zero padding).
    n: u32,
    /// Zero bits of padding put into `acc` past the end of the data, all told.
    pad: u64,
}

impl<'a> BitReader<'a> {
    /// Read from `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, byte: 0, acc: 0, n: 0, pad: 0 }
    }
    /// Bits of the stream not yet consumed (0 once past the end).
    #[inline]
    pub fn remaining(&self) -> usize {
        let left = self.n as u64 + (self.data.len() - self.byte) as u64 * 8;
        left.saturating_sub(self.pad) as usize
    }
    /// Were bits consumed past the end of the stream?
    #[inline]
    pub fn overrun(&self) -> bool {
        self.pad > self.n as u64
    }
    /// At least eight bytes of the stream are still to be loaded (so more than 64 bits
    /// remain): a cheaper test than [`BitReader::remaining`] for a decoder's main loop.
    #[inline(always)]
    pub fn plenty(&self) -> bool {
        self.byte + 8 <= self.data.len()
    }
    /// Fill the accumulator to at least 56 bits (eight bytes at once while they last).
    #[inline(always)]
    fn refill(&mut self) {
        if let Some(w) = self.data.get(self.byte..self.byte + 8) {
            // All eight bytes go in; only whole bytes count. The part of the next byte that
            // lands below the counted bits is that byte's own bits, put there again (same
            // place, same values) by the next refill.
            let w = u64::from_be_bytes(w.try_into().unwrap_or([0; 8]));
            self.acc |= w >> self.n;
            self.byte += ((63 - self.n) >> 3) as usize;
            self.n |= 56;
        } else {
            while self.n <= 56 {
                if let Some(&b) = self.data.get(self.byte) {
                    self.acc |= (b as u64) << (56 - self.n);
                    self.byte += 1;
                } else {
                    self.pad += 8;
                }
                self.n += 8;
            }
        }
    }
    /// The next 56 bits or more (at the top of the value) without consuming them: one
    /// refill covers a whole code of up to 56 bits (zeros past the end).
    #[inline(always)]
    pub fn peek56(&mut self) -> u64 {
        // While eight bytes remain, refill every time, without a test on the count: a full
        // accumulator takes no byte and ORs in bits it already holds.
        if self.plenty() || self.n < 56 {
            self.refill();
        }
        self.acc
    }
    /// The next 32 bits without consuming them (zeros past the end).
    #[inline(always)]
    pub fn peek32(&mut self) -> u32 {
        if self.n < 32 {
            self.refill();
        }
        (self.acc >> 32) as u32
    }
    /// Consume `k` bits (1 ≤ k ≤ 56) already peeked.
    #[inline(always)]
    pub fn consume(&mut self, k: u32) {
        debug_assert!(k <= self.n);
        self.acc <<= k;
        self.n -= k;
    }
    /// Read one bit.
    #[inline]
    pub fn bit(&mut self) -> u32 {
        self.bits(1)
    }
    /// Read `k` bits (1 ≤ k ≤ 32) as an unsigned number.
    #[inline(always)]
    pub fn bits(&mut self, k: u32) -> u32 {
        debug_assert!((1..=32).contains(&k));
        let v = self.peek32() >> (32 - k);
        self.consume(k);
        v
    }
}

/// Writes bits least-significant first into a byte vector, 32 bits at a time as
/// [`BitWriter`] does.
#[derive(Debug)]
pub struct LsbWriter<'a> {
    out: &'a mut Vec<u8>,
    at: usize,
    acc: u64,
    nbits: u32,
}

impl<'a> LsbWriter<'a> {
    /// Append to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        let at = out.len();
        Self { out, at, acc: 0, nbits: 0 }
    }
    /// Write the low `n` bits of `v` (n ≤ 32), least significant first.
    #[inline(always)]
    pub fn put(&mut self, v: u32, n: u32) {
        debug_assert!(n <= 32);
        self.acc |= (v as u64 & ((1u64 << n) - 1)) << self.nbits;
        self.nbits += n;
        if self.nbits >= 32 {
            room(self.out, self.at);
            self.out[self.at..self.at + 4].copy_from_slice(&(self.acc as u32).to_le_bytes());
            self.at += 4;
            self.acc >>= 32;
            self.nbits -= 32;
        }
    }
    /// Bytes the stream would take if finished now.
    #[inline]
    pub fn len_bytes(&self) -> usize {
        self.at + self.nbits.div_ceil(8) as usize
    }
    /// Write out the last bits, the last byte padded with zero bits.
    pub fn finish(mut self) {
        self.out.truncate(self.at);
        while self.nbits > 0 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.nbits = self.nbits.saturating_sub(8);
        }
    }
}

/// Reads bits least-significant first from a byte slice through a 64-bit accumulator.
/// Past the end it reads zeros (for table-driven Huffman decoding, and so that a decoder
/// checks [`LsbReader::overrun`] once per packet).
#[derive(Debug, Clone)]
pub struct LsbReader<'a> {
    data: &'a [u8],
    byte: usize,
    acc: u64,
    /// Bits in `acc` (stream bits, then zero padding).
    n: u32,
    /// Zero bits of padding put into `acc` past the end of the data, all told.
    pad: u64,
}

impl<'a> LsbReader<'a> {
    /// Read from `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, byte: 0, acc: 0, n: 0, pad: 0 }
    }
    /// Fill the accumulator to at least 56 bits (eight bytes at once while they last).
    #[inline(always)]
    fn refill(&mut self) {
        if let Some(w) = self.data.get(self.byte..self.byte + 8) {
            // As in `BitReader::refill`: whole bytes count, the rest is put again later.
            let w = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
            self.acc |= w << self.n;
            self.byte += ((63 - self.n) >> 3) as usize;
            self.n |= 56;
        } else {
            while self.n <= 56 {
                if let Some(&b) = self.data.get(self.byte) {
                    self.acc |= (b as u64) << self.n;
                    self.byte += 1;
                } else {
                    self.pad += 8;
                }
                self.n += 8;
            }
        }
    }
    /// Make sure at least `k` bits (k ≤ 56) are in the accumulator.
    #[inline(always)]
    pub fn need(&mut self, k: u32) {
        // As in `BitReader::peek56`: while eight bytes remain, refill without a test.
        if self.byte + 8 <= self.data.len() || k > self.n {
            self.refill();
        }
    }
    /// The next `k` bits (k ≤ 32) without consuming them; zeros past the end.
    #[inline(always)]
    pub fn peek(&mut self, k: u32) -> u32 {
        self.need(k);
        (self.acc & ((1u64 << k) - 1)) as u32
    }
    /// The next `k` bits (k ≤ 32) when [`LsbReader::need`] made sure they are there.
    #[inline(always)]
    pub fn peek_ready(&self, k: u32) -> u32 {
        debug_assert!(k <= self.n);
        (self.acc & ((1u64 << k) - 1)) as u32
    }
    /// Consume `k` bits already peeked.
    #[inline(always)]
    pub fn consume(&mut self, k: u32) {
        debug_assert!(k <= self.n);
        self.acc >>= k;
        self.n -= k;
    }
    /// Read `k` bits (k ≤ 32) as an unsigned number.
    #[inline(always)]
    pub fn bits(&mut self, k: u32) -> u32 {
        let v = self.peek(k);
        self.consume(k);
        v
    }
    /// Were bits consumed past the end of the stream?
    #[inline]
    pub fn overrun(&self) -> bool {
        self.pad > self.n as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bit `i` of `data`, most or least significant first.
    fn naive(data: &[u8], i: usize, msb: bool) -> u32 {
        let b = data.get(i / 8).copied().unwrap_or(0);
        (if msb { b >> (7 - i % 8) } else { b >> (i % 8) } & 1) as u32
    }

    proptest! {
        #[test]
        fn readers_agree_with_bit_by_bit(data in proptest::collection::vec(any::<u8>(), 0..64), widths in proptest::collection::vec(1u32..=32, 1..40)) {
            let (mut m, mut l) = (BitReader::new(&data), LsbReader::new(&data));
            let mut at = 0usize;
            for k in widths {
                let (mut want_m, mut want_l) = (0u32, 0u32);
                for j in 0..k as usize {
                    want_m = want_m << 1 | naive(&data, at + j, true);
                    want_l |= naive(&data, at + j, false) << j;
                }
                prop_assert_eq!(m.bits(k), want_m);
                prop_assert_eq!(l.bits(k), want_l);
                at += k as usize;
                prop_assert_eq!(m.overrun(), at > data.len() * 8);
                prop_assert_eq!(l.overrun(), at > data.len() * 8);
                prop_assert_eq!(m.remaining(), (data.len() * 8).saturating_sub(at));
            }
        }
    }

    #[test]
    fn lsb_first_by_hand() {
        let mut out = Vec::new();
        let mut w = LsbWriter::new(&mut out);
        w.put(0b1, 1);
        w.put(0b0110, 4);
        w.put(0b111_1111_0000, 11);
        w.put(0b101, 3);
        w.put(0xDEAD_BEEF, 32);
        w.finish();
        // First byte, low bit first: 1, 0110 (lsb first: 0,1,1,0), then 0000 111 of the 11 bits.
        assert_eq!(out[0], 0b0000_1101);
        assert_eq!(out[1], 0b1111_1110);
        let mut r = LsbReader::new(&out);
        assert_eq!(r.bits(1), 1);
        assert_eq!(r.bits(4), 0b0110);
        assert_eq!(r.bits(11), 0b111_1111_0000);
        assert_eq!(r.bits(3), 0b101);
        assert_eq!(r.bits(32), 0xDEAD_BEEF);
        // 51 bits written, 56 in the stream: 5 padding bits, then the end.
        assert_eq!(r.peek(13), 0);
        assert_eq!(r.bits(5), 0);
        assert!(!r.overrun());
        assert_eq!(r.bits(1), 0);
        assert!(r.overrun());
    }

    #[test]
    fn msb_first_by_hand() {
        let mut out = Vec::new();
        let mut w = BitWriter::new(&mut out);
        w.put(0b1, 1);
        w.put(0b0110, 4);
        w.put(0b111_1111_0000, 11);
        w.put(0b101, 3);
        w.finish();
        // 1 0110 111 | 1111 0000 | 101 00000
        assert_eq!(out, vec![0b1011_0111, 0b1111_0000, 0b1010_0000]);
        let mut r = BitReader::new(&out);
        assert_eq!(r.bit(), 1);
        assert_eq!(r.bits(4), 0b0110);
        assert_eq!(r.bits(11), 0b111_1111_0000);
        assert_eq!(r.bits(3), 0b101);
        assert_eq!(r.remaining(), 5);
        assert_eq!(r.bits(5), 0);
        assert_eq!(r.remaining(), 0);
        assert!(!r.overrun());
        assert_eq!(r.bit(), 0);
        assert!(r.overrun());
        assert_eq!(r.remaining(), 0);
    }
}
