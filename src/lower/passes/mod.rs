//! Passes over a built [`Program`](super::ir::Program), before it is emitted or run: each
//! rewrites the program into one that computes the same for every launch, with less to do.
//!
//! - [`ranges`]: what each integer value can be, and what that settles — a compare decided
//!   for every thread, a signed division of a value never negative, a predicate always true.
//! - [`selects`]: integer arithmetic on constants and selects of constants is a select of
//!   constants.
//! - [`common`]: one operation for each value computed twice, a select on a constant is the
//!   operand it picks, and a remainder reuses its quotient.
//! - [`regions`]: stores and atomics masked by one predicate, with the loads and arithmetic only
//!   they use, behind one branch.
//!
//! They read and write the IR only, so the emitter and the interpreter see the same program:
//! the interpreter's checks of a lowered kernel hold for the optimized one.

pub mod common;
pub mod ranges;
pub mod regions;
pub mod selects;

pub use common::common_values;
pub use ranges::{Range, fold_ranges};
pub use regions::form_predicated_regions;
pub use selects::fold_selects;
