#![no_main]

include!("../targets/checkpoint.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));
