#![no_main]

include!("../targets/analysis.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));
