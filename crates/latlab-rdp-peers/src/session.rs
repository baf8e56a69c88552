//! One activated connection to a real RDP server: frames read off TLS, fast-path output
//! decoded by latlab's own code (bulk decompression, bitmap updates, interleaved RLE) into
//! latlab's framebuffer with each stage's CPU time, slow-path frames (the server's control
//! PDUs) answered by IronRDP's session layer, and input sent as fast-path keyboard and mouse
//! events.

use crate::connect::{Connection, ServerIdentity, Tls, from_iron};
use ironrdp_pdu::Action;
use ironrdp_pdu::input::fast_path::{FastPathInput, FastPathInputEvent, KeyboardFlags, SynchronizeFlags};
use ironrdp_pdu::input::mouse::{MousePdu, PointerFlags};
use ironrdp_session::image::DecodedImage;
use ironrdp_session::{ActiveStage, ActiveStageBuilder, ActiveStageOutput};
use latlab_desktop::fb::Framebuffer;
pub use latlab_desktop::rdp_stream::stream::{DisplayStream, SessionCounts, SessionError};
use latlab_desktop::rdp_stream::stream::{Slow, frame_len};
pub use latlab_keyscreen::keys::Key;
use latlab_sys::clock::{monotonic_now, thread_cpu_now};
use latlab_sys::tcpinfo::{TcpCounts, tcp_counts};
use std::io::{self, Read, Write};
use std::time::Duration;

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

/// A live session.
pub struct RdpSession {
    tls: Tls,
    buf: Vec<u8>,
    stage: ActiveStage,
    iron_image: DecodedImage,
    /// latlab's side of the display stream: decompression, decoding, the framebuffer, counts.
    pub display: DisplayStream,
    /// The server as it presented itself.
    pub server: ServerIdentity,
    tls_ns: u64,
    slow_ns: u64,
    fastpath_input: bool,
    tcp_at_start: TcpCounts,
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
            display: DisplayStream::new(w as usize, h as usize, server.bpp, compression, io_channel),
            server,
            tls_ns: 0,
            slow_ns: 0,
            fastpath_input,
            tcp_at_start,
        };
        for f in redraw {
            me.write(&f)?;
        }
        // Tell the server the lock keys' state (all off), as clients do once the session is
        // active (MS-RDPBCGR 2.2.8.1.2.2.5): xrdp takes no keys on a reconnected session until
        // it has had one.
        if me.fastpath_input {
            me.send(vec![FastPathInputEvent::SyncEvent(SynchronizeFlags::empty())])?;
        }
        Ok(me)
    }

    /// The screen as latlab decoded it.
    pub fn screen(&self) -> &Framebuffer {
        &self.display.decoder.fb
    }

    /// The client's CPU per stage so far.
    pub fn stage_times(&self) -> StageTimes {
        let receive_ns = self.tls.sock.counts.read_ns;
        StageTimes {
            receive_ns,
            decrypt_ns: self.tls_ns.saturating_sub(receive_ns),
            decompress_ns: self.display.decompress_ns(),
            decode_ns: self.display.decoder.times.decode_ns + self.display.decoder.times.cache_ns,
            blit_ns: self.display.decoder.times.blit_ns,
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
            min_rtt_ns: now.min_rtt_ns,
        })
    }

    /// What crossed the session.
    pub fn counts(&self) -> &SessionCounts {
        &self.display.counts
    }

    /// Each compressed packet's sizes and decompression time so far.
    pub fn compressed_pdus(&self) -> &latlab_desktop::pdu_stats::PduStats {
        self.display.pdus()
    }

    /// The compression the server actually uses, once it sent a compressed update.
    pub fn compression_used(&self) -> Option<&'static str> {
        self.display.compression_used()
    }

    /// Read and apply frames until the monotonic time `deadline_ns` (a signal does not end it
    /// early: the keys in flight at Ctrl-C are still seen); after each fast-path PDU that drew
    /// something, `drawn(screen, now_ns)` is called.
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
            // Whole frames are applied where they lie (no copy each), then dropped at once.
            let buf = std::mem::take(&mut self.buf);
            let mut at = 0;
            let applied = (|| {
                while let Some((fast, len)) = frame_len(&buf[at..])? {
                    self.apply(if fast { Action::FastPath } else { Action::X224 }, &buf[at..at + len], drawn)?;
                    at += len;
                }
                Ok::<(), SessionError>(())
            })();
            self.buf = buf;
            self.buf.drain(..at);
            applied?;
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
                // A signal (Ctrl-C) interrupts a read with a timeout: the loop looks at the
                // stop flag and reads again.
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                    ) => {}
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
        let n = match poll(&mut fds, PollTimeout::try_from(ms.min(60_000) as i32).unwrap_or(PollTimeout::MAX)) {
            // A signal (Ctrl-C) ends the wait early: nothing read yet, the caller looks again.
            Err(nix::errno::Errno::EINTR) => return Ok(false),
            r => r.map_err(io::Error::from)?,
        };
        if n == 0 && ms == 0 {
            latlab_sys::clock::clock_nanosleep_abs(monotonic_now() + wait_ns);
        }
        Ok(n > 0)
    }

    fn apply(
        &mut self,
        action: Action,
        frame: &[u8],
        drawn: &mut dyn FnMut(&Framebuffer, u64),
    ) -> Result<(), SessionError> {
        match action {
            Action::FastPath => {
                if self.display.fast_path(frame)? {
                    drawn(&self.display.decoder.fb, monotonic_now());
                }
            }
            Action::X224 => {
                let rebuilt = match self.display.slow_path(frame)? {
                    Slow::Drew(drew) => {
                        if drew {
                            drawn(&self.display.decoder.fb, monotonic_now());
                        }
                        return Ok(());
                    }
                    Slow::ToSession(rebuilt) => rebuilt,
                };
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
                        ActiveStageOutput::GraphicsUpdate(_) => self.display.counts.not_drawn += 1,
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
        self.display.counts.input_pdus += 1;
        self.display.counts.input_bytes += bytes.len() as u64;
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
