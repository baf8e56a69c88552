//! One window of a probe: every sample's latency from its intended time, summarised (count,
//! sum, min, max, p50/p99/p99.9) and counted into fixed log-spaced buckets, with the pulses
//! missed and packets lost. Memory is fixed when the window is made (an HDR histogram over a
//! fixed range and the bucket array), so a monitor's memory stays flat however long it runs;
//! recording allocates nothing.

/// Upper bounds of the stored and exported buckets, ns: 1-2-5 steps from 1 µs to 10 s (the
/// last bucket, past 10 s, is `+Inf`). Fixed so windows of every run and host add up, and so
/// Prometheus's `le` labels never change.
pub const BUCKETS_NS: [u64; 22] = [
    1_000,
    2_000,
    5_000,
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    200_000_000,
    500_000_000,
    1_000_000_000,
    2_000_000_000,
    5_000_000_000,
    10_000_000_000,
];

/// Largest latency the percentile histogram holds (larger ones are clamped to it, and still
/// counted exactly in max and in the `+Inf` bucket): 60 s.
const HIST_MAX_NS: u64 = 60_000_000_000;
/// Significant digits of the percentiles: 2 (1 % resolution, 17 KB a window).
const HIST_DIGITS: u8 = 2;

/// A window being filled, or closed.
#[derive(Debug, Clone)]
pub struct Window {
    /// Start, ns on the monitor's clock.
    pub start_ns: u64,
    /// End (exclusive), ns on the monitor's clock.
    pub end_ns: u64,
    /// Schedule state the window ran in (`mixed` if it changed during the window).
    pub state: &'static str,
    /// Samples.
    pub count: u64,
    /// Sum of latencies, ns.
    pub sum_ns: u64,
    /// Smallest latency, ns (0 without samples).
    pub min_ns: u64,
    /// Largest latency, ns.
    pub max_ns: u64,
    /// Samples per bucket (not cumulative): one per [`BUCKETS_NS`] bound, then `+Inf`.
    pub buckets: [u64; BUCKETS_NS.len() + 1],
    /// Pulses missed (a deadline passed while the probe was still late for an earlier one).
    pub missed: u64,
    /// Packets lost.
    pub lost: u64,
    /// The largest samples so far, (index in the window, latency), in no order: the first
    /// `tops_len` entries.
    pub tops: [(u32, u64); TOPS],
    /// Entries of `tops` in use.
    pub tops_len: usize,
    /// Where the smallest of a full `tops` is.
    tops_min: usize,
    hist: hdrhistogram::Histogram<u32>,
}

pub use latlab_model::window::TOPS;

/// The name of a window whose schedule state changed while it ran.
pub const MIXED: &str = "mixed";

impl Window {
    /// An empty window over `[start_ns, end_ns)` in `state`.
    pub fn new(start_ns: u64, end_ns: u64, state: &'static str) -> Self {
        let hist = hdrhistogram::Histogram::new_with_bounds(1, HIST_MAX_NS, HIST_DIGITS)
            .expect("fixed, valid histogram bounds");
        Self {
            start_ns,
            end_ns,
            state,
            count: 0,
            sum_ns: 0,
            min_ns: 0,
            max_ns: 0,
            buckets: [0; BUCKETS_NS.len() + 1],
            missed: 0,
            lost: 0,
            tops: [(0, 0); TOPS],
            tops_len: 0,
            tops_min: 0,
            hist,
        }
    }

    /// Empty this window and move it to `[start_ns, end_ns)` in `state`, keeping its memory.
    pub fn reset(&mut self, start_ns: u64, end_ns: u64, state: &'static str) {
        (self.start_ns, self.end_ns, self.state) = (start_ns, end_ns, state);
        (self.count, self.sum_ns, self.min_ns, self.max_ns, self.missed, self.lost) = (0, 0, 0, 0, 0, 0);
        self.buckets = [0; BUCKETS_NS.len() + 1];
        (self.tops_len, self.tops_min) = (0, 0);
        self.hist.reset();
    }

    /// Count one latency (negative values, a wake-up before its deadline, count as 0).
    #[inline]
    pub fn record(&mut self, latency_ns: i64) {
        let v = latency_ns.max(0) as u64;
        if self.count == 0 || v < self.min_ns {
            self.min_ns = v;
        }
        self.max_ns = self.max_ns.max(v);
        self.keep_top(self.count as u32, v);
        self.count += 1;
        self.sum_ns = self.sum_ns.saturating_add(v);
        let b = BUCKETS_NS.partition_point(|&le| le < v);
        self.buckets[b] += 1;
        self.hist.saturating_record(v.clamp(1, HIST_MAX_NS));
    }

    /// Keep sample `i` of latency `v` if it is among the window's [`TOPS`] largest.
    #[inline]
    fn keep_top(&mut self, i: u32, v: u64) {
        if self.tops_len < TOPS {
            self.tops[self.tops_len] = (i, v);
            self.tops_len += 1;
        } else if v > self.tops[self.tops_min].1 {
            self.tops[self.tops_min] = (i, v);
        } else {
            return;
        }
        if self.tops_len == TOPS {
            self.tops_min = (0..TOPS).min_by_key(|&k| self.tops[k].1).unwrap_or(0);
        }
    }

    /// The kept largest samples in index order, flattened as stored
    /// ([`latlab_model::window::WindowRow::tops`]).
    pub fn tops_in_order(tops: &[(u32, u64)]) -> Vec<i64> {
        let mut t = tops.to_vec();
        t.sort_unstable_by_key(|p| p.0);
        t.iter().flat_map(|&(i, v)| [i as i64, v as i64]).collect()
    }

    /// Note that the schedule state is now `state` (a change makes the window [`MIXED`]).
    #[inline]
    pub fn note_state(&mut self, state: &'static str) {
        if state != self.state {
            self.state = MIXED;
        }
    }

    /// The latency at quantile `q` (0–1), ns; 0 without samples. Within 1 % (two significant
    /// digits), and never above the exact maximum.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        self.hist.value_at_quantile(q).min(self.max_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_counts_sums_buckets_and_ranks() {
        let mut w = Window::new(0, 1_000, "idle");
        for v in [500, 1_000, 1_001, 7_000, 15_000_000_000, -3] {
            w.record(v);
        }
        assert_eq!((w.count, w.min_ns, w.max_ns), (6, 0, 15_000_000_000));
        assert_eq!(w.sum_ns, 500 + 1_000 + 1_001 + 7_000 + 15_000_000_000);
        // ≤1 µs: 0, 500, 1000; ≤2 µs: 1001; ≤10 µs: 7000; +Inf: 15 s.
        assert_eq!(w.buckets[0], 3);
        assert_eq!(w.buckets[1], 1);
        assert_eq!(w.buckets[3], 1);
        assert_eq!(w.buckets[BUCKETS_NS.len()], 1);
        assert_eq!(w.buckets.iter().sum::<u64>(), w.count);
        assert_eq!(w.quantile(1.0), w.max_ns.min(HIST_MAX_NS));
        let p50 = w.quantile(0.5);
        assert!((990..=1_010).contains(&p50), "{p50}");
        w.note_state("idle");
        assert_eq!(w.state, "idle");
        w.note_state("load");
        assert_eq!(w.state, MIXED);
        w.reset(1_000, 2_000, "load");
        assert_eq!((w.count, w.max_ns, w.state, w.quantile(0.99)), (0, 0, "load", 0));
        assert_eq!(w.buckets, [0; BUCKETS_NS.len() + 1]);
    }

    #[test]
    fn a_window_keeps_its_largest_samples_with_their_places() {
        let mut w = Window::new(0, 1_000, "idle");
        let x: Vec<i64> = (0..10_000).map(|i| (i * 7_919) % 10_007).collect();
        for &v in &x {
            w.record(v);
        }
        let mut want: Vec<(u32, u64)> = x.iter().enumerate().map(|(i, &v)| (i as u32, v as u64)).collect();
        want.sort_by_key(|p| std::cmp::Reverse(p.1));
        want.truncate(TOPS);
        let kept = Window::tops_in_order(&w.tops[..w.tops_len]);
        assert_eq!(kept, Window::tops_in_order(&want));
        assert!(kept.chunks(2).all(|p| x[p[0] as usize] == p[1]), "each with its place");
        w.reset(1_000, 2_000, "idle");
        w.record(5);
        assert_eq!(Window::tops_in_order(&w.tops[..w.tops_len]), vec![0, 5]);
    }

    #[test]
    fn buckets_are_increasing_and_end_at_ten_seconds() {
        assert!(BUCKETS_NS.windows(2).all(|p| p[0] < p[1]));
        assert_eq!(*BUCKETS_NS.last().unwrap(), 10_000_000_000);
    }
}
