//! Differential tests of the interleaved RLE codec against `ironrdp-graphics` (an independent
//! decoder, used as a black box): bitmaps our encoder compresses must decode there to the same
//! pixels, at every colour depth; and for streams of random orders, whenever both decoders
//! accept a stream they must produce the same bitmap. Inputs come from latlab's own seeded
//! generators.

use latlab_rdp::corpus::{Gen, screen_bitmap};
use latlab_rdp::rle::{bytes_per_pixel, decode, encode};

fn theirs(stream: &[u8], w: usize, h: usize, bpp: u32) -> Result<Vec<u8>, ironrdp_graphics::rle::RleError> {
    let mut out = Vec::new();
    ironrdp_graphics::rle::decompress(stream, &mut out, w, h, bpp as usize)?;
    Ok(out)
}

#[test]
fn our_streams_decode_with_theirs() {
    let mut g = Gen::new(0x41e);
    let mut checked = 0;
    for i in 0..1200 {
        let bpp = [8, 15, 16, 24][i % 4];
        let (w, h) = (4 * (1 + g.below(16) as usize), 1 + g.below(64) as usize);
        let raw = if i % 3 == 0 {
            // Random pixels from a small palette: runs, dithers and images of every kind.
            let ps = bytes_per_pixel(bpp).unwrap();
            let pal: Vec<u64> = (0..1 + g.below(4)).map(|_| g.next_u64()).collect();
            let mask = if bpp == 15 { 0x7FFF } else { u64::MAX };
            (0..w * h)
                .flat_map(|_| (pal[g.below(pal.len() as u64) as usize] & mask).to_le_bytes()[..ps].to_vec())
                .collect()
        } else {
            screen_bitmap(&mut g, w, h, bpp)
        };
        let enc = encode(&raw, w, h, bpp).unwrap();
        let got = theirs(&enc, w, h, bpp).unwrap_or_else(|e| panic!("bitmap {i} ({w}×{h}, {bpp} bpp): {e}"));
        assert!(got == raw, "bitmap {i} ({w}×{h}, {bpp} bpp) decodes differently there");
        checked += 1;
    }
    assert_eq!(checked, 1200);
}

#[test]
fn both_decoders_agree_on_random_order_streams() {
    let mut g = Gen::new(0xd1ff);
    let headers = [
        0x00u8, 0x05, 0x20, 0x23, 0x41, 0x40, 0x62, 0x60, 0x83, 0xC2, 0xC0, 0xD1, 0xE2, 0xF0, 0xF1, 0xF3, 0xF9, 0xFA,
        0xFD, 0xFE,
    ];
    let mut agreed = 0;
    for i in 0..12000 {
        let bpp = [8, 15, 16, 24][i % 4];
        let (w, h) = (1 + g.below(24) as usize, 1 + g.below(8) as usize);
        let mut s = Vec::new();
        for _ in 0..1 + g.below(12) {
            s.push(headers[g.below(headers.len() as u64) as usize]);
            for _ in 0..g.below(7) {
                s.push(g.below(6) as u8);
            }
        }
        if let (Ok(a), Ok(b)) = (decode(&s, w, h, bpp), theirs(&s, w, h, bpp)) {
            assert!(a == b, "stream {i} ({w}×{h}, {bpp} bpp) {s:02x?}: decoders disagree");
            agreed += 1;
        }
    }
    assert!(agreed > 800, "only {agreed} streams accepted by both");
}
