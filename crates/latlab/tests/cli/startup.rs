//! `latlab boot` and `latlab startup` from the command line: traces, boots, launches, preloading, and their errors.

use super::*;

#[test]
fn boot_analyze_reads_all_three_formats_and_names_the_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../latlab-startup/samples/xperf-boot-excerpt.xml");
    latlab(d).args(["boot", "analyze", sample]).assert().success().stdout(
        predicate::str::contains("`boot.autostart_ms` | 4614")
            .and(predicate::str::contains("| PlugPlay | PlugPlay | 621 |"))
            .and(predicate::str::contains("sc qc PlugPlay")),
    );
    std::fs::write(d.join("blame.txt"), "  20.5s NetworkManager-wait-online.service\n  300ms udev.service\n").unwrap();
    latlab(d)
        .args(["boot", "analyze", "blame.txt"])
        .assert()
        .success()
        .stdout(predicate::str::contains("waits for the network"));
    std::fs::write(d.join("chain.txt"), "graphical.target @7.4s\n└─docker.service @5.8s +1.6s\n").unwrap();
    latlab(d)
        .args(["boot", "analyze", "chain.txt"])
        .assert()
        .success()
        .stdout(predicate::str::contains("docker.service"));
    std::fs::write(d.join("bad.txt"), "  1.5s ok.service\n  quickly slow.service\n").unwrap();
    latlab(d)
        .args(["boot", "analyze", "bad.txt"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("line 2: a time like 1.234s"));
    latlab(d)
        .args(["boot", "analyze", "missing.xml"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot read the trace"));
}

#[test]
fn startup_record_measure_and_io_with_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The launch's files live on disk (/var/tmp), where they can be evicted.
    let data = tempfile::Builder::new().prefix("latlab-cli-startup-").tempdir_in("/var/tmp").unwrap();
    if !latlab_startup::pagecache::evictable(data.path()) {
        latlab_model::testing::skip("/var/tmp is in memory here");
        return;
    }
    std::fs::set_permissions(d, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    std::fs::set_permissions(data.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (a, b) = (data.path().join("first.dat"), data.path().join("second.dat"));
    std::fs::write(&a, vec![1u8; 256 * 1024]).unwrap();
    std::fs::write(&b, vec![2u8; 64 * 1024]).unwrap();
    let script = format!("head -c 8192 {} >/dev/null; cat {} >/dev/null", a.display(), b.display());
    latlab(d)
        .args(["startup", "record", "-o", "plan.json", "--", "sh", "-c", &script])
        .assert()
        .success()
        .stdout(predicate::str::contains("`plan.pages`").and(predicate::str::contains("first.dat")))
        .stderr(predicate::str::contains("stored startup run #1"));
    let plan = std::fs::read_to_string(d.join("plan.json")).unwrap();
    let (ia, ib) = (plan.find("first.dat").unwrap(), plan.find("second.dat").unwrap());
    assert!(ia < ib, "plan order is open order: {plan}");
    assert!(plan.contains("\"schema\": \"latlab.plan/1\""));
    // The same plan, from the file and from the database; the command comes from the plan.
    for how in [["--plan", "plan.json"], ["--plan-run", "1"]] {
        latlab(d).args(["startup", "measure", "--runs", "2"]).args(how).assert().success().stdout(
            predicate::str::contains("`launch.cold.p50`")
                .and(predicate::str::contains("`launch.prefetch_speedup`"))
                .and(predicate::str::contains("| prefetch | 2 |")),
        );
    }
    // The ptrace tracer as an ordinary user (fanotify is refused there, and says so).
    let out = unprivileged(d, &["--db", "nobody.db", "startup", "record", "-o", "p2.json", "--", "sh", "-c", &script]);
    let (o, e) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{e}");
    assert!(o.contains("fanotify is not available") && o.contains("CAP_SYS_ADMIN"), "{o}");
    assert!(o.contains("| tracer | \"ptrace\"") || o.contains("ptrace"), "{o}");
    // Root's files' residency is hidden from nobody: they are planned whole, and said so.
    assert!(o.contains("residency is hidden from this user") && o.contains("`plan.hidden_files`"), "{o}");
    if nix::unistd::geteuid().is_root() {
        for f in [&a, &b] {
            nix::unistd::chown(f, Some(nix::unistd::Uid::from_raw(65534)), None).unwrap();
        }
        let out =
            unprivileged(d, &["--db", "nobody.db", "startup", "record", "-o", "p3.json", "--", "sh", "-c", &script]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let p3 = std::fs::read_to_string(d.join("p3.json")).unwrap();
        assert!(p3.contains("first.dat") && p3.contains("second.dat"), "{p3}");
    }
    // io: every process's I/O during a scenario.
    latlab(d)
        .args([
            "startup",
            "io",
            "--interval",
            "5ms",
            "--",
            "sh",
            "-c",
            &format!("cat {} >/dev/null; sleep 0.1", a.display()),
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Disk I/O per process")
                .and(predicate::str::contains("`io.read_ops`"))
                .and(predicate::str::contains("`io.launch.processes`"))
                .and(predicate::str::contains("| launch |")),
        );
    // The built-in launch, recorded by ptrace: its index, then its data files in order; the
    // data set is gone afterwards.
    latlab(d)
        .args(["startup", "record", "--builtin", "--tracer", "ptrace", "-o", "builtin.json"])
        .assert()
        .success()
        .stderr(predicate::str::contains("tracing the built-in launch"));
    let plan = std::fs::read_to_string(d.join("builtin.json")).unwrap();
    let at = |f: &str| plan.find(f).unwrap_or_else(|| panic!("{f} not in {plan}"));
    assert!(at("/index\"") < at("part-0000.dat") && at("part-0000.dat") < at("part-0047.dat"), "{plan}");
    let data = plan.split('"').find(|p| p.ends_with("/index")).unwrap();
    assert!(!std::path::Path::new(data).exists(), "the data set was left behind: {data}");
    // Clear errors.
    latlab(d)
        .args(["startup", "record", "--builtin", "--", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give no command"));
    latlab(d).args(["startup", "record"]).assert().code(2).stderr(predicate::str::contains("no command given"));
    latlab(d)
        .args(["startup", "measure", "--ready", "(", "--", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not a regular expression"));
    latlab(d)
        .args(["startup", "measure", "--plan-run", "2"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("holds no plan"));
    std::fs::write(d.join("bad.json"), "{\"schema\": \"latlab.plan/1\",\n \"command\": 5}").unwrap();
    latlab(d)
        .args(["startup", "measure", "--plan", "bad.json"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is not a launch plan").and(predicate::str::contains("line 2")));
    latlab(d)
        .args(["startup", "record", "--tracer", "strace", "--", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("[possible values: auto, fanotify, ptrace]"));
    latlab(d)
        .args(["startup", "record", "--", "sh", "-c", "echo no such config >&2; exit 4"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("exit status: 4").and(predicate::str::contains("no such config")));
    // `record`, `measure` and `io` runs (only the built-in launch is in the suite) emit only
    // documented metrics.
    metrics_match_the_docs(d, false);
}

#[test]
fn boot_measure_runs_a_boot_file_and_names_the_line_of_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = d.join("boot.toml");
    std::fs::write(
        &good,
        r#"format = "latlab.boot/1"
target = "ui"

[[service]]
name = "net"
command = ["sh", "-c", "echo link up; exec sleep 31.5"]
ready = { line = "link (up|ready)" }

[[service]]
name = "ui"
command = ["true"]
after = ["net"]
ready = { exit = true }
"#,
    )
    .unwrap();
    latlab(d)
        .args(["boot", "measure", good.to_str().unwrap(), "--runs", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("boot.gantt").or(predicate::str::contains("start and ready time")));
    let json = latlab(d).args(["export", "1", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(rec["config"]["critical_path"], serde_json::json!(["net", "ui"]));
    let bad = d.join("bad.toml");
    std::fs::write(&bad, std::fs::read_to_string(&good).unwrap().replace("after = [\"net\"]", "after = [\"nfs\"]"))
        .unwrap();
    latlab(d)
        .args(["boot", "measure", bad.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 10").and(predicate::str::contains("'nfs', which is not declared")));
    // No service of either boot is left running.
    let left = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .filter(|c| c == b"sleep\x0031.5\x00")
        .count();
    assert_eq!(left, 0, "a boot service is still running");
    // The stored boot analysed again: its median boot, critical path and advice.
    latlab(d)
        .args(["boot", "analyze", "--run", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("The critical path"))
        .stdout(predicate::str::contains("Recommendations from run #1"));
    latlab(d)
        .args(["boot", "analyze", "--run", "2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("run #2 cannot be analysed as a measured boot"));
}

#[test]
fn ctrl_c_during_a_boot_stops_and_reaps_every_service() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pidfile = d.join("hang.pid");
    let file = d.join("boot.toml");
    std::fs::write(
        &file,
        format!(
            r#"format = "latlab.boot/1"
target = "ui"

[[service]]
name = "hang"
command = ["sh", "-c", "echo $$ > {}; exec sleep 32.5"]
ready = {{ line = "never printed" }}

[[service]]
name = "ui"
command = ["true"]
after = ["hang"]
ready = {{ exit = true }}
"#,
            pidfile.display()
        ),
    )
    .unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(d)
        .env_remove("LATLAB_DB")
        .args(["boot", "measure", file.to_str().unwrap(), "--runs", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the service runs (its pid written), then Ctrl-C.
    let deadline = Instant::now() + Duration::from_secs(60);
    let pid: i32 = loop {
        if let Some(p) = std::fs::read_to_string(&pidfile).ok().and_then(|t| t.trim().parse().ok()) {
            break p;
        }
        assert!(Instant::now() < deadline, "the boot's service never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(!status.success(), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    // The service was stopped and reaped: its pid is gone (not even a zombie).
    assert!(!Path::new(&format!("/proc/{pid}")).exists(), "service pid {pid} outlived latlab");
}

#[test]
fn startup_preload_learns_ranks_preloads_and_measures() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A data file on a disk (the temporary directory may be tmpfs).
    let data = Path::new("/var/tmp").join(format!("latlab-preload-cli-{}", std::process::id()));
    std::fs::write(&data, vec![3u8; 512 << 10]).unwrap();
    let cmd = format!("cat {} > /dev/null", data.display());
    let lib = d.join("lib.json");
    let launch = |d: &Path| {
        latlab(d)
            .args(["startup", "preload", "launch", "--library", lib.to_str().unwrap(), "--", "sh", "-c", &cmd])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    let first = String::from_utf8(launch(d)).unwrap();
    assert!(first.contains("learned its plan") && first.contains("1 launches counted"), "{first}");
    let second = String::from_utf8(launch(d)).unwrap();
    assert!(second.contains("launched (ready in") && second.contains("2 launches counted"), "{second}");
    latlab(d)
        .args(["startup", "preload", "list", "--library", lib.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 of at most 123 plans").and(predicate::str::contains("cat ")));
    latlab(d)
        .args([
            "startup",
            "preload",
            "run",
            "--library",
            lib.to_str().unwrap(),
            "--idle-below",
            "1",
            "--check-every",
            "20ms",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("preloaded 1 plan(s)"));
    // As a service: a pass every second until Ctrl-C.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(d)
        .args(["startup", "preload", "run", "--library", lib.to_str().unwrap(), "--every", "1s", "--idle-below", "1"])
        .args(["--check-every", "20ms"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut passes = 0;
    // The pipe stays open until the service has ended (a closed pipe would end it first).
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for line in lines.by_ref() {
        if line.unwrap().starts_with("preloaded 1 plan(s)") {
            passes += 1;
            if passes == 2 {
                break;
            }
        }
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130), "Ctrl-C ends the service");
    drop(lines);
    std::fs::remove_file(&data).unwrap();
    // Nothing to preload, a bad threshold, a broken library: clear errors.
    latlab(d)
        .args(["startup", "preload", "run", "--library", "none.json"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("holds no plans yet"));
    latlab(d)
        .args(["startup", "preload", "run", "--library", lib.to_str().unwrap(), "--idle-below", "0"])
        .assert()
        .code(2);
    std::fs::write(d.join("bad.json"), "{\n  \"schema\": \"latlab.preload/1\",\n  \"entries\": 7\n}").unwrap();
    latlab(d)
        .args(["startup", "preload", "list", "--library", "bad.json"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("'bad.json', line 3, column 14: invalid type"));
    // The measurement: every state measured, its metrics documented.
    latlab(d)
        .args(["startup", "preload", "measure", "--runs", "1", "--apps", "2", "--idle-below", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("preload.speedup").and(predicate::str::contains("Superfetch and processes")));
    metrics_match_the_docs(d, false);
}
