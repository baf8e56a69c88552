//! RDP wire formats latlab's remote-display experiments use, implemented from Microsoft's
//! public specifications so that streams from other RDP implementations decode here and
//! ours decode there.
//!
//! So far: MPPC bulk compression for RDP 4.0 and 5.0 ([`mppc`], MS-RDPBCGR 3.1.8 and
//! RFC 2118). Still to come (see the project's issue): RDP 6.0 NCRUSH and 6.1 XCRUSH
//! (MS-RDPEGDI 3.1.8), the interleaved RLE bitmap codec, drawing orders, RDP security.
//!
//! ```
//! use latlab_rdp::{CompressionType, mppc::{MppcCompressor, MppcDecompressor}};
//!
//! let mut c = MppcCompressor::new(CompressionType::Mppc64k).unwrap();
//! let mut d = MppcDecompressor::new(CompressionType::Mppc64k).unwrap();
//! let pdu = b"a screen update, a screen update, a screen update".repeat(4);
//! let mut wire = Vec::new();
//! let flags = c.compress(&pdu, &mut wire);
//! assert!(wire.len() < pdu.len());
//! assert_eq!(d.decompress(&wire, flags).unwrap(), &pdu[..]);
//! ```

pub mod bits;
pub mod bulk;
pub mod corpus;
pub mod framing;
pub mod mppc;
pub mod ncrush;
pub mod orders;
pub mod rle;
pub mod security;
pub mod throughput;
pub mod xcrush;

/// The payload is compressed (MS-RDPBCGR 3.1.8.2).
pub const PACKET_COMPRESSED: u8 = 0x20;
/// The history offset was reset to the start of the history buffer before this packet.
pub const PACKET_AT_FRONT: u8 = 0x40;
/// The history buffer was reinitialized before this packet.
pub const PACKET_FLUSHED: u8 = 0x80;

/// The compression type in the low 4 bits of the flags (MS-RDPBCGR 2.2.1.11.1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum CompressionType {
    /// RDP 4.0 MPPC, 8 KB history (`PACKET_COMPR_TYPE_8K`).
    Mppc8k = 0,
    /// RDP 5.0 MPPC, 64 KB history (`PACKET_COMPR_TYPE_64K`).
    Mppc64k = 1,
    /// RDP 6.0 bulk compression (`PACKET_COMPR_TYPE_RDP6`).
    Ncrush = 2,
    /// RDP 6.1 bulk compression (`PACKET_COMPR_TYPE_RDP61`).
    Xcrush = 3,
}

/// Why a packet could not be (de)compressed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BulkError {
    /// This build does not implement the type yet.
    #[error("compression type {0} is not supported yet")]
    UnsupportedType(u8),
    /// The flags name another compression type than this context's.
    #[error("packet is compression type {found}, this context is type {expected}")]
    TypeMismatch {
        /// This context's type.
        expected: u8,
        /// The packet's type.
        found: u8,
    },
    /// The stream ended in the middle of a code.
    #[error("compressed stream truncated")]
    Truncated,
    /// The stream is invalid.
    #[error("compressed stream corrupt: {0}")]
    Corrupt(&'static str),
}

impl From<bits::OutOfBits> for BulkError {
    fn from(_: bits::OutOfBits) -> Self {
        BulkError::Truncated
    }
}
