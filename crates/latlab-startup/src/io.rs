//! `latlab startup io`: the per-process disk I/O of a scenario (seed 004, Figure 3). Every
//! process's counters (`/proc/PID/io`: bytes that reached storage, read and write calls;
//! `/proc/PID/stat`: major faults) are read before, every interval during, and after the
//! scenario; each row is a process's growth over it, sorted by cost.
//!
//! A process too short-lived to be sampled is counted in its parent's row: the kernel adds a
//! reaped child's counters to its parent's. A sampled child that then ends would be counted
//! twice that way, so its last sampled counters are taken off its parent's growth.
//!
//! What the launch did after its processes' last samples (the command exiting between two
//! samples, with the children it reaped last) is in latlab's own reaped-children usage
//! (`getrusage(RUSAGE_CHILDREN)`): bytes and major faults beyond what the rows hold are
//! shown in one more row, so the launch's totals are whole.

use latlab_model::record::{Column, RunRecord, RunStatus, Table};
use latlab_sys::record::Finish;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub mod files;
pub mod row;

/// One process's counters at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Bytes read from storage (`read_bytes`).
    pub read_bytes: u64,
    /// Bytes written towards storage (`write_bytes`).
    pub write_bytes: u64,
    /// Read calls (`syscr`).
    pub read_ops: u64,
    /// Write calls (`syscw`).
    pub write_ops: u64,
    /// Major faults, its own and its reaped children's.
    pub major_faults: u64,
}

impl Counters {
    fn plus(self, o: Counters) -> Counters {
        Counters {
            read_bytes: self.read_bytes + o.read_bytes,
            write_bytes: self.write_bytes + o.write_bytes,
            read_ops: self.read_ops + o.read_ops,
            write_ops: self.write_ops + o.write_ops,
            major_faults: self.major_faults + o.major_faults,
        }
    }
    fn minus(self, o: Counters) -> Counters {
        Counters {
            read_bytes: self.read_bytes.saturating_sub(o.read_bytes),
            write_bytes: self.write_bytes.saturating_sub(o.write_bytes),
            read_ops: self.read_ops.saturating_sub(o.read_ops),
            write_ops: self.write_ops.saturating_sub(o.write_ops),
            major_faults: self.major_faults.saturating_sub(o.major_faults),
        }
    }
    fn is_zero(&self) -> bool {
        *self == Counters::default()
    }
}

/// What one read of a process gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcSample {
    /// Its name.
    pub comm: String,
    /// Its parent.
    pub ppid: i32,
    /// Start time (clock ticks since boot), to tell a reused pid apart.
    pub start: u64,
    /// Counters.
    pub c: Counters,
}

/// Parse `/proc/PID/stat` and `/proc/PID/io` texts.
pub fn parse_proc(stat: &str, io: &str) -> Option<ProcSample> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_string();
    // Fields after the name, numbered from 3 (state) as in proc(5).
    let f: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    let field = |n: usize| f.get(n - 3).and_then(|v| v.parse::<u64>().ok());
    let ppid = field(4)? as i32;
    let major_faults = field(12)? + field(13)?;
    let start = field(22)?;
    let mut c = Counters { major_faults, ..Counters::default() };
    for line in io.lines() {
        let Some((k, v)) = line.split_once(':') else { continue };
        let v: u64 = v.trim().parse().ok()?;
        match k {
            "read_bytes" => c.read_bytes = v,
            "write_bytes" => c.write_bytes = v,
            "syscr" => c.read_ops = v,
            "syscw" => c.write_ops = v,
            _ => {}
        }
    }
    Some(ProcSample { comm, ppid, start, c })
}

/// `Err(true)` when the process exists but may not be read; `Err(false)` when it is gone.
fn read_proc(pid: i32) -> Result<ProcSample, bool> {
    let read = |f: &str| {
        std::fs::read_to_string(format!("/proc/{pid}/{f}"))
            .map_err(|e| e.kind() == std::io::ErrorKind::PermissionDenied)
    };
    let (stat, io) = (read("stat")?, read("io")?);
    parse_proc(&stat, &io).ok_or(false)
}

/// Every readable process now (not this one), and how many could not be read.
fn sample_all(me: i32) -> (Vec<(i32, ProcSample)>, usize) {
    let mut out = Vec::new();
    let mut unreadable = 0;
    let Ok(dir) = std::fs::read_dir("/proc") else { return (out, 0) };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        if pid == me {
            continue;
        }
        match read_proc(pid) {
            Ok(s) => out.push((pid, s)),
            Err(true) => unreadable += 1,
            Err(false) => {}
        }
    }
    (out, unreadable)
}

/// One process's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoRow {
    /// Pid.
    pub pid: i32,
    /// Name.
    pub comm: String,
    /// Started during the scenario.
    pub new: bool,
    /// Ended during it.
    pub ended: bool,
    /// Part of the launch: a descendant of the process the tracker was told is the launcher
    /// (latlab itself), followed through the parents each process had when first seen, so a
    /// daemon that detached and was re-parented still counts.
    pub launched: bool,
    /// Growth over the scenario.
    pub c: Counters,
}

#[derive(Debug, Clone)]
struct Tracked {
    comm: String,
    ppid: i32,
    first_ppid: i32,
    start: u64,
    first: Counters,
    last: Counters,
    new: bool,
    ended: bool,
}

/// Folds samples into rows.
#[derive(Debug, Default)]
pub struct IoTracker {
    procs: HashMap<(i32, u64), Tracked>,
    samples: usize,
    launcher: Option<i32>,
    /// Most processes unreadable in one sample (other users' without privilege).
    pub unreadable: usize,
}

impl IoTracker {
    /// A tracker whose rows mark the descendants of `launcher` (latlab's pid: it is never
    /// sampled itself) as the launch's.
    pub fn for_launcher(launcher: i32) -> Self {
        IoTracker { launcher: Some(launcher), ..Default::default() }
    }

    /// Take one sample (`initial` for the one before the scenario).
    pub fn add(&mut self, now: &[(i32, ProcSample)], initial: bool) {
        self.samples += 1;
        let mut present = std::collections::HashSet::new();
        for (pid, s) in now {
            let key = (*pid, s.start);
            present.insert(key);
            let t = self.procs.entry(key).or_insert_with(|| Tracked {
                comm: s.comm.clone(),
                ppid: s.ppid,
                first_ppid: s.ppid,
                start: s.start,
                // Born during the scenario: everything it did belongs to it.
                first: if initial { s.c } else { Counters::default() },
                last: s.c,
                new: !initial,
                ended: false,
            });
            t.last = s.c;
            t.ppid = s.ppid;
            t.comm.clone_from(&s.comm);
        }
        for (k, t) in self.procs.iter_mut() {
            if !present.contains(k) {
                t.ended = true;
            }
        }
    }

    /// The rows, sorted by cost (storage bytes, then major faults, then calls), zero rows
    /// left out.
    pub fn rows(&self) -> Vec<IoRow> {
        let mut growth: HashMap<(i32, u64), Counters> =
            self.procs.iter().map(|(k, t)| (*k, t.last.minus(t.first))).collect();
        // A sampled child that ended was added whole to its parent when reaped.
        for t in self.procs.values().filter(|t| t.ended) {
            if let Some(pk) = self.parent(t.ppid, t.start)
                && let Some(g) = growth.get_mut(&pk)
            {
                *g = g.minus(t.last);
            }
        }
        let mut rows: Vec<IoRow> = self
            .procs
            .iter()
            .map(|(k, t)| IoRow {
                pid: k.0,
                comm: t.comm.clone(),
                new: t.new,
                ended: t.ended,
                launched: self.launched(t),
                c: growth[k],
            })
            .filter(|r| !r.c.is_zero())
            .collect();
        rows.sort_by(|a, b| {
            let key = |r: &IoRow| (r.c.read_bytes + r.c.write_bytes, r.c.major_faults, r.c.read_ops + r.c.write_ops);
            key(b).cmp(&key(a)).then(a.pid.cmp(&b.pid))
        });
        rows
    }

    /// The tracked process that was `ppid` when a child started at `start`: the pid's
    /// latest incarnation that started no later than the child.
    fn parent(&self, ppid: i32, start: u64) -> Option<(i32, u64)> {
        self.procs.keys().filter(|k| k.0 == ppid && self.procs[k].start <= start).max_by_key(|k| k.1).copied()
    }

    /// Whether `t` descends from the launcher, through first-seen parents. The launch's
    /// processes all start during the scenario, so an old process is never the launch's.
    fn launched(&self, t: &Tracked) -> bool {
        let Some(launcher) = self.launcher else { return false };
        let (mut ppid, mut start, mut new) = (t.first_ppid, t.start, t.new);
        // Bounded: a pid reused within the scenario could otherwise make a loop.
        for _ in 0..64 {
            if !new {
                return false;
            }
            if ppid == launcher {
                return true;
            }
            let Some(k) = self.parent(ppid, start) else { return false };
            let p = &self.procs[&k];
            (ppid, start, new) = (p.first_ppid, p.start, p.new);
        }
        false
    }

    /// Samples taken.
    pub fn samples(&self) -> usize {
        self.samples
    }
}

/// What this process's reaped children (and theirs, reaped in turn) did in all: storage
/// bytes (the kernel keeps them in 512-byte blocks, from the same counters as
/// `/proc/PID/io`, less cancelled writes) and major faults. Calls are not kept.
pub fn reaped_children() -> Counters {
    match nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN) {
        Ok(u) => Counters {
            read_bytes: u.block_reads().max(0) as u64 * 512,
            write_bytes: u.block_writes().max(0) as u64 * 512,
            major_faults: u.major_page_faults().max(0) as u64,
            ..Counters::default()
        },
        Err(_) => Counters::default(),
    }
}

/// Launch `spec` while sampling every process each `interval`. Returns the samples, the
/// launch, and what the launch's reaped processes did in all ([`reaped_children`]'s growth:
/// the launch is the only child latlab reaps meanwhile).
pub fn observe(
    spec: &crate::launch::LaunchSpec,
    interval: Duration,
) -> Result<(IoTracker, crate::launch::Launch, Counters), crate::launch::LaunchError> {
    let (stop, started) = (AtomicBool::new(false), AtomicBool::new(false));
    let (tracker, launched, reaped) = std::thread::scope(|sc| {
        let h = sc.spawn(|| track(interval, &stop, &started));
        while !started.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let before = reaped_children();
        let l = crate::launch::launch(spec, std::time::Instant::now(), false);
        let reaped = reaped_children().minus(before);
        stop.store(true, Ordering::Release);
        // A panic in the sampler is a bug; surface it as one rather than as a launch error.
        (h.join().expect("the sampling thread panicked"), l, reaped)
    });
    Ok((tracker, launched?, reaped))
}

/// Sample every process until `stop`, then once more.
pub fn track(interval: Duration, stop: &AtomicBool, started: &AtomicBool) -> IoTracker {
    let me = std::process::id() as i32;
    let mut t = IoTracker::for_launcher(me);
    let (s, u) = sample_all(me);
    t.add(&s, true);
    t.unreadable = u;
    started.store(true, Ordering::Release);
    loop {
        let done = stop.load(Ordering::Acquire);
        std::thread::sleep(if done { Duration::ZERO } else { interval });
        let (s, u) = sample_all(me);
        t.add(&s, false);
        t.unreadable = t.unreadable.max(u);
        if done {
            return t;
        }
    }
}

/// The stored run of `startup io`; `rec` is the record begun before the scenario, `reaped`
/// the launch's whole reaped usage from [`observe`].
#[allow(clippy::too_many_arguments)]
pub fn io_run(
    mut rec: RunRecord,
    command: &[String],
    ready: &str,
    interval_ms: u64,
    duration_ns: u64,
    t: &IoTracker,
    reaped: Counters,
    top: usize,
) -> RunRecord {
    rec.mode = "io".into();
    rec.config("command", command);
    rec.config("ready", ready);
    rec.config("interval_ms", interval_ms);
    let mut rows = t.rows();
    // What the launch's reaped processes did beyond what their rows hold: work after their
    // last samples. A launched process re-parented away from the launch is not in `reaped`,
    // hence per-field saturation.
    let sampled_reaped = rows.iter().filter(|r| r.launched && r.ended).fold(Counters::default(), |a, r| a.plus(r.c));
    let unsampled = reaped.minus(sampled_reaped);
    if !unsampled.is_zero() {
        let at =
            rows.iter().position(|r| r.c.read_bytes + r.c.write_bytes < unsampled.read_bytes + unsampled.write_bytes);
        let row = IoRow {
            pid: 0,
            comm: "(the launch, after its last samples)".into(),
            new: true,
            ended: true,
            launched: true,
            c: unsampled,
        };
        rows.insert(at.unwrap_or(rows.len()), row);
    }
    let sum = rows.iter().fold(Counters::default(), |a, r| a.plus(r.c));
    let launch = rows.iter().filter(|r| r.launched).fold(Counters::default(), |a, r| a.plus(r.c));
    rec.metric("io.duration", duration_ns, "ns");
    rec.metric("io.processes", rows.iter().filter(|r| r.pid != 0).count() as u64, "count");
    rec.metric("io.read_bytes", sum.read_bytes, "bytes");
    rec.metric("io.write_bytes", sum.write_bytes, "bytes");
    rec.metric("io.read_ops", sum.read_ops, "count");
    rec.metric("io.write_ops", sum.write_ops, "count");
    rec.metric("io.major_faults", sum.major_faults, "count");
    rec.metric("io.samples", t.samples() as u64, "count");
    // The launch's own share: the rest is the machine's other processes meanwhile.
    rec.metric("io.launch.processes", rows.iter().filter(|r| r.launched && r.pid != 0).count() as u64, "count");
    rec.metric("io.launch.read_bytes", launch.read_bytes, "bytes");
    rec.metric("io.launch.write_bytes", launch.write_bytes, "bytes");
    rec.metric("io.launch.major_faults", launch.major_faults, "count");
    let standing = row::standing(&rows);
    // Figures 3 and 5: processes outside the launch that moved more bytes than it, plus one.
    rec.metric("io.launch.rank", standing.above.len() as u64 + 1, "count");
    if t.unreadable > 0 {
        rec.warn(format!(
            "{} processes could not be read (permission denied: other users' need root or CAP_SYS_PTRACE, and a sandbox may hide some even from root): they are missing",
            t.unreadable
        ));
    }
    if rows.len() > top {
        rec.warn(format!("the table shows the {top} costliest of {} processes; the totals count all", rows.len()));
    }
    row::disk_summary_row(&mut rec, &standing);
    rec.tables.push(Table {
        name: "processes".into(),
        title: "Disk I/O per process during the scenario, costliest first".into(),
        columns: vec![
            Column::new("pid", ""),
            Column::new("process", ""),
            Column::new("read", "bytes"),
            Column::new("written", "bytes"),
            Column::new("read calls", "count"),
            Column::new("write calls", "count"),
            Column::new("major faults", "count"),
            Column::new("lifetime", ""),
            Column::new("launch", ""),
        ],
        rows: rows
            .iter()
            .take(top)
            .map(|r| {
                let life = match (r.new, r.ended) {
                    (true, true) => "started and ended",
                    (true, false) => "started",
                    (false, true) => "ended",
                    (false, false) => "",
                };
                vec![
                    (if r.pid == 0 { serde_json::Value::from("") } else { r.pid.into() }),
                    r.comm.clone().into(),
                    r.c.read_bytes.into(),
                    r.c.write_bytes.into(),
                    r.c.read_ops.into(),
                    r.c.write_ops.into(),
                    r.c.major_faults.into(),
                    life.into(),
                    (if r.launched { "yes" } else { "" }).into(),
                ]
            })
            .collect(),
        plot: None,
    });
    rec.finish(RunStatus::Complete);
    rec
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(pid: i32, comm: &str, ppid: i32, majflt: u64, cmajflt: u64, start: u64) -> String {
        // Fields 3.. : state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt … starttime(22)
        format!("{pid} ({comm}) S {ppid} 1 1 0 -1 0 10 0 {majflt} {cmajflt} 0 0 0 0 20 0 1 0 {start} 100 5")
    }
    fn io(rb: u64, wb: u64, cr: u64, cw: u64) -> String {
        format!(
            "rchar: 1\nwchar: 2\nsyscr: {cr}\nsyscw: {cw}\nread_bytes: {rb}\nwrite_bytes: {wb}\ncancelled_write_bytes: 0\n"
        )
    }
    fn s(pid: i32, comm: &str, ppid: i32, start: u64, rb: u64, faults: u64) -> (i32, ProcSample) {
        (pid, parse_proc(&stat(pid, comm, ppid, faults, 0, start), &io(rb, 0, 1, 0)).unwrap())
    }

    #[test]
    fn proc_files_parse_including_names_with_spaces_and_parentheses() {
        let p = parse_proc(&stat(7, "my (odd) app", 3, 5, 2, 999), &io(4096, 8192, 10, 20)).unwrap();
        assert_eq!(p.comm, "my (odd) app");
        assert_eq!((p.ppid, p.start), (3, 999));
        assert_eq!(p.c, Counters { read_bytes: 4096, write_bytes: 8192, read_ops: 10, write_ops: 20, major_faults: 7 });
        assert!(parse_proc("7 (x) S", "").is_none());
        assert!(parse_proc(&stat(7, "x", 3, 5, 2, 9), "read_bytes: lots\n").is_none());
    }

    #[test]
    fn rows_are_growth_sorted_by_cost_and_a_reaped_child_is_not_counted_twice() {
        let mut t = IoTracker::default();
        t.add(&[s(10, "shell", 1, 100, 1_000, 0), s(20, "idle", 1, 50, 0, 0)], true);
        // The shell starts `app` (pid 30), which reads 50 000 bytes.
        t.add(&[s(10, "shell", 1, 100, 1_000, 0), s(20, "idle", 1, 50, 0, 0), s(30, "app", 10, 200, 50_000, 3)], false);
        // app ends and is reaped: the shell's counters now include app's whole 60 000 (10 000
        // more than last sampled), plus 500 of its own.
        t.add(&[s(10, "shell", 1, 100, 1_000 + 500 + 60_000, 3), s(20, "idle", 1, 50, 0, 0)], false);
        let rows = t.rows();
        assert_eq!(rows.len(), 2, "the idle process did nothing: {rows:?}");
        assert_eq!((rows[0].pid, rows[0].c.read_bytes, rows[0].new, rows[0].ended), (30, 50_000, true, true));
        // The shell keeps its own 500 and what app did after its last sample.
        assert_eq!((rows[1].pid, rows[1].c.read_bytes), (10, 10_500));
        assert_eq!(rows.iter().map(|r| r.c.read_bytes).sum::<u64>(), 60_500, "every byte once");
    }

    #[test]
    fn the_launch_is_latlabs_new_descendants_even_after_reparenting() {
        // latlab is pid 5 (never sampled); 10 is an old shell, also a child of 5 (as if it
        // had been started before the scenario).
        let mut t = IoTracker::for_launcher(5);
        t.add(&[s(10, "old", 5, 10, 0, 0), s(20, "other", 1, 20, 0, 0)], true);
        // The launch: 30 (child of latlab) starts 31, which starts 32; 33 is someone else's.
        t.add(
            &[
                s(10, "old", 5, 10, 1, 0),
                s(20, "other", 1, 20, 1, 0),
                s(30, "app", 5, 300, 1, 0),
                s(31, "helper", 30, 310, 1, 0),
                s(32, "daemon", 31, 320, 1, 0),
                s(33, "cron", 20, 330, 1, 0),
            ],
            false,
        );
        // 31 exits and the daemon is re-parented to init: still the launch's.
        t.add(
            &[
                s(10, "old", 5, 10, 1, 0),
                s(20, "other", 1, 20, 1, 0),
                s(30, "app", 5, 300, 2, 0),
                s(32, "daemon", 1, 320, 5, 0),
                s(33, "cron", 20, 330, 1, 0),
            ],
            false,
        );
        let rows = t.rows();
        let launched = |pid: i32| rows.iter().find(|r| r.pid == pid).map(|r| r.launched);
        assert_eq!(launched(30), Some(true));
        assert_eq!(launched(31), Some(true), "{rows:?}");
        assert_eq!(launched(32), Some(true), "re-parented, still the launch's");
        assert_eq!(launched(33), Some(false), "another process's child");
        assert_eq!(launched(20), Some(false));
        assert_eq!(launched(10), Some(false), "started before the scenario");
        // Without a launcher nothing is marked.
        let mut u = IoTracker::default();
        u.add(&[s(30, "app", 5, 300, 1, 0)], false);
        assert!(!u.rows()[0].launched);
        // The record splits the launch's share from the total.
        let rec =
            io_run(latlab_sys::record::begin("startup"), &["app".into()], "exit", 50, 1, &t, Counters::default(), 30);
        let m = |n: &str| rec.metrics.iter().find(|m| m.name == n).map(|m| m.value.as_f64());
        assert_eq!(m("io.launch.processes"), Some(3.0));
        assert_eq!(m("io.processes"), Some(6.0));
        let col = rec.tables[0].columns.iter().position(|c| c.name == "launch").unwrap();
        let marked = rec.tables[0].rows.iter().filter(|r| r[col] == "yes").count();
        assert_eq!(marked, 3);
    }

    #[test]
    fn a_reused_pid_is_another_process() {
        let mut t = IoTracker::default();
        t.add(&[s(40, "old", 1, 100, 10, 0)], true);
        t.add(&[s(40, "new", 1, 300, 7, 0)], false);
        let rows = t.rows();
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].comm.as_str(), rows[0].c.read_bytes, rows[0].new), ("new", 7, true));
    }

    #[test]
    fn what_the_launch_did_after_its_last_samples_gets_a_row_of_its_own() {
        let mut t = IoTracker::for_launcher(5);
        t.add(&[s(20, "other", 1, 20, 0, 0)], true);
        // The command was sampled once, having read 100 bytes; then it read 900 more, ran a
        // child that took 2 major faults and was never sampled, and exited.
        t.add(&[s(20, "other", 1, 20, 5_000, 0), s(30, "app", 5, 300, 100, 0)], false);
        t.add(&[s(20, "other", 1, 20, 5_000, 0)], false);
        let reaped = Counters { read_bytes: 1_000, major_faults: 2, ..Counters::default() };
        let rec = io_run(latlab_sys::record::begin("startup"), &["app".into()], "exit", 50, 1, &t, reaped, 30);
        let m = |n: &str| rec.metrics.iter().find(|m| m.name == n).map(|m| m.value.as_f64());
        assert_eq!(m("io.launch.read_bytes"), Some(1_000.0), "whole, from the reaped usage");
        assert_eq!(m("io.launch.major_faults"), Some(2.0));
        assert_eq!(m("io.read_bytes"), Some(6_000.0), "the other process's 5 000 too");
        assert_eq!(m("io.processes"), Some(2.0), "the extra row is not a process");
        assert_eq!(m("io.launch.processes"), Some(1.0));
        let rows = &rec.tables[0].rows;
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0][1], "other");
        assert_eq!(rows[1][1], "(the launch, after its last samples)");
        assert_eq!((rows[1][0].clone(), rows[1][2].clone(), rows[1][6].clone()), ("".into(), 900.into(), 2.into()));
        assert_eq!((rows[2][1].clone(), rows[2][2].clone()), ("app".into(), 100.into()));
        // When the samples already hold everything, there is no extra row.
        let whole = Counters { read_bytes: 100, ..Counters::default() };
        let rec = io_run(latlab_sys::record::begin("startup"), &["app".into()], "exit", 50, 1, &t, whole, 30);
        assert_eq!(rec.tables[0].rows.len(), 2);
    }

    #[test]
    fn observing_this_machine_sees_the_launched_child_that_reads() {
        let spec = crate::launch::LaunchSpec {
            command: ["sh", "-c", "cat /proc/self/stat >/dev/null; sleep 0.1"].iter().map(|s| s.to_string()).collect(),
            ready: crate::launch::Ready::Exit,
            timeout: Duration::from_secs(20),
        };
        let (t, l, reaped) = observe(&spec, Duration::from_millis(5)).unwrap();
        assert!(t.samples() >= 3);
        assert!(l.ready_ns > 0);
        let rows = t.rows();
        assert!(rows.iter().any(|r| r.new && r.launched && r.c.read_ops > 0), "the child's read calls: {rows:?}");
        let rec = io_run(latlab_sys::record::begin("startup"), &["sh".into()], "exit", 5, 1, &t, reaped, 5);
        assert!(rec.tables[0].rows.len() <= 5);
        let failing = crate::launch::LaunchSpec { command: vec!["false".into()], ..spec };
        assert!(observe(&failing, Duration::from_millis(5)).is_err(), "a failed launch is an error");
    }
}
