//! Tests of `policy.rs`.

use super::*;
use proptest::prelude::*;
use std::collections::HashSet;

/// Hits of `kind` on `trace` with capacity `cap`, checking residency on the way.
fn run(kind: PolicyKind, cap: usize, trace: &[u64]) -> usize {
    let next = next_uses(trace);
    let mut p = kind.build(cap);
    let mut resident = HashSet::new();
    let mut hits = 0;
    for (i, &k) in trace.iter().enumerate() {
        match p.access(k, next[i]) {
            Access::Hit => {
                assert!(resident.contains(&k), "{kind:?}: hit on a key not resident");
                hits += 1;
            }
            Access::Miss(ev) => {
                assert!(!resident.contains(&k), "{kind:?}: miss on a resident key");
                if let Some(e) = ev {
                    assert!(resident.remove(&e), "{kind:?}: evicted a key not resident");
                }
                resident.insert(k);
            }
        }
        assert!(resident.len() <= cap, "{kind:?}: {} resident, capacity {cap}", resident.len());
        assert_eq!(p.len(), resident.len(), "{kind:?}: len");
    }
    hits
}

#[test]
fn a_loop_one_larger_than_the_cache() {
    let trace: Vec<u64> = (0..20).flat_map(|_| 0..11u64).collect();
    assert_eq!(run(PolicyKind::Lru, 10, &trace), 0, "LRU misses every time");
    assert_eq!(run(PolicyKind::Fifo, 10, &trace), 0);
    let opt = run(PolicyKind::Opt, 10, &trace);
    // Belady on a loop of n keys with k cells: (k-1)/(n-1) of the references hit, after
    // the first pass.
    assert!(opt >= 19 * 11 * 9 / 10 - 2, "{opt}");
    let lirs = run(PolicyKind::Lirs, 10, &trace);
    assert!(lirs >= 19 * 8, "LIRS keeps its LIR set on a loop: {lirs}");
    assert_eq!(run(PolicyKind::Lru, 11, &trace), 19 * 11, "it fits: every later pass hits");
}

#[test]
fn next_uses_by_hand() {
    assert_eq!(next_uses(&[1, 2, 1, 3, 2]), [2, 4, u64::MAX, u64::MAX, u64::MAX]);
}

proptest! {
    #[test]
    fn nothing_beats_the_optimum(cap in 1usize..20, trace in prop::collection::vec(0u64..40, 0..400)) {
        let opt = run(PolicyKind::Opt, cap, &trace);
        for kind in PolicyKind::ALL {
            let h = run(kind, cap, &trace);
            prop_assert!(h <= opt, "{:?} {} hits > optimum {}", kind, h, opt);
        }
    }
}
