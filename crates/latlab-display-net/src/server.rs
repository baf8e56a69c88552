//! The server end of a display connection: read the hello, render the workload on real time
//! (or flat out), encode, frame and write, drop frames a slow client cannot take, count the
//! input that comes back, and report.

use super::*;
use crate::report::ServerReport;
use crate::send::{flush, push};
use latlab_desktop::encoder::Encoder;
use latlab_desktop::fb::Framebuffer;
use latlab_desktop::render::Canvas;
use latlab_desktop::wire::{Sender, decode_input, pdu_len};
use latlab_desktop::workload::FrameOut;
use latlab_sys::clock::{monotonic_now, thread_cpu_now};
use std::io::{BufRead, BufReader};
use std::net::Shutdown;

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

/// Serve one connection: read the hello, run the session it asks for, report. For callers
/// that trust their peer (the experiments' own loopback pairs): the hello is read blocking,
/// and the session has the default bounds. `display serve` goes through [`super::serve_bounded`].
pub fn serve_connection(stream: TcpStream) -> Result<ServerReport, NetError> {
    let mut reader = BufReader::new(stream.try_clone().doing("cloning the socket")?);
    let mut line = String::new();
    (&mut reader).take(MAX_HELLO as u64).read_line(&mut line).doing("reading the hello")?;
    // Whatever the client sent after the hello is input; the reader kept it.
    let early = reader.buffer().to_vec();
    match parse_hello(line.trim_end()) {
        Ok((cfg, pace)) => run_session(stream, cfg, pace, &early, SessionBounds::default()),
        Err(e) => {
            let mut w = stream;
            let _ = w.write_all(format!("ERR {e}\n").as_bytes());
            Err(NetError::Protocol(format!("hello refused: {e}")))
        }
    }
}

/// Run the session a valid hello asked for on `stream` (blocking): answer `OK`, serve, count
/// the input that comes back (`early`: what arrived with the hello), report.
pub(crate) fn run_session(
    stream: TcpStream,
    cfg: SessionConfig,
    pace: Pace,
    early: &[u8],
    bounds: SessionBounds,
) -> Result<ServerReport, NetError> {
    stream.set_nodelay(true).doing("turning Nagle off")?;
    nix::sys::socket::setsockopt(&stream, nix::sys::socket::sockopt::SndBuf, &crate::defaults::SERVER_SNDBUF)
        .map_err(|e| IoFailed::new("setting SO_SNDBUF", e.into()))?;
    let mut w = stream.try_clone().doing("cloning the socket")?;
    w.write_all(b"OK\n").doing("answering the hello")?;
    if let Pace::Echo { working_set_mib } = pace {
        let r = crate::echo::serve_echo(&mut w, &cfg, working_set_mib, early, bounds);
        let _ = w.shutdown(Shutdown::Write);
        return r;
    }
    let early = early.to_vec();
    let input = std::thread::spawn(move || read_input(stream, &early));
    let r = serve_session(&mut w, &cfg, pace, bounds);
    let _ = w.shutdown(Shutdown::Write);
    // The client closes once it has read the end; one that does not is cut off after the
    // idle timeout, so the input thread always ends.
    let until = monotonic_now() + bounds.idle_ns;
    while !input.is_finished() && monotonic_now() < until {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    if !input.is_finished() {
        let _ = w.shutdown(Shutdown::Both);
    }
    let counted = input.join().unwrap_or_default();
    let mut r = r?;
    r.input_pdus = counted.pdus;
    r.input_bytes = counted.bytes;
    r.input_events = counted.events;
    r.input_malformed = counted.malformed;
    Ok(r)
}

fn serve_session(
    s: &mut TcpStream,
    cfg: &SessionConfig,
    pace: Pace,
    bounds: SessionBounds,
) -> Result<ServerReport, NetError> {
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
        if latlab_sys::interrupt::stop_requested() {
            break;
        }
        let c0 = thread_cpu_now();
        match pace {
            Pace::RealTime => {
                let deadline = start + k * period;
                flush(s, &mut pending, &mut at, &mut rep.writes, Some(deadline), bounds.idle_ns)?;
                if monotonic_now() < deadline {
                    latlab_sys::clock::clock_nanosleep_abs(deadline);
                }
            }
            Pace::FlatOut | Pace::Echo { .. } => {
                flush(s, &mut pending, &mut at, &mut rep.writes, None, bounds.idle_ns)?
            }
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
        let damage = canvas.to_fb_area(&mut screen);
        let c2 = thread_cpu_now();
        rep.render_ns += c2 - c1;
        if damage.is_some() || !out.copies.is_empty() || !out.blits.is_empty() {
            for pdu in enc.encode_damage(&screen, damage.unwrap_or_default(), &out.copies, &out.blits) {
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
    flush(s, &mut pending, &mut at, &mut rep.writes, None, bounds.idle_ns)?;
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
    flush(s, &mut pending, &mut at, &mut rep.writes, None, bounds.idle_ns)?;
    rep.wall_ns = monotonic_now() - start;
    Ok(rep)
}

// ---- the client ----------------------------------------------------------------------------
