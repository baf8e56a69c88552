//! flent: a stored `stall net` run as a flent data file (format version 4), so flent's own
//! plots and statistics (`flent -i FILE.flent.gz -p totals`, `-f stats`) read latlab's
//! measurement. The series are those of flent's `tcp_bidirectional` test: `TCP upload`,
//! `TCP download` (Mbit/s) and `Ping (ms) ICMP`, which here is latlab's UDP echo probe; the
//! file's NOTE says so.

use latlab_model::record::RunRecord;
use serde_json::{Value, json};

pub use latlab_model::record::FLENT_TIMELINE as TIMELINE;

/// flent's data-file format version this writes.
pub const FORMAT_VERSION: u64 = 4;
/// The flent test whose series names and plots fit the experiment.
pub const TEST: &str = "tcp_bidirectional";

/// Why a run has no flent form.
#[derive(Debug, thiserror::Error)]
pub enum FlentError {
    /// The run holds no network timeline.
    #[error(
        "run {run} ({experiment}) has no network timeline: flent files come from `latlab stall net` runs (and the suite's stall entry) made by this version of latlab or later"
    )]
    NoTimeline {
        /// The run, as `#id`.
        run: String,
        /// Its experiment.
        experiment: String,
    },
    /// The timeline table lacks a column.
    #[error("the run's network timeline has no '{0}' column")]
    Column(&'static str),
}

/// The flent exporter.
pub struct Flent;

impl super::Exporter for Flent {
    fn render(&self, run: &RunRecord) -> Result<Vec<u8>, super::ExportError> {
        let mut text = serde_json::to_vec(&to_flent(run)?).map_err(std::io::Error::other)?;
        text.push(b'\n');
        Ok(text)
    }
}

/// The flent JSON of a `stall net` run.
pub fn to_flent(rec: &RunRecord) -> Result<Value, FlentError> {
    let run = rec.id.map_or_else(|| "(unsaved)".to_string(), |i| format!("#{i}"));
    let t = rec
        .tables
        .iter()
        .find(|t| t.name == TIMELINE)
        .ok_or_else(|| FlentError::NoTimeline { run: run.clone(), experiment: rec.experiment.clone() })?;
    let col = |name: &'static str| t.columns.iter().position(|c| c.name == name).ok_or(FlentError::Column(name));
    let (time, rtt, up, down) = (col("time")?, col("RTT mean")?, col("upload")?, col("download")?);
    let column = |i: usize| -> Vec<Value> { t.rows.iter().map(|r| r.get(i).cloned().unwrap_or(Value::Null)).collect() };
    let x_values = column(time);
    // flent counts a file's data by its raw values: each series' bins again, stamped with
    // wall-clock time (the timeline's start plus the bin's).
    let t0 = rec.config.get("timeline_start_unix_ns").and_then(Value::as_f64).unwrap_or(rec.started_at_ns as f64) / 1e9;
    let raw = |i: usize| -> Vec<Value> {
        t.rows
            .iter()
            .filter_map(|r| {
                let (x, v) = (r.get(time)?.as_f64()?, r.get(i)?.as_f64()?);
                Some(json!({ "t": t0 + x, "val": v }))
            })
            .collect()
    };
    let length = rec.config.get("step_seconds").and_then(Value::as_f64).unwrap_or(0.0)
        * rec.config.get("loads").and_then(Value::as_array).map_or(0, |l| l.len()) as f64;
    // The reflector's address (runs stored before it was recorded: stall net's fixed one).
    let host = rec.config.get("server").and_then(Value::as_str).unwrap_or("198.18.0.2");
    let step = rec.config.get("timeline_step_ns").and_then(Value::as_f64).unwrap_or(0.0) / 1e9;
    let total = x_values.iter().filter_map(Value::as_f64).fold(0.0, f64::max) + step;
    let cfg = |k: &str| rec.config.get(k).map(Value::to_string).unwrap_or_else(|| "?".into());
    let note = format!(
        "Written by latlab {} from run {run}. 'Ping (ms) ICMP' is latlab's UDP echo probe (one every {} ns; each value the mean of one bin), not ICMP. The link is a veth pair between two network namespaces shaped by HTB to {} bit/s each way; the TCP flows are latlab's own, paced at each step's offered load (fractions of the link: {}), one each way.",
        rec.latlab_version,
        cfg("probe_interval_ns"),
        cfg("rate_bps"),
        cfg("loads"),
    );
    // The test's start is the timeline's (flent places raw values against it), in UTC as flent
    // reads it: "%Y-%m-%dT%H:%M:%S.%fZ".
    let time_iso =
        humantime::format_rfc3339_micros(std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(t0.max(0.0)))
            .to_string();
    Ok(json!({
        "version": FORMAT_VERSION,
        "x_values": x_values,
        "results": {
            "TCP upload": column(up),
            "TCP download": column(down),
            "Ping (ms) ICMP": column(rtt),
        },
        "raw_values": {
            "TCP upload": raw(up),
            "TCP download": raw(down),
            "Ping (ms) ICMP": raw(rtt),
        },
        "metadata": {
            "NAME": TEST,
            "TITLE": format!("latlab stall net {run}"),
            "NOTE": note,
            "HOST": host,
            "HOSTS": [host],
            "LOCAL_HOST": rec.machine.info.hostname,
            "LENGTH": length,
            "TOTAL_LENGTH": total,
            "STEP_SIZE": step,
            "TIME": time_iso.clone(),
            "T0": time_iso,
            "IP_VERSION": 4,
            "KERNEL_RELEASE": rec.machine.info.kernel_release,
            "SERIES_META": {
                "TCP upload": { "UNITS": "Mbits/s" },
                "TCP download": { "UNITS": "Mbits/s" },
                "Ping (ms) ICMP": { "UNITS": "ms" },
            },
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_model::record::{Column, Table};

    fn timeline_run() -> RunRecord {
        let mut rec = latlab_sys::record::begin("stall");
        rec.id = Some(7);
        rec.config("loads", [0.0, 0.5]);
        rec.config("step_seconds", 1);
        rec.config("timeline_step_ns", 200_000_000u64);
        rec.config("timeline_start_unix_ns", 1_800_000_000_000_000_000u64);
        let c = |n: &str| Column::new(n, "");
        rec.tables.push(Table {
            name: TIMELINE.into(),
            title: String::new(),
            columns: ["time", "offered", "RTT mean", "lost", "upload", "download"].into_iter().map(c).collect(),
            rows: vec![
                vec![0.0.into(), 0.into(), 0.1.into(), 0.into(), 0.0.into(), 0.0.into()],
                vec![0.2.into(), 50.into(), Value::Null, 3.into(), 4.9.into(), 5.1.into()],
            ],
            plot: None,
        });
        rec
    }

    #[test]
    fn a_timeline_becomes_flents_tcp_bidirectional_series() {
        let f = to_flent(&timeline_run()).unwrap();
        assert_eq!(f["version"], 4);
        assert_eq!(f["x_values"], json!([0.0, 0.2]));
        assert_eq!(f["results"]["TCP upload"], json!([0.0, 4.9]));
        assert_eq!(f["results"]["TCP download"], json!([0.0, 5.1]));
        assert_eq!(f["results"]["Ping (ms) ICMP"], json!([0.1, null]), "an all-lost bin is a gap");
        // Raw values: wall-clock stamped, gaps left out.
        let raw = f["raw_values"]["Ping (ms) ICMP"].as_array().unwrap();
        assert_eq!(raw.len(), 1);
        assert_eq!(raw[0]["t"], 1_800_000_000.0);
        assert_eq!(f["raw_values"]["TCP upload"][1]["t"], 1_800_000_000.2);
        let m = &f["metadata"];
        assert_eq!(m["NAME"], TEST);
        assert_eq!(m["TIME"], "2027-01-15T08:00:00.000000Z");
        assert_eq!(m["T0"], m["TIME"]);
        assert_eq!((m["LENGTH"].as_f64(), m["STEP_SIZE"].as_f64()), (Some(2.0), Some(0.2)));
        assert!(m["NOTE"].as_str().unwrap().contains("UDP echo probe"), "the NOTE says the ping is not ICMP");
        assert_eq!(m["TITLE"], "latlab stall net #7");
    }

    #[test]
    fn a_run_without_a_timeline_is_refused_clearly() {
        let mut rec = latlab_sys::record::begin("selftest");
        rec.id = Some(3);
        let e = to_flent(&rec).unwrap_err().to_string();
        assert!(e.contains("#3 (selftest)") && e.contains("latlab stall net"), "{e}");
        let mut rec = timeline_run();
        rec.tables[0].columns[4].name = "up".into();
        assert!(to_flent(&rec).unwrap_err().to_string().contains("'upload'"));
    }
}
