//! Fuzz target `batch_line`: see `fuzz_bodies::batch_line`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_bodies::batch_line(data));
