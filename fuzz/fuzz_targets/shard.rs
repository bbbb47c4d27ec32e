#![no_main]

include!("../targets/shard.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));
