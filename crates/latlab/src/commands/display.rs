//! `latlab display`: cache, ops, pipeline, serve and view.

use super::{install_interrupt, store_and_print};
use crate::cli::{DisplayArgs, DisplayCommand};
use latlab_core::progress::Progress;
use latlab_display::cache_exp::{CacheConfig, run_cache};
use latlab_display::net::{self, Pace, ViewConfig};
use latlab_display::ops::{OpsConfig, run_ops};
use latlab_display::pipeline::{PipelineConfig, run_pipeline, view_record};
use latlab_display::policy::PolicyKind;
use latlab_display::session::SessionConfig;
use latlab_display::wire::{Codec, Crypto};
use latlab_display::workload::WorkloadKind;
use std::path::Path;

pub fn run(db: &Path, a: DisplayArgs) -> anyhow::Result<i32> {
    match a.command {
        DisplayCommand::Cache(c) => {
            let mut cfg = CacheConfig::full();
            if !c.frames.is_empty() {
                if c.frames.contains(&0) {
                    anyhow::bail!("--frames: frame counts start at 1");
                }
                cfg.frame_counts = c.frames;
            }
            if !c.policies.is_empty() {
                cfg.policies = c
                    .policies
                    .iter()
                    .map(|n| {
                        PolicyKind::from_name(n).ok_or_else(|| {
                            anyhow::anyhow!(
                                "unknown policy '{n}' (one of: {})",
                                PolicyKind::ALL.map(PolicyKind::name).join(", ")
                            )
                        })
                    })
                    .collect::<anyhow::Result<_>>()?;
            }
            cfg.loops = c.loops.max(1);
            cfg.codec = codec(&c.codec)?;
            cfg.banner_ticker = !c.no_banner;
            install_interrupt()?;
            eprintln!(
                "display cache: {} frame counts × {} policies{} (virtual time; runs as fast as the CPU allows)",
                cfg.frame_counts.len(),
                cfg.policies.len(),
                if cfg.banner_ticker { ", then banner + ticker" } else { "" }
            );
            let progress = Progress::new("display cache", cfg.steps());
            let result = run_cache(&cfg, progress.counter());
            progress.finish();
            let rec = result?;
            store_and_print(db, rec)
        }
        DisplayCommand::Ops(o) => {
            let mut cfg = OpsConfig::full();
            if !o.workloads.is_empty() {
                cfg.workloads = o.workloads.iter().map(|n| workload(n)).collect::<anyhow::Result<_>>()?;
            }
            if o.seconds == 0 {
                anyhow::bail!("--seconds must be at least 1");
            }
            cfg.seconds = o.seconds;
            cfg.codec = codec(&o.codec)?;
            cfg.crypto = crypto(&o.crypto)?;
            cfg.orders = !o.bitmaps;
            cfg.seed = o.seed;
            install_interrupt()?;
            eprintln!(
                "display ops: {} operations × {} virtual s (runs as fast as the CPU allows)",
                cfg.workloads.len(),
                cfg.seconds
            );
            let progress = Progress::new("display ops", cfg.steps());
            let result = run_ops(&cfg, progress.counter());
            progress.finish();
            let rec = result?;
            store_and_print(db, rec)
        }
        DisplayCommand::Pipeline(p) => {
            let mut cfg = if p.short { PipelineConfig::short() } else { PipelineConfig::full() };
            if let Some(s) = p.seconds {
                if s == 0 {
                    anyhow::bail!("--seconds must be at least 1");
                }
                cfg.seconds = s;
            }
            install_interrupt()?;
            eprintln!(
                "display pipeline: {} runs on real time through TCP over loopback (about {} s)",
                cfg.steps(),
                cfg.seconds + (cfg.steps() - 1) * cfg.sweep_seconds
            );
            let progress = Progress::new("display pipeline", cfg.steps());
            let result = run_pipeline(&cfg, progress.counter());
            progress.finish();
            let rec = result?;
            store_and_print(db, rec)
        }
        DisplayCommand::Serve(s) => {
            install_interrupt()?;
            let listener = std::net::TcpListener::bind(&s.listen)
                .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", s.listen))?;
            eprintln!(
                "display serve: listening on {} — run `latlab display view HOST` on the client ({})",
                listener.local_addr()?,
                if s.once { "one session" } else { "Ctrl-C to stop" }
            );
            net::serve(&listener, s.once, |peer, r| match r {
                Ok(r) => eprintln!(
                    "{peer}: {} frames ({} dropped), {} display PDUs, {} bytes; {} of {} input events; {:.1} % of a core",
                    r.frames,
                    r.dropped,
                    r.display_pdus,
                    r.display_bytes,
                    r.input_events,
                    r.input_expected,
                    100.0 * (r.render_ns + r.encode_ns + r.send_ns) as f64 / r.wall_ns.max(1) as f64
                ),
                Err(e) => eprintln!("{peer}: {e}"),
            })?;
            Ok(0)
        }
        DisplayCommand::View(v) => {
            if v.seconds == 0 {
                anyhow::bail!("--seconds must be at least 1");
            }
            let mut cfg = SessionConfig::standard(workload(&v.workload)?, v.seconds * 1000);
            (cfg.width, cfg.height, cfg.bpp, cfg.seed) = (v.width, v.height, v.bpp, v.seed);
            cfg.encoder.orders = !v.bitmaps;
            cfg.codec = codec(&v.codec)?;
            cfg.crypto = crypto(&v.crypto)?;
            cfg.check_every_frame = v.check_frames;
            cfg.timed = true;
            cfg.validate()?;
            let vc = ViewConfig { rcvbuf: v.rcvbuf, threshold: v.threshold, speed: v.speed, ..ViewConfig::default() };
            vc.validate().map_err(|e| anyhow::anyhow!(e))?;
            let pace = if v.flat_out { Pace::FlatOut } else { Pace::RealTime };
            install_interrupt()?;
            let rec = latlab_core::record::RunRecord::begin("display");
            let (peer, server, client) = match &v.host {
                None => {
                    eprintln!("display view: {} for {} s, in-process server over loopback", v.workload, v.seconds);
                    let (s, c) = net::pair(&cfg, pace, &vc)?;
                    ("in-process (loopback)".to_string(), Some(s), c)
                }
                Some(h) => {
                    let addr = if h.parse::<std::net::SocketAddr>().is_ok() || h.contains(':') {
                        h.clone()
                    } else {
                        format!("{h}:{}", latlab_display::defaults::PORT)
                    };
                    eprintln!("display view: {} for {} s from {addr}", v.workload, v.seconds);
                    (addr.clone(), None, net::view(&addr, &cfg, pace, &vc)?)
                }
            };
            let rec = view_record(rec, &cfg, pace, &vc, &peer, server.as_ref(), &client);
            store_and_print(db, rec)
        }
    }
}

/// The workload called `name`, or an error listing them.
pub fn workload(name: &str) -> anyhow::Result<WorkloadKind> {
    WorkloadKind::from_name(name)
        .ok_or_else(|| anyhow::anyhow!("unknown workload '{name}' (one of: {})", WorkloadKind::NAMES.join(", ")))
}

/// The codec called `name`, or an error listing them.
pub fn codec(name: &str) -> anyhow::Result<Codec> {
    Codec::from_name(name)
        .ok_or_else(|| anyhow::anyhow!("unknown codec '{name}' (one of: {})", Codec::ALL.map(Codec::name).join(", ")))
}

/// The cipher called `name`, or an error listing them.
pub fn crypto(name: &str) -> anyhow::Result<Crypto> {
    Crypto::from_name(name).ok_or_else(|| {
        anyhow::anyhow!("unknown cipher '{name}' (one of: {})", Crypto::ALL.map(Crypto::name).join(", "))
    })
}
