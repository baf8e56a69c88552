//! One activated connection to a real RDP server: frames read off TLS, fast-path output
//! decoded by latlab's own code (bulk decompression, bitmap updates, interleaved RLE) into
//! latlab's framebuffer with each stage's CPU time, slow-path frames (the server's control
//! PDUs) answered by IronRDP's session layer, and input sent as fast-path keyboard and mouse
//! events.

use super::connect::{Connection, ServerIdentity, Tls, from_iron};
use super::fastpath::{FastPathError, FastPathReader, UpdateCode};
use super::slowpath::{PDUTYPE2_UPDATE, share_data, uncompressed};
use crate::decoder::{DecodeError, Decoder};
use crate::fb::Framebuffer;
use ironrdp_pdu::Action;
use ironrdp_pdu::input::fast_path::{FastPathInput, FastPathInputEvent, KeyboardFlags};
use ironrdp_pdu::input::mouse::{MousePdu, PointerFlags};
use ironrdp_session::image::DecodedImage;
use ironrdp_session::{ActiveStage, ActiveStageBuilder, ActiveStageOutput};
use latlab_sys::clock::{monotonic_now, thread_cpu_now};
use latlab_sys::tcpinfo::{TcpCounts, tcp_counts};
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::time::Duration;
use thiserror::Error;

/// Why a session ended early.
#[derive(Debug, Error)]
pub enum SessionError {
    /// The socket failed or closed.
    #[error("connection: {0}")]
    Io(#[from] io::Error),
    /// The server closed the session (logoff, another user took it, an error it reported).
    #[error("the server ended the session: {0}")]
    Ended(String),
    /// A fast-path PDU did not parse or decompress.
    #[error(transparent)]
    FastPath(#[from] FastPathError),
    /// An update did not decode.
    #[error("display update: {0}")]
    Decode(#[from] DecodeError),
    /// IronRDP's session layer refused a slow-path frame.
    #[error("slow-path frame: {0}")]
    Slow(String),
    /// The frame header is not RDP.
    #[error("not an RDP frame: {0}")]
    Framing(String),
}

/// CPU time per client stage, nanoseconds of the session thread (seed 000's stages).
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct StageTimes {
    /// Reading the socket (the system calls).
    pub receive_ns: u64,
    /// TLS decryption (reading TLS records, less the socket reads).
    pub decrypt_ns: u64,
    /// Bulk decompression with latlab's decompressors.
    pub decompress_ns: u64,
    /// Parsing updates and RLE-decoding bitmaps with latlab's decoder.
    pub decode_ns: u64,
    /// Drawing into the framebuffer.
    pub blit_ns: u64,
    /// IronRDP's handling of slow-path frames.
    pub slow_path_ns: u64,
}

/// What the session counted.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct SessionCounts {
    /// Fast-path output PDUs (the I/O channel's display updates).
    pub fastpath_pdus: u64,
    /// Their bytes (after TLS).
    pub fastpath_bytes: u64,
    /// Bytes of display updates, fast-path PDUs and slow-path Update PDUs together (the
    /// display channel: xrdp sends its bitmaps slow-path).
    pub display_bytes: u64,
    /// Slow-path frames (X.224: control PDUs, slow-path updates and virtual channels).
    pub slowpath_frames: u64,
    /// Their bytes.
    pub slowpath_bytes: u64,
    /// Updates by kind: count and decompressed bytes.
    pub updates: BTreeMap<&'static str, (u64, u64)>,
    /// Updates of a kind latlab's decoder does not draw (drawing orders, surface commands,
    /// palettes, slow-path graphics): counted, not drawn.
    pub not_drawn: u64,
    /// Updates latlab drew on its screen (bitmaps, fast-path or slow-path).
    pub pictures: u64,
    /// Input PDUs sent, and their bytes.
    pub input_pdus: u64,
    /// See `input_pdus`.
    pub input_bytes: u64,
}

/// A live session.
pub struct RdpSession {
    tls: Tls,
    buf: Vec<u8>,
    stage: ActiveStage,
    iron_image: DecodedImage,
    fast: FastPathReader,
    /// latlab's decoder and the framebuffer it draws.
    pub decoder: Decoder,
    /// The server as it presented itself.
    pub server: ServerIdentity,
    /// What crossed the session.
    pub counts: SessionCounts,
    tls_ns: u64,
    slow_ns: u64,
    fastpath_input: bool,
    io_channel: u16,
    tcp_at_start: TcpCounts,
}

/// A key: its scancode (set 1) and whether it is an extended key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// Scancode.
    pub code: u8,
    /// Extended (E0-prefixed) key.
    pub extended: bool,
}

impl RdpSession {
    /// Begin the active phase of `conn`.
    pub fn new(conn: Connection) -> Result<Self, SessionError> {
        let Connection { tls, leftover, result, server } = conn;
        let (w, h) = (result.desktop_size.width, result.desktop_size.height);
        let compression = result.compression_type.map(from_iron);
        let fastpath_input = !result.input_flags.is_empty();
        let io_channel = result.io_channel_id;
        let (refresh_rect_support, suppress_output_support) =
            (result.refresh_rect_support, result.suppress_output_support);
        let stage = ActiveStageBuilder {
            static_channels: result.static_channels,
            user_channel_id: result.user_channel_id,
            io_channel_id: result.io_channel_id,
            message_channel_id: result.message_channel_id,
            share_id: result.share_id,
            // latlab decompresses every packet itself (one history for both paths) and hands
            // IronRDP uncompressed frames.
            compression_type: None,
            enable_server_pointer: true,
            pointer_software_rendering: false,
        }
        .build();
        // Ask for the whole screen, as a client that reconnects to a session does: some servers
        // (xrdp reconnecting to a running session) send nothing until something changes.
        let redraw = stage
            .request_full_redraw(w, h, refresh_rect_support, suppress_output_support)
            .map_err(|e| SessionError::Slow(format!("{e:#}")))?;
        let tcp_at_start = tcp_counts(&tls.sock.tcp)?;
        let mut me = Self {
            tls,
            buf: leftover,
            stage,
            iron_image: DecodedImage::new(ironrdp_graphics::image_processing::PixelFormat::RgbA32, w, h),
            fast: FastPathReader::new(compression),
            decoder: Decoder::new(w as usize, h as usize, server.bpp, [0; 3], true),
            server,
            counts: SessionCounts::default(),
            tls_ns: 0,
            slow_ns: 0,
            fastpath_input,
            io_channel,
            tcp_at_start,
        };
        for f in redraw {
            me.write(&f)?;
        }
        Ok(me)
    }

    /// The screen as latlab decoded it.
    pub fn screen(&self) -> &Framebuffer {
        &self.decoder.fb
    }

    /// The client's CPU per stage so far.
    pub fn stage_times(&self) -> StageTimes {
        let receive_ns = self.tls.sock.counts.read_ns;
        StageTimes {
            receive_ns,
            decrypt_ns: self.tls_ns.saturating_sub(receive_ns),
            decompress_ns: self.fast.decompress_ns,
            decode_ns: self.decoder.times.decode_ns + self.decoder.times.cache_ns,
            blit_ns: self.decoder.times.blit_ns,
            slow_path_ns: self.slow_ns,
        }
    }

    /// The TLS bytes read and written so far.
    pub fn tls_bytes(&self) -> (u64, u64) {
        (self.tls.sock.counts.bytes_in, self.tls.sock.counts.bytes_out)
    }

    /// What the kernel counted on the connection since the active phase began.
    pub fn tcp(&self) -> io::Result<TcpCounts> {
        let now = tcp_counts(&self.tls.sock.tcp)?;
        let s = self.tcp_at_start;
        Ok(TcpCounts {
            segs_in: now.segs_in - s.segs_in,
            segs_out: now.segs_out - s.segs_out,
            bytes_in: now.bytes_in - s.bytes_in,
            bytes_out: now.bytes_out - s.bytes_out,
            retrans: now.retrans - s.retrans,
        })
    }

    /// The compression the server actually uses, once it sent a compressed update.
    pub fn compression_used(&self) -> Option<&'static str> {
        self.fast.used.map(|c| c.name())
    }

    /// Read and apply frames until the monotonic time `deadline_ns`; after each fast-path PDU
    /// that drew something, `drawn(screen, now_ns)` is called.
    pub fn pump_until(
        &mut self,
        deadline_ns: u64,
        drawn: &mut dyn FnMut(&Framebuffer, u64),
    ) -> Result<(), SessionError> {
        let mut chunk = [0u8; 16384];
        loop {
            // Plaintext rustls already decrypted comes first: the socket may have nothing more.
            loop {
                match self.tls.conn.reader().read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                    Err(_) => break,
                }
            }
            while let Some((action, len)) = self.next_frame()? {
                let frame: Vec<u8> = self.buf.drain(..len).collect();
                self.apply(action, &frame, drawn)?;
            }
            let now = monotonic_now();
            if now >= deadline_ns {
                return Ok(());
            }
            // Wait for bytes with poll (hrtimer precision) rather than the socket's receive
            // timeout (jiffies: 4 ms here), so a key goes out on its deadline.
            if !self.tls.conn.wants_write() && !self.readable(deadline_ns - now)? {
                continue;
            }
            self.tls.sock.tcp.set_read_timeout(Some(Duration::from_millis(200)))?;
            let t = thread_cpu_now();
            let r = self.tls.read(&mut chunk);
            self.tls_ns += thread_cpu_now().saturating_sub(t);
            match r {
                Ok(0) => {
                    return Err(SessionError::Io(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the server closed the connection",
                    )));
                }
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Whether the socket has bytes within `wait_ns` (sleeping to the end of a sub-millisecond
    /// wait, which poll cannot express).
    fn readable(&self, wait_ns: u64) -> Result<bool, SessionError> {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        use std::os::fd::AsFd;
        let ms = wait_ns / 1_000_000;
        let mut fds = [PollFd::new(self.tls.sock.tcp.as_fd(), PollFlags::POLLIN)];
        let n = poll(&mut fds, PollTimeout::try_from(ms.min(60_000) as i32).unwrap_or(PollTimeout::MAX))
            .map_err(io::Error::from)?;
        if n == 0 && ms == 0 {
            latlab_sys::clock::clock_nanosleep_abs(monotonic_now() + wait_ns);
        }
        Ok(n > 0)
    }

    fn next_frame(&self) -> Result<Option<(Action, usize)>, SessionError> {
        match ironrdp_pdu::find_size(&self.buf) {
            Ok(Some(info)) if info.length <= self.buf.len() => Ok(Some((info.action, info.length))),
            Ok(_) => Ok(None),
            Err(e) => Err(SessionError::Framing(e.to_string())),
        }
    }

    fn apply(
        &mut self,
        action: Action,
        frame: &[u8],
        drawn: &mut dyn FnMut(&Framebuffer, u64),
    ) -> Result<(), SessionError> {
        match action {
            Action::FastPath => {
                self.counts.fastpath_pdus += 1;
                self.counts.fastpath_bytes += frame.len() as u64;
                self.counts.display_bytes += frame.len() as u64;
                let mut drew = false;
                let (decoder, counts) = (&mut self.decoder, &mut self.counts);
                let mut orders = Vec::new();
                self.fast.read(frame, |code, data| {
                    let e = counts.updates.entry(code.name()).or_default();
                    e.0 += 1;
                    e.1 += data.len() as u64;
                    match code {
                        UpdateCode::Bitmap => {
                            decoder.apply(data).map_err(|e| FastPathError::Invalid(decode_reason(&e)))?;
                            drew = true;
                        }
                        UpdateCode::Orders
                        | UpdateCode::SurfaceCommands
                        | UpdateCode::Palette
                        | UpdateCode::Other(_) => {
                            counts.not_drawn += 1;
                            orders.push(code);
                        }
                        UpdateCode::Synchronize | UpdateCode::Pointer => {}
                    }
                    Ok(())
                })?;
                if drew {
                    self.counts.pictures += 1;
                    drawn(&self.decoder.fb, monotonic_now());
                }
            }
            Action::X224 => {
                self.counts.slowpath_frames += 1;
                self.counts.slowpath_bytes += frame.len() as u64;
                let mut rebuilt = None;
                if let Some(sd) = share_data(frame, self.io_channel) {
                    let plain = self.fast.bulk(sd.data, sd.flags)?;
                    if sd.pdu_type2 == PDUTYPE2_UPDATE {
                        self.counts.display_bytes += frame.len() as u64;
                        return self.slow_update(&plain, drawn);
                    }
                    if sd.flags & 0x20 != 0 {
                        rebuilt = Some(uncompressed(frame, &sd, &plain));
                    }
                }
                let frame = rebuilt.as_deref().unwrap_or(frame);
                let t = thread_cpu_now();
                let out = self.stage.process(&mut self.iron_image, Action::X224, frame, None).map_err(|e| {
                    SessionError::Slow(format!(
                        "{e:#} (frame of {} bytes: {:02x?})",
                        frame.len(),
                        &frame[..frame.len().min(48)]
                    ))
                })?;
                self.slow_ns += thread_cpu_now().saturating_sub(t);
                for o in out {
                    match o {
                        ActiveStageOutput::ResponseFrame(f) if !f.is_empty() => self.write(&f)?,
                        ActiveStageOutput::GraphicsUpdate(_) => self.counts.not_drawn += 1,
                        ActiveStageOutput::Terminate(reason) => return Err(SessionError::Ended(format!("{reason:?}"))),
                        ActiveStageOutput::DeactivateAll => {
                            return Err(SessionError::Ended(
                                "the server began a deactivation-reactivation (a resize or reconnection), which \
                                 latlab's client does not follow yet"
                                    .into(),
                            ));
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    }

    /// A slow-path Update PDU's data (updateType first), decompressed: bitmaps are drawn by
    /// latlab's decoder as fast-path ones are.
    fn slow_update(&mut self, plain: &[u8], drawn: &mut dyn FnMut(&Framebuffer, u64)) -> Result<(), SessionError> {
        let kind = match plain.first().copied() {
            Some(0) => "slow_orders",
            Some(1) => "slow_bitmap",
            Some(2) => "slow_palette",
            Some(3) => "slow_synchronize",
            _ => "slow_other",
        };
        let e = self.counts.updates.entry(kind).or_default();
        e.0 += 1;
        e.1 += plain.len() as u64;
        match kind {
            "slow_bitmap" => {
                self.decoder.apply(plain)?;
                self.counts.pictures += 1;
                drawn(&self.decoder.fb, monotonic_now());
            }
            "slow_synchronize" => {}
            _ => self.counts.not_drawn += 1,
        }
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), SessionError> {
        self.tls.sock.tcp.set_read_timeout(None)?;
        self.tls.write_all(bytes)?;
        self.tls.flush()?;
        Ok(())
    }

    fn send(&mut self, events: Vec<FastPathInputEvent>) -> Result<u64, SessionError> {
        if !self.fastpath_input {
            return Err(SessionError::Slow(
                "the server does not accept fast-path input, and latlab sends no slow-path input yet".into(),
            ));
        }
        let pdu = FastPathInput::new(events).map_err(|e| SessionError::Slow(e.to_string()))?;
        let bytes = ironrdp_core::encode_vec(&pdu).map_err(|e| SessionError::Slow(e.to_string()))?;
        self.counts.input_pdus += 1;
        self.counts.input_bytes += bytes.len() as u64;
        self.write(&bytes)?;
        Ok(monotonic_now())
    }

    /// Press and release each key of `keys` in turn (one PDU); returns when it was sent.
    pub fn type_keys(&mut self, keys: &[Key]) -> Result<u64, SessionError> {
        let mut ev = Vec::new();
        for k in keys {
            let f = if k.extended { KeyboardFlags::EXTENDED } else { KeyboardFlags::empty() };
            ev.push(FastPathInputEvent::KeyboardEvent(f, k.code));
            ev.push(FastPathInputEvent::KeyboardEvent(f | KeyboardFlags::RELEASE, k.code));
        }
        self.send(ev)
    }

    /// Hold `modifier` while pressing `key` (Ctrl-U and the like).
    pub fn chord(&mut self, modifier: Key, key: Key) -> Result<u64, SessionError> {
        let flags = |k: Key| if k.extended { KeyboardFlags::EXTENDED } else { KeyboardFlags::empty() };
        self.send(vec![
            FastPathInputEvent::KeyboardEvent(flags(modifier), modifier.code),
            FastPathInputEvent::KeyboardEvent(flags(key), key.code),
            FastPathInputEvent::KeyboardEvent(flags(key) | KeyboardFlags::RELEASE, key.code),
            FastPathInputEvent::KeyboardEvent(flags(modifier) | KeyboardFlags::RELEASE, modifier.code),
        ])
    }

    /// Move the mouse to (`x`, `y`).
    pub fn mouse_to(&mut self, x: u16, y: u16) -> Result<u64, SessionError> {
        self.send(vec![FastPathInputEvent::MouseEvent(MousePdu {
            flags: PointerFlags::MOVE,
            number_of_wheel_rotation_units: 0,
            x_position: x,
            y_position: y,
        })])
    }

    /// Ask the server to end the session politely and close the socket.
    pub fn close(mut self) {
        if let Ok(out) = self.stage.graceful_shutdown() {
            for o in out {
                if let ActiveStageOutput::ResponseFrame(f) = o {
                    let _ = self.write(&f);
                }
            }
        }
        let _ = self.tls.sock.tcp.shutdown(std::net::Shutdown::Both);
    }
}

fn decode_reason(e: &DecodeError) -> &'static str {
    match e {
        DecodeError::Update(_) => "a bitmap update did not parse",
        DecodeError::Rle(_) => "an interleaved-RLE bitmap did not decode",
        DecodeError::Invalid(s) => s,
    }
}
