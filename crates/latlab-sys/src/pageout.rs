//! Memory pressure on a process's own pages, shared by `latlab stall mem` and `latlab display
//! latency`: page a working set out to swap (`madvise(MADV_PAGEOUT)`), read how much is still
//! resident (`mincore`), page *another* process out (`process_madvise`: a real server under
//! `display latency --rdp local --conditions mem`), and a temporary swap file for machines with
//! none (root only), removed afterwards — also one left by a killed run.

use crate::ioerr::{Doing, IoFailed};
use crate::tool::sh;
use std::path::{Path, PathBuf};

/// Why no swap could be had.
#[derive(Debug, thiserror::Error)]
pub enum SwapError {
    /// No swap, and none could be made.
    #[error("{0}")]
    NoSwap(String),
    /// A file operation failed.
    #[error(transparent)]
    Io(#[from] IoFailed),
}

/// The page size these calls assume.
pub const PAGE: usize = 4096;

/// The page-aligned part of `buf`.
fn aligned(buf: &mut [u8]) -> &mut [u8] {
    let off = buf.as_ptr().align_offset(PAGE);
    let len = buf.len().saturating_sub(off) / PAGE * PAGE;
    &mut buf[off..off + len]
}

/// Ask the kernel to page `buf` out now (`MADV_PAGEOUT`, Linux 5.4+). The region is
/// unlocked first: another experiment in the same run may have locked all memory
/// (`mlockall`), and locked pages cannot be paged out (EINVAL).
pub fn pageout(buf: &mut [u8]) -> std::io::Result<()> {
    let b = aligned(buf);
    // SAFETY: `b` is a live, page-aligned region of our own memory; munlock only lets its
    // pages be evicted, and MADV_PAGEOUT only moves them to swap; they fault back in
    // unchanged.
    let rc = unsafe {
        libc::munlock(b.as_ptr().cast(), b.len());
        libc::madvise(b.as_mut_ptr().cast(), b.len(), libc::MADV_PAGEOUT)
    };
    if rc == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// What paging one process out did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProcessPageout {
    /// Bytes of its mappings the kernel took the advice for.
    pub advised_bytes: u64,
    /// Its resident set before and after, KiB (`VmRSS`).
    pub rss_before_kib: u64,
    /// See `rss_before_kib`.
    pub rss_after_kib: u64,
}

/// The mappings of a `/proc/PID/maps` text worth paging out, as (start, length): everything but
/// the kernel's own (`[vdso]`, `[vvar]`, `[vsyscall]`), whose advice fails.
pub fn pageable_regions(maps: &str) -> Vec<(u64, u64)> {
    maps.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let range = f.next()?;
            let path = f.nth(4).unwrap_or("");
            if matches!(path, "[vdso]" | "[vvar]" | "[vvar_vclock]" | "[vsyscall]") {
                return None;
            }
            let (a, b) = range.split_once('-')?;
            let (a, b) = (u64::from_str_radix(a, 16).ok()?, u64::from_str_radix(b, 16).ok()?);
            (b > a).then(|| (a, b - a))
        })
        .collect()
}

/// A process's `VmRSS`, KiB (0 when it is gone).
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("VmRSS:")?.split_whitespace().next()?.parse().ok()))
        .unwrap_or(0)
}

/// `pidfd_open(2)`: a descriptor for `pid`.
fn pidfd_open(pid: u32) -> std::io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1; nothing of
    // ours is read or written.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned to us, open, and is owned by nobody else.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd as i32) })
}

/// `process_madvise(2)` with `MADV_PAGEOUT` on one region of the process behind `pidfd`;
/// returns the bytes advised.
fn process_pageout(pidfd: &std::os::fd::OwnedFd, start: u64, len: u64) -> std::io::Result<u64> {
    use std::os::fd::AsRawFd;
    let iov = libc::iovec { iov_base: start as *mut libc::c_void, iov_len: len as usize };
    // SAFETY: the kernel reads one iovec from `iov`, which lives across the call; the addresses
    // in it are the other process's and are never dereferenced here.
    let n = unsafe {
        libc::syscall(
            libc::SYS_process_madvise,
            pidfd.as_raw_fd(),
            &iov as *const libc::iovec,
            1usize,
            libc::MADV_PAGEOUT,
            0u32,
        )
    };
    if n < 0 { Err(std::io::Error::last_os_error()) } else { Ok(n as u64) }
}

/// Page another process out (Linux 5.10+, `process_madvise` with `MADV_PAGEOUT`; root or
/// CAP_SYS_NICE with ptrace rights over it): every mapping it has, one at a time, so a mapping
/// the kernel refuses (locked, device memory) leaves the rest advised. Anonymous pages go to
/// swap when there is some; clean file pages (its code) are dropped and read again on use.
pub fn pageout_process(pid: u32) -> std::io::Result<ProcessPageout> {
    let rss_before_kib = rss_kib(pid);
    let fd = pidfd_open(pid)?;
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps"))?;
    let mut advised = 0;
    let mut first_err = None;
    for (start, len) in pageable_regions(&maps) {
        match process_pageout(&fd, start, len) {
            Ok(n) => advised += n,
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    match (advised, first_err) {
        (0, Some(e)) => Err(e),
        _ => Ok(ProcessPageout { advised_bytes: advised, rss_before_kib, rss_after_kib: rss_kib(pid) }),
    }
}

/// Page out every process of `pids` ([`pageout_process`]), the processes of one program
/// (`what`, for the messages): their resident sets summed just before and just after, KiB. A
/// process that ended meanwhile (a shell's short-lived child) has nothing left and is skipped;
/// a refusal says what is needed.
pub fn pageout_all(what: &str, pids: &[u32]) -> Result<(u64, u64), crate::SysError> {
    use crate::SysError::Missing;
    let (mut before, mut after) = (0, 0);
    for &p in pids {
        match pageout_process(p) {
            Ok(o) => (before, after) = (before + o.rss_before_kib, after + o.rss_after_kib),
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {}
            Err(e) if e.raw_os_error() == Some(libc::EPERM) => {
                return Err(Missing(format!(
                    "paging out {what}'s process {p} was refused ({e}): mem needs root or CAP_SYS_NICE"
                )));
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => {
                return Err(Missing(format!("paging out {what}'s process {p}: {e}: mem needs Linux 5.10 or later")));
            }
            Err(e) => return Err(IoFailed::new(format!("paging out {what}'s process {p}"), e).into()),
        }
    }
    Ok((before, after))
}

/// `pid` and every process below it (`/proc/PID/task/*/children`), parents first.
pub fn with_descendants(pid: u32) -> Vec<u32> {
    let mut out = vec![pid];
    let mut i = 0;
    while i < out.len() {
        let p = out[i];
        for t in std::fs::read_dir(format!("/proc/{p}/task")).into_iter().flatten().flatten() {
            if let Ok(k) = std::fs::read_to_string(t.path().join("children")) {
                out.extend(
                    k.split_whitespace()
                        .filter_map(|c| c.parse::<u32>().ok())
                        .filter(|c| !out.contains(c))
                        .collect::<Vec<_>>(),
                );
            }
        }
        i += 1;
    }
    out
}

/// Fraction of `buf`'s pages resident in memory (`mincore`).
pub fn resident(buf: &mut [u8]) -> std::io::Result<f64> {
    let b = aligned(buf);
    let pages = b.len() / PAGE;
    let mut vec = vec![0u8; pages];
    // SAFETY: `b` is a live page-aligned region; `vec` has one byte per page of it.
    let rc = unsafe { libc::mincore(b.as_mut_ptr().cast(), b.len(), vec.as_mut_ptr()) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(vec.iter().filter(|&&v| v & 1 == 1).count() as f64 / pages.max(1) as f64)
}

/// A `/proc/meminfo` field (`"SwapFree"`, `"MemAvailable"`), KiB; `None` if absent.
pub fn meminfo_kib(field: &str) -> Option<u64> {
    let m = std::fs::read_to_string("/proc/meminfo").ok()?;
    m.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':').and_then(|v| v.split_whitespace().next()?.parse().ok()))
}

/// Free swap, KiB, from /proc/meminfo.
pub fn swap_free_kib() -> u64 {
    meminfo_kib("SwapFree").unwrap_or(0)
}

/// Swap for a working set of `mib` MiB (with a quarter to spare): the machine's own when it
/// has the room (`None`), else, when `allow_file`, a temporary swap file in `dir`; and where
/// the swap came from, in words for the record.
pub fn swap_for(mib: usize, allow_file: bool, dir: &Path) -> Result<(Option<SwapFile>, String), SwapError> {
    if swap_free_kib() >= mib as u64 * 1024 * 5 / 4 {
        return Ok((None, "the machine's own".into()));
    }
    if !allow_file {
        return Err(SwapError::NoSwap(
            "no free swap for the working set and --no-swapfile: add swap, or let latlab make a temporary file".into(),
        ));
    }
    let f = SwapFile::create(dir, mib * 5 / 4 + 16)?;
    let said = format!("temporary file {} (removed afterwards)", f.path().display());
    Ok((Some(f), said))
}

/// A temporary swap file; dropping turns it off and deletes it.
#[derive(Debug)]
pub struct SwapFile {
    path: PathBuf,
    on: bool,
}

impl SwapFile {
    /// Make and enable a swap file of `mib` MiB in `dir`.
    pub fn create(dir: &Path, mib: usize) -> Result<Self, SwapError> {
        remove_stale(dir);
        let path = dir.join(format!("latlab-swap-{}", std::process::id()));
        let mut guard = SwapFile { path: path.clone(), on: false };
        // Written out, not sparse: swapon refuses files with holes.
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&path).doing("creating the swap file")?;
            let mib_of_zeros = vec![0u8; 1 << 20];
            for _ in 0..mib {
                f.write_all(&mib_of_zeros).doing("writing the swap file")?;
            }
            f.sync_all().doing("writing the swap file")?;
        }
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .doing("securing the swap file")?;
        let p = path.to_string_lossy().to_string();
        sh("mkswap", &[&p]).map_err(|e| SwapError::NoSwap(e.to_string()))?;
        sh("swapon", &[&p]).map_err(|e| {
            SwapError::NoSwap(format!("{e} (root, and a filesystem that supports swap files, are needed)"))
        })?;
        guard.on = true;
        Ok(guard)
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SwapFile {
    fn drop(&mut self) {
        if self.on {
            let _ = sh("swapoff", &[&self.path.to_string_lossy()]);
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Remove swap files left by latlab runs that no longer exist.
fn remove_stale(dir: &Path) {
    let swaps = crate::owner::stale_in(dir).into_iter().filter(|p| is_swap_file(p));
    for p in swaps {
        crate::owner::report(&format!("swap file {}", p.display()), remove_swap(&p));
    }
}

/// Whether `p` is named as a latlab swap file (`latlab-swap-<pid>…`).
pub fn is_swap_file(p: &Path) -> bool {
    p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("latlab-swap-"))
}

/// Swap a swap file off and remove it.
pub fn remove_swap(p: &Path) -> Result<(), crate::SysError> {
    let _ = sh("swapoff", &[&p.to_string_lossy()]);
    Ok(std::fs::remove_file(p).doing(format!("removing {}", p.display()))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_own_mappings_are_left_out_and_bad_lines_skipped() {
        let maps = "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1234 /usr/bin/sleep\n\
                    7ffd1a000000-7ffd1a021000 rw-p 00000000 00:00 0 [stack]\n\
                    7ffd1a1f0000-7ffd1a1f4000 r--p 00000000 00:00 0 [vvar]\n\
                    7ffd1a1f4000-7ffd1a1f6000 r-xp 00000000 00:00 0 [vdso]\n\
                    ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n\
                    7f0000000000-7f0000100000 rw-p 00000000 00:00 0\n\
                    not a line\n\
                    9-1 rw-p 0 0:0 0\n";
        assert_eq!(
            pageable_regions(maps),
            vec![(0x55d0c0a00000, 0x2000), (0x7ffd1a000000, 0x21000), (0x7f0000000000, 0x100000)]
        );
    }

    #[test]
    fn another_process_is_paged_out_and_its_children_found() {
        // A shell whose child sleeps: both found below it, and the shell's mappings advised
        // (root or CAP_SYS_NICE; a refusal is the kernel's answer, reported as such).
        let mut sh = std::process::Command::new("sh").args(["-c", "sleep 30 & wait"]).spawn().unwrap();
        let pid = sh.id();
        let mut all = vec![pid];
        for _ in 0..200 {
            all = with_descendants(pid);
            if all.len() >= 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(all[0], pid);
        assert!(all.len() >= 2, "the sleeping child was not found below {pid}: {all:?}");
        match pageout_process(pid) {
            Ok(p) => {
                assert!(p.advised_bytes > 0, "{p:?}");
                assert!(p.rss_before_kib > 0, "{p:?}");
            }
            Err(e) => assert!(
                matches!(e.raw_os_error(), Some(libc::EPERM)),
                "process_madvise refused for another reason than privilege: {e}"
            ),
        }
        let _ = sh.kill();
        let _ = sh.wait();
        for p in &all[1..] {
            let _ = std::process::Command::new("kill").arg(p.to_string()).status();
        }
    }

    #[test]
    fn residency_reads_a_fresh_buffer_as_resident() {
        let mut v = vec![1u8; 16 * PAGE];
        assert_eq!(resident(&mut v).unwrap(), 1.0);
        assert_eq!(aligned(&mut v).len() % PAGE, 0);
    }

    #[test]
    fn locked_memory_is_unlocked_before_page_out() {
        // As after `mlockall` by an earlier experiment in the same suite.
        let mut v = vec![1u8; 64 * PAGE];
        let b = aligned(&mut v);
        // SAFETY: a live region of our own memory.
        if unsafe { libc::mlock(b.as_ptr().cast(), b.len()) } != 0 {
            latlab_model::testing::skip("mlock refused here");
            return;
        }
        // Without swap the pages may stay, but the call must not fail.
        pageout(&mut v).unwrap();
    }
}
