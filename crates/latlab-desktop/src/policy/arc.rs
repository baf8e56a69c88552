//! ARC (Megiddo & Modha, FAST '03): recency and frequency lists with their ghosts, the
//! split between them adapting to the trace.

use super::*;

pub(super) struct Arc {
    cap: usize,
    /// Target size of T1.
    p: usize,
    slab: Slab,
    /// T1, T2 (resident), B1, B2 (ghosts).
    lists: [List; 4],
    map: HashMap<u64, (usize, usize)>,
}

impl Arc {
    pub(super) fn new(cap: usize) -> Self {
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
