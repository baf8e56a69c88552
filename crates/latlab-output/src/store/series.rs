//! A series as the store keeps it: one BLOB of zigzag varint deltas, and why one does not decode.

/// Encode a series compactly: each value as the difference from the previous one (first
/// from 0), zig-zag mapped to unsigned, written as LEB128 varint. Latency samples of a few
/// µs take 2–3 bytes each; timestamps at a steady rate take 1–3.
pub fn encode_series(values: &[i64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 3);
    let mut prev = 0i64;
    for &v in values {
        let d = v.wrapping_sub(prev);
        prev = v;
        let mut z = ((d << 1) ^ (d >> 63)) as u64;
        while z >= 0x80 {
            out.push((z as u8) | 0x80);
            z >>= 7;
        }
        out.push(z as u8);
    }
    out
}

/// Why a stored series does not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeriesError {
    /// A value's varint runs past 64 bits.
    #[error("varint too long at byte {0}")]
    TooLong(usize),
    /// The last varint is cut short.
    #[error("truncated varint at end")]
    Truncated,
    /// The series holds another number of values than its row says.
    #[error("expected {expected} values, found {found}")]
    Count {
        /// Values the row says.
        expected: usize,
        /// Values decoded.
        found: usize,
    },
}

/// Decode [`encode_series`] output, checking it holds exactly `count` values.
pub fn decode_series(data: &[u8], count: usize) -> Result<Vec<i64>, SeriesError> {
    let out = decode_values(data, count.min(data.len()))?;
    if out.len() != count {
        return Err(SeriesError::Count { expected: count, found: out.len() });
    }
    Ok(out)
}

/// Decode [`encode_series`] output, however many values it holds.
pub fn decode_all(data: &[u8]) -> Result<Vec<i64>, SeriesError> {
    decode_values(data, data.len())
}

fn decode_values(data: &[u8], capacity: usize) -> Result<Vec<i64>, SeriesError> {
    let mut out = Vec::with_capacity(capacity);
    let mut prev = 0i64;
    let mut z = 0u64;
    let mut shift = 0u32;
    for (i, &b) in data.iter().enumerate() {
        if shift >= 64 {
            return Err(SeriesError::TooLong(i));
        }
        z |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 != 0 {
            shift += 7;
            continue;
        }
        let d = ((z >> 1) as i64) ^ -((z & 1) as i64);
        prev = prev.wrapping_add(d);
        out.push(prev);
        z = 0;
        shift = 0;
    }
    if shift != 0 {
        return Err(SeriesError::Truncated);
    }
    Ok(out)
}
