//! An X11 display as a [`Surface`]: keys injected with XTEST, the screen read with MIT-SHM
//! (`ShmGetImage` into a shared segment the server made, SHM 1.2), or with plain `GetImage`
//! where the server has no MIT-SHM. Reads are paced on absolute deadlines at a chosen rate, or
//! flat out; after typing is located only the line typing draws on is read.

use crate::keys;
use crate::keys::Key;
use crate::typist::Surface;
use latlab_desktop::fb::{Area, Framebuffer};
use latlab_sys::clock::{clock_nanosleep_abs, monotonic_now, thread_cpu_now};
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::shm::ConnectionExt as _;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat, InputFocus, MapState, Window};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

/// How the screen is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Capture {
    /// MIT-SHM: the server copies into memory latlab maps.
    Shm,
    /// `GetImage`: the pixels come over the socket (far slower; a server without MIT-SHM).
    GetImage,
}

/// Map the X server's shared segment (its fd) into this process, read-only.
fn map_segment(fd: std::os::fd::OwnedFd, len: usize) -> std::io::Result<memmap2::Mmap> {
    let file = std::fs::File::from(fd);
    // SAFETY: the segment is a memfd the X server made for this connection alone; the server
    // writes it only while a ShmGetImage latlab asked for is in flight, and latlab reads it
    // only after that request's reply.
    unsafe { memmap2::MmapOptions::new().len(len).map(&file) }
}

/// A top-level window: its id and where it is on the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopLevel {
    /// The window.
    pub id: Window,
    /// Its area on the root window, clipped to the screen.
    pub area: Area,
}

/// An X display latlab types into and reads.
pub struct X11Surface {
    conn: RustConnection,
    root: Window,
    screen_w: usize,
    screen_h: usize,
    capture: Capture,
    seg: u32,
    map: Option<memmap2::Mmap>,
    /// The window's area on the root window (what the framebuffer holds).
    area: Area,
    /// The rows read while typing is timed (framebuffer coordinates), all of them if `None`.
    focus: Option<Area>,
    fb: Framebuffer,
    keycodes: Vec<(Key, u8)>,
    period_ns: u64,
    next_ns: u64,
    pictures: u64,
    reads: u64,
    read_cpu_ns: u64,
    last_read_ns: u64,
    gaps: u64,
    gaps_ns: u64,
}

fn xerr(what: &str) -> impl Fn(x11rb::errors::ReplyError) -> crate::ScreenError + '_ {
    move |e| crate::ScreenError::display(what, e)
}

fn cerr(what: &str) -> impl Fn(x11rb::errors::ConnectionError) -> crate::ScreenError + '_ {
    move |e| crate::ScreenError::display(what, e)
}

/// The pixels of one Z-pixmap row at 24/32 bits per pixel: 4 bytes each.
const PS: usize = 4;

impl X11Surface {
    /// Connect to X display `display` (`:N`); read at `rate_hz` (0: flat out).
    pub fn connect(display: &str, rate_hz: u32) -> Result<Self, crate::ScreenError> {
        let (conn, n) = x11rb::connect(Some(display)).map_err(|e| {
            crate::ScreenError::display(format!("cannot open X display {display} (is an X server running there? `latlab type` starts Xvfb itself when no --on is given)"), e)
        })?;
        let s = &conn.setup().roots[n];
        let (root, w, h, depth) = (s.root, s.width_in_pixels as usize, s.height_in_pixels as usize, s.root_depth);
        if depth != 24 && depth != 32 {
            return Err(crate::ScreenError::Screen(format!(
                "X display {display} has depth {depth}: latlab reads 24- and 32-bit screens"
            )));
        }
        if conn
            .extension_information(x11rb::protocol::xtest::X11_EXTENSION_NAME)
            .map_err(|e| crate::ScreenError::display("asking the X server for XTEST", e))?
            .is_none()
        {
            return Err(crate::ScreenError::Screen(format!(
                "X display {display} has no XTEST extension: latlab cannot type into it"
            )));
        }
        let has_shm = conn
            .extension_information(x11rb::protocol::shm::X11_EXTENSION_NAME)
            .map_err(|e| crate::ScreenError::display("asking the X server for MIT-SHM", e))?
            .is_some();
        let mut me = Self {
            conn,
            root,
            screen_w: w,
            screen_h: h,
            capture: Capture::GetImage,
            seg: 0,
            map: None,
            area: Area::new(0, 0, w, h),
            focus: None,
            fb: Framebuffer::xrgb(w, h),
            keycodes: Vec::new(),
            period_ns: if rate_hz == 0 { 0 } else { 1_000_000_000 / u64::from(rate_hz) },
            next_ns: 0,
            pictures: 0,
            reads: 0,
            read_cpu_ns: 0,
            last_read_ns: 0,
            gaps: 0,
            gaps_ns: 0,
        };
        if has_shm {
            // SHM 1.2's CreateSegment: the server makes the memory and passes its fd. A
            // server with an older MIT-SHM (or one across a network) falls back to GetImage.
            if let Ok(map) = me.make_segment(w * h * PS) {
                me.map = Some(map);
                me.capture = Capture::Shm;
            }
        }
        me.keycodes = me.keyboard()?;
        Ok(me)
    }

    fn make_segment(&mut self, len: usize) -> Result<memmap2::Mmap, crate::ScreenError> {
        let seg =
            self.conn.generate_id().map_err(|e| crate::ScreenError::display("an X id for the shared segment", e))?;
        let r = self
            .conn
            .shm_create_segment(seg, len as u32, false)
            .map_err(cerr("ShmCreateSegment"))?
            .reply()
            .map_err(xerr("ShmCreateSegment"))?;
        self.seg = seg;
        map_segment(r.shm_fd, len)
            .map_err(|e| crate::ScreenError::display("mapping the X server's shared segment".to_string(), e))
    }

    /// The keycode of every key latlab types, from the server's keyboard mapping.
    fn keyboard(&self) -> Result<Vec<(Key, u8)>, crate::ScreenError> {
        let setup = self.conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let km = self
            .conn
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(cerr("GetKeyboardMapping"))?
            .reply()
            .map_err(xerr("GetKeyboardMapping"))?;
        let per = (km.keysyms_per_keycode as usize).max(1);
        let wanted = (0..26).map(keys::letter).chain([keys::BACKSPACE, keys::ENTER, keys::CTRL, keys::U]);
        let mut out = Vec::new();
        for k in wanted {
            let sym = keys::keysym(k).expect("latlab's keys have keysyms");
            match km.keysyms.chunks(per).position(|c| c.first() == Some(&sym)) {
                Some(i) => out.push((k, min + i as u8)),
                None => {
                    return Err(crate::ScreenError::Screen(format!(
                        "the X server's keyboard has no key for keysym {sym:#x}"
                    )));
                }
            }
        }
        Ok(out)
    }

    /// The viewable top-level windows of at least 32×32 pixels, bottom to top.
    pub fn top_levels(&self) -> Result<Vec<TopLevel>, crate::ScreenError> {
        let tree = self.conn.query_tree(self.root).map_err(cerr("QueryTree"))?.reply().map_err(xerr("QueryTree"))?;
        let mut out = Vec::new();
        for w in tree.children {
            let Ok(Ok(a)) = self.conn.get_window_attributes(w).map(|c| c.reply()) else { continue };
            if a.map_state != MapState::VIEWABLE || a.override_redirect {
                continue;
            }
            let Ok(Ok(g)) = self.conn.get_geometry(w).map(|c| c.reply()) else { continue };
            if g.width < 32 || g.height < 32 {
                continue;
            }
            let area = self.clip(g.x as i64, g.y as i64, g.width as i64, g.height as i64);
            if !area.is_empty() {
                out.push(TopLevel { id: w, area });
            }
        }
        Ok(out)
    }

    fn clip(&self, x: i64, y: i64, w: i64, h: i64) -> Area {
        let (x0, y0) = (x.max(0), y.max(0));
        let (x1, y1) = ((x + w).min(self.screen_w as i64), (y + h).min(self.screen_h as i64));
        if x1 <= x0 || y1 <= y0 {
            return Area::new(0, 0, 0, 0);
        }
        Area::new(x0 as usize, y0 as usize, (x1 - x0) as usize, (y1 - y0) as usize)
    }

    /// The whole screen.
    pub fn screen_area(&self) -> Area {
        Area::new(0, 0, self.screen_w, self.screen_h)
    }

    /// Read `area` of the root window from now on (a window's place on the screen), and give
    /// the keyboard to `window`: the pointer goes to the area's middle (a display with no
    /// window manager gives the keyboard to the window under the pointer) and the input focus
    /// to the window.
    pub fn aim(&mut self, area: Area, window: Option<Window>) -> Result<(), crate::ScreenError> {
        self.area = area;
        self.fb = Framebuffer::xrgb(area.w, area.h);
        self.focus = None;
        let (cx, cy) = ((area.x + area.w / 2) as i16, (area.y + area.h / 2) as i16);
        // XTEST MotionNotify (6), absolute.
        self.conn.xtest_fake_input(6, 0, 0, self.root, cx, cy, 0).map_err(cerr("XTEST motion"))?;
        if let Some(w) = window {
            self.conn.set_input_focus(InputFocus::POINTER_ROOT, w, 0u32).map_err(cerr("SetInputFocus"))?;
        }
        x11rb::wrapper::ConnectionExt::sync(&self.conn)
            .map_err(|e| crate::ScreenError::display("X server".to_string(), e))?;
        self.read()?;
        Ok(())
    }

    /// How the screen is read.
    pub fn capture(&self) -> Capture {
        self.capture
    }

    /// Reads made, their CPU time in latlab (the wait for the server not included), and the
    /// gaps between reads while latlab watched the screen, with their sum: the rate reached is
    /// `gaps / sum`. A pause longer than [`crate::defaults::TYPE_WATCH_GAP_NS`] (a burst of
    /// Backspaces being typed) is not watching and not counted.
    pub fn read_stats(&self) -> crate::typist::ReadStats {
        crate::typist::ReadStats { reads: self.reads, cpu_ns: self.read_cpu_ns, gaps: self.gaps, gaps_ns: self.gaps_ns }
    }

    /// Start counting reads afresh.
    pub fn reset_stats(&mut self) {
        (self.reads, self.read_cpu_ns, self.gaps, self.gaps_ns) = (0, 0, 0, 0);
    }

    /// Read the watched rows once; returns whether they changed.
    pub fn read(&mut self) -> Result<bool, crate::ScreenError> {
        let c0 = thread_cpu_now();
        let rows = self.focus.unwrap_or(Area::new(0, 0, self.area.w, self.area.h));
        let (x, y) = ((self.area.x + rows.x) as i16, (self.area.y + rows.y) as i16);
        let (w, h) = (rows.w as u16, rows.h as u16);
        let len = rows.w * rows.h * PS;
        let changed = match (&self.map, self.capture) {
            (Some(map), Capture::Shm) => {
                self.conn
                    .shm_get_image(self.root, x, y, w, h, !0, ImageFormat::Z_PIXMAP.into(), self.seg, 0)
                    .map_err(cerr("ShmGetImage"))?
                    .reply()
                    .map_err(xerr("ShmGetImage"))?;
                self.fb.update(rows, &map[..len], rows.w * PS, false)
            }
            _ => {
                let r = self
                    .conn
                    .get_image(ImageFormat::Z_PIXMAP, self.root, x, y, w, h, !0)
                    .map_err(cerr("GetImage"))?
                    .reply()
                    .map_err(xerr("GetImage"))?;
                if r.data.len() < len {
                    return Err(crate::ScreenError::Screen(format!(
                        "GetImage returned {} bytes for {w}x{h}",
                        r.data.len()
                    )));
                }
                self.fb.update(rows, &r.data[..len], rows.w * PS, false)
            }
        };
        let now = monotonic_now();
        let gap = now.saturating_sub(self.last_read_ns);
        if self.reads > 0 && gap < crate::defaults::TYPE_WATCH_GAP_NS {
            (self.gaps, self.gaps_ns) = (self.gaps + 1, self.gaps_ns + gap);
        }
        self.last_read_ns = now;
        self.reads += 1;
        self.read_cpu_ns += thread_cpu_now().saturating_sub(c0);
        if changed || self.pictures == 0 {
            self.pictures += 1;
        }
        Ok(changed)
    }
}

impl Surface for X11Surface {
    type Error = crate::ScreenError;

    fn kind(&self) -> &'static str {
        "x11"
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
            let now = monotonic_now();
            if now >= deadline_ns {
                return Ok(());
            }
            if self.next_ns > now {
                clock_nanosleep_abs(self.next_ns.min(deadline_ns));
                continue;
            }
            // The next read's deadline: one period after this one's on the grid (a late wake-up
            // does not stretch the period), or now if the reads fell a whole period behind (a
            // missed read is not made up with a burst).
            self.next_ns = match self.period_ns {
                0 => 0,
                p if self.next_ns + 2 * p < now => now,
                p => self.next_ns + p,
            };
            if self.read()? {
                drawn(&self.fb, self.last_read_ns);
            }
        }
    }

    fn type_keys(&mut self, ks: &[Key]) -> Result<u64, crate::ScreenError> {
        for (i, k) in ks.iter().enumerate() {
            if i > 0 {
                // Keys of one call (Backspaces erasing a line) go apart: a release and the next
                // press of one key at the same server time read as auto-repeat to a client such
                // as xfreerdp, which then drops keys.
                self.conn.flush().map_err(cerr("X server"))?;
                clock_nanosleep_abs(monotonic_now() + crate::defaults::TYPE_KEY_GAP_NS);
            }
            let code = self
                .keycodes
                .iter()
                .find(|(c, _)| c == k)
                .map(|&(_, code)| code)
                .ok_or_else(|| crate::ScreenError::Screen(format!("no keycode for {k:?}")))?;
            // XTEST KeyPress (2) and KeyRelease (3).
            self.conn.xtest_fake_input(2, code, 0, self.root, 0, 0, 0).map_err(cerr("XTEST key"))?;
            self.conn.xtest_fake_input(3, code, 0, self.root, 0, 0, 0).map_err(cerr("XTEST key"))?;
        }
        self.conn.flush().map_err(cerr("X server"))?;
        Ok(monotonic_now())
    }

    fn describe(&self) -> String {
        format!(
            "{} reads of {}x{} at ({}, {}) by {:?}, {} of them changed",
            self.reads, self.area.w, self.area.h, self.area.x, self.area.y, self.capture, self.pictures
        )
    }

    fn watch(&mut self, area: Option<Area>) {
        self.focus = area.map(|a| self.fb.clip(a)).filter(|a| !a.is_empty());
    }
}
