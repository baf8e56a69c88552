//! Fuzz target: the boot-trace readers (xperf XML, `systemd-analyze blame` and
//! `critical-chain` text) must never panic on any text: a broken trace is an error naming a
//! line inside the text, and whatever is read analyses without panicking.
#![no_main]

use latlab_startup::boot::analyze as boot;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // The same bytes as each format's reader sees them (the sniffing picks one).
    for t in [text.to_string(), format!("<?xml version=\"1.0\"?>\n{text}"), format!("x.target @1s\n└─{text}")] {
        match boot::parse(&t) {
            Ok(trace) => {
                let _ = boot::analyze(&trace);
            }
            Err(e) => assert!(e.line <= t.lines().count().max(1) + 1, "line {} of {}", e.line, t.lines().count()),
        }
    }
    let _ = boot::parse_duration_ms(&text);
});
