//! Fuzz target: a hostile RDP server's stream as latlab's client reads it —
//! frame lengths, fast-path output (headers, fragments, bulk decompression with every
//! compression type), slow-path Update PDUs and the rebuilding of compressed control PDUs —
//! must never panic or read out of bounds, at every colour depth latlab decodes.
#![no_main]

use latlab_desktop::rdp_stream::stream::{DisplayStream, frame_len};
use latlab_rdp::CompressionType;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let types = [None, Some(CompressionType::Mppc8k), Some(CompressionType::Mppc64k), Some(CompressionType::Ncrush), Some(CompressionType::Xcrush)];
    let compression = types[sel as usize % types.len()];
    let bpp = [8, 16, 24][(sel as usize / 5) % 3];
    let mut d = DisplayStream::new(64, 48, bpp, compression, 1003);
    let mut at = 0;
    while at < rest.len() {
        match frame_len(&rest[at..]) {
            Ok(Some((fast, len))) => {
                let frame = &rest[at..at + len];
                let _ = if fast { d.fast_path(frame).map(|_| ()) } else { d.slow_path(frame).map(|_| ()) };
                at += len;
            }
            // Not a whole frame (or not a frame): feed what is left to both paths once.
            _ => {
                let _ = d.fast_path(&rest[at..]);
                let _ = d.slow_path(&rest[at..]);
                break;
            }
        }
    }
});
