//! The one runner every experiment goes through ([`measure`]: validation, Ctrl-C, progress,
//! storing, printing, exit code), and what the subcommands share: opening the store, saving a
//! run, printing to stdout so that a closed pipe ends quietly, a usage error.

use anyhow::Context;
use latlab_model::checkpoint::Checkpoint;
use latlab_model::experiment::{Experiment, RunContext};
use latlab_model::record::{RunRecord, RunStatus};
use latlab_output::progress::Progress;
use latlab_output::store::Store;
use std::path::Path;

/// An invalid configuration or command line: exit code 2 (`ExperimentError::exit_code`).
pub fn usage(why: String) -> latlab_model::experiment::ExperimentError {
    latlab_model::experiment::ExperimentError::Config(why)
}

/// Run experiment `E` with `cfg` the way every measuring subcommand does: check the
/// configuration (exit 2), say what runs, install the Ctrl-C handler, show progress, store
/// every record, print their Markdown (or the run's own text), and return the exit code for
/// their status.
pub(crate) fn measure<E: Experiment>(db: &Path, cfg: E::Config) -> anyhow::Result<i32> {
    E::validate(&cfg).map_err(usage)?;
    install_interrupt()?;
    eprintln!("{}", E::announce(&cfg));
    let label = if E::MODE.is_empty() { E::NAME.to_string() } else { format!("{} {}", E::NAME, E::MODE) };
    let steps = E::steps(&cfg);
    let progress = (steps > 0).then(|| Progress::new(&label, steps));
    let ckpt = checkpoint(db);
    let ctx = RunContext {
        progress: progress.as_ref().map(Progress::counter).unwrap_or_default(),
        checkpoint: ckpt.clone(),
        runs: Some(std::sync::Arc::new(std::sync::Mutex::new(open_store(db)?))),
    };
    let result = latlab_model::experiment::run::<E>(&cfg, &ctx);
    if let Some(p) = progress {
        p.finish();
    }
    let outcome = match result {
        Ok(o) => o,
        Err(e) => {
            // The checkpointed row keeps what was measured, marked as the failure it was.
            if let Some(id) = ckpt.id() {
                let _ = open_store(db).and_then(|mut s| Ok(s.fail_incomplete(id, &e.chain_text())?));
            }
            return Err(e.into());
        }
    };
    let mut code = crate::exit::OK;
    let mut text = outcome.preface.map(|p| format!("{p}\n\n")).unwrap_or_default();
    let mut checkpointed = ckpt.id();
    for mut rec in outcome.records {
        // A record the run wrote itself (through `ctx.runs`) replaces its row; the first record
        // of the checkpointed experiment replaces its checkpoint's.
        let replaces = rec.id.or_else(|| if rec.experiment == E::NAME { checkpointed.take() } else { None });
        save_over(db, replaces, &mut rec)?;
        text.push_str(&latlab_output::export::markdown(&rec));
        code = code.max(status_code(&rec));
    }
    out(outcome.stdout.as_deref().unwrap_or(&text))?;
    Ok(code)
}

/// Set `--checkpoint` (once; the first call wins).
pub fn set_checkpoint(secs: f64) {
    let _ = CHECKPOINT_SECS.set(secs);
}

/// `--checkpoint`, set once by [`dispatch`] or an experiment's own subcommand.
static CHECKPOINT_SECS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();

/// The checkpoint handle for a measuring command's run into `db`.
fn checkpoint(db: &Path) -> Checkpoint {
    let secs = CHECKPOINT_SECS.get().copied().unwrap_or(latlab_output::defaults::CHECKPOINT_SECS);
    latlab_output::checkpoint::to_database(db, std::time::Duration::from_secs_f64(secs))
}

/// Open the database, creating it if needed.
pub fn open_store(db: &Path) -> anyhow::Result<Store> {
    Store::open(db).with_context(|| format!("cannot open the database '{}'", db.display()))
}

/// Open an existing database (read commands never create an empty one by accident).
pub fn open_existing(db: &Path) -> anyhow::Result<Store> {
    if !db.exists() {
        anyhow::bail!(
            "no database at '{}': run `latlab suite` or `latlab selftest` first, or point --db / LATLAB_DB at one",
            db.display()
        );
    }
    open_store(db)
}

/// Store a finished run and say so on stderr; returns its id.
pub fn save(db: &Path, rec: &mut RunRecord) -> anyhow::Result<i64> {
    save_over(db, None, rec)
}

/// [`save`] in place of a checkpointed run (`replaces`), or as a new one.
fn save_over(db: &Path, replaces: Option<i64>, rec: &mut RunRecord) -> anyhow::Result<i64> {
    let mut store = open_store(db)?;
    let id = store
        .write(replaces, rec)
        .with_context(|| format!("cannot store the {} run in '{}'", rec.experiment, db.display()))?;
    rec.id = Some(id);
    let note = match rec.status {
        RunStatus::Complete => String::new(),
        s => format!(" ({}: kept what was measured)", s.as_str()),
    };
    eprintln!("stored {} run #{id} in {}{note}", rec.experiment, db.display());
    Ok(id)
}

/// Print to stdout, propagating errors (a closed pipe becomes a quiet exit in main).
pub fn out(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes())?;
    o.flush()?;
    Ok(())
}

/// Install the Ctrl-C handler for a measuring command.
pub fn install_interrupt() -> anyhow::Result<()> {
    latlab_sys::interrupt::install().map_err(anyhow::Error::msg)
}

/// Exit code for a stored run.
pub fn status_code(rec: &RunRecord) -> i32 {
    rec.status.exit_code()
}
