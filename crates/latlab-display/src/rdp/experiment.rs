//! `display latency|ops|pipeline --rdp`: one experiment that measures a real RDP server —
//! key to screen under each condition, bytes and packets per UI operation on the real wire,
//! and the client's CPU per stage on the real stream — and names the server in every record.

use crate::rdp::config::{RdpConfig, RdpMode, Server};
use crate::rdp::ops::{Op, ops};
use latlab_desktop::fb::Area;
use latlab_keyscreen::condition::Condition;
use latlab_keyscreen::local::{self, LocalShadow, LocalXrdp};
use latlab_model::experiment::{Experiment, ExperimentError, Outcome, RunContext};
use latlab_model::record::{RunRecord, RunStatus};
use latlab_model::stats::summarize;
use latlab_rdp_peers::connect::{ConnectError, connect, connect_over};
use latlab_rdp_peers::link::{Relay, connect_from};
use latlab_rdp_peers::session::{RdpSession, SessionError};
use latlab_rdp_peers::trust::{Credentials, Target, Trust};
use latlab_rdp_peers::typing::{TypingPlan, first_picture, measure, page_downs, settle};
use latlab_sys::netlab::NetLab;
use latlab_sys::record::{Finish, begin};
use latlab_sys::spin::{SpinLoad, SpinSched};

/// Open a session to `target`, straight or through `link` (a shaped lab and its relay). The
/// credentials are asked for once, at the first connection whose certificate passed, and kept
/// in `remembered` for the next.
fn open(
    cfg: &RdpConfig,
    target: &Target,
    trust: &Trust,
    local: Option<Credentials>,
    remembered: &mut Option<Credentials>,
    link: Option<&(NetLab, Relay)>,
) -> Result<RdpSession, ExperimentError> {
    let creds = || {
        let c = match (&cfg.server, local, remembered.clone()) {
            // The local shadow server asks for no credentials; a local xrdp's account is latlab's.
            (Server::Local, ..) => Credentials { user: "latlab".into(), password: String::new(), domain: None },
            (Server::LocalXrdp, Some(c), _) => c,
            (_, _, Some(c)) => c,
            _ => Credentials::resolve(cfg.credentials.as_deref())?.0,
        };
        *remembered = Some(c.clone());
        Ok(c)
    };
    let kind = |e: ConnectError| match e {
        ConnectError::Unreachable(..) | ConnectError::NotRdp(..) => ExperimentError::Unreachable(e.into()),
        ConnectError::Auth(..) | ConnectError::Certificate(..) => ExperimentError::Refused(e.into()),
        ConnectError::NoCredentials(why) => ExperimentError::Config(why.to_string().into()),
        ConnectError::Protocol(..) => ExperimentError::failed(e),
    };
    let conn = match link {
        None => connect(target, trust, creds, &cfg.settings()).map_err(kind)?,
        Some((lab, relay)) => {
            let tcp = connect_from(&lab.client, relay.addr, latlab_rdp_peers::connect::CONNECT_TIMEOUT)
                .map_err(|e| ExperimentError::Unreachable(format!("{target} through the shaped link: {e}").into()))?;
            connect_over(tcp, target, trust, creds, &cfg.settings()).map_err(kind)?
        }
    };
    RdpSession::new(conn).map_err(ExperimentError::failed)
}

/// What the sessions of a run counted, added up.
#[derive(Default)]
struct Totals {
    /// CPU per stage: receive, decrypt, decompress, decode, blit, slow_path.
    stages: [u64; 6],
    display: u64,
    fastpath: u64,
    slowpath: u64,
    not_drawn: u64,
    updates: std::collections::BTreeMap<&'static str, (u64, u64)>,
    /// Each compressed packet's sizes and decompression time.
    pdus: latlab_desktop::pdu_stats::PduStats,
}

impl Totals {
    fn add(&mut self, s: &RdpSession) {
        let t = s.stage_times();
        for (a, b) in self.stages.iter_mut().zip([
            t.receive_ns,
            t.decrypt_ns,
            t.decompress_ns,
            t.decode_ns,
            t.blit_ns,
            t.slow_path_ns,
        ]) {
            *a += b;
        }
        let c = s.counts();
        (self.display, self.fastpath, self.slowpath) =
            (self.display + c.display_bytes, self.fastpath + c.fastpath_bytes, self.slowpath + c.slowpath_bytes);
        self.not_drawn += c.not_drawn;
        self.pdus.add(s.compressed_pdus());
        for (k, (n, b)) in &c.updates {
            let e = self.updates.entry(k).or_default();
            (e.0, e.1) = (e.0 + n, e.1 + b);
        }
    }

    fn record(&self, rec: &mut RunRecord) {
        let names = ["receive", "decrypt", "decompress", "decode", "blit", "slow_path"];
        for (k, v) in names.iter().zip(self.stages) {
            rec.metric(&format!("rdp.cpu.{k}"), v, "ns");
            if self.display > 0 {
                rec.metric(&format!("rdp.cpu_per_mb.{k}"), v as f64 / (self.display as f64 / 1e6), "ns/MB");
            }
        }
        rec.metric("rdp.display_bytes", self.display, "B");
        rec.metric("rdp.fastpath_bytes", self.fastpath, "B");
        rec.metric("rdp.slowpath_bytes", self.slowpath, "B");
        rec.metric("rdp.updates_not_drawn", self.not_drawn, "count");
        crate::pipeline::pdu::stats_metrics(rec, "rdp.pdu", &self.pdus);
        for (k, (n, b)) in &self.updates {
            rec.metric(&format!("rdp.updates.{k}.count"), *n, "count");
            rec.metric(&format!("rdp.updates.{k}.bytes"), *b, "B");
        }
    }
}

fn identify(rec: &mut RunRecord, s: &RdpSession, product: Option<String>) {
    let id = &s.server;
    rec.config("server", id.target.clone());
    if let Some(p) = product {
        rec.config("server_product", p);
    }
    if let Some(v) = &id.rdp_version {
        rec.config("server_rdp_version", v.clone());
    }
    rec.config("security", id.security.clone());
    rec.config("tls", id.tls.clone());
    rec.config("cert_subject", id.cert_subject.clone());
    rec.config("cert_fingerprint", id.cert_fingerprint.clone());
    rec.config("trust", id.trust.clone());
    rec.config("desktop", format!("{}x{}", id.desktop.0, id.desktop.1));
    rec.config("bpp", id.bpp);
    rec.config("compression_negotiated", id.compression.clone());
    rec.config("channels", id.channels.clone());
    rec.config("fastpath_input", id.fastpath_input);
    // Said once the session is up: what latlab is connected to, before anything is timed.
    eprintln!(
        "display --rdp: connected: {}x{} at {} bpp, {} security, certificate {} ({})",
        id.desktop.0, id.desktop.1, id.bpp, id.security, id.cert_fingerprint, id.trust
    );
}

fn plan(cfg: &RdpConfig) -> TypingPlan {
    TypingPlan {
        keys: cfg.keys,
        interval_ns: cfg.interval_ns(),
        gaps: cfg.gaps,
        timeout_ns: latlab_keyscreen::defaults::RDP_KEY_TIMEOUT_NS,
        settle_ns: latlab_keyscreen::defaults::RDP_SETTLE_NS,
        roi: cfg.roi.map(|[x, y, w, h]| Area::new(x, y, w, h)),
        max_per_line: latlab_keyscreen::defaults::RDP_KEYS_PER_LINE,
        snapshot_dir: cfg.snapshot_dir.clone(),
    }
}

fn failed(e: SessionError) -> ExperimentError {
    ExperimentError::failed(e)
}

/// Run it.
pub fn run(cfg: &RdpConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
    // The shadow server latlab starts is pinned to its own certificate; any other is checked
    // against the known-hosts file, which must be usable before anything starts.
    if let (Some(p), false) = (&cfg.known_hosts, matches!(cfg.server, Server::Local)) {
        latlab_rdp_peers::trust::check_usable(p).map_err(ExperimentError::failed)?;
    }
    let (shadow, xrdp) = match &cfg.server {
        Server::Local => (Some(LocalShadow::start().map_err(ExperimentError::skipped)?), None),
        Server::LocalXrdp => (None, Some(LocalXrdp::start().map_err(ExperimentError::skipped)?)),
        Server::Remote(_) => (None, None),
    };
    let target = match (&cfg.server, &shadow, &xrdp) {
        (Server::Remote(t), ..) => t.clone(),
        (_, Some(l), _) => Target::parse(&l.target()).map_err(ExperimentError::Config)?,
        (_, _, Some(x)) => Target::parse(&x.target()).map_err(ExperimentError::Config)?,
        _ => unreachable!("started above"),
    };
    let trust = match (&shadow, &cfg.known_hosts) {
        (Some(l), Some(_)) => {
            Trust::Pinned(latlab_rdp_peers::trust::pem_fingerprint(&l.certificate()).map_err(ExperimentError::failed)?)
        }
        (_, Some(p)) => Trust::KnownHosts(p.clone()),
        (_, None) => Trust::Insecure,
    };
    let mut rec = begin("display");
    rec.mode = "rdp".into();
    rec.config("rdp_mode", format!("{:?}", cfg.mode).to_lowercase());
    rec.config("key_gaps", cfg.gaps.describe());
    let product = shadow.as_ref().map(|_| LocalShadow::product()).or(xrdp.as_ref().map(|_| LocalXrdp::product()));
    let local_creds = xrdp.as_ref().map(|x| Credentials::from(x.credentials()));
    let mut remembered = None;
    let mut totals = Totals::default();
    let mut identified = false;
    let mut op_figures = Vec::new();
    let steps: Vec<Option<Condition>> = match cfg.mode {
        RdpMode::Latency => cfg.conditions.iter().copied().map(Some).collect(),
        RdpMode::Pipeline => vec![Some(Condition::Unloaded)],
        RdpMode::Ops => vec![None],
    };
    let mut direct: Option<RdpSession> = None;
    for step in steps {
        if latlab_sys::interrupt::stop_requested() {
            break;
        }
        let link = match step {
            Some(Condition::Link { rate_bps, .. }) => match NetLab::create(rate_bps, None) {
                Ok(lab) => {
                    let relay = Relay::start(&lab, &target.to_string()).map_err(ExperimentError::failed)?;
                    Some((lab, relay))
                }
                Err(e) => {
                    rec.warn(format!("{}: not measured: {e}", step.map(|c| c.name()).unwrap_or_default()));
                    ctx.progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    continue;
                }
            },
            _ => None,
        };
        // Conditions on the direct path share one connection (the session the keys go to stays
        // as it was, with nothing to log in again); a shaped link needs its own.
        let mut s = match (direct.take(), &link) {
            (Some(s), None) => s,
            (kept, _) => {
                if let Some(old) = kept {
                    totals.add(&old);
                    old.close();
                }
                open(cfg, &target, &trust, local_creds.clone(), &mut remembered, link.as_ref())?
            }
        };
        if !identified {
            identify(&mut rec, &s, product.clone());
            identified = true;
            if let Some(x) = &xrdp {
                x.wait_session().map_err(ExperimentError::failed)?;
            }
        }
        match step {
            Some(c) => {
                // The unloaded condition is only that on a quiet machine: watch what else runs.
                let watch = (c == Condition::Unloaded).then(latlab_sys::background::Watch::start);
                let _load = match c {
                    Condition::Cpu => Some(
                        SpinLoad::start(
                            cfg.spinners,
                            SpinSched { policy: latlab_sys::platform::Policy::Other, nice: 0 },
                        )
                        .map_err(ExperimentError::failed)?,
                    ),
                    _ => None,
                };
                // The busy screen: latlab's animation on the shadow server; on a remote server,
                // whatever the user left running there (the updates below say how busy it was).
                focus(cfg, &mut s, local::SHELL_AT)?;
                let _busy = match (c, &shadow) {
                    (Condition::Busy, Some(l)) => {
                        rec.config("busy", latlab_keyscreen::local::Busy::describe());
                        Some(l.busy().map_err(ExperimentError::failed)?)
                    }
                    (Condition::Busy, None) => {
                        rec.config(
                            "busy",
                            "the server's own screen: latlab starts nothing on a remote server (start an animation there first)",
                        );
                        None
                    }
                    _ => None,
                };
                if c == Condition::Mem {
                    let pids = || match (&shadow, &xrdp) {
                        (Some(l), _) => l.pids(),
                        (_, Some(x)) => x.pids(),
                        _ => Vec::new(),
                    };
                    paged_typing(&mut rec, cfg, &mut s, &pids)?;
                } else {
                    // On a busy screen only the shell's region counts when learning where keys
                    // draw and when waiting for quiet (latlab's server: the shell's window).
                    let busy_roi = (c == Condition::Busy && shadow.is_some()).then(|| {
                        let (x, y, w, h) = local::SHELL_AREA;
                        Area::new(x, y, w, h)
                    });
                    let p = TypingPlan { roi: plan(cfg).roi.or(busy_roi), ..plan(cfg) };
                    typing(&mut rec, &p, &mut s, &c.name(), None)?;
                    // Page Down is timed to the screen's quiet, which a busy screen never is.
                    if cfg.pages > 0
                        && cfg.mode == RdpMode::Latency
                        && c != Condition::Busy
                        && !latlab_sys::interrupt::stop_requested()
                    {
                        focus(cfg, &mut s, local::DOCUMENT_AT)?;
                        pages(&mut rec, cfg, &mut s, &c.name())?;
                    }
                }
                if let Some(w) = watch {
                    w.stop().note(&mut rec, "rdp.latency.unloaded.background", "the unloaded condition");
                }
                ctx.progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            None => {
                for op in cfg.ops.iter().copied() {
                    if latlab_sys::interrupt::stop_requested() {
                        break;
                    }
                    let at = if matches!(op, Op::PageDown | Op::Menu) { local::DOCUMENT_AT } else { local::SHELL_AT };
                    focus(cfg, &mut s, at)?;
                    let f = ops(&mut rec, cfg.op_seconds, &mut s, op)?;
                    op_figures.push((op, f));
                    ctx.progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }
        if let Some(c) = s.compression_used() {
            rec.config("compression_used", c);
        }
        if link.is_none() {
            direct = Some(s);
        } else {
            totals.add(&s);
            s.close();
        }
        drop(link);
    }
    if let Some(s) = direct.take() {
        totals.add(&s);
        s.close();
    }
    totals.record(&mut rec);
    let named = match (&product, &target) {
        (Some(p), t) => format!("{p} at {t}"),
        (None, t) => format!("the server at {t}"),
    };
    // What was measured, for `latlab runs`: the server.
    rec.config("subject", product.clone().unwrap_or_else(|| target.to_string()));
    crate::rdp::paper::rows(&mut rec, &named, &op_figures, &totals.stages);
    // The local server's terminals, after the typing: what each instance costs.
    let local_pids = match (&shadow, &xrdp) {
        (Some(l), _) => Some(l.pids()),
        (_, Some(x)) => Some(x.pids()),
        _ => None,
    };
    if let Some(pids) = local_pids {
        crate::rdp::instances::rows(&mut rec, &named, &crate::rdp::instances::measure(&pids));
    }
    drop(shadow);
    drop(xrdp);
    rec.finish(if latlab_sys::interrupt::stop_requested() { RunStatus::Interrupted } else { RunStatus::Complete });
    Ok(rec.into())
}

/// On the local server, give the keyboard to the window at `at` (no window manager: focus
/// follows the pointer). A remote server's focus is the user's to set.
fn focus(cfg: &RdpConfig, s: &mut RdpSession, at: (u16, u16)) -> Result<(), ExperimentError> {
    if matches!(cfg.server, Server::Local | Server::LocalXrdp) {
        // Input before the server's first picture can be lost (xrdp still attaching a second
        // connection to its X session), and with it the focus.
        first_picture(s).map_err(ExperimentError::failed)?;
        s.mouse_to(at.0, at.1).map_err(failed)?;
        settle(s, latlab_keyscreen::defaults::RDP_SETTLE_NS, 5_000_000_000).map_err(failed)?;
    }
    Ok(())
}

fn pages(rec: &mut RunRecord, cfg: &RdpConfig, s: &mut RdpSession, name: &str) -> Result<(), ExperimentError> {
    let (pages, lost) = page_downs(
        s,
        cfg.pages as usize,
        latlab_keyscreen::defaults::RDP_SETTLE_NS,
        latlab_keyscreen::defaults::RDP_KEY_TIMEOUT_NS,
    )
    .map_err(ExperimentError::failed)?;
    let p = format!("rdp.latency.{name}.page");
    if let Some(sm) = summarize(&pages.iter().map(|x| x.latency_ns as i64).collect::<Vec<_>>()) {
        rec.metric(&format!("{p}.latency"), sm.p50, "ns");
        rec.metric(&format!("{p}.latency_max"), sm.max, "ns");
    }
    if !pages.is_empty() {
        rec.metric(&format!("{p}.bytes"), pages.iter().map(|x| x.bytes).sum::<u64>() / pages.len() as u64, "B");
    }
    rec.metric(&format!("{p}.lost"), lost, "count");
    Ok(())
}

/// `mem` on a server latlab started here: before each key every process of the server is paged
/// out (`process_madvise` with `MADV_PAGEOUT`: its anonymous pages to swap, its clean file pages
/// dropped), then the key goes [`latlab_keyscreen::defaults::RDP_MEM_KEY_AFTER_NS`] later: seed 003 §4.2's
/// keystroke after page demand, on the real server.
fn paged_typing(
    rec: &mut RunRecord,
    cfg: &RdpConfig,
    s: &mut RdpSession,
    pids: &dyn Fn() -> Vec<u32>,
) -> Result<(), ExperimentError> {
    use latlab_sys::pageout::{pageout_all, rss_kib, swap_for};
    let rss_mib = pids().iter().map(|&p| rss_kib(p)).sum::<u64>() / 1024;
    let (_swap, swap) = swap_for(rss_mib as usize + 16, cfg.allow_swapfile, &cfg.swap_dir)
        .map_err(|e| ExperimentError::failed(crate::DisplayError::failed("swap for the mem condition", e)))?;
    let (mut before, mut after, mut rounds) = (0u64, 0u64, 0u64);
    let mut page_out = || -> Result<(), latlab_keyscreen::ScreenError> {
        let (b, a) = pageout_all("the server", &pids())?;
        (before, after, rounds) = (before + b, after + a, rounds + 1);
        Ok(())
    };
    let plan = TypingPlan {
        keys: cfg.keys.min(latlab_keyscreen::defaults::RDP_MEM_KEYS),
        interval_ns: latlab_keyscreen::defaults::RDP_MEM_KEY_AFTER_NS,
        timeout_ns: crate::defaults::LATENCY_KEY_TIMEOUT_MS * 1_000_000,
        ..plan(cfg)
    };
    typing(rec, &plan, s, "mem", Some(&mut page_out))?;
    let p = "rdp.latency.mem";
    // What each page-out took from the server's resident set (VmRSS of all its processes, just
    // before and just after): what the key then had to bring back.
    if rounds > 0 {
        rec.metric(&format!("{p}.evicted_per_key"), before.saturating_sub(after) as f64 * 1024.0 / rounds as f64, "B");
    }
    if before > 0 {
        rec.metric(&format!("{p}.resident_after_pageout"), after as f64 / before as f64, "ratio");
    }
    rec.config("mem_swap", swap);
    Ok(())
}

fn typing(
    rec: &mut RunRecord,
    plan: &TypingPlan,
    s: &mut RdpSession,
    name: &str,
    before_key: Option<latlab_rdp_peers::typing::BeforeKey>,
) -> Result<(), ExperimentError> {
    let cpu = |s: &RdpSession| {
        let t = s.stage_times();
        t.receive_ns + t.decrypt_ns + t.decompress_ns + t.decode_ns + t.blit_ns + t.slow_path_ns
    };
    let cpu0 = cpu(s);
    // What the server kept sending while the keys were typed: the screen's other changes.
    let updates = |s: &RdpSession| s.counts().updates.values().map(|(n, _)| n).sum::<u64>();
    let (bytes0, updates0, t0) = (s.counts().display_bytes, updates(s), latlab_sys::clock::monotonic_now());
    let r = measure(s, plan, before_key).map_err(|e| ExperimentError::failed(format!("{name}: {e}")))?;
    let secs = (latlab_sys::clock::monotonic_now() - t0) as f64 / 1e9;
    let p = format!("rdp.latency.{name}");
    let (down_bps, updates_per_s) =
        ((s.counts().display_bytes - bytes0) as f64 / secs, (updates(s) - updates0) as f64 / secs);
    rec.metric(&format!("{p}.down_bytes_per_s"), down_bps, "B/s");
    rec.metric(&format!("{p}.updates_per_s"), updates_per_s, "1/s");
    // Input starvation: keys not shown within 1 s (or never) while updates kept flowing.
    let slow = r.latencies_ns.iter().filter(|&&v| v > latlab_keyscreen::defaults::STARVED_NS).count() as u64 + r.lost;
    let starved = if updates_per_s > 0.0 { slow } else { 0 };
    rec.metric(&format!("{p}.starved"), starved, "count");
    if starved > 0 {
        rec.warn(format!(
            "input starvation under {name}: {starved} of {} keys not shown within {} s while the server kept sending {:.0} updates a second ({:.0} KB/s)",
            plan.keys,
            latlab_keyscreen::defaults::STARVED_NS / 1_000_000_000,
            updates_per_s,
            down_bps / 1000.0
        ));
    }
    // Where a key's time goes: the network's round trip (the smallest the kernel saw), latlab's
    // own client CPU per key (every stage, warm-up and erasing included), the rest the server.
    rec.metric(&format!("{p}.client_cpu_per_key"), (cpu(s) - cpu0) as f64 / plan.keys as f64, "ns");
    rec.metric(&format!("{p}.tcp_min_rtt"), s.tcp().map_err(ExperimentError::failed)?.min_rtt_ns, "ns");
    let lat: Vec<i64> = r.latencies_ns.iter().map(|&v| v as i64).collect();
    if let Some(sm) = summarize(&lat) {
        for (q, v) in [("min", sm.min), ("p50", sm.p50), ("p95", sm.p95), ("p99", sm.p99), ("max", sm.max)] {
            rec.metric(&format!("{p}.{q}"), v, "ns");
        }
    }
    // Every key's latency, so runs compare key by key (`latlab compare`) and export as CSV.
    rec.series.push(latlab_model::record::Series {
        name: format!("{p}.latency"),
        unit: "ns".into(),
        description: format!(
            "key to screen under {name}: from each key's send to the first decoded update showing its glyph, in typing order"
        ),
        values: lat.clone(),
    });
    let threshold = latlab_keyscreen::defaults::NOTICEABLE_MS * 1_000_000;
    let over = lat.iter().filter(|&&v| v as u64 > threshold).count() as u64 + r.lost;
    rec.metric(&format!("{p}.keys"), plan.keys as u64, "count");
    rec.metric(&format!("{p}.lost"), r.lost, "count");
    rec.metric(&format!("{p}.over_threshold"), over as f64 / plan.keys as f64, "ratio");
    if r.checks > 0 {
        rec.metric(&format!("{p}.detector_ns_per_check"), r.detect_ns as f64 / r.checks as f64, "ns");
        rec.metric(&format!("{p}.detector_ns_per_key"), r.detect_ns as f64 / plan.keys as f64, "ns");
    }
    if let Some(late) = summarize(&r.send_late_ns.iter().map(|&v| v as i64).collect::<Vec<_>>()) {
        rec.metric(&format!("{p}.send_late_p99"), late.p99, "ns");
    }
    if let Some(c) = r.cells {
        rec.config(
            "typing_cell",
            format!("{}x{} at ({}, {}), advance {}", c.first.w, c.first.h, c.first.x, c.first.y, c.advance),
        );
    }
    Ok(())
}

/// A real RDP server, measured.
pub struct DisplayRdp;

impl Experiment for DisplayRdp {
    type Config = RdpConfig;
    const NAME: &'static str = "display";
    const DOCS: &'static str = "docs/experiments/display.md";
    const MODE: &'static str = "rdp";
    const ABOUT: &'static str =
        "remote display on a real RDP server: key to screen, bytes per operation, client CPU per stage";
    const HEADLINE: &'static [(&'static str, &'static str)] =
        &[("rdp.latency.unloaded.p95", "key to screen p95 on the real server, unloaded")];
    fn suite_configs(_: bool) -> Vec<RdpConfig> {
        vec![RdpConfig { keys: 40, conditions: vec![Condition::Unloaded], known_hosts: None, ..RdpConfig::default() }]
    }
    fn small(mut cfg: RdpConfig) -> RdpConfig {
        cfg.keys = cfg.keys.min(20);
        cfg.op_seconds = cfg.op_seconds.min(2.0);
        cfg
    }
    fn validate(cfg: &RdpConfig) -> Result<(), latlab_model::ConfigError> {
        cfg.validate()
    }
    fn steps(cfg: &RdpConfig) -> u64 {
        match cfg.mode {
            RdpMode::Latency => cfg.conditions.len() as u64,
            RdpMode::Pipeline => 1,
            RdpMode::Ops => cfg.ops.len() as u64,
        }
    }
    fn announce(cfg: &RdpConfig) -> String {
        let who = match &cfg.server {
            Server::Local => "FreeRDP's shadow server over Xvfb (started here)".to_owned(),
            Server::LocalXrdp => "xrdp with a session of its own (started here)".to_owned(),
            Server::Remote(t) => format!("the RDP server at {t}"),
        };
        match cfg.mode {
            RdpMode::Ops => format!("display ops --rdp: {} operations of {} s on {who}", cfg.ops.len(), cfg.op_seconds),
            _ => format!(
                "display --rdp: {} keys at {} wpm under {} on {who}",
                cfg.keys,
                cfg.wpm,
                cfg.conditions.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")
            ),
        }
    }
    fn run(cfg: &RdpConfig, ctx: &RunContext) -> Result<Outcome, ExperimentError> {
        run(cfg, ctx)
    }
}
