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
}
