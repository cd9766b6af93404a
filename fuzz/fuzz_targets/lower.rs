//! Fuzz target `lower`: see `fuzz_bodies::lower`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_bodies::lower(data));
