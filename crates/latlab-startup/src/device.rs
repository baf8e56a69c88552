//! The facts that bound what "cold" means for a plan's files: the block device under them,
//! whether it is rotational, its I/O scheduler, and whether the machine is virtual (where a
//! "disk" read may come from the host's cache).

use latlab_model::numfmt::sig;
use serde::Serialize;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Where a file's pages come from on a cold read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceFacts {
    /// `major:minor` of the filesystem's device.
    pub device: String,
    /// The block device's name, when there is one (not for overlay, NFS, tmpfs…).
    pub block: Option<String>,
    /// Its `queue/rotational` flag.
    pub rotational: Option<bool>,
    /// Its active I/O scheduler.
    pub scheduler: Option<String>,
    /// Filesystem type.
    pub filesystem: String,
}

impl DeviceFacts {
    /// One line for the record.
    pub fn describe(&self) -> String {
        match &self.block {
            Some(b) => format!(
                "{} ({}, {}, {}, scheduler {})",
                b,
                self.device,
                self.filesystem,
                match self.rotational {
                    Some(true) => "rotational",
                    Some(false) => "not rotational",
                    None => "rotation unknown",
                },
                self.scheduler.as_deref().unwrap_or("unknown")
            ),
            None => format!("{} on device {} (no block device behind it)", self.filesystem, self.device),
        }
    }
}

/// The device facts for the filesystem holding `path`.
pub fn facts(path: &Path) -> std::io::Result<DeviceFacts> {
    let dev = std::fs::metadata(path)?.dev();
    let (major, minor) = (nix::sys::stat::major(dev), nix::sys::stat::minor(dev));
    let filesystem = filesystem_of(path);
    let sys = Path::new("/sys/dev/block").join(format!("{major}:{minor}"));
    let mut f =
        DeviceFacts { device: format!("{major}:{minor}"), block: None, rotational: None, scheduler: None, filesystem };
    if let Ok(real) = std::fs::canonicalize(&sys) {
        f.block = real.file_name().map(|n| n.to_string_lossy().into_owned());
        // A partition's queue is its disk's, one directory up.
        let queue = [real.join("queue"), real.join("../queue")].into_iter().find(|q| q.is_dir());
        if let Some(q) = queue {
            f.rotational = std::fs::read_to_string(q.join("rotational")).ok().map(|s| s.trim() == "1");
            f.scheduler = std::fs::read_to_string(q.join("scheduler")).ok().and_then(|s| active_scheduler(&s));
        }
    }
    Ok(f)
}

/// The whole disk (`major:minor`) under a filesystem device `dev` (`major:minor`): itself, or
/// for a partition its disk (I/O throttling takes whole disks only).
pub fn whole_disk(dev: &str) -> Option<String> {
    let real = std::fs::canonicalize(Path::new("/sys/dev/block").join(dev)).ok()?;
    let disk = if real.join("partition").exists() { real.parent()?.to_path_buf() } else { real };
    Some(std::fs::read_to_string(disk.join("dev")).ok()?.trim().to_string())
}

/// How a throttled disk reads: at most so many bytes and/or so many requests per second. An
/// IOPS limit models a rotating disk (slow random access, fast sequential reads, which
/// prefetching turns random reads into); a bytes limit models a slow bus or flash card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Limit {
    /// Read bytes per second.
    pub bytes_per_s: Option<u64>,
    /// Read requests per second.
    pub iops: Option<u64>,
}

impl Limit {
    /// Whether it limits anything.
    pub fn is_some(&self) -> bool {
        self.bytes_per_s.is_some() || self.iops.is_some()
    }

    /// In words: "4.0 MB/s and 150 reads/s".
    pub fn describe(&self) -> String {
        let mut v = Vec::new();
        if let Some(b) = self.bytes_per_s {
            v.push(format!("{} MB/s", sig(b as f64 / 1e6)));
        }
        if let Some(i) = self.iops {
            v.push(format!("{i} reads/s"));
        }
        v.join(" and ")
    }
}

/// Reads of this process (and its children) throttled on one disk, for as long as the guard
/// lives: a blkio (cgroup v1) or io (v2) group latlab moves itself into. Dropped, latlab moves
/// back and the group is removed.
pub struct Throttle {
    /// `major:minor` of the disk.
    pub disk: String,
    /// The limit.
    pub limit: Limit,
    /// The group's directory.
    pub group: std::path::PathBuf,
    undo: latlab_sys::change::Undo,
}

impl Throttle {
    /// Throttle reads from the disk under `path`; `Err` says why it cannot be done here.
    pub fn start(path: &Path, limit: Limit) -> Result<Self, latlab_sys::SysError> {
        use latlab_sys::cgroup::{self, Hierarchy};
        let dev = facts(path)
            .map_err(|e| {
                latlab_sys::SysError::from(latlab_sys::ioerr::IoFailed::new(
                    format!("no device facts for '{}'", path.display()),
                    e,
                ))
            })?
            .device;
        let disk = whole_disk(&dev).ok_or_else(|| {
            latlab_sys::SysError::Missing(format!("no block device behind {dev} (tmpfs, overlay, NFS?)"))
        })?;
        let (h, controller) = match cgroup::find("blkio") {
            Ok(h) => (h, "blkio"),
            Err(_) => (cgroup::find("io")?, "io"),
        };
        let mut undo = latlab_sys::change::Undo::new();
        let g = cgroup::create(&mut undo, &h, controller, &format!("latlab-throttle-{}", std::process::id()))?;
        match h {
            Hierarchy::V1(_) => {
                if let Some(b) = limit.bytes_per_s {
                    g.set("blkio.throttle.read_bps_device", &format!("{disk} {b}"))?;
                }
                if let Some(i) = limit.iops {
                    g.set("blkio.throttle.read_iops_device", &format!("{disk} {i}"))?;
                }
            }
            Hierarchy::V2(_) => {
                let mut v = disk.clone();
                if let Some(b) = limit.bytes_per_s {
                    v.push_str(&format!(" rbps={b}"));
                }
                if let Some(i) = limit.iops {
                    v.push_str(&format!(" riops={i}"));
                }
                g.set("io.max", &v)?;
            }
        }
        g.add(std::process::id() as i32)?;
        Ok(Self { disk, limit, group: g.dir, undo })
    }

    /// Move back and remove the group; the errors of what failed.
    pub fn stop(self) -> Vec<String> {
        self.undo.undo()
    }
}

/// The device's random-read rate, as the Windows System Assessment Tool measured it for
/// Superfetch's rule: 4 KiB reads at random 4 KiB-aligned offsets of a temporary file, with
/// direct I/O (no page cache), one at a time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RandomRead {
    /// Reads made.
    pub reads: u64,
    /// Reads per second.
    pub iops: f64,
    /// Bytes per second.
    pub bytes_per_s: f64,
}

/// Measure [`RandomRead`] in `dir` with a temporary file of `file_mib` MiB, for up to
/// `max_reads` reads or `max_ms` ms. The file is removed. An error says why (a filesystem
/// without direct I/O, such as tmpfs, refuses it).
pub fn random_read(
    dir: &Path,
    file_mib: usize,
    max_reads: u64,
    max_ms: u64,
) -> Result<RandomRead, latlab_sys::SysError> {
    use std::io::Write;
    use std::os::unix::fs::{FileExt, OpenOptionsExt};
    const BLOCK: usize = 4096;
    latlab_sys::leftovers::clear(&latlab_sys::leftovers::stale_paths(dir, "randread"));
    let path = dir.join(latlab_sys::leftovers::name("randread"));
    struct Remove<'a>(&'a Path);
    impl Drop for Remove<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(self.0);
        }
    }
    let _remove = Remove(&path);
    {
        let mut f = std::fs::File::create(&path).map_err(|e| {
            latlab_sys::SysError::from(latlab_sys::ioerr::IoFailed::new(format!("creating {}", path.display()), e))
        })?;
        let mut chunk = vec![0u8; 1 << 20];
        for i in 0..file_mib {
            crate::fixture::fill(&mut chunk, i as u64 + 1);
            f.write_all(&chunk).map_err(|e| {
                latlab_sys::SysError::from(latlab_sys::ioerr::IoFailed::new(format!("writing {}", path.display()), e))
            })?;
        }
        f.sync_all().map_err(|e| {
            latlab_sys::SysError::from(latlab_sys::ioerr::IoFailed::new(format!("syncing {}", path.display()), e))
        })?;
    }
    let f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(&path).map_err(|e| {
        latlab_sys::SysError::from(latlab_sys::ioerr::IoFailed::new(
            format!("direct I/O refused on {}", dir.display()),
            e,
        ))
    })?;
    // An aligned block inside a larger buffer (direct I/O needs the memory aligned too).
    let mut buf = vec![0u8; 2 * BLOCK];
    let off = buf.as_ptr().align_offset(BLOCK);
    let blocks = (file_mib * (1 << 20) / BLOCK) as u64;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let t0 = std::time::Instant::now();
    let mut reads = 0u64;
    while reads < max_reads && t0.elapsed() < std::time::Duration::from_millis(max_ms) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let at = (x % blocks) * BLOCK as u64;
        f.read_exact_at(&mut buf[off..off + BLOCK], at).map_err(|e| {
            latlab_sys::SysError::from(latlab_sys::ioerr::IoFailed::new(format!("direct read at {at}"), e))
        })?;
        reads += 1;
    }
    let secs = t0.elapsed().as_secs_f64().max(1e-9);
    Ok(RandomRead { reads, iops: reads as f64 / secs, bytes_per_s: (reads * BLOCK as u64) as f64 / secs })
}

/// `mq-deadline kyber [bfq] none` → `bfq`; a lone `none` → `none`.
fn active_scheduler(s: &str) -> Option<String> {
    let s = s.trim();
    match (s.find('['), s.find(']')) {
        (Some(a), Some(b)) if b > a => Some(s[a + 1..b].to_string()),
        _ if !s.is_empty() && !s.contains(' ') => Some(s.to_string()),
        _ => None,
    }
}

/// The filesystem type of the longest mount point that holds `path`.
fn filesystem_of(path: &Path) -> String {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    mounts()
        .into_iter()
        .filter(|(mp, _)| path.starts_with(mp))
        .max_by_key(|(mp, _)| mp.len())
        .map_or_else(|| "unknown".to_string(), |(_, fs)| fs)
}

/// Every mount as (mount point, filesystem type), from /proc/self/mountinfo.
pub(crate) fn mounts() -> Vec<(String, String)> {
    let text = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let mut out = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let Some(sep) = fields.iter().position(|f| *f == "-") else { continue };
        if let (Some(mp), Some(fs)) = (fields.get(4), fields.get(sep + 1)) {
            out.push((unescape_octal(mp), fs.to_string()));
        }
    }
    out
}

/// mountinfo writes spaces and the like as `\ooo`.
fn unescape_octal(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c)) {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedulers_parse_and_this_machines_root_is_described() {
        assert_eq!(active_scheduler("mq-deadline kyber [bfq] none\n").as_deref(), Some("bfq"));
        assert_eq!(active_scheduler("none").as_deref(), Some("none"));
        assert_eq!(active_scheduler(""), None);
        let f = facts(Path::new("/")).unwrap();
        assert!(f.device.contains(':'));
        assert_ne!(f.filesystem, "unknown");
        assert!(!f.describe().is_empty());
        assert_eq!(unescape_octal("/mnt/my\\040disk"), "/mnt/my disk");
        assert!(mounts().iter().any(|(m, _)| m == "/"));
    }

    #[test]
    fn random_reads_are_counted_and_the_file_removed() {
        let dir = Path::new(crate::defaults::FIXTURE_PARENT);
        match random_read(dir, 4, 50, 5_000) {
            Ok(r) => {
                assert_eq!(r.reads, 50);
                assert!((r.bytes_per_s - r.iops * 4096.0).abs() < 1e-6 * r.bytes_per_s.max(1.0));
            }
            Err(e) => latlab_model::testing::skip(&format!("no direct I/O here: {e}")),
        }
        assert!(!dir.join(format!("latlab-randread-{}", std::process::id())).exists());
        // tmpfs has no direct I/O: a clear refusal, not a panic.
        if let Err(e) = random_read(Path::new("/dev/shm"), 1, 10, 1_000) {
            let e = e.to_string();
            assert!(e.contains("direct I/O refused") || e.contains("creating"), "{e}");
        }
    }
}
