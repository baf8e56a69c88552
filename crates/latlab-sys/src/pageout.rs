//! Memory pressure on a process's own pages, shared by `latlab stall mem` and `latlab display
//! latency`: page a working set out to swap (`madvise(MADV_PAGEOUT)`), read how much is still
//! resident (`mincore`), and a temporary swap file for machines with none (root only), removed
//! afterwards — also one left by a killed run.

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
        sh("mkswap", &[&p]).map_err(SwapError::NoSwap)?;
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
pub fn remove_swap(p: &Path) -> Result<(), String> {
    let _ = sh("swapoff", &[&p.to_string_lossy()]);
    std::fs::remove_file(p).map_err(|e| format!("removing {}: {e}", p.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

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
