//! MSB-first bit streams, as MPPC packs its codes (RFC 2118 §4; MS-RDPBCGR 3.1.8.4): the
//! first bit of a code is the most significant unwritten bit of the current byte. The reader
//! is total: reading past the end is an error, never a panic.

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

#[cfg(test)]
mod tests {
    use super::*;

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
