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
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum WorkloadKind {
    /// Typing into a document at `wpm` words ([`crate::defaults::CHARS_PER_WORD`] characters)
    /// a minute.
    Typing {
        /// Words per minute.
        wpm: u32,
    },
    /// The pointer moving over an empty desktop.
    Mouse,
    /// A word processor's menus walked as seed 003's user walked them: Alt, then the right
    /// arrow held, each top-level menu shown in turn.
    Menu,
    /// The same with menus that slide out as they open (Office 97 / Windows 98 style menu
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
    /// The Start menu walked depth first with the pointer, every cascade menu opened (seed
    /// 003's "human-driven depth-first traversal of the Start Button menu tree").
    StartMenu,
    /// The Office Assistant (seed 003's ClipIt) idle, blinking now and then.
    Assistant,
    /// The Office Assistant playing its save animation once.
    AssistantSave,
    /// The line-drawn Bézier screensaver.
    Screensaver,
    /// An animated slide show: a slide every 2 s wiped in, then a 480×360 picture window
    /// animating at 25 fps (seed 000's demanding animation).
    Slideshow,
    /// A lightweight slide show: the same slides, each drawn at once and left up for
    /// [`crate::defaults::LIGHT_SLIDE_MS`], nothing animating (seed 000's "lightweight
    /// PowerPoint slide shows").
    LightSlideshow,
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
            WorkloadKind::StartMenu => "start_menu",
            WorkloadKind::Assistant => "assistant",
            WorkloadKind::AssistantSave => "assistant_save",
            WorkloadKind::Screensaver => "screensaver",
            WorkloadKind::Slideshow => "slideshow",
            WorkloadKind::LightSlideshow => "slideshow_light",
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
            "start_menu" => WorkloadKind::StartMenu,
            "assistant" => WorkloadKind::Assistant,
            "assistant_save" => WorkloadKind::AssistantSave,
            "screensaver" => WorkloadKind::Screensaver,
            "slideshow" => WorkloadKind::Slideshow,
            "slideshow_light" => WorkloadKind::LightSlideshow,
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
                | WorkloadKind::StartMenu
                | WorkloadKind::Scroll
        )
    }

    /// Every workload name.
    pub const NAMES: [&'static str; 16] = [
        "typing",
        "mouse",
        "menu",
        "menu_animated",
        "start_menu",
        "scroll",
        "cursor",
        "assistant",
        "assistant_save",
        "animation",
        "banner",
        "ticker",
        "banner_ticker",
        "screensaver",
        "slideshow",
        "slideshow_light",
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
            WorkloadKind::StartMenu => Box::new(StartMenu::new(seed)),
            WorkloadKind::Assistant => Box::new(Assistant::new(false)),
            WorkloadKind::AssistantSave => Box::new(Assistant::new(true)),
            WorkloadKind::Screensaver => Box::new(Screensaver::new(seed)),
            WorkloadKind::Slideshow => Box::new(Slideshow::new(seed, true)),
            WorkloadKind::LightSlideshow => Box::new(Slideshow::new(seed, false)),
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

/// Page Down's scancode (set 1): the key the scroll workload holds, on which the editor pages
/// (a large update).
pub const PAGE_DOWN: u8 = 0x51;

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

mod animated;
mod assistant;
mod document;
mod start_menu;
pub use animated::{ANIMATION_AT, ANIMATION_SIDE, BANNER, TICKER_H};
use animated::{Animation, BannerTicker, Mouse, Screensaver, Slideshow};
use assistant::Assistant;
use document::{Document, Mode};
pub(crate) use document::{LINE_H, MENUS};
use start_menu::StartMenu;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workload_on_a_canvas_that_draws_nothing_sends_the_same_input() {
        // The client makes its input script on a dry canvas; the server draws for real. Their
        // input must be the same event for event, or the server's count of expected input lies.
        for name in WorkloadKind::NAMES {
            let kind = WorkloadKind::from_name(name).unwrap();
            let (mut real, mut dry) = (kind.build(7), kind.build(7));
            let (mut c, mut d) = (Canvas::new(320, 240), Canvas::dry(320, 240));
            let (mut a, mut b) = (FrameOut::default(), FrameOut::default());
            for k in 0..300 {
                real.frame(k * 20, &mut c, &mut a);
                dry.frame(k * 20, &mut d, &mut b);
            }
            assert_eq!(format!("{:?}", a.input), format!("{:?}", b.input), "{name}");
            assert!(!kind.takes_input() || !a.input.is_empty(), "{name} sent input");
            assert!(
                d.to_fb_area(&mut crate::fb::Framebuffer::new(320, 240, 16)).is_none(),
                "a dry canvas draws nothing"
            );
        }
    }
}
