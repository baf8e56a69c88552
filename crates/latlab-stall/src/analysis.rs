//! The typing probe's arithmetic: from the keys' intended send times and the times their
//! answers arrived, the echo latency of each key, the stalls (a gap between consecutive
//! screen updates beyond the key interval) and the fraction of time spent waiting. Pure
//! functions of the timestamps, so tests run them on made-up timelines.

/// What a probe run measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProbeStats {
    /// Keys sent.
    pub keys: u64,
    /// Keys never answered.
    pub lost: u64,
    /// Echo latency per answered key (answer time − intended send time), ns.
    pub echo: Vec<i64>,
    /// Stall per gap between consecutive answers (gap − interval, at least 0), ns.
    pub stalls: Vec<i64>,
    /// Sum of stalls over the time from the first answer to the last.
    pub waiting_fraction: f64,
}

/// Analyse one run: `intended[k]` is key k's deadline, `answered[k]` its answer's arrival
/// (`None`: never), `interval` the key interval; all on one monotonic clock, ns.
pub fn analyze(intended: &[u64], answered: &[Option<u64>], interval: u64) -> ProbeStats {
    let mut s = ProbeStats { keys: intended.len() as u64, ..ProbeStats::default() };
    let mut arrivals = Vec::with_capacity(answered.len());
    for (k, a) in answered.iter().enumerate() {
        match (a, intended.get(k)) {
            (Some(t), Some(&i)) => {
                s.echo.push(*t as i64 - i as i64);
                arrivals.push(*t);
            }
            _ => s.lost += 1,
        }
    }
    s.lost += intended.len().saturating_sub(answered.len()) as u64;
    // Updates in the order the user saw them.
    arrivals.sort_unstable();
    s.stalls = arrivals.windows(2).map(|w| (w[1] - w[0]).saturating_sub(interval) as i64).collect();
    let span = match (arrivals.first(), arrivals.last()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => 0,
    };
    if span > 0 {
        s.waiting_fraction = s.stalls.iter().sum::<i64>() as f64 / span as f64;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn a_prompt_server_never_stalls() {
        let intended: Vec<u64> = (0..10).map(|k| 1_000 * MS + k * 50 * MS).collect();
        let answered: Vec<Option<u64>> = intended.iter().map(|&t| Some(t + 2 * MS)).collect();
        let s = analyze(&intended, &answered, 50 * MS);
        assert_eq!(s.echo, vec![2 * MS as i64; 10]);
        assert_eq!(s.stalls, vec![0; 9]);
        assert_eq!((s.keys, s.lost, s.waiting_fraction), (10, 0, 0.0));
    }

    #[test]
    fn a_held_server_stalls_then_bursts() {
        // Keys at 0, 50, …, 450 ms; the server is away from 100 to 300 ms, then answers the
        // three waiting keys at once.
        let intended: Vec<u64> = (0..10).map(|k| k * 50 * MS).collect();
        let answered: Vec<Option<u64>> = intended
            .iter()
            .map(|&t| Some(if (100 * MS..300 * MS).contains(&t) { 300 * MS + MS } else { t + MS }))
            .collect();
        let s = analyze(&intended, &answered, 50 * MS);
        // The gap 51 → 301 ms is 250 ms: a 200 ms stall; the burst's gaps are 0.
        assert_eq!(s.stalls.iter().max(), Some(&(200 * MS as i64)));
        assert_eq!(s.stalls.iter().filter(|&&x| x > 0).count(), 1);
        assert_eq!(s.echo[2], 201 * MS as i64);
        // 200 ms of stalls over the 450 ms from the first answer to the last.
        assert!((s.waiting_fraction - 200.0 / 450.0).abs() < 1e-12);
    }

    #[test]
    fn lost_keys_are_counted_and_leave_no_echo() {
        let intended = [0, 50 * MS, 100 * MS];
        let s = analyze(&intended, &[Some(MS), None], 50 * MS);
        assert_eq!((s.keys, s.lost, s.echo.len()), (3, 2, 1));
        assert!(s.stalls.is_empty());
        assert_eq!(s.waiting_fraction, 0.0);
    }
}
