//! `latlab tune` from the command line: the A/B of each kind of remedy, and bad input.

use super::*;

#[test]
fn tune_lists_runs_an_ab_stores_both_arms_and_refuses_bad_input() {
    // Its A/B runs `latlab rt`, which lifts RT throttling for each run.
    let _one = rt_throttling_lock();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d)
        .args(["tune", "--list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("shield (study 001").and(predicate::str::contains("undone:")));
    latlab(d)
        .args(["tune", "no-such-remedy"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no remedy called 'no-such-remedy'"));
    latlab(d)
        .args(["tune", "timer-slack", "--", "--no-such-option"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the options after -- are `latlab rt`'s"));
    // One round: a baseline run, a remedy run, and the A/B; the verdict line comes first.
    let out = latlab(d)
        .args(["tune", "timer-slack", "--rounds", "1", "--", "--rate", "2000", "--duration", "200ms", "--no-mlock"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("timer-slack: "), "{text}");
    assert!(text.contains("level 1 wake-up, unloaded"), "{text}");
    let runs = latlab(d).args(["runs", "--json"]).assert().success().get_output().stdout.clone();
    let runs: serde_json::Value = serde_json::from_slice(&runs).unwrap();
    let exps: Vec<&str> = runs.as_array().unwrap().iter().map(|r| r["experiment"].as_str().unwrap()).collect();
    assert_eq!(exps, ["tune", "rt", "rt"], "newest first");
    let json = latlab(d).args(["export", "1", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!((rec["config"]["tune.arm"].as_str(), rec["config"]["tune.round"].as_i64()), (Some("baseline"), Some(1)));
    let json = latlab(d).args(["export", "3", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(rec["config"]["baseline_runs"], serde_json::json!([1]));
    assert_eq!(rec["config"]["remedy_runs"], serde_json::json!([2]));
    assert!(["helps", "no effect detectable", "hurts", "mixed"].contains(&rec["config"]["verdict"].as_str().unwrap()));
    // The report draws the A/B; its metrics are documented.
    latlab(d).args(["report", "3", "-o", "r.html"]).assert().success();
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.contains("baseline vs remedy (CDF)"));
    metrics_match_the_docs(d, false);
}

#[test]
fn tune_measures_the_display_client_cures_and_the_live_playout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let exported = |id: &str| -> serde_json::Value {
        let json = latlab(d).args(["export", id, "--format", "json"]).assert().success().get_output().stdout.clone();
        serde_json::from_slice(&json).unwrap()
    };
    // A seed 000 cure: each arm a main-only pipeline run, the cure on in the remedy's only.
    latlab(d)
        .args(["tune", "skip-mac", "--rounds", "1", "--", "--main-only", "--speed", "0.5", "--duration", "1s"])
        .assert()
        .success()
        .stdout(
            predicate::str::starts_with("skip-mac: ").and(predicate::str::contains("client CPU per byte received")),
        );
    let (a, b, ab) = (exported("1"), exported("2"), exported("3"));
    assert_eq!((a["config"]["cures"].as_str(), a["config"]["main_only"].as_bool()), (Some("none"), Some(true)));
    assert_eq!(b["config"]["cures"].as_str(), Some("skip-mac"));
    assert_eq!(ab["config"]["remedy"].as_str(), Some("skip-mac"));
    assert!(ab["metrics"].as_array().unwrap().iter().any(|m| m["name"] == "tune.pipeline.dropped_fraction.p50_diff"));
    // Seed 002's live playout: played on arrival against the adaptive player.
    latlab(d)
        .args([
            "tune",
            "playout",
            "--rounds",
            "1",
            "--",
            "--interval",
            "10ms",
            "--duration",
            "300ms",
            "--wait",
            "200ms",
        ])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("playout: ").and(predicate::str::contains("send to playout")));
    let (a, b) = (exported("4"), exported("5"));
    assert_eq!((a["config"]["playout"].as_str(), b["config"]["playout"].as_str()), (Some("arrival"), Some("adaptive")));
    // Refused with their reasons: a remote receiver, two cures that do not combine.
    latlab(d)
        .args(["tune", "playout", "--", "probe", "198.18.0.1"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("loopback"));
    latlab(d)
        .args(["display", "pipeline", "--main-only", "--direct", "--decode-thread"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("do not combine"));
    metrics_match_the_docs(d, false);
}
