#![no_main]

include!("../targets/journal.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));
