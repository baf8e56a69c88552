//! The typist's editor of `display latency` and `display capacity`: the document a
//! server applies each received key to (a glyph at the cursor, a fresh page on Page Down), the
//! layout both ends share so the client knows where a key's glyph must appear, the PC/AT
//! scancodes keys travel as, and the typist's script (keys at a words-per-minute rate on
//! absolute deadlines).
//!
//! The layout keeps the line below the cursor blank: entering a row clears the next one, so
//! a key's cell is always blank before the key, whatever was typed there a screen ago, and
//! pixel detection cannot mistake old ink for the new glyph (unless a key took longer than
//! a whole line of typing to show, far past any timeout).

use crate::fb::{Area, Framebuffer};
use crate::render::Canvas;
use crate::workload::{BLACK, DESKTOP, LINE_H, MENUS, PAGE_DOWN, Rng, WHITE, sentence, window};

/// Font size of the document's text, px.
const TEXT_SIZE: u32 = 12;

/// Set-1 scancodes of the characters the typist types.
const SCANCODES: [(char, u8); 27] = [
    ('a', 0x1E),
    ('b', 0x30),
    ('c', 0x2E),
    ('d', 0x20),
    ('e', 0x12),
    ('f', 0x21),
    ('g', 0x22),
    ('h', 0x23),
    ('i', 0x17),
    ('j', 0x24),
    ('k', 0x25),
    ('l', 0x26),
    ('m', 0x32),
    ('n', 0x31),
    ('o', 0x18),
    ('p', 0x19),
    ('q', 0x10),
    ('r', 0x13),
    ('s', 0x1F),
    ('t', 0x14),
    ('u', 0x16),
    ('v', 0x2F),
    ('w', 0x11),
    ('x', 0x2D),
    ('y', 0x15),
    ('z', 0x2C),
    (' ', 0x39),
];

/// The scancode of `ch`, if the typist can type it.
pub fn scancode(ch: char) -> Option<u8> {
    SCANCODES.iter().find(|p| p.0 == ch).map(|p| p.1)
}

/// The character of scancode `code`.
pub fn char_of(code: u8) -> Option<char> {
    SCANCODES.iter().find(|p| p.1 == code).map(|p| p.0)
}

/// Where text goes: the document window's body, in rows of cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    body: Area,
    rows: usize,
    cols: usize,
    adv: usize,
    row: usize,
    col: usize,
}

/// What typing one character did to the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Typed {
    /// The character's cell.
    pub cell: Area,
    /// The row to clear: the line below the cursor, when the cursor moved to a new row.
    pub clear: Option<usize>,
}

impl Layout {
    /// The layout of a `width × height` screen, with `adv` pixels a character.
    pub fn new(width: usize, height: usize, adv: usize) -> Self {
        let win = Area::new(width / 16, height / 16, width - width / 8, height - height / 8);
        let body = Area::new(win.x + 4, win.y + 42, win.w.saturating_sub(8), win.h.saturating_sub(46));
        let rows = (body.h.saturating_sub(8) / LINE_H).max(2);
        let cols = (body.w.saturating_sub(8) / adv.max(1)).max(1);
        Self { body, rows, cols, adv: adv.max(1), row: 0, col: 0 }
    }

    /// The layout of the text the server draws (its font's advance).
    pub fn for_screen(width: usize, height: usize) -> Self {
        Self::new(width, height, crate::render::advance(TEXT_SIZE))
    }

    /// Rows and columns of text.
    pub fn size(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// The document's body.
    pub fn body(&self) -> Area {
        self.body
    }

    /// A row's strip.
    pub fn row_area(&self, row: usize) -> Area {
        Area::new(self.body.x, self.body.y + 4 + row * LINE_H, self.body.w, LINE_H)
    }

    /// The cell of (`row`, `col`).
    pub fn cell(&self, row: usize, col: usize) -> Area {
        Area::new(self.body.x + 4 + col * self.adv, self.body.y + 4 + row * LINE_H, self.adv, LINE_H)
    }

    /// Where a glyph typed into `cell` is looked for: the cell without its first column, where
    /// the caret stands before the key.
    pub fn detect_area(cell: Area) -> Area {
        Area::new(cell.x + 1, cell.y, cell.w.saturating_sub(1), cell.h)
    }

    /// The cursor's cell (where the caret stands).
    pub fn cursor(&self) -> Area {
        self.cell(self.row, self.col)
    }

    /// Type one character: its cell, and the row to clear if the cursor moved on to a new row.
    pub fn type_char(&mut self) -> Typed {
        let cell = self.cursor();
        self.col += 1;
        let mut clear = None;
        if self.col == self.cols {
            self.col = 0;
            self.row = (self.row + 1) % self.rows;
            clear = Some((self.row + 1) % self.rows);
        }
        Typed { cell, clear }
    }

    /// After a new page: the cursor at the top, the first two rows blank.
    pub fn home(&mut self) {
        (self.row, self.col) = (0, 0);
    }
}

/// What a key did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyEffect {
    /// A glyph drawn in a cell.
    Glyph(Area),
    /// A space: the cursor moved, nothing to see.
    Space,
    /// A new page drawn.
    Page,
    /// A key the editor does not know.
    Ignored,
}

/// The server's document: window chrome, a body of text rows, the caret.
pub struct Editor {
    layout: Layout,
    lines: Vec<String>,
    page: usize,
}

impl Editor {
    /// An editor on a `width × height` screen; `seed` makes the document's pages.
    pub fn new(seed: u64, width: usize, height: usize) -> Self {
        let mut rng = Rng::new(seed);
        let lines = (0..400).map(|_| sentence(&mut rng, 70)).collect();
        Self { layout: Layout::for_screen(width, height), lines, page: 0 }
    }

    /// The layout (the client keeps its own copy in step).
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Draw the desktop and the empty document with its caret.
    pub fn start(&mut self, c: &mut Canvas) {
        c.fill(c.full(), DESKTOP);
        let (w, h) = (c.width(), c.height());
        let win = Area::new(w / 16, h / 16, w - w / 8, h - h / 8);
        window(c, win, "Document - latlab", &MENUS);
        self.caret(c, true);
    }

    fn caret(&self, c: &mut Canvas, on: bool) {
        let cur = self.layout.cursor();
        c.fill(Area::new(cur.x, cur.y, 1, LINE_H - 2), if on { BLACK } else { WHITE });
    }

    /// Apply the key with scancode `code` (pressed).
    pub fn key(&mut self, code: u8, c: &mut Canvas) -> KeyEffect {
        if code == PAGE_DOWN {
            self.page += 1;
            let b = self.layout.body;
            c.fill(b, WHITE);
            let (rows, _) = self.layout.size();
            for r in 2..rows {
                let line = &self.lines[(self.page * rows + r) % self.lines.len()];
                let a = self.layout.row_area(r);
                c.text(a.x as i64 + 4, (a.y + 12) as i64, line, TEXT_SIZE, BLACK, b);
            }
            self.layout.home();
            self.caret(c, true);
            return KeyEffect::Page;
        }
        let Some(ch) = char_of(code) else { return KeyEffect::Ignored };
        self.caret(c, false);
        let t = self.layout.type_char();
        if let Some(r) = t.clear {
            c.fill(self.layout.row_area(r), WHITE);
        }
        let clip = self.layout.body;
        c.text(t.cell.x as i64, (t.cell.y + 12) as i64, &ch.to_string(), TEXT_SIZE, BLACK, clip);
        self.caret(c, true);
        if ch == ' ' { KeyEffect::Space } else { KeyEffect::Glyph(t.cell) }
    }
}

/// The body's pixels right after page `page` (1, 2, …) is drawn, at `bpp`: what the client
/// waits to see after it presses Page Down. The page does not depend on what was typed.
pub fn expected_page(seed: u64, width: usize, height: usize, bpp: u32, page: usize) -> (Area, Vec<u8>) {
    let mut ed = Editor::new(seed, width, height);
    let mut c = Canvas::new(width, height);
    ed.start(&mut c);
    ed.page = page.saturating_sub(1);
    ed.key(PAGE_DOWN, &mut c);
    let mut fb = Framebuffer::new(width, height, bpp);
    c.to_fb(&mut fb);
    let body = ed.layout.body;
    let mut px = Vec::new();
    fb.read(body, &mut px);
    (body, px)
}

/// One key of the typist's script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keystroke {
    /// When it is meant to be pressed, ns after the typing starts.
    pub at_ns: u64,
    /// Its scancode.
    pub code: u8,
    /// Its character.
    pub ch: char,
}

/// Time between keys at `wpm` words a minute of [`crate::defaults::CHARS_PER_WORD`]
/// characters, ns.
pub fn key_gap_ns(wpm: u32) -> u64 {
    (60e9 / (wpm.max(1) as f64 * crate::defaults::CHARS_PER_WORD)).round() as u64
}

/// The typist's script: `seconds` of words from `seed` at `wpm`, the keys spaced by `gaps`
/// about the rate's interval (as many keys as the rate gives in `seconds`).
pub fn script(seed: u64, wpm: u32, seconds: f64, gaps: crate::gaps::KeyGaps) -> Vec<Keystroke> {
    let gap = key_gap_ns(wpm);
    let n = ((seconds * 1e9) / gap as f64).floor().max(1.0) as u64;
    let mut gaps = gaps.gaps(gap);
    let mut at_ns = 0;
    let mut rng = Rng::new(seed ^ 0x7479_7069_7374);
    let mut text = String::new();
    let mut out = Vec::with_capacity(n as usize);
    for k in 0..n {
        if text.is_empty() {
            text = sentence(&mut rng, 60);
            text.push(' ');
            text = text.chars().rev().collect();
        }
        let ch = text.pop().unwrap_or(' ');
        out.push(Keystroke { at_ns, code: scancode(ch).unwrap_or(0x39), ch });
        if k + 1 < n {
            at_ns += gaps.next_ns();
        }
    }
    out
}

/// Where each key of `script` must show, in order: `Some(cell to watch)` for a glyph, `None`
/// for a space (nothing to see).
pub fn cells_of(layout: Layout, script: &[Keystroke]) -> Vec<Option<Area>> {
    let mut l = layout;
    script
        .iter()
        .map(|k| {
            let t = l.type_char();
            (k.ch != ' ').then(|| Layout::detect_area(t.cell))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fb_of(c: &mut Canvas) -> Framebuffer {
        let mut fb = Framebuffer::new(c.width(), c.height(), 16);
        c.touch_all();
        c.to_fb(&mut fb);
        fb
    }

    fn ink(fb: &Framebuffer, a: Area) -> usize {
        let white = crate::fb::pixel_of(16, 255, 255, 255).to_le_bytes();
        let a = fb.clip(a);
        (a.y..a.y + a.h).map(|y| fb.row(a.x, y, a.w).chunks_exact(2).filter(|p| *p != &white[..2]).count()).sum()
    }

    #[test]
    fn every_glyph_inks_its_cell_past_the_caret_column_and_nothing_outside_it() {
        // The premise of pixel detection: a key's glyph lands inside its cell, never in the
        // caret's column alone, never in a neighbour's cell.
        for (ch, code) in SCANCODES {
            let mut ed = Editor::new(1, 640, 480);
            let mut c = Canvas::new(640, 480);
            ed.start(&mut c);
            // Type it at the second column, so there is a neighbour on each side.
            ed.key(scancode('x').unwrap(), &mut c);
            let before = fb_of(&mut c);
            let e = ed.key(code, &mut c);
            let after = fb_of(&mut c);
            let cell = ed.layout().cell(0, 1);
            let changed = after.diff(&before, ed.layout().body()).unwrap_or_default();
            if ch == ' ' {
                assert_eq!(e, KeyEffect::Space);
                assert_eq!(ink(&after, Layout::detect_area(cell)), 0);
                continue;
            }
            assert_eq!(e, KeyEffect::Glyph(cell), "{ch}");
            assert!(ink(&after, Layout::detect_area(cell)) > 0, "'{ch}' shows in its detection area");
            // What changed: the glyph's cell, the caret moving from its column to the next
            // cell's first column, nothing else.
            assert!(changed.x >= cell.x && changed.x + changed.w <= cell.x + cell.w + 1, "'{ch}': {changed:?}");
            assert!(changed.y >= cell.y && changed.y + changed.h <= cell.y + cell.h, "'{ch}': {changed:?}");
            // The next cell's detection area stays blank (the caret is in its first column).
            assert_eq!(ink(&after, Layout::detect_area(ed.layout().cell(0, 2))), 0, "'{ch}'");
        }
    }

    #[test]
    fn the_row_below_the_cursor_is_blank_before_anything_is_typed_there() {
        let mut ed = Editor::new(3, 320, 240);
        let mut c = Canvas::new(320, 240);
        ed.start(&mut c);
        let (rows, cols) = ed.layout().size();
        let script = script(9, 100, 1e3, crate::gaps::KeyGaps::Fixed);
        let cells = cells_of(ed.layout(), &script);
        let mut checked = 0;
        // Three screens of typing: every key's area is blank just before its key.
        for (k, cell) in script.iter().zip(&cells).take(3 * rows * cols) {
            let fb = fb_of(&mut c);
            if let Some(a) = cell {
                assert_eq!(ink(&fb, *a), 0, "the cell of '{}' held ink before it was typed", k.ch);
                checked += 1;
            }
            let e = ed.key(k.code, &mut c);
            if let (KeyEffect::Glyph(g), Some(a)) = (e, cell) {
                assert_eq!(Layout::detect_area(g), *a, "both ends agree on the cell");
            }
        }
        assert!(checked > 2 * rows * cols, "{checked}");
    }

    #[test]
    fn a_page_is_what_the_client_expects_and_leaves_the_cursor_on_a_blank_row() {
        let mut ed = Editor::new(4, 480, 360);
        let mut c = Canvas::new(480, 360);
        ed.start(&mut c);
        for k in script(4, 75, 3.0, crate::gaps::KeyGaps::Fixed) {
            ed.key(k.code, &mut c);
        }
        assert_eq!(ed.key(PAGE_DOWN, &mut c), KeyEffect::Page);
        let fb = fb_of(&mut c);
        let (body, want) = expected_page(4, 480, 360, 16, 1);
        let mut got = Vec::new();
        fb.read(body, &mut got);
        assert!(got == want, "the page does not depend on what was typed");
        assert!(ink(&fb, body) > 1000, "a page of text");
        assert_eq!(ink(&fb, Layout::detect_area(ed.layout().cell(0, 0))), 0);
        // The next page differs.
        assert!(expected_page(4, 480, 360, 16, 2).1 != want);
    }

    #[test]
    fn the_script_types_at_the_rate_asked_and_every_key_has_a_scancode() {
        use crate::gaps::KeyGaps;
        let s = script(1, 75, 10.0, KeyGaps::Fixed);
        let gap = key_gap_ns(75);
        assert_eq!(gap, 151_228_733, "60 s / (75 × 5.29)");
        assert_eq!(s.len() as u64, 10_000_000_000 / gap);
        assert!(s.windows(2).all(|w| w[1].at_ns - w[0].at_ns == gap));
        // Jittered: the same keys, their gaps within the spread, the rate kept.
        let j = script(1, 75, 10.0, KeyGaps::default());
        assert_eq!(j.iter().map(|k| k.ch).collect::<String>(), s.iter().map(|k| k.ch).collect::<String>());
        assert!(j.windows(2).all(|w| (gap / 2..=gap * 3 / 2 + 1).contains(&(w[1].at_ns - w[0].at_ns))));
        let last = j.last().unwrap().at_ns as f64;
        assert!((last / s.last().unwrap().at_ns as f64 - 1.0).abs() < 0.1, "{last}");
        assert!(s.iter().all(|k| char_of(k.code) == Some(k.ch)));
        assert!(s.iter().any(|k| k.ch == ' ') && s.iter().any(|k| k.ch != ' '));
        assert_eq!(script(1, 75, 10.0, KeyGaps::Fixed), s, "seeded");
        assert_eq!(char_of(PAGE_DOWN), None);
    }
}
