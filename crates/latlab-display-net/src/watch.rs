//! What the receiving thread of a typed session watches for: each key's cell and each page,
//! seen on the screen as batches are read, and the server's key records; shared with the
//! typist through [`Shared`].

use super::*;
use latlab_desktop::editor::Keystroke;
use latlab_desktop::fb::{Area, Framebuffer};
use latlab_keyscreen::typometer::{Detector, Seen};
use latlab_sys::clock::monotonic_now;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Shared between the typist and the receiving thread.
#[derive(Debug, Default)]
pub(super) struct Shared {
    /// When typing starts (set by the receiver once the first screen is checked), ns.
    pub(super) start_ns: AtomicU64,
    /// Keys resolved (shown or lost) and pages resolved.
    pub(super) keys_done: AtomicU64,
    pub(super) pages_done: AtomicU64,
    /// When each page was asked for (0: not yet).
    pub(super) page_at: Vec<AtomicU64>,
    /// The receiver ended (its error or the end record).
    pub(super) ended: std::sync::atomic::AtomicBool,
}

/// What the receiving thread watches for.
pub struct Watch {
    pub(super) shared: Arc<Shared>,
    pub(super) script: Vec<Keystroke>,
    pub(super) cells: Vec<Option<Area>>,
    pub(super) detector: Detector,
    pub(super) seen: Vec<Seen>,
    /// Per key: (read, shown).
    pub(super) shown: Vec<Option<(u64, u64)>>,
    pub(super) pages: Vec<(Area, Vec<u8>)>,
    /// Per page: (read, shown).
    pub(super) page_shown: Vec<Option<(u64, u64)>>,
    pub(super) next_page: usize,
    pub(super) page_timeout_ns: u64,
    pub(super) server: Vec<[u64; 3]>,
    pub(super) lead_ns: u64,
}

impl Watch {
    /// The first screen is checked: typing may start.
    pub(crate) fn frame_checked(&mut self) {
        if self.shared.start_ns.load(Ordering::Acquire) != 0 {
            return;
        }
        let start = monotonic_now() + self.lead_ns;
        for (i, (k, cell)) in self.script.iter().zip(&self.cells).enumerate() {
            if let Some(c) = cell {
                self.detector.expect(i as u64, *c, start + k.at_ns);
            }
        }
        self.shared.start_ns.store(start, Ordering::Release);
    }

    /// A server's key record.
    pub(crate) fn server_key(&mut self, k: u64, received: u64, sent: u64, bytes: u64) -> Result<(), NetError> {
        if k as usize != self.server.len() || self.server.len() > self.script.len() + self.pages.len() {
            return Err(NetError::Protocol(format!("key record {k} out of order")));
        }
        self.server.push([received, sent, bytes]);
        Ok(())
    }

    /// Look at the screen after a batch read at `read_ns`, now `now_ns`.
    pub(crate) fn look(&mut self, fb: &Framebuffer, read_ns: u64, now_ns: u64) {
        if self.shared.start_ns.load(Ordering::Relaxed) == 0 {
            return;
        }
        self.seen.clear();
        let missed = self.detector.missed();
        self.detector.check(fb, now_ns, &mut self.seen);
        for s in &self.seen {
            self.shown[s.key as usize] = Some((read_ns, now_ns));
        }
        let resolved = self.seen.len() as u64 + self.detector.missed() - missed;
        if resolved > 0 {
            self.shared.keys_done.fetch_add(resolved, Ordering::Release);
        }
        let p = self.next_page;
        if p < self.pages.len() {
            let at = self.shared.page_at[p].load(Ordering::Acquire);
            if at != 0 && now_ns >= at {
                let (area, want) = &self.pages[p];
                if region_equals(fb, *area, want) {
                    self.page_shown[p] = Some((read_ns, now_ns));
                    self.next_page += 1;
                } else if now_ns - at > self.page_timeout_ns {
                    self.next_page += 1;
                }
                if self.next_page > p {
                    self.shared.pages_done.store(self.next_page as u64, Ordering::Release);
                }
            }
        }
    }
}

/// Whether `fb`'s `area` holds exactly `want` (rows of `area.w` pixels).
fn region_equals(fb: &Framebuffer, area: Area, want: &[u8]) -> bool {
    let row = area.w * fb.ps;
    (0..area.h).all(|r| fb.row(area.x, area.y + r, area.w) == &want[r * row..(r + 1) * row])
}
