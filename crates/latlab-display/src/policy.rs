//! Eviction policies for the server's mirror of the client's bitmap cache: LRU (the
//! studies'), FIFO, SIEVE (Zhang et al., NSDI '24), S3-FIFO (Yang et al., SOSP '23), ARC
//! (Megiddo & Modha, FAST '03), LIRS (Jiang & Zhang, SIGMETRICS '02), and Belady's optimum
//! (OPT) driven by the next-use times of a recorded reference trace.
//!
//! A policy tracks keys only; [`crate::cache::CacheMirror`] maps keys to cache cells. Every
//! policy holds at most `capacity` resident keys and evicts only resident ones.

use std::collections::{BTreeSet, HashMap};

/// What a reference did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The key was resident.
    Hit,
    /// The key was loaded, evicting this key if the cache was full.
    Miss(Option<u64>),
}

/// A cache replacement policy over keys.
pub trait Policy: Send {
    /// Reference `key`; `next_use` is the trace position of its next reference (`u64::MAX`:
    /// never), which only the optimum uses.
    fn access(&mut self, key: u64, next_use: u64) -> Access;
    /// Resident keys.
    fn len(&self) -> usize;
    /// No resident keys.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The policies by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// Least recently used.
    Lru,
    /// First in, first out.
    Fifo,
    /// SIEVE: FIFO order, a visited bit, a hand that spares visited keys once.
    Sieve,
    /// S3-FIFO: a small probationary FIFO, a main FIFO with reinsertion, a ghost FIFO.
    S3Fifo,
    /// Adaptive replacement cache.
    Arc,
    /// Low inter-reference recency set.
    Lirs,
    /// Belady's optimum: evict the key used furthest in the future.
    Opt,
}

impl PolicyKind {
    /// Every policy, LRU first and the optimum last.
    pub const ALL: [PolicyKind; 7] = [
        PolicyKind::Lru,
        PolicyKind::Fifo,
        PolicyKind::Sieve,
        PolicyKind::S3Fifo,
        PolicyKind::Arc,
        PolicyKind::Lirs,
        PolicyKind::Opt,
    ];

    /// The name used on the command line and in metric names.
    pub fn name(self) -> &'static str {
        match self {
            PolicyKind::Lru => "lru",
            PolicyKind::Fifo => "fifo",
            PolicyKind::Sieve => "sieve",
            PolicyKind::S3Fifo => "s3fifo",
            PolicyKind::Arc => "arc",
            PolicyKind::Lirs => "lirs",
            PolicyKind::Opt => "opt",
        }
    }

    /// The policy called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// A fresh policy of this kind for `capacity` keys (at least 1).
    pub fn build(self, capacity: usize) -> Box<dyn Policy> {
        let c = capacity.max(1);
        match self {
            PolicyKind::Lru => Box::new(Lru::new(c, true)),
            PolicyKind::Fifo => Box::new(Lru::new(c, false)),
            PolicyKind::Sieve => Box::new(Sieve::new(c)),
            PolicyKind::S3Fifo => Box::new(S3Fifo::new(c)),
            PolicyKind::Arc => Box::new(Arc::new(c)),
            PolicyKind::Lirs => Box::new(Lirs::new(c)),
            PolicyKind::Opt => Box::new(Opt::new(c)),
        }
    }
}

/// For each position of `trace`, the position of the same key's next reference
/// (`u64::MAX` when there is none): the optimum's oracle.
pub fn next_uses(trace: &[u64]) -> Vec<u64> {
    let mut next = vec![u64::MAX; trace.len()];
    let mut seen: HashMap<u64, u64> = HashMap::new();
    for (i, k) in trace.iter().enumerate().rev() {
        if let Some(&j) = seen.get(k) {
            next[i] = j;
        }
        seen.insert(*k, i as u64);
    }
    next
}

// ---- an intrusive doubly-linked list over a slab -----------------------------------------

const NIL: usize = usize::MAX;

#[derive(Debug, Clone)]
struct Node {
    key: u64,
    prev: usize,
    next: usize,
    /// Policy-specific: SIEVE's visited bit, S3-FIFO's frequency, LIRS's status.
    tag: u8,
}

/// Doubly-linked lists of nodes in one slab; each list has a head (newest) and a tail.
#[derive(Debug, Default)]
struct Slab {
    nodes: Vec<Node>,
    free: Vec<usize>,
}

#[derive(Debug, Clone, Copy)]
struct List {
    head: usize,
    tail: usize,
    len: usize,
}

impl Default for List {
    fn default() -> Self {
        Self { head: NIL, tail: NIL, len: 0 }
    }
}

impl Slab {
    fn alloc(&mut self, key: u64, tag: u8) -> usize {
        let n = Node { key, prev: NIL, next: NIL, tag };
        match self.free.pop() {
            Some(i) => {
                self.nodes[i] = n;
                i
            }
            None => {
                self.nodes.push(n);
                self.nodes.len() - 1
            }
        }
    }
    fn push_head(&mut self, l: &mut List, i: usize) {
        self.nodes[i].prev = NIL;
        self.nodes[i].next = l.head;
        if l.head != NIL {
            self.nodes[l.head].prev = i;
        } else {
            l.tail = i;
        }
        l.head = i;
        l.len += 1;
    }
    fn unlink(&mut self, l: &mut List, i: usize) {
        let (p, n) = (self.nodes[i].prev, self.nodes[i].next);
        if p != NIL {
            self.nodes[p].next = n;
        } else {
            l.head = n;
        }
        if n != NIL {
            self.nodes[n].prev = p;
        } else {
            l.tail = p;
        }
        l.len -= 1;
    }
    fn release(&mut self, i: usize) {
        self.free.push(i);
    }
}

// ---- one keyed list: what LRU, FIFO and SIEVE share -------------------------------------

/// Resident keys in one list (head newest) with a key-to-node map.
#[derive(Default)]
struct KeyedList {
    slab: Slab,
    list: List,
    map: HashMap<u64, usize>,
}

impl KeyedList {
    /// Take node `i` out; returns its key.
    fn remove(&mut self, i: usize) -> u64 {
        self.slab.unlink(&mut self.list, i);
        let k = self.slab.nodes[i].key;
        self.map.remove(&k);
        self.slab.release(i);
        k
    }
    /// Add `key` as the newest.
    fn insert(&mut self, key: u64) {
        let i = self.slab.alloc(key, 0);
        self.slab.push_head(&mut self.list, i);
        self.map.insert(key, i);
    }
}

// ---- LRU and FIFO ----------------------------------------------------------------------

/// LRU, or FIFO when hits do not move keys.
struct Lru {
    cap: usize,
    move_on_hit: bool,
    keys: KeyedList,
}

impl Lru {
    fn new(cap: usize, move_on_hit: bool) -> Self {
        Self { cap, move_on_hit, keys: KeyedList::default() }
    }
}

impl Policy for Lru {
    fn access(&mut self, key: u64, _: u64) -> Access {
        let k = &mut self.keys;
        if let Some(&i) = k.map.get(&key) {
            if self.move_on_hit {
                k.slab.unlink(&mut k.list, i);
                k.slab.push_head(&mut k.list, i);
            }
            return Access::Hit;
        }
        let evicted = (k.list.len >= self.cap).then(|| k.remove(k.list.tail));
        k.insert(key);
        Access::Miss(evicted)
    }
    fn len(&self) -> usize {
        self.keys.list.len
    }
}

// ---- SIEVE -------------------------------------------------------------------------------

struct Sieve {
    cap: usize,
    keys: KeyedList,
    hand: usize,
}

impl Sieve {
    fn new(cap: usize) -> Self {
        Self { cap, keys: KeyedList::default(), hand: NIL }
    }
}

impl Policy for Sieve {
    fn access(&mut self, key: u64, _: u64) -> Access {
        let k = &mut self.keys;
        if let Some(&i) = k.map.get(&key) {
            k.slab.nodes[i].tag = 1;
            return Access::Hit;
        }
        let mut evicted = None;
        if k.list.len >= self.cap {
            // From the hand (or the oldest) towards the newest, clearing visited bits,
            // wrapping to the oldest; the first unvisited key goes.
            let mut i = if self.hand == NIL { k.list.tail } else { self.hand };
            while k.slab.nodes[i].tag == 1 {
                k.slab.nodes[i].tag = 0;
                i = if k.slab.nodes[i].prev == NIL { k.list.tail } else { k.slab.nodes[i].prev };
            }
            self.hand = k.slab.nodes[i].prev;
            evicted = Some(k.remove(i));
        }
        k.insert(key);
        Access::Miss(evicted)
    }
    fn len(&self) -> usize {
        self.keys.list.len
    }
}

// ---- S3-FIFO -----------------------------------------------------------------------------

/// Where an S3-FIFO key is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Queue {
    Small,
    Main,
    Ghost,
}

struct S3Fifo {
    cap: usize,
    small_cap: usize,
    slab: Slab,
    small: List,
    main: List,
    ghost: List,
    map: HashMap<u64, (usize, Queue)>,
}

impl S3Fifo {
    fn new(cap: usize) -> Self {
        Self {
            cap,
            // 10 % of the cache is the small queue (the paper's setting).
            small_cap: (cap / 10).max(1),
            slab: Slab::default(),
            small: List::default(),
            main: List::default(),
            ghost: List::default(),
            map: HashMap::new(),
        }
    }

    fn evict_main(&mut self) -> u64 {
        loop {
            let t = self.main.tail;
            self.slab.unlink(&mut self.main, t);
            if self.slab.nodes[t].tag > 0 {
                self.slab.nodes[t].tag -= 1;
                self.slab.push_head(&mut self.main, t);
                continue;
            }
            let k = self.slab.nodes[t].key;
            self.map.remove(&k);
            self.slab.release(t);
            return k;
        }
    }

    /// Make room for one key; returns the key that left the cache.
    fn evict(&mut self) -> u64 {
        loop {
            if self.small.len >= self.small_cap || self.main.len == 0 {
                let t = self.small.tail;
                self.slab.unlink(&mut self.small, t);
                let k = self.slab.nodes[t].key;
                if self.slab.nodes[t].tag > 1 {
                    // Re-referenced while on probation: promoted, nothing leaves yet.
                    self.slab.nodes[t].tag = 0;
                    self.slab.push_head(&mut self.main, t);
                    self.map.insert(k, (t, Queue::Main));
                    if self.main.len + self.small.len >= self.cap {
                        return self.evict_main();
                    }
                    continue;
                }
                self.slab.nodes[t].tag = 0;
                self.slab.push_head(&mut self.ghost, t);
                self.map.insert(k, (t, Queue::Ghost));
                if self.ghost.len > self.cap - self.small_cap.min(self.cap - 1) {
                    let g = self.ghost.tail;
                    self.slab.unlink(&mut self.ghost, g);
                    let gk = self.slab.nodes[g].key;
                    self.map.remove(&gk);
                    self.slab.release(g);
                }
                return k;
            }
            return self.evict_main();
        }
    }
}

impl Policy for S3Fifo {
    fn access(&mut self, key: u64, _: u64) -> Access {
        let found = self.map.get(&key).copied();
        if let Some((i, _)) = found.filter(|&(_, q)| q != Queue::Ghost) {
            let n = &mut self.slab.nodes[i];
            n.tag = (n.tag + 1).min(3);
            return Access::Hit;
        }
        let evicted = (self.small.len + self.main.len >= self.cap).then(|| self.evict());
        match self.map.get(&key).copied() {
            Some((i, Queue::Ghost)) => {
                self.slab.unlink(&mut self.ghost, i);
                self.slab.nodes[i].tag = 0;
                self.slab.push_head(&mut self.main, i);
                self.map.insert(key, (i, Queue::Main));
            }
            _ => {
                let i = self.slab.alloc(key, 0);
                self.slab.push_head(&mut self.small, i);
                self.map.insert(key, (i, Queue::Small));
            }
        }
        Access::Miss(evicted)
    }
    fn len(&self) -> usize {
        self.small.len + self.main.len
    }
}

// ---- ARC ---------------------------------------------------------------------------------

struct Arc {
    cap: usize,
    /// Target size of T1.
    p: usize,
    slab: Slab,
    /// T1, T2 (resident), B1, B2 (ghosts).
    lists: [List; 4],
    map: HashMap<u64, (usize, usize)>,
}

impl Arc {
    fn new(cap: usize) -> Self {
        Self { cap, p: 0, slab: Slab::default(), lists: [List::default(); 4], map: HashMap::new() }
    }
    fn move_to(&mut self, i: usize, from: usize, to: usize) {
        self.slab.unlink(&mut self.lists[from], i);
        self.slab.push_head(&mut self.lists[to], i);
        let k = self.slab.nodes[i].key;
        self.map.insert(k, (i, to));
    }
    fn drop_tail(&mut self, l: usize) {
        let t = self.lists[l].tail;
        self.slab.unlink(&mut self.lists[l], t);
        let k = self.slab.nodes[t].key;
        self.map.remove(&k);
        self.slab.release(t);
    }
    /// REPLACE of the paper: a resident key moves to its ghost list; returns it.
    fn replace(&mut self, in_b2: bool) -> u64 {
        let t1 = self.lists[0].len;
        let from = if t1 > 0 && (t1 > self.p || (in_b2 && t1 == self.p)) || self.lists[1].len == 0 { 0 } else { 1 };
        let t = self.lists[from].tail;
        self.move_to(t, from, from + 2);
        self.slab.nodes[t].key
    }
}

impl Policy for Arc {
    fn access(&mut self, key: u64, _: u64) -> Access {
        let c = self.cap;
        match self.map.get(&key).copied() {
            Some((i, l)) if l < 2 => {
                self.move_to(i, l, 1);
                Access::Hit
            }
            Some((i, 2)) => {
                let d = (self.lists[3].len / self.lists[2].len.max(1)).max(1);
                self.p = (self.p + d).min(c);
                let ev = self.replace(false);
                self.move_to(i, 2, 1);
                Access::Miss(Some(ev))
            }
            Some((i, _)) => {
                let d = (self.lists[2].len / self.lists[3].len.max(1)).max(1);
                self.p = self.p.saturating_sub(d);
                let ev = self.replace(true);
                self.move_to(i, 3, 1);
                Access::Miss(Some(ev))
            }
            None => {
                let (t1, t2, b1, b2) = (self.lists[0].len, self.lists[1].len, self.lists[2].len, self.lists[3].len);
                let mut ev = None;
                if t1 + b1 == c {
                    if t1 < c {
                        self.drop_tail(2);
                        ev = Some(self.replace(false));
                    } else {
                        let t = self.lists[0].tail;
                        ev = Some(self.slab.nodes[t].key);
                        self.drop_tail(0);
                    }
                } else if t1 + t2 + b1 + b2 >= c {
                    if t1 + t2 + b1 + b2 == 2 * c {
                        self.drop_tail(3);
                    }
                    if t1 + t2 >= c {
                        ev = Some(self.replace(false));
                    }
                }
                let i = self.slab.alloc(key, 0);
                self.slab.push_head(&mut self.lists[0], i);
                self.map.insert(key, (i, 0));
                Access::Miss(ev)
            }
        }
    }
    fn len(&self) -> usize {
        self.lists[0].len + self.lists[1].len
    }
}

// ---- LIRS --------------------------------------------------------------------------------

const LIR: u8 = 0;
const HIR_RESIDENT: u8 = 1;
const HIR_GHOST: u8 = 2;

/// LIRS with the paper's 1 % of the cache for resident HIR keys (at least one).
struct Lirs {
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
    fn new(cap: usize) -> Self {
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

// ---- the optimum -------------------------------------------------------------------------

struct Opt {
    cap: usize,
    by_next: BTreeSet<(u64, u64)>,
    next_of: HashMap<u64, u64>,
}

impl Opt {
    fn new(cap: usize) -> Self {
        Self { cap, by_next: BTreeSet::new(), next_of: HashMap::new() }
    }
}

impl Policy for Opt {
    fn access(&mut self, key: u64, next_use: u64) -> Access {
        if let Some(n) = self.next_of.insert(key, next_use) {
            self.by_next.remove(&(n, key));
            self.by_next.insert((next_use, key));
            return Access::Hit;
        }
        let mut evicted = None;
        if self.by_next.len() >= self.cap {
            let (n, k) = *self.by_next.iter().next_back().expect("full");
            self.by_next.remove(&(n, k));
            self.next_of.remove(&k);
            evicted = Some(k);
        }
        self.by_next.insert((next_use, key));
        Access::Miss(evicted)
    }
    fn len(&self) -> usize {
        self.by_next.len()
    }
}

#[cfg(test)]
mod tests;
