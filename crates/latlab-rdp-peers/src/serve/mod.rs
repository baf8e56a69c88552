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
//! | this file | RDP at latlab's front door (`latlab_sys::door`) and the run record |

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
pub use latlab_sys::door::DoorStats;
use latlab_sys::door::{Admission, Door, DoorLimits, Hello, Refusal};
use latlab_sys::record::Finish;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::Ordering;

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
            return Err(format!("--phase {} ms: give a phase above 0 and at most 1h", self.plan.phase_ms).into());
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

/// The longest X.224 Connection Request the front door waits for, bytes (a cookie or a
/// routing token and the negotiation request fit in a few hundred).
const MAX_CONNECTION_REQUEST: usize = 2048;

/// RDP at latlab's front door ([`latlab_sys::door`]): the first message is the client's X.224
/// Connection Request (one TPKT), awaited with every other waiting connection in one thread;
/// the rest of the sequence (TLS, NLA, capabilities) runs on the connection's own thread
/// within what is left of the deadline, and a session slot is taken once it finished.
struct RdpDoor {
    cfg: RdpServeConfig,
    id: ServerIdentity,
    tls: Arc<rustls::ServerConfig>,
    done: OnOutcome,
}

impl Door for RdpDoor {
    type Hello = ();
    const MAX_HELLO: usize = MAX_CONNECTION_REQUEST;

    fn hello(&self, bytes: &[u8]) -> Hello<()> {
        if bytes.first().is_some_and(|&v| v != 3) {
            return Hello::Refuse(Refusal::Bad("not RDP: a TPKT header begins with version 3".into()));
        }
        if bytes.len() < 4 {
            return Hello::More;
        }
        let len = u16::from_be_bytes([bytes[2], bytes[3]]) as usize;
        if !(7..=MAX_CONNECTION_REQUEST).contains(&len) {
            return Hello::Refuse(Refusal::Bad(format!("not RDP: a TPKT of {len} bytes")));
        }
        // The acceptor reads the request itself: the whole of it goes to the session.
        if bytes.len() < len { Hello::More } else { Hello::Done { hello: (), used: 0 } }
    }

    fn refuse(&self, _: &mut TcpStream, peer: SocketAddr, why: &Refusal) {
        // Before the X.224 exchange the client can be told nothing: the socket closes.
        let peer = peer.to_string();
        match why {
            Refusal::PushedOut | Refusal::OutOfDescriptors => (self.done)(&peer, Outcome::PushedOut),
            Refusal::Deadline(d) => (self.done)(&peer, Outcome::NotAccepted(AcceptError::Deadline(*d))),
            Refusal::Busy => (self.done)(&peer, Outcome::Busy),
            Refusal::Bad(why) | Refusal::TooLong(why) => {
                (self.done)(&peer, Outcome::NotAccepted(AcceptError::Sequence(why.clone())))
            }
            Refusal::Oversized(n) => (self.done)(
                &peer,
                Outcome::NotAccepted(AcceptError::Sequence(format!("a Connection Request over {n} bytes"))),
            ),
        }
    }

    fn serve(&self, tcp: TcpStream, _: (), early: Vec<u8>, a: Admission) {
        let peer = a.peer.to_string();
        let accepted = accept::accept(tcp, &early, a.since, &self.cfg.accept, &self.id, &self.tls);
        if !a.admitted() {
            (self.done)(&peer, Outcome::PushedOut);
            return;
        }
        let acc = match accepted {
            Ok(acc) => acc,
            Err(e) => {
                let counter = match e {
                    AcceptError::Deadline(_) => &a.stats().deadline,
                    _ => &a.stats().failed,
                };
                counter.fetch_add(1, Ordering::Relaxed);
                (self.done)(&peer, Outcome::NotAccepted(e));
                return;
            }
        };
        let handshake_ns = a.since.elapsed().as_nanos() as u64;
        let Some(_slot) = a.take_slot() else {
            session::refuse(acc);
            (self.done)(&peer, Outcome::Busy);
            return;
        };
        (self.done)(&peer, Outcome::Began(acc.client.name.clone()));
        let run = session::serve(acc, &self.cfg.plan, peer.clone(), handshake_ns);
        (self.done)(&peer, Outcome::Served(Box::new(run)));
    }
}

/// Serve RDP clients on `listener` through latlab's front door until `stop()` (checked every
/// 100 ms at most) or, with `cfg.once`, after one session; returns when every session has
/// ended. `done` gets each connection's peer and outcome, from that connection's thread;
/// `stats` counts them.
pub fn serve_rdp(
    listener: &TcpListener,
    cfg: &RdpServeConfig,
    id: &ServerIdentity,
    stats: Arc<DoorStats>,
    stop: &dyn Fn() -> bool,
    done: OnOutcome,
) -> Result<(), ServeError> {
    use latlab_sys::ioerr::Doing;
    let tls = id.server_config()?;
    let limits = DoorLimits {
        hello_deadline: cfg.accept.deadline,
        max_waiting: cfg.max_waiting,
        max_sessions: cfg.max_sessions,
        once: cfg.once,
    };
    let door = Arc::new(RdpDoor { cfg: cfg.clone(), id: id.clone(), tls, done });
    latlab_sys::door::serve(listener, door, limits, stats, stop).doing("serving RDP")?;
    Ok(())
}

/// The stored run of one client's session.
pub fn run_record(run: &ServeRun, plan: &Plan) -> RunRecord {
    let mut rec = latlab_sys::record::begin("display");
    rec.mode = "serve-rdp".into();
    let c = &run.client;
    rec.config("peer", &run.peer);
    rec.config("client_name", &c.name);
    // What was measured, for `latlab runs`: the client.
    rec.config("subject", if c.name.is_empty() { "an unnamed client" } else { c.name.as_str() });
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
