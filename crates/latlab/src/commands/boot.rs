//! `latlab boot analyze FILE`, `latlab boot measure [FILE]`.

use crate::cli::{BootArgs, BootCommand};
use anyhow::Context;
use latlab_startup::boot::experiment::{Boot, BootFile, BootMeasure};
use latlab_startup::boot::measure::{BootMeasureConfig, BootSource};
use std::path::Path;

pub fn run(db: &Path, a: BootArgs) -> anyhow::Result<i32> {
    match a.command {
        BootCommand::Analyze { file, run: None } => {
            crate::runner::measure::<Boot>(db, BootFile { file, measured: None })
        }
        BootCommand::Analyze { run: Some(id), .. } => {
            let rec = crate::runner::open_existing(db)?.load(id).with_context(|| format!("cannot load run #{id}"))?;
            crate::runner::measure::<Boot>(db, BootFile { file: None, measured: Some((id, rec)) })
        }
        BootCommand::Measure { file, runs, threads, apply_recommendations, throttle_mbps, throttle_iops } => {
            // NaN and negatives become 0 B/s, which `validate` refuses.
            let bytes_per_s = throttle_mbps.map(|mb| (mb * 1e6) as u64);
            let throttle = latlab_startup::device::Limit { bytes_per_s, iops: throttle_iops };
            let d = BootMeasureConfig::default();
            // The built-in boot is made to show its advice verified: always applied there.
            let apply_recommendations = apply_recommendations || file.is_none();
            let source = file.map_or(d.source, BootSource::File);
            crate::runner::measure::<BootMeasure>(
                db,
                BootMeasureConfig { source, runs, threads, apply_recommendations, throttle },
            )
        }
    }
}
