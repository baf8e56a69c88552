//! Tests of the A/B verdict on made-up samples: an effect, none, a reversed one, mixed.

use super::*;

fn spread(centre: i64, n: usize) -> Vec<i64> {
    // A deterministic spread of ±10 % around `centre`.
    (0..n as i64).map(|i| centre + (i * 7919 % 201 - 100) * centre / 1000).collect()
}

fn rec(series: &str, values: Vec<i64>) -> RunRecord {
    let mut r = RunRecord::begin("rt");
    r.series.push(Series { name: series.into(), unit: "ns".into(), description: String::new(), values });
    r.finish(RunStatus::Complete);
    r
}

#[test]
fn a_lower_latency_helps_a_higher_one_hurts_and_equal_ones_show_no_effect() {
    let h = Headline::lower("l1", "level 1");
    let (a, better, worse) = (spread(100_000, 2000), spread(60_000, 2000), spread(160_000, 2000));
    let e = judge(&h, "ns", &a, &better).unwrap();
    assert_eq!((e.p50.effect, e.p99.effect, e.effect), (Effect::Helps, Effect::Helps, Effect::Helps));
    assert!(e.p50.diff < 0.0 && e.p50.hi < 0.0, "{:?}", e.p50);
    assert_eq!(judge(&h, "ns", &a, &worse).unwrap().effect, Effect::Hurts);
    // The same distribution, drawn again in another order: nothing to detect.
    let mut same = a.clone();
    same.reverse();
    assert_eq!(judge(&h, "ns", &a, &same).unwrap().effect, Effect::NoEffect);
    // Higher is better: the same samples read the other way.
    let hz = Headline { better: Better::Higher, ..h.clone() };
    assert_eq!(judge(&hz, "Hz", &a, &worse).unwrap().effect, Effect::Helps);
    // No samples in an arm: no verdict.
    assert!(judge(&h, "ns", &a, &[]).is_none());
}

#[test]
fn a_significant_but_tiny_shift_is_no_effect() {
    // 1 % lower everywhere: the interval excludes zero with this many samples, but the change
    // is below the 5 % the rule asks for.
    let a = spread(100_000, 5000);
    let b: Vec<i64> = a.iter().map(|x| x - 1_000).collect();
    let e = percentile_effect(&a, &b, 50.0, Better::Lower, TUNE_MIN_EFFECT).unwrap();
    assert!(e.hi < 0.0, "the interval excludes zero: {e:?}");
    assert_eq!(e.effect, Effect::NoEffect);
}

#[test]
fn a_better_median_with_a_worse_tail_is_mixed_and_verdicts_combine() {
    // B: most samples 40 % lower, but a tail five times the baseline's.
    let a = spread(100_000, 2000);
    let mut b = spread(60_000, 2000);
    for x in b.iter_mut().step_by(25) {
        *x = 500_000;
    }
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
fn the_record_pools_rounds_names_its_runs_and_judges_every_headline() {
    let info = RemedyInfo {
        name: "test".into(),
        study: "001".into(),
        experiment: "rt".into(),
        baseline: "as is".into(),
        changes: "something".into(),
    };
    let mut a = vec![rec("l1", spread(100_000, 500)), rec("l1", spread(100_000, 500))];
    let b = vec![rec("l1", spread(50_000, 500)), rec("l1", spread(50_000, 500))];
    a[0].id = Some(7);
    let r = ab_record(&info, &a, &b, &[Headline::lower("l1", "level 1"), Headline::lower("absent", "absent")]);
    assert_eq!(r.get_series("l1.baseline").unwrap().values.len(), 1000);
    assert_eq!(r.get_series("l1.remedy").unwrap().values.len(), 1000);
    assert_eq!(r.config["verdict"], "helps");
    assert_eq!(r.config["baseline_runs"], serde_json::json!([7]));
    assert!(r.get_metric("tune.l1.p50_diff").unwrap().value.as_f64() < 0.0);
    assert!(r.warnings.iter().any(|w| w.contains("absent")), "{:?}", r.warnings);
    let t = &r.tables[0];
    assert_eq!((t.rows.len(), t.rows[0].len()), (1, t.columns.len()));
    assert_eq!(r.status, RunStatus::Complete);
    assert!(verdict_line(&r).starts_with("test: helps"));
    // Nothing judged: a failed record, not a verdict.
    let none = ab_record(&info, &a, &b, &[Headline::lower("absent", "absent")]);
    assert_eq!((none.status, none.config["verdict"].as_str()), (RunStatus::Failed, Some("not judged")));
}
