//! What latlab promises under abuse (docs/reliability.md), tried on the real binary: a run
//! killed mid-way keeps what it had checkpointed, and two processes store into one database
//! at once.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn latlab(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("latlab").unwrap();
    c.current_dir(dir).env_remove("LATLAB_DB");
    c
}

fn runs(dir: &Path) -> serde_json::Value {
    let out = latlab(dir).args(["runs", "--json"]).assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn a_run_killed_mid_way_is_kept_as_incomplete_up_to_its_last_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Two minutes of rt, checkpointed every 0.2 s: it can only end by the kill.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(d)
        .env_remove("LATLAB_DB")
        .args(["--checkpoint", "0.2", "rt", "--duration", "120s", "--rate", "2000", "--no-mlock"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait (by what is stored, not by time) until a checkpoint holds samples, then SIGKILL.
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if d.join("latlab.db").exists() {
            let r = runs(d);
            if r.as_array().is_some_and(|a| a.len() == 1 && a[0]["samples"].as_i64().unwrap_or(0) > 0) {
                break;
            }
        }
        assert!(Instant::now() < deadline, "no checkpoint was stored");
        assert!(child.try_wait().unwrap().is_none(), "rt ended before it was killed");
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let r = runs(d);
    assert_eq!(r.as_array().unwrap().len(), 1);
    assert_eq!(r[0]["status"], "incomplete");
    let samples = r[0]["samples"].as_i64().unwrap();
    assert!(samples > 0);
    // show, export and report all read it, and say what incomplete means.
    latlab(d).args(["show", "latest"]).assert().success().stdout(
        predicate::str::contains("# latlab rt #1 — incomplete").and(predicate::str::contains("last checkpoint")),
    );
    let json = latlab(d).args(["export", "1", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(rec["status"], "incomplete");
    let pulses = rec["metrics"].as_array().unwrap().iter().find(|m| m["name"] == "unloaded.pulses").unwrap();
    assert!(pulses["value"].as_i64().unwrap() > 0 && pulses["value"].as_i64().unwrap() < 240_000);
    assert!(rec["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().starts_with("checkpoint: ")));
    latlab(d)
        .args(["export", "1", "--format", "csv"])
        .assert()
        .success()
        .stdout(predicate::str::contains("unloaded.l1.latency,ns,0,"));
    latlab(d).args(["report", "-o", "r.html"]).assert().success();
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.contains("(incomplete)") && html.contains("last checkpoint"));
    // The next run stores beside it, and a complete run replaces its own checkpoints.
    latlab(d)
        .args(["--checkpoint", "0.05", "rt", "--duration", "300ms", "--rate", "2000", "--no-mlock"])
        .assert()
        .success();
    let r = runs(d);
    assert_eq!(r.as_array().unwrap().len(), 2);
    assert_eq!((r[0]["status"].as_str(), r[1]["status"].as_str()), (Some("complete"), Some("incomplete")));
    assert_eq!(r[1]["samples"].as_i64().unwrap(), samples, "the killed run is left as it was");
    latlab(d).args(["--checkpoint=-1", "runs"]).assert().code(2).stderr(predicate::str::contains("0 or more"));
}

#[test]
fn two_processes_store_runs_in_one_database_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = assert_cmd::cargo::cargo_bin("latlab");
    // Both create the database and store three runs each, their writes interleaving.
    let kids: Vec<_> = (0..2)
        .map(|_| {
            std::process::Command::new(&bin)
                .current_dir(d)
                .env_remove("LATLAB_DB")
                .args(["--checkpoint", "0.01"])
                .args(["rt", "--duration", "100ms", "--rate", "2000", "--no-mlock", "--signal", "none"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let more: Vec<_> = (0..4)
        .map(|_| {
            std::process::Command::new(&bin)
                .current_dir(d)
                .env_remove("LATLAB_DB")
                .args(["selftest", "--samples", "20", "--no-mlock"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for k in kids.into_iter().chain(more) {
        let out = k.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let r = runs(d);
    let a = r.as_array().unwrap();
    assert_eq!(a.len(), 6, "every run stored: {r}");
    assert!(a.iter().all(|x| x["status"] == "complete"));
}
