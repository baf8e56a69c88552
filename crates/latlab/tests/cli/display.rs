//! `latlab codec` and `latlab display` from the command line: packet files, ops, view and serve, and their errors.

use super::*;

#[test]
fn codec_round_trips_packet_files_and_reports_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d).args(["codec", "corpus", "--out", "c.pkt", "--packets", "200"]).assert().success();
    for algo in ["mppc8", "mppc64", "ncrush", "xcrush"] {
        // The default level, then the others: every level's stream decodes to the corpus, and
        // the best level is never larger than the fast one.
        let mut sizes = Vec::new();
        for level in [None, Some("balanced"), Some("best")] {
            let mut cmd = latlab(d);
            cmd.args(["codec", "compress", "--algo", algo, "--in", "c.pkt", "--out", "z.pkt"]);
            if let Some(l) = level {
                cmd.args(["--level", l]);
            }
            cmd.assert().success();
            sizes.push(std::fs::metadata(d.join("z.pkt")).unwrap().len());
            latlab(d)
                .args(["codec", "decompress", "--algo", algo, "--in", "z.pkt", "--out", "back.pkt"])
                .assert()
                .success();
            let same = std::fs::read(d.join("c.pkt")).unwrap() == std::fs::read(d.join("back.pkt")).unwrap();
            assert!(same, "{algo} {level:?}");
        }
        assert!(sizes[2] <= sizes[0], "{algo}: best {} bytes, fast {}", sizes[2], sizes[0]);
    }
    // The bench on a packet file, as lines for scripts: one per algorithm at the level asked.
    let out = latlab(d)
        .args(["codec", "bench", "--in", "c.pkt", "--level", "fast", "--passes", "1", "--tsv"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines.iter().all(|l| l.len() == 9 && l[2] == "fast" && l[6] == "200"), "{text}");
    latlab(d)
        .args(["codec", "compress", "--algo", "ncrush", "--level", "fastest", "--in", "c.pkt", "--out", "z.pkt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("fast, balanced, best"));
    latlab(d).args(["codec", "compress", "--algo", "xcrush", "--in", "c.pkt", "--out", "z.pkt"]).assert().success();
    let mut z = std::fs::read(d.join("z.pkt")).unwrap();
    z.truncate(z.len() - 3);
    std::fs::write(d.join("cut.pkt"), z).unwrap();
    latlab(d)
        .args(["codec", "decompress", "--algo", "mppc64", "--in", "cut.pkt", "--out", "x.pkt"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("record 199: truncated payload"));
    // A packet compressed with one algorithm, read as another: refused with the packet named.
    latlab(d)
        .args(["codec", "decompress", "--algo", "ncrush", "--in", "z.pkt", "--out", "x.pkt"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("packet 0"));
    // RLE: a 16 bpp bitmap of flat rows and a stripe, encoded and decoded back.
    let raw: Vec<u8> =
        (0..64 * 16u32).flat_map(|i| (if i % 64 < 8 { 0x1234u16 } else { (i / 64) as u16 }).to_le_bytes()).collect();
    std::fs::write(d.join("b.raw"), &raw).unwrap();
    let geo = ["--width", "64", "--height", "16", "--bpp", "16"];
    latlab(d).args(["codec", "rle-encode", "--in", "b.raw", "--out", "b.rle"]).args(geo).assert().success();
    let rle = std::fs::read(d.join("b.rle")).unwrap();
    assert!(rle.len() * 10 < raw.len(), "flat bitmap shrinks: {} of {}", rle.len(), raw.len());
    latlab(d).args(["codec", "rle-decode", "--in", "b.rle", "--out", "b2.raw"]).args(geo).assert().success();
    assert_eq!(std::fs::read(d.join("b2.raw")).unwrap(), raw);
    std::fs::write(d.join("bad.rle"), [0xA0u8, 1, 2]).unwrap();
    latlab(d)
        .args(["codec", "rle-decode", "--in", "bad.rle", "--out", "x.raw"])
        .args(geo)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("unknown order header 0xa0 at byte 0"));
    latlab(d)
        .args([
            "codec",
            "rle-encode",
            "--in",
            "b.raw",
            "--out",
            "x.rle",
            "--width",
            "63",
            "--height",
            "16",
            "--bpp",
            "16",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("2048 bytes, 2016 expected"));
    latlab(d)
        .args(["codec", "bench", "--packets", "50", "--passes", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("mppc64").and(predicate::str::contains("xcrush")));
}

#[test]
fn display_ops_view_serve_and_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    latlab(d).args(["display", "ops", "--workloads", "cursor,typing", "--duration", "1s"]).assert().success().stdout(
        predicate::str::contains("`ops.typing.display_bps`")
            .and(predicate::str::contains("one keystroke on the wire"))
            .and(predicate::str::contains("`ops.cursor.control_bps`")),
    );
    // The in-process pair, checking the screens at every frame.
    latlab(d)
        .args(["display", "view", "--workload", "typing", "--duration", "1s", "--check-frames"])
        .args(["--width", "320", "--height", "240", "--codec", "lz4", "--crypto", "chacha20"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("`view.frames_checked` | 50 ")
                .and(predicate::str::contains("view.frames_dropped")),
        );
    // A server in one process, the viewer in another.
    let bin = assert_cmd::cargo::cargo_bin("latlab");
    let mut serve = std::process::Command::new(&bin)
        .current_dir(d)
        .args(["display", "serve", "--listen", "127.0.0.1:38991", "--once"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(serve.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("listening on 127.0.0.1:38991"), "{line}");
    latlab(d)
        .args(["display", "view", "127.0.0.1:38991", "--workload", "scroll", "--duration", "1s", "--width", "320"])
        .args(["--height", "240"])
        .assert()
        .success()
        .stdout(predicate::str::contains("`view.frames` | 50 "));
    line.clear();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("50 frames") && line.contains("input events"), "{line}");
    assert!(serve.wait().unwrap().success());
    // Clear errors.
    latlab(d)
        .args(["display", "view", "--speed", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("client speed 0: use a fraction in (0, 1]"));
    latlab(d).args(["display", "ops", "--workloads", "nope"]).assert().code(2).stderr(
        predicate::str::contains("invalid value 'nope'").and(predicate::str::contains("[possible values: typing")),
    );
    latlab(d)
        .args(["display", "view", "127.0.0.1:1", "--duration", "1s"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is `latlab display serve` running there"));
    // `view` runs (not in the suite) emit only documented metrics.
    metrics_match_the_docs(d, false);
}

#[test]
fn capacity_of_typists_at_8_bpp_measures_a_lean_server_and_refuses_other_depths() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Typists only, at seed 003's depth, against `latlab display serve` as its own process.
    latlab(d)
        .args(["display", "capacity", "--mix", "typist=1", "--ramp", "1,4", "--duration", "2s", "--no-per-kind"])
        .args(["--bpp", "8", "--ramp-only"])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .success();
    let out = latlab(d).args(["export", "1", "--format", "json"]).assert().success().get_output().stdout.clone();
    let rec: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(rec["config"]["screen"], "1024x768x8");
    assert_eq!(rec["config"]["server"], "its own process (latlab display serve)");
    // With two or more CPUs here, the server has one of its own and the clients the rest.
    if latlab_sys::platform::allowed_cpus().len() >= 2 {
        assert!(
            rec["config"]["server_cpus"].is_string() && rec["config"]["client_cpus"].is_string(),
            "{}",
            rec["config"]
        );
    }
    let metric = |name: &str| {
        rec["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).map(|m| m["value"].as_f64().unwrap())
    };
    assert_eq!(metric("capacity.n4.lost_keys"), Some(0.0), "every key of every typist shown, its screen checked");
    assert!(metric("capacity.n4.client_cpu_per_session").is_some_and(|c| c > 0.0), "the clients' CPU apart");
    assert!(metric("capacity.n8.lost_keys").is_none(), "--ramp-only: no level past the ramp");
    // Four sessions share their first screen: what they add is far below one private 1024×768
    // RGBA canvas (3 MiB = 3072 KiB) — a bound, not a timing; the figure itself is the run
    // record's. No lower bound: PSS splits a shared page among the processes that map it, so
    // the server's share of its binary and libraries falls as more client processes of the same
    // binary run, and on a busy machine the difference between two levels can be below zero
    // (-212 KiB a session, seen with two CPU spinners beside the tests).
    let added = metric("capacity.n4.server_pss_added_per_session").expect("PSS a session adds");
    assert!(added.is_finite() && added < 3072.0, "{added} KiB a session");
    latlab(d)
        .args(["display", "capacity", "--bpp", "12", "--ramp", "1", "--duration", "1s"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("12 bpp: use 8, 16, 24 or 32"));
}
