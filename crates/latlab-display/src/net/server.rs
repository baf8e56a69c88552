//! The server end of a display connection: read the hello, render the workload on real time
//! (or flat out), encode, frame and write, drop frames a slow client cannot take, count the
//! input that comes back, and report.

use super::*;
use crate::encoder::Encoder;
use crate::fb::Framebuffer;
use crate::render::Canvas;
use crate::wire::{Sender, decode_input, pdu_len};
use crate::workload::FrameOut;
use latlab_core::clock::{monotonic_now, thread_cpu_now};
use std::io::{BufRead, BufReader};
use std::net::Shutdown;
use std::sync::Arc;

/// What the server did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerReport {
    /// Frames the workload rendered.
    pub frames: u64,
    /// Frames taken: encoded and sent (those with no change send nothing).
    pub sent: u64,
    /// Frames dropped because the client had not taken the previous ones.
    pub dropped: u64,
    /// Display PDUs written.
    pub display_pdus: u64,
    /// Their bytes.
    pub display_bytes: u64,
    /// Input PDUs received.
    pub input_pdus: u64,
    /// Their bytes.
    pub input_bytes: u64,
    /// Input events received.
    pub input_events: u64,
    /// Input events the script has (what should have arrived).
    pub input_expected: u64,
    /// Input PDUs that did not parse (counted and dropped).
    pub input_malformed: u64,
    /// Server CPU: rendering, ns.
    pub render_ns: u64,
    /// Server CPU: encoding, compressing and encrypting, ns.
    pub encode_ns: u64,
    /// Server CPU: writing, ns.
    pub send_ns: u64,
    /// MemBlt orders whose bitmap was in the client's cache (the encoder's count).
    pub cache_hits: u64,
    /// Cache Bitmap orders sent: bitmaps that were not in the cache.
    pub cache_misses: u64,
    /// `write` calls that moved bytes.
    pub writes: u64,
    /// Wall time of the session, ns.
    pub wall_ns: u64,
    /// Hash of the final screen.
    pub screen_hash: u64,
    /// Echo sessions: keys pressed (key-down events applied).
    pub keys: u64,
    /// Echo sessions with a working set: times it was paged out.
    pub pageouts: u64,
    /// …and the mean fraction of it still resident after a page-out (1: none left memory).
    pub resident_after: f64,
}

impl ServerReport {
    /// One line on the session, as `display serve` prints it when a client leaves.
    pub fn summary(&self) -> String {
        format!(
            "{} frames ({} dropped), {} display PDUs, {} bytes; {} of {} input events; {:.1} % of a core",
            self.frames,
            self.dropped,
            self.display_pdus,
            self.display_bytes,
            self.input_events,
            self.input_expected,
            100.0 * (self.render_ns + self.encode_ns + self.send_ns) as f64 / self.wall_ns.max(1) as f64
        )
    }
}

/// What the input reader counted.
#[derive(Debug, Default)]
struct InputCount {
    pdus: u64,
    bytes: u64,
    events: u64,
    malformed: u64,
}

/// Read input PDUs until the client closes; `early` is what arrived with the hello.
fn read_input(mut s: TcpStream, early: &[u8]) -> InputCount {
    let mut c = InputCount::default();
    let mut buf = vec![0u8; 64 * 1024];
    buf[..early.len()].copy_from_slice(early);
    let (mut head, mut tail) = (0, early.len());
    loop {
        while let Some(len) = pdu_len(&buf[head..tail]) {
            if len < 2 {
                // A length that cannot be: the stream cannot be resynchronised.
                c.malformed += 1;
                return c;
            }
            if tail - head < len {
                break;
            }
            match decode_input(&buf[head..head + len]) {
                Ok(ev) => {
                    c.pdus += 1;
                    c.bytes += len as u64;
                    c.events += ev.len() as u64;
                }
                Err(_) => c.malformed += 1,
            }
            head += len;
        }
        if head > 0 {
            buf.copy_within(head..tail, 0);
            tail -= head;
            head = 0;
        }
        match read_blocking(&mut s, &mut buf[tail..]) {
            Ok(0) | Err(_) => return c,
            Ok(n) => tail += n,
        }
    }
}

/// Write as much of `pending[*at..]` as the socket takes now; false at end of stream.
pub(crate) fn push(s: &mut TcpStream, pending: &[u8], at: &mut usize, writes: &mut u64) -> Result<(), NetError> {
    while *at < pending.len() {
        match s.write(&pending[*at..]) {
            Ok(0) => return Err(NetError::Protocol("the client closed the connection".into())),
            Ok(n) => {
                *at += n;
                *writes += 1;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(IoFailed::new("sending display PDUs", e).into()),
        }
    }
    Ok(())
}

/// Flush `pending` until `deadline` (monotonic ns; `None`: until all is sent).
pub(crate) fn flush(
    s: &mut TcpStream,
    pending: &mut Vec<u8>,
    at: &mut usize,
    writes: &mut u64,
    deadline: Option<u64>,
) -> Result<(), NetError> {
    loop {
        push(s, pending, at, writes)?;
        if *at == pending.len() {
            pending.clear();
            *at = 0;
            return Ok(());
        }
        if latlab_core::interrupt::stop_requested() {
            return Err(NetError::Protocol("interrupted".into()));
        }
        let timeout_ms = match deadline {
            Some(d) => {
                let now = monotonic_now();
                if now >= d {
                    return Ok(());
                }
                (d - now).div_ceil(1_000_000)
            }
            None => 1000,
        };
        wait(s, nix::poll::PollFlags::POLLOUT, timeout_ms).doing("waiting to send")?;
    }
}

/// Serve one connection: read the hello, run the session it asks for, report.
pub fn serve_connection(stream: TcpStream) -> Result<ServerReport, NetError> {
    stream.set_nodelay(true).doing("turning Nagle off")?;
    let mut reader = BufReader::new(stream.try_clone().doing("cloning the socket")?);
    let mut line = String::new();
    (&mut reader).take(MAX_HELLO as u64).read_line(&mut line).doing("reading the hello")?;
    let mut w = stream.try_clone().doing("cloning the socket")?;
    let (cfg, pace) = match parse_hello(line.trim_end()) {
        Ok(x) => x,
        Err(e) => {
            let _ = w.write_all(format!("ERR {e}\n").as_bytes());
            return Err(NetError::Protocol(format!("hello refused: {e}")));
        }
    };
    w.write_all(b"OK\n").doing("answering the hello")?;
    // Whatever the client sent after the hello is input; the reader keeps it.
    let early = reader.buffer().to_vec();
    if let Pace::Echo { working_set_mib } = pace {
        drop(reader);
        let r = super::echo::serve_echo(&mut w, &cfg, working_set_mib, &early);
        let _ = w.shutdown(Shutdown::Write);
        return r;
    }
    let input = std::thread::spawn(move || read_input(reader.into_inner(), &early));
    let r = serve_session(&mut w, &cfg, pace);
    let _ = w.shutdown(Shutdown::Write);
    let counted = input.join().unwrap_or_default();
    let mut r = r?;
    r.input_pdus = counted.pdus;
    r.input_bytes = counted.bytes;
    r.input_events = counted.events;
    r.input_malformed = counted.malformed;
    Ok(r)
}

fn serve_session(s: &mut TcpStream, cfg: &SessionConfig, pace: Pace) -> Result<ServerReport, NetError> {
    let mut rep = ServerReport::default();
    s.set_nonblocking(true).doing("making the socket non-blocking")?;
    let mut canvas = Canvas::new(cfg.width, cfg.height);
    let mut screen = Framebuffer::new(cfg.width, cfg.height, cfg.bpp);
    let mut workload = cfg.workload.build(cfg.seed);
    let mut enc = Encoder::new(cfg.width, cfg.height, cfg.bpp, cfg.encoder.clone(), None);
    let mut tx = Sender::new(cfg.codec, cfg.crypto);
    let mut out = FrameOut::default();
    let (mut pending, mut at) = (Vec::new(), 0usize);
    let frames = cfg.duration_ms.div_ceil(cfg.frame_ms);
    let start = monotonic_now();
    let period = cfg.frame_ms * 1_000_000;
    for k in 0..frames {
        if latlab_core::interrupt::stop_requested() {
            break;
        }
        let c0 = thread_cpu_now();
        match pace {
            Pace::RealTime => {
                let deadline = start + k * period;
                flush(s, &mut pending, &mut at, &mut rep.writes, Some(deadline))?;
                if monotonic_now() < deadline {
                    latlab_core::clock::clock_nanosleep_abs(deadline);
                }
            }
            Pace::FlatOut | Pace::Echo { .. } => flush(s, &mut pending, &mut at, &mut rep.writes, None)?,
        }
        let c1 = thread_cpu_now();
        rep.send_ns += c1 - c0;
        out.copies.clear();
        out.input.clear();
        out.blits.clear();
        workload.frame(k * cfg.frame_ms, &mut canvas, &mut out);
        rep.input_expected += out.input.len() as u64;
        rep.frames += 1;
        if !pending.is_empty() {
            // The client has not taken the last frame: this one is dropped, its damage
            // stays in the canvas for the next frame sent.
            rep.dropped += 1;
            rep.render_ns += thread_cpu_now() - c1;
            continue;
        }
        let changed = canvas.to_fb(&mut screen);
        let c2 = thread_cpu_now();
        rep.render_ns += c2 - c1;
        if changed || !out.copies.is_empty() || !out.blits.is_empty() {
            for pdu in enc.encode(&screen, &out.copies, &out.blits) {
                let before = pending.len();
                tx.frame(&pdu, &mut pending);
                rep.display_pdus += 1;
                rep.display_bytes += (pending.len() - before) as u64;
            }
        }
        rep.sent += 1;
        if cfg.check_every_frame {
            record(&mut pending, RECORD_FRAME, &[k, screen.hash()]);
        }
        let c3 = thread_cpu_now();
        rep.encode_ns += c3 - c2;
        push(s, &pending, &mut at, &mut rep.writes)?;
        rep.send_ns += thread_cpu_now() - c3;
    }
    flush(s, &mut pending, &mut at, &mut rep.writes, None)?;
    // Whatever the dropped frames left behind goes now, so both ends end equal.
    if canvas.to_fb(&mut screen) || rep.dropped > 0 {
        for pdu in enc.encode(&screen, &[], &[]) {
            let before = pending.len();
            tx.frame(&pdu, &mut pending);
            rep.display_pdus += 1;
            rep.display_bytes += (pending.len() - before) as u64;
        }
    }
    rep.screen_hash = screen.hash();
    (rep.cache_hits, rep.cache_misses) = (enc.stats.cache_hits, enc.stats.cache_misses);
    record(&mut pending, RECORD_COST, &[rep.render_ns, rep.encode_ns, rep.send_ns]);
    record(&mut pending, RECORD_END, &[rep.frames, rep.sent, rep.dropped, rep.screen_hash]);
    flush(s, &mut pending, &mut at, &mut rep.writes, None)?;
    rep.wall_ns = monotonic_now() - start;
    Ok(rep)
}

/// Listen on `listener` and serve each connection on its own thread; `once` returns after
/// the first. `report` is told of every connection's end.
pub fn serve(
    listener: &TcpListener,
    once: bool,
    report: impl Fn(std::net::SocketAddr, Result<ServerReport, NetError>) + Send + Sync + 'static,
) -> Result<(), NetError> {
    let report = Arc::new(report);
    for conn in listener.incoming() {
        if latlab_core::interrupt::stop_requested() {
            break;
        }
        let stream = match conn {
            Ok(s) => s,
            Err(_) if latlab_core::interrupt::stop_requested() => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(IoFailed::new("accepting a connection", e).into()),
        };
        let peer = stream.peer_addr().doing("reading the peer's address")?;
        if once {
            report(peer, serve_connection(stream));
            return Ok(());
        }
        let report = report.clone();
        std::thread::spawn(move || report(peer, serve_connection(stream)));
    }
    Ok(())
}

// ---- the client ----------------------------------------------------------------------------
