//! Passes over a built [`Program`](super::ir::Program), before it is emitted or run: each
//! rewrites the program into one that computes the same for every launch, with less to do.
//!
//! - [`ranges`]: what each integer value can be, and what that settles — a compare decided
//!   for every thread, a signed division of a value never negative, a predicate always true.
//!
//! They read and write the IR only, so the emitter and the interpreter see the same program:
//! the interpreter's checks of a lowered kernel hold for the optimized one.

pub mod ranges;

pub use ranges::{Range, fold_ranges};
