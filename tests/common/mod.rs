//! Helpers shared by test binaries.

pub mod passes;
