//! Fuzz target: the RDP 6.1 (XCRUSH) decompressor — level-2 MPPC, then level-1 matches and
//! literals — must never panic or overrun on any sequence of packets and flags.
#![no_main]

use latlab_rdp::xcrush::XcrushDecompressor;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut d = XcrushDecompressor::new();
    let mut rest = data;
    while rest.len() >= 2 {
        let flags = rest[0] & 0xE0 | 0x03;
        let len = (rest[1] as usize * 4).min(rest.len() - 2);
        let _ = d.decompress(&rest[2..2 + len], flags);
        rest = &rest[2 + len..];
    }
});
