//! The display pipeline across TCP: the server renders the workload on real time, encodes,
//! frames and writes with Nagle off; the client receives with a configured receive buffer
//! and wake-up threshold (seed 000's NPRecvBufferSize and NPRecvThreshold), decrypts,
//! decompresses, decodes and blits, and accounts its CPU per stage. Input flows the other
//! way on the same connection. `pair` runs both ends in one process over loopback (the
//! default); `serve` and `view` run them on two hosts.
//!
//! The connection: the client sends one hello line with the session's settings; the server
//! answers `OK` or `ERR reason`. Then the server sends fast-path output PDUs and latlab's own
//! TPKT-framed records (first byte 3, which no fast-path PDU has): `F` (frame number and
//! screen hash, when the client asked for per-frame checks) and `E` (end: frames rendered,
//! sent and dropped, and the final screen hash). The client sends fast-path input PDUs.
//!
//! When the client falls behind, its receive buffer and then the server's send buffer
//! fill; a frame whose deadline comes while the previous frame's bytes are still queued is
//! dropped (the damage accumulates and goes with the next frame sent), as a real server
//! coalesces updates for a slow client.

use crate::decoder::{DecodeError, Decoder};
use crate::encoder::{Encoder, EncoderConfig};
use crate::fb::Framebuffer;
use crate::policy::PolicyKind;
use crate::render::Canvas;
use crate::session::{SessionConfig, SessionError};
use crate::wire::{Codec, Crypto, Receiver, Sender, WireError, decode_input, encode_input, pdu_len};
use crate::workload::{FrameOut, WorkloadKind};
use latlab_core::clock::{monotonic_now, thread_cpu_now};
use latlab_core::ioerr::{Doing, IoFailed};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use thiserror::Error;

/// The hello's first word and protocol version.
const MAGIC: &str = "LATLAB-DISPLAY/1";
/// Longest hello line accepted.
const MAX_HELLO: usize = 1024;
/// First byte of latlab's own records (a TPKT version; fast-path PDUs have action 0).
const RECORD: u8 = 3;
const RECORD_FRAME: u8 = b'F';
const RECORD_END: u8 = b'E';

/// Why a connection failed.
#[derive(Debug, Error)]
pub enum NetError {
    /// A socket call failed.
    #[error(transparent)]
    Io(#[from] IoFailed),
    /// The server refused the hello.
    #[error("the server refused the session: {0}")]
    Refused(String),
    /// The peer broke the protocol.
    #[error("protocol: {0}")]
    Protocol(String),
    /// The session failed as an in-memory one would: a PDU that does not read or apply, a
    /// screen that differs, a setting out of range.
    #[error(transparent)]
    Session(#[from] SessionError),
}

impl From<WireError> for NetError {
    fn from(e: WireError) -> Self {
        NetError::Session(SessionError::Wire(e))
    }
}

impl From<DecodeError> for NetError {
    fn from(e: DecodeError) -> Self {
        NetError::Session(SessionError::Decode(e))
    }
}

/// The client's receive settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewConfig {
    /// Receive buffer, bytes: `SO_RCVBUF` and the client's own buffer.
    pub rcvbuf: usize,
    /// Wake-up threshold, bytes: `SO_RCVLOWAT` (the client is woken when this much is queued).
    pub threshold: usize,
    /// Longest wait for the threshold before reading what is queued, ms.
    pub max_wait_ms: u64,
    /// Client CPU speed relative to this machine's (1 = full speed; 0.25 = a CPU four
    /// times slower, emulated by idling 3 ns for every ns of work).
    pub speed: f64,
}

impl Default for ViewConfig {
    fn default() -> Self {
        Self {
            rcvbuf: crate::defaults::RCVBUF,
            threshold: crate::defaults::RCV_THRESHOLD,
            max_wait_ms: crate::defaults::RCV_MAX_WAIT_MS,
            speed: 1.0,
        }
    }
}

impl ViewConfig {
    /// Check the settings.
    pub fn validate(&self) -> Result<(), String> {
        if !(MIN_RCVBUF..=64 << 20).contains(&self.rcvbuf) {
            return Err(format!("receive buffer {} B: use {} B to 64 MiB", self.rcvbuf, MIN_RCVBUF));
        }
        if self.threshold == 0 || self.threshold > self.rcvbuf / 2 {
            return Err(format!("threshold {} B: use 1 B to half the receive buffer", self.threshold));
        }
        if !(self.speed > 0.0 && self.speed <= 1.0) {
            return Err(format!("client speed {}: use a fraction in (0, 1]", self.speed));
        }
        Ok(())
    }
}

/// The smallest receive buffer: two of the largest PDU (15-bit length) must fit.
pub const MIN_RCVBUF: usize = 64 * 1024;

/// How the server paces frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Each frame at its deadline on the real clock (the user's view).
    RealTime,
    /// Frames back to back, waiting for the client to take each (the throughput limit).
    FlatOut,
}

// ---- the hello ----------------------------------------------------------------------------

/// Write the session's settings as the hello line.
pub fn hello_line(cfg: &SessionConfig, pace: Pace) -> String {
    let mut s = format!("{MAGIC} workload={}", cfg.workload.name());
    match cfg.workload {
        WorkloadKind::Typing { wpm } => s += &format!(" wpm={wpm}"),
        WorkloadKind::Animation { frames, delay_ms } => s += &format!(" anim_frames={frames} anim_delay_ms={delay_ms}"),
        WorkloadKind::BannerTicker { banner_frames, .. } => s += &format!(" banner_frames={banner_frames}"),
        _ => {}
    }
    let c = cfg.encoder.cells;
    s += &format!(
        " seed={} width={} height={} bpp={} frame_ms={} duration_ms={} warmup_ms={} orders={} cells={},{},{} policy={} max_pdu={} codec={} crypto={} marks={} pace={}\n",
        cfg.seed,
        cfg.width,
        cfg.height,
        cfg.bpp,
        cfg.frame_ms,
        cfg.duration_ms,
        cfg.warmup_ms,
        u8::from(cfg.encoder.orders),
        c[0],
        c[1],
        c[2],
        cfg.encoder.policy.name(),
        cfg.encoder.max_pdu,
        cfg.codec.name(),
        cfg.crypto.name(),
        u8::from(cfg.check_every_frame),
        match pace {
            Pace::RealTime => "real",
            Pace::FlatOut => "flat",
        }
    );
    s
}

/// Read a hello line back into settings; the error names the field.
pub fn parse_hello(line: &str) -> Result<(SessionConfig, Pace), String> {
    let mut words = line.split_ascii_whitespace();
    if words.next() != Some(MAGIC) {
        return Err(format!("not a latlab display hello (expected '{MAGIC}' first)"));
    }
    let kv: std::collections::HashMap<&str, &str> =
        words.map(|w| w.split_once('=').ok_or(format!("'{w}' is not key=value"))).collect::<Result<_, _>>()?;
    let get = |k: &str| kv.get(k).copied().ok_or(format!("missing '{k}'"));
    fn num<T: std::str::FromStr>(k: &str, v: &str) -> Result<T, String> {
        v.parse().map_err(|_| format!("'{k}={v}' is not a number in range"))
    }
    let name = get("workload")?;
    let mut workload = WorkloadKind::from_name(name).ok_or(format!("unknown workload '{name}'"))?;
    match &mut workload {
        WorkloadKind::Typing { wpm } => *wpm = num("wpm", get("wpm")?)?,
        WorkloadKind::Animation { frames, delay_ms } => {
            *frames = num("anim_frames", get("anim_frames")?)?;
            *delay_ms = num("anim_delay_ms", get("anim_delay_ms")?)?;
            if *frames == 0 || *delay_ms == 0 {
                return Err("animation frames and delay must be positive".into());
            }
        }
        WorkloadKind::BannerTicker { banner_frames, .. } => {
            *banner_frames = num("banner_frames", get("banner_frames")?)?;
            if *banner_frames == 0 {
                return Err("banner_frames must be positive".into());
            }
        }
        _ => {}
    }
    let cells: Vec<usize> = get("cells")?.split(',').map(|c| num("cells", c)).collect::<Result<_, _>>()?;
    let cells: [usize; 3] = cells.try_into().map_err(|_| "cells takes three counts".to_string())?;
    if cells.iter().any(|&c| c == 0 || c > 0x7FFF) {
        return Err("each cache holds 1 to 32767 cells".into());
    }
    let max_pdu: usize = num("max_pdu", get("max_pdu")?)?;
    if !(1024..=30_000).contains(&max_pdu) {
        return Err("max_pdu: 1024 to 30000 bytes".into());
    }
    let policy = get("policy")?;
    let codec = get("codec")?;
    let crypto = get("crypto")?;
    let cfg = SessionConfig {
        width: num("width", get("width")?)?,
        height: num("height", get("height")?)?,
        bpp: num("bpp", get("bpp")?)?,
        workload,
        seed: num("seed", get("seed")?)?,
        frame_ms: num("frame_ms", get("frame_ms")?)?,
        duration_ms: num("duration_ms", get("duration_ms")?)?,
        warmup_ms: num("warmup_ms", get("warmup_ms")?)?,
        encoder: EncoderConfig {
            orders: get("orders")? == "1",
            cells,
            policy: PolicyKind::from_name(policy)
                .filter(|p| *p != PolicyKind::Opt)
                .ok_or(format!("unknown or offline-only policy '{policy}'"))?,
            max_pdu,
        },
        codec: Codec::from_name(codec).ok_or(format!("unknown codec '{codec}'"))?,
        crypto: Crypto::from_name(crypto).ok_or(format!("unknown cipher '{crypto}'"))?,
        check_every_frame: get("marks")? == "1",
        timed: false,
    };
    cfg.validate().map_err(|e| e.to_string())?;
    if cfg.duration_ms > 24 * 3600 * 1000 {
        return Err("duration over a day".into());
    }
    let pace = match get("pace")? {
        "real" => Pace::RealTime,
        "flat" => Pace::FlatOut,
        p => return Err(format!("unknown pace '{p}'")),
    };
    Ok((cfg, pace))
}

// ---- socket options ------------------------------------------------------------------------

/// Set `SO_RCVLOWAT`, which nix does not wrap: the socket reports readable only once this
/// many bytes are queued (or at end of stream).
fn set_rcvlowat(sock: &impl AsFd, bytes: usize) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let v: libc::c_int = bytes.min(i32::MAX as usize) as libc::c_int;
    // SAFETY: a valid open descriptor, a pointer to a live c_int and its exact size.
    let rc = unsafe {
        libc::setsockopt(
            sock.as_fd().as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVLOWAT,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// Wait until `sock` is ready for `events` or `timeout_ms` passes; true when ready.
fn wait(sock: &TcpStream, events: nix::poll::PollFlags, timeout_ms: u64) -> io::Result<bool> {
    use nix::poll::{PollFd, PollTimeout, poll};
    let mut fds = [PollFd::new(sock.as_fd(), events)];
    let t = PollTimeout::try_from(timeout_ms.min(60_000) as i32).unwrap_or(PollTimeout::MAX);
    loop {
        match poll(&mut fds, t) {
            Ok(n) => return Ok(n > 0),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(io::Error::from(e)),
        }
    }
}

// ---- the server ------------------------------------------------------------------------

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
    /// `write` calls that moved bytes.
    pub writes: u64,
    /// Wall time of the session, ns.
    pub wall_ns: u64,
    /// Hash of the final screen.
    pub screen_hash: u64,
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

/// Read from a socket another thread may have made non-blocking: wait when it would block.
fn read_blocking(s: &mut TcpStream, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match s.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                wait(s, nix::poll::PollFlags::POLLIN, 1000)?;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

/// Write all of `data` to a socket that may be non-blocking.
fn write_blocking(s: &mut TcpStream, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        match s.write(data) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                wait(s, nix::poll::PollFlags::POLLOUT, 1000)?;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
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
fn push(s: &mut TcpStream, pending: &[u8], at: &mut usize, writes: &mut u64) -> Result<(), NetError> {
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
fn flush(
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

fn record(out: &mut Vec<u8>, tag: u8, words: &[u64]) {
    let len = 5 + 8 * words.len();
    out.extend_from_slice(&[RECORD, 0]);
    out.extend_from_slice(&(len as u16).to_be_bytes());
    out.push(tag);
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
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
            Pace::FlatOut => flush(s, &mut pending, &mut at, &mut rep.writes, None)?,
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

/// Client CPU per stage, ns of the receiving thread's CPU time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientTimes {
    /// Waiting for and reading from the socket (the system calls' CPU, not the waiting).
    pub receive_ns: u64,
    /// Decrypting.
    pub decrypt_ns: u64,
    /// Bulk decompression.
    pub decompress_ns: u64,
    /// Parsing orders, RLE-decoding bitmaps.
    pub decode_ns: u64,
    /// Storing cache cells.
    pub cache_ns: u64,
    /// Drawing into the framebuffer.
    pub blit_ns: u64,
    /// Everything else on the thread (framing, bookkeeping, frame checks).
    pub other_ns: u64,
    /// The thread's CPU time in all.
    pub total_ns: u64,
    /// Bytes written into the framebuffer or the cache.
    pub bytes_copied: u64,
}

impl ClientTimes {
    /// The stages, named as in metrics.
    pub fn stages(&self) -> [(&'static str, u64); 7] {
        [
            ("receive", self.receive_ns),
            ("decrypt", self.decrypt_ns),
            ("decompress", self.decompress_ns),
            ("decode", self.decode_ns),
            ("cache", self.cache_ns),
            ("blit", self.blit_ns),
            ("other", self.other_ns),
        ]
    }
}

/// What the client saw.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientReport {
    /// Display PDUs applied.
    pub pdus: u64,
    /// Bytes received.
    pub bytes: u64,
    /// `read` calls that returned data.
    pub reads: u64,
    /// Wake-ups (the socket became readable, or the wait timed out).
    pub wakeups: u64,
    /// Per-frame checks passed.
    pub frames_checked: u64,
    /// CPU per stage.
    pub times: ClientTimes,
    /// Wall time from the server's OK to its end record, ns.
    pub wall_ns: u64,
    /// Input PDUs sent.
    pub input_pdus: u64,
    /// Their bytes.
    pub input_bytes: u64,
    /// The server's counts from its end record: frames rendered, sent, dropped.
    pub server_frames: [u64; 3],
    /// Hash of the final screen (checked equal to the server's).
    pub screen_hash: u64,
}

/// The client's input script: the input PDUs the user sends, by frame.
pub fn input_script(cfg: &SessionConfig) -> Vec<(u64, Vec<u8>)> {
    if !cfg.workload.takes_input() {
        return Vec::new();
    }
    let mut canvas = Canvas::new(cfg.width, cfg.height);
    let mut w = cfg.workload.build(cfg.seed);
    let mut out = FrameOut::default();
    let mut script = Vec::new();
    for k in 0..cfg.duration_ms.div_ceil(cfg.frame_ms) {
        out.input.clear();
        w.frame(k * cfg.frame_ms, &mut canvas, &mut out);
        for chunk in out.input.chunks(255) {
            let mut pdu = Vec::new();
            encode_input(chunk, &mut pdu);
            script.push((k, pdu));
        }
    }
    script
}

/// Connect to a server and run the session `cfg` asks for.
pub fn view(addr: &str, cfg: &SessionConfig, pace: Pace, vc: &ViewConfig) -> Result<ClientReport, NetError> {
    let stream = TcpStream::connect(addr)
        .doing("connecting to the server (is `latlab display serve` running there, and the port open?)")?;
    view_on(stream, cfg, pace, vc)
}

/// Run the client on a connected stream.
pub fn view_on(stream: TcpStream, cfg: &SessionConfig, pace: Pace, vc: &ViewConfig) -> Result<ClientReport, NetError> {
    cfg.validate()?;
    vc.validate().map_err(NetError::Protocol)?;
    stream.set_nodelay(true).doing("turning Nagle off")?;
    nix::sys::socket::setsockopt(&stream, nix::sys::socket::sockopt::RcvBuf, &vc.rcvbuf)
        .map_err(|e| IoFailed::new("setting SO_RCVBUF", e.into()))?;
    let script = input_script(cfg);
    let mut w = stream.try_clone().doing("cloning the socket")?;
    w.write_all(hello_line(cfg, pace).as_bytes()).doing("sending the hello")?;
    let mut s = stream;
    let mut answer = Vec::new();
    let mut b = [0u8; 1];
    while answer.last() != Some(&b'\n') {
        if answer.len() > MAX_HELLO || s.read(&mut b).doing("reading the server's answer")? == 0 {
            return Err(NetError::Protocol("the server closed before answering the hello".into()));
        }
        answer.push(b[0]);
    }
    let answer = String::from_utf8_lossy(&answer).trim_end().to_string();
    if let Some(reason) = answer.strip_prefix("ERR ") {
        return Err(NetError::Refused(reason.to_string()));
    }
    if answer != "OK" {
        return Err(NetError::Protocol(format!("unexpected answer '{answer}'")));
    }
    let start = monotonic_now();
    // The user: input PDUs at their frames' deadlines, on their own thread.
    let done = Arc::new(AtomicBool::new(false));
    let sender = {
        let done = done.clone();
        let period = cfg.frame_ms * 1_000_000;
        std::thread::spawn(move || -> (u64, u64) {
            let (mut n, mut bytes) = (0, 0);
            for (k, pdu) in &script {
                if pace == Pace::RealTime && !done.load(Ordering::Relaxed) {
                    latlab_core::clock::clock_nanosleep_abs(start + k * period);
                }
                if write_blocking(&mut w, pdu).is_err() {
                    break;
                }
                n += 1;
                bytes += pdu.len() as u64;
            }
            (n, bytes)
        })
    };
    set_rcvlowat(&s, vc.threshold).doing("setting SO_RCVLOWAT")?;
    s.set_nonblocking(true).doing("making the socket non-blocking")?;
    let r = receive(&mut s, cfg, vc, start);
    done.store(true, Ordering::Relaxed);
    let (n, bytes) = sender.join().unwrap_or_default();
    let _ = s.shutdown(Shutdown::Both);
    let mut r = r?;
    r.input_pdus = n;
    r.input_bytes = bytes;
    Ok(r)
}

fn receive(s: &mut TcpStream, cfg: &SessionConfig, vc: &ViewConfig, start: u64) -> Result<ClientReport, NetError> {
    let mut rep = ClientReport::default();
    let mut rx = Receiver::new(cfg.codec, cfg.crypto, true);
    let mut dec = Decoder::new(cfg.width, cfg.height, cfg.bpp, cfg.encoder.cells, true);
    let mut buf = vec![0u8; vc.rcvbuf];
    let mut update = Vec::new();
    let (mut head, mut tail) = (0usize, 0usize);
    let cpu0 = thread_cpu_now();
    let mut end: Option<[u64; 4]> = None;
    while end.is_none() {
        // Refill: wait for the threshold (or the longest wait), then read what is queued.
        let t0 = thread_cpu_now();
        let ready = wait(s, nix::poll::PollFlags::POLLIN, vc.max_wait_ms).doing("waiting for data")?;
        rep.wakeups += u64::from(ready);
        if tail == buf.len() {
            return Err(NetError::Protocol("no whole PDU in a full receive buffer".into()));
        }
        let got = loop {
            match s.read(&mut buf[tail..]) {
                Ok(0) => break None,
                Ok(n) => break Some(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break Some(0),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(IoFailed::new("receiving", e).into()),
            }
        };
        let t1 = thread_cpu_now();
        rep.times.receive_ns += t1 - t0;
        let Some(n) = got else {
            return Err(NetError::Protocol("the server closed the connection before its end record".into()));
        };
        if n > 0 {
            rep.reads += 1;
            rep.bytes += n as u64;
            tail += n;
        }
        // Apply every whole PDU or record in the buffer.
        loop {
            let avail = &buf[head..tail];
            if avail.len() < 4 {
                break;
            }
            let len = if avail[0] & 3 == RECORD {
                u16::from_be_bytes([avail[2], avail[3]]) as usize
            } else {
                pdu_len(avail).unwrap_or(0)
            };
            if len < 4 {
                return Err(NetError::Protocol(format!("a PDU of length {len} at byte {}", rep.bytes)));
            }
            if avail.len() < len {
                break;
            }
            let pdu = &avail[..len];
            if pdu[0] & 3 == RECORD {
                let words: Vec<u64> =
                    pdu[5..].chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
                match (pdu[4], words.as_slice()) {
                    (RECORD_FRAME, &[k, hash]) => {
                        if dec.fb.hash() != hash {
                            return Err(SessionError::Mismatch(k).into());
                        }
                        rep.frames_checked += 1;
                    }
                    (RECORD_END, &[frames, sent, dropped, hash]) => {
                        if dec.fb.hash() != hash {
                            return Err(SessionError::Mismatch(frames).into());
                        }
                        rep.server_frames = [frames, sent, dropped];
                        end = Some([frames, sent, dropped, hash]);
                    }
                    _ => return Err(NetError::Protocol("unknown record from the server".into())),
                }
            } else {
                rx.read(pdu, &mut update)?;
                dec.apply(&update)?;
                rep.pdus += 1;
            }
            head += len;
        }
        if head > 0 && (head == tail || buf.len() - tail < buf.len() / 4) {
            buf.copy_within(head..tail, 0);
            tail -= head;
            head = 0;
        }
        if vc.speed < 1.0 {
            // A slower CPU: idle in proportion to the work this round took.
            let work = thread_cpu_now() - t0;
            let idle = (work as f64 * (1.0 / vc.speed - 1.0)) as u64;
            std::thread::sleep(std::time::Duration::from_nanos(idle));
        }
    }
    rep.wall_ns = monotonic_now() - start;
    let t = &mut rep.times;
    t.total_ns = thread_cpu_now() - cpu0;
    t.decrypt_ns = rx.times.decrypt_ns;
    t.decompress_ns = rx.times.decompress_ns;
    t.decode_ns = dec.times.decode_ns;
    t.cache_ns = dec.times.cache_ns;
    t.blit_ns = dec.times.blit_ns;
    t.bytes_copied = dec.times.bytes_copied;
    let staged = t.receive_ns + t.decrypt_ns + t.decompress_ns + t.decode_ns + t.cache_ns + t.blit_ns;
    t.other_ns = t.total_ns.saturating_sub(staged);
    rep.screen_hash = dec.fb.hash();
    Ok(rep)
}

/// Both ends in one process over loopback: the default.
pub fn pair(cfg: &SessionConfig, pace: Pace, vc: &ViewConfig) -> Result<(ServerReport, ClientReport), NetError> {
    let listener = TcpListener::bind("127.0.0.1:0").doing("listening on loopback")?;
    let addr = listener.local_addr().doing("reading the listening address")?;
    let server = std::thread::spawn(move || -> Result<ServerReport, NetError> {
        let (stream, _) = listener.accept().doing("accepting the client")?;
        serve_connection(stream)
    });
    let client = TcpStream::connect(addr).doing("connecting over loopback").map_err(NetError::from);
    let client = client.and_then(|s| view_on(s, cfg, pace, vc));
    let server = server.join().map_err(|_| NetError::Protocol("the server thread panicked".into()))?;
    let c = client?;
    let s = server?;
    Ok((s, c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_rdp::CompressionType;

    fn small(workload: WorkloadKind) -> SessionConfig {
        SessionConfig {
            width: 320,
            height: 256,
            bpp: 16,
            workload,
            seed: 5,
            frame_ms: 20,
            duration_ms: 600,
            warmup_ms: 0,
            encoder: EncoderConfig { orders: true, cells: [120, 120, 337], policy: PolicyKind::Lru, max_pdu: 16_000 },
            codec: Codec::Rdp(CompressionType::Ncrush),
            crypto: Crypto::None,
            check_every_frame: true,
            timed: false,
        }
    }

    #[test]
    fn hello_round_trips_and_names_what_is_wrong() {
        for name in WorkloadKind::NAMES {
            let mut cfg = small(WorkloadKind::from_name(name).unwrap());
            cfg.crypto = Crypto::ALL[2];
            let line = hello_line(&cfg, Pace::FlatOut);
            let (back, pace) = parse_hello(line.trim_end()).unwrap();
            assert_eq!(pace, Pace::FlatOut);
            assert_eq!(hello_line(&back, pace), line, "{name}");
            assert_eq!(back.workload, cfg.workload);
        }
        let line = hello_line(&small(WorkloadKind::Cursor), Pace::RealTime);
        let bad = |from: &str, to: &str| parse_hello(&line.replace(from, to)).unwrap_err();
        assert!(bad("LATLAB-DISPLAY/1", "HELLO").contains("not a latlab display hello"));
        assert!(bad("codec=ncrush", "codec=zip").contains("unknown codec 'zip'"));
        assert!(bad("bpp=16", "bpp=32").contains("32 bpp"));
        assert!(bad("cells=120,120,337", "cells=1,2").contains("three"));
        assert!(bad("policy=lru", "policy=opt").contains("offline-only"));
        assert!(bad(" seed=5", "").contains("missing 'seed'"));
        assert!(bad("width=320", "width=wide").contains("'width=wide'"));
    }

    #[test]
    fn the_pair_over_loopback_ends_equal_at_every_frame() {
        for (w, codec, crypto, orders) in [
            (WorkloadKind::Typing { wpm: 100 }, Codec::Rdp(CompressionType::Ncrush), Crypto::None, true),
            (WorkloadKind::Scroll, Codec::Rdp(CompressionType::Mppc8k), Crypto::ALL[1], true),
            (WorkloadKind::Slideshow, Codec::Lz4, Crypto::ALL[3], false),
            (WorkloadKind::Slideshow, Codec::None, Crypto::None, true),
        ] {
            let mut cfg = small(w.clone());
            cfg.codec = codec;
            cfg.crypto = crypto;
            cfg.encoder.orders = orders;
            for pace in [Pace::FlatOut, Pace::RealTime] {
                let (s, c) = pair(&cfg, pace, &ViewConfig::default())
                    .unwrap_or_else(|e| panic!("{} {} {}: {e}", w.name(), codec.name(), crypto.name()));
                assert_eq!(s.frames, 30);
                assert_eq!(s.sent + s.dropped, s.frames);
                assert_eq!(c.server_frames, [s.frames, s.sent, s.dropped]);
                // A mark after every frame sent, each checked against the client's screen.
                assert_eq!(c.frames_checked, s.sent);
                assert_eq!(c.screen_hash, s.screen_hash);
                assert_eq!(c.pdus, s.display_pdus);
                // Every input event the script has reached the server.
                assert_eq!(s.input_events, s.input_expected, "{}", w.name());
                assert_eq!((c.input_pdus, c.input_bytes), (s.input_pdus, s.input_bytes));
                assert_eq!(s.input_expected > 0, w.takes_input());
                assert_eq!(s.input_malformed, 0);
                // The stages add up to no more than the thread's CPU.
                let t = c.times;
                let sum: u64 = t.stages().iter().map(|x| x.1).sum();
                assert!(sum <= t.total_ns + 1, "{t:?}");
            }
        }
    }

    #[test]
    fn flat_out_sends_every_frame_and_the_same_bytes_as_the_virtual_session() {
        let mut cfg = small(WorkloadKind::Menu);
        cfg.check_every_frame = false;
        let (s, c) = pair(&cfg, Pace::FlatOut, &ViewConfig::default()).unwrap();
        assert_eq!(s.dropped, 0);
        let v = crate::session::run(&cfg, None).unwrap();
        assert_eq!(s.display_bytes, v.traffic.display_bytes);
        assert_eq!(c.bytes, s.display_bytes + 5 + 32, "the PDUs and the end record");
        assert_eq!(s.screen_hash, v.screen_hash);
    }

    #[test]
    fn a_slow_client_with_a_small_threshold_still_ends_equal() {
        let cfg = small(WorkloadKind::Slideshow);
        let vc = ViewConfig { speed: 0.2, threshold: 1, rcvbuf: MIN_RCVBUF, ..ViewConfig::default() };
        let (s, c) = pair(&cfg, Pace::RealTime, &vc).unwrap();
        assert_eq!(s.sent + s.dropped, s.frames);
        assert_eq!(c.screen_hash, s.screen_hash);
    }

    #[test]
    fn bad_settings_and_refusals_are_clear_errors() {
        let cfg = small(WorkloadKind::Cursor);
        for vc in [
            ViewConfig { rcvbuf: 1000, ..ViewConfig::default() },
            ViewConfig { threshold: 0, ..ViewConfig::default() },
            ViewConfig { speed: 0.0, ..ViewConfig::default() },
        ] {
            assert!(vc.validate().is_err());
        }
        // A server that gets garbage answers ERR and the connection ends.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || serve_connection(listener.accept().unwrap().0));
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(b"GET / HTTP/1.0\n").unwrap();
        let mut answer = String::new();
        c.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("ERR not a latlab display hello"), "{answer}");
        assert!(matches!(server.join().unwrap(), Err(NetError::Protocol(_))));
        // A client asking for an impossible session is refused by the server with its reason.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || serve_connection(listener.accept().unwrap().0));
        let mut bad = cfg.clone();
        bad.encoder.max_pdu = 10;
        let e = view(&addr.to_string(), &bad, Pace::FlatOut, &ViewConfig::default()).unwrap_err();
        assert!(matches!(&e, NetError::Refused(r) if r.contains("max_pdu")), "{e}");
        let _ = server.join();
    }

    #[test]
    fn a_hostile_server_stream_is_an_error_not_a_panic() {
        for junk in
            [&[0u8, 0x80, 2, 9, 9][..], &[0, 3, 1, 2], &[3, 0, 0, 6, b'Z', 0], &[0x80, 0x85, 0x00, 1, 2, 3, 4, 5]]
        {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let addr = listener.local_addr().unwrap();
            let junk = junk.to_vec();
            let server = std::thread::spawn(move || {
                let (mut s, _) = listener.accept().unwrap();
                let mut line = String::new();
                BufReader::new(s.try_clone().unwrap()).read_line(&mut line).unwrap();
                s.write_all(b"OK\n").unwrap();
                s.write_all(&junk).unwrap();
            });
            let e = view(&addr.to_string(), &small(WorkloadKind::Cursor), Pace::FlatOut, &ViewConfig::default());
            assert!(e.is_err());
            server.join().unwrap();
        }
    }
}
