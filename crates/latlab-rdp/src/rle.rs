//! Interleaved RLE bitmap codec, MS-RDPBCGR 2.2.9.1.1.3.1.2.4 (RLE_BITMAP_STREAM) with the
//! decoding rules of 3.1.9 (Interleaved RLE-Based Bitmap Compression), at 8, 15, 16 and 24 bpp.
//!
//! A stream is a sequence of compression orders. The header byte's code identifier selects:
//! regular form (3-bit code, 5-bit length: BG run 0, FG run 1, FG/BG image 2 — length in units
//! of 8 pixels —, colour run 3, colour image 4), lite form (4-bit code, 4-bit length: set-FG
//! FG run 0xC, set-FG FG/BG image 0xD, dithered run 0xE), MEGA_MEGA forms (0xF0–0xF8: the
//! length in the next two bytes, little-endian), and the special orders (0xF9 and 0xFA: eight
//! FG/BG pixels with masks 0x03 and 0x05; 0xFD one white pixel; 0xFE one black pixel). A zero
//! length field means the length is in the next byte: plus 32 (regular), plus 16 (lite), or
//! plus 1 for FG/BG images.
//!
//! Pixels are 1, 2, 2 or 3 bytes, little-endian; scanlines run bottom-up (the first scanline
//! of the stream is the bottom row), and both codec directions here keep that wire order. A
//! background pixel repeats the pixel one scanline before (black on the first scanline); a
//! foreground pixel is that pixel XOR the current foreground colour (the colour itself on the
//! first scanline), which starts white. Two BG runs in a row: the second starts with one
//! foreground pixel. Whether an order is on the first scanline is decided when the order
//! starts; leaving the first scanline clears the pending foreground pixel (3.1.9 pseudo-code).
//!
//! The encoder keeps every order of the first scanline inside it, and picks, at each pixel,
//! the cheapest of: BG run, FG run (with the current colour or a new one), colour run,
//! dithered run, FG/BG image (text and glyph rows: one bit a pixel), the special orders, and a
//! colour image for what nothing else fits.

use thiserror::Error;

/// Why a bitmap stream could not be decoded (or encoded).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RleError {
    /// Not 8, 15, 16 or 24.
    #[error("unsupported colour depth {0} bpp (8, 15, 16 or 24)")]
    Depth(u32),
    /// Zero or too many pixels.
    #[error("bitmap of {0}×{1} pixels is empty or over the {MAX_PIXELS}-pixel limit")]
    Size(usize, usize),
    /// The input bitmap is not width × height pixels.
    #[error("bitmap has {got} bytes, {want} expected")]
    Length {
        /// Bytes given.
        got: usize,
        /// Bytes expected.
        want: usize,
    },
    /// An order header that names no order.
    #[error("unknown order header {0:#04x} at byte {1}")]
    BadOrder(u8, usize),
    /// The stream ends inside an order.
    #[error("stream truncated inside the order at byte {0}")]
    Truncated(usize),
    /// A MEGA_MEGA order of length zero.
    #[error("order at byte {0} has length zero")]
    ZeroLength(usize),
    /// An order writes past the end of the bitmap.
    #[error("order at byte {0} runs past the end of the bitmap")]
    Overrun(usize),
}

/// Largest bitmap either direction handles: 16 M pixels (4096 × 4096), 48 MB at 24 bpp.
pub const MAX_PIXELS: usize = 1 << 24;

/// Bytes per pixel of a colour depth.
pub fn bytes_per_pixel(bpp: u32) -> Result<usize, RleError> {
    match bpp {
        8 => Ok(1),
        15 | 16 => Ok(2),
        24 => Ok(3),
        other => Err(RleError::Depth(other)),
    }
}

fn white(bpp: u32) -> u32 {
    match bpp {
        8 => 0xFF,
        15 => 0x7FFF,
        16 => 0xFFFF,
        _ => 0xFF_FFFF,
    }
}

// Order codes (MS-RDPBCGR 2.2.9.1.1.3.1.2.4).
const REGULAR_BG_RUN: u8 = 0x0;
const REGULAR_FG_RUN: u8 = 0x1;
const REGULAR_FGBG_IMAGE: u8 = 0x2;
const REGULAR_COLOR_RUN: u8 = 0x3;
const REGULAR_COLOR_IMAGE: u8 = 0x4;
const LITE_SET_FG_FG_RUN: u8 = 0xC;
const LITE_SET_FG_FGBG_IMAGE: u8 = 0xD;
const LITE_DITHERED_RUN: u8 = 0xE;
const MEGA_MEGA_BG_RUN: u8 = 0xF0;
const MEGA_MEGA_FG_RUN: u8 = 0xF1;
const MEGA_MEGA_FGBG_IMAGE: u8 = 0xF2;
const MEGA_MEGA_COLOR_RUN: u8 = 0xF3;
const MEGA_MEGA_COLOR_IMAGE: u8 = 0xF4;
const MEGA_MEGA_SET_FG_RUN: u8 = 0xF6;
const MEGA_MEGA_SET_FGBG_IMAGE: u8 = 0xF7;
const MEGA_MEGA_DITHERED_RUN: u8 = 0xF8;
const SPECIAL_FGBG_1: u8 = 0xF9;
const SPECIAL_FGBG_2: u8 = 0xFA;
const WHITE: u8 = 0xFD;
const BLACK: u8 = 0xFE;
const MASK_SPECIAL_FGBG_1: u8 = 0x03;
const MASK_SPECIAL_FGBG_2: u8 = 0x05;

fn check_size(width: usize, height: usize) -> Result<usize, RleError> {
    match width.checked_mul(height) {
        Some(n) if n > 0 && n <= MAX_PIXELS => Ok(n),
        _ => Err(RleError::Size(width, height)),
    }
}

/// Reads the stream; every read is bounds-checked.
struct Src<'a> {
    data: &'a [u8],
    at: usize,
    order: usize,
}

impl Src<'_> {
    #[inline]
    fn byte(&mut self) -> Result<u8, RleError> {
        let b = *self.data.get(self.at).ok_or(RleError::Truncated(self.order))?;
        self.at += 1;
        Ok(b)
    }
    #[inline]
    fn pixel(&mut self, ps: usize) -> Result<u32, RleError> {
        let s = self.data.get(self.at..self.at + ps).ok_or(RleError::Truncated(self.order))?;
        self.at += ps;
        Ok(s.iter().rev().fold(0u32, |v, &b| v << 8 | b as u32))
    }
}

/// Decode an RLE_BITMAP_STREAM of `width` × `height` pixels at `bpp` into raw scanlines in
/// wire order (bottom-up), `bytes_per_pixel` little-endian bytes a pixel. Pixels no order
/// reaches stay zero. Total: hostile input returns an error, never panics or overruns.
pub fn decode(src: &[u8], width: usize, height: usize, bpp: u32) -> Result<Vec<u8>, RleError> {
    let mut out = Vec::new();
    decode_into(src, width, height, bpp, &mut out, &mut Vec::new())?;
    Ok(out)
}

/// [`decode`] into `out` (cleared first), with `scratch` holding the pixels on the way: a
/// client decoding bitmap after bitmap allocates nothing once both have grown.
pub fn decode_into(
    src: &[u8],
    width: usize,
    height: usize,
    bpp: u32,
    out: &mut Vec<u8>,
    scratch: &mut Vec<u32>,
) -> Result<(), RleError> {
    let ps = bytes_per_pixel(bpp)?;
    let n = check_size(width, height)?;
    scratch.clear();
    scratch.resize(n, 0);
    let px = &mut scratch[..];
    decode_pixels(src, width, bpp, px)?;
    out.clear();
    out.resize(n * ps, 0);
    // Fixed-size writes per depth: no per-pixel length to dispatch on.
    match ps {
        1 => out.iter_mut().zip(px.iter()).for_each(|(o, &p)| *o = p as u8),
        2 => out.chunks_exact_mut(2).zip(px.iter()).for_each(|(o, &p)| o.copy_from_slice(&(p as u16).to_le_bytes())),
        _ => out.chunks_exact_mut(3).zip(px.iter()).for_each(|(o, &p)| {
            let b = p.to_le_bytes();
            o.copy_from_slice(&[b[0], b[1], b[2]]);
        }),
    }
    Ok(())
}

fn decode_pixels(src: &[u8], width: usize, bpp: u32, px: &mut [u32]) -> Result<(), RleError> {
    let ps = bytes_per_pixel(bpp)?;
    let n = px.len();
    let mut s = Src { data: src, at: 0, order: 0 };
    let mut d = 0usize;
    let mut fg = white(bpp);
    let mut insert_fg = false;
    let mut first_line = true;
    while s.at < src.len() {
        if first_line && d >= width {
            first_line = false;
            insert_fg = false;
        }
        s.order = s.at;
        let hdr = s.byte()?;
        let code = if hdr & 0xC0 != 0xC0 {
            hdr >> 5
        } else if hdr & 0xF0 == 0xF0 {
            hdr
        } else {
            hdr >> 4
        };
        // Run length (pixels) for the coded orders.
        let len = match code {
            REGULAR_FGBG_IMAGE => match hdr & 0x1F {
                0 => s.byte()? as usize + 1,
                l => l as usize * 8,
            },
            LITE_SET_FG_FGBG_IMAGE => match hdr & 0x0F {
                0 => s.byte()? as usize + 1,
                l => l as usize * 8,
            },
            REGULAR_BG_RUN | REGULAR_FG_RUN | REGULAR_COLOR_RUN | REGULAR_COLOR_IMAGE => match hdr & 0x1F {
                0 => s.byte()? as usize + 32,
                l => l as usize,
            },
            LITE_SET_FG_FG_RUN | LITE_DITHERED_RUN => match hdr & 0x0F {
                0 => s.byte()? as usize + 16,
                l => l as usize,
            },
            MEGA_MEGA_BG_RUN..=MEGA_MEGA_COLOR_IMAGE | MEGA_MEGA_SET_FG_RUN..=MEGA_MEGA_DITHERED_RUN => {
                let lo = s.byte()? as usize;
                match lo | (s.byte()? as usize) << 8 {
                    0 => return Err(RleError::ZeroLength(s.order)),
                    l => l,
                }
            }
            SPECIAL_FGBG_1 | SPECIAL_FGBG_2 => 8,
            WHITE | BLACK => 1,
            _ => return Err(RleError::BadOrder(hdr, s.order)),
        };
        let pixels = if matches!(code, LITE_DITHERED_RUN | MEGA_MEGA_DITHERED_RUN) { len * 2 } else { len };
        if d + pixels > n {
            return Err(RleError::Overrun(s.order));
        }
        let above = |px: &[u32], i: usize| if first_line { 0 } else { px[i - width] };
        match code {
            REGULAR_BG_RUN | MEGA_MEGA_BG_RUN => {
                let mut k = 0;
                if insert_fg && len > 0 {
                    px[d] = above(px, d) ^ fg;
                    k = 1;
                }
                for i in d + k..d + len {
                    px[i] = above(px, i);
                }
            }
            REGULAR_FG_RUN | MEGA_MEGA_FG_RUN | LITE_SET_FG_FG_RUN | MEGA_MEGA_SET_FG_RUN => {
                if matches!(code, LITE_SET_FG_FG_RUN | MEGA_MEGA_SET_FG_RUN) {
                    fg = s.pixel(ps)?;
                }
                for i in d..d + len {
                    px[i] = above(px, i) ^ fg;
                }
            }
            LITE_DITHERED_RUN | MEGA_MEGA_DITHERED_RUN => {
                let a = s.pixel(ps)?;
                let b = s.pixel(ps)?;
                for j in 0..len {
                    px[d + 2 * j] = a;
                    px[d + 2 * j + 1] = b;
                }
            }
            REGULAR_COLOR_RUN | MEGA_MEGA_COLOR_RUN => {
                let c = s.pixel(ps)?;
                px[d..d + len].fill(c);
            }
            REGULAR_FGBG_IMAGE | MEGA_MEGA_FGBG_IMAGE | LITE_SET_FG_FGBG_IMAGE | MEGA_MEGA_SET_FGBG_IMAGE => {
                if matches!(code, LITE_SET_FG_FGBG_IMAGE | MEGA_MEGA_SET_FGBG_IMAGE) {
                    fg = s.pixel(ps)?;
                }
                let mut i = d;
                while i < d + len {
                    let mask = s.byte()?;
                    for bit in 0..8.min(d + len - i) {
                        let a = above(px, i);
                        px[i] = if mask >> bit & 1 == 1 { a ^ fg } else { a };
                        i += 1;
                    }
                }
            }
            REGULAR_COLOR_IMAGE | MEGA_MEGA_COLOR_IMAGE => {
                let raw = s.data.get(s.at..s.at + len * ps).ok_or(RleError::Truncated(s.order))?;
                s.at += len * ps;
                let dst = &mut px[d..d + len];
                match ps {
                    1 => dst.iter_mut().zip(raw).for_each(|(p, &b)| *p = b as u32),
                    2 => dst
                        .iter_mut()
                        .zip(raw.chunks_exact(2))
                        .for_each(|(p, b)| *p = u16::from_le_bytes([b[0], b[1]]) as u32),
                    _ => dst
                        .iter_mut()
                        .zip(raw.chunks_exact(3))
                        .for_each(|(p, b)| *p = u32::from_le_bytes([b[0], b[1], b[2], 0])),
                }
            }
            SPECIAL_FGBG_1 | SPECIAL_FGBG_2 => {
                let mask = if code == SPECIAL_FGBG_1 { MASK_SPECIAL_FGBG_1 } else { MASK_SPECIAL_FGBG_2 };
                for bit in 0..8 {
                    let a = above(px, d + bit);
                    px[d + bit] = if mask >> bit & 1 == 1 { a ^ fg } else { a };
                }
            }
            WHITE => px[d] = white(bpp),
            _ => px[d] = 0, // BLACK
        }
        insert_fg = matches!(code, REGULAR_BG_RUN | MEGA_MEGA_BG_RUN);
        d += pixels;
    }
    Ok(())
}

/// Writes orders.
struct Enc {
    out: Vec<u8>,
    ps: usize,
}

impl Enc {
    fn pixel(&mut self, p: u32) {
        let b = p.to_le_bytes();
        match self.ps {
            1 => self.out.push(b[0]),
            2 => self.out.extend_from_slice(&[b[0], b[1]]),
            _ => self.out.extend_from_slice(&[b[0], b[1], b[2]]),
        }
    }
    /// A regular-form run order (5-bit length, else a length byte, else MEGA_MEGA).
    fn regular(&mut self, code: u8, mega: u8, len: usize) {
        match len {
            1..=31 => self.out.push(code << 5 | len as u8),
            32..=287 => self.out.extend_from_slice(&[code << 5, (len - 32) as u8]),
            _ => self.mega(mega, len),
        }
    }
    fn lite(&mut self, code: u8, mega: u8, len: usize) {
        match len {
            1..=15 => self.out.push(code << 4 | len as u8),
            16..=271 => self.out.extend_from_slice(&[code << 4, (len - 16) as u8]),
            _ => self.mega(mega, len),
        }
    }
    fn mega(&mut self, mega: u8, len: usize) {
        self.out.push(mega);
        self.out.extend_from_slice(&(len as u16).to_le_bytes());
    }
    /// An FG/BG image header (length in units of 8 when it can be, else a byte of length − 1).
    fn fgbg(&mut self, set: bool, len: usize) {
        let (code, bits, mega) = if set {
            (LITE_SET_FG_FGBG_IMAGE << 4, 0x0F, MEGA_MEGA_SET_FGBG_IMAGE)
        } else {
            (0x40, 0x1F, MEGA_MEGA_FGBG_IMAGE)
        };
        if len.is_multiple_of(8) && len / 8 <= bits {
            self.out.push(code | (len / 8) as u8);
        } else if len <= 256 {
            self.out.extend_from_slice(&[code, (len - 1) as u8]);
        } else {
            self.mega(mega, len);
        }
    }
}

/// Longest order length: the 16-bit MEGA_MEGA field.
const MAX_RUN: usize = 65535;
/// Longest FG/BG image the encoder emits (its cost rises one byte per 8 pixels; longer spans
/// are split).
const MAX_FGBG: usize = 256;

/// Encode raw scanlines in wire order (bottom-up; `bytes_per_pixel` little-endian bytes a
/// pixel) as an RLE_BITMAP_STREAM.
pub fn encode(raw: &[u8], width: usize, height: usize, bpp: u32) -> Result<Vec<u8>, RleError> {
    let ps = bytes_per_pixel(bpp)?;
    let n = check_size(width, height)?;
    if raw.len() != n * ps {
        return Err(RleError::Length { got: raw.len(), want: n * ps });
    }
    let px: Vec<u32> = raw.chunks_exact(ps).map(|c| c.iter().rev().fold(0u32, |v, &b| v << 8 | b as u32)).collect();
    Ok(encode_pixels(&px, width, bpp))
}

fn encode_pixels(px: &[u32], width: usize, bpp: u32) -> Vec<u8> {
    let ps = bytes_per_pixel(bpp).unwrap_or(3);
    let n = px.len();
    let mut e = Enc { out: Vec::with_capacity(n * ps / 4 + 16), ps };
    let mut fg = white(bpp);
    let mut last_bg = false;
    let mut p = 0usize;
    // Plain FG runs near the end: (header start, header end, length, colour); see the end.
    let mut fg_runs: Vec<(usize, usize, usize, u32)> = Vec::new();
    // Pixels waiting to go out as one colour image.
    let mut img_start = 0usize;
    let mut img_len = 0usize;
    let above = |i: usize| if i < width { 0 } else { px[i - width] };
    while p < n {
        if p == width {
            // The decoder forgets a pending BG run when it leaves the first scanline.
            last_bg = false;
        }
        // Orders never cross the end of the first scanline.
        let end = if p < width { width } else { n };
        let run_while = |f: &dyn Fn(usize) -> bool| {
            let mut l = 0;
            while p + l < end && l < MAX_RUN && f(p + l) {
                l += 1;
            }
            l
        };
        let bg = if last_bg && img_len == 0 { 0 } else { run_while(&|i| px[i] == above(i)) };
        let fgr = run_while(&|i| px[i] == above(i) ^ fg);
        let x = px[p] ^ above(p);
        let setfg = run_while(&|i| px[i] ^ above(i) == x);
        let color = run_while(&|i| px[i] == px[p]);
        let dith = {
            let (a, b) = (px[p], if p + 1 < end { px[p + 1] } else { px[p] });
            let mut l = 0;
            while p + 2 * l + 1 < end && l < MAX_RUN && px[p + 2 * l] == a && px[p + 2 * l + 1] == b {
                l += 1;
            }
            if a == b { 0 } else { l }
        };
        // An FG/BG image: with the current colour, or with the first non-background pixel's.
        let fgbg_with = |c: u32| {
            let mut l = 0;
            let mut flips = 0;
            let mut prev_bg = true;
            while p + l < end && l < MAX_FGBG {
                let i = p + l;
                let is_bg = px[i] == above(i);
                if !is_bg && px[i] != above(i) ^ c {
                    break;
                }
                flips += (is_bg != prev_bg) as usize;
                prev_bg = is_bg;
                l += 1;
            }
            (l, flips)
        };
        let new_fg = (p..end.min(p + MAX_FGBG)).find(|&i| px[i] != above(i)).map(|i| px[i] ^ above(i));
        let (fgbg_cur, flips_cur) = fgbg_with(fg);
        let (fgbg_new, flips_new) = new_fg.filter(|&c| c != fg).map_or((0, 0), fgbg_with);

        // Bytes each choice costs per pixel covered, scaled: pick the best saving over raw.
        let hdr = |l: usize| {
            if l <= 15 {
                1
            } else if l <= 271 {
                2
            } else {
                3
            }
        };
        let raw_cost = |l: usize| (l * ps) as i64;
        let mut best: (i64, u8, usize) = (0, 0, 0); // (saving, kind, len)
        fn consider(best: &mut (i64, u8, usize), saving: i64, kind: u8, len: usize) {
            if len > 0 && saving > best.0 {
                *best = (saving, kind, len);
            }
        }
        consider(&mut best, raw_cost(bg) - hdr(bg) as i64 + 1, 1, bg); // +1: prefer runs on ties
        consider(&mut best, raw_cost(fgr) - hdr(fgr) as i64, 2, fgr);
        consider(&mut best, raw_cost(setfg) - hdr(setfg) as i64 - ps as i64, 3, setfg);
        consider(&mut best, raw_cost(color) - hdr(color) as i64 - ps as i64, 4, color);
        consider(&mut best, raw_cost(2 * dith) - hdr(dith) as i64 - 2 * ps as i64, 5, dith);
        // FG/BG images pay off when the pixels flip between background and foreground often.
        if fgbg_cur >= 8 && flips_cur >= 3 {
            consider(&mut best, raw_cost(fgbg_cur) - 2 - fgbg_cur.div_ceil(8) as i64, 6, fgbg_cur);
        }
        if fgbg_new >= 8 && flips_new >= 3 {
            consider(&mut best, raw_cost(fgbg_new) - 2 - fgbg_new.div_ceil(8) as i64 - ps as i64, 7, fgbg_new);
        }
        // Single white or black pixel: one byte.
        if best.0 <= 0 && (px[p] == white(bpp) || px[p] == 0) && ps > 1 {
            consider(&mut best, ps as i64 - 1, 8, 1);
        }
        // A run or image that saves at least a pixel's worth beats extending a colour image.
        if best.0 < ps as i64 || best.2 == 0 {
            if img_len == 0 {
                img_start = p;
            }
            img_len += 1;
            p += 1;
            if img_len == MAX_RUN || p == end {
                flush_image(&mut e, px, img_start, &mut img_len);
                last_bg = false;
            }
            continue;
        }
        if img_len > 0 {
            flush_image(&mut e, px, img_start, &mut img_len);
        }
        let (_, kind, len) = best;
        match kind {
            1 => e.regular(REGULAR_BG_RUN, MEGA_MEGA_BG_RUN, len),
            2 => {
                let at = e.out.len();
                e.regular(REGULAR_FG_RUN, MEGA_MEGA_FG_RUN, len);
                if fg_runs.len() == 8 {
                    fg_runs.remove(0);
                }
                fg_runs.push((at, e.out.len(), len, fg));
            }
            3 => {
                fg = x;
                e.lite(LITE_SET_FG_FG_RUN, MEGA_MEGA_SET_FG_RUN, len);
                e.pixel(fg);
            }
            4 => {
                e.regular(REGULAR_COLOR_RUN, MEGA_MEGA_COLOR_RUN, len);
                e.pixel(px[p]);
            }
            5 => {
                e.lite(LITE_DITHERED_RUN, MEGA_MEGA_DITHERED_RUN, len);
                e.pixel(px[p]);
                e.pixel(px[p + 1]);
            }
            6 | 7 => {
                if kind == 7 {
                    fg = new_fg.unwrap_or(fg);
                }
                let bits: Vec<u8> = (0..len.div_ceil(8))
                    .map(|k| {
                        (0..8.min(len - 8 * k))
                            .map(|b| ((px[p + 8 * k + b] != above(p + 8 * k + b)) as u8) << b)
                            .sum::<u8>()
                    })
                    .collect();
                if kind == 6 && len == 8 && (bits[0] == MASK_SPECIAL_FGBG_1 || bits[0] == MASK_SPECIAL_FGBG_2) {
                    e.out.push(if bits[0] == MASK_SPECIAL_FGBG_1 { SPECIAL_FGBG_1 } else { SPECIAL_FGBG_2 });
                } else {
                    e.fgbg(kind == 7, len);
                    if kind == 7 {
                        e.pixel(fg);
                    }
                    e.out.extend_from_slice(&bits);
                }
            }
            _ => e.out.push(if px[p] == 0 { BLACK } else { WHITE }),
        }
        let pixels = if kind == 5 { 2 * len } else { len };
        last_bg = kind == 1;
        p += pixels;
    }
    if img_len > 0 {
        flush_image(&mut e, px, img_start, &mut img_len);
    }
    // Deployed decoders check for a pixel's worth of bytes after every FG run header, though
    // only the set-FG forms carry one: an FG run closer than that to the end of the stream
    // becomes the set-FG form (last first, so earlier ones only gain bytes after them).
    for &(at, hdr_end, len, colour) in fg_runs.iter().rev() {
        if e.out.len() - hdr_end < ps {
            let mut set = Enc { out: Vec::new(), ps };
            set.lite(LITE_SET_FG_FG_RUN, MEGA_MEGA_SET_FG_RUN, len);
            set.pixel(colour);
            e.out.splice(at..hdr_end, set.out);
        }
    }
    e.out
}

fn flush_image(e: &mut Enc, px: &[u32], start: usize, len: &mut usize) {
    e.regular(REGULAR_COLOR_IMAGE, MEGA_MEGA_COLOR_IMAGE, *len);
    for &p in &px[start..start + *len] {
        e.pixel(p);
    }
    *len = 0;
}

#[cfg(test)]
mod tests;
