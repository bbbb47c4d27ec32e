#![no_main]

include!("../targets/config.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));
