//! Tests of `pipeline.rs`.

use super::*;

#[test]
fn a_tiny_pipeline_run_records_its_stages_and_sweeps() {
    let cfg = PipelineConfig {
        seconds: 1,
        sweep_seconds: 1,
        workloads: vec![WorkloadKind::Cursor],
        client_mhz: vec![crate::defaults::PAPER_FAST_MHZ],
        codecs: vec![Codec::None],
        cryptos: vec![Crypto::None],
        rcvbufs: vec![128 << 10],
        thresholds: vec![40 << 10],
        screen: (256, 192),
        ..PipelineConfig::full()
    };
    let progress = Arc::new(AtomicU64::new(0));
    let rec = run_pipeline(&cfg, progress.clone()).unwrap();
    assert_eq!(progress.load(Ordering::Relaxed), cfg.steps());
    let share = |s: &str| rec.get_metric(&format!("pipeline.{s}.cpu_share")).unwrap().value.as_f64();
    let total: f64 =
        ["receive", "decrypt", "decompress", "decode", "cache", "blit", "other"].iter().map(|s| share(s)).sum();
    // The stages and the rest are the thread's CPU, all of it.
    assert!((total - 1.0).abs() < 1e-6, "{total}");
    for m in [
        "pipeline.client.share_at_paper_peak",
        "pipeline.limit.bytes_per_s",
        "pipeline.speed.mhz1800.dropped_fraction",
        "pipeline.speed.mhz1800.busy_fraction",
        "pipeline.calibration.fast_speed",
        "pipeline.threshold.k40.reads_per_s",
        "pipeline.cursor.client_cpu_fraction",
    ] {
        assert!(rec.get_metric(m).is_some(), "{m}");
    }
    let sweep = rec.tables.iter().find(|t| t.name == "pipeline.sweep").unwrap();
    // Defaults, codec none, crypto none, bitmaps, one buffer, one threshold.
    assert_eq!(sweep.rows.len(), 6);
    assert!(rec.paper.iter().any(|p| p.seed == "000"));
    // The cache-miss row cannot be judged on a slide show of video frames.
    let miss = rec.paper.iter().find(|p| p.figure.starts_with("bitmap cache misses")).unwrap();
    assert_eq!(miss.judgement.verdict, latlab_model::verdict::Verdict::NotComparable);
    // Shares are of all the calibrated client's time: the 1.8 GHz run made them.
    assert!(rec.paper.iter().any(|p| p.figure.starts_with("decompression's share")));
}

#[test]
fn the_tiny_run_has_the_per_pdu_figures_of_both_shows() {
    let cfg = PipelineConfig {
        seconds: 1,
        sweep_seconds: 1,
        workloads: vec![],
        client_mhz: vec![crate::defaults::PAPER_FAST_MHZ],
        codecs: vec![],
        cryptos: vec![],
        bitmaps: false,
        rcvbufs: vec![],
        thresholds: vec![],
        flat_out: false,
        slow_sweep: None,
        screen: (256, 192),
        ..PipelineConfig::full()
    };
    let progress = Arc::new(AtomicU64::new(0));
    let rec = run_pipeline(&cfg, progress.clone()).unwrap();
    assert_eq!(progress.load(Ordering::Relaxed), cfg.steps());
    // NCRUSH compresses every update of both shows: each has PDUs, sizes and times.
    for m in
        ["pipeline.pdu.count", "pipeline.pdu.raw_bytes.max", "pipeline.light.pdu.count", "pipeline.bitmap.cpu_share"]
    {
        assert!(rec.get_metric(m).is_some(), "{m}");
    }
    let count = |m: &str| rec.get_metric(m).unwrap().value.as_f64();
    assert!(count("pipeline.pdu.count") > 0.0);
    assert!(count("pipeline.pdu.raw_bytes.min") <= count("pipeline.pdu.raw_bytes.max"));
    for f in ["RDP 6.0 decompression per PDU", "Mstscax.dll's share"] {
        assert!(rec.paper.iter().any(|p| p.figure.starts_with(f)), "{f}");
    }
}

fn run_with(pdus: &[(usize, usize, u64)], wall_ns: u64, bitmap_ns: u64, total_ns: u64) -> Run {
    let mut client = ClientReport { wall_ns, ..ClientReport::default() };
    for &(raw, plain, ns) in pdus {
        client.compressed.record(raw, plain, ns);
    }
    client.times.bitmap_ns = bitmap_ns;
    client.times.total_ns = total_ns;
    Run { server: ServerReport::default(), client }
}

#[test]
fn the_lightweight_show_is_judged_on_fewer_smaller_better_compressed_pdus_and_its_bitmap_share() {
    // Animated: 100 PDUs of 10 KB (ratio 1.2) in 1 s, bitmaps 10 % of the CPU; light: 2 PDUs
    // of 1 KB (ratio 3), bitmaps 20 %.
    let main = run_with(&[(10_000, 12_000, 90_000); 100], 1_000_000_000, 10, 100);
    let light = run_with(&[(1_000, 3_000, 40_000); 2], 1_000_000_000, 20, 100);
    let mut rec = latlab_sys::record::begin("display");
    pdu::pdu_rows(&mut rec, &main, Some(&light), &Calibration::of(0.2), &[]);
    let get = |f: &str| rec.paper.iter().find(|p| p.figure.starts_with(f)).unwrap().judgement.clone();
    let l = get("the lightweight slide show's PDUs");
    assert_eq!(l.verdict, latlab_model::verdict::Verdict::Simulated);
    assert!(!l.check_failed(), "{}", l.basis);
    assert_eq!(get("bitmap decompression").verdict, latlab_model::verdict::Verdict::Reproduced);
    // Sizes alone decide the per-PDU row's check: 10 KB raw is within 2× of 11 KB.
    assert!(!get("RDP 6.0 decompression per PDU").check_failed());
    // A light show that compresses worse fails the check, and one whose bitmaps weigh less differs.
    let worse = run_with(&[(1_000, 1_100, 40_000); 2], 1_000_000_000, 5, 100);
    let mut rec = latlab_sys::record::begin("display");
    pdu::pdu_rows(&mut rec, &main, Some(&worse), &Calibration::of(0.2), &[]);
    let get = |f: &str| rec.paper.iter().find(|p| p.figure.starts_with(f)).unwrap().judgement.clone();
    assert!(get("the lightweight slide show's PDUs").check_failed());
    assert_eq!(get("bitmap decompression").verdict, latlab_model::verdict::Verdict::Differs);
}
