//! The modes of a latency distribution and its back wall: where the samples pile up, how
//! much of the whole each pile holds, and the value they never cross.
//!
//! # Definitions
//! - The samples (clamped to at least 1 ns) are counted in log-spaced bins,
//!   [`BINS_PER_DECADE`] to a decade, and the counts smoothed with the kernel ¼, ½, ¼.
//! - A **mode** is a bin whose smoothed count is above its left neighbour's and at least its
//!   right neighbour's. Its **basin** runs from the lowest smoothed bin between it and the
//!   mode before it to the lowest between it and the mode after (the ends of the range at
//!   the ends). Its **share** is the fraction of all samples in its basin; its **centre** is
//!   the geometric centre of its bin.
//! - Modes holding less than `min_share` of the samples are folded into the nearest larger
//!   neighbour's basin, so noise does not count as a mode.
//! - The **back wall** is the 99.9th percentile: the value all but one sample in a thousand
//!   stay within (seed 001's Figure 6c shows APP_TEST always starting within about 133 µs).

/// Bins a decade: 40, so neighbouring bins differ by 6 %, finer than the peaks seed 001
/// tells apart (15 µs against 30 µs) and coarse enough that 10,000 samples fill them.
pub const BINS_PER_DECADE: usize = 40;

/// One mode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peak {
    /// Where it peaks, ns (the geometric centre of its bin).
    pub centre: f64,
    /// Fraction of all samples in its basin.
    pub share: f64,
    /// Its basin's lower and upper edges, ns.
    pub lo: f64,
    /// Upper edge.
    pub hi: f64,
}

/// The modes of `samples` holding at least `min_share` of them each, lowest first.
pub fn modes(samples: &[i64], min_share: f64) -> Vec<Peak> {
    if samples.is_empty() {
        return Vec::new();
    }
    let logs: Vec<f64> = samples.iter().map(|&v| (v.max(1) as f64).log10()).collect();
    let lo = logs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let width = 1.0 / BINS_PER_DECADE as f64;
    let n_bins = (((hi - lo) / width).floor() as usize + 1).max(1);
    let mut counts = vec![0f64; n_bins];
    for &l in &logs {
        counts[(((l - lo) / width) as usize).min(n_bins - 1)] += 1.0;
    }
    let smooth: Vec<f64> = (0..n_bins)
        .map(|i| {
            let l = if i > 0 { counts[i - 1] } else { 0.0 };
            let r = if i + 1 < n_bins { counts[i + 1] } else { 0.0 };
            0.25 * l + 0.5 * counts[i] + 0.25 * r
        })
        .collect();
    let mut peaks: Vec<usize> = (0..n_bins)
        .filter(|&i| {
            let l = if i > 0 { smooth[i - 1] } else { f64::NEG_INFINITY };
            let r = if i + 1 < n_bins { smooth[i + 1] } else { f64::NEG_INFINITY };
            smooth[i] > l && smooth[i] >= r && smooth[i] > 0.0
        })
        .collect();
    let total = samples.len() as f64;
    // Basins between neighbouring peaks split at the lowest bin; fold small ones away.
    loop {
        let bounds = basins(&smooth, &peaks);
        let shares: Vec<f64> = bounds.iter().map(|&(a, b)| counts[a..b].iter().sum::<f64>() / total).collect();
        let smallest =
            (0..peaks.len()).filter(|&i| shares[i] < min_share).min_by(|&a, &b| shares[a].total_cmp(&shares[b]));
        match smallest {
            Some(i) if peaks.len() > 1 => {
                peaks.remove(i);
            }
            _ => {
                let edge = |b: usize| 10f64.powf(lo + b as f64 * width);
                return peaks
                    .iter()
                    .zip(bounds.iter().zip(&shares))
                    .map(|(&p, (&(a, b), &share))| Peak {
                        centre: 10f64.powf(lo + (p as f64 + 0.5) * width),
                        share,
                        lo: edge(a),
                        hi: edge(b),
                    })
                    .collect();
            }
        }
    }
}

/// Each peak's basin as a half-open bin range.
fn basins(smooth: &[f64], peaks: &[usize]) -> Vec<(usize, usize)> {
    let mut cuts = vec![0];
    for w in peaks.windows(2) {
        let (a, b) = (w[0], w[1]);
        let low = (a..=b).min_by(|&x, &y| smooth[x].total_cmp(&smooth[y])).unwrap_or(a);
        cuts.push(low);
    }
    cuts.push(smooth.len());
    cuts.windows(2).map(|c| (c[0], c[1])).collect()
}

/// The back wall: the 99.9th percentile (see the module's definitions).
pub fn back_wall(samples: &[i64]) -> Option<i64> {
    super::percentile(samples, 99.9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// `n` samples around `centre` ns, spread ±`spread` (uniform), from `seed`.
    fn pile(n: usize, centre: i64, spread: i64, seed: u64) -> Vec<i64> {
        let mut r = rand::rngs::StdRng::seed_from_u64(seed);
        (0..n).map(|_| centre + r.random_range(-spread..=spread)).collect()
    }

    #[test]
    fn two_piles_are_two_modes_with_their_shares() {
        // As seed 001's loaded APP start: peaks near 15 µs and 30 µs.
        let mut v = pile(6_000, 15_000, 1_500, 1);
        v.extend(pile(3_000, 30_000, 3_000, 2));
        let m = modes(&v, 0.02);
        assert_eq!(m.len(), 2, "{m:?}");
        assert!((13_000.0..17_000.0).contains(&m[0].centre), "{m:?}");
        assert!((26_000.0..34_000.0).contains(&m[1].centre), "{m:?}");
        assert!((m[0].share - 2.0 / 3.0).abs() < 0.03 && (m[1].share - 1.0 / 3.0).abs() < 0.03, "{m:?}");
        assert!((m[0].share + m[1].share - 1.0).abs() < 1e-9);
    }

    #[test]
    fn one_pile_with_a_few_stragglers_is_one_mode() {
        let mut v = pile(10_000, 8_000, 800, 3);
        v.extend(pile(20, 120_000, 10_000, 4));
        let m = modes(&v, 0.02);
        assert_eq!(m.len(), 1, "{m:?}");
        assert!((m[0].share - 1.0).abs() < 1e-9);
        let wall = back_wall(&v).unwrap();
        assert!(wall > 9_000, "the stragglers are past p99.9: {wall}");
    }

    #[test]
    fn degenerate_inputs() {
        assert!(modes(&[], 0.02).is_empty());
        let m = modes(&[5, 5, 5], 0.02);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].share, 1.0);
        assert_eq!(modes(&[-3, 0, 1], 0.02).len(), 1, "non-positive values count as 1 ns");
    }
}
