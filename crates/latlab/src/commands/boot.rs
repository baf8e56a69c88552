//! `latlab boot analyze FILE`, `latlab boot measure [FILE]`.

use crate::cli::{BootArgs, BootCommand};
use latlab_startup::bootmeasure::{BootMeasureConfig, BootSource};
use latlab_startup::experiment::{Boot, BootFile, BootMeasure};
use std::path::Path;

pub fn run(db: &Path, a: BootArgs) -> anyhow::Result<i32> {
    match a.command {
        BootCommand::Analyze { file } => super::measure::<Boot>(db, BootFile { file: Some(file) }),
        BootCommand::Measure { file, runs, threads } => {
            let d = BootMeasureConfig::default();
            let source = file.map_or(d.source, BootSource::File);
            super::measure::<BootMeasure>(db, BootMeasureConfig { source, runs, threads })
        }
    }
}
