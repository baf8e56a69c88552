//! The memory a screen's pixels live in, so that a server session costs the pages it draws on:
//! a large screen gets pages mapped for it alone (returned to the system when it goes, never
//! left in the allocator's heap), starting black (zero pages, not resident until written) or
//! from a picture every session shares (a sealed memfd mapped copy-on-write: its pages stay
//! shared until a session writes one). Small screens live on the heap.

use std::fs::File;
use std::ops::{Deref, DerefMut};

/// From this many bytes pixels are mapped pages of their own (smaller ones, a cell or a test's
/// screen, are not worth a mapping): 64 KiB, sixteen pages.
const MAPPED_FROM: usize = 64 * 1024;

/// A screen's pixels: bytes, row after row.
pub struct Pixels(Store);

enum Store {
    Heap(Vec<u8>),
    Mapped(memmap2::MmapMut),
}

impl Pixels {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> Self {
        if len >= MAPPED_FROM
            && let Ok(m) = memmap2::MmapOptions::new().len(len).map_anon()
        {
            return Self(Store::Mapped(m));
        }
        Self(Store::Heap(vec![0; len]))
    }

    /// A private copy of `shared`: its pages are `shared`'s until written.
    pub fn copy_of(shared: &SharedPixels) -> Self {
        match map_private(&shared.file, shared.len) {
            Ok(m) => Self(Store::Mapped(m)),
            // Mapping refused (address space, a sandbox): a copy in memory, the same bytes.
            Err(_) => {
                let mut p = Self::zeroed(shared.len);
                let _ = std::os::unix::fs::FileExt::read_exact_at(&shared.file, &mut p, 0);
                p
            }
        }
    }

    /// Whether these pixels are mapped pages of their own (not the heap's).
    pub fn is_mapped(&self) -> bool {
        matches!(self.0, Store::Mapped(_))
    }
}

/// Map `len` bytes of `file` copy-on-write.
fn map_private(file: &File, len: usize) -> std::io::Result<memmap2::MmapMut> {
    // SAFETY: `file` is a memfd this module made and sealed against writing, growing and
    // shrinking (`SharedPixels::new`), so the mapped bytes cannot change or vanish under the
    // mapping; writes through it go to private copies of the pages.
    unsafe { memmap2::MmapOptions::new().len(len).map_copy(file) }
}

impl Deref for Pixels {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Store::Heap(v) => v,
            Store::Mapped(m) => m,
        }
    }
}

impl DerefMut for Pixels {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.0 {
            Store::Heap(v) => v,
            Store::Mapped(m) => m,
        }
    }
}

impl Clone for Pixels {
    fn clone(&self) -> Self {
        let mut p = Self::zeroed(self.len());
        p.copy_from_slice(self);
        p
    }
}

impl PartialEq for Pixels {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Pixels {}

impl std::fmt::Debug for Pixels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pixels({} bytes{})", self.len(), if self.is_mapped() { ", mapped" } else { "" })
    }
}

/// Pixels every session may start from: a sealed memfd (the page cache holds them once).
pub struct SharedPixels {
    file: File,
    len: usize,
}

impl SharedPixels {
    /// A shared copy of `bytes`.
    pub fn new(bytes: &[u8]) -> std::io::Result<Self> {
        use nix::fcntl::{FcntlArg, SealFlag, fcntl};
        use nix::sys::memfd::{MFdFlags, memfd_create};
        let fd = memfd_create(c"latlab-pixels", MFdFlags::MFD_CLOEXEC | MFdFlags::MFD_ALLOW_SEALING)?;
        let file = File::from(fd);
        std::os::unix::fs::FileExt::write_all_at(&file, bytes, 0)?;
        fcntl(
            &file,
            FcntlArg::F_ADD_SEALS(
                SealFlag::F_SEAL_WRITE | SealFlag::F_SEAL_SHRINK | SealFlag::F_SEAL_GROW | SealFlag::F_SEAL_SEAL,
            ),
        )?;
        Ok(Self { file, len: bytes.len() })
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_start_zero_and_a_copy_of_shared_pixels_is_private() {
        for len in [0, 100, MAPPED_FROM, 3 * MAPPED_FROM + 7] {
            let z = Pixels::zeroed(len);
            assert_eq!(z.len(), len);
            assert!(z.iter().all(|&b| b == 0));
            assert_eq!(z.is_mapped(), len >= MAPPED_FROM);
        }
        let picture: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let shared = SharedPixels::new(&picture).unwrap();
        assert_eq!(shared.len(), picture.len());
        let (mut a, b) = (Pixels::copy_of(&shared), Pixels::copy_of(&shared));
        assert_eq!(&a[..], &picture[..]);
        a[150_000] ^= 0xFF;
        assert_eq!(&b[..], &picture[..], "a write to one copy is its own");
        assert_ne!(a, b);
        let c = a.clone();
        assert_eq!(c, a);
        assert!(Pixels::copy_of(&SharedPixels::new(&picture).unwrap()) == b);
    }

    #[test]
    fn shared_pixels_cannot_be_written_once_made() {
        let shared = SharedPixels::new(&[1, 2, 3]).unwrap();
        assert!(std::os::unix::fs::FileExt::write_at(&shared.file, &[9], 0).is_err(), "sealed");
        let mut buf = [0u8; 3];
        std::os::unix::fs::FileExt::read_exact_at(&shared.file, &mut buf, 0).unwrap();
        assert_eq!(buf, [1, 2, 3]);
    }
}
