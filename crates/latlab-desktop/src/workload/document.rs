//! The document workloads: typing, the idle caret, scrolling and menus over one editor window.

use super::*;

#[derive(Debug, Clone, Copy)]
pub(super) enum Mode {
    Typing { wpm: u32 },
    Idle,
    Scroll,
    Menu { animated: bool },
}

pub(super) struct Document {
    rng: Rng,
    mode: Mode,
    started: bool,
    body: Area,
    lines: Vec<String>,
    /// Typing: characters typed so far on the current line, and the text to type.
    typed: usize,
    pending: String,
    line: usize,
    next_key_ms: u64,
    caret_on: bool,
    /// Scroll: first line shown.
    top: usize,
    next_ms: u64,
    /// Menu: the menu bar selected (Alt pressed), the open menu and its highlighted item.
    menu_bar: bool,
    menu: Option<(usize, usize)>,
    /// Animated menus: the quarters of the opening menu drawn so far (unfolding), if any.
    unfold: Option<usize>,
}

pub(crate) const LINE_H: usize = 16;
/// Frames an animated menu takes to slide out: four, 80 ms at 20 ms a frame (latlab's choice:
/// the seed does not time Office 97's animation). With the right arrow held, the next menu
/// replaces it after 50 ms, so a menu shows two or three of its steps, each a redraw of all
/// it shows, which is what makes the animation cost more than a menu drawn once.
const MENU_UNFOLD_STEPS: usize = 4;
/// Alt's scancode (set 1): selects the menu bar.
const ALT: u8 = 0x38;
/// The right arrow's scancode (set 1, an extended key): the next top-level menu.
const RIGHT: u8 = 0x4d;
pub(crate) const MENUS: [&str; 6] = ["File", "Edit", "View", "Insert", "Format", "Help"];

impl Document {
    pub(super) fn new(seed: u64, mode: Mode) -> Self {
        let mut rng = Rng::new(seed);
        let lines = (0..400).map(|_| sentence(&mut rng, 70)).collect();
        Self {
            rng,
            mode,
            started: false,
            body: Area::default(),
            lines,
            typed: 0,
            pending: String::new(),
            line: 0,
            next_key_ms: 0,
            caret_on: false,
            top: 0,
            next_ms: 0,
            menu_bar: false,
            menu: None,
            unfold: None,
        }
    }

    fn text_line(&mut self, c: &mut Canvas, row: usize, text: &str) {
        let b = self.body;
        let y = b.y + 4 + row * LINE_H;
        c.fill(Area::new(b.x, y, b.w, LINE_H), WHITE);
        c.text(b.x as i64 + 4, (y + 12) as i64, text, 12, BLACK, b);
    }

    /// Text rows the body shows: at least one, however small the screen (a 64×64 session's
    /// body is 10 pixels high).
    fn rows(&self) -> usize {
        (self.body.h.saturating_sub(8) / LINE_H).max(1)
    }

    fn caret(&mut self, c: &mut Canvas, on: bool) {
        let adv = c.advance(12);
        let b = self.body;
        let a = Area::new(b.x + 4 + self.typed * adv, b.y + 4 + self.line * LINE_H, 1, LINE_H - 2);
        c.fill(a, if on { BLACK } else { WHITE });
        self.caret_on = on;
    }

    fn draw_menu(&mut self, c: &mut Canvas, open: Option<(usize, usize)>) {
        self.draw_menu_part(c, open, MENU_UNFOLD_STEPS);
    }

    /// The menu as far as it has unfolded: `quarters` of [`MENU_UNFOLD_STEPS`] of its height.
    fn draw_menu_part(&mut self, c: &mut Canvas, open: Option<(usize, usize)>, steps: usize) {
        let adv = c.advance(12);
        let b = self.body;
        if let Some((m, item)) = open {
            let x = b.x + 2 + MENUS[..m].iter().map(|s| (s.len() + 2) * adv).sum::<usize>();
            let full = 8 * 18 + 4;
            let a = Area::new(x, b.y, 160, (full * steps / MENU_UNFOLD_STEPS).max(1));
            // A sliding menu shows its lower part first, moving down as it comes out: every
            // step redraws all it shows.
            let hidden = full - a.h;
            c.fill(a, GREY);
            c.fill(Area::new(a.x, a.y + a.h - 1, a.w, 1), DARK);
            c.fill(Area::new(a.x + a.w - 1, a.y, 1, a.h), DARK);
            for i in 0..8 {
                let top = 2 + i * 18;
                // Only the items the shown part reaches.
                if top + 18 <= hidden {
                    continue;
                }
                let y = a.y + top.saturating_sub(hidden);
                let h = (top + 18 - hidden.max(top)).min(18);
                let label = format!("{} {}", MENUS[m], WORDS[(m * 8 + i) % WORDS.len()]);
                let (bg, fg) = if i == item { (SELECT, WHITE) } else { (GREY, BLACK) };
                c.fill(Area::new(a.x + 2, y, a.w - 4, h.min(a.y + a.h - y)), bg);
                c.text(a.x as i64 + 8, y as i64 + 13 - (hidden.saturating_sub(top)) as i64, &label, 12, fg, a);
            }
        }
    }
}

impl Workload for Document {
    fn frame(&mut self, t: u64, c: &mut Canvas, out: &mut FrameOut) {
        if !self.started {
            self.started = true;
            c.fill(c.full(), DESKTOP);
            let (w, h) = (c.width(), c.height());
            let win = Area::new(w / 16, h / 16, w - w / 8, h - h / 8);
            self.body = window(c, win, "Document - latlab", &MENUS);
            let shown: Vec<String> = self.lines.iter().take(self.rows()).cloned().collect();
            if !matches!(self.mode, Mode::Typing { .. }) {
                for (i, l) in shown.iter().enumerate() {
                    self.text_line(c, i, l);
                }
            }
            if let Mode::Idle = self.mode {
                self.line = self.rows() / 2;
                self.typed = shown[self.line].len();
            }
        }
        match self.mode {
            Mode::Typing { wpm } => {
                // Characters at wpm × 5.29 a minute (seed 003's count), each a key press and
                // release.
                let gap = (60_000.0 / (wpm.max(1) as f64 * crate::defaults::CHARS_PER_WORD)).round() as u64;
                while self.next_key_ms <= t {
                    if self.pending.is_empty() {
                        self.pending = sentence(&mut self.rng, 60);
                        self.pending.push(' ');
                    }
                    let ch = self.pending.remove(0);
                    let code = (ch as u8).wrapping_sub(b'a').min(40) + 0x10;
                    out.input.push(Input::Key { code, up: false });
                    out.input.push(Input::Key { code, up: true });
                    self.caret(c, false);
                    let adv = c.advance(12);
                    if (self.typed + 2) * adv > self.body.w {
                        self.typed = 0;
                        self.line += 1;
                        if self.line >= self.rows() {
                            self.line = 0;
                            c.fill(self.body, WHITE);
                        }
                    }
                    let b = self.body;
                    let y = b.y + 4 + self.line * LINE_H;
                    c.text((b.x + 4 + self.typed * adv) as i64, (y + 12) as i64, &ch.to_string(), 12, BLACK, b);
                    self.typed += 1;
                    self.caret(c, true);
                    self.next_key_ms += gap;
                }
                // The caret blinks only while idle; typing keeps it on.
            }
            Mode::Idle => {
                let on = (t / crate::defaults::CARET_BLINK_MS).is_multiple_of(2);
                if on != self.caret_on {
                    self.caret(c, on);
                }
            }
            Mode::Scroll => {
                // Page Down held on key repeat, as the seed's user scrolled: a key every
                // KEY_REPEAT_MS, each moving the view a page (the rows shown, less one kept
                // for context) and redrawing every row.
                while self.next_ms <= t {
                    self.next_ms += crate::defaults::KEY_REPEAT_MS;
                    let rows = self.rows();
                    self.top += rows.saturating_sub(1).max(1);
                    for j in 0..rows {
                        let l = self.lines[(self.top + j) % self.lines.len()].clone();
                        self.text_line(c, j, &l);
                    }
                    let code = PAGE_DOWN;
                    out.input.push(Input::Key { code, up: false });
                    out.input.push(Input::Key { code, up: true });
                }
            }
            Mode::Menu { animated } => {
                // An animated menu slides out a quarter more each frame until whole, or until
                // the next key replaces it.
                if let Some(k) = self.unfold {
                    let k = k + 1;
                    self.draw_menu_part(c, self.menu, k);
                    self.unfold = (k < MENU_UNFOLD_STEPS).then_some(k);
                }
                // Seed 003's test: Alt selects the menu bar, then the right arrow is held, and
                // each key repeat shows the next top-level menu briefly (wrapping at the end
                // of the bar), its first item highlighted.
                while self.next_ms <= t {
                    self.next_ms += crate::defaults::KEY_REPEAT_MS;
                    if !self.menu_bar {
                        self.menu_bar = true;
                        out.input.push(Input::Key { code: ALT, up: false });
                        out.input.push(Input::Key { code: ALT, up: true });
                        continue;
                    }
                    if self.menu.is_some() {
                        // Repaint the document under the menu that closes.
                        let shown: Vec<String> = self.lines.iter().take(self.rows()).cloned().collect();
                        for (i, l) in shown.iter().enumerate().take(11) {
                            self.text_line(c, i, l);
                        }
                    }
                    let next = Some((self.menu.map_or(0, |(m, _)| (m + 1) % MENUS.len()), 0));
                    self.menu = next;
                    if animated {
                        // Opening: its first quarter now, the rest on the next frames.
                        self.draw_menu_part(c, next, 1);
                        self.unfold = Some(1);
                    } else {
                        self.unfold = None;
                        self.draw_menu(c, next);
                    }
                    // A held key repeats its press; the release comes when it is let go.
                    out.input.push(Input::Key { code: RIGHT, up: false });
                }
            }
        }
    }
}
