//! A real client's session, after the connection sequence: latlab's desktop played to it in
//! phases (a workload on frame deadlines or flat out, or `echo`: the client's own keys typed
//! into an editor), over TLS on a non-blocking socket in one thread. Updates are latlab's
//! encoder's bitmap (or order) PDUs in fast-path with the bulk compressor the client offered;
//! a frame whose deadline comes while the last one is still queued is dropped and its damage
//! goes with the next (the client's throughput limit, seen from the server). Input is read
//! as it comes: fast-path and slow-path events counted by kind, keys echoed, Suppress Output
//! and Refresh Rect obeyed, and the time from a key's arrival to the first byte of the update
//! it caused kept per key.

use super::accept::{Accepted, ClientIdentity};
use super::gfx::{AckStats, Gfx};
use ironrdp_pdu::rdp::capability_sets::{self as caps, CapabilitySet};
use ironrdp_pdu::rdp::server_error_info::ProtocolIndependentCode;
use latlab_desktop::editor::Editor;
use latlab_desktop::encoder::{Encoder, EncoderConfig};
use latlab_desktop::fb::Framebuffer;
use latlab_desktop::render::Canvas;
use latlab_desktop::wire::{Codec, Crypto, Sender};
use latlab_desktop::workload::{FrameOut, WorkloadKind};
use latlab_sys::clock::{monotonic_now, thread_cpu_now};
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsFd;

/// One phase of the script.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum Phase {
    /// The client's keys echoed into an editor as they arrive (input to update).
    Echo,
    /// A workload played on frame deadlines (or flat out).
    Play(WorkloadKind),
}

impl Phase {
    /// Its name in the script and in metrics.
    pub fn name(&self) -> &'static str {
        match self {
            Phase::Echo => "echo",
            Phase::Play(w) => w.name(),
        }
    }
    /// The phase called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        if name == "echo" { Some(Phase::Echo) } else { WorkloadKind::from_name(name).map(Phase::Play) }
    }
}

/// What the server plays to each client.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Plan {
    /// The phases, in turn.
    pub script: Vec<Phase>,
    /// Each phase's length, ms.
    pub phase_ms: u64,
    /// Frame period of a played workload, ms.
    pub frame_ms: u64,
    /// Frames back to back as fast as the client takes them (the throughput limit), instead
    /// of on deadlines.
    pub flat_out: bool,
    /// Drawing orders and the bitmap cache where the client supports them (else bitmaps).
    pub orders: bool,
    /// Bulk-compress with the type the client offered.
    pub compress: bool,
    /// Workload seed.
    pub seed: u64,
    /// Longest stretch the client may take nothing, ns.
    pub idle_ns: u64,
    /// Longest session, ns.
    pub max_ns: u64,
}

/// What one phase did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PhaseStats {
    /// The phase's name.
    pub name: String,
    /// Frames the workload drew (echo: updates made).
    pub frames: u64,
    /// Frames that carried an update (a frame where nothing changed sends none).
    pub sent: u64,
    /// Frames dropped because the last one was still queued (their damage went with the next).
    pub dropped: u64,
    /// Frames held back while the client had suppressed output.
    pub suppressed: u64,
    /// Fast-path update bytes handed to TLS.
    pub update_bytes: u64,
    /// Update bytes before bulk compression.
    pub plain_bytes: u64,
    /// Wall time, ns.
    pub wall_ns: u64,
    /// Server thread CPU: render, encode (and compress), send (TLS and socket), ns.
    pub render_ns: u64,
    /// See `render_ns`.
    pub encode_ns: u64,
    /// See `render_ns`.
    pub send_ns: u64,
    /// Keys pressed in the phase.
    pub keys: u64,
    /// Frames the client acknowledged during the phase (the graphics pipeline only).
    pub acked: u64,
}

/// Input the client sent, by kind.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct InputCounts {
    /// Fast-path input PDUs.
    pub fastpath_pdus: u64,
    /// Slow-path PDUs (any channel).
    pub slowpath_pdus: u64,
    /// Key presses (scancode or Unicode).
    pub key_down: u64,
    /// Key releases.
    pub key_up: u64,
    /// Pointer events.
    pub mouse: u64,
    /// Synchronize (lock keys) events.
    pub sync: u64,
    /// Other events (QoE, unused).
    pub other: u64,
    /// Suppress Output PDUs (the client minimised or restored).
    pub suppress_output: u64,
    /// Refresh Rect PDUs (the client asked for a repaint).
    pub refresh_rect: u64,
    /// PDUs that did not read (counted and dropped).
    pub malformed: u64,
}

/// A client's whole session, as the server saw it.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ServeRun {
    /// Where it came from.
    pub peer: String,
    /// What it announced.
    pub client: ClientIdentity,
    /// The connection sequence's wall time, ns.
    pub handshake_ns: u64,
    /// Bulk compression used (`none` or the type).
    pub codec: &'static str,
    /// Orders and the bitmap cache used (else bitmaps).
    pub orders: bool,
    /// Why orders were not used when asked for.
    pub orders_refused: Option<String>,
    /// Screen, `WxHxBPP`.
    pub screen: String,
    /// The phases run (the last may be cut short).
    pub phases: Vec<PhaseStats>,
    /// Per key echoed: arrival of its input PDU to the first byte of its update written, ns.
    pub input_to_update_ns: Vec<u64>,
    /// Input by kind.
    pub input: InputCounts,
    /// Bytes by MCS channel and direction: (channel id, from client, to client). The I/O
    /// channel's output is fast-path; fast-path input is counted on it.
    pub channels: Vec<(u16, u64, u64)>,
    /// TLS bytes on the wire, from and to the client.
    pub wire_in: u64,
    /// See `wire_in`.
    pub wire_out: u64,
    /// The graphics pipeline: its state and the client's frame acknowledgements (none when
    /// not offered).
    pub gfx: Option<AckStats>,
    /// How it ended ("script done", or why not).
    pub end: String,
    /// Whether the whole script ran.
    pub complete: bool,
}

impl ServeRun {
    /// One line for people: who, input to update, each phase's frame rate and bytes.
    pub fn summary(&self) -> String {
        let c = &self.client;
        let mut s = format!("{} (build {}, RDP {}, {}, {})", c.name, c.build, c.rdp_version, c.security, self.codec);
        let mut keys = self.input_to_update_ns.clone();
        if !keys.is_empty() {
            keys.sort_unstable();
            let p50 = keys[keys.len() / 2] as f64 / 1e6;
            s += &format!("; input to update p50 {p50:.2} ms over {} keys", keys.len());
        }
        for p in &self.phases {
            let secs = p.wall_ns.max(1) as f64 / 1e9;
            s += &format!(
                "; {} {:.1} fps, {:.0} kB/s, {} dropped",
                p.name,
                p.sent as f64 / secs,
                p.update_bytes as f64 / secs / 1e3,
                p.dropped
            );
        }
        s + &format!("; {}", self.end)
    }
}

/// Why a session stopped early, and what the client is told (a Set Error Info code).
struct Stop(String, Option<ProtocolIndependentCode>);

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        Stop(format!("socket: {e}"), None)
    }
}

/// TLS on the non-blocking socket, with the counts.
struct Link {
    conn: rustls::ServerConnection,
    sock: TcpStream,
    inbuf: Vec<u8>,
    wire_in: u64,
    wire_out: u64,
    eof: bool,
    /// Last time the client took or sent a byte.
    activity: u64,
}

impl Link {
    fn new(conn: rustls::ServerConnection, sock: TcpStream, inbuf: Vec<u8>) -> Self {
        Link { conn, sock, inbuf, wire_in: 0, wire_out: 0, eof: false, activity: monotonic_now() }
    }

    /// Write what TLS has queued as far as the socket takes it; the bytes written.
    fn pump_out(&mut self) -> Result<u64, Stop> {
        let mut wrote = 0;
        while self.conn.wants_write() {
            match self.conn.write_tls(&mut self.sock) {
                Ok(0) => return Err(Stop("the client closed the connection".into(), None)),
                Ok(n) => wrote += n as u64,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe || e.kind() == io::ErrorKind::ConnectionReset => {
                    return Err(Stop("the client closed the connection".into(), None));
                }
                Err(e) => return Err(e.into()),
            }
        }
        if wrote > 0 {
            self.wire_out += wrote;
            self.activity = monotonic_now();
        }
        Ok(wrote)
    }

    /// Read what the client sent into `inbuf` (plaintext).
    fn pump_in(&mut self) -> Result<(), Stop> {
        while !self.eof {
            match self.conn.read_tls(&mut self.sock) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.wire_in += n as u64;
                    self.activity = monotonic_now();
                    self.conn.process_new_packets().map_err(|e| Stop(format!("TLS: {e}"), None))?;
                    self.drain()?;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => self.eof = true,
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    fn drain(&mut self) -> Result<(), Stop> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match self.conn.reader().read(&mut chunk) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => self.inbuf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) => return Err(Stop(format!("TLS: {e}"), None)),
            }
        }
    }

    /// Wait up to `ms` for input, or for room when output is queued.
    fn wait(&self, ms: u64) -> Result<(), Stop> {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        let mut flags = PollFlags::empty();
        if !self.eof {
            flags |= PollFlags::POLLIN;
        }
        if self.conn.wants_write() {
            flags |= PollFlags::POLLOUT;
        }
        if flags.is_empty() {
            return Ok(());
        }
        let mut fds = [PollFd::new(self.sock.as_fd(), flags)];
        let t = PollTimeout::try_from(ms.min(1000) as i32).unwrap_or(PollTimeout::MAX);
        match poll(&mut fds, t) {
            Ok(_) | Err(nix::errno::Errno::EINTR) => Ok(()),
            Err(e) => Err(Stop(format!("poll: {e}"), None)),
        }
    }
}

/// What the input parser found for the session to act on.
#[derive(Debug, Default)]
struct Events {
    /// Scancodes pressed, in order.
    keys: Vec<u8>,
    /// A repaint asked for.
    refresh: bool,
    /// Output suppressed (Some(true)) or allowed again (Some(false)).
    suppress: Option<bool>,
    /// The client asked to end (Shutdown Request, Disconnect Provider Ultimatum).
    leaving: bool,
    /// What came on other channels than I/O: channel, data.
    channel_data: Vec<(u16, Vec<u8>)>,
}

/// Read every whole PDU at the front of `buf` (consumed), counting into `c` and `channels`.
/// A PDU whose framing cannot be read ends the parse with an error (the stream cannot be
/// resynchronised); one whose content does not read is counted malformed and skipped.
fn parse_input(
    buf: &mut Vec<u8>,
    io_channel: u16,
    c: &mut InputCounts,
    channels: &mut BTreeMap<u16, [u64; 2]>,
    ev: &mut Events,
) -> Result<(), Stop> {
    use ironrdp_core::decode;
    use ironrdp_pdu::input::fast_path::{FastPathInput, FastPathInputEvent, KeyboardFlags as FpKey};
    use ironrdp_pdu::input::{InputEvent, scan_code::KeyboardFlags as SlowKey};
    use ironrdp_pdu::rdp::headers::{ShareControlHeader, ShareControlPdu, ShareDataPdu};
    use ironrdp_pdu::x224::X224;
    let mut at = 0;
    while at + 2 <= buf.len() {
        let b = &buf[at..];
        let tpkt = b[0] == 3;
        let len = if tpkt {
            if b.len() < 4 {
                break;
            }
            u16::from_be_bytes([b[2], b[3]]) as usize
        } else if b[0] & 0x3 == 0 {
            match latlab_desktop::wire::pdu_len(b) {
                Some(n) => n,
                None => break,
            }
        } else {
            return Err(Stop(
                format!("the client sent a PDU that is neither fast-path nor TPKT (first byte {:#04x})", b[0]),
                None,
            ));
        };
        if len < 2 {
            return Err(Stop("the client sent a PDU of impossible length".into(), None));
        }
        if b.len() < len {
            break;
        }
        let pdu = &b[..len];
        at += len;
        if !tpkt {
            c.fastpath_pdus += 1;
            channels.entry(io_channel).or_default()[0] += len as u64;
            let Ok(input) = decode::<FastPathInput>(pdu) else {
                c.malformed += 1;
                continue;
            };
            for e in input.input_events() {
                match e {
                    FastPathInputEvent::KeyboardEvent(f, _) if f.contains(FpKey::RELEASE) => c.key_up += 1,
                    FastPathInputEvent::KeyboardEvent(_, code) => {
                        c.key_down += 1;
                        ev.keys.push(*code);
                    }
                    FastPathInputEvent::UnicodeKeyboardEvent(f, _) if f.contains(FpKey::RELEASE) => c.key_up += 1,
                    FastPathInputEvent::UnicodeKeyboardEvent(_, u) => {
                        c.key_down += 1;
                        if let Some(code) = char::from_u32(*u as u32).and_then(latlab_desktop::editor::scancode) {
                            ev.keys.push(code);
                        }
                    }
                    FastPathInputEvent::MouseEvent(_)
                    | FastPathInputEvent::MouseEventEx(_)
                    | FastPathInputEvent::MouseEventRel(_) => c.mouse += 1,
                    FastPathInputEvent::SyncEvent(_) => c.sync += 1,
                    FastPathInputEvent::QoeEvent(_) => c.other += 1,
                }
            }
            continue;
        }
        c.slowpath_pdus += 1;
        let Ok(data) = decode::<X224<ironrdp_pdu::mcs::SendDataRequest<'_>>>(pdu) else {
            if decode::<X224<ironrdp_pdu::mcs::DisconnectProviderUltimatum>>(pdu).is_ok() {
                ev.leaving = true;
            } else {
                c.malformed += 1;
            }
            continue;
        };
        let data = data.0;
        channels.entry(data.channel_id).or_default()[0] += len as u64;
        if data.channel_id != io_channel {
            ev.channel_data.push((data.channel_id, data.user_data.into_owned()));
            continue;
        }
        let Ok(share) = decode::<ShareControlHeader>(data.user_data.as_ref()) else {
            c.malformed += 1;
            continue;
        };
        let ShareControlPdu::Data(d) = share.share_control_pdu else { continue };
        match d.share_data_pdu {
            ShareDataPdu::Input(events) => {
                for e in events.0 {
                    match e {
                        InputEvent::ScanCode(s) if s.flags.contains(SlowKey::RELEASE) => c.key_up += 1,
                        InputEvent::ScanCode(s) => {
                            c.key_down += 1;
                            ev.keys.push(s.key_code as u8);
                        }
                        InputEvent::Unicode(u)
                            if u.flags.contains(ironrdp_pdu::input::unicode::KeyboardFlags::RELEASE) =>
                        {
                            c.key_up += 1
                        }
                        InputEvent::Unicode(u) => {
                            c.key_down += 1;
                            if let Some(code) =
                                char::from_u32(u.unicode_code as u32).and_then(latlab_desktop::editor::scancode)
                            {
                                ev.keys.push(code);
                            }
                        }
                        InputEvent::Mouse(_) | InputEvent::MouseX(_) | InputEvent::MouseRel(_) => c.mouse += 1,
                        InputEvent::Sync(_) => c.sync += 1,
                        InputEvent::Unused(_) => c.other += 1,
                    }
                }
            }
            ShareDataPdu::SuppressOutput(s) => {
                c.suppress_output += 1;
                ev.suppress = Some(s.desktop_rect.is_none());
            }
            ShareDataPdu::RefreshRectangle(_) => {
                c.refresh_rect += 1;
                ev.refresh = true;
            }
            ShareDataPdu::ShutdownRequest => ev.leaving = true,
            _ => {}
        }
    }
    buf.drain(..at);
    Ok(())
}

/// Whether the client takes latlab's orders (PatBlt/OpaqueRect, ScrBlt, MemBlt) and has a
/// Rev. 2 bitmap cache: the cells per cache it allows, or why not.
pub fn orders_supported(confirmed: &[CapabilitySet], want: [usize; 3]) -> Result<[usize; 3], String> {
    let mut order_ok = false;
    let mut cells = None;
    for c in confirmed {
        match c {
            CapabilitySet::Order(o) => {
                let mut o = o.clone();
                order_ok =
                    [caps::OrderSupportIndex::PatBlt, caps::OrderSupportIndex::ScrBlt, caps::OrderSupportIndex::MemBlt]
                        .into_iter()
                        .all(|i| o.get_support_flag(i));
            }
            CapabilitySet::BitmapCacheRev2(b) if b.num_cell_caches >= 3 => {
                let mut n = [0usize; 3];
                for (i, slot) in n.iter_mut().enumerate() {
                    *slot = (b.cache_cell_info[i].num_entries as usize).min(want[i]);
                }
                cells = Some(n);
            }
            _ => {}
        }
    }
    match (order_ok, cells) {
        (false, _) => Err("the client does not take PatBlt, ScrBlt and MemBlt orders".into()),
        (true, None) => Err("the client has no Rev. 2 bitmap cache with three cell caches".into()),
        (true, Some(n)) if n.contains(&0) => Err(format!("the client's bitmap cache has an empty cell cache ({n:?})")),
        (true, Some(n)) => Ok(n),
    }
}

/// The screen, encoder and sender of a session.
struct Desk {
    canvas: Canvas,
    screen: Framebuffer,
    enc: Encoder,
    enc_cfg: EncoderConfig,
    tx: Sender,
    plain: Vec<u8>,
    suppressed: bool,
    /// The graphics pipeline, when the client joined drdynvc.
    gfx: Option<Gfx>,
    /// The static channels the client joined (drdynvc).
    svcs: ironrdp_svc::StaticChannelSet,
    /// Frame bytes sent through the pipeline (on drdynvc, not the I/O channel).
    gfx_bytes: u64,
}

impl Desk {
    /// Whether the client's graphics pipeline has as many frames queued as it allows.
    fn gfx_full(&self) -> bool {
        self.gfx.as_ref().is_some_and(|g| g.active() && g.in_flight() >= crate::defaults::RDP_GFX_MAX_IN_FLIGHT)
    }

    /// Encode the canvas's damage and queue it on TLS: (update bytes, bytes before
    /// compression), (0, 0) when nothing changed; none when the graphics pipeline refused the
    /// frame (the damage waits for the next).
    fn update(&mut self, link: &mut Link, out: &FrameOut) -> Option<(u64, u64)> {
        if let Some(g) = self.gfx.as_mut().filter(|g| g.active()) {
            let Some(area) = self.canvas.to_fb_area(&mut self.screen) else { return Some((0, 0)) };
            let plain = (area.w * area.h * 4) as u64;
            return match g.frame(&mut self.svcs, &self.canvas, area) {
                Ok(Some(bytes)) => {
                    let _ = link.conn.writer().write_all(&bytes);
                    self.gfx_bytes += bytes.len() as u64;
                    Some((bytes.len() as u64, plain))
                }
                _ => {
                    // Not taken: the damage goes with the next frame.
                    self.canvas.mark(area);
                    return None;
                }
            };
        }
        let damage = self.canvas.to_fb_area(&mut self.screen);
        let mut plain = 0;
        if damage.is_some() || !out.copies.is_empty() || !out.blits.is_empty() {
            for pdu in self.enc.encode_damage(&self.screen, damage.unwrap_or_default(), &out.copies, &out.blits) {
                plain += self.tx.frame(&pdu, &mut self.plain) as u64;
            }
        }
        let n = self.plain.len() as u64;
        if n > 0 {
            // The TLS buffer is unbounded and holds at most one frame: frames are dropped while it is not empty.
            let _ = link.conn.writer().write_all(&self.plain);
            self.plain.clear();
        }
        Some((n, plain))
    }

    /// Forget what the client shows: the next update repaints the whole screen.
    fn repaint(&mut self) {
        self.canvas.touch_all();
        let s = &self.screen;
        self.enc = Encoder::new(s.width, s.height, s.bpp, self.enc_cfg.clone(), None);
    }
}

/// Serve `acc`'s client under `plan`. Never fails: how the session ended is in the run.
pub fn serve(acc: Accepted, plan: &Plan, peer: String, handshake_ns: u64) -> ServeRun {
    let Accepted { tls, leftover, mut result, client, gfx } = acc;
    let (w, h, bpp) = {
        let mut size =
            (latlab_desktop::defaults::WIDTH, latlab_desktop::defaults::HEIGHT, latlab_desktop::defaults::BPP);
        for c in &result.capabilities {
            if let CapabilitySet::Bitmap(b) = c {
                size = (b.desktop_width as usize, b.desktop_height as usize, b.pref_bits_per_pix as u32);
            }
        }
        size
    };
    let mut run = ServeRun { peer, client, handshake_ns, screen: format!("{w}x{h}x{bpp}"), ..Default::default() };
    let codec = match (plan.compress, run.client.compression) {
        (true, Some(t)) => Codec::Rdp(t),
        _ => Codec::None,
    };
    run.codec = codec.name();
    let mut enc_cfg = latlab_desktop::session::SessionConfig::standard(WorkloadKind::Slideshow, 0).encoder;
    enc_cfg.orders = false;
    if plan.orders {
        match orders_supported(&result.capabilities, enc_cfg.cells) {
            Ok(cells) => (enc_cfg.orders, enc_cfg.cells) = (true, cells),
            Err(why) => run.orders_refused = Some(why),
        }
    }
    run.orders = enc_cfg.orders;
    let rustls::StreamOwned { conn, sock } = tls;
    let mut link = Link::new(conn, sock, leftover.to_vec());
    link.conn.set_buffer_limit(None);
    let mut desk = Desk {
        canvas: Canvas::new(w, h),
        screen: Framebuffer::new(w, h, bpp),
        enc: Encoder::new(w, h, bpp, enc_cfg.clone(), None),
        enc_cfg,
        tx: Sender::new(codec, Crypto::None),
        plain: Vec::new(),
        suppressed: false,
        gfx: None,
        svcs: std::mem::take(&mut result.static_channels),
        gfx_bytes: 0,
    };
    let mut channels: BTreeMap<u16, [u64; 2]> = BTreeMap::new();
    // Fast-path input that came with the end of the sequence.
    for pdu in &result.input_events {
        link.inbuf.extend_from_slice(pdu);
    }
    let io_channel = result.io_channel_id;
    let mut stop_info = None;
    if let Some(shared) = gfx {
        match Gfx::start(&mut desk.svcs, result.user_channel_id, (w as u16, h as u16), shared) {
            Some((g, bytes)) => {
                channels.entry(g.channel_id()).or_default()[1] += bytes.len() as u64;
                let _ = link.conn.writer().write_all(&bytes);
                desk.gfx = Some(g);
            }
            None => {
                run.gfx =
                    Some(AckStats { state: "offered; the client did not join drdynvc".into(), ..Default::default() })
            }
        }
    }
    let mut ses = Ses { plan, io_channel, channels: &mut channels, run: &mut run, start: monotonic_now() };
    let end = match (|| -> Result<(), Stop> {
        link.sock.set_nonblocking(true)?;
        for phase in &plan.script {
            match phase {
                Phase::Echo => ses.echo(&mut link, &mut desk)?,
                Phase::Play(w) => ses.play(w, &mut link, &mut desk)?,
            }
        }
        Ok(())
    })() {
        Ok(()) => {
            run.complete = true;
            "script done".to_string()
        }
        Err(Stop(why, info)) => {
            stop_info = info;
            why
        }
    };
    run.end = end;
    if let Some(g) = desk.gfx.take() {
        run.gfx = Some(g.stats);
    }
    close(&mut link, (result.user_channel_id, io_channel), stop_info);
    let updates = run.phases.iter().map(|p| p.update_bytes).sum::<u64>();
    channels.entry(io_channel).or_default()[1] += updates - desk.gfx_bytes;
    if let Some(ch) = desk.svcs.get_channel_id_by_type::<ironrdp_dvc::DrdynvcServer>() {
        channels.entry(ch).or_default()[1] += desk.gfx_bytes;
    }
    run.channels = channels.into_iter().map(|(id, [i, o])| (id, i, o)).collect();
    (run.wire_in, run.wire_out) = (link.wire_in, link.wire_out);
    run
}

/// Tell the client why it is sent away (`info`, when the server ends the session for a
/// reason it has a code for), that the session is over, and close.
fn close(link: &mut Link, (user_channel, io_channel): (u16, u16), info: Option<ProtocolIndependentCode>) {
    use ironrdp_pdu::rdp::headers::{
        CompressionFlags, ShareControlHeader, ShareControlPdu, ShareDataHeader, ShareDataPdu, StreamPriority,
    };
    use ironrdp_pdu::rdp::server_error_info::{ErrorInfo, ServerSetErrorInfoPdu};
    if let Some(code) = info {
        let share = ShareControlHeader {
            share_id: 0,
            pdu_source: 0,
            share_control_pdu: ShareControlPdu::Data(ShareDataHeader {
                share_data_pdu: ShareDataPdu::ServerSetErrorInfo(ServerSetErrorInfoPdu(
                    ErrorInfo::ProtocolIndependentCode(code),
                )),
                stream_priority: StreamPriority::Undefined,
                compression_flags: CompressionFlags::empty(),
                compression_type: ironrdp_pdu::rdp::client_info::CompressionType::K8,
            }),
        };
        if let Ok(user_data) = ironrdp_core::encode_vec(&share) {
            let pdu = ironrdp_pdu::mcs::SendDataIndication {
                initiator_id: user_channel,
                channel_id: io_channel,
                user_data: user_data.into(),
            };
            if let Ok(b) = ironrdp_core::encode_vec(&ironrdp_pdu::x224::X224(pdu)) {
                let _ = link.conn.writer().write_all(&b);
            }
        }
    }
    let bye =
        ironrdp_pdu::mcs::DisconnectProviderUltimatum::from_reason(ironrdp_pdu::mcs::DisconnectReason::UserRequested);
    if let Ok(b) = ironrdp_core::encode_vec(&ironrdp_pdu::x224::X224(bye)) {
        let _ = link.conn.writer().write_all(&b);
    }
    link.conn.send_close_notify();
    let until = monotonic_now() + 1_000_000_000;
    let _ = link.sock.set_nonblocking(true);
    while link.conn.wants_write() && monotonic_now() < until && link.pump_out().is_ok() {
        let _ = link.wait(50);
    }
    let _ = link.sock.shutdown(std::net::Shutdown::Both);
}

/// Refuse an accepted client (every session slot is taken): tell it the server denied the
/// connection, and close.
pub fn refuse(acc: Accepted) {
    let rustls::StreamOwned { conn, sock } = acc.tls;
    let mut link = Link::new(conn, sock, Vec::new());
    close(
        &mut link,
        (acc.result.user_channel_id, acc.result.io_channel_id),
        Some(ProtocolIndependentCode::ServerDeniedConnection),
    );
}

/// Frames the client's graphics pipeline acknowledged so far.
fn acks(desk: &Desk) -> u64 {
    desk.gfx.as_ref().map_or(0, |g| g.stats.ack_ns.len() as u64)
}

/// A session being served.
struct Ses<'a> {
    plan: &'a Plan,
    io_channel: u16,
    channels: &'a mut BTreeMap<u16, [u64; 2]>,
    run: &'a mut ServeRun,
    start: u64,
}

impl Ses<'_> {
    /// Service the link: write, read, parse; the events found.
    fn service(&mut self, link: &mut Link, desk: &mut Desk) -> Result<Events, Stop> {
        link.pump_out()?;
        link.pump_in()?;
        let mut ev = Events::default();
        parse_input(&mut link.inbuf, self.io_channel, &mut self.run.input, self.channels, &mut ev)?;
        for (ch, data) in std::mem::take(&mut ev.channel_data) {
            let Some(g) = desk.gfx.as_mut().filter(|g| g.channel_id() == ch) else { continue };
            match g.on_data(&mut desk.svcs, &data) {
                Ok((bytes, ready)) => {
                    self.channels.entry(ch).or_default()[1] += bytes.len() as u64;
                    let _ = link.conn.writer().write_all(&bytes);
                    if ready {
                        desk.canvas.touch_all();
                    }
                }
                Err(_) => self.run.input.malformed += 1,
            }
        }
        if let Some(s) = ev.suppress {
            desk.suppressed = s;
            if !s {
                desk.repaint();
            }
        }
        if ev.refresh {
            desk.repaint();
        }
        if ev.leaving {
            return Err(Stop("the client disconnected".into(), None));
        }
        if link.eof && link.inbuf.is_empty() {
            return Err(Stop("the client closed the connection".into(), None));
        }
        let now = monotonic_now();
        if link.conn.wants_write() && now - link.activity >= self.plan.idle_ns {
            let why = format!("the client took nothing for {:.1} s (idle timeout)", self.plan.idle_ns as f64 / 1e9);
            return Err(Stop(why, Some(ProtocolIndependentCode::IdleTimeout)));
        }
        if now - self.start > self.plan.max_ns {
            let why = format!("the session reached the server's bound of {:.0} s", self.plan.max_ns as f64 / 1e9);
            return Err(Stop(why, Some(ProtocolIndependentCode::LogonTimeout)));
        }
        if latlab_sys::interrupt::stop_requested() {
            return Err(Stop("the server was stopped".into(), None));
        }
        Ok(ev)
    }

    /// Play workload `w` for the phase's length.
    fn play(&mut self, w: &WorkloadKind, link: &mut Link, desk: &mut Desk) -> Result<(), Stop> {
        let mut st = PhaseStats { name: w.name().into(), ..Default::default() };
        let acked = acks(desk);
        let r = self.play_into(w, link, desk, &mut st);
        st.acked = acks(desk) - acked;
        self.run.phases.push(st);
        r
    }

    fn play_into(
        &mut self,
        w: &WorkloadKind,
        link: &mut Link,
        desk: &mut Desk,
        st: &mut PhaseStats,
    ) -> Result<(), Stop> {
        let mut workload = w.build(self.plan.seed);
        let mut out = FrameOut::default();
        // Real time: the phase's frames on their deadlines. Flat out: frames for the phase's
        // length of wall time, the workload's clock a frame period a frame.
        let frames = self.plan.phase_ms.div_ceil(self.plan.frame_ms.max(1));
        let period = self.plan.frame_ms * 1_000_000;
        let start = monotonic_now();
        let end = start + self.plan.phase_ms * 1_000_000;
        for k in 0.. {
            if if self.plan.flat_out { monotonic_now() >= end } else { k >= frames } {
                break;
            }
            let c0 = thread_cpu_now();
            if self.plan.flat_out {
                // Read what came (the graphics pipeline's acknowledgements among it), then wait
                // for room.
                st.keys += self.service(link, desk)?.keys.len() as u64;
                while link.conn.wants_write() || desk.gfx_full() {
                    link.wait(100)?;
                    st.keys += self.service(link, desk)?.keys.len() as u64;
                }
            } else {
                let deadline = start + k * period;
                loop {
                    st.keys += self.service(link, desk)?.keys.len() as u64;
                    let now = monotonic_now();
                    if now >= deadline {
                        break;
                    }
                    link.wait((deadline - now).div_ceil(1_000_000))?;
                }
            }
            let c1 = thread_cpu_now();
            st.send_ns += c1 - c0;
            out.copies.clear();
            out.input.clear();
            out.blits.clear();
            workload.frame(k * self.plan.frame_ms, &mut desk.canvas, &mut out);
            st.frames += 1;
            let c2 = thread_cpu_now();
            st.render_ns += c2 - c1;
            if link.conn.wants_write() || desk.gfx_full() {
                st.dropped += 1;
                continue;
            }
            if desk.suppressed {
                st.suppressed += 1;
                continue;
            }
            match desk.update(link, &out) {
                None => st.dropped += 1,
                Some((0, _)) => {}
                Some((n, plain)) => {
                    (st.update_bytes, st.plain_bytes) = (st.update_bytes + n, st.plain_bytes + plain);
                    st.sent += 1;
                }
            }
            let c3 = thread_cpu_now();
            st.encode_ns += c3 - c2;
            link.pump_out()?;
            st.send_ns += thread_cpu_now() - c3;
            st.wall_ns = monotonic_now() - start;
        }
        st.wall_ns = monotonic_now() - start;
        Ok(())
    }

    /// Once bytes went out (`wrote`), the keys of the update queued (their arrival times) are
    /// timed: its first bytes are written now.
    fn stamp(&mut self, wrote: u64, queued: &mut Vec<u64>) {
        if wrote > 0 && !queued.is_empty() {
            let now = monotonic_now();
            self.run.input_to_update_ns.extend(queued.drain(..).map(|t| now.saturating_sub(t)));
        }
    }

    /// Echo the client's keys into an editor for the phase's length.
    fn echo(&mut self, link: &mut Link, desk: &mut Desk) -> Result<(), Stop> {
        let mut st = PhaseStats { name: "echo".into(), ..Default::default() };
        let acked = acks(desk);
        let r = self.echo_into(link, desk, &mut st);
        st.acked = acks(desk) - acked;
        self.run.phases.push(st);
        r
    }

    fn echo_into(&mut self, link: &mut Link, desk: &mut Desk, st: &mut PhaseStats) -> Result<(), Stop> {
        let start = monotonic_now();
        let end = start + self.plan.phase_ms * 1_000_000;
        let (w, h) = (desk.canvas.width(), desk.canvas.height());
        let mut editor = Editor::new(self.plan.seed, w, h);
        editor.start(&mut desk.canvas);
        let out = FrameOut::default();
        let mut dirty = true;
        // Keys (arrival times) in the canvas but in no update yet, and in the update queued.
        let (mut waiting, mut queued): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
        loop {
            let c0 = thread_cpu_now();
            let wrote = link.pump_out()?;
            self.stamp(wrote, &mut queued);
            let ev = self.service(link, desk)?;
            let received = monotonic_now();
            st.send_ns += thread_cpu_now() - c0;
            if !ev.keys.is_empty() {
                let c1 = thread_cpu_now();
                for &code in &ev.keys {
                    editor.key(code, &mut desk.canvas);
                    waiting.push(received);
                }
                st.keys += ev.keys.len() as u64;
                dirty = true;
                st.render_ns += thread_cpu_now() - c1;
            }
            if dirty && !link.conn.wants_write() && !desk.gfx_full() && !desk.suppressed {
                let c2 = thread_cpu_now();
                st.frames += 1;
                let sent = match desk.update(link, &out) {
                    // Refused by the client's graphics pipeline: the keys wait for the next.
                    None => {
                        st.dropped += 1;
                        false
                    }
                    // Keys that changed nothing on the screen (a Shift) have no update to time.
                    Some((0, _)) => {
                        waiting.clear();
                        dirty = false;
                        false
                    }
                    Some((n, plain)) => {
                        (st.update_bytes, st.plain_bytes) = (st.update_bytes + n, st.plain_bytes + plain);
                        st.sent += 1;
                        dirty = false;
                        true
                    }
                };
                let c3 = thread_cpu_now();
                st.encode_ns += c3 - c2;
                if sent {
                    queued.append(&mut waiting);
                    // The update's first bytes go now, unless the socket is full.
                    let wrote = link.pump_out()?;
                    self.stamp(wrote, &mut queued);
                    st.send_ns += thread_cpu_now() - c3;
                    continue;
                }
            }
            let now = monotonic_now();
            if now >= end {
                break;
            }
            link.wait(((end - now) / 1_000_000).clamp(1, 100))?;
        }
        st.wall_ns = monotonic_now() - start;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fastpath_key(code: u8, release: bool) -> Vec<u8> {
        // fpInputHeader: action 0, one event; length 4; keyboard event (code 0) with flags.
        vec![1 << 2, 4, u8::from(release), code]
    }

    #[test]
    fn fast_path_keys_are_counted_and_pressed_ones_kept() {
        let mut buf = [fastpath_key(0x1E, false), fastpath_key(0x1E, true), fastpath_key(0x30, false)].concat();
        buf.extend_from_slice(&[1 << 2, 4]); // the start of a fourth PDU waits for its rest
        let (mut c, mut ch, mut ev) = (InputCounts::default(), BTreeMap::new(), Events::default());
        parse_input(&mut buf, 1003, &mut c, &mut ch, &mut ev).map_err(|s| s.0).unwrap();
        assert_eq!((c.fastpath_pdus, c.key_down, c.key_up, c.malformed), (3, 2, 1, 0));
        assert_eq!(ev.keys, vec![0x1E, 0x30]);
        assert_eq!(buf, vec![1 << 2, 4]);
        assert_eq!(ch[&1003], [12, 0]);
    }

    #[test]
    fn a_broken_event_is_counted_and_the_stream_goes_on() {
        // One event announced, but its body is an unknown event code 7.
        let mut buf = vec![1 << 2, 3, 7 << 5];
        buf.extend(fastpath_key(0x1E, false));
        let (mut c, mut ch, mut ev) = (InputCounts::default(), BTreeMap::new(), Events::default());
        parse_input(&mut buf, 1003, &mut c, &mut ch, &mut ev).map_err(|s| s.0).unwrap();
        assert_eq!(c.malformed, 1);
        assert_eq!(ev.keys, vec![0x1E]);
        assert!(buf.is_empty());
    }

    #[test]
    fn unframed_bytes_end_the_parse() {
        let mut buf = vec![0x02, 0x10, 0, 0];
        let (mut c, mut ch, mut ev) = (InputCounts::default(), BTreeMap::new(), Events::default());
        assert!(parse_input(&mut buf, 1003, &mut c, &mut ch, &mut ev).is_err());
        let mut zero = vec![0x04, 0x00];
        assert!(parse_input(&mut zero, 1003, &mut c, &mut ch, &mut ev).is_err());
    }

    #[test]
    fn a_tpkt_that_is_not_mcs_data_is_malformed() {
        let mut buf = vec![3, 0, 0, 8, 2, 0xF0, 0x80, 0x55];
        let (mut c, mut ch, mut ev) = (InputCounts::default(), BTreeMap::new(), Events::default());
        parse_input(&mut buf, 1003, &mut c, &mut ch, &mut ev).map_err(|s| s.0).unwrap();
        assert_eq!((c.slowpath_pdus, c.malformed), (1, 1));
        assert!(!ev.leaving);
    }

    #[test]
    fn phases_by_name() {
        assert_eq!(Phase::from_name("echo"), Some(Phase::Echo));
        assert_eq!(Phase::from_name("slideshow").map(|p| p.name()), Some("slideshow"));
        assert_eq!(Phase::from_name("nope"), None);
    }

    #[test]
    fn orders_need_the_orders_and_a_rev2_cache() {
        let mut o =
            caps::Order::new(caps::OrderFlags::NEGOTIATE_ORDER_SUPPORT, caps::OrderSupportExFlags::empty(), 0, 0);
        assert!(orders_supported(&[CapabilitySet::Order(o.clone())], [120, 120, 337]).is_err());
        for i in [caps::OrderSupportIndex::PatBlt, caps::OrderSupportIndex::ScrBlt, caps::OrderSupportIndex::MemBlt] {
            o.set_support_flag(i, true);
        }
        let e = orders_supported(&[CapabilitySet::Order(o.clone())], [120, 120, 337]).unwrap_err();
        assert!(e.contains("Rev. 2"), "{e}");
        let cell = |n| caps::CellInfo { num_entries: n, is_cache_persistent: false };
        let cache = caps::BitmapCacheRev2 {
            cache_flags: caps::CacheFlags::empty(),
            num_cell_caches: 3,
            cache_cell_info: [cell(600), cell(100), cell(2048), cell(0), cell(0)],
        };
        let n = orders_supported(&[CapabilitySet::Order(o), CapabilitySet::BitmapCacheRev2(cache)], [120, 120, 337])
            .unwrap();
        assert_eq!(n, [120, 100, 337]);
    }
}
