//! The desktop a corpus session draws on: windows, the font and words it types, and how each
//! change of the screen becomes orders and bitmaps.

use super::*;

pub(super) struct Win {
    pub(super) x: i32,
    pub(super) y: i32,
    pub(super) w: i32,
    pub(super) h: i32,
    pub(super) title: Vec<u8>,
    /// A picture viewer (photo-like body) rather than a document.
    pub(super) picture: bool,
    /// First document line shown (the picture's number in a viewer).
    pub(super) top_line: usize,
}

impl Win {
    pub(super) fn body(&self) -> (i32, i32, i32, i32) {
        (self.x + 4, self.y + 44, self.w - 26, self.h - 48)
    }
}

pub(super) struct Desk {
    pub(super) font: Vec<[u8; 16]>,
    pub(super) words: Vec<Vec<u8>>,
    pub(super) lines: Vec<Vec<u8>>,
    pub(super) wins: Vec<Win>,
    pub(super) menu: Vec<Vec<u8>>,
    pub(super) seed: u64,
}

/// Glyph index of a character: 0 space, 1–26 letters, 27–36 digits, 37.. punctuation.
pub(super) fn glyph_of(c: u8) -> usize {
    match c {
        b'a'..=b'z' => 1 + (c - b'a') as usize,
        b'A'..=b'Z' => 40 + (c - b'A') as usize,
        b'0'..=b'9' => 27 + (c - b'0') as usize,
        b'.' => 37,
        b',' => 38,
        b'-' => 39,
        _ => 0,
    }
}

pub(super) const GLYPHS: usize = 66;

fn make_font(g: &mut Gen) -> Vec<[u8; 16]> {
    (0..GLYPHS)
        .map(|i| {
            let mut rows = [0u8; 16];
            if i == 0 {
                return rows;
            }
            // Strokes inside the x-height (rows 6–12), some with ascenders or descenders.
            let (top, bottom) = match g.below(4) {
                0 => (2, 12),
                1 => (6, 15),
                _ => (6, 12),
            };
            for _ in 0..2 + g.below(3) {
                match g.below(3) {
                    0 => {
                        let c = 1 + g.below(5) as u32;
                        for r in &mut rows[top..=bottom] {
                            *r |= 0x80 >> c;
                        }
                    }
                    1 => {
                        let r = top + g.below((bottom - top + 1) as u64) as usize;
                        rows[r] |= 0x7C;
                    }
                    _ => {
                        for (k, r) in rows[6..=12].iter_mut().enumerate() {
                            let c = if k == 0 || k == 6 { 0x38 } else { 0x44 };
                            *r |= c;
                        }
                    }
                }
            }
            rows
        })
        .collect()
}

fn make_words(g: &mut Gen) -> Vec<Vec<u8>> {
    (0..400)
        .map(|_| {
            let n = 1 + g.below(4) + g.below(5);
            (0..n)
                .map(|_| {
                    // Skewed towards the frequent letters.
                    let u = g.below(1 << 16) as f64 / 65536.0;
                    LETTERS[(u * u * LETTERS.len() as f64) as usize]
                })
                .collect()
        })
        .collect()
}

impl Desk {
    pub(super) fn new(g: &mut Gen, seed: u64) -> Self {
        let font = make_font(g);
        let words = make_words(g);
        let mut d = Desk { font, words, lines: Vec::new(), wins: Vec::new(), menu: Vec::new(), seed };
        d.menu = (0..8).map(|_| d.phrase(g, 14)).collect();
        for i in 0..3 {
            let title = d.phrase(g, 30);
            d.wins.push(Win {
                x: 100 + 150 * i,
                y: 60 + 90 * i,
                w: 420 + 40 * i,
                h: 360,
                title,
                picture: i == 1,
                top_line: 0,
            });
        }
        d
    }

    /// A Zipf-like word pick: a few words are very common.
    pub(super) fn word(&self, g: &mut Gen) -> &[u8] {
        let u = g.below(1 << 20) as f64 / (1u64 << 20) as f64;
        &self.words[(u.powi(3) * self.words.len() as f64) as usize]
    }

    pub(super) fn phrase(&self, g: &mut Gen, max: usize) -> Vec<u8> {
        let mut s = Vec::new();
        loop {
            let w = self.word(g).to_vec();
            if !s.is_empty() && s.len() + 1 + w.len() > max {
                return s;
            }
            if !s.is_empty() {
                s.push(b' ');
            }
            s.extend(w);
            if s.len() >= max {
                s.truncate(max);
                return s;
            }
        }
    }

    /// Document line `k` (generated on first use, from the seed and `k`).
    pub(super) fn line(&mut self, k: usize) -> &[u8] {
        while self.lines.len() <= k {
            let mut g = Gen::new(self.seed ^ (self.lines.len() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut s = Vec::new();
            if g.below(6) != 0 {
                let len = 30 + g.below(60) as usize;
                s = self.phrase(&mut g, len);
                if s.first().is_some_and(u8::is_ascii_lowercase) {
                    s[0] = s[0].to_ascii_uppercase();
                }
                s.push(b'.');
            }
            self.lines.push(s);
        }
        &self.lines[k]
    }

    pub(super) fn glyph_bit(&self, c: u8, gx: i32, gy: i32) -> bool {
        self.font[glyph_of(c)][gy as usize] & (0x80 >> gx) != 0
    }

    pub(super) fn text_pixel(&self, text: &[u8], x: i32, y: i32, fg: u16, bg: u16) -> u16 {
        if !(0..GLYPH_H).contains(&y) || x < 0 {
            return bg;
        }
        match text.get((x / GLYPH_W) as usize) {
            Some(&c) if self.glyph_bit(c, x % GLYPH_W, y) => fg,
            _ => bg,
        }
    }

    pub(super) fn pixel(&mut self, x: i32, y: i32) -> u16 {
        for i in (0..self.wins.len()).rev() {
            let w = &self.wins[i];
            if (w.x..w.x + w.w).contains(&x) && (w.y..w.y + w.h).contains(&y) {
                return self.win_pixel(i, x - w.x, y - w.y);
            }
        }
        self.desktop_pixel(x, y)
    }

    pub(super) fn desktop_pixel(&self, x: i32, y: i32) -> u16 {
        let (col, row) = (x / 80, y / 90);
        if col < 2 && row < 7 {
            let (ix, iy) = (x % 80 - 24, y % 90 - 12);
            let id = (col * 7 + row) as u32;
            if (0..32).contains(&ix) && (0..32).contains(&iy) {
                // An icon: a shaded disc or square on the desktop.
                let (dx, dy) = (ix - 16, iy - 16);
                let inside =
                    if id.is_multiple_of(2) { dx * dx + dy * dy < 196 } else { dx.abs() < 13 && dy.abs() < 13 };
                if inside {
                    let k = (ix + iy) as u32 * 3;
                    return rgb565(60 + id * 40 % 190 + k, 80 + k, 200 - k);
                }
                return DESKTOP;
            }
            let label = &self.words[id as usize];
            return self.text_pixel(label, x % 80 - 8, y % 90 - 50, WHITE, DESKTOP);
        }
        DESKTOP
    }

    pub(super) fn win_pixel(&mut self, i: usize, rx: i32, ry: i32) -> u16 {
        let (w, h) = (self.wins[i].w, self.wins[i].h);
        if rx == 0 || ry == 0 || rx == w - 1 || ry == h - 1 {
            return DARK;
        }
        if ry < 22 {
            let bg = rgb565((rx * 16 / w) as u32, (rx * 132 / w) as u32, (128 + rx * 80 / w) as u32);
            return self.text_pixel(&self.wins[i].title, rx - 6, ry - 3, WHITE, bg);
        }
        if ry < 42 {
            let x = rx - 6;
            let item = (x / 64).max(0) as usize;
            let m = &self.menu[item % self.menu.len()];
            let text = m[..m.len().min(7)].to_vec();
            return self.text_pixel(&text, x % 64, ry - 24, BLACK, GREY);
        }
        if rx >= w - 18 {
            let thumb = (60..120).contains(&ry);
            return match (thumb, rx == w - 18 || ry == 60, ry == 119) {
                (true, true, _) => WHITE,
                (true, _, true) => DARK,
                (true, _, _) => GREY,
                _ => 0xDEFB,
            };
        }
        if self.wins[i].picture {
            // A photograph: smooth light with fine texture (sensor noise).
            let pic = self.wins[i].top_line as i32;
            let n = ((rx * 7919 + ry * 104_729 + pic * 15_485_863) as u32).wrapping_mul(2_654_435_761) >> 28;
            let (a, b) = (pic * 37 % 90, pic * 53 % 70);
            return rgb565(
                (60 + a + rx * 100 / w + n as i32 * 3) as u32,
                (40 + b + ry * 120 / h + n as i32 * 2) as u32,
                (150 - ry * 60 / h + n as i32 * 4) as u32,
            );
        }
        let (bx, by) = (rx - 4, ry - 44);
        let k = self.wins[i].top_line + (by / LINE_H) as usize;
        let line = self.line(k).to_vec();
        self.text_pixel(&line, bx, by % LINE_H - 1, BLACK, WHITE)
    }
}

pub(super) fn rect(x: i32, y: i32, w: i32, h: i32) -> Rect {
    Rect { left: x as i16, top: y as i16, width: w as i16, height: h as i16 }
}
