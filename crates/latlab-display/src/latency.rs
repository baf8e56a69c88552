//! `latlab display latency` (seed 003, §4): keystroke to pixels through the real
//! display pipeline. A typist types into the server's editor over TCP on absolute deadlines;
//! each key's latency runs from its intended time to the moment the client's framebuffer
//! shows its glyph (found by pixels). One sweep of conditions: unloaded, CPU load on the
//! server, its memory paged out between keys, and a link shaped between two network
//! namespaces (with or without a competing bulk transfer). Each condition also presses Page
//! Down a few times: a large update, timed until the whole new page shows.

use latlab_desktop::session::SessionConfig;
use latlab_desktop::wire::{Codec, Crypto};
use latlab_desktop::workload::WorkloadKind;
use latlab_display_net::{ClientTimes, KeyRecord, TypingReport, TypistConfig, ViewConfig, serve_connection, type_on};
use latlab_keyscreen::condition::Condition;
use latlab_model::numfmt::sig;
use latlab_model::record::{Column, PaperRow, RunRecord, RunStatus, Series, Table};
use latlab_model::stats;
use latlab_model::verdict::Judgement;
use latlab_sys::netlab::{CLIENT_ADDR, NetLab, SERVER_ADDR, enter};
use latlab_sys::pageout::swap_for;
use latlab_sys::record::Finish;
use latlab_sys::spin::{SpinLoad, SpinSched};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What `display latency` does.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LatencyConfig {
    /// The conditions, in order.
    pub conditions: Vec<Condition>,
    /// The typist (rate, seconds, pages, timeouts).
    pub typist: TypistConfig,
    /// Screen, codec, cipher, orders.
    pub session: SessionConfig,
    /// Spinning processes of `cpu`.
    pub spinners: usize,
    /// Their scheduling.
    pub spin_sched: SpinSched,
    /// MiB the server touches per key and pages out between keys under `mem`.
    pub working_set_mib: u32,
    /// Make a temporary swap file for `mem` when the machine has too little swap.
    pub allow_swapfile: bool,
    /// Where that file goes.
    pub swap_dir: PathBuf,
    /// Where the server and the load run (set by `latlab tune`'s remedies; none by default).
    pub placement: Placement,
}

/// Where the server thread and the spinning load are put, and how the server is scheduled:
/// the hooks `latlab tune` uses for seed 003 §4.1's remedies.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Placement {
    /// A cgroup file the server thread writes its thread id to as it starts (v1 `tasks`: the
    /// thread alone; v2 `cgroup.procs`: the whole process).
    pub server_join: Option<PathBuf>,
    /// A cgroup file each spinner's pid is written to once started (`cgroup.procs`).
    pub load_join: Option<PathBuf>,
    /// An EEVDF slice the server thread asks for, ns (Linux 6.12+).
    pub server_slice_ns: Option<u64>,
}

impl Placement {
    /// Put the calling thread (the server) where asked.
    fn server(&self) -> Result<(), crate::DisplayError> {
        if let Some(p) = &self.server_join {
            std::fs::write(p, latlab_sys::platform::thread_id().to_string()).map_err(|e| {
                crate::DisplayError::failed(format!("moving the server thread into {}", p.display()), e)
            })?;
        }
        if let Some(ns) = self.server_slice_ns {
            latlab_sys::platform::set_slice(ns)
                .map_err(|e| crate::DisplayError::failed(format!("asking for a {ns} ns slice"), e))?;
        }
        Ok(())
    }

    /// Put the spinners where asked.
    fn load(&self, load: &SpinLoad) -> Result<(), crate::DisplayError> {
        if let Some(p) = &self.load_join {
            for pid in load.pids() {
                std::fs::write(p, pid.as_raw().to_string()).map_err(|e| {
                    crate::DisplayError::failed(format!("moving spinner {pid} into {}", p.display()), e)
                })?;
            }
        }
        Ok(())
    }
}

impl LatencyConfig {
    /// The full sweep.
    pub fn full() -> Self {
        let d = crate::defaults::LATENCY_CONDITIONS;
        let mut session = SessionConfig::standard(WorkloadKind::Typing { wpm: crate::defaults::LATENCY_WPM }, 1000);
        session.codec = Codec::from_name(latlab_display_net::defaults::OPS_CODEC).expect("a codec");
        session.crypto = Crypto::from_name(crate::defaults::OPS_CRYPTO).expect("a cipher");
        Self {
            conditions: d.iter().map(|c| Condition::parse(c).expect("the default conditions parse")).collect(),
            typist: TypistConfig {
                wpm: crate::defaults::LATENCY_WPM,
                seconds: crate::defaults::LATENCY_SECONDS,
                pages: crate::defaults::LATENCY_PAGES,
                key_timeout_ms: crate::defaults::LATENCY_KEY_TIMEOUT_MS,
                page_timeout_ms: crate::defaults::LATENCY_PAGE_TIMEOUT_MS,
                fifo: true,
                seed: latlab_desktop::defaults::SEED,
                gaps: latlab_desktop::gaps::KeyGaps::default(),
            },
            session,
            spinners: latlab_keyscreen::defaults::LATENCY_SPINNERS,
            spin_sched: SpinSched { policy: latlab_sys::platform::Policy::Other, nice: 0 },
            working_set_mib: crate::defaults::LATENCY_WORKING_SET_MIB,
            allow_swapfile: true,
            swap_dir: PathBuf::from(crate::defaults::SWAP_DIR),
            placement: Placement::default(),
        }
    }

    /// The suite's: the conditions the seed's rows need (all but the 1 Mbit/s and 56 kbit/s
    /// links, which only add table rows), 3 s of typing, one page each.
    pub fn short() -> Self {
        let mut c = Self::full();
        // The 1 Mbit/s link is left out; the modem stays, since seed 003's finding about it
        // ("few, if any, operations … will appear smooth") is judged from what it measures.
        c.conditions.retain(|c| c.name() != "1mbit");
        c.typist.seconds = 3.0;
        c.typist.pages = 1;
        c.working_set_mib = 16;
        c
    }

    /// Check the settings.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if self.conditions.is_empty() {
            return Err("give at least one condition".into());
        }
        if self.conditions.contains(&Condition::Busy) {
            return Err("condition busy: measured on a real server so far (`display latency --rdp local --conditions busy`, or your own server with an animation running)".into());
        }
        self.typist.validate()?;
        self.session.validate().map_err(|e| e.to_string())?;
        if self.spinners > 256 {
            return Err(format!("{} spinners: at most 256", self.spinners).into());
        }
        if self.working_set_mib == 0 || self.working_set_mib > 16 * 1024 {
            return Err("working set: 1 MiB to 16 GiB".into());
        }
        Ok(())
    }

    /// Seconds the sweep takes, about (typing, pages and set-up per condition).
    pub fn estimate_s(&self) -> f64 {
        self.conditions.len() as f64 * (self.typist.seconds + 1.5 + self.typist.pages as f64)
    }
}

/// What one condition measured.
#[derive(Debug, Clone)]
pub struct Level {
    /// The condition.
    pub condition: Condition,
    /// The session, or why the condition could not be run.
    pub result: Result<TypingReport, Arc<crate::DisplayError>>,
    /// Server counts (pages out, residency).
    pub server: Option<latlab_display_net::ServerReport>,
    /// What the condition itself reported (swap used, spinners granted, …).
    pub note: String,
}

/// Per-key latency figures of a level.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeyStats {
    /// Keys with something to see.
    pub visible: u64,
    /// Of those, shown.
    pub shown: u64,
    /// Latencies of the shown keys, ns, in typing order.
    pub latencies: Vec<i64>,
    /// Their summary.
    pub summary: Option<stats::Summary>,
    /// Share of visible keys over the threshold or never shown.
    pub over_threshold: f64,
    /// Mean ns per stage: send, to server, server, to client, client.
    pub stages: [f64; 5],
    /// The seed's Figure 5 measure: the share of the typing time spent waiting — the sum of
    /// each gap between consecutive screen updates beyond the gap between their keys, over
    /// the typing time.
    pub waiting_share: f64,
}

/// The stage names, in order.
pub const STAGES: [&str; 5] = ["send", "to_server", "server", "to_client", "client"];

/// The CPU stages the pipeline times, as (side, stage): the server's three, the client's seven.
pub const CPU_STAGES: [(&str, &str); 10] = [
    ("server", "render"),
    ("server", "encode"),
    ("server", "send"),
    ("client", "receive"),
    ("client", "decrypt"),
    ("client", "decompress"),
    ("client", "decode"),
    ("client", "cache"),
    ("client", "blit"),
    ("client", "other"),
];

/// CPU ns per key, in `CPU_STAGES` order: each stage's session total over `keys` (the keys and
/// pages typed; the opening screen is shared among them).
pub fn cpu_per_key(server: &latlab_display_net::ServerReport, client: &ClientTimes, keys: u64) -> [f64; 10] {
    let totals = [
        server.render_ns,
        server.encode_ns,
        server.send_ns,
        client.receive_ns,
        client.decrypt_ns,
        client.decompress_ns,
        client.decode_ns,
        client.cache_ns,
        client.blit_ns,
        client.other_ns,
    ];
    totals.map(|t| if keys == 0 { f64::NAN } else { t as f64 / keys as f64 })
}

/// The figures of `keys`, with `threshold_ns` the seed's 100 ms.
pub fn key_stats(keys: &[KeyRecord], threshold_ns: u64) -> KeyStats {
    let vis: Vec<&KeyRecord> = keys.iter().filter(|k| k.visible).collect();
    let shown: Vec<&KeyRecord> = vis.iter().copied().filter(|k| k.shown_ns.is_some()).collect();
    let latencies: Vec<i64> = shown.iter().filter_map(|k| k.latency_ns()).map(|l| l as i64).collect();
    let late = vis.iter().filter(|k| k.latency_ns().is_none_or(|l| l > threshold_ns)).count();
    let mut stages = [0.0; 5];
    for k in &shown {
        let s = k.shown_ns.unwrap_or(0);
        let d = |a: u64, b: u64| b as f64 - a as f64;
        let parts = [
            d(k.intended_ns, k.written_ns),
            d(k.written_ns, k.received_ns),
            d(k.received_ns, k.sent_ns),
            d(k.sent_ns, k.read_ns),
            d(k.read_ns, s),
        ];
        for (acc, p) in stages.iter_mut().zip(parts) {
            *acc += p / shown.len() as f64;
        }
    }
    // Figure 5's stalls: gaps between consecutive updates beyond the gaps between their keys.
    let mut waited = 0u64;
    for w in shown.windows(2) {
        let (a, b) = (w[0], w[1]);
        let shown_gap = b.shown_ns.unwrap_or(0).saturating_sub(a.shown_ns.unwrap_or(0));
        let key_gap = b.intended_ns.saturating_sub(a.intended_ns);
        waited += shown_gap.saturating_sub(key_gap);
    }
    let span = match (vis.first(), vis.last()) {
        (Some(a), Some(b)) if b.intended_ns > a.intended_ns => b.intended_ns - a.intended_ns,
        _ => 0,
    };
    KeyStats {
        visible: vis.len() as u64,
        shown: shown.len() as u64,
        summary: stats::summarize(&latencies),
        latencies,
        over_threshold: if vis.is_empty() { 0.0 } else { late as f64 / vis.len() as f64 },
        stages,
        waiting_share: if span == 0 { 0.0 } else { (waited as f64 / span as f64).min(1.0) },
    }
}

/// Run a server and a typist, over loopback or across `lab`; the server runs `working_set_mib`.
fn session(
    cfg: &LatencyConfig,
    lab: Option<&NetLab>,
    working_set_mib: u32,
) -> Result<(latlab_display_net::ServerReport, TypingReport), crate::DisplayError> {
    use crate::DisplayError;
    // The server's address once it listens; none when it could not (its error is its result).
    let (tx, rx) = std::sync::mpsc::channel::<Option<std::net::SocketAddr>>();
    let server_ns = lab.map(|l| l.server.clone());
    let placement = cfg.placement.clone();
    let server = std::thread::spawn(move || -> Result<latlab_display_net::ServerReport, DisplayError> {
        let listener = (|| {
            if let Some(ns) = &server_ns {
                enter(ns)?;
            }
            placement.server()?;
            let host = if server_ns.is_some() { SERVER_ADDR } else { "127.0.0.1" };
            TcpListener::bind((host, 0)).map_err(|e| DisplayError::failed(format!("listening on {host}"), e))
        })();
        let _ = tx.send(listener.as_ref().ok().and_then(|l| l.local_addr().ok()));
        let (stream, _) = listener?.accept().map_err(|e| DisplayError::failed("accepting the client", e))?;
        Ok(serve_connection(stream)?)
    });
    let Ok(Some(addr)) = rx.recv() else {
        return Err(match server.join() {
            Ok(Err(e)) => e,
            _ => DisplayError::Study("the server thread ended before listening".into()),
        });
    };
    let client_ns = lab.map(|l| l.client.clone());
    let (session, typist) = (cfg.session.clone(), cfg.typist.clone());
    let client = std::thread::spawn(move || -> Result<TypingReport, DisplayError> {
        if let Some(ns) = &client_ns {
            enter(ns)?;
        }
        let stream = TcpStream::connect(addr).map_err(|e| DisplayError::failed(format!("connecting to {addr}"), e))?;
        let vc = ViewConfig { threshold: crate::defaults::LATENCY_RCV_THRESHOLD, ..ViewConfig::default() };
        Ok(type_on(stream, &session, working_set_mib, &vc, &typist)?)
    });
    let c = client.join().map_err(|_| DisplayError::Study("the client thread panicked".into()));
    let s = server.join().map_err(|_| DisplayError::Study("the server thread panicked".into()));
    let c = c??;
    let s = s??;
    Ok((s, c))
}

/// A bulk flow each way across `lab` at `rate_bps`, until dropped.
struct Bulk {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
    bytes: Arc<AtomicU64>,
}

impl Bulk {
    fn start(lab: &NetLab, rate_bps: u64) -> Result<Self, crate::DisplayError> {
        let stop = Arc::new(AtomicBool::new(false));
        let bytes = Arc::new(AtomicU64::new(0));
        let mut threads = Vec::new();
        // A sink in each namespace; a paced writer in the other one.
        for (sink_ns, sink_addr, src_ns) in
            [(&lab.client, CLIENT_ADDR, &lab.server), (&lab.server, SERVER_ADDR, &lab.client)]
        {
            let (tx, rx) = std::sync::mpsc::channel();
            let (ns, st, by) = (sink_ns.clone(), stop.clone(), bytes.clone());
            threads.push(std::thread::spawn(move || {
                let l = enter(&ns).map_err(crate::DisplayError::from).and_then(|()| {
                    TcpListener::bind((sink_addr, 0))
                        .map_err(|e| crate::DisplayError::failed(format!("bulk sink on {sink_addr}"), e))
                });
                let l = match l {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                let _ = tx.send(l.local_addr().map_err(|e| crate::DisplayError::failed("the bulk sink's address", e)));
                if let Ok((mut s, _)) = l.accept() {
                    let _ = s.set_read_timeout(Some(std::time::Duration::from_millis(200)));
                    let mut buf = vec![0u8; 64 * 1024];
                    while !st.load(Ordering::Relaxed) {
                        match std::io::Read::read(&mut s, &mut buf) {
                            Ok(0) => break,
                            Ok(n) => {
                                by.fetch_add(n as u64, Ordering::Relaxed);
                            }
                            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                            Err(_) => break,
                        }
                    }
                }
            }));
            let addr = rx.recv().map_err(|_| crate::DisplayError::Study("the bulk sink did not start".into()))??;
            let (ns, st) = (src_ns.clone(), stop.clone());
            threads.push(std::thread::spawn(move || {
                if enter(&ns).is_err() {
                    return;
                }
                if let Ok(mut s) = TcpStream::connect(addr) {
                    latlab_sys::load::paced_write(&mut s, rate_bps, &st);
                    let _ = s.shutdown(std::net::Shutdown::Both);
                }
            }));
        }
        Ok(Self { stop, threads, bytes })
    }

    fn stop(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads {
            let _ = t.join();
        }
        self.bytes.load(Ordering::Relaxed)
    }
}

/// Run one condition.
pub fn run_level(cfg: &LatencyConfig, condition: Condition) -> Level {
    let mut note = String::new();
    let result = (|| -> Result<(latlab_display_net::ServerReport, TypingReport), crate::DisplayError> {
        match condition {
            Condition::Unloaded => session(cfg, None, 0),
            Condition::Cpu => {
                let load = SpinLoad::start(cfg.spinners, cfg.spin_sched)?;
                cfg.placement.load(&load)?;
                note = format!(
                    "{} spinning processes at {}; typed at 20 keys a second ({} wpm), Figure 5's key repeat",
                    cfg.spinners,
                    cfg.spin_sched,
                    crate::defaults::FIGURE5_WPM
                );
                std::thread::sleep(std::time::Duration::from_millis(200));
                let mut at20 = cfg.clone();
                at20.typist.wpm = crate::defaults::FIGURE5_WPM;
                let r = session(&at20, None, 0);
                load.stop();
                r
            }
            Condition::Mem => {
                let (_swap, swap) = swap_for(cfg.working_set_mib as usize, cfg.allow_swapfile, &cfg.swap_dir)
                    .map_err(|e| crate::DisplayError::failed("swap for the mem condition", e))?;
                note = format!("swap: {swap}");
                session(cfg, None, cfg.working_set_mib)
            }
            Condition::Busy => {
                Err(crate::DisplayError::Study("condition busy: measured with --rdp (refused before measuring)".into()))
            }
            Condition::Link { rate_bps, bulk } => {
                let lab = NetLab::create(rate_bps, None)?;
                note = format!("HTB at {} bit/s between namespaces {} and {}", rate_bps, lab.client, lab.server);
                let flows = if bulk {
                    let share = crate::defaults::LATENCY_BULK_SHARE;
                    let b = Bulk::start(&lab, (rate_bps as f64 * share) as u64)?;
                    note += &format!(
                        "; a bulk flow each way offered at {:.0} % of the link (the link paces it)",
                        share * 100.0
                    );
                    std::thread::sleep(std::time::Duration::from_millis(500));
                    Some(b)
                } else {
                    None
                };
                let r = session(cfg, Some(&lab), 0);
                if let Some(b) = flows {
                    let bytes = b.stop();
                    note += &format!(" ({} KB of bulk delivered)", bytes / 1000);
                }
                r
            }
        }
    })();
    match result {
        Ok((s, t)) => Level { condition, result: Ok(t), server: Some(s), note },
        Err(e) => Level { condition, result: Err(Arc::new(e)), server: None, note },
    }
}

/// Run the sweep into a record.
pub fn run_latency(cfg: &LatencyConfig, progress: Arc<AtomicU64>) -> Result<RunRecord, crate::DisplayError> {
    cfg.validate()?;
    let mut rec = latlab_sys::record::begin("display");
    let mut levels = Vec::new();
    for &c in &cfg.conditions {
        if latlab_sys::interrupt::stop_requested() {
            break;
        }
        levels.push(run_level(cfg, c));
        progress.fetch_add(1, Ordering::Relaxed);
    }
    record(&mut rec, cfg, &levels);
    rec.finish(if latlab_sys::interrupt::stop_requested() { RunStatus::Interrupted } else { RunStatus::Complete });
    Ok(rec)
}

mod record;
pub use record::record;

#[cfg(test)]
mod tests;
