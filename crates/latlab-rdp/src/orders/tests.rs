//! Tests of `orders.rs`.

use super::*;
use crate::bitmap::{BitmapCacheRev2Caps, BitmapRect, decode_bitmap_update, encode_bitmap_update};
use proptest::prelude::*;

#[test]
fn variable_length_integers_by_hand() {
    let mut o = Vec::new();
    put_two_byte_unsigned(&mut o, 0x12).unwrap();
    put_two_byte_unsigned(&mut o, 0x1234).unwrap();
    put_four_byte_unsigned(&mut o, 0x3F).unwrap();
    put_four_byte_unsigned(&mut o, 0x12345).unwrap();
    assert_eq!(o, vec![0x12, 0x92, 0x34, 0x3F, 0x81, 0x23, 0x45]);
    let mut r = Rd::new(&o);
    assert_eq!(r.two_byte_unsigned("x"), Ok(0x12));
    assert_eq!(r.two_byte_unsigned("x"), Ok(0x1234));
    assert_eq!(r.four_byte_unsigned("x"), Ok(0x3F));
    assert_eq!(r.four_byte_unsigned("x"), Ok(0x12345));
    assert!(put_two_byte_unsigned(&mut o, 0x8000).is_err());
}

#[test]
fn opaque_rect_by_hand() {
    // First order: type change to OpaqueRect, the six fields that differ from the zeroed
    // state (green stays 0), full coordinates (1000 does not fit a delta):
    // 09 0a 5f | e8 03 | 14 00 | 64 00 | 32 00 | ff 80.
    let mut st = OrderState::default();
    let o =
        PrimaryOrder::OpaqueRect { rect: Rect { left: 1000, top: 20, width: 100, height: 50 }, color: [0xFF, 0, 0x80] };
    let mut out = Vec::new();
    st.encode(&o, &mut out);
    assert_eq!(out, vec![0x09, 0x0A, 0x5F, 0xE8, 0x03, 0x14, 0x00, 0x64, 0x00, 0x32, 0x00, 0xFF, 0x80]);
    // Same type, only the top moved by +16: 0x11 (standard, delta), flags 0x02, delta 0x10.
    let o2 =
        PrimaryOrder::OpaqueRect { rect: Rect { left: 1000, top: 36, width: 100, height: 50 }, color: [0xFF, 0, 0x80] };
    let mut out2 = Vec::new();
    st.encode(&o2, &mut out2);
    assert_eq!(out2, vec![0x11, 0x02, 0x10]);
    let mut rx = OrderState::default();
    let (a, n) = rx.decode(&out).unwrap();
    assert_eq!((a, n), (o, out.len()));
    assert_eq!(rx.decode(&out2).unwrap(), (o2, 3));
    // Identical order: no field bytes at all (TS_ZERO_FIELD_BYTE_BIT0).
    let mut out3 = Vec::new();
    st.encode(&o2, &mut out3);
    assert_eq!(out3, vec![0x51]);
    assert_eq!(rx.decode(&out3).unwrap(), (o2, 1));
}

#[test]
fn cache_bitmap_rev2_by_hand() {
    let c = CacheBitmapRev2 {
        cache_id: 1,
        bpp: 16,
        cache_index: 300,
        width: 32,
        height: 32,
        key: None,
        do_not_cache: false,
        compressed: Some(false),
        data: vec![0xAA; 5],
    };
    let b = c.encode().unwrap();
    // Header: 03, orderLength = 15 − 13 = 2, extraFlags = 1 | 4<<3 | (0x01|0x08)<<7, type 05.
    let extra: u16 = 1 | 4 << 3 | (0x09 << 7);
    let mut want = vec![0x03, 0x02, 0x00];
    want.extend_from_slice(&extra.to_le_bytes());
    want.extend_from_slice(&[0x05, 0x20, 0x05, 0x81, 0x2C]);
    want.extend_from_slice(&[0xAA; 5]);
    assert_eq!(b, want);
    assert_eq!(CacheBitmapRev2::decode(&b).unwrap(), (c, b.len()));
    assert!(CacheBitmapRev2::decode(&b[..b.len() - 1]).is_err());
}

#[test]
fn caps_by_hand() {
    let caps = BitmapCacheRev2Caps {
        persistent_keys: false,
        waiting_list: true,
        caches: vec![(600, false), (600, false), (2048, true)],
    };
    let b = caps.encode().unwrap();
    assert_eq!(b.len(), 40);
    assert_eq!(&b[..8], &[0x13, 0, 40, 0, 2, 0, 0, 3]);
    assert_eq!(&b[16..20], &(2048u32 | 1 << 31).to_le_bytes());
    assert_eq!(BitmapCacheRev2Caps::decode(&b).unwrap(), caps);
    assert_eq!(BitmapCacheRev2Caps::cell_side(2), 64);
}

fn any_rect() -> impl Strategy<Value = Rect> {
    (any::<i16>(), any::<i16>(), 0i16..2000, 0i16..2000).prop_map(|(l, t, w, h)| Rect {
        left: l,
        top: t,
        width: w,
        height: h,
    })
}

fn any_order() -> impl Strategy<Value = PrimaryOrder> {
    prop_oneof![
        (any_rect(), any::<[u8; 3]>()).prop_map(|(rect, color)| PrimaryOrder::OpaqueRect { rect, color }),
        (any_rect(), any::<u8>(), any::<(i16, i16)>()).prop_map(|(rect, rop, src)| PrimaryOrder::ScrBlt {
            rect,
            rop,
            src
        }),
        (any::<u16>(), any_rect(), any::<u8>(), any::<(i16, i16)>(), any::<u16>()).prop_map(
            |(cache_id, rect, rop, src, cache_index)| PrimaryOrder::MemBlt { cache_id, rect, rop, src, cache_index }
        ),
    ]
}

proptest! {
    #[test]
    fn order_streams_round_trip(orders in proptest::collection::vec(any_order(), 1..40)) {
        let (mut tx, mut rx) = (OrderState::default(), OrderState::default());
        let mut wire = Vec::new();
        for o in &orders {
            tx.encode(o, &mut wire);
        }
        let mut at = 0;
        for o in &orders {
            let (got, n) = rx.decode(&wire[at..]).unwrap();
            prop_assert_eq!(&got, o);
            at += n;
        }
        prop_assert_eq!(at, wire.len());
    }

    #[test]
    fn bitmap_updates_round_trip(n in 0usize..4, len in 0usize..300, comp in 0u8..3) {
        let rects: Vec<BitmapRect> = (0..n).map(|i| BitmapRect {
            dest: [i as u16, 2, 63, 63], width: 64, height: 64, bpp: 16,
            compressed: match comp { 0 => None, 1 => Some(true), _ => Some(false) },
            data: vec![i as u8; len],
        }).collect();
        let b = encode_bitmap_update(&rects);
        prop_assert_eq!(decode_bitmap_update(&b).unwrap(), rects);
    }

    #[test]
    fn hostile_input_never_panics(data in proptest::collection::vec(any::<u8>(), 0..120)) {
        let mut st = OrderState::default();
        let _ = st.decode(&data);
        let _ = CacheBitmapRev2::decode(&data);
        let _ = decode_bitmap_update(&data);
        let _ = BitmapCacheRev2Caps::decode(&data);
    }
}
