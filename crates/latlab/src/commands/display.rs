//! `latlab display cache`.

use super::{install_interrupt, out, save, status_code};
use crate::cli::{DisplayArgs, DisplayCommand};
use latlab_core::export::markdown;
use latlab_core::progress::Progress;
use latlab_display::cache_exp::{CacheConfig, run_cache};
use latlab_display::policy::PolicyKind;
use latlab_display::wire::Codec;
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
            cfg.codec = Codec::from_name(&c.codec).ok_or_else(|| {
                anyhow::anyhow!("unknown codec '{}' (one of: {})", c.codec, Codec::ALL.map(Codec::name).join(", "))
            })?;
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
    }
}
