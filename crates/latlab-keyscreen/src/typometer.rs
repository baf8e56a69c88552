//! Keystroke-to-screen detection by pixels (typometer's method), for `display latency`
//!: a key counts as shown when the cell where its glyph must appear first holds a
//! pixel that is not the background, on the client's framebuffer after a blit. Nothing the
//! protocol carries tags the key; keys whose pixels never appear are counted, not dropped.
//!
//! On a real server's screen (`--rdp`) the background is not known and a caret may blink in
//! the next cell: there a cell holds a glyph when it is not one colour (an empty cell and a
//! block caret are) and is not the caret as [`learn_cells`] saw it, and the cells themselves
//! are found from where the first keys drew ([`learn_cells`]).

use latlab_desktop::fb::{Area, Framebuffer};
use std::collections::VecDeque;

/// One key waiting to be seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Expected {
    key: u64,
    cell: Area,
    intended_ns: u64,
}

/// A key seen on the screen: which, and how long after its intended send time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    /// The key's number, in typing order.
    pub key: u64,
    /// From the key's intended send time to the framebuffer check that found it, ns.
    pub latency_ns: u64,
}

/// What counts as a glyph in a cell.
#[derive(Debug)]
enum Ink {
    /// Any pixel but this background.
    Background(u32),
    /// More than one colour, and not the caret's pixels.
    Mixed { caret: Vec<u8>, scratch: Vec<u8> },
}

/// Where typing draws on a real screen, found from the first keys: the cell of the first key,
/// and the advance to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cells {
    /// The first key's cell.
    pub first: Area,
    /// Pixels from one cell to the next (the cell's width).
    pub advance: usize,
}

impl Cells {
    /// The cell of the `i`-th key after the first.
    pub fn cell(&self, i: usize) -> Area {
        Area::new(self.first.x + i * self.advance, self.first.y, self.advance, self.first.h)
    }

    /// How many cells fit on the line, keeping one for the caret.
    pub fn per_line(&self, width: usize) -> usize {
        ((width.saturating_sub(self.first.x)) / self.advance.max(1)).saturating_sub(1)
    }
}

/// Find the cells from three screens within `roi`: before any key, after one key and after a
/// second (each once the screen settled). Typing one key changes its cell (and the caret's
/// next cell); the second key's change starts one advance further right.
pub fn learn_cells(
    before: &Framebuffer,
    one: &Framebuffer,
    two: &Framebuffer,
    roi: Area,
) -> Result<Cells, crate::ScreenError> {
    let d1 = before.diff(one, roi).ok_or_else(|| {
        crate::ScreenError::Screen("the first key changed nothing on the screen (is a text field focused?)".into())
    })?;
    let d2 = one
        .diff(two, roi)
        .ok_or_else(|| crate::ScreenError::Screen("the second key changed nothing on the screen".into()))?;
    if d2.x <= d1.x {
        return Err(crate::ScreenError::Screen(format!(
            "typing does not move right: the first key drew at x={}, the second at x={} (right-to-left text or a              field that scrolls are not supported)",
            d1.x, d2.x
        )));
    }
    let advance = d2.x - d1.x;
    if advance > d1.w || advance < 3 || d1.h < 5 {
        return Err(crate::ScreenError::Screen(format!(
            "the changes do not look like typed glyphs: first {}x{} at ({}, {}), advance {advance} px (something              else animates here: give a region of interest)",
            d1.w, d1.h, d1.x, d1.y
        )));
    }
    Ok(Cells { first: Area::new(d1.x, d1.y, advance, d1.h), advance })
}

/// Watches the cells where typed glyphs must appear.
#[derive(Debug)]
pub struct Detector {
    ink: Ink,
    timeout_ns: u64,
    pending: VecDeque<Expected>,
    missed: u64,
}

impl Detector {
    /// A detector for a document whose background is pixel value `background`; a key not
    /// seen within `timeout_ns` of its intended time counts as missed.
    pub fn new(background: u32, timeout_ns: u64) -> Self {
        Self { ink: Ink::Background(background), timeout_ns, pending: VecDeque::new(), missed: 0 }
    }

    /// A detector for a screen whose background is not known: a cell holds a glyph when it is
    /// not one colour and not `caret` (the caret cell's pixels, as [`Framebuffer::read`] gives
    /// them).
    pub fn mixed(caret: Vec<u8>, timeout_ns: u64) -> Self {
        Self { ink: Ink::Mixed { caret, scratch: Vec::new() }, timeout_ns, pending: VecDeque::new(), missed: 0 }
    }

    /// Key `key`, meant to be sent at `intended_ns`, must draw its glyph in `cell`. Keys are
    /// expected in order of intended time, and may be expected before they are sent.
    pub fn expect(&mut self, key: u64, cell: Area, intended_ns: u64) {
        self.pending.push_back(Expected { key, cell, intended_ns });
    }

    /// Whether `cell` of `fb` holds a glyph: any pixel other than the background, or (on a
    /// real server's screen) more than one colour and not the caret.
    pub fn inked(&mut self, fb: &Framebuffer, cell: Area) -> bool {
        let c = fb.clip(cell);
        match &mut self.ink {
            Ink::Background(bg) => {
                let bg = bg.to_le_bytes();
                let bg = &bg[..fb.ps];
                (c.y..c.y + c.h).any(|y| fb.row(c.x, y, c.w).chunks_exact(fb.ps).any(|p| p != bg))
            }
            Ink::Mixed { caret, scratch } => {
                if c.is_empty() || fb.solid(c).is_some() {
                    return false;
                }
                fb.read(c, scratch);
                scratch != caret
            }
        }
    }

    /// After a blit at `now_ns`: every waiting key whose cell is inked is seen (several keys
    /// can arrive in one update); keys past their timeout are missed. Seen keys are pushed to
    /// `out` in key order.
    pub fn check(&mut self, fb: &Framebuffer, now_ns: u64, out: &mut Vec<Seen>) {
        let mut i = 0;
        while i < self.pending.len() {
            let e = self.pending[i];
            if e.intended_ns > now_ns {
                // Keys are expected in time order: the rest are not sent yet.
                break;
            }
            if self.inked(fb, e.cell) {
                out.push(Seen { key: e.key, latency_ns: now_ns.saturating_sub(e.intended_ns) });
                self.pending.remove(i);
            } else if now_ns.saturating_sub(e.intended_ns) > self.timeout_ns {
                self.missed += 1;
                self.pending.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Keys that timed out unseen.
    pub fn missed(&self) -> u64 {
        self.missed
    }

    /// Keys still waiting (at the end of a run: never seen, count them as missed).
    pub fn waiting(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BG: u32 = 0xffff; // white at 16 bpp

    fn page() -> Framebuffer {
        let mut fb = Framebuffer::new(64, 32, 16);
        fb.fill(Area::new(0, 0, 64, 32), BG);
        fb
    }

    #[test]
    fn a_glyph_appearing_is_seen_once_with_its_latency() {
        let mut fb = page();
        let mut d = Detector::new(BG, 1_000_000_000);
        let cell = Area::new(8, 4, 7, 14);
        d.expect(0, cell, 1_000);
        let mut out = Vec::new();
        d.check(&fb, 5_000, &mut out);
        assert!(out.is_empty(), "nothing drawn yet");
        // One dark pixel inside the cell is the glyph.
        fb.fill(Area::new(10, 9, 1, 1), 0);
        d.check(&fb, 9_000, &mut out);
        assert_eq!(out, vec![Seen { key: 0, latency_ns: 8_000 }]);
        d.check(&fb, 10_000, &mut out);
        assert_eq!(out.len(), 1, "a key is seen once");
        assert_eq!((d.missed(), d.waiting()), (0, 0));
    }

    #[test]
    fn a_glyph_that_never_appears_is_missed_and_ink_elsewhere_does_not_count() {
        let mut fb = page();
        let mut d = Detector::new(BG, 100_000);
        d.expect(0, Area::new(8, 4, 7, 14), 0);
        // Ink next to the cell, not in it.
        fb.fill(Area::new(15, 4, 7, 14), 0);
        let mut out = Vec::new();
        d.check(&fb, 50_000, &mut out);
        assert_eq!(d.waiting(), 1);
        d.check(&fb, 100_001, &mut out);
        assert!(out.is_empty());
        assert_eq!((d.missed(), d.waiting()), (1, 0));
    }

    #[test]
    fn keys_not_yet_sent_are_neither_seen_nor_missed() {
        let mut fb = page();
        let mut d = Detector::new(BG, 1_000);
        d.expect(0, Area::new(0, 0, 7, 14), 1_000);
        d.expect(1, Area::new(7, 0, 7, 14), 50_000);
        fb.fill(Area::new(0, 0, 14, 14), 0);
        let mut out = Vec::new();
        d.check(&fb, 1_500, &mut out);
        assert_eq!(out, vec![Seen { key: 0, latency_ns: 500 }]);
        assert_eq!((d.missed(), d.waiting()), (0, 1), "key 1 is due at 50 µs");
        d.check(&fb, 50_100, &mut out);
        assert_eq!(out[1], Seen { key: 1, latency_ns: 100 });
    }

    #[test]
    fn two_keys_in_one_update_are_both_seen_in_order() {
        let mut fb = page();
        let mut d = Detector::new(BG, 1_000_000_000);
        d.expect(0, Area::new(0, 0, 7, 14), 1_000);
        d.expect(1, Area::new(7, 0, 7, 14), 2_000);
        d.expect(2, Area::new(14, 0, 7, 14), 3_000);
        // One update draws the first two glyphs.
        fb.fill(Area::new(2, 3, 10, 1), 0);
        let mut out = Vec::new();
        d.check(&fb, 10_000, &mut out);
        assert_eq!(out, vec![Seen { key: 0, latency_ns: 9_000 }, Seen { key: 1, latency_ns: 8_000 }]);
        assert_eq!(d.waiting(), 1, "the third is still awaited");
    }

    #[test]
    fn cells_off_the_screen_are_clipped_not_a_panic() {
        let fb = page();
        let mut d = Detector::new(BG, 1);
        assert!(!d.inked(&fb, Area::new(60, 30, 20, 20)));
        assert!(!d.inked(&fb, Area::new(100, 100, 5, 5)));
    }

    /// A terminal line: dark background, a block caret, glyphs as light strokes in 6×13 cells.
    fn terminal() -> Framebuffer {
        let mut fb = Framebuffer::new(120, 40, 16);
        fb.fill(Area::new(0, 0, 120, 40), 0);
        fb
    }
    fn glyph(fb: &mut Framebuffer, cell: Area) {
        fb.fill(cell, 0);
        fb.fill(Area::new(cell.x + 1, cell.y + 2, 1, 8), 0xffff);
        fb.fill(Area::new(cell.x + 2, cell.y + 9, 3, 1), 0xffff);
    }
    fn caret(fb: &mut Framebuffer, cell: Area, on: bool) {
        fb.fill(cell, if on { 0xffff } else { 0 });
    }

    #[test]
    fn cells_are_learned_from_two_keys_and_a_blinking_caret_is_not_a_glyph() {
        let cell = |i: usize| Area::new(30 + 6 * i, 10, 6, 13);
        let mut before = terminal();
        caret(&mut before, cell(0), true);
        let mut one = before.clone();
        glyph(&mut one, cell(0));
        caret(&mut one, cell(1), true);
        let mut two = one.clone();
        glyph(&mut two, cell(1));
        caret(&mut two, cell(2), true);
        let roi = Area::new(0, 0, 120, 40);
        let cells = learn_cells(&before, &one, &two, roi).unwrap();
        assert_eq!(cells, Cells { first: cell(0), advance: 6 });
        assert_eq!(cells.cell(2), cell(2));
        assert_eq!(cells.per_line(120), (120 - 30) / 6 - 1);
        let mut caret_px = Vec::new();
        two.read(cell(2), &mut caret_px);
        let mut d = Detector::mixed(caret_px, 1_000_000);
        // The caret blinking in the cell of the next key is not the key.
        d.expect(7, cells.cell(2), 100);
        let mut out = Vec::new();
        let mut fb = two.clone();
        d.check(&fb, 200, &mut out);
        caret(&mut fb, cell(2), false);
        d.check(&fb, 300, &mut out);
        caret(&mut fb, cell(2), true);
        d.check(&fb, 400, &mut out);
        assert!(out.is_empty(), "a caret on or off is not a glyph");
        glyph(&mut fb, cell(2));
        d.check(&fb, 500, &mut out);
        assert_eq!(out, vec![Seen { key: 7, latency_ns: 400 }]);
    }

    #[test]
    fn learning_refuses_what_is_not_typing() {
        let before = terminal();
        let mut one = before.clone();
        glyph(&mut one, Area::new(30, 10, 6, 13));
        let roi = Area::new(0, 0, 120, 40);
        assert!(learn_cells(&before, &before, &one, roi).unwrap_err().to_string().contains("changed nothing"));
        assert!(learn_cells(&before, &one, &one, roi).unwrap_err().to_string().contains("second key"));
        let mut left = one.clone();
        glyph(&mut left, Area::new(10, 10, 6, 13));
        assert!(learn_cells(&before, &one, &left, roi).unwrap_err().to_string().contains("does not move right"));
        // A change far to the right is not the next cell: something else animates.
        let mut far = one.clone();
        glyph(&mut far, Area::new(100, 10, 6, 13));
        assert!(learn_cells(&before, &one, &far, roi).unwrap_err().to_string().contains("region of interest"));
    }
}
