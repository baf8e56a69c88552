//! `latlab export --format json`: the whole self-describing record (`docs/run-record.md`), pretty.

use super::{ExportError, Exporter};
use latlab_model::record::RunRecord;

/// The JSON exporter.
pub struct Json;

impl Exporter for Json {
    fn render(&self, run: &RunRecord) -> Result<Vec<u8>, ExportError> {
        let mut text = serde_json::to_vec_pretty(run).map_err(std::io::Error::other)?;
        text.push(b'\n');
        Ok(text)
    }
}
