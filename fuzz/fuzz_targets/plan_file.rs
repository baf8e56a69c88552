//! Fuzz target: launch plans (`latlab.plan/1`) and the preload library (`latlab.preload/1`)
//! must never panic on any text; a plan that reads back writes back to the same plan.
#![no_main]

use latlab_startup::plan::Plan;
use latlab_startup::preload::Library;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(p) = Plan::from_json(&text) {
        assert_eq!(Plan::from_json(&p.to_json()).ok(), Some(p));
    }
    let _ = Library::from_json(&text, "fuzz.json");
});
