//! What latlab promises under abuse (docs/reliability.md), tried on the real binary: a run
//! killed mid-way keeps what it had checkpointed, and two processes store into one database
//! at once.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A latlab command in `dir`. It leaves what killed latlabs left alone (`LATLAB_LEFTOVERS=keep`):
/// tests here kill latlabs on purpose and look at what is left, and commands of the tests
/// beside them must not remove it first. [`latlab_clearing`] is one that does not.
fn latlab(dir: &Path) -> Command {
    let mut c = latlab_clearing(dir);
    c.env(latlab_sys::leftovers::KEEP_ENV, "keep");
    c
}

/// A latlab command as a user runs it: it first puts back what killed latlabs left.
fn latlab_clearing(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("latlab").unwrap();
    c.current_dir(dir).env_remove("LATLAB_DB").env_remove(latlab_sys::leftovers::KEEP_ENV);
    c
}

/// Start a latlab server (`args`) in `dir`; returns it, its stderr, and its first line (where
/// it listens).
fn server(dir: &Path, args: &[&str]) -> (std::process::Child, std::io::BufReader<std::process::ChildStderr>, String) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(dir)
        .env(latlab_sys::leftovers::KEEP_ENV, "keep")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    (child, err, line)
}

fn runs(dir: &Path) -> serde_json::Value {
    let out = latlab(dir).args(["runs", "--json"]).assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

/// Start `latlab ARGS --checkpoint 200ms` in `d` (a run that would last minutes), wait until a
/// checkpoint holds samples, SIGKILL it, and return the stored run's sample count.
fn kill_after_a_checkpoint(d: &Path, args: &[&str]) -> i64 {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(d)
        .env_remove("LATLAB_DB")
        .env(latlab_sys::leftovers::KEEP_ENV, "keep")
        .args(args)
        .args(["--checkpoint", "200ms"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait (by what is stored, not by time) until a checkpoint holds samples, then SIGKILL.
    let deadline = Instant::now() + Duration::from_secs(90);
    let before = if d.join("latlab.db").exists() { runs(d).as_array().map_or(0, |a| a.len()) } else { 0 };
    loop {
        if d.join("latlab.db").exists() {
            let r = runs(d);
            if r.as_array().is_some_and(|a| a.len() == before + 1 && a[0]["samples"].as_i64().unwrap_or(0) > 0) {
                break;
            }
        }
        assert!(Instant::now() < deadline, "no checkpoint was stored");
        assert!(child.try_wait().unwrap().is_none(), "{args:?} ended before it was killed");
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let r = runs(d);
    assert_eq!(r[0]["status"], "incomplete");
    r[0]["samples"].as_i64().unwrap()
}

/// Runs of `latlab rt` as root lift RT throttling for their run, and a run killed leaves what
/// the next command puts back: the tests that start one, or clear leftovers, take this lock, so
/// each can check the kernel's setting and see its own leftovers.
static RT_THROTTLING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn rt_runtime() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/sched_rt_runtime_us").ok().map(|v| v.trim().to_string())
}

#[test]
fn a_run_killed_mid_way_is_kept_as_incomplete_up_to_its_last_checkpoint() {
    let _one = RT_THROTTLING.lock().unwrap_or_else(|e| e.into_inner());
    let throttling = rt_runtime();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Two minutes of udp on loopback, killed: the packets whose loss wait had passed are kept.
    kill_after_a_checkpoint(d, &["udp", "--duration", "120s", "--interval", "1ms", "--wait", "100ms"]);
    let json = latlab(d).args(["export", "1", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let sent = rec["metrics"].as_array().unwrap().iter().find(|m| m["name"] == "packets.sent").unwrap();
    assert!(sent["value"].as_i64().unwrap() > 0 && sent["value"].as_i64().unwrap() < 120_000);
    // Two minutes of rt, killed the same way.
    let samples = kill_after_a_checkpoint(d, &["rt", "--duration", "120s", "--rate", "2000", "--no-mlock"]);
    let r = runs(d);
    assert_eq!(r.as_array().unwrap().len(), 2);
    assert!(samples > 0);
    // SIGKILL left RT throttling lifted; its marker names the old value, which the next latlab
    // command of any kind (here `runs`) writes back first, saying so.
    let lifts = nix::unistd::Uid::effective().is_root() && throttling.as_deref().is_some_and(|v| v != "-1");
    if lifts {
        assert_eq!(rt_runtime().as_deref(), Some("-1"), "the killed run had lifted RT throttling");
        let out = latlab_clearing(d).args(["runs"]).assert().success().get_output().stderr.clone();
        let text = String::from_utf8_lossy(&out);
        assert!(text.contains("removed change to /proc/sys/kernel/sched_rt_runtime_us (was "), "{text}");
        assert_eq!(rt_runtime(), throttling, "`latlab runs` put RT throttling back");
        latlab(d).args(["clean"]).assert().success().stdout(predicate::str::contains("nothing left behind"));
    } else {
        latlab_model::testing::skip("RT throttling is lifted only as root, from a kernel's own value");
    }
    // show, export and report all read it, and say what incomplete means.
    latlab(d).args(["show", "latest"]).assert().success().stdout(
        predicate::str::contains("# latlab rt #2 — incomplete").and(predicate::str::contains("last checkpoint")),
    );
    let json = latlab(d).args(["export", "2", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(rec["status"], "incomplete");
    let pulses = rec["metrics"].as_array().unwrap().iter().find(|m| m["name"] == "unloaded.pulses").unwrap();
    assert!(pulses["value"].as_i64().unwrap() > 0 && pulses["value"].as_i64().unwrap() < 240_000);
    assert!(rec["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().starts_with("checkpoint: ")));
    latlab(d)
        .args(["export", "2", "--format", "csv"])
        .assert()
        .success()
        .stdout(predicate::str::contains("unloaded.l1.latency,ns,0,"));
    latlab(d).args(["report", "-o", "r.html"]).assert().success();
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.contains("(incomplete)") && html.contains("last checkpoint"));
    // The next run stores beside it, and a complete run replaces its own checkpoints.
    latlab(d)
        .args(["rt", "--checkpoint", "50ms", "--duration", "300ms", "--rate", "2000", "--no-mlock"])
        .assert()
        .success();
    let r = runs(d);
    assert_eq!(r.as_array().unwrap().len(), 3);
    assert_eq!((r[0]["status"].as_str(), r[1]["status"].as_str()), (Some("complete"), Some("incomplete")));
    assert_eq!(r[1]["samples"].as_i64().unwrap(), samples, "the killed run is left as it was");
    latlab(d).args(["rt", "--checkpoint=-1"]).assert().code(2).stderr(predicate::str::contains("not a duration"));
}

#[test]
fn two_processes_store_runs_in_one_database_at_once() {
    let _one = RT_THROTTLING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = assert_cmd::cargo::cargo_bin("latlab");
    // Both create the database and store three runs each, their writes interleaving.
    let kids: Vec<_> = (0..2)
        .map(|_| {
            std::process::Command::new(&bin)
                .current_dir(d)
                .env_remove("LATLAB_DB")
                .args([
                    "rt",
                    "--checkpoint",
                    "10ms",
                    "--duration",
                    "100ms",
                    "--rate",
                    "2000",
                    "--no-mlock",
                    "--signal",
                    "none",
                ])
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

/// The resident set of a process, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    s.lines().find_map(|l| l.strip_prefix("VmRSS:")).unwrap().trim().trim_end_matches(" kB").trim().parse().unwrap()
}

#[test]
fn udp_serve_outlives_a_junk_flood_while_a_probe_completes_and_says_what_it_dropped() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (mut server, mut err, mut line) = server(d, &["udp", "serve", "--bind", "127.0.0.1:0"]);
    let addr: std::net::SocketAddr =
        line.split("reflecting on ").nth(1).and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
    // The probe runs while 600 sockets (600 source ports) each send 50 junk datagrams: a
    // bounded flood, all on loopback.
    let probe = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(d)
        .env_remove("LATLAB_DB")
        .args(["udp", "probe", &addr.to_string(), "--interval", "2ms", "--duration", "1s", "--wait", "500ms", "-v"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut junk_sent = 0u64;
    for s in 0..600u32 {
        let sock = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        for i in 0..50u32 {
            let mut junk = [0u8; 96];
            junk[..4].copy_from_slice(&(s * 50 + i).to_le_bytes());
            if sock.send_to(&junk[..(i as usize % 96) + 1], addr).is_ok() {
                junk_sent += 1;
            }
        }
    }
    let out = probe.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("`loss.count`") && md.contains("`loss.ratio`"), "the probe reports its loss: {md}");
    // The server is up, small, and counts what it dropped: on SIGUSR1, then on SIGTERM.
    assert!(server.try_wait().unwrap().is_none(), "the flood ended the server");
    let rss = rss_kib(server.id());
    assert!(rss < 64 * 1024, "udp serve grew to {rss} KiB under the flood");
    let pid = nix::unistd::Pid::from_raw(server.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGUSR1).unwrap();
    line.clear();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("malformed") && line.contains("sources forgotten"), "{line}");
    let malformed: u64 = line.split(" malformed").next().unwrap().rsplit(' ').next().unwrap().parse().unwrap();
    assert!(malformed > 0 && malformed <= junk_sent, "{line}");
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let status = server.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    assert!(status.success(), "{rest}");
    assert!(rest.contains("udp serve: stopped: ") && rest.contains("replied"), "{rest}");
}

/// Threads of a process.
fn threads(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    s.lines().find_map(|l| l.strip_prefix("Threads:")).unwrap().trim().parse().unwrap()
}

#[test]
fn display_serve_holds_a_thousand_idle_connections_in_few_threads_while_a_viewer_completes() {
    use std::io::BufRead;
    // 1,000 client sockets here, beside the test harness's own descriptors.
    let (_, hard) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE).unwrap();
    nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE, hard.min(8192), hard).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (mut server, mut err, mut line) = server(
        d,
        &[
            "display",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--max-sessions",
            "2",
            "--max-waiting",
            "2000",
            "--hello-deadline",
            "60s",
            "--max-session",
            "5s",
        ],
    );
    let addr = line.split("listening on ").nth(1).and_then(|r| r.split(' ').next()).unwrap().to_string();
    let pid = nix::unistd::Pid::from_raw(server.id() as i32);
    // Once the server has answered a SIGUSR1 every thread it starts with is up (the signal
    // handler's starts a moment after the "listening" line): count them from there.
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGUSR1).unwrap();
    line.clear();
    err.read_line(&mut line).unwrap();
    let base = threads(server.id());
    let idle: Vec<std::net::TcpStream> = (0..1000).map(|_| std::net::TcpStream::connect(&addr).unwrap()).collect();
    // Wait (by the server's own count) until all 1,000 are accepted.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGUSR1).unwrap();
        line.clear();
        err.read_line(&mut line).unwrap();
        if line.contains("1000 connections") {
            break;
        }
        assert!(Instant::now() < deadline, "the server never accepted them all: {line}");
    }
    assert_eq!(threads(server.id()), base, "an idle connection costs no thread");
    // A real viewer gets its session and completes.
    let view = latlab(d)
        .args(["display", "view", &addr, "--duration", "1s", "--width", "320", "--height", "240"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&view).contains("# latlab display"));
    // Refusals the client reports: a session longer than the server allows.
    latlab(d)
        .args(["display", "view", &addr, "--duration", "10s", "--width", "320", "--height", "240"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("the server refused the session: a session of 10.0 s is longer"));
    assert!(threads(server.id()) <= base + 2 * 2, "sessions are bounded: {} threads", threads(server.id()));
    drop(idle);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    assert!(server.wait().unwrap().success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    assert!(rest.contains("display serve: stopped: ") && rest.contains("1 too long"), "{rest}");
}

#[test]
fn what_a_killed_run_left_behind_is_found_and_removed_by_latlab_clean() {
    // Not beside the killed-rt test: its `latlab runs` puts back (and `latlab clean` here
    // removes) whatever any dead latlab left, the other test's leftovers included.
    let _one = RT_THROTTLING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pidfile = d.join("svc.pid");
    let file = d.join("boot.toml");
    std::fs::write(
        &file,
        format!(
            "format = \"latlab.boot/1\"\ntarget = \"ui\"\n\n[[service]]\nname = \"hang\"\ncommand = [\"sh\", \"-c\", \"echo $$ > {}; exec sleep 33.5\"]\nready = {{ line = \"never\" }}\n\n[[service]]\nname = \"ui\"\ncommand = [\"true\"]\nafter = [\"hang\"]\nready = {{ exit = true }}\n",
            pidfile.display()
        ),
    )
    .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("latlab");
    // A boot measure (its service never ready) and, as root, a shaped link (network
    // namespaces): both killed mid-way, with SIGKILL, so neither can clean up.
    let mut boot = std::process::Command::new(&bin)
        .current_dir(d)
        .args(["boot", "measure", file.to_str().unwrap(), "--runs", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let root = nix::unistd::Uid::effective().is_root() && Path::new("/run").exists();
    let mut net = root.then(|| {
        std::process::Command::new(&bin)
            .current_dir(d)
            .args(["stall", "net", "--loads", "0,1", "--step", "60s"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let svc: i32 = loop {
        if let Some(p) = std::fs::read_to_string(&pidfile).ok().and_then(|t| t.trim().parse().ok()) {
            break p;
        }
        assert!(Instant::now() < deadline, "the boot's service never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    let ns_of = |pid: u32| format!("/run/netns/latlab-{pid}-0-c");
    if let Some(n) = &net {
        while !Path::new(&ns_of(n.id())).exists() {
            assert!(Instant::now() < deadline, "stall net never made its namespaces");
            std::thread::sleep(Duration::from_millis(20));
        }
    } else {
        latlab_model::testing::skip("network namespaces need root: only the boot's service was left behind");
    }
    boot.kill().unwrap();
    boot.wait().unwrap();
    if let Some(n) = net.as_mut() {
        n.kill().unwrap();
        n.wait().unwrap();
    }
    assert!(Path::new(&format!("/proc/{svc}")).exists(), "the service outlived its latlab");

    let out = latlab(d).args(["clean", "--dry-run"]).assert().success().get_output().stdout.clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains(&format!("would remove process {svc} (sleep 33.5)")), "{text}");
    assert!(Path::new(&format!("/proc/{svc}")).exists(), "a dry run removes nothing");
    let out = latlab(d).args(["clean"]).assert().success().get_output().stdout.clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains(&format!("removed process {svc} (sleep 33.5)")), "{text}");
    if let Some(n) = &net {
        let ns = format!("latlab-{}-0-c", n.id());
        assert!(text.contains(&format!("removed network namespace {ns}")), "{text}");
        assert!(!Path::new(&ns_of(n.id())).exists());
    }
    // Killed and reaped by init: gone (a zombie's /proc entry goes once it is reaped).
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(format!("/proc/{svc}/stat")).is_ok_and(|s| !s.contains(") Z ")) {
        assert!(Instant::now() < deadline, "the service is still running");
        std::thread::sleep(Duration::from_millis(20));
    }
    latlab(d).args(["clean"]).assert().success().stdout(predicate::str::contains("nothing left behind by latlab"));
}

#[test]
fn monitor_stores_windows_as_they_close_serves_openmetrics_and_resumes_after_a_kill() {
    use std::io::{BufRead, Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // One-second windows for a minute, served on an ephemeral port; killed after two windows.
    let (mut child, err, _) =
        server(d, &["monitor", "--window", "1s", "--duration", "60s", "--metrics-listen", "127.0.0.1:0"]);
    let mut lines = err.lines();
    let mut windows = 0;
    for l in lines.by_ref() {
        if l.unwrap().starts_with("monitor: window ") {
            windows += 1;
            if windows == 2 {
                break;
            }
        }
    }
    let r = runs(d);
    assert_eq!(r[0]["status"], "incomplete", "stored incomplete while it runs");
    child.kill().unwrap();
    child.wait().unwrap();
    drop(lines);
    let json = latlab(d).args(["export", "1", "--format", "json"]).assert().success().get_output().stdout.clone();
    let _: serde_json::Value = serde_json::from_slice(&json).unwrap();
    // The same settings again: the killed run is resumed and its windows continue.
    let mut resumed = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(d)
        .env_remove("LATLAB_DB")
        .args(["monitor", "--window", "1s", "--duration", "60s", "--metrics-listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(resumed.stderr.take().unwrap());
    let mut said = String::new();
    let mut addr = String::new();
    let mut after = 0;
    let mut line = String::new();
    while err.read_line(&mut line).unwrap() > 0 {
        said.push_str(&line);
        if let Some(rest) = line.split("metrics on http://").nth(1) {
            addr = rest.split('/').next().unwrap().to_string();
        }
        if line.starts_with("monitor: window ") {
            after += 1;
            if after == 1 {
                break;
            }
        }
        line.clear();
    }
    assert!(said.contains("resuming run #1"), "{said}");
    // Prometheus's view: an OpenMetrics histogram of what this process has closed.
    let mut c = std::net::TcpStream::connect(&addr).unwrap();
    write!(c, "GET /metrics HTTP/1.0\r\n\r\n").unwrap();
    let mut m = String::new();
    c.read_to_string(&mut m).unwrap();
    assert!(m.contains("latlab_monitor_latency_seconds_bucket{le=\"+Inf\",probe=\"rt\""), "{m}");
    assert!(m.contains("latlab_monitor_windows_total{probe=\"rt\""), "{m}");
    assert!(m.trim_end().ends_with("# EOF"), "{m}");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(resumed.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    let out = resumed.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "Ctrl-C ends it as interrupted");
    let r = runs(d);
    assert_eq!(r.as_array().unwrap().len(), 1, "one run, resumed: {r}");
    let json = latlab(d).args(["export", "1", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(rec["status"], "interrupted");
    let n = rec["metrics"].as_array().unwrap().iter().find(|m| m["name"] == "monitor.windows").unwrap()["value"]
        .as_i64()
        .unwrap();
    assert!(n >= 3, "the killed run's two windows and the resumed one's: {n}");
}
