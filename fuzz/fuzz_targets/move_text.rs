#![no_main]

include!("../targets/move_text.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));
