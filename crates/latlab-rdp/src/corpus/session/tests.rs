//! Tests of `session.rs`.

use super::*;
use crate::bitmap::decode_bitmap_update;
use crate::orders::OrderState;
use crate::updates::{Order, Update, decode_update};

/// Every PDU parses with this crate's decoders (which also reject bytes after the last
/// order), and every RLE bitmap decodes.
fn parse(pdus: &[Vec<u8>]) -> (usize, usize, usize) {
    let mut state = OrderState::default();
    let (mut orders, mut rects, mut cached) = (0, 0, 0);
    for (i, p) in pdus.iter().enumerate() {
        match decode_update(p, &mut state).unwrap_or_else(|e| panic!("PDU {i}: {e}")) {
            Update::Orders(os) => {
                for o in os {
                    if let Order::CacheBitmap(c) = o {
                        let raw = crate::rle::decode(&c.data, c.width as usize, c.height as usize, 16).unwrap();
                        assert_eq!(raw.len(), c.width as usize * c.height as usize * 2);
                        cached += 1;
                    }
                    orders += 1;
                }
            }
            Update::Bitmap(rs) => {
                for r in rs {
                    if r.compressed.is_some() {
                        crate::rle::decode(&r.data, r.width as usize, r.height as usize, 16).unwrap();
                    } else {
                        assert_eq!(r.data.len(), r.width as usize * r.height as usize * 2);
                    }
                    assert!(r.dest[2] >= r.dest[0] && r.dest[2] - r.dest[0] < r.width);
                    rects += 1;
                }
            }
        }
    }
    (orders, rects, cached)
}

#[test]
fn pdus_are_valid_wire_format_and_deterministic() {
    let a = session_pdus(5, 400, 16_000);
    assert_eq!(a.len(), 400);
    assert_eq!(a, session_pdus(5, 400, 16_000));
    assert!(a.iter().all(|p| p.len() <= 16_000));
    let (orders, rects, cached) = parse(&a);
    // All three kinds occur: primary orders, cache orders, bitmap tiles.
    assert!(orders > 1000 && rects > 100 && cached > 20, "{orders} {rects} {cached}");
    assert_ne!(a, session_pdus(6, 400, 16_000));
}

#[test]
fn small_limits_split_order_pdus() {
    let a = session_pdus(2, 300, 1_000);
    parse(&a);
    // Only a single bitmap tile or a single order may exceed the limit.
    for p in &a {
        let one_order = p[0] == 0 && u16::from_le_bytes([p[4], p[5]]) == 1;
        assert!(p.len() <= 1_000 || one_order || decode_bitmap_update(p).is_ok_and(|r| r.len() == 1), "{}", p.len());
    }
}
