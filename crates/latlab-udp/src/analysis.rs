//! Analysis of a probe trace: send-interval fidelity, the receive inter-arrival beside the
//! send interval, RTT, loss, duplicates, reordering, IPDV, RFC 3550 jitter, PDV, and the two
//! things seed 002 is about — **burst detection** (packets held and released together while
//! the sender kept its interval) and the **de-jitter cost** (how late packets would be if
//! played out by sender timestamp after a given playout delay).
//!
//! Clocks: the sender's times and its RTT use the sender's clocks only; forward one-way
//! figures compare the sender's `CLOCK_REALTIME` with the reflector's, so without
//! synchronized clocks only *differences* of one-way delay (IPDV, PDV, de-jitter) mean
//! anything — absolute one-way delay is reported only when both ends share a clock
//! (loopback).

use latlab_model::numfmt::sig;
use latlab_model::stats;

/// What the prober recorded, per sequence number (index = seq). Memory: 40 bytes a packet.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// Nominal interval, ns.
    pub interval_ns: u64,
    /// Planned send time of packet 0 (sender monotonic); packet k is planned at
    /// `start + k·interval`.
    pub start_ns: u64,
    /// Actual send time (sender monotonic), 0 = not sent.
    pub sent_mono: Vec<u64>,
    /// Actual send time (sender realtime).
    pub sent_wall: Vec<i64>,
    /// Reply arrival at the sender (kernel timestamp, sender realtime), 0 = no reply.
    pub rx_client: Vec<i64>,
    /// Reflector's kernel receive time (reflector realtime).
    pub refl_rx: Vec<i64>,
    /// Reflector's send time (reflector realtime).
    pub refl_tx: Vec<i64>,
    /// How long each `sendto` took, from the call to its return (ns; 0 = not sent): the
    /// seed's time "from invoking the SendToAsync method to receive the Completed event".
    pub send_call: Vec<i64>,
    /// Replies received more than once.
    pub duplicates: u64,
    /// Sender and reflector read the same clock (loopback), so one-way delay is absolute.
    pub same_clock: bool,
}

impl Trace {
    /// An empty trace for `n` packets.
    /// Its pages are written now, so the sender's and receiver's loops take no page faults.
    pub fn with_capacity(n: usize, interval_ns: u64, start_ns: u64, same_clock: bool) -> Self {
        use latlab_sys::platform::prefaulted;
        Self {
            interval_ns,
            start_ns,
            sent_mono: prefaulted(n),
            sent_wall: prefaulted(n),
            rx_client: prefaulted(n),
            refl_rx: prefaulted(n),
            refl_tx: prefaulted(n),
            send_call: prefaulted(n),
            duplicates: 0,
            same_clock,
        }
    }
    /// Packets actually sent.
    pub fn sent(&self) -> usize {
        self.sent_mono.iter().take_while(|&&t| t != 0).count()
    }
    /// True if packet `k`'s reply came back.
    pub fn received(&self, k: usize) -> bool {
        self.rx_client[k] != 0
    }
}

/// One detected burst: packets that reached the receiver back to back.
#[derive(Debug, Clone, PartialEq)]
pub struct Burst {
    /// Arrival of its first packet (receiver clock), ns.
    pub start_ns: i64,
    /// Packets in it.
    pub size: u64,
    /// The receive gap just before it (the hold), ns, if the previous packet arrived.
    pub hold_gap_ns: Option<i64>,
}

/// The burst detector's findings.
#[derive(Debug, Clone, PartialEq)]
pub struct BurstReport {
    /// Consecutive pairs examined.
    pub pairs: u64,
    /// Pairs whose receive gap was under 10 % of the interval.
    pub coalesced: u64,
    /// The bursts, in arrival order.
    pub bursts: Vec<Burst>,
    /// Estimated release period, ns, when bursts recur regularly.
    pub release_period_ns: Option<f64>,
    /// Median sender gap, ns.
    pub send_gap_p50: Option<i64>,
    /// Median receive gap, ns.
    pub recv_gap_p50: Option<i64>,
    /// The verdict in words.
    pub verdict: String,
}

impl BurstReport {
    /// Coalesced pairs / pairs.
    pub fn coalesced_ratio(&self) -> f64 {
        if self.pairs == 0 { 0.0 } else { self.coalesced as f64 / self.pairs as f64 }
    }
    /// True if the pattern of seed 002 was seen.
    pub fn detected(&self) -> bool {
        self.bursts.len() >= 2 && self.coalesced_ratio() >= MIN_COALESCED_RATIO
    }
}

/// A pair counts as coalesced when its receive gap is under this fraction of the interval
/// while its send gap was at least half the interval.
pub const COALESCED_FRACTION: f64 = 0.1;
/// Bursts are reported when at least this share of pairs coalesced (a stray pair is noise).
pub const MIN_COALESCED_RATIO: f64 = 0.05;

/// A consecutive pair (packets k and k+1, both received) seen from both ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    /// Sequence number of the first packet.
    pub k: u64,
    /// Sender gap, ns.
    pub s: i64,
    /// Receiver gap, ns.
    pub r: i64,
    /// Arrival of the first packet, ns.
    pub t: i64,
}

fn fmt_ms(ns: f64) -> String {
    if ns >= 10e6 { format!("{:.0} ms", ns / 1e6) } else { format!("{} ms", sig(ns / 1e6)) }
}

/// Detect bursts among consecutive pairs (ordered by `k`) for a nominal `interval`.
pub fn detect_bursts(pairs: &[Pair], interval_ns: u64) -> BurstReport {
    let s: Vec<i64> = pairs.iter().map(|p| p.s).collect();
    let r: Vec<i64> = pairs.iter().map(|p| p.r).collect();
    detect_bursts_iter(pairs.iter().copied(), interval_ns, stats::percentile(&s, 50.0), stats::percentile(&r, 50.0))
}

/// The detector in one pass over pairs of consecutively *received* packets (a lost packet
/// inside a burst does not split it), given the median send and receive gaps.
pub fn detect_bursts_iter(
    pairs: impl Iterator<Item = Pair>,
    interval_ns: u64,
    send_gap_p50: Option<i64>,
    recv_gap_p50: Option<i64>,
) -> BurstReport {
    let thresh = (interval_ns as f64 * COALESCED_FRACTION) as i64;
    let sender_min = (interval_ns / 2) as i64;
    let mut bursts = Vec::new();
    let (mut coalesced, mut count) = (0u64, 0u64);
    let mut prev: Option<Pair> = None;
    let mut open: Option<Burst> = None;
    for p in pairs {
        count += 1;
        // Coalesced: arrived together although the sender spaced them (a sender that stalled
        // and caught up is not the pathology being looked for).
        if p.r < thresh && p.s >= sender_min {
            coalesced += 1;
            match open.as_mut() {
                Some(b) => b.size += 1,
                None => open = Some(Burst { start_ns: p.t, size: 2, hold_gap_ns: prev.map(|q| q.r) }),
            }
        } else if let Some(b) = open.take() {
            bursts.push(b);
        }
        prev = Some(p);
    }
    bursts.extend(open);
    let release_period_ns = release_period(&bursts);
    let mut rep = BurstReport {
        pairs: count,
        coalesced,
        bursts,
        release_period_ns,
        send_gap_p50,
        recv_gap_p50,
        verdict: String::new(),
    };
    rep.verdict = verdict(&rep, interval_ns);
    rep
}

fn verdict(rep: &BurstReport, interval_ns: u64) -> String {
    let kept =
        rep.send_gap_p50.map(|g| ((g as f64) - interval_ns as f64).abs() <= 0.1 * interval_ns as f64).unwrap_or(false);
    let sender = if kept {
        format!("while the sender kept its interval (median send gap {})", fmt_ms(rep.send_gap_p50.unwrap_or(0) as f64))
    } else {
        format!(
            "but the sender did not keep its interval either (median send gap {} for {})",
            fmt_ms(rep.send_gap_p50.unwrap_or(0) as f64),
            fmt_ms(interval_ns as f64)
        )
    };
    let sizes: Vec<i64> = rep.bursts.iter().map(|b| b.size as i64).collect();
    let median_size = stats::percentile(&sizes, 50.0).unwrap_or(0);
    if rep.pairs == 0 {
        "not enough consecutive packets arrived to look for bursts".into()
    } else if rep.detected() {
        match rep.release_period_ns {
            Some(p) => format!(
                "packets held and released in bursts every ~{} {sender}: {} bursts of median {median_size} packets, {:.0} % of arrivals coalesced",
                fmt_ms(p),
                rep.bursts.len(),
                rep.coalesced_ratio() * 100.0
            ),
            None => format!(
                "packets arrived in bursts with no regular release period {sender}: {} bursts of median {median_size} packets, {:.0} % of arrivals coalesced",
                rep.bursts.len(),
                rep.coalesced_ratio() * 100.0
            ),
        }
    } else {
        format!(
            "no bursts: {} % of arrivals came closer than {} % of the interval",
            sig(rep.coalesced_ratio() * 100.0),
            (COALESCED_FRACTION * 100.0) as u32
        )
    }
}

/// The release period when burst starts recur regularly: at least 3 bursts whose spacing
/// varies by less than 20 % (p90 − p10 over the median). The estimate is the whole span
/// over the number of periods, which averages out each burst's own timing noise; when a
/// release carried no packet (a spacing near twice the median), the median spacing is used.
pub fn release_period(bursts: &[Burst]) -> Option<f64> {
    if bursts.len() < 3 {
        return None;
    }
    let d: Vec<i64> = bursts.windows(2).map(|w| w[1].start_ns - w[0].start_ns).collect();
    let s = stats::sorted(&d);
    let med = stats::percentile_sorted(&s, 50.0)? as f64;
    if med <= 0.0 {
        return None;
    }
    let spread = (stats::percentile_sorted(&s, 90.0)? - stats::percentile_sorted(&s, 10.0)?) as f64;
    if spread / med >= 0.2 {
        return None;
    }
    if s.iter().all(|&x| (x as f64 - med).abs() < 0.5 * med) {
        let span = (bursts.last()?.start_ns - bursts.first()?.start_ns) as f64;
        Some(span / (bursts.len() - 1) as f64)
    } else {
        Some(med)
    }
}

/// Seed 002's other reading of the receiver's gaps: on the Omnia 7 they ran "~20+%" longer
/// than the interval, and packets then arriving together made up for it, "so on average the
/// same elapsed time".
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stretch {
    /// Median receive gap of the pairs that did not arrive together (a receive gap of at least
    /// [`COALESCED_FRACTION`] of the interval), ns.
    pub held_p50: Option<i64>,
    /// Mean receive gap of every pair, ns.
    pub mean: Option<f64>,
}

/// The stretch of `pairs` sent one interval apart (pairs whose send gap is off the interval by
/// more than half, around a loss or a stalled sender, are left out).
pub fn stretch(pairs: impl Iterator<Item = Pair>, interval_ns: u64) -> Stretch {
    let iv = interval_ns as i64;
    let thresh = (interval_ns as f64 * COALESCED_FRACTION) as i64;
    let (mut held, mut sum, mut n) = (Vec::new(), 0i128, 0i64);
    for p in pairs.filter(|p| (p.s - iv).abs() <= iv / 2) {
        sum += p.r as i128;
        n += 1;
        if p.r >= thresh {
            held.push(p.r);
        }
    }
    Stretch { held_p50: stats::percentile(&held, 50.0), mean: (n > 0).then(|| sum as f64 / n as f64) }
}

/// Pairs of consecutively received packets on the forward path (sender → reflector), in
/// sequence order; a lost packet is skipped, so its neighbours form a pair.
pub fn forward_pairs(t: &Trace) -> impl Iterator<Item = Pair> + '_ {
    let n = t.sent();
    let mut last: Option<usize> = None;
    (0..n).filter_map(move |k| {
        if !t.received(k) {
            return None;
        }
        let out = last.map(|j| Pair {
            k: j as u64,
            s: t.sent_mono[k] as i64 - t.sent_mono[j] as i64,
            r: t.refl_rx[k] - t.refl_rx[j],
            t: t.refl_rx[j],
        });
        last = Some(k);
        out
    })
}

/// The de-jitter cost curve: for each playout delay D (added to the smallest one-way delay
/// seen), the fraction of received packets that would arrive after their playout time if
/// played out by sender timestamp — i.e. whose PDV exceeds D.
pub fn dejitter_curve(pdv_sorted: &[i64], delays: &[i64]) -> Vec<(i64, f64)> {
    let n = pdv_sorted.len().max(1) as f64;
    delays
        .iter()
        .map(|&d| {
            let late = pdv_sorted.len() - pdv_sorted.partition_point(|&x| x <= d);
            (d, late as f64 / n)
        })
        .collect()
}

/// Playout delays for the curve: 0, then log-spaced from 10 µs to the largest PDV.
pub fn dejitter_delays(max_pdv: i64) -> Vec<i64> {
    let mut v = vec![0i64];
    let hi = max_pdv.max(10_000) as f64;
    let steps = 24;
    for i in 0..=steps {
        let d = (10_000f64 * (hi / 10_000f64).powf(i as f64 / steps as f64)).round() as i64;
        if d > *v.last().unwrap_or(&0) {
            v.push(d);
        }
    }
    v
}

/// RFC 4737 reordering on the forward path: in order of arrival at the reflector, a packet
/// is reordered when its sequence number is below the next expected one (the highest seen
/// plus one). Also returns the RFC 3550 interarrival jitter over the same arrival order.
/// Returns (reordered, received, final RFC 3550 jitter in ns).
pub fn arrival_order_stats(t: &Trace) -> (u64, u64, f64) {
    let n = t.sent();
    let mut idx: Vec<u32> = (0..n as u32).filter(|&k| t.received(k as usize)).collect();
    idx.sort_unstable_by_key(|&k| (t.refl_rx[k as usize], k));
    let mut next_exp = 0u64;
    let mut re = 0;
    for &k in &idx {
        if (k as u64) < next_exp {
            re += 1;
        } else {
            next_exp = k as u64 + 1;
        }
    }
    let j = stats::delay::rfc3550_jitter_final(idx.iter().map(|&k| (t.sent_wall[k as usize], t.refl_rx[k as usize])));
    (re, idx.len() as u64, j)
}

/// Reordering only: (reordered, received).
pub fn reordered(t: &Trace) -> (u64, u64) {
    let (r, n, _) = arrival_order_stats(t);
    (r, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed 002 pattern: sent every `iv`, held and released every `period` (+ jitter).
    fn held_trace(iv: i64, period: i64, n: usize, jitter: &dyn Fn(usize) -> i64) -> Vec<Pair> {
        let send: Vec<i64> = (0..n as i64).map(|k| 1_000_000 + k * iv + jitter(k as usize) / 10).collect();
        let arrive: Vec<i64> = send
            .iter()
            .enumerate()
            .map(|(k, &s)| ((s / period) + 1) * period + 20_000 + (k as i64 % 3) * 50 + jitter(k))
            .collect();
        (0..n - 1)
            .map(|k| Pair { k: k as u64, s: send[k + 1] - send[k], r: arrive[k + 1] - arrive[k], t: arrive[k] })
            .collect()
    }

    #[test]
    fn the_stretch_is_the_held_gaps_median_and_every_gaps_mean() {
        // The Omnia 7 at 1,000 ms: four gaps of 1,250 ms, then a packet arriving with the last.
        let iv = 1_000_000_000i64;
        let gaps = [1_250, 1_250, 1_250, 1_250, 0].map(|ms| ms * 1_000_000i64);
        let pairs: Vec<Pair> =
            (0..100).map(|k| Pair { k: k as u64, s: iv, r: gaps[k % 5], t: k as i64 * iv }).collect();
        let s = stretch(pairs.iter().copied(), iv as u64);
        assert_eq!(s.held_p50, Some(1_250_000_000));
        assert_eq!(s.mean, Some(1e9));
        // Gaps at the interval: held and mean alike; a pair around a loss (sent 2 intervals
        // apart) is left out.
        let mut even: Vec<Pair> = (0..10).map(|k| Pair { k, s: iv, r: iv, t: 0 }).collect();
        even.push(Pair { k: 11, s: 2 * iv, r: 2 * iv, t: 0 });
        assert_eq!(stretch(even.into_iter(), iv as u64), Stretch { held_p50: Some(iv), mean: Some(1e9) });
        assert_eq!(stretch(std::iter::empty(), iv as u64), Stretch::default());
    }

    #[test]
    fn the_study_pattern_is_named_with_its_period() {
        let pairs = held_trace(100_000_000, 1_230_000_000, 200, &|_| 0);
        let r = detect_bursts(&pairs, 100_000_000);
        assert!(r.detected(), "{}", r.verdict);
        let p = r.release_period_ns.unwrap();
        assert!((p - 1.23e9).abs() < 0.05 * 1.23e9, "period {p}");
        assert!(
            r.verdict
                .starts_with("packets held and released in bursts every ~1230 ms while the sender kept its interval"),
            "{}",
            r.verdict
        );
        // ~12.3 packets per release (the trace ends mid-release, so the last is shorter);
        // the hold before each burst is about the period.
        let sizes: Vec<u64> = r.bursts.iter().map(|b| b.size).collect();
        assert!(sizes[..sizes.len() - 1].iter().all(|&s| (12..=13).contains(&s)), "{sizes:?}");
        assert!(r.bursts.iter().filter_map(|b| b.hold_gap_ns).all(|h| h > 1_000_000_000));
    }

    #[test]
    fn a_steady_stream_has_no_bursts() {
        let pairs: Vec<Pair> = (0..1000)
            .map(|k| Pair { k, s: 1_000_000, r: 1_000_000 + ((k * 7919) % 200) as i64 - 100, t: k as i64 * 1_000_000 })
            .collect();
        let r = detect_bursts(&pairs, 1_000_000);
        assert!(!r.detected());
        assert_eq!(r.coalesced, 0);
        assert!(r.verdict.starts_with("no bursts"), "{}", r.verdict);
    }

    #[test]
    fn irregular_bursts_are_named_without_a_period() {
        // Bursts of 3 at irregular times.
        let mut pairs = Vec::new();
        let mut t = 0i64;
        let gaps = [5_000_000, 1_300_000_000, 400_000_000, 2_900_000_000, 700_000_000];
        for (b, g) in gaps.iter().enumerate() {
            t += g;
            let k0 = (b * 3) as u64;
            pairs.push(Pair { k: k0, s: 100_000_000, r: *g, t });
            pairs.push(Pair { k: k0 + 1, s: 100_000_000, r: 100, t: t + 100 });
            pairs.push(Pair { k: k0 + 2, s: 100_000_000, r: 100, t: t + 200 });
        }
        let r = detect_bursts(&pairs, 100_000_000);
        assert!(r.detected());
        assert_eq!(r.release_period_ns, None);
        assert!(r.verdict.starts_with("packets arrived in bursts with no regular release period"), "{}", r.verdict);
    }

    #[test]
    fn period_estimate_tolerates_noise_and_a_skipped_release() {
        let b = |t: i64| Burst { start_ns: t, size: 5, hold_gap_ns: None };
        let noisy: Vec<Burst> = (0..10).map(|i| b(i * 1_000_000 + [0, 3_000, -2_000, 1_000][i as usize % 4])).collect();
        let p = release_period(&noisy).unwrap();
        assert!((p - 1e6).abs() < 1e4);
        // Too few bursts, or too irregular.
        assert_eq!(release_period(&noisy[..2]), None);
        let wild: Vec<Burst> = [0, 100, 900, 1000, 3000].iter().map(|&t| b(t)).collect();
        assert_eq!(release_period(&wild), None);
    }

    #[test]
    fn dejitter_by_hand() {
        let pdv = [0, 10, 20, 30, 40, 50, 60, 70, 80, 1000];
        let c = dejitter_curve(&pdv, &[0, 45, 80, 1000]);
        assert_eq!(c, vec![(0, 0.9), (45, 0.5), (80, 0.1), (1000, 0.0)]);
        let d = dejitter_delays(1_000_000);
        assert_eq!(d[0], 0);
        assert_eq!(d[1], 10_000);
        assert_eq!(*d.last().unwrap(), 1_000_000);
        assert!(d.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_lost_packet_inside_a_burst_does_not_split_it() {
        let mut t = Trace::with_capacity(8, 1_000_000, 0, true);
        for k in 0..8 {
            t.sent_mono[k] = 1 + k as u64 * 1_000_000;
            t.rx_client[k] = 1;
        }
        // Held, then 0..=3 released together, 4 lost, 5..=7 released together later.
        t.refl_rx = vec![10_000_000, 10_000_100, 10_000_200, 10_000_300, 0, 20_000_000, 20_000_100, 20_000_200];
        t.rx_client[4] = 0;
        let pairs: Vec<Pair> = forward_pairs(&t).collect();
        assert_eq!(pairs.len(), 6);
        assert_eq!((pairs[3].k, pairs[3].s), (3, 2_000_000), "3 → 5 skips the lost packet");
        let r = detect_bursts(&pairs, 1_000_000);
        assert_eq!(r.bursts.iter().map(|b| b.size).collect::<Vec<_>>(), vec![4, 3]);
    }

    #[test]
    fn a_stalled_sender_catching_up_is_not_a_burst() {
        // The sender stalled, then sent 5 late packets back to back: receive gaps are tiny,
        // but so were the send gaps.
        let mut pairs = Vec::new();
        for k in 0..200u64 {
            let (s, r) = if k % 20 < 5 { (20_000, 21_000) } else { (1_000_000, 1_000_000) };
            pairs.push(Pair { k, s, r, t: k as i64 * 1_000_000 });
        }
        let r = detect_bursts(&pairs, 1_000_000);
        assert_eq!(r.coalesced, 0);
        assert!(!r.detected(), "{}", r.verdict);
    }

    #[test]
    fn reordering_by_hand() {
        let mut t = Trace::with_capacity(5, 1000, 0, true);
        for k in 0..5 {
            t.sent_mono[k] = 1 + k as u64;
            t.rx_client[k] = 1;
        }
        // Arrival order at the reflector: 0, 2, 1, 4, 3 → 1 and 3 are reordered.
        t.refl_rx = vec![10, 30, 20, 50, 40];
        assert_eq!(reordered(&t), (2, 5));
        t.rx_client[4] = 0;
        assert_eq!(reordered(&t), (1, 4));
    }
}
