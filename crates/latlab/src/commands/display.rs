//! `latlab display`: cache, ops, pipeline, latency, capacity and view from the arguments; serve.

use crate::cli::seconds_of;
use crate::cli::{DisplayArgs, DisplayCommand};
use crate::runner::{install_interrupt, measure};
use latlab_desktop::cache::Geometry;
use latlab_desktop::session::SessionConfig;
use latlab_display::cache_exp::{CacheConfig, frames_around};
use latlab_display::capacity::CapacityConfig;
use latlab_display::experiment::{
    DisplayCache, DisplayCapacity, DisplayLatency, DisplayOps, DisplayPipeline, DisplayView, ViewRun,
};
use latlab_display::latency::LatencyConfig;
use latlab_display::ops::OpsConfig;
use latlab_display::pipeline::PipelineConfig;
use latlab_display::rdp::config::RdpMode;
use latlab_display::rdp::experiment::DisplayRdp;
use latlab_display_net::Pace;
use std::path::Path;

pub fn run(db: &Path, a: DisplayArgs) -> anyhow::Result<i32> {
    match a.command {
        DisplayCommand::Cache(c) => {
            let d = CacheConfig::default();
            let geometry = Geometry { cells: c.cells, bpp: c.bpp };
            let cfg = CacheConfig {
                frame_counts: if c.frames.is_empty() { frames_around(geometry.capacity_frames()) } else { c.frames },
                geometry,
                policies: if c.policies.is_empty() { d.policies } else { c.policies },
                loops: c.loops,
                codec: c.codec,
                banner_ticker: !c.no_banner,
                banner_geometry: d.banner_geometry,
                banner_aside: d.banner_aside,
            };
            measure::<DisplayCache>(db, cfg)
        }
        DisplayCommand::Ops(o) => {
            if let Some(mut cfg) = o.real.config(RdpMode::Ops).map_err(crate::runner::usage)? {
                cfg.op_seconds = seconds_of(
                    o.op_duration,
                    o.op_seconds,
                    ("op-duration", "op-seconds"),
                    latlab_display::defaults::RDP_OP_SECONDS,
                );
                if !o.rdp_ops.is_empty() {
                    cfg.ops = o.rdp_ops;
                }
                return measure::<DisplayRdp>(db, cfg);
            }
            let d = OpsConfig::default();
            let cfg = OpsConfig {
                workloads: if o.workloads.is_empty() { d.workloads.clone() } else { o.workloads },
                seconds: seconds_of(o.duration, o.seconds, ("duration", "seconds"), d.seconds as f64).round() as u64,
                codec: o.codec,
                crypto: o.crypto,
                orders: !o.bitmaps,
                seed: o.seed,
                ..d
            };
            measure::<DisplayOps>(db, cfg)
        }
        DisplayCommand::Pipeline(p) => match p.real.config(RdpMode::Pipeline).map_err(crate::runner::usage)? {
            Some(cfg) => measure::<DisplayRdp>(db, cfg),
            None => measure::<DisplayPipeline>(db, pipeline_config(p)),
        },
        DisplayCommand::Latency(l) => match l.real.config(RdpMode::Latency).map_err(crate::runner::usage)? {
            Some(mut cfg) => {
                if !l.conditions.is_empty() {
                    cfg.conditions = l.conditions;
                }
                (cfg.wpm, cfg.spinners, cfg.pages) = (l.wpm, l.spinners, l.pages);
                if l.fixed_interval {
                    cfg.gaps = latlab_desktop::gaps::KeyGaps::Fixed;
                }
                cfg.allow_swapfile = !l.no_swapfile;
                measure::<DisplayRdp>(db, cfg)
            }
            None => measure::<DisplayLatency>(db, latency_config(l)),
        },
        DisplayCommand::Capacity(c) => {
            let mut cfg = CapacityConfig::default();
            let seconds = seconds_of(c.duration, c.seconds, ("duration", "seconds"), cfg.seconds);
            (cfg.mix, cfg.seconds, cfg.link_bps) = (c.mix, seconds, c.link);
            (cfg.per_kind, cfg.pin, cfg.until_limit) = (!c.no_per_kind, !c.no_pin, !c.ramp_only);
            if let Some(ns) = c.login_every {
                cfg.login_every_ms = ns / 1_000_000;
            }
            if let Some(real) = c.rdp {
                // A real server's sessions are typists, with nothing of latlab's own to measure first.
                cfg.real = Some(real);
                cfg.mix = vec![(latlab_display::capacity::UserKind::Typist, 1)];
                cfg.per_kind = false;
                cfg.ramp = latlab_display::defaults::CAPACITY_RDP_RAMP.to_vec();
            }
            if !c.ramp.is_empty() {
                cfg.ramp = c.ramp;
            }
            (cfg.session.codec, cfg.session.crypto, cfg.session.bpp) = (c.codec, c.crypto, c.bpp);
            measure::<DisplayCapacity>(db, cfg)
        }
        DisplayCommand::Serve(s) if s.rdp.rdp => serve_rdp(db, s),
        DisplayCommand::Serve(s) => {
            let limits = s.limits();
            limits.validate().map_err(crate::runner::usage)?;
            install_interrupt()?;
            latlab_sys::interrupt::install_status_signal()?;
            let listen = s.listen.clone().unwrap_or_else(|| format!("127.0.0.1:{}", latlab_display::defaults::PORT));
            let listener =
                std::net::TcpListener::bind(&listen).map_err(|e| anyhow::anyhow!("cannot listen on {listen}: {e}"))?;
            eprintln!(
                "display serve: listening on {} (pid {}) — run `latlab display view HOST` on the client ({}; SIGUSR1 prints the counters)",
                listener.local_addr()?,
                std::process::id(),
                if s.once { "one session" } else { "Ctrl-C or SIGTERM stops" }
            );
            let stats = std::sync::Arc::new(latlab_display_net::DoorStats::default());
            let st = stats.clone();
            let gate = std::thread::spawn(move || {
                latlab_display_net::serve_bounded(
                    &listener,
                    s.once,
                    limits,
                    st,
                    &latlab_sys::interrupt::stop_requested,
                    |peer, r| match r {
                        Ok(r) => eprintln!("{peer}: {}", r.summary()),
                        Err(e) => eprintln!("{peer}: {e}"),
                    },
                )
            });
            while !gate.is_finished() {
                std::thread::sleep(std::time::Duration::from_millis(100));
                if latlab_sys::interrupt::status_requested() {
                    eprintln!("display serve: {}", stats.line());
                }
            }
            let r = gate.join().map_err(|_| anyhow::anyhow!("the display server's thread panicked"))?;
            eprintln!("display serve: stopped: {}", stats.line());
            r?;
            Ok(crate::exit::OK)
        }
        DisplayCommand::View(v) => {
            let seconds = seconds_of(
                v.duration,
                v.seconds,
                ("duration", "seconds"),
                latlab_display::defaults::VIEW_SECONDS as f64,
            );
            let mut session = SessionConfig::standard(v.workload, (seconds * 1000.0).round() as u64);
            (session.width, session.height, session.bpp, session.seed) = (v.width, v.height, v.bpp, v.seed);
            session.encoder.orders = !v.bitmaps;
            (session.codec, session.crypto) = (v.codec, v.crypto);
            session.check_every_frame = v.check_frames;
            session.timed = true;
            let view = v.client.view_config();
            let pace = if v.flat_out { Pace::FlatOut } else { Pace::RealTime };
            measure::<DisplayView>(db, ViewRun { session, view, pace, host: v.host })
        }
    }
}

/// `latlab display serve --rdp`: serve real RDP clients through the one runner; each
/// session is stored as a run as it ends, and the server's own run at the stop.
fn serve_rdp(db: &Path, s: crate::cli::DisplayServe) -> anyhow::Result<i32> {
    use latlab_display::rdp::serve::{DisplayServeRdp, ServeRdpRun};
    let r = s.rdp;
    let base = ServeRdpRun::default();
    let cfg = ServeRdpRun {
        listen: s.listen.unwrap_or(base.listen),
        cert_dir: r.cert_dir,
        width: r.width,
        height: r.height,
        bpp: r.bpp,
        gfx: r.gfx,
        deadline_ns: s.hello_deadline.unwrap_or(base.deadline_ns),
        user: r.rdp_user,
        plan: latlab_rdp_peers::serve::Plan {
            script: r.script,
            phase_ms: (seconds_of(
                r.phase,
                r.phase_seconds,
                ("phase", "phase-seconds"),
                latlab_rdp_peers::defaults::RDP_SERVE_PHASE_SECS,
            ) * 1000.0)
                .round() as u64,
            flat_out: r.flat_out,
            orders: r.orders,
            compress: !r.no_compression,
            idle_ns: s.idle_timeout,
            max_ns: s.max_session,
            ..base.plan
        },
        max_sessions: s.max_sessions,
        max_waiting: s.max_waiting,
        once: s.once,
    };
    measure::<DisplayServeRdp>(db, cfg)
}

/// The configuration `latlab display pipeline` runs with these arguments.
pub fn pipeline_config(p: crate::cli::DisplayPipeline) -> PipelineConfig {
    let base = if p.short { PipelineConfig::short() } else { PipelineConfig::default() };
    PipelineConfig {
        seconds: seconds_of(p.duration, p.seconds, ("duration", "seconds"), base.seconds as f64).round() as u64,
        main_only: p.main_only,
        orders: !p.bitmaps,
        view: p.client.view_config(),
        ..base
    }
}

/// The configuration `latlab display latency` runs with these arguments.
pub fn latency_config(l: crate::cli::DisplayLatency) -> LatencyConfig {
    let mut cfg = LatencyConfig::default();
    if !l.conditions.is_empty() {
        cfg.conditions = l.conditions;
    }
    let seconds = seconds_of(l.duration, l.seconds, ("duration", "seconds"), cfg.typist.seconds);
    (cfg.typist.wpm, cfg.typist.seconds, cfg.typist.pages, cfg.typist.fifo) = (l.wpm, seconds, l.pages, !l.no_fifo);
    if l.fixed_interval {
        cfg.typist.gaps = latlab_desktop::gaps::KeyGaps::Fixed;
    }
    (cfg.spinners, cfg.spin_sched, cfg.working_set_mib) = (l.spinners, l.spin_policy, l.working_set);
    cfg.allow_swapfile = !l.no_swapfile;
    (cfg.session.codec, cfg.session.crypto) = (l.codec, l.crypto);
    cfg
}

/// The configuration a `latlab display pipeline` command line makes, for `latlab tune`.
pub fn tuned_pipeline(c: crate::cli::Command, _strict: bool) -> anyhow::Result<Option<PipelineConfig>> {
    Ok(match c {
        crate::cli::Command::Display(DisplayArgs { command: DisplayCommand::Pipeline(p) }) => Some(pipeline_config(p)),
        _ => None,
    })
}

/// The configuration a `latlab display latency` command line makes, for `latlab tune`.
pub fn tuned_latency(c: crate::cli::Command, _strict: bool) -> anyhow::Result<Option<LatencyConfig>> {
    Ok(match c {
        crate::cli::Command::Display(DisplayArgs { command: DisplayCommand::Latency(l) }) => Some(latency_config(l)),
        _ => None,
    })
}
