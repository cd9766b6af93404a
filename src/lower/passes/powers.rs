//! Remainders and quotients by powers of two: whether `x % 2ᵏ` is zero is whether the low `k`
//! bits of `x` are — a mask, not the division's sign correction — and where a branch has
//! decided that they are, `x / 2ʲ` (`j ≤ k`) is exact: a shift.
//!
//! # Worked example
//!
//! A Collatz step on a signed `x` (`tl.map_elementwise`, each thread its own branch):
//!
//! ```text
//! r = x % 2                    (four operations: the sign's correction)
//! even = r == 0        ──▶     even = (x & 1) == 0
//! if even:                     if even:
//!     x = x / 2                    x = x >> 1          (arithmetic: x is even)
//! else:                        else:
//!     x = 3·x + 1                  x = 3·x + 1
//! ```
//!
//! # The law
//!
//! For integers of any sign, `x % 2ᵏ == 0 ⇔ x & (2ᵏ − 1) == 0` (signed or unsigned remainder),
//! and where `x & (2ᵏ − 1) == 0`, `x / 2ʲ = x >> j` for every `j ≤ k` (arithmetic shift for
//! the signed quotient, logical for the unsigned). A rewrite happens only where the program's
//! own test decides it, so the program computes the same bits.

use std::collections::HashMap;

use crate::lower::ir::{ArithOp, BranchCondition, Op, Predicate, Program, Value};

/// Rewrites the tests of remainders by powers of two as masks, and the quotients by powers of
/// two under a branch that tested the mask as shifts, everywhere in `p`. Returns how many
/// operations it rewrote.
///
/// ```
/// use linear_layout::lower::passes::reduce_powers_of_two;
/// use linear_layout::lower::{ArithOp, Op, Predicate, Program, XorMap};
/// let mut p = Program::new("k", 64, 64);
/// let x = p.value(32);
/// p.ops.push(Op::ThreadMap { dst: x, map: XorMap { cols: vec![1, 2, 4, 8, 16, 32], constant: 0 } });
/// let (two, zero, r, even) = (p.constant(32, 2), p.constant(32, 0), p.value(32), p.value(1));
/// p.ops.push(Op::Arith { op: ArithOp::RemS, ty: "i32", dst: r, src: vec![x, two] });
/// p.ops.push(Op::Compare { pred: Predicate::Eq, ty: "i32", dst: even, a: r, b: zero });
/// assert_eq!(reduce_powers_of_two(&mut p), 1);
/// assert!(p.ops.iter().any(|op| matches!(op, Op::Arith { op: ArithOp::And, .. })));
/// ```
pub fn reduce_powers_of_two(p: &mut Program) -> usize {
    let mut r = Reduction::default();
    let ops = std::mem::take(&mut p.ops);
    p.ops = r.ops(p, ops, &mut Vec::new());
    r.rewritten
}

#[derive(Default)]
struct Reduction {
    /// The bits of each constant.
    constants: HashMap<Value, u64>,
    /// Each remainder by a power of two: its dividend and the mask of the low bits it keeps.
    remainders: HashMap<Value, (Value, u64)>,
    /// Each test that the masked low bits of a value are zero (`true`) or not (`false`).
    tests: HashMap<Value, (Value, u64, bool)>,
    rewritten: usize,
}

impl Reduction {
    /// `ops` rewritten; `known` holds the values whose masked low bits the branches around
    /// them have found zero.
    fn ops(&mut self, p: &mut Program, ops: Vec<Op>, known: &mut Vec<(Value, u64)>) -> Vec<Op> {
        let mut out = Vec::with_capacity(ops.len());
        for mut op in ops {
            match &mut op {
                Op::Loop { body, .. } => *body = self.ops(p, std::mem::take(body), known),
                Op::If {
                    cond,
                    then,
                    otherwise,
                    ..
                } => {
                    let tested = match cond {
                        BranchCondition::Value(c) | BranchCondition::PerThread(c) => {
                            self.tests.get(c).copied()
                        }
                        BranchCondition::Uniform(_) => None,
                    };
                    for (arm, holds) in [(then, true), (otherwise, false)] {
                        let depth = known.len();
                        if let Some((x, mask, zero)) = tested
                            && zero == holds
                        {
                            known.push((x, mask));
                        }
                        *arm = self.ops(p, std::mem::take(arm), known);
                        known.truncate(depth);
                    }
                }
                Op::LdsWindow { ops, .. } | Op::Predicated { ops, .. } => {
                    *ops = self.ops(p, std::mem::take(ops), known)
                }
                Op::While { before, after, .. } => {
                    *before = self.ops(p, std::mem::take(before), known);
                    *after = self.ops(p, std::mem::take(after), known);
                }
                _ => {}
            }
            match &mut op {
                Op::Constant { dst, bits } => {
                    self.constants.insert(*dst, *bits);
                }
                Op::Arith {
                    op: kind @ (ArithOp::RemS | ArithOp::RemU),
                    ty,
                    dst,
                    src,
                } if ty.starts_with('i') => {
                    if let Some(k) = self.power_of_two(*kind, p.value_bits(*dst), src) {
                        self.remainders.insert(*dst, (src[0], (1u64 << k) - 1));
                    }
                }
                Op::Arith {
                    op: kind @ (ArithOp::Div | ArithOp::DivU),
                    ty,
                    dst,
                    src,
                } if ty.starts_with('i') => {
                    let bits = p.value_bits(*dst);
                    if let Some(j) = self.power_of_two(*kind, bits, src)
                        && known
                            .iter()
                            .any(|&(x, mask)| x == src[0] && ((1u64 << j) - 1) & !mask == 0)
                    {
                        let shift = p.value(bits);
                        out.push(Op::Constant {
                            dst: shift,
                            bits: u64::from(j),
                        });
                        *kind = if *kind == ArithOp::Div {
                            ArithOp::ShrS
                        } else {
                            ArithOp::ShrU
                        };
                        src[1] = shift;
                        self.rewritten += 1;
                    }
                }
                Op::Compare {
                    pred: pred @ (Predicate::Eq | Predicate::Ne),
                    ty,
                    dst,
                    a,
                    b,
                } if ty.starts_with('i') => {
                    let zero = |v: &Value| self.constants.get(v) == Some(&0);
                    let (a_zero, b_zero) = (zero(a), zero(b));
                    let remainder = if b_zero {
                        self.remainders.get(a).copied()
                    } else if a_zero {
                        self.remainders.get(b).copied()
                    } else {
                        None
                    };
                    if let Some((x, mask)) = remainder {
                        let (m, low) = (p.value(p.value_bits(x)), p.value(p.value_bits(x)));
                        out.push(Op::Constant { dst: m, bits: mask });
                        out.push(Op::Arith {
                            op: ArithOp::And,
                            ty,
                            dst: low,
                            src: vec![x, m],
                        });
                        self.constants.insert(m, mask);
                        if b_zero {
                            *a = low;
                        } else {
                            *b = low;
                        }
                        self.tests.insert(*dst, (x, mask, *pred == Predicate::Eq));
                        self.rewritten += 1;
                    }
                }
                _ => {}
            }
            out.push(op);
        }
        out
    }

    /// `k` where `src` divides by the constant `2ᵏ` (`k ≥ 1`; below the sign bit for a signed
    /// division).
    fn power_of_two(&self, kind: ArithOp, bits: u32, src: &[Value]) -> Option<u32> {
        let &divisor = self.constants.get(src.get(1)?)?;
        let divisor = divisor & if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let k = divisor.trailing_zeros();
        let signed = matches!(kind, ArithOp::RemS | ArithOp::Div);
        let limit = if signed { bits - 1 } else { bits };
        (divisor.is_power_of_two() && k >= 1 && k < limit).then_some(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::ir::{Buffer, Extent, GlobalOffset, XorMap};
    use crate::lower::run;
    use quickcheck::quickcheck;

    /// 64 threads, `x = tid·scale − offset` (both signs): `r = x % 2ᵏ` (signed or not), a
    /// branch each thread takes on `r == 0` (or `r != 0`) whose arm divides `x` by `2ʲ`; the
    /// quotient (or 7 from the other arm) and the test stored per thread.
    fn program(k: u32, j: u32, signed: bool, equal: bool, scale: u32, offset: u32) -> Program {
        let mut p = Program::new("k", 64, 64);
        for name in ["q", "t"] {
            p.buffers.push(Buffer {
                name: name.into(),
                elements: Some(64),
                element_bits: 32,
                address: None,
            });
        }
        let tid = p.value(32);
        p.ops.push(Op::ThreadMap {
            dst: tid,
            map: XorMap {
                cols: (0..6).map(|b| 1 << b).collect(),
                constant: 0,
            },
        });
        let (s, o, scaled, x) = (
            p.constant(32, u64::from(scale)),
            p.constant(32, u64::from(offset)),
            p.value(32),
            p.value(32),
        );
        p.ops.push(Op::Arith {
            op: ArithOp::Mul,
            ty: "i32",
            dst: scaled,
            src: vec![tid, s],
        });
        p.ops.push(Op::Arith {
            op: ArithOp::Sub,
            ty: "i32",
            dst: x,
            src: vec![scaled, o],
        });
        let (d, zero, r, test) = (p.constant(32, 1 << k), p.constant(32, 0), p.value(32), p.value(1));
        let (rem, div) = if signed {
            (ArithOp::RemS, ArithOp::Div)
        } else {
            (ArithOp::RemU, ArithOp::DivU)
        };
        p.ops.push(Op::Arith {
            op: rem,
            ty: "i32",
            dst: r,
            src: vec![x, d],
        });
        let pred = if equal { Predicate::Eq } else { Predicate::Ne };
        p.ops.push(Op::Compare {
            pred,
            ty: "i32",
            dst: test,
            a: r,
            b: zero,
        });
        let (dj, q, seven, out) = (p.value(32), p.value(32), p.value(32), p.value(32));
        let quotient = vec![
            Op::Constant {
                dst: dj,
                bits: 1 << j,
            },
            Op::Arith {
                op: div,
                ty: "i32",
                dst: q,
                src: vec![x, dj],
            },
        ];
        let other = vec![Op::Constant { dst: seven, bits: 7 }];
        let (then, otherwise, results) = if equal {
            (quotient, other, [out, q, seven])
        } else {
            (other, quotient, [out, seven, q])
        };
        p.ops.push(Op::If {
            cond: BranchCondition::PerThread(test),
            then,
            otherwise,
            results: vec![results],
        });
        let (one, wide) = (p.constant(32, 1), p.value(32));
        p.ops.push(Op::Select {
            dst: wide,
            cond: test,
            a: one,
            b: zero,
        });
        for (buffer, v) in [(0, out), (1, wide)] {
            p.ops.push(Op::GlobalStore {
                src: vec![v],
                buffer,
                offset: GlobalOffset {
                    coords: vec![XorMap {
                        cols: (0..6).map(|b| 1 << b).collect(),
                        constant: 0,
                    }],
                    strides: vec![Extent::Elements(1)],
                    bounds: vec![None],
                    ..GlobalOffset::default()
                },
            });
        }
        p
    }

    fn outputs(p: &Program) -> Vec<Vec<u8>> {
        let mut buffers = vec![vec![0u8; 256]; 2];
        run(p, &mut buffers).unwrap();
        buffers
    }

    quickcheck! {
        /// The law: the rewritten program stores the same bits, for remainders and quotients of
        /// either sign, and the test is a mask, the quotient a shift where `j ≤ k`.
        fn masks_and_shifts_compute_the_same(k: u8, j: u8, signed: bool, equal: bool, scale: u32, offset: u32) -> bool {
            let k = 1 + u32::from(k) % 12;
            let j = 1 + u32::from(j) % k;
            let mut p = program(k, j, signed, equal, scale % 1000 + 1, offset % 5000);
            let before = outputs(&p);
            let rewritten = reduce_powers_of_two(&mut p);
            let shifted = p.walk().any(|op| matches!(op, Op::Arith { op: ArithOp::ShrS | ArithOp::ShrU, .. }));
            rewritten == 2 && shifted && outputs(&p) == before
        }
    }
}
