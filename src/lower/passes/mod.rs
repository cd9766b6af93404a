//! Passes over a built [`Program`], before it is emitted or run: each
//! rewrites the program into one that computes the same for every launch, with less to do.
//!
//! - [`ranges`]: what each integer value can be, and what that settles — a compare decided
//!   for every thread, a signed division of a value never negative, a predicate always true.
//! - [`selects`]: integer arithmetic on constants and selects of constants is a select of
//!   constants.
//! - [`powers`]: a remainder by a power of two tested against zero is a mask, and a quotient by
//!   one where a branch found the mask zero is a shift.
//! - [`common`]: one operation for each value computed twice, a select on a constant is the
//!   operand it picks, and a remainder reuses its quotient.
//! - [`regions`]: stores and atomics masked by one predicate, with the loads and arithmetic only
//!   they use, behind one branch.
//!
//! They read and write the IR only, so the emitter and the interpreter see the same program:
//! the interpreter's checks of a lowered kernel hold for the optimized one. The TTGIR front runs
//! [`fold_ranges`] as it builds a program and [`optimize`] (the others) after.

pub mod common;
pub mod powers;
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
    reduce_powers_of_two(p);
    common_values(p);
    form_predicated_regions(p);
}
pub use powers::reduce_powers_of_two;
pub use ranges::{Range, fold_ranges};
pub use regions::form_predicated_regions;
pub use selects::fold_selects;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::ir::{ArithOp, Buffer, GlobalOffset, Op, Predicate, Uniform, Value, XorMap};
    use crate::lower::run;
    use quickcheck::quickcheck;

    /// A straight-line program of 256 threads drawn from `choices`: thread maps, constants,
    /// arithmetic, thread tests, conjunctions and selects, then stores of some values to 16
    /// elements, each under a predicate (often a thread test, so that regions form).
    fn program_of(choices: &[u8]) -> Program {
        let mut p = Program::new("k", 64, 256);
        p.buffers.push(Buffer {
            name: "out".into(),
            elements: Some(16),
            element_bits: 32,
            address: None,
        });
        let mut next = choices.iter().copied().cycle();
        let mut pick = move |n: usize| usize::from(next.next().unwrap_or(0)) % n.max(1);
        let lanes = |bits: u64| XorMap {
            cols: (0..8)
                .map(|b| if bits >> b & 1 == 1 { 1 << b } else { 0 })
                .collect(),
            constant: 0,
        };
        let (mut ints, mut bits): (Vec<Value>, Vec<Value>) = (Vec::new(), Vec::new());
        for _ in 0..choices.len().min(40) + 4 {
            match pick(6) {
                0 => {
                    let v = p.value(32);
                    p.ops.push(Op::ThreadMap {
                        dst: v,
                        map: lanes(pick(256) as u64),
                    });
                    ints.push(v);
                }
                1 => ints.push(p.constant(32, pick(8) as u64)),
                2 if !ints.is_empty() => {
                    let ops = [
                        ArithOp::Add,
                        ArithOp::Sub,
                        ArithOp::Mul,
                        ArithOp::Xor,
                        ArithOp::And,
                    ];
                    let (a, b) = (ints[pick(ints.len())], ints[pick(ints.len())]);
                    let v = p.value(32);
                    p.ops.push(Op::Arith {
                        op: ops[pick(ops.len())],
                        ty: "i32",
                        dst: v,
                        src: vec![a, b],
                    });
                    ints.push(v);
                }
                3 => {
                    let preds = [Predicate::Eq, Predicate::Ult, Predicate::Uge];
                    bits.push(p.thread_test(lanes(pick(256) as u64), preds[pick(3)], pick(64) as u64));
                }
                4 if bits.len() >= 2 => {
                    let (a, b) = (bits[pick(bits.len())], bits[pick(bits.len())]);
                    let v = p.value(1);
                    p.ops.push(Op::Arith {
                        op: ArithOp::And,
                        ty: "i1",
                        dst: v,
                        src: vec![a, b],
                    });
                    bits.push(v);
                }
                5 if !bits.is_empty() && !ints.is_empty() => {
                    let v = p.value(32);
                    let (cond, a, b) = (
                        bits[pick(bits.len())],
                        ints[pick(ints.len())],
                        ints[pick(ints.len())],
                    );
                    p.ops.push(Op::Select { dst: v, cond, a, b });
                    ints.push(v);
                }
                _ => ints.push(p.constant(32, 1)),
            }
        }
        for element in 0..16 {
            let (Some(&src), Some(&predicate)) = (ints.get(pick(ints.len())), bits.get(pick(bits.len())))
            else {
                break;
            };
            p.ops.push(Op::GlobalStore {
                src: vec![src],
                buffer: 0,
                offset: GlobalOffset {
                    base: Uniform::constant(element),
                    predicate: Some(predicate),
                    ..GlobalOffset::default()
                },
            });
        }
        p
    }

    quickcheck! {
        /// The law of every pass: the optimized program computes the same bits. (Stores of one
        /// element by several threads race; the interpreter refuses both programs alike.)
        fn optimize_computes_the_same_bits(choices: Vec<u8>) -> bool {
            let mut p = program_of(&choices);
            let mut before = vec![vec![0xAB; 64]];
            let was = run(&p, &mut before).map_err(|e| e.to_string());
            optimize(&mut p);
            if p.validate().is_err() {
                return false;
            }
            let mut after = vec![vec![0xAB; 64]];
            let now = run(&p, &mut after).map_err(|e| e.to_string());
            was.is_ok() == now.is_ok() && (was.is_err() || before == after)
        }
    }
}
