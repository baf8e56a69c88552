//! `latlab rt doctor`: the arguments into a `DoctorConfig`, run by the one runner with the
//! A/B engine of `latlab tune` (each costly setting's A/B stored as a `tune` run and judged on
//! its headline), which the doctor asks through its run's context.

use crate::cli::RtDoctorArgs;
use latlab_model::ab::{AbAsk, AbRunner, AbVerdict};
use latlab_model::error::BoxError;
use latlab_model::experiment::Experiment;
use latlab_output::tune::{Headline, judge, per_run};
use latlab_rt::doctor::run::{DoctorConfig, RtDoctor};
use latlab_rt::experiment::Rt;
use latlab_sys::remedy::Remedy;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub fn run(db: &Path, strict: bool, a: RtDoctorArgs) -> anyhow::Result<i32> {
    let cfg = DoctorConfig {
        cpu: a.cpu,
        measure: !a.no_measure,
        toggle: !a.no_toggle,
        only: a.only,
        phase_ns: a.duration,
        rounds: a.rounds,
        gaps_ns: a.gaps_for,
        json: a.json,
        strict,
    };
    let ab = StoreAb::<Rt> { db: db.to_path_buf(), remedies: latlab_rt::remedies::all };
    crate::runner::measure_with::<RtDoctor>(db, cfg, Some(Arc::new(ab)))
}

/// `latlab tune`'s A/B engine for experiment `E`'s remedies, as a run asks for it: the arms
/// run interleaved ([`crate::runner::ab`]), stored, the `tune` record stored, the headline
/// judged.
struct StoreAb<E: Experiment> {
    db: PathBuf,
    remedies: fn() -> Vec<Remedy<E::Config>>,
}

impl<E: Experiment> AbRunner for StoreAb<E> {
    fn ab(&self, ask: AbAsk) -> Result<AbVerdict, BoxError> {
        if ask.experiment != E::NAME {
            return Err(format!("this A/B engine runs {}'s remedies, not {}'s", E::NAME, ask.experiment).into());
        }
        let base = *ask.base.downcast::<E::Config>().map_err(|_| format!("not a configuration of {}", E::NAME))?;
        let remedy = (self.remedies)()
            .into_iter()
            .find(|r| r.about.name == ask.remedy)
            .ok_or_else(|| format!("{} is not a remedy of {}", ask.remedy, E::NAME))?;
        let (a_runs, b_runs) = crate::runner::ab::<E>(&self.db, ask.remedy, base, &remedy.arms, ask.rounds)?;
        let about = remedy.about;
        let mut rec = latlab_output::tune::ab_record(
            &super::tune::info(&about),
            &a_runs,
            &b_runs,
            &super::tune::headlines(&about),
        );
        rec.config(ask.note.0, &ask.note.1);
        rec.link_studies();
        let tune_run = crate::runner::save(&self.db, &mut rec)?;
        // A maximum is a metric with one value a run, judged in millionths of its unit.
        let (h, scale) = if ask.max {
            (Headline::lower_metric(&format!("{}.max", ask.headline), &ask.label), latlab_output::tune::PER_RUN_SCALE)
        } else {
            (Headline::lower(ask.headline, &ask.label), 1.0)
        };
        let ((unit, va), (_, vb)) = per_run(&a_runs, &h)
            .zip(per_run(&b_runs, &h))
            .ok_or_else(|| format!("the A/B's runs have no {}", h.series))?;
        let e = judge(&h, &unit, &va, &vb).ok_or_else(|| format!("no round has {} in both arms", h.series))?;
        Ok(AbVerdict {
            as_found: e.p99.a / scale,
            remedied: e.p99.b / scale,
            diff: e.p99.diff / scale,
            lo: e.p99.lo / scale,
            hi: e.p99.hi / scale,
            effect: e.p99.effect.as_str().into(),
            tune_run: Some(tune_run),
        })
    }
}
