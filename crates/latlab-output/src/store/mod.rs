//! The store: an embedded SQLite file holding every run. This module alone owns the schema
//! and its migrations (`PRAGMA user_version`). Schema documentation: `docs/database.md`.
//!
//! A run is written in one transaction as soon as it ends; a long run also writes checkpoints
//! (the whole run so far, status `incomplete`, replaced in one transaction each time), so a
//! kill loses at most what was measured since the last one. The database uses WAL and a busy
//! timeout: several latlab processes may store runs at once, and a crash during a run (or a
//! write) never damages runs already stored. Raw series are stored compactly as one BLOB each
//! (see [`encode_series`], in `series.rs`), not one row per sample.

use latlab_model::record::{Metric, RunRecord, RunStatus, Series, Value};
use rusqlite::{Connection, OptionalExtension, params};
use std::path::Path;

/// Current schema version (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i32 = 5;

/// How long a writer waits for another process's transaction before giving up: longer than
/// any one run's write (a checkpoint of hours of samples takes well under a second).
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Name of the only series encoding so far.
pub const ENCODING_DELTA_VARINT: &str = "delta-zigzag-leb128";

/// Errors a caller may want to tell apart.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed (I/O, locking, corruption).
    #[error("database error: {0}")]
    Sqlite(rusqlite::Error),
    /// The file was written by a newer latlab.
    #[error("database schema version {0} is newer than this latlab understands ({SCHEMA_VERSION}); upgrade latlab")]
    TooNew(i32),
    /// No run matches.
    #[error("no run '{0}' in the database (list them with `latlab runs`)")]
    NotFound(String),
    /// The disk (or the process's file-size limit) is full: nothing of this write was kept,
    /// runs stored before are intact.
    #[error(
        "the database could not grow: the disk or the file-size limit is full ({0}); runs stored before are intact; free some space (or move --db elsewhere) and run again"
    )]
    Full(String),
    /// The database can be read but not written (the file, or its directory, where SQLite
    /// keeps its write-ahead log): found before a run measures, so nothing is lost to it.
    #[error(
        "the database cannot be written ({0}): a run would measure and then lose everything; make the file and its directory writable, or point --db / LATLAB_DB elsewhere"
    )]
    ReadOnly(String),
    /// The file is not a latlab database (or an empty one).
    #[error("not a latlab database (no schema version): was it written by `latlab`?")]
    NotLatlab,
    /// Stored data could not be decoded.
    #[error("stored data for run {run} is damaged: {what}")]
    Corrupt {
        /// Run id.
        run: i64,
        /// What was wrong.
        what: String,
    },
}

impl From<rusqlite::Error> for StoreError {
    /// A full disk is told apart from other failures: SQLite says `SQLITE_FULL` for a short
    /// write or ENOSPC, and an I/O error for a write refused outright (EFBIG past
    /// RLIMIT_FSIZE), which is checked against errno.
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ffi::ErrorCode;
        if let rusqlite::Error::SqliteFailure(f, _) = &e {
            let errno = std::io::Error::last_os_error().raw_os_error();
            let io_full =
                f.code == ErrorCode::SystemIoFailure && matches!(errno, Some(libc::ENOSPC) | Some(libc::EFBIG));
            if f.code == ErrorCode::DiskFull || io_full {
                return StoreError::Full(e.to_string());
            }
        }
        StoreError::Sqlite(e)
    }
}

/// One line of `latlab runs`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunListing {
    /// Run id.
    pub id: i64,
    /// Experiment name.
    pub experiment: String,
    /// Status.
    pub status: String,
    /// Start, ns since the Unix epoch.
    pub started_at_ns: i64,
    /// Duration in ns.
    pub duration_ns: i64,
    /// Number of metrics.
    pub metrics: i64,
    /// Number of stored samples over all series.
    pub samples: i64,
    /// Host name.
    pub hostname: Option<String>,
    /// The mode ("" when the experiment has one: `rt`, `doctor`, `x11`, `rdp`, …).
    pub mode: String,
    /// What was measured, when the run names it (`config.subject`: the application, the
    /// server, the client).
    pub subject: Option<String>,
}

/// An open database.
pub struct Store {
    conn: Connection,
}

const MIGRATIONS: &[&str] = &[
    // 0 → 1: the initial schema.
    r#"
    CREATE TABLE runs (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        experiment     TEXT    NOT NULL,
        status         TEXT    NOT NULL CHECK (status IN ('complete','interrupted','failed')),
        started_at_ns  INTEGER NOT NULL,
        ended_at_ns    INTEGER NOT NULL,
        latlab_version TEXT    NOT NULL,
        git_commit     TEXT,
        hostname       TEXT,
        machine        TEXT    NOT NULL,  -- JSON: record.machine
        capabilities   TEXT    NOT NULL,  -- JSON: record.capabilities
        config         TEXT    NOT NULL,  -- JSON: record.config
        tables_json    TEXT    NOT NULL,  -- JSON: record.tables
        warnings       TEXT    NOT NULL,  -- JSON: record.warnings
        paper          TEXT    NOT NULL   -- JSON: record.paper
    );
    CREATE INDEX runs_by_experiment ON runs(experiment, id);
    CREATE TABLE metrics (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq    INTEGER NOT NULL,
        name   TEXT    NOT NULL,
        value          NOT NULL,  -- no declared type (BLOB affinity): INTEGER or REAL kept as measured
        unit   TEXT    NOT NULL,
        PRIMARY KEY (run_id, name)
    );
    CREATE TABLE series (
        run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        name        TEXT    NOT NULL,
        unit        TEXT    NOT NULL,
        description TEXT    NOT NULL,
        encoding    TEXT    NOT NULL,
        count       INTEGER NOT NULL,
        data        BLOB    NOT NULL,
        PRIMARY KEY (run_id, name)
    );
    "#,
    // 1 → 2: status 'incomplete' (a run whose process died after a checkpoint). SQLite cannot
    // change a CHECK in place: the table is rebuilt (foreign keys are off during migrations).
    r#"
    CREATE TABLE runs_v2 (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        experiment     TEXT    NOT NULL,
        status         TEXT    NOT NULL CHECK (status IN ('complete','interrupted','failed','incomplete')),
        started_at_ns  INTEGER NOT NULL,
        ended_at_ns    INTEGER NOT NULL,
        latlab_version TEXT    NOT NULL,
        git_commit     TEXT,
        hostname       TEXT,
        machine        TEXT    NOT NULL,
        capabilities   TEXT    NOT NULL,
        config         TEXT    NOT NULL,
        tables_json    TEXT    NOT NULL,
        warnings       TEXT    NOT NULL,
        paper          TEXT    NOT NULL
    );
    INSERT INTO runs_v2 SELECT * FROM runs;
    DROP TABLE runs;
    ALTER TABLE runs_v2 RENAME TO runs;
    CREATE INDEX runs_by_experiment ON runs(experiment, id);
    "#,
    // 2 → 3: the windows of `latlab monitor`, appended as they close.
    r#"
    CREATE TABLE monitor_windows (
        run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        probe    TEXT    NOT NULL,
        start_ns INTEGER NOT NULL,  -- ns since the Unix epoch
        end_ns   INTEGER NOT NULL,
        state    TEXT    NOT NULL,  -- the schedule's state: idle, load or mixed
        count    INTEGER NOT NULL,
        sum_ns   INTEGER NOT NULL,
        min_ns   INTEGER NOT NULL,
        p50_ns   INTEGER NOT NULL,
        p99_ns   INTEGER NOT NULL,
        p999_ns  INTEGER NOT NULL,
        max_ns   INTEGER NOT NULL,
        missed   INTEGER NOT NULL,
        lost     INTEGER NOT NULL,
        buckets  BLOB    NOT NULL,  -- samples per bucket, delta-zigzag-leb128 like a series
        PRIMARY KEY (run_id, probe, start_ns)
    );
    "#,
    // 3 → 4: where an imported run came from (`latlab import`); the machine it was measured
    // on stays in runs.machine, as it was.
    r#"
    CREATE TABLE imported (
        run_id         INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        source         TEXT    NOT NULL,  -- the database file it was imported from, as given
        source_id      INTEGER NOT NULL,  -- its id there
        imported_at_ns INTEGER NOT NULL
    );
    "#,
    // 4 → 5: each monitor window's largest samples, the tail of the worst case per hour
    // (empty in windows stored before).
    r#"
    ALTER TABLE monitor_windows ADD COLUMN tops BLOB NOT NULL DEFAULT x'';
    "#,
];

impl Store {
    /// Open (creating if needed) the database file and bring its schema up to date.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let conn = Connection::open(path)?;
        // Before anything that takes a lock: another process may be writing.
        conn.busy_timeout(BUSY_TIMEOUT)?;
        wal::switch(&conn)?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Self::init(conn)
    }

    /// Whether a run could be stored here: the connection is not read-only (SQLite falls back
    /// to reading a file it may not write) and a write transaction can begin (its lock and its
    /// log file can be made). Writes nothing.
    pub fn check_writable(&self) -> Result<(), StoreError> {
        if self.conn.is_readonly(rusqlite::MAIN_DB)? {
            return Err(StoreError::ReadOnly("the file is read-only to this user".into()));
        }
        self.conn.execute_batch("BEGIN IMMEDIATE; ROLLBACK;").map_err(|e| match e {
            rusqlite::Error::SqliteFailure(f, m) if f.code == rusqlite::ffi::ErrorCode::ReadOnly => {
                StoreError::ReadOnly(m.unwrap_or_else(|| f.to_string()))
            }
            e => e.into(),
        })
    }

    /// Open another latlab's database to read it, never to change it (`latlab import`): no
    /// migration, no write; refused when written by a newer latlab.
    pub fn open_read_only(path: &Path) -> Result<Self, StoreError> {
        use rusqlite::OpenFlags;
        let conn =
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let store = Self { conn };
        let v = store.schema_version()?;
        if v > SCHEMA_VERSION {
            return Err(StoreError::TooNew(v));
        }
        if v == 0 {
            return Err(StoreError::NotLatlab);
        }
        Ok(store)
    }

    /// An in-memory database (tests).
    pub fn open_in_memory() -> Result<Self, StoreError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> Result<Self, StoreError> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // Off while migrating (the bundled SQLite turns them on by default): a table rebuilt
        // by a migration is dropped, and with foreign keys on that would cascade to every
        // run's metrics and series.
        conn.pragma_update(None, "foreign_keys", "OFF")?;
        let mut store = Self { conn };
        store.migrate()?;
        store.conn.pragma_update(None, "foreign_keys", "ON")?;
        Ok(store)
    }

    /// The schema version found in the file.
    pub fn schema_version(&self) -> Result<i32, StoreError> {
        Ok(self.conn.pragma_query_value(None, "user_version", |r| r.get(0))?)
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let v = self.schema_version()?;
        if v > SCHEMA_VERSION {
            return Err(StoreError::TooNew(v));
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(v as usize) {
            // IMMEDIATE: two processes opening a new database at once queue here, and the
            // second finds the step done.
            let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let now: i32 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
            if now as usize > i {
                continue;
            }
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", (i + 1) as i32)?;
            tx.commit()?;
        }
        Ok(())
    }

    /// Store a run in one transaction; returns its new id.
    pub fn insert(&mut self, run: &RunRecord) -> Result<i64, StoreError> {
        self.write(None, run)
    }

    /// Store a run in place of the one with id `id` (its checkpoint), in one transaction:
    /// the run row updated, its metrics and series replaced. With `None`, a new run.
    pub fn write(&mut self, id: Option<i64>, run: &RunRecord) -> Result<i64, StoreError> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let id = write_run(&tx, id, run)?;
        tx.commit()?;
        Ok(id)
    }

    /// A checkpointed run whose experiment then failed: status `failed`, the error added to its
    /// warnings; what the checkpoints stored stays.
    pub fn fail_incomplete(&mut self, id: i64, why: &str) -> Result<(), StoreError> {
        let mut rec = self.load(id)?;
        rec.warn(format!("the run failed after its last checkpoint: {why}"));
        rec.status = RunStatus::Failed;
        self.write(Some(id), &rec)?;
        Ok(())
    }
}

/// Write `run` (as new, or in place of `id`) inside `tx`: the run row, its metrics and series.
/// The key of `runs.config` that holds a run's mode: the store keeps the columns it always had,
/// so older latlab versions, imports and fleets read every database alike.
const MODE_KEY: &str = "experiment";

fn write_run(tx: &rusqlite::Transaction<'_>, id: Option<i64>, run: &RunRecord) -> Result<i64, StoreError> {
    let mut config = run.config.clone();
    if !run.mode.is_empty() {
        config.insert(MODE_KEY.into(), run.mode.clone().into());
    }
    let fields = params![
        run.experiment,
        run.status.as_str(),
        run.started_at_ns,
        run.ended_at_ns,
        run.latlab_version,
        run.git_commit,
        run.machine.info.hostname,
        js(&run.machine),
        js(&run.capabilities),
        js(&config),
        js(&run.tables),
        js(&run.warnings),
        js(&run.paper),
    ];
    let id = match id {
        None => {
            tx.execute(
                "INSERT INTO runs (experiment, status, started_at_ns, ended_at_ns, latlab_version, git_commit,
                                       hostname, machine, capabilities, config, tables_json, warnings, paper)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                fields,
            )?;
            tx.last_insert_rowid()
        }
        Some(id) => {
            let n = tx.execute(
                "UPDATE runs SET experiment = ?1, status = ?2, started_at_ns = ?3, ended_at_ns = ?4,
                            latlab_version = ?5, git_commit = ?6, hostname = ?7, machine = ?8,
                            capabilities = ?9, config = ?10, tables_json = ?11, warnings = ?12, paper = ?13
                     WHERE id = ?14",
                rusqlite::params_from_iter(fields.iter().copied().chain([&id as &dyn rusqlite::ToSql])),
            )?;
            if n == 0 {
                return Err(StoreError::NotFound(id.to_string()));
            }
            tx.execute("DELETE FROM metrics WHERE run_id = ?1", [id])?;
            tx.execute("DELETE FROM series WHERE run_id = ?1", [id])?;
            id
        }
    };
    {
        let mut m = tx.prepare("INSERT INTO metrics (run_id, seq, name, value, unit) VALUES (?1, ?2, ?3, ?4, ?5)")?;
        for (i, metric) in run.metrics.iter().enumerate() {
            let value: rusqlite::types::Value = match metric.value {
                Value::Int(v) => v.into(),
                Value::Float(v) => v.into(),
            };
            m.execute(params![id, i as i64, metric.name, value, metric.unit])?;
        }
        let mut s = tx.prepare(
            "INSERT INTO series (run_id, seq, name, unit, description, encoding, count, data)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        for (i, series) in run.series.iter().enumerate() {
            let data = encode_series(&series.values);
            s.execute(params![
                id,
                i as i64,
                series.name,
                series.unit,
                series.description,
                ENCODING_DELTA_VARINT,
                series.values.len() as i64,
                data
            ])?;
        }
    }
    Ok(id)
}

impl Store {
    /// Load a whole run, raw series included.
    pub fn load(&self, id: i64) -> Result<RunRecord, StoreError> {
        let corrupt = |what: String| StoreError::Corrupt { run: id, what };
        let row = self
            .conn
            .query_row(
                "SELECT experiment, status, started_at_ns, ended_at_ns, latlab_version, git_commit,
                        machine, capabilities, config, tables_json, warnings, paper
                 FROM runs WHERE id = ?1",
                [id],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, String>(4)?,
                        r.get::<_, Option<String>>(5)?,
                        [
                            r.get::<_, String>(6)?,
                            r.get::<_, String>(7)?,
                            r.get::<_, String>(8)?,
                            r.get::<_, String>(9)?,
                            r.get::<_, String>(10)?,
                            r.get::<_, String>(11)?,
                        ],
                    ))
                },
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(id.to_string()))?;
        let (experiment, status, started_at_ns, ended_at_ns, latlab_version, git_commit, j) = row;
        let de_err = |field: &str, e: serde_json::Error| corrupt(format!("{field}: {e}"));
        let mut config: std::collections::BTreeMap<String, serde_json::Value> =
            serde_json::from_str(&j[2]).map_err(|e| de_err("config", e))?;
        let mode = match config.remove(MODE_KEY) {
            Some(serde_json::Value::String(m)) => m,
            Some(other) => {
                config.insert(MODE_KEY.into(), other);
                String::new()
            }
            None => String::new(),
        };
        let mut rec = RunRecord {
            schema: latlab_model::record::SCHEMA.into(),
            id: Some(id),
            experiment,
            mode,
            status: RunStatus::parse(&status).ok_or_else(|| corrupt(format!("status '{status}'")))?,
            started_at_ns,
            ended_at_ns,
            latlab_version,
            git_commit,
            machine: serde_json::from_str(&j[0]).map_err(|e| de_err("machine", e))?,
            capabilities: serde_json::from_str(&j[1]).map_err(|e| de_err("capabilities", e))?,
            config,
            metrics: Vec::new(),
            tables: serde_json::from_str(&j[3]).map_err(|e| de_err("tables", e))?,
            series: Vec::new(),
            warnings: serde_json::from_str(&j[4]).map_err(|e| de_err("warnings", e))?,
            paper: serde_json::from_str(&j[5]).map_err(|e| de_err("paper", e))?,
        };
        let mut m = self.conn.prepare("SELECT name, value, unit FROM metrics WHERE run_id = ?1 ORDER BY seq")?;
        rec.metrics = m
            .query_map([id], |r| {
                let value = match r.get::<_, rusqlite::types::Value>(1)? {
                    rusqlite::types::Value::Integer(i) => Value::Int(i),
                    rusqlite::types::Value::Real(f) => Value::Float(f),
                    _ => Value::Float(f64::NAN),
                };
                Ok(Metric { name: r.get(0)?, value, unit: r.get(2)? })
            })?
            .collect::<Result<_, _>>()?;
        let mut s = self.conn.prepare(
            "SELECT name, unit, description, encoding, count, data FROM series WHERE run_id = ?1 ORDER BY seq",
        )?;
        let raw: Vec<(String, String, String, String, i64, Vec<u8>)> = s
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?
            .collect::<Result<_, _>>()?;
        for (name, unit, description, encoding, count, data) in raw {
            if encoding != ENCODING_DELTA_VARINT {
                return Err(corrupt(format!("series '{name}' has unknown encoding '{encoding}'")));
            }
            let values = decode_series(&data, count as usize).map_err(|e| corrupt(format!("series '{name}': {e}")))?;
            rec.series.push(Series { name, unit, description, values });
        }
        Ok(rec)
    }

    /// All runs, newest first.
    pub fn list(&self) -> Result<Vec<RunListing>, StoreError> {
        let mut q = self.conn.prepare(
            "SELECT r.id, r.experiment, r.status, r.started_at_ns, r.ended_at_ns - r.started_at_ns, r.hostname,
                    (SELECT COUNT(*) FROM metrics m WHERE m.run_id = r.id),
                    (SELECT COALESCE(SUM(count), 0) FROM series s WHERE s.run_id = r.id),
                    COALESCE(json_extract(r.config, '$.experiment'), ''),
                    json_extract(r.config, '$.subject')
             FROM runs r ORDER BY r.id DESC",
        )?;
        let rows = q
            .query_map([], |r| {
                Ok(RunListing {
                    id: r.get(0)?,
                    experiment: r.get(1)?,
                    status: r.get(2)?,
                    started_at_ns: r.get(3)?,
                    duration_ns: r.get(4)?,
                    hostname: r.get(5)?,
                    metrics: r.get(6)?,
                    samples: r.get(7)?,
                    mode: r.get(8)?,
                    subject: r.get::<_, Option<rusqlite::types::Value>>(9)?.and_then(|v| match v {
                        rusqlite::types::Value::Text(t) => Some(t),
                        rusqlite::types::Value::Null => None,
                        other => Some(format!("{other:?}")),
                    }),
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// The newest run of each experiment and mode on each host (runs imported from other
    /// machines are of their own hosts; a host is its machine id, else its name), in
    /// experiment-name order: `rt` and `rt doctor`, `display ops` and `display cache` are each
    /// shown.
    pub fn latest_per_experiment(&self) -> Result<Vec<i64>, StoreError> {
        let mut q = self.conn.prepare(
            "SELECT MAX(id) FROM runs
             GROUP BY experiment, COALESCE(json_extract(config, '$.experiment'), ''),
                      COALESCE(json_extract(machine, '$.info.machine_id'), hostname, '')
             ORDER BY experiment, MAX(id)",
        )?;
        let ids = q.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// Resolve a run reference: a numeric id, `latest`, or an experiment name (its newest run).
    pub fn resolve(&self, spec: &str) -> Result<i64, StoreError> {
        let found: Option<i64> = if let Ok(id) = spec.parse::<i64>() {
            self.conn.query_row("SELECT id FROM runs WHERE id = ?1", [id], |r| r.get(0)).optional()?
        } else if spec == "latest" {
            self.conn.query_row("SELECT MAX(id) FROM runs", [], |r| r.get(0))?
        } else if let Some((experiment, mode)) = spec.split_once(':') {
            // `rt:doctor`: the newest run of that mode.
            self.conn.query_row(
                "SELECT MAX(id) FROM runs WHERE experiment = ?1 AND COALESCE(json_extract(config, '$.experiment'), '') = ?2",
                [experiment, mode],
                |r| r.get(0),
            )?
        } else {
            // `rt`: its newest measurement in the experiment's own mode (not an `rt doctor`
            // run), else its newest run of any mode (`display`'s modes are all named).
            let own: Option<i64> = self.conn.query_row(
                "SELECT MAX(id) FROM runs WHERE experiment = ?1 AND json_extract(config, '$.experiment') IS NULL",
                [spec],
                |r| r.get(0),
            )?;
            match own {
                Some(id) => Some(id),
                None => self.conn.query_row("SELECT MAX(id) FROM runs WHERE experiment = ?1", [spec], |r| r.get(0))?,
            }
        };
        found.ok_or_else(|| StoreError::NotFound(spec.to_string()))
    }
}

/// JSON text of a record field for the JSON columns (cannot fail for our types).
fn js<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

mod series;
pub use series::{SeriesError, decode_all, decode_series, encode_series};
mod wal;
mod windows;
pub use windows::WindowRow;

#[cfg(test)]
mod tests;
