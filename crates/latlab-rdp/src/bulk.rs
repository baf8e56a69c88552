//! One face for every bulk compressor and decompressor (MS-RDPBCGR 3.1.8, MS-RDPEGDI 3.1.8):
//! pick the algorithm by [`CompressionType`] and the compressors' effort by [`Level`], then
//! compress or decompress packet by packet.

pub use crate::level::Level;
use crate::mppc::{MppcCompressor, MppcDecompressor};
use crate::ncrush::{NcrushCompressor, NcrushDecompressor};
use crate::xcrush::{XcrushCompressor, XcrushDecompressor};
use crate::{BulkError, CompressionType};

/// A bulk compressor of any supported type, with its persistent history.
pub enum Compressor {
    /// RDP 4.0 / 5.0.
    Mppc(MppcCompressor),
    /// RDP 6.0.
    Ncrush(Box<NcrushCompressor>),
    /// RDP 6.1.
    Xcrush(Box<XcrushCompressor>),
}

impl Compressor {
    /// A compressor for `t` at the default level.
    pub fn new(t: CompressionType) -> Result<Self, BulkError> {
        Self::with_level(t, Level::default())
    }

    /// A compressor for `t` searching as hard as `level` says.
    pub fn with_level(t: CompressionType, level: Level) -> Result<Self, BulkError> {
        Ok(match t {
            CompressionType::Mppc8k | CompressionType::Mppc64k => Self::Mppc(MppcCompressor::with_level(t, level)?),
            CompressionType::Ncrush => Self::Ncrush(Box::new(NcrushCompressor::with_level(level))),
            CompressionType::Xcrush => Self::Xcrush(Box::new(XcrushCompressor::with_level(level))),
        })
    }

    /// Compress one packet into `out` (cleared first); returns the flags to send with it.
    pub fn compress(&mut self, src: &[u8], out: &mut Vec<u8>) -> u8 {
        match self {
            Self::Mppc(c) => c.compress(src, out),
            Self::Ncrush(c) => c.compress(src, out),
            Self::Xcrush(c) => c.compress(src, out),
        }
    }
}

/// A bulk decompressor of any supported type, with its persistent history.
pub enum Decompressor {
    /// RDP 4.0 / 5.0.
    Mppc(MppcDecompressor),
    /// RDP 6.0.
    Ncrush(Box<NcrushDecompressor>),
    /// RDP 6.1.
    Xcrush(Box<XcrushDecompressor>),
}

impl Decompressor {
    /// A decompressor for `t`.
    pub fn new(t: CompressionType) -> Result<Self, BulkError> {
        Ok(match t {
            CompressionType::Mppc8k | CompressionType::Mppc64k => Self::Mppc(MppcDecompressor::new(t)?),
            CompressionType::Ncrush => Self::Ncrush(Box::default()),
            CompressionType::Xcrush => Self::Xcrush(Box::default()),
        })
    }

    /// Decompress one packet sent with `flags`; returns the original bytes.
    pub fn decompress<'a>(&'a mut self, src: &'a [u8], flags: u8) -> Result<&'a [u8], BulkError> {
        match self {
            Self::Mppc(d) => d.decompress(src, flags),
            Self::Ncrush(d) => d.decompress(src, flags),
            Self::Xcrush(d) => d.decompress(src, flags),
        }
    }
}

impl CompressionType {
    /// Every type, in protocol order.
    pub const ALL: [CompressionType; 4] =
        [CompressionType::Mppc8k, CompressionType::Mppc64k, CompressionType::Ncrush, CompressionType::Xcrush];

    /// The CLI name: `mppc8`, `mppc64`, `ncrush`, `xcrush`.
    pub fn name(self) -> &'static str {
        match self {
            CompressionType::Mppc8k => "mppc8",
            CompressionType::Mppc64k => "mppc64",
            CompressionType::Ncrush => "ncrush",
            CompressionType::Xcrush => "xcrush",
        }
    }

    /// The type a CLI name stands for.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == s)
    }
}
