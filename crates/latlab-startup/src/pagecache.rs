//! The page cache, file by file: evict one file's pages (`posix_fadvise(DONTNEED)`, never
//! the whole machine's cache), read which of its pages are resident (`mincore` on a
//! mapping), and prefetch page ranges (`posix_fadvise(WILLNEED)`, which starts readahead).
//! These are what a launch plan is learned and replayed with.

use nix::fcntl::{PosixFadviseAdvice, posix_fadvise};
use std::fs::File;
use std::path::Path;

/// The page size these ranges count in.
pub fn page_size() -> usize {
    nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE).ok().flatten().map_or(4096, |p| p as usize)
}

/// Drop `path`'s clean pages from the page cache (dirty ones are written first).
pub fn evict(path: &Path) -> std::io::Result<()> {
    let f = File::open(path)?;
    f.sync_data().or_else(|e| if e.raw_os_error() == Some(libc::EBADF) { Ok(()) } else { Err(e) })?;
    posix_fadvise(&f, 0, 0, PosixFadviseAdvice::POSIX_FADV_DONTNEED).map_err(std::io::Error::from)
}

/// Start reading the page ranges `(first page, pages)` of `path` into the cache.
pub fn prefetch(path: &Path, ranges: &[(u64, u64)]) -> std::io::Result<()> {
    let f = File::open(path)?;
    let ps = page_size() as i64;
    for &(first, n) in ranges {
        posix_fadvise(&f, first as i64 * ps, n as i64 * ps, PosixFadviseAdvice::POSIX_FADV_WILLNEED)
            .map_err(std::io::Error::from)?;
    }
    Ok(())
}

/// One byte per page of `f` (`len` bytes long): bit 0 set when resident.
fn mincore_file(f: &File, len: usize) -> std::io::Result<Vec<u8>> {
    use nix::sys::mman::{MapFlags, ProtFlags, mmap, munmap};
    let ps = page_size();
    let pages = len.div_ceil(ps);
    let mut vec = vec![0u8; pages];
    let Some(nz) = std::num::NonZeroUsize::new(len) else { return Ok(vec) };
    // PROT_NONE: a process that locked its future memory (`mlockall(MCL_FUTURE)`, as the
    // real-time experiments do) would otherwise fault the whole file in at mmap time, and
    // every page would look read. mincore does not need access to the pages.
    // SAFETY: a fresh inaccessible shared mapping of an open file, only passed to mincore
    // (which reads no page) and unmapped before returning; `vec` has one byte per page of it.
    unsafe {
        let addr = mmap(None, nz, ProtFlags::PROT_NONE, MapFlags::MAP_SHARED, f, 0).map_err(std::io::Error::from)?;
        let rc = libc::mincore(addr.as_ptr(), len, vec.as_mut_ptr());
        let err = std::io::Error::last_os_error();
        let _ = munmap(addr, len);
        if rc != 0 {
            return Err(err);
        }
    }
    Ok(vec)
}

/// Which pages of a file are in the page cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Residency {
    /// Pages in the file.
    pub pages: u64,
    /// Resident ones.
    pub resident: u64,
    /// Resident runs `(first page, pages)`.
    pub ranges: Vec<(u64, u64)>,
}

/// Pages of an open file resident in the page cache.
pub fn resident_pages(f: &File) -> std::io::Result<u64> {
    let len = f.metadata()?.len() as usize;
    Ok(mincore_file(f, len)?.iter().filter(|b| *b & 1 == 1).count() as u64)
}

/// Read `path`'s residency.
pub fn residency(path: &Path) -> std::io::Result<Residency> {
    let f = File::open(path)?;
    let len = f.metadata()?.len() as usize;
    let v = mincore_file(&f, len)?;
    let mut r = Residency { pages: v.len() as u64, resident: 0, ranges: Vec::new() };
    let mut run: Option<(u64, u64)> = None;
    for (i, b) in v.iter().enumerate() {
        if b & 1 == 1 {
            r.resident += 1;
            run = Some(match run {
                Some((s, n)) => (s, n + 1),
                None => (i as u64, 1),
            });
        } else if let Some(x) = run.take() {
            r.ranges.push(x);
        }
    }
    r.ranges.extend(run);
    Ok(r)
}

/// Whether the kernel hides `path`'s residency from this process: since Linux 5.0, mincore
/// tells only root, the file's owner, or a user who may write it, and calls every page of
/// any other file resident.
pub fn residency_hidden(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let me = nix::unistd::geteuid();
    !me.is_root()
        && std::fs::metadata(path).is_ok_and(|m| m.uid() != me.as_raw())
        && nix::unistd::access(path, nix::unistd::AccessFlags::W_OK).is_err()
}

/// Whether `path` is on a filesystem whose pages can be evicted (not tmpfs/ramfs).
pub fn evictable(path: &Path) -> bool {
    match nix::sys::statfs::statfs(path) {
        Ok(s) => {
            let t = s.filesystem_type();
            // ramfs's magic (0x858458f6), which nix does not name.
            t != nix::sys::statfs::TMPFS_MAGIC && t != nix::sys::statfs::FsType(0x8584_58f6)
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, SeekFrom};

    #[test]
    fn eviction_residency_and_prefetch_on_a_temporary_file() {
        let dir = Path::new("/var/tmp");
        if !dir.exists() || !evictable(dir) {
            latlab_model::testing::skip("/var/tmp is missing or in memory (tmpfs): nothing to evict");
            return;
        }
        let path = dir.join(format!("latlab-pagecache-test-{}", std::process::id()));
        let ps = page_size();
        std::fs::write(&path, vec![7u8; 64 * ps]).unwrap();
        let r = residency(&path).unwrap();
        assert_eq!(r.pages, 64);
        evict(&path).unwrap();
        let r = residency(&path).unwrap();
        assert_eq!(r.resident, 0, "{r:?}");
        assert!(r.ranges.is_empty());
        // Read pages 10..14: exactly those (and whatever readahead adds after them) come back.
        let mut f = File::open(&path).unwrap();
        f.seek(SeekFrom::Start(10 * ps as u64)).unwrap();
        let mut buf = vec![0u8; 4 * ps];
        f.read_exact(&mut buf).unwrap();
        let r = residency(&path).unwrap();
        assert!(r.ranges.iter().any(|&(s, n)| s <= 10 && s + n >= 14), "{r:?}");
        assert!(r.ranges.iter().all(|&(s, _)| s >= 10), "nothing before the read: {r:?}");
        // Prefetch two ranges after evicting again.
        evict(&path).unwrap();
        prefetch(&path, &[(0, 2), (40, 3)]).unwrap();
        // WILLNEED starts the reads; wait for them briefly.
        let mut r = residency(&path).unwrap();
        for _ in 0..100 {
            if r.resident >= 5 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            r = residency(&path).unwrap();
        }
        assert!(r.ranges.iter().any(|&(s, n)| s == 0 && n >= 2), "{r:?}");
        assert!(r.ranges.iter().any(|&(s, n)| s <= 40 && s + n >= 43), "{r:?}");
        std::fs::remove_file(&path).unwrap();
    }

    /// Run by `residency_is_not_disturbed_by_locked_memory` in a child process.
    #[test]
    fn locked_memory_child() {
        if std::env::var_os("LATLAB_LOCKED_MEMORY_CHILD").is_none() {
            return;
        }
        let path = Path::new(&std::env::var("LATLAB_LOCKED_MEMORY_CHILD").unwrap()).to_path_buf();
        nix::sys::mman::mlockall(
            nix::sys::mman::MlockAllFlags::MCL_CURRENT | nix::sys::mman::MlockAllFlags::MCL_FUTURE,
        )
        .unwrap();
        evict(&path).unwrap();
        let r = residency(&path).unwrap();
        assert_eq!(r.resident, 0, "reading residency brought pages in: {r:?}");
    }

    #[test]
    fn residency_is_not_disturbed_by_locked_memory() {
        let dir = Path::new("/var/tmp");
        if !evictable(dir) || !nix::unistd::geteuid().is_root() {
            latlab_model::testing::skip("needs a disk-backed /var/tmp and root (to lock all memory)");
            return;
        }
        let path = dir.join(format!("latlab-pagecache-locked-{}", std::process::id()));
        std::fs::write(&path, vec![5u8; 256 * page_size()]).unwrap();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "pagecache::tests::locked_memory_child", "--nocapture"])
            .env("LATLAB_LOCKED_MEMORY_CHILD", &path)
            .output()
            .unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn an_empty_file_has_no_pages_and_a_missing_one_is_an_error() {
        let path = std::env::temp_dir().join(format!("latlab-pagecache-empty-{}", std::process::id()));
        std::fs::write(&path, b"").unwrap();
        assert_eq!(residency(&path).unwrap(), Residency { pages: 0, resident: 0, ranges: vec![] });
        std::fs::remove_file(&path).unwrap();
        assert!(residency(&path).is_err());
        assert!(evict(&path).is_err());
    }
}
