//! `latlab rt` from the command line: runs, exports, the histogram and sweep, without privileges.

use super::*;

#[test]
fn rt_run_export_histogram_and_sweep() {
    let _one = rt_throttling_lock();
    let before = rt_runtime();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = latlab(d)
        .args(["rt", "--rate", "2000", "--duration", "200ms", "--no-mlock"])
        .assert()
        .success()
        .stdout(predicate::str::contains("# latlab rt #1").and(predicate::str::contains("Fig. 11, APP start, loaded")))
        .get_output()
        .stdout
        .clone();
    // The output opens with its answer (the headline figures, the paper rows' tally), the
    // wake-up table comes before the detail (every metric) at the end.
    let text = String::from_utf8(out).unwrap();
    let at = |h: &str| text.lines().position(|l| l.starts_with(h)).unwrap_or_else(|| panic!("no {h}: {text}"));
    assert_eq!(at("## In short"), 2, "{text}");
    assert!(text.lines().nth(4).is_some_and(|l| l.contains("L1 p99 ")), "{text}");
    assert!(at("## Wake-up chain") < at("## Metrics") && at("## Capabilities") < at("## Metrics"), "{text}");
    let json = latlab(d).args(["export", "rt", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let m = |n: &str| {
        rec["metrics"].as_array().unwrap().iter().find(|m| m["name"] == n).unwrap_or_else(|| panic!("{n}"))["value"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(m("unloaded.l1.latency.count") + m("unloaded.l1.missed"), m("unloaded.pulses"));
    assert_eq!(m("loaded.pulses"), 400.0);
    assert!(m("loaded.l2.latency.p99") >= m("loaded.l2.latency.p50"));
    // Beside each level's observed maximum, its worst case per hour or why there is none.
    let worst = rec["tables"].as_array().unwrap().iter().find(|t| t["name"] == "rt.worst").expect("rt.worst");
    let rows = worst["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "l1 and l2, unloaded and loaded: {worst}");
    for r in rows {
        let r = r.as_array().unwrap();
        let note = r.last().unwrap().as_str().unwrap();
        // 200 ms of samples says nothing of an hour: how long to run instead of a number.
        assert!(r[3].is_null() && note.ends_with("run at least 36 s"), "{r:?}");
    }
    // `show rt` is the newest measurement, not an `rt doctor` run after it; `rt:doctor` is that.
    latlab(d).args(["rt", "doctor", "--no-measure", "--only", "timer-slack"]).assert().success();
    latlab(d).args(["show", "rt"]).assert().success().stdout(predicate::str::starts_with("# latlab rt #1"));
    latlab(d)
        .args(["show", "rt:doctor"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("# latlab rt doctor #2"));
    let list = String::from_utf8(latlab(d).args(["runs"]).assert().success().get_output().stdout.clone()).unwrap();
    assert!(list.lines().nth(1).is_some_and(|l| l.contains(" rt ") && l.contains(" doctor ")), "{list}");
    // RT throttling: lifted for the run where it was on and this is root, put back after it.
    let on = before.as_deref().is_some_and(|v| v.trim() != "-1");
    if on && nix::unistd::geteuid().is_root() {
        assert_eq!(m("rt_throttling.lifted"), 1.0);
        assert_eq!(m("rt_throttling.restored"), 1.0);
    }
    assert_eq!(rt_runtime(), before, "sched_rt_runtime_us after the run");

    let out = latlab(d)
        .args(["rt", "--rate", "1000", "--duration", "100ms", "--load", "none", "--histogram-format", "cyclictest"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let h = String::from_utf8(out).unwrap();
    assert!(h.starts_with("# Histogram\n000000 "), "{h}");
    assert!(h.contains("# Total: ") && h.contains("# Max Latencies: "));
    assert_eq!(h.lines().nth(1).unwrap().matches('\t').count(), 1, "unloaded L1 and L2 columns");

    latlab(d)
        .args(["rt", "sweep", "--start", "1000", "--max", "2000", "--step", "100ms"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Frequency sweep under load").and(predicate::str::contains("Fig. 8, SF")));
    latlab(d).args(["rt", "--load", "bogus"]).assert().code(2).stderr(
        predicate::str::contains("invalid value 'bogus' for '--load")
            .and(predicate::str::contains("unknown load 'bogus'")),
    );
    latlab(d)
        .args(["rt", "--cpu", "4096"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("CPU 4096 does not exist"));
}

#[test]
fn rt_without_privileges_warns_and_completes_at_the_default_policy() {
    let _one = rt_throttling_lock();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::set_permissions(d, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let out = unprivileged(d, &["rt", "--rate", "1000", "--duration", "100ms", "--load", "none"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("warning: sched.fifo: asked for fifo:80, got other"), "{err}");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("| l1.sched.fifo | fifo:80 | other | **no** |"), "{md}");
    assert!(md.contains("`unloaded.l1.latency.p50`"), "a completed run: {md}");
    // Loaded, with RT throttling on: it cannot be lifted without root, the run says so,
    // measures all the same, and judges the loaded rows not comparable.
    if rt_runtime().is_some_and(|v| v.trim() != "-1") {
        let out = unprivileged(d, &["rt", "--rate", "1000", "--duration", "100ms"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(err.contains("rt_throttling.lift"), "{err}");
        let md = String::from_utf8_lossy(&out.stdout);
        let row =
            md.lines().find(|l| l.starts_with("| 001 | Fig. 11, APP start, loaded, against CE 3.0")).expect("the row");
        assert!(row.contains("**not comparable here**") && row.contains("could not be lifted"), "{row}");
        let row = md
            .lines()
            .find(|l| l.starts_with("| 001 | Fig. 11, APP start, unloaded, against CE 3.0"))
            .expect("the row");
        assert!(!row.contains("could not be lifted"), "{row}");
    }
    let out = unprivileged(d, &["rt", "--strict", "--rate", "1000", "--duration", "100ms"]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn rt_doctor_ranks_its_findings_measures_a_toggle_and_stores_both() {
    let _one = rt_throttling_lock();
    let before = rt_runtime();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Inspection alone: every finding, none measured.
    let out = latlab(d).args(["rt", "doctor", "--no-measure", "--json"]).assert().success().get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let f = v["findings"].as_array().unwrap();
    let keys: Vec<&str> = f.iter().map(|x| x["key"].as_str().unwrap()).collect();
    for k in ["preemption", "rt-throttling", "idle-states", "irqs", "hypervisor", "swap", "hardware-gaps"] {
        assert!(keys.contains(&k), "{k} missing from {keys:?}");
    }
    assert!(f.iter().all(|x| x["cost"].is_null()));
    // Worst first: no fine finding before one that is not.
    let sev: Vec<&str> = f.iter().map(|x| x["severity"].as_str().unwrap()).collect();
    let first_fine = sev.iter().position(|s| *s == "fine").unwrap_or(sev.len());
    assert!(sev[first_fine..].iter().all(|s| *s == "fine"), "{sev:?}");
    // The gap detector and one toggle's A/B (timer slack needs no privilege and no load).
    let out = latlab(d)
        .args(["rt", "doctor", "--only", "timer-slack", "--gaps-for", "300ms", "--duration", "100ms", "--rounds", "2"])
        .args(["--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let g = &v["gaps"]["gaps"];
    assert!(g["reads"].as_u64().unwrap() > 0 && g["busy_ns"].as_u64().unwrap() > 0, "{g}");
    let slack = v["findings"].as_array().unwrap().iter().find(|x| x["key"] == "timer-slack").unwrap();
    if slack["severity"] != "fine" {
        let c = &slack["cost"];
        assert_eq!(c["stat"], "p99", "{slack}");
        assert!(c["as_found_ns"].as_f64().unwrap() > 0.0 && c["remedied_ns"].as_f64().unwrap() > 0.0);
        let tune = c["tune_run"].as_i64().unwrap();
        let t = latlab(d)
            .args(["export", &tune.to_string(), "--format", "json"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let t: serde_json::Value = serde_json::from_slice(&t).unwrap();
        assert_eq!(t["config"]["doctor.finding"], "timer-slack");
        assert_eq!(t["config"]["remedy"], "timer-slack");
    }
    // The others were not in --only and say so.
    let idle = v["findings"].as_array().unwrap().iter().find(|x| x["key"] == "idle-states").unwrap();
    assert!(idle["cost"].is_null());
    // The doctor's own run, with its ranked table.
    let run = v["run"].as_i64().unwrap();
    let r =
        latlab(d).args(["export", &run.to_string(), "--format", "json"]).assert().success().get_output().stdout.clone();
    let r: serde_json::Value = serde_json::from_slice(&r).unwrap();
    assert_eq!(r["mode"], "doctor");
    let t = r["tables"].as_array().unwrap().iter().find(|t| t["name"] == "rt.doctor").expect("rt.doctor");
    assert_eq!(t["rows"].as_array().unwrap().len(), v["findings"].as_array().unwrap().len());
    assert_eq!(t["rows"][0][0], 1);
    latlab(d)
        .args(["rt", "doctor", "--only", "nope", "--no-toggle"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a finding latlab can toggle"));
    assert_eq!(rt_runtime(), before, "the doctor left RT throttling as it found it");
}

#[test]
fn rt_doctor_runs_under_the_runner_its_row_stored_as_it_goes_and_ctrl_c_keeps_it_interrupted() {
    let _one = rt_throttling_lock();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A minute of gap detector: the run's row is stored before it starts; Ctrl-C ends it.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(d)
        .env_remove("LATLAB_DB")
        .args(["rt", "doctor", "--no-toggle", "--gaps-for", "60s", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let runs = |d: &Path| -> serde_json::Value {
        let out = latlab(d).args(["runs", "--json"]).assert().success().get_output().stdout.clone();
        serde_json::from_slice(&out).unwrap()
    };
    // The doctor's row, stored as it goes.
    super::wait_for_incomplete(d, &mut child, 1, Duration::from_secs(30));
    let status = super::ctrl_c(&mut child, Duration::from_secs(30));
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    let mut said = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut said).unwrap();
    assert_eq!(status.code(), Some(130), "{said}");
    assert!(said.contains("interrupted: kept what was measured"), "{said}");
    // One run, the row written as it went, now interrupted, with every finding ranked.
    let r = runs(d);
    assert_eq!(r.as_array().unwrap().len(), 1, "{r}");
    assert_eq!(r[0]["status"], "interrupted");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["run"], r[0]["id"]);
    let id = r[0]["id"].to_string();
    let rec = latlab(d).args(["export", &id, "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&rec).unwrap();
    assert_eq!(rec["mode"], "doctor");
    let t = rec["tables"].as_array().unwrap().iter().find(|t| t["name"] == "rt.doctor").expect("rt.doctor");
    assert_eq!(t["rows"].as_array().unwrap().len(), v["findings"].as_array().unwrap().len());
    assert!(v["gaps"]["gaps"]["reads"].as_u64().unwrap() > 0, "what the detector read before Ctrl-C is kept");
}

/// Busy shell loops at nice 19 (they take little from other tests' work, yet each waits for a
/// CPU and counts as runnable), killed when dropped.
struct Spinners(Vec<std::process::Child>);

impl Spinners {
    fn start(n: usize) -> Self {
        Spinners(
            (0..n)
                .map(|_| {
                    std::process::Command::new("nice")
                        .args(["-n", "19", "sh", "-c", "while :; do :; done"])
                        .spawn()
                        .unwrap()
                })
                .collect(),
        )
    }
}

impl Drop for Spinners {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[test]
fn an_unloaded_phase_beside_other_work_is_said_and_its_rows_are_not_comparable() {
    let _one = rt_throttling_lock();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Two busy tasks per CPU: some task always waits for a CPU, and two run beside latlab on each.
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let busy = Spinners::start(2 * cpus);
    let out = latlab(d).args(["rt", "--duration", "500ms", "--load", "none", "--no-mlock"]).assert().success();
    drop(busy);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("warning: the machine was not quiet during the unloaded phase ("), "{err}");
    assert!(err.contains("other tasks were runnable per CPU on average (quiet: under 0.25)"), "{err}");
    let json = latlab(d).args(["export", "rt", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let metric =
        |n: &str| rec["metrics"].as_array().unwrap().iter().find(|m| m["name"] == n).map(|m| m["value"].clone());
    assert_eq!(metric("unloaded.background.quiet"), Some(serde_json::json!(0)), "{}", rec["metrics"]);
    assert!(metric("unloaded.background.others_runnable_per_cpu").and_then(|v| v.as_f64()).is_some_and(|v| v >= 1.0));
    let rows = rec["paper"].as_array().unwrap();
    let unloaded: Vec<_> = rows.iter().filter(|r| r["figure"].as_str().unwrap().contains("unloaded")).collect();
    assert!(!unloaded.is_empty());
    for r in unloaded {
        assert_eq!(r["verdict"], "not_comparable", "{r}");
        assert!(r["basis"].as_str().unwrap().contains("not quiet"), "{r}");
    }
    // The report says so too.
    latlab(d).args(["report", "-o", "r.html"]).assert().success();
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.contains("the machine was not quiet during the unloaded phase"));
}
