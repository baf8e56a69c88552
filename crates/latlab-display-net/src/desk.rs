//! An echo session's screen on the server, lean: the editor the keys are typed
//! into, drawn on a canvas, converted to the session's depth and encoded for its client. Every
//! session of one screen size and depth starts from the same first screen, drawn once per
//! process and shared page by page (copy-on-write): a session holds in memory only the pages
//! its typing drew on, and a key costs what it drew (its damage), not a repaint.

use latlab_desktop::editor::Editor;
use latlab_desktop::encoder::Encoder;
use latlab_desktop::fb::{Area, Framebuffer};
use latlab_desktop::pixels::SharedPixels;
use latlab_desktop::render::Canvas;
use latlab_desktop::session::SessionConfig;
use latlab_desktop::wire::Sender;
use latlab_sys::clock::thread_cpu_now;
use std::sync::{Arc, Mutex};

/// The editor's first screen at one size and depth, shared by every session that starts
/// with it: the canvas (RGBA) and the screen at the session's depth.
struct Backdrop {
    key: (usize, usize, u32),
    canvas: SharedPixels,
    screen: SharedPixels,
}

/// First screens kept: a few sizes and depths (a server's clients mostly share one; a
/// hostile client asking for many sizes cannot make the process keep more).
const BACKDROPS_KEPT: usize = 8;

/// The first screen of a `width × height` editor at `bpp`: made on first use, then shared.
/// `None` where shared memory cannot be made (each session then draws its own).
fn backdrop(width: usize, height: usize, bpp: u32) -> Option<Arc<Backdrop>> {
    static KEPT: Mutex<Vec<Arc<Backdrop>>> = Mutex::new(Vec::new());
    let key = (width, height, bpp);
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(b) = kept.iter().find(|b| b.key == key) {
        return Some(b.clone());
    }
    let (canvas, screen) = first_screen(width, height, bpp);
    let b = Arc::new(Backdrop {
        key,
        canvas: SharedPixels::new(canvas.rgba()).ok()?,
        screen: SharedPixels::new(&screen.data).ok()?,
    });
    if kept.len() == BACKDROPS_KEPT {
        // Sessions already started keep their mappings; only new ones draw it again.
        kept.remove(0);
    }
    kept.push(b.clone());
    Some(b)
}

/// The editor's first screen, drawn and converted.
fn first_screen(width: usize, height: usize, bpp: u32) -> (Canvas, Framebuffer) {
    let mut canvas = Canvas::new(width, height);
    // The first screen does not depend on the document (only a new page draws it).
    Editor::new(0, width, height).start(&mut canvas);
    let mut screen = Framebuffer::new(width, height, bpp);
    canvas.to_fb(&mut screen);
    (canvas, screen)
}

/// The server's screen of an echo session.
pub struct EchoDesk {
    canvas: Canvas,
    screen: Framebuffer,
    editor: Editor,
    enc: Encoder,
    /// The shared first screen, until the first update has been encoded.
    first: Option<Arc<Backdrop>>,
    /// Whether the first update (the whole screen) is still to be encoded.
    unsent: bool,
    /// The CPU the session's start took, ns.
    pub start_cpu_ns: u64,
}

impl EchoDesk {
    /// The editor of session `cfg`, showing its first screen (not yet sent).
    pub fn new(cfg: &SessionConfig) -> Self {
        let c0 = thread_cpu_now();
        let (w, h, bpp) = (cfg.width, cfg.height, cfg.bpp);
        let first = backdrop(w, h, bpp);
        let (canvas, screen) = match &first {
            Some(b) => (Canvas::from_shared(w, h, &b.canvas), Framebuffer::from_shared(w, h, bpp, &b.screen)),
            None => first_screen(w, h, bpp),
        };
        Self {
            canvas,
            screen,
            editor: Editor::new(cfg.seed, w, h),
            enc: Encoder::new(w, h, bpp, cfg.encoder.clone(), None),
            first,
            unsent: true,
            start_cpu_ns: thread_cpu_now() - c0,
        }
    }

    /// Apply key `code` (a scancode) to the editor.
    pub fn key(&mut self, code: u8) {
        self.editor.key(code, &mut self.canvas);
    }

    /// Convert what the keys drew since the last update to the session's depth: the area, if
    /// anything was drawn (the whole screen before the first update).
    pub fn convert(&mut self) -> Option<Area> {
        let drawn = self.canvas.to_fb_area(&mut self.screen);
        if self.unsent { Some(Area::new(0, 0, self.screen.width, self.screen.height)) } else { drawn }
    }

    /// Encode the converted `area` as update PDUs framed by `tx` into `out`; returns the PDUs.
    pub fn encode(&mut self, area: Area, tx: &mut Sender, out: &mut Vec<u8>) -> u64 {
        let mut n = 0;
        for pdu in self.enc.encode_damage(&self.screen, area, &[], &[]) {
            tx.frame(&pdu, out);
            n += 1;
        }
        if std::mem::take(&mut self.unsent)
            && let Some(b) = self.first.take()
        {
            // What the client now shows is the first screen unless a key came first: then the
            // encoder's record of it stays the session's own.
            let (w, h, bpp) = b.key;
            self.enc.share_shadow(Framebuffer::from_shared(w, h, bpp, &b.screen));
        }
        n
    }

    /// The screen's hash (equal to the client's once it has applied every update).
    pub fn hash(&self) -> u64 {
        self.screen.hash()
    }

    /// The hash of `a` of the screen.
    pub fn hash_area(&self, a: Area) -> u64 {
        self.screen.hash_area(a)
    }

    /// The bitmap caches' hits and misses.
    pub fn cache_stats(&self) -> (u64, u64) {
        (self.enc.stats.cache_hits, self.enc.stats.cache_misses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_desktop::decoder::Decoder;
    use latlab_desktop::editor::scancode;
    use latlab_desktop::wire::{Codec, Crypto, Receiver};
    use latlab_desktop::workload::WorkloadKind;

    /// A session's client: every update applied, and checked by its area's hash.
    fn typed(cfg: &SessionConfig, text: &str, desk: &mut EchoDesk) -> Framebuffer {
        let mut tx = Sender::new(cfg.codec, cfg.crypto);
        let mut rx = Receiver::new(cfg.codec, cfg.crypto, false);
        let mut dec = Decoder::new(cfg.width, cfg.height, cfg.bpp, cfg.encoder.cells, false);
        let mut update = |desk: &mut EchoDesk| {
            let mut out = Vec::new();
            let a = desk.convert().unwrap_or_default();
            desk.encode(a, &mut tx, &mut out);
            let mut at = 0;
            while at < out.len() {
                let len = latlab_desktop::wire::pdu_len(&out[at..]).expect("whole PDUs");
                let mut plain = Vec::new();
                rx.read(&out[at..at + len], &mut plain).expect("the receiver reads it");
                dec.apply(&plain).expect("the decoder applies it");
                at += len;
            }
            assert_eq!(dec.fb.hash_area(a), desk.hash_area(a), "the update's area");
        };
        update(desk);
        for ch in text.chars() {
            desk.key(scancode(ch).unwrap());
            update(desk);
        }
        assert_eq!(dec.fb.hash(), desk.hash(), "the whole screen at the end");
        dec.fb.clone()
    }

    #[test]
    fn sessions_started_from_the_shared_first_screen_end_as_one_that_drew_its_own() {
        let mut cfg = SessionConfig::standard(WorkloadKind::Typing { wpm: 100 }, 1000);
        (cfg.width, cfg.height, cfg.bpp) = (400, 300, 8);
        cfg.codec = Codec::from_name(crate::defaults::OPS_CODEC).unwrap();
        cfg.crypto = Crypto::None;
        let text = "the quick brown fox jumps over the lazy dog and on and on";
        let (mut a, mut b) = (EchoDesk::new(&cfg), EchoDesk::new(&cfg));
        assert!(a.first.is_some() && b.first.is_some(), "memfd works here: both share one first screen");
        let fa = typed(&cfg, text, &mut a);
        let fb = typed(&cfg, "and another", &mut b);
        assert_ne!(fa, fb);
        // The same typing on a session that drew its own first screen.
        let (canvas, screen) = first_screen(cfg.width, cfg.height, cfg.bpp);
        let mut own = EchoDesk {
            canvas,
            screen,
            editor: Editor::new(cfg.seed, cfg.width, cfg.height),
            enc: Encoder::new(cfg.width, cfg.height, cfg.bpp, cfg.encoder.clone(), None),
            first: None,
            unsent: true,
            start_cpu_ns: 0,
        };
        assert_eq!(typed(&cfg, text, &mut own), fa);
        assert!(a.screen.data.is_mapped() && a.enc.shadow().data.is_mapped());
    }
}
