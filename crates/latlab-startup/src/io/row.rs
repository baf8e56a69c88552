//! The paper row of `latlab startup io`: seed 004's disk summary tables (Figures 3 and 5),
//! where the scenario's own process stood among the disk's consumers.

use crate::io::IoRow;
use latlab_model::record::RunRecord;
use latlab_model::verdict::{Judgement, PaperRow};

/// Figure 3: processes that moved more bytes than the scenario's own wmplayer.exe (970,752
/// bytes): MsMpEng.exe, communicator.exe, svchost.exe (1468) and System.
pub const FIGURE_3_ABOVE_TARGET: usize = 4;

/// Where the launch stood among the disk's consumers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// Bytes the launch's processes read and wrote, together (its rows and the last-samples
    /// row): the seed's one scenario process.
    pub launch_bytes: u64,
    /// Processes outside the launch that moved more bytes than it, costliest first, each
    /// with its bytes.
    pub above: Vec<(String, u64)>,
    /// Processes outside the launch that moved any bytes.
    pub others: usize,
    /// Bytes the rest of the machine moved.
    pub others_bytes: u64,
}

fn bytes(r: &IoRow) -> u64 {
    r.c.read_bytes + r.c.write_bytes
}

/// The launch's standing in `rows` (the `processes` table's rows, all of them).
pub fn standing(rows: &[IoRow]) -> Standing {
    let launch_bytes = rows.iter().filter(|r| r.launched).map(bytes).sum();
    let others: Vec<&IoRow> = rows.iter().filter(|r| !r.launched && bytes(r) > 0).collect();
    let mut above: Vec<(String, u64)> = others
        .iter()
        .filter(|r| bytes(r) > launch_bytes)
        .map(|r| (format!("{} ({})", r.comm, r.pid), bytes(r)))
        .collect();
    above.sort_by(|a, b| b.1.cmp(&a.1));
    Standing { launch_bytes, above, others: others.len(), others_bytes: others.iter().map(|r| bytes(r)).sum() }
}

fn mb(b: u64) -> String {
    format!("{:.2} MB", b as f64 / 1e6)
}

/// Add the row, from the launch's standing.
pub fn disk_summary_row(rec: &mut RunRecord, s: &Standing) {
    let rank = s.above.len() + 1;
    let here = if s.above.is_empty() {
        let rest = match s.others {
            0 => "no other process read or wrote".to_string(),
            n => format!("{n} other processes {} in all", mb(s.others_bytes)),
        };
        format!("the launch first: {} read and written; {rest}", mb(s.launch_bytes))
    } else {
        let names: Vec<String> = s.above.iter().take(3).map(|(n, b)| format!("{n} {}", mb(*b))).collect();
        format!(
            "the launch ranks {rank}: {}; above it {}{}",
            mb(s.launch_bytes),
            names.join(", "),
            if s.above.len() > 3 { format!(" and {} more", s.above.len() - 3) } else { String::new() }
        )
    };
    let judgement = if s.launch_bytes == 0 {
        Judgement::not_comparable(
            "the launch moved no bytes to or from storage (its files were in memory): there is no disk use to rank it by",
        )
    } else {
        Judgement::finding(
            !s.above.is_empty(),
            "other processes use the disk more than the scenario's own during it (held to at least one process outside the launch moving more bytes than it; Figure 3: 4 did; after they were turned off, Figure 5, the scenario's process came first)",
            &format!("{} did", s.above.len()),
            "no other process moved more bytes than the launch: this machine is as the study's was after the fix (Figure 5)",
        )
    };
    rec.paper.push(PaperRow {
        seed: "004".into(),
        figure: "Figures 3 and 5: the scenario's process among the disk's consumers".into(),
        paper_setting: "Windows Embedded Standard 7, Windows Media Player's start, xperf's disk summary table".into(),
        paper_value: format!(
            "Figure 3: {FIGURE_3_ABOVE_TARGET} processes above wmplayer.exe (0.97 MB), MsMpEng.exe 22.6 MB in 442 reads; Figure 5, Defender and Communicator off: wmplayer.exe first"
        ),
        here_value: here,
        note: "bytes each process read and wrote during the scenario (/proc/PID/io), the launch's processes as one; the seed also sorts by disk service time, which /proc gives only with delay accounting on".into(),
        judgement,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Counters;
    use latlab_model::verdict::Verdict;

    fn row(pid: i32, comm: &str, launched: bool, read: u64, written: u64) -> IoRow {
        IoRow {
            pid,
            comm: comm.into(),
            new: launched,
            ended: launched,
            launched,
            c: Counters { read_bytes: read, write_bytes: written, ..Counters::default() },
        }
    }

    fn judged(rows: &[IoRow]) -> PaperRow {
        let mut rec = latlab_sys::record::begin("startup");
        disk_summary_row(&mut rec, &standing(rows));
        rec.paper.pop().unwrap()
    }

    #[test]
    fn the_launch_counts_as_one_and_only_processes_above_it_are_named() {
        // The launch is two processes (3 MB together); a scanner moved 5 MB (written counts,
        // as the seed's Size does), a logger 1 MB.
        let rows = [
            row(10, "scanner", false, 4_000_000, 1_000_000),
            row(20, "app", true, 2_000_000, 0),
            row(21, "helper", true, 1_000_000, 0),
            row(30, "logger", false, 0, 1_000_000),
            row(40, "idle", false, 0, 0),
        ];
        let s = standing(&rows);
        assert_eq!(s.launch_bytes, 3_000_000);
        assert_eq!(s.above, vec![("scanner (10)".to_string(), 5_000_000)]);
        assert_eq!((s.others, s.others_bytes), (2, 6_000_000));
        let r = judged(&rows);
        assert_eq!(r.judgement.verdict, Verdict::Reproduced);
        assert!(r.here_value.contains("ranks 2") && r.here_value.contains("scanner (10) 5.00 MB"), "{}", r.here_value);
    }

    #[test]
    fn a_launch_first_is_figure_5_and_a_launch_from_memory_is_not_comparable() {
        let first = judged(&[row(20, "app", true, 3_000_000, 0), row(30, "logger", false, 0, 1_000_000)]);
        assert_eq!(first.judgement.verdict, Verdict::Differs);
        assert!(first.judgement.basis.contains("Figure 5"), "{}", first.judgement.basis);
        assert!(first.here_value.starts_with("the launch first"), "{}", first.here_value);
        let cached = judged(&[row(20, "app", true, 0, 0), row(30, "logger", false, 0, 1_000_000)]);
        assert_eq!(cached.judgement.verdict, Verdict::NotComparable);
    }
}
