//! The server's mirror of the client's bitmap cache: three caches of 16×16, 32×32 and 64×64
//! cells (the RDP cell sizes; 120/120/337 cells by default, seed 000's slot lists, 3.07 MB at 16 bpp; the
//! [`Geometry`] of `display cache` is seed 003's), each
//! with its own eviction policy, the cell each resident bitmap occupies, and the reference
//! trace the optimum is computed from.

use crate::policy::{Access, Policy, PolicyKind, next_uses};
use std::collections::HashMap;

/// Cell sides of caches 0, 1 and 2.
pub const CELL_SIDES: [usize; 3] = [16, 32, 64];

/// The three caches' shape: cells in each, at a colour depth that sets each cell's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Geometry {
    /// Cells per cache (16×16, 32×32, 64×64).
    pub cells: [usize; 3],
    /// Colour depth, bits per pixel (8, 16, 24 or 32).
    pub bpp: u32,
}

impl Geometry {
    /// 64×64 cells one frame of the 119×119 animation takes (2 × 2 tiles).
    pub const CELLS_PER_FRAME: usize = 4;

    /// Seed 003's 1.5 MB cache at 8 bpp ([`crate::defaults::SEED_CACHE_CELLS`]).
    pub fn seed_003() -> Self {
        Geometry { cells: crate::defaults::SEED_CACHE_CELLS, bpp: crate::defaults::SEED_CACHE_BPP }
    }
    /// Bytes of one cell in each cache (`None` for an unknown depth).
    pub fn cell_bytes(&self) -> Option<[usize; 3]> {
        let b = crate::fb::bytes_per_pixel(self.bpp)?;
        Some(CELL_SIDES.map(|s| s * s * b))
    }
    /// Bytes of all three caches.
    pub fn bytes(&self) -> Option<usize> {
        let c = self.cell_bytes()?;
        Some((0..3).map(|i| self.cells[i] * c[i]).sum())
    }
    /// Animation frames the 64×64 cache holds: the seed's n/m, rounded down. One more loops
    /// through an LRU cache missing every frame.
    pub fn capacity_frames(&self) -> u32 {
        (self.cells[2] / Self::CELLS_PER_FRAME) as u32
    }
    /// Check the geometry.
    pub fn validate(&self) -> Result<(), latlab_model::ConfigError> {
        if self.cell_bytes().is_none() {
            return Err(format!("{} bpp: use 8, 16, 24 or 32", self.bpp).into());
        }
        if self.cells.iter().any(|&c| !(1..=0x7FFF).contains(&c)) {
            return Err("cells per cache: 1 to 32,767 (a cache index is 15 bits)".into());
        }
        if self.capacity_frames() < 2 {
            return Err("the 64×64 cache must hold at least two frames (8 cells)".into());
        }
        Ok(())
    }
}

/// One cache: cells, and which bitmap (by content key) is in which.
pub struct CellCache {
    policy: Box<dyn Policy>,
    cells: usize,
    slot_of: HashMap<u64, u16>,
    free: Vec<u16>,
    /// Every key referenced, in order, when kept ([`CellCache::keep_trace`]): the optimum's
    /// oracle is made from it; a server, which never asks, keeps none (it would grow by a key
    /// per reference for a session's life).
    pub trace: Vec<u64>,
    keep_trace: bool,
    /// References so far (the oracle's position).
    refs: usize,
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
            keep_trace: false,
            refs: 0,
            oracle,
            hits: 0,
            misses: 0,
        }
    }

    /// Cells in this cache.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Keep every key referenced from now on in [`CellCache::trace`].
    pub fn keep_trace(&mut self) {
        self.keep_trace = true;
    }

    /// Reference the bitmap `key`: `(true, cell)` when the client has it, `(false, cell)`
    /// when it must be sent into `cell`.
    pub fn lookup(&mut self, key: u64) -> (bool, u16) {
        let next = self.oracle.as_ref().and_then(|o| o.get(self.refs).copied()).unwrap_or(u64::MAX);
        self.refs += 1;
        if self.keep_trace {
            self.trace.push(key);
        }
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

    /// Keep the three caches' reference traces (for [`CacheMirror::oracle`]).
    pub fn keep_traces(&mut self) {
        self.caches.iter_mut().for_each(CellCache::keep_trace);
    }

    /// The oracle for a rerun of the same reference traces under the optimum (empty unless
    /// the traces were kept).
    pub fn oracle(&self) -> [Vec<u64>; 3] {
        std::array::from_fn(|i| next_uses(&self.caches[i].trace))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_geometry_is_1_5_mb_and_predicts_the_cliff_at_65_66() {
        let g = Geometry::seed_003();
        assert_eq!(g.cell_bytes(), Some([256, 1024, 4096]));
        assert_eq!(g.bytes(), Some(1_533_952));
        assert_eq!(g.capacity_frames(), 65);
        // latlab's own 16 bpp geometry: 337 cells hold 84 frames, and twice the bytes per cell.
        let ours = Geometry { cells: [120, 120, 337], bpp: 16 };
        assert_eq!((ours.capacity_frames(), ours.cell_bytes().unwrap()[2]), (84, 8192));
        assert!(Geometry { bpp: 12, ..g }.validate().is_err());
        assert!(Geometry { cells: [600, 300, 7], ..g }.validate().is_err());
        assert!(Geometry { cells: [600, 0, 262], ..g }.validate().is_err());
        assert!(g.validate().is_ok());
    }

    #[test]
    fn cells_are_reused_after_eviction() {
        let mut c = CellCache::new(PolicyKind::Lru, 2, None);
        assert_eq!(c.lookup(10), (false, 0));
        assert!(c.trace.is_empty(), "no trace unless asked");
        c.keep_trace();
        assert_eq!(c.lookup(11), (false, 1));
        assert_eq!(c.lookup(10), (true, 0));
        // 11 is least recently used: 12 takes its cell.
        assert_eq!(c.lookup(12), (false, 1));
        assert_eq!(c.lookup(10), (true, 0));
        assert_eq!((c.hits, c.misses), (2, 3));
        assert_eq!(c.trace, [11, 10, 12, 10]);
    }
}
