//! `latlab boot analyze FILE`, `latlab boot measure [FILE]`.

use crate::cli::{BootArgs, BootCommand};
use latlab_startup::bootmeasure::{BootMeasureConfig, BootSource};
use latlab_startup::experiment::{Boot, BootFile, BootMeasure};
use std::path::Path;

pub fn run(db: &Path, a: BootArgs) -> anyhow::Result<i32> {
    match a.command {
        BootCommand::Analyze { file } => super::measure::<Boot>(db, BootFile { file: Some(file) }),
        BootCommand::Measure { file, runs, threads, apply_recommendations } => {
            let d = BootMeasureConfig::default();
            // The built-in boot is made to show its advice verified: always applied there.
            let apply_recommendations = apply_recommendations || file.is_none();
            let source = file.map_or(d.source, BootSource::File);
            super::measure::<BootMeasure>(db, BootMeasureConfig { source, runs, threads, apply_recommendations })
        }
    }
}
