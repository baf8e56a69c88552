//! What the differential tests and the bulk benchmark share: our compression type as
//! ironrdp-bulk names it.

use ironrdp_bulk::CompressionType as Theirs;
use latlab_rdp::CompressionType;

/// ironrdp-bulk's name for `t`.
pub fn theirs(t: CompressionType) -> Theirs {
    match t {
        CompressionType::Mppc8k => Theirs::Rdp4,
        CompressionType::Mppc64k => Theirs::Rdp5,
        CompressionType::Ncrush => Theirs::Rdp6,
        CompressionType::Xcrush => Theirs::Rdp61,
    }
}
