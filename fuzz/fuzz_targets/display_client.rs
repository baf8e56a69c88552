//! Fuzz target: the display client — fast-path framing, decryption, bulk decompression, order
//! and bitmap decoding, the cache — must never panic or read out of bounds on any byte stream,
//! for every codec, cipher and colour depth; nor may the input-PDU and hello parsers.
#![no_main]

use latlab_desktop::decoder::Decoder;
use latlab_display_net::parse_hello;
use latlab_desktop::wire::{Codec, Crypto, Receiver, decode_input, pdu_len};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    let sel = sel as usize;
    let codec = Codec::ALL[sel % Codec::ALL.len()];
    let crypto = Crypto::ALL[(sel / Codec::ALL.len()) % Crypto::ALL.len()];
    let bpp = [8, 16, 24][(sel / 24) % 3];
    let mut rx = Receiver::new(codec, crypto, false);
    let mut dec = Decoder::new(96, 64, bpp, [4, 4, 4], false);
    let mut update = Vec::new();
    let mut at = 0;
    while at < rest.len() {
        let len = pdu_len(&rest[at..]).unwrap_or(rest.len() - at).clamp(1, rest.len() - at);
        if rx.read(&rest[at..at + len], &mut update).is_ok() {
            let _ = dec.apply(&update);
        }
        at += len;
    }
    let _ = decode_input(rest);
    let _ = parse_hello(&String::from_utf8_lossy(rest));
});
