//! Fuzz target `ttgir_passes`: see `fuzz_bodies::ttgir_passes`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_bodies::ttgir_passes(data));
