//! cyclictest's `-h` histogram text, so scripts written for cyclictest can plot latlab's
//! runs. Each latlab series is one cyclictest "thread" column, in the order given
//! (`latlab rt` writes unloaded L1, unloaded L2, loaded L1, loaded L2).
//!
//! Format, as rt-tests prints it: `# Histogram`, then one line per microsecond bucket
//! `%06d` followed by each column's count (` %06lu` for the first, `\t%06lu` after);
//! then `# Total:` (samples inside the histogram, ` %09llu`), `# Min Latencies:`,
//! `# Avg Latencies:`, `# Max Latencies:` (µs, ` %05lu`), `# Histogram Overflows:`, and
//! `# Histogram Overflow at cycle number:` with one `# Thread N:` line listing the cycle
//! numbers of overflowing samples. Latencies are truncated to whole microseconds, as
//! cyclictest's are.

use std::fmt::Write;

/// Most overflow cycle numbers listed per column (cyclictest keeps a bounded list too).
const MAX_OVERFLOW_LIST: usize = 1000;

/// One column: latencies in ns with their cycle (pulse) numbers.
pub struct Column<'a> {
    /// (cycle number, latency ns) for every served pulse.
    pub samples: &'a [(u64, i64)],
}

/// Render the histogram with `buckets` one-microsecond buckets.
pub fn histogram(columns: &[Column<'_>], buckets: usize) -> String {
    let buckets = buckets.max(1);
    let mut counts = vec![vec![0u64; buckets]; columns.len()];
    let mut overflow: Vec<Vec<u64>> = vec![Vec::new(); columns.len()];
    let mut stats = vec![(u64::MAX, 0u64, 0u64, 0u64); columns.len()]; // min, max, sum, n
    for (c, col) in columns.iter().enumerate() {
        for &(cycle, ns) in col.samples {
            let us = (ns.max(0) / 1000) as u64;
            let st = &mut stats[c];
            st.0 = st.0.min(us);
            st.1 = st.1.max(us);
            st.2 += us;
            st.3 += 1;
            if (us as usize) < buckets {
                counts[c][us as usize] += 1;
            } else {
                overflow[c].push(cycle);
            }
        }
    }
    let mut o = String::from("# Histogram\n");
    for b in 0..buckets {
        let _ = write!(o, "{b:06}");
        for (c, col) in counts.iter().enumerate() {
            let _ = write!(o, "{}{:06}", if c == 0 { ' ' } else { '\t' }, col[b]);
        }
        o.push('\n');
    }
    let line = |o: &mut String, label: &str, f: &dyn Fn(usize) -> String| {
        o.push_str(label);
        for c in 0..columns.len() {
            o.push(' ');
            o.push_str(&f(c));
        }
        o.push('\n');
    };
    line(&mut o, "# Total:", &|c| format!("{:09}", counts[c].iter().sum::<u64>()));
    line(&mut o, "# Min Latencies:", &|c| format!("{:05}", if stats[c].3 == 0 { 0 } else { stats[c].0 }));
    line(&mut o, "# Avg Latencies:", &|c| format!("{:05}", stats[c].2.checked_div(stats[c].3).unwrap_or(0)));
    line(&mut o, "# Max Latencies:", &|c| format!("{:05}", stats[c].1));
    line(&mut o, "# Histogram Overflows:", &|c| format!("{:05}", overflow[c].len()));
    o.push_str("# Histogram Overflow at cycle number:\n");
    for (c, ov) in overflow.iter().enumerate() {
        let _ = write!(o, "# Thread {c}:");
        for cycle in ov.iter().take(MAX_OVERFLOW_LIST) {
            let _ = write!(o, " {cycle:05}");
        }
        if ov.len() > MAX_OVERFLOW_LIST {
            let _ = write!(o, " # {:05} others", ov.len() - MAX_OVERFLOW_LIST);
        }
        o.push('\n');
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_cyclictest_layout_by_hand() {
        let a = [(0, 1_500), (1, 2_999), (2, 5_000), (3, 1_000)];
        let b = [(0, 2_000), (2, 2_100)];
        let h = histogram(&[Column { samples: &a }, Column { samples: &b }], 4);
        let expected = "# Histogram\n\
000000 000000\t000000\n\
000001 000002\t000000\n\
000002 000001\t000002\n\
000003 000000\t000000\n\
# Total: 000000003 000000002\n\
# Min Latencies: 00001 00002\n\
# Avg Latencies: 00002 00002\n\
# Max Latencies: 00005 00002\n\
# Histogram Overflows: 00001 00000\n\
# Histogram Overflow at cycle number:\n\
# Thread 0: 00002\n\
# Thread 1:\n";
        assert_eq!(h, expected);
    }

    #[test]
    fn empty_column() {
        let h = histogram(&[Column { samples: &[] }], 2);
        assert!(h.contains("# Total: 000000000\n# Min Latencies: 00000\n"));
    }
}
