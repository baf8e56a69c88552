//! Deterministic synthetic samples for tests, benchmarks and demonstrations — never mixed
//! into a measured run.

/// `n` latency-like samples in ns: 3–7 µs uniformly (xorshift64 from a fixed seed), with one
/// sample in 10,000 a hundred times longer, like the rare tails of a real wake-up series.
pub fn latency_like(n: usize) -> Vec<i64> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let base = 3_000 + (x % 4_000) as i64;
            if x.is_multiple_of(10_000) { base * 100 } else { base }
        })
        .collect()
}

/// `n` latency-like samples in ns with an exponential tail: 3 µs plus an exponential of mean
/// 2 µs (xorshift64 from a fixed seed), a tail whose worst case per hour a fit can find.
pub fn exponential_tail(n: usize) -> Vec<i64> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let u = ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
            3_000 + (-2_000.0 * u.ln()) as i64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn deterministic_and_in_range() {
        let a = super::latency_like(100_000);
        assert_eq!(a, super::latency_like(100_000));
        assert!(a.iter().all(|&v| (3_000..700_000).contains(&v)));
        assert!(a.iter().any(|&v| v >= 300_000), "the tail is there");
    }
}
