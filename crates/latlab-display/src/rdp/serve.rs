//! `latlab display serve --rdp` as an `Experiment`: the server's own run (its front door's
//! counters, checkpointed as it serves, `interrupted` at Ctrl-C) and each client's session
//! stored as a run of its own the moment it ends.

use latlab_model::experiment::{Experiment, ExperimentError, Outcome, RunContext};
use latlab_model::record::{RunRecord, RunStatus};
use latlab_rdp_peers::serve::{self as rs, DoorStats, Outcome as Door, Phase, Plan};
use latlab_sys::record::Finish;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What `latlab display serve --rdp` runs. `Default` is the documented defaults.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ServeRdpRun {
    /// Address to listen on.
    pub listen: String,
    /// Where the certificate is kept; none: `~/.config/latlab/rdp-server/`.
    pub cert_dir: Option<PathBuf>,
    /// Desktop width, pixels.
    pub width: u16,
    /// Desktop height, pixels.
    pub height: u16,
    /// The session's colour depth.
    pub bpp: u16,
    /// Offer the graphics pipeline (RDPGFX), its frames plain or ZGFX-compressed.
    pub gfx: Option<rs::accept::GfxFrames>,
    /// Time a client has to finish the connection sequence, ns.
    pub deadline_ns: u64,
    /// The account clients log on as; its password is read from `LATLAB_RDP_PASSWORD` when
    /// the run starts and is never stored. None: TLS only, any logon.
    pub user: Option<String>,
    /// What each client is shown.
    pub plan: Plan,
    /// Sessions at once.
    pub max_sessions: usize,
    /// Connections in their connection sequence at once.
    pub max_waiting: usize,
    /// Serve one session, then stop.
    pub once: bool,
}

impl Default for ServeRdpRun {
    fn default() -> Self {
        let script = latlab_rdp_peers::defaults::RDP_SERVE_SCRIPT.split(',').filter_map(Phase::from_name).collect();
        ServeRdpRun {
            listen: format!("127.0.0.1:{}", latlab_rdp_peers::defaults::RDP_SERVE_PORT),
            cert_dir: None,
            width: latlab_desktop::defaults::WIDTH as u16,
            height: latlab_desktop::defaults::HEIGHT as u16,
            bpp: latlab_desktop::defaults::BPP as u16,
            gfx: None,
            deadline_ns: (latlab_rdp_peers::defaults::RDP_HANDSHAKE_DEADLINE_SECS * 1e9) as u64,
            user: None,
            plan: Plan {
                script,
                phase_ms: (latlab_rdp_peers::defaults::RDP_SERVE_PHASE_SECS * 1000.0) as u64,
                frame_ms: latlab_desktop::defaults::FRAME_MS,
                flat_out: false,
                orders: false,
                compress: true,
                seed: latlab_desktop::defaults::SEED,
                idle_ns: (latlab_display_net::defaults::IDLE_TIMEOUT_SECS * 1e9) as u64,
                max_ns: (latlab_display_net::defaults::MAX_SESSION_SECS * 1e9) as u64,
            },
            max_sessions: latlab_display_net::defaults::MAX_SESSIONS,
            max_waiting: latlab_display_net::defaults::MAX_WAITING,
            once: false,
        }
    }
}

impl ServeRdpRun {
    /// Its admission limits, as `display serve` states and checks them.
    pub fn limits(&self) -> latlab_display_net::Limits {
        latlab_display_net::Limits {
            hello_deadline: Duration::from_nanos(self.deadline_ns),
            idle_timeout: Duration::from_nanos(self.plan.idle_ns),
            max_session: Duration::from_nanos(self.plan.max_ns),
            max_sessions: self.max_sessions,
            max_waiting: self.max_waiting,
        }
    }

    /// The server's configuration, with the account whose password `get` reads.
    pub fn serve_config(
        &self,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<rs::RdpServeConfig, latlab_model::ConfigError> {
        let account = match &self.user {
            None => None,
            Some(u) => Some(rs::account_from_env(u, get)?),
        };
        Ok(rs::RdpServeConfig {
            accept: rs::AcceptConfig {
                width: self.width,
                height: self.height,
                bpp: self.bpp,
                account,
                deadline: Duration::from_nanos(self.deadline_ns),
                gfx: self.gfx,
            },
            plan: self.plan.clone(),
            max_sessions: self.max_sessions,
            max_waiting: self.max_waiting,
            once: self.once,
        })
    }
}

/// The environment's value of `k` (the account's password).
fn env(k: &str) -> Option<String> {
    std::env::var(k).ok()
}

/// `latlab display serve --rdp`.
pub struct DisplayServeRdp;

impl Experiment for DisplayServeRdp {
    type Config = ServeRdpRun;
    const NAME: &'static str = "display";
    const DOCS: &'static str = "docs/experiments/display.md";
    const MODE: &'static str = "serve-rdp-server";
    const ABOUT: &'static str = "a real RDP server for real clients, each session measured from the server's side";
    fn suite_configs(_: bool) -> Vec<ServeRdpRun> {
        // The suite has no client to connect; the CLI tests run xfreerdp.
        Vec::new()
    }
    fn validate(cfg: &ServeRdpRun) -> Result<(), latlab_model::ConfigError> {
        cfg.limits().validate()?;
        cfg.serve_config(env)?.validate()
    }
    fn steps(cfg: &ServeRdpRun) -> u64 {
        u64::from(cfg.once)
    }
    fn announce(cfg: &ServeRdpRun) -> String {
        format!(
            "display serve --rdp: on {}, script {} ({} s a phase), {}",
            cfg.listen,
            cfg.plan.script.iter().map(|p| p.name()).collect::<Vec<_>>().join(","),
            cfg.plan.phase_ms as f64 / 1000.0,
            if cfg.once { "one session" } else { "Ctrl-C or SIGTERM stops; SIGUSR1 prints the counters" }
        )
    }
    fn run(cfg: &ServeRdpRun, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        let serve = cfg.serve_config(env).map_err(ExperimentError::Config)?;
        let dir = cfg.cert_dir.clone().unwrap_or_else(rs::tls::default_dir);
        let id = rs::tls::load_or_create(&dir).map_err(ExperimentError::failed)?;
        eprintln!(
            "display serve --rdp: certificate {} {} ({})",
            if id.created { "made and kept in" } else { "kept in" },
            dir.display(),
            id.fingerprint
        );
        latlab_sys::interrupt::install_status_signal().map_err(ExperimentError::failed)?;
        let listener = std::net::TcpListener::bind(&cfg.listen)
            .map_err(|e| ExperimentError::failed(format!("cannot listen on {}: {e}", cfg.listen)))?;
        let addr = listener.local_addr().map_err(ExperimentError::failed)?;
        eprintln!(
            "display serve --rdp: listening on {addr} (pid {}): connect an RDP client, e.g. `xfreerdp /v:{addr} /cert:tofu`; {}",
            std::process::id(),
            match &cfg.user {
                Some(u) => format!("TLS or NLA as {u}"),
                None => "TLS, any logon".to_string(),
            },
        );
        let mut server = latlab_sys::record::begin(Self::NAME);
        server.mode = Self::MODE.into();
        server.config("listen", addr.to_string());
        server.config("certificate", &id.fingerprint);
        let stats = Arc::new(DoorStats::default());
        let sessions = Arc::new(Mutex::new(Sessions::default()));
        let done = on_outcome(cfg, ctx, sessions.clone());
        let st = stats.clone();
        let gate = std::thread::spawn(move || {
            rs::serve_rdp(&listener, &serve, &id, st, &latlab_sys::interrupt::stop_requested, done)
        });
        // This thread waits for the door: the counters on SIGUSR1, the server's run checkpointed.
        while !gate.is_finished() {
            std::thread::sleep(Duration::from_millis(100));
            if latlab_sys::interrupt::status_requested() {
                eprintln!("display serve --rdp: {}", stats.line());
            }
            if ctx.checkpoint.due() {
                ctx.checkpoint.save(server_record(&server, &stats, &sessions));
            }
        }
        let served = gate.join().map_err(|_| ExperimentError::failed("the RDP server's thread panicked"))?;
        eprintln!("display serve --rdp: stopped: {}", stats.line());
        served.map_err(ExperimentError::failed)?;
        let mut rec = server_record(&server, &stats, &sessions);
        let s = sessions.lock().unwrap_or_else(|p| p.into_inner());
        for e in &s.errors {
            rec.warn(e.clone());
        }
        let status = if latlab_sys::interrupt::stop_requested() {
            RunStatus::Interrupted
        } else if s.errors.is_empty() {
            RunStatus::Complete
        } else {
            RunStatus::Failed
        };
        rec.finish(status);
        Ok(rec.into())
    }
}

/// The sessions stored so far, and what could not be stored.
#[derive(Default)]
struct Sessions {
    /// Their run ids, in the order they ended.
    ids: Vec<i64>,
    /// Sessions that could not be stored, said in the server's run.
    errors: Vec<String>,
}

/// What to do with each connection's outcome: say it, and store each session as it ends
/// (through the runner's store), counting it for the progress bar.
fn on_outcome(cfg: &ServeRdpRun, ctx: &RunContext, sessions: Arc<Mutex<Sessions>>) -> rs::OnOutcome {
    let (plan, runs, progress) = (cfg.plan.clone(), ctx.runs.clone(), ctx.progress.clone());
    Arc::new(move |peer, o| match o {
        Door::Began(client) => eprintln!("{peer}: session began (client {client})"),
        Door::Served(run) => {
            eprintln!("{peer}: {}", run.summary());
            let mut rec = rs::run_record(&run, &plan);
            if !run.complete && latlab_sys::interrupt::stop_requested() {
                rec.finish(RunStatus::Interrupted);
            }
            let stored = match &runs {
                Some(r) => r.lock().unwrap_or_else(|p| p.into_inner()).write(None, &rec),
                None => Err("the runner keeps no store".into()),
            };
            let mut s = sessions.lock().unwrap_or_else(|p| p.into_inner());
            match stored {
                Ok(id) => {
                    eprintln!("{peer}: stored display run #{id} ({})", rec.status.as_str());
                    s.ids.push(id);
                }
                Err(e) => {
                    eprintln!("{peer}: the session could not be stored: {e}");
                    s.errors.push(format!("{peer}: the session could not be stored: {e}"));
                }
            }
            progress.fetch_add(1, Ordering::Relaxed);
        }
        Door::NotAccepted(e) => eprintln!("{peer}: not accepted: {e}"),
        Door::PushedOut => eprintln!("{peer}: closed: pushed out of a full waiting room (--max-waiting)"),
        Door::Busy => eprintln!("{peer}: refused: every session slot is taken (--max-sessions); the client was told"),
    })
}

/// The server's run so far: its front door's counters and the sessions it stored.
fn server_record(base: &RunRecord, stats: &DoorStats, sessions: &Mutex<Sessions>) -> RunRecord {
    let mut rec = base.clone();
    let l = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
    for (k, v) in [
        ("connections", l(&stats.connections)),
        ("sessions", l(&stats.sessions)),
        ("deadline", l(&stats.deadline)),
        ("failed", l(&stats.failed)),
        ("pushed_out", l(&stats.pushed_out)),
        ("busy", l(&stats.busy)),
    ] {
        rec.metric(&format!("serve.door.{k}"), v, "count");
    }
    let s = sessions.lock().unwrap_or_else(|p| p.into_inner());
    rec.config("session_runs", s.ids.iter().map(i64::to_string).collect::<Vec<_>>().join(","));
    rec
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_validate_and_bad_settings_are_refused_before_anything_listens() {
        let ok = ServeRdpRun::default();
        DisplayServeRdp::validate(&ok).unwrap();
        assert_eq!(ok.plan.script.len(), 5, "the documented script");
        let bad = |f: fn(&mut ServeRdpRun), says: &str| {
            let mut c = ServeRdpRun::default();
            f(&mut c);
            let e = DisplayServeRdp::validate(&c).unwrap_err();
            assert!(e.contains(says), "{e}");
        };
        bad(|c| c.max_waiting = 0, "--max-waiting");
        bad(|c| c.deadline_ns = 0, "deadline");
        bad(|c| c.width = 10, "64x64");
        bad(|c| c.plan.script.clear(), "--script");
        // The account's password comes from the environment, checked before listening.
        let c = ServeRdpRun { user: Some("u".into()), ..ServeRdpRun::default() };
        assert!(c.serve_config(|_| None).unwrap_err().to_string().contains("LATLAB_RDP_PASSWORD"));
        let s = c.serve_config(|_| Some("pw".into())).unwrap();
        assert_eq!(s.accept.account.unwrap().username, "u");
        // The password is never in the stored settings.
        let json = serde_json::to_string(&c).unwrap();
        assert!(json.contains("\"user\":\"u\"") && !json.contains("pw"), "{json}");
    }

    #[test]
    fn the_servers_run_counts_its_door_and_names_its_sessions() {
        let stats = DoorStats::default();
        stats.connections.store(5, Ordering::Relaxed);
        stats.busy.store(1, Ordering::Relaxed);
        let sessions = Mutex::new(Sessions { ids: vec![3, 4], errors: vec![] });
        let rec = server_record(&latlab_sys::record::begin("display"), &stats, &sessions);
        assert_eq!(rec.get_metric("serve.door.connections").unwrap().value.as_f64(), 5.0);
        assert_eq!(rec.get_metric("serve.door.busy").unwrap().value.as_f64(), 1.0);
        assert_eq!(rec.config["session_runs"], "3,4");
    }
}
