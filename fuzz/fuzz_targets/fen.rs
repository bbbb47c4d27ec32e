#![no_main]

include!("../targets/fen.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));
