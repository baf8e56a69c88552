//! Key to screen on a real server: latlab's RDP client as a [`Surface`] (the screen it decodes,
//! keys as fast-path keyboard events), timed by [`latlab_keyscreen::typist`]; and Page Down timed to
//! the whole new page.

use crate::session::{Key, RdpSession, SessionError};
use latlab_desktop::fb::Framebuffer;
use latlab_keyscreen::keys;
pub use latlab_keyscreen::typist::{
    BeforeKey, Surface, TypingPlan, TypingResult, first_picture, measure, settle, settle_change,
};
use latlab_sys::clock::monotonic_now;

impl Surface for RdpSession {
    type Error = SessionError;

    fn kind(&self) -> &'static str {
        "rdp"
    }

    fn screen(&self) -> &Framebuffer {
        RdpSession::screen(self)
    }

    fn pictures(&self) -> u64 {
        self.counts().pictures
    }

    fn pump_until(&mut self, deadline_ns: u64, drawn: &mut dyn FnMut(&Framebuffer, u64)) -> Result<(), SessionError> {
        RdpSession::pump_until(self, deadline_ns, drawn)
    }

    fn type_keys(&mut self, keys: &[Key]) -> Result<u64, SessionError> {
        RdpSession::type_keys(self, keys)
    }

    fn describe(&self) -> String {
        let c = self.counts();
        format!(
            "the server sent {} fast-path PDUs ({} bytes; updates {:?}) and {} slow-path frames, {} updates latlab \
             does not draw",
            c.fastpath_pdus, c.fastpath_bytes, c.updates, c.slowpath_frames, c.not_drawn
        )
    }
}

/// One Page Down: from its send to the last update before the screen settled, and the
/// display bytes in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Send to the whole update on the screen, ns.
    pub latency_ns: u64,
    /// Display bytes of the update (fast-path and slow-path updates).
    pub bytes: u64,
}

/// Press Page Down `n` times, each once the screen settled; a press that changes nothing
/// within `timeout_ns` is counted as lost (the second value).
pub fn page_downs(
    s: &mut RdpSession,
    n: usize,
    settle_ns: u64,
    timeout_ns: u64,
) -> Result<(Vec<Page>, u64), SessionError> {
    let mut pages = Vec::new();
    let mut lost = 0;
    for _ in 0..n {
        if latlab_sys::interrupt::stop_requested() {
            break;
        }
        settle(s, settle_ns, timeout_ns)?;
        let b0 = s.counts().display_bytes;
        let sent = s.type_keys(&[keys::PAGE_DOWN])?;
        let mut last: Option<u64> = None;
        loop {
            let now = monotonic_now();
            match last {
                Some(l) if now.saturating_sub(l) >= settle_ns => break,
                None if now.saturating_sub(sent) >= timeout_ns => break,
                _ => {}
            }
            s.pump_until(now + 5_000_000, &mut |_, t| last = Some(t))?;
        }
        match last {
            Some(l) => pages.push(Page { latency_ns: l - sent, bytes: s.counts().display_bytes - b0 }),
            None => lost += 1,
        }
    }
    Ok((pages, lost))
}
