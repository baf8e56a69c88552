//! NCRUSH's tables (MS-RDPEGDI 3.1.8.1.4): the Huffman code lengths, the canonical codes and
//! decode tables derived from them at compile time, the copy-offset and length-of-match classes,
//! and what each costs in bits.

/// Table 1 (HuffLengthLEC): bit lengths of the 294 LEC codes.
#[rustfmt::skip]
pub const HUFF_LENGTH_LEC: [u8; 294] = [
    6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, // 0
    8, 8, 9, 8, 9, 9, 9, 9, 8, 8, 9, 9, 9, 9, 9, 9, // 16
    8, 9, 9, 10, 9, 9, 9, 9, 9, 9, 9, 10, 9, 10, 10, 10, // 32
    9, 9, 10, 9, 10, 9, 10, 9, 9, 9, 10, 10, 9, 10, 9, 9, // 48
    8, 9, 9, 9, 9, 10, 10, 10, 9, 9, 10, 10, 10, 10, 10, 10, // 64
    9, 9, 10, 10, 10, 10, 10, 10, 10, 9, 10, 10, 10, 10, 10, 10, // 80
    8, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, // 96
    9, 10, 10, 10, 10, 10, 10, 10, 9, 10, 10, 10, 10, 10, 10, 9, // 112
    7, 9, 9, 10, 9, 10, 10, 10, 9, 10, 10, 10, 10, 10, 10, 10, // 128
    9, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, // 144
    10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 13, 10, 10, 10, 10, // 160
    10, 10, 11, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, // 176
    9, 10, 10, 10, 10, 10, 9, 10, 10, 10, 10, 10, 9, 10, 10, 10, // 192
    9, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, // 208
    9, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 9, 10, // 224
    8, 9, 9, 10, 9, 10, 10, 10, 9, 10, 10, 10, 9, 9, 8, 7, // 240
    13, 13, 7, 7, 10, 7, 7, 6, 6, 6, 6, 5, 6, 6, 6, 5, // 256
    6, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, // 272
    8, 5, 6, 7, 7, 13, // 288
];

/// Table 4 (HuffLengthL): bit lengths of the 32 LoM codes.
#[rustfmt::skip]
pub const HUFF_LENGTH_LOM: [u8; 32] = [
    4, 2, 3, 4, 3, 4, 4, 5, 4, 5, 5, 6, 6, 7, 7, 8,
    7, 8, 8, 9, 9, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
];

/// Table 3: extra bits and base of the 32 copy-offset classes (the table's 33rd row, base
/// 65,537, has no LEC code and is never used).
#[rustfmt::skip]
pub(super) const COPY_OFFSET_BITS: [u8; 32] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14,
];
#[rustfmt::skip]
pub(super) const COPY_OFFSET_BASE: [u32; 32] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
    4097, 6145, 8193, 12289, 16385, 24577, 32769, 49153,
];

/// Table 6: extra bits and base of the 30 LoM classes (codes 30 and 31 are unused).
#[rustfmt::skip]
pub(super) const LOM_BITS: [u8; 30] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 6, 6, 8, 8, 14, 14,
];
#[rustfmt::skip]
pub(super) const LOM_BASE: [u32; 30] = [
    2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 22, 26, 30, 34, 42, 50, 58, 66, 82, 98, 114, 130, 194, 258, 514,
    2, 2,
];

/// Longest match a LoM code can say: class 28, base 2 plus 14 extra bits.
pub(super) const MAX_LOM: usize = 2 + (1 << 14) - 1;
pub(super) const LEC_BITS: u32 = 13;
pub(super) const LOM_BITS_MAX: u32 = 9;

/// Canonical Huffman codes (per [SAYOOD] 4.2.4, as the spec says) for `lengths`, bit-reversed
/// so that writing them least-significant first sends the code's first bit first.
pub(super) const fn canonical<const N: usize>(lengths: &[u8; N]) -> [u16; N] {
    let mut codes = [0u16; N];
    let mut code: u32 = 0;
    let mut len = 1;
    while len <= 16 {
        let mut s = 0;
        while s < N {
            if lengths[s] as u32 == len {
                // Reverse `len` bits of `code`.
                let mut r = 0u32;
                let mut b = 0;
                while b < len {
                    r |= ((code >> b) & 1) << (len - 1 - b);
                    b += 1;
                }
                codes[s] = r as u16;
                code += 1;
            }
            s += 1;
        }
        code <<= 1;
        len += 1;
    }
    codes
}

/// Table 2 (HuffCodeLEC), derived.
pub const HUFF_CODE_LEC: [u16; 294] = canonical(&HUFF_LENGTH_LEC);
/// Table 5 (HuffCodeL), derived.
pub const HUFF_CODE_LOM: [u16; 32] = canonical(&HUFF_LENGTH_LOM);

/// A decoding table: for every `BITS`-bit window (next stream bits in the low bits), the
/// symbol whose code is its prefix and that code's length, packed `symbol | length << 9`.
pub(super) const fn decode_table<const N: usize, const M: usize>(lengths: &[u8; N], codes: &[u16; N]) -> [u16; M] {
    let mut t = [0u16; M];
    let mut s = 0;
    while s < N {
        let len = lengths[s] as usize;
        let step = 1usize << len;
        let mut w = codes[s] as usize;
        while w < M {
            t[w] = (s as u16) | ((len as u16) << 9);
            w += step;
        }
        s += 1;
    }
    t
}

pub(super) static LEC_TABLE: [u16; 1 << LEC_BITS] = decode_table(&HUFF_LENGTH_LEC, &HUFF_CODE_LEC);
pub(super) static LOM_TABLE: [u16; 1 << LOM_BITS_MAX] = decode_table(&HUFF_LENGTH_LOM, &HUFF_CODE_LOM);

/// [`LOM_TABLE`] with the class resolved: the length base in bits 0–15, its extra bits in
/// 16–23 (0xFF for the unused codes 30 and 31), the code's own length in 24–31. One lookup
/// instead of three per copy.
pub(super) const fn lom_decode(t: &[u16; 1 << LOM_BITS_MAX]) -> [u32; 1 << LOM_BITS_MAX] {
    let mut d = [0u32; 1 << LOM_BITS_MAX];
    let mut w = 0;
    while w < d.len() {
        let (c, len) = ((t[w] & 0x1FF) as usize, (t[w] >> 9) as u32);
        let (base, bits) = if c < LOM_BASE.len() { (LOM_BASE[c], LOM_BITS[c] as u32) } else { (0, 0xFF) };
        d[w] = base | bits << 16 | len << 24;
        w += 1;
    }
    d
}

pub(super) static LOM_DECODE: [u32; 1 << LOM_BITS_MAX] = lom_decode(&LOM_TABLE);

/// Copy-offset class (LEC code − 257) → offset base − 1 in bits 0–15, extra bits in 16–23.
pub(super) const fn offset_decode() -> [u32; 32] {
    let mut d = [0u32; 32];
    let mut c = 0;
    while c < 32 {
        d[c] = (COPY_OFFSET_BASE[c] - 1) | (COPY_OFFSET_BITS[c] as u32) << 16;
        c += 1;
    }
    d
}

pub(super) static OFFSET_DECODE: [u32; 32] = offset_decode();

/// The offset cache after a copy, as indexes into [the new offset, the cache's four]: a new
/// offset goes in front (row 0); a hit on slot k swaps it with the front (row k + 1).
pub(super) static CACHE_MOVES: [[usize; 4]; 5] = [[0, 1, 2, 3], [1, 2, 3, 4], [2, 1, 3, 4], [3, 2, 1, 4], [4, 2, 3, 1]];

/// LoM class of every length up to 769 (longer ones are class 28).
pub(super) const fn lom_classes() -> [u8; 770] {
    let mut t = [0u8; 770];
    let mut len = 2;
    while len < 770 {
        // Largest class whose base is ≤ len (bases 0..28 ascend).
        let mut c = 0;
        while c + 1 < 28 && LOM_BASE[c + 1] as usize <= len {
            c += 1;
        }
        t[len] = c as u8;
        len += 1;
    }
    t
}

pub(super) static LOM_CLASS: [u8; 770] = lom_classes();

#[inline]
pub(super) fn lom_class(len: usize) -> usize {
    if len > 769 { 28 } else { LOM_CLASS[len] as usize }
}

/// Copy-offset class of `off` (table 3): classes 0–3 are offsets 0–3; above, two classes
/// per power of two of `off`, split by the bit below the top one.
#[inline]
pub(super) fn offset_class(off: usize) -> usize {
    if off < 4 {
        return off;
    }
    let k = usize::BITS - 1 - off.leading_zeros();
    (2 * k + ((off >> (k - 1)) & 1) as u32) as usize
}

/// Bits a copy of `len` costs after its offset code.
#[inline]
pub(super) fn lom_cost(len: usize) -> u32 {
    let c = lom_class(len);
    HUFF_LENGTH_LOM[c] as u32 + LOM_BITS[c] as u32
}

#[inline]
pub(super) fn offset_cost(off: usize) -> u32 {
    let c = offset_class(off);
    HUFF_LENGTH_LEC[257 + c] as u32 + COPY_OFFSET_BITS[c] as u32
}
