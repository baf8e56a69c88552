//! `latlab boot analyze FILE`.

use crate::cli::{BootArgs, BootCommand};
use latlab_startup::experiment::{Boot, BootFile};
use std::path::Path;

pub fn run(db: &Path, a: BootArgs) -> anyhow::Result<i32> {
    match a.command {
        BootCommand::Analyze { file } => super::measure::<Boot>(db, BootFile { file: Some(file) }),
    }
}
