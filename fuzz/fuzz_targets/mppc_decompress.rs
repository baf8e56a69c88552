//! Fuzz target: the MPPC decompressors (RDP 4.0 and 5.0) must never panic, overrun or grow
//! without bound on any sequence of packets and flags; the first byte of the input picks the
//! flags of each packet, the rest is split into packets by length bytes.
#![no_main]

use latlab_rdp::CompressionType;
use latlab_rdp::mppc::MppcDecompressor;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for t in [CompressionType::Mppc8k, CompressionType::Mppc64k] {
        let mut d = MppcDecompressor::new(t).unwrap();
        let mut rest = data;
        while rest.len() >= 2 {
            let flags = rest[0];
            let len = (rest[1] as usize * 4).min(rest.len() - 2);
            let packet = &rest[2..2 + len];
            if let Ok(out) = d.decompress(packet, flags) {
                assert!(out.len() <= 65_536);
            }
            rest = &rest[2 + len..];
        }
    }
});
