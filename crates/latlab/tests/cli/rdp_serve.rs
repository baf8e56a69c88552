//! `display serve --rdp` from the command line: a real RDP client (FreeRDP's
//! xfreerdp under Xvfb, typed into with xdotool) served latlab's desktop and measured, each
//! session stored; and a server that keeps serving through a thousand idle connections, a
//! client that never finishes its handshake and one killed mid-frame.

use super::rdp::{metric, one_server};
use super::*;
use latlab_model::testing::skip;
use std::net::TcpStream;
use std::process::Child;

const NEEDS: [(&str, &str); 3] = [("Xvfb", "xvfb"), ("xfreerdp", "freerdp2-x11"), ("xdotool", "xdotool")];

fn missing() -> Option<String> {
    let lack: Vec<_> = NEEDS.iter().filter(|(p, _)| !latlab_keyscreen::local::on_path(p)).collect();
    (!lack.is_empty()).then(|| {
        format!(
            "no real RDP client: {} not installed (apt-get install {})",
            lack.iter().map(|(p, _)| *p).collect::<Vec<_>>().join(", "),
            lack.iter().map(|(_, k)| *k).collect::<Vec<_>>().join(" ")
        )
    })
}

/// Children killed when dropped.
struct Kids(Vec<Child>);

impl Drop for Kids {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// An Xvfb display of its own.
fn xvfb(kids: &mut Kids) -> String {
    let n = (60..400)
        .find(|n| {
            !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() && !Path::new(&format!("/tmp/.X{n}-lock")).exists()
        })
        .expect("a free X display");
    let d = format!(":{n}");
    kids.0.push(
        std::process::Command::new("Xvfb")
            .args([&d, "-screen", "0", "1280x1024x24", "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let until = Instant::now() + Duration::from_secs(10);
    while !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
        assert!(Instant::now() < until, "Xvfb did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    d
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Start `latlab display serve --rdp ARGS` in `dir`; returns once its port accepts.
fn serve(dir: &Path, port: u16, args: &[&str]) -> Reaped {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("latlab"));
    c.current_dir(dir).env_remove("LATLAB_DB").args([
        "display",
        "serve",
        "--rdp",
        "--listen",
        &format!("127.0.0.1:{port}"),
    ]);
    c.args(["--cert-dir", &dir.join("cert").display().to_string()]).args(args);
    let child =
        Reaped(c.stdout(Stdio::null()).stderr(std::fs::File::create(dir.join("serve.log")).unwrap()).spawn().unwrap());
    let until = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < until,
            "the server did not listen: {}",
            std::fs::read_to_string(dir.join("serve.log")).unwrap()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

/// xfreerdp on `display` to the server, as client `name`.
fn xfreerdp(display: &str, port: u16, name: &str) -> Child {
    std::process::Command::new("xfreerdp")
        .env("DISPLAY", display)
        .args([&format!("/v:127.0.0.1:{port}"), "/u:latlab", "/p:unused", "/cert:ignore", "/sec:tls"])
        .arg(format!("/client-hostname:{name}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Type `text` into the xfreerdp window once it shows.
fn type_into(display: &str, text: &str) {
    let out = std::process::Command::new("xdotool")
        .env("DISPLAY", display)
        .args(["search", "--sync", "--class", "xfreerdp"])
        .output()
        .unwrap();
    let w = String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or_default().to_string();
    assert!(!w.is_empty(), "no xfreerdp window");
    // The window shows before the session is active: give the client a moment.
    std::thread::sleep(Duration::from_millis(1500));
    let ok = |args: &[&str]| {
        let s = std::process::Command::new("xdotool").env("DISPLAY", display).args(args).status().unwrap();
        assert!(s.success(), "xdotool {args:?}");
    };
    ok(&["windowfocus", "--sync", &w]);
    ok(&["type", "--delay", "60", text]);
}

/// Wait until the server in `d` says `name`'s session began (however long the client took to
/// connect on this machine), failing if the client exits first or a minute passes.
fn began(d: &Path, client: &mut Child, name: &str) {
    let until = Instant::now() + Duration::from_secs(60);
    let line = format!("session began (client {name})");
    while !std::fs::read_to_string(d.join("serve.log")).unwrap_or_default().contains(&line) {
        assert!(Instant::now() < until, "the session of '{name}' never began");
        assert!(client.try_wait().unwrap().is_none(), "xfreerdp '{name}' exited before its session began");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn wait_exit(c: &mut Child, secs: u64) -> std::process::ExitStatus {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(s) = c.try_wait().unwrap() {
            return s;
        }
        assert!(Instant::now() < until, "did not exit within {secs} s");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn runs(d: &Path) -> Vec<serde_json::Value> {
    let out = latlab(d).args(["runs", "--json"]).assert().success().get_output().stdout.clone();
    let list: serde_json::Value = serde_json::from_slice(&out).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let id = r["id"].to_string();
            let json =
                latlab(d).args(["export", &id, "--format", "json"]).assert().success().get_output().stdout.clone();
            serde_json::from_slice(&json).unwrap()
        })
        .collect()
}

#[test]
fn xfreerdp_is_served_the_script_and_its_session_stored_with_input_to_update() {
    if let Some(why) = missing() {
        return skip(&why);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut kids = Kids(Vec::new());
    let display = xvfb(&mut kids);
    let port = free_port();
    let mut server = serve(d, port, &["--once", "--script", "echo,slideshow", "--phase", "4s"]);
    kids.0.push(xfreerdp(&display, port, "latlab-ci"));
    type_into(&display, "hello latlab");
    let status = wait_exit(&mut server.0, 60);
    let log = std::fs::read_to_string(d.join("serve.log")).unwrap();
    assert!(status.success(), "{log}");
    assert!(log.contains("certificate made and kept in") && log.contains("sha256:"), "{log}");
    // The client's session and the server's own run, both stored by the runner.
    let runs = runs(d);
    assert_eq!(runs.len(), 2, "{log}");
    let r = runs.iter().find(|r| r["mode"] == "serve-rdp").expect("the session's run");
    let server_run = runs.iter().find(|r| r["mode"] == "serve-rdp-server").expect("the server's run");
    assert_eq!(server_run["status"], "complete", "{log}");
    assert_eq!(metric(server_run, "serve.door.sessions"), 1.0);
    assert_eq!(server_run["config"]["session_runs"], r["id"].to_string(), "the server names its session's run");
    assert_eq!(r["status"], "complete", "{log}");
    let cfg = &r["config"];
    assert_eq!(cfg["client_name"], "latlab-ci", "the client's announced name");
    assert!(cfg["client_build"].as_u64().unwrap() > 0);
    assert_eq!(cfg["security"], "tls");
    assert!(cfg["client_capabilities"].as_str().unwrap().contains("input"));
    // Every key typed was echoed and timed: 12 presses ("hello latlab").
    assert!(metric(r, "serve.input.key_down") >= 12.0, "{log}");
    assert!(metric(r, "serve.input_to_update.count") >= 12.0, "{log}");
    assert!(metric(r, "serve.input_to_update.p50") > 0.0);
    assert_eq!(metric(r, "serve.input.malformed"), 0.0);
    // The slide show went out and the client took it.
    assert!(metric(r, "serve.slideshow.frames_sent") > 0.0);
    assert!(metric(r, "serve.slideshow.update_bytes_per_s") > 10_000.0);
    assert!(metric(r, "serve.wire_out_bytes") > metric(r, "serve.wire_in_bytes"));
    // A second start keeps the certificate.
    drop(server);
    let port = free_port();
    let mut again = serve(d, port, &["--once", "--script", "cursor", "--phase", "1s", "--hello-deadline", "1s"]);
    // Nobody connects but a silent socket, closed at the deadline; then Ctrl-C.
    let _silent = TcpStream::connect(("127.0.0.1", port)).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(again.0.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    wait_exit(&mut again.0, 20);
    let log = std::fs::read_to_string(d.join("serve.log")).unwrap();
    assert!(log.contains("certificate kept in"), "{log}");
    assert!(log.contains("1 past the deadline"), "{log}");
}

#[test]
fn idle_connections_a_stalled_handshake_and_a_client_killed_mid_frame_leave_the_server_serving() {
    if let Some(why) = missing() {
        return skip(&why);
    }
    let _one = one_server();
    // A thousand sockets here and the server's share of them.
    let (_, hard) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE).unwrap();
    let _ = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE, hard.min(8192), hard);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut kids = Kids(Vec::new());
    let display = xvfb(&mut kids);
    let port = free_port();
    let mut server = serve(
        d,
        port,
        &[
            "--script",
            "slideshow",
            "--phase",
            "4s",
            "--max-waiting",
            "32",
            "--hello-deadline",
            "5s",
            "--max-sessions",
            "1",
            "--gfx",
        ],
    );
    // A thousand idle connections: the waiting room keeps 32 and pushes the oldest out.
    let idle: Vec<TcpStream> = (0..1000).filter_map(|_| TcpStream::connect(("127.0.0.1", port)).ok()).collect();
    assert!(idle.len() >= 990, "{} connections", idle.len());
    // A client that starts the handshake (an X.224 Connection Request) and stops.
    let mut stalled = TcpStream::connect(("127.0.0.1", port)).unwrap();
    {
        use std::io::Write;
        let cr = [3u8, 0, 0, 19, 14, 0xE0, 0, 0, 0, 0, 0, 1, 0, 8, 0, 3, 0, 0, 0];
        stalled.write_all(&cr).unwrap();
    }
    // A client killed mid-frame (during the slide show): once its session has begun, however
    // long the connection took on this machine.
    let mut killed = xfreerdp(&display, port, "killed");
    began(d, &mut killed, "killed");
    std::thread::sleep(Duration::from_millis(1000));
    let _ = killed.kill();
    let _ = killed.wait();
    // And one that stays: served in full.
    let mut stays = xfreerdp(&display, port, "stays");
    // One more while it is served: past --max-sessions 1, told the server denied it.
    began(d, &mut stays, "stays");
    let mut busy = xfreerdp(&display, port, "busy");
    wait_exit(&mut busy, 30);
    wait_exit(&mut stays, 60);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(server.0.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    wait_exit(&mut server.0, 20);
    drop(idle);
    let log = std::fs::read_to_string(d.join("serve.log")).unwrap();
    let runs = runs(d);
    let by = |name: &str| {
        runs.iter().find(|r| r["config"]["client_name"] == name).unwrap_or_else(|| panic!("no run of {name}: {log}"))
    };
    let stays = by("stays");
    assert_eq!(stays["status"], "complete", "{log}");
    assert!(metric(stays, "serve.slideshow.frames_sent") > 0.0);
    // xfreerdp opens the graphics pipeline when offered, and acknowledges its frames.
    assert!(stays["config"]["gfx"].as_str().unwrap().starts_with('V'), "{}", stays["config"]["gfx"]);
    assert!(metric(stays, "serve.slideshow.frames_acked") > 0.0, "{log}");
    assert!(metric(stays, "serve.gfx.ack_latency.count") > 0.0);
    let k = by("killed");
    assert_eq!(k["status"], "failed", "a session cut short is stored as such: {log}");
    assert!(k["config"]["end"].as_str().unwrap().contains("client"), "{log}");
    assert!(log.contains("pushed out of a full waiting room"), "{log}");
    assert!(log.contains("refused: every session slot is taken"), "{log}");
    assert!(runs.iter().all(|r| r["config"]["client_name"] != "busy"), "a refused client has no run");
}

#[test]
fn a_server_run_is_checkpointed_while_it_serves_and_ctrl_c_stores_it_and_its_session_interrupted() {
    if let Some(why) = missing() {
        return skip(&why);
    }
    let _one = one_server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut kids = Kids(Vec::new());
    let display = xvfb(&mut kids);
    let port = free_port();
    let mut server = serve(d, port, &["--checkpoint", "200ms", "--script", "slideshow", "--phase", "2m"]);
    let mut client = xfreerdp(&display, port, "cut");
    began(d, &mut client, "cut");
    // The server's run is checkpointed as it serves: its row is there, incomplete.
    super::wait_for_incomplete(d, &mut server.0, 1, Duration::from_secs(30));
    let status = super::ctrl_c(&mut server.0, Duration::from_secs(30));
    let _ = client.kill();
    let _ = client.wait();
    let log = std::fs::read_to_string(d.join("serve.log")).unwrap();
    assert_eq!(status.code(), Some(130), "{log}");
    let runs = runs(d);
    assert_eq!(runs.len(), 2, "the checkpoint's row was replaced, not added to: {log}");
    let server_run = runs.iter().find(|r| r["mode"] == "serve-rdp-server").expect("the server's run");
    assert_eq!(server_run["status"], "interrupted", "{log}");
    // The harness's readiness probe and the client.
    assert_eq!(metric(server_run, "serve.door.connections"), 2.0);
    assert_eq!(metric(server_run, "serve.door.sessions"), 1.0);
    let session = runs.iter().find(|r| r["mode"] == "serve-rdp").expect("the session's run");
    assert_eq!(session["status"], "interrupted", "a session cut by Ctrl-C: {log}");
    assert_eq!(session["config"]["client_name"], "cut");
    assert!(metric(session, "serve.slideshow.frames_sent") > 0.0, "what was served until then is kept");
}
