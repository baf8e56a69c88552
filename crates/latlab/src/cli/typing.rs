//! `latlab type`'s command line: its arguments and the configuration they make.

use super::{ExperimentCli, parse_duration_ns};
use clap::Args;
use latlab_desktop::fb::Area;
use latlab_type::config::{AppSpec, Backend, TypeConfig, metric_name};
use latlab_type::experiment::Type;

/// `latlab type`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  latlab type -- xterm\n  latlab type --compare xterm,\"xterm -fa Mono\" --conditions unloaded,cpu\n  latlab type --through-rdp --conditions unloaded,cpu\n  latlab type --display wayland -- foot\n  latlab type --on :0            (the window with the keyboard on your desktop)\n  latlab type -- xfreerdp /v:HOST /u:USER   (your own RDP client and server)"
)]
pub struct TypeArgs {
    /// The display system: x11 (XTEST and MIT-SHM) or wayland (a wlroots compositor's
    /// virtual keyboard and screencopy).
    #[arg(long, default_value = "x11", value_parser = super::choice::<Backend>())]
    pub display: Backend,
    /// A running display to type into: an X display (`:0`, your desktop) or a Wayland
    /// compositor's socket (`wayland-1`, or its path). Default: latlab starts its own (Xvfb,
    /// or sway headless) and the application on it, so nothing is typed into your session.
    #[arg(long, value_name = "DISPLAY")]
    pub on: Option<String>,
    /// The account root runs its own sway and the applications on it as (sway refuses root).
    #[arg(long, value_name = "USER", default_value = latlab_keyscreen::defaults::TYPE_WAYLAND_USER)]
    pub wayland_user: String,
    /// Several applications in one run, comma-separated command lines (each split at spaces),
    /// measured one after another under the same conditions.
    #[arg(long, value_delimiter = ',', value_name = "APP,APP,…", conflicts_with = "command")]
    pub compare: Vec<String>,
    /// Type into xfreerdp showing FreeRDP's shadow server (an xterm on its own Xvfb), both
    /// started here: key to glyph through a real client and a real server.
    #[arg(long)]
    pub through_rdp: bool,
    /// Conditions, comma-separated: unloaded, cpu (spinning processes), mem (the application's
    /// memory paged out before each key).
    #[arg(long, value_delimiter = ',', value_parser = super::display::parse_condition, default_value = "unloaded")]
    pub conditions: Vec<latlab_keyscreen::condition::Condition>,
    /// Keys timed per application and condition [3–100000].
    #[arg(long, default_value_t = latlab_type::defaults::TYPE_KEYS)]
    pub keys: usize,
    /// Typing speed, words a minute (5.29 characters a word, as seed 003 and `display latency`
    /// count them; 1 to 2000); sets the interval between keys.
    #[arg(long, conflicts_with = "interval")]
    pub wpm: Option<f64>,
    /// Time from one key to the next (e.g. 100ms): the mean; each gap is drawn uniformly from
    /// half to one and a half times it, so a screen that updates on a timer is met at every
    /// phase of it (the record's `key_gaps` says so).
    #[arg(long, value_parser = parse_duration_ns)]
    pub interval: Option<u64>,
    /// Every gap exactly the interval (keys at a fixed phase of any timer that divides it).
    #[arg(long)]
    pub fixed_interval: bool,
    /// A key not on the screen this long after its intended time is lost (e.g. 2s) [above 0].
    #[arg(long, value_parser = parse_duration_ns, default_value = "2s")]
    pub timeout: u64,
    /// Screen reads a second on X11 (0: as fast as the X server answers); on Wayland frames
    /// come at the compositor's pace [0–100000].
    #[arg(long, default_value_t = latlab_type::defaults::TYPE_CAPTURE_HZ)]
    pub capture_hz: u32,
    /// Spinning processes under `cpu` [0–256].
    #[arg(long, default_value_t = latlab_keyscreen::defaults::LATENCY_SPINNERS)]
    pub spinners: usize,
    /// Where typing draws in the window, X,Y,W,H (default: found from two warm-up keys).
    #[arg(long, value_name = "X,Y,W,H", value_parser = super::display::parse_roi)]
    pub roi: Option<[usize; 4]>,
    /// The display's refresh rate, Hz, when known: each figure's excess over one frame is
    /// reported too [above 0, at most 1000].
    #[arg(long)]
    pub refresh_hz: Option<f64>,
    /// Time keys at the ordinary policy, not SCHED_FIFO (used where granted, while keys are
    /// timed, so the load measured does not delay latlab's own keys and reads).
    #[arg(long)]
    pub no_fifo: bool,
    /// Never make a temporary swap file for `mem`.
    #[arg(long)]
    pub no_swapfile: bool,
    /// Write the screens typing was located from (x11- or wayland-before/one/two.ppm) into DIR.
    #[arg(long, value_name = "DIR")]
    pub snapshot: Option<std::path::PathBuf>,
    /// The application and its arguments, after `--`.
    #[arg(last = true, value_name = "APP")]
    pub command: Vec<String>,
}

impl ExperimentCli for TypeArgs {
    type E = Type;
    const HELP: &'static str = "Keystroke to screen on a real application (seed 003's question, for the terminal, editor or remote-desktop client you use): latlab starts it on its own Xvfb (or types into a running X display), types on absolute deadlines with XTEST, reads the screen with MIT-SHM, and times each key to the first screen showing its glyph; unloaded, under CPU spinners, with the application paged out; through xfreerdp and a real RDP server. Stored as a run.";

    fn config(self, _strict: bool) -> TypeConfig {
        let a = self;
        let apps = if !a.compare.is_empty() {
            a.compare
                .iter()
                .map(|c| {
                    let argv: Vec<String> = c.split_whitespace().map(String::from).collect();
                    let mut app = AppSpec::new(argv);
                    // Two command lines of one program are told apart by their arguments.
                    if c.split_whitespace().count() > 1 {
                        app.label = metric_name(c);
                    }
                    app
                })
                .filter(|a| !a.argv.is_empty())
                .collect()
        } else if !a.command.is_empty() {
            vec![AppSpec::new(a.command)]
        } else {
            Vec::new()
        };
        let mut cfg = TypeConfig { apps, ..TypeConfig::default() };
        cfg.backend = a.display;
        cfg.on = a.on;
        cfg.wayland_user = Some(a.wayland_user);
        cfg.through_rdp = a.through_rdp;
        cfg.conditions = a.conditions;
        cfg.keys = a.keys;
        cfg.wpm = a.wpm;
        if let Some(w) = a.wpm.filter(|w| *w > 0.0) {
            cfg.interval_ns = latlab_type::config::interval_for_wpm(w);
        }
        if let Some(i) = a.interval {
            cfg.interval_ns = i;
        }
        if a.fixed_interval {
            cfg.gaps = latlab_desktop::gaps::KeyGaps::Fixed;
        }
        cfg.timeout_ns = a.timeout;
        cfg.capture_hz = a.capture_hz;
        cfg.spinners = a.spinners;
        cfg.fifo = !a.no_fifo;
        cfg.roi = a.roi.map(|[x, y, w, h]| Area::new(x, y, w, h));
        cfg.refresh_hz = a.refresh_hz;
        cfg.allow_swapfile = !a.no_swapfile;
        cfg.snapshot_dir = a.snapshot;
        cfg
    }
}
