#![no_main]

include!("../targets/events.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));
