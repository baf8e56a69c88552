//! Packet delay-variation estimators over (send, receive) timestamp pairs, generic so the
//! UDP and display experiments share one implementation.
//!
//! - **RFC 3550 §6.4.1 interarrival jitter**: for consecutive packets *in arrival order*,
//!   `D(i−1,i) = (Rᵢ − Rᵢ₋₁) − (Sᵢ − Sᵢ₋₁)` and `J ← J + (|D| − J)/16`. Returned as the
//!   running estimate after every packet, in nanoseconds (float, as the estimator is).
//! - **RFC 3393 IPDV**: for consecutive packets *in sending order* (both received),
//!   `ipdv = (Rᵢ − Sᵢ) − (Rᵢ₋₁ − Sᵢ₋₁)`, signed. Clock offset cancels, so it needs no
//!   synchronized clocks (RFC 5481 §4.1 calls this the "IPDV" form).
//! - **RFC 5481 PDV**: `pdv = (Rᵢ − Sᵢ) − min_j (R_j − S_j)`, never negative; also
//!   offset-free.
//!
//! Timestamps are integer nanoseconds; the sender's and receiver's clocks may differ by an
//! unknown constant offset, which every estimator here cancels.

/// A (send time, receive time) pair for one delivered packet.
pub trait Stamped {
    /// Send timestamp in the sender's clock (ns).
    fn sent(&self) -> i64;
    /// Receive timestamp in the receiver's clock (ns).
    fn received(&self) -> i64;
}

impl Stamped for (i64, i64) {
    fn sent(&self) -> i64 {
        self.0
    }
    fn received(&self) -> i64 {
        self.1
    }
}

/// One RFC 3550 jitter update: `J ← J + (|D| − J)/16` for consecutive packets `prev`, `cur`
/// in arrival order.
#[inline]
pub fn rfc3550_step<T: Stamped>(j: f64, prev: &T, cur: &T) -> f64 {
    let d = (cur.received() - prev.received()) - (cur.sent() - prev.sent());
    j + ((d.abs() as f64) - j) / 16.0
}

/// RFC 3550 running interarrival jitter, given packets in arrival order. The first packet
/// yields 0. Output has the same length as the input.
pub fn rfc3550_jitter<T: Stamped>(arrival_order: &[T]) -> Vec<f64> {
    let mut out = Vec::with_capacity(arrival_order.len());
    let mut j = 0.0f64;
    for (i, p) in arrival_order.iter().enumerate() {
        if i > 0 {
            j = rfc3550_step(j, &arrival_order[i - 1], p);
        }
        out.push(j);
    }
    out
}

/// The final RFC 3550 jitter over packets in arrival order, without storing the running
/// values (0 for fewer than two packets).
pub fn rfc3550_jitter_final<T: Stamped>(arrival_order: impl IntoIterator<Item = T>) -> f64 {
    let mut it = arrival_order.into_iter();
    let Some(mut prev) = it.next() else { return 0.0 };
    let mut j = 0.0;
    for cur in it {
        j = rfc3550_step(j, &prev, &cur);
        prev = cur;
    }
    j
}

/// RFC 3393 IPDV for consecutive packets in sending order, lazily: `None` entries are lost
/// packets, and a pair with a loss on either side yields no value (RFC 3393 §3.4
/// "undefined").
pub fn rfc3393_ipdv_iter<T: Stamped>(send_order: impl IntoIterator<Item = Option<T>>) -> impl Iterator<Item = i64> {
    let mut prev: Option<T> = None;
    send_order.into_iter().filter_map(move |cur| {
        let out = match (&prev, &cur) {
            (Some(a), Some(b)) => Some((b.received() - b.sent()) - (a.received() - a.sent())),
            _ => None,
        };
        prev = cur;
        out
    })
}

/// RFC 3393 IPDV for consecutive packets in sending order (see [`rfc3393_ipdv_iter`]).
pub fn rfc3393_ipdv<T: Stamped + Clone>(send_order: &[Option<T>]) -> Vec<i64> {
    rfc3393_ipdv_iter(send_order.iter().cloned()).collect()
}

/// RFC 5481 PDV from one-way delays, in place: each delay minus the smallest.
pub fn rfc5481_pdv_in_place(delays: &mut [i64]) {
    if let Some(&min) = delays.iter().min() {
        delays.iter_mut().for_each(|d| *d -= min);
    }
}

/// RFC 5481 PDV: each packet's delay minus the minimum delay of the set.
pub fn rfc5481_pdv<T: Stamped>(packets: &[T]) -> Vec<i64> {
    let mut d: Vec<i64> = packets.iter().map(|p| p.received() - p.sent()).collect();
    rfc5481_pdv_in_place(&mut d);
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3550_by_hand() {
        // Sent every 20, received with delays 5, 7, 4, 4 (plus a clock offset of 1000).
        let p = [(0, 1005), (20, 1027), (40, 1044), (60, 1064)];
        // D: (22−20)=2, (17−20)=−3, (20−20)=0
        // J: 0 → 2/16=0.125 → 0.125+(3−0.125)/16=0.3046875 → 0.3046875+(0−0.3046875)/16=0.28564453125
        let j = rfc3550_jitter(&p);
        assert_eq!(j, vec![0.0, 0.125, 0.3046875, 0.28564453125]);
    }

    #[test]
    fn rfc3393_by_hand_with_loss() {
        let p = [Some((0, 1005)), Some((20, 1027)), None, Some((60, 1064)), Some((80, 1083))];
        // delays 1005, 1007, –, 1004, 1003 → pairs (0,1): +2, (3,4): −1
        assert_eq!(rfc3393_ipdv(&p), vec![2, -1]);
    }

    #[test]
    fn rfc5481_by_hand() {
        let p = [(0, 1005), (20, 1027), (40, 1044)];
        assert_eq!(rfc5481_pdv(&p), vec![1, 3, 0]);
        assert!(rfc5481_pdv::<(i64, i64)>(&[]).is_empty());
    }
}
