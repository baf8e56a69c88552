//! Tests of the A/B verdict on made-up runs: an effect, none, a reversed one, mixed, noise
//! between runs that pooled samples would call an effect.

use super::*;

fn spread(centre: i64, n: usize) -> Vec<i64> {
    // A deterministic spread of ±10 % around `centre`.
    (0..n as i64).map(|i| centre + (i * 7919 % 201 - 100) * centre / 1000).collect()
}

/// `rounds` runs around `centre`, each shifted by a run-to-run wobble of a few percent.
fn runs(centre: i64, rounds: usize) -> Vec<Vec<i64>> {
    (0..rounds).map(|r| spread(centre + [0, 3, -2, 4, -3][r % 5] * centre / 100, 1000)).collect()
}

fn rec(series: &str, values: Vec<i64>) -> RunRecord {
    let mut r = latlab_sys::record::begin("rt");
    r.series.push(Series { name: series.into(), unit: "ns".into(), description: String::new(), values });
    r.finish(RunStatus::Complete);
    r
}

#[test]
fn a_lower_latency_helps_a_higher_one_hurts_and_equal_ones_show_no_effect() {
    let h = Headline::lower("l1", "level 1");
    let a = runs(100_000, 4);
    let e = judge(&h, "ns", &a, &runs(60_000, 4)).unwrap();
    assert_eq!((e.p50.effect, e.p99.effect, e.effect), (Effect::Helps, Effect::Helps, Effect::Helps));
    assert!(e.p50.diff < 0.0 && e.p50.hi < 0.0, "{:?}", e.p50);
    assert_eq!((e.rounds, e.n), (4, (4000, 4000)));
    assert_eq!(judge(&h, "ns", &a, &runs(160_000, 4)).unwrap().effect, Effect::Hurts);
    // Higher is better: the same runs read the other way.
    let hz = Headline { better: Better::Higher, ..h.clone() };
    assert_eq!(judge(&hz, "Hz", &a, &runs(160_000, 4)).unwrap().effect, Effect::Helps);
    // No samples in an arm: no verdict.
    assert!(judge(&h, "ns", &a, &[vec![], vec![]]).is_none());
}

#[test]
fn runs_that_differ_only_by_their_own_wobble_show_no_effect() {
    // An A/A: the same configuration in both arms, each run off by a few percent of its own.
    // Pooled, the 4,000 samples of each arm would make that wobble look significant; paired
    // by round, the differences change sign and the interval spans zero.
    let h = Headline::lower("l1", "level 1");
    let a = runs(100_000, 4);
    let mut b = runs(100_000, 4);
    b.rotate_left(1);
    let e = judge(&h, "ns", &a, &b).unwrap();
    assert_eq!(e.effect, Effect::NoEffect, "{e:?}");
    assert!(e.p50.lo < 0.0 && e.p50.hi > 0.0, "{:?}", e.p50);
}

#[test]
fn a_consistent_but_tiny_shift_is_no_effect_and_one_round_gives_no_verdict() {
    // 1 % lower in every round: the interval excludes zero, but the change is below the 5 %
    // the rule asks for.
    let a = runs(100_000, 4);
    let b: Vec<Vec<i64>> = a.iter().map(|r| r.iter().map(|x| x - 1_000).collect()).collect();
    let e = percentile_effect(&a, &b, 50.0, Better::Lower, TUNE_MIN_EFFECT).unwrap();
    assert!(e.hi < 0.0, "the interval excludes zero: {e:?}");
    assert_eq!(e.effect, Effect::NoEffect);
    // One round: a difference, no interval, no verdict, however large.
    let one = percentile_effect(&runs(100_000, 1), &runs(50_000, 1), 50.0, Better::Lower, TUNE_MIN_EFFECT).unwrap();
    assert!(one.diff < 0.0 && one.lo.is_nan());
    assert_eq!(one.effect, Effect::NoEffect);
    assert_eq!((t975(1), t975(2), t975(100)), (12.706, 4.303, 1.96));
    assert!(t975(0).is_nan());
}

#[test]
fn a_better_median_with_a_worse_tail_is_mixed_and_verdicts_combine() {
    // B: most samples 40 % lower, but a tail five times the baseline's, in every round.
    let a = runs(100_000, 3);
    let b: Vec<Vec<i64>> = runs(60_000, 3)
        .into_iter()
        .map(|mut r| {
            for x in r.iter_mut().step_by(25) {
                *x = 500_000;
            }
            r
        })
        .collect();
    let e = judge(&Headline::lower("l2", "level 2"), "ns", &a, &b).unwrap();
    assert_eq!((e.p50.effect, e.p99.effect, e.effect), (Effect::Helps, Effect::Hurts, Effect::Mixed));
    use Effect::*;
    assert_eq!(Effect::combine([Helps, NoEffect]), Helps);
    assert_eq!(Effect::combine([NoEffect, Hurts]), Hurts);
    assert_eq!(Effect::combine([Helps, Hurts]), Mixed);
    assert_eq!(Effect::combine([NoEffect, NoEffect]), NoEffect);
    assert_eq!(Effect::combine([]), NoEffect);
}

#[test]
fn the_record_pairs_rounds_names_its_runs_and_judges_every_headline() {
    let info = RemedyInfo {
        name: "test".into(),
        study: "001".into(),
        experiment: "rt".into(),
        baseline: "as is".into(),
        changes: "something".into(),
    };
    let mut a: Vec<RunRecord> = runs(100_000, 3).into_iter().map(|v| rec("l1", v)).collect();
    let b: Vec<RunRecord> = runs(50_000, 3).into_iter().map(|v| rec("l1", v)).collect();
    a[0].id = Some(7);
    let r = ab_record(&info, &a, &b, &[Headline::lower("l1", "level 1"), Headline::lower("absent", "absent")]);
    assert_eq!(
        r.started_at_ns,
        a.iter().chain(&b).map(|x| x.started_at_ns).min().unwrap(),
        "it began with its first run"
    );
    assert_eq!(r.get_series("l1.baseline").unwrap().values.len(), 3000);
    assert_eq!(r.get_series("l1.remedy").unwrap().values.len(), 3000);
    assert_eq!(r.config["verdict"], "helps");
    assert_eq!(r.config["baseline_runs"], serde_json::json!([7]));
    assert!(r.get_metric("tune.l1.p50_diff").unwrap().value.as_f64() < 0.0);
    assert!(r.get_metric("tune.l1.p50_diff_hi").unwrap().value.as_f64() < 0.0);
    // A headline neither arm measured is listed, not warned about.
    assert_eq!(r.config["not_measured"], serde_json::json!(["absent"]));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let t = &r.tables[0];
    assert_eq!((t.rows.len(), t.rows[0].len()), (1, t.columns.len()));
    assert_eq!(r.status, RunStatus::Complete);
    assert!(verdict_line(&r).starts_with("test: helps"));
    // One round: judged "no effect", with a warning saying why, and no interval metrics.
    let one = ab_record(&info, &a[..1], &b[..1], &[Headline::lower("l1", "level 1")]);
    assert_eq!(one.config["verdict"], "no effect detectable");
    assert!(one.warnings.iter().any(|w| w.contains("no interval")), "{:?}", one.warnings);
    assert!(one.get_metric("tune.l1.p50_diff_lo").is_none());
    // Nothing judged: a failed record, not a verdict.
    let none = ab_record(&info, &a, &b, &[Headline::lower("absent", "absent")]);
    assert_eq!((none.status, none.config["verdict"].as_str()), (RunStatus::Failed, Some("not judged")));
}

#[test]
fn a_per_run_metric_is_one_sample_a_run_and_higher_can_be_better() {
    let info = RemedyInfo {
        name: "t".into(),
        study: "001".into(),
        experiment: "rt sweep".into(),
        baseline: "a".into(),
        changes: "b".into(),
    };
    let run = |mf: f64| {
        let mut r = latlab_sys::record::begin("rt");
        r.metric("sweep.mf_l1_hz", mf, "Hz");
        r.finish(RunStatus::Complete);
        r
    };
    let a: Vec<RunRecord> = [10_000.0, 10_400.0, 9_800.0].into_iter().map(run).collect();
    let b: Vec<RunRecord> = [20_000.0, 20_800.0, 19_900.0].into_iter().map(run).collect();
    let h = Headline::higher_metric("sweep.mf_l1_hz", "MF, level 1");
    let (unit, va) = per_run(&a, &h).unwrap();
    assert_eq!((unit.as_str(), va), ("Hz", vec![vec![10_000_000_000], vec![10_400_000_000], vec![9_800_000_000]]));
    let r = ab_record(&info, &a, &b, std::slice::from_ref(&h));
    assert_eq!(r.config["verdict"], "helps", "a doubled MF is better");
    assert_eq!(
        r.get_series("sweep.mf_l1_hz.remedy").unwrap().values,
        vec![20_000_000_000, 20_800_000_000, 19_900_000_000]
    );
    assert_eq!(r.get_series("sweep.mf_l1_hz.remedy").unwrap().unit, "1e-6 Hz");
    // The verdict's figures are in the metric's own unit.
    let d = r.get_metric("tune.sweep.mf_l1_hz.p50_diff").unwrap();
    assert!((d.value.as_f64() - 10_166.67).abs() < 0.01 && d.unit == "Hz", "{d:?}");
    // A ratio keeps its decimals, and lower can be better: a dropped share from 0.30 to 0.10.
    let drop = |x: f64| {
        let mut r = latlab_sys::record::begin("display");
        r.metric("pipeline.dropped_fraction", x, "ratio");
        r.finish(RunStatus::Complete);
        r
    };
    let da: Vec<RunRecord> = [0.30, 0.31, 0.29].into_iter().map(drop).collect();
    let db: Vec<RunRecord> = [0.10, 0.12, 0.09].into_iter().map(drop).collect();
    let r = ab_record(&info, &da, &db, &[Headline::lower_metric("pipeline.dropped_fraction", "dropped")]);
    assert_eq!(r.config["verdict"], "helps");
    let d = r.get_metric("tune.pipeline.dropped_fraction.p50_diff").unwrap().value.as_f64();
    assert!((d + 0.19667).abs() < 1e-4, "{d}");
    // In one arm only: warned, not judged.
    let r = ab_record(&info, &a, &[latlab_sys::record::begin("rt")], &[h]);
    assert!(r.warnings.iter().any(|w| w.contains("one arm")), "{:?}", r.warnings);
}
