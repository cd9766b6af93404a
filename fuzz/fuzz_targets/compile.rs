//! Fuzz target `compile`: see `fuzz_bodies::compile`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_bodies::compile(data));
