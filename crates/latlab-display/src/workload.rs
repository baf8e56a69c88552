//! Scripted, seeded UI workloads on virtual time: each draws its frame at `t` ms on the
//! canvas, says which screen-to-screen copies it did (scrolls), and which input events the
//! user sent since the last frame (for the control channel). The same seed and times give
//! the same pixels and events.

use crate::encoder::CopyHint;
use crate::fb::Area;
use crate::render::{Canvas, Rgb};
pub use crate::wire::Input;

/// What one frame produced besides pixels.
#[derive(Debug, Default)]
pub struct FrameOut {
    /// Screen-to-screen copies done on the canvas, in order, before other drawing.
    pub copies: Vec<CopyHint>,
    /// Input the user sent since the previous frame.
    pub input: Vec<Input>,
    /// Areas the application drew as whole bitmaps this frame (an animated image's frame):
    /// a server sends such an area as the bitmap it is, cached whole, as GDI hands RDP the
    /// blit, not the difference from the previous frame.
    pub blits: Vec<Area>,
}

/// A scripted workload.
pub trait Workload: Send {
    /// Draw the frame at `t_ms` (called with increasing times, starting at 0).
    fn frame(&mut self, t_ms: u64, c: &mut Canvas, out: &mut FrameOut);
}

/// The workloads and their parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkloadKind {
    /// Typing into a document at `wpm` words ([`crate::defaults::CHARS_PER_WORD`] characters)
    /// a minute.
    Typing {
        /// Words per minute.
        wpm: u32,
    },
    /// The pointer moving over an empty desktop.
    Mouse,
    /// Opening menus and moving down their items.
    Menu,
    /// The same with menus that unfold as they open (Office 97 / Windows 98 style menu
    /// animation, seed 003 §3.3.3).
    AnimatedMenu,
    /// Scrolling a multi-page document.
    Scroll,
    /// A blinking caret in an idle document.
    Cursor,
    /// A looping animation of `frames` 119×119 frames (8 bpp colours), `delay_ms` each.
    Animation {
        /// Frames in the loop.
        frames: u32,
        /// Time each frame shows.
        delay_ms: u64,
    },
    /// A 468×60 animated banner (`banner_frames` frames) and/or a scrolling news ticker.
    BannerTicker {
        /// Show the banner.
        banner: bool,
        /// Show the ticker.
        ticker: bool,
        /// Frames in the banner's loop.
        banner_frames: u32,
    },
    /// The line-drawn Bézier screensaver.
    Screensaver,
    /// An animated slide show: a slide every 2 s wiped in, then a 480×360 picture window
    /// animating at 25 fps (seed 000's demanding animation).
    Slideshow,
}

impl WorkloadKind {
    /// The name in metrics and on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            WorkloadKind::Typing { .. } => "typing",
            WorkloadKind::Mouse => "mouse",
            WorkloadKind::Menu => "menu",
            WorkloadKind::AnimatedMenu => "menu_animated",
            WorkloadKind::Scroll => "scroll",
            WorkloadKind::Cursor => "cursor",
            WorkloadKind::Animation { .. } => "animation",
            WorkloadKind::BannerTicker { banner: true, ticker: true, .. } => "banner_ticker",
            WorkloadKind::BannerTicker { banner: true, .. } => "banner",
            WorkloadKind::BannerTicker { .. } => "ticker",
            WorkloadKind::Screensaver => "screensaver",
            WorkloadKind::Slideshow => "slideshow",
        }
    }

    /// The workload called `name`, with its defaults.
    pub fn from_name(name: &str) -> Option<Self> {
        let d = crate::defaults::ANIMATION_FRAMES;
        Some(match name {
            "typing" => WorkloadKind::Typing { wpm: crate::defaults::TYPING_WPM },
            "mouse" => WorkloadKind::Mouse,
            "menu" => WorkloadKind::Menu,
            "menu_animated" => WorkloadKind::AnimatedMenu,
            "scroll" => WorkloadKind::Scroll,
            "cursor" => WorkloadKind::Cursor,
            "animation" => WorkloadKind::Animation { frames: d, delay_ms: crate::defaults::ANIMATION_DELAY_MS },
            "banner_ticker" | "banner" | "ticker" => WorkloadKind::BannerTicker {
                banner: name != "ticker",
                ticker: name != "banner",
                banner_frames: crate::defaults::BANNER_FRAMES,
            },
            "screensaver" => WorkloadKind::Screensaver,
            "slideshow" => WorkloadKind::Slideshow,
            _ => return None,
        })
    }

    /// Whether the user gives input in this workload (the rest only watch).
    pub fn takes_input(&self) -> bool {
        matches!(
            self,
            WorkloadKind::Typing { .. }
                | WorkloadKind::Mouse
                | WorkloadKind::Menu
                | WorkloadKind::AnimatedMenu
                | WorkloadKind::Scroll
        )
    }

    /// Every workload name.
    pub const NAMES: [&'static str; 12] = [
        "typing",
        "mouse",
        "menu",
        "menu_animated",
        "scroll",
        "cursor",
        "animation",
        "banner",
        "ticker",
        "banner_ticker",
        "screensaver",
        "slideshow",
    ];

    /// A fresh workload from `seed`.
    pub fn build(&self, seed: u64) -> Box<dyn Workload> {
        match *self {
            WorkloadKind::Typing { wpm } => Box::new(Document::new(seed, Mode::Typing { wpm })),
            WorkloadKind::Cursor => Box::new(Document::new(seed, Mode::Idle)),
            WorkloadKind::Scroll => Box::new(Document::new(seed, Mode::Scroll)),
            WorkloadKind::Menu => Box::new(Document::new(seed, Mode::Menu { animated: false })),
            WorkloadKind::AnimatedMenu => Box::new(Document::new(seed, Mode::Menu { animated: true })),
            WorkloadKind::Mouse => Box::new(Mouse::new(seed)),
            WorkloadKind::Animation { frames, delay_ms } => Box::new(Animation::new(frames, delay_ms)),
            WorkloadKind::BannerTicker { banner, ticker, banner_frames } => {
                Box::new(BannerTicker::new(seed, banner, ticker, banner_frames))
            }
            WorkloadKind::Screensaver => Box::new(Screensaver::new(seed)),
            WorkloadKind::Slideshow => Box::new(Slideshow::new(seed)),
        }
    }
}

/// xorshift64*, for scripts.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// From a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

pub(crate) const DESKTOP: Rgb = [0, 128, 128];
pub(crate) const WHITE: Rgb = [255, 255, 255];
pub(crate) const BLACK: Rgb = [0, 0, 0];
const GREY: Rgb = [192, 192, 192];
const DARK: Rgb = [64, 64, 64];
const TITLE: Rgb = [0, 0, 128];
const SELECT: Rgb = [0, 0, 160];

const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "a",
    "in",
    "is",
    "it",
    "that",
    "for",
    "was",
    "on",
    "are",
    "with",
    "as",
    "be",
    "this",
    "screen",
    "update",
    "remote",
    "display",
    "cache",
    "bitmap",
    "order",
    "latency",
    "network",
    "client",
    "server",
    "window",
    "document",
    "user",
    "session",
    "terminal",
    "projector",
    "study",
    "measure",
    "frame",
    "packet",
];

pub(crate) fn sentence(r: &mut Rng, max: usize) -> String {
    let mut s = String::new();
    loop {
        let w = WORDS[r.below(WORDS.len() as u64) as usize];
        if s.len() + w.len() + 1 > max {
            return s;
        }
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(w);
    }
}

/// Window chrome: frame, title bar, menu bar; returns the client area.
pub(crate) fn window(c: &mut Canvas, a: Area, title: &str, menus: &[&str]) -> Area {
    c.fill(a, GREY);
    c.fill(Area::new(a.x + 2, a.y + 2, a.w - 4, 18), TITLE);
    c.text(a.x as i64 + 6, a.y as i64 + 16, title, 12, WHITE, a);
    let mut x = a.x as i64 + 6;
    for m in menus {
        c.text(x, a.y as i64 + 36, m, 12, BLACK, a);
        x += (m.len() as i64 + 2) * c.advance(12) as i64;
    }
    let body = Area::new(a.x + 4, a.y + 42, a.w - 8, a.h - 46);
    c.fill(body, WHITE);
    body
}

// ---- the document workloads: typing, idle caret, scrolling, menus --------------------------

#[derive(Debug, Clone, Copy)]
enum Mode {
    Typing { wpm: u32 },
    Idle,
    Scroll,
    Menu { animated: bool },
}

struct Document {
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
    /// Menu: open menu and highlighted item.
    menu: Option<(usize, usize)>,
    /// Animated menus: the quarters of the opening menu drawn so far (unfolding), if any.
    unfold: Option<usize>,
}

pub(crate) const LINE_H: usize = 16;
/// Frames an animated menu takes to unfold: four, 80 ms at 20 ms a frame, inside the 150 ms
/// between highlight moves.
const MENU_UNFOLD_STEPS: usize = 4;
pub(crate) const MENUS: [&str; 6] = ["File", "Edit", "View", "Insert", "Format", "Help"];

impl Document {
    fn new(seed: u64, mode: Mode) -> Self {
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

    fn rows(&self) -> usize {
        (self.body.h - 8) / LINE_H
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
            c.fill(a, GREY);
            c.fill(Area::new(a.x, a.y + a.h - 1, a.w, 1), DARK);
            c.fill(Area::new(a.x + a.w - 1, a.y, 1, a.h), DARK);
            for i in 0..8 {
                let y = a.y + 2 + i * 18;
                // An unfolding menu shows only the items its height reaches.
                if y >= a.y + a.h {
                    break;
                }
                let label = format!("{} {}", MENUS[m], WORDS[(m * 8 + i) % WORDS.len()]);
                let (bg, fg) = if i == item { (SELECT, WHITE) } else { (GREY, BLACK) };
                c.fill(Area::new(a.x + 2, y, a.w - 4, 18.min(a.y + a.h - y)), bg);
                c.text(a.x as i64 + 8, y as i64 + 13, &label, 12, fg, a);
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
                // SCROLL_REPEAT_MS, each moving the view a page (the rows shown, less one kept
                // for context) and redrawing every row.
                while self.next_ms <= t {
                    self.next_ms += crate::defaults::SCROLL_REPEAT_MS;
                    let rows = self.rows();
                    self.top += rows.saturating_sub(1).max(1);
                    for j in 0..rows {
                        let l = self.lines[(self.top + j) % self.lines.len()].clone();
                        self.text_line(c, j, &l);
                    }
                    let code = crate::editor::PAGE_DOWN;
                    out.input.push(Input::Key { code, up: false });
                    out.input.push(Input::Key { code, up: true });
                }
            }
            Mode::Menu { animated } => {
                // An animated menu unfolds a quarter more each frame until whole.
                if let Some(k) = self.unfold {
                    let k = k + 1;
                    self.draw_menu_part(c, self.menu, k);
                    self.unfold = (k < MENU_UNFOLD_STEPS).then_some(k);
                }
                // A menu opens, the highlight moves down every 150 ms, it closes after 8 items.
                while self.next_ms <= t {
                    self.next_ms += 150;
                    let next = match self.menu {
                        None => Some((self.rng.below(MENUS.len() as u64) as usize, 0)),
                        Some((m, i)) if i + 1 < 8 => Some((m, i + 1)),
                        Some(_) => None,
                    };
                    if next.is_none() || self.menu.is_none() {
                        // Repaint the document under a closed menu.
                        let shown: Vec<String> = self.lines.iter().take(self.rows()).cloned().collect();
                        for (i, l) in shown.iter().enumerate().take(11) {
                            self.text_line(c, i, l);
                        }
                    }
                    self.menu = next;
                    if animated && next.is_some_and(|n| n.1 == 0) {
                        // Opening: its first quarter now, the rest on the next frames.
                        self.draw_menu_part(c, next, 1);
                        self.unfold = Some(1);
                    } else {
                        self.unfold = None;
                        self.draw_menu(c, next);
                    }
                    let (x, y) =
                        (self.body.x as u16 + 40, self.body.y as u16 + 10 + 18 * next.map_or(0, |n| n.1) as u16);
                    out.input.push(Input::Move { x, y });
                    if next.is_some_and(|n| n.1 == 0) {
                        out.input.push(Input::Button { flags: 0x9000, x, y });
                        out.input.push(Input::Button { flags: 0x1000, x, y });
                    }
                }
            }
        }
    }
}

// ---- the pointer over an empty desktop ---------------------------------------------------

struct Mouse {
    rng: Rng,
    started: bool,
    pos: (f32, f32),
    vel: (f32, f32),
    next_ms: u64,
}

impl Mouse {
    fn new(seed: u64) -> Self {
        Self { rng: Rng::new(seed), started: false, pos: (100.0, 100.0), vel: (3.0, 2.0), next_ms: 0 }
    }
}

impl Workload for Mouse {
    fn frame(&mut self, t: u64, c: &mut Canvas, out: &mut FrameOut) {
        if !self.started {
            self.started = true;
            c.fill(c.full(), DESKTOP);
        }
        // A move event every 10 ms (a 100 Hz mouse); the pointer is drawn by the client.
        while self.next_ms <= t {
            self.next_ms += 10;
            if self.rng.below(50) == 0 {
                self.vel = (self.rng.below(9) as f32 - 4.0, self.rng.below(9) as f32 - 4.0);
            }
            self.pos.0 = (self.pos.0 + self.vel.0).clamp(0.0, c.width() as f32 - 1.0);
            self.pos.1 = (self.pos.1 + self.vel.1).clamp(0.0, c.height() as f32 - 1.0);
            out.input.push(Input::Move { x: self.pos.0 as u16, y: self.pos.1 as u16 });
        }
    }
}

// ---- the looping animation --------------------------------------------------------------

/// Where the animation sits: tile-aligned, so each frame covers four 64×64 cells.
pub const ANIMATION_AT: (usize, usize) = (128, 128);
/// Its side, the study's 119 pixels.
pub const ANIMATION_SIDE: usize = 119;

/// An 8 bpp-looking colour (3-3-2) from a number.
fn palette(i: u32) -> Rgb {
    [((i >> 5) & 7) as u8 * 36, ((i >> 2) & 7) as u8 * 36, (i & 3) as u8 * 85]
}

/// Draw animation frame `k` of `n` at (`x`, `y`).
fn animation_frame(c: &mut Canvas, x: usize, y: usize, k: u32, n: u32) {
    let s = ANIMATION_SIDE as f32;
    // The background steps through the palette frame by frame (37 is prime to 256), so no
    // two of up to 256 frames share a cell, as in a colour-cycling GIF.
    c.fill(Area::new(x, y, ANIMATION_SIDE, ANIMATION_SIDE), palette((0x49 + k * 37) % 256));
    let (cx, cy) = (x as f32 + s / 2.0, y as f32 + s / 2.0);
    c.circle(cx, cy, s * 0.45, palette(0xFC));
    let a = k as f32 / n.max(1) as f32 * std::f32::consts::TAU;
    for blade in 0..3 {
        let b = a + blade as f32 * std::f32::consts::TAU / 3.0;
        let tip = (cx + b.cos() * s * 0.42, cy + b.sin() * s * 0.42);
        let l = (cx + (b + 0.5).cos() * s * 0.15, cy + (b + 0.5).sin() * s * 0.15);
        c.polygon(&[(cx, cy), l, tip], palette(0xE0 + blade * 3));
    }
    let clip = Area::new(x, y, ANIMATION_SIDE, ANIMATION_SIDE);
    c.text(x as i64 + 4, y as i64 + 14, &format!("{k}"), 12, palette(0x03), clip);
}

struct Animation {
    frames: u32,
    delay_ms: u64,
    shown: Option<u32>,
}

impl Animation {
    fn new(frames: u32, delay_ms: u64) -> Self {
        Self { frames: frames.max(1), delay_ms: delay_ms.max(1), shown: None }
    }
}

impl Workload for Animation {
    fn frame(&mut self, t: u64, c: &mut Canvas, out: &mut FrameOut) {
        if self.shown.is_none() {
            c.fill(c.full(), DESKTOP);
        }
        let k = ((t / self.delay_ms) % self.frames as u64) as u32;
        if self.shown != Some(k) {
            animation_frame(c, ANIMATION_AT.0, ANIMATION_AT.1, k, self.frames);
            out.blits.push(Area::new(ANIMATION_AT.0, ANIMATION_AT.1, ANIMATION_SIDE, ANIMATION_SIDE));
            self.shown = Some(k);
        }
    }
}

// ---- banner and ticker ------------------------------------------------------------------

/// The banner's place: tile-aligned, 468×60, so a frame is eight 64×64 cells.
pub const BANNER: Area = Area::new(64, 0, 468, 60);
/// Ticker height: over 32 rows, so its new strip is a 64×64 cell like the banner's.
pub const TICKER_H: usize = 48;
/// Pixels the ticker moves a frame.
const TICKER_STEP: usize = 4;

struct BannerTicker {
    banner: bool,
    ticker: bool,
    frames: u32,
    started: bool,
    shown: Option<u32>,
    news: String,
    moved: usize,
    next_ms: u64,
}

impl BannerTicker {
    fn new(seed: u64, banner: bool, ticker: bool, frames: u32) -> Self {
        let mut r = Rng::new(seed);
        let news = (0..12).map(|_| sentence(&mut r, 50)).collect::<Vec<_>>().join(" +++ ");
        Self { banner, ticker, frames: frames.max(1), started: false, shown: None, news, moved: 0, next_ms: 0 }
    }
}

impl Workload for BannerTicker {
    fn frame(&mut self, t: u64, c: &mut Canvas, out: &mut FrameOut) {
        let (w, h) = (c.width(), c.height());
        let strip = Area::new(0, (h - TICKER_H) / 64 * 64, w, TICKER_H);
        if !self.started {
            self.started = true;
            c.fill(c.full(), WHITE);
            if self.ticker {
                c.fill(strip, TITLE);
            }
        }
        if self.banner {
            // The banner changes every 100 ms.
            let k = ((t / 100) % self.frames as u64) as u32;
            if self.shown != Some(k) {
                self.shown = Some(k);
                let b = BANNER;
                let hue = (k * 255 / self.frames) as u8;
                c.fill(b, [hue, 64, 255 - hue]);
                let x = b.x as f32 + (k as f32 / self.frames as f32) * (b.w as f32 - 60.0);
                c.circle(x + 30.0, b.y as f32 + 30.0, 24.0, [255, 220, 0]);
                c.text(b.x as i64 + 10, b.y as i64 + 40, "latlab: buy one, measure two", 16, WHITE, b);
                out.blits.push(b);
            }
        }
        if self.ticker {
            // The ticker moves TICKER_STEP pixels every 40 ms.
            while self.next_ms <= t {
                self.next_ms += 40;
                let dst = Area::new(strip.x, strip.y, strip.w - TICKER_STEP, strip.h);
                c.copy(dst, strip.x + TICKER_STEP, strip.y);
                out.copies.push(CopyHint { dst, sx: strip.x + TICKER_STEP, sy: strip.y });
                self.moved += TICKER_STEP;
                let new = Area::new(strip.x + strip.w - TICKER_STEP, strip.y, TICKER_STEP, strip.h);
                c.fill(new, TITLE);
                let adv = c.advance(20) as i64;
                let period = (self.news.len() as i64 + 8) * adv;
                // Text position so that the strip shows the right slice of the news.
                let x0 = (strip.x + strip.w) as i64 - (self.moved as i64 % period);
                c.text(x0, (strip.y + 32) as i64, &self.news, 20, WHITE, new);
                out.blits.push(new);
            }
        }
    }
}

// ---- the Bézier screensaver -------------------------------------------------------------

/// Curves in the screensaver's loop: seed 003's "Beziers" screensaver "draws a pixel-wide
/// loop composed of 10 bezier curves", "continuously bent and twisted as it is translated
/// across the screen".
const BEZIER_CURVES: usize = 10;

struct Screensaver {
    /// 3 points per curve (its start and two controls; the next curve's start ends it), each
    /// with its velocity: the loop closes on itself.
    pts: Vec<(f32, f32, f32, f32)>,
    trail: Vec<Vec<[(f32, f32); 4]>>,
    started: bool,
    next_ms: u64,
}

impl Screensaver {
    fn new(seed: u64) -> Self {
        let mut r = Rng::new(seed);
        let pts = (0..3 * BEZIER_CURVES)
            .map(|_| (r.below(600) as f32, r.below(400) as f32, r.below(7) as f32 - 3.5, r.below(7) as f32 - 3.5))
            .collect();
        Self { pts, trail: Vec::new(), started: false, next_ms: 0 }
    }

    /// The loop's curves now.
    fn curves(&self) -> Vec<[(f32, f32); 4]> {
        let n = self.pts.len();
        let at = |i: usize| (self.pts[i % n].0, self.pts[i % n].1);
        (0..BEZIER_CURVES).map(|k| [at(3 * k), at(3 * k + 1), at(3 * k + 2), at(3 * k + 3)]).collect()
    }
}

impl Workload for Screensaver {
    fn frame(&mut self, t: u64, c: &mut Canvas, _: &mut FrameOut) {
        if !self.started {
            self.started = true;
            c.fill(c.full(), BLACK);
        }
        let (w, h) = (c.width() as f32, c.height() as f32);
        while self.next_ms <= t {
            self.next_ms += 50;
            // Every point moves on its own: the loop bends and twists as it travels.
            for p in &mut self.pts {
                p.0 += p.2;
                p.1 += p.3;
                if p.0 < 0.0 || p.0 >= w {
                    p.2 = -p.2;
                    p.0 = p.0.clamp(0.0, w - 1.0);
                }
                if p.1 < 0.0 || p.1 >= h {
                    p.3 = -p.3;
                    p.1 = p.1.clamp(0.0, h - 1.0);
                }
            }
            let curves = self.curves();
            self.trail.push(curves.clone());
            if self.trail.len() > 8 {
                for old in self.trail.remove(0) {
                    c.bezier(old, 1.0, BLACK);
                }
            }
            let col = [(self.next_ms / 50 % 256) as u8, 200, 255 - (self.next_ms / 50 % 256) as u8];
            for curve in curves {
                c.bezier(curve, 1.0, col);
            }
        }
    }
}

// ---- the animated slide show ------------------------------------------------------------

struct Slideshow {
    rng: Rng,
    slide: u64,
    step: u64,
    video: u64,
    texture: Vec<u8>,
}

impl Slideshow {
    fn new(seed: u64) -> Self {
        Self { rng: Rng::new(seed), slide: u64::MAX, step: u64::MAX, video: u64::MAX, texture: Vec::new() }
    }

    /// A photographic picture as big as the screen: smooth colour waves and per-pixel grain,
    /// which neither RLE nor the bulk codecs squeeze much (like a scanned photo or video).
    fn make_texture(w: usize, h: usize) -> Vec<u8> {
        let mut t = Vec::with_capacity(w * h * 4);
        for y in 0..h {
            for x in 0..w {
                let (xf, yf) = (x as f32, y as f32);
                let grain = ((x as u32).wrapping_mul(0x9E37_79B1) ^ (y as u32).wrapping_mul(0x85EB_CA77))
                    .rotate_left(13) as u8
                    & 31;
                let wave = |a: f32, b: f32, c: f32, amp: f32| 128.0 + amp * (xf * a + yf * b + c).sin();
                let ch = |v: f32| (v + grain as f32 - 16.0).clamp(0.0, 255.0) as u8;
                t.extend_from_slice(&[
                    ch(wave(0.013, 0.007, 0.0, 100.0)),
                    ch(wave(-0.005, 0.011, 1.0, 90.0)),
                    ch(wave(0.009, 0.009, 2.0, 80.0)),
                    255,
                ]);
            }
        }
        t
    }

    /// The animated build: a picture window panning over the photograph, a new bitmap every
    /// video frame (seed 000's demanding animations, drawn with StretchDIBits).
    fn draw_video(&mut self, c: &mut Canvas, slide: u64, k: u64) {
        let (w, h) = (c.width(), c.height());
        if self.texture.len() != w * h * 4 {
            self.texture = Self::make_texture(w, h);
        }
        let (vw, vh) = (crate::defaults::VIDEO_W.min(w / 2), crate::defaults::VIDEO_H.min(h / 2));
        let dst = Area::new(w - vw - w / 32, h - vh - h / 16, vw, vh);
        // Pan diagonally, bouncing inside the picture; each slide starts elsewhere.
        let (rx, ry) = ((w - vw) as u64, (h - vh) as u64);
        let bounce = |p: u64, r: u64| if (p / r.max(1)).is_multiple_of(2) { p % r.max(1) } else { r - p % r.max(1) };
        let sx = bounce(slide * 97 + k * 3, rx) as usize;
        let sy = bounce(slide * 41 + k * 2, ry) as usize;
        let tex = std::mem::take(&mut self.texture);
        c.image(dst, &tex, w, sx, sy);
        self.texture = tex;
    }

    fn draw_slide(&mut self, c: &mut Canvas, n: u64, upto: Area) {
        let (w, h) = (c.width(), c.height());
        let full = Area::new(0, 0, w, h);
        let clip = Area::new(upto.x, upto.y, upto.w.min(w), upto.h.min(h));
        // Background gradient in bands (as a slide template would draw it).
        for band in 0..16 {
            let y = band * h / 16;
            let a = Area::new(0, y, w, h / 16 + 1);
            let a = Area::new(a.x.max(clip.x), a.y, (clip.x + clip.w).saturating_sub(a.x.max(clip.x)), a.h);
            c.fill(a, [20 + band as u8 * 8, 40 + (n as u8 % 5) * 30, 120]);
        }
        let title = sentence(&mut self.rng, 30);
        c.text(40, 70, &title, 36, WHITE, clip);
        for i in 0..5 {
            let line = format!("- {}", sentence(&mut self.rng, 40));
            c.text(60, 140 + i * 44, &line, 22, [255, 255, 200], clip);
        }
        // A "photo": shaded blobs.
        for k in 0..12 {
            let (x, y) =
                ((w * 3 / 5 + self.rng.below((w / 3) as u64) as usize) as f32, (150 + self.rng.below(300)) as f32);
            let r = 20.0 + self.rng.below(50) as f32;
            let col = [self.rng.below(256) as u8, self.rng.below(256) as u8, (k * 20) as u8];
            if x < (clip.x + clip.w) as f32 {
                c.circle(x, y, r, col);
            }
        }
        let _ = full;
    }
}

impl Workload for Slideshow {
    fn frame(&mut self, t: u64, c: &mut Canvas, _: &mut FrameOut) {
        // A slide every 2 s; its first 500 ms wipe it in from the left in 10 steps; then the
        // picture window animates at the video rate until the next slide.
        let slide = t / 2000;
        let step = ((t % 2000) / 50).min(10);
        if slide == self.slide && step == self.step {
            if step == 10 {
                let k = (t % 2000 - 500) / crate::defaults::VIDEO_FRAME_MS;
                if k != self.video {
                    self.video = k;
                    self.draw_video(c, slide, k);
                }
            }
            return;
        }
        self.video = u64::MAX;
        self.slide = slide;
        self.step = step;
        let mut r = self.rng.clone();
        // Same slide content at every wipe step: reseed from the slide number.
        self.rng = Rng::new(slide.wrapping_add(0x51de));
        let w = c.width();
        let upto = Area::new(0, 0, w * (step as usize + 1) / 11, c.height());
        self.draw_slide(c, slide, upto);
        r.next_u64();
        self.rng = r;
    }
}
