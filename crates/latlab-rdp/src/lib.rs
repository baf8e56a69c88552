//! RDP wire formats latlab's remote-display experiments use, implemented from Microsoft's
//! public specifications so that streams from other RDP implementations decode here and
//! ours decode there.
//!
//! - bulk compression ([`bulk`], at a search [`level`]): MPPC for RDP 4.0 and 5.0 ([`mppc`], MS-RDPBCGR 3.1.8,
//!   RFC 2118), RDP 6.0 ([`ncrush`], MS-RDPEGDI 3.1.8.1) and RDP 6.1 ([`xcrush`], 3.1.8.2);
//! - the interleaved RLE bitmap codec ([`rle`], MS-RDPBCGR 2.2.9.1.1.3.1.2.4);
//! - drawing orders, cache-bitmap orders, bitmap updates, the bitmap cache capability set
//!   ([`orders`], MS-RDPEGDI 2.2.2.2), and update PDUs packing them ([`updates`]);
//! - Standard RDP Security and AEAD channels ([`security`], MS-RDPBCGR 5.3);
//! - built-in corpora of display-update PDUs ([`corpus`]: a simulated session's wire PDUs,
//!   and synthetic patterns) and the packet-file framing
//!   ([`framing`]) of `latlab codec`.
//!
//! Every decoder is total: hostile input gives an error, never a panic, an overrun or an
//! unbounded allocation.
//!
//! | file | holds |
//! |---|---|
//! | `bitmap.rs` | bitmaps on the wire outside drawing orders, encode and decode |
//! | `bits.rs` | bit streams, MSB-first, as MPPC packs its codes |
//! | `bulk.rs` | one face for every bulk compressor and decompressor |
//! | `corpus.rs` | the built-in corpora of display-update PDUs (`corpus/`: a simulated session) |
//! | `framing.rs` | the packet-file framing `latlab codec` reads and writes |
//! | `level.rs` | how hard the bulk compressors search for matches |
//! | `lz.rs` | the copies every LZ77 decoder here makes |
//! | `mppc.rs` | MPPC for RDP 4.0 and 5.0 |
//! | `ncrush.rs` | RDP 6.0 bulk compression (`ncrush/`: its tables) |
//! | `orders.rs` | drawing orders, encode and decode |
//! | `rle.rs` | the interleaved RLE bitmap codec |
//! | `security.rs` | Standard RDP Security and AEAD channels |
//! | `throughput.rs` | ratio and throughput of a bulk compressor over a set of PDUs |
//! | `updates.rs` | update PDUs packing orders and bitmaps |
//! | `xcrush.rs` | RDP 6.1 bulk compression |
//!
//! ```
//! use latlab_rdp::CompressionType;
//! use latlab_rdp::bulk::{Compressor, Decompressor};
//!
//! // Bulk compression, packet by packet with persistent history.
//! let mut c = Compressor::new(CompressionType::Ncrush).unwrap();
//! let mut d = Decompressor::new(CompressionType::Ncrush).unwrap();
//! let pdu = b"a screen update, a screen update, a screen update".repeat(4);
//! let mut wire = Vec::new();
//! let flags = c.compress(&pdu, &mut wire);
//! assert!(wire.len() < pdu.len());
//! assert_eq!(d.decompress(&wire, flags).unwrap(), &pdu[..]);
//!
//! // A 16 bpp bitmap (bottom-up scanlines), interleaved RLE both ways.
//! let raw: Vec<u8> = (0..8 * 4u16).flat_map(|i| (if i < 16 { 0x1F } else { i }).to_le_bytes()).collect();
//! let rle = latlab_rdp::rle::encode(&raw, 8, 4, 16).unwrap();
//! assert_eq!(latlab_rdp::rle::decode(&rle, 8, 4, 16).unwrap(), raw);
//! ```
#![forbid(unsafe_code)]

pub mod bitmap;
pub mod bits;
pub mod bulk;
pub mod corpus;
pub mod framing;
pub mod level;
mod lz;
pub mod mppc;
pub mod ncrush;
pub mod orders;
pub mod rle;
pub mod security;
pub mod throughput;
pub mod updates;
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
