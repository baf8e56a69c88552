//! The copies every LZ77 decoder here makes: `len` bytes from `off` back. [`copy_back`]
//! moves sixteen bytes at a time and may write up to 15 bytes of garbage past the copy (the
//! buffers keep [`SLACK`] for it): each decoder keeps what lies past its position right its
//! own way (RDP 6.0 and 6.1's level 1 rewrite the zeros that are there; MPPC reads the older
//! end of its history from a copy). [`copy_wrapped`] is the copy from before the start of
//! the buffer (MS-RDPBCGR 3.1.8.1: the whole history is valid from the start).

/// Bytes every decoder's history buffer keeps past its logical size for [`copy_back`].
pub(crate) const SLACK: usize = 16;

#[inline(always)]
fn copy16(h: &mut [u8], from: usize, to: usize) {
    let mut t = [0u8; 16];
    t.copy_from_slice(&h[from..from + 16]);
    h[to..to + 16].copy_from_slice(&t);
}

/// Copy `len` bytes from `off` back to `pos` (`0 < off ≤ pos`, `pos + len + SLACK ≤
/// h.len()`); bytes `pos + len ..` up to 15 further may be overwritten. An overlapping copy
/// (`off < len`) repeats the bytes just written, as LZ77 does: a run of period `off`.
#[inline(always)]
pub(crate) fn copy_back(h: &mut [u8], pos: usize, off: usize, len: usize) {
    debug_assert!(off > 0 && off <= pos && pos + len + SLACK <= h.len());
    let from = pos - off;
    if off >= 16 {
        // Each move reads only bytes already final.
        let mut i = 0;
        while i < len {
            copy16(h, from + i, pos + i);
            i += 16;
        }
    } else if off == 1 {
        let b = h[from];
        h[pos..pos + len].fill(b);
    } else {
        // Period `off` < 16: the first `step` bytes (a multiple of the period, ≥ 16) one by
        // one, then moves from `step` back, which repeat the same period.
        let step = off * 16usize.div_ceil(off);
        let first = len.min(step);
        for j in 0..first {
            h[pos + j] = h[from + j];
        }
        let mut i = first;
        while i < len {
            copy16(h, pos + i - step, pos + i);
            i += 16;
        }
    }
}

/// Copy `len` bytes from `off` back to `pos` when `off > pos`, in a circular history of
/// `size` bytes (`off < size`): from `older[pos + size − off ..]` up to its end (the older
/// end of the history, as it was before the current pass over the buffer), then on from the
/// start of `h`, byte by byte (what it reads there may be what it just wrote).
pub(crate) fn copy_wrapped(h: &mut [u8], older: &[u8], pos: usize, off: usize, len: usize, size: usize) {
    debug_assert!(off > pos && off < size && pos + len <= h.len() && size <= older.len());
    let from = pos + size - off;
    let first = len.min(size - from);
    h[pos..pos + first].copy_from_slice(&older[from..from + first]);
    for j in first..len {
        h[pos + j] = h[j - first];
    }
}

/// How many bytes at `a` and `b` agree, up to `max` (`a + max` and `b + max` within `h`):
/// eight bytes per comparison.
#[inline]
pub(crate) fn match_len(h: &[u8], a: usize, b: usize, max: usize) -> usize {
    let mut l = 0;
    while l + 8 <= max {
        let x = u64::from_le_bytes(h[a + l..a + l + 8].try_into().unwrap_or([0; 8]));
        let y = u64::from_le_bytes(h[b + l..b + l + 8].try_into().unwrap_or([0; 8]));
        let d = x ^ y;
        if d != 0 {
            return l + (d.trailing_zeros() / 8) as usize;
        }
        l += 8;
    }
    while l < max && h[a + l] == h[b + l] {
        l += 1;
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition: one byte at a time, circular.
    fn reference(h: &mut [u8], pos: usize, off: usize, len: usize, size: usize) {
        for j in 0..len {
            h[pos + j] = h[(pos + j + size - off) % size];
        }
    }

    proptest! {
        #[test]
        fn copies_as_the_definition_says(seed in proptest::collection::vec(any::<u8>(), 64..=64), pos in 0usize..200, off in 1usize..255, len in 0usize..120) {
            let size = 256;
            prop_assume!(pos + len <= size);
            let a0: Vec<u8> = (0..size + SLACK).map(|i| seed[i % 64] ^ (i as u8)).collect();
            let mut a = a0.clone();
            let mut b = a0.clone();
            if off <= pos {
                copy_back(&mut a, pos, off, len);
            } else {
                // What lies past `pos` is the older history: here, still the initial bytes.
                copy_wrapped(&mut a, &a0, pos, off, len, size);
            }
            reference(&mut b, pos, off, len, size);
            prop_assert_eq!(&a[..pos + len], &b[..pos + len]);
            // Beyond the copy: untouched, or at most 15 bytes of garbage from copy_back.
            prop_assert_eq!(&a[pos + len + 16..], &b[pos + len + 16..]);
        }
    }
}
