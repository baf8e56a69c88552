//! Fuzz target: the drawing-order, cache-bitmap, bitmap-update and capability decoders must
//! never panic or read out of bounds; primary orders are decoded as a stream with state.
#![no_main]

use latlab_rdp::bitmap::{BitmapCacheRev2Caps, decode_bitmap_update};
use latlab_rdp::orders::{CacheBitmapRev2, OrderState};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut st = OrderState::default();
    let mut at = 0;
    while at < data.len() {
        match st.decode(&data[at..]) {
            Ok((_, n)) => at += n,
            Err(_) => break,
        }
    }
    if let Ok((_, n)) = CacheBitmapRev2::decode(data) {
        assert!(n <= data.len());
    }
    let _ = decode_bitmap_update(data);
    let _ = BitmapCacheRev2Caps::decode(data);
});
