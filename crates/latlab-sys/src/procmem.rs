//! A process's memory as the kernel accounts it (`/proc/PID/smaps_rollup`): its proportional
//! share of every resident page (PSS) and the pages no other process maps (private, USS).

/// One process's memory, KiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProcMemory {
    /// Proportional set size: each resident page divided among the processes mapping it.
    pub pss_kib: u64,
    /// Private pages (clean and dirty): what this process alone holds, what one more instance
    /// of its program costs when the others share its code.
    pub private_kib: u64,
}

/// Parse a `smaps_rollup` text (`None` without a `Pss:` line).
pub fn parse_rollup(text: &str) -> Option<ProcMemory> {
    let field = |name: &str| {
        text.lines().find_map(|l| l.strip_prefix(name).and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok()))
    };
    Some(ProcMemory {
        pss_kib: field("Pss:")?,
        private_kib: field("Private_Clean:").unwrap_or(0) + field("Private_Dirty:").unwrap_or(0),
    })
}

/// Process `pid`'s memory now (`None`: gone, or not readable by this user).
pub fn memory(pid: u32) -> Option<ProcMemory> {
    parse_rollup(&std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?)
}

/// Process `pid`'s command name (`/proc/PID/comm`).
pub fn comm(pid: u32) -> Option<String> {
    Some(std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rollup_gives_pss_and_the_private_pages() {
        let t = "00400000-7ffd0000 ---p 00000000 00:00 0    [rollup]\nRss:               10868 kB\nPss:                3391 kB\nPss_Anon:           1204 kB\nShared_Clean:       7216 kB\nPrivate_Clean:       612 kB\nPrivate_Dirty:      1340 kB\n";
        assert_eq!(parse_rollup(t), Some(ProcMemory { pss_kib: 3391, private_kib: 1952 }));
        assert_eq!(parse_rollup("Rss: 1 kB\n"), None);
    }

    #[test]
    fn this_process_has_memory_and_a_name() {
        let me = std::process::id();
        let m = memory(me).expect("a process reads its own rollup");
        assert!(m.pss_kib > 0 && m.private_kib > 0, "{m:?}");
        assert!(comm(me).is_some_and(|c| !c.is_empty()));
    }
}
