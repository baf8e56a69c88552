//! `latlab display`: cache, ops, pipeline, serve and view.

use super::{install_interrupt, out, save, status_code};
use crate::cli::{DisplayArgs, DisplayCommand};
use latlab_core::export::markdown;
use latlab_core::progress::Progress;
use latlab_display::cache_exp::{CacheConfig, run_cache};
use latlab_display::ops::{OpsConfig, run_ops};
use latlab_display::policy::PolicyKind;
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
            let mut rec = result?;
            save(db, &mut rec)?;
            out(&markdown(&rec))?;
            Ok(status_code(&rec))
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
            let mut rec = result?;
            save(db, &mut rec)?;
            out(&markdown(&rec))?;
            Ok(status_code(&rec))
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
