//! Tests of `net.rs`.

use super::*;

/// Namespaces of this process still present.
fn ours() -> Vec<String> {
    let prefix = format!("latlab-{}-", std::process::id());
    std::fs::read_dir("/run/netns")
        .map(|d| d.filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|n| n.starts_with(&prefix)).collect())
        .unwrap_or_default()
}

static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn root() -> bool {
    nix::unistd::geteuid().is_root() && std::path::Path::new("/usr/sbin/ip").exists()
}

#[test]
fn the_lab_is_removed_after_use_and_after_a_failure() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !root() {
        latlab_model::testing::skip("needs root and iproute2 to create network namespaces");
        return;
    }
    let lab = match NetLab::create(10_000_000, Some(50)) {
        Ok(l) => l,
        Err(e) => {
            latlab_model::testing::skip(&format!("namespaces refused here: {e}"));
            return;
        }
    };
    assert!(lab.exists());
    let names = (lab.client.clone(), lab.server.clone());
    drop(lab);
    for n in [names.0, names.1] {
        assert!(!std::path::Path::new(&format!("/run/netns/{n}")).exists(), "{n} left behind");
    }
    // A failure half-way (a rate HTB refuses) leaves nothing either.
    assert!(NetLab::create(0, None).is_err());
    assert!(ours().is_empty(), "{:?}", ours());
}

#[test]
fn a_short_sweep_measures_every_step() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !root() {
        latlab_model::testing::skip("needs root and iproute2 to create network namespaces");
        return;
    }
    let cfg = NetConfig { loads: vec![0.0, 0.5], step_seconds: 1, ..NetConfig::full() };
    let rec = match run_net(&cfg, Arc::new(AtomicU64::new(0))) {
        Ok(r) => r,
        Err(NetError::Refused(e)) => {
            latlab_model::testing::skip(&e.to_string());
            return;
        }
        Err(e) => panic!("{e}"),
    };
    for m in ["net.load0.rtt.p50", "net.load50.rtt.p99", "net.load50.up_mbps"] {
        assert!(rec.get_metric(m).is_some(), "{m}");
    }
    assert_eq!(rec.tables[0].rows.len(), 2);
    assert!(rec.get_series("net.rtt").is_some());
    // The timeline covers both 1 s steps in 200 ms bins, and flent can have it.
    let t = rec.tables.iter().find(|t| t.name == TIMELINE).expect("a timeline");
    assert_eq!(t.rows.len(), 10, "{:?}", t.rows);
    let up_at_half: f64 = t.rows[6..9].iter().map(|r| r[4].as_f64().unwrap_or(0.0)).sum();
    assert!(up_at_half > 0.0, "the 50 % step delivers upload bytes: {:?}", t.rows);
    let f = latlab_output::export::flent::to_flent(&rec).unwrap();
    assert_eq!(f["results"]["TCP upload"].as_array().unwrap().len(), 10);
    assert!(ours().is_empty(), "{:?}", ours());
}

fn sample(at_ms: u64, rtt_ms: Option<u64>, up: u64, down: u64) -> Sample {
    Sample { at: at_ms * 1_000_000, rtt: rtt_ms.map(|r| r * 1_000_000), up, down }
}

#[test]
fn the_timeline_bins_probes_and_rates_from_the_byte_counters() {
    // Probes every 50 ms, 4 per step, bins of 100 ms; the second step loads the link.
    let s = [
        sample(0, Some(1), 0, 0),
        sample(50, Some(3), 0, 0),
        sample(100, None, 0, 0),
        sample(150, None, 0, 0),
        sample(200, Some(10), 0, 0),
        sample(250, Some(20), 12_500, 25_000),
        sample(300, Some(30), 25_000, 50_000),
        sample(350, None, 37_500, 75_000),
    ];
    let bins = timeline(&s, &[0.0, 0.5], 4, 100_000_000);
    assert_eq!(bins.len(), 4);
    assert_eq!((bins[0].t, bins[0].load, bins[0].rtt_ms, bins[0].lost), (0.0, 0.0, Some(2.0), 0));
    assert_eq!((bins[1].rtt_ms, bins[1].lost), (None, 2), "every probe lost");
    assert_eq!(bins[0].up_mbps, Some(0.0));
    // Bin 2 (200–300 ms): 25 000 bytes up in 100 ms = 2 Mbit/s, 50 000 down = 4.
    assert_eq!((bins[2].t, bins[2].load), (0.2, 0.5));
    assert_eq!((bins[2].up_mbps, bins[2].down_mbps), (Some(2.0), Some(4.0)));
    assert_eq!(bins[2].rtt_ms, Some(15.0));
    // The last bin runs to its own last probe: 12 500 bytes in 50 ms.
    assert_eq!((bins[3].up_mbps, bins[3].down_mbps, bins[3].lost), (Some(2.0), Some(4.0), 1));
    // A lone probe in the last bin cannot give a rate.
    let bins = timeline(&s[..5], &[0.0, 0.5], 4, 100_000_000);
    assert_eq!(bins[2].up_mbps, None);
    assert!(timeline(&[], &[0.0], 4, 100_000_000).is_empty());
    // As a table: one row per bin, missing figures as nulls.
    let t = timeline_table(&timeline(&s, &[0.0, 0.5], 4, 100_000_000), 100_000_000);
    assert_eq!(t.rows.len(), 4);
    assert_eq!(t.rows[1][2], serde_json::Value::Null);
    assert_eq!(t.rows[2][4], 2.0);
}

#[test]
fn bad_settings_are_refused() {
    assert!(NetConfig { rate_bps: 10, ..NetConfig::full() }.validate().is_err());
    assert!(NetConfig { loads: vec![-1.0], ..NetConfig::full() }.validate().is_err());
    assert!(NetConfig::short().validate().is_ok());
}

#[test]
fn the_saturating_step_repeats_and_its_repeats_are_one_row_with_their_spread() {
    let cfg = NetConfig { loads: vec![0.0, 0.5, 1.2, 1.5], repeats: 3, step_seconds: 1, ..NetConfig::full() };
    assert_eq!(cfg.saturating(), Some(1.2));
    assert_eq!(cfg.plan(), vec![0.0, 0.5, 1.2, 1.2, 1.2, 1.5]);
    assert_eq!(NetConfig { loads: vec![0.0, 1.0], ..cfg.clone() }.plan(), vec![0.0, 1.0], "1 is not above the link");
    assert!(NetConfig { repeats: 0, ..cfg.clone() }.validate().is_err());
    let step = |load: f64, ms: &[i64], up: u64| Step {
        load,
        rtt: ms.iter().map(|m| m * 1_000_000).collect(),
        lost: 0,
        up_bytes: up,
        seconds: 1.0,
    };
    let steps = vec![
        step(0.0, &[1, 1], 0),
        step(0.5, &[2, 2], 625_000),
        step(1.2, &[10, 10], 1_000_000),
        step(1.2, &[20, 20], 1_000_000),
        step(1.2, &[30, 30], 1_000_000),
        step(1.5, &[40], 1_000_000),
    ];
    let mut rec = latlab_sys::record::begin("stall");
    record(&mut rec, &cfg, &steps, &[]);
    let m = |n: &str| rec.get_metric(n).unwrap_or_else(|| panic!("{n}")).value.as_f64();
    assert_eq!(m("net.load120.rtt.mean"), 20e6, "the three repeats pooled");
    assert_eq!((m("net.load120.rtt.mean_lowest_repeat"), m("net.load120.rtt.mean_highest_repeat")), (10e6, 30e6));
    assert_eq!(m("net.load120.repeats"), 3.0);
    assert_eq!(m("net.load120.up_mbps"), 8.0, "3 MB over the three 1 s repeats");
    assert!(rec.get_metric("net.load50.repeats").is_none());
    assert_eq!(rec.tables[0].rows.len(), 4, "one row a load");
    let row = &rec.paper[0];
    assert!(row.here_value.contains("20 ms") && row.here_value.contains("10–30 ms"), "{}", row.here_value);
    // 20 ms against the seed's 35: within 2×.
    assert_eq!(row.judgement.verdict, latlab_model::verdict::Verdict::Reproduced, "{:?}", row.judgement);
    // Without a load above the link the row cannot be judged.
    let mut rec = latlab_sys::record::begin("stall");
    let cfg = NetConfig { loads: vec![0.0, 0.96], ..cfg };
    record(&mut rec, &cfg, &steps[..2], &[]);
    assert_eq!(rec.paper[0].judgement.verdict, latlab_model::verdict::Verdict::NotComparable);
}
