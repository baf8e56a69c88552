//! Bit streams. MSB-first, as MPPC packs its codes (RFC 2118 §4; MS-RDPBCGR 3.1.8.4): the
//! first bit of a code is the most significant unwritten bit of the current byte. LSB-first,
//! as RDP 6.0 bulk compression packs its Huffman codes (MS-RDPEGDI 3.1.8.1.4): the first bit
//! is the least significant unwritten bit. The readers are total: reading past the end is an
//! error, never a panic.

/// Writes bits most-significant first into a byte vector.
#[derive(Debug)]
pub struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    nbits: u32,
}

impl<'a> BitWriter<'a> {
    /// Append to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self { out, acc: 0, nbits: 0 }
    }
    /// Write the low `n` bits of `v` (n ≤ 32), most significant first.
    #[inline]
    pub fn put(&mut self, v: u32, n: u32) {
        debug_assert!(n <= 32);
        self.acc = (self.acc << n) | (v as u64 & ((1u64 << n) - 1));
        self.nbits += n;
        while self.nbits >= 8 {
            self.nbits -= 8;
            self.out.push((self.acc >> self.nbits) as u8);
        }
    }
    /// Pad the last byte with zero bits.
    pub fn finish(mut self) {
        if self.nbits > 0 {
            self.out.push((self.acc << (8 - self.nbits)) as u8);
            self.nbits = 0;
        }
    }
}

/// Reads bits most-significant first from a byte slice, through a 64-bit accumulator
/// (left-aligned: its top bit is the next bit of the stream).
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    byte: usize,
    acc: u64,
    n: u32,
}

/// Reading past the end of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfBits;

impl<'a> BitReader<'a> {
    /// Read from `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, byte: 0, acc: 0, n: 0 }
    }
    /// Bits left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.n as usize + (self.data.len() - self.byte) * 8
    }
    #[inline]
    fn refill(&mut self) {
        while self.n <= 56 && self.byte < self.data.len() {
            self.acc |= (self.data[self.byte] as u64) << (56 - self.n);
            self.n += 8;
            self.byte += 1;
        }
    }
    /// Read one bit.
    #[inline]
    pub fn bit(&mut self) -> Result<u32, OutOfBits> {
        self.bits(1)
    }
    /// Read `k` bits (k ≤ 32) as an unsigned number.
    #[inline]
    pub fn bits(&mut self, k: u32) -> Result<u32, OutOfBits> {
        if k == 0 {
            return Ok(0);
        }
        if k > self.n {
            self.refill();
            if k > self.n {
                return Err(OutOfBits);
            }
        }
        let v = (self.acc >> (64 - k)) as u32;
        self.acc <<= k;
        self.n -= k;
        Ok(v)
    }
}

/// Writes bits least-significant first into a byte vector.
#[derive(Debug)]
pub struct LsbWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    nbits: u32,
}

impl<'a> LsbWriter<'a> {
    /// Append to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self { out, acc: 0, nbits: 0 }
    }
    /// Write the low `n` bits of `v` (n ≤ 32), least significant first.
    #[inline]
    pub fn put(&mut self, v: u32, n: u32) {
        debug_assert!(n <= 32);
        self.acc |= (v as u64 & ((1u64 << n) - 1)) << self.nbits;
        self.nbits += n;
        if self.nbits >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.nbits -= 32;
        }
    }
    /// Bytes the stream would take if finished now.
    pub fn len_bytes(&self) -> usize {
        self.out.len() + self.nbits.div_ceil(8) as usize
    }
    /// Write out the last bits, the last byte padded with zero bits.
    pub fn finish(mut self) {
        while self.nbits > 0 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.nbits = self.nbits.saturating_sub(8);
        }
    }
}

/// Reads bits least-significant first from a byte slice through a 64-bit accumulator.
/// `peek` pads past the end with zero bits (for table-driven Huffman decoding); `consume`
/// and `bits` fail when the stream does not hold the bits.
#[derive(Debug, Clone)]
pub struct LsbReader<'a> {
    data: &'a [u8],
    byte: usize,
    acc: u64,
    n: u32,
}

impl<'a> LsbReader<'a> {
    /// Read from `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, byte: 0, acc: 0, n: 0 }
    }
    #[inline]
    fn refill(&mut self) {
        if self.byte + 8 <= self.data.len() {
            let mut w = [0u8; 8];
            w.copy_from_slice(&self.data[self.byte..self.byte + 8]);
            let take = (63 - self.n) / 8;
            self.acc |= (u64::from_le_bytes(w) & ((1u64 << (take * 8)) - 1)) << self.n;
            self.byte += take as usize;
            self.n += take * 8;
        } else {
            while self.n <= 56 && self.byte < self.data.len() {
                self.acc |= (self.data[self.byte] as u64) << self.n;
                self.n += 8;
                self.byte += 1;
            }
        }
    }
    /// The next `k` bits (k ≤ 32) without consuming them; zeros past the end.
    #[inline]
    pub fn peek(&mut self, k: u32) -> u32 {
        if k > self.n {
            self.refill();
        }
        (self.acc & ((1u64 << k) - 1)) as u32
    }
    /// Consume `k` bits already peeked.
    #[inline]
    pub fn consume(&mut self, k: u32) -> Result<(), OutOfBits> {
        if k > self.n {
            self.refill();
            if k > self.n {
                return Err(OutOfBits);
            }
        }
        self.acc >>= k;
        self.n -= k;
        Ok(())
    }
    /// Read `k` bits (k ≤ 32) as an unsigned number.
    #[inline]
    pub fn bits(&mut self, k: u32) -> Result<u32, OutOfBits> {
        let v = self.peek(k);
        self.consume(k)?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(r.bits(1), Ok(1));
        assert_eq!(r.bits(4), Ok(0b0110));
        assert_eq!(r.bits(11), Ok(0b111_1111_0000));
        assert_eq!(r.bits(3), Ok(0b101));
        assert_eq!(r.bits(32), Ok(0xDEAD_BEEF));
        // 51 bits written, 56 in the stream: 5 padding bits, then the end.
        assert_eq!(r.peek(13), 0);
        assert_eq!(r.bits(5), Ok(0));
        assert_eq!(r.consume(1), Err(OutOfBits));
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
        assert_eq!(r.bit(), Ok(1));
        assert_eq!(r.bits(4), Ok(0b0110));
        assert_eq!(r.bits(11), Ok(0b111_1111_0000));
        assert_eq!(r.bits(3), Ok(0b101));
        assert_eq!(r.remaining(), 5);
        assert_eq!(r.bits(6), Err(OutOfBits));
        assert_eq!(r.bits(5), Ok(0));
        assert_eq!(r.bit(), Err(OutOfBits));
    }
}
