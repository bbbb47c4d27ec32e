#![no_main]

include!("../targets/table.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));
