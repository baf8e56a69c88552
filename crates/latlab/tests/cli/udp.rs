//! `latlab udp` from the command line: loopback, serve, probe and relay, and between two network namespaces.

use super::*;

#[test]
fn udp_loopback_serve_probe_and_relay_commands() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d).args(["udp", "--interval", "2ms", "--duration", "400ms", "--wait", "300ms"]).assert().success().stdout(
        predicate::str::contains("# latlab udp #1")
            .and(predicate::str::contains("`rtt.p50`"))
            .and(predicate::str::contains("no bursts")),
    );
    latlab(d)
        .args(["udp", "--interval", "1us"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("must be between 10 µs and 60 s"));
    latlab(d)
        .args(["udp", "probe", "no.such.host.invalid"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot resolve"));

    // A reflector in one process, a relay in another, the prober in a third.
    let spawn = |args: &[&str], ready: &str| spawn_ready(d, args, ready);
    let mut serve =
        spawn(&["udp", "serve", "--bind", "127.0.0.1:48481", "--key", "s3cret"], "reflecting on 127.0.0.1:48481");
    let mut relay = spawn(
        &["udp", "relay", "--listen", "127.0.0.1:48482", "--to", "127.0.0.1:48481", "--hold-every", "200ms"],
        "udp relay: 127.0.0.1:48482",
    );
    let out = latlab(d)
        .args([
            "udp",
            "probe",
            "127.0.0.1:48482",
            "--interval",
            "20ms",
            "--duration",
            "1500ms",
            "--wait",
            "500ms",
            "--key",
            "s3cret",
            "--sweep-intervals",
            "50ms,25ms",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let md = String::from_utf8(out).unwrap();
    let json = latlab(d).args(["export", "latest", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let metric = |name: &str| {
        rec["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).map(|m| m["value"].as_f64().unwrap())
    };
    // The relay holds every packet for up to 200 ms and lets them go together: the probe sees
    // bursts on any machine (the packets of a release arrive within microseconds of each other,
    // however late the release itself is).
    assert!(
        md.contains("packets held and released in bursts every ~") || md.contains("packets arrived in bursts"),
        "{md}"
    );
    // Whether the releases are regular enough to name a period is the machine's: a relay woken
    // late on a loaded machine spreads them past the estimator's 20 %, and then the record says
    // so instead of giving a period. Either outcome is checked for what it must show; the
    // estimator itself is tested on fixed timestamps in latlab-udp (analysis.rs).
    match metric("burst.release_period") {
        Some(period) => {
            assert!(md.contains("packets held and released in bursts every ~"), "{md}");
            assert!((period - 200e6).abs() < 0.05 * 200e6, "estimated {period} ns for 200 ms");
        }
        None => assert!(md.contains("packets arrived in bursts with no regular release period"), "{md}"),
    }
    // The sweep's streams went through the same relay: each found its 200 ms too when its
    // releases were regular, and the row says the same period held at both intervals (here a
    // finding about what the probe reached: latlab cannot know that a remote path is its own
    // relay). With a period missing the row cannot say the same period held.
    let periods: Vec<Option<f64>> =
        ["ms50", "ms25"].iter().map(|key| metric(&format!("interval_sweep.{key}.release_period"))).collect();
    for p in periods.iter().flatten() {
        assert!((p - 200e6).abs() < 0.05 * 200e6, "a sweep stream estimated {p} ns for 200 ms");
    }
    let row = rec["paper"].as_array().unwrap().iter().find(|p| p["figure"] == "release period against send interval");
    let verdict = &row.expect("the sweep row")["verdict"];
    if periods.iter().all(Option::is_some) {
        assert_eq!(verdict, "reproduced", "{row:?}");
    } else {
        assert_ne!(verdict, "reproduced", "{row:?}");
    }
    for c in [&mut serve, &mut relay] {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(c.0.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
        assert!(c.0.wait().unwrap().success());
    }
}

/// Two hosts: network namespaces joined by a veth pair (198.18.0.0/15), `serve` in one and
/// `probe` in the other; everything removed afterwards.
#[test]
fn udp_between_two_network_namespaces() {
    let tag = std::process::id() % 100_000;
    let (a, b) = (format!("latlab-a{tag}"), format!("latlab-b{tag}"));
    let (va, vb) = (format!("lla{tag}"), format!("llb{tag}"));
    let ip = |args: &[&str]| {
        std::process::Command::new("ip").args(args).output().map(|o| o.status.success()).unwrap_or(false)
    };
    if !ip(&["netns", "add", &a]) {
        latlab_model::testing::skip(
            "udp_between_two_network_namespaces: `ip netns add` is not permitted here (needs root and iproute2)",
        );
        return;
    }
    struct Cleanup(Vec<String>);
    impl Drop for Cleanup {
        fn drop(&mut self) {
            for ns in &self.0 {
                let _ = std::process::Command::new("ip").args(["netns", "del", ns]).status();
            }
        }
    }
    let _cleanup = Cleanup(vec![a.clone(), b.clone()]);
    assert!(ip(&["netns", "add", &b]));
    assert!(ip(&["link", "add", &va, "type", "veth", "peer", "name", &vb]));
    assert!(ip(&["link", "set", &va, "netns", &a]) && ip(&["link", "set", &vb, "netns", &b]));
    for (ns, dev, addr) in [(&a, &va, "198.18.0.1/24"), (&b, &vb, "198.18.0.2/24")] {
        assert!(ip(&["-n", ns, "addr", "add", addr, "dev", dev]));
        assert!(ip(&["-n", ns, "link", "set", dev, "up"]) && ip(&["-n", ns, "link", "set", "lo", "up"]));
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("latlab");
    let mut serve = std::process::Command::new("ip")
        .args(["netns", "exec", &a])
        .arg(&bin)
        .args(["udp", "serve", "--bind", "198.18.0.1:4848"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(serve.stderr.as_mut().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains("reflecting on 198.18.0.1:4848"), "{line}");
    let out = std::process::Command::new("ip")
        .args(["netns", "exec", &b])
        .arg(&bin)
        .args([
            "--db",
            dir.path().join("two.db").to_str().unwrap(),
            "udp",
            "probe",
            "198.18.0.1",
            "--interval",
            "5ms",
            "--duration",
            "1s",
            "--wait",
            "500ms",
            "--verbose",
        ])
        .output()
        .unwrap();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(serve.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    let _ = serve.wait();
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(md.contains("| `packets.sent` | 200 |"), "{md}");
    assert!(md.contains("`rtt.p50`") && md.contains("to a remote reflector"), "{md}");
    assert!(!md.contains("`owd.p50`"), "no absolute one-way delay without a shared clock");
}
