//! latlab-rt integration: a whole tiny run (phases and sweep) on real threads. Only counts,
//! names and consistency are asserted — never timing values.

use latlab_model::record::{RunStatus, valid_name};
use latlab_rt::config::{LoadSpec, RtConfig, SweepConfig};
use latlab_sys::platform::{Policy, Sched};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

fn tiny() -> RtConfig {
    RtConfig {
        period_ns: 1_000_000,
        phase_ns: 100_000_000,
        // Policies every user has, so the test passes without privileges too.
        l1: Sched { policy: Policy::Other, priority: 0 },
        l2: Sched { policy: Policy::Other, priority: 0 },
        lock_memory: false,
        hold_cpu_dma_latency: false,
        sweep: Some(SweepConfig {
            start_hz: 500.0,
            factor: 2.0,
            max_hz: 1_000.0,
            step_ns: 50_000_000,
            ..SweepConfig::default()
        }),
        ..RtConfig::default()
    }
}

fn metric(r: &latlab_model::record::RunRecord, name: &str) -> f64 {
    r.get_metric(name).unwrap_or_else(|| panic!("missing metric {name}")).value.as_f64()
}

#[test]
fn a_whole_run_is_named_counted_and_consistent() {
    let out = latlab_rt::run(&tiny(), Arc::new(AtomicU64::new(0))).unwrap();
    let r = &out.record;
    assert_eq!(r.experiment, "rt");
    assert_eq!(r.status, RunStatus::Complete);
    assert!(r.metrics.iter().all(|m| valid_name(&m.name)), "metric names");
    for phase in ["unloaded", "loaded"] {
        let pulses = metric(r, &format!("{phase}.pulses"));
        assert_eq!(pulses, 100.0);
        let l1 = metric(r, &format!("{phase}.l1.latency.count")) + metric(r, &format!("{phase}.l1.missed"));
        assert_eq!(l1, pulses, "{phase}: level 1 served + missed = pulses");
        let l2 = metric(r, &format!("{phase}.l2.latency.count")) + metric(r, &format!("{phase}.l2.missed"));
        assert_eq!(
            l2,
            metric(r, &format!("{phase}.l1.latency.count")),
            "{phase}: level 2 accounts for every pulse level 1 served"
        );
        for lvl in ["l1", "l2", "hop"] {
            assert!(r.get_series(&format!("{phase}.{lvl}.latency")).is_some());
            let p50 = metric(r, &format!("{phase}.{lvl}.latency.p50"));
            let p99 = metric(r, &format!("{phase}.{lvl}.latency.p99"));
            let max = metric(r, &format!("{phase}.{lvl}.latency.max"));
            assert!(p50 <= p99 && p99 <= max);
        }
    }
    assert!(metric(r, "baseline.load.polygons_per_s") > 0.0);
    assert!(metric(r, "overhead.record_per_sample") >= 0.0);
    assert!(r.get_metric("sweep.max_rate_hz").is_some());
    let sweep = r.tables.iter().find(|t| t.name == "rt.sweep").unwrap();
    assert!(!sweep.rows.is_empty() && sweep.rows.len() <= 2);
    // Paper rows: Figure 11 for each level and phase against CE 3.0 and CE .NET apart;
    // Figure 6a from the unloaded phase; Figure 8's three, and MF-ISR and MF-APP unloaded
    // against loaded from the sweep run first without the load.
    assert_eq!(
        r.paper.iter().filter(|p| p.figure.starts_with("Fig. 11") && p.figure.contains("against CE")).count(),
        8
    );
    assert!(r.paper.iter().any(|p| p.figure == "Fig. 11, CE .NET: more deterministic under load"));
    assert_eq!(r.paper.iter().filter(|p| p.figure.starts_with("Fig. 6a")).count(), 1);
    assert_eq!(r.paper.iter().filter(|p| p.figure.starts_with("Fig. 7")).count(), 2);
    // Level 1's work ends after it starts.
    assert!(metric(r, "loaded.l1.done.max") >= metric(r, "loaded.l1.latency.min"));
    assert_eq!(r.paper.iter().filter(|p| p.figure.starts_with("Fig. 8")).count(), 5);
    assert!(r.paper.iter().any(|p| p.figure == "Fig. 8, MF-APP unloaded → loaded"));
    assert!(r.paper.iter().any(|p| p.figure == "Fig. 8, MF-ISR unloaded → loaded"));
    assert!(r.get_metric("sweep.unloaded.max_rate_hz").is_some());
    // The cyclictest histogram has one column per phase and level.
    let h = out.cyclictest_histogram();
    assert!(h.starts_with("# Histogram\n000000 "));
    assert_eq!(h.lines().nth(1).unwrap().matches('\t').count(), 3);
}

#[test]
fn level_one_only_and_no_load() {
    let cfg = RtConfig { signal: "none".parse().unwrap(), load: LoadSpec::None, sweep: None, ..tiny() };
    let out = latlab_rt::run(&cfg, Arc::new(AtomicU64::new(0))).unwrap();
    let r = &out.record;
    assert!(r.get_metric("unloaded.l1.latency.p50").is_some());
    assert!(r.get_metric("unloaded.l2.latency.p50").is_none());
    assert!(r.get_metric("loaded.pulses").is_none(), "no load, no loaded phase");
    assert_eq!(out.columns.len(), 1);
}

#[test]
fn bad_configuration_is_an_error_not_a_panic() {
    let cfg = RtConfig { period_ns: 5, ..tiny() };
    let e = latlab_rt::run(&cfg, Arc::new(AtomicU64::new(0))).err().unwrap();
    assert!(e.to_string().contains("period"), "{e}");
}
