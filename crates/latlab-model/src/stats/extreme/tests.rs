//! The worst-case estimate on synthetic data with known tails.

use super::*;

/// `n` samples of `3 µs + Y`, Y a generalized Pareto (σ, ξ): every threshold's excesses are
/// then GPD with the same ξ, and the true level exceeded once in `m` samples is known.
fn gpd_samples(n: usize, sigma: f64, xi: f64, seed: u64) -> Vec<f64> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| 3_000.0 + draw(&mut rng, sigma, xi)).collect()
}

/// The level of `gpd_samples` exceeded on average once in `m` samples.
fn true_level(sigma: f64, xi: f64, m: f64) -> f64 {
    3_000.0 + TailFit::excess(sigma, xi, m)
}

/// The three tails: heavy (ξ = 0.3), exponential (ξ = 0), and one with an end (ξ = −0.3).
const TAILS: [(f64, f64); 3] = [(2_000.0, 0.3), (2_000.0, 0.0), (5_000.0, -0.3)];

/// Runs of each tail: a 95 % interval misses the truth in one run of twenty by design, so
/// the checks count over many runs, with bounds a correct method passes with near certainty
/// (P(15 or fewer of 20 | 95 %) ≈ 0.3 %) and a biased one fails.
const RUNS: u64 = 20;

#[test]
fn over_many_runs_the_interval_covers_the_true_level_as_often_as_it_says() {
    let n = 100_000;
    for &(sigma, xi) in &TAILS {
        let (mut covered, mut refused, mut shapes) = (0, 0, Vec::new());
        for seed in 0..RUNS {
            let x = gpd_samples(n, sigma, xi, 1_000 * seed + 11);
            let cfg = PotConfig::for_samples(n);
            let f = match fit(&x, &cfg) {
                Ok(f) => f,
                Err(Refusal::BadFit { .. }) => {
                    refused += 1;
                    continue;
                }
                Err(e) => panic!("ξ = {xi}: {e}"),
            };
            shapes.push(f.xi);
            // Once in ten runs of this length: beyond anything the run saw.
            let m = 10.0 * n as f64;
            let w = f.level(m, 1.0).unwrap();
            let hi = w.hi.unwrap_or(f64::INFINITY);
            assert!(w.lo < w.level && w.level < hi, "{w:?}");
            assert!((w.probability() - (1.0 - (-1f64).exp())).abs() < 1e-12);
            let truth = true_level(sigma, xi, m);
            if w.lo <= truth && truth <= hi {
                covered += 1;
            }
        }
        // A true GPD fails a 5 % test in one run of twenty.
        assert!(refused <= 3, "ξ = {xi}: {refused} of {RUNS} true GPD tails refused");
        let tried = RUNS - refused;
        assert!(covered + 1 >= tried * 16 / 20, "ξ = {xi}: the truth inside {covered} of {tried} intervals");
        let mean = shapes.iter().sum::<f64>() / shapes.len() as f64;
        assert!((mean - xi).abs() < 0.05, "ξ = {xi}: mean fitted shape {mean}");
    }
}

#[test]
fn fitted_on_the_first_half_the_estimate_holds_in_the_second() {
    let n = 200_000;
    for &(sigma, xi) in &TAILS {
        let (mut held, mut exceeded, mut expected, mut second) = (0, 0, 0.0, 0);
        for seed in 0..RUNS / 2 {
            let x = gpd_samples(n, sigma, xi, 1_000 * seed + 21);
            // The fit's own test is another test's; this one is about the estimate.
            let cfg = PotConfig { resamples: 0, ..PotConfig::for_samples(n / 2) };
            // The level exceeded once in the second half's length, expected once there.
            let c = split_check(&x, &cfg, (n / 2) as f64, 1.0).unwrap_or_else(|e| panic!("ξ = {xi}: {e}"));
            assert!((c.expected - 1.0).abs() < 1e-9);
            held += usize::from(c.holds(0.05));
            exceeded += c.exceeded;
            expected += c.expected;
            second += n - n / 2;
        }
        assert!(held >= 8, "ξ = {xi}: held in {held} of {}", RUNS / 2);
        // All the second halves together: no more exceedances than the stated rate allows.
        let p = binomial_at_least(second as u64, expected / second as f64, exceeded as u64);
        assert!(p >= 0.05, "ξ = {xi}: {exceeded} exceedances where {expected} were expected (p = {p})");
    }
}

#[test]
fn an_estimate_that_is_too_low_fails_the_split_check() {
    // A heavy tail judged by an exponential's level: the second half exceeds it far too often.
    let n = 400_000;
    let x = gpd_samples(n, 2_000.0, 0.5, 31);
    let (first, second) = x.split_at(n / 2);
    let cfg = PotConfig { resamples: 0, ..PotConfig::for_samples(n / 2) };
    let f = fit(first, &cfg).unwrap();
    assert!(f.p_value.is_nan(), "not tested");
    let r = f.ratio((n / 2) as f64, 1.0);
    let mean = f.excesses.iter().sum::<f64>() / f.clusters as f64;
    let exponential = f.threshold + mean * r.ln();
    let honest = f.level((n / 2) as f64, 1.0).unwrap().level;
    assert!(exponential < honest);
    let exceeded = decluster(second, exponential, cfg.run).len() as u64;
    assert!(exceeded >= 4, "{exceeded}");
    assert!(binomial_at_least(second.len() as u64, 1.0 / second.len() as f64, exceeded) < 0.05);
}

#[test]
fn a_tail_with_a_hard_end_is_refused() {
    // Uniform between 3 and 9 µs: latencies that something cuts off at 9 µs.
    let mut rng = StdRng::seed_from_u64(5);
    let x: Vec<f64> = (0..100_000).map(|_| 3_000.0 + 6_000.0 * rng.random::<f64>()).collect();
    match fit(&x, &PotConfig::for_samples(x.len())) {
        Err(Refusal::HardEnd { xi, end }) => {
            assert!(xi < -0.5);
            assert!((end - 9_000.0).abs() < 100.0, "{end}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_mixture_read_as_an_infinitely_heavy_tail_is_refused() {
    // Wake-ups of 3–5 µs, and one in 200 held for 5–50 ms (a throttled load's holds).
    let mut rng = StdRng::seed_from_u64(7);
    let x: Vec<f64> = (0..20_000)
        .map(|_| {
            if rng.random::<f64>() < 0.005 {
                5e6 + 45e6 * rng.random::<f64>()
            } else {
                3_000.0 + 2_000.0 * rng.random::<f64>()
            }
        })
        .collect();
    match fit(&x, &PotConfig::for_samples(x.len())) {
        Err(Refusal::NoMean { xi }) => assert!(xi >= 1.0, "{xi}"),
        other => panic!("{other:?}"),
    }
    // A true heavy tail below the bound is still fitted (the TAILS above include ξ = 0.3).
}

#[test]
fn a_tail_that_is_not_pareto_fails_its_test() {
    // Excesses on a 10 µs lattice, geometric: half of them exactly one step up.
    let mut rng = StdRng::seed_from_u64(6);
    let x: Vec<f64> = (0..200_000)
        .map(|_| {
            let mut g = 0.0;
            while rng.random::<f64>() < 0.5 {
                g += 1.0;
            }
            3_000.0 + 10_000.0 * g + rng.random::<f64>()
        })
        .collect();
    match fit(&x, &PotConfig::for_samples(x.len())) {
        Err(Refusal::BadFit { p_value, alpha }) => assert!(p_value < alpha),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bursts_count_once_and_too_few_are_refused() {
    assert_eq!(decluster(&[1.0, 5.0, 6.0, 1.0, 1.0, 7.0, 1.0], 2.0, 2), vec![4.0, 5.0]);
    assert_eq!(decluster(&[1.0, 5.0, 6.0, 1.0, 1.0, 7.0, 1.0], 2.0, 3), vec![5.0]);
    assert!(decluster(&[1.0, 2.0], 2.0, 1).is_empty());
    // The same from the exceedances alone, with their indices.
    let x = [1.0, 5.0, 6.0, 1.0, 1.0, 7.0, 1.0, 1.0, 1.0, 9.0];
    let pts: Vec<(u64, f64)> = x.iter().enumerate().filter(|p| *p.1 > 2.0).map(|(i, &v)| (i as u64, v)).collect();
    for run in 1..5 {
        assert_eq!(decluster_indexed(&pts, 2.0, run), decluster(&x, 2.0, run), "run {run}");
    }
    // 100 exceedances in bursts of 20: five stalls, not a hundred.
    let mut x = vec![1_000.0; 10_000];
    for b in 0..5 {
        for j in 0..20 {
            x[1_000 * (b + 1) + j] = 50_000.0 + (b * 20 + j) as f64;
        }
    }
    let cfg = PotConfig { exceedances: 100, ..PotConfig::for_samples(x.len()) };
    assert_eq!(fit(&x, &cfg), Err(Refusal::TooFew { clusters: 5, need: cfg.min_clusters }));
    assert!(fit(&x, &cfg).unwrap_err().to_string().contains("5 independent exceedances"));
}

#[test]
fn a_level_inside_the_data_is_left_to_the_percentiles() {
    let x = gpd_samples(50_000, 2_000.0, 0.1, 7);
    let cfg = PotConfig { alpha: 0.0, ..PotConfig::for_samples(x.len()) };
    let f = fit(&x, &cfg).unwrap();
    // Asked for more exceedances a period than the threshold itself has.
    assert_eq!(f.level(1_000.0, 100.0), Err(Refusal::NotPastThreshold));
}

#[test]
fn binomial_tails() {
    assert_eq!(binomial_at_least(10, 0.5, 0), 1.0);
    assert!((binomial_at_least(10, 0.5, 1) - (1.0 - 0.5f64.powi(10))).abs() < 1e-12);
    assert!((binomial_at_least(10, 0.5, 10) - 0.5f64.powi(10)).abs() < 1e-12);
    // One expected in a million: two or more has probability 1 − 2/e.
    let p = binomial_at_least(1_000_000, 1e-6, 2);
    assert!((p - (1.0 - 2.0 * (-1f64).exp())).abs() < 1e-4, "{p}");
}
