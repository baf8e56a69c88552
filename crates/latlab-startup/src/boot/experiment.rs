//! `latlab boot analyze` (a trace file, a stored measured boot, or in the suite this
//! machine's own boot beside the reader's check on seed 004's excerpt) and `latlab boot
//! measure` as [`Experiment`]s.

use crate::boot::analyze::{SAMPLE_XPERF, analyze, parse, record};
use crate::defaults as d;
use crate::experiment::{BuiltinRun, check_counts};
use crate::measure::describe_fixture;
use latlab_model::experiment::{Experiment, ExperimentError, Outcome, RunContext};
use latlab_model::figure::Figure;
use latlab_model::record::RunRecord;
use std::path::PathBuf;

/// `latlab boot analyze`: a boot trace file, or (the suite) this machine's own boot.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct BootFile {
    /// The trace; `None`: this machine's boot from `systemd-analyze critical-chain`, and where there
    /// is none, the bundled xperf excerpt of seed 004's trace as a check of the parser.
    pub file: Option<PathBuf>,
    /// Instead of a file: a stored `boot measure` run (its id and record) to analyse; stored
    /// as the run's id.
    #[serde(rename = "measured_run", serialize_with = "run_id")]
    pub measured: Option<(i64, latlab_model::record::RunRecord)>,
}

/// A stored run given as input, in a record: its id.
fn run_id<S: serde::Serializer>(m: &Option<(i64, latlab_model::record::RunRecord)>, s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&m.as_ref().map(|(id, _)| *id), s)
}

/// This machine's boot as `systemd-analyze critical-chain` prints it (the default target's
/// time: a span, as the seed's autoStartDuration is, where blame's per-unit times would be
/// summed across units that start in parallel), or why there is none.
fn this_machines_boot() -> Result<String, crate::learn::StartupError> {
    let out = std::process::Command::new("systemd-analyze")
        .arg("critical-chain")
        .output()
        .map_err(|e| crate::learn::StartupError::failed("no systemd-analyze here", e))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() || text.trim().is_empty() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(crate::learn::StartupError::Needs(format!(
            "systemd-analyze critical-chain found no boot to read ({})",
            err.lines().next().unwrap_or("no output").trim()
        )));
    }
    Ok(text)
}

/// The row that checks latlab's xperf reader on seed 004's own excerpt: the figures read back
/// must be the seed's (4,614 ms of auto-start, PlugPlay 621 ms). A check, not a measurement:
/// it is never counted as reproduced, and a reader that gets other figures shows as differing.
fn reader_check_row() -> latlab_model::record::PaperRow {
    use latlab_model::verdict::Judgement;
    let got = parse(SAMPLE_XPERF).map(|t| analyze(&t));
    let (ms, plugplay) = match &got {
        Ok(a) => (a.autostart_ms, a.by_cost.iter().find(|s| s.name == "PlugPlay").map(|s| s.duration_ms)),
        Err(_) => (0.0, None),
    };
    let right = ms.round() == 4614.0 && plugplay.is_some_and(|d| d.round() == 621.0);
    let here = match (&got, plugplay) {
        (Err(e), _) => format!("the excerpt did not parse: {e}"),
        (Ok(_), Some(d)) => format!("read back: autoStartDuration {ms:.0} ms; PlugPlay {d:.0} ms"),
        (Ok(_), None) => format!("read back: autoStartDuration {ms:.0} ms; no PlugPlay"),
    };
    latlab_model::record::PaperRow {
        seed: "004".into(),
        figure: "boot trace reader: the seed's own xperf excerpt read back".into(),
        paper_setting: "the xperf -a boot XML excerpt printed in the seed, bundled".into(),
        paper_value:
            "autoStartDuration 4,614 ms (8,531–13,146, first start to last ready); PlugPlay \"took 621ms to start\""
                .into(),
        here_value: here,
        note: "a check of latlab's reader, not a measurement of any machine: the seed's figures must come back".into(),
        judgement: Judgement::self_check(
            "latlab's xperf reader on the seed's own excerpt",
            Judgement::finding(
                right,
                "the reader gives the seed's own figures from the seed's excerpt (held to the millisecond)",
                if right { "the same figures" } else { "other figures" },
                "the xperf reader is wrong",
            ),
        ),
    }
}

/// The suite's boot rows: this machine's own boot beside the seed's when it has one
/// (`systemd-analyze critical-chain`), and always the reader's check on the seed's excerpt. Where the
/// machine has no boot trace, the record's figures are the excerpt's, so its metrics are
/// renamed `boot.reader_check.*`: they must never read as this machine's boot (the measured
/// boot of `boot measure` is).
fn boot_row(rec: &mut latlab_model::record::RunRecord, here: Result<(), crate::learn::StartupError>) {
    let (ms, slowest) = (
        rec.get_metric("boot.autostart_ms").map_or(0.0, |m| m.value.as_f64()),
        rec.config.get("slowest").and_then(|v| v.as_str()).unwrap_or("none").to_string(),
    );
    let slowest_ms = rec.get_metric("boot.slowest_ms").map_or(0.0, |m| m.value.as_f64());
    rec.paper.retain(|p| p.seed != "004");
    match &here {
        Ok(()) => rec.paper.push(latlab_model::record::PaperRow {
            seed: "004".into(),
            figure: "boot trace: services auto-start".into(),
            paper_setting: "Windows Embedded Standard 7, xperf -a boot".into(),
            paper_value: "autoStartDuration 4,614 ms (8,531–13,146, first start to last ready); PlugPlay \"took 621ms to start\"".into(),
            here_value: format!(
                "{ms:.0} ms until the default target was reached (systemd-analyze critical-chain); slowest unit on that chain {slowest} {slowest_ms:.0} ms"
            ),
            note: "this machine's last boot: the span from userspace's start to its default target, as xperf's autoStartDuration is a span (first start to last ready); another OS and another boot".into(),
            judgement: latlab_model::verdict::Judgement::within_factor(
                ms,
                4614.0,
                2.0,
                "another OS and another boot: systemd's span from userspace's start to its target, against Windows' services from first start to last ready",
            )
            .of("boot span"),
        }),
        Err(why) => {
            let why = latlab_model::error::chain(why);
            rec.warn(format!(
                "{why}: this record holds seed 004's bundled excerpt, read as a check of the reader (metrics boot.reader_check.*); this machine's boot is measured by `boot measure`"
            ));
            for m in &mut rec.metrics {
                if let Some(rest) = m.name.strip_prefix("boot.") {
                    m.name = format!("boot.reader_check.{rest}");
                }
            }
        }
    }
    rec.paper.push(reader_check_row());
    rec.link_studies();
}

/// Boot-trace analysis.
pub struct Boot;

/// Why a boot trace could not be read.
#[derive(Debug, thiserror::Error)]
#[error("'{file}' is not a boot trace latlab reads")]
struct NotATrace {
    file: String,
    #[source]
    cause: crate::boot::analyze::ParseError,
}

impl Experiment for Boot {
    type Config = BootFile;
    const NAME: &'static str = "boot";
    const DOCS: &'static str = "docs/experiments/boot.md";
    const ABOUT: &'static str = "boot-trace analysis of this machine's boot (systemd-analyze), or where it has none, of seed 004's bundled excerpt as a check of the reader";
    const HEADLINE: &'static [(&'static str, &'static str)] =
        &[("boot.autostart_ms", "auto-start"), ("boot.slowest_ms", "slowest service")];
    fn suite_configs(_: bool) -> Vec<BootFile> {
        vec![BootFile::default()]
    }
    fn steps(_: &BootFile) -> u64 {
        1
    }
    fn announce(cfg: &BootFile) -> String {
        if let Some((id, _)) = &cfg.measured {
            return format!("boot analyze: the measured boot of run #{id}");
        }
        match &cfg.file {
            Some(f) => format!("boot analyze: {}", f.display()),
            None => {
                "boot analyze: this machine's boot (systemd-analyze critical-chain), else seed 004's bundled excerpt"
                    .into()
            }
        }
    }
    fn run(cfg: &BootFile, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        if let Some((id, run)) = &cfg.measured {
            let rec = crate::boot::stored::analyze_stored(run, *id)
                .map_err(|e| ExperimentError::Config(e.to_string().into()))?;
            ctx.progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return Ok(rec.into());
        }
        let mut mine: Option<Result<(), crate::learn::StartupError>> = None;
        let (source, text) = match &cfg.file {
            None => match this_machines_boot() {
                Ok(text) => {
                    mine = Some(Ok(()));
                    ("this machine: systemd-analyze critical-chain".to_string(), text)
                }
                Err(why) => {
                    mine = Some(Err(why));
                    ("bundled: seed 004's xperf excerpt (a check of the reader)".to_string(), SAMPLE_XPERF.to_string())
                }
            },
            Some(f) => {
                let text = std::fs::read_to_string(f).map_err(|e| {
                    ExperimentError::failed(latlab_sys::ioerr::IoFailed::new(
                        format!("cannot read the trace '{}'", f.display()),
                        e,
                    ))
                })?;
                (f.display().to_string(), text)
            }
        };
        let t = parse(&text).map_err(|cause| ExperimentError::failed(NotATrace { file: source.clone(), cause }))?;
        ctx.progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut rec = record(&source, &t, &analyze(&t));
        if let Some(here) = mine {
            boot_row(&mut rec, here);
        }
        Ok(rec.into())
    }
}

/// `latlab boot measure`: a boot run for real, cold, warm and cold + prefetch.
pub struct BootMeasure;

impl Default for crate::boot::measure::BootMeasureConfig {
    /// The built-in boot with the default rounds and threads.
    fn default() -> Self {
        let b = BuiltinRun::default();
        crate::boot::measure::BootMeasureConfig {
            source: crate::boot::measure::BootSource::Builtin { app: b.app, parent: b.parent, spec: d::BOOT_FIXTURE },
            runs: d::BOOT_RUNS,
            threads: d::prefetch_threads(),
            apply_recommendations: true,
            throttle: crate::device::Limit::default(),
        }
    }
}

impl From<crate::boot::measure::BootMeasureError> for ExperimentError {
    fn from(e: crate::boot::measure::BootMeasureError) -> Self {
        use crate::boot::measure::BootMeasureError as E;
        match e {
            e @ E::File { .. } => ExperimentError::Config(e.to_string().into()),
            e => ExperimentError::failed(e),
        }
    }
}

impl Experiment for BootMeasure {
    type Config = crate::boot::measure::BootMeasureConfig;
    const NAME: &'static str = "boot";
    const DOCS: &'static str = "docs/experiments/boot.md";
    const MODE: &'static str = "measure";
    const ABOUT: &'static str = "a boot run for real (seed 004): services in dependency order, cold, warm and cold + boot-plan prefetch; time to target, each service's start and ready, the critical path";
    const HEADLINE: &'static [(&'static str, &'static str)] = &[
        ("boot.cold.target.p50", "cold boot to target"),
        ("boot.warm.target.p50", "warm boot to target"),
        ("boot.prefetch.target.p50", "cold + prefetch boot to target"),
        ("boot.prefetch.speedup", "prefetch speedup over cold"),
    ];
    fn suite_configs(_: bool) -> Vec<Self::Config> {
        let mut c = crate::boot::measure::BootMeasureConfig { runs: d::SUITE_BOOT_RUNS, ..Default::default() };
        if let crate::boot::measure::BootSource::Builtin { spec, .. } = &mut c.source {
            *spec = d::SUITE_BOOT_FIXTURE;
        }
        vec![c]
    }
    fn validate(cfg: &Self::Config) -> Result<(), latlab_model::ConfigError> {
        check_counts(cfg.runs, cfg.threads)?;
        if cfg.throttle.bytes_per_s.is_some_and(|b| b < d::MIN_THROTTLE_BYTES_PER_S) {
            return Err(
                format!("--throttle-mbps must be at least {} MB/s", d::MIN_THROTTLE_BYTES_PER_S as f64 / 1e6).into()
            );
        }
        if cfg.throttle.iops == Some(0) {
            return Err("--throttle-iops must be at least 1".into());
        }
        Ok(())
    }
    fn steps(cfg: &Self::Config) -> u64 {
        crate::boot::measure::steps(cfg.runs, cfg.apply_recommendations, cfg.throttle.is_some())
    }
    fn announce(cfg: &Self::Config) -> String {
        let what = match &cfg.source {
            crate::boot::measure::BootSource::File(f) => f.display().to_string(),
            crate::boot::measure::BootSource::Builtin { parent, spec, .. } => {
                format!(
                    "the built-in boot (5 services and a disabled one, each {} under {})",
                    describe_fixture(spec),
                    parent.display()
                )
            }
        };
        format!("boot measure: {what}; {} rounds of cold, warm and cold + prefetch", cfg.runs)
    }
    fn run(cfg: &Self::Config, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        Ok(crate::boot::measure::run_boot_measure(cfg, &ctx.progress)?.into())
    }
    fn figures(rec: &RunRecord) -> Vec<Figure> {
        crate::figures::boot(rec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_excerpt_is_a_reader_check_of_its_own_and_never_this_machines_boot() {
        let t = parse(SAMPLE_XPERF).unwrap();
        let mut rec = record("bundled", &t, &analyze(&t));
        boot_row(&mut rec, Err(crate::learn::StartupError::Needs("PID 1 is not systemd".into())));
        let rows: Vec<_> = rec.paper.iter().filter(|p| p.seed == "004").collect();
        assert_eq!(rows.len(), 1);
        assert!(rows[0].figure.starts_with("boot trace reader"), "{}", rows[0].figure);
        assert_eq!(rows[0].here_value, "read back: autoStartDuration 4614 ms; PlugPlay 621 ms");
        // A self-check that passes, never a finding about the machine.
        assert_eq!(rows[0].judgement.verdict, latlab_model::verdict::Verdict::SelfCheck);
        assert_eq!(rows[0].judgement.check_passed, Some(true));
        // The excerpt's figures are not this machine's: renamed.
        assert!(rec.get_metric("boot.autostart_ms").is_none());
        assert_eq!(rec.get_metric("boot.reader_check.autostart_ms").map(|m| m.value.as_f64()), Some(4614.0));
        // A machine with its own boot: its row, and the check beside it.
        let mut rec = record("this machine", &t, &analyze(&t));
        boot_row(&mut rec, Ok(()));
        assert_eq!(rec.paper.len(), 2);
        assert!(rec.paper[0].here_value.contains("systemd-analyze critical-chain"));
        assert!(rec.get_metric("boot.autostart_ms").is_some());
    }
}
