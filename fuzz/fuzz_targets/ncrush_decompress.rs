//! Fuzz target: the RDP 6.0 (NCRUSH) decompressor must never panic, overrun or grow without
//! bound on any sequence of packets and flags (each packet: a flags byte, a length byte × 4,
//! then the bytes); a compressed flag with the right type is forced on every other packet.
#![no_main]

use latlab_rdp::ncrush::NcrushDecompressor;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut d = NcrushDecompressor::new();
    let mut rest = data;
    let mut i = 0;
    while rest.len() >= 2 {
        let flags = if i % 2 == 0 { rest[0] } else { rest[0] & 0xE0 | 0x22 };
        let len = (rest[1] as usize * 4).min(rest.len() - 2);
        if let Ok(out) = d.decompress(&rest[2..2 + len], flags) {
            assert!(out.len() <= 65_536);
        }
        rest = &rest[2 + len..];
        i += 1;
    }
});
