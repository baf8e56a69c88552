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
    let mut server = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(d)
        .args(["udp", "serve", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let addr: std::net::SocketAddr =
        line.split("reflecting on ").nth(1).and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
    // The probe runs while 600 sockets (600 source ports) each send 50 junk datagrams: a
    // bounded flood, all on loopback.
    let probe = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(d)
        .env_remove("LATLAB_DB")
        .args(["udp", "probe", &addr.to_string(), "--interval", "2ms", "--duration", "1s", "--wait", "500ms"])
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
    let mut server = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(d)
        .args(["display", "serve", "--listen", "127.0.0.1:0", "--max-sessions", "2", "--max-waiting", "2000"])
        .args(["--hello-deadline", "60s", "--max-session", "5s"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let addr = line.split("listening on ").nth(1).and_then(|r| r.split(' ').next()).unwrap().to_string();
    let base = threads(server.id());
    let idle: Vec<std::net::TcpStream> = (0..1000).map(|_| std::net::TcpStream::connect(&addr).unwrap()).collect();
    let pid = nix::unistd::Pid::from_raw(server.id() as i32);
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
        .args(["display", "view", &addr, "--seconds", "1", "--width", "320", "--height", "240"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&view).contains("# latlab display"));
    // Refusals the client reports: a session longer than the server allows.
    latlab(d)
        .args(["display", "view", &addr, "--seconds", "10", "--width", "320", "--height", "240"])
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
