//! `latlab rt doctor`: read the machine (`latlab_rt::doctor`), run the gap detector on the
//! measured CPU (`latlab_rt::hwlat`), measure each costly setting latlab can toggle with an A/B
//! of its `latlab tune` remedy (stored as a tune run), rank the findings worst first, store
//! them as an `rt doctor` run and print them (or `--json`).

use crate::cli::RtDoctorArgs;
use crate::runner::{out, save, usage};
use latlab_model::record::RunStatus;
use latlab_output::tune::{Headline, judge, per_run};
use latlab_rt::doctor::{self, Cost, Finding, Severity, Stat};
use latlab_rt::experiment::Rt;
use latlab_rt::hwlat::{self, Detector, GapRun};
use latlab_sys::record::Finish;
use std::path::Path;

pub fn run(db: &Path, strict: bool, a: RtDoctorArgs) -> anyhow::Result<i32> {
    let ncpu = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let cpu = a.cpu.or_else(latlab_rt::config::default_cpu).unwrap_or(0);
    if cpu >= ncpu {
        return Err(usage(format!("CPU {cpu} does not exist (this machine has CPUs 0–{})", ncpu - 1)).into());
    }
    latlab_output::tune::check_rounds(a.rounds).map_err(usage)?;
    // Read before anything of latlab's holds it.
    let dma = doctor::dma_latency_now();
    let info = latlab_sys::machine::info();
    crate::runner::install_interrupt()?;
    let gaps = (!a.no_measure).then(|| {
        eprintln!(
            "doctor: gap detector on CPU {cpu} for {:.1} s (busy {} ms of every {} ms, gaps over {} µs)",
            a.gaps_for as f64 / 1e9,
            latlab_rt::defaults::HWLAT_WIDTH_NS / 1_000_000,
            latlab_rt::defaults::HWLAT_WINDOW_NS / 1_000_000,
            latlab_rt::defaults::HWLAT_THRESHOLD_NS / 1000
        );
        hwlat::run(
            &Detector {
                cpu,
                seconds_ns: a.gaps_for,
                window_ns: latlab_rt::defaults::HWLAT_WINDOW_NS,
                width_ns: latlab_rt::defaults::HWLAT_WIDTH_NS,
                threshold_ns: latlab_rt::defaults::HWLAT_THRESHOLD_NS,
            },
            &|p| std::fs::read_to_string(p).ok(),
        )
    });
    let mut rec = latlab_sys::record::begin("rt");
    rec.mode = "doctor".into();
    rec.config("cpu", cpu);
    rec.config("measured", !a.no_measure);
    let mut findings = doctor::inspect(&doctor::System, &info, cpu, dma, gaps.as_ref());
    let toggles: Vec<&str> = findings.iter().filter_map(|f| f.toggle.map(|_| f.key)).collect();
    if let Some(k) = a.only.iter().find(|k| !toggles.contains(&k.as_str())) {
        return Err(usage(format!("--only {k}: not a finding latlab can toggle; one of {}", toggles.join(", "))).into());
    }
    let chosen = |f: &Finding| a.only.is_empty() || a.only.iter().any(|k| k == f.key);
    if !a.no_measure && !a.no_toggle {
        let todo = findings.iter().filter(|f| f.toggle.is_some() && f.severity != Severity::Fine && chosen(f)).count();
        let mut done = 0;
        for f in findings.iter_mut() {
            if f.toggle.is_none() || f.severity == Severity::Fine {
                continue;
            }
            if !chosen(f) {
                f.not_measured = Some("not in --only".into());
                continue;
            }
            if latlab_sys::interrupt::stop_requested() {
                f.not_measured = Some("stopped (Ctrl-C)".into());
                continue;
            }
            done += 1;
            eprintln!("doctor: measuring {} ({done} of {todo})", f.title);
            match measure(db, strict, f, cpu, &a) {
                Ok(c) => f.cost = Some(c),
                Err(e) => {
                    let why = format!("{e:#}");
                    rec.warn(format!("{}: not measured: {why}", f.title));
                    f.not_measured = Some(why);
                }
            }
        }
    } else {
        for f in findings.iter_mut().filter(|f| f.toggle.is_some() && f.severity != Severity::Fine) {
            f.not_measured.get_or_insert_with(|| if a.no_measure { "--no-measure" } else { "--no-toggle" }.into());
        }
    }
    doctor::rank(&mut findings);
    doctor::record(&mut rec, &findings, gaps.as_ref());
    let interrupted = latlab_sys::interrupt::stop_requested();
    rec.finish(if interrupted { RunStatus::Interrupted } else { RunStatus::Complete });
    let id = save(db, &mut rec)?;
    if a.json {
        out(&format!("{}\n", json(cpu, id, &findings, gaps.as_ref())))?;
    } else {
        out(&format!("latlab rt doctor, CPU {cpu} (run #{id}): worst first\n\n{}", doctor::text(&findings)))?;
    }
    Ok(crate::runner::status_code(&rec))
}

/// The findings as `--json` prints them.
fn json(cpu: usize, run: i64, findings: &[Finding], gaps: Option<&GapRun>) -> serde_json::Value {
    serde_json::json!({ "cpu": cpu, "run": run, "findings": findings, "gaps": gaps })
}

/// A finding's A/B: its remedy against the machine as found, on `latlab rt` with the doctor's
/// phases, the CPU and the finding's own options; stored as a tune run; the cost read from
/// its headline's p99 or maximum.
fn measure(db: &Path, strict: bool, f: &Finding, cpu: usize, a: &RtDoctorArgs) -> anyhow::Result<Cost> {
    let t = f.toggle.expect("only toggles are measured");
    let remedy = latlab_rt::remedies::all()
        .into_iter()
        .find(|r| r.about.name == t.remedy)
        .ok_or_else(|| anyhow::anyhow!("{} is not a remedy of rt", t.remedy))?;
    let base = t.config(cpu, a.duration, strict);
    <Rt as latlab_model::experiment::Experiment>::validate(&base).map_err(usage)?;
    let (a_runs, b_runs) = crate::runner::ab::<Rt>(db, t.remedy, base, &remedy.arms, a.rounds)?;
    let about = remedy.about;
    let mut ab =
        latlab_output::tune::ab_record(&super::tune::info(&about), &a_runs, &b_runs, &super::tune::headlines(&about));
    ab.config("doctor.finding", f.key);
    ab.link_studies();
    let tune_run = save(db, &mut ab)?;
    let label = about.headlines.iter().find(|(s, _)| *s == t.headline).map_or(t.headline, |x| x.1);
    // A maximum is a metric with one value a run, judged in millionths of its unit.
    let (h, scale) = match t.stat {
        Stat::P99 => (Headline::lower(t.headline, label), 1.0),
        Stat::Max => {
            (Headline::lower_metric(&format!("{}.max", t.headline), label), latlab_output::tune::PER_RUN_SCALE)
        }
    };
    let ((unit, va), (_, vb)) = per_run(&a_runs, &h)
        .zip(per_run(&b_runs, &h))
        .ok_or_else(|| anyhow::anyhow!("the A/B's runs have no {}", h.series))?;
    let e = judge(&h, &unit, &va, &vb).ok_or_else(|| anyhow::anyhow!("no round has {} in both arms", h.series))?;
    Ok(Cost {
        headline: label.into(),
        stat: t.stat,
        as_found_ns: e.p99.a / scale,
        remedied_ns: e.p99.b / scale,
        diff_ns: e.p99.diff / scale,
        lo_ns: e.p99.lo / scale,
        hi_ns: e.p99.hi / scale,
        effect: e.p99.effect.as_str().into(),
        tune_run: Some(tune_run),
    })
}
