//! A worst case with a stated confidence: the latency exceeded on average once per
//! period (an hour, say), estimated from a run's tail by the peaks-over-threshold method, with
//! its confidence interval and a goodness-of-fit check, or refused with the reason.
//!
//! # Method
//! - **Threshold and clusters.** The threshold `u` is the sample with
//!   [`PotConfig::exceedances`] samples above it. Samples above `u` that follow one another
//!   with fewer than [`PotConfig::run`] samples at or below `u` between them are one cluster
//!   (one stall seen by several wake-ups), and only each cluster's largest counts (the runs
//!   method of declustering; Coles 2001, §5.3.2): exceedances must be independent for the
//!   fit and the rate to mean anything.
//! - **Fit.** The cluster maxima's excesses `y = x − u` are fitted with a generalized Pareto
//!   distribution, `P(Y > y) = (1 + ξy/σ)^(−1/ξ)` (`e^(−y/σ)` at ξ = 0), by maximum
//!   likelihood, profiled over `θ = ξ/σ` (Grimshaw 1993): for a given θ the likelihood's
//!   ξ is the mean of `ln(1 + θy)`, so the fit is a one-dimensional search.
//! - **The level.** With ζ the clusters per sample and `m` samples per period, the level
//!   exceeded on average `N` times a period is `u + σ/ξ · ((ζm/N)^ξ − 1)` (`u + σ ln(ζm/N)`
//!   at ξ = 0); as exceedances of a high level are a Poisson stream, it is exceeded in a given
//!   period with probability `1 − e^(−N)`.
//! - **Interval.** The profile likelihood of the level (Coles 2001, §4.3.4): every level whose
//!   profile log-likelihood is within `χ²₁(0.95)/2` of the maximum. Asymmetric, as a heavy
//!   tail's uncertainty is; "unbounded" when no finite level leaves it. ζ is taken as known.
//! - **Goodness of fit.** The Kolmogorov–Smirnov distance between the fitted and the observed
//!   excesses, its p-value by parametric bootstrap (refitting each resample, so the estimated
//!   parameters are accounted for).
//! - **Refused**, with the reason: too few clusters; a fit that fails its test; ξ below −0.5,
//!   a tail with a hard end (throttling, a timeout): the maximum-likelihood fit is not regular
//!   there (Smith 1985), and the worst case is that end, not a probability; ξ of 1 or more, a
//!   tail whose mean is infinite, which no latency has: such a fit is a mixture (rare long
//!   waits among ordinary wake-ups) read as one tail, and its level extrapolates the mixture's
//!   gap, not a probability; and a level that is not past the threshold (the data answer it
//!   directly).

use rand::{RngExt, SeedableRng, rngs::StdRng};

/// How the tail is chosen and checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PotConfig {
    /// Samples above the threshold (before declustering).
    pub exceedances: usize,
    /// Fewest clusters fitted.
    pub min_clusters: usize,
    /// Samples at or below the threshold that end a cluster.
    pub run: usize,
    /// Bootstrap resamples of the goodness-of-fit test (0: no test; the p-value is NaN).
    pub resamples: usize,
    /// The test's level: a fit whose p-value is below it is refused.
    pub alpha: f64,
}

impl PotConfig {
    /// latlab's defaults for `n` samples: about √n exceedances, within
    /// [`crate::defaults::EVT_MIN_EXCEEDANCES`]–[`crate::defaults::EVT_MAX_EXCEEDANCES`].
    pub fn for_samples(n: usize) -> Self {
        let d = crate::defaults::EVT_MIN_EXCEEDANCES;
        PotConfig {
            exceedances: ((n as f64).sqrt() as usize).clamp(d, crate::defaults::EVT_MAX_EXCEEDANCES),
            min_clusters: crate::defaults::EVT_MIN_CLUSTERS,
            run: crate::defaults::EVT_CLUSTER_RUN,
            resamples: crate::defaults::EVT_RESAMPLES,
            alpha: crate::defaults::EVT_FIT_ALPHA,
        }
    }
}

/// A generalized Pareto fit of a run's tail.
#[derive(Debug, Clone, PartialEq)]
pub struct TailFit {
    /// The threshold.
    pub threshold: f64,
    /// Scale σ.
    pub sigma: f64,
    /// Shape ξ (> 0: a heavy tail; 0: exponential; < 0: a tail with an end).
    pub xi: f64,
    /// Cluster maxima fitted.
    pub clusters: usize,
    /// Samples the threshold was chosen from.
    pub samples: usize,
    /// The fit's log-likelihood.
    pub loglik: f64,
    /// Kolmogorov–Smirnov distance between fit and excesses.
    pub ks: f64,
    /// Its bootstrap p-value (NaN when not tested).
    pub p_value: f64,
    excesses: Vec<f64>,
}

/// Why no worst case is given.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// Too few clusters above the threshold to fit.
    TooFew {
        /// Clusters found.
        clusters: usize,
        /// Clusters needed.
        need: usize,
    },
    /// The likelihood has no maximum in the regular range.
    NoFit,
    /// The tail has a hard end: ξ below −0.5.
    HardEnd {
        /// The fitted shape.
        xi: f64,
        /// Where the fitted tail ends.
        end: f64,
    },
    /// The tail is so heavy its mean is infinite (ξ ≥ 1): a mixture, not one tail.
    NoMean {
        /// The fitted shape.
        xi: f64,
    },
    /// The fit fails its goodness-of-fit test.
    BadFit {
        /// The test's p-value.
        p_value: f64,
        /// The level it was judged at.
        alpha: f64,
    },
    /// The level asked for is exceeded more often than the threshold: not an extreme.
    NotPastThreshold,
    /// A check by halves with nothing in one half.
    NoHalves,
    /// The data span too little of the period asked about to extrapolate to it.
    TooShort {
        /// Seconds of data.
        have_s: f64,
        /// Seconds of data needed.
        need_s: f64,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::TooFew { clusters, need } => {
                write!(
                    f,
                    "{clusters} independent exceedances of the tail's threshold, at least {need} are needed to fit it"
                )
            }
            Refusal::NoFit => write!(f, "the tail's likelihood has no maximum (all excesses equal?)"),
            Refusal::HardEnd { xi, end } => write!(
                f,
                "the tail has a hard end near {end:.0} ns (shape ξ = {xi:.2} < −0.5): something cuts latencies off there, so the worst case is that end, not a probability"
            ),
            Refusal::NoMean { xi } => write!(
                f,
                "the fitted tail is so heavy (shape ξ = {xi:.2} ≥ {}) that its mean would be infinite, which no latency's is: the tail mixes rare long waits with ordinary wake-ups, and extrapolating it says nothing",
                crate::defaults::EVT_MAX_SHAPE
            ),
            Refusal::BadFit { p_value, alpha } => write!(
                f,
                "a generalized Pareto tail does not fit these data (goodness of fit p = {p_value:.3} < {alpha})"
            ),
            Refusal::NoHalves => write!(f, "a check by halves needs the run's windows in both halves"),
            Refusal::TooShort { have_s, need_s } => write!(
                f,
                "{} of data is too little to say what an hour gives (a tail fit extrapolates at most {}× past its data): run at least {}",
                crate::numfmt::ns(*have_s * 1e9),
                crate::defaults::WORST_MAX_EXTRAPOLATION,
                crate::numfmt::ns(*need_s * 1e9)
            ),
            Refusal::NotPastThreshold => {
                write!(
                    f,
                    "the level asked for is not beyond the fitted tail's threshold: the observed percentiles answer it"
                )
            }
        }
    }
}

/// A level exceeded on average `per_period` times a period, with its 95 % interval.
#[derive(Debug, Clone, PartialEq)]
pub struct WorstCase {
    /// The estimate.
    pub level: f64,
    /// The interval's lower end.
    pub lo: f64,
    /// Its upper end; `None` when unbounded.
    pub hi: Option<f64>,
    /// Exceedances expected per period.
    pub per_period: f64,
    /// Samples per period.
    pub period_samples: f64,
}

impl WorstCase {
    /// The probability that the level is exceeded at least once in a period.
    pub fn probability(&self) -> f64 {
        1.0 - (-self.per_period).exp()
    }
}

/// χ²₁'s 95th percentile: the profile-likelihood interval's width.
const CHI2_1_95: f64 = 3.841_458_820_694_124;

/// The cluster maxima of `samples` (in time order) above `u`, as excesses over `u`.
pub fn decluster(samples: &[f64], u: f64, run: usize) -> Vec<f64> {
    let mut out = Vec::new();
    let mut cur: Option<f64> = None;
    let mut below = 0usize;
    for &x in samples {
        if x > u {
            cur = Some(cur.map_or(x, |c| c.max(x)));
            below = 0;
        } else if let Some(c) = cur {
            below += 1;
            if below >= run.max(1) {
                out.push(c - u);
                cur = None;
            }
        }
    }
    if let Some(c) = cur {
        out.push(c - u);
    }
    out
}

/// [`decluster`] over the samples above `u` alone, each with its index in the series (in
/// index order; every sample not given is at or below `u`).
pub fn decluster_indexed(points: &[(u64, f64)], u: f64, run: usize) -> Vec<f64> {
    let mut out = Vec::new();
    let mut cur: Option<(u64, f64)> = None;
    for &(i, x) in points.iter().filter(|p| p.1 > u) {
        cur = match cur {
            // Fewer than `run` samples at or below u between them: the same cluster.
            Some((last, c)) if i - last <= run.max(1) as u64 => Some((i, c.max(x))),
            Some((_, c)) => {
                out.push(c - u);
                Some((i, x))
            }
            None => Some((i, x)),
        };
    }
    if let Some((_, c)) = cur {
        out.push(c - u);
    }
    out
}

/// The GPD log-likelihood of excesses `y`; −∞ outside the support.
fn loglik(y: &[f64], sigma: f64, xi: f64) -> f64 {
    if sigma <= 0.0 || !sigma.is_finite() {
        return f64::NEG_INFINITY;
    }
    let k = y.len() as f64;
    if xi.abs() < 1e-9 {
        return -k * sigma.ln() - y.iter().sum::<f64>() / sigma;
    }
    let mut s = 0.0;
    for &v in y {
        let t = 1.0 + xi * v / sigma;
        if t <= 0.0 {
            return f64::NEG_INFINITY;
        }
        s += t.ln();
    }
    -k * sigma.ln() - (1.0 + 1.0 / xi) * s
}

/// Maximize `f` over `[a, b]`: a grid of `n` points, then golden sections around the best.
fn maximize(f: impl Fn(f64) -> f64, a: f64, b: f64, n: usize) -> (f64, f64) {
    let step = (b - a) / (n - 1) as f64;
    let (mut best, mut at) = (f64::NEG_INFINITY, a);
    for i in 0..n {
        let x = a + step * i as f64;
        let v = f(x);
        if v > best {
            (best, at) = (v, x);
        }
    }
    let (mut lo, mut hi) = ((at - step).max(a), (at + step).min(b));
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let (x1, x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if f(x1) >= f(x2) {
            hi = x2;
        } else {
            lo = x1;
        }
    }
    let x = (lo + hi) / 2.0;
    let v = f(x);
    if v >= best { (x, v) } else { (at, best) }
}

/// The GPD maximum-likelihood fit of excesses `y` (all > 0): (σ, ξ, log-likelihood).
fn gpd_fit(y: &[f64]) -> Option<(f64, f64, f64)> {
    let k = y.len() as f64;
    let ymax = y.iter().copied().fold(0.0, f64::max);
    let mean = y.iter().sum::<f64>() / k;
    if !(ymax > 0.0 && mean > 0.0) {
        return None;
    }
    // The likelihood profiled over s = θ·ymax ∈ (−1, ∞). Where ξ < −1 it grows without bound
    // towards s = −1 (the GPD's irregular corner), so that region is left out: a tail there is
    // refused as having a hard end anyway.
    let shape = |s: f64| y.iter().map(|&v| (s / ymax * v).ln_1p()).sum::<f64>() / k;
    let profile = |s: f64| -> f64 {
        if s.abs() < 1e-12 {
            return -k * mean.ln() - k;
        }
        if s <= -1.0 {
            return f64::NEG_INFINITY;
        }
        let xi = shape(s);
        let sigma = xi / (s / ymax);
        if xi < -1.0 || sigma.is_nan() || sigma <= 0.0 {
            return f64::NEG_INFINITY;
        }
        -k * sigma.ln() - k - k * xi
    };
    // Each side of s = 0 on a log scale: s = −1 + e^(−t) below, s = e^t − 1 above.
    let below = maximize(|t| profile(-1.0 + (-t).exp()), 0.0, 28.0, 120);
    let above = maximize(|t| profile(t.exp() - 1.0), 0.0, 14.0, 120);
    let s = if below.1 >= above.1 { -1.0 + (-below.0).exp() } else { above.0.exp() - 1.0 };
    let (sigma, xi) = if s.abs() < 1e-12 || profile(0.0) >= profile(s) {
        (mean, 0.0)
    } else {
        let xi = shape(s);
        (xi / (s / ymax), xi)
    };
    let ll = loglik(y, sigma, xi);
    ll.is_finite().then_some((sigma, xi, ll))
}

/// The GPD's distribution function at `y`.
fn cdf(y: f64, sigma: f64, xi: f64) -> f64 {
    if y <= 0.0 {
        return 0.0;
    }
    if xi.abs() < 1e-9 {
        return 1.0 - (-y / sigma).exp();
    }
    let t = 1.0 + xi * y / sigma;
    if t <= 0.0 { 1.0 } else { 1.0 - t.powf(-1.0 / xi) }
}

/// Kolmogorov–Smirnov distance of `y` from the GPD (σ, ξ).
fn ks(y: &[f64], sigma: f64, xi: f64) -> f64 {
    let mut v = y.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    v.iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x, sigma, xi);
            (f - i as f64 / n).max((i + 1) as f64 / n - f)
        })
        .fold(0.0, f64::max)
}

/// A draw from the GPD (σ, ξ).
fn draw(rng: &mut StdRng, sigma: f64, xi: f64) -> f64 {
    let u: f64 = rng.random::<f64>().max(1e-300);
    if xi.abs() < 1e-9 { -sigma * u.ln() } else { sigma / xi * (u.powf(-xi) - 1.0) }
}

/// Fit the tail of `samples` (in time order: clusters are found in it).
pub fn fit(samples: &[f64], cfg: &PotConfig) -> Result<TailFit, Refusal> {
    let n = samples.len();
    let need = cfg.min_clusters.max(2);
    if n <= cfg.exceedances {
        return Err(Refusal::TooFew { clusters: 0, need });
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let u = sorted[n - cfg.exceedances - 1];
    fit_clusters(u, decluster(samples, u, cfg.run), n, cfg)
}

/// Fit the cluster maxima's excesses `y` over threshold `u`, found in `n` samples.
pub fn fit_clusters(u: f64, y: Vec<f64>, n: usize, cfg: &PotConfig) -> Result<TailFit, Refusal> {
    let need = cfg.min_clusters.max(2);
    if y.len() < need {
        return Err(Refusal::TooFew { clusters: y.len(), need });
    }
    let (sigma, xi, ll) = gpd_fit(&y).ok_or(Refusal::NoFit)?;
    if xi < -0.5 {
        return Err(Refusal::HardEnd { xi, end: u - sigma / xi });
    }
    if xi >= crate::defaults::EVT_MAX_SHAPE {
        return Err(Refusal::NoMean { xi });
    }
    let d = ks(&y, sigma, xi);
    // The bootstrap: resamples of the fitted tail, each refitted, their distances against d.
    let mut rng = StdRng::seed_from_u64(crate::defaults::EVT_SEED);
    let mut at_least = 0usize;
    let mut buf = vec![0.0; y.len()];
    for _ in 0..cfg.resamples {
        for b in buf.iter_mut() {
            *b = draw(&mut rng, sigma, xi);
        }
        let db = gpd_fit(&buf).map_or(f64::INFINITY, |(s, x, _)| ks(&buf, s, x));
        if db >= d {
            at_least += 1;
        }
    }
    let p_value = if cfg.resamples == 0 { f64::NAN } else { (1 + at_least) as f64 / (1 + cfg.resamples) as f64 };
    if p_value < cfg.alpha {
        return Err(Refusal::BadFit { p_value, alpha: cfg.alpha });
    }
    Ok(TailFit { threshold: u, sigma, xi, clusters: y.len(), samples: n, loglik: ll, ks: d, p_value, excesses: y })
}

impl TailFit {
    /// Clusters above the threshold per sample (ζ).
    pub fn rate(&self) -> f64 {
        self.clusters as f64 / self.samples as f64
    }

    /// r = ζm/N: the threshold's expected exceedances per period over those asked for.
    fn ratio(&self, period_samples: f64, per_period: f64) -> f64 {
        self.rate() * period_samples / per_period
    }

    /// The excess over the threshold exceeded `1/r` as often as the threshold is.
    fn excess(sigma: f64, xi: f64, r: f64) -> f64 {
        if xi.abs() < 1e-9 { sigma * r.ln() } else { sigma / xi * (r.powf(xi) - 1.0) }
    }

    /// The profile log-likelihood of excess `z` at ratio `r`.
    fn profile(&self, z: f64, r: f64) -> f64 {
        let y = &self.excesses;
        let sigma_of = |xi: f64| if xi.abs() < 1e-9 { z / r.ln() } else { xi * z / (r.powf(xi) - 1.0) };
        maximize(|xi| loglik(y, sigma_of(xi), xi), -0.99, 3.0, 120).1
    }

    /// The level exceeded on average `per_period` times in a period of `period_samples`
    /// samples, with its 95 % profile-likelihood interval.
    pub fn level(&self, period_samples: f64, per_period: f64) -> Result<WorstCase, Refusal> {
        let r = self.ratio(period_samples, per_period);
        if r <= 1.0 || per_period <= 0.0 {
            return Err(Refusal::NotPastThreshold);
        }
        let z = Self::excess(self.sigma, self.xi, r);
        let cut = self.loglik - CHI2_1_95 / 2.0;
        let inside = |x: f64| self.profile(x, r) >= cut;
        // Lower end: between 0 and z, by bisection on a log scale.
        let (mut a, mut b) = (z * 1e-6, z);
        let lo = if inside(a) {
            a
        } else {
            for _ in 0..60 {
                let m = (a * b).sqrt();
                if inside(m) { b = m } else { a = m }
            }
            b
        };
        // Upper end: doubling until outside (unbounded past a million times the estimate).
        let mut hi = None;
        let mut x = z * 2.0;
        while x < z * 1e6 {
            if !inside(x) {
                let (mut a, mut b) = (x / 2.0, x);
                for _ in 0..60 {
                    let m = (a * b).sqrt();
                    if inside(m) { a = m } else { b = m }
                }
                hi = Some(a);
                break;
            }
            x *= 2.0;
        }
        let u = self.threshold;
        Ok(WorstCase { level: u + z, lo: u + lo, hi: hi.map(|h| u + h), per_period, period_samples })
    }
}

/// The honest check of an estimate: fit on the first half of `samples`, ask for the level
/// exceeded `per_period` times a period of `period_samples`, and count how often the second
/// half exceeded it (clusters, as fitted).
#[derive(Debug, Clone, PartialEq)]
pub struct SplitCheck {
    /// The estimate from the first half.
    pub worst: WorstCase,
    /// Clusters in the second half above it.
    pub exceeded: usize,
    /// Exceedances the estimate expects in the second half.
    pub expected: f64,
    /// P(at least `exceeded` | the estimate): binomial over the second half's samples.
    pub p_value: f64,
}

impl SplitCheck {
    /// Whether the second half exceeded the estimate no more often than its probability allows
    /// at level `alpha` (one-sided: more exceedances than stated is the failure).
    pub fn holds(&self, alpha: f64) -> bool {
        self.p_value >= alpha
    }
}

/// Fit on the first half, count in the second.
pub fn split_check(
    samples: &[f64],
    cfg: &PotConfig,
    period_samples: f64,
    per_period: f64,
) -> Result<SplitCheck, Refusal> {
    let (first, second) = samples.split_at(samples.len() / 2);
    let f = fit(first, cfg)?;
    let worst = f.level(period_samples, per_period)?;
    let exceeded = decluster(second, worst.level, cfg.run).len();
    let p = (per_period / period_samples).min(1.0);
    let expected = p * second.len() as f64;
    Ok(SplitCheck { worst, exceeded, expected, p_value: binomial_at_least(second.len() as u64, p, exceeded as u64) })
}

/// P(X ≥ x) for X ~ Binomial(n, p).
pub fn binomial_at_least(n: u64, p: f64, x: u64) -> f64 {
    if x == 0 {
        return 1.0;
    }
    if p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    // 1 − P(X < x), the pmf by its recurrence from (1 − p)^n, in logs.
    let mut log_pmf = n as f64 * (-p).ln_1p();
    let ratio = (p / (1.0 - p)).ln();
    let mut below = 0.0;
    for k in 0..x.min(n + 1) {
        below += log_pmf.exp();
        log_pmf += ((n - k) as f64).ln() - ((k + 1) as f64).ln() + ratio;
    }
    (1.0 - below).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests;
