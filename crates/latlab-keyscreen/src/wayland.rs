//! A wlroots compositor's output as a [`Surface`]: keys through `zwp_virtual_keyboard_v1` (a
//! keymap of latlab's own keys uploaded first), frames through `zwlr_screencopy_manager_v1`
//! into shared memory, `copy_with_damage` where the compositor offers it (a frame comes when
//! the screen changed, so nothing is read while nothing happens). The figure's resolution is
//! the compositor's frame: what a user sees anyway.

use crate::keys;
use crate::keys::Key;
use crate::typist::Surface;
use latlab_desktop::fb::{Area, Framebuffer};
use latlab_sys::clock::{monotonic_now, thread_cpu_now};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::Path;
use wayland_client::protocol::{wl_buffer, wl_output, wl_registry, wl_seat, wl_shm, wl_shm_pool};
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle, WEnum, delegate_noop};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
    zwp_virtual_keyboard_manager_v1 as vkm, zwp_virtual_keyboard_v1 as vk,
};
use wayland_protocols_wlr::screencopy::v1::client::{
    zwlr_screencopy_frame_v1 as frame, zwlr_screencopy_manager_v1 as scm,
};

/// What the compositor said about the frame in flight.
#[derive(Default)]
struct FrameState {
    /// Its buffer's format, size and stride.
    buffer: Option<(wl_shm::Format, u32, u32, u32)>,
    /// All buffer events sent (version 3), or the buffer event itself (older versions).
    buffer_done: bool,
    y_invert: bool,
    /// The copy was asked for.
    copied: bool,
    /// The Ready event's time (the compositor's clock, ns), once ready.
    ready: Option<u64>,
    failed: bool,
}

/// The globals latlab binds, and the frame in flight.
#[derive(Default)]
struct State {
    shm: Option<wl_shm::WlShm>,
    seat: Option<wl_seat::WlSeat>,
    output: Option<wl_output::WlOutput>,
    output_mode: Option<(i32, i32, i32)>,
    screencopy: Option<(scm::ZwlrScreencopyManagerV1, u32)>,
    keyboards: Option<vkm::ZwpVirtualKeyboardManagerV1>,
    frame: FrameState,
    scm_version: u32,
}

impl Dispatch<wl_registry::WlRegistry, ()> for State {
    fn event(
        s: &mut Self,
        r: &wl_registry::WlRegistry,
        e: wl_registry::Event,
        _: &(),
        _: &Connection,
        qh: &QueueHandle<Self>,
    ) {
        if let wl_registry::Event::Global { name, interface, version } = e {
            match interface.as_str() {
                "wl_shm" => s.shm = Some(r.bind(name, 1, qh, ())),
                "wl_seat" if s.seat.is_none() => s.seat = Some(r.bind(name, 1, qh, ())),
                "wl_output" if s.output.is_none() => s.output = Some(r.bind(name, version.min(2), qh, ())),
                "zwlr_screencopy_manager_v1" => {
                    let v = version.min(3);
                    s.scm_version = v;
                    s.screencopy = Some((r.bind(name, v, qh, ()), v));
                }
                "zwp_virtual_keyboard_manager_v1" => s.keyboards = Some(r.bind(name, 1, qh, ())),
                _ => {}
            }
        }
    }
}

impl Dispatch<wl_output::WlOutput, ()> for State {
    fn event(
        s: &mut Self,
        _: &wl_output::WlOutput,
        e: wl_output::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_output::Event::Mode { flags: WEnum::Value(f), width, height, refresh } = e
            && f.contains(wl_output::Mode::Current)
        {
            s.output_mode = Some((width, height, refresh));
        }
    }
}

impl Dispatch<frame::ZwlrScreencopyFrameV1, ()> for State {
    fn event(
        s: &mut Self,
        _: &frame::ZwlrScreencopyFrameV1,
        e: frame::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let f = &mut s.frame;
        match e {
            frame::Event::Buffer { format: WEnum::Value(format), width, height, stride } => {
                f.buffer = Some((format, width, height, stride));
                if s.scm_version < 3 {
                    f.buffer_done = true;
                }
            }
            frame::Event::BufferDone => f.buffer_done = true,
            frame::Event::Flags { flags: WEnum::Value(fl) } => f.y_invert = fl.contains(frame::Flags::YInvert),
            frame::Event::Ready { tv_sec_hi, tv_sec_lo, tv_nsec } => {
                let secs = (u64::from(tv_sec_hi) << 32) | u64::from(tv_sec_lo);
                f.ready = Some(secs * 1_000_000_000 + u64::from(tv_nsec));
            }
            frame::Event::Failed => f.failed = true,
            _ => {}
        }
    }
}

delegate_noop!(State: ignore wl_shm::WlShm);
delegate_noop!(State: ignore wl_seat::WlSeat);
delegate_noop!(State: ignore scm::ZwlrScreencopyManagerV1);
delegate_noop!(State: ignore wl_shm_pool::WlShmPool);
delegate_noop!(State: ignore wl_buffer::WlBuffer);
delegate_noop!(State: vkm::ZwpVirtualKeyboardManagerV1);
delegate_noop!(State: vk::ZwpVirtualKeyboardV1);

/// An XKB keymap holding latlab's keys at their Linux input codes (+ 8, XKB's offset), the
/// types and compatibility maps taken whole from the compositor's XKB data.
pub fn keymap() -> String {
    let wanted: Vec<Key> = (0..26).map(keys::letter).chain([keys::BACKSPACE, keys::ENTER, keys::CTRL]).collect();
    let mut codes = String::new();
    let mut syms = String::new();
    for k in wanted {
        let code = keys::evdev(k).expect("latlab's keys have input codes") + 8;
        let sym = match keys::keysym(k).expect("and keysyms") {
            s @ 0x61..=0x7a => char::from_u32(s).expect("a letter").to_string(),
            0xff08 => "BackSpace".into(),
            0xff0d => "Return".into(),
            _ => "Control_L".into(),
        };
        codes += &format!("    <K{code}> = {code};\n");
        syms += &format!("    key <K{code}> {{ [ {sym} ] }};\n");
    }
    format!(
        "xkb_keymap {{\nxkb_keycodes \"latlab\" {{\n    minimum = 8;\n    maximum = 255;\n{codes}}};\nxkb_types \"latlab\" {{ include \"complete\" }};\nxkb_compat \"latlab\" {{ include \"complete\" }};\nxkb_symbols \"latlab\" {{\n{syms}}};\n}};\n"
    )
}

/// Shared memory: a memfd of `len` bytes, mapped.
fn shared(len: usize) -> Result<(OwnedFd, memmap2::MmapMut), crate::ScreenError> {
    let fd = nix::sys::memfd::memfd_create(c"latlab-screencopy", nix::sys::memfd::MFdFlags::MFD_CLOEXEC)
        .map_err(|e| crate::ScreenError::display("memfd_create".to_string(), e))?;
    nix::unistd::ftruncate(&fd, len as i64)
        .map_err(|e| crate::ScreenError::display("sizing shared memory".to_string(), e))?;
    let file = std::fs::File::from(
        fd.try_clone().map_err(|e| crate::ScreenError::display("sharing memory with the compositor", e))?,
    );
    // SAFETY: a memfd latlab made; the compositor writes it only between a copy request and
    // its Ready event, and latlab reads it only after Ready.
    let map = unsafe { memmap2::MmapOptions::new().len(len).map_mut(&file) }
        .map_err(|e| crate::ScreenError::display("mmap".to_string(), e))?;
    Ok((fd, map))
}

/// A Wayland compositor's output latlab types into and reads.
pub struct WaylandSurface {
    conn: Connection,
    q: EventQueue<State>,
    st: State,
    output: wl_output::WlOutput,
    screencopy: scm::ZwlrScreencopyManagerV1,
    with_damage: bool,
    kb: vk::ZwpVirtualKeyboardV1,
    pool: wl_shm_pool::WlShmPool,
    map: memmap2::MmapMut,
    pool_len: usize,
    buffers: Vec<((wl_shm::Format, u32, u32, u32), wl_buffer::WlBuffer)>,
    in_flight: Option<(frame::ZwlrScreencopyFrameV1, Area, u64)>,
    fb: Framebuffer,
    focus: Option<Area>,
    refresh_mhz: i32,
    pictures: u64,
    reads: u64,
    read_cpu_ns: u64,
    first_read_ns: u64,
    last_read_ns: u64,
}

fn werr(what: &str) -> impl Fn(wayland_client::DispatchError) -> crate::ScreenError + '_ {
    move |e| crate::ScreenError::display(what, e)
}

impl WaylandSurface {
    /// Connect to the compositor whose socket is `socket`, with its output, screencopy and
    /// virtual keyboards; upload latlab's keymap.
    pub fn connect(socket: &Path) -> Result<Self, crate::ScreenError> {
        let stream = UnixStream::connect(socket).map_err(|e| {
            crate::ScreenError::display(format!("cannot connect to the Wayland compositor at {}", socket.display()), e)
        })?;
        let conn =
            Connection::from_socket(stream).map_err(|e| crate::ScreenError::display("Wayland".to_string(), e))?;
        let mut q = conn.new_event_queue();
        let qh = q.handle();
        conn.display().get_registry(&qh, ());
        let mut st = State::default();
        q.roundtrip(&mut st).map_err(werr("Wayland registry"))?;
        q.roundtrip(&mut st).map_err(werr("Wayland output"))?;
        let lacks = |what: &str| {
            crate::ScreenError::Screen(format!(
                "the compositor at {} has no {what}: latlab needs a wlroots compositor (sway, labwc, wayfire, river, Hyprland)",
                socket.display()
            ))
        };
        let (Some(shm), Some(seat), Some(output)) = (st.shm.clone(), st.seat.clone(), st.output.clone()) else {
            return Err(lacks("shared memory, seat or output"));
        };
        let (screencopy, v) = st.screencopy.clone().ok_or_else(|| lacks("zwlr_screencopy_manager_v1"))?;
        let kbm = st.keyboards.clone().ok_or_else(|| lacks("zwp_virtual_keyboard_manager_v1"))?;
        let (w, h, refresh) = st
            .output_mode
            .ok_or_else(|| crate::ScreenError::Screen("the compositor's output has no current mode".into()))?;
        let (w, h) = (w.max(1) as usize, h.max(1) as usize);
        let kb = kbm.create_virtual_keyboard(&seat, &qh, ());
        let km = keymap();
        let (kfd, mut kmap) = shared(km.len() + 1)?;
        kmap[..km.len()].copy_from_slice(km.as_bytes());
        kb.keymap(1, kfd.as_fd(), (km.len() + 1) as u32); // 1: XKB_V1
        let pool_len = w * h * 4;
        let (fd, map) = shared(pool_len)?;
        let pool = shm.create_pool(fd.as_fd(), pool_len as i32, &qh, ());
        q.roundtrip(&mut st).map_err(werr("Wayland keymap"))?;
        let mut me = Self {
            conn,
            q,
            st,
            output,
            screencopy,
            with_damage: v >= 2,
            kb,
            pool,
            map,
            pool_len,
            buffers: Vec::new(),
            in_flight: None,
            fb: Framebuffer::xrgb(w, h),
            focus: None,
            refresh_mhz: refresh,
            pictures: 0,
            reads: 0,
            read_cpu_ns: 0,
            first_read_ns: 0,
            last_read_ns: 0,
        };
        // The first key after a keymap upload can be lost: a Control press warms it up.
        me.type_keys(&[keys::CTRL])?;
        me.with_damage = false;
        let until = monotonic_now() + 5_000_000_000;
        while me.pictures == 0 {
            if monotonic_now() > until {
                return Err(crate::ScreenError::Screen("the compositor sent no frame of its output in 5 s".into()));
            }
            me.pump_until(monotonic_now() + 100_000_000, &mut |_, _| {})?;
        }
        me.with_damage = v >= 2;
        Ok(me)
    }

    /// The output's refresh rate, Hz.
    pub fn refresh_hz(&self) -> f64 {
        f64::from(self.refresh_mhz) / 1000.0
    }

    /// The whole output.
    pub fn screen_area(&self) -> Area {
        Area::new(0, 0, self.fb.width, self.fb.height)
    }

    /// Whether frames come only when the screen changed.
    pub fn with_damage(&self) -> bool {
        self.with_damage
    }

    /// Frames read, latlab's CPU in them, and the span from the first to the last (ns): with
    /// damage a frame comes only when the output changed, so every gap counts.
    pub fn read_stats(&self) -> crate::typist::ReadStats {
        crate::typist::ReadStats {
            reads: self.reads,
            cpu_ns: self.read_cpu_ns,
            gaps: self.reads.saturating_sub(1),
            gaps_ns: self.last_read_ns.saturating_sub(self.first_read_ns),
        }
    }

    /// Start counting reads afresh.
    pub fn reset_stats(&mut self) {
        (self.reads, self.read_cpu_ns, self.first_read_ns, self.last_read_ns) = (0, 0, 0, 0);
    }

    fn request(&mut self) {
        let area = self.focus.unwrap_or(Area::new(0, 0, self.fb.width, self.fb.height));
        let qh = self.q.handle();
        let f = if area.w == self.fb.width && area.h == self.fb.height {
            self.screencopy.capture_output(0, &self.output, &qh, ())
        } else {
            self.screencopy.capture_output_region(
                0,
                &self.output,
                area.x as i32,
                area.y as i32,
                area.w as i32,
                area.h as i32,
                &qh,
                (),
            )
        };
        self.st.frame = FrameState::default();
        self.in_flight = Some((f, area, monotonic_now()));
    }

    fn buffer_for(&mut self, b: (wl_shm::Format, u32, u32, u32)) -> Result<wl_buffer::WlBuffer, crate::ScreenError> {
        if let Some((_, buf)) = self.buffers.iter().find(|(k, _)| *k == b) {
            return Ok(buf.clone());
        }
        let (format, w, h, stride) = b;
        if (stride as usize) * (h as usize) > self.pool_len || (stride as usize) < (w as usize) * 4 {
            return Err(crate::ScreenError::Screen(format!(
                "the compositor offered a {w}x{h} frame of stride {stride}, larger than its output"
            )));
        }
        if !matches!(format, wl_shm::Format::Xrgb8888 | wl_shm::Format::Argb8888) {
            return Err(crate::ScreenError::Screen(format!(
                "the compositor offered frames as {format:?}: latlab reads XRGB8888 and ARGB8888"
            )));
        }
        let buf = self.pool.create_buffer(0, w as i32, h as i32, stride as i32, format, &self.q.handle(), ());
        self.buffers.push((b, buf.clone()));
        Ok(buf)
    }

    /// Wait for events until `deadline_ns` (or one arrives).
    fn wait(&mut self, deadline_ns: u64) -> Result<(), crate::ScreenError> {
        self.q.dispatch_pending(&mut self.st).map_err(werr("Wayland"))?;
        self.conn.flush().map_err(|e| crate::ScreenError::display("Wayland".to_string(), e))?;
        let Some(guard) = self.q.prepare_read() else { return Ok(()) };
        // poll(2) counts whole milliseconds: the last one is slept on the clock, so a key
        // leaves on its deadline (a frame that arrives meanwhile keeps the compositor's time).
        let left = deadline_ns.saturating_sub(monotonic_now());
        if left < 1_000_000 {
            drop(guard);
            latlab_sys::clock::clock_nanosleep_abs(deadline_ns);
            return Ok(());
        }
        let ms = (left / 1_000_000).min(1000) as u16;
        let mut fds = [nix::poll::PollFd::new(guard.connection_fd(), nix::poll::PollFlags::POLLIN)];
        match nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(ms)) {
            Ok(n) if n > 0 => {
                guard.read().map_err(|e| crate::ScreenError::display("Wayland".to_string(), e))?;
            }
            Ok(_) | Err(nix::errno::Errno::EINTR) => drop(guard),
            Err(e) => return Err(crate::ScreenError::Screen(format!("poll: {e}"))),
        }
        self.q.dispatch_pending(&mut self.st).map_err(werr("Wayland"))?;
        Ok(())
    }

    /// Copy a ready frame into the framebuffer; returns whether the watched area changed.
    fn take(&mut self, area: Area) -> bool {
        let c0 = thread_cpu_now();
        let (_, w, h, stride) = self.st.frame.buffer.expect("a ready frame had a buffer");
        let rows = Area::new(area.x, area.y, (w as usize).min(area.w), (h as usize).min(area.h));
        let changed = self.fb.update(rows, &self.map[..], stride as usize, self.st.frame.y_invert);
        self.read_cpu_ns += thread_cpu_now().saturating_sub(c0);
        changed
    }
}

impl Surface for WaylandSurface {
    type Error = crate::ScreenError;

    fn kind(&self) -> &'static str {
        "wayland"
    }

    fn screen(&self) -> &Framebuffer {
        &self.fb
    }

    fn pictures(&self) -> u64 {
        self.pictures
    }

    fn pump_until(
        &mut self,
        deadline_ns: u64,
        drawn: &mut dyn FnMut(&Framebuffer, u64),
    ) -> Result<(), crate::ScreenError> {
        loop {
            if self.in_flight.is_none() {
                self.request();
            }
            let f = &self.st.frame;
            if f.failed {
                if let Some((fr, _, _)) = self.in_flight.take() {
                    fr.destroy();
                }
                return Err(crate::ScreenError::Screen("the compositor failed a screen copy".into()));
            }
            if let (Some(b), true, false) = (f.buffer, f.buffer_done, f.copied)
                && let Some((fr, _, _)) = &self.in_flight
            {
                let fr = fr.clone();
                let buf = self.buffer_for(b)?;
                if self.with_damage {
                    fr.copy_with_damage(&buf)
                } else {
                    fr.copy(&buf)
                }
                self.st.frame.copied = true;
            }
            if let Some(ready) = self.st.frame.ready {
                let (fr, area, asked) = self.in_flight.take().expect("a frame in flight");
                fr.destroy();
                let now = monotonic_now();
                // The compositor's time of the frame, where it is on latlab's clock (wlroots
                // stamps frames with CLOCK_MONOTONIC); else when latlab got it.
                let t = if ready >= asked.saturating_sub(1_000_000_000) && ready <= now { ready } else { now };
                if self.reads == 0 {
                    self.first_read_ns = t;
                }
                self.last_read_ns = t;
                self.reads += 1;
                let changed = self.take(area);
                if changed || self.pictures == 0 {
                    self.pictures += 1;
                    drawn(&self.fb, t);
                }
                continue;
            }
            if monotonic_now() >= deadline_ns {
                return Ok(());
            }
            self.wait(deadline_ns)?;
        }
    }

    fn type_keys(&mut self, ks: &[Key]) -> Result<u64, crate::ScreenError> {
        for (i, k) in ks.iter().enumerate() {
            if i > 0 {
                self.conn.flush().map_err(|e| crate::ScreenError::display("Wayland".to_string(), e))?;
                latlab_sys::clock::clock_nanosleep_abs(monotonic_now() + crate::defaults::TYPE_KEY_GAP_NS);
            }
            let code = keys::evdev(*k).ok_or_else(|| crate::ScreenError::Screen(format!("no input code for {k:?}")))?;
            let ms = (monotonic_now() / 1_000_000) as u32;
            self.kb.key(ms, code, 1);
            self.kb.key(ms, code, 0);
        }
        self.conn.flush().map_err(|e| crate::ScreenError::display("Wayland".to_string(), e))?;
        Ok(monotonic_now())
    }

    fn describe(&self) -> String {
        format!(
            "{} frames of the output ({}x{}, {:.0} Hz{}), {} of them changed",
            self.reads,
            self.fb.width,
            self.fb.height,
            self.refresh_hz(),
            if self.with_damage { ", with damage" } else { "" },
            self.pictures
        )
    }

    fn watch(&mut self, area: Option<Area>) {
        self.focus = area.map(|a| self.fb.clip(a)).filter(|a| !a.is_empty());
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_keymap_holds_every_key_latlab_types_at_its_xkb_code() {
        let k = super::keymap();
        assert!(k.contains("<K38> = 38;") && k.contains("key <K38> { [ a ] };"), "a is KEY_A (30) + 8");
        assert!(k.contains("key <K22> { [ BackSpace ] };"));
        assert!(k.contains("key <K37> { [ Control_L ] };"));
        assert_eq!(k.matches("key <K").count(), 29);
    }
}
