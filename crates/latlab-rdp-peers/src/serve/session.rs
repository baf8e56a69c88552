//! A real client's session, after the connection sequence: latlab's desktop played to it in
//! phases (a workload on frame deadlines or flat out, or `echo`: the client's own keys typed
//! into an editor), over TLS on a non-blocking socket in one thread. Updates are latlab's
//! encoder's bitmap (or order) PDUs in fast-path with the bulk compressor the client offered;
//! a frame whose deadline comes while the last one is still queued is dropped and its damage
//! goes with the next (the client's throughput limit, seen from the server). Input is read
//! as it comes: fast-path and slow-path events counted by kind, keys echoed, Suppress Output
//! and Refresh Rect obeyed, and the time from a key's arrival to the first byte of the update
//! it caused kept per key.

use super::accept::Accepted;
use super::conn::{Link, Stop};
use super::gfx::{AckStats, Gfx};
use super::input::{Events, orders_supported, parse_input};
use super::plan::{Phase, PhaseStats, Plan, ServeRun};
use ironrdp_pdu::rdp::capability_sets::CapabilitySet;
use ironrdp_pdu::rdp::server_error_info::ProtocolIndependentCode;
use latlab_desktop::editor::Editor;
use latlab_desktop::encoder::{Encoder, EncoderConfig};
use latlab_desktop::fb::Framebuffer;
use latlab_desktop::render::Canvas;
use latlab_desktop::wire::{Codec, Crypto, Sender};
use latlab_desktop::workload::{FrameOut, WorkloadKind};
use latlab_sys::clock::{monotonic_now, thread_cpu_now};
use std::collections::BTreeMap;
use std::io::Write;

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
            Err(why) => run.orders_refused = Some(why.to_string()),
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
    let mut ses = LiveSession { plan, io_channel, channels: &mut channels, run: &mut run, start: monotonic_now() };
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
struct LiveSession<'a> {
    plan: &'a Plan,
    io_channel: u16,
    channels: &'a mut BTreeMap<u16, [u64; 2]>,
    run: &'a mut ServeRun,
    start: u64,
}

impl LiveSession<'_> {
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
