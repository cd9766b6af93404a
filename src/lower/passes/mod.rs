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
//! the interpreter's checks of a lowered kernel hold for the optimized one. The TTGIR front runs
//! [`fold_ranges`] as it builds a program and [`optimize`] (the others) after.

pub mod common;
pub mod ranges;
pub mod regions;
pub mod selects;

pub use common::common_values;

use crate::lower::ir::Program;

/// The rewrites after a program is built and priced: selects of constants folded, common
/// values merged, predicated regions formed — what `opt` would do for LLVM IR, and what the
/// layouts tell that it could not.
///
/// The cost model prices the program before them: it counts a thread map, a constant and the
/// arithmetic of an address at every use, which stands for the address code it does not price
/// itself (the swizzles of an LDS round trip); priced after the merge, a round trip through LDS
/// would look cheaper than the code it makes.
///
/// ```
/// use linear_layout::lower::passes::optimize;
/// use linear_layout::lower::{Predicate, Program, XorMap};
/// let mut p = Program::new("k", 64, 64);
/// let lanes = XorMap { cols: (0..6).map(|b| 1 << b).collect(), constant: 0 };
/// p.thread_test(lanes.clone(), Predicate::Eq, 0);
/// p.thread_test(lanes, Predicate::Eq, 0);
/// optimize(&mut p);
/// assert_eq!(p.ops.len(), 3);
/// ```
pub fn optimize(p: &mut Program) {
    fold_selects(p);
    common_values(p);
    form_predicated_regions(p);
}
pub use ranges::{Range, fold_ranges};
pub use regions::form_predicated_regions;
pub use selects::fold_selects;
