//! The server's mirror of the client's bitmap cache: three caches of 16×16, 32×32 and 64×64
//! cells (the RDP cell sizes; 120/120/337 cells by default, seed 000's 1.5 MB budget), each
//! with its own eviction policy, the cell each resident bitmap occupies, and the reference
//! trace the optimum is computed from.

use crate::policy::{Access, Policy, PolicyKind, next_uses};
use std::collections::HashMap;

/// Cell sides of caches 0, 1 and 2.
pub const CELL_SIDES: [usize; 3] = [16, 32, 64];

/// One cache: cells, and which bitmap (by content key) is in which.
pub struct CellCache {
    policy: Box<dyn Policy>,
    cells: usize,
    slot_of: HashMap<u64, u16>,
    free: Vec<u16>,
    /// Every key referenced, in order.
    pub trace: Vec<u64>,
    oracle: Option<Vec<u64>>,
    /// References that hit.
    pub hits: u64,
    /// References that missed.
    pub misses: u64,
}

impl CellCache {
    /// A cache of `cells` cells under `kind`; the optimum needs `oracle`, the next-use
    /// positions of this cache's reference trace ([`next_uses`]).
    pub fn new(kind: PolicyKind, cells: usize, oracle: Option<Vec<u64>>) -> Self {
        let cells = cells.clamp(1, 0x7FFF);
        Self {
            policy: kind.build(cells),
            cells,
            slot_of: HashMap::new(),
            free: (0..cells as u16).rev().collect(),
            trace: Vec::new(),
            oracle,
            hits: 0,
            misses: 0,
        }
    }

    /// Cells in this cache.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Reference the bitmap `key`: `(true, cell)` when the client has it, `(false, cell)`
    /// when it must be sent into `cell`.
    pub fn lookup(&mut self, key: u64) -> (bool, u16) {
        let next = self.oracle.as_ref().and_then(|o| o.get(self.trace.len()).copied()).unwrap_or(u64::MAX);
        self.trace.push(key);
        match self.policy.access(key, next) {
            Access::Hit => {
                self.hits += 1;
                (true, self.slot_of[&key])
            }
            Access::Miss(evicted) => {
                self.misses += 1;
                if let Some(s) = evicted.and_then(|e| self.slot_of.remove(&e)) {
                    self.free.push(s);
                }
                let s = self.free.pop().expect("a policy never holds more keys than cells");
                self.slot_of.insert(key, s);
                (false, s)
            }
        }
    }
}

/// The three caches.
pub struct CacheMirror {
    /// Caches 0, 1, 2 (16, 32, 64 pixels a side).
    pub caches: [CellCache; 3],
}

impl CacheMirror {
    /// Caches of `cells` cells each under `kind`; `oracle` carries the three caches' next-use
    /// positions for the optimum.
    pub fn new(kind: PolicyKind, cells: [usize; 3], oracle: Option<[Vec<u64>; 3]>) -> Self {
        let mut o = oracle.map(|[a, b, c]| [Some(a), Some(b), Some(c)]).unwrap_or_default();
        Self { caches: std::array::from_fn(|i| CellCache::new(kind, cells[i], o[i].take())) }
    }

    /// The oracle for a rerun of the same reference traces under the optimum.
    pub fn oracle(&self) -> [Vec<u64>; 3] {
        std::array::from_fn(|i| next_uses(&self.caches[i].trace))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_reused_after_eviction() {
        let mut c = CellCache::new(PolicyKind::Lru, 2, None);
        assert_eq!(c.lookup(10), (false, 0));
        assert_eq!(c.lookup(11), (false, 1));
        assert_eq!(c.lookup(10), (true, 0));
        // 11 is least recently used: 12 takes its cell.
        assert_eq!(c.lookup(12), (false, 1));
        assert_eq!(c.lookup(10), (true, 0));
        assert_eq!((c.hits, c.misses), (2, 3));
        assert_eq!(c.trace, [10, 11, 10, 12, 10]);
    }
}
