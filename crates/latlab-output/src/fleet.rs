//! Runs of many machines in one database: which host a run was measured on, and `latlab
//! import`, which copies the runs of other latlab databases into this one, keeping each run's
//! machine as it was, refusing a run already present, and never changing the sources.
//!
//! A host is told apart by its `/etc/machine-id` where the record has one (boards flashed from
//! one image often share a host name), else by its host name. A run is a duplicate of a stored
//! one when both are of the same experiment, started at the same nanosecond, on the same host.

use crate::store::{Store, StoreError};
use latlab_sys::machine::Machine;
use std::collections::BTreeSet;
use std::path::Path;

/// The key that tells hosts apart: the machine id, else the host name, else `unknown`.
pub fn host_key(m: &Machine) -> String {
    m.info.machine_id.clone().or_else(|| m.info.hostname.clone()).unwrap_or_else(|| "unknown".into())
}

/// The name people read for a host: its host name, else its machine id, else `unknown`.
pub fn host_name(m: &Machine) -> String {
    m.info.hostname.clone().or_else(|| m.info.machine_id.clone()).unwrap_or_else(|| "unknown".into())
}

/// What one source gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Imported {
    /// Runs copied, as (id in the source, new id here).
    pub copied: Vec<(i64, i64)>,
    /// Runs refused as already present, as (id in the source, the id of the run here).
    pub duplicates: Vec<(i64, i64)>,
    /// Monitor windows copied with the runs.
    pub windows: usize,
    /// The hosts the copied runs were measured on (names).
    pub hosts: BTreeSet<String>,
}

/// Why a source could not be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The source could not be read.
    #[error("cannot read '{path}': {source}")]
    Source {
        /// The source as given.
        path: String,
        /// Why.
        source: StoreError,
    },
    /// This database could not be written; what was imported before stays.
    #[error("cannot store run #{id} of '{path}': {source}")]
    Dest {
        /// The source as given.
        path: String,
        /// The run's id there.
        id: i64,
        /// Why.
        source: StoreError,
    },
}

/// Copy every run of the database at `src` into `dest`, one transaction per run (its windows
/// and its origin with it), oldest first; a run already in `dest` is refused and named.
/// `progress` hears each run as it is done. The source is opened read-only.
pub fn import(dest: &mut Store, src: &Path, progress: &mut dyn FnMut(usize, usize)) -> Result<Imported, ImportError> {
    let path = src.display().to_string();
    let read = |e: StoreError| ImportError::Source { path: path.clone(), source: e };
    let source = Store::open_read_only(src).map_err(read)?;
    let mut listing = source.list().map_err(read)?;
    listing.reverse(); // oldest first, so ids keep their order here
    let mut out = Imported::default();
    for (i, l) in listing.iter().enumerate() {
        let rec = source.load(l.id).map_err(read)?;
        let key = host_key(&rec.machine);
        let stored = dest.runs_started_at(&rec.experiment, rec.started_at_ns).map_err(|e| ImportError::Dest {
            path: path.clone(),
            id: l.id,
            source: e,
        })?;
        if let Some((here, _)) = stored.iter().find(|(_, m)| host_key(m) == key) {
            out.duplicates.push((l.id, *here));
            progress(i + 1, listing.len());
            continue;
        }
        let windows = source.windows(l.id).map_err(read)?;
        let mut rec = rec;
        rec.id = None;
        let id = dest.insert_imported(&rec, &windows, &path, l.id).map_err(|e| ImportError::Dest {
            path: path.clone(),
            id: l.id,
            source: e,
        })?;
        out.copied.push((l.id, id));
        out.windows += windows.len();
        out.hosts.insert(host_name(&rec.machine));
        progress(i + 1, listing.len());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::WindowRow;
    use latlab_model::record::{RunRecord, RunStatus, Series};

    pub(crate) fn host_run(host: &str, id: &str, experiment: &str, started: i64) -> RunRecord {
        let mut r = latlab_sys::record::begin(experiment);
        r.machine.info.hostname = Some(host.into());
        r.machine.info.machine_id = Some(id.into());
        r.started_at_ns = started;
        r.ended_at_ns = started + 1_000_000_000;
        r.status = RunStatus::Complete;
        r.series.push(Series {
            name: "x".into(),
            unit: "ns".into(),
            description: String::new(),
            values: vec![1, 2, 3],
        });
        r
    }

    fn window(start: i64) -> WindowRow {
        WindowRow {
            probe: "rt".into(),
            start_ns: start,
            end_ns: start + 10,
            state: "idle".into(),
            count: 3,
            sum_ns: 6,
            min_ns: 1,
            p50_ns: 2,
            p99_ns: 3,
            p999_ns: 3,
            max_ns: 3,
            missed: 0,
            lost: 0,
            buckets: vec![3, 0],
            tops: vec![0, 1, 2, 3],
        }
    }

    #[test]
    fn many_hosts_merge_keep_their_machines_and_refuse_duplicates_and_sources_stay_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let mut sources = Vec::new();
        for h in 0..5 {
            let p = dir.path().join(format!("h{h}.db"));
            let mut s = Store::open(&p).unwrap();
            for e in ["rt", "monitor"] {
                let id = s.insert(&host_run(&format!("board-{h}"), &format!("id{h}"), e, 1_000 + h)).unwrap();
                if e == "monitor" {
                    s.append_windows(id, &[window(5), window(15)]).unwrap();
                }
            }
            drop(s);
            sources.push(p);
        }
        // Two boards flashed from one image: one host name, two machine ids.
        let twin = dir.path().join("twin.db");
        Store::open(&twin).unwrap().insert(&host_run("board-0", "other", "rt", 1_000)).unwrap();
        sources.push(twin);
        let before: Vec<Vec<u8>> = sources.iter().map(|p| std::fs::read(p).unwrap()).collect();

        let mut dest = Store::open(&dir.path().join("all.db")).unwrap();
        let mut total = 0;
        for p in &sources {
            let got = import(&mut dest, p, &mut |_, _| {}).unwrap();
            assert!(got.duplicates.is_empty(), "{p:?}: {got:?}");
            total += got.copied.len();
        }
        assert_eq!(total, 11);
        assert_eq!(dest.list().unwrap().len(), 11);
        // Machines kept, windows and origin with them.
        let all = dest.list().unwrap();
        let hosts: BTreeSet<String> = all.iter().filter_map(|l| l.hostname.clone()).collect();
        assert_eq!(hosts.len(), 5);
        let mon = all.iter().find(|l| l.experiment == "monitor").unwrap();
        assert_eq!(dest.windows(mon.id).unwrap().len(), 2);
        let (src, _) = dest.imported_from(mon.id).unwrap().unwrap();
        assert!(src.ends_with(".db"));
        let rec = dest.load(mon.id).unwrap();
        assert!(rec.machine.info.machine_id.is_some());

        // Again: every run refused, nothing added.
        for p in &sources {
            let got = import(&mut dest, p, &mut |_, _| {}).unwrap();
            assert!(got.copied.is_empty());
            assert!(!got.duplicates.is_empty());
        }
        assert_eq!(dest.list().unwrap().len(), 11);
        let after: Vec<Vec<u8>> = sources.iter().map(|p| std::fs::read(p).unwrap()).collect();
        assert!(before == after, "a source changed");
    }

    #[test]
    fn a_file_that_is_not_a_database_or_is_newer_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let junk = dir.path().join("junk.db");
        std::fs::write(&junk, b"hello, not sqlite at all, padded to be long enough to look like a page").unwrap();
        let mut dest = Store::open_in_memory().unwrap();
        let e = import(&mut dest, &junk, &mut |_, _| {}).unwrap_err().to_string();
        assert!(e.contains("junk.db"), "{e}");
        let empty = dir.path().join("empty.db");
        rusqlite::Connection::open(&empty).unwrap().execute_batch("CREATE TABLE t(x)").unwrap();
        let e = import(&mut dest, &empty, &mut |_, _| {}).unwrap_err().to_string();
        assert!(e.contains("not a latlab database"), "{e}");
        let newer = dir.path().join("newer.db");
        rusqlite::Connection::open(&newer).unwrap().execute_batch("PRAGMA user_version = 99").unwrap();
        let e = import(&mut dest, &newer, &mut |_, _| {}).unwrap_err().to_string();
        assert!(e.contains("newer"), "{e}");
        let missing = dir.path().join("missing.db");
        assert!(import(&mut dest, &missing, &mut |_, _| {}).is_err());
        assert!(!missing.exists(), "a missing source must not be created");
    }
}
