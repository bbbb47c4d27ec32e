#![no_main]

include!("../targets/model_file.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));
