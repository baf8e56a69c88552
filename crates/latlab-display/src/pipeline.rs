//! `latlab display pipeline`: where the client's CPU goes (seed 000). The animated slide show
//! and the other workloads run on real time through the TCP pair; the client accounts its
//! thread's CPU per stage (receive, decrypt, decompress, decode, cache, blit). Then the
//! throughput limit (frames back to back), a client with a slower CPU (frames dropped), and
//! sweeps over compression, encryption, orders against bitmaps, receive buffer and threshold.

use latlab_desktop::session::SessionConfig;
use latlab_desktop::wire::{Codec, Crypto};
use latlab_desktop::workload::WorkloadKind;
use latlab_display_net::{ClientReport, NetError, Pace, ServerReport, ViewConfig, pair};
use latlab_model::numfmt::sig;
use latlab_model::record::{Column, RunRecord, RunStatus, Table, TablePlot};
use latlab_model::verdict::Judgement;
use latlab_rdp::CompressionType;
use latlab_rdp::security::Protection;
use latlab_sys::record::Finish;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

pub use crate::paper::PEAK_BYTES_PER_S as PAPER_PEAK_BYTES_PER_S;

/// What the pipeline experiment runs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PipelineConfig {
    /// Seconds of the main slide-show run.
    pub seconds: u64,
    /// Seconds of every other run.
    pub sweep_seconds: u64,
    /// Other workloads measured at the default settings.
    pub workloads: Vec<WorkloadKind>,
    /// Client speeds for the dropped-frames runs, in MHz of the seed's CEPC: each is emulated
    /// at this CPU's calibrated fraction ([`Calibration`]).
    pub client_mhz: Vec<f64>,
    /// Codecs swept.
    pub codecs: Vec<Codec>,
    /// Ciphers swept.
    pub cryptos: Vec<Crypto>,
    /// Also run with bitmaps instead of orders.
    pub bitmaps: bool,
    /// Receive buffers swept, bytes.
    pub rcvbufs: Vec<usize>,
    /// Thresholds swept, bytes (with the default buffer, or the largest swept if bigger).
    pub thresholds: Vec<usize>,
    /// Run frames back to back for the throughput limit.
    pub flat_out: bool,
    /// Rerun the codec, cipher and orders sweeps on a client slowed to this many MHz of the
    /// seed's CEPC (its finding was on its 233 MHz client; `None`: skip).
    pub slow_sweep: Option<f64>,
    /// The default codec (NCRUSH, RDP 6.0's, the study's).
    pub codec: Codec,
    /// The default cipher (RC4 with MAC: the study's server forced encryption on).
    pub crypto: Crypto,
    /// Screen width and height.
    pub screen: (usize, usize),
    /// The client's settings for every run (speed, receive buffer, threshold and seed 000's
    /// cures); the speed sweeps set their own speeds.
    pub view: ViewConfig,
    /// Orders (the default), or bitmaps only (seed 000's NPPerfTune) in every run.
    pub orders: bool,
    /// Only the main slide-show run (what `latlab tune` measures seed 000's cures with).
    pub main_only: bool,
}

impl PipelineConfig {
    /// The full experiment (about two and a half minutes).
    pub fn full() -> Self {
        Self {
            seconds: 10,
            sweep_seconds: 4,
            workloads: ["typing", "menu", "scroll", "screensaver", "banner_ticker", "animation"]
                .iter()
                .filter_map(|n| WorkloadKind::from_name(n))
                .collect(),
            client_mhz: crate::defaults::PIPELINE_CLIENT_MHZ.to_vec(),
            codecs: Codec::ALL.to_vec(),
            cryptos: Crypto::ALL.to_vec(),
            bitmaps: true,
            rcvbufs: vec![64 << 10, 256 << 10, 1 << 20],
            thresholds: vec![2 << 10, 16 << 10, 52 << 10],
            flat_out: true,
            slow_sweep: Some(crate::defaults::PAPER_SLOW_MHZ),
            codec: Codec::Rdp(CompressionType::Ncrush),
            crypto: Crypto::On(Protection::Rc4Mac { salted: false }),
            screen: (latlab_desktop::defaults::WIDTH, latlab_desktop::defaults::HEIGHT),
            view: ViewConfig::default(),
            orders: true,
            main_only: false,
        }
    }

    /// The suite's version (about 30 s).
    pub fn short() -> Self {
        Self {
            seconds: 4,
            sweep_seconds: 2,
            workloads: vec![WorkloadKind::Typing { wpm: latlab_desktop::defaults::TYPING_WPM }],
            client_mhz: vec![crate::defaults::PAPER_FAST_MHZ, crate::defaults::PAPER_SLOW_MHZ],
            // The seed's other compressor (MPPC, RDP 5.0's 64 KB history) beside none.
            codecs: vec![Codec::None, Codec::Rdp(CompressionType::Mppc64k)],
            cryptos: vec![Crypto::None],
            bitmaps: true,
            // The buffer and threshold sweeps are the full run's and `latlab tune`'s.
            rcvbufs: vec![],
            thresholds: vec![],
            ..Self::full()
        }
    }

    /// The runs of one pass of the codec, cipher and orders sweeps.
    fn axis_runs(&self) -> usize {
        self.codecs.iter().filter(|&&c| c != self.codec).count()
            + self.cryptos.iter().filter(|&&c| c != self.crypto).count()
            + usize::from(self.bitmaps && self.orders)
    }

    /// Is the main run the seed's client at full speed (what the paper rows compare)?
    pub fn default_client(&self) -> bool {
        self.orders && self.view == ViewConfig::default()
    }

    /// One pass of the codec, cipher and orders sweeps from `base`: (axis, setting, the
    /// metric key under `pipeline.` / `pipeline.slow.`, the session), in the order run.
    fn axis_sessions(&self, base: &SessionConfig) -> Vec<(&'static str, String, String, SessionConfig)> {
        let mut runs = Vec::new();
        for &codec in self.codecs.iter().filter(|&&x| x != self.codec) {
            runs.push((
                "codec",
                codec.name().into(),
                format!("codec.{}", codec.name()),
                SessionConfig { codec, ..base.clone() },
            ));
        }
        for &crypto in self.cryptos.iter().filter(|&&x| x != self.crypto) {
            runs.push((
                "crypto",
                crypto.name().into(),
                format!("crypto.{}", crypto.name()),
                SessionConfig { crypto, ..base.clone() },
            ));
        }
        if self.bitmaps && self.orders {
            let mut s = base.clone();
            s.encoder.orders = false;
            runs.push(("updates", "bitmaps".into(), "bitmaps".into(), s));
        }
        runs
    }

    /// Runs (for progress).
    pub fn steps(&self) -> u64 {
        if self.main_only {
            return 1;
        }
        (2 + self.workloads.len()
            + self.slow_sweep.map_or(0, |m| usize::from(!self.client_mhz.contains(&m)) + self.axis_runs())
            + self.client_mhz.len()
            + self.axis_runs()
            + self.rcvbufs.iter().filter(|&&b| b != latlab_display_net::defaults::RCVBUF).count()
            + self.thresholds.iter().filter(|&&t| t != latlab_display_net::defaults::RCV_THRESHOLD).count()
            + usize::from(self.flat_out)) as u64
    }

    fn session(&self, workload: WorkloadKind, seconds: u64) -> SessionConfig {
        let mut s = SessionConfig::standard(workload, seconds * 1000);
        (s.width, s.height) = self.screen;
        s.codec = self.codec;
        s.crypto = self.crypto;
        s.encoder.orders = self.orders;
        s.timed = true;
        s
    }
}

/// One run's figures.
#[derive(Debug, Clone)]
pub struct Run {
    /// The server's report.
    pub server: ServerReport,
    /// The client's report.
    pub client: ClientReport,
}

impl Run {
    /// Bytes per second on the wire (display).
    pub fn wire_bps(&self) -> f64 {
        self.client.bytes as f64 / (self.client.wall_ns.max(1) as f64 / 1e9)
    }
    /// The client's CPU as a fraction of one core.
    pub fn client_cpu(&self) -> f64 {
        self.client.times.total_ns as f64 / self.client.wall_ns.max(1) as f64
    }
    /// The server's CPU (render, encode, send) as a fraction of one core.
    pub fn server_cpu(&self) -> f64 {
        let s = &self.server;
        (s.render_ns + s.encode_ns + s.send_ns) as f64 / s.wall_ns.max(1) as f64
    }
    /// Client CPU per byte received, ns.
    pub fn ns_per_byte(&self) -> f64 {
        self.client.times.total_ns as f64 / self.client.bytes.max(1) as f64
    }
    /// Frames dropped of those rendered.
    pub fn dropped(&self) -> f64 {
        self.server.dropped as f64 / self.server.frames.max(1) as f64
    }
    /// Share of the client's CPU in `stage`.
    pub fn share(&self, ns: u64) -> f64 {
        ns as f64 / self.client.times.total_ns.max(1) as f64
    }
    /// Share of all the client's wall time (busy or idle) in `stage`: seed 000's 1.8 GHz
    /// client was about half idle, so its profile may be of either.
    pub fn wall_share(&self, ns: u64) -> f64 {
        ns as f64 / self.client.wall_ns.max(1) as f64
    }
}

/// The emulated seed-000 client: the fraction of this CPU at which latlab's client is as busy
/// with the slide show as the seed's 1.8 GHz CEPC was at its peak (half idle), measured from
/// the main run's cost; every other client speed scales from it by MHz.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// This CPU's fraction that plays the 1.8 GHz CEPC.
    pub fast_speed: f64,
    /// The full-speed client's busy share that gave it.
    pub full_speed_busy: f64,
}

impl Calibration {
    /// From the full-speed client's busy share of one core: the speed at which it would be
    /// [`crate::defaults::PAPER_FAST_BUSY`] busy (never above this CPU's own speed).
    pub fn of(full_speed_busy: f64) -> Self {
        let fast_speed = (full_speed_busy / crate::defaults::PAPER_FAST_BUSY).clamp(1e-4, 1.0);
        Calibration { fast_speed, full_speed_busy }
    }
    /// This CPU's fraction that plays a CEPC of `mhz`.
    pub fn speed(&self, mhz: f64) -> f64 {
        (self.fast_speed * mhz / crate::defaults::PAPER_FAST_MHZ).max(1e-5)
    }
    /// Whether this CPU is fast enough to play the seed's 1.8 GHz client (it is, unless its
    /// client is more than half busy at full speed).
    pub fn premise_holds(&self) -> bool {
        self.full_speed_busy <= crate::defaults::PAPER_FAST_BUSY
    }
}

fn go(cfg: &SessionConfig, pace: Pace, vc: &ViewConfig, progress: &AtomicU64) -> Result<Run, NetError> {
    let (server, client) = pair(cfg, pace, vc)?;
    progress.fetch_add(1, Ordering::Relaxed);
    Ok(Run { server, client })
}

/// Run the experiment into a record.
pub fn run_pipeline(cfg: &PipelineConfig, progress: Arc<AtomicU64>) -> Result<RunRecord, NetError> {
    let mut rec = latlab_sys::record::begin("display");
    rec.mode = "pipeline".into();
    rec.config("codec", cfg.codec.name());
    rec.config("crypto", cfg.crypto.name());
    rec.config("seconds", cfg.seconds);
    rec.config("sweep_seconds", cfg.sweep_seconds);
    let vc = cfg.view;
    rec.config("rcvbuf", vc.rcvbuf);
    rec.config("threshold", vc.threshold);
    rec.config("client_speed", vc.speed);
    rec.config("cures", vc.cures.describe());
    rec.config("orders", cfg.orders);
    rec.config("main_only", cfg.main_only);
    rec.config("transport", "TCP over loopback, Nagle off, server and client threads in one process");
    let slideshow = WorkloadKind::Slideshow;

    // The main run: the slide show at the defaults, on real time.
    let main = go(&cfg.session(slideshow.clone(), cfg.seconds), Pace::RealTime, &vc, &progress)?;
    let t = main.client.times;
    for (stage, ns) in t.stages() {
        rec.metric(&format!("pipeline.{stage}.cpu_share"), main.share(ns), "ratio");
        rec.metric(&format!("pipeline.{stage}.wall_share"), main.wall_share(ns), "ratio");
    }
    rec.metric("pipeline.client.cpu_fraction", main.client_cpu(), "ratio");
    rec.metric("pipeline.server.cpu_fraction", main.server_cpu(), "ratio");
    rec.metric("pipeline.wire_bytes_per_s", main.wire_bps(), "B/s");
    rec.metric("pipeline.client.ns_per_byte", main.ns_per_byte(), "ns");
    let capacity = 1e9 / main.ns_per_byte().max(1e-9);
    rec.metric("pipeline.client.capacity_bytes_per_s", capacity, "B/s");
    rec.metric("pipeline.client.share_at_paper_peak", PAPER_PEAK_BYTES_PER_S / capacity, "ratio");
    rec.metric("pipeline.bytes_copied_per_byte", t.bytes_copied as f64 / main.client.bytes.max(1) as f64, "ratio");
    rec.metric("pipeline.dropped_fraction", main.dropped(), "ratio");
    rec.metric("pipeline.client.busy_fraction", busy(&main, vc.speed), "ratio");
    rec.metric("pipeline.bitmap.cpu_share", pdu::bitmap_share(&main), "ratio");
    pdu::pdu_metrics(&mut rec, "pipeline.pdu", &main);
    // Seed 000 counted the client's bitmap-cache misses: the encoder's, whole session.
    let (hits, misses) = (main.server.cache_hits, main.server.cache_misses);
    rec.metric("pipeline.cache.misses_per_s", misses as f64 / (cfg.seconds.max(1) as f64), "1/s");
    rec.metric("pipeline.cache.hit_ratio", hits as f64 / (hits + misses).max(1) as f64, "ratio");
    let c = Column::new;
    rec.tables.push(Table {
        name: "pipeline.stages".into(),
        title: format!(
            "Client CPU per stage, animated slide show, {} s on real time ({}, {}, {}, client at {}× this CPU, cures: {}): {} MB/s on the wire, client {} % of a core, {} % of frames dropped",
            cfg.seconds,
            cfg.codec.name(),
            cfg.crypto.name(),
            if cfg.orders { "orders" } else { "bitmaps" },
            vc.speed,
            vc.cures.describe(), sig(main.wire_bps() / 1e6), sig(100.0 * main.client_cpu()), sig(100.0 * main.dropped())
        ),
        columns: vec![c("stage", ""), c("CPU", "ms"), c("share", "%")],
        rows: t.stages().iter().map(|(s, ns)| vec![(*s).into(), r2(*ns as f64 / 1e6), pct(main.share(*ns))]).collect(),
        plot: None,
    });

    if cfg.main_only {
        rec.config("paper_rows", "left out: only the main run was made");
        rec.finish(RunStatus::Complete);
        return Ok(rec);
    }
    // The other workloads at the defaults.
    let mut rows = vec![workload_row("slideshow", &main)];
    for w in &cfg.workloads {
        stop_check()?;
        let r = go(&cfg.session(w.clone(), cfg.sweep_seconds), Pace::RealTime, &vc, &progress)?;
        rec.metric(&format!("pipeline.{}.client_cpu_fraction", w.name()), r.client_cpu(), "ratio");
        rec.metric(&format!("pipeline.{}.wire_bytes_per_s", w.name()), r.wire_bps(), "B/s");
        rows.push(workload_row(w.name(), &r));
    }
    // Seed 000's lightweight slide show: the same slides, nothing animating.
    stop_check()?;
    let light = go(&cfg.session(WorkloadKind::LightSlideshow, cfg.seconds), Pace::RealTime, &vc, &progress)?;
    rec.metric("pipeline.light.client_cpu_fraction", light.client_cpu(), "ratio");
    rec.metric("pipeline.light.bitmap.cpu_share", pdu::bitmap_share(&light), "ratio");
    pdu::pdu_metrics(&mut rec, "pipeline.light.pdu", &light);
    rows.push(workload_row("slideshow_light", &light));
    rec.tables.push(Table {
        name: "pipeline.workloads".into(),
        title: "Client and server CPU per workload, real time, default settings".into(),
        columns: vec![
            c("workload", ""),
            c("wire", "KB/s"),
            c("client CPU", "% of a core"),
            c("server CPU", "% of a core"),
            c("client ns per byte", "ns"),
            c("dropped", "%"),
        ],
        rows,
        plot: None,
    });

    // The throughput limit: frames back to back.
    if cfg.flat_out {
        stop_check()?;
        let r = go(&cfg.session(slideshow.clone(), cfg.sweep_seconds), Pace::FlatOut, &vc, &progress)?;
        let fps = r.server.frames as f64 / (r.server.wall_ns.max(1) as f64 / 1e9);
        rec.metric("pipeline.limit.bytes_per_s", r.wire_bps(), "B/s");
        rec.metric("pipeline.limit.frames_per_s", fps, "1/s");
        rec.metric("pipeline.limit.client_cpu_fraction", r.client_cpu(), "ratio");
        rec.metric("pipeline.limit.server_cpu_fraction", r.server_cpu(), "ratio");
        rec.config(
            "limit_bound_by",
            if r.server_cpu() >= r.client_cpu() { "server (render + encode)" } else { "client" },
        );
    }

    // Client speeds in MHz of the seed's CEPC, calibrated on this CPU: frames dropped.
    let cal = Calibration::of(main.client_cpu());
    rec.metric("pipeline.calibration.fast_speed", cal.fast_speed, "ratio");
    let mut speed_rows = Vec::new();
    let mut by_mhz: Vec<(f64, Run)> = Vec::new();
    for &mhz in &cfg.client_mhz {
        stop_check()?;
        let speed = cal.speed(mhz);
        let r = go(
            &cfg.session(slideshow.clone(), cfg.sweep_seconds),
            Pace::RealTime,
            &ViewConfig { speed, ..vc },
            &progress,
        )?;
        let key = format!("mhz{:04}", mhz.round() as u32);
        rec.metric(&format!("pipeline.speed.{key}.dropped_fraction"), r.dropped(), "ratio");
        rec.metric(&format!("pipeline.speed.{key}.wire_bytes_per_s"), r.wire_bps(), "B/s");
        rec.metric(&format!("pipeline.speed.{key}.busy_fraction"), busy(&r, speed), "ratio");
        speed_rows.push(vec![
            r2(mhz),
            serde_json::Value::from((speed * 1e4).round() / 1e4),
            r2(r.wire_bps() / 1e6),
            pct(r.dropped()),
            pct(busy(&r, speed)),
        ]);
        by_mhz.push((mhz, r));
    }
    if !speed_rows.is_empty() {
        rec.tables.push(Table {
            name: "pipeline.speed".into(),
            title: format!(
                "Client speeds as the seed's CEPC (emulated: the client idles in proportion to its work; 1.8 GHz = {}× this CPU, where it is half busy as the seed's was): wire rate and frames the server dropped, animated slide show",
                sig(cal.fast_speed)
            ),
            columns: vec![
                c("client", "MHz of the seed's CEPC"),
                c("speed", "× this CPU"),
                c("wire", "MB/s"),
                c("dropped", "%"),
                c("client busy", "% of its CPU"),
            ],
            rows: speed_rows,
            plot: Some(TablePlot { x: "client".into(), ys: vec!["wire".into(), "dropped".into()], log_x: false, log_y: false }),
        });
    }

    // Sweeps, one axis at a time from the defaults.
    let mut rows = Vec::new();
    let base = cfg.session(slideshow.clone(), cfg.sweep_seconds);
    let mut uncompressed: Option<Run> = None;
    for (axis, value, key, session) in cfg.axis_sessions(&base) {
        stop_check()?;
        let r = go(&session, Pace::RealTime, &vc, &progress)?;
        if axis == "codec" && session.codec == Codec::None {
            uncompressed = Some(r.clone());
        }
        rec.metric(&format!("pipeline.{key}.client_cpu_fraction"), r.client_cpu(), "ratio");
        if axis == "updates" {
            rec.metric(&format!("pipeline.{key}.wire_bytes_per_s"), r.wire_bps(), "B/s");
        }
        rows.push(sweep_row(axis, value, &r));
    }
    for &rcvbuf in cfg.rcvbufs.iter().filter(|&&x| x != latlab_display_net::defaults::RCVBUF) {
        stop_check()?;
        let r = go(&base, Pace::RealTime, &ViewConfig { rcvbuf, ..vc }, &progress)?;
        rec.metric(&format!("pipeline.rcvbuf.k{}.reads_per_s", rcvbuf >> 10), reads_per_s(&r), "1/s");
        rows.push(sweep_row("rcvbuf", format!("{} KB", rcvbuf >> 10), &r));
    }
    let big = cfg
        .rcvbufs
        .iter()
        .copied()
        .max()
        .unwrap_or(latlab_display_net::defaults::RCVBUF)
        .max(latlab_display_net::defaults::RCVBUF);
    for &threshold in cfg.thresholds.iter().filter(|&&x| x != latlab_display_net::defaults::RCV_THRESHOLD) {
        stop_check()?;
        let rcvbuf = if threshold > vc.rcvbuf / 2 { big.max(2 * threshold) } else { vc.rcvbuf };
        let r = go(&base, Pace::RealTime, &ViewConfig { threshold, rcvbuf, ..vc }, &progress)?;
        rec.metric(&format!("pipeline.threshold.k{}.reads_per_s", threshold >> 10), reads_per_s(&r), "1/s");
        rows.push(sweep_row("threshold", format!("{} KB (buffer {} KB)", threshold >> 10, rcvbuf >> 10), &r));
    }
    rec.metric("pipeline.reads_per_s", reads_per_s(&main), "1/s");
    rows.insert(
        0,
        sweep_row(
            "defaults",
            format!(
                "{}, {}, {}, {} KB / {} KB",
                cfg.codec.name(),
                cfg.crypto.name(),
                if cfg.orders { "orders" } else { "bitmaps" },
                vc.rcvbuf >> 10,
                vc.threshold >> 10
            ),
            &main,
        ),
    );
    rec.tables.push(Table {
        name: "pipeline.sweep".into(),
        title: "Animated slide show on real time, one setting changed at a time: wire rate, client CPU and its split"
            .into(),
        columns: sweep_columns("axis"),
        rows,
        plot: None,
    });
    let slowed = match cfg.slow_sweep {
        Some(mhz) => {
            // The speed rows already ran the defaults at this client's speed: the same session.
            let ran = by_mhz.iter().find(|(m, _)| *m == mhz).map(|(_, r)| r.clone());
            Some(slow_sweep(cfg, mhz, cal.speed(mhz), &base, &vc, ran, &progress, &mut rec)?)
        }
        None => None,
    };
    if cfg.default_client() {
        let codec_is_rdp6 = cfg.codec == Codec::Rdp(CompressionType::Ncrush);
        let saving = uncompressed.as_ref().filter(|_| codec_is_rdp6).map(|u| (u, &main));
        paper_rows(&mut rec, &main, &cal, &by_mhz, slowed.as_ref(), saving);
        pdu::pdu_rows(&mut rec, &main, Some(&light), &cal, &by_mhz);
    } else {
        rec.config("paper_rows", "left out: the main run is not the seed's client at full speed");
    }
    rec.finish(RunStatus::Complete);
    Ok(rec)
}

/// The busy share of a slowed client's own (emulated) CPU.
fn busy(r: &Run, speed: f64) -> f64 {
    r.client.times.total_ns as f64 / speed / r.client.wall_ns.max(1) as f64
}

/// What the codec, cipher and orders sweeps did on a client slowed to `speed`: each
/// setting with its busy share (of the slowed CPU), in the order run, defaults first.
struct Slowed {
    mhz: f64,
    speed: f64,
    /// Each setting (`defaults`, `codec mppc64k`, `bitmaps`, …): the slowed CPU's busy share,
    /// the share of frames dropped.
    busy: Vec<(String, f64, f64)>,
}

/// Seed 000's sweeps where it ran them, on its slow client: does any setting free the CPU?
#[allow(clippy::too_many_arguments)]
fn slow_sweep(
    cfg: &PipelineConfig,
    mhz: f64,
    speed: f64,
    base: &SessionConfig,
    vc: &ViewConfig,
    mut defaults: Option<Run>,
    progress: &AtomicU64,
    rec: &mut RunRecord,
) -> Result<Slowed, NetError> {
    let slow_vc = ViewConfig { speed, ..*vc };
    let mut runs = vec![("defaults", "defaults".to_string(), "defaults".to_string(), base.clone())];
    runs.extend(cfg.axis_sessions(base));
    let mut rows = Vec::new();
    let mut out = Slowed { mhz, speed, busy: Vec::new() };
    for (axis, value, key, session) in runs {
        stop_check()?;
        let r = match defaults.take().filter(|_| axis == "defaults") {
            Some(r) => r,
            None => go(&session, Pace::RealTime, &slow_vc, progress)?,
        };
        let b = busy(&r, speed);
        rec.metric(&format!("pipeline.slow.{key}.busy_fraction"), b, "ratio");
        rec.metric(&format!("pipeline.slow.{key}.dropped_fraction"), r.dropped(), "ratio");
        rec.metric(&format!("pipeline.slow.{key}.wire_bytes_per_s"), r.wire_bps(), "B/s");
        let mut row = sweep_row(axis, value.clone(), &r);
        row.insert(4, pct(b));
        rows.push(row);
        let name = if axis == "codec" || axis == "crypto" { format!("{axis} {value}") } else { value };
        out.busy.push((name, b, r.dropped()));
    }
    let mut columns = sweep_columns("axis");
    columns.insert(4, Column::new("slowed CPU busy", "%"));
    rec.tables.push(Table {
        name: "pipeline.slow_sweep".into(),
        title: format!(
            "The same sweeps on a client slowed to {}× this CPU (the seed's {} MHz CEPC, calibrated): does any setting free the client's CPU?",
            sig(speed),
            sig(mhz)
        ),
        columns,
        rows,
        plot: None,
    });
    Ok(out)
}

fn reads_per_s(r: &Run) -> f64 {
    r.client.reads as f64 / (r.client.wall_ns.max(1) as f64 / 1e9)
}

fn stop_check() -> Result<(), NetError> {
    if latlab_sys::interrupt::stop_requested() {
        return Err(NetError::Protocol("interrupted".into()));
    }
    Ok(())
}

mod paper;
use paper::paper_rows;

pub(crate) mod pdu;

mod rows;
use rows::{pct, r2, sweep_columns, sweep_row, workload_row};

mod view;
pub use view::view_record;

#[cfg(test)]
mod tests;
