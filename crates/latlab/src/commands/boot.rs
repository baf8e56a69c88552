//! `latlab boot analyze`.

use super::store_and_print;
use crate::cli::{BootArgs, BootCommand};
use anyhow::Context;
use latlab_startup::boot::{analyze, parse, record};
use std::path::Path;

pub fn run(db: &Path, a: BootArgs) -> anyhow::Result<i32> {
    match a.command {
        BootCommand::Analyze { file } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read the trace '{}'", file.display()))?;
            let trace =
                parse(&text).with_context(|| format!("'{}' is not a boot trace latlab reads", file.display()))?;
            let analysis = analyze(&trace);
            let rec = record(&file.display().to_string(), &trace, &analysis);
            store_and_print(db, rec)
        }
    }
}
