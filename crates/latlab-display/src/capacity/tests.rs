//! Tests of `capacity.rs`.

use super::*;

const MS: u64 = 1_000_000;

fn level(n: usize, p95_ms: u64) -> Figures {
    Figures {
        sessions: n,
        level_p95_ns: Some(p95_ms * MS),
        worst_p95_ns: Some(p95_ms * MS),
        down_bps: 1000.0 * n as f64,
        server_cores: Some(0.1 * n as f64),
        major_faults: Some(0),
        ..Figures::default()
    }
}

#[test]
fn the_mix_parses_and_every_prefix_keeps_it() {
    let mix = parse_mix("typist=8,menu=1,scroller=1").unwrap();
    assert_eq!(mix, vec![(UserKind::Typist, 8), (UserKind::Menu, 1), (UserKind::Scroller, 1)]);
    let ten = assign(&mix, 10);
    assert_eq!(ten[0], UserKind::Typist, "one user is a typist");
    assert_eq!(ten.iter().filter(|k| **k == UserKind::Typist).count(), 8);
    assert_eq!(ten.iter().filter(|k| **k == UserKind::Menu).count(), 1);
    let forty = assign(&mix, 40);
    assert_eq!(forty.iter().filter(|k| **k == UserKind::Scroller).count(), 4);
    assert_eq!(assign(&mix, 0), vec![]);
    assert!(parse_mix("typist=8,dancer=1").unwrap_err().to_string().contains("unknown user 'dancer'"));
    assert!(parse_mix("typist=x").unwrap_err().to_string().contains("whole number"));
    assert!(parse_mix("typist=0").unwrap_err().to_string().contains("empty"));
    assert_eq!(parse_mix("banner").unwrap(), vec![(UserKind::Banner, 1)]);
}

#[test]
fn the_ramp_stops_at_the_first_level_over_100_ms_and_names_the_limit() {
    // Latency breaks at 16 with the server's CPU at 1.9 of 2 cores: CPU.
    let mut levels = vec![level(1, 5), level(4, 8), level(8, 40)];
    let mut l16 = level(16, 140);
    l16.server_cores = Some(1.9);
    levels.push(l16);
    assert_eq!(answer(&levels, None, 2), (8, Limit::Cpu));
    assert!(broken(&levels[3], None).unwrap().contains("the level's p95 was 140 ms"));
    // The same with major faults: memory.
    levels[3].major_faults = Some(120);
    assert_eq!(answer(&levels, None, 2).1, Limit::Memory);
    // Latency broken with nothing at its end: unclear, not a guess.
    levels[3] = level(16, 140);
    assert_eq!(answer(&levels, None, 2), (8, Limit::Unclear));
    // Every level held: not reached, and all of the ramp held.
    assert_eq!(answer(&levels[..3], None, 2), (8, Limit::NotReached));
}

#[test]
fn lost_keys_failed_sessions_and_a_full_link_break_a_level() {
    let mut f = level(4, 10);
    assert_eq!(broken(&f, None), None);
    f.lost_keys = 2;
    assert!(broken(&f, None).unwrap().contains("2 keys never showed"));
    f.lost_keys = 0;
    f.failed = 1;
    assert!(broken(&f, None).unwrap().contains("1 sessions failed"));
    assert_eq!(answer(&[level(1, 5), f.clone()], None, 2), (1, Limit::Unclear));
    // Logins that failed, with the server's CPU not full: the limit is the logins.
    f.no_login = 1;
    assert!(broken(&f, None).unwrap().contains("1 of 4 logins failed"));
    assert_eq!(answer(&[level(1, 5), f.clone()], None, 2), (1, Limit::Logins));
    // With the CPU full, the CPU is named: it is why the logins were not taken.
    f.server_cores = Some(1.95);
    assert_eq!(answer(&[level(1, 5), f.clone()], None, 2), (1, Limit::Cpu));
    (f.failed, f.no_login, f.server_cores) = (0, 0, Some(0.4));
    // 4 KB/s is 32 kbit/s: 57 % of a 56 kbit/s link holds, 91 % of 35 kbit/s does not.
    assert_eq!(broken(&f, Some(56_000)), None);
    assert!(broken(&f, Some(35_000)).unwrap().contains("the link carried"));
    assert_eq!(answer(&[level(1, 5), f], Some(35_000), 2), (1, Limit::Link));
    // No typist in the level: latency cannot break it.
    let watchers = Figures { level_p95_ns: None, worst_p95_ns: None, ..level(4, 0) };
    assert_eq!(broken(&watchers, None), None);
}

#[test]
fn bytes_on_the_link_add_each_segments_headers_and_the_rate_is_the_difference() {
    // 10 display PDUs in 12 segments, 4 input PDUs in 4; then a run twice as long.
    let one = latlab_display_net::ClientReport {
        bytes: 5_000,
        segments: 12,
        input_bytes: 100,
        input_segments: 4,
        ..Default::default()
    };
    let two = latlab_display_net::ClientReport {
        bytes: 9_000,
        segments: 22,
        input_bytes: 200,
        input_segments: 8,
        ..Default::default()
    };
    let t1 = traffic(&Outcome::Watched(one));
    assert_eq!((t1.down, t1.up, t1.down_link, t1.up_link), (5_000.0, 100.0, 5_840.0, 380.0));
    let r = traffic(&Outcome::Watched(two)).rate_over(&t1, 2.0, UserKind::Banner);
    assert_eq!(r.kind, UserKind::Banner);
    // (9,000 + 22·70 − 5,840) / 2 s and (200 + 8·70 − 380) / 2 s.
    assert_eq!((r.down, r.up, r.down_link, r.up_link), (2_000.0, 50.0, 2_350.0, 190.0));
    let failed = traffic(&Outcome::Failed("x".into()));
    assert_eq!(failed.down_link, 0.0);
}

#[test]
fn an_in_process_ramp_runs_and_records_its_levels() {
    let mut cfg = CapacityConfig::short();
    cfg.server_exe = None;
    cfg.ramp = vec![1, 3];
    cfg.seconds = 1.0;
    cfg.per_kind = false;
    (cfg.session.width, cfg.session.height) = (480, 360);
    let (rec, said) = run_capacity(&cfg, Arc::new(AtomicU64::new(0))).unwrap();
    assert!(said.starts_with("this server takes") || said.starts_with("this server took 3 users"), "{said}");
    let t = rec.tables.iter().find(|t| t.name == "capacity.ramp").unwrap();
    assert!(!t.rows.is_empty());
    assert!(t.rows.iter().all(|r| r.len() == t.columns.len()));
    assert!(rec.get_metric("capacity.users").is_some());
    assert!(rec.get_metric("capacity.n1.down_bytes_per_session").is_some());
    // In-process: no server memory figures, and the record says why.
    assert!(rec.get_metric("capacity.n1.server_pss").is_none());
    assert!(rec.warnings.iter().any(|w| w.contains("in this process")));
}

#[test]
fn proc_figures_read_for_this_process() {
    let pid = std::process::id();
    assert!(pss_kib(pid).is_some_and(|k| k > 0));
    assert!(cpu_and_faults(pid).is_some());
    assert_eq!(pss_kib(0x7FFF_FFF0), None);
}

#[test]
fn the_full_ramp_doubles_on_to_the_cap_and_the_suites_stops_at_its_last_level() {
    let full = CapacityConfig::full();
    assert_eq!(full.levels(), [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
    assert_eq!(full.steps(), 11, "ten levels and the per-kind pass");
    assert_eq!(CapacityConfig::short().levels(), [1, 4, 16]);
    let odd = CapacityConfig { ramp: vec![3, 300], ..CapacityConfig::full() };
    assert_eq!(odd.levels(), [3, 300], "600 is past the cap");
    assert!(
        CapacityConfig { ramp: vec![513], ..CapacityConfig::full() }
            .validate()
            .unwrap_err()
            .to_string()
            .contains("1 to 512")
    );
    assert_eq!(Limit::NotReached.name(), "none up to the highest level tried");
    // Against a real server the ramp is shorter: whole logins.
    let xrdp = CapacityConfig {
        real: Some(RealServer::LocalXrdp),
        ramp: crate::defaults::CAPACITY_RDP_RAMP.to_vec(),
        ..CapacityConfig::full()
    };
    assert_eq!(xrdp.levels(), [1, 2, 4, 8, 16, 32, 64]);
    assert!(CapacityConfig { ramp: vec![65], ..xrdp.clone() }.validate().unwrap_err().to_string().contains("1 to 64"));
    assert!(
        CapacityConfig { link_bps: Some(10_000_000), ..xrdp }.validate().unwrap_err().to_string().contains("loopback")
    );
    assert_eq!(RealServer::parse("local-xrdp"), Ok(RealServer::LocalXrdp));
    assert!(RealServer::parse("10.0.0.1").unwrap_err().to_string().contains("--rdp local-xrdp"));
}

#[test]
fn one_typist_s_outlier_does_not_decide_the_level_and_is_named() {
    // One typist of 100 at p95 126 ms, the level's p95 1.8 ms: the level holds, the outlier is said.
    let mut f = level(100, 2);
    (f.level_p95_ns, f.worst_p95_ns) = (Some(1_800_000), Some(126 * MS));
    assert_eq!(broken(&f, None), None);
    let o = outlier(&f, None).unwrap();
    assert!(o.contains("126 ms") && o.contains("1.8 ms"), "{o}");
    // A level over the threshold as a whole breaks, and has no outlier to name.
    f.level_p95_ns = Some(120 * MS);
    assert!(broken(&f, None).is_some());
    assert_eq!(outlier(&f, None), None);
}

#[test]
fn a_first_level_that_breaks_steps_down_and_the_answer_has_its_bounds() {
    assert_eq!(limit::step_down(100).collect::<Vec<_>>(), vec![50, 25, 12, 6, 3, 1]);
    assert_eq!(limit::step_down(1).count(), 0);
    // The ramp 100, 200: 100 broke (its server 10 cores busy), so 50 was tried and held: 50,
    // between 50 and 100, the limit read from the level that broke.
    let levels = [level(100, 140), level(50, 20)];
    assert_eq!(answer(&levels, None, 2), (50, Limit::Cpu));
    assert_eq!(limit::broke_at(&levels, None, 50), Some(100));
    // Down to one that broke too: nothing held.
    let none = [level(4, 140), level(2, 150), level(1, 160)];
    assert_eq!(answer(&none, None, 2), (0, Limit::Unclear));
    assert_eq!(limit::broke_at(&none, None, 0), Some(1));
    // A ramp up that never broke has no upper bound.
    assert_eq!(limit::broke_at(&[level(1, 5), level(2, 6)], None, 2), None);
}
