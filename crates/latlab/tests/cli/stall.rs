//! `latlab stall` and `latlab idle` from the command line, and their errors.

use super::*;

#[test]
fn stall_and_idle_commands_and_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d)
        .args(["stall", "--loads", "0,2", "--policies", "nice19", "--duration", "1s", "--interval", "20ms"])
        .args(["--work", "100us", "--no-fifo"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("`cpu.nice19.n2.stall.mean`")
                .and(predicate::str::contains("`cpu.nice19.n2.waiting_fraction`"))
                .and(predicate::str::contains("`probe.cpu_per_key`")),
        );
    latlab(d).args(["idle", "--duration", "1s", "--with", "sleep 3"]).assert().success().stdout(
        predicate::str::contains("`idle.lost_fraction`").and(predicate::str::contains("`idle.with.extra_lost`")),
    );
    latlab(d)
        .args(["stall", "--policies", "fifo"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'fifo' is not one of: other, batch, idle, niceN"));
    latlab(d)
        .args(["stall", "--work", "60ms"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("shorter than the key interval"));
    latlab(d).args(["idle", "--cpu", "999"]).assert().code(2).stderr(predicate::str::contains("CPU 999"));
    latlab(d)
        .args(["stall", "net", "--rate", "10"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("link rate: 100 kbit/s to 10 Gbit/s"));
    if nix::unistd::geteuid().is_root() {
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
            .current_dir(d)
            .env_remove("LATLAB_DB")
            .args(["stall", "net", "--loads", "0,0.5", "--step", "1s", "-v"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        if out.status.success() {
            assert!(stdout.contains("`net.load50.rtt.p50`"), "{stdout}");
            // The run as a flent data file, gzip-compressed by its name.
            latlab(d).args(["export", "latest", "--format", "flent", "-o", "net.flent.gz"]).assert().success();
            let mut text = String::new();
            let gz = std::fs::File::open(d.join("net.flent.gz")).unwrap();
            std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(gz), &mut text).unwrap();
            let f: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(f["metadata"]["NAME"], "tcp_bidirectional");
            assert_eq!(f["x_values"].as_array().unwrap().len(), f["results"]["TCP upload"].as_array().unwrap().len());
        } else {
            // Namespaces refused here, or iproute2 missing: the error says which.
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("failed") || err.contains("install iproute2"), "{out:?}");
        }
        // That process's namespaces (latlab-PID-N-c/s) are gone; others may be running beside.
        let prefix = format!("latlab-{pid}-");
        let left = std::fs::read_dir("/run/netns")
            .map(|d| {
                d.filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|n| n.starts_with(&prefix)).count()
            })
            .unwrap_or(0);
        assert_eq!(left, 0, "no namespace left behind");
    } else {
        latlab_model::testing::skip("`stall net` needs root for network namespaces");
    }
    // Without privileges both refuse with the reason, and leave nothing behind.
    std::fs::set_permissions(d, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let swap_dir = d.join("swap");
    std::fs::create_dir(&swap_dir).unwrap();
    std::fs::set_permissions(&swap_dir, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    // (A database of its own: root made latlab.db here, which `nobody` may not write, and a
    // run refuses a database it cannot write before anything else.)
    let out = unprivileged(
        d,
        &["--db", "nobody.db", "stall", "mem", "--working-set", "8", "--swap-dir", swap_dir.to_str().unwrap()],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(1) {
        assert!(err.contains("swap"), "{err}");
        assert_eq!(std::fs::read_dir(&swap_dir).unwrap().count(), 0, "the swap file was removed");
    }
    let out = unprivileged(d, &["--db", "nobody.db", "stall", "net", "--loads", "0", "--step", "1s"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("error:"), "{out:?}");
}
