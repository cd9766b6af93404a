//! Fuzz target `layout_passes`: see `fuzz_bodies::layout_passes`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_bodies::layout_passes(data));
