//! The store's monitor windows (appended as they close, read back by run) and imported runs
//! (`latlab import`: a run with its windows and origin in one transaction).

use super::{Store, StoreError, decode_all, encode_series, write_run};
use latlab_model::record::RunRecord;
use rusqlite::{OptionalExtension, params};

pub use latlab_model::window::WindowRow;

impl Store {
    /// Append closed windows to monitor run `id` in one transaction; the run's end moves to
    /// the last window's end, so `runs` shows how far it got.
    pub fn append_windows(&mut self, id: i64, windows: &[WindowRow]) -> Result<(), StoreError> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        insert_windows(&tx, id, windows)?;
        tx.commit()?;
        Ok(())
    }

    /// Store a run brought from another database (`latlab import`) with its windows and where
    /// it came from, in one transaction: all of it or none. Returns its new id.
    pub fn insert_imported(
        &mut self,
        run: &RunRecord,
        windows: &[WindowRow],
        source: &str,
        source_id: i64,
    ) -> Result<i64, StoreError> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let id = write_run(&tx, None, run)?;
        insert_windows(&tx, id, windows)?;
        tx.execute(
            "INSERT INTO imported (run_id, source, source_id, imported_at_ns) VALUES (?1, ?2, ?3, ?4)",
            params![id, source, source_id, latlab_sys::clock::unix_now_ns()],
        )?;
        tx.commit()?;
        Ok(id)
    }

    /// Runs already stored of `experiment` that started at `started_at_ns`: their ids and
    /// machines, for telling a duplicate apart (`latlab import`).
    pub fn runs_started_at(
        &self,
        experiment: &str,
        started_at_ns: i64,
    ) -> Result<Vec<(i64, latlab_sys::machine::Machine)>, StoreError> {
        let mut q = self.conn.prepare("SELECT id, machine FROM runs WHERE experiment = ?1 AND started_at_ns = ?2")?;
        let rows: Vec<(i64, String)> = q
            .query_map(params![experiment, started_at_ns], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        rows.into_iter()
            .map(|(id, m)| {
                serde_json::from_str(&m)
                    .map(|m| (id, m))
                    .map_err(|e| StoreError::Corrupt { run: id, what: format!("machine: {e}") })
            })
            .collect()
    }

    /// Where run `id` was imported from (source file, its id there), if it was.
    pub fn imported_from(&self, id: i64) -> Result<Option<(String, i64)>, StoreError> {
        if self.schema_version()? < 4 {
            return Ok(None);
        }
        Ok(self
            .conn
            .query_row("SELECT source, source_id FROM imported WHERE run_id = ?1", [id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?)
    }

    /// The windows of monitor run `id`, by probe and time.
    pub fn windows(&self, id: i64) -> Result<Vec<WindowRow>, StoreError> {
        if self.schema_version()? < 3 {
            return Ok(Vec::new());
        }
        // Windows kept their largest samples from schema 5 on (a database read, not migrated,
        // by `latlab import` may be older).
        let tops = if self.schema_version()? >= 5 { "tops" } else { "x''" };
        let mut q = self.conn.prepare(&format!(
            "SELECT probe, start_ns, end_ns, state, count, sum_ns, min_ns, p50_ns, p99_ns, p999_ns, max_ns, missed,
                    lost, buckets, {tops}
             FROM monitor_windows WHERE run_id = ?1 ORDER BY probe, start_ns"
        ))?;
        let rows = q
            .query_map([id], |r| {
                Ok((
                    WindowRow {
                        probe: r.get(0)?,
                        start_ns: r.get(1)?,
                        end_ns: r.get(2)?,
                        state: r.get(3)?,
                        count: r.get(4)?,
                        sum_ns: r.get(5)?,
                        min_ns: r.get(6)?,
                        p50_ns: r.get(7)?,
                        p99_ns: r.get(8)?,
                        p999_ns: r.get(9)?,
                        max_ns: r.get(10)?,
                        missed: r.get(11)?,
                        lost: r.get(12)?,
                        buckets: Vec::new(),
                        tops: Vec::new(),
                    },
                    r.get::<_, Vec<u8>>(13)?,
                    r.get::<_, Vec<u8>>(14)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter()
            .map(|(mut w, blob, tops)| {
                let corrupt = |what: &str, e: String| StoreError::Corrupt {
                    run: id,
                    what: format!("the {what} of window {} of probe {}: {e}", w.start_ns, w.probe),
                };
                w.buckets = decode_all(&blob).map_err(|e| corrupt("buckets", e.to_string()))?;
                if !tops.is_empty() {
                    w.tops = decode_all(&tops).map_err(|e| corrupt("largest samples", e.to_string()))?;
                }
                Ok(w)
            })
            .collect()
    }
}

/// Insert closed windows of run `id` inside `tx`; the run's end moves to the last one's end.
fn insert_windows(tx: &rusqlite::Transaction<'_>, id: i64, windows: &[WindowRow]) -> Result<(), StoreError> {
    {
        let mut q = tx.prepare(
            "INSERT INTO monitor_windows (run_id, probe, start_ns, end_ns, state, count, sum_ns, min_ns, p50_ns,
                                              p99_ns, p999_ns, max_ns, missed, lost, buckets, tops)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        )?;
        for w in windows {
            q.execute(params![
                id,
                w.probe,
                w.start_ns,
                w.end_ns,
                w.state,
                w.count,
                w.sum_ns,
                w.min_ns,
                w.p50_ns,
                w.p99_ns,
                w.p999_ns,
                w.max_ns,
                w.missed,
                w.lost,
                encode_series(&w.buckets),
                if w.tops.is_empty() { Vec::new() } else { encode_series(&w.tops) }
            ])?;
        }
        if let Some(end) = windows.iter().map(|w| w.end_ns).max() {
            tx.execute("UPDATE runs SET ended_at_ns = MAX(ended_at_ns, ?1) WHERE id = ?2", params![end, id])?;
        }
    }
    Ok(())
}
/// The store as the sink a long-running experiment writes its run and windows into.
impl latlab_model::sink::RunSink for Store {
    fn newest(&mut self, experiment: &str) -> Result<Option<RunRecord>, latlab_model::experiment::BoxError> {
        let Some(last) = self.list()?.into_iter().find(|r| r.experiment == experiment) else { return Ok(None) };
        Ok(Some(self.load(last.id)?))
    }
    fn write(&mut self, id: Option<i64>, rec: &RunRecord) -> Result<i64, latlab_model::experiment::BoxError> {
        Ok(Store::write(self, id, rec)?)
    }
    fn append_windows(&mut self, id: i64, windows: &[WindowRow]) -> Result<(), latlab_model::experiment::BoxError> {
        Ok(Store::append_windows(self, id, windows)?)
    }
    fn windows(&mut self, id: i64) -> Result<Vec<WindowRow>, latlab_model::experiment::BoxError> {
        Ok(Store::windows(self, id)?)
    }
}
