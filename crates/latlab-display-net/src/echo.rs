//! The server's side of an echo session (`Pace::Echo`): no script; each key the client sends
//! is applied to the editor as it arrives, and the update goes out at once — or, while the
//! previous update is still queued for a slow link or client, with the next one (keys keep
//! landing in the canvas meanwhile, as a real server coalesces). Optionally the server holds
//! a working set it touches on every key and pages out once the update is sent (memory
//! pressure between keys). At the end, one `K` record per key with the server's times, then
//! the end record.

use super::*;
use crate::desk::EchoDesk;
use crate::report::ServerReport;
use crate::send::{flush, idle, push};
use latlab_desktop::wire::{Input, Sender, decode_input, pdu_len};
use latlab_sys::clock::{monotonic_now, thread_cpu_now};

/// The server's times of one key, monotonic ns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeyTimes {
    /// When the read that brought the key returned.
    pub received_ns: u64,
    /// When the update that carried it was encoded and its sending began.
    pub sent_ns: u64,
    /// That update's bytes on the wire (shared by the keys coalesced into it).
    pub update_bytes: u64,
}

/// The memory the server touches per key.
struct WorkingSet {
    mem: Vec<u8>,
    pageouts: u64,
    resident_sum: f64,
}

impl WorkingSet {
    fn new(mib: u32) -> Option<Self> {
        (mib > 0).then(|| {
            let mut mem = vec![0u8; (mib as usize) << 20];
            for (i, b) in mem.iter_mut().enumerate().step_by(latlab_sys::pageout::PAGE) {
                *b = i as u8 | 1;
            }
            Self { mem, pageouts: 0, resident_sum: 0.0 }
        })
    }

    /// Read every page (what the application does with its heap on a key).
    fn touch(&self) {
        let sum = self.mem.iter().step_by(latlab_sys::pageout::PAGE).fold(0u64, |s, b| s.wrapping_add(*b as u64));
        std::hint::black_box(sum);
    }

    /// Push it out to swap, and see how much stayed.
    fn page_out(&mut self) {
        if latlab_sys::pageout::pageout(&mut self.mem).is_ok() {
            self.pageouts += 1;
            self.resident_sum += latlab_sys::pageout::resident(&mut self.mem).unwrap_or(1.0);
        }
    }
}

/// Serve an echo session on `s` (non-blocking from here); `early` is input that came with the
/// hello.
pub(crate) fn serve_echo(
    s: &mut TcpStream,
    cfg: &SessionConfig,
    working_set_mib: u32,
    early: &[u8],
    bounds: SessionBounds,
) -> Result<ServerReport, NetError> {
    let mut rep = ServerReport::default();
    let mut ws = WorkingSet::new(working_set_mib);
    s.set_nonblocking(true).doing("making the socket non-blocking")?;
    let start = monotonic_now();
    let mut desk = EchoDesk::new(cfg);
    let mut tx = Sender::new(cfg.codec, cfg.crypto);
    let (mut pending, mut at) = (Vec::new(), 0usize);
    // Keys by number; those from `queued` on are in the canvas but not yet in an update, those
    // in `in_flight` are in the update being written.
    let expect = (cfg.duration_ms as f64 / latlab_desktop::editor::key_gap_ns(200) as f64 * 1e6) as usize;
    let mut keys: Vec<KeyTimes> = Vec::with_capacity(expect.clamp(64, 1 << 20));
    let (mut queued, mut in_flight) = (0usize, 0..0usize);
    let mut inbuf = vec![0u8; 64 * 1024];
    inbuf[..early.len()].copy_from_slice(early);
    let (mut head, mut tail) = (0usize, early.len());
    let mut events = Vec::with_capacity(64);
    let mut eof = false;
    // Last time the client took or sent a byte (the idle timeout's clock).
    let mut activity = start;
    let mut dirty = true;
    let mut update_bytes = 0u64;
    let mut encoded_at = 0u64;
    rep.render_ns += desk.start_cpu_ns;
    loop {
        // Encode what the keys drew, unless the last update is still queued.
        if pending.is_empty() && dirty {
            let c1 = thread_cpu_now();
            let changed = desk.convert();
            let c2 = thread_cpu_now();
            rep.render_ns += c2 - c1;
            if let Some(area) = changed {
                rep.display_pdus += desk.encode(area, &mut tx, &mut pending);
            }
            update_bytes = pending.len() as u64;
            rep.display_bytes += update_bytes;
            // The client checks the area the update changed (the whole screen at the end).
            let a = changed.unwrap_or_default();
            record(
                &mut pending,
                RECORD_AREA,
                &[rep.sent, a.x as u64, a.y as u64, a.w as u64, a.h as u64, desk.hash_area(a)],
            );
            rep.sent += 1;
            rep.frames += 1;
            in_flight = queued..keys.len();
            queued = keys.len();
            dirty = false;
            rep.encode_ns += thread_cpu_now() - c2;
            encoded_at = monotonic_now();
        }
        let c3 = thread_cpu_now();
        let sent_before = at;
        push(s, &pending, &mut at, &mut rep.writes)?;
        if at > sent_before {
            activity = monotonic_now();
        }
        if at == pending.len() {
            pending.clear();
            at = 0;
        }
        rep.send_ns += thread_cpu_now() - c3;
        // The update in flight is out: its keys are sent; memory pressure acts between keys.
        if pending.is_empty() && !in_flight.is_empty() {
            for k in &mut keys[in_flight.clone()] {
                k.sent_ns = encoded_at;
                k.update_bytes = update_bytes;
            }
            in_flight = 0..0;
            if let (true, Some(w)) = (queued == keys.len(), ws.as_mut()) {
                w.page_out();
            }
        }
        if eof && pending.is_empty() && !dirty {
            break;
        }
        if latlab_sys::interrupt::stop_requested() {
            return Err(NetError::Protocol("interrupted".into()));
        }
        let now = monotonic_now();
        if now - start > bounds.max_ns {
            return Err(NetError::Protocol(format!(
                "the session passed the server's bound of {:.0} s (--max-session)",
                bounds.max_ns as f64 / 1e9
            )));
        }
        if now - activity >= bounds.idle_ns {
            return Err(idle(bounds.idle_ns));
        }
        // Wait for input, or for room to send.
        let mut flags = nix::poll::PollFlags::empty();
        if !eof {
            flags |= nix::poll::PollFlags::POLLIN;
        }
        if !pending.is_empty() {
            flags |= nix::poll::PollFlags::POLLOUT;
        }
        if !flags.is_empty() {
            wait(s, flags, 1000).doing("waiting for keys")?;
        }
        // Read what came.
        if !eof {
            loop {
                if tail == inbuf.len() {
                    break;
                }
                match s.read(&mut inbuf[tail..]) {
                    Ok(0) => {
                        eof = true;
                        break;
                    }
                    Ok(n) => {
                        tail += n;
                        activity = monotonic_now();
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(IoFailed::new("receiving keys", e).into()),
                }
            }
        }
        let received = monotonic_now();
        // Apply every whole input PDU.
        while let Some(len) = pdu_len(&inbuf[head..tail]) {
            if len < 2 {
                return Err(NetError::Protocol("an input PDU of impossible length".into()));
            }
            if tail - head < len {
                break;
            }
            events.clear();
            match decode_input(&inbuf[head..head + len]) {
                Ok(ev) => {
                    rep.input_pdus += 1;
                    rep.input_bytes += len as u64;
                    events.extend(ev);
                }
                Err(_) => rep.input_malformed += 1,
            }
            head += len;
            for e in &events {
                rep.input_events += 1;
                if let Input::Key { code, up: false } = *e {
                    let c = thread_cpu_now();
                    if let Some(w) = &ws {
                        w.touch();
                    }
                    desk.key(code);
                    keys.push(KeyTimes { received_ns: received, ..KeyTimes::default() });
                    dirty = true;
                    rep.render_ns += thread_cpu_now() - c;
                }
            }
        }
        if head > 0 {
            inbuf.copy_within(head..tail, 0);
            tail -= head;
            head = 0;
        }
        if tail == inbuf.len() {
            return Err(NetError::Protocol("an input PDU larger than the input buffer".into()));
        }
    }
    rep.input_expected = rep.input_events;
    rep.keys = keys.len() as u64;
    rep.screen_hash = desk.hash();
    (rep.cache_hits, rep.cache_misses) = desk.cache_stats();
    if let Some(w) = &ws {
        rep.pageouts = w.pageouts;
        rep.resident_after = if w.pageouts > 0 { w.resident_sum / w.pageouts as f64 } else { 1.0 };
    }
    for (i, k) in keys.iter().enumerate() {
        record(&mut pending, RECORD_KEY, &[i as u64, k.received_ns, k.sent_ns, k.update_bytes]);
    }
    record(&mut pending, RECORD_COST, &[rep.render_ns, rep.encode_ns, rep.send_ns]);
    record(&mut pending, RECORD_END, &[rep.frames, rep.sent, rep.dropped, rep.screen_hash]);
    flush(s, &mut pending, &mut at, &mut rep.writes, None, bounds.idle_ns)?;
    rep.wall_ns = monotonic_now() - start;
    Ok(rep)
}
