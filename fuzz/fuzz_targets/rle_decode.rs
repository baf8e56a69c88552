//! Fuzz target: the interleaved RLE bitmap decoder must never panic or overrun; the first
//! three bytes pick width (1–64), height (1–64) and colour depth.
#![no_main]

use latlab_rdp::rle::decode;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let (w, h) = (1 + data[0] as usize % 64, 1 + data[1] as usize % 64);
    let bpp = [8, 15, 16, 24][data[2] as usize % 4];
    if let Ok(out) = decode(&data[3..], w, h, bpp) {
        assert_eq!(out.len(), w * h * latlab_rdp::rle::bytes_per_pixel(bpp).unwrap());
    }
});
