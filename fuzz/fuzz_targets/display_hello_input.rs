//! Fuzz target: what a display server reads from a client before and during a session — the
//! hello line and the input PDUs — must never panic; an accepted hello writes back to a hello
//! that reads the same, and accepted input events re-encode to PDUs that decode the same.
#![no_main]

use latlab_display_net::{hello_line, parse_hello};
use latlab_desktop::wire::{decode_input, encode_input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    if let Ok((cfg, pace)) = parse_hello(&line) {
        let again = parse_hello(&hello_line(&cfg, pace)).expect("a hello latlab wrote reads back");
        assert_eq!(hello_line(&again.0, again.1), hello_line(&cfg, pace));
    }
    if let Ok(events) = decode_input(data) {
        let mut pdu = Vec::new();
        encode_input(&events, &mut pdu);
        assert_eq!(decode_input(&pdu).ok(), Some(events));
    }
});
