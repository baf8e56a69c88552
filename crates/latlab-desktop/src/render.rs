//! The server's drawing surface: a tiny-skia pixmap (RGBA) that the workloads draw on —
//! rectangles, paths and strokes through tiny-skia, text from the embedded DejaVu Sans Mono
//! font (Bitstream Vera licence) rasterized by fontdue — converted into the framebuffer's
//! depth each frame. Text is drawn without anti-aliasing (coverage ≥ ½ is ink), as on the
//! studies' desktops, so a glyph is two colours.

use crate::fb::{Area, Framebuffer, pixel_of};
use crate::pixels::{Pixels, SharedPixels};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tiny_skia::{FillRule, Paint, PathBuilder, PixmapMut, Rect, Stroke, Transform};

/// An RGB colour.
pub type Rgb = [u8; 3];

/// The canvas.
pub struct Canvas {
    /// RGBA pixels (alpha unused: paints are opaque, drawn without anti-aliasing).
    px: Pixels,
    width: usize,
    height: usize,
    /// The area drawn on since the last conversion.
    dirty: Option<Area>,
    /// The glyphs this canvas drew, from [`glyph`]'s shared rasters (no lock per glyph).
    glyphs: HashMap<(char, u32), Arc<Glyph>>,
    /// Draws nothing ([`Canvas::dry`]).
    dry: bool,
}

/// A rasterized glyph: its metrics and coverage, row by row.
type Glyph = (fontdue::Metrics, Vec<u8>);
/// Every glyph rasterized in this process, by character and size (made on first use).
type Glyphs = Option<HashMap<(char, u32), Arc<Glyph>>>;

/// The embedded font, parsed once for every canvas of the process (a parse costs
/// milliseconds and megabytes: one per session would be most of a session's start).
fn font() -> &'static fontdue::Font {
    static FONT: std::sync::OnceLock<fontdue::Font> = std::sync::OnceLock::new();
    FONT.get_or_init(|| {
        fontdue::Font::from_bytes(dejavu::sans_mono::regular(), fontdue::FontSettings::default())
            .expect("the embedded font parses")
    })
}

/// The width of one character of the embedded (monospaced) font at `size` px.
pub fn advance(size: u32) -> usize {
    font().metrics('M', size as f32).advance_width.round() as usize
}

/// `ch` at `size` px, rasterized once for every canvas of the process.
fn glyph(ch: char, size: u32) -> Arc<Glyph> {
    static GLYPHS: Mutex<Glyphs> = Mutex::new(None);
    let mut all = GLYPHS.lock().unwrap_or_else(|e| e.into_inner());
    let all = all.get_or_insert_with(HashMap::new);
    all.entry((ch, size)).or_insert_with(|| Arc::new(font().rasterize(ch, size as f32))).clone()
}

fn paint(c: Rgb) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color_rgba8(c[0], c[1], c[2], 255);
    p.anti_alias = false;
    p
}

impl Canvas {
    /// A `width × height` canvas, black.
    pub fn new(width: usize, height: usize) -> Self {
        // Zero bytes are black (the alpha is never read).
        let (width, height) = (width.max(1), height.max(1));
        let px = Pixels::zeroed(width * height * 4);
        Self { px, width, height, dirty: Some(Area::new(0, 0, width, height)), glyphs: HashMap::new(), dry: false }
    }

    /// A `width × height` canvas that draws nothing (and holds no pixels): for running a
    /// workload for what it does besides pixels — a client's input script — at no cost.
    /// Sizes, advances and where text ends are as on a real canvas.
    pub fn dry(width: usize, height: usize) -> Self {
        let (width, height) = (width.max(1), height.max(1));
        Self { px: Pixels::zeroed(0), width, height, dirty: None, glyphs: HashMap::new(), dry: true }
    }

    /// A canvas showing `shared` (`width × height` RGBA, as [`Canvas::rgba`] gives it), sharing
    /// its pages until drawn on; nothing is due for conversion.
    pub fn from_shared(width: usize, height: usize, shared: &SharedPixels) -> Self {
        assert_eq!(shared.len(), width * height * 4, "the shared picture is this canvas's size");
        Self { px: Pixels::copy_of(shared), width, height, dirty: None, glyphs: HashMap::new(), dry: false }
    }

    /// The canvas's pixels, RGBA row after row (for [`SharedPixels::new`]).
    pub fn rgba(&self) -> &[u8] {
        &self.px
    }

    /// tiny-skia's view of the pixels, to draw paths on.
    fn pm(&mut self) -> PixmapMut<'_> {
        PixmapMut::from_bytes(&mut self.px, self.width as u32, self.height as u32).expect("the canvas's own size")
    }

    /// Pixels across.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Pixels down.
    pub fn height(&self) -> usize {
        self.height
    }

    fn touch(&mut self, a: Area) {
        let (w, h) = (self.width(), self.height());
        let a = Area::new(a.x.min(w), a.y.min(h), a.w.min(w - a.x.min(w)), a.h.min(h - a.y.min(h)));
        if a.is_empty() {
            return;
        }
        self.dirty = Some(match self.dirty {
            None => a,
            Some(d) => {
                let (x0, y0) = (d.x.min(a.x), d.y.min(a.y));
                let (x1, y1) = ((d.x + d.w).max(a.x + a.w), (d.y + d.h).max(a.y + a.h));
                Area::new(x0, y0, x1 - x0, y1 - y0)
            }
        });
    }

    fn touch_f(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, pad: f32) {
        let (x0, y0) = ((x0 - pad).floor().max(0.0) as usize, (y0 - pad).floor().max(0.0) as usize);
        let (x1, y1) = ((x1 + pad).ceil().max(0.0) as usize, (y1 + pad).ceil().max(0.0) as usize);
        self.touch(Area::new(x0, y0, x1.saturating_sub(x0) + 1, y1.saturating_sub(y0) + 1));
    }

    /// Fill a rectangle.
    pub fn fill(&mut self, a: Area, c: Rgb) {
        if self.dry {
            return;
        }
        self.touch(a);
        if let Some(r) = Rect::from_xywh(a.x as f32, a.y as f32, a.w as f32, a.h as f32) {
            self.pm().fill_rect(r, &paint(c), Transform::identity(), None);
        }
    }

    /// Fill a polygon (closed).
    pub fn polygon(&mut self, pts: &[(f32, f32)], c: Rgb) {
        if self.dry {
            return;
        }
        let xs = pts.iter().map(|p| p.0);
        let ys = pts.iter().map(|p| p.1);
        let (x0, x1) = (xs.clone().fold(f32::MAX, f32::min), xs.fold(f32::MIN, f32::max));
        let (y0, y1) = (ys.clone().fold(f32::MAX, f32::min), ys.fold(f32::MIN, f32::max));
        self.touch_f(x0, y0, x1, y1, 2.0);
        let mut pb = PathBuilder::new();
        for (i, &(x, y)) in pts.iter().enumerate() {
            if i == 0 { pb.move_to(x, y) } else { pb.line_to(x, y) }
        }
        pb.close();
        if let Some(path) = pb.finish() {
            self.pm().fill_path(&path, &paint(c), FillRule::Winding, Transform::identity(), None);
        }
    }

    /// Fill a circle.
    pub fn circle(&mut self, cx: f32, cy: f32, r: f32, c: Rgb) {
        if self.dry {
            return;
        }
        self.touch_f(cx - r, cy - r, cx + r, cy + r, 2.0);
        if let Some(path) = PathBuilder::from_circle(cx, cy, r) {
            self.pm().fill_path(&path, &paint(c), FillRule::Winding, Transform::identity(), None);
        }
    }

    /// Stroke a cubic Bézier curve.
    pub fn bezier(&mut self, p: [(f32, f32); 4], width: f32, c: Rgb) {
        if self.dry {
            return;
        }
        let (x0, x1) = (p.iter().map(|q| q.0).fold(f32::MAX, f32::min), p.iter().map(|q| q.0).fold(f32::MIN, f32::max));
        let (y0, y1) = (p.iter().map(|q| q.1).fold(f32::MAX, f32::min), p.iter().map(|q| q.1).fold(f32::MIN, f32::max));
        self.touch_f(x0, y0, x1, y1, width + 2.0);
        let mut pb = PathBuilder::new();
        pb.move_to(p[0].0, p[0].1);
        pb.cubic_to(p[1].0, p[1].1, p[2].0, p[2].1, p[3].0, p[3].1);
        if let Some(path) = pb.finish() {
            let s = Stroke { width, ..Stroke::default() };
            self.pm().stroke_path(&path, &paint(c), &s, Transform::identity(), None);
        }
    }

    /// Copy the `dst`-sized area at (`sx`, `sy`) to `dst` (overlap allowed): a scroll.
    pub fn copy(&mut self, dst: Area, sx: usize, sy: usize) {
        if self.dry {
            return;
        }
        self.touch(dst);
        let (w, h) = (self.width(), self.height());
        let cw = dst.w.min(w.saturating_sub(dst.x)).min(w.saturating_sub(sx));
        let ch = dst.h.min(h.saturating_sub(dst.y)).min(h.saturating_sub(sy));
        let data = &mut self.px[..];
        let rows: Vec<usize> = if sy < dst.y { (0..ch).rev().collect() } else { (0..ch).collect() };
        for r in rows {
            let from = ((sy + r) * w + sx) * 4;
            let to = ((dst.y + r) * w + dst.x) * 4;
            data.copy_within(from..from + cw * 4, to);
        }
    }

    /// Put a picture: `dst` takes the `dst`-sized area at (`sx`, `sy`) of `src`, an opaque
    /// RGBA image `src_w` pixels wide (as an application's StretchDIBits would).
    pub fn image(&mut self, dst: Area, src: &[u8], src_w: usize, sx: usize, sy: usize) {
        if self.dry {
            return;
        }
        let (w, h) = (self.width(), self.height());
        let src_h = src.len() / (src_w * 4).max(1);
        let cw = dst.w.min(w.saturating_sub(dst.x)).min(src_w.saturating_sub(sx));
        let ch = dst.h.min(h.saturating_sub(dst.y)).min(src_h.saturating_sub(sy));
        self.touch(Area::new(dst.x, dst.y, cw, ch));
        let data = &mut self.px[..];
        for r in 0..ch {
            let from = ((sy + r) * src_w + sx) * 4;
            let to = ((dst.y + r) * w + dst.x) * 4;
            data[to..to + cw * 4].copy_from_slice(&src[from..from + cw * 4]);
        }
    }

    /// Width of `text` at `size` pixels (monospaced).
    pub fn advance(&mut self, size: u32) -> usize {
        advance(size)
    }

    /// Draw `text` with its baseline at `y`, from `x`, inside `clip`; returns the x after it.
    pub fn text(&mut self, x: i64, y: i64, text: &str, size: u32, c: Rgb, clip: Area) -> i64 {
        let adv = self.advance(size) as i64;
        let mut pen = x;
        // The glyphs' boxes within the clip: what the text changed (a key's glyph, not the page).
        let mut drawn: Option<(i64, i64, i64, i64)> = None;
        let (w, h) = (self.width() as i64, self.height() as i64);
        let (cx0, cy0) = (clip.x as i64, clip.y as i64);
        let (cx1, cy1) = ((clip.x + clip.w) as i64, (clip.y + clip.h) as i64);
        for ch in text.chars() {
            if pen >= cx1 {
                break;
            }
            if self.dry {
                pen += adv;
                continue;
            }
            if pen + adv > cx0 && ch != ' ' {
                let g = self.glyphs.entry((ch, size)).or_insert_with(|| glyph(ch, size)).clone();
                let (m, mask) = (&g.0, &g.1);
                let gx = pen + m.xmin as i64;
                let gy = y - m.height as i64 - m.ymin as i64;
                let (x0, y0) = (gx.max(cx0).max(0), gy.max(cy0).max(0));
                let (x1, y1) = ((gx + m.width as i64).min(cx1).min(w), (gy + m.height as i64).min(cy1).min(h));
                if x0 < x1 && y0 < y1 {
                    drawn = Some(match drawn {
                        None => (x0, y0, x1, y1),
                        Some((a, b, c, d)) => (a.min(x0), b.min(y0), c.max(x1), d.max(y1)),
                    });
                }
                let data = &mut self.px[..];
                for r in 0..m.height as i64 {
                    let py = gy + r;
                    if py < cy0.max(0) || py >= cy1.min(h) {
                        continue;
                    }
                    for col in 0..m.width as i64 {
                        let px = gx + col;
                        if px < cx0.max(0) || px >= cx1.min(w) || mask[(r * m.width as i64 + col) as usize] < 128 {
                            continue;
                        }
                        let at = ((py * w + px) * 4) as usize;
                        data[at..at + 4].copy_from_slice(&[c[0], c[1], c[2], 255]);
                    }
                }
            }
            pen += adv;
        }
        if let Some((x0, y0, x1, y1)) = drawn {
            self.touch(Area::new(x0 as usize, y0 as usize, (x1 - x0) as usize, (y1 - y0) as usize));
        }
        pen
    }

    /// Draw the whole screen's text at full clip.
    pub fn full(&self) -> Area {
        Area::new(0, 0, self.width(), self.height())
    }

    /// Have the next [`Canvas::to_fb`] convert `a` again (damage not sent yet).
    pub fn mark(&mut self, a: Area) {
        self.touch(a);
    }

    /// Have the next [`Canvas::to_fb`] convert the whole canvas (into a new framebuffer).
    pub fn touch_all(&mut self) {
        let all = self.full();
        self.touch(all);
    }

    /// `a`'s pixels as 32-bit BGRX, rows top to bottom, into `out` (replaced): RDPGFX's
    /// XRGB surface format in memory order.
    pub fn read_bgrx(&self, a: Area, out: &mut Vec<u8>) {
        out.clear();
        let w = self.width();
        let data = &self.px[..];
        for y in a.y..a.y + a.h {
            for px in data[(y * w + a.x) * 4..(y * w + a.x + a.w) * 4].chunks_exact(4) {
                out.extend_from_slice(&[px[2], px[1], px[0], 0xFF]);
            }
        }
    }

    /// Convert what was drawn since the last call into `fb` (same size) at its depth;
    /// false when nothing was drawn.
    pub fn to_fb(&mut self, fb: &mut Framebuffer) -> bool {
        self.to_fb_area(fb).is_some()
    }

    /// [`Canvas::to_fb`], returning the area converted.
    pub fn to_fb_area(&mut self, fb: &mut Framebuffer) -> Option<Area> {
        if self.dry {
            return None;
        }
        let d = self.dirty.take()?;
        let ps = fb.ps;
        let w = self.width();
        let data = &self.px[..];
        for y in d.y..d.y + d.h {
            let src = &data[(y * w + d.x) * 4..(y * w + d.x + d.w) * 4];
            let dst = &mut fb.data[(y * w + d.x) * ps..(y * w + d.x + d.w) * ps];
            // One loop per pixel size, so each pixel's copy has a size known when compiled.
            fn convert<const N: usize>(src: &[u8], dst: &mut [u8], bpp: u32) {
                for (px, out) in src.chunks_exact(4).zip(dst.chunks_exact_mut(N)) {
                    let v = pixel_of(bpp, px[0], px[1], px[2]).to_le_bytes();
                    out.copy_from_slice(&v[..N]);
                }
            }
            match ps {
                1 => convert::<1>(src, dst, fb.bpp),
                2 => convert::<2>(src, dst, fb.bpp),
                3 => convert::<3>(src, dst, fb.bpp),
                _ => convert::<4>(src, dst, fb.bpp),
            }
        }
        Some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_two_coloured_and_clipped() {
        let mut c = Canvas::new(64, 32);
        c.fill(c.full(), [255, 255, 255]);
        let end = c.text(2, 20, "Hi", 14, [0, 0, 0], Area::new(0, 0, 64, 32));
        assert!(end > 2);
        let mut fb = Framebuffer::new(64, 32, 16);
        c.to_fb(&mut fb);
        let colours: std::collections::HashSet<&[u8]> = fb.data.chunks(2).collect();
        assert_eq!(colours.len(), 2, "ink and paper only");
        // Text clipped to an empty area draws nothing.
        let mut d = Canvas::new(64, 32);
        d.fill(d.full(), [255, 255, 255]);
        d.text(2, 20, "Hi", 14, [0, 0, 0], Area::new(0, 0, 0, 0));
        let mut fb2 = Framebuffer::new(64, 32, 16);
        d.to_fb(&mut fb2);
        assert!(fb2.solid(Area::new(0, 0, 64, 32)).is_some());
    }
}
