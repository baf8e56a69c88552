//! The client end of a display connection: its receive buffer and wake-up threshold, the
//! input script it sends, and the receiving loop that decrypts, decompresses, decodes and
//! blits, accounting CPU per stage.

use super::*;
use crate::seen::fill_times;
use latlab_desktop::decoder::Decoder;
use latlab_desktop::render::Canvas;
use latlab_desktop::wire::{Receiver, encode_input, pdu_len};
use latlab_desktop::workload::FrameOut;
use latlab_sys::clock::{monotonic_now, thread_cpu_now};
use std::net::Shutdown;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The client's receive settings.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
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
    /// Seed 000's client-side cures (none by default: the seed's own client).
    pub cures: Cures,
}

/// Seed 000's cures on the client, each a code path of the receiving loop. The default, none,
/// is the seed's client: each PDU copied from the receive buffer into a data buffer, the MAC
/// checked, one thread doing everything.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Cures {
    /// Decrypt and decompress each PDU where it lies in the receive buffer: no copy into a
    /// data buffer (the seed: "the receiving buffer can be used directly as the input buffer
    /// for RDP 6.0 Compression, which saves one memory copy").
    pub direct: bool,
    /// Skip RC4's MAC check (the seed's DisableMACCheck); only with the RC4 ciphers.
    pub skip_mac: bool,
    /// A second thread: one receives and frames, the other decrypts, decompresses, decodes
    /// and draws, so receiving and decoding overlap. Each PDU is handed over in its own
    /// buffer (one copy, as without `direct`). On a slowed client each thread is slowed: a
    /// client with two cores at that speed.
    pub decode_thread: bool,
}

impl Cures {
    /// The cures on, by name, for records and messages ("none" when none is).
    pub fn describe(&self) -> String {
        let on: Vec<&str> =
            [(self.direct, "direct"), (self.skip_mac, "skip-mac"), (self.decode_thread, "decode-thread")]
                .iter()
                .filter(|c| c.0)
                .map(|c| c.1)
                .collect();
        if on.is_empty() { "none".into() } else { on.join(", ") }
    }

    /// Check the cures against the session's cipher.
    pub fn validate(&self, crypto: latlab_desktop::wire::Crypto) -> Result<(), latlab_model::ConfigError> {
        use latlab_rdp::security::Protection;
        if self.direct && self.decode_thread {
            return Err("direct and decode-thread do not combine: the second thread is handed each PDU in its own buffer, a copy".into());
        }
        if self.skip_mac && !matches!(crypto, latlab_desktop::wire::Crypto::On(Protection::Rc4Mac { .. })) {
            return Err(format!(
                "skip-mac is seed 000's DisableMACCheck, for RC4 with its MAC; this session's cipher is {} (an AEAD's tag is part of decrypting)",
                crypto.name()
            ).into());
        }
        Ok(())
    }
}

impl Default for ViewConfig {
    fn default() -> Self {
        Self {
            rcvbuf: crate::defaults::RCVBUF,
            threshold: crate::defaults::RCV_THRESHOLD,
            max_wait_ms: crate::defaults::RCV_MAX_WAIT_MS,
            speed: 1.0,
            cures: Cures::default(),
        }
    }
}

impl ViewConfig {
    /// Check the settings.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if !(MIN_RCVBUF..=64 << 20).contains(&self.rcvbuf) {
            return Err(format!("receive buffer {} B: use {} B to 64 MiB", self.rcvbuf, MIN_RCVBUF).into());
        }
        if self.threshold == 0 || self.threshold > self.rcvbuf / 2 {
            return Err(format!("threshold {} B: use 1 B to half the receive buffer", self.threshold).into());
        }
        if !(self.speed > 0.0 && self.speed <= 1.0) {
            return Err(format!("client speed {}: use a fraction in (0, 1]", self.speed).into());
        }
        Ok(())
    }
}

/// The smallest receive buffer: two of the largest PDU (15-bit length) must fit.
pub const MIN_RCVBUF: usize = 64 * 1024;

/// The client's input script: the input PDUs the user sends, by frame.
pub fn input_script(cfg: &SessionConfig) -> Vec<(u64, Vec<u8>)> {
    if !cfg.workload.takes_input() {
        return Vec::new();
    }
    // The input does not depend on the pixels: the workload runs on a canvas that draws nothing
    // (drawing a scroller's 10 s of pages here took a loaded client seconds, before its hello).
    let mut canvas = Canvas::dry(cfg.width, cfg.height);
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

/// Send the hello on `stream` and read the answer: the connection's read and write halves,
/// set up as `vc` asks.
pub(crate) fn open_session(
    stream: TcpStream,
    cfg: &SessionConfig,
    pace: Pace,
    vc: &ViewConfig,
) -> Result<(TcpStream, TcpStream), NetError> {
    cfg.validate()?;
    vc.validate()?;
    vc.cures.validate(cfg.crypto)?;
    stream.set_nodelay(true).doing("turning Nagle off")?;
    nix::sys::socket::setsockopt(&stream, nix::sys::socket::sockopt::RcvBuf, &vc.rcvbuf)
        .map_err(|e| IoFailed::new("setting SO_RCVBUF", e.into()))?;
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
    set_rcvlowat(&s, vc.threshold).doing("setting SO_RCVLOWAT")?;
    Ok((s, w))
}

/// Run the client on a connected stream.
pub fn view_on(stream: TcpStream, cfg: &SessionConfig, pace: Pace, vc: &ViewConfig) -> Result<ClientReport, NetError> {
    view_scripted(stream, cfg, pace, vc, input_script(cfg))
}

/// [`view_on`] with the input script made beforehand ([`input_script`]), so a client that
/// starts many sessions makes their scripts before it connects.
pub fn view_scripted(
    stream: TcpStream,
    cfg: &SessionConfig,
    pace: Pace,
    vc: &ViewConfig,
    script: Vec<(u64, Vec<u8>)>,
) -> Result<ClientReport, NetError> {
    if matches!(pace, Pace::Echo { .. }) {
        return Err(NetError::Protocol("an echo session needs a typist (`display latency`)".into()));
    }
    let (mut s, mut w) = open_session(stream, cfg, pace, vc)?;
    let start = monotonic_now();
    // The user: input PDUs at their frames' deadlines, on their own thread.
    let done = Arc::new(AtomicBool::new(false));
    let sender = {
        let done = done.clone();
        let period = cfg.frame_ms * 1_000_000;
        std::thread::spawn(move || -> (u64, u64, u64) {
            let (mut n, mut bytes, mut segments) = (0, 0, 0);
            for (k, pdu) in &script {
                if pace == Pace::RealTime && !done.load(Ordering::Relaxed) {
                    latlab_sys::clock::clock_nanosleep_abs(start + k * period);
                }
                if write_blocking(&mut w, pdu).is_err() {
                    break;
                }
                n += 1;
                bytes += pdu.len() as u64;
                segments += latlab_desktop::wire::framing(pdu.len() as u64).0;
            }
            (n, bytes, segments)
        })
    };
    s.set_nonblocking(true).doing("making the socket non-blocking")?;
    let r = if vc.cures.decode_thread {
        receive_threaded(&mut s, cfg, vc, start)
    } else {
        receive(&mut s, cfg, vc, start, None)
    };
    done.store(true, Ordering::Relaxed);
    let (n, bytes, segments) = sender.join().unwrap_or_default();
    let _ = s.shutdown(Shutdown::Both);
    let mut r = r?;
    r.input_pdus = n;
    r.input_bytes = bytes;
    r.input_segments = segments;
    Ok(r)
}

/// The length of the PDU or record at the front of `avail`, once its header is there
/// (`None`: not yet); `at` is the stream offset, for the error.
fn frame_len(avail: &[u8], at: u64) -> Result<Option<usize>, NetError> {
    if avail.len() < 4 {
        return Ok(None);
    }
    let len = if avail[0] & 3 == RECORD {
        u16::from_be_bytes([avail[2], avail[3]]) as usize
    } else {
        pdu_len(avail).unwrap_or(0)
    };
    if len < 4 {
        return Err(NetError::Protocol(format!("a PDU of length {len} at byte {at}")));
    }
    Ok((avail.len() >= len).then_some(len))
}

fn is_end(pdu: &[u8]) -> bool {
    pdu[0] & 3 == RECORD && pdu.get(4) == Some(&RECORD_END)
}

/// Apply one of latlab's records: check the screen, pass key times on; true at the end record.
fn apply_record(
    pdu: &[u8],
    dec: &Decoder,
    rep: &mut ClientReport,
    watch: Option<&mut crate::watch::Watch>,
) -> Result<bool, NetError> {
    let words: Vec<u64> =
        pdu[5..].chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
    match (pdu[4], words.as_slice()) {
        (RECORD_FRAME, &[k, hash]) => {
            if dec.fb.hash() != hash {
                return Err(SessionError::Mismatch(k).into());
            }
            rep.frames_checked += 1;
            if let Some(w) = watch {
                w.frame_checked();
            }
        }
        (RECORD_AREA, &[k, x, y, w, h, hash]) => {
            let a = latlab_desktop::fb::Area::new(x as usize, y as usize, w as usize, h as usize);
            if dec.fb.clip(a) != a || dec.fb.hash_area(a) != hash {
                return Err(SessionError::Mismatch(k).into());
            }
            rep.frames_checked += 1;
            if let Some(w) = watch {
                w.frame_checked();
            }
        }
        (RECORD_COST, &[render, encode, send]) => rep.server_cpu_ns = Some([render, encode, send]),
        (RECORD_KEY, &[k, received, sent, bytes]) => {
            if let Some(w) = watch {
                w.server_key(k, received, sent, bytes)?;
            }
        }
        (RECORD_END, &[frames, sent, dropped, hash]) => {
            if dec.fb.hash() != hash {
                return Err(SessionError::Mismatch(frames).into());
            }
            rep.server_frames = [frames, sent, dropped];
            return Ok(true);
        }
        _ => return Err(NetError::Protocol("unknown record from the server".into())),
    }
    Ok(false)
}

/// Wait for the threshold (or the longest wait), then read what is queued into
/// `buf[tail..]`: bytes read, or an error at end of stream.
fn refill(
    s: &mut TcpStream,
    vc: &ViewConfig,
    buf: &mut [u8],
    tail: usize,
    rep: &mut ClientReport,
) -> Result<usize, NetError> {
    let ready = wait(s, nix::poll::PollFlags::POLLIN, vc.max_wait_ms).doing("waiting for data")?;
    rep.wakeups += u64::from(ready);
    if tail == buf.len() {
        return Err(NetError::Protocol("no whole PDU in a full receive buffer".into()));
    }
    let n = loop {
        match s.read(&mut buf[tail..]) {
            Ok(0) => {
                return Err(NetError::Protocol("the server closed the connection before its end record".into()));
            }
            Ok(n) => break n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break 0,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(IoFailed::new("receiving", e).into()),
        }
    };
    if n > 0 {
        rep.reads += 1;
        rep.bytes += n as u64;
    }
    Ok(n)
}

/// A slower CPU: idle in proportion to the work done since `t0` (thread CPU time).
fn slow_down(speed: f64, t0: u64) {
    if speed < 1.0 {
        let work = thread_cpu_now() - t0;
        let idle = (work as f64 * (1.0 / speed - 1.0)) as u64;
        std::thread::sleep(std::time::Duration::from_nanos(idle));
    }
}

/// Move the unread bytes to the front when the buffer is drained or nearly full.
fn compact(buf: &mut [u8], head: &mut usize, tail: &mut usize) {
    if *head > 0 && (*head == *tail || buf.len() - *tail < buf.len() / 4) {
        buf.copy_within(*head..*tail, 0);
        *tail -= *head;
        *head = 0;
    }
}

fn new_receiver(cfg: &SessionConfig, vc: &ViewConfig) -> Receiver {
    let mut rx = Receiver::new(cfg.codec, cfg.crypto, true);
    if vc.cures.skip_mac {
        rx.skip_mac_check();
    }
    rx
}

pub(crate) fn receive(
    s: &mut TcpStream,
    cfg: &SessionConfig,
    vc: &ViewConfig,
    start: u64,
    mut watch: Option<&mut crate::watch::Watch>,
) -> Result<ClientReport, NetError> {
    let mut rep = ClientReport::default();
    let mut rx = new_receiver(cfg, vc);
    let mut dec = Decoder::new(cfg.width, cfg.height, cfg.bpp, cfg.encoder.cells, true);
    let mut buf = vec![0u8; vc.rcvbuf];
    let mut update = Vec::new();
    let (mut head, mut tail) = (0usize, 0usize);
    let cpu0 = thread_cpu_now();
    let mut end = false;
    while !end {
        let t0 = thread_cpu_now();
        tail += refill(s, vc, &mut buf, tail, &mut rep)?;
        rep.times.receive_ns += thread_cpu_now() - t0;
        let read_at = if watch.is_some() { monotonic_now() } else { 0 };
        // Apply every whole PDU or record in the buffer.
        while let Some(len) = frame_len(&buf[head..tail], rep.bytes)? {
            let pdu = &mut buf[head..head + len];
            if pdu[0] & 3 == RECORD {
                end = apply_record(pdu, &dec, &mut rep, watch.as_deref_mut())?;
            } else {
                if vc.cures.direct {
                    rx.read_direct(pdu, &mut update)?;
                } else {
                    rx.read(pdu, &mut update)?;
                }
                dec.apply(&update)?;
                rep.pdus += 1;
                rep.segments += latlab_desktop::wire::framing(len as u64).0;
            }
            head += len;
        }
        if let Some(w) = watch.as_deref_mut() {
            // The typometer: look at the screen after every batch applied (and every wake-up).
            w.look(&dec.fb, read_at, monotonic_now());
        }
        compact(&mut buf, &mut head, &mut tail);
        slow_down(vc.speed, t0);
    }
    rep.wall_ns = monotonic_now() - start;
    rep.times.total_ns = thread_cpu_now() - cpu0;
    fill_times(&mut rep, &rx, &dec);
    rep.screen_hash = dec.fb.hash();
    Ok(rep)
}

/// PDUs queued between the receiving and the decoding thread: enough to cover a burst (a
/// large update is tens of PDUs), few enough that a slow decoder pushes back on the socket.
const DECODE_QUEUE: usize = 256;

/// Seed 000's "decode on a second thread": this thread receives and frames; the decoding
/// thread decrypts, decompresses, decodes and draws, and checks the records.
fn receive_threaded(
    s: &mut TcpStream,
    cfg: &SessionConfig,
    vc: &ViewConfig,
    start: u64,
) -> Result<ClientReport, NetError> {
    let (work, queue) = std::sync::mpsc::sync_channel::<Vec<u8>>(DECODE_QUEUE);
    let (give_back, spare) = std::sync::mpsc::channel::<Vec<u8>>();
    let decoder = {
        let (cfg, vc) = (cfg.clone(), *vc);
        std::thread::Builder::new()
            .name("latlab-decode".into())
            .spawn(move || decode_queue(&cfg, &vc, queue, give_back))
            .doing("starting the decoding thread")?
    };
    let mut rep = ClientReport::default();
    let mut buf = vec![0u8; vc.rcvbuf];
    let (mut head, mut tail) = (0usize, 0usize);
    let cpu0 = thread_cpu_now();
    let received = (|| -> Result<(), NetError> {
        loop {
            let t0 = thread_cpu_now();
            tail += refill(s, vc, &mut buf, tail, &mut rep)?;
            while let Some(len) = frame_len(&buf[head..tail], rep.bytes)? {
                let pdu = &buf[head..head + len];
                let mut b = spare.try_recv().unwrap_or_default();
                b.clear();
                b.extend_from_slice(pdu);
                rep.times.bytes_copied += len as u64;
                let end = is_end(pdu);
                if work.send(b).is_err() || end {
                    // The end, or the decoder stopped (its error says why).
                    rep.times.receive_ns += thread_cpu_now() - t0;
                    return Ok(());
                }
                head += len;
            }
            compact(&mut buf, &mut head, &mut tail);
            rep.times.receive_ns += thread_cpu_now() - t0;
            slow_down(vc.speed, t0);
        }
    })();
    let own_cpu = thread_cpu_now() - cpu0;
    drop(work);
    let decoded = decoder.join().map_err(|_| NetError::Protocol("the decoding thread panicked".into()))?;
    received?;
    let mut d = decoded?;
    d.bytes = rep.bytes;
    d.reads = rep.reads;
    d.wakeups = rep.wakeups;
    d.times.receive_ns += rep.times.receive_ns;
    d.times.bytes_copied += rep.times.bytes_copied;
    d.times.total_ns += own_cpu;
    d.times.other_ns = d.times.other_ns.saturating_add(own_cpu.saturating_sub(rep.times.receive_ns));
    d.wall_ns = monotonic_now() - start;
    Ok(d)
}

/// The decoding thread: every PDU and record in order, until the end record.
fn decode_queue(
    cfg: &SessionConfig,
    vc: &ViewConfig,
    queue: std::sync::mpsc::Receiver<Vec<u8>>,
    give_back: std::sync::mpsc::Sender<Vec<u8>>,
) -> Result<ClientReport, NetError> {
    let mut rep = ClientReport::default();
    let mut rx = new_receiver(cfg, vc);
    let mut dec = Decoder::new(cfg.width, cfg.height, cfg.bpp, cfg.encoder.cells, true);
    let mut update = Vec::new();
    let cpu0 = thread_cpu_now();
    // A slowed client's idling, owed and paid in steps of at least 1 ms (sleeps are coarse).
    let mut owed = 0u64;
    let mut end = false;
    while !end {
        let Ok(mut pdu) = queue.recv() else {
            return Err(NetError::Protocol("the receiving thread stopped before the end record".into()));
        };
        let t0 = thread_cpu_now();
        if pdu[0] & 3 == RECORD {
            end = apply_record(&pdu, &dec, &mut rep, None)?;
        } else {
            rx.read_direct(&mut pdu, &mut update)?;
            dec.apply(&update)?;
            rep.pdus += 1;
            rep.segments += latlab_desktop::wire::framing(pdu.len() as u64).0;
        }
        let _ = give_back.send(pdu);
        if vc.speed < 1.0 {
            owed += ((thread_cpu_now() - t0) as f64 * (1.0 / vc.speed - 1.0)) as u64;
            if owed >= 1_000_000 || end {
                let w0 = monotonic_now();
                std::thread::sleep(std::time::Duration::from_nanos(owed));
                owed = owed.saturating_sub(monotonic_now() - w0);
            }
        }
    }
    rep.times.total_ns = thread_cpu_now() - cpu0;
    fill_times(&mut rep, &rx, &dec);
    rep.screen_hash = dec.fb.hash();
    Ok(rep)
}
