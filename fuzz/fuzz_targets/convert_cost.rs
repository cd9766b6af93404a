//! Fuzz target `convert_cost`: see `fuzz_bodies::convert_cost`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_bodies::convert_cost(data));
