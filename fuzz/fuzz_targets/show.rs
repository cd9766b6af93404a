//! Fuzz target `show`: see `fuzz_bodies::show`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_bodies::show(data));
