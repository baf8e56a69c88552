//! Tests of `rle.rs`.

use super::*;
use proptest::prelude::*;

fn px16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|p| p.to_le_bytes()).collect()
}

#[test]
fn orders_by_hand_16bpp() {
    // 4×2 at 16 bpp, bottom row first.
    // Row 0: colour run of 0x1234 ×4: 0x64 (regular colour run, length 4), pixel.
    // Row 1: BG run 2 (0x02), then FG run 2 with white fg: above ^ 0xFFFF (0x22).
    let stream = [0x64, 0x34, 0x12, 0x02, 0x22];
    let got = decode(&stream, 4, 2, 16).unwrap();
    assert_eq!(got, px16(&[0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0xEDCB, 0xEDCB]));
    // Two BG runs in a row on the second line: the second begins with a FG pixel.
    let stream = [0x64, 0x34, 0x12, 0x01, 0x03];
    let got = decode(&stream, 4, 2, 16).unwrap();
    assert_eq!(got, px16(&[0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0xEDCB, 0x1234, 0x1234]));
    // Special orders: white, black; FG/BG image 0xF9 (mask 0x03) on the first line.
    let got = decode(&[0xFD, 0xFE, 0xF9], 10, 1, 16).unwrap();
    assert_eq!(got, px16(&[0xFFFF, 0, 0xFFFF, 0xFFFF, 0, 0, 0, 0, 0, 0]));
    // Lite set-FG FG run with a length byte (0xC0, 16 + 4 = 20 pixels), fg 0x00F0.
    let got = decode(&[0xC0, 4, 0xF0, 0x00], 20, 1, 16).unwrap();
    assert_eq!(got, px16(&[0x00F0; 20]));
    // MEGA_MEGA dithered run: 3 pairs.
    let got = decode(&[0xF8, 3, 0, 1, 0, 2, 0], 6, 1, 16).unwrap();
    assert_eq!(got, px16(&[1, 2, 1, 2, 1, 2]));
    // Regular FG/BG image with a length byte: 0x40, 10 − 1; masks 0b1010_0101, 0b10.
    let got = decode(&[0x40, 9, 0xA5, 0x02], 10, 1, 8).unwrap();
    assert_eq!(got, vec![0xFF, 0, 0xFF, 0, 0, 0xFF, 0, 0xFF, 0, 0xFF]);
}

#[test]
fn hostile_streams_are_errors() {
    assert_eq!(decode(&[0xA0], 4, 1, 8), Err(RleError::BadOrder(0xA0, 0)));
    assert_eq!(decode(&[0xF5], 4, 1, 8), Err(RleError::BadOrder(0xF5, 0)));
    assert_eq!(decode(&[0x05], 4, 1, 8), Err(RleError::Overrun(0)));
    assert_eq!(decode(&[0x62], 4, 1, 16), Err(RleError::Truncated(0)));
    assert_eq!(decode(&[0xF0, 0xFF], 4, 1, 16), Err(RleError::Truncated(0)));
    assert!(matches!(decode(&[], 0, 1, 16), Err(RleError::Size(0, 1))));
    assert!(matches!(decode(&[], 1 << 13, 1 << 13, 16), Err(RleError::Size(..))));
    assert_eq!(decode(&[], 1, 1, 32), Err(RleError::Depth(32)));
}

#[test]
fn screen_content_round_trips_and_shrinks() {
    let mut g = crate::corpus::Gen::new(3);
    for bpp in [8, 15, 16, 24] {
        let (w, h) = (64, 64);
        let raw = crate::corpus::screen_bitmap(&mut g, w, h, bpp);
        let enc = encode(&raw, w, h, bpp).unwrap();
        assert_eq!(decode(&enc, w, h, bpp).unwrap(), raw, "{bpp} bpp");
        assert!(enc.len() * 3 < raw.len(), "{bpp} bpp: {} of {} bytes", enc.len(), raw.len());
    }
}

proptest! {
    #[test]
    fn any_bitmap_round_trips(w in 1usize..40, h in 1usize..12, bpp in prop::sample::select(vec![8u32, 15, 16, 24]),
                              seed in any::<u64>(), palette in 1u64..6) {
        let ps = bytes_per_pixel(bpp).unwrap();
        let mut g = crate::corpus::Gen::new(seed);
        let colours: Vec<u32> = (0..palette).map(|_| g.next_u64() as u32 & white(bpp)).collect();
        let px: Vec<u32> = (0..w * h).map(|_| colours[g.below(palette) as usize]).collect();
        let raw: Vec<u8> = px.iter().flat_map(|p| p.to_le_bytes()[..ps].to_vec()).collect();
        let enc = encode(&raw, w, h, bpp).unwrap();
        prop_assert_eq!(decode(&enc, w, h, bpp).unwrap(), raw);
    }

    #[test]
    fn hostile_input_never_panics(data in proptest::collection::vec(any::<u8>(), 0..200), w in 1usize..64, h in 1usize..16,
                                  bpp in prop::sample::select(vec![8u32, 15, 16, 24])) {
        let _ = decode(&data, w, h, bpp);
    }
}
