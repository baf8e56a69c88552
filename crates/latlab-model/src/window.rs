//! A window of a long-running probe (`latlab monitor`) as stored: its latency summary and
//! histogram buckets.

/// One stored window of a `latlab monitor` probe.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WindowRow {
    /// The probe (`rt`, …).
    pub probe: String,
    /// Start, ns since the Unix epoch.
    pub start_ns: i64,
    /// End (exclusive).
    pub end_ns: i64,
    /// The schedule's state: `idle`, `load` or `mixed`.
    pub state: String,
    /// Samples.
    pub count: i64,
    /// Sum of latencies, ns.
    pub sum_ns: i64,
    /// Smallest latency, ns.
    pub min_ns: i64,
    /// Median latency, ns.
    pub p50_ns: i64,
    /// 99th percentile, ns.
    pub p99_ns: i64,
    /// 99.9th percentile, ns.
    pub p999_ns: i64,
    /// Largest latency, ns.
    pub max_ns: i64,
    /// Missed pulses.
    pub missed: i64,
    /// Lost packets.
    pub lost: i64,
    /// Samples per bucket (the monitor's fixed bounds, then +Inf), not cumulative.
    pub buckets: Vec<i64>,
    /// The window's largest samples, at most [`TOPS`], as (index in the window, latency ns)
    /// pairs flattened, in index order: the tail a worst case per hour is fitted on. Empty in
    /// windows stored before they were kept.
    #[serde(default)]
    pub tops: Vec<i64>,
}

/// Largest samples a window keeps: 128. A run's tail (about √n samples, up to 1,000) spread
/// over its windows is tens a window (45 in each minute of a 30-minute run at 1 kHz); a window
/// that fills all 128 raises the tail's threshold to its smallest kept, so the tail stays
/// exact. 2 KiB a window.
pub const TOPS: usize = 128;

impl WindowRow {
    /// The kept largest samples: (index in the window, latency ns), in index order.
    pub fn top_samples(&self) -> impl Iterator<Item = (u64, i64)> + '_ {
        self.tops.chunks_exact(2).map(|p| (p[0] as u64, p[1]))
    }
}
