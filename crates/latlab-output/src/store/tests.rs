//! The store's tests: encoding, migrations, writers at once, a full disk, windows, imports.

use super::*;
use latlab_sys::record::Finish;
use proptest::prelude::*;

#[test]
fn varint_by_hand() {
    // deltas 0, 1, -1, 64, -65 → zigzag 0, 2, 1, 128, 129
    let v = [0, 1, 0, 64, -1];
    let e = encode_series(&v);
    assert_eq!(e, vec![0x00, 0x02, 0x01, 0x80, 0x01, 0x81, 0x01]);
    assert_eq!(decode_series(&e, 5).unwrap(), v);
    assert!(decode_series(&e, 4).is_err());
    assert!(decode_series(&[0x80], 1).is_err());
    assert!(decode_series(&[0xff; 11], 1).is_err());
}

proptest! {
    #[test]
    fn series_round_trip(v in proptest::collection::vec(any::<i64>(), 0..500)) {
        let e = encode_series(&v);
        prop_assert_eq!(decode_series(&e, v.len()).unwrap(), v);
    }

    #[test]
    fn hostile_bytes_never_panic(d in proptest::collection::vec(any::<u8>(), 0..200), n in 0usize..300) {
        let _ = decode_series(&d, n);
    }
}

#[test]
fn migrations_set_version_and_refuse_newer() {
    let s = Store::open_in_memory().unwrap();
    assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    s.conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
    let conn = s.conn;
    assert!(matches!(Store::init(conn), Err(StoreError::TooNew(_))));
}

#[test]
fn resolve_specs() {
    let mut s = Store::open_in_memory().unwrap();
    assert!(matches!(s.resolve("latest"), Err(StoreError::NotFound(_))));
    let mut r = latlab_sys::record::begin("selftest");
    r.finish(RunStatus::Complete);
    let a = s.insert(&r).unwrap();
    r.experiment = "rt".into();
    let b = s.insert(&r).unwrap();
    assert_eq!(s.resolve("latest").unwrap(), b);
    assert_eq!(s.resolve("selftest").unwrap(), a);
    assert_eq!(s.resolve(&a.to_string()).unwrap(), a);
    assert!(s.resolve("999").is_err());
    assert!(s.resolve("udp").is_err());
    assert_eq!(s.latest_per_experiment().unwrap(), vec![b, a]);
    let l = s.list().unwrap();
    assert_eq!(l.len(), 2);
    assert_eq!(l[0].id, b);
    // Another mode of rt is another entry of the report; a newer run of a mode replaces its own.
    r.mode = "doctor".into();
    let c = s.insert(&r).unwrap();
    assert_eq!(s.latest_per_experiment().unwrap(), vec![b, c, a]);
    let d = s.insert(&r).unwrap();
    assert_eq!(s.latest_per_experiment().unwrap(), vec![b, d, a]);
}

fn a_run(i: u64, samples: usize) -> RunRecord {
    let mut r = latlab_sys::record::begin("selftest");
    r.metric("i", i, "count");
    r.series.push(Series {
        name: "s".into(),
        unit: "ns".into(),
        description: String::new(),
        values: (0..samples as i64).map(|v| v * 7919 % 100_003).collect(),
    });
    r.finish(RunStatus::Complete);
    r
}

#[test]
fn writers_in_several_connections_at_once_all_succeed() {
    // Each thread its own connection, as two latlab processes would have: the new
    // database's creation and every insert race, and the busy timeout queues them.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("two.db");
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let db = &db;
            s.spawn(move || {
                for i in 0..15 {
                    let mut st = Store::open(db).expect("open while others write");
                    st.insert(&a_run(t * 100 + i, 2_000)).expect("insert while others write");
                }
            });
        }
    });
    let st = Store::open(&db).unwrap();
    let runs = st.list().unwrap();
    assert_eq!(runs.len(), 60);
    assert!(runs.iter().all(|r| r.samples == 2_000));
}

#[test]
fn an_old_database_gains_the_incomplete_status_and_keeps_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v1.db");
    {
        // A version-1 file, as latlab wrote it before checkpoints.
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        let mut st = Store { conn };
        st.insert(&a_run(1, 10)).unwrap();
    }
    let mut st = Store::open(&db).unwrap();
    assert_eq!(st.schema_version().unwrap(), SCHEMA_VERSION);
    let back = st.load(1).unwrap();
    assert_eq!(back.series[0].values.len(), 10, "series kept through the rebuild");
    let mut r = a_run(2, 5);
    r.status = RunStatus::Incomplete;
    let id = st.write(None, &r).unwrap();
    assert_eq!(st.load(id).unwrap().status, RunStatus::Incomplete);
    assert!(st.write(Some(999), &r).is_err(), "replacing a run that is not there");
}

/// Run by `a_full_disk_is_a_clear_error_and_earlier_runs_stay` in a child process whose
/// file-size limit is 256 KiB (SIGXFSZ ignored, so a write past it fails with EFBIG).
#[test]
fn full_disk_child() {
    let Ok(db) = std::env::var("LATLAB_FULL_DISK_DB") else { return };
    let lim = nix::sys::resource::rlim_t::from(256u32 * 1024);
    nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_FSIZE, lim, lim).unwrap();
    // SAFETY-free: nix's signal() is unsafe only for handlers; SIG_IGN installs none.
    unsafe { nix::sys::signal::signal(nix::sys::signal::Signal::SIGXFSZ, nix::sys::signal::SigHandler::SigIgn) }
        .unwrap();
    let mut st = Store::open(std::path::Path::new(&db)).unwrap();
    let mut stored = 0;
    let err = loop {
        match st.insert(&a_run(stored, 20_000)) {
            Ok(_) => stored += 1,
            Err(e) => break e,
        }
        assert!(stored < 1_000, "the limit never bit");
    };
    println!("STORED {stored}");
    println!("ERROR {err}");
    assert!(matches!(err, StoreError::Full(_)), "not told as a full disk: {err:?}");
}

#[test]
fn a_full_disk_is_a_clear_error_and_earlier_runs_stay() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("full.db");
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "store::tests::full_disk_child", "--nocapture", "--test-threads", "1"])
        .env("LATLAB_FULL_DISK_DB", &db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {text}{}", String::from_utf8_lossy(&out.stderr));
    let stored: usize = text.lines().find_map(|l| l.split("STORED ").nth(1)).unwrap().trim().parse().unwrap();
    assert!(stored >= 1, "some runs fit under the limit");
    let msg = text.lines().find_map(|l| l.split("ERROR ").nth(1)).unwrap();
    assert!(msg.contains("disk or the file-size limit is full") && msg.contains("intact"), "{msg}");
    // Without the limit: every run stored before the failure reads back whole.
    let st = Store::open(&db).unwrap();
    let runs = st.list().unwrap();
    assert_eq!(runs.len(), stored);
    for r in runs {
        assert_eq!(st.load(r.id).unwrap().series[0].values.len(), 20_000);
    }
}

#[test]
fn monitor_windows_append_and_read_back_and_move_the_run_end() {
    let mut s = Store::open_in_memory().unwrap();
    let mut r = latlab_sys::record::begin("monitor");
    r.finish(RunStatus::Incomplete);
    (r.started_at_ns, r.ended_at_ns) = (500, 500);
    let id = s.insert(&r).unwrap();
    let w = |start: i64, max: i64| WindowRow {
        probe: "rt".into(),
        start_ns: start,
        end_ns: start + 300,
        state: "idle".into(),
        count: 3,
        sum_ns: 60,
        min_ns: 10,
        p50_ns: 20,
        p99_ns: 30,
        p999_ns: 30,
        max_ns: max,
        missed: 1,
        lost: 0,
        buckets: vec![0, 2, 1, 0, 0, 7_000_000_000],
        tops: vec![0, 10, 2, max],
    };
    s.append_windows(id, &[w(1_000, 30), w(1_300, 90)]).unwrap();
    s.append_windows(id, &[w(1_600, 40)]).unwrap();
    let back = s.windows(id).unwrap();
    assert_eq!(back, vec![w(1_000, 30), w(1_300, 90), w(1_600, 40)]);
    assert_eq!(s.load(id).unwrap().ended_at_ns, 1_900);
    assert!(s.append_windows(id, &[w(1_600, 1)]).is_err(), "a window is stored once");
    assert_eq!(decode_all(&encode_series(&[5, -3, 0])).unwrap(), vec![5, -3, 0]);
}

#[test]
fn a_runs_mode_round_trips_and_an_older_runs_mode_is_read_from_its_config() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = Store::open(&dir.path().join("m.db")).unwrap();
    let mut r = latlab_sys::record::begin("display");
    r.mode = "ops".into();
    r.config("seconds", 3u64);
    r.finish(RunStatus::Complete);
    let id = st.write(None, &r).unwrap();
    let back = st.load(id).unwrap();
    assert_eq!((back.mode.as_str(), back.mode()), ("ops", "ops"));
    assert!(!back.config.contains_key("experiment"), "the mode is the record's, not its config's");
    // Stored where it always was, so older versions read it as before.
    let cfg: String = st.conn.query_row("SELECT config FROM runs WHERE id = ?1", [id], |x| x.get(0)).unwrap();
    assert!(cfg.contains("\"experiment\":\"ops\""), "{cfg}");
    // A record of an earlier schema, read from JSON, keeps its mode in config.experiment.
    let mut old = latlab_sys::record::begin("stall");
    old.config("experiment", "cpu");
    assert_eq!(old.mode(), "cpu");
}
