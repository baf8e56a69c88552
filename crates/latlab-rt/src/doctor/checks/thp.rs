//! The doctor's check of transparent huge pages.

use super::*;

/// Transparent huge pages.
pub struct Thp;

impl Check for Thp {
    fn inspect(&self, m: &Machine) -> Finding {
        thp(m.src)
    }
}

fn thp(src: &dyn Source) -> Finding {
    let f = Finding::new(
        "thp",
        "Transparent huge pages and compaction",
        "with huge pages 'always' a page fault may compact memory to find a huge page (direct compaction: milliseconds), and khugepaged collapses pages behind a running program",
    );
    let enabled = trim(src.read("/sys/kernel/mm/transparent_hugepage/enabled"));
    let defrag = trim(src.read("/sys/kernel/mm/transparent_hugepage/defrag"));
    let proactive = trim(src.read("/proc/sys/vm/compaction_proactiveness"));
    let (e, d) = (enabled.as_deref().and_then(chosen), defrag.as_deref().and_then(chosen));
    let seen = format!(
        "enabled {}, defrag {}, compaction_proactiveness {}",
        e.unwrap_or("?"),
        d.unwrap_or("?"),
        proactive.as_deref().unwrap_or("?")
    );
    let advice = "madvise (echo madvise > /sys/kernel/mm/transparent_hugepage/enabled and defrag) and lock real-time memory (mlockall, as latlab rt does); not measured here: it shows on fragmented memory, not in a short run";
    if e == Some("always") || d == Some("always") {
        f.with(Severity::Costly, seen, advice)
    } else {
        f.with(Severity::Fine, seen, "nothing")
    }
}
