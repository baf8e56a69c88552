//! The built-in file-heavy launch, so `startup measure --builtin` and the suite need nothing
//! installed: a data set of many files, and an "application" (`latlab startup fixture-app DIR`)
//! that starts the way large programs do — it reads a header and one section from each of its
//! files in a fixed order and parses what it read (a hash standing in for relocation and
//! parsing), then exits. It reads a fraction of each file, so a plan's page ranges are
//! smaller than the files.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The shape of a data set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct FixtureSpec {
    /// Files.
    pub files: usize,
    /// Size of each, KiB.
    pub file_kib: usize,
    /// The header read from the start of each file, KiB.
    pub header_kib: usize,
    /// The section read from the middle of each file, KiB.
    pub section_kib: usize,
    /// Parsing passes over every byte read (CPU work per byte, as a real start-up has).
    pub passes: u32,
}

/// The manifest's name inside the data directory.
const INDEX: &str = "index";

/// A data set on disk, removed when dropped.
#[derive(Debug)]
pub struct Fixture {
    /// Its directory.
    pub dir: PathBuf,
    /// Its shape.
    pub spec: FixtureSpec,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A fast deterministic byte stream (xorshift64*), so the data is not all one value.
pub(crate) fn fill(buf: &mut [u8], seed: u64) {
    let mut x = seed | 1;
    for chunk in buf.chunks_mut(8) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let v = x.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
}

/// Where file `i`'s section starts, KiB (page-aligned, past the header, inside the file).
fn section_at(spec: &FixtureSpec, i: usize) -> usize {
    let room = spec.file_kib.saturating_sub(spec.header_kib + spec.section_kib);
    let slot = (i.wrapping_mul(2_654_435_761) >> 7) % (room / 4 + 1);
    spec.header_kib + slot * 4
}

/// Write a data set into a new directory under `parent` (which must be on a disk, not tmpfs,
/// for cold starts to mean anything). Its files are written to disk before returning.
pub fn prepare(parent: &Path, spec: FixtureSpec) -> std::io::Result<Fixture> {
    latlab_sys::leftovers::clear(&latlab_sys::leftovers::stale_paths(parent, "launch"));
    let dir = parent.join(format!("latlab-launch-{}-{}", std::process::id(), unique()));
    std::fs::create_dir_all(&dir)?;
    let fx = Fixture { dir: dir.clone(), spec };
    let mut buf = vec![0u8; spec.file_kib * 1024];
    let mut index = format!("{} {} {} {}\n", spec.header_kib, spec.section_kib, spec.passes, spec.files);
    for i in 0..spec.files {
        let name = format!("part-{i:04}.dat");
        fill(&mut buf, i as u64 + 1);
        let mut f = std::fs::File::create(dir.join(&name))?;
        f.write_all(&buf)?;
        f.sync_data()?;
        index.push_str(&format!("{name} {}\n", section_at(&spec, i)));
    }
    std::fs::write(dir.join(INDEX), index)?;
    Ok(fx)
}

fn unique() -> u64 {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The application: read the index, then each file's header and section in order, parsing
/// each byte `passes` times. Returns the digest (printed, so the work cannot be skipped).
pub fn run_app(dir: &Path) -> std::io::Result<u64> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("index: {what}"));
    let index = std::fs::read_to_string(dir.join(INDEX))?;
    let mut lines = index.lines();
    let head: Vec<usize> =
        lines.next().ok_or_else(|| bad("empty"))?.split(' ').map(|v| v.parse().unwrap_or(0)).collect();
    let [header_kib, section_kib, passes, _files] = head[..] else { return Err(bad("bad first line")) };
    let mut buf = vec![0u8; header_kib.max(section_kib) * 1024];
    let mut digest = 0xcbf2_9ce4_8422_2325u64;
    for line in lines {
        let (name, at) = line.split_once(' ').ok_or_else(|| bad(line))?;
        let at: u64 = at.parse().map_err(|_| bad(line))?;
        let mut f = std::fs::File::open(dir.join(name))?;
        for (off, kib) in [(0, header_kib), (at * 1024, section_kib)] {
            f.seek(SeekFrom::Start(off))?;
            let part = &mut buf[..kib * 1024];
            f.read_exact(part)?;
            for _ in 0..passes {
                for &b in part.iter() {
                    digest = (digest ^ b as u64).wrapping_mul(0x0100_0000_01b3);
                }
            }
        }
    }
    Ok(digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_set_is_written_read_by_the_app_and_removed() {
        let spec = FixtureSpec { files: 5, file_kib: 64, header_kib: 8, section_kib: 16, passes: 1 };
        let fx = prepare(&std::env::temp_dir(), spec).unwrap();
        let dir = fx.dir.clone();
        assert_eq!(std::fs::metadata(dir.join("part-0003.dat")).unwrap().len(), 64 * 1024);
        let d1 = run_app(&dir).unwrap();
        assert_eq!(d1, run_app(&dir).unwrap(), "deterministic");
        for i in 0..5 {
            let at = section_at(&spec, i);
            assert!(at >= 8 && at + 16 <= 64 && at.is_multiple_of(4), "{at}");
        }
        std::fs::write(dir.join(INDEX), "8 16 1 1\npart-0000.dat notanumber\n").unwrap();
        assert!(run_app(&dir).unwrap_err().to_string().contains("notanumber"));
        drop(fx);
        assert!(!dir.exists());
    }
}
