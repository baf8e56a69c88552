//! Percentile bootstrap confidence intervals for the difference of a statistic between two
//! independent sample sets (used by `latlab compare`).
//!
//! Method: draw `resamples` bootstrap replicates of each set (with replacement, same size
//! as the set), compute the statistic on each, and take the 2.5th and 97.5th percentiles of
//! the differences `stat(B*) − stat(A*)` as the 95 % interval (Efron & Tibshirani 1993,
//! §13.3). Sets larger than `max_n` are first thinned to `max_n` evenly spaced samples of
//! the sorted set (which keeps their distribution) so the cost stays bounded; the point
//! estimate always uses the full sets. The generator is seeded, so results are repeatable.

use super::{percentile_sorted, sorted};
use rand::{RngExt, SeedableRng, rngs::StdRng};

/// A difference `B − A` with its 95 % bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiffCi {
    /// Point estimate on the full sets.
    pub diff: f64,
    /// Lower 2.5 % bound.
    pub lo: f64,
    /// Upper 97.5 % bound.
    pub hi: f64,
}

fn thin(sorted: &[i64], max_n: usize) -> Vec<i64> {
    if sorted.len() <= max_n {
        return sorted.to_vec();
    }
    (0..max_n).map(|i| sorted[i * (sorted.len() - 1) / (max_n - 1)]).collect()
}

/// Bootstrap the difference of the p-th percentile (nearest rank) between `a` and `b`.
pub fn percentile_diff_ci(a: &[i64], b: &[i64], p: f64, resamples: usize, max_n: usize, seed: u64) -> Option<DiffCi> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let (sa, sb) = (sorted(a), sorted(b));
    let diff = percentile_sorted(&sb, p)? as f64 - percentile_sorted(&sa, p)? as f64;
    let (ta, tb) = (thin(&sa, max_n.max(2)), thin(&sb, max_n.max(2)));
    let mut rng = StdRng::seed_from_u64(seed);
    let mut diffs = Vec::with_capacity(resamples);
    let mut buf_a = vec![0i64; ta.len()];
    let mut buf_b = vec![0i64; tb.len()];
    for _ in 0..resamples.max(1) {
        for x in buf_a.iter_mut() {
            *x = ta[rng.random_range(0..ta.len())];
        }
        for x in buf_b.iter_mut() {
            *x = tb[rng.random_range(0..tb.len())];
        }
        buf_a.sort_unstable();
        buf_b.sort_unstable();
        diffs.push(percentile_sorted(&buf_b, p)?.saturating_sub(percentile_sorted(&buf_a, p)?));
    }
    diffs.sort_unstable();
    Some(DiffCi { diff, lo: percentile_sorted(&diffs, 2.5)? as f64, hi: percentile_sorted(&diffs, 97.5)? as f64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifted_sets_give_an_interval_around_the_shift() {
        let a: Vec<i64> = (0..2000).map(|i| (i * 7919) % 1000).collect();
        let b: Vec<i64> = a.iter().map(|x| x + 500).collect();
        let ci = percentile_diff_ci(&a, &b, 50.0, 300, 10_000, 1).unwrap();
        assert_eq!(ci.diff, 500.0);
        assert!(ci.lo <= 500.0 && 500.0 <= ci.hi, "{ci:?}");
        assert!(ci.hi - ci.lo < 100.0, "{ci:?}");
    }

    #[test]
    fn identical_sets_straddle_zero_and_are_repeatable() {
        let a: Vec<i64> = (0..500).map(|i| (i * 31) % 97).collect();
        let c1 = percentile_diff_ci(&a, &a, 99.0, 200, 10_000, 7).unwrap();
        let c2 = percentile_diff_ci(&a, &a, 99.0, 200, 10_000, 7).unwrap();
        assert_eq!(c1, c2);
        assert!(c1.lo <= 0.0 && c1.hi >= 0.0);
        assert!(percentile_diff_ci(&[], &a, 50.0, 10, 10, 1).is_none());
    }

    #[test]
    fn thinning_keeps_the_ends() {
        let s: Vec<i64> = (0..1000).collect();
        let t = thin(&s, 11);
        assert_eq!(t, vec![0, 99, 199, 299, 399, 499, 599, 699, 799, 899, 999]);
    }
}
