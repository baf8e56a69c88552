//! The server's display encoder: from each new frame (and the workload's hints of
//! screen-to-screen copies) to update PDUs. It keeps a shadow of what the client shows,
//! finds the damage per 64×64 tile, and sends each damaged cell as an OpaqueRect (one
//! colour), a MemBlt from the client's cache (hit), a Cache Bitmap Rev. 2 order plus MemBlt
//! (miss), or — with orders off, the study's NPPerfTune setting — a bitmap update. Bitmaps
//! are interleaved-RLE compressed when that makes them smaller.

use crate::cache::{CELL_SIDES, CacheMirror};
use crate::fb::{Area, Framebuffer};
use crate::policy::PolicyKind;
use latlab_rdp::bitmap::BitmapRect;
use latlab_rdp::orders::{CacheBitmapRev2, PrimaryOrder, Rect};
use latlab_rdp::updates::UpdateBuilder;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// The tile damage is looked for in: the largest cell.
pub const TILE: usize = 64;

/// What the server does with damage.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EncoderConfig {
    /// Drawing orders and the bitmap cache (true), or bitmap updates only.
    pub orders: bool,
    /// Cells per cache (16×16, 32×32, 64×64).
    pub cells: [usize; 3],
    /// Eviction policy of the server's cache mirror.
    pub policy: PolicyKind,
    /// Largest update PDU, bytes.
    pub max_pdu: usize,
}

/// A screen-to-screen copy the workload did (a scroll): `dst` takes the pixels at (`sx`, `sy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyHint {
    /// Destination.
    pub dst: Area,
    /// Source left.
    pub sx: usize,
    /// Source top.
    pub sy: usize,
}

/// Counts of what the encoder sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EncoderStats {
    /// OpaqueRect orders.
    pub fills: u64,
    /// ScrBlt orders.
    pub copies: u64,
    /// MemBlt orders that needed no cache order before them.
    pub cache_hits: u64,
    /// Cache Bitmap orders sent.
    pub cache_misses: u64,
    /// Bitmap rectangles sent in bitmap updates.
    pub bitmaps: u64,
    /// Bitmap bytes before RLE (cache orders and bitmap updates).
    pub bitmap_raw_bytes: u64,
    /// Bitmap bytes after RLE.
    pub bitmap_wire_bytes: u64,
}

/// The encoder's state for one connection.
pub struct Encoder {
    cfg: EncoderConfig,
    shadow: Framebuffer,
    mirror: CacheMirror,
    out: UpdateBuilder,
    px: Vec<u8>,
    flipped: Vec<u8>,
    /// What was sent so far.
    pub stats: EncoderStats,
}

/// Rows of `px` (`w` pixels of `ps` bytes, top-down) in the wire's bottom-up order.
fn bottom_up(px: &[u8], w: usize, ps: usize, out: &mut Vec<u8>) {
    out.clear();
    for row in px.chunks_exact(w * ps).rev() {
        out.extend_from_slice(row);
    }
}

fn intersect(a: Area, b: Area) -> Option<Area> {
    let (x0, y0) = (a.x.max(b.x), a.y.max(b.y));
    let (x1, y1) = ((a.x + a.w).min(b.x + b.w), (a.y + a.h).min(b.y + b.h));
    (x1 > x0 && y1 > y0).then(|| Area::new(x0, y0, x1 - x0, y1 - y0))
}

fn union(a: Area, b: Area) -> Area {
    let (x0, y0) = (a.x.min(b.x), a.y.min(b.y));
    let (x1, y1) = ((a.x + a.w).max(b.x + b.w), (a.y + a.h).max(b.y + b.h));
    Area::new(x0, y0, x1 - x0, y1 - y0)
}

fn rect(a: Area) -> Rect {
    Rect { left: a.x as i16, top: a.y as i16, width: a.w as i16, height: a.h as i16 }
}

impl Encoder {
    /// An encoder for a `width × height` screen at `bpp`, the client starting black;
    /// `oracle` feeds the optimum (see [`CacheMirror::oracle`]).
    pub fn new(width: usize, height: usize, bpp: u32, cfg: EncoderConfig, oracle: Option<[Vec<u64>; 3]>) -> Self {
        Self {
            mirror: CacheMirror::new(cfg.policy, cfg.cells, oracle),
            out: UpdateBuilder::new(cfg.max_pdu),
            shadow: Framebuffer::new(width, height, bpp),
            cfg,
            px: Vec::new(),
            flipped: Vec::new(),
            stats: EncoderStats::default(),
        }
    }

    /// The cache mirror (hit counts, traces).
    pub fn mirror(&self) -> &CacheMirror {
        &self.mirror
    }

    /// Keep the cache mirror's reference traces, for the optimum's oracle.
    pub fn keep_traces(&mut self) {
        self.mirror.keep_traces();
    }

    /// What the client shows once it has applied every PDU so far.
    pub fn shadow(&self) -> &Framebuffer {
        &self.shadow
    }

    /// Keep `shadow` as the record of what the client shows if it is equal to it (a copy
    /// sharing its pages with other sessions'); whether it was.
    pub fn share_shadow(&mut self, shadow: Framebuffer) -> bool {
        let same = shadow == self.shadow;
        if same {
            self.shadow = shadow;
        }
        same
    }

    /// Encode `screen` after the workload's `copies`, sending the areas in `blits` whole
    /// (see [`crate::workload::FrameOut::blits`]); returns the frame's PDUs. Every tile is
    /// compared with what the client shows: [`Encoder::encode_damage`] looks only where the
    /// screen was drawn on.
    pub fn encode(&mut self, screen: &Framebuffer, copies: &[CopyHint], blits: &[Area]) -> Vec<Vec<u8>> {
        let all = Area::new(0, 0, screen.width, screen.height);
        self.encode_damage(screen, all, copies, blits)
    }

    /// [`Encoder::encode`] when `screen` changed only inside `damage` (the canvas's converted
    /// area, which holds the copies' and blits' destinations too): only the tiles it meets
    /// are compared, the same PDUs for a fraction of the work.
    pub fn encode_damage(
        &mut self,
        screen: &Framebuffer,
        damage: Area,
        copies: &[CopyHint],
        blits: &[Area],
    ) -> Vec<Vec<u8>> {
        if self.cfg.orders {
            for c in copies {
                let d = self.shadow.clip(c.dst);
                if d.is_empty() {
                    continue;
                }
                self.out.primary(&PrimaryOrder::ScrBlt { rect: rect(d), rop: 0xCC, src: (c.sx as i16, c.sy as i16) });
                self.shadow.copy_within(d, c.sx, c.sy);
                self.stats.copies += 1;
            }
        }
        // The tiles the damage, the copies and the blits meet.
        let look = copies.iter().map(|c| c.dst).chain(blits.iter().copied()).fold(screen.clip(damage), |a, b| {
            let b = screen.clip(b);
            if a.is_empty() {
                b
            } else if b.is_empty() {
                a
            } else {
                union(a, b)
            }
        });
        if look.is_empty() {
            self.out.flush();
            return self.out.take();
        }
        let (tx0, ty0) = (look.x / TILE * TILE, look.y / TILE * TILE);
        for ty in (ty0..look.y + look.h).step_by(TILE) {
            for tx in (tx0..look.x + look.w).step_by(TILE) {
                let tile = screen.clip(Area::new(tx, ty, TILE, TILE));
                let blit = blits.iter().filter_map(|b| intersect(tile, *b)).reduce(union);
                let d = screen.diff(&self.shadow, tile);
                if let Some(d) = match (d, blit) {
                    (Some(d), Some(b)) => Some(union(d, b)),
                    (d, b) => d.or(b),
                } {
                    self.send(screen, tile, d, blit.is_some());
                }
            }
        }
        self.out.flush();
        self.out.take()
    }

    /// Send the damage `d` of `tile`.
    fn send(&mut self, screen: &Framebuffer, tile: Area, d: Area, blit: bool) {
        if let Some(v) = (self.cfg.orders && !blit).then(|| screen.solid(d)).flatten() {
            let b = v.to_le_bytes();
            self.out.primary(&PrimaryOrder::OpaqueRect { rect: rect(d), color: [b[0], b[1], b[2]] });
            self.shadow.fill(d, v);
            self.stats.fills += 1;
            return;
        }
        // The smallest aligned cell of the tile that holds the damage.
        let (mut cache, mut cell) = (2, tile);
        for (i, &s) in CELL_SIDES[..2].iter().enumerate() {
            let (cx, cy) = (tile.x + (d.x - tile.x) / s * s, tile.y + (d.y - tile.y) / s * s);
            if d.x + d.w <= cx + s && d.y + d.h <= cy + s {
                (cache, cell) = (i, screen.clip(Area::new(cx, cy, s, s)));
                break;
            }
        }
        screen.read(cell, &mut self.px);
        self.shadow.blit(cell, &self.px);
        let ps = screen.ps;
        if self.cfg.orders {
            let key = xxh3_64_with_seed(&self.px, (cell.w as u64) << 16 | cell.h as u64);
            let (hit, slot) = self.mirror.caches[cache].lookup(key);
            if hit {
                self.stats.cache_hits += 1;
            } else {
                self.stats.cache_misses += 1;
                bottom_up(&self.px, cell.w, ps, &mut self.flipped);
                let (compressed, data) = self.rle(cell.w, cell.h, screen.bpp);
                let order = CacheBitmapRev2 {
                    cache_id: cache as u8,
                    bpp: screen.bpp as u8,
                    cache_index: slot,
                    width: cell.w as u16,
                    height: cell.h as u16,
                    key: None,
                    do_not_cache: false,
                    compressed,
                    data,
                };
                self.out.cache_bitmap(&order).expect("cell sizes and depths are valid for Rev. 2");
            }
            self.out.primary(&PrimaryOrder::MemBlt {
                cache_id: cache as u16,
                rect: rect(cell),
                rop: 0xCC,
                src: (0, 0),
                cache_index: slot,
            });
        } else {
            bottom_up(&self.px, cell.w, ps, &mut self.flipped);
            let (compressed, data) = self.rle(cell.w, cell.h, screen.bpp);
            self.stats.bitmaps += 1;
            self.out.rect(BitmapRect {
                dest: [cell.x as u16, cell.y as u16, (cell.x + cell.w - 1) as u16, (cell.y + cell.h - 1) as u16],
                width: cell.w as u16,
                height: cell.h as u16,
                bpp: screen.bpp as u16,
                compressed,
                data,
            });
        }
    }

    /// The bottom-up pixels in `flipped` as RLE (when smaller, and the width allows) or raw.
    fn rle(&mut self, w: usize, h: usize, bpp: u32) -> (Option<bool>, Vec<u8>) {
        self.stats.bitmap_raw_bytes += self.flipped.len() as u64;
        let out = match latlab_rdp::rle::encode(&self.flipped, w, h, bpp) {
            Ok(e) if w.is_multiple_of(4) && e.len() < self.flipped.len() => (Some(false), e),
            _ => (None, self.flipped.clone()),
        };
        self.stats.bitmap_wire_bytes += out.1.len() as u64;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editor::{Editor, scancode};
    use crate::render::Canvas;

    #[test]
    fn encoding_only_the_damage_sends_what_a_whole_screen_scan_sends() {
        let (w, h) = (320, 240);
        let cfg = crate::session::SessionConfig::standard(crate::workload::WorkloadKind::Cursor, 1000).encoder;
        let mut c = Canvas::new(w, h);
        let mut ed = Editor::new(3, w, h);
        ed.start(&mut c);
        let mut screen = Framebuffer::new(w, h, 16);
        let (mut whole, mut damage) = (Encoder::new(w, h, 16, cfg.clone(), None), Encoder::new(w, h, 16, cfg, None));
        for (i, ch) in "the quick brown fox jumps over the lazy dog".chars().enumerate() {
            if i > 0 {
                ed.key(scancode(ch).unwrap(), &mut c);
            }
            let a = c.to_fb_area(&mut screen).expect("every key draws");
            assert_eq!(damage.encode_damage(&screen, a, &[], &[]), whole.encode(&screen, &[], &[]), "key {i}");
            assert_eq!(damage.shadow(), whole.shadow());
        }
        // Nothing drawn: nothing sent.
        assert!(damage.encode_damage(&screen, Area::default(), &[], &[]).is_empty());
    }
}
