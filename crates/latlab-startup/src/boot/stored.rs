//! `latlab boot analyze --run ID`: a boot that `latlab boot measure` stored, analysed again
//! from the record alone (its boot file and Gantt table) as a trace, with its advice.

use crate::boot::file::{BootSpec, StartType};
use crate::boot::run::{BootTimes, critical_path, recommend};
use latlab_model::record::{Column, RunRecord, Table};

/// `latlab boot analyze --run ID`: a stored `boot measure` run analysed as a boot trace — its
/// median cold boot (warm where no cold one was measured) read back from the Gantt table, the
/// services by cost, the critical path — and its recommendations: **delay** what the target
/// does not need yet ran before it was ready, **reorder** (start the target's needs first)
/// where a jobs limit held one back, and **disable** what is known to cost much and rarely be
/// needed (the target does not need it, nothing waits for it). Nothing is re-measured.
pub fn analyze_stored(run: &RunRecord, id: i64) -> Result<RunRecord, crate::learn::StartupError> {
    let not = |why: &str| {
        crate::learn::StartupError::Needs(format!("run #{id} cannot be analysed as a measured boot: {why}"))
    };
    if run.experiment != "boot" || run.mode() != "measure" {
        return Err(not(&format!("it is a `{}` run, not `boot measure`", run.experiment)));
    }
    let text = run
        .config
        .get("boot_spec")
        .and_then(|v| v.as_str())
        .ok_or_else(|| not("it does not hold its boot file (measured by an older latlab): measure it again"))?;
    let spec = BootSpec::parse(text).map_err(|e| not(&format!("its stored boot file does not read: {e}")))?;
    let gantt = run.tables.iter().find(|t| t.name == "boot.gantt").ok_or_else(|| not("it has no boot.gantt table"))?;
    let col = |name: &str| gantt.columns.iter().position(|c| c.name == name);
    let state = ["cold", "warm"]
        .into_iter()
        .find(|st| col(&format!("{st} ready")).is_some_and(|k| gantt.rows.iter().any(|r| r[k].is_number())))
        .ok_or_else(|| not("no boot of it completed"))?;
    let (a, b) = (col(&format!("{state} start")).unwrap_or(0), col(&format!("{state} ready")).unwrap_or(0));
    let ns = |v: &serde_json::Value| v.as_f64().map(|ms| (ms * 1e6).round() as u64);
    let mut services = vec![None; spec.services.len()];
    for row in &gantt.rows {
        let Some(i) = spec.services.iter().position(|s| row[0].as_str() == Some(s.name.as_str())) else {
            return Err(not(&format!("its table names a service its boot file does not: {}", row[0])));
        };
        services[i] = ns(&row[a]).zip(ns(&row[b]));
    }
    let target_ns = services[spec.target].map(|t| t.1).ok_or_else(|| not("the target never became ready"))?;
    let all_ns = services.iter().flatten().map(|t| t.1).max().unwrap_or(target_ns);
    let times = BootTimes { services, target_ns, all_ns, stopped: 0 };
    let ms = |x: u64| x as f64 / 1e6;
    let service = |i: usize| {
        let s = &spec.services[i];
        times.services[i].map(|(start, ready)| crate::boot::analyze::Service {
            name: s.name.clone(),
            group: match s.start {
                StartType::Auto => "auto",
                StartType::Delayed => "delayed",
                StartType::Disabled => "disabled",
            }
            .into(),
            duration_ms: ms(ready - start),
            started_ms: Some(ms(start)),
            ended_ms: Some(ms(ready)),
            waiting_ms: None,
            container: String::new(),
            line: 0,
        })
    };
    let path = critical_path(&spec, &times.services);
    let trace = crate::boot::analyze::BootTrace {
        format: crate::boot::analyze::Format::Measured,
        services: (0..spec.services.len()).filter_map(service).collect(),
        autostart: None,
        phases: Vec::new(),
        chain: path.iter().rev().filter_map(|&i| service(i)).collect(),
    };
    let mut analysis = crate::boot::analyze::analyze(&trace);
    // A service the target needs can be neither delayed nor disabled.
    let needed = |name: &str| {
        spec.services
            .iter()
            .position(|s| s.name == name)
            .is_some_and(|i| i == spec.target || spec.must_precede_target(i))
    };
    analysis.candidates.retain(|c| !needed(&c.name));
    let advice = recommend(&spec, &times);
    let mut rec = crate::boot::analyze::record(&format!("run #{id} ({state} median boot)"), &trace, &analysis);
    rec.config("measured_run", id);
    rec.config("state", state);
    rec.config("target", &spec.services[spec.target].name);
    rec.metric("boot.recommendations", advice.len() as u64, "count");
    rec.tables.push(Table {
        name: "boot.recommendations".into(),
        title: format!(
            "Recommendations from run #{id}'s {state} median boot: delay, reorder, disable (measure them applied with `boot measure --apply-recommendations`)"
        ),
        columns: vec![Column::new("recommendation", "")],
        rows: advice.iter().map(|(_, why)| vec![why.clone().into()]).collect(),
        plot: None,
    });
    Ok(rec)
}
