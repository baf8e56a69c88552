//! The copy every LZ77 decoder here makes: `len` bytes from `off` back, in a history whose
//! older end continues past its start (MS-RDPBCGR 3.1.8.1: the whole history is valid from
//! the start). Sixteen bytes at a time where the buffer's slack allows, with the bytes past
//! the copy put back, so nothing past the copy ever changes.

/// Bytes every decoder's history buffer keeps past its logical size for [`copy_match`].
pub(crate) const SLACK: usize = 16;

#[inline(always)]
fn copy16(h: &mut [u8], from: usize, to: usize) {
    let mut t = [0u8; 16];
    t.copy_from_slice(&h[from..from + 16]);
    h[to..to + 16].copy_from_slice(&t);
}

/// Copy `len` bytes from `off` back to `pos` in a circular history of `size` bytes
/// (`0 < off < size ≤ h.len()`, `pos + len + SLACK ≤ h.len()`). An overlapping copy
/// (`off < len`) repeats the bytes just written, as LZ77 does: a run of period `off`.
#[inline]
pub(crate) fn copy_match<const ZEROS_AHEAD: bool>(h: &mut [u8], pos: usize, off: usize, len: usize, size: usize) {
    debug_assert!(off > 0 && off < size && size <= h.len() && pos + len + SLACK <= h.len());
    if off > pos {
        // From before the start: the older end of the history, byte by byte (rare).
        let mut from = pos + size - off;
        for j in 0..len {
            h[pos + j] = h[from];
            from = if from + 1 == size { 0 } else { from + 1 };
        }
        return;
    }
    let from = pos - off;
    let end = pos + len;
    if off == 1 {
        let b = h[from];
        h[pos..end].fill(b);
        return;
    }
    // Whole 16-byte moves may write up to 15 bytes past `end`: keep them.
    let mut saved = [0u8; 16];
    if !ZEROS_AHEAD {
        saved.copy_from_slice(&h[end..end + 16]);
    }
    if off >= 16 {
        // Each move reads only bytes already final.
        let mut i = 0;
        while i < len {
            copy16(h, from + i, pos + i);
            i += 16;
        }
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
    h[end..end + 16].copy_from_slice(&saved);
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

    #[test]
    fn match_len_counts_agreeing_bytes() {
        let h = b"abcdefghijabcdefghijabcdefgXYZ";
        assert_eq!(match_len(h, 0, 10, 20), 17);
        assert_eq!(match_len(h, 0, 10, 5), 5);
        assert_eq!(match_len(h, 0, 1, 10), 0);
        assert_eq!(match_len(h, 0, 20, 7), 7);
    }

    proptest! {
        #[test]
        fn copies_as_the_definition_says(seed in proptest::collection::vec(any::<u8>(), 64..=64), pos in 0usize..200, off in 1usize..255, len in 0usize..120) {
            let size = 256;
            prop_assume!(pos + len <= size);
            let mut a: Vec<u8> = (0..size + SLACK).map(|i| seed[i % 64] ^ (i as u8)).collect();
            let mut b = a.clone();
            copy_match::<false>(&mut a, pos, off, len, size);
            reference(&mut b, pos, off, len, size);
            prop_assert_eq!(a, b);
        }
    }
}
