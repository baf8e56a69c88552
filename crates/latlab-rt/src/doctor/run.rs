//! `latlab rt doctor` under the experiment contract: its configuration, checked before
//! anything is measured (the CPU, the rounds, `--only` against the toggles this machine has);
//! the gap detector on the measured CPU; each costly toggle's A/B, asked of the runner
//! (`RunContext::ab`, which stores it as a `tune` run); the doctor's own run written when it
//! starts and after each measurement, so a kill keeps what was found; Ctrl-C leaves the rest
//! unmeasured and the run `interrupted`.

use super::{Cost, Finding, Severity, Stat};
use crate::hwlat::{self, Detector, GapRun};
use latlab_model::ab::AbAsk;
use latlab_model::experiment::{Experiment, ExperimentError, Outcome, RunContext};
use latlab_model::record::{RunRecord, RunStatus};
use latlab_sys::record::Finish;
use std::sync::atomic::Ordering;

/// What `latlab rt doctor` does.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DoctorConfig {
    /// The CPU examined and measured on (none: the last, where `rt` pins).
    pub cpu: Option<usize>,
    /// Run the gap detector and the A/Bs (false: only read the machine).
    pub measure: bool,
    /// Run the A/Bs of the toggles (false: the gap detector only).
    pub toggle: bool,
    /// Only these findings' toggles are measured (empty: all).
    pub only: Vec<String>,
    /// Each `latlab rt` phase of a toggle's A/B, ns.
    pub phase_ns: u64,
    /// Rounds of each A/B.
    pub rounds: usize,
    /// The gap detector's run, ns.
    pub gaps_ns: u64,
    /// Print the findings as JSON instead of the list.
    pub json: bool,
    /// `--strict`: a refused capability ends an A/B's runs.
    pub strict: bool,
}

impl Default for DoctorConfig {
    fn default() -> Self {
        Self {
            cpu: None,
            measure: true,
            toggle: true,
            only: Vec::new(),
            phase_ns: crate::defaults::DOCTOR_PHASE_NS,
            rounds: crate::defaults::DOCTOR_ROUNDS,
            gaps_ns: crate::defaults::HWLAT_NS,
            json: false,
            strict: false,
        }
    }
}

impl DoctorConfig {
    /// The CPU examined.
    pub fn cpu(&self) -> usize {
        self.cpu.or_else(crate::config::default_cpu).unwrap_or(0)
    }
}

/// What on this machine spoils wake-up latency, each finding tied to a measurement.
pub struct RtDoctor;

impl Experiment for RtDoctor {
    type Config = DoctorConfig;
    const NAME: &'static str = "rt";
    const MODE: &'static str = "doctor";
    const DOCS: &'static str = "docs/experiments/rt.md";
    const ABOUT: &'static str = "what on this machine spoils wake-up latency, each costly setting measured by an A/B";

    fn suite_configs(_strict: bool) -> Vec<DoctorConfig> {
        // Minutes of A/Bs: a diagnosis asked for, not a suite entry.
        Vec::new()
    }

    fn validate(cfg: &DoctorConfig) -> Result<(), latlab_model::ConfigError> {
        let ncpu = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let cpu = cfg.cpu();
        if cpu >= ncpu {
            return Err(format!("CPU {cpu} does not exist (this machine has CPUs 0–{})", ncpu - 1).into());
        }
        if cfg.gaps_ns == 0 {
            return Err("--gaps-for: give a time above 0".into());
        }
        latlab_model::ab::check_rounds(cfg.rounds)
    }

    fn steps(_: &DoctorConfig) -> u64 {
        // The gap detector, then each check's finding (measured or not).
        1 + super::checks::ALL.len() as u64
    }

    fn announce(cfg: &DoctorConfig) -> String {
        let what = match (cfg.measure, cfg.toggle) {
            (false, _) => "reads the machine (no measurement)".to_string(),
            (true, false) => {
                format!("reads the machine and runs the gap detector for {:.1} s", cfg.gaps_ns as f64 / 1e9)
            }
            (true, true) => format!(
                "reads the machine, runs the gap detector for {:.1} s, then an A/B of each costly setting it can toggle ({} rounds of {:.1}-s phases)",
                cfg.gaps_ns as f64 / 1e9,
                cfg.rounds,
                cfg.phase_ns as f64 / 1e9
            ),
        };
        format!("rt doctor on CPU {}: {what}", cfg.cpu())
    }

    fn run(cfg: &DoctorConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        let cpu = cfg.cpu();
        // Read before anything of latlab's holds it.
        let dma = super::dma_latency_now();
        let info = latlab_sys::machine::info();
        // `--only` names toggles this machine has: checked before anything is measured.
        let toggles: Vec<&str> = super::inspect(&super::System, &info, cpu, dma, None)
            .iter()
            .filter_map(|f| f.toggle.map(|_| f.key))
            .collect();
        if let Some(k) = cfg.only.iter().find(|k| !toggles.contains(&k.as_str())) {
            return Err(ExperimentError::Config(
                format!("--only {k}: not a finding latlab can toggle; one of {}", toggles.join(", ")).into(),
            ));
        }
        let mut rec = latlab_sys::record::begin(RtDoctor::NAME);
        rec.mode = RtDoctor::MODE.into();
        rec.config("cpu", cpu);
        rec.config("measured", cfg.measure);
        // The run's own row from the start, rewritten as it goes.
        let mut id = None;
        store_so_far(ctx, &mut id, &rec, &[], None);
        let gaps = cfg.measure.then(|| {
            eprintln!(
                "doctor: gap detector on CPU {cpu} for {:.1} s (busy {} ms of every {} ms, gaps over {} µs)",
                cfg.gaps_ns as f64 / 1e9,
                crate::defaults::HWLAT_WIDTH_NS / 1_000_000,
                crate::defaults::HWLAT_WINDOW_NS / 1_000_000,
                crate::defaults::HWLAT_THRESHOLD_NS / 1000
            );
            hwlat::run(
                &Detector {
                    cpu,
                    seconds_ns: cfg.gaps_ns,
                    window_ns: crate::defaults::HWLAT_WINDOW_NS,
                    width_ns: crate::defaults::HWLAT_WIDTH_NS,
                    threshold_ns: crate::defaults::HWLAT_THRESHOLD_NS,
                },
                &|p| std::fs::read_to_string(p).ok(),
            )
        });
        ctx.progress.fetch_add(1, Ordering::Relaxed);
        let mut findings = super::inspect(&super::System, &info, cpu, dma, gaps.as_ref());
        store_so_far(ctx, &mut id, &rec, &findings, gaps.as_ref());
        let chosen = |f: &Finding| cfg.only.is_empty() || cfg.only.iter().any(|k| k == f.key);
        let todo = findings.iter().filter(|f| f.toggle.is_some() && f.severity != Severity::Fine && chosen(f)).count();
        let mut done = 0;
        for i in 0..findings.len() {
            let f = &mut findings[i];
            if f.toggle.is_some() && f.severity != Severity::Fine {
                if !cfg.measure || !cfg.toggle {
                    f.not_measured = Some(if cfg.measure { "--no-toggle" } else { "--no-measure" }.into());
                } else if !chosen(f) {
                    f.not_measured = Some("not in --only".into());
                } else if latlab_sys::interrupt::stop_requested() {
                    f.not_measured = Some("stopped (Ctrl-C)".into());
                } else {
                    done += 1;
                    eprintln!("doctor: measuring {} ({done} of {todo})", f.title);
                    match measure(ctx, cfg, f, cpu) {
                        Ok(c) => f.cost = Some(c),
                        Err(e) => {
                            let why = e.chain_text();
                            rec.warn(format!("{}: not measured: {why}", f.title));
                            f.not_measured = Some(why);
                        }
                    }
                    store_so_far(ctx, &mut id, &rec, &findings, gaps.as_ref());
                }
            }
            ctx.progress.fetch_add(1, Ordering::Relaxed);
        }
        super::rank(&mut findings);
        super::record(&mut rec, &findings, gaps.as_ref());
        rec.finish(if latlab_sys::interrupt::stop_requested() { RunStatus::Interrupted } else { RunStatus::Complete });
        rec.id = id;
        let run = id.map_or("not stored".to_string(), |i| format!("run #{i}"));
        let stdout = if cfg.json {
            format!("{}\n", serde_json::json!({ "cpu": cpu, "run": id, "findings": findings, "gaps": gaps }))
        } else {
            format!("latlab rt doctor, CPU {cpu} ({run}): worst first\n\n{}", super::text(&findings))
        };
        Ok(Outcome { records: vec![rec], stdout: Some(stdout), preface: None })
    }
}

/// Write the run so far (the findings ranked, status `incomplete`) to the runner's store, when
/// it gave one; the row's id is kept in `id`. A failed write is said and the run goes on.
fn store_so_far(ctx: &RunContext, id: &mut Option<i64>, rec: &RunRecord, findings: &[Finding], gaps: Option<&GapRun>) {
    let Some(runs) = &ctx.runs else { return };
    let mut partial = rec.clone();
    let mut ranked = findings.to_vec();
    super::rank(&mut ranked);
    super::record(&mut partial, &ranked, gaps);
    partial.finish(RunStatus::Incomplete);
    match runs.lock().unwrap_or_else(|p| p.into_inner()).write(*id, &partial) {
        Ok(i) => *id = Some(i),
        Err(e) => eprintln!("doctor: the run so far was not stored ({e}); the run goes on"),
    }
}

/// A finding's A/B: its remedy against the machine as found, on `latlab rt` with the doctor's
/// phases, the CPU and the finding's own change; the cost read from its headline's p99 or
/// each run's maximum.
fn measure(ctx: &RunContext, cfg: &DoctorConfig, f: &Finding, cpu: usize) -> Result<Cost, ExperimentError> {
    let t = f.toggle.expect("only toggles are measured");
    let ab = ctx.ab.as_ref().ok_or_else(|| ExperimentError::failed("the runner gives no A/B engine here"))?;
    let about = crate::remedies::all()
        .into_iter()
        .find(|r| r.about.name == t.remedy)
        .map(|r| r.about)
        .ok_or_else(|| ExperimentError::failed(format!("{} is not a remedy of rt", t.remedy)))?;
    let label = about.headlines.iter().find(|(s, _)| *s == t.headline).map_or(t.headline, |x| x.1);
    let base = t.config(cpu, cfg.phase_ns, cfg.strict);
    crate::experiment::Rt::validate(&base).map_err(ExperimentError::Config)?;
    let v = ab
        .ab(AbAsk {
            experiment: crate::experiment::Rt::NAME,
            remedy: t.remedy,
            base: Box::new(base),
            rounds: cfg.rounds,
            headline: t.headline,
            label: label.into(),
            max: t.stat == Stat::Max,
            note: ("doctor.finding", f.key.into()),
        })
        .map_err(ExperimentError::Failed)?;
    Ok(Cost {
        headline: label.into(),
        stat: t.stat,
        as_found_ns: v.as_found,
        remedied_ns: v.remedied,
        diff_ns: v.diff,
        lo_ns: v.lo,
        hi_ns: v.hi,
        effect: v.effect,
        tune_run: v.tune_run,
    })
}
