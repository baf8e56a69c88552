//! latlab-core integration tests: the store round-trips every field of a run (including a
//! 10-million-sample series), survives an interrupted write, and the report renders from
//! what is stored.

use latlab_model::record::{Column, PaperRow, RunRecord, RunStatus, Series, Table, TablePlot};
use latlab_output::store::Store;
use latlab_sys::platform::Capability;
use latlab_sys::record::Finish;

fn full_record() -> RunRecord {
    let mut r = latlab_sys::record::begin("selftest");
    r.config("samples", 1000);
    r.config("policy", "fifo:80");
    r.capabilities.push(Capability::granted("mlockall", "current+future", "locked"));
    r.capabilities.push(Capability::refused("sched.fifo", "fifo:80", "other", "no CAP_SYS_NICE"));
    r.metric("sleep.other.1ms.p50", 72_000i64, "ns");
    r.metric("ratio.x", 0.25, "ratio");
    r.metric("float.integral", 2.0, "Hz");
    r.tables.push(Table {
        name: "sleep.sweep".into(),
        title: "sweep".into(),
        columns: vec![Column::new("period", "ns"), Column::new("p99", "ns")],
        rows: vec![vec![1_000_000.into(), 50_000.into()], vec![100_000.into(), 6_000.into()]],
        plot: Some(TablePlot { x: "period".into(), ys: vec!["p99".into()], log_x: true, log_y: false }),
    });
    r.series.push(Series {
        name: "sleep.other.1ms".into(),
        unit: "ns".into(),
        description: "lateness".into(),
        values: vec![5, -3, i64::MAX, i64::MIN, 0],
    });
    r.series.push(Series { name: "empty".into(), unit: "ns".into(), description: String::new(), values: vec![] });
    r.warn("a warning");
    r.paper.push(PaperRow {
        seed: "001".into(),
        figure: "Fig. 11".into(),
        paper_setting: "SA-1110".into(),
        paper_value: "5.2 µs".into(),
        here_value: "12 µs".into(),
        note: "n".into(),
        judgement: latlab_model::verdict::Judgement::within_factor(12.0, 5.2, 2.0, "a timer <wake-up>, not an ISR"),
    });
    r.finish(RunStatus::Interrupted);
    r
}

#[test]
fn store_round_trips_every_field() {
    let mut s = Store::open_in_memory().unwrap();
    let mut r = full_record();
    let id = s.insert(&r).unwrap();
    r.id = Some(id);
    let back = s.load(id).unwrap();
    assert_eq!(back, r);
    assert_eq!(back.metrics[2].value, latlab_model::record::Value::Float(2.0), "a float stays a float");
}

#[test]
fn ten_million_samples_store_compactly_and_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.db");
    let values = latlab_model::synth::latency_like(10_000_000);
    let mut r = latlab_sys::record::begin("rt");
    r.series.push(Series { name: "l1.latency".into(), unit: "ns".into(), description: String::new(), values });
    r.finish(RunStatus::Complete);
    let id = {
        let mut s = Store::open(&path).unwrap();
        s.insert(&r).unwrap()
    };
    let s = Store::open(&path).unwrap();
    let back = s.load(id).unwrap();
    assert_eq!(back.series[0].values, r.series[0].values);
    drop(s);
    let size: u64 = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
    assert!(size < 40 * 1024 * 1024, "10M samples took {size} bytes on disk");
}

#[test]
fn an_unfinished_write_never_damages_stored_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.db");
    let mut r = full_record();
    let id = Store::open(&path).unwrap().insert(&r).unwrap();
    r.id = Some(id);
    {
        // A writer that dies mid-transaction (connection dropped without commit).
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "BEGIN; INSERT INTO runs (experiment, status, started_at_ns, ended_at_ns, latlab_version, machine,
             capabilities, config, tables_json, warnings, paper) VALUES ('rt','complete',0,0,'x','{}','[]','{}','[]','[]','[]');",
        )
        .unwrap();
        conn.execute("INSERT INTO series VALUES (2, 0, 'x', 'ns', '', 'delta-zigzag-leb128', 1, x'00')", []).unwrap();
    }
    let s = Store::open(&path).unwrap();
    assert_eq!(s.list().unwrap().len(), 1);
    assert_eq!(s.load(id).unwrap(), r);
}

#[test]
fn report_renders_from_the_store() {
    let mut s = Store::open_in_memory().unwrap();
    let id = s.insert(&full_record()).unwrap();
    let html = latlab_output::report::render(&[s.load(id).unwrap()]).unwrap();
    assert!(html.contains("selftest #"));
    assert!(html.contains("<svg"));
}
