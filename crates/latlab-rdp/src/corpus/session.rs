//! The `session` corpus: the PDUs a server sends during a simulated 1024×768, 16 bpp office
//! session — typing, menus, scrolling, windows repainted as interleaved-RLE bitmap updates,
//! a desktop of icons — encoded with this crate's own order, cache and RLE encoders
//! (provenance: this file; the font, words and pictures are generated from the seed).
//!
//! Each PDU is the payload bulk compression sees: a TS_UPDATE_ORDERS body (updateType,
//! padding, numberOrders, padding, then primary and Cache Bitmap Revision 2 orders, MS-RDPBCGR
//! 2.2.9.1.1.3.1.1 with MS-RDPEGDI 2.2.2.2) or a TS_UPDATE_BITMAP_DATA
//! ([`crate::bitmap::encode_bitmap_update`]). The primary-order state persists across PDUs,
//! as on a connection. What shapes the bytes: glyphs go to the client once and are then drawn
//! by MemBlt (small, repetitive orders), and bitmaps are RLE-compressed before bulk
//! compression sees them.

use super::Gen;
use crate::bitmap::BitmapRect;
use crate::orders::{CacheBitmapRev2, PrimaryOrder, Rect};
use crate::updates::UpdateBuilder;

const SCREEN_W: i32 = 1024;
const SCREEN_H: i32 = 768;
const GLYPH_W: i32 = 8;
const GLYPH_H: i32 = 16;
const LINE_H: i32 = 18;
/// Bitmap-update tiles, as servers cut damage (and the bitmap cache's largest common cell).
const TILE: i32 = 64;
/// Letters by English frequency, most frequent first, for the word generator.
const LETTERS: &[u8] = b"etaoinshrdlcumwfgypbvkjxqz";

const WHITE: u16 = 0xFFFF;
const BLACK: u16 = 0x0000;
const GREY: u16 = 0xC618;
const DARK: u16 = 0x4208;
const DESKTOP: u16 = 0x0410;
const HIGHLIGHT: u16 = 0x0010;

fn rgb565(r: u32, g: u32, b: u32) -> u16 {
    ((r.min(255) >> 3) << 11 | (g.min(255) >> 2) << 5 | b.min(255) >> 3) as u16
}

/// Colour bytes of an OpaqueRect at 16 bpp: the pixel value, little-endian, in red and green.
fn order_color(c: u16) -> [u8; 3] {
    let b = c.to_le_bytes();
    [b[0], b[1], 0]
}

mod desk;
use desk::{Desk, GLYPHS, Win, glyph_of, rect};

/// The session: the desktop, what the client has cached, the typing cursor.
struct Session {
    g: Gen,
    desk: Desk,
    out: UpdateBuilder,
    /// Glyph cells sent: cache 0 (normal text), cache 1 (highlighted menu text).
    sent: [[bool; GLYPHS]; 2],
    icons_sent: [bool; 14],
    cursor: (i32, i32),
    typed: Vec<u8>,
}

impl Session {
    /// Pixels of a `w`×`h` area at (`x`, `y`), bottom-up, 16 bpp little-endian.
    fn grab(&mut self, x: i32, y: i32, w: i32, h: i32) -> Vec<u8> {
        let mut v = Vec::with_capacity((w * h * 2) as usize);
        for yy in (y..y + h).rev() {
            for xx in x..x + w {
                v.extend_from_slice(&self.desk.pixel(xx, yy).to_le_bytes());
            }
        }
        v
    }

    fn rle_or_raw(raw: Vec<u8>, w: i32, h: i32) -> (Option<bool>, Vec<u8>) {
        match crate::rle::encode(&raw, w as usize, h as usize, 16) {
            Ok(e) if e.len() < raw.len() => (Some(false), e),
            _ => (None, raw),
        }
    }

    /// Draw `text` at (`x`, `y`) by MemBlt from the glyph cache, sending missing glyphs.
    fn text(&mut self, text: &[u8], x: i32, y: i32, highlighted: bool) {
        let cache = usize::from(highlighted);
        let (fg, bg) = if highlighted { (WHITE, HIGHLIGHT) } else { (BLACK, WHITE) };
        for (i, &c) in text.iter().enumerate() {
            let gi = glyph_of(c);
            if gi == 0 {
                continue;
            }
            if !self.sent[cache][gi] {
                self.sent[cache][gi] = true;
                let mut raw = Vec::with_capacity((GLYPH_W * GLYPH_H * 2) as usize);
                for gy in (0..GLYPH_H).rev() {
                    for gx in 0..GLYPH_W {
                        let px = if self.desk.glyph_bit(c, gx, gy) { fg } else { bg };
                        raw.extend_from_slice(&px.to_le_bytes());
                    }
                }
                self.cache_cell(cache as u8, gi as u16, raw, GLYPH_W, GLYPH_H);
            }
            self.mem_blt(cache as u16, gi as u16, x + i as i32 * GLYPH_W, y, GLYPH_W, GLYPH_H);
        }
    }

    /// A Cache Bitmap Rev. 2 order filling cell `index` of cache `cache_id` with `raw`.
    fn cache_cell(&mut self, cache_id: u8, index: u16, raw: Vec<u8>, w: i32, h: i32) {
        let (compressed, data) = Self::rle_or_raw(raw, w, h);
        let order = CacheBitmapRev2 {
            cache_id,
            bpp: 16,
            cache_index: index,
            width: w as u16,
            height: h as u16,
            key: None,
            do_not_cache: false,
            compressed,
            data,
        }
        .encode()
        .expect("a small cell encodes");
        self.out.secondary(&order);
    }

    /// Copy a whole cached cell to (`x`, `y`).
    fn mem_blt(&mut self, cache_id: u16, index: u16, x: i32, y: i32, w: i32, h: i32) {
        self.out.primary(&PrimaryOrder::MemBlt {
            cache_id,
            rect: rect(x, y, w, h),
            rop: 0xCC,
            src: (0, 0),
            cache_index: index,
        });
    }

    /// Repaint an area as RLE bitmap tiles (window opened, moved or uncovered).
    fn repaint(&mut self, x: i32, y: i32, w: i32, h: i32) {
        let (x0, y0) = (x.max(0), y.max(0));
        let (x1, y1) = ((x + w).min(SCREEN_W), (y + h).min(SCREEN_H));
        let mut ty = y0;
        while ty < y1 {
            let th = TILE.min(y1 - ty);
            let mut tx = x0;
            while tx < x1 {
                let vis = TILE.min(x1 - tx);
                // Compressed bitmaps are a multiple of 4 pixels wide; the padding is cut by dest.
                let tw = (vis + 3) & !3;
                let raw = self.grab(tx, ty, tw, th);
                let (compressed, data) = Self::rle_or_raw(raw, tw, th);
                self.out.rect(BitmapRect {
                    dest: [tx as u16, ty as u16, (tx + vis - 1) as u16, (ty + th - 1) as u16],
                    width: tw as u16,
                    height: th as u16,
                    bpp: 16,
                    compressed,
                    data,
                });
                tx += TILE;
            }
            ty += TILE;
        }
    }

    fn type_keys(&mut self) {
        let n = 1 + self.g.below(4) as usize;
        for _ in 0..n {
            if self.typed.is_empty() {
                let mut w = self.desk.word(&mut self.g).to_vec();
                w.push(b' ');
                self.typed = w;
            }
            let c = self.typed.remove(0);
            let (bx, by, bw, bh) = self.desk.wins[0].body();
            let (cx, cy) = self.cursor;
            if c != b' ' {
                self.text(&[c], bx + cx * GLYPH_W, by + cy * LINE_H + 1, false);
            } else {
                self.out.primary(&PrimaryOrder::OpaqueRect {
                    rect: rect(bx + cx * GLYPH_W, by + cy * LINE_H + 1, GLYPH_W, GLYPH_H),
                    color: order_color(WHITE),
                });
            }
            self.cursor.0 += 1;
            if (self.cursor.0 + 1) * GLYPH_W > bw {
                self.cursor = (0, self.cursor.1 + 1);
                if (self.cursor.1 + 1) * LINE_H > bh {
                    self.cursor.1 -= 1;
                    self.scroll(0, 1);
                }
            }
            // The caret after the character.
            let (cx, cy) = self.cursor;
            self.out.primary(&PrimaryOrder::OpaqueRect {
                rect: rect(bx + cx * GLYPH_W, by + cy * LINE_H + 1, 1, GLYPH_H),
                color: order_color(BLACK),
            });
        }
        self.out.flush();
    }

    /// Scroll window `i` by `k` lines: ScrBlt, clear the exposed strip, draw the new lines.
    fn scroll(&mut self, i: usize, k: usize) {
        let (bx, by, bw, bh) = self.desk.wins[i].body();
        let visible = (bh / LINE_H) as usize;
        let k = k.min(visible);
        let dy = k as i32 * LINE_H;
        self.out.primary(&PrimaryOrder::ScrBlt {
            rect: rect(bx, by, bw, bh - dy),
            rop: 0xCC,
            src: (bx as i16, (by + dy) as i16),
        });
        self.out.primary(&PrimaryOrder::OpaqueRect { rect: rect(bx, by + bh - dy, bw, dy), color: order_color(WHITE) });
        self.desk.wins[i].top_line += k;
        let top = self.desk.wins[i].top_line;
        for j in visible - k..visible {
            let cols = (bw / GLYPH_W) as usize;
            let line: Vec<u8> = self.desk.line(top + j).iter().copied().take(cols).collect();
            self.text(&line, bx, by + j as i32 * LINE_H + 1, false);
        }
        self.out.flush();
    }

    /// Open a menu of window 0, move the highlight down it, close it (repainting beneath).
    fn menu(&mut self) {
        let w = &self.desk.wins[0];
        let (mx, my) = (w.x + 6 + 64 * self.g.below(4) as i32, w.y + 42);
        let items = 4 + self.g.below(5) as usize;
        let (mw, mh) = (150, items as i32 * 20 + 4);
        self.out.primary(&PrimaryOrder::OpaqueRect { rect: rect(mx, my, mw, mh), color: order_color(WHITE) });
        self.out.primary(&PrimaryOrder::OpaqueRect { rect: rect(mx, my, mw, 1), color: order_color(GREY) });
        self.out.primary(&PrimaryOrder::OpaqueRect { rect: rect(mx, my, 1, mh), color: order_color(GREY) });
        self.out.primary(&PrimaryOrder::OpaqueRect { rect: rect(mx + mw - 1, my, 1, mh), color: order_color(DARK) });
        self.out.primary(&PrimaryOrder::OpaqueRect { rect: rect(mx, my + mh - 1, mw, 1), color: order_color(DARK) });
        for it in 0..items {
            let label = self.desk.menu[it % self.desk.menu.len()].clone();
            self.text(&label, mx + 8, my + 4 + it as i32 * 20, false);
        }
        self.out.flush();
        let stops = 1 + self.g.below(items as u64) as usize;
        for it in 0..stops {
            let label = self.desk.menu[it % self.desk.menu.len()].clone();
            let y = my + 2 + it as i32 * 20;
            self.out.primary(&PrimaryOrder::OpaqueRect {
                rect: rect(mx + 2, y, mw - 4, 20),
                color: order_color(HIGHLIGHT),
            });
            self.text(&label, mx + 8, y + 2, true);
            if it > 0 {
                let prev = self.desk.menu[(it - 1) % self.desk.menu.len()].clone();
                let py = y - 20;
                self.out.primary(&PrimaryOrder::OpaqueRect {
                    rect: rect(mx + 2, py, mw - 4, 20),
                    color: order_color(WHITE),
                });
                self.text(&prev, mx + 8, py + 2, false);
            }
            self.out.flush();
        }
        self.repaint(mx, my, mw, mh);
        self.out.flush();
    }

    /// Move a window: ScrBlt it to its new place (bringing it to the front), then repaint
    /// what it uncovered as bitmap tiles.
    fn move_window(&mut self) {
        let i = self.g.below(self.desk.wins.len() as u64) as usize;
        let w = &self.desk.wins[i];
        let (ox, oy, ww, wh) = (w.x, w.y, w.w, w.h);
        let nx = (ox + self.g.below(161) as i32 - 80).clamp(0, SCREEN_W - ww);
        let ny = (oy + self.g.below(121) as i32 - 60).clamp(0, SCREEN_H - wh);
        if i == 0 {
            // Window 0 is the document being typed into; it stays at the back.
            let w = &mut self.desk.wins[0];
            (w.x, w.y) = (nx, ny);
            self.repaint(nx, ny, ww, wh);
        } else {
            let win = self.desk.wins.remove(i);
            self.desk.wins.push(Win { x: nx, y: ny, ..win });
            self.out.primary(&PrimaryOrder::ScrBlt {
                rect: rect(nx, ny, ww, wh),
                rop: 0xCC,
                src: (ox as i16, oy as i16),
            });
        }
        // The old rectangle minus the new: bands above, below, left and right.
        let (top, bottom) = (ny.clamp(oy, oy + wh), (ny + wh).clamp(oy, oy + wh));
        self.repaint(ox, oy, ww, top - oy);
        self.repaint(ox, bottom, ww, oy + wh - bottom);
        let (left, right) = (nx.clamp(ox, ox + ww), (nx + ww).clamp(ox, ox + ww));
        self.repaint(ox, top, left - ox, bottom - top);
        self.repaint(right, top, ox + ww - right, bottom - top);
        self.out.flush();
    }

    /// The picture viewer shows the next picture.
    fn next_picture(&mut self) {
        let Some(i) = self.desk.wins.iter().position(|w| w.picture) else { return };
        self.desk.wins[i].top_line += 1;
        let (bx, by, bw, bh) = self.desk.wins[i].body();
        // Only what is not covered by windows in front of it.
        let front: Vec<(i32, i32, i32, i32)> = self.desk.wins[i + 1..].iter().map(|w| (w.x, w.y, w.w, w.h)).collect();
        if front.iter().any(|&(x, y, w, h)| x <= bx && y <= by && x + w >= bx + bw && y + h >= by + bh) {
            return;
        }
        self.repaint(bx, by, bw, bh);
        self.out.flush();
    }

    /// The desktop redrawn with orders: background, icons from the cache, labels.
    fn desktop(&mut self) {
        self.out.primary(&PrimaryOrder::OpaqueRect { rect: rect(0, 0, 160, SCREEN_H), color: order_color(DESKTOP) });
        for id in 0..14usize {
            let (col, row) = ((id / 7) as i32, (id % 7) as i32);
            let (x, y) = (col * 80 + 24, row * 90 + 12);
            if !self.icons_sent[id] {
                self.icons_sent[id] = true;
                let raw = self.grab(x, y, 32, 32);
                self.cache_cell(2, id as u16, raw, 32, 32);
            }
            self.mem_blt(2, id as u16, x, y, 32, 32);
        }
        self.out.flush();
        self.repaint(0, 0, 160, 640);
        self.out.flush();
    }
}

/// `n` PDUs of a simulated session from `seed`, each at most `max_len` bytes (a lone bitmap
/// tile or cache order may exceed a `max_len` below about 8 KB).
pub fn session_pdus(seed: u64, n: usize, max_len: usize) -> Vec<Vec<u8>> {
    let mut g = Gen::new(seed);
    let desk = Desk::new(&mut g, seed);
    let out = UpdateBuilder::new(max_len);
    let mut s = Session {
        g,
        desk,
        out,
        sent: [[false; GLYPHS]; 2],
        icons_sent: [false; 14],
        cursor: (0, 0),
        typed: Vec::new(),
    };
    // The session starts with the whole screen painted.
    s.repaint(0, 0, SCREEN_W, SCREEN_H);
    s.out.flush();
    while s.out.pdus().len() < n {
        match s.g.below(100) {
            0..=49 => s.type_keys(),
            50..=64 => s.menu(),
            65..=79 => {
                let docs: Vec<usize> = (0..s.desk.wins.len()).filter(|&i| !s.desk.wins[i].picture).collect();
                let i = docs[s.g.below(docs.len() as u64) as usize];
                let k = 1 + s.g.below(3) as usize;
                s.scroll(i, k);
            }
            80..=89 => s.move_window(),
            90..=94 => s.next_picture(),
            _ => s.desktop(),
        }
    }
    let mut pdus = s.out.take();
    pdus.truncate(n);
    pdus
}

#[cfg(test)]
mod tests;
