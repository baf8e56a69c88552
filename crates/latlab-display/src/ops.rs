//! `latlab display ops`: what each user operation costs on the wire (seed 003, §3.3) — for
//! typing, mouse, menus, scrolling, the blinking caret, banner and ticker, the screensaver,
//! the looping animation and the slide show: control (client → server) and display
//! (server → client) bytes and packets per second, the packet-size distribution per channel,
//! and the share of TCP/IP and Ethernet headers, next to the study's figures.
//!
//! Sessions run on virtual time, so the counts depend only on the settings and the seed.
//! Every PDU is one `send` with Nagle off, so one TCP segment per PDU up to the MSS; pure
//! ACKs are not counted (the study's figures are data messages).

use latlab_desktop::session::{SessionConfig, SessionError, SessionResult, run};
use latlab_desktop::wire::{Codec, Crypto};
use latlab_desktop::workload::WorkloadKind;
use latlab_model::record::{Column, RunRecord, RunStatus, Series, Table};
use latlab_sys::record::Finish;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What `display ops` runs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct OpsConfig {
    /// The operations, in order.
    pub workloads: Vec<WorkloadKind>,
    /// Virtual seconds measured per workload (after the warm-up).
    pub seconds: u64,
    /// Virtual warm-up, ms.
    pub warmup_ms: u64,
    /// Bulk compression.
    pub codec: Codec,
    /// Encryption.
    pub crypto: Crypto,
    /// Orders and the bitmap cache (true) or bitmap updates.
    pub orders: bool,
    /// Seed of the scripts.
    pub seed: u64,
}

impl OpsConfig {
    /// Every workload, 30 virtual seconds each.
    pub fn full() -> Self {
        Self {
            workloads: WorkloadKind::NAMES.iter().filter_map(|n| WorkloadKind::from_name(n)).collect(),
            seconds: crate::defaults::OPS_SECONDS,
            warmup_ms: crate::defaults::OPS_WARMUP_MS,
            codec: Codec::from_name(latlab_display_net::defaults::OPS_CODEC).expect("a codec"),
            crypto: Crypto::from_name(crate::defaults::OPS_CRYPTO).expect("a cipher"),
            orders: true,
            seed: latlab_desktop::defaults::SEED,
        }
    }

    /// The suite's version: the same workloads, 8 virtual seconds each.
    pub fn short() -> Self {
        Self { seconds: 8, ..Self::full() }
    }

    /// Sessions this runs (for progress).
    pub fn steps(&self) -> u64 {
        self.workloads.len() as u64
    }

    fn session(&self, workload: WorkloadKind) -> SessionConfig {
        // The banner and the ticker run at the seed's 1.5 MB 8 bpp cache, as `display cache`
        // runs them (Figure 3's page was on that client), with as many banner frames as fit it.
        let seed_cache = latlab_desktop::cache::Geometry {
            cells: latlab_desktop::defaults::SEED_CACHE_CELLS,
            bpp: latlab_desktop::defaults::SEED_CACHE_BPP,
        };
        let (workload, geometry) = match workload {
            WorkloadKind::BannerTicker { banner, ticker, .. } => (
                WorkloadKind::BannerTicker {
                    banner,
                    ticker,
                    banner_frames: crate::cache_exp::banner_frames(&seed_cache),
                },
                Some(seed_cache),
            ),
            w => (w, None),
        };
        let mut s = SessionConfig::standard(workload, self.warmup_ms + self.seconds * 1000);
        if let Some(g) = geometry {
            (s.encoder.cells, s.bpp) = (g.cells, g.bpp);
        }
        s.seed = self.seed;
        s.warmup_ms = self.warmup_ms;
        s.encoder.orders = self.orders;
        s.codec = self.codec;
        s.crypto = self.crypto;
        s
    }
}

mod channel;
mod paper;
pub use channel::Channel;

/// One operation's figures.
#[derive(Debug, Clone)]
pub struct OpFigures {
    /// The workload's name.
    pub name: &'static str,
    /// Seconds counted.
    pub seconds: f64,
    /// Server → client.
    pub display: Channel,
    /// Client → server.
    pub control: Channel,
}

impl OpFigures {
    /// From a session.
    pub fn of(name: &'static str, r: &SessionResult) -> Self {
        Self {
            name,
            seconds: r.traffic.seconds.max(1e-9),
            display: Channel::of(&r.traffic.display_sizes),
            control: Channel::of(&r.traffic.input_sizes),
        }
    }
}

/// The office operations the study's trace was made of: their packets make the averages
/// compared with its "average display message" and header-removal figures.
pub const OFFICE: [&str; 5] = ["typing", "mouse", "menu", "scroll", "cursor"];

fn r1(x: f64) -> serde_json::Value {
    ((x * 10.0).round() / 10.0).into()
}

/// Run every operation into a record.
pub fn run_ops(cfg: &OpsConfig, progress: Arc<AtomicU64>) -> Result<RunRecord, SessionError> {
    let mut rec = latlab_sys::record::begin("display");
    rec.mode = "ops".into();
    rec.config("workloads", cfg.workloads.iter().map(|w| w.name()).collect::<Vec<_>>());
    rec.config("seconds_per_workload", cfg.seconds);
    rec.config("warmup_ms", cfg.warmup_ms);
    rec.config("codec", cfg.codec.name());
    rec.config("crypto", cfg.crypto.name());
    rec.config("orders", cfg.orders);
    rec.config("seed", cfg.seed);
    rec.config(
        "screen",
        format!(
            "{}x{}x{}",
            latlab_desktop::defaults::WIDTH,
            latlab_desktop::defaults::HEIGHT,
            latlab_desktop::defaults::BPP
        ),
    );
    rec.config(
        "banner_cache",
        format!(
            "banner, ticker and banner_ticker at {}/{}/{} cells, {} bpp (seed 003's 1.5 MB client cache)",
            latlab_desktop::defaults::SEED_CACHE_CELLS[0],
            latlab_desktop::defaults::SEED_CACHE_CELLS[1],
            latlab_desktop::defaults::SEED_CACHE_CELLS[2],
            latlab_desktop::defaults::SEED_CACHE_BPP
        ),
    );
    rec.config(
        "framing",
        format!(
            "Ethernet II {} B + IPv4 {} B + TCP {} B per segment, MSS {}",
            latlab_desktop::defaults::ETHERNET_BYTES,
            latlab_desktop::defaults::IPV4_BYTES,
            latlab_desktop::defaults::TCP_BYTES,
            latlab_desktop::defaults::ETHERNET_MSS
        ),
    );
    let mut rows = Vec::new();
    let mut figs = Vec::new();
    let (mut all_ctl, mut all) = (Channel::default(), Channel::default());
    for w in &cfg.workloads {
        if latlab_sys::interrupt::stop_requested() {
            rec.warn("interrupted: not every operation ran");
            rec.finish(RunStatus::Interrupted);
            return Ok(rec);
        }
        let r = run(&cfg.session(w.clone()), None)?;
        progress.fetch_add(1, Ordering::Relaxed);
        let f = OpFigures::of(w.name(), &r);
        let n = f.name;
        let s = f.seconds;
        rec.metric(&format!("ops.{n}.display_bps"), f.display.bytes as f64 / s, "B/s");
        rec.metric(&format!("ops.{n}.control_bps"), f.control.bytes as f64 / s, "B/s");
        rec.metric(&format!("ops.{n}.display_pps"), f.display.packets as f64 / s, "1/s");
        rec.metric(&format!("ops.{n}.control_pps"), f.control.packets as f64 / s, "1/s");
        rec.metric(&format!("ops.{n}.wire_bps"), (f.display.bytes + f.display.headers) as f64 / s, "B/s");
        rec.metric(&format!("ops.{n}.header_share"), f.display.header_share(), "ratio");
        if f.display.packets > 0 {
            rec.metric(&format!("ops.{n}.display_mean_size"), f.display.bytes as f64 / f.display.packets as f64, "B");
        }
        for (ch, sizes, what) in [
            ("display", &r.traffic.display_sizes, "display PDU size on the wire (server to client), bytes"),
            ("control", &r.traffic.input_sizes, "input PDU size (client to server), bytes"),
        ] {
            if !sizes.is_empty() {
                rec.series.push(Series {
                    name: format!("ops.{n}.{ch}_size"),
                    unit: "B".into(),
                    description: what.into(),
                    values: sizes.iter().map(|&v| v as i64).collect(),
                });
            }
        }
        rows.push(vec![
            n.into(),
            r1(f.display.bytes as f64 / s / 1000.0),
            r1(f.display.packets as f64 / s),
            r1(f.control.bytes as f64 / s),
            r1(f.control.packets as f64 / s),
            r1(if f.display.packets > 0 { f.display.bytes as f64 / f.display.packets as f64 } else { 0.0 }),
            r1(100.0 * f.display.header_share()),
            r1(100.0 * f.control.header_share()),
        ]);
        if OFFICE.contains(&n) {
            all_ctl.add(&f.control);
            all.add(&f.control);
            all.add(&f.display);
        }
        figs.push(f);
    }
    let col = Column::new;
    rec.tables.push(Table {
        name: "ops.summary".into(),
        title: format!(
            "Per operation, {} s each after {} ms warm-up ({}, {}): display and control traffic, mean display PDU, and the TCP/IP/Ethernet header share per channel",
            cfg.seconds,
            cfg.warmup_ms,
            cfg.codec.name(),
            if cfg.orders { "orders" } else { "bitmaps" }
        ),
        columns: vec![
            col("operation", ""),
            col("display", "KB/s"),
            col("display", "PDU/s"),
            col("control", "B/s"),
            col("control", "PDU/s"),
            col("mean display PDU", "B"),
            col("display headers", "%"),
            col("control headers", "%"),
        ],
        rows,
        plot: None,
    });
    if all.packets > 0 {
        rec.metric("ops.office.control_header_share", all_ctl.header_share(), "ratio");
        rec.metric("ops.office.header_share", all.header_share(), "ratio");
        rec.metric("ops.office.control_ip_header_share", all_ctl.ip_header_share(), "ratio");
        rec.metric("ops.office.ip_header_share", all.ip_header_share(), "ratio");
        let display = all.packets - all_ctl.packets;
        if display > 0 {
            rec.metric("ops.office.display_mean_size", (all.bytes - all_ctl.bytes) as f64 / display as f64, "B");
        }
    }
    paper::paper_rows(&mut rec, &figs, &all_ctl, &all);
    rec.finish(RunStatus::Complete);
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_counts_segments_and_headers() {
        assert_eq!(latlab_desktop::wire::framing(7), (1, 70));
        assert_eq!(latlab_desktop::wire::framing(1448), (1, 70));
        assert_eq!(latlab_desktop::wire::framing(1449), (2, 140));
        let c = Channel::of(&[7, 1449]);
        assert_eq!((c.packets, c.bytes, c.segments, c.headers), (2, 1456, 3, 210));
        assert!((c.header_share() - 210.0 / 1666.0).abs() < 1e-12);
        // At the IP layer: 1456 payload + 3 × 52 header bytes, of which 3 × 20 are IPv4.
        assert!((c.ip_header_share() - 60.0 / 1612.0).abs() < 1e-12);
    }

    #[test]
    fn a_short_ops_run_records_every_operation() {
        let cfg = OpsConfig {
            workloads: vec![WorkloadKind::Typing { wpm: 100 }, WorkloadKind::Cursor],
            seconds: 2,
            warmup_ms: 500,
            ..OpsConfig::full()
        };
        let rec = run_ops(&cfg, Arc::new(AtomicU64::new(0))).unwrap();
        for m in
            ["ops.typing.display_bps", "ops.typing.control_bps", "ops.cursor.display_bps", "ops.office.header_share"]
        {
            assert!(rec.get_metric(m).is_some(), "{m}");
        }
        // The caret sends no input; typing does, every key as one small PDU.
        assert_eq!(rec.get_metric("ops.cursor.control_bps").unwrap().value.as_f64(), 0.0);
        let key = rec.get_metric("ops.typing.keystroke_wire_bytes").unwrap().value.as_f64();
        assert!((70.0..100.0).contains(&key), "{key}");
        assert!(rec.get_series("ops.typing.display_size").is_some());
        // Same seed, same bytes.
        let again = run_ops(&cfg, Arc::new(AtomicU64::new(0))).unwrap();
        assert_eq!(
            again.get_metric("ops.typing.display_bps").unwrap().value.as_f64(),
            rec.get_metric("ops.typing.display_bps").unwrap().value.as_f64()
        );
    }
}
