#![no_main]

include!("../targets/spec.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));
