//! `latlab display capacity` (seed 003): how many users of a mix one server takes
//! before the latency they feel passes 100 ms. One server process (`latlab display serve`,
//! so its CPU and memory are its own to measure) takes N concurrent sessions; the clients are
//! threads of this process, one per session, each with its own user from the mix — typists
//! type into the editor and time every key to pixels, the others watch their scripted
//! workload. N ramps (1, 2, 4, …) until a criterion breaks; each level reports latency across
//! the typists, server CPU and memory (PSS) per session, and bytes per session each way.
//! A single-session pass first measures each kind of user's bandwidth, the seed's own way of
//! counting users per link.

use crate::latency::key_stats;
use latlab_desktop::session::SessionConfig;
use latlab_desktop::wire::{Codec, Crypto};
use latlab_desktop::workload::WorkloadKind;
use latlab_display_net::{TypingReport, TypistConfig, ViewConfig};
use latlab_model::numfmt::sig;
use latlab_model::record::{Column, PaperRow, RunRecord, RunStatus, Table, TablePlot};
use latlab_model::verdict::Judgement;
use latlab_sys::netlab::{NetLab, SERVER_ADDR, enter};
use latlab_sys::record::Finish;
use std::io::BufRead;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What `display capacity` does.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CapacityConfig {
    /// The users.
    pub mix: Mix,
    /// Session counts to try, in order (the ramp stops at the first that breaks a criterion).
    pub ramp: Vec<usize>,
    /// Seconds each level runs.
    pub seconds: f64,
    /// A shaped link between namespaces, bit/s (`None`: loopback).
    pub link_bps: Option<u64>,
    /// Screen, codec, cipher.
    pub session: SessionConfig,
    /// The `latlab` binary to run the server with (`None`: the server runs in this process
    /// and its CPU and memory cannot be told from the clients').
    pub server_exe: Option<PathBuf>,
    /// Measure each kind's own bandwidth first (the paper rows' users-per-link).
    pub per_kind: bool,
    /// Run the server on a CPU of its own and the clients on the others (where the machine
    /// has two or more), so the server's CPU is the server's and the limit found is its own.
    pub pin: bool,
    /// When every level of the ramp held, go on doubling (up to
    /// [`crate::defaults::CAPACITY_MAX_SESSIONS`]) until one breaks.
    pub until_limit: bool,
    /// A real server to ramp instead of latlab's own (`--rdp`).
    pub real: Option<RealServer>,
    /// With a real server, one login every this many ms (a level's sessions arrive paced,
    /// then type together once all are in); latlab's own server takes a level's logins at once.
    pub login_every_ms: u64,
}

/// A real multi-session server the ramp can run against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum RealServer {
    /// xrdp on this machine, started by latlab, one local account per session.
    LocalXrdp,
}

impl RealServer {
    /// From `--rdp`'s value, read by the one parser of `--rdp` targets
    /// ([`crate::rdp::config::Server::parse`]): the ramp takes only the server it can make
    /// accounts on.
    pub fn parse(s: &str) -> Result<Self, latlab_model::ConfigError> {
        match crate::rdp::config::Server::parse(s) {
            Ok(crate::rdp::config::Server::LocalXrdp) => Ok(Self::LocalXrdp),
            _ => Err(format!(
                "--rdp {s}: the ramp needs one account per session on the server, which latlab can make only on \
                 this machine: use --rdp local-xrdp (xrdp started here; needs root and the xrdp and xorgxrdp packages)"
            )
            .into()),
        }
    }
}

/// The `latlab` binary this is, if it is one (not a test harness).
pub fn latlab_exe() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    (exe.file_stem()? == "latlab").then_some(exe)
}

impl CapacityConfig {
    /// The full ramp.
    pub fn full() -> Self {
        let mut session = SessionConfig::standard(WorkloadKind::Cursor, 1000);
        session.codec = Codec::from_name(latlab_display_net::defaults::OPS_CODEC).expect("a codec");
        session.crypto = Crypto::from_name(crate::defaults::OPS_CRYPTO).expect("a cipher");
        Self {
            mix: parse_mix(crate::defaults::CAPACITY_MIX).expect("the default mix parses"),
            ramp: crate::defaults::CAPACITY_RAMP.to_vec(),
            seconds: crate::defaults::CAPACITY_SECONDS,
            link_bps: None,
            session,
            server_exe: latlab_exe(),
            per_kind: true,
            pin: true,
            until_limit: true,
            real: None,
            login_every_ms: crate::defaults::CAPACITY_RDP_LOGIN_EVERY_MS,
        }
    }

    /// The suite's: 1, 4 and 16 sessions for 3 s each, and no further.
    pub fn short() -> Self {
        Self { ramp: vec![1, 4, 16], seconds: 3.0, until_limit: false, ..Self::full() }
    }

    /// The session counts the ramp may reach: the ramp, then doubling to the cap when asked.
    pub fn levels(&self) -> Vec<usize> {
        let mut out = self.ramp.clone();
        if self.until_limit {
            let mut n = out.last().copied().unwrap_or(1);
            while n * 2 <= self.most_sessions() {
                n *= 2;
                out.push(n);
            }
        }
        out
    }

    /// The most sessions a level may have: fewer against a real server, whose sessions are
    /// whole logins.
    pub fn most_sessions(&self) -> usize {
        match self.real {
            Some(RealServer::LocalXrdp) => crate::defaults::CAPACITY_RDP_MAX_SESSIONS,
            None => crate::defaults::CAPACITY_MAX_SESSIONS,
        }
    }

    /// Check the settings.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        let most = self.most_sessions();
        if self.real.is_some() && self.link_bps.is_some() {
            return Err("--link with --rdp: the ramp against a real server runs on loopback only so far".into());
        }
        if self.ramp.is_empty() || self.ramp.contains(&0) || self.ramp.iter().any(|&n| n > most) {
            return Err(format!("the ramp: session counts from 1 to {most}").into());
        }
        if !(self.seconds >= 1.0 && self.seconds <= 3600.0) {
            return Err("seconds per level: 1 to 3600".into());
        }
        if self.mix.is_empty() {
            return Err("the mix is empty".into());
        }
        self.session.validate().map_err(|e| e.to_string().into())
    }

    /// Levels (for progress): the per-kind pass (one session of each kind side by side, twice) counts as one.
    pub fn steps(&self) -> u64 {
        self.levels().len() as u64 + u64::from(self.per_kind)
    }
}

/// One session's outcome.
#[derive(Debug, Clone)]
enum Outcome {
    Typed(TypingReport),
    Watched(latlab_display_net::ClientReport),
    /// A typist on a real server.
    Real(RealTyping),
    /// Never logged in: the connection or the server's answer to the login failed.
    NoLogin(String),
    Failed(String),
}

/// A typist's session on a real server, as the ramp sees it.
#[derive(Debug, Clone)]
struct RealTyping {
    /// Each key seen, intended time to screen, ns.
    latencies_ns: Vec<u64>,
    /// Keys never seen.
    lost: u64,
    /// Display bytes while typing (fast-path and slow-path updates, payload).
    down_bytes: u64,
    /// Input bytes while typing.
    up_bytes: u64,
    /// The typing's length, ns.
    wall_ns: u64,
}

/// A session's key latencies (ns) and keys lost: every shown key of a typist.
fn key_latencies(o: &Outcome) -> (Vec<i64>, u64) {
    let threshold = latlab_keyscreen::defaults::NOTICEABLE_MS * 1_000_000;
    match o {
        Outcome::Typed(t) => {
            let k = key_stats(&t.keys, threshold);
            (k.latencies, k.visible - k.shown)
        }
        Outcome::Real(r) => (r.latencies_ns.iter().map(|&v| v as i64).collect(), r.lost),
        _ => (Vec::new(), 0),
    }
}

/// One level's raw results.
#[derive(Debug, Clone)]
pub struct Level {
    /// The kinds of its sessions.
    pub kinds: Vec<UserKind>,
    sessions: Vec<Outcome>,
    /// Server PSS before the level (its sessions' memory freed) and mid-level, KiB.
    pub pss_kib: Option<(u64, u64)>,
    /// The figures (server CPU and faults among them).
    pub figures: Figures,
}

/// Run `kinds` as concurrent sessions against `addr` (clients in `client_ns`).
fn run_sessions(
    cfg: &CapacityConfig,
    kinds: &[UserKind],
    addr: SocketAddr,
    client_ns: Option<&str>,
    mut at: impl FnMut(Quarter),
) -> Vec<Outcome> {
    let handles: Vec<_> = kinds
        .iter()
        .enumerate()
        .map(|(i, &kind)| {
            let mut session = cfg.session.clone();
            session.workload = kind.workload();
            session.seed = cfg.session.seed + i as u64;
            session.duration_ms = (cfg.seconds * 1000.0) as u64;
            let ns = client_ns.map(str::to_string);
            let seconds = cfg.seconds;
            std::thread::spawn(move || -> Outcome {
                if let Some(Err(e)) = ns.as_deref().map(enter) {
                    return Outcome::Failed(e.to_string());
                }
                // What the user will send, made before the connection (the server's hello
                // deadline runs from it).
                let script = (kind != UserKind::Typist).then(|| latlab_display_net::input_script(&session));
                let stream = match TcpStream::connect(addr) {
                    Ok(s) => s,
                    Err(e) => return Outcome::NoLogin(format!("connecting: {e}")),
                };
                if kind == UserKind::Typist {
                    let tc = TypistConfig {
                        wpm: crate::defaults::CAPACITY_WPM,
                        seconds,
                        pages: 0,
                        key_timeout_ms: crate::defaults::LATENCY_KEY_TIMEOUT_MS,
                        page_timeout_ms: crate::defaults::LATENCY_PAGE_TIMEOUT_MS,
                        fifo: false,
                        seed: session.seed,
                        gaps: latlab_desktop::gaps::KeyGaps::Jittered {
                            spread: latlab_desktop::defaults::KEY_GAP_SPREAD,
                            seed: session.seed,
                        },
                    };
                    let vc = ViewConfig { threshold: crate::defaults::LATENCY_RCV_THRESHOLD, ..ViewConfig::default() };
                    match latlab_display_net::type_on(stream, &session, 0, &vc, &tc) {
                        Ok(r) => Outcome::Typed(r),
                        Err(e) => failed(e),
                    }
                } else {
                    let script = script.unwrap_or_default();
                    match latlab_display_net::view_scripted(
                        stream,
                        &session,
                        latlab_display_net::Pace::RealTime,
                        &ViewConfig::default(),
                        script,
                    ) {
                        Ok(r) => Outcome::Watched(r),
                        Err(e) => failed(e),
                    }
                }
            })
        })
        .collect();
    // A quarter, half and three quarters of the way through, while every session runs.
    for q in [Quarter::First, Quarter::Half, Quarter::Third] {
        std::thread::sleep(std::time::Duration::from_secs_f64(cfg.seconds / 4.0));
        at(q);
    }
    handles
        .into_iter()
        .map(|h| h.join().unwrap_or_else(|_| Outcome::Failed("a client thread panicked".into())))
        .collect()
}

/// A session's error: a refused login (the server's ERR answer to the hello: busy, or the
/// hello not read in time) is a login that failed; anything else a session that failed.
fn failed(e: latlab_display_net::NetError) -> Outcome {
    match e {
        latlab_display_net::NetError::Refused(why) => Outcome::NoLogin(format!("the server refused the login: {why}")),
        e => Outcome::Failed(e.to_string()),
    }
}

/// Points in a level's sessions, from their start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quarter {
    /// A quarter of the way: the logins are over.
    First,
    /// Half-way.
    Half,
    /// Three quarters of the way: no session has ended yet.
    Third,
}

/// An in-process server taking `n` connections (each session's failure is its client's to
/// report).
fn in_process(listener: TcpListener, n: usize) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let conns: Vec<_> = (0..n)
            .filter_map(|_| listener.accept().ok())
            .map(|(s, _)| std::thread::spawn(move || latlab_display_net::serve_connection(s).map(|_| ())))
            .collect();
        for h in conns {
            let _ = h.join();
        }
    })
}

fn figures(kinds: &[UserKind], sessions: &[Outcome], wall_ns: u64) -> Figures {
    let mut f = Figures { sessions: kinds.len(), ..Figures::default() };
    let mut bytes = 0u64;
    let mut all = Vec::new();
    for s in sessions {
        let (lat, lost) = key_latencies(s);
        f.lost_keys += lost;
        if let Some(s) = latlab_model::stats::summarize(&lat) {
            f.worst_p95_ns = Some(f.worst_p95_ns.unwrap_or(0).max(s.p95 as u64));
        }
        all.extend(lat);
        match s {
            Outcome::Typed(t) => bytes += t.client.bytes,
            Outcome::Watched(c) => bytes += c.bytes,
            Outcome::Real(r) => bytes += r.down_bytes,
            Outcome::NoLogin(_) => {
                f.failed += 1;
                f.no_login += 1;
            }
            Outcome::Failed(_) => f.failed += 1,
        }
    }
    f.level_p95_ns = latlab_model::stats::percentile(&all, 95.0).map(|p| p.max(0) as u64);
    f.down_bps = bytes as f64 / (wall_ns.max(1) as f64 / 1e9);
    f
}

/// Run the ramp into a record.
pub fn run_capacity(
    cfg: &CapacityConfig,
    progress: Arc<AtomicU64>,
) -> Result<(RunRecord, String), crate::DisplayError> {
    cfg.validate()?;
    if let Some(real) = cfg.real {
        return match real {
            RealServer::LocalXrdp => real::run(cfg, progress),
        };
    }
    let mut rec = latlab_sys::record::begin("display");
    let lab = match cfg.link_bps {
        Some(r) => {
            Some(NetLab::create(r, None).map_err(|e| crate::DisplayError::failed("the shaped link".to_string(), e))?)
        }
        None => None,
    };
    let client_ns = lab.as_ref().map(|l| l.client.clone());
    let server = match &cfg.server_exe {
        Some(exe) => Some(ServerProc::start(exe, lab.as_ref(), cfg.levels().iter().copied().max().unwrap_or(1))?),
        None => None,
    };
    if server.is_none() {
        rec.warn(
            "the server ran in this process: its CPU and memory per session are not measured (run the latlab binary)",
        );
        if lab.is_some() {
            return Err(crate::DisplayError::Study(
                "a shaped link needs the server as its own process (the latlab binary)".into(),
            ));
        }
    }
    // The server on a CPU of its own, the clients (this thread and the threads it starts) on
    // the others; undone when the run ends, however it ends.
    let (_pinned, server_cpus) = match (&server, cfg.pin) {
        (Some(p), true) => pin_server(&mut rec, &[p.pid()]),
        _ => (None, std::thread::available_parallelism().map_or(1, |n| n.get())),
    };
    // Each kind's steady bandwidth, one session of each kind at once (their bytes do not
    // depend on each other: each session's script is fixed by its seed). A session opens by
    // painting the whole screen, which a short run would count as the user's traffic; so the
    // kinds run twice, first just long enough for that screen, then a level's seconds longer,
    // and each kind's rate is the difference in its bytes over the difference in time.
    let mut per_kind = Vec::new();
    if cfg.per_kind && !latlab_sys::interrupt::stop_requested() {
        let mut kinds: Vec<UserKind> = Vec::new();
        for k in cfg.mix.iter().map(|m| m.0).chain([UserKind::Banner, UserKind::Scroller]) {
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        }
        let run = |seconds: f64| -> Result<Vec<Traffic>, crate::DisplayError> {
            let c = CapacityConfig { seconds, ..cfg.clone() };
            let l = level(&c, &kinds, server.as_ref(), client_ns.as_deref())?;
            Ok(l.sessions.iter().map(traffic).collect())
        };
        let opening = crate::defaults::CAPACITY_OPENING_SECONDS;
        let (one, two) = (run(opening)?, run(opening + cfg.seconds)?);
        per_kind = kinds.iter().zip(one.iter().zip(&two)).map(|(&k, (a, b))| b.rate_over(a, cfg.seconds, k)).collect();
        progress.fetch_add(1, Ordering::Relaxed);
    }
    if !cfg.per_kind && server.is_some() {
        // One short session first, so the server's one-time memory (the font, the first
        // screen its sessions share) is made before any level measures what a session holds.
        let warm = CapacityConfig { seconds: crate::defaults::CAPACITY_WARMUP_SECONDS, ..cfg.clone() };
        level(&warm, &[cfg.mix[0].0], server.as_ref(), client_ns.as_deref())?;
    }
    let levels = ramp(cfg, &progress, |n| level(cfg, &assign(&cfg.mix, n), server.as_ref(), client_ns.as_deref()))?;
    let figs: Vec<Figures> = levels.iter().map(|l| l.figures.clone()).collect();
    let (users, limit) = answer(&figs, cfg.link_bps, server_cpus);
    let link = cfg.link_bps.map_or("loopback".to_string(), |r| format!("a {} Mbit/s link", sig(r as f64 / 1e6)));
    let mix = mix_name(&cfg.mix);
    let broke = limit::broke_at(&figs, cfg.link_bps, users);
    let said = say("this server", users, broke, &format!("users of this mix ({mix}) on {link}"), limit);
    record(&mut rec, cfg, &mix, &levels, &per_kind, users, limit, &said);
    drop(server);
    drop(lab);
    rec.finish(if latlab_sys::interrupt::stop_requested() { RunStatus::Interrupted } else { RunStatus::Complete });
    Ok((rec, said))
}

/// A session's bytes down (display) and up (input): payload, and on the link with the
/// TCP/IP/Ethernet headers of each PDU's segments ([`latlab_desktop::wire::framing`]).
#[derive(Debug, Clone, Copy, Default)]
struct Traffic {
    down: f64,
    up: f64,
    down_link: f64,
    up_link: f64,
}

impl Traffic {
    /// `kind`'s bytes per second from `shorter` to `self`, a run `seconds` longer.
    fn rate_over(&self, shorter: &Traffic, seconds: f64, kind: UserKind) -> KindRate {
        let r = |a: f64, b: f64| (a - b).max(0.0) / seconds;
        KindRate {
            kind,
            down: r(self.down, shorter.down),
            up: r(self.up, shorter.up),
            down_link: r(self.down_link, shorter.down_link),
            up_link: r(self.up_link, shorter.up_link),
        }
    }
}

/// One kind of user's steady bytes per second, payload and on the link.
#[derive(Debug, Clone, Copy)]
struct KindRate {
    kind: UserKind,
    down: f64,
    up: f64,
    down_link: f64,
    up_link: f64,
}

fn traffic(o: &Outcome) -> Traffic {
    let of = |c: &latlab_display_net::ClientReport| {
        let link = |bytes: u64, segments: u64| (bytes + latlab_desktop::wire::header_bytes(segments)) as f64;
        Traffic {
            down: c.bytes as f64,
            up: c.input_bytes as f64,
            down_link: link(c.bytes, c.segments),
            up_link: link(c.input_bytes, c.input_segments),
        }
    };
    match o {
        Outcome::Typed(t) => of(&t.client),
        Outcome::Watched(c) => of(c),
        // Payload only: the real client's TCP segments are not counted.
        Outcome::Real(r) => Traffic { down: r.down_bytes as f64, up: r.up_bytes as f64, ..Traffic::default() },
        Outcome::NoLogin(_) | Outcome::Failed(_) => Traffic::default(),
    }
}

fn input_bps(o: &Outcome) -> f64 {
    match o {
        Outcome::Typed(t) => t.client.input_bytes as f64 / (t.client.wall_ns.max(1) as f64 / 1e9),
        Outcome::Watched(c) => c.input_bytes as f64 / (c.wall_ns.max(1) as f64 / 1e9),
        Outcome::Real(r) => r.up_bytes as f64 / (r.wall_ns.max(1) as f64 / 1e9),
        Outcome::NoLogin(_) | Outcome::Failed(_) => 0.0,
    }
}

/// A typist session's server encode CPU (bitmaps and orders, bulk compression, encryption)
/// as a fraction of a core over the session, from the server's cost record.
fn typist_encode_share(o: &Outcome) -> Option<f64> {
    match o {
        Outcome::Typed(t) => {
            t.client.server_cpu_ns.map(|[_, encode, _]| encode as f64 / t.client.wall_ns.max(1) as f64)
        }
        _ => None,
    }
}

fn level(
    cfg: &CapacityConfig,
    kinds: &[UserKind],
    server: Option<&ServerProc>,
    client_ns: Option<&str>,
) -> Result<Level, crate::DisplayError> {
    let t0 = latlab_sys::clock::monotonic_now();
    let own_cpu = cpu_and_faults(std::process::id());
    let (sessions, pss, cpu, faults) = match server {
        Some(p) => {
            let before = pss_kib(p.pid());
            let start = cpu_and_faults(p.pid());
            // The server's CPU over the middle half of the level: its steady cost, the
            // sessions' logins and endings left out (its faults over the whole level).
            let (mut mid, mut c0, mut c1) = (None, None, None);
            let sessions = run_sessions(cfg, kinds, p.addr, client_ns, |q| match q {
                Quarter::First => c0 = cpu_and_faults(p.pid()).map(|c| (c, latlab_sys::clock::monotonic_now())),
                Quarter::Half => mid = pss_kib(p.pid()),
                Quarter::Third => c1 = cpu_and_faults(p.pid()).map(|c| (c, latlab_sys::clock::monotonic_now())),
            });
            let pss = before.zip(mid);
            let cpu = c0.zip(c1).map(|((a, ta), (b, tb))| (b.0 - a.0) as f64 / (tb - ta).max(1) as f64);
            let faults = start.zip(cpu_and_faults(p.pid())).map(|(a, b)| b.1 - a.1);
            (sessions, pss, cpu, faults)
        }
        None => {
            let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| crate::DisplayError::failed("listening", e))?;
            let addr = listener.local_addr().map_err(|e| crate::DisplayError::failed("the listener's address", e))?;
            let srv = in_process(listener, kinds.len());
            let sessions = run_sessions(cfg, kinds, addr, None, |_| {});
            let _ = srv.join();
            (sessions, None, None, None)
        }
    };
    let wall_ns = latlab_sys::clock::monotonic_now() - t0;
    let mut figures = figures(kinds, &sessions, wall_ns);
    figures.client_cores =
        own_cpu.zip(cpu_and_faults(std::process::id())).map(|(a, b)| (b.0 - a.0) as f64 / wall_ns as f64);
    figures.server_cores = cpu;
    figures.major_faults = faults;
    Ok(Level { kinds: kinds.to_vec(), sessions, pss_kib: pss, figures })
}

mod limit;
mod mix;
mod pin;
mod real;
mod record;
mod server;
pub use limit::{Figures, Limit, answer, broken, outlier};
use limit::{ramp, say};
pub use mix::{Mix, UserKind, assign, mix_name, parse_mix};
use pin::pin_server;
use record::record;
use server::ServerProc;
pub use server::{cpu_and_faults, pss_kib};

#[cfg(test)]
mod tests;
