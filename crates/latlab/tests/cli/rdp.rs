//! `display … --rdp` from the command line: a real RDP server measured, and each
//! way a connection fails given its own exit code and a message that says what to do.

use super::*;
use latlab_keyscreen::local::{LocalShadow, missing};
use latlab_model::testing::skip;
use std::sync::Mutex;

/// One real server at a time: several shadow servers, xrdp and their clients at once on two
/// cores made the servers drop connections (FreeRDP's shadow server closed one mid-session).
static ONE_SERVER: Mutex<()> = Mutex::new(());

pub(crate) fn one_server() -> std::sync::MutexGuard<'static, ()> {
    ONE_SERVER.lock().unwrap_or_else(|p| p.into_inner())
}

pub(crate) fn metric(rec: &serde_json::Value, n: &str) -> f64 {
    rec["metrics"].as_array().unwrap().iter().find(|m| m["name"] == n).unwrap_or_else(|| panic!("no metric {n}"))["value"]
        .as_f64()
        .unwrap()
}

#[test]
fn ctrl_c_from_a_terminal_stops_a_real_rdp_measurement_and_stores_it_interrupted() {
    use std::os::unix::process::CommandExt;
    if let Some(m) = missing() {
        return skip(&m);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Its own process group, as a shell starts it; Ctrl-C then goes to the whole group, as a
    // terminal's does. A thousand keys: the run can only end by the signal.
    // Killed if an assertion fails first (it would type for minutes).
    let mut child = super::Reaped(
        std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
            .current_dir(d)
            .env_remove("LATLAB_DB")
            .args(["display", "latency", "--rdp", "local", "--keys", "1000", "--conditions", "unloaded"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap(),
    );
    // Wait until it has connected (it says so), give it a moment to start typing, then
    // Ctrl-C: a read on the server's socket is then interrupted by the signal. (Earlier or
    // later, the run must stop the same way.)
    let mut err = BufReader::new(child.0.stderr.take().unwrap());
    let mut said = String::new();
    while !said.contains("display --rdp: connected: ") {
        assert!(err.read_line(&mut said).unwrap() > 0, "it ended before it connected: {said}");
    }
    std::thread::sleep(Duration::from_secs(3));
    let status = super::terminal_ctrl_c(&mut child.0, Duration::from_secs(30));
    std::io::Read::read_to_string(&mut err, &mut said).unwrap();
    assert_eq!(status.code(), Some(130), "{said}");
    assert!(said.contains("interrupted: kept what was measured"), "{said}");
    assert!(!said.contains("Interrupted system call"), "{said}");
    let r = super::runs_list(d);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0]["status"], "interrupted");
}

#[test]
fn an_unprivileged_user_measures_the_local_server_and_an_unusable_known_hosts_file_is_said_first() {
    if let Some(m) = missing() {
        return skip(&m);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::set_permissions(d, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    // `nobody`, with root's HOME (setpriv keeps it), which is not its to write: the shadow
    // server keeps its certificate in latlab's own directory, and latlab pins it (no
    // known-hosts file).
    let out =
        super::unprivileged(d, &["display", "latency", "--rdp", "local", "--keys", "4", "--conditions", "unloaded"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let json = latlab(d).args(["export", "latest", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(rec["config"]["trust"], "pinned_local_server", "{}", rec["config"]);
    // A remote server's known-hosts file that cannot be made is said before anything
    // connects, once.
    let out = super::unprivileged(d, &["display", "latency", "--rdp", "127.0.0.1:9", "--conditions", "unloaded"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // (setpriv keeps root's HOME: its known-hosts file is not `nobody`'s to read.)
    assert!(err.contains("error: known hosts ") && err.contains("Permission denied (os error 13)\n"), "{err}");
    assert_eq!(err.matches("Permission denied").count(), 1, "the cause is said once: {err}");
}

#[test]
fn an_unreachable_or_non_rdp_server_exits_4_and_no_credentials_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    latlab(d)
        .args(["display", "latency", "--rdp", &format!("127.0.0.1:{port}"), "--insecure"])
        .env("LATLAB_RDP_USER", "u")
        .env("LATLAB_RDP_PASSWORD", "p")
        .assert()
        .code(4)
        .stderr(predicate::str::contains("cannot reach 127.0.0.1"));
    // A server that answers with something else and hangs up.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let t = std::thread::spawn(move || {
        use std::io::Write;
        if let Ok((mut c, _)) = l.accept() {
            let _ = c.write_all(b"HTTP/1.0 400 Bad Request\r\n\r\n");
        }
    });
    latlab(d)
        .args(["display", "ops", "--rdp", &format!("127.0.0.1:{port}"), "--insecure"])
        .env("LATLAB_RDP_USER", "u")
        .env("LATLAB_RDP_PASSWORD", "p")
        .assert()
        .code(4)
        .stderr(predicate::str::contains("does not speak RDP").and(predicate::str::contains(".cargo").not()))
        .stderr(predicate::str::contains(".rs:").not());
    t.join().unwrap();
    // Options that make no sense are usage errors before anything connects.
    latlab(d)
        .args(["display", "latency", "--rdp", "host:0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("HOST[:PORT]"));
    latlab(d)
        .args(["display", "latency", "--rdp", "127.0.0.1:3389", "--conditions", "mem"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("needs the server on this machine: --rdp local"));
    latlab(d)
        .args(["display", "latency", "--rdp", "local", "--conditions", "10mbit_bulk"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unloaded, cpu"));
    latlab(d).args(["display", "latency", "--insecure"]).assert().code(2);
}

#[test]
fn no_credentials_and_no_terminal_is_a_usage_error_after_the_certificate_check() {
    if let Some(why) = missing() {
        return skip(&why);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = LocalShadow::start().unwrap();
    latlab(d)
        .args(["display", "latency", "--rdp", &server.target(), "--insecure", "--keys", "4"])
        .env_remove("LATLAB_RDP_USER")
        .env_remove("LATLAB_RDP_PASSWORD")
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--rdp-credentials"));
}

#[test]
fn key_to_screen_and_bytes_per_operation_on_freerdps_shadow_server() {
    if let Some(why) = missing() {
        return skip(&why);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d)
        .args([
            "display",
            "latency",
            "--rdp",
            "local",
            "--keys",
            "24",
            "--conditions",
            "unloaded,10mbit,busy",
            "--pages",
            "2",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("# latlab display rdp #1"));
    let json = latlab(d).args(["export", "1", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(metric(&rec, "rdp.latency.unloaded.keys"), 24.0);
    assert_eq!(metric(&rec, "rdp.latency.unloaded.lost"), 0.0, "every glyph found");
    assert!(metric(&rec, "rdp.latency.unloaded.p50") > 0.0);
    assert!(metric(&rec, "rdp.latency.unloaded.page.bytes") > 0.0, "Page Down in less redrew the page");
    if nix::unistd::geteuid().is_root() {
        // Through the shaped link between namespaces (a relay in the server's namespace).
        assert_eq!(metric(&rec, "rdp.latency.10mbit.lost"), 0.0);
        assert!(metric(&rec, "rdp.latency.10mbit.p50") > 0.0);
    }
    // A busy screen (an xterm scrolling beside the shell): every key still found, the server
    // kept sending more than when idle, and starvation is counted.
    assert_eq!(metric(&rec, "rdp.latency.busy.lost"), 0.0, "every glyph found beside the animation");
    assert!(metric(&rec, "rdp.latency.busy.updates_per_s") > metric(&rec, "rdp.latency.unloaded.updates_per_s"));
    assert!(metric(&rec, "rdp.latency.busy.starved") >= 0.0);
    assert!(rec["config"]["busy"].as_str().unwrap().contains("every 40 ms"));
    assert!(metric(&rec, "rdp.updates.bitmap.count") > 0.0, "latlab decoded the server's bitmaps");
    let cfg = &rec["config"];
    assert_eq!(cfg["desktop"], "1024x768");
    assert_eq!(cfg["bpp"], 16);
    assert!(cfg["server_product"].as_str().unwrap().contains("FreeRDP"), "{cfg}");
    assert_eq!(cfg["server_rdp_version"].as_str(), Some("RDP 5.0 to 8.1"), "the version in the server's core data");
    assert!(cfg["cert_fingerprint"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(cfg["compression_negotiated"], "xcrush");

    latlab(d).args(["display", "ops", "--rdp", "local", "--op-duration", "1s"]).assert().success();
    let json = latlab(d).args(["export", "2", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(metric(&rec, "rdp.ops.typing.display_bytes_per_s") > 0.0, "typing echoed");
    assert!(
        metric(&rec, "rdp.ops.typing.up_bytes_per_s") > metric(&rec, "rdp.ops.typing.input_bytes_per_s"),
        "headers count"
    );
    assert!(metric(&rec, "rdp.ops.page_down.display_bytes_per_s") > metric(&rec, "rdp.ops.idle.display_bytes_per_s"));
}

#[test]
fn a_changed_certificate_exits_5_before_any_credential_is_sent() {
    if let Some(why) = missing() {
        return skip(&why);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = LocalShadow::start().unwrap();
    let kh = d.join("known_hosts");
    std::fs::write(&kh, format!("{} sha256:{}\n", server.target(), "00".repeat(32))).unwrap();
    latlab(d)
        .args(["display", "latency", "--rdp", &server.target(), "--known-hosts", kh.to_str().unwrap(), "--keys", "4"])
        .env("LATLAB_RDP_USER", "u")
        .env("LATLAB_RDP_PASSWORD", "p")
        .assert()
        .code(5)
        .stderr(predicate::str::contains("changed").and(predicate::str::contains("line 1")));
    // With no line for it, the server is trusted on first use and written down.
    std::fs::write(&kh, "").unwrap();
    latlab(d)
        .args(["display", "pipeline", "--rdp", &server.target(), "--known-hosts", kh.to_str().unwrap(), "--keys", "4"])
        .env("LATLAB_RDP_USER", "u")
        .env("LATLAB_RDP_PASSWORD", "p")
        .assert()
        .success()
        .stderr(predicate::str::contains("trusting"));
    let text = std::fs::read_to_string(&kh).unwrap();
    assert!(text.starts_with(&server.target()) && text.contains("sha256:"), "{text}");
}

#[test]
fn key_to_screen_on_xrdp_with_an_account_made_for_the_run() {
    if let Some(why) = latlab_keyscreen::local::xrdp_missing() {
        return skip(&why);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d)
        .args([
            "display",
            "latency",
            "--rdp",
            "local-xrdp",
            "--keys",
            "20",
            "--conditions",
            "unloaded,10mbit,mem",
            "--pages",
            "1",
        ])
        .assert()
        .success();
    let json = latlab(d).args(["export", "1", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(metric(&rec, "rdp.latency.unloaded.lost"), 0.0, "every glyph found");
    assert!(metric(&rec, "rdp.updates.slow_bitmap.count") > 0.0, "xrdp's slow-path bitmaps decoded by latlab");
    assert!(metric(&rec, "rdp.latency.unloaded.page.bytes") > 0.0);
    // A second connection to the running session (through the shaped link) takes keys too.
    // (Other tests beside this one may make the machine not quiet: that warning is theirs.)
    let warnings: Vec<&str> =
        rec["warnings"].as_array().map_or(Vec::new(), |w| w.iter().filter_map(|w| w.as_str()).collect());
    assert!(warnings.iter().all(|w| w.starts_with("the machine was not quiet")), "{warnings:?}");
    assert_eq!(metric(&rec, "rdp.latency.10mbit.lost"), 0.0);
    // mem: the server's processes paged out before each key, every key still found.
    assert_eq!(metric(&rec, "rdp.latency.mem.lost"), 0.0);
    assert_eq!(metric(&rec, "rdp.latency.mem.keys"), 20.0);
    assert!(metric(&rec, "rdp.latency.mem.evicted_per_key") > 0.0, "the page-outs took something");
    assert!(metric(&rec, "rdp.latency.mem.resident_after_pageout") < 1.0);
    assert!(rec["config"]["mem_swap"].as_str().is_some());
    assert!(rec["config"]["server_product"].as_str().unwrap().contains("xrdp"));
    // The account, its session and the servers are gone.
    let users = std::fs::read_to_string("/etc/passwd").unwrap();
    assert!(!users.contains("latlabrdp"), "the run's account was removed");
    assert!(latlab_keyscreen::local::xrdp_missing().is_none(), "sesman stopped: its port is free again");
}

#[test]
fn users_per_server_on_xrdp_one_account_per_session() {
    if let Some(why) = latlab_keyscreen::local::xrdp_missing() {
        return skip(&why);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d)
        .args(["display", "capacity", "--rdp", "local-xrdp", "--ramp", "1,2", "--ramp-only", "--duration", "3s"])
        .assert()
        .success()
        .stdout(predicate::str::contains("xrdp here took 2 typists"));
    let json = latlab(d).args(["export", "1", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    // Two sessions, two logins: every key of both typists shown.
    assert_eq!(metric(&rec, "capacity.n2.lost_keys"), 0.0);
    assert!(metric(&rec, "capacity.n2.p95") > 0.0);
    assert!(metric(&rec, "capacity.n2.server_cpu_per_session") > 0.0, "xrdp's processes' CPU");
    // Each xrdp session is an X login of its own: far more than one of latlab's lean sessions
    // (bounds, not a figure: the figure is the record's).
    assert!(metric(&rec, "capacity.n2.server_pss_per_session") > 1024.0, "KiB a session");
    assert!(rec["config"]["server_product"].as_str().unwrap().contains("xrdp"));
    let row =
        rec["paper"].as_array().unwrap().iter().find(|r| r["figure"] == "§3.2.1 memory per user session").unwrap();
    assert!(row["here_value"].as_str().unwrap().contains("xrdp here"), "{row}");
    // Both accounts, their sessions and the servers are gone.
    let users = std::fs::read_to_string("/etc/passwd").unwrap();
    assert!(!users.contains("latlabrdp"), "the run's accounts were removed");
    assert!(latlab_keyscreen::local::xrdp_missing().is_none(), "sesman stopped: its port is free again");
    // Usage: a remote server cannot be given accounts; latlab's own mix does not apply.
    latlab(d)
        .args(["display", "capacity", "--rdp", "198.18.0.1"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--rdp local-xrdp"));
    latlab(d)
        .args(["display", "capacity", "--rdp", "local-xrdp", "--mix", "menu=1"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("cannot be used with"));
}

#[test]
fn a_wrong_password_under_nla_exits_5_and_the_right_one_measures() {
    if let Some(why) = missing() {
        return skip(&why);
    }
    let _one = one_server();
    use md4::Digest;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // FreeRDP's SAM file: USER:DOMAIN:LMHASH:NTHASH:::, the NT hash being MD4 of the UTF-16LE
    // password.
    let utf16: Vec<u8> = "Right-Pass-1".encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    let nt: String = md4::Md4::digest(&utf16).iter().map(|b| format!("{b:02x}")).collect();
    let sam = d.join("sam");
    std::fs::write(&sam, format!("typist::{}:{nt}:::\n", "0".repeat(32))).unwrap();
    let server = LocalShadow::start_with(Some(&sam)).unwrap();
    latlab(d)
        .args([
            "display",
            "latency",
            "--rdp",
            &server.target(),
            "--insecure",
            "--keys",
            "4",
            "--conditions",
            "unloaded",
        ])
        .env("LATLAB_RDP_USER", "typist")
        .env("LATLAB_RDP_PASSWORD", "wrong")
        .assert()
        .code(5)
        .stderr(predicate::str::contains("refused the credentials"));
    latlab(d)
        .args([
            "display",
            "latency",
            "--rdp",
            &server.target(),
            "--insecure",
            "--keys",
            "4",
            "--conditions",
            "unloaded",
            "--pages",
            "0",
        ])
        .env("LATLAB_RDP_USER", "typist")
        .env("LATLAB_RDP_PASSWORD", "Right-Pass-1")
        .assert()
        .success();
    let json = latlab(d).args(["export", "1", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(rec["config"]["security"].as_str().unwrap().to_lowercase().contains("hybrid"), "NLA: {}", rec["config"]);
    assert!(!String::from_utf8_lossy(&json).contains("Right-Pass-1"), "the password is never stored");
}
