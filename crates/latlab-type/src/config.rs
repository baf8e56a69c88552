//! What `latlab type` measures: the applications (started or found), the conditions, the
//! keys and their pace, and the checks a configuration passes before anything runs.

use latlab_desktop::fb::Area;
use latlab_keyscreen::condition::Condition;
use latlab_keyscreen::typist::TypingPlan;
use std::path::PathBuf;

/// One application to type into.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AppSpec {
    /// Its command line (empty: the window that has the keyboard on `--on`'s display).
    pub argv: Vec<String>,
    /// Its name in metrics (lowercase letters, digits and `_`).
    pub label: String,
}

impl AppSpec {
    /// An application from its command line; named after its program.
    pub fn new(argv: Vec<String>) -> Self {
        let prog = argv.first().map(|p| p.rsplit('/').next().unwrap_or(p)).unwrap_or("focused");
        Self { label: metric_name(prog), argv }
    }
}

/// `s` as one part of a dotted metric name: lowercase ASCII letters and digits, `_` for the rest.
pub fn metric_name(s: &str) -> String {
    let mut n = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            n.push(c.to_ascii_lowercase());
        } else if !n.is_empty() && !n.ends_with('_') {
            n.push('_');
        }
    }
    let n = n.trim_end_matches('_');
    if n.is_empty() || n.starts_with(|c: char| c.is_ascii_digit()) { format!("app_{n}") } else { n.to_string() }
}

latlab_model::choice! {
    /// The display system typed into.
    pub enum Backend {
        /// An X server (XTEST, MIT-SHM).
        X11 = "x11",
        /// A wlroots Wayland compositor (virtual keyboard, screencopy).
        Wayland = "wayland",
    }
}
latlab_model::serialize_by_name!(Backend);

/// What `latlab type` does.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TypeConfig {
    /// The applications, in order.
    pub apps: Vec<AppSpec>,
    /// X11 or Wayland.
    pub backend: Backend,
    /// A running X display (`:0`) or Wayland compositor (its socket's name or path) to use;
    /// latlab starts its own (Xvfb, headless sway) when `None`.
    pub on: Option<String>,
    /// The account root runs its own sway and the applications on it as.
    pub wayland_user: Option<String>,
    /// Type into `xfreerdp` showing a FreeRDP shadow server latlab starts (its xterm).
    pub through_rdp: bool,
    /// The conditions, in order (unloaded, cpu, mem).
    pub conditions: Vec<Condition>,
    /// Keys timed per application and condition.
    pub keys: usize,
    /// From one key's intended time to the next, ns: the mean of the gaps.
    pub interval_ns: u64,
    /// How the keys are spaced about the interval (jittered unless `--fixed-interval`).
    pub gaps: latlab_desktop::gaps::KeyGaps,
    /// The typing rate asked for (`--wpm`), which set `interval_ns`; checked here.
    pub wpm: Option<f64>,
    /// A key not on the screen this long after its intended time is lost, ns.
    pub timeout_ns: u64,
    /// Screen reads per second (0: flat out).
    pub capture_hz: u32,
    /// Spinning processes of `cpu`.
    pub spinners: usize,
    /// Type and read at SCHED_FIFO while keys are timed, where granted (the measuring end must
    /// not suffer the load it measures); never with reads flat out.
    pub fifo: bool,
    /// The screen of latlab's own Xvfb.
    pub screen: (u16, u16),
    /// How long an application may take to show its window.
    pub window_timeout_ns: u64,
    /// Where typing draws, on the window, if the user knows (else found from the first keys).
    #[serde(skip)]
    pub roi: Option<Area>,
    /// The display's refresh rate, when known: the excess over one frame period is reported.
    pub refresh_hz: Option<f64>,
    /// Make a temporary swap file for `mem` when the machine has too little swap.
    pub allow_swapfile: bool,
    /// Where that file goes.
    pub swap_dir: PathBuf,
    /// Where to write the screens typing was located from, if anywhere.
    pub snapshot_dir: Option<PathBuf>,
}

impl Default for TypeConfig {
    fn default() -> Self {
        Self {
            apps: Vec::new(),
            backend: Backend::X11,
            on: None,
            wayland_user: None,
            through_rdp: false,
            conditions: vec![Condition::Unloaded],
            keys: crate::defaults::TYPE_KEYS,
            interval_ns: crate::defaults::TYPE_INTERVAL_NS,
            gaps: latlab_desktop::gaps::KeyGaps::default(),
            wpm: None,
            timeout_ns: latlab_keyscreen::defaults::RDP_KEY_TIMEOUT_NS,
            capture_hz: crate::defaults::TYPE_CAPTURE_HZ,
            spinners: latlab_keyscreen::defaults::LATENCY_SPINNERS,
            fifo: true,
            screen: latlab_keyscreen::local::SCREEN,
            window_timeout_ns: crate::defaults::TYPE_WINDOW_TIMEOUT_NS,
            roi: None,
            refresh_hz: None,
            allow_swapfile: true,
            swap_dir: std::env::temp_dir(),
            snapshot_dir: None,
        }
    }
}

impl TypeConfig {
    /// Check what cannot be measured before anything starts.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if self.apps.is_empty() && self.on.is_none() && !self.through_rdp {
            return Err("give an application to type into (`latlab type -- xterm`), --through-rdp, or --on :N to type into the window that has the keyboard on a running X display".into());
        }
        if self.through_rdp && self.apps.iter().any(|a| !a.argv.is_empty()) {
            return Err("--through-rdp types into the shadow server's xterm through xfreerdp: give no application (to measure your own RDP client, run it as the application: `latlab type -- xfreerdp /v:HOST`)".into());
        }
        if self.through_rdp && self.backend == Backend::Wayland {
            return Err("--through-rdp runs xfreerdp on X11: leave out --display wayland".into());
        }
        if self.conditions.contains(&Condition::Busy) {
            return Err("condition busy: a busy remote screen is measured with `display latency --rdp local` (or your own server with an animation running); `latlab type` measures applications on this machine (unloaded, cpu, mem)".into());
        }
        if let Some(c) = self.conditions.iter().find(|c| matches!(c, Condition::Link { .. })) {
            return Err(format!(
                "condition {}: `latlab type` measures applications on this machine (unloaded, cpu, mem); shape a link with `display latency --rdp`",
                c.name()
            ).into());
        }
        if let Some(w) = self.wpm
            && !(1.0..=2000.0).contains(&w)
        {
            return Err(format!("--wpm {w}: give 1 to 2000 words a minute").into());
        }
        if !(3..=100_000).contains(&self.keys) {
            return Err(format!("{} keys: give 3 to 100000", self.keys).into());
        }
        if self.interval_ns < 1_000_000 || self.interval_ns > 60_000_000_000 {
            return Err("the interval between keys: give 1 ms to 60 s".into());
        }
        if self.timeout_ns == 0 {
            return Err("--timeout: give a time above 0".into());
        }
        if self.spinners > 256 {
            return Err(format!("--spinners {}: at most 256", self.spinners).into());
        }
        if let Some(hz) = self.refresh_hz.filter(|hz| !(*hz > 0.0 && *hz <= 1000.0)) {
            return Err(format!("--refresh-hz {hz}: give above 0, at most 1000").into());
        }
        if self.capture_hz > 100_000 {
            return Err(format!(
                "--capture-hz {}: give at most 100000 (0: as fast as the X server answers)",
                self.capture_hz
            )
            .into());
        }
        let mut labels: Vec<&str> = self.apps.iter().map(|a| a.label.as_str()).collect();
        labels.sort();
        if labels.windows(2).any(|w| w[0] == w[1]) {
            return Err("two applications with the same name: each is measured once".into());
        }
        Ok(())
    }

    /// Whether to time keys at SCHED_FIFO: asked for, and reads paced (a flat-out poll at a
    /// real-time policy would take a core from the application measured).
    pub(crate) fn paced_fifo(&self) -> bool {
        self.fifo && (self.capture_hz > 0 || self.backend == Backend::Wayland)
    }

    pub(crate) fn plan(&self) -> TypingPlan {
        TypingPlan {
            keys: self.keys,
            interval_ns: self.interval_ns,
            gaps: self.gaps,
            timeout_ns: self.timeout_ns,
            settle_ns: latlab_keyscreen::defaults::RDP_SETTLE_NS,
            roi: self.roi,
            max_per_line: latlab_keyscreen::defaults::RDP_KEYS_PER_LINE,
            snapshot_dir: self.snapshot_dir.clone(),
        }
    }
}

/// The time between keys at `wpm` words a minute: one typing speed for every latlab command,
/// seed 003's (5.29 characters a word, `latlab_desktop::defaults::CHARS_PER_WORD`).
pub fn interval_for_wpm(wpm: f64) -> u64 {
    (60e9 / (wpm * latlab_desktop::defaults::CHARS_PER_WORD)) as u64
}
