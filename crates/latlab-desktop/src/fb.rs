//! The framebuffer both ends keep: `width × height` pixels at 8, 16, 24 or 32 bpp in the
//! wire's byte layout (1, 2, 3 or 4 little-endian bytes a pixel), rows top-down, with the operations
//! the orders need (fill, copy within, blit) and a hash for the equality checks.

use crate::pixels::{Pixels, SharedPixels};
use xxhash_rust::xxh3::xxh3_64;

/// Pixels of one screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Framebuffer {
    /// Pixels across.
    pub width: usize,
    /// Pixels down.
    pub height: usize,
    /// Bits per pixel: 8 (RGB 3-3-2 palette index), 16 (RGB 5-6-5), 24 (B, G, R) or 32 (B, G,
    /// R, unused).
    pub bpp: u32,
    /// Bytes a pixel.
    pub ps: usize,
    /// The pixels, row after row from the top.
    pub data: Pixels,
}

/// An area in pixels: left, top, width, height (clipped to the screen where used).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Area {
    /// Left edge.
    pub x: usize,
    /// Top edge.
    pub y: usize,
    /// Width.
    pub w: usize,
    /// Height.
    pub h: usize,
}

impl Area {
    /// An area.
    pub const fn new(x: usize, y: usize, w: usize, h: usize) -> Self {
        Self { x, y, w, h }
    }
    /// No pixels.
    pub fn is_empty(&self) -> bool {
        self.w == 0 || self.h == 0
    }
}

/// Bytes a pixel at `bpp` (8, 16, 24 or 32), or `None`.
pub fn bytes_per_pixel(bpp: u32) -> Option<usize> {
    match bpp {
        8 => Some(1),
        16 => Some(2),
        24 => Some(3),
        32 => Some(4),
        _ => None,
    }
}

/// A colour (red, green, blue, 0–255) as a pixel value at `bpp`.
pub fn pixel_of(bpp: u32, r: u8, g: u8, b: u8) -> u32 {
    let (r, g, b) = (r as u32, g as u32, b as u32);
    match bpp {
        8 => (r >> 5) << 5 | (g >> 5) << 2 | b >> 6,
        16 => (r >> 3) << 11 | (g >> 2) << 5 | b >> 3,
        _ => r << 16 | g << 8 | b,
    }
}

impl Framebuffer {
    /// A black screen. Panics on an unsupported depth (configurations are validated first).
    pub fn new(width: usize, height: usize, bpp: u32) -> Self {
        let ps = bytes_per_pixel(bpp).expect("8, 16, 24 or 32 bpp");
        Self { width, height, bpp, ps, data: Pixels::zeroed(width * height * ps) }
    }

    /// A screen showing `shared` (its bytes at `bpp`, `width × height`), sharing its pages
    /// until drawn on.
    pub fn from_shared(width: usize, height: usize, bpp: u32, shared: &SharedPixels) -> Self {
        let ps = bytes_per_pixel(bpp).expect("8, 16, 24 or 32 bpp");
        assert_eq!(shared.len(), width * height * ps, "the shared picture is this screen's size");
        Self { width, height, bpp, ps, data: Pixels::copy_of(shared) }
    }

    /// A black screen of 32-bit pixels (blue, green, red, unused): an X or Wayland screen as
    /// read.
    pub fn xrgb(width: usize, height: usize) -> Self {
        Self::new(width, height, 32)
    }

    /// Copy rows of pixels read from a real screen into `a` (`stride` bytes from one source row
    /// to the next; bottom-up when `y_invert`); returns whether any pixel changed.
    pub fn update(&mut self, a: Area, px: &[u8], stride: usize, y_invert: bool) -> bool {
        let a = self.clip(a);
        let len = a.w * self.ps;
        let mut changed = false;
        for r in 0..a.h {
            let sr = if y_invert { a.h - 1 - r } else { r };
            let Some(src) = px.get(sr * stride..sr * stride + len) else { break };
            let off = ((a.y + r) * self.width + a.x) * self.ps;
            let dst = &mut self.data[off..off + len];
            if dst != src {
                dst.copy_from_slice(src);
                changed = true;
            }
        }
        changed
    }

    /// `a` clipped to the screen.
    pub fn clip(&self, a: Area) -> Area {
        let x = a.x.min(self.width);
        let y = a.y.min(self.height);
        Area { x, y, w: a.w.min(self.width - x), h: a.h.min(self.height - y) }
    }

    /// Bytes of row `y` from column `x`, `w` pixels.
    #[inline]
    pub fn row(&self, x: usize, y: usize, w: usize) -> &[u8] {
        let at = (y * self.width + x) * self.ps;
        &self.data[at..at + w * self.ps]
    }

    /// Fill `a` with pixel value `v`.
    pub fn fill(&mut self, a: Area, v: u32) {
        let a = self.clip(a);
        let px = v.to_le_bytes();
        let ps = self.ps;
        for y in a.y..a.y + a.h {
            let at = (y * self.width + a.x) * ps;
            for p in self.data[at..at + a.w * ps].chunks_exact_mut(ps) {
                p.copy_from_slice(&px[..ps]);
            }
        }
    }

    /// Copy the `w × h` area at (`sx`, `sy`) to `dst` (overlap allowed, as ScrBlt).
    pub fn copy_within(&mut self, dst: Area, sx: usize, sy: usize) {
        let d = self.clip(dst);
        let w = d.w.min(self.width.saturating_sub(sx));
        let h = d.h.min(self.height.saturating_sub(sy));
        // A source right of or below the screen copies nothing (its rows' offsets would lie
        // past the pixels: a ScrBlt from a hostile stream found that).
        if w == 0 || h == 0 {
            return;
        }
        let ps = self.ps;
        let rows: Box<dyn Iterator<Item = usize>> = if sy < d.y { Box::new((0..h).rev()) } else { Box::new(0..h) };
        for r in rows {
            let from = ((sy + r) * self.width + sx) * ps;
            let to = ((d.y + r) * self.width + d.x) * ps;
            self.data.copy_within(from..from + w * ps, to);
        }
    }

    /// Write `pixels` (rows top-down, `a.w` pixels each) into `a`.
    pub fn blit(&mut self, a: Area, pixels: &[u8]) {
        let c = self.clip(a);
        let ps = self.ps;
        for r in 0..c.h {
            let src = &pixels[r * a.w * ps..r * a.w * ps + c.w * ps];
            let to = ((c.y + r) * self.width + c.x) * ps;
            self.data[to..to + c.w * ps].copy_from_slice(src);
        }
    }

    /// The pixels of `a` (clipped), rows top-down, into `out` (cleared first).
    pub fn read(&self, a: Area, out: &mut Vec<u8>) {
        let a = self.clip(a);
        out.clear();
        for y in a.y..a.y + a.h {
            out.extend_from_slice(self.row(a.x, y, a.w));
        }
    }

    /// The single pixel value covering all of `a`, if it is one colour.
    pub fn solid(&self, a: Area) -> Option<u32> {
        let a = self.clip(a);
        if a.is_empty() {
            return None;
        }
        let first = self.row(a.x, a.y, 1).to_vec();
        for y in a.y..a.y + a.h {
            if self.row(a.x, y, a.w).chunks_exact(self.ps).any(|p| p != first.as_slice()) {
                return None;
            }
        }
        let mut v = [0u8; 4];
        v[..self.ps].copy_from_slice(&first);
        Some(u32::from_le_bytes(v))
    }

    /// The screen as a binary PPM image (P6, 8 bits a channel), for a user to look at what
    /// the client decoded (`--rdp-snapshot`).
    pub fn to_ppm(&self) -> Vec<u8> {
        let mut out = format!("P6\n{} {}\n255\n", self.width, self.height).into_bytes();
        for px in self.data.chunks_exact(self.ps) {
            let v = px.iter().rev().fold(0u32, |v, &b| v << 8 | b as u32);
            let (r, g, b) = match self.bpp {
                8 => (((v >> 5) & 7) * 255 / 7, ((v >> 2) & 7) * 255 / 7, (v & 3) * 255 / 3),
                16 => (((v >> 11) & 31) * 255 / 31, ((v >> 5) & 63) * 255 / 63, (v & 31) * 255 / 31),
                _ => ((v >> 16) & 255, (v >> 8) & 255, v & 255),
            };
            out.extend_from_slice(&[r as u8, g as u8, b as u8]);
        }
        out
    }

    /// A 64-bit hash of every pixel (xxh3): equal screens give equal hashes.
    pub fn hash(&self) -> u64 {
        xxh3_64(&self.data)
    }

    /// A 64-bit hash of the pixels of `a` (clipped), row by row: equal areas give equal hashes;
    /// the whole screen's is [`Framebuffer::hash`].
    pub fn hash_area(&self, a: Area) -> u64 {
        let a = self.clip(a);
        if a.x == 0 && a.w == self.width {
            return xxh3_64(&self.data[a.y * self.width * self.ps..(a.y + a.h) * self.width * self.ps]);
        }
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        for y in a.y..a.y + a.h {
            h.update(self.row(a.x, y, a.w));
        }
        h.digest()
    }

    /// The smallest area of `a` where this screen and `other` differ, if any.
    pub fn diff(&self, other: &Framebuffer, a: Area) -> Option<Area> {
        let a = self.clip(a);
        let (mut top, mut bottom) = (usize::MAX, 0);
        let (mut left, mut right) = (usize::MAX, 0);
        for y in a.y..a.y + a.h {
            let (p, q) = (self.row(a.x, y, a.w), other.row(a.x, y, a.w));
            if p == q {
                continue;
            }
            top = top.min(y);
            bottom = y;
            let ps = self.ps;
            let first = p.chunks_exact(ps).zip(q.chunks_exact(ps)).position(|(u, v)| u != v).unwrap_or(0);
            let last = p.chunks_exact(ps).zip(q.chunks_exact(ps)).rposition(|(u, v)| u != v).unwrap_or(0);
            left = left.min(a.x + first);
            right = right.max(a.x + last);
        }
        (top != usize::MAX).then(|| Area::new(left, top, right + 1 - left, bottom + 1 - top))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_from_beyond_the_screen_copies_nothing() {
        let mut fb = Framebuffer::new(32, 48, 16);
        fb.fill(Area::new(0, 0, 32, 48), 7);
        let before = fb.hash();
        fb.copy_within(Area::new(0, 0, 8, 8), 40, 3);
        fb.copy_within(Area::new(0, 0, 8, 8), 3, 60);
        assert_eq!(fb.hash(), before);
    }

    #[test]
    fn an_areas_hash_sees_changes_inside_it_only() {
        let mut fb = Framebuffer::new(40, 30, 16);
        fb.fill(Area::new(3, 4, 10, 10), 0x1234);
        assert_eq!(fb.hash_area(Area::new(0, 0, 40, 30)), fb.hash());
        assert_eq!(fb.hash_area(Area::new(0, 0, 400, 300)), fb.hash(), "clipped to the screen");
        let a = Area::new(5, 5, 8, 6);
        let before = fb.hash_area(a);
        fb.fill(Area::new(30, 20, 2, 2), 0xFFFF);
        assert_eq!(fb.hash_area(a), before, "a change outside the area");
        fb.fill(Area::new(12, 10, 1, 1), 0xFFFF);
        assert_ne!(fb.hash_area(a), before, "a change inside it");
        assert_ne!(
            fb.hash_area(Area::new(0, 10, 40, 1)),
            Framebuffer::new(40, 30, 16).hash_area(Area::new(0, 10, 40, 1))
        );
    }

    #[test]
    fn update_copies_rows_into_place_either_way_up_and_says_whether_they_changed() {
        let mut fb = Framebuffer::xrgb(4, 3);
        let rows = Area::new(1, 1, 2, 2);
        let px: Vec<u8> = (0..16).collect();
        assert!(fb.update(rows, &px, 8, false));
        assert!(!fb.update(rows, &px, 8, false), "the same pixels again change nothing");
        assert_eq!(&fb.data[(4 + 1) * 4..(4 + 3) * 4], &px[..8]);
        assert_eq!(&fb.data[(8 + 1) * 4..(8 + 3) * 4], &px[8..]);
        assert!(fb.data[..4 * 4].iter().all(|&b| b == 0), "the row above is untouched");
        assert!(fb.update(rows, &px, 8, true));
        assert_eq!(&fb.data[(4 + 1) * 4..(4 + 3) * 4], &px[8..], "bottom-up: the last source row on top");
        // A short source stops at its end, and an area past the screen is clipped.
        assert!(!fb.update(Area::new(3, 2, 5, 5), &px[..2], 4, false));
    }

    #[test]
    fn fill_copy_blit_read_diff() {
        let mut a = Framebuffer::new(40, 30, 16);
        let b = a.clone();
        a.fill(Area::new(5, 6, 10, 4), 0x1234);
        assert_eq!(a.diff(&b, Area::new(0, 0, 40, 30)), Some(Area::new(5, 6, 10, 4)));
        assert_eq!(a.solid(Area::new(5, 6, 10, 4)), Some(0x1234));
        assert_eq!(a.solid(Area::new(4, 6, 10, 4)), None);
        // Overlapping copy down by 2 rows keeps the source's content.
        a.copy_within(Area::new(5, 8, 10, 4), 5, 6);
        assert_eq!(a.solid(Area::new(5, 6, 10, 6)), Some(0x1234));
        let mut px = Vec::new();
        a.read(Area::new(4, 6, 3, 1), &mut px);
        assert_eq!(px, [0, 0, 0x34, 0x12, 0x34, 0x12]);
        let mut c = Framebuffer::new(40, 30, 16);
        c.blit(Area::new(5, 6, 10, 6), &[0x34, 0x12].repeat(60));
        assert_eq!(c, a);
        assert_eq!(c.hash(), a.hash());
        // Clipping at the edges never panics.
        c.fill(Area::new(35, 25, 100, 100), 7);
        c.copy_within(Area::new(30, 20, 20, 20), 35, 25);
        assert_eq!(c.diff(&c.clone(), Area::new(0, 0, 99, 99)), None);
    }

    #[test]
    fn pixel_formats() {
        assert_eq!(pixel_of(16, 255, 255, 255), 0xFFFF);
        assert_eq!(pixel_of(8, 255, 0, 0), 0xE0);
        assert_eq!(pixel_of(24, 1, 2, 3), 0x010203);
        assert_eq!(pixel_of(32, 1, 2, 3).to_le_bytes(), [3, 2, 1, 0], "B, G, R, unused");
    }
}
