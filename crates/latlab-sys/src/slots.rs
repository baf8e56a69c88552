//! Per-sample slots a measuring thread writes as it runs and another thread may read meanwhile
//! (a checkpoint): one relaxed atomic store per sample, as cheap as a plain store on the
//! machines latlab runs on, no lock and no allocation. A reader synchronises through a count
//! the writer publishes with release ordering after the slots it covers.

use std::sync::atomic::{AtomicI64, Ordering};

/// Fixed-size slots of i64, each `fill` until written.
#[derive(Debug)]
pub struct Slots(Vec<AtomicI64>);

impl Slots {
    /// `n` slots, each `fill`.
    pub fn new(n: usize, fill: i64) -> Self {
        Self((0..n).map(|_| AtomicI64::new(fill)).collect())
    }
    /// Number of slots.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// True without slots.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Write slot `k`.
    #[inline]
    pub fn set(&self, k: usize, v: i64) {
        self.0[k].store(v, Ordering::Relaxed);
    }
    /// Read slot `k`.
    #[inline]
    pub fn get(&self, k: usize) -> i64 {
        self.0[k].load(Ordering::Relaxed)
    }
    /// The first `n` slots as they are now.
    pub fn snapshot(&self, n: usize) -> Vec<i64> {
        self.0[..n.min(self.0.len())].iter().map(|a| a.load(Ordering::Relaxed)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_slots_read_back_and_the_rest_keep_their_fill() {
        let s = Slots::new(4, -1);
        assert_eq!((s.len(), s.is_empty()), (4, false));
        s.set(1, 7);
        assert_eq!(s.get(1), 7);
        assert_eq!(s.snapshot(3), vec![-1, 7, -1]);
        assert_eq!(s.snapshot(9).len(), 4, "a snapshot never reads past the end");
        assert!(Slots::new(0, 0).is_empty());
    }
}
