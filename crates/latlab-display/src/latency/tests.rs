//! Tests of `latency.rs`.

use super::*;

const MS: u64 = 1_000_000;

/// A key meant at `at` ms, shown `lat` ms later (None: lost), its stages split evenly.
fn key(at: u64, lat: Option<u64>) -> KeyRecord {
    let i = at * MS;
    let l = lat.map(|l| l * MS);
    let step = l.unwrap_or(5 * MS) / 5;
    KeyRecord {
        intended_ns: i,
        written_ns: i + step,
        received_ns: i + 2 * step,
        sent_ns: i + 3 * step,
        update_bytes: 200,
        read_ns: if l.is_some() { i + 4 * step } else { 0 },
        shown_ns: l.map(|l| i + l),
        visible: true,
    }
}

#[test]
fn conditions_parse_and_name_round_trip() {
    for name in crate::defaults::LATENCY_CONDITIONS {
        assert_eq!(Condition::parse(name).unwrap().name(), name);
    }
    assert_eq!(Condition::parse("56k").unwrap(), Condition::Link { rate_bps: 56_000, bulk: false });
    assert_eq!(Condition::parse("10Mbit+bulk").unwrap(), Condition::Link { rate_bps: 10_000_000, bulk: true });
    assert!(Condition::parse("fast").unwrap_err().to_string().contains("unknown condition 'fast'"));
    assert!(Condition::parse("1kbit").unwrap_err().to_string().contains("9.6 kbit/s"));
    assert!(Condition::parse("x1mbit").unwrap_err().to_string().contains("whole number"));
}

#[test]
fn stages_add_up_to_the_latency_and_lost_keys_count_as_late() {
    let keys = vec![key(0, Some(10)), key(150, Some(20)), key(300, None), key(450, Some(150))];
    let k = key_stats(&keys, 100 * MS);
    assert_eq!((k.visible, k.shown), (4, 3));
    assert_eq!(k.latencies, vec![10 * MS as i64, 20 * MS as i64, 150 * MS as i64]);
    // One over 100 ms and one never shown, of four.
    assert_eq!(k.over_threshold, 0.5);
    let mean = (10.0 + 20.0 + 150.0) / 3.0 * MS as f64;
    assert!((k.stages.iter().sum::<f64>() - mean).abs() < 1.0, "{:?}", k.stages);
    // Spaces are not counted.
    let mut space = key(600, None);
    space.visible = false;
    let mut with_space = keys.clone();
    with_space.push(space);
    assert_eq!(key_stats(&with_space, 100 * MS), k);
}

#[test]
fn cpu_per_key_divides_each_stage_total_by_the_keys() {
    let srv = latlab_display_net::ServerReport { render_ns: 1000, encode_ns: 2000, send_ns: 300, ..Default::default() };
    let cli = ClientTimes { receive_ns: 40, decode_ns: 500, blit_ns: 70, other_ns: 10, ..Default::default() };
    let v = cpu_per_key(&srv, &cli, 10);
    assert_eq!(v, [100.0, 200.0, 30.0, 4.0, 0.0, 0.0, 50.0, 0.0, 7.0, 1.0]);
    // No keys: no figure rather than a division by zero.
    assert!(cpu_per_key(&srv, &cli, 0).iter().all(|x| x.is_nan()));
}

#[test]
fn waiting_is_the_gap_between_updates_beyond_the_gap_between_keys() {
    // Keys every 100 ms over 400 ms; the third shows 120 ms late, so the gap before it is
    // 120 ms too long and the one after it 120 ms short (which does not count).
    let keys = vec![key(0, Some(5)), key(100, Some(5)), key(200, Some(125)), key(300, Some(5)), key(400, Some(5))];
    let k = key_stats(&keys, 100 * MS);
    assert!((k.waiting_share - 120.0 / 400.0).abs() < 1e-9, "{}", k.waiting_share);
    // Every key on time: no waiting.
    let on_time: Vec<KeyRecord> = (0..5).map(|i| key(i * 100, Some(5))).collect();
    assert_eq!(key_stats(&on_time, 100 * MS).waiting_share, 0.0);
    // Nothing typed: no figures, no panic.
    let none = key_stats(&[], 100 * MS);
    assert_eq!((none.visible, none.summary.is_none(), none.waiting_share), (0, true, 0.0));
}

#[test]
fn a_short_unloaded_run_records_keys_pages_and_rows() {
    let mut cfg = LatencyConfig::short();
    cfg.conditions = vec![Condition::Unloaded];
    cfg.typist.seconds = 1.0;
    cfg.typist.fifo = false;
    (cfg.session.width, cfg.session.height) = (480, 360);
    let rec = run_latency(&cfg, Arc::new(AtomicU64::new(0))).unwrap();
    assert_eq!(rec.status, RunStatus::Complete);
    let keys = rec.get_metric("latency.unloaded.keys").unwrap().value.as_f64();
    assert!(keys > 0.0);
    assert!(rec.get_metric("latency.unloaded.p95").is_some());
    assert!(rec.get_metric("latency.unloaded.page.bytes").unwrap().value.as_f64() > 0.0);
    let t = rec.tables.iter().find(|t| t.name == "latency.conditions").unwrap();
    assert_eq!(t.rows.len(), 1);
    assert_eq!(t.rows[0].len(), t.columns.len());
    // The stage timers ran on both ends: the server rendered and encoded, the client decoded.
    for m in ["server.render", "server.encode", "client.decode", "client.blit"] {
        let v = rec.get_metric(&format!("latency.unloaded.cpu.{m}")).unwrap().value.as_f64();
        assert!(v > 0.0, "{m}: {v}");
    }
    let cpu = rec.tables.iter().find(|t| t.name == "latency.cpu").unwrap();
    assert_eq!((cpu.rows.len(), cpu.rows[0].len()), (1, cpu.columns.len()));
    // Loopback only: the 100 ms row falls back to it; the rows needing other conditions
    // are absent, not invented.
    assert_eq!(rec.paper.len(), 1, "{:?}", rec.paper);
    assert!(rec.paper[0].here_value.contains("on loopback"));
}
