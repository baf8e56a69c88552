//! Statistics over integer-nanosecond samples: a pure module with its definitions stated.
//!
//! # Definitions
//! - **Percentile** (nearest rank, as hdrhistogram and cyclictest-style tools report it):
//!   for `0 < p ≤ 100`, the p-th percentile of `n` sorted samples `x[0..n]` is
//!   `x[ceil(p/100 · n) − 1]`, the smallest sample with at least p % of samples at or below
//!   it; `p = 0` gives the minimum. The result is always an observed sample, never an
//!   interpolation. (Hyndman & Fan 1996, definition 1.)
//! - **Mean** is the arithmetic mean; **stddev** the sample standard deviation (divisor
//!   `n − 1`; 0 for a single sample).
//! - **Jitter** (the seed 001 paper's sense) is `max − min`. This is the one meaning of a
//!   metric or field called `jitter` anywhere in latlab; a spread measured otherwise gets
//!   its own name (`stall`'s `rtt.spread_p99` = p99 − min), and a named estimator says
//!   which (`udp`'s `jitter.rfc3550`, RFC 3550's interarrival jitter, in [`delay`]).
//! - **MAD** is the median absolute deviation `median(|x − median(x)|)`, unscaled.
//! - **Histogram**: linear bins of equal width, or log bins whose edges grow geometrically;
//!   every bin is `[lo, hi)` except the last, which includes its upper edge.
//! - **CDF points**: `(x[i], (i+1)/n)` at evenly spaced ranks, always including the
//!   minimum and maximum.
//!
//! Network delay-variation estimators (RFC 3550, RFC 3393, RFC 5481) live in [`delay`];
//! the bootstrap used by `latlab compare` in [`bootstrap`]; the worst case with a stated
//! confidence (peaks over threshold) in [`extreme`].

pub mod bootstrap;
pub mod delay;
pub mod extreme;
pub mod modes;

use serde::{Deserialize, Serialize};

/// Summary of a sample set. All fields except `mean`/`stddev` are observed samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub count: u64,
    /// Smallest sample.
    pub min: i64,
    /// Largest sample.
    pub max: i64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
    /// Median (nearest rank).
    pub p50: i64,
    /// 90th percentile.
    pub p90: i64,
    /// 95th percentile (seed 001 states "95 % within" figures).
    #[serde(default)]
    pub p95: i64,
    /// 99th percentile.
    pub p99: i64,
    /// 99.9th percentile.
    pub p999: i64,
    /// max − min.
    pub jitter: i64,
    /// Median absolute deviation.
    pub mad: i64,
}

/// Sort a copy of the samples (the input order is usually meaningful and kept).
pub fn sorted(samples: &[i64]) -> Vec<i64> {
    let mut v = samples.to_vec();
    v.sort_unstable();
    v
}

/// Nearest-rank percentile of already sorted samples; `None` when empty.
pub fn percentile_sorted(sorted: &[i64], p: f64) -> Option<i64> {
    if sorted.is_empty() {
        return None;
    }
    let p = p.clamp(0.0, 100.0);
    if p == 0.0 {
        return Some(sorted[0]);
    }
    let n = sorted.len();
    // ceil(p/100 * n), computed so that e.g. p=50, n=4 gives exactly 2.
    let rank = ((p / 100.0) * n as f64 - 1e-9).ceil().max(1.0) as usize;
    Some(sorted[rank.min(n) - 1])
}

/// Nearest-rank percentile of unsorted samples.
pub fn percentile(samples: &[i64], p: f64) -> Option<i64> {
    percentile_sorted(&sorted(samples), p)
}

/// Arithmetic mean; `None` when empty.
pub fn mean(samples: &[i64]) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    Some(samples.iter().map(|&x| x as f64).sum::<f64>() / samples.len() as f64)
}

/// Sample standard deviation (n − 1); 0 for one sample, `None` when empty.
pub fn stddev(samples: &[i64]) -> Option<f64> {
    let m = mean(samples)?;
    if samples.len() < 2 {
        return Some(0.0);
    }
    let ss: f64 = samples.iter().map(|&x| (x as f64 - m).powi(2)).sum();
    Some((ss / (samples.len() - 1) as f64).sqrt())
}

/// Median absolute deviation of sorted samples, without allocating: the deviations
/// `|x − median|` are two already sorted runs (walking left and right from the median), so a
/// two-pointer merge finds their nearest-rank median in one pass.
pub fn mad_sorted(sorted: &[i64]) -> Option<i64> {
    let med = percentile_sorted(sorted, 50.0)?;
    let n = sorted.len();
    let rank = ((0.5 * n as f64) - 1e-9).ceil().max(1.0) as usize; // nearest rank of p50
    let split = sorted.partition_point(|&x| x < med);
    let dev = |x: i64| i64::try_from(x.abs_diff(med)).unwrap_or(i64::MAX);
    // Left run: sorted[split-1], sorted[split-2], … (growing deviations);
    // right run: sorted[split], sorted[split+1], … (growing deviations).
    let (mut l, mut r) = (split, split);
    let mut last = 0;
    for _ in 0..rank {
        let take_left = match (l > 0, r < n) {
            (true, true) => dev(sorted[l - 1]) <= dev(sorted[r]),
            (true, false) => true,
            (false, _) => false,
        };
        if take_left {
            l -= 1;
            last = dev(sorted[l]);
        } else {
            last = dev(sorted[r]);
            r += 1;
        }
    }
    Some(last)
}

/// Summarize samples; `None` when empty.
pub fn summarize(samples: &[i64]) -> Option<Summary> {
    let s = sorted(samples);
    summarize_sorted(&s)
}

/// Summarize already sorted samples.
pub fn summarize_sorted(s: &[i64]) -> Option<Summary> {
    let min = *s.first()?;
    let max = *s.last()?;
    Some(Summary {
        count: s.len() as u64,
        min,
        max,
        mean: mean(s)?,
        stddev: stddev(s)?,
        p50: percentile_sorted(s, 50.0)?,
        p90: percentile_sorted(s, 90.0)?,
        p95: percentile_sorted(s, 95.0)?,
        p99: percentile_sorted(s, 99.0)?,
        p999: percentile_sorted(s, 99.9)?,
        jitter: max.saturating_sub(min),
        mad: mad_sorted(s)?,
    })
}

/// One histogram bin `[lo, hi)` (the last bin includes `hi`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    /// Lower edge.
    pub lo: f64,
    /// Upper edge.
    pub hi: f64,
    /// Samples in the bin.
    pub count: u64,
}

fn bin_by_edges(samples: &[i64], edges: &[f64]) -> Vec<Bin> {
    let nb = edges.len() - 1;
    let mut counts = vec![0u64; nb];
    for &x in samples {
        let x = x as f64;
        // partition_point gives the first edge > x; the bin is the one before it.
        let i = edges.partition_point(|&e| e <= x).saturating_sub(1).min(nb - 1);
        counts[i] += 1;
    }
    (0..nb).map(|i| Bin { lo: edges[i], hi: edges[i + 1], count: counts[i] }).collect()
}

/// `bins` equal-width bins spanning `[min, max]` of the samples.
pub fn histogram_linear(samples: &[i64], bins: usize) -> Vec<Bin> {
    let (Some(&lo), Some(&hi)) = (samples.iter().min(), samples.iter().max()) else {
        return Vec::new();
    };
    let bins = bins.max(1);
    let (lo, hi) = (lo as f64, if hi == lo { lo as f64 + 1.0 } else { hi as f64 });
    let w = (hi - lo) / bins as f64;
    let edges: Vec<f64> = (0..=bins).map(|i| if i == bins { hi } else { lo + w * i as f64 }).collect();
    bin_by_edges(samples, &edges)
}

/// `bins` bins with geometrically growing edges from `max(min, 1)` to `max`; samples below
/// the first edge (zero or negative) fall into the first bin.
pub fn histogram_log(samples: &[i64], bins: usize) -> Vec<Bin> {
    let (Some(&lo), Some(&hi)) = (samples.iter().min(), samples.iter().max()) else {
        return Vec::new();
    };
    let bins = bins.max(1);
    let lo = (lo.max(1)) as f64;
    let hi = (hi.max(1) as f64).max(lo * 1.000_001);
    let ratio = (hi / lo).powf(1.0 / bins as f64);
    let edges: Vec<f64> = (0..=bins)
        .map(|i| {
            if i == bins {
                hi
            } else if i == 0 {
                lo
            } else {
                lo * ratio.powi(i as i32)
            }
        })
        .collect();
    bin_by_edges(samples, &edges)
}

/// At most `points` CDF points `(value, cumulative fraction)` from sorted samples.
pub fn cdf_points(sorted: &[i64], points: usize) -> Vec<(i64, f64)> {
    let n = sorted.len();
    if n == 0 {
        return Vec::new();
    }
    let points = points.clamp(2, n.max(2));
    let mut out = Vec::with_capacity(points.min(n));
    let mut last = usize::MAX;
    for j in 0..points {
        let i = ((j as f64 / (points - 1) as f64) * (n - 1) as f64).round() as usize;
        if i != last {
            out.push((sorted[i], (i + 1) as f64 / n as f64));
            last = i;
        }
    }
    out
}

/// Largest value an HDR histogram tracks exactly: one hour in nanoseconds. Larger values are
/// recorded as this value (saturated), which no latency latlab measures comes near.
pub const HDR_MAX_NS: u64 = 3_600_000_000_000;

/// An empty HDR histogram for 0 ns … [`HDR_MAX_NS`] with 3 significant digits.
pub fn hdr_new() -> hdrhistogram::Histogram<u64> {
    hdrhistogram::Histogram::<u64>::new_with_bounds(1, HDR_MAX_NS, 3).expect("static bounds are valid")
}

/// An HDR histogram of non-negative nanosecond values with 3 significant digits, for runs
/// too long to keep or sort every sample. Negative values are clamped to 0.
pub fn hdr_from(samples: &[i64]) -> hdrhistogram::Histogram<u64> {
    let mut h = hdr_new();
    for &x in samples {
        h.saturating_record(x.max(0) as u64);
    }
    h
}

/// Summary of an HDR histogram (percentiles to the histogram's precision; MAD not kept).
pub fn summarize_hdr(h: &hdrhistogram::Histogram<u64>) -> Option<Summary> {
    if h.is_empty() {
        return None;
    }
    let q = |p: f64| h.value_at_quantile(p / 100.0) as i64;
    Some(Summary {
        count: h.len(),
        min: h.min() as i64,
        max: h.max() as i64,
        mean: h.mean(),
        stddev: h.stdev(),
        p50: q(50.0),
        p90: q(90.0),
        p95: q(95.0),
        p99: q(99.0),
        p999: q(99.9),
        jitter: h.max() as i64 - h.min() as i64,
        mad: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hand_computed_vector() {
        // x = 1..=10 (in ns), shuffled.
        let x = [7, 3, 10, 1, 5, 9, 2, 8, 4, 6];
        let s = summarize(&x).unwrap();
        assert_eq!((s.count, s.min, s.max, s.jitter), (10, 1, 10, 9));
        assert_eq!(s.mean, 5.5);
        // Σ(x−5.5)² = 82.5; /9 = 9.1666…; sqrt = 3.0276503540974917
        assert!((s.stddev - 3.027_650_354_097_491_7).abs() < 1e-12);
        // Nearest rank: p50 → ceil(5) = 5th → 5; p90 → 9th → 9; p99 → ceil(9.9)=10th → 10.
        assert_eq!((s.p50, s.p90, s.p99, s.p999), (5, 9, 10, 10));
        // p95 → ceil(9.5) = 10th → 10; of 1..=100, the 95th.
        assert_eq!(s.p95, 10);
        assert_eq!(summarize(&(1..=100).collect::<Vec<i64>>()).unwrap().p95, 95);
        // |x − 5| = 4,3,2,1,0,1,2,3,4,5 → sorted 0,1,1,2,2,3,3,4,4,5 → 5th = 2.
        assert_eq!(s.mad, 2);
    }

    #[test]
    fn percentile_edges() {
        let s = [10, 20, 30, 40];
        assert_eq!(percentile_sorted(&s, 0.0), Some(10));
        assert_eq!(percentile_sorted(&s, 25.0), Some(10));
        assert_eq!(percentile_sorted(&s, 25.1), Some(20));
        assert_eq!(percentile_sorted(&s, 50.0), Some(20));
        assert_eq!(percentile_sorted(&s, 75.0), Some(30));
        assert_eq!(percentile_sorted(&s, 100.0), Some(40));
        assert_eq!(percentile_sorted(&[], 50.0), None);
        assert_eq!(summarize(&[]), None);
        let one = summarize(&[42]).unwrap();
        assert_eq!((one.min, one.p50, one.p999, one.stddev, one.mad), (42, 42, 42, 0.0, 0));
    }

    #[test]
    fn histograms_by_hand() {
        let h = histogram_linear(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 10], 5);
        let counts: Vec<u64> = h.iter().map(|b| b.count).collect();
        // edges 0,2,4,6,8,10 → [0,2):0,1 [2,4):2,3 [4,6):4,5 [6,8):6,7 [8,10]:8,10
        assert_eq!(counts, vec![2, 2, 2, 2, 2]);
        assert_eq!(h[0].lo, 0.0);
        assert_eq!(h[4].hi, 10.0);
        let lg = histogram_log(&[1, 10, 100, 1000], 3);
        // edges 1,10,100,1000 → [1,10):1 [10,100):10 [100,1000]:100,1000
        let c: Vec<u64> = lg.iter().map(|b| b.count).collect();
        assert_eq!(c, vec![1, 1, 2]);
        assert!((lg[1].lo - 10.0).abs() < 1e-9);
        assert_eq!(histogram_log(&[0, -5, 3], 2).iter().map(|b| b.count).sum::<u64>(), 3);
        assert_eq!(histogram_linear(&[7, 7, 7], 4).iter().map(|b| b.count).sum::<u64>(), 3);
    }

    #[test]
    fn cdf_by_hand() {
        let s = [1, 2, 3, 4, 5];
        assert_eq!(cdf_points(&s, 5), vec![(1, 0.2), (2, 0.4), (3, 0.6), (4, 0.8), (5, 1.0)]);
        let c = cdf_points(&s, 2);
        assert_eq!(c, vec![(1, 0.2), (5, 1.0)]);
    }

    #[test]
    fn hdr_agrees_with_exact_within_precision() {
        let x: Vec<i64> = (1..=100_000).collect();
        let h = hdr_from(&x);
        let hs = summarize_hdr(&h).unwrap();
        let es = summarize(&x).unwrap();
        assert_eq!(hs.count, es.count);
        for (a, b) in [(hs.p50, es.p50), (hs.p99, es.p99), (hs.max, es.max), (hs.min, es.min)] {
            assert!(((a - b).abs() as f64) <= b as f64 * 1e-3 + 1.0, "{a} vs {b}");
        }
    }

    proptest! {
        #[test]
        fn order_invariants(x in proptest::collection::vec(-1_000_000i64..10_000_000, 1..400)) {
            let s = summarize(&x).unwrap();
            prop_assert!(s.min <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.p95 && s.p95 <= s.p99);
            prop_assert!(s.p99 <= s.p999 && s.p999 <= s.max);
            prop_assert!(s.min as f64 <= s.mean + 1e-6 && s.mean <= s.max as f64 + 1e-6);
            prop_assert!(s.stddev >= 0.0 && s.mad >= 0 && s.jitter == s.max - s.min);
        }

        #[test]
        fn mad_matches_the_definition(x in proptest::collection::vec(-1_000i64..1_000, 1..300)) {
            let s = sorted(&x);
            let med = percentile_sorted(&s, 50.0).unwrap();
            let dev = sorted(&s.iter().map(|&v| (v - med).abs()).collect::<Vec<_>>());
            prop_assert_eq!(mad_sorted(&s), percentile_sorted(&dev, 50.0));
        }

        #[test]
        fn extremes_never_overflow(x in proptest::collection::vec(any::<i64>(), 1..50)) {
            let s = summarize(&x).unwrap();
            prop_assert!(s.min <= s.p50 && s.p50 <= s.p95 && s.p95 <= s.p99 && s.p99 <= s.max && s.jitter >= 0 && s.mad >= 0);
            prop_assert_eq!(histogram_linear(&x, 7).iter().map(|b| b.count).sum::<u64>(), x.len() as u64);
            prop_assert_eq!(histogram_log(&x, 7).iter().map(|b| b.count).sum::<u64>(), x.len() as u64);
            prop_assert!(x.contains(&s.p50) && x.contains(&s.p99));
            let n = x.len() as u64;
            prop_assert_eq!(histogram_linear(&x, 17).iter().map(|b| b.count).sum::<u64>(), n);
            prop_assert_eq!(histogram_log(&x, 9).iter().map(|b| b.count).sum::<u64>(), n);
            let c = cdf_points(&sorted(&x), 50);
            prop_assert!(c.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1));
            prop_assert_eq!(c.last().unwrap().1, 1.0);
        }
    }
}
