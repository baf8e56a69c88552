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

mod arc;
mod lirs;
use arc::Arc;
use lirs::Lirs;

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

latlab_model::serialize_by_name!(PolicyKind);

#[cfg(test)]
mod tests;
