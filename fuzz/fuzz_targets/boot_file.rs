//! Fuzz target: `latlab.boot/1` files (TOML or JSON) must never panic: a bad file is an error
//! naming a line inside the text, and a file accepted has every wait and the target pointing
//! at a declared service, and no service waiting on itself.
#![no_main]

use latlab_startup::boot::file::BootSpec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match BootSpec::parse(&text) {
        Ok(b) => {
            let n = b.services.len();
            assert!(b.target < n);
            for (i, s) in b.services.iter().enumerate() {
                assert!(s.after.iter().all(|&a| a < n && a != i), "{}: {:?}", s.name, s.after);
            }
        }
        Err(e) => assert!(e.line <= text.lines().count() + 1, "line {} of {}", e.line, text.lines().count()),
    }
});
