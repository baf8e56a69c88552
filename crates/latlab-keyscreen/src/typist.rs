//! Key to screen on any surface that shows pixels and takes keys (a real RDP server's screen
//! as latlab's client decodes it, an X11 display, a Wayland compositor's output): type letters
//! on absolute deadlines into whatever has focus, and time each key from its intended send
//! time to the first screen where its glyph is in its cell ([`crate::typometer`]'s detector in
//! its mixed-ink mode, robust to a blinking caret). The cells are found from where two warm-up
//! keys drew; a full line is cleared with Backspace (which every text field takes), and the
//! schedule starts again after it.

use crate::keys;
use crate::keys::Key;
use crate::typometer::{Cells, Detector, Seen, learn_cells};
use latlab_desktop::fb::{Area, Framebuffer};
use latlab_sys::clock::{monotonic_now, thread_cpu_now};
use latlab_sys::interrupt::stop_requested;

/// A screen latlab can read and type into. Keys are PC/AT scancodes (set 1; see
/// [`crate::keys`]), which a surface maps to its own codes.
pub trait Surface {
    /// Its failures.
    type Error: std::error::Error + Send + Sync + 'static;
    /// A short name for file names and messages: `rdp`, `x11`, `wayland`.
    fn kind(&self) -> &'static str;
    /// The screen as last read.
    fn screen(&self) -> &Framebuffer;
    /// Screens read that differed from the one before (the first one counts).
    fn pictures(&self) -> u64;
    /// Read the screen until `deadline_ns` (on the monotonic clock), calling `drawn` with each
    /// new screen and the time it was read.
    fn pump_until(&mut self, deadline_ns: u64, drawn: &mut dyn FnMut(&Framebuffer, u64)) -> Result<(), Self::Error>;
    /// Press and release each key in order; returns the time the keys left (monotonic ns).
    fn type_keys(&mut self, keys: &[Key]) -> Result<u64, Self::Error>;
    /// What the surface received, for an error that says why typing was not found.
    fn describe(&self) -> String;
    /// Only `area` of the screen matters from now on (`None`: all of it again): a surface
    /// that reads pixels by polling may read that much only, and poll faster.
    fn watch(&mut self, _area: Option<Area>) {}
}

/// What to type and how long to wait.
#[derive(Debug, Clone)]
pub struct TypingPlan {
    /// Keys timed.
    pub keys: usize,
    /// From one key's intended time to the next: the mean of the gaps.
    pub interval_ns: u64,
    /// How the gaps are drawn about the interval (jittered, so a server updating on a timer
    /// is met at every phase of it).
    pub gaps: latlab_desktop::gaps::KeyGaps,
    /// A key not seen this long after its intended time is lost.
    pub timeout_ns: u64,
    /// The screen counts as settled after this long without an update.
    pub settle_ns: u64,
    /// Where typing draws, if the user knows (else the whole screen).
    pub roi: Option<Area>,
    /// Most keys on one line before it is cleared.
    pub max_per_line: usize,
    /// Where to write the screens the cells were learned from (PPM), if anywhere.
    pub snapshot_dir: Option<std::path::PathBuf>,
}

/// What the typing measured.
#[derive(Debug, Clone, Default)]
pub struct TypingResult {
    /// Latency of each key seen, ns, in key order.
    pub latencies_ns: Vec<u64>,
    /// Keys never seen within the timeout.
    pub lost: u64,
    /// The cells learned: first key's cell and the advance.
    pub cells: Option<Cells>,
    /// Screen checks the detector made, and their CPU time (the detector's own cost).
    pub checks: u64,
    /// See `checks`.
    pub detect_ns: u64,
    /// How late the sends were after their deadlines (wake-up error), ns.
    pub send_late_ns: Vec<u64>,
}

/// Pump until no update came for `quiet_ns` (or `max_ns` passed, or Ctrl-C asked the run to
/// stop); returns whether it settled.
pub fn settle<S: Surface + ?Sized>(s: &mut S, quiet_ns: u64, max_ns: u64) -> Result<bool, S::Error> {
    settle_in(s, None, quiet_ns, max_ns)
}

/// [`settle`], counting only updates that changed `area` (all of the screen for `None`): a
/// screen busy elsewhere (an animation beside the field typed into) still settles.
pub fn settle_in<S: Surface + ?Sized>(
    s: &mut S,
    area: Option<Area>,
    quiet_ns: u64,
    max_ns: u64,
) -> Result<bool, S::Error> {
    let start = monotonic_now();
    let mut last = start;
    let mut seen = area.map(|a| s.screen().hash_area(a));
    loop {
        if stop_requested() {
            return Ok(false);
        }
        let now = monotonic_now();
        if now.saturating_sub(last) >= quiet_ns {
            return Ok(true);
        }
        if now - start >= max_ns {
            return Ok(false);
        }
        s.pump_until((now + 5_000_000).min(start + max_ns), &mut |fb, t| match area {
            None => last = t,
            Some(a) => {
                let h = fb.hash_area(a);
                if seen != Some(h) {
                    (seen, last) = (Some(h), t);
                }
            }
        })?;
    }
}

/// After input that must change the screen: wait for the first update (up to `max_ns`), then
/// for quiet. A loaded server may take longer than the quiet period to answer at all, so
/// quiet alone would catch the screen before the change.
pub fn settle_change<S: Surface + ?Sized>(s: &mut S, quiet_ns: u64, max_ns: u64) -> Result<bool, S::Error> {
    settle_change_in(s, None, quiet_ns, max_ns)
}

/// [`settle_change`] where only `area` counts (see [`settle_in`]).
fn settle_change_in<S: Surface + ?Sized>(
    s: &mut S,
    area: Option<Area>,
    quiet_ns: u64,
    max_ns: u64,
) -> Result<bool, S::Error> {
    let until = monotonic_now() + max_ns;
    let before = s.pictures();
    let mut was = area.map(|a| s.screen().hash_area(a));
    let mut changed = false;
    while !changed {
        if monotonic_now() >= until || stop_requested() {
            return Ok(false);
        }
        s.pump_until(monotonic_now() + 5_000_000, &mut |fb, _| match area {
            None => changed = true,
            Some(a) => {
                let h = fb.hash_area(a);
                changed |= was != Some(h);
                was = Some(h);
            }
        })?;
        changed |= area.is_none() && s.pictures() != before;
    }
    settle_in(s, area, quiet_ns, until.saturating_sub(monotonic_now()).max(quiet_ns))
}

/// Wait for the server's first picture: a server may draw nothing for a while after the
/// connection (xrdp attaching to its X session), and input it gets before then may be lost.
/// Ctrl-C ends the wait (the caller stops too).
pub fn first_picture<S: Surface + ?Sized>(s: &mut S) -> Result<(), crate::ScreenError> {
    let until = monotonic_now() + crate::defaults::RDP_FIRST_PICTURE_NS;
    while s.pictures() == 0 && !stop_requested() {
        if monotonic_now() >= until {
            return Err(crate::ScreenError::Screen(format!(
                "the server drew nothing in {} s after the connection",
                crate::defaults::RDP_FIRST_PICTURE_NS / 1_000_000_000
            )));
        }
        s.pump_until(monotonic_now() + 20_000_000, &mut |_, _| {})
            .map_err(|e| crate::ScreenError::Surface(e.into()))?;
    }
    Ok(())
}

fn backspaces<S: Surface + ?Sized>(s: &mut S, n: usize) -> Result<(), S::Error> {
    let keys = vec![keys::BACKSPACE; n];
    for chunk in keys.chunks(16) {
        s.type_keys(chunk)?;
    }
    Ok(())
}

/// Learn where typing draws: two warm-up keys, each left to settle; then erase them. A try
/// the screen spoils (a prompt still being drawn, a late echo on a loaded server) is erased
/// and made again, three times at most.
pub fn learn<S: Surface + ?Sized>(s: &mut S, plan: &TypingPlan) -> Result<(Cells, Vec<u8>), crate::ScreenError> {
    let mut last = String::from("the screen never settled");
    for _ in 0..crate::defaults::RDP_LEARN_TRIES {
        match learn_once(s, plan) {
            Ok(found) => return Ok(found),
            Err(Fatal(e)) => return Err(e),
            Err(Again(e)) => last = e,
        }
    }
    Err(crate::ScreenError::Screen(last))
}

/// Why one try at learning failed: for good, or worth another try.
enum Failed {
    Fatal(crate::ScreenError),
    Again(String),
}
use Failed::{Again, Fatal};

fn learn_once<S: Surface + ?Sized>(s: &mut S, plan: &TypingPlan) -> Result<(Cells, Vec<u8>), Failed> {
    let err = |e: S::Error| Fatal(crate::ScreenError::Surface(e.into()));
    let quiet = plan.settle_ns;
    let max = plan.timeout_ns.max(quiet * 4);
    first_picture(s).map_err(Fatal)?;
    settle_in(s, plan.roi, quiet, max * 4).map_err(err)?;
    let roi = plan.roi.unwrap_or(Area::new(0, 0, s.screen().width, s.screen().height));
    let before = s.screen().clone();
    let mut shots: Vec<Framebuffer> = Vec::new();
    for k in [keys::letter(11), keys::letter(12)] {
        s.type_keys(&[k]).map_err(err)?;
        settle_change_in(s, plan.roi, quiet, max).map_err(err)?;
        shots.push(s.screen().clone());
    }
    if let Some(dir) = &plan.snapshot_dir {
        for (name, fb) in [("before", &before), ("one", &shots[0]), ("two", &shots[1])] {
            let p = dir.join(format!("{}-{name}.ppm", s.kind()));
            std::fs::write(&p, fb.to_ppm())
                .map_err(|e| Fatal(latlab_sys::ioerr::IoFailed::new(format!("writing {}", p.display()), e).into()))?;
        }
    }
    let cells = match learn_cells(&before, &shots[0], &shots[1], roi) {
        Ok(c) => c,
        Err(e) => {
            let why = format!("{e}; {}", s.describe());
            backspaces(s, 2).map_err(err)?;
            settle_change_in(s, plan.roi, quiet, max).map_err(err)?;
            return Err(Again(why));
        }
    };
    let mut caret = Vec::new();
    shots[1].read(cells.cell(2), &mut caret);
    backspaces(s, 2).map_err(err)?;
    settle_change_in(s, plan.roi, quiet, max).map_err(err)?;
    if s.screen().diff(&before, cells.cell(0)).is_some() {
        if let Some(dir) = &plan.snapshot_dir {
            let p = dir.join(format!("{}-erased.ppm", s.kind()));
            std::fs::write(&p, s.screen().to_ppm())
                .map_err(|e| Fatal(latlab_sys::ioerr::IoFailed::new(format!("writing {}", p.display()), e).into()))?;
        }
        return Err(Again("Backspace did not erase the warm-up keys: the focused field does not take it".into()));
    }
    Ok((cells, caret))
}

/// The detector run on every screen the session draws, with its own cost counted.
#[derive(Default)]
struct Watch {
    checks: u64,
    detect_ns: u64,
}

impl Watch {
    /// Pump the session until `deadline_ns`, checking each screen drawn.
    fn pump<S: Surface + ?Sized>(
        &mut self,
        s: &mut S,
        det: &mut Detector,
        seen: &mut Vec<Seen>,
        deadline_ns: u64,
    ) -> Result<(), S::Error> {
        s.pump_until(deadline_ns, &mut |fb, t| {
            let c = thread_cpu_now();
            det.check(fb, t, seen);
            self.checks += 1;
            self.detect_ns += thread_cpu_now().saturating_sub(c);
        })
    }

    /// Pump until every expected key was seen or `until_ns`.
    fn wait<S: Surface + ?Sized>(
        &mut self,
        s: &mut S,
        det: &mut Detector,
        seen: &mut Vec<Seen>,
        until_ns: u64,
    ) -> Result<(), S::Error> {
        while det.waiting() > 0 && monotonic_now() < until_ns {
            self.pump(s, det, seen, monotonic_now() + 5_000_000)?;
        }
        Ok(())
    }
}

/// Something done to the server before each key (paging it out, for `mem`).
pub type BeforeKey<'a> = &'a mut dyn FnMut() -> Result<(), crate::ScreenError>;

/// Type `plan.keys` letters and time each to its glyph, each key's deadline a gap of
/// `plan.gaps` after the one before it. With `before_key`, one key at a time: each waits for
/// the one before it to be seen (or lost), then `before_key` runs, then the key goes a gap
/// later (its deadline, from which it is timed).
pub fn measure<S: Surface + ?Sized>(
    s: &mut S,
    plan: &TypingPlan,
    mut before_key: Option<BeforeKey>,
) -> Result<TypingResult, crate::ScreenError> {
    let err = |e: S::Error| crate::ScreenError::Surface(e.into());
    // Ctrl-C before or while learning where typing draws: nothing typed, nothing lost.
    let (cells, caret) = match learn(s, plan) {
        _ if stop_requested() => return Ok(TypingResult::default()),
        r => r?,
    };
    let per_line = cells.per_line(s.screen().width).min(plan.max_per_line).max(1);
    let mut det = Detector::mixed(caret, plan.timeout_ns);
    s.watch(Some(Area::new(0, cells.first.y, s.screen().width, cells.first.h)));
    let mut out = TypingResult { cells: Some(cells), ..Default::default() };
    let mut seen: Vec<Seen> = Vec::new();
    let mut lat = vec![None; plan.keys];
    let mut watch = Watch::default();
    let mut gaps = plan.gaps.gaps(plan.interval_ns);
    let mut next = monotonic_now() + gaps.next_ns();
    let mut line_start = 0;
    // Keys typed: all of them, or those before a stop was asked for (Ctrl-C).
    let mut typed = plan.keys;
    for k in 0..plan.keys {
        if stop_requested() {
            typed = k;
            break;
        }
        let pos = k - line_start;
        if pos == per_line {
            // Wait for the line's keys, clear it, and start the schedule again.
            let until = monotonic_now() + plan.timeout_ns;
            watch.wait(s, &mut det, &mut seen, until).map_err(err)?;
            det.check(s.screen(), monotonic_now().max(until), &mut seen);
            backspaces(s, per_line).map_err(err)?;
            settle_in(s, plan.roi, plan.settle_ns, plan.timeout_ns).map_err(err)?;
            line_start = k;
            next = monotonic_now() + gaps.next_ns();
        }
        let pos = k - line_start;
        let deadline = match before_key.as_mut() {
            None => {
                let d = next;
                next += gaps.next_ns();
                d
            }
            Some(f) => {
                let until = monotonic_now() + plan.timeout_ns;
                watch.wait(s, &mut det, &mut seen, until).map_err(err)?;
                f()?;
                monotonic_now() + gaps.next_ns()
            }
        };
        det.expect(k as u64, cells.cell(pos), deadline);
        watch.pump(s, &mut det, &mut seen, deadline).map_err(err)?;
        let sent = s.type_keys(&[keys::letter(k)]).map_err(err)?;
        out.send_late_ns.push(sent.saturating_sub(deadline));
    }
    watch.wait(s, &mut det, &mut seen, monotonic_now() + plan.timeout_ns).map_err(err)?;
    for x in seen {
        if let Some(slot) = lat.get_mut(x.key as usize) {
            *slot = Some(x.latency_ns);
        }
    }
    out.latencies_ns = lat.iter().flatten().copied().collect();
    out.lost = (typed - out.latencies_ns.len()) as u64;
    out.checks = watch.checks;
    out.detect_ns = watch.detect_ns;
    s.watch(None);
    // Leave the field as it was found.
    backspaces(s, typed - line_start).map_err(err)?;
    settle_in(s, plan.roi, plan.settle_ns, plan.timeout_ns).map_err(err)?;
    Ok(out)
}

/// Screen reads while typing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Reads made.
    pub reads: u64,
    /// latlab's CPU in them, ns.
    pub cpu_ns: u64,
    /// Gaps from one read to the next while the screen was watched, and their sum (ns).
    pub gaps: u64,
    /// See `gaps`.
    pub gaps_ns: u64,
}
