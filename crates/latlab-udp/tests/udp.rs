//! latlab-udp integration: whole runs on loopback — clean, through the hold-and-release
//! relay (the study's pattern), and under a flood of junk. Asserts on logic and counts, and
//! on the relay's *configured* period, never on the machine's timing.

use latlab_udp::{Mode, UdpConfig};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

fn metric(r: &latlab_model::record::RunRecord, n: &str) -> f64 {
    r.get_metric(n).unwrap_or_else(|| panic!("missing {n}")).value.as_f64()
}

#[test]
fn clean_loopback_has_no_bursts() {
    let cfg = UdpConfig {
        mode: Mode::Loopback { ipv6: false, relay: None },
        interval_ns: 1_000_000,
        duration_ns: 1_000_000_000,
        size: 64,
        key: None,
        wait_ns: 500_000_000,
        playout: latlab_udp::playout::PlayoutMode::Arrival,
        sweep_intervals_ns: vec![20_000_000, 10_000_000],
        padded_size: Some(1_200),
    };
    let r = latlab_udp::run(&cfg, Arc::new(AtomicU64::new(0))).unwrap();
    assert_eq!(metric(&r, "packets.sent"), 1000.0, "the sweep streams are counted apart");
    // The sweep: one stream per interval beside the main one, each with its own metrics,
    // a table row, and seed 002's row judged about this machine (no relay: nothing configured).
    assert_eq!(metric(&r, "interval_sweep.ms20.sent"), 50.0);
    assert_eq!(metric(&r, "interval_sweep.ms10.sent"), 100.0);
    let t = r.tables.iter().find(|t| t.name == "udp.interval_sweep").unwrap();
    assert_eq!(t.rows.len(), 2);
    let row = r.paper.iter().find(|p| p.figure == "release period against send interval").unwrap();
    assert!(row.judgement.verdict.is_about_machine(), "{:?}", row.judgement);
    assert!(row.here_value.contains("20 ms: ") && row.here_value.contains("10 ms: "), "{}", row.here_value);
    // The padded stream: the main interval, 1,200-byte datagrams, its own metrics, and seed
    // 002's row about dummy data judged about this machine.
    assert_eq!((metric(&r, "padded.sent"), metric(&r, "padded.size")), (1000.0, 1200.0));
    assert!(r.get_metric("padded.coalesced_ratio").is_some());
    let row = r.paper.iter().find(|p| p.figure == "dummy data in the datagrams").unwrap();
    assert!(row.judgement.verdict.is_about_machine(), "{:?}", row.judgement);
    assert!(row.here_value.contains("padded to 1200 B"), "{}", row.here_value);
    assert_eq!(metric(&r, "burst.detected"), 0.0, "{:?}", r.tables[0].rows);
    assert!(r.metrics.iter().all(|m| latlab_model::record::valid_name(&m.name)));
    for name in [
        "rtt.p50",
        "timer_error.p99",
        "loss.ratio",
        "reorder.ratio",
        "ipdv.p99",
        "pdv.p99",
        "owd.p50",
        "jitter.rfc3550",
        "burst.coalesced_ratio",
        "dejitter.delay_for_1pct_late",
        "playout.jitter.p50",
        "playout.latency.p50",
        "arrival.jitter.p50",
        "playout.late_ratio",
    ] {
        assert!(r.get_metric(name).is_some(), "{name}");
    }
    // Played on arrival: every packet the reflector took was played, none late.
    assert_eq!(r.config["playout"], "arrival");
    assert_eq!(metric(&r, "playout.late.count"), 0.0);
    assert_eq!(metric(&r, "playout.latency.count"), metric(&r, "reflector.received"));
    assert!(metric(&r, "rtt.p50") <= metric(&r, "rtt.p99"));
    assert_eq!(metric(&r, "packets.received") + metric(&r, "loss.count"), 1000.0);
    assert!(r.paper.iter().any(|p| p.seed == "002"));
}

#[test]
fn the_study_pattern_through_the_relay_is_detected_with_its_period() {
    // Seed 002: a 100 ms sender; the relay holds everything and releases it every 1.23 s.
    // Two sweep streams beside it, each through a relay of its own with the same period.
    let cfg = UdpConfig {
        key: Some(b"shared secret".to_vec()),
        sweep_intervals_ns: vec![500_000_000, 200_000_000],
        ..UdpConfig::study_pattern(7_500_000_000)
    };
    let r = latlab_udp::run(&cfg, Arc::new(AtomicU64::new(0))).unwrap();
    assert_eq!(metric(&r, "burst.detected"), 1.0);
    // The relay releases on its configured period whatever the interval: the sweep row finds
    // that, and says it is a check of latlab's relay, not a finding about the machine.
    for key in ["ms500", "ms200"] {
        let p = metric(&r, &format!("interval_sweep.{key}.release_period"));
        assert!((p - 1.23e9).abs() < 0.05 * 1.23e9, "{key}: estimated {p} ns for 1.23 s");
    }
    let row = r.paper.iter().find(|p| p.figure == "release period against send interval").unwrap();
    assert_eq!(row.judgement.verdict, latlab_model::verdict::Verdict::SelfCheck, "{:?}", row.judgement);
    assert!(!row.judgement.check_failed(), "{:?}", row.judgement);
    let p = metric(&r, "burst.release_period");
    assert!((p - 1.23e9).abs() < 0.05 * 1.23e9, "estimated {p} ns for 1.23 s");
    let verdict = r.tables.iter().find(|t| t.name == "udp.verdict").unwrap().rows[0][0].as_str().unwrap().to_string();
    assert!(verdict.starts_with("packets held and released in bursts every ~"), "{verdict}");
    assert!(verdict.contains("while the sender kept its interval"), "{verdict}");
    assert_eq!(metric(&r, "loss.count"), 0.0, "the relay holds, it does not drop");
    // Holding costs latency: playing out smoothly needs about a release period of delay.
    assert!(metric(&r, "dejitter.delay_for_1pct_late") > 1e9);
    // The live playout (adaptive by default) learned the hold: its delay grew to about a
    // release period (the relay's configured 1.23 s less the fastest packet's 0.1 s, plus the
    // margin), and the table sets it beside playing on arrival and the offline curve.
    assert_eq!(r.config["playout"], "adaptive");
    let d = metric(&r, "playout.delay.max");
    assert!(d > 1.0e9 && d < 1.5e9, "delay {d} ns");
    assert!(metric(&r, "playout.late.count") >= 1.0, "the first hold is learned by a late packet");
    let t = r.tables.iter().find(|t| t.name == "udp.playout").unwrap();
    assert_eq!(t.rows.len(), 3);
}

#[test]
fn the_reflector_survives_a_flood_and_still_measures_the_valid_client() {
    use latlab_udp::probe::{self, ProbeConfig};
    use latlab_udp::reflector::{self, ReflectorConfig};
    let refl = reflector::spawn(
        "127.0.0.1:0".parse().unwrap(),
        ReflectorConfig { key: Some(b"k".to_vec()), ..Default::default() },
    )
    .unwrap();
    let target = refl.addr;
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flood = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            let mut sent = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) && sent < 200_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let len = (x % 200) as usize;
                let mut d: Vec<u8> = (0..len).map(|i| (x >> (i % 8)) as u8).collect();
                if x.is_multiple_of(3) && len >= 8 {
                    d[..4].copy_from_slice(b"LLUD"); // plausible headers with bad MACs
                    d[4] = 1;
                    d[5] = 1;
                }
                let _ = s.send_to(&d, target);
                sent += 1;
            }
        })
    };
    let cfg = ProbeConfig {
        target,
        interval_ns: 2_000_000,
        count: 200,
        size: 64,
        key: Some(b"k".to_vec()),
        wait_ns: 500_000_000,
        same_clock: true,
    };
    let (t, c) = probe::run(&cfg, &AtomicU64::new(0)).unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    flood.join().unwrap();
    let got = t.rx_client.iter().filter(|&&x| x != 0).count();
    assert!(got > 0, "the valid client was still measured");
    assert_eq!(c.unauthenticated + c.malformed, 0, "the client only ever saw valid replies");
    let (received, replied, malformed, unauth, _) = refl.stats.snapshot();
    assert!(malformed + unauth > 0, "junk was counted and dropped");
    assert!(replied <= received);
    assert!(replied >= got as u64);
}
