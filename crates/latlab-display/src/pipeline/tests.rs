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
