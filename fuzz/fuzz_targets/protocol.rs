#![no_main]

include!("../targets/protocol.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));
