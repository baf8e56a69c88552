//! Fuzz target: every bulk compressor at every level must give back what it was given, through
//! its own decompressor, over any sequence of packets (each: a length byte × 64, then the
//! bytes), with the histories persisting, sliding and flushing across packets.
#![no_main]

use latlab_rdp::CompressionType;
use latlab_rdp::bulk::{Compressor, Decompressor, Level};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, mut rest)) = data.split_first() else { return };
    let t = CompressionType::ALL[pick as usize % 4];
    let level = Level::ALL[(pick as usize / 4) % 3];
    let mut c = Compressor::with_level(t, level).unwrap();
    let mut d = Decompressor::new(t).unwrap();
    let mut wire = Vec::new();
    while let Some((&n, tail)) = rest.split_first() {
        let len = (n as usize * 64).min(tail.len());
        // Repeat the packet's bytes so that matches, long ones and runs occur.
        let p: Vec<u8> = tail[..len].iter().cycle().take(len * (1 + n as usize % 4)).copied().collect();
        let flags = c.compress(&p, &mut wire);
        let back = d.decompress(&wire, flags).expect("our own stream decodes");
        assert_eq!(back, &p[..], "{t:?} {level:?}");
        rest = &tail[len..];
    }
});
