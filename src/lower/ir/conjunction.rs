//! Conjunctions of 1-bit values: which conditions a predicate implies, as the program spells
//! them (`a ∧ b` implies `a` and `b`). A masked store by the first thread of each broadcast
//! group within the bounds has the predicate `in_bounds ∧ first`; it acts only where `first`
//! holds, so it can share a branch on `first` with other stores of that group.

use std::collections::HashMap;

use super::arith::ArithOp;
use super::program::{Op, Program, Value};

/// The `and`s of 1-bit values of a program, each with its two parts.
///
/// ```
/// use linear_layout::lower::{ArithOp, Conjunctions, Op, Program};
/// let mut p = Program::new("k", 64, 64);
/// let (a, b, both) = (p.value(1), p.value(1), p.value(1));
/// p.ops.push(Op::Arith { op: ArithOp::And, ty: "i1", dst: both, src: vec![a, b] });
/// assert_eq!(Conjunctions::of(&p).parts(both), vec![both, a, b]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Conjunctions {
    parts: HashMap<Value, [Value; 2]>,
}

impl Conjunctions {
    /// Every `and` of 1-bit values in `p` (loop bodies and branches too).
    pub fn of(p: &Program) -> Conjunctions {
        let parts = p
            .walk()
            .filter_map(|op| match op {
                Op::Arith {
                    op: ArithOp::And,
                    ty: "i1",
                    dst,
                    src,
                } => Some((*dst, [*src.first()?, *src.get(1)?])),
                _ => None,
            })
            .collect();
        Conjunctions { parts }
    }

    /// `p` and every part of it as a conjunction (its parts' parts too), `p` first: the
    /// conditions `p` implies. A part is taken only when it is a value made before the
    /// conjunction (a smaller number), so the walk ends whatever the program.
    pub fn parts(&self, p: Value) -> Vec<Value> {
        let mut out = vec![p];
        let mut k = 0;
        while let Some(&v) = out.get(k) {
            if let Some(parts) = self.parts.get(&v) {
                out.extend(parts.iter().filter(|x| **x < v));
            }
            k += 1;
        }
        out
    }
}
