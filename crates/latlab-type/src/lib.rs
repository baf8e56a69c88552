//! `latlab type`: keystroke to screen on real applications. latlab starts the
//! application (or finds the window that has the keyboard), types letters into it on absolute
//! deadlines with XTEST, reads the screen with MIT-SHM, and times each key from its intended
//! time to the first screen read where its glyph is in its cell ([`latlab_keyscreen::typist`]). Each
//! application is measured under seed 003's local conditions (unloaded, CPU spinners, its
//! memory paged out between keys); `--through-rdp` types into `xfreerdp` showing FreeRDP's
//! shadow server, so the figure is a whole remote-desktop path.
//!
//! The surfaces (X11, Wayland), their launchers and the typist are `latlab-keyscreen`'s; this
//! crate holds the experiment: the applications, the conditions, the record.
//!
//! | file | holds |
//! |---|---|
//! | `config.rs` | What `latlab type` measures: the applications, conditions and keys, checked |
//! | `defaults.rs` | Every default of `latlab type`, with the reason it has that value |
//! | `error.rs` | Why a run stopped (`TypeError`), with the error beneath it |
//! | `experiment.rs` | `latlab type` under the experiment contract: checks, progress, the suite's run |

pub mod config;
pub mod defaults;
pub mod error;
pub use error::TypeError;
pub mod experiment;

pub use config::{AppSpec, Backend, TypeConfig, metric_name};

use latlab_keyscreen::condition::Condition;
use latlab_keyscreen::launch::{App, OwnSway, OwnXvfb, RunAs, product, spawn_on};
use latlab_keyscreen::local::LocalShadow;
use latlab_keyscreen::typist::{BeforeKey, ReadStats, Surface, TypingPlan, TypingResult, measure, settle};
use latlab_keyscreen::wayland::WaylandSurface;
use latlab_keyscreen::x11::X11Surface;
use latlab_model::record::{RunRecord, RunStatus, Table};
use latlab_model::stats::summarize;
use latlab_sys::clock::monotonic_now;
use latlab_sys::platform::{Policy, Sched, set_sched};
use latlab_sys::record::Finish;
use latlab_sys::spin::{SpinLoad, SpinSched};
use std::path::PathBuf;
use std::time::Duration;

/// One application under one condition, measured.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// What typing measured (all keys lost if the window never drew any).
    pub typing: TypingResult,
    /// Screen reads while typing.
    pub reads: ReadStats,
    /// Why no key was found, when none was.
    pub nothing_drawn: Option<String>,
    /// The real-time policy asked for while keys were timed, and what was obtained.
    pub sched: Option<latlab_model::capability::Capability>,
}

/// A screen `latlab type` reads: the typist's surface, and its read counters.
pub trait Screen: Surface<Error = latlab_keyscreen::ScreenError> {
    /// The reads made since the last reset.
    fn read_stats(&self) -> ReadStats;
    /// Start counting reads afresh.
    fn reset_stats(&mut self);
}

impl Screen for X11Surface {
    fn read_stats(&self) -> ReadStats {
        X11Surface::read_stats(self)
    }
    fn reset_stats(&mut self) {
        X11Surface::reset_stats(self)
    }
}

impl Screen for WaylandSurface {
    fn read_stats(&self) -> ReadStats {
        WaylandSurface::read_stats(self)
    }
    fn reset_stats(&mut self) {
        WaylandSurface::reset_stats(self)
    }
}

/// Type into the application on `x` and time it; a window that never draws any key is all
/// lost keys, not an error.
fn type_once<S: Screen>(
    x: &mut S,
    plan: &TypingPlan,
    fifo: bool,
    before_key: Option<BeforeKey>,
) -> Result<Measured, TypeError> {
    x.reset_stats();
    let pictures = x.pictures();
    // Only while keys are timed: what latlab starts (the application, the spinners) keeps the
    // ordinary policy it was started with.
    let sched =
        fifo.then(|| set_sched(Sched { policy: Policy::Fifo, priority: latlab_keyscreen::defaults::TYPIST_PRIORITY }));
    let r = measure(x, plan, before_key);
    if sched.is_some() {
        set_sched(Sched { policy: Policy::Other, priority: 0 });
    }
    match r {
        Ok(t) => Ok(Measured { typing: t, reads: x.read_stats(), nothing_drawn: None, sched }),
        Err(e) if x.pictures() == pictures => Ok(Measured {
            typing: TypingResult { lost: plan.keys as u64, ..Default::default() },
            reads: x.read_stats(),
            nothing_drawn: Some(latlab_model::error::chain(&e)),
            sched,
        }),
        Err(e) => Err(e.into()),
    }
}

/// Something each application/condition pair reports as it ends (for progress lines).
pub type Progress<'a> = &'a mut dyn FnMut(&str, &str, &Measured, &RunRecord);

/// Run `latlab type`.
pub fn run(cfg: &TypeConfig, progress: Progress) -> Result<RunRecord, TypeError> {
    cfg.validate()?;
    let mut rec = latlab_sys::record::begin("type");
    rec.mode = match (cfg.backend, cfg.through_rdp) {
        (Backend::Wayland, _) => "wayland".into(),
        (Backend::X11, true) => "x11-rdp".into(),
        (Backend::X11, false) => "x11".into(),
    };
    rec.config("conditions", cfg.conditions.iter().map(|c| c.name()).collect::<Vec<_>>().join(","));
    // What was measured, for `latlab runs`: the applications.
    rec.config(
        "subject",
        if cfg.through_rdp {
            "xfreerdp".to_string()
        } else {
            cfg.apps.iter().map(|a| a.label.as_str()).collect::<Vec<_>>().join(",")
        },
    );
    rec.config("keys", cfg.keys);
    rec.config("interval_ms", cfg.interval_ns as f64 / 1e6);
    rec.config("key_gaps", cfg.gaps.describe());
    rec.config("timeout_ms", cfg.timeout_ns as f64 / 1e6);
    rec.config("spinners", cfg.spinners);
    let mut rows = Vec::new();
    let mut products = Vec::new();
    let mut sink = Sink { rec: &mut rec, rows: &mut rows, progress, products: &mut products };
    match cfg.backend {
        Backend::X11 => run_x11(cfg, &mut sink)?,
        Backend::Wayland => run_wayland(cfg, &mut sink)?,
    }
    rec.config("apps", products.join("; "));
    rec.tables.push(keys_table(rows));
    rec.finish(if latlab_sys::interrupt::stop_requested() { RunStatus::Interrupted } else { RunStatus::Complete });
    Ok(rec)
}

/// The `type.keys` table of `rows`.
fn keys_table(rows: Vec<Vec<serde_json::Value>>) -> Table {
    let table = Table::new("type.keys", "Keystroke to screen, per application and condition")
        .column("app", "")
        .column("condition", "")
        .column("keys", "count")
        .column("lost", "count")
        .column("p50", "ms")
        .column("resolution", "ms")
        .column("p95", "ms")
        .column("p99", "ms")
        .column("max", "ms")
        .column("over_100ms", "%")
        .column("capture", "kHz");
    Table { rows, ..table }
}

/// Where the measurements go.
struct Sink<'a, 'p> {
    rec: &'a mut RunRecord,
    rows: &'a mut Vec<Vec<serde_json::Value>>,
    progress: Progress<'p>,
    products: &'a mut Vec<String>,
}

/// One application, already on the screen, under every condition.
fn conditions<S: Screen>(
    cfg: &TypeConfig,
    sink: &mut Sink,
    x: &mut S,
    label: &str,
    pids: &dyn Fn() -> Vec<u32>,
) -> Result<(), TypeError> {
    // Its first drawing (a prompt, a remote desktop's first frame) settles before typing.
    settle(x, latlab_keyscreen::defaults::RDP_SETTLE_NS, crate::defaults::TYPE_WINDOW_TIMEOUT_NS)?;
    for c in &cfg.conditions {
        if latlab_sys::interrupt::stop_requested() {
            break;
        }
        // The unloaded condition is only that on a quiet machine: watch what else runs.
        let watch = matches!(c, Condition::Unloaded).then(latlab_sys::background::Watch::start);
        let m = match c {
            Condition::Cpu => {
                let _load =
                    SpinLoad::start(cfg.spinners, SpinSched { policy: latlab_sys::platform::Policy::Other, nice: 0 })
                        .map_err(|e| TypeError::Condition { condition: "cpu", source: e.into() })?;
                type_once(x, &cfg.plan(), cfg.paced_fifo(), None)?
            }
            Condition::Mem => paged(sink.rec, cfg, x, label, &pids())?,
            _ => type_once(x, &cfg.plan(), cfg.paced_fifo(), None)?,
        };
        if let Some(w) = watch {
            let prefix = format!("type.{label}.{}.background", c.name());
            w.stop().note(sink.rec, &prefix, &format!("{label}'s unloaded condition"));
        }
        if let Some(cap) = &m.sched
            && !sink.rec.capabilities.iter().any(|c| c.name == cap.name)
        {
            if !cap.granted {
                sink.rec.warn(format!(
                    "keys were timed at the ordinary policy ({}): under load latlab's own lateness is in the figure (send_late_p99)",
                    cap.advice.as_deref().unwrap_or("refused")
                ));
            }
            sink.rec.capabilities.push(cap.clone());
        }
        sink.rows.push(record(sink.rec, cfg, label, &c.name(), &m));
        // The run so far, for a checkpoint: what is measured, with its table.
        let mut partial = sink.rec.clone();
        partial.tables.push(keys_table(sink.rows.clone()));
        (sink.progress)(label, &c.name(), &m, &partial);
    }
    Ok(())
}

fn run_x11(cfg: &TypeConfig, sink: &mut Sink) -> Result<(), TypeError> {
    let own = match &cfg.on {
        Some(_) => None,
        None => Some(OwnXvfb::start(cfg.screen.0, cfg.screen.1)?),
    };
    let display = cfg.on.clone().or(own.as_ref().map(|o| o.display.clone())).expect("one of the two");
    sink.rec.config("display", if own.is_some() { format!("latlab's Xvfb {display}") } else { display.clone() });
    sink.rec.config("capture_hz_asked", cfg.capture_hz);
    if let Some(r) = cfg.refresh_hz {
        sink.rec.config("refresh_hz", r);
    }
    if cfg.through_rdp && !latlab_keyscreen::local::on_path("xfreerdp") {
        return Err(TypeError::Needs("--through-rdp needs xfreerdp (apt-get install freerdp2-x11)".into()));
    }
    let shadow = if cfg.through_rdp { Some(LocalShadow::start()?) } else { None };
    let apps: Vec<AppSpec> = match &shadow {
        Some(s) => vec![AppSpec {
            argv: [
                "xfreerdp",
                &format!("/v:{}", s.target()),
                "/cert:ignore",
                "/size:1024x768",
                "/bpp:24",
                "-grab-keyboard",
            ]
            .map(String::from)
            .to_vec(),
            label: "xterm_via_xfreerdp".into(),
        }],
        None if cfg.apps.is_empty() => vec![AppSpec::new(Vec::new())],
        None => cfg.apps.clone(),
    };
    // One connection for the whole run: Xvfb resets when its last client leaves.
    let mut x = X11Surface::connect(&display, cfg.capture_hz)?;
    sink.rec.config("capture", x.capture());
    for app in &apps {
        let started = match app.argv.is_empty() {
            true => None,
            false => Some(App::start(&app.argv, &display, &x, Duration::from_nanos(cfg.window_timeout_ns))?),
        };
        let name = match (&started, &shadow) {
            (Some(_), Some(_)) => format!(
                "xterm through {} and FreeRDP's shadow server ({})",
                product("xfreerdp"),
                LocalShadow::product()
            ),
            (Some(_), None) => product(&app.argv[0]),
            (None, _) => format!("the window with the keyboard on {display}"),
        };
        sink.products.push(format!("{}={name}", app.label));
        let area = started.as_ref().map_or(x.screen_area(), |a| a.window.area);
        x.aim(area, started.as_ref().map(|a| a.window.id))?;
        sink.rec.config(&format!("window_{}", app.label), format!("{}x{} at ({}, {})", area.w, area.h, area.x, area.y));
        let pids = || {
            let mut p = started.as_ref().map(App::pids).unwrap_or_default();
            if let Some(s) = &shadow {
                p.extend(s.pids());
            }
            p
        };
        conditions(cfg, sink, &mut x, &app.label, &pids)?;
    }
    Ok(())
}

fn run_wayland(cfg: &TypeConfig, sink: &mut Sink) -> Result<(), TypeError> {
    let own = match &cfg.on {
        Some(_) => None,
        None => Some(OwnSway::start(
            cfg.screen.0,
            cfg.screen.1,
            crate::defaults::TYPE_WAYLAND_REFRESH_HZ,
            RunAs::pick(cfg.wayland_user.as_deref())?,
        )?),
    };
    let socket = match (&own, &cfg.on) {
        (Some(o), _) => o.socket.clone(),
        (None, Some(name)) if name.contains('/') => PathBuf::from(name),
        (None, Some(name)) => std::env::var_os("XDG_RUNTIME_DIR")
            .map(PathBuf::from)
            .ok_or_else(|| {
                TypeError::Needs("--on NAME: XDG_RUNTIME_DIR is not set; give the socket's whole path".into())
            })?
            .join(name),
        (None, None) => unreachable!("one of the two"),
    };
    sink.rec.config(
        "display",
        match &own {
            Some(o) => format!(
                "latlab's headless sway ({}){}",
                product("sway"),
                o.user.as_ref().map_or(String::new(), |u| format!(" as {}", u.name))
            ),
            None => socket.display().to_string(),
        },
    );
    let mut x = WaylandSurface::connect(&socket)?;
    let refresh = cfg.refresh_hz.unwrap_or(x.refresh_hz());
    sink.rec.config("refresh_hz", refresh);
    sink.rec.config("capture", if x.with_damage() { "screencopy with damage" } else { "screencopy" });
    let cfg = &TypeConfig { refresh_hz: Some(refresh), ..cfg.clone() };
    let apps = if cfg.apps.is_empty() { vec![AppSpec::new(Vec::new())] } else { cfg.apps.clone() };
    for app in &apps {
        let mut started = match (&own, app.argv.is_empty()) {
            (_, true) => None,
            (Some(o), false) => Some(o.spawn(&app.argv)?),
            (None, false) => Some(spawn_on(&socket, &app.argv)?),
        };
        if let Some(child) = &mut started {
            // No window list on Wayland: the application is up when the output changes.
            let before = x.pictures();
            let until = monotonic_now() + cfg.window_timeout_ns;
            while x.pictures() == before {
                if let Some(st) = child.exited() {
                    return Err(child.exit_error(st, "before it drew").into());
                }
                if monotonic_now() > until {
                    return Err(latlab_keyscreen::ScreenError::Screen(format!(
                        "{} drew nothing on the output in {} s",
                        app.argv[0],
                        cfg.window_timeout_ns / 1_000_000_000
                    ))
                    .into());
                }
                x.pump_until(monotonic_now() + 50_000_000, &mut |_, _| {})?;
            }
        }
        let name = match &started {
            Some(_) => product(&app.argv[0]),
            None => format!("the window with the keyboard on {}", socket.display()),
        };
        sink.products.push(format!("{}={name}", app.label));
        let pids = || started.as_ref().map(latlab_keyscreen::launch::Started::pids).unwrap_or_default();
        conditions(cfg, sink, &mut x, &app.label, &pids)?;
    }
    Ok(())
}

/// `mem`: before each key every process of the application is paged out, then the key goes
/// [`latlab_keyscreen::defaults::RDP_MEM_KEY_AFTER_NS`] later (seed 003 §4.2's keystroke after page demand).
fn paged<S: Screen>(
    rec: &mut RunRecord,
    cfg: &TypeConfig,
    x: &mut S,
    label: &str,
    pids: &[u32],
) -> Result<Measured, TypeError> {
    use latlab_sys::pageout::{pageout_all, rss_kib, swap_for};
    let rss_mib = pids.iter().map(|&p| rss_kib(p)).sum::<u64>() / 1024;
    let (_swap, swap) = swap_for(rss_mib as usize + 16, cfg.allow_swapfile, &cfg.swap_dir)
        .map_err(|e| TypeError::Condition { condition: "mem", source: e.into() })?;
    rec.config("mem_swap", swap);
    let (mut before, mut after, mut rounds) = (0u64, 0u64, 0u64);
    let mut page_out = || -> Result<(), latlab_keyscreen::ScreenError> {
        let (b, a) = pageout_all(label, pids)?;
        (before, after, rounds) = (before + b, after + a, rounds + 1);
        Ok(())
    };
    let plan = TypingPlan {
        keys: cfg.keys.min(latlab_keyscreen::defaults::RDP_MEM_KEYS),
        interval_ns: latlab_keyscreen::defaults::RDP_MEM_KEY_AFTER_NS,
        ..cfg.plan()
    };
    let m = type_once(x, &plan, cfg.paced_fifo(), Some(&mut page_out))?;
    if rounds > 0 {
        rec.metric(
            &format!("type.{label}.mem.evicted_per_key"),
            before.saturating_sub(after) as f64 * 1024.0 / rounds as f64,
            "B",
        );
    }
    Ok(m)
}

fn ms(ns: f64) -> f64 {
    (ns / 1e4).round() / 100.0
}

/// Store one application/condition's metrics and series; returns its table row.
fn record(rec: &mut RunRecord, cfg: &TypeConfig, app: &str, cond: &str, m: &Measured) -> Vec<serde_json::Value> {
    let p = format!("type.{app}.{cond}");
    let t = &m.typing;
    let keys = t.latencies_ns.len() as u64 + t.lost;
    let lat: Vec<i64> = t.latencies_ns.iter().map(|&v| v as i64).collect();
    let sm = rec.summarized_series(
        &p,
        "ns",
        format!("keystroke to screen in {app} under {cond}: from each key's intended time to the first screen read showing its glyph, in typing order"),
        lat.clone(),
    );
    let threshold = latlab_keyscreen::defaults::NOTICEABLE_MS * 1_000_000;
    let over = lat.iter().filter(|&&v| v as u64 > threshold).count() as u64 + t.lost;
    rec.metric(&format!("{p}.keys"), keys, "count");
    rec.metric(&format!("{p}.lost"), t.lost, "count");
    rec.metric(&format!("{p}.over_threshold"), if keys > 0 { over as f64 / keys as f64 } else { 0.0 }, "ratio");
    let r = m.reads;
    let (reads, read_cpu) = (r.reads, r.cpu_ns);
    let read_hz = if r.gaps_ns > 0 { r.gaps as f64 * 1e9 / r.gaps_ns as f64 } else { 0.0 };
    // Frames copied with damage come only when the output changed: every frame the
    // compositor made is read, so the capture rate is the output's refresh.
    let hz = match (cfg.backend, cfg.refresh_hz) {
        (Backend::Wayland, Some(r)) => r,
        _ => read_hz,
    };
    rec.metric(&format!("{p}.capture_hz"), hz, "Hz");
    rec.metric(&format!("{p}.reads_per_second"), read_hz, "Hz");
    if hz > 0.0 {
        rec.metric(&format!("{p}.resolution"), 1e9 / hz, "ns");
    }
    if reads > 0 {
        rec.metric(&format!("{p}.read_cpu_per_read"), read_cpu as f64 / reads as f64, "ns");
    }
    if t.checks > 0 {
        rec.metric(&format!("{p}.detector_ns_per_check"), t.detect_ns as f64 / t.checks as f64, "ns");
    }
    if let Some(late) = summarize(&t.send_late_ns.iter().map(|&v| v as i64).collect::<Vec<_>>()) {
        rec.metric(&format!("{p}.send_late_p99"), late.p99, "ns");
    }
    if let (Some(hz), Some(s)) = (cfg.refresh_hz, &sm) {
        rec.metric(&format!("{p}.p50_over_frame"), s.p50 as f64 - 1e9 / hz, "ns");
    }
    if let Some(c) = t.cells {
        rec.config(
            &format!("cell_{app}"),
            format!("{}x{} at ({}, {}), advance {}", c.first.w, c.first.h, c.first.x, c.first.y, c.advance),
        );
    }
    if let Some(why) = &m.nothing_drawn {
        rec.warn(format!("{app} under {cond}: the window drew nothing for any key ({why}): every key counted lost"));
    }
    let q = |f: fn(&latlab_model::stats::Summary) -> i64| {
        sm.as_ref().map_or(serde_json::Value::Null, |s| ms(f(s) as f64).into())
    };
    vec![
        app.into(),
        cond.into(),
        keys.into(),
        t.lost.into(),
        q(|s| s.p50),
        // What one screen read resolves, beside the p50 it bounds (a p50 of the same size says
        // little more than "within one read").
        if hz > 0.0 { ms(1e9 / hz).into() } else { serde_json::Value::Null },
        q(|s| s.p95),
        q(|s| s.p99),
        q(|s| s.max),
        (if keys > 0 { (over as f64 * 1000.0 / keys as f64).round() / 10.0 } else { 0.0 }).into(),
        ((hz / 10.0).round() / 100.0).into(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applications_are_named_for_metrics() {
        assert_eq!(metric_name("xterm -fn fixed"), "xterm_fn_fixed");
        assert_eq!(metric_name("/usr/bin/Foot"), "usr_bin_foot");
        assert_eq!(metric_name("9term"), "app_9term");
        assert_eq!(metric_name("--"), "app_");
        assert_eq!(AppSpec::new(vec!["/usr/bin/xterm".into(), "-fn".into()]).label, "xterm");
        assert_eq!(AppSpec::new(Vec::new()).label, "focused");
    }

    #[test]
    fn a_configuration_that_cannot_be_measured_is_refused() {
        let ok = TypeConfig { apps: vec![AppSpec::new(vec!["xterm".into()])], ..TypeConfig::default() };
        assert!(ok.validate().is_ok());
        assert!(TypeConfig::default().validate().unwrap_err().to_string().contains("give an application"));
        let link = TypeConfig { conditions: vec![Condition::parse("10mbit").unwrap()], ..ok.clone() };
        assert!(link.validate().unwrap_err().to_string().contains("on this machine"));
        let twice = TypeConfig { apps: vec![ok.apps[0].clone(), ok.apps[0].clone()], ..ok.clone() };
        assert!(twice.validate().unwrap_err().to_string().contains("same name"));
        assert!(TypeConfig { keys: 2, ..ok.clone() }.validate().is_err());
        assert!(TypeConfig { interval_ns: 10, ..ok.clone() }.validate().is_err());
        let rdp = TypeConfig { through_rdp: true, ..ok };
        assert!(rdp.validate().unwrap_err().to_string().contains("give no application"));
    }
}
