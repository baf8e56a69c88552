//! LIRS (Jiang & Zhang, SIGMETRICS '02): keys ranked by inter-reference recency, with the
//! paper's 1 % of the cache for resident HIR keys.

use super::*;

const LIR: u8 = 0;
const HIR_RESIDENT: u8 = 1;
const HIR_GHOST: u8 = 2;

/// LIRS with the paper's 1 % of the cache for resident HIR keys (at least one).
pub(super) struct Lirs {
    lir_cap: usize,
    hir_cap: usize,
    /// Every key's status.
    status: HashMap<u64, u8>,
    /// The recency stack S (head newest): LIR keys and recently seen HIR keys.
    slab_s: Slab,
    s: List,
    in_s: HashMap<u64, usize>,
    /// The queue Q of resident HIR keys (head newest).
    slab_q: Slab,
    q: List,
    in_q: HashMap<u64, usize>,
    lir_count: usize,
    /// Bound on S's non-resident entries, so memory stays proportional to the cache.
    ghost_limit: usize,
    ghosts: usize,
}

impl Lirs {
    pub(super) fn new(cap: usize) -> Self {
        // One cell is the least HIR space; a one-cell cache is all HIR (LIRS degenerates
        // to FIFO there).
        let hir_cap = (cap / 100).max(1);
        Self {
            lir_cap: cap - hir_cap.min(cap),
            hir_cap,
            status: HashMap::new(),
            slab_s: Slab::default(),
            s: List::default(),
            in_s: HashMap::new(),
            slab_q: Slab::default(),
            q: List::default(),
            in_q: HashMap::new(),
            lir_count: 0,
            ghost_limit: 3 * cap,
            ghosts: 0,
        }
    }

    fn s_push(&mut self, key: u64) {
        if let Some(i) = self.in_s.remove(&key) {
            self.slab_s.unlink(&mut self.s, i);
            self.slab_s.release(i);
        }
        let i = self.slab_s.alloc(key, 0);
        self.slab_s.push_head(&mut self.s, i);
        self.in_s.insert(key, i);
    }

    fn q_remove(&mut self, key: u64) {
        if let Some(i) = self.in_q.remove(&key) {
            self.slab_q.unlink(&mut self.q, i);
            self.slab_q.release(i);
        }
    }

    fn q_push(&mut self, key: u64) {
        self.q_remove(key);
        let i = self.slab_q.alloc(key, 0);
        self.slab_q.push_head(&mut self.q, i);
        self.in_q.insert(key, i);
    }

    /// Stack pruning: the bottom of S must be a LIR key.
    fn prune(&mut self) {
        while self.s.tail != NIL {
            let k = self.slab_s.nodes[self.s.tail].key;
            let st = self.status.get(&k).copied();
            if st == Some(LIR) {
                break;
            }
            let t = self.s.tail;
            self.slab_s.unlink(&mut self.s, t);
            self.slab_s.release(t);
            self.in_s.remove(&k);
            if st == Some(HIR_GHOST) {
                self.status.remove(&k);
                self.ghosts -= 1;
            }
        }
    }

    /// The LIR key at the bottom of S becomes a resident HIR key.
    fn demote_bottom(&mut self) {
        self.prune();
        let t = self.s.tail;
        if t == NIL {
            return;
        }
        let k = self.slab_s.nodes[t].key;
        self.slab_s.unlink(&mut self.s, t);
        self.slab_s.release(t);
        self.in_s.remove(&k);
        self.status.insert(k, HIR_RESIDENT);
        self.lir_count -= 1;
        self.q_push(k);
        self.prune();
    }

    /// Evict the front of Q (oldest resident HIR key).
    fn evict(&mut self) -> Option<u64> {
        let t = self.q.tail;
        if t == NIL {
            return None;
        }
        let k = self.slab_q.nodes[t].key;
        self.q_remove(k);
        if self.in_s.contains_key(&k) {
            self.status.insert(k, HIR_GHOST);
            self.ghosts += 1;
            self.limit_ghosts();
        } else {
            self.status.remove(&k);
        }
        Some(k)
    }

    /// Forget the oldest non-resident entries of S beyond the bound.
    fn limit_ghosts(&mut self) {
        if self.ghosts <= self.ghost_limit {
            return;
        }
        let mut i = self.s.tail;
        while i != NIL && self.ghosts > self.ghost_limit {
            let prev = self.slab_s.nodes[i].prev;
            let k = self.slab_s.nodes[i].key;
            if self.status.get(&k) == Some(&HIR_GHOST) {
                self.slab_s.unlink(&mut self.s, i);
                self.slab_s.release(i);
                self.in_s.remove(&k);
                self.status.remove(&k);
                self.ghosts -= 1;
            }
            i = prev;
        }
    }
}

impl Policy for Lirs {
    fn access(&mut self, key: u64, _: u64) -> Access {
        match self.status.get(&key).copied() {
            Some(LIR) => {
                let bottom = self.s.tail != NIL && self.slab_s.nodes[self.s.tail].key == key;
                self.s_push(key);
                if bottom {
                    self.prune();
                }
                Access::Hit
            }
            Some(HIR_RESIDENT) => {
                if self.in_s.contains_key(&key) {
                    // Its reuse distance beats the bottom LIR key's: swap their roles.
                    self.s_push(key);
                    self.q_remove(key);
                    self.status.insert(key, LIR);
                    self.lir_count += 1;
                    self.demote_bottom();
                } else {
                    self.s_push(key);
                    self.q_push(key);
                }
                Access::Hit
            }
            st => {
                // A miss: fill the LIR set first, then resident HIR space.
                if self.lir_count < self.lir_cap && self.q.len == 0 {
                    if st == Some(HIR_GHOST) {
                        self.ghosts -= 1;
                    }
                    self.status.insert(key, LIR);
                    self.lir_count += 1;
                    self.s_push(key);
                    return Access::Miss(None);
                }
                let evicted = if self.q.len >= self.hir_cap { self.evict() } else { None };
                if st == Some(HIR_GHOST) && self.status.get(&key) == Some(&HIR_GHOST) && self.lir_cap > 0 {
                    self.ghosts -= 1;
                    // Seen recently enough to still be in S: it becomes LIR.
                    self.s_push(key);
                    self.status.insert(key, LIR);
                    self.lir_count += 1;
                    self.demote_bottom();
                } else {
                    self.status.insert(key, HIR_RESIDENT);
                    self.s_push(key);
                    self.q_push(key);
                }
                Access::Miss(evicted)
            }
        }
    }
    fn len(&self) -> usize {
        self.lir_count + self.q.len
    }
}
