//! Per-PDU figures of bulk decompression (seed 000's instrumentation of RDP 6.0's
//! decompressor): each compressed PDU's size on the wire and decompressed, and the CPU time its
//! decompression took. Kept in fixed-bound histograms, so recording never allocates.

use hdrhistogram::Histogram;

/// Largest PDU size tracked, bytes (an update's size field is 16 bits; larger saturates).
const MAX_BYTES: u64 = 1 << 20;
/// Longest decompression tracked, ns (one second; longer saturates).
const MAX_NS: u64 = 1_000_000_000;

/// Histograms of the compressed PDUs a client received.
#[derive(Debug, Clone, PartialEq)]
pub struct PduStats {
    /// Bytes of each compressed PDU as received (the compressor's output).
    pub raw: Histogram<u64>,
    /// Bytes of each after decompression.
    pub plain: Histogram<u64>,
    /// CPU time of each decompression, ns of the receiving thread.
    pub ns: Histogram<u64>,
}

impl Default for PduStats {
    fn default() -> Self {
        let h = |max| Histogram::<u64>::new_with_bounds(1, max, 3).expect("static bounds are valid");
        Self { raw: h(MAX_BYTES), plain: h(MAX_BYTES), ns: h(MAX_NS) }
    }
}

impl PduStats {
    /// One compressed PDU: `raw` bytes in, `plain` out, `ns` of CPU.
    pub fn record(&mut self, raw: usize, plain: usize, ns: u64) {
        self.raw.saturating_record(raw.max(1) as u64);
        self.plain.saturating_record(plain.max(1) as u64);
        self.ns.saturating_record(ns.max(1));
    }

    /// PDUs recorded.
    pub fn count(&self) -> u64 {
        self.raw.len()
    }

    /// Add another's PDUs.
    pub fn add(&mut self, o: &PduStats) {
        // Same bounds on both sides: adding cannot fail.
        let _ = self.raw.add(&o.raw);
        let _ = self.plain.add(&o.plain);
        let _ = self.ns.add(&o.ns);
    }

    /// Decompressed bytes per compressed byte over all PDUs.
    pub fn ratio(&self) -> f64 {
        let sum = |h: &Histogram<u64>| h.mean() * h.len() as f64;
        sum(&self.plain) / sum(&self.raw).max(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdus_are_counted_with_their_sizes_times_and_ratio() {
        let mut s = PduStats::default();
        assert_eq!(s.count(), 0);
        s.record(1_000, 5_000, 20_000);
        s.record(3_000, 9_000, 60_000);
        // A size beyond the bound saturates instead of being lost.
        s.record(5 << 20, 6 << 20, 2_000_000_000);
        assert_eq!(s.count(), 3);
        assert_eq!(s.raw.min(), 1_000);
        assert!(s.ns.max() >= MAX_NS * 999 / 1000);
        let mut t = PduStats::default();
        t.record(1_000, 5_000, 20_000);
        t.record(3_000, 9_000, 60_000);
        assert!((t.ratio() - 3.5).abs() < 0.01, "{}", t.ratio());
        t.add(&s);
        assert_eq!(t.count(), 5);
    }
}
