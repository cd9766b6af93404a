//! Fuzz target `encoding_text`: see `fuzz_bodies::encoding_text`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_bodies::encoding_text(data));
