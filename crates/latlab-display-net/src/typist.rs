//! The client's side of an echo session: a typist thread presses keys on absolute deadlines
//! (key down, then key up half a gap later, as real fast-path input PDUs), then a few Page
//! Downs, each when the last has shown; the receiving thread decodes and blits as any client
//! does and, after every batch, looks at its framebuffer (the typometer): a key is shown when
//! its cell holds ink, a page when the body equals the page the client expects. The server's
//! per-key times come at the end (`K` records); with the client's own they split each key's
//! latency into stages.

use super::*;
use crate::client::{open_session, receive};
use crate::watch::{Shared, Watch};
use latlab_desktop::editor::{Keystroke, Layout, cells_of, expected_page, key_gap_ns, script};
use latlab_desktop::fb::{Area, pixel_of};
use latlab_desktop::wire::{Input, encode_input};
use latlab_desktop::workload::PAGE_DOWN;
use latlab_keyscreen::typometer::Detector;
use latlab_sys::clock::{clock_nanosleep_abs, monotonic_now};
use latlab_sys::platform::{Capability, Policy, Sched, set_sched};
use std::net::Shutdown;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What the typist does.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TypistConfig {
    /// Words a minute.
    pub wpm: u32,
    /// Seconds of typing.
    pub seconds: f64,
    /// Page Downs after the typing (large updates).
    pub pages: u32,
    /// A key not shown this long after its intended time is lost, ms.
    pub key_timeout_ms: u64,
    /// A page not shown this long after it was asked for is lost, ms.
    pub page_timeout_ms: u64,
    /// Run the client's threads at SCHED_FIFO when granted (so load on the machine does not
    /// delay the measuring end).
    pub fifo: bool,
    /// Seed of the typed text.
    pub seed: u64,
    /// How the keys are spaced about the rate's interval.
    pub gaps: latlab_desktop::gaps::KeyGaps,
}

impl TypistConfig {
    /// Check the settings.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if !(1..=1000).contains(&self.wpm) {
            return Err(format!("{} words a minute: use 1 to 1000", self.wpm).into());
        }
        if !(self.seconds > 0.0 && self.seconds <= 3600.0) {
            return Err("seconds of typing: more than 0, at most an hour".into());
        }
        if self.key_timeout_ms == 0 || self.page_timeout_ms == 0 {
            return Err("timeouts must be positive".into());
        }
        Ok(())
    }
}

/// One key's times, monotonic ns (0: not known).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeyRecord {
    /// When it was meant to be pressed.
    pub intended_ns: u64,
    /// When the write of its key-down PDU began.
    pub written_ns: u64,
    /// When the server's read brought it.
    pub received_ns: u64,
    /// When the server had encoded the update with it and began sending it.
    pub sent_ns: u64,
    /// That update's bytes.
    pub update_bytes: u64,
    /// When the client's read that completed the update returned.
    pub read_ns: u64,
    /// When the client's framebuffer showed it (`None`: never, or nothing to see).
    pub shown_ns: Option<u64>,
    /// Whether it draws something to see (not a space).
    pub visible: bool,
}

impl KeyRecord {
    /// From intended time to shown, ns.
    pub fn latency_ns(&self) -> Option<u64> {
        self.shown_ns.map(|s| s.saturating_sub(self.intended_ns))
    }
}

/// What a typing session measured.
#[derive(Debug, Clone, Default)]
pub struct TypingReport {
    /// The client's receiving side, as any session reports it.
    pub client: ClientReport,
    /// The typed keys, in order.
    pub keys: Vec<KeyRecord>,
    /// The Page Downs.
    pub pages: Vec<KeyRecord>,
    /// What the client's threads were granted, when FIFO was asked for.
    pub fifo: Option<Capability>,
}

/// Time before the first key, after the first screen is shown: the session's opening frame
/// has settled.
const LEAD_NS: u64 = 300_000_000;
/// Time before each Page Down, after the previous one showed or was given up.
const PAGE_GAP_NS: u64 = 300_000_000;

/// Type into the server on `stream`: the session `cfg` asks for (its workload's geometry,
/// codec and cipher), the echo pace with `working_set_mib`, the typist `tc`.
pub fn type_on(
    stream: TcpStream,
    cfg: &SessionConfig,
    working_set_mib: u32,
    vc: &ViewConfig,
    tc: &TypistConfig,
) -> Result<TypingReport, NetError> {
    tc.validate()?;
    let keys = script(tc.seed, tc.wpm, tc.seconds, tc.gaps);
    let gap = key_gap_ns(tc.wpm);
    // The server's clock of the session: long enough for the typing and the pages.
    let mut cfg = cfg.clone();
    cfg.duration_ms = ((keys.last().map_or(0, |k| k.at_ns) + gap) / 1_000_000).max(1);
    let layout = Layout::for_screen(cfg.width, cfg.height);
    let cells = cells_of(layout, &keys);
    let pages: Vec<(Area, Vec<u8>)> =
        (1..=tc.pages as usize).map(|p| expected_page(cfg.seed, cfg.width, cfg.height, cfg.bpp, p)).collect();
    let shared = Arc::new(Shared { page_at: (0..tc.pages).map(|_| AtomicU64::new(0)).collect(), ..Shared::default() });
    let visible = cells.iter().filter(|c| c.is_some()).count() as u64;
    let mut watch = Watch {
        shared: shared.clone(),
        script: keys.clone(),
        cells,
        detector: Detector::new(pixel_of(cfg.bpp, 255, 255, 255), tc.key_timeout_ms * 1_000_000),
        seen: Vec::with_capacity(keys.len()),
        shown: vec![None; keys.len()],
        pages,
        page_shown: vec![None; tc.pages as usize],
        next_page: 0,
        page_timeout_ns: tc.page_timeout_ms * 1_000_000,
        server: Vec::with_capacity(keys.len() + tc.pages as usize),
        lead_ns: LEAD_NS,
    };
    let (mut s, w) = open_session(stream, &cfg, Pace::Echo { working_set_mib }, vc)?;
    let fifo = tc
        .fifo
        .then(|| set_sched(Sched { policy: Policy::Fifo, priority: latlab_keyscreen::defaults::TYPIST_PRIORITY }));
    let granted = fifo.as_ref().is_some_and(|c| c.granted);
    let typist = {
        let shared = shared.clone();
        let keys = keys.clone();
        let tc = tc.clone();
        std::thread::spawn(move || type_keys(w, &keys, gap, &tc, visible, &shared, granted))
    };
    s.set_nonblocking(true).doing("making the socket non-blocking")?;
    let r = receive(&mut s, &cfg, vc, monotonic_now(), Some(&mut watch));
    shared.ended.store(true, Ordering::Release);
    let written = typist.join().map_err(|_| NetError::Protocol("the typist thread panicked".into()))?;
    let _ = s.shutdown(Shutdown::Both);
    if granted {
        set_sched(Sched { policy: Policy::Other, priority: 0 });
    }
    let mut client = r?;
    let (written, page_written, n, bytes, segments) = written?;
    client.input_pdus = n;
    client.input_bytes = bytes;
    client.input_segments = segments;
    let pressed = written.iter().filter(|&&t| t != 0).count() + page_written.len();
    if watch.server.len() != pressed {
        return Err(NetError::Protocol(format!(
            "the server applied {} keys, the typist pressed {pressed}",
            watch.server.len()
        )));
    }
    let start = shared.start_ns.load(Ordering::Acquire);
    let at = |i: usize, intended: u64, written: u64, shown: Option<(u64, u64)>, visible: bool| {
        let [received_ns, sent_ns, update_bytes] = watch.server[i];
        KeyRecord {
            intended_ns: intended,
            written_ns: written,
            received_ns,
            sent_ns,
            update_bytes,
            read_ns: shown.map_or(0, |s| s.0),
            shown_ns: shown.map(|s| s.1),
            visible,
        }
    };
    let key_records = (0..keys.len())
        .take_while(|&i| written[i] != 0)
        .map(|i| at(i, start + keys[i].at_ns, written[i], watch.shown[i], watch.cells[i].is_some()))
        .collect();
    let page_records = page_written
        .iter()
        .enumerate()
        .map(|(p, &(intended, wrote))| at(keys.len() + p, intended, wrote, watch.page_shown[p], true))
        .collect();
    Ok(TypingReport { client, keys: key_records, pages: page_records, fifo })
}

/// What the typist wrote: each key's write time, each page's, and its input PDUs, bytes and segments.
type Typed = (Vec<u64>, Vec<(u64, u64)>, u64, u64, u64);

/// The typist: keys on their deadlines, then the pages one at a time, then the end.
fn type_keys(
    mut w: TcpStream,
    keys: &[Keystroke],
    gap: u64,
    tc: &TypistConfig,
    visible: u64,
    shared: &Shared,
    fifo: bool,
) -> Result<Typed, NetError> {
    if fifo {
        set_sched(Sched { policy: Policy::Fifo, priority: latlab_keyscreen::defaults::TYPIST_PRIORITY });
    }
    // The PDUs, made before the clock starts: nothing allocates on the deadlines.
    let pdu = |code: u8, up: bool| {
        let mut v = Vec::new();
        encode_input(&[Input::Key { code, up }], &mut v);
        v
    };
    let downs: Vec<Vec<u8>> = keys.iter().map(|k| pdu(k.code, false)).collect();
    let ups: Vec<Vec<u8>> = keys.iter().map(|k| pdu(k.code, true)).collect();
    let (page_down, page_up) = (pdu(PAGE_DOWN, false), pdu(PAGE_DOWN, true));
    let mut written = vec![0u64; keys.len()];
    let mut pages = Vec::with_capacity(tc.pages as usize);
    let (mut n, mut bytes, mut segments) = (0u64, 0u64, 0u64);
    let waiting = |until: &dyn Fn() -> bool, limit_ns: u64| {
        let give_up = monotonic_now() + limit_ns;
        while !until() && monotonic_now() < give_up && !shared.ended.load(Ordering::Acquire) {
            if latlab_sys::interrupt::stop_requested() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    };
    // The first screen, then the lead.
    waiting(&|| shared.start_ns.load(Ordering::Acquire) != 0, 30_000_000_000);
    let start = shared.start_ns.load(Ordering::Acquire);
    if start == 0 {
        let _ = w.shutdown(Shutdown::Write);
        return Err(NetError::Protocol("the server's first screen did not arrive within 30 s".into()));
    }
    let mut send = |w: &mut TcpStream, p: &[u8]| -> Result<(), NetError> {
        write_blocking(w, p).doing("sending a key")?;
        n += 1;
        bytes += p.len() as u64;
        segments += latlab_desktop::wire::framing(p.len() as u64).0;
        Ok(())
    };
    for (i, k) in keys.iter().enumerate() {
        if latlab_sys::interrupt::stop_requested() || shared.ended.load(Ordering::Relaxed) {
            break;
        }
        clock_nanosleep_abs(start + k.at_ns);
        // Stamped as the write begins: the server may read the key before the call returns.
        written[i] = monotonic_now();
        send(&mut w, &downs[i])?;
        clock_nanosleep_abs(start + k.at_ns + gap / 2);
        send(&mut w, &ups[i])?;
    }
    // Every key shown or given up.
    waiting(&|| shared.keys_done.load(Ordering::Acquire) >= visible, tc.key_timeout_ms * 1_000_000 + gap);
    for p in 0..tc.pages as usize {
        if latlab_sys::interrupt::stop_requested() || shared.ended.load(Ordering::Relaxed) {
            break;
        }
        let at = monotonic_now() + PAGE_GAP_NS;
        clock_nanosleep_abs(at);
        shared.page_at[p].store(at, Ordering::Release);
        pages.push((at, monotonic_now()));
        send(&mut w, &page_down)?;
        send(&mut w, &page_up)?;
        waiting(&|| shared.pages_done.load(Ordering::Acquire) > p as u64, tc.page_timeout_ms * 1_000_000 + gap);
    }
    let _ = w.shutdown(Shutdown::Write);
    Ok((written, pages, n, bytes, segments))
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_desktop::encoder::EncoderConfig;
    use latlab_desktop::policy::PolicyKind;
    use latlab_desktop::wire::{Codec, Crypto};
    use latlab_desktop::workload::WorkloadKind;
    use latlab_rdp::CompressionType;
    use std::net::TcpListener;

    pub(crate) fn session() -> SessionConfig {
        SessionConfig {
            width: 480,
            height: 360,
            bpp: 16,
            workload: WorkloadKind::Typing { wpm: 200 },
            seed: 2,
            frame_ms: 20,
            duration_ms: 1000,
            warmup_ms: 0,
            encoder: EncoderConfig { orders: true, cells: [120, 120, 337], policy: PolicyKind::Lru, max_pdu: 16_000 },
            codec: Codec::Rdp(CompressionType::Ncrush),
            crypto: Crypto::ALL[1],
            check_every_frame: true,
            timed: false,
        }
    }

    fn typist() -> TypistConfig {
        TypistConfig {
            wpm: 300,
            seconds: 1.5,
            pages: 2,
            key_timeout_ms: 60_000,
            page_timeout_ms: 60_000,
            fifo: false,
            seed: 3,
            gaps: latlab_desktop::gaps::KeyGaps::default(),
        }
    }

    fn run(ws: u32) -> (ServerReport, TypingReport) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || serve_connection(listener.accept().unwrap().0));
        let r = type_on(TcpStream::connect(addr).unwrap(), &session(), ws, &ViewConfig::default(), &typist());
        (server.join().unwrap().unwrap(), r.unwrap())
    }

    #[test]
    fn every_key_and_page_shows_and_the_stages_are_in_order() {
        let (s, r) = run(0);
        let keys = script(3, 300, 1.5, typist().gaps);
        assert_eq!(r.keys.len(), keys.len());
        assert_eq!(r.pages.len(), 2);
        assert_eq!(s.keys, (keys.len() + 2) as u64);
        // Key down and key up for each key and page.
        assert_eq!(s.input_events, 2 * s.keys);
        assert_eq!(r.client.input_pdus, 2 * s.keys);
        assert_eq!(s.input_malformed, 0);
        // Both ends ended equal, and every update was checked.
        assert_eq!(r.client.screen_hash, s.screen_hash);
        assert_eq!(r.client.frames_checked, s.sent);
        for (k, rec) in keys.iter().zip(&r.keys) {
            assert_eq!(rec.visible, k.ch != ' ');
            if !rec.visible {
                assert_eq!(rec.shown_ns, None, "a space shows nothing");
                continue;
            }
            let shown = rec.shown_ns.expect("every glyph shows on loopback within a minute");
            // Each stamp follows the one before it (the clocks are the same machine's).
            assert!(rec.written_ns >= rec.intended_ns, "{rec:?}");
            assert!(rec.received_ns >= rec.written_ns, "{rec:?}");
            assert!(rec.sent_ns >= rec.received_ns, "{rec:?}");
            assert!(rec.read_ns >= rec.sent_ns, "{rec:?}");
            assert!(shown >= rec.read_ns, "{rec:?}");
            assert!(rec.update_bytes > 0);
        }
        for p in &r.pages {
            assert!(p.shown_ns.is_some(), "{p:?}");
            assert!(p.update_bytes > 2_000, "a page is a large update: {p:?}");
        }
    }

    #[test]
    fn a_working_set_is_paged_out_between_keys() {
        let (s, r) = run(4);
        assert!(s.pageouts > 0);
        assert!((0.0..=1.0).contains(&s.resident_after));
        assert_eq!(r.client.screen_hash, s.screen_hash);
    }

    #[test]
    fn a_bad_typist_is_refused_before_connecting() {
        let mut t = typist();
        t.wpm = 0;
        assert!(t.validate().unwrap_err().to_string().contains("words a minute"));
        t = typist();
        t.seconds = 0.0;
        assert!(t.validate().is_err());
    }
}
