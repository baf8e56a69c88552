//! `latlab type` from the command line: real terminals under latlab's own Xvfb
//! typed into with XTEST and read with MIT-SHM, every key found; a window that never draws is
//! lost keys, not a hang; through xfreerdp and FreeRDP's shadow server; clear errors.

use super::rdp::{metric, one_server};
use super::*;
use latlab_model::testing::skip;
use std::os::unix::process::CommandExt;

/// What the X11 tests need, as advice; `None` if everything is here.
fn missing(needs: &[(&str, &str)]) -> Option<String> {
    let lack: Vec<_> = needs.iter().filter(|(p, _)| !latlab_keyscreen::local::on_path(p)).collect();
    (!lack.is_empty()).then(|| {
        format!(
            "{} not installed (apt-get install {})",
            lack.iter().map(|(p, _)| *p).collect::<Vec<_>>().join(", "),
            lack.iter().map(|(_, k)| *k).collect::<Vec<_>>().join(" ")
        )
    })
}

/// The stored run `id` as JSON.
fn record(d: &Path, id: &str) -> serde_json::Value {
    let out = latlab(d).args(["export", id, "--format", "json"]).assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

/// Every metric the run emitted is in `docs/experiments/type.md`'s table.
fn documented(rec: &serde_json::Value) {
    let docs = super::docs::documented(&super::docs::read_doc("docs/experiments/type.md"));
    let emitted = rec["metrics"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap().to_string()).collect();
    let bad = super::docs::mismatches(&docs, &emitted, false);
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn two_terminals_under_latlabs_xvfb_show_every_key_typed() {
    if let Some(m) = missing(&[("Xvfb", "xvfb"), ("xterm", "xterm"), ("st", "stterm")]) {
        return skip(&m);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = latlab(d)
        .args([
            "type",
            "--keys",
            "12",
            "--interval",
            "50ms",
            "--compare",
            "xterm -fn fixed,st",
            "--conditions",
            "unloaded,cpu",
            "--spinners",
            "2",
        ])
        .timeout(Duration::from_secs(120))
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("xterm_fn_fixed") && text.contains("st") && text.contains("p50 (ms)"), "{text}");
    // The capture's resolution beside the p50 it bounds.
    assert!(text.lines().next().is_some_and(|h| h.contains("p50 (ms)  resolution (ms)")), "{text}");
    let rec = record(d, "1");
    assert_eq!(rec["experiment"], "type");
    for app in ["xterm_fn_fixed", "st"] {
        for cond in ["unloaded", "cpu"] {
            let p = format!("type.{app}.{cond}");
            assert_eq!(metric(&rec, &format!("{p}.keys")), 12.0, "{p}");
            assert_eq!(metric(&rec, &format!("{p}.lost")), 0.0, "{p}: every key typed is found on the screen");
            assert_eq!(metric(&rec, &format!("{p}.count")), 12.0, "{p}");
            let (min, p50, max) = (
                metric(&rec, &format!("{p}.min")),
                metric(&rec, &format!("{p}.p50")),
                metric(&rec, &format!("{p}.max")),
            );
            assert!(0.0 < min && min <= p50 && p50 <= max, "{p}: {min} {p50} {max}");
            assert!(metric(&rec, &format!("{p}.capture_hz")) > 0.0, "{p}: the capture rate reached is reported");
            assert!(metric(&rec, &format!("{p}.detector_ns_per_check")) > 0.0, "{p}: the detector's own cost");
            let series = rec["series"].as_array().unwrap().iter().find(|s| s["name"] == p.as_str()).unwrap();
            assert_eq!(series["values"].as_array().unwrap().len(), 12, "{p}: the time series, one value a key");
        }
    }
    let apps = rec["config"]["apps"].as_str().unwrap();
    assert!(
        apps.contains("xterm_fn_fixed=xterm (xterm ") && apps.contains("st=st (stterm "),
        "name and version: {apps}"
    );
    assert_eq!(rec["config"]["capture"], "Shm", "Xvfb has MIT-SHM");
    let caps = rec["capabilities"].as_array().unwrap();
    assert!(caps.iter().any(|c| c["name"] == "sched.fifo"), "the policy keys were timed at, granted or not: {caps:?}");
    documented(&rec);
}

#[test]
fn a_window_that_never_draws_is_lost_keys_not_a_hang() {
    if let Some(m) = missing(&[("Xvfb", "xvfb"), ("xterm", "xterm")]) {
        return skip(&m);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A terminal whose program turned echo off: typing draws nothing.
    latlab(d)
        .args(["type", "--keys", "5", "--timeout", "300ms", "--", "xterm", "-e", "sh", "-c", "stty -echo; sleep 600"])
        .timeout(Duration::from_secs(120))
        .assert()
        .success()
        .stderr(predicate::str::contains("drew nothing for any key"));
    let rec = record(d, "1");
    assert_eq!(metric(&rec, "type.xterm.unloaded.lost"), 5.0);
    assert_eq!(metric(&rec, "type.xterm.unloaded.over_threshold"), 1.0, "a lost key counts over 100 ms");
    assert!(rec["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("drew nothing")));
}

#[test]
fn through_xfreerdp_and_the_shadow_server_every_key_arrives() {
    if let Some(m) = missing(&[
        ("Xvfb", "xvfb"),
        ("xterm", "xterm"),
        ("xfreerdp", "freerdp2-x11"),
        ("freerdp-shadow-cli", "freerdp2-shadow-x11"),
    ]) {
        return skip(&m);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d).args(["type", "--keys", "10", "--through-rdp"]).timeout(Duration::from_secs(180)).assert().success();
    let rec = record(d, "1");
    assert_eq!(rec["mode"], "x11-rdp");
    assert_eq!(metric(&rec, "type.xterm_via_xfreerdp.unloaded.lost"), 0.0);
    assert_eq!(metric(&rec, "type.xterm_via_xfreerdp.unloaded.count"), 10.0);
    let apps = rec["config"]["apps"].as_str().unwrap();
    assert!(apps.contains("xfreerdp (freerdp2-x11 ") && apps.contains("shadow"), "{apps}");
}

#[test]
fn a_wayland_terminal_under_headless_sway_shows_every_key_typed() {
    if let Some(m) = missing(&[("sway", "sway"), ("foot", "foot")]) {
        return skip(&m);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d)
        .args([
            "type",
            "--display",
            "wayland",
            "--keys",
            "12",
            "--interval",
            "50ms",
            "--conditions",
            "unloaded,cpu",
            "--spinners",
            "2",
            "--",
            "foot",
        ])
        // As CI runs it: no $SHELL, so foot (run as `nobody`) must be given a shell, not
        // nobody's `nologin`.
        .env_remove("SHELL")
        .timeout(Duration::from_secs(120))
        .assert()
        .success();
    let rec = record(d, "1");
    assert_eq!(rec["mode"], "wayland");
    for cond in ["unloaded", "cpu"] {
        let p = format!("type.foot.{cond}");
        assert_eq!(metric(&rec, &format!("{p}.lost")), 0.0, "{p}: every key typed is found on the output");
        assert_eq!(metric(&rec, &format!("{p}.count")), 12.0, "{p}");
        assert_eq!(
            metric(&rec, &format!("{p}.capture_hz")),
            240.0,
            "{p}: with damage, every frame of the 240 Hz output"
        );
        assert!(metric(&rec, &format!("{p}.reads_per_second")) > 0.0, "{p}");
        assert!(metric(&rec, &format!("{p}.p50_over_frame")).is_finite(), "{p}: the excess over one frame");
    }
    assert_eq!(rec["config"]["capture"], "screencopy with damage");
    assert!(rec["config"]["apps"].as_str().unwrap().starts_with("foot=foot (foot "), "{}", rec["config"]["apps"]);
    assert!(rec["config"]["display"].as_str().unwrap().contains("headless sway"));
    documented(&rec);
    // Nothing of the compositor is left behind.
    let left: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("latlab-wayland-"))
        .filter(|e| {
            let pid: u32 = e.file_name().to_string_lossy()["latlab-wayland-".len()..].parse().unwrap_or(0);
            !Path::new(&format!("/proc/{pid}")).exists()
        })
        .collect();
    assert!(left.is_empty(), "runtime directories of ended runs: {left:?}");
}

/// The runs stored in `d`, newest first.
fn runs(d: &Path) -> serde_json::Value {
    let out = latlab(d).args(["runs", "--json"]).assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn a_long_type_run_is_checkpointed_and_ctrl_c_stores_it_interrupted() {
    if let Some(m) = missing(&[("Xvfb", "xvfb"), ("xterm", "xterm")]) {
        return skip(&m);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Two conditions of 100 keys a tenth of a second apart: the first ends, and is
    // checkpointed, while the second still types for ten seconds.
    // Its own process group, as a shell starts it, so Ctrl-C goes to the group as a
    // terminal's does: latlab's Xvfb and xterm must not die of it mid-run.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"))
        .current_dir(d)
        .env_remove("LATLAB_DB")
        .args(["type", "--checkpoint", "200ms", "--keys", "100", "--interval", "100ms", "--conditions", "unloaded,cpu"])
        .args(["--spinners", "1", "--", "xterm"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    // Wait, by what is stored, for the checkpoint of the first condition.
    super::wait_for_incomplete(d, &mut child, 1, Duration::from_secs(90));
    let checkpoint = record(d, "1");
    assert!(metric(&checkpoint, "type.xterm.unloaded.keys") > 0.0, "the first condition is in the checkpoint");
    let status = super::terminal_ctrl_c(&mut child, Duration::from_secs(30));
    let mut said = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut said).unwrap();
    assert_eq!(status.code(), Some(130), "{said}");
    assert!(said.contains("interrupted: kept what was measured"), "{said}");
    // The final record replaced the checkpoint's row: one run, interrupted, with the first
    // condition whole.
    let r = runs(d);
    assert_eq!(r.as_array().unwrap().len(), 1, "{r}");
    assert_eq!(r[0]["status"], "interrupted");
    let rec = record(d, "1");
    assert_eq!(metric(&rec, "type.xterm.unloaded.keys"), 100.0);
    documented(&rec);
}

#[test]
fn a_wayland_application_root_cannot_hand_over_is_named_for_what_it_is() {
    if !nix::unistd::Uid::effective().is_root() {
        return skip("only root runs the compositor's applications as another account");
    }
    if let Some(m) = missing(&[("sway", "sway")]) {
        return skip(&m);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Not installed anywhere: said so, not "Permission denied".
    latlab(d)
        .args(["type", "--display", "wayland", "--keys", "10", "--", "latlab-no-such-terminal"])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains(
                "latlab-no-such-terminal is not installed (no latlab-no-such-terminal on the PATH)",
            )
            .and(predicate::str::contains("Permission denied").not()),
        );
    // On root's PATH in a directory closed to `nobody`: named, with the directory.
    let closed = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/bin/true", closed.path().join("latlab-closed-terminal")).unwrap();
    std::fs::set_permissions(closed.path(), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let path = format!("{}:{}", closed.path().display(), std::env::var("PATH").unwrap_or_default());
    latlab(d)
        .env("PATH", path)
        .args(["type", "--display", "wayland", "--keys", "10", "--", "latlab-closed-terminal"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(format!(
            "cannot be run by nobody, the account the compositor's applications run as: {} is closed to other users",
            closed.path().display()
        )));
}

#[test]
fn what_cannot_be_typed_into_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d).args(["type"]).assert().code(2).stderr(predicate::str::contains("give an application to type into"));
    latlab(d)
        .args(["type", "--conditions", "10mbit", "--", "xterm"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("measures applications on this machine"));
    latlab(d)
        .args(["type", "--through-rdp", "--", "xterm"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give no application"));
    // A display nobody serves.
    let n = (300..400).find(|n| !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()).unwrap();
    latlab(d)
        .args(["type", "--on", &format!(":{n}")])
        .assert()
        .failure()
        .stderr(predicate::str::contains(format!("cannot open X display :{n}")));
    latlab(d)
        .args(["type", "--display", "wayland", "--on", "/nonexistent/wayland-9"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("cannot connect to the Wayland compositor at /nonexistent/wayland-9"));
    latlab(d)
        .args(["type", "--display", "wayland", "--through-rdp"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--through-rdp runs xfreerdp on X11"));
    // A program that does not exist; one that fails at once says what it said.
    if latlab_keyscreen::local::on_path("Xvfb") {
        latlab(d)
            .args(["type", "--", "no-such-program-latlab"])
            .assert()
            .failure()
            .stderr(predicate::str::contains("is no-such-program-latlab installed"));
        latlab(d)
            .args(["type", "--", "sh", "-c", "echo starting; echo cannot open font >&2; exit 3"])
            .assert()
            .failure()
            .stderr(predicate::str::contains("sh exited (exit status: 3) before it showed a window: cannot open font"));
    }
}

#[test]
fn runs_of_two_applications_are_listed_apart_and_compared_on_matched_series() {
    if let Some(m) = missing(&[("Xvfb", "xvfb"), ("xterm", "xterm"), ("st", "stterm")]) {
        return skip(&m);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for app in ["xterm", "st"] {
        latlab(d).args(["type", "--keys", "20", "--", app]).assert().success();
    }
    // `runs` tells them apart: mode and subject.
    let list = String::from_utf8(latlab(d).args(["runs"]).assert().success().get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = list.lines().collect();
    assert!(lines[0].contains("mode") && lines[0].contains("subject"), "{list}");
    assert!(lines[1].contains(" type ") && lines[1].contains(" x11 ") && lines[1].contains(" st "), "{list}");
    assert!(lines[2].contains(" xterm "), "{list}");
    // `compare` pairs the series by role (the application told apart) and says which it paired.
    let out = latlab(d).args(["compare", "1", "2"]).assert().success().get_output().stdout.clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("type.xterm.unloaded ↔ type.st.unloaded"), "{text}");
    assert!(!text.contains("no shared sample series"), "{text}");
    // Twenty keys read at the capture's resolution: no p99 called a difference on its own,
    // and the resolution is what a difference must pass.
    let json = latlab(d).args(["compare", "1", "2", "--json"]).assert().success().get_output().stdout.clone();
    let c: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(c["series"][0]["resolution"].as_f64().is_some_and(|r| r > 0.0), "{c}");
    // Runs that share nothing: an error, not an empty table.
    latlab(d).args(["selftest", "--samples", "10", "--no-mlock"]).assert().success();
    latlab(d).args(["compare", "1", "3"]).assert().code(1).stderr(predicate::str::contains("nothing to compare"));
}
