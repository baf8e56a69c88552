//! Fuzz target: the UDP wire parser must never panic or read out of bounds on any datagram,
//! keyed or not, and whatever it accepts must re-encode to the same header.
#![no_main]

use latlab_udp_probe::wire;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for key in [None, Some(b"fuzz key".as_slice())] {
        if let Ok(p) = wire::decode(data, key) {
            let mut buf = data.to_vec();
            wire::encode(&p, &mut buf, key);
            assert_eq!(wire::decode(&buf, key), Ok(p));
            if p.kind == wire::KIND_PROBE {
                wire::make_reply(&mut buf, 1, 2, key);
                assert_eq!(buf.len(), data.len(), "a reply is never larger than its request");
                assert!(wire::decode(&buf, key).is_ok());
            }
        }
    }
});
