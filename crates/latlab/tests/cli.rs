//! Smoke tests of the real `latlab` binary: the stored-run workflow, exports, report,
//! error messages and exit codes, Ctrl-C, and the suite.

#[path = "cli/display.rs"]
mod display;
mod docs;
#[path = "cli/monitor.rs"]
mod monitor;
#[path = "cli/rdp.rs"]
mod rdp;
#[path = "cli/rdp_serve.rs"]
mod rdp_serve;
#[path = "cli/rt.rs"]
mod rt;
#[path = "cli/stall.rs"]
mod stall;
#[path = "cli/startup.rs"]
mod startup;
#[path = "cli/summary.rs"]
mod summary;
#[path = "cli/tune.rs"]
mod tune;
#[path = "cli/typing.rs"]
mod typing;
#[path = "cli/udp.rs"]
mod udp;

use assert_cmd::Command;
use predicates::prelude::*;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn latlab(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("latlab").unwrap();
    // The tests read metrics from a measuring command's summary: every one listed (the brief
    // default has a test of its own).
    c.current_dir(dir).env_remove("LATLAB_DB").env("LATLAB_VERBOSE", "true");
    c
}

/// A latlab child killed when dropped, so a failing assertion never leaves it holding its port.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start `latlab ARGS` in `dir` and wait for its first stderr line, which must contain `ready`.
fn spawn_ready(dir: &Path, args: &[&str], ready: &str) -> Reaped {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(dir)
        .args(args)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(c.stderr.as_mut().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains(ready), "{line}");
    Reaped(c)
}

/// Run a tiny selftest into `dir/latlab.db` and return nothing; panics on failure.
fn tiny_selftest(dir: &Path) {
    latlab(dir)
        .args(["selftest", "--samples", "20", "--no-mlock"])
        .assert()
        .success()
        .stdout(predicate::str::contains("# latlab selftest #"))
        .stderr(predicate::str::contains("stored selftest run #"));
}

fn well_formed(xml: &str) -> usize {
    use quick_xml::events::Event;
    let mut r = quick_xml::Reader::from_str(xml);
    r.config_mut().check_end_names = true;
    let mut svgs = 0;
    loop {
        match r.read_event() {
            Ok(Event::Start(e)) if e.name().as_ref() == b"svg" => svgs += 1,
            Ok(Event::Eof) => return svgs,
            Ok(_) => {}
            Err(e) => panic!("report not well-formed at {}: {e}", r.error_position()),
        }
    }
}

#[test]
fn bad_values_exit_2_with_the_choices_and_leave_no_database() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (args, choices) in [
        (&["display", "cache", "--policies", "nope"][..], "lru, fifo, sieve"),
        (&["rt", "--signal", "nope"][..], "eventfd, futex, pipe, condvar, none"),
        (&["codec", "compress", "--algo", "nope", "--in", "a", "--out", "b"][..], "mppc8, mppc64, ncrush, xcrush"),
        (&["display", "ops", "--workloads", "nope"][..], "typing"),
    ] {
        latlab(d)
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("invalid value 'nope'").and(predicate::str::contains(choices)));
    }
    // Ranges are the configuration's to check: still exit 2, with the reason.
    for (args, says) in [
        (&["selftest", "--fifo-priority", "100"][..], "1–99"),
        (&["rt", "--l1-priority", "0"][..], "1–99"),
        (&["udp", "--interval", "1us"][..], "between 10 µs and 60 s"),
        (&["udp", "--duration", "2s", "--sweep-intervals", "1s"][..], "too short for the sweep interval"),
        (&["display", "ops", "--duration", "0s"][..], "at least 1"),
        (&["suite", "--only", "nope"][..], "registered: selftest, rt"),
    ] {
        latlab(d).args(args).assert().code(2).stderr(predicate::str::contains(says));
    }
    assert!(!d.join("latlab.db").exists(), "nothing ran, nothing was stored");
}

#[test]
fn completions_and_man_pages_come_from_the_grammar() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bash = latlab(d).args(["completions", "bash"]).assert().success().get_output().stdout.clone();
    let bash = String::from_utf8(bash).unwrap();
    assert!(bash.contains("complete -F") && bash.contains("latlab") && bash.contains("--histogram-format"));
    latlab(d).args(["completions", "zsh"]).assert().success().stdout(predicate::str::contains("#compdef latlab"));
    latlab(d).args(["completions", "fish"]).assert().success().stdout(predicate::str::contains("complete -c latlab"));
    latlab(d).args(["man", "-o", "man"]).assert().success();
    let top = std::fs::read_to_string(d.join("man/latlab.1")).unwrap();
    assert!(top.contains(".TH latlab") && top.contains("selftest"));
    let rt = std::fs::read_to_string(d.join("man/latlab-rt.1")).unwrap();
    assert!(rt.contains("eventfd"), "the choices are in the page");
}

#[test]
fn selftest_store_export_report_compare() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    tiny_selftest(d);
    tiny_selftest(d);
    assert!(d.join("latlab.db").exists());

    let runs = latlab(d).args(["runs", "--json"]).assert().success().get_output().stdout.clone();
    let runs: serde_json::Value = serde_json::from_slice(&runs).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 2);
    assert_eq!(runs[0]["status"], "complete");

    let json = latlab(d).args(["export", "1", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(rec["schema"], "latlab.run/7");
    assert_eq!(rec["experiment"], "selftest");
    assert!(rec["machine"]["info"]["cpus"].as_u64().unwrap() >= 1);
    assert!(rec["machine"]["info"]["kernel_release"].is_string());
    let caps = rec["capabilities"].as_array().unwrap();
    assert!(caps.iter().any(|c| c["name"] == "sched.fifo"), "what was obtained must be recorded");
    let metrics = rec["metrics"].as_array().unwrap();
    assert!(metrics.iter().any(|m| m["name"] == "sleep.other.1ms.p99" && m["unit"] == "ns"));

    latlab(d)
        .args(["export", "latest", "--format", "csv"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("series,unit,index,value\nclock.read_delta,ns,0,"));
    latlab(d)
        .args(["export", "selftest", "--format", "md"])
        .assert()
        .success()
        .stdout(predicate::str::contains("## Metrics"));
    latlab(d)
        .args(["export", "selftest", "--format", "flent"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("has no network timeline").and(predicate::str::contains("stall net")));
    latlab(d).args(["show", "latest"]).assert().success().stdout(predicate::str::contains("selftest #2"));
    latlab(d).args(["compare", "1", "2"]).assert().success().stdout(
        predicate::str::contains("comparing #1 (A) with #2 (B)").and(predicate::str::contains("sleep.other.1ms")),
    );

    // The report re-renders from the store: no measuring, so the run count stays at 2.
    latlab(d).args(["report", "-o", "r.html"]).assert().success().stderr(predicate::str::contains("selftest #2"));
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(well_formed(&html) >= 10, "expected the selftest's plots");
    latlab(d).args(["report", "1", "2", "-o", "both.html"]).assert().success();
    let runs = latlab(d).args(["runs", "--json"]).assert().success().get_output().stdout.clone();
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&runs).unwrap().as_array().unwrap().len(), 2);
}

#[test]
fn clear_errors_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d)
        .args(["show", "1"])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with("error: no database at 'latlab.db'"));
    assert!(!d.join("latlab.db").exists(), "read commands must not create a database");
    latlab(d).args(["selftest", "--fifo-priority", "0"]).assert().code(2);
    latlab(d).args(["frobnicate"]).assert().code(2);
    tiny_selftest(d);
    latlab(d).args(["show", "42"]).assert().code(1).stderr(predicate::str::contains("no run '42' in the database"));
    latlab(d)
        .args(["suite", "--only", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown experiment 'nope'"));
    latlab(d).args(["suite", "--only", "monitor"]).assert().code(2).stderr(
        predicate::str::contains("'monitor' is not run by the suite").and(predicate::str::contains("latlab monitor")),
    );
    // A setting the monitor refuses is refused by its `validate`, through the one runner.
    latlab(d)
        .args(["monitor", "--probes", "rt,chain", "--wake", "none"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the chain probe needs a wake path"));
    latlab(d).args(["monitor", "--key", "k"]).assert().code(2).stderr(predicate::str::contains("give --peer"));
    // LATLAB_DB and --db both pick the file.
    latlab(d).env("LATLAB_DB", d.join("latlab.db")).current_dir("/").args(["runs"]).assert().success();
    latlab(d).args(["--db", "other.db", "runs"]).assert().code(1);
}

/// The runs stored in `d` (`latlab runs --json`), newest first; none while it has no database.
fn runs_list(d: &Path) -> Vec<serde_json::Value> {
    if !d.join("latlab.db").exists() {
        return Vec::new();
    }
    let out = latlab(d).args(["runs", "--json"]).assert().success().get_output().stdout.clone();
    serde_json::from_slice::<serde_json::Value>(&out).unwrap().as_array().cloned().unwrap_or_default()
}

/// Wait, by what is stored in `d`, until it holds `n` runs, one of them `incomplete` (a long
/// run's checkpoint, or a row it writes as it goes), while `child` still runs; `within` bounds a
/// hang.
fn wait_for_incomplete(d: &Path, child: &mut std::process::Child, n: usize, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let list = runs_list(d);
        if list.len() == n && list.iter().any(|r| r["status"] == "incomplete") {
            return;
        }
        assert!(Instant::now() < deadline, "no incomplete row was stored: {list:?}");
        assert!(child.try_wait().unwrap().is_none(), "the run ended before its incomplete row was seen");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Send `child` SIGINT (Ctrl-C) and wait up to `within` for it to end; its exit status.
fn ctrl_c(child: &mut std::process::Child, within: Duration) -> std::process::ExitStatus {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    wait_stopped(child, within)
}

/// Ctrl-C as a terminal sends it: SIGINT to the whole process group of `child`, which must
/// have been started as the leader of its own (`process_group(0)`), as a shell starts a
/// command. Waits up to `within` for it to end; its exit status.
fn terminal_ctrl_c(child: &mut std::process::Child, within: Duration) -> std::process::ExitStatus {
    nix::sys::signal::killpg(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    wait_stopped(child, within)
}

fn wait_stopped(child: &mut std::process::Child, within: Duration) -> std::process::ExitStatus {
    let t0 = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(t0.elapsed() < within, "latlab did not stop within {within:?} of Ctrl-C");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Start `latlab ARGS` (which would run for minutes), wait until it says it is measuring,
/// send SIGINT, and check it exits 130 with an `interrupted` run stored holding samples.
fn interrupt_and_check(args: &[&str], ready: &str) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = assert_cmd::cargo::cargo_bin("latlab");
    let mut child = std::process::Command::new(bin)
        .current_dir(d)
        .env_remove("LATLAB_DB")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains(ready), "{line}");
    // Let it get into its timed loops, then interrupt.
    std::thread::sleep(Duration::from_millis(2500));
    let status = ctrl_c(&mut child, Duration::from_secs(60));
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    assert_eq!(status.code(), Some(130), "stderr: {rest}");
    assert!(rest.contains("interrupted: kept what was measured"), "{rest}");
    let runs = latlab(d).args(["runs", "--json"]).assert().success().get_output().stdout.clone();
    let runs: serde_json::Value = serde_json::from_slice(&runs).unwrap();
    assert_eq!(runs[0]["status"], "interrupted");
    assert!(runs[0]["samples"].as_i64().unwrap() > 0, "what was measured is kept");
}

#[test]
fn ctrl_c_stores_an_interrupted_run_and_exits_130() {
    // 100,000 samples per case would take minutes: the run can only end by the signal.
    interrupt_and_check(&["selftest", "--samples", "100000", "--no-mlock"], "measuring");
}

/// Runs of `latlab rt` as root lift RT throttling for their run; the tests that start one
/// take this lock, so each can check the kernel's setting is back afterwards.
static RT_THROTTLING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn rt_throttling_lock() -> std::sync::MutexGuard<'static, ()> {
    RT_THROTTLING.lock().unwrap_or_else(|e| e.into_inner())
}

fn rt_runtime() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/sched_rt_runtime_us").ok()
}

#[test]
fn ctrl_c_stops_rt_cleanly() {
    let _one = rt_throttling_lock();
    let before = rt_runtime();
    interrupt_and_check(&["rt", "--duration", "120s", "--no-mlock"], "rt: level 1");
    // Ctrl-C ends the run on its normal path: RT throttling is back as it was.
    assert_eq!(rt_runtime(), before, "sched_rt_runtime_us after an interrupted run");
}

#[test]
fn a_second_ctrl_c_skips_saving_but_still_puts_rt_throttling_back() {
    let _one = rt_throttling_lock();
    let before = rt_runtime();
    if !nix::unistd::Uid::effective().is_root() || before.as_deref().is_none_or(|v| v.trim() == "-1") {
        latlab_model::testing::skip("RT throttling is lifted only as root, from a kernel's own value");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(dir.path())
        .env_remove("LATLAB_DB")
        .args(["rt", "--duration", "120s", "--no-mlock"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    // Wait (by the kernel's setting, not by time) until the run has lifted it.
    let t0 = Instant::now();
    while rt_runtime().as_deref().map(str::trim) != Some("-1") {
        assert!(t0.elapsed() < Duration::from_secs(60), "rt never lifted RT throttling");
        assert!(child.try_wait().unwrap().is_none(), "rt ended before it was interrupted");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Two signals back to back, as `timeout -s INT` gives them: SIGINT then SIGTERM (two of
    // one kind, both pending at once, the kernel would merge into one).
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let status = child.wait().unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut err, &mut text).unwrap();
    assert_eq!(status.code(), Some(130), "{text}");
    assert_eq!(rt_runtime(), before, "sched_rt_runtime_us after two Ctrl-Cs: {text}");
    let marker = format!("latlab-setting-{}-", child.id());
    let left: Vec<_> = std::fs::read_dir("/run")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&marker))
        .collect();
    assert!(left.is_empty(), "its marker went with the change: {left:?}");
    // The second signal did the undo (or, should the first have ended the run before the
    // second was handled, the run's own end did).
    let twice = text.contains("interrupted twice: putting the machine back, then exiting without saving");
    assert!(twice || text.contains("interrupted: kept"), "{text}");
    eprintln!("second signal handled: {twice}");
}

#[test]
fn suite_leaves_database_report_and_summary() {
    let _one = rt_throttling_lock();
    // The suite starts a real RDP server too.
    let _server = rdp::one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The startup entry measures where /var/tmp is on disk, and says why not elsewhere.
    let startup = if latlab_startup::pagecache::evictable(Path::new("/var/tmp")) {
        "cold + prefetch launch"
    } else {
        "startup skipped"
    };
    // Scaled down (the main job runs the whole suite in release; this checks what it leaves and
    // that every metric is documented, which the small suite emits too).
    latlab(d).args(["suite", "--small", "yes"]).assert().success().stdout(
        predicate::str::contains("latlab suite — summary")
            .and(predicate::str::contains("selftest"))
            .and(predicate::str::contains("paper vs here"))
            .and(
                predicate::str::is_match(
                    r"\d+ paper rows? measured this machine: \d+ reproduced, \d+ differs?, \d+ not comparable here",
                )
                .unwrap(),
            )
            .and(predicate::str::contains("verdict: "))
            .and(predicate::str::contains(startup))
            .and(predicate::str::contains("report: latlab-report.html"))
            .and(predicate::str::contains("scaled down (--small yes)")),
    );
    assert!(d.join("latlab.db").exists());
    let html = std::fs::read_to_string(d.join("latlab-report.html")).unwrap();
    assert!(well_formed(&html) > 0);
    metrics_match_the_docs(d, true);
}

/// Every metric the runs in `d` emit is in its experiment's docs table; with `require_all`
/// (the suite's runs), every name there is emitted too (unless the row is conditional, or a
/// part of that experiment was skipped here).
fn metrics_match_the_docs(d: &Path, require_all: bool) {
    use std::collections::{BTreeMap, BTreeSet};
    let runs = latlab(d).args(["runs", "--json"]).assert().success().get_output().stdout.clone();
    let runs: serde_json::Value = serde_json::from_slice(&runs).unwrap();
    let mut emitted: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut skipped: BTreeSet<&str> = BTreeSet::new();
    for r in runs.as_array().unwrap() {
        let id = r["id"].to_string();
        let json = latlab(d).args(["export", &id, "--format", "json"]).assert().success().get_output().stdout.clone();
        let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let doc = docs::doc_of(rec["experiment"].as_str().unwrap());
        if rec["mode"] == "skipped" {
            skipped.insert(doc);
        }
        // Every paper row is judged, by a stated rule.
        for p in rec["paper"].as_array().unwrap() {
            let v = p["verdict"].as_str().unwrap_or("missing");
            assert!(["reproduced", "differs", "not_comparable", "self_check", "simulated"].contains(&v), "{v}: {p}");
            assert!(!p["basis"].as_str().unwrap_or("").is_empty(), "no basis: {p}");
            // A judged row names its rule and tolerance.
            if ["reproduced", "differs", "self_check", "simulated"].contains(&v) {
                let b = p["basis"].as_str().unwrap_or("");
                assert!(
                    ["tolerance", "held to", "within"].iter().any(|w| b.contains(w)),
                    "a basis without its rule's tolerance: {p}"
                );
            }
            // A self-check or simulation always says whether its own check passed.
            if ["self_check", "simulated"].contains(&v) {
                assert!(p["check_passed"].is_boolean(), "no check_passed: {p}");
            }
        }
        let set = emitted.entry(doc).or_default();
        for m in rec["metrics"].as_array().unwrap() {
            set.insert(m["name"].as_str().unwrap().to_string());
        }
    }
    let mut bad = Vec::new();
    for (doc, names) in &emitted {
        let documented = docs::documented(&docs::read_doc(doc));
        assert!(!documented.is_empty(), "{doc} has no metric table");
        for m in docs::mismatches(&documented, names, require_all && !skipped.contains(doc)) {
            bad.push(format!("{doc}: {m}"));
        }
    }
    assert!(bad.is_empty(), "the docs and the metrics differ:\n{}", bad.join("\n"));
}

/// Run latlab without privileges: directly when not root, else dropped to `nobody` with
/// util-linux `setpriv` (capabilities go with the uid change).
fn unprivileged(dir: &Path, args: &[&str]) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("latlab");
    let mut c = if nix::unistd::Uid::effective().is_root() {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(&bin);
        c
    } else {
        std::process::Command::new(&bin)
    };
    c.current_dir(dir)
        .env_remove("LATLAB_DB")
        .env("LATLAB_VERBOSE", "true")
        .args(args)
        .output()
        .expect("run latlab unprivileged (setpriv from util-linux when root)")
}

#[test]
fn lengths_are_durations_with_units_and_the_old_spellings_still_work_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d)
        .args(["idle", "--duration", "1s"])
        .assert()
        .success()
        .stderr(predicate::str::contains("old spelling").not());
    latlab(d).args(["idle", "--seconds", "1"]).assert().success().stderr(predicate::str::contains(
        "warning: --seconds 1 is the old spelling, kept for this release: give --duration 1s",
    ));
    latlab(d).args(["idle", "--seconds", "1", "--duration", "1s"]).assert().code(2);
    // The old spellings are not offered.
    for (cmd, new, old) in [
        (&["idle"][..], "--duration <D>", "--seconds"),
        (&["display", "latency"][..], "--duration <D>", "--seconds"),
        (&["display", "ops"][..], "--op-duration <D>", "--op-seconds"),
        (&["startup", "io"][..], "--interval <D>", "--interval-ms"),
    ] {
        let help = latlab(d).args(cmd).arg("--help").assert().success().get_output().stdout.clone();
        let help = String::from_utf8_lossy(&help);
        assert!(help.contains(new) && !help.contains(old), "{cmd:?}: {help}");
    }
    // A launch's `--timeout`: a duration; a bare number is the old spelling, in seconds.
    latlab(d)
        .args(["startup", "io", "--timeout", "20s", "--", "true"])
        .assert()
        .success()
        .stderr(predicate::str::contains("old spelling").not());
    latlab(d)
        .args(["startup", "io", "--timeout", "20", "--", "true"])
        .assert()
        .success()
        .stderr(predicate::str::contains("warning: --timeout 20 (bare seconds) is the old spelling"));
}

#[test]
fn output_into_a_pipe_closed_early_ends_quietly_with_0() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A run whose exports are far larger than a pipe's buffer (64 KiB): over 1 MB each.
    latlab(d).args(["selftest", "--samples", "100", "--no-mlock"]).assert().success();
    for format in ["csv", "json"] {
        // `latlab export … | head -c 100`: the reader takes a little and closes its end.
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
            .current_dir(d)
            .env_remove("LATLAB_DB")
            .args(["export", "latest", "--format", format])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 100];
        child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{format}: {err}");
        assert!(err.is_empty(), "{format}: {err}");
    }
}

#[test]
fn a_database_that_cannot_be_written_is_refused_before_anything_is_measured() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::set_permissions(d, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    latlab(d).args(["selftest", "--samples", "10"]).assert().success();
    let db = d.join("latlab.db");
    std::fs::set_permissions(&db, std::os::unix::fs::PermissionsExt::from_mode(0o444)).unwrap();
    // As a user who may read the database but not write it (root may write anything).
    let out = unprivileged(d, &["rt", "--duration", "2s", "--load", "none"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot store runs in 'latlab.db': the database cannot be written"), "{err}");
    // Refused before the run began: not announced, nothing measured, nothing stored.
    assert!(!err.contains("rt: level 1"), "{err}");
    assert_eq!(runs_list(d).len(), 1, "only the selftest run is stored");
}

#[test]
fn refused_capabilities_warn_and_continue_or_fail_under_strict() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::set_permissions(d, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let out = unprivileged(d, &["selftest", "--samples", "10"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("warning: sched.fifo: asked for fifo:80, got other"), "{err}");
    assert!(err.contains("continuing without it"), "{err}");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("| sched.fifo | fifo:80 | other | **no** |"), "{md}");
    assert!(md.contains("Sleep lateness against period (default policy)"), "the sweep says what ran: {md}");

    let out = unprivileged(d, &["selftest", "--strict", "--samples", "10"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("error: capability refused (--strict): sched.fifo"), "{err}");
    assert!(!err.contains("continuing"), "{err}");
}
