//! The moving workloads: the pointer over an empty desktop, the looping animation, banner and
//! ticker, the Bézier screensaver and the animated slide show.

use super::*;

// ---- the pointer over an empty desktop ---------------------------------------------------

pub(super) struct Mouse {
    rng: Rng,
    started: bool,
    pos: (f32, f32),
    vel: (f32, f32),
    next_ms: u64,
}

impl Mouse {
    pub(super) fn new(seed: u64) -> Self {
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

pub(super) struct Animation {
    frames: u32,
    delay_ms: u64,
    shown: Option<u32>,
}

impl Animation {
    pub(super) fn new(frames: u32, delay_ms: u64) -> Self {
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

pub(super) struct BannerTicker {
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
    pub(super) fn new(seed: u64, banner: bool, ticker: bool, frames: u32) -> Self {
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

pub(super) struct Screensaver {
    /// 3 points per curve (its start and two controls; the next curve's start ends it), each
    /// with its velocity: the loop closes on itself.
    pts: Vec<(f32, f32, f32, f32)>,
    trail: Vec<Vec<[(f32, f32); 4]>>,
    started: bool,
    next_ms: u64,
}

impl Screensaver {
    pub(super) fn new(seed: u64) -> Self {
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

pub(super) struct Slideshow {
    /// Wiped in, with the picture window animating (the demanding show); or each slide drawn
    /// at once and left still (the lightweight one).
    animated: bool,
    rng: Rng,
    slide: u64,
    step: u64,
    video: u64,
    texture: Vec<u8>,
}

impl Slideshow {
    pub(super) fn new(seed: u64, animated: bool) -> Self {
        Self { animated, rng: Rng::new(seed), slide: u64::MAX, step: u64::MAX, video: u64::MAX, texture: Vec::new() }
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
        // picture window animates at the video rate until the next slide. The lightweight
        // show draws each slide whole at once (as the wipe's last step) and leaves it up.
        let (slide, step) = if self.animated {
            (t / 2000, ((t % 2000) / 50).min(10))
        } else {
            (t / crate::defaults::LIGHT_SLIDE_MS, 10)
        };
        if slide == self.slide && step == self.step {
            if step == 10 && self.animated {
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
