//! `latlab display serve --rdp`: latlab's desktop served to real RDP clients
//! (mstsc, xfreerdp, Remmina, a thin client), each connection measured from the server's side
//! and stored as a run.
//!
//! | file | holds |
//! |---|---|
//! | `tls.rs` | the kept self-signed certificate and its fingerprint |
//! | `accept.rs` | the connection sequence (IronRDP's acceptor), NLA, what the client announced |
//! | `session.rs` | the script played to the client, input echoed, input to update |
//! | `plan.rs` | the phases a session plays and what each measured |
//! | `input.rs` | the client's input PDUs parsed and counted; whether it takes latlab's orders |
//! | `conn.rs` | TLS on the non-blocking socket, with its counts; why a session stopped |
//! | `gfx.rs` | RDPGFX for a client that opens it: a surface, frames, acknowledgements |
//! | `error.rs` | why the server (or a session's channel) failed: `ServeError` |
//! | this file | the front door (waiting room, session slots) and the run record |

pub mod accept;
mod conn;
pub mod error;
pub mod gfx;
mod input;
pub mod plan;
pub mod session;
pub mod tls;

pub use accept::{AcceptConfig, AcceptError, ClientIdentity};
pub use error::ServeError;
pub use ironrdp_pdu::rdp::client_info::Credentials as Account;
pub use plan::{Phase, Plan, ServeRun};
pub use tls::ServerIdentity;

use latlab_model::record::{RunRecord, RunStatus, Table};
use latlab_sys::record::Finish;
use std::collections::VecDeque;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What `display serve --rdp` offers and allows.
#[derive(Debug, Clone)]
pub struct RdpServeConfig {
    /// The desktop and security offered.
    pub accept: AcceptConfig,
    /// What each client is shown.
    pub plan: Plan,
    /// Sessions at once; a client past it is told the server denied the connection.
    pub max_sessions: usize,
    /// Connections in their connection sequence at once; past it the oldest is closed.
    pub max_waiting: usize,
    /// Serve one client, then return.
    pub once: bool,
}

impl RdpServeConfig {
    /// Check the configuration before anything listens: the phases' length and the desktop's
    /// size (the admission limits are the gate's, checked with them).
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if !(1..=3_600_000).contains(&self.plan.phase_ms) {
            return Err(format!(
                "--phase-seconds {}: give 0 to 3600 seconds (above 0)",
                self.plan.phase_ms as f64 / 1000.0
            )
            .into());
        }
        let (w, h) = (self.accept.width, self.accept.height);
        if !(64..=8192).contains(&w) || !(64..=8192).contains(&h) {
            return Err(format!("{w}x{h}: give a desktop of 64x64 to 8192x8192").into());
        }
        if self.plan.script.is_empty() {
            return Err("--script: at least one phase".into());
        }
        Ok(())
    }
}

/// The account a client must log on as: `user`, with the password from
/// `LATLAB_RDP_PASSWORD` (`get` reads the environment), never from the command line.
pub fn account_from_env(
    user: &str,
    get: impl Fn(&str) -> Option<String>,
) -> Result<Account, latlab_model::ConfigError> {
    let password = get("LATLAB_RDP_PASSWORD")
        .ok_or(format!("--rdp-user {user}: put the account's password in LATLAB_RDP_PASSWORD"))?;
    Ok(Account { username: user.into(), password, domain: None })
}

/// What the front door did, updated as it runs.
#[derive(Debug, Default)]
pub struct RdpGateStats {
    /// Connections accepted by TCP.
    pub connections: AtomicU64,
    /// Sessions served (the connection sequence finished, a slot was free).
    pub sessions: AtomicU64,
    /// Closed: the sequence did not finish within the deadline.
    pub deadline: AtomicU64,
    /// Closed: the sequence failed (TLS, a refused logon, a protocol not offered).
    pub failed: AtomicU64,
    /// Closed: pushed out of a full waiting room (the oldest goes).
    pub pushed_out: AtomicU64,
    /// Refused: every session slot taken.
    pub busy: AtomicU64,
}

impl RdpGateStats {
    /// One line for people.
    pub fn line(&self) -> String {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        format!(
            "{} connections, {} sessions; closed: {} past the handshake deadline, {} failed handshakes, {} pushed out of a full waiting room; refused: {} busy",
            l(&self.connections),
            l(&self.sessions),
            l(&self.deadline),
            l(&self.failed),
            l(&self.pushed_out),
            l(&self.busy)
        )
    }
}

/// What became of one connection.
#[derive(Debug)]
pub enum Outcome {
    /// A session began: the client finished its connection sequence and holds a slot (the
    /// client's name). Not an end: the same connection ends later as `Served`.
    Began(String),
    /// A session was served (complete or not: see [`ServeRun::complete`]).
    Served(Box<ServeRun>),
    /// The connection sequence did not finish.
    NotAccepted(AcceptError),
    /// Pushed out of the waiting room.
    PushedOut,
    /// Every session slot was taken.
    Busy,
}

/// Where each connection's outcome goes (from that connection's thread), with its peer; a
/// session's beginning goes there too, before its end.
pub type OnOutcome = Arc<dyn Fn(&str, Outcome) + Send + Sync>;

/// Connections in their connection sequence, oldest first.
type Room = Mutex<VecDeque<(u64, TcpStream)>>;

/// Serve RDP clients on `listener` until `stop()` (checked every 50 ms) or, with
/// `cfg.once`, after one session. `done` gets each connection's peer and outcome, from that
/// connection's thread.
pub fn serve_rdp(
    listener: &TcpListener,
    cfg: &RdpServeConfig,
    id: &ServerIdentity,
    stats: Arc<RdpGateStats>,
    stop: &dyn Fn() -> bool,
    done: OnOutcome,
) -> Result<(), ServeError> {
    use latlab_sys::ioerr::Doing;
    let tls = id.server_config()?;
    listener.set_nonblocking(true).doing("making the listener non-blocking")?;
    let room: Arc<Room> = Arc::new(Mutex::new(VecDeque::new()));
    let active = Arc::new(AtomicUsize::new(0));
    let mut threads: Vec<std::thread::JoinHandle<bool>> = Vec::new();
    let mut next_id = 0u64;
    loop {
        threads.retain(|t| !t.is_finished());
        if stop() {
            break;
        }
        if cfg.once && stats.sessions.load(Ordering::Relaxed) > 0 && active.load(Ordering::Relaxed) == 0 {
            break;
        }
        let (tcp, peer) = match listener.accept() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                // Out of descriptors and the like: wait and go on serving the others.
                eprintln!("display serve --rdp: accept: {e}");
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        stats.connections.fetch_add(1, Ordering::Relaxed);
        let _ = tcp.set_nonblocking(false);
        next_id += 1;
        let me = next_id;
        {
            let mut r = room.lock().unwrap_or_else(|p| p.into_inner());
            while r.len() >= cfg.max_waiting {
                if let Some((_, oldest)) = r.pop_front() {
                    let _ = oldest.shutdown(std::net::Shutdown::Both);
                    stats.pushed_out.fetch_add(1, Ordering::Relaxed);
                }
            }
            if let Ok(c) = tcp.try_clone() {
                r.push_back((me, c));
            }
        }
        let (cfg, tls, id, stats, room, active, done) =
            (cfg.clone(), tls.clone(), id.clone(), stats.clone(), room.clone(), active.clone(), done.clone());
        let spawned = std::thread::Builder::new().name(format!("rdp {peer}")).spawn(move || {
            let peer = peer.to_string();
            let t0 = Instant::now();
            let accepted = accept::accept(tcp, &cfg.accept, &id, &tls);
            let was_waiting = {
                let mut r = room.lock().unwrap_or_else(|p| p.into_inner());
                let at = r.iter().position(|(i, _)| *i == me);
                at.map(|i| r.remove(i)).is_some()
            };
            let acc = match (accepted, was_waiting) {
                (_, false) => {
                    done(&peer, Outcome::PushedOut);
                    return false;
                }
                (Err(e), true) => {
                    match e {
                        AcceptError::Deadline(_) => stats.deadline.fetch_add(1, Ordering::Relaxed),
                        _ => stats.failed.fetch_add(1, Ordering::Relaxed),
                    };
                    done(&peer, Outcome::NotAccepted(e));
                    return false;
                }
                (Ok(a), true) => a,
            };
            let handshake_ns = t0.elapsed().as_nanos() as u64;
            if active.fetch_add(1, Ordering::SeqCst) >= cfg.max_sessions {
                active.fetch_sub(1, Ordering::SeqCst);
                stats.busy.fetch_add(1, Ordering::Relaxed);
                session::refuse(acc);
                done(&peer, Outcome::Busy);
                return false;
            }
            done(&peer, Outcome::Began(acc.client.name.clone()));
            let run = session::serve(acc, &cfg.plan, peer.clone(), handshake_ns);
            stats.sessions.fetch_add(1, Ordering::Relaxed);
            active.fetch_sub(1, Ordering::SeqCst);
            done(&peer, Outcome::Served(Box::new(run)));
            true
        });
        match spawned {
            Ok(t) => threads.push(t),
            Err(e) => eprintln!("display serve --rdp: no thread for {peer}: {e}"),
        }
    }
    // Those in their sequence are closed; sessions end at the stop (they check it).
    for (_, c) in room.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
        let _ = c.shutdown(std::net::Shutdown::Both);
    }
    for t in threads {
        let _ = t.join();
    }
    Ok(())
}

/// The stored run of one client's session.
pub fn run_record(run: &ServeRun, plan: &Plan) -> RunRecord {
    let mut rec = latlab_sys::record::begin("display");
    rec.mode = "serve-rdp".into();
    let c = &run.client;
    rec.config("peer", &run.peer);
    rec.config("client_name", &c.name);
    rec.config("client_build", c.build);
    rec.config("client_rdp_version", &c.rdp_version);
    rec.config("client_desktop", format!("{}x{}", c.desktop.0, c.desktop.1));
    rec.config("client_color_depth", c.color_depth);
    rec.config("client_compression", c.compression.map_or("none", |t| t.name()));
    rec.config("client_capabilities", c.capabilities.join(","));
    rec.config("client_codecs", c.codecs.join(","));
    rec.config("client_fastpath_input", c.fastpath_input);
    rec.config("security", c.security);
    rec.config("user", &c.user);
    rec.config("screen", &run.screen);
    rec.config("codec", run.codec);
    rec.config("orders", run.orders);
    if let Some(why) = &run.orders_refused {
        rec.config("orders_refused", why);
        rec.warn(format!("orders were asked for but not used: {why}"));
    }
    rec.config("script", plan.script.iter().map(Phase::name).collect::<Vec<_>>().join(","));
    rec.config("phase_seconds", plan.phase_ms as f64 / 1000.0);
    rec.config("frame_ms", plan.frame_ms);
    rec.config("pace", if plan.flat_out { "flat out" } else { "real time" });
    rec.config("end", &run.end);
    rec.config("gfx", run.gfx.as_ref().map_or("not offered", |g| g.state.as_str()));
    if let Some(g) = &run.gfx {
        rec.summarized_series(
            "serve.gfx.ack_latency",
            "ns",
            "each frame the client acknowledged (RDPGFX): its bytes handed to TLS to the acknowledgement read".into(),
            g.ack_ns.iter().map(|&n| n as i64).collect(),
        );
        if !g.ack_ns.is_empty() {
            rec.metric("serve.gfx.max_queue_depth", g.max_queue_depth as u64, "count");
        }
    }
    rec.metric("serve.handshake", run.handshake_ns as f64, "ns");
    rec.summarized_series(
        "serve.input_to_update",
        "ns",
        "each key the client typed in the echo phase: its input PDU's arrival to the first byte of the update it caused written".into(),
        run.input_to_update_ns.iter().map(|&n| n as i64).collect(),
    );
    let mut rows = Vec::new();
    for p in &run.phases {
        let secs = p.wall_ns.max(1) as f64 / 1e9;
        let m = |k: &str| format!("serve.{}.{k}", p.name);
        rec.metric(&m("frames"), p.frames, "count");
        rec.metric(&m("frames_sent"), p.sent, "count");
        rec.metric(&m("frames_dropped"), p.dropped, "count");
        rec.metric(&m("frames_suppressed"), p.suppressed, "count");
        rec.metric(&m("fps"), p.sent as f64 / secs, "1/s");
        rec.metric(&m("drop_share"), p.dropped as f64 / p.frames.max(1) as f64, "ratio");
        rec.metric(&m("update_bytes_per_s"), p.update_bytes as f64 / secs, "B/s");
        if p.plain_bytes > 0 {
            rec.metric(&m("compression_ratio"), p.update_bytes as f64 / p.plain_bytes as f64, "ratio");
        }
        let cpu = p.render_ns + p.encode_ns + p.send_ns;
        rec.metric(&m("server_cpu_fraction"), cpu as f64 / p.wall_ns.max(1) as f64, "ratio");
        rec.metric(&m("keys"), p.keys, "count");
        if run.gfx.as_ref().is_some_and(|g| !g.ack_ns.is_empty()) {
            rec.metric(&m("frames_acked"), p.acked, "count");
            rec.metric(&m("acked_fps"), p.acked as f64 / secs, "1/s");
        }
        rows.push(vec![
            p.name.clone().into(),
            (p.sent as f64 / secs).into(),
            (p.update_bytes as f64 / secs).into(),
            p.frames.into(),
            p.dropped.into(),
            (cpu as f64 / p.wall_ns.max(1) as f64).into(),
        ]);
    }
    rec.tables.push(
        Table::new("serve.phases", format!("{} ({}) as latlab's server saw it, phase by phase", c.name, c.rdp_version))
            .column("phase", "")
            .column("frames sent per s", "1/s")
            .column("update bytes per s", "B/s")
            .column("frames drawn", "count")
            .column("frames dropped", "count")
            .column("server CPU", "ratio")
            .rows(rows),
    );
    let i = &run.input;
    for (k, v) in [
        ("fastpath_pdus", i.fastpath_pdus),
        ("slowpath_pdus", i.slowpath_pdus),
        ("key_down", i.key_down),
        ("key_up", i.key_up),
        ("mouse", i.mouse),
        ("sync", i.sync),
        ("other", i.other),
        ("suppress_output", i.suppress_output),
        ("refresh_rect", i.refresh_rect),
        ("malformed", i.malformed),
    ] {
        rec.metric(&format!("serve.input.{k}"), v, "count");
    }
    for &(ch, inb, outb) in &run.channels {
        rec.metric(&format!("serve.channel.{ch}.in_bytes"), inb, "B");
        rec.metric(&format!("serve.channel.{ch}.out_bytes"), outb, "B");
    }
    rec.metric("serve.wire_in_bytes", run.wire_in, "B");
    rec.metric("serve.wire_out_bytes", run.wire_out, "B");
    if run.input.malformed > 0 {
        rec.warn(format!("{} input PDUs from the client did not read (counted and dropped)", run.input.malformed));
    }
    if !run.complete {
        rec.warn(format!("the session ended before the script did: {}", run.end));
    }
    rec.finish(if run.complete { RunStatus::Complete } else { RunStatus::Failed });
    rec
}

#[cfg(test)]
mod tests {
    use super::*;
    use plan::{InputCounts, PhaseStats};

    fn plan() -> Plan {
        Plan {
            script: vec![Phase::Echo, Phase::from_name("slideshow").unwrap()],
            phase_ms: 2000,
            frame_ms: 20,
            flat_out: false,
            orders: true,
            compress: true,
            seed: 1,
            idle_ns: 1,
            max_ns: 1,
        }
    }

    #[test]
    fn a_session_becomes_a_record_with_its_client_phases_and_keys() {
        let run = ServeRun {
            peer: "127.0.0.1:5000".into(),
            client: ClientIdentity { name: "thin".into(), build: 7, security: "tls", ..Default::default() },
            codec: "xcrush",
            orders_refused: Some("no cache".into()),
            phases: vec![
                PhaseStats {
                    name: "echo".into(),
                    frames: 3,
                    sent: 3,
                    wall_ns: 2_000_000_000,
                    keys: 3,
                    ..Default::default()
                },
                PhaseStats {
                    name: "slideshow".into(),
                    frames: 100,
                    sent: 90,
                    dropped: 10,
                    update_bytes: 1000,
                    plain_bytes: 4000,
                    wall_ns: 2_000_000_000,
                    ..Default::default()
                },
            ],
            input_to_update_ns: vec![300_000, 200_000, 250_000],
            input: InputCounts { key_down: 3, malformed: 2, ..Default::default() },
            channels: vec![(1003, 50, 1000)],
            end: "the client closed the connection".into(),
            complete: false,
            ..Default::default()
        };
        let rec = run_record(&run, &plan());
        let m = |n: &str| rec.get_metric(n).unwrap_or_else(|| panic!("no {n}")).value.as_f64();
        assert_eq!(rec.mode, "serve-rdp");
        assert_eq!(m("serve.input_to_update.count"), 3.0);
        assert_eq!(m("serve.input_to_update.p50"), 250_000.0);
        assert_eq!(m("serve.slideshow.fps"), 45.0);
        assert_eq!(m("serve.slideshow.drop_share"), 0.1);
        assert_eq!(m("serve.slideshow.compression_ratio"), 0.25);
        assert!(rec.get_metric("serve.echo.compression_ratio").is_none(), "nothing sent, no ratio");
        assert_eq!(m("serve.channel.1003.out_bytes"), 1000.0);
        assert_eq!(m("serve.input.malformed"), 2.0);
        assert_eq!(rec.config["client_name"], "thin");
        assert_eq!(rec.config["script"], "echo,slideshow");
        assert_eq!(rec.status, RunStatus::Failed, "a session cut short");
        assert_eq!(rec.warnings.len(), 3, "{:?}", rec.warnings);
        assert_eq!(rec.tables[0].rows.len(), 2);
        assert!(rec.metrics.iter().all(|m| latlab_model::record::valid_name(&m.name)));
    }
}
