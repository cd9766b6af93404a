//! Selects of constants: integer arithmetic whose operands are constants or selects between
//! two constants on one condition is itself a select between two constants — computed once
//! here, not per thread.
//!
//! # Worked example
//!
//! The second step of a binary search over 64 sorted values (`lo, hi = 0, 64`, the first
//! step's `mid = 32` a constant, `c` its comparison):
//!
//! ```text
//! lo = c ? 33 : 0                         lo = c ? 33 : 0
//! hi = c ? 64 : 32               ──▶      hi = c ? 64 : 32
//! s = lo + hi                             s = c ? 97 : 32
//! mid = s / 2                             mid = c ? 48 : 16
//! ```
//!
//! Two selects of constants instead of an add and a division per thread.
//!
//! # The law
//!
//! `f(c ? a : b, k) = c ? f(a, k) : f(b, k)` for every pure `f`, and the same with both
//! operands selects on the same `c`. A fold happens only where `f` is defined on both arms
//! (no division by zero), so the program computes the same bits.

use std::collections::HashMap;

use crate::lower::ir::{ArithOp, Op, Program, Value};

/// Folds integer arithmetic on constants and selects of constants everywhere in `p` (loop
/// bodies and branches too) into selects of constants. Returns how many operations it folded.
///
/// ```
/// use linear_layout::lower::passes::fold_selects;
/// use linear_layout::lower::{ArithOp, Op, Predicate, Program, XorMap};
/// let mut p = Program::new("k", 64, 64);
/// let c = p.thread_test(XorMap { cols: vec![1, 0, 0, 0, 0, 0], constant: 0 }, Predicate::Eq, 0);
/// let (a, b, lo, two, half) = (p.constant(32, 97), p.constant(32, 32), p.value(32), p.constant(32, 2), p.value(32));
/// p.ops.push(Op::Select { dst: lo, cond: c, a, b });
/// p.ops.push(Op::Arith { op: ArithOp::DivU, ty: "i32", dst: half, src: vec![lo, two] });
/// assert_eq!(fold_selects(&mut p), 1);
/// assert!(matches!(p.ops.last(), Some(Op::Select { dst, cond, .. }) if *dst == half && *cond == c));
/// ```
pub fn fold_selects(p: &mut Program) -> usize {
    let mut folding = Folding {
        constants: HashMap::new(),
        selects: HashMap::new(),
        folded: 0,
    };
    let ops = std::mem::take(&mut p.ops);
    p.ops = folding.ops(p, ops);
    folding.folded
}

struct Folding {
    /// The bits of each constant.
    constants: HashMap<Value, u64>,
    /// Each select between two constants: its condition and the two arms' bits.
    selects: HashMap<Value, (Value, u64, u64)>,
    folded: usize,
}

/// What an operand of a fold is: a constant, or a select of constants.
#[derive(Clone, Copy)]
enum Known {
    Constant(u64),
    Select(Value, u64, u64),
}

impl Folding {
    fn ops(&mut self, p: &mut Program, ops: Vec<Op>) -> Vec<Op> {
        let mut out = Vec::with_capacity(ops.len());
        for mut op in ops {
            match &mut op {
                Op::Loop { body, .. } => *body = self.ops(p, std::mem::take(body)),
                Op::If { then, otherwise, .. } => {
                    *then = self.ops(p, std::mem::take(then));
                    *otherwise = self.ops(p, std::mem::take(otherwise));
                }
                Op::LdsWindow { ops, .. } | Op::Predicated { ops, .. } => {
                    *ops = self.ops(p, std::mem::take(ops))
                }
                Op::While { before, after, .. } => {
                    *before = self.ops(p, std::mem::take(before));
                    *after = self.ops(p, std::mem::take(after));
                }
                _ => {}
            }
            match &op {
                Op::Constant { dst, bits } => {
                    self.constants.insert(*dst, *bits);
                }
                Op::Select { dst, cond, a, b } => {
                    if let (Some(&x), Some(&y)) = (self.constants.get(a), self.constants.get(b)) {
                        self.selects.insert(*dst, (*cond, x, y));
                    }
                }
                Op::Arith {
                    op: kind,
                    ty,
                    dst,
                    src,
                } => {
                    if let Some((cond, x, y)) = self.fold(*kind, ty, p.value_bits(*dst), src) {
                        self.folded += 1;
                        let (a, b) = (p.value(p.value_bits(*dst)), p.value(p.value_bits(*dst)));
                        out.push(Op::Constant { dst: a, bits: x });
                        out.push(Op::Constant { dst: b, bits: y });
                        self.constants.insert(a, x);
                        self.constants.insert(b, y);
                        self.selects.insert(*dst, (cond, x, y));
                        out.push(Op::Select {
                            dst: *dst,
                            cond,
                            a,
                            b,
                        });
                        continue;
                    }
                }
                _ => {}
            }
            out.push(op);
        }
        out
    }

    /// `kind(src…)` on `ty` integers as a select of two constants: its condition and the two
    /// arms' results, where every operand is a constant or a select of constants on one
    /// condition (at least one a select) and both arms are defined.
    fn fold(&self, kind: ArithOp, ty: &str, bits: u32, src: &[Value]) -> Option<(Value, u64, u64)> {
        if !ty.starts_with('i') || src.len() != kind.operands() {
            return None;
        }
        let known: Vec<Known> = src
            .iter()
            .map(|v| match (self.constants.get(v), self.selects.get(v)) {
                (Some(&k), _) => Some(Known::Constant(k)),
                (None, Some(&(c, x, y))) => Some(Known::Select(c, x, y)),
                (None, None) => None,
            })
            .collect::<Option<_>>()?;
        let mut cond = None;
        for k in &known {
            if let Known::Select(c, ..) = *k {
                if cond.is_some_and(|d| d != c) {
                    return None;
                }
                cond = Some(c);
            }
        }
        let cond = cond?;
        let arm = |first: bool| -> Vec<u64> {
            known
                .iter()
                .map(|k| match *k {
                    Known::Constant(x) => x,
                    Known::Select(_, x, y) => {
                        if first {
                            x
                        } else {
                            y
                        }
                    }
                })
                .collect()
        };
        let x = kind.eval(ty, bits, &arm(true))?;
        let y = kind.eval(ty, bits, &arm(false))?;
        Some((cond, x, y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::ir::{Predicate, XorMap};

    #[test]
    fn an_arm_divided_by_zero_is_not_folded() {
        let mut p = Program::new("k", 64, 64);
        let c = p.thread_test(
            XorMap {
                cols: vec![1, 0, 0, 0, 0, 0],
                constant: 0,
            },
            Predicate::Eq,
            0,
        );
        let (two, zero, d, one, q) = (
            p.constant(32, 2),
            p.constant(32, 0),
            p.value(32),
            p.constant(32, 1),
            p.value(32),
        );
        p.ops.push(Op::Select {
            dst: d,
            cond: c,
            a: two,
            b: zero,
        });
        p.ops.push(Op::Arith {
            op: ArithOp::DivU,
            ty: "i32",
            dst: q,
            src: vec![one, d],
        });
        assert_eq!(fold_selects(&mut p), 0);
        assert!(matches!(
            p.ops.last(),
            Some(Op::Arith {
                op: ArithOp::DivU,
                ..
            })
        ));
    }

    #[test]
    fn selects_on_two_conditions_are_not_folded() {
        let mut p = Program::new("k", 64, 64);
        let test = |p: &mut Program, bit: usize| {
            let mut cols = vec![0; 6];
            cols[bit] = 1;
            p.thread_test(XorMap { cols, constant: 0 }, Predicate::Eq, 0)
        };
        let (c0, c1) = (test(&mut p, 0), test(&mut p, 1));
        let (a, b) = (p.constant(32, 3), p.constant(32, 5));
        let (x, y, sum) = (p.value(32), p.value(32), p.value(32));
        p.ops.push(Op::Select {
            dst: x,
            cond: c0,
            a,
            b,
        });
        p.ops.push(Op::Select {
            dst: y,
            cond: c1,
            a,
            b,
        });
        p.ops.push(Op::Arith {
            op: ArithOp::Add,
            ty: "i32",
            dst: sum,
            src: vec![x, y],
        });
        assert_eq!(fold_selects(&mut p), 0);
    }
}
