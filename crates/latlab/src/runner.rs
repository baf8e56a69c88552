//! The one runner every experiment goes through ([`measure`]: validation, Ctrl-C, progress,
//! storing, printing, exit code), and what the subcommands share: opening the store, saving a
//! run, printing to stdout so that a closed pipe ends quietly, a usage error.

use anyhow::Context;
use latlab_model::checkpoint::Checkpoint;
use latlab_model::experiment::{Experiment, RunContext};
use latlab_model::record::{RunRecord, RunStatus};
use latlab_output::progress::Progress;
use latlab_output::store::Store;
use latlab_sys::remedy::Arms;
use std::path::Path;

/// An invalid configuration or command line: exit code 2 (`ExperimentError::exit_code`).
pub fn usage(why: impl Into<latlab_model::ConfigError>) -> latlab_model::experiment::ExperimentError {
    latlab_model::experiment::ExperimentError::Config(why.into())
}

/// Run experiment `E` with `cfg` the way every measuring subcommand does: check the
/// configuration (exit 2), say what runs, install the Ctrl-C handler, show progress, store
/// every record, print their Markdown (or the run's own text), and return the exit code for
/// their status.
pub(crate) fn measure<E: Experiment>(db: &Path, cfg: E::Config) -> anyhow::Result<i32> {
    measure_with::<E>(db, cfg, None)
}

/// [`measure`], giving the run an A/B engine (`rt doctor` measures each setting it finds).
pub(crate) fn measure_with<E: Experiment>(
    db: &Path,
    cfg: E::Config,
    ab: Option<std::sync::Arc<dyn latlab_model::ab::AbRunner>>,
) -> anyhow::Result<i32> {
    E::validate(&cfg).map_err(usage)?;
    // Before anything is measured: a database that cannot take the run would lose it at the end.
    open_store(db)?.check_writable().with_context(|| format!("cannot store runs in '{}'", db.display()))?;
    install_interrupt()?;
    eprintln!("{}", E::announce(&cfg));
    let label = if E::MODE.is_empty() { E::NAME.to_string() } else { format!("{} {}", E::NAME, E::MODE) };
    let steps = E::steps(&cfg);
    let progress = (steps > 0).then(|| Progress::new(&label, steps));
    let ckpt = checkpoint(db);
    let ctx = RunContext {
        progress: progress.as_ref().map(Progress::counter).unwrap_or_default(),
        checkpoint: ckpt.clone(),
        runs: Some(latlab_output::checkpoint::run_sink(db)),
        ab,
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
        let verdict = if rec.experiment == E::NAME { E::verdict(&rec) } else { None };
        let lead = latlab_output::export::Lead { headlines: E::HEADLINE, verdict, every_metric: verbose() };
        text.push_str(&latlab_output::export::markdown_led(&rec, &lead));
        code = code.max(status_code(&rec));
    }
    out(outcome.stdout.as_deref().unwrap_or(&text))?;
    Ok(code)
}

/// Set `--checkpoint` (once; the first call wins).
pub fn set_checkpoint(secs: f64) {
    let _ = CHECKPOINT_SECS.set(secs);
}

/// Set `--verbose` (once; the first call wins): a measuring command's summary lists every metric.
pub fn set_verbose(on: bool) {
    let _ = VERBOSE.set(on);
}

/// `--verbose`, set once by [`dispatch`] or an experiment's own subcommand.
static VERBOSE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

fn verbose() -> bool {
    VERBOSE.get().copied().unwrap_or(false)
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
    Ok(latlab_sys::interrupt::install()?)
}

/// Exit code for a stored run.
pub fn status_code(rec: &RunRecord) -> i32 {
    rec.status.exit_code()
}

/// `latlab tune`'s runner: run `rounds` pairs of experiment `E`: the baseline and the remedy (with its machine
/// change applied for that run only), in A B, B A, A B … order. Every run is stored, marked with its arm and round.
pub fn ab<E: Experiment>(
    db: &Path,
    remedy: &str,
    base: E::Config,
    arms: &Arms<E::Config>,
    rounds: usize,
) -> anyhow::Result<(Vec<RunRecord>, Vec<RunRecord>)> {
    let (mut a, b) = (base.clone(), base);
    (arms.baseline)(&mut a);
    E::validate(&a).map_err(usage)?;
    // Refused before anything is measured: apply the remedy once and undo it at once, so a
    // missing requirement (root, a controller, a kernel) stops the A/B before its first run.
    let (undo, _) =
        (arms.remedy)(&mut b.clone()).with_context(|| format!("the remedy {remedy} cannot be applied here"))?;
    let errors = undo.undo();
    if !errors.is_empty() {
        anyhow::bail!("trying the remedy {remedy}: it could not be undone cleanly: {}", errors.join("; "));
    }
    install_interrupt()?;
    eprintln!("tune {remedy}: {rounds} rounds of baseline then remedy; {}", E::announce(&a));
    let steps = E::steps(&a) * 2 * rounds as u64;
    let progress = (steps > 0).then(|| Progress::new(&format!("tune {remedy}"), steps));
    let ctx =
        RunContext { progress: progress.as_ref().map(Progress::counter).unwrap_or_default(), ..Default::default() };
    let (mut a_runs, mut b_runs) = (Vec::new(), Vec::new());
    let result = (|| -> anyhow::Result<()> {
        for round in 1..=rounds {
            // A B, then B A: interleaved, and each arm goes first as often as the other, so
            // neither a linear drift nor running second (warm caches, a settled CPU
            // frequency) favours one arm.
            let order = if round % 2 == 1 { ["baseline", "remedy"] } else { ["remedy", "baseline"] };
            for arm in order {
                if latlab_sys::interrupt::stop_requested() {
                    return Ok(());
                }
                let mut cfg = if arm == "baseline" { a.clone() } else { b.clone() };
                let applied = if arm == "remedy" {
                    Some((arms.remedy)(&mut cfg).with_context(|| format!("applying the remedy {remedy}"))?)
                } else {
                    None
                };
                let outcome = latlab_model::experiment::run::<E>(&cfg, &ctx);
                // Undo before anything else can fail: the machine is put back first.
                let (what, undo_errors) = match applied {
                    Some((undo, what)) => (what, undo.undo()),
                    None => (String::new(), Vec::new()),
                };
                for mut rec in outcome?.records {
                    rec.config("tune.remedy", remedy);
                    rec.config("tune.arm", arm);
                    rec.config("tune.round", round);
                    if !what.is_empty() {
                        rec.config("tune.change", &what);
                    }
                    for e in &undo_errors {
                        rec.warn(format!("the machine was not fully put back: {e}"));
                    }
                    save(db, &mut rec)?;
                    if arm == "baseline" { &mut a_runs } else { &mut b_runs }.push(rec);
                }
                if !undo_errors.is_empty() {
                    anyhow::bail!("undoing {remedy} failed: {}", undo_errors.join("; "));
                }
            }
        }
        Ok(())
    })();
    if let Some(p) = progress {
        p.finish();
    }
    result?;
    Ok((a_runs, b_runs))
}
