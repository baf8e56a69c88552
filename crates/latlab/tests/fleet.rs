//! Runs of several hosts through the real binary: monitor runs made into three hosts' databases,
//! `latlab import` merging them read-only and refusing what it already has, the report
//! comparing the hosts, and a monitor run's windows exported as CSV.

use assert_cmd::Command;
use latlab_output::store::Store;
use predicates::prelude::*;
use std::path::Path;

fn latlab(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("latlab").unwrap();
    c.current_dir(dir).env_remove("LATLAB_DB");
    c
}

/// Make every run of `db` look measured on `host`.
fn as_host(db: &Path, host: &str) {
    let mut s = Store::open(db).unwrap();
    for l in s.list().unwrap() {
        let mut r = s.load(l.id).unwrap();
        r.machine.info.hostname = Some(host.into());
        r.machine.info.machine_id = Some(format!("machine-{host}"));
        s.write(Some(l.id), &r).unwrap();
    }
}

#[test]
fn import_merges_hosts_read_only_refuses_duplicates_and_the_report_compares_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d)
        .args(["--db", "a.db", "monitor", "--window", "1s", "--duration", "2500ms"])
        .assert()
        .success()
        .stderr(predicate::str::contains("monitor: window 2"));
    // The windows, as CSV: a header with the buckets' bounds and a row per window.
    let csv = latlab(d).args(["--db", "a.db", "export", "monitor", "--format", "windows"]).assert().success();
    let csv = String::from_utf8(csv.get_output().stdout.clone()).unwrap();
    let mut lines = csv.lines();
    let head = lines.next().unwrap();
    assert!(head.starts_with("probe,start_ns,end_ns,state,count") && head.ends_with(",le_+Inf"), "{head}");
    let rows: Vec<&str> = lines.collect();
    assert!(rows.len() >= 2 && rows.iter().all(|r| r.starts_with("rt,")), "{csv}");
    assert_eq!(rows[0].split(',').count(), head.split(',').count());

    for (db, host) in [("b.db", "board-b"), ("c.db", "board-c")] {
        std::fs::copy(d.join("a.db"), d.join(db)).unwrap();
        as_host(&d.join(db), host);
    }
    as_host(&d.join("a.db"), "board-a");
    let sources = ["a.db", "b.db", "c.db"];
    let before: Vec<Vec<u8>> = sources.iter().map(|s| std::fs::read(d.join(s)).unwrap()).collect();

    latlab(d).args(["--db", "all.db", "import", "a.db", "b.db", "c.db"]).assert().success().stderr(
        predicate::str::contains("b.db: 1 run imported (host board-b)")
            .and(predicate::str::contains("monitor windows"))
            .and(predicate::str::contains("imported 3 runs")),
    );
    // Again: refused, named, nothing added.
    latlab(d).args(["--db", "all.db", "import", "b.db"]).assert().success().stderr(
        predicate::str::contains("1 already here, refused (#1 is #2)").and(predicate::str::contains("imported 0 runs")),
    );
    assert_eq!(Store::open(&d.join("all.db")).unwrap().list().unwrap().len(), 3);
    let after: Vec<Vec<u8>> = sources.iter().map(|s| std::fs::read(d.join(s)).unwrap()).collect();
    assert!(before == after, "a source database changed");

    // Clear errors: itself, a missing file, a file that is not a database.
    latlab(d)
        .args(["--db", "all.db", "import", "all.db"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("cannot import itself"));
    latlab(d)
        .args(["--db", "all.db", "import", "nope.db"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("no database at 'nope.db'"));
    std::fs::write(d.join("junk.db"), vec![b'x'; 4096]).unwrap();
    latlab(d)
        .args(["--db", "all.db", "import", "junk.db", "c.db"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot read 'junk.db'").and(predicate::str::contains("c.db: 0 runs")));

    latlab(d).args(["--db", "all.db", "report", "-o", "r.html"]).assert().success();
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.contains("<h2 id=\"hosts\">Hosts</h2>"));
    assert!(html.contains("monitor on 3 hosts"));
    assert!(html.contains("on board-c"));
    assert!(html.contains("monitor.rt.window_max on 3 hosts (CDF)"));
    assert!(html.contains("OSADL"), "the long-run plot is drawn");
}
