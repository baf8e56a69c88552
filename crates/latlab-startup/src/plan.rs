//! Launch plans: which files a launch reads, in the order it first reads them, and which
//! page ranges of each. Stored as JSON (`"schema": "latlab.plan/1"`, documented in
//! docs/experiments/boot.md) and replayed by prefetching the ranges in plan order on
//! parallel threads while the command starts.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The format's name and version.
pub const SCHEMA: &str = "latlab.plan/1";

/// One file of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanFile {
    /// Absolute path.
    pub path: PathBuf,
    /// Its size when the plan was learned, bytes (a changed file invalidates its ranges).
    pub size: u64,
    /// Page ranges read, `[first page, pages]`, ascending.
    pub ranges: Vec<(u64, u64)>,
}

/// A launch plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// The command learned, program first.
    pub command: Vec<String>,
    /// Page size the ranges count in.
    pub page_size: u64,
    /// Files in the order the launch first opened them.
    pub files: Vec<PlanFile>,
}

/// Why a plan could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// Not JSON of the plan's shape.
    #[error("line {line}, column {column}: {msg}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        msg: String,
    },
    /// Another schema.
    #[error("schema \"{0}\": this latlab reads \"{SCHEMA}\"")]
    Schema(String),
    /// A range that cannot be.
    #[error("{path}: range {first}+{pages} is empty, unordered or overlaps the one before")]
    Range {
        /// The file.
        path: String,
        /// First page.
        first: u64,
        /// Pages.
        pages: u64,
    },
}

impl Plan {
    /// Pages the plan prefetches.
    pub fn pages(&self) -> u64 {
        self.files.iter().flat_map(|f| f.ranges.iter().map(|r| r.1)).sum()
    }
    /// Pages of the whole files (what whole-file prefetch would read).
    pub fn whole_pages(&self) -> u64 {
        self.files.iter().map(|f| f.size.div_ceil(self.page_size.max(1))).sum()
    }

    /// How far another plan of the same launch agrees with this one: files in both and in
    /// either, pages in both and in either (ranges intersected file by file).
    pub fn agreement(&self, other: &Plan) -> Agreement {
        let mut a = Agreement::default();
        let pages = |f: &PlanFile| f.ranges.iter().map(|r| r.1).sum::<u64>();
        for f in &self.files {
            match other.files.iter().find(|g| g.path == f.path) {
                Some(g) => {
                    a.files_both += 1;
                    let common = common_pages(&f.ranges, &g.ranges);
                    a.pages_both += common;
                    a.pages_either += pages(f) + pages(g) - common;
                }
                None => a.pages_either += pages(f),
            }
        }
        let only_other: Vec<&PlanFile> =
            other.files.iter().filter(|g| !self.files.iter().any(|f| f.path == g.path)).collect();
        a.pages_either += only_other.iter().map(|g| pages(g)).sum::<u64>();
        a.files_either = self.files.len() + only_other.len();
        a
    }

    /// As JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a plan always serializes")
    }

    /// From JSON, checked.
    pub fn from_json(text: &str) -> Result<Self, PlanError> {
        let p: Plan = serde_json::from_str(text).map_err(|e| PlanError::Syntax {
            line: e.line(),
            column: e.column(),
            msg: e.to_string(),
        })?;
        if p.schema != SCHEMA {
            return Err(PlanError::Schema(p.schema));
        }
        for f in &p.files {
            let mut end = 0u64;
            for (i, &(first, pages)) in f.ranges.iter().enumerate() {
                if pages == 0 || (i > 0 && first < end) {
                    return Err(PlanError::Range { path: f.path.display().to_string(), first, pages });
                }
                end = first + pages;
            }
        }
        Ok(p)
    }

    /// Prefetch every range in plan order on `threads` threads: each thread takes the next
    /// file not yet taken, so the reads go out in the order the launch will want them. Ranges
    /// closer than [`crate::defaults::REPLAY_MERGE_GAP_PAGES`] are read as one (one larger
    /// request beats two small ones). Files that changed size or vanished are skipped and
    /// counted.
    pub fn replay(&self, threads: usize) -> usize {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let next = AtomicUsize::new(0);
        let skipped = AtomicUsize::new(0);
        std::thread::scope(|sc| {
            for _ in 0..threads.max(1) {
                sc.spawn(|| {
                    while let Some(f) = self.files.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let ranges = merge_close(&f.ranges, crate::defaults::REPLAY_MERGE_GAP_PAGES);
                        let ok = std::fs::metadata(&f.path).is_ok_and(|m| m.len() == f.size)
                            && crate::pagecache::prefetch(&f.path, &ranges).is_ok();
                        if !ok {
                            skipped.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        skipped.into_inner()
    }
}

/// Join ascending ranges separated by at most `gap` pages.
pub fn merge_close(ranges: &[(u64, u64)], gap: u64) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for &(first, n) in ranges {
        match out.last_mut() {
            Some(last) if first <= last.0 + last.1 + gap => last.1 = (first + n).max(last.0 + last.1) - last.0,
            _ => out.push((first, n)),
        }
    }
    out
}

/// A plan for files as they are resident now (after a launch from a cold cache).
pub fn from_residency(command: Vec<String>, files: &[&Path]) -> std::io::Result<Plan> {
    let mut out = Vec::new();
    for p in files {
        let r = crate::pagecache::residency(p)?;
        if r.resident > 0 {
            out.push(PlanFile { path: p.to_path_buf(), size: std::fs::metadata(p)?.len(), ranges: r.ranges });
        }
    }
    Ok(Plan { schema: SCHEMA.into(), command, page_size: crate::pagecache::page_size() as u64, files: out })
}

/// How two plans of one launch agree ([`Plan::agreement`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Agreement {
    /// Files in both plans.
    pub files_both: usize,
    /// Files in either.
    pub files_either: usize,
    /// Pages in both.
    pub pages_both: u64,
    /// Pages in either.
    pub pages_either: u64,
}

impl Agreement {
    /// Pages in both over pages in either (1 when both plans are empty).
    pub fn page_share(&self) -> f64 {
        if self.pages_either == 0 { 1.0 } else { self.pages_both as f64 / self.pages_either as f64 }
    }
}

/// Pages two ascending range lists (`[first, pages]`) have in common.
fn common_pages(a: &[(u64, u64)], b: &[(u64, u64)]) -> u64 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (a0, a1) = (a[i].0, a[i].0 + a[i].1);
        let (b0, b1) = (b[j].0, b[j].0 + b[j].1);
        n += a1.min(b1).saturating_sub(a0.max(b0));
        if a1 <= b1 { i += 1 } else { j += 1 }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Plan {
        Plan {
            schema: SCHEMA.into(),
            command: vec!["/usr/bin/app".into(), "--flag".into()],
            page_size: 4096,
            files: vec![
                PlanFile { path: "/usr/lib/libx.so".into(), size: 409_600, ranges: vec![(0, 4), (10, 20)] },
                PlanFile { path: "/etc/app.conf".into(), size: 100, ranges: vec![(0, 1)] },
            ],
        }
    }

    #[test]
    fn a_plan_round_trips_and_counts_its_pages() {
        let p = sample();
        let back = Plan::from_json(&p.to_json()).unwrap();
        assert_eq!(back, p);
        assert_eq!(p.pages(), 25);
        assert_eq!(p.whole_pages(), 101);
    }

    #[test]
    fn two_plans_agree_file_by_file_and_page_by_page() {
        let a = sample();
        assert_eq!(a.agreement(&a), Agreement { files_both: 2, files_either: 2, pages_both: 25, pages_either: 25 });
        // Again with the library's second range shifted by 5 pages and a file of its own.
        let mut b = sample();
        b.files[0].ranges = vec![(0, 4), (15, 20)];
        b.files.push(PlanFile { path: "/usr/share/x".into(), size: 4096, ranges: vec![(0, 1)] });
        let g = a.agreement(&b);
        // libx: 4 + 15 in common of 4 + 25 in either; app.conf 1 of 1; x 0 of 1.
        assert_eq!(g, Agreement { files_both: 2, files_either: 3, pages_both: 20, pages_either: 31 });
        assert!((g.page_share() - 20.0 / 31.0).abs() < 1e-12);
        assert_eq!(b.agreement(&a).pages_both, 20, "symmetric");
        assert_eq!(common_pages(&[(0, 10)], &[(2, 3), (8, 5)]), 5);
        assert_eq!(Agreement::default().page_share(), 1.0);
    }

    #[test]
    fn close_ranges_merge_for_replay() {
        assert_eq!(merge_close(&[(0, 4), (6, 2), (30, 1)], 2), vec![(0, 8), (30, 1)]);
        assert_eq!(merge_close(&[(0, 4), (6, 2)], 1), vec![(0, 4), (6, 2)]);
        assert_eq!(merge_close(&[], 8), vec![]);
    }

    #[test]
    fn malformed_plans_are_refused_clearly() {
        let json = sample().to_json();
        let e = Plan::from_json(&json.replace("latlab.plan/1", "latlab.plan/9")).unwrap_err();
        assert!(e.to_string().contains("latlab.plan/9"), "{e}");
        let e = Plan::from_json(&json.replacen("\"size\": 409600", "\"size\": \"big\"", 1)).unwrap_err();
        assert!(matches!(e, PlanError::Syntax { line, .. } if line > 1), "{e}");
        let mut bad = sample();
        bad.files[0].ranges = vec![(10, 5), (12, 1)];
        assert!(matches!(Plan::from_json(&bad.to_json()), Err(PlanError::Range { first: 12, .. })));
        bad.files[0].ranges = vec![(0, 0)];
        assert!(Plan::from_json(&bad.to_json()).is_err());
    }

    #[test]
    fn replay_prefetches_what_exists_and_skips_what_changed() {
        let dir = Path::new("/var/tmp");
        if !crate::pagecache::evictable(dir) {
            latlab_model::testing::skip("/var/tmp is in memory");
            return;
        }
        let a = dir.join(format!("latlab-plan-test-a-{}", std::process::id()));
        std::fs::write(&a, vec![1u8; 8 * 4096]).unwrap();
        crate::pagecache::evict(&a).unwrap();
        let plan = Plan {
            schema: SCHEMA.into(),
            command: vec![],
            page_size: 4096,
            files: vec![
                PlanFile { path: a.clone(), size: 8 * 4096, ranges: vec![(2, 2)] },
                PlanFile { path: dir.join("latlab-plan-test-missing"), size: 1, ranges: vec![(0, 1)] },
            ],
        };
        assert_eq!(plan.replay(2), 1);
        let mut r = crate::pagecache::residency(&a).unwrap();
        for _ in 0..100 {
            if r.resident >= 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            r = crate::pagecache::residency(&a).unwrap();
        }
        assert!(r.ranges.iter().any(|&(s, n)| s <= 2 && s + n >= 4), "{r:?}");
        std::fs::remove_file(&a).unwrap();
    }
}
