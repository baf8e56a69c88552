//! The users-per-server ramp against a real multi-session RDP server: xrdp on this machine
//! (`display capacity --rdp local-xrdp`), one local account per session, made for the run and
//! removed with it; every session a typist at 100 wpm in its own xterm, typed by latlab's RDP
//! client and timed key to screen by [`latlab_keyscreen::typist`], as `display latency --rdp` times one.

use super::*;
use latlab_keyscreen::local::{LocalXrdp, SCREEN, SHELL_AT};
use latlab_rdp_peers::connect::{ClientSettings, connect};
use latlab_rdp_peers::session::RdpSession;
use latlab_rdp_peers::trust::{Target, Trust};
use latlab_rdp_peers::typing::{TypingPlan, first_picture, measure, settle};
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::time::Duration;

/// The ramp against xrdp started here: the record and the answer.
pub(super) fn run(cfg: &CapacityConfig, progress: Arc<AtomicU64>) -> Result<(RunRecord, String), crate::DisplayError> {
    let mut x = LocalXrdp::start()?;
    let mut rec = latlab_sys::record::begin("display");
    rec.config("server_product", LocalXrdp::product());
    rec.config("login_every_ms", cfg.login_every_ms);
    // xrdp, sesman and every session sesman starts later (forked from it, so inheriting its
    // CPUs) on a CPU of their own; the clients on the others.
    let (_pinned, server_cpus) = if cfg.pin {
        pin_server(&mut rec, &x.daemons())
    } else {
        (None, std::thread::available_parallelism().map_or(1, |n| n.get()))
    };
    // What the server holds with no session: xrdp and sesman alone.
    let base_kib: u64 = x.pids().iter().filter_map(|&p| pss_kib(p)).sum();
    let levels = ramp(cfg, &progress, |n| {
        while x.accounts() < n {
            x.add_account()?;
        }
        level(cfg, &x, n, base_kib)
    })?;
    let figs: Vec<Figures> = levels.iter().map(|l| l.figures.clone()).collect();
    let (users, limit) = answer(&figs, None, server_cpus);
    let said = say("xrdp here", users, limit::broke_at(&figs, None, users), "typists", limit);
    super::record::record(&mut rec, cfg, "typist=1", &levels, &[], users, limit, &said);
    drop(x);
    rec.finish(if latlab_sys::interrupt::stop_requested() { RunStatus::Interrupted } else { RunStatus::Complete });
    Ok((rec, said))
}

/// One level: `n` sessions log in one every `cfg.login_every_ms` (accounts 0..n), and once
/// every one is in and its shell has the focus, all type together for the level's seconds.
fn level(cfg: &CapacityConfig, x: &LocalXrdp, n: usize, base_kib: u64) -> Result<Level, crate::DisplayError> {
    let target = Target::parse(&x.target())?;
    let settings = ClientSettings { desktop: SCREEN, bpp: crate::defaults::RDP_BPP, compression: None };
    let gap = latlab_desktop::editor::key_gap_ns(crate::defaults::CAPACITY_WPM);
    let plan = TypingPlan {
        keys: ((cfg.seconds * 1e9) as u64 / gap).max(1) as usize,
        interval_ns: gap,
        gaps: latlab_desktop::gaps::KeyGaps::default(),
        timeout_ns: latlab_keyscreen::defaults::RDP_KEY_TIMEOUT_NS,
        settle_ns: latlab_keyscreen::defaults::RDP_SETTLE_NS,
        roi: None,
        max_per_line: latlab_keyscreen::defaults::RDP_KEYS_PER_LINE,
        snapshot_dir: None,
    };
    let pace = Duration::from_millis(cfg.login_every_ms);
    let login = Duration::from_secs_f64(
        crate::defaults::CAPACITY_RDP_LOGIN_SECS + crate::defaults::CAPACITY_RDP_LOGIN_SECS_PER_SESSION * n as f64,
    ) + pace * n as u32;
    let arrived = AtomicUsize::new(0);
    let go = AtomicBool::new(false);
    let own0 = cpu_and_faults(std::process::id());
    let (sessions, pss_mid, server, wall_ns) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let creds = x.credentials_of(i).expect("an account per session");
                let (target, settings, plan, arrived, go) = (&target, &settings, &plan, &arrived, &go);
                scope.spawn(move || {
                    // Paced arrivals: session i logs in i paces after the first.
                    std::thread::sleep(pace * i as u32);
                    let mut counted = false;
                    let r = typist(x, target, settings, plan, creds.into(), login, || {
                        arrived.fetch_add(1, Ordering::AcqRel);
                        counted = true;
                        wait_for_go(go, login)
                    });
                    match r {
                        Ok(t) => Outcome::Real(t),
                        Err(e) if counted => Outcome::Failed(latlab_model::error::chain(&e)),
                        Err(e) => {
                            arrived.fetch_add(1, Ordering::AcqRel);
                            Outcome::NoLogin(latlab_model::error::chain(&e))
                        }
                    }
                })
            })
            .collect();
        // Every session in (or failed), then everyone types together.
        let until = std::time::Instant::now() + login + Duration::from_secs(5);
        while arrived.load(Ordering::Acquire) < n && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        let t0 = latlab_sys::clock::monotonic_now();
        let before = tree_cpu(x);
        go.store(true, Ordering::Release);
        std::thread::sleep(Duration::from_secs_f64(cfg.seconds / 2.0));
        let mid: u64 = x.pids().iter().filter_map(|&p| pss_kib(p)).sum();
        let sessions: Vec<Outcome> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Outcome::Failed("a client thread panicked".into())))
            .collect();
        let after = tree_cpu(x);
        let wall = latlab_sys::clock::monotonic_now() - t0;
        // CPU and faults of the processes there at both ends.
        let (mut cpu, mut faults) = (0u64, 0u64);
        for (pid, (c1, f1)) in &after {
            if let Some((c0, f0)) = before.get(pid) {
                cpu += c1.saturating_sub(*c0);
                faults += f1.saturating_sub(*f0);
            }
        }
        (sessions, mid, (cpu, faults), wall)
    });
    let kinds = vec![UserKind::Typist; n];
    let mut figures = figures(&kinds, &sessions, wall_ns);
    figures.server_cores = Some(server.0 as f64 / wall_ns.max(1) as f64);
    figures.major_faults = Some(server.1);
    // The clients' CPU over the whole level (logins included): this process's.
    figures.client_cores =
        own0.zip(cpu_and_faults(std::process::id())).map(|(a, b)| (b.0 - a.0) as f64 / wall_ns as f64);
    Ok(Level { kinds, sessions, pss_kib: Some((base_kib, pss_mid)), figures })
}

/// Wait for the word to type (false: it never came).
fn wait_for_go(go: &AtomicBool, login: Duration) -> bool {
    let until = std::time::Instant::now() + login + Duration::from_secs(10);
    while !go.load(Ordering::Acquire) {
        if std::time::Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

/// CPU (ns) and major faults of every process of the server, by pid.
fn tree_cpu(x: &LocalXrdp) -> std::collections::HashMap<u32, (u64, u64)> {
    x.pids().into_iter().filter_map(|p| cpu_and_faults(p).map(|c| (p, c))).collect()
}

/// One session: log in as `creds`, wait for its programs, give the shell the focus, say so
/// (`ready`, which returns once everyone may type), then type.
fn typist(
    x: &LocalXrdp,
    target: &Target,
    settings: &ClientSettings,
    plan: &TypingPlan,
    creds: latlab_rdp_peers::trust::Credentials,
    login: Duration,
    ready: impl FnOnce() -> bool,
) -> Result<RealTyping, crate::DisplayError> {
    let user = creds.user.clone();
    let conn = connect(target, &Trust::Insecure, || Ok(creds), settings)?;
    let mut s = RdpSession::new(conn)?;
    x.wait_session_of(&user, login)?;
    first_picture(&mut s)?;
    s.mouse_to(SHELL_AT.0, SHELL_AT.1)?;
    settle(&mut s, latlab_keyscreen::defaults::RDP_SETTLE_NS, 5_000_000_000)?;
    if !ready() {
        return Err(crate::DisplayError::Study("the other sessions' logins never finished".into()));
    }
    let (down0, up0) = (s.counts().display_bytes, s.counts().input_bytes);
    let t0 = latlab_sys::clock::monotonic_now();
    let r = measure(&mut s, plan, None)?;
    let out = RealTyping {
        latencies_ns: r.latencies_ns,
        lost: r.lost,
        down_bytes: s.counts().display_bytes - down0,
        up_bytes: s.counts().input_bytes - up0,
        wall_ns: latlab_sys::clock::monotonic_now() - t0,
    };
    s.close();
    Ok(out)
}
