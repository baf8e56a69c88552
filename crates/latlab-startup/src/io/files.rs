//! The files of `latlab startup io` (seed 004's Figures 3 and 5 name a path beside each
//! process): every file the scenario's processes opened, traced with fanotify, with the process
//! that opened it first and the bytes it brought into memory (resident pages at the end less
//! those at the first open, read as the opener waits on the permission event).

use crate::io::{Counters, IoTracker, observe};
use latlab_model::record::{Column, RunRecord, Table};
use std::time::Duration;

/// One file a process of the scenario read (seed 004's Figures 3 and 5: the path beside the
/// process).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRead {
    /// The file.
    pub path: std::path::PathBuf,
    /// The process that opened it first in the scenario.
    pub pid: i32,
    /// Its name.
    pub comm: String,
    /// Bytes of the file brought into the page cache during the scenario: its resident pages
    /// at the end less those at its first open (readahead included; pages another process
    /// read later count to the first opener).
    pub bytes: u64,
    /// The file's size.
    pub size: u64,
}

/// The files the scenario's processes opened, with what each brought into memory, largest
/// first; `opened` from the fanotify trace, read right after the scenario.
pub fn files_read(opened: Vec<crate::trace::Opened>) -> Vec<FileRead> {
    let page = crate::pagecache::page_size() as u64;
    let mut v: Vec<FileRead> = opened
        .into_iter()
        .map(|o| {
            let r = crate::pagecache::residency(&o.path);
            let (after, size) = r.map_or((0, 0), |r| (r.resident, std::fs::metadata(&o.path).map_or(0, |m| m.len())));
            FileRead {
                bytes: after.saturating_sub(o.resident_before) * page,
                size,
                path: o.path,
                pid: o.pid,
                comm: o.comm,
            }
        })
        .collect();
    v.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.path.cmp(&b.path)));
    v
}

/// What [`observe_with_files`] gives: [`observe`]'s three, and the files read or why there is
/// no list.
pub type Observed = (IoTracker, crate::launch::Launch, Counters, Result<Vec<FileRead>, crate::trace::Refused>);

/// [`observe`], with the files each process opened traced by fanotify (root); `Err` says why
/// there is no file list.
pub fn observe_with_files(
    spec: &crate::launch::LaunchSpec,
    interval: Duration,
) -> Result<Observed, crate::launch::LaunchError> {
    let trace = crate::trace::FanotifyTrace::start();
    let observed = observe(spec, interval);
    let files = match trace {
        Ok(t) => Ok(files_read(t.finish_opened())),
        Err(r) => Err(r),
    };
    let (t, l, c) = observed?;
    Ok((t, l, c, files))
}

/// The table of files read (the `top` that brought most into memory) and its totals.
pub fn files_table(rec: &mut RunRecord, files: &Result<Vec<FileRead>, crate::trace::Refused>, top: usize) {
    let files = match files {
        Ok(f) => f,
        Err(why) => {
            rec.warn(format!("no per-file table: {why}"));
            return;
        }
    };
    rec.metric("io.files.opened", files.len() as u64, "count");
    rec.metric("io.files.read_bytes", files.iter().map(|f| f.bytes).sum::<u64>(), "bytes");
    rec.tables.push(Table {
        name: "files".into(),
        title: "Files the scenario's processes opened, by bytes brought into memory (pages resident at the end less at the first open), with the process that opened each first".into(),
        columns: vec![
            Column::new("pid", ""),
            Column::new("process", ""),
            Column::new("path", ""),
            Column::new("read", "bytes"),
            Column::new("size", "bytes"),
        ],
        rows: files
            .iter()
            .filter(|f| f.bytes > 0)
            .take(top)
            .map(|f| {
                vec![f.pid.into(), f.comm.clone().into(), f.path.display().to_string().into(), f.bytes.into(), f.size.into()]
            })
            .collect(),
        plot: None,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::io_run;

    #[test]
    fn the_files_a_launch_reads_are_listed_with_their_bytes_and_reader() {
        // A file written and evicted here, read by the launch, is in the list with
        // its bytes and the process that read it.
        let f = std::path::Path::new(crate::defaults::FIXTURE_PARENT)
            .join(format!("latlab-io-files-{}", std::process::id()));
        std::fs::write(&f, vec![5u8; 256 << 10]).unwrap();
        if !crate::pagecache::evictable(&f) {
            let _ = std::fs::remove_file(&f);
            latlab_model::testing::skip("/var/tmp is in memory: nothing read from it comes from a disk");
            return;
        }
        crate::pagecache::evict(&f).unwrap();
        // The shell opens the file and reads it two seconds later (through cat), so the
        // tracer has seen the open before the first page comes in even on a loaded machine:
        // the residency at the first open is sampled when the open's event is handled (half a
        // second was once too little while other work shared the machine: 0 bytes counted).
        let cat = crate::launch::LaunchSpec {
            command: vec!["sh".into(), "-c".into(), format!("exec 3<'{}'; sleep 2; cat <&3 >/dev/null", f.display())],
            ready: crate::launch::Ready::Exit,
            timeout: Duration::from_secs(30),
        };
        let (t, _, reaped, files) = observe_with_files(&cat, Duration::from_millis(5)).unwrap();
        std::fs::remove_file(&f).unwrap();
        match &files {
            Ok(list) => {
                let it = list.iter().find(|x| x.path == f).expect("the file read is listed");
                assert_eq!(it.comm, "sh", "the first opener");
                assert_eq!(it.size, 256 << 10);
                assert!(it.bytes > 0 && it.bytes <= 256 << 10, "{it:?}");
                let mut rec =
                    io_run(latlab_sys::record::begin("startup"), &["cat".into()], "exit", 5, 1, &t, reaped, 5);
                files_table(&mut rec, &files, 5);
                assert!(rec.tables.iter().any(|t| t.name == "files"));
            }
            Err(why) => assert!(!latlab_sys::platform::is_root(), "root has fanotify: {why}"),
        }
    }
}
