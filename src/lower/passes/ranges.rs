//! Value ranges: the interval of signed integers each integer value of a program can hold, from
//! its constants, thread ids and the arithmetic between them, and what the intervals settle.
//!
//! # Worked example
//!
//! A binary search over a sorted row of 64 (`searchsorted`, the loop unrolled):
//!
//! ```text
//! lo = 0, hi = 64
//! mid = (lo + hi) / 2          mid ∈ [32, 32]
//! v = load(row + mid, mask = mid < 64)       the mask: always true
//! lo = v < q ? mid + 1 : lo    lo ∈ [0, 33]
//! hi = v < q ? hi : mid        hi ∈ [32, 64]
//! mid = (lo + hi) / 2          lo + hi ∈ [32, 97]: never negative — an unsigned division
//! ...                          (a shift), and mid ∈ [16, 48] < 64 again
//! ```
//!
//! Every step's mask is always true, so the loads lose their predicates (no select to the
//! masked lanes' offset, no select of `other`), and `/ 2` of a value never negative is a
//! shift — no sign correction.
//!
//! # The law
//!
//! An interval holds every value its value takes in every thread of every launch: each
//! operation's interval is computed exactly from its operands' (in 128-bit integers), and an
//! operation whose result could wrap around its width gets none. A rewrite happens only where
//! the intervals decide it, so the program computes the same bits.
//!
//! What the pass does not know it leaves: loaded values, arguments, values a loop carries, the
//! results of branches.

use crate::lower::ir::{ArithOp, GlobalOffset, Op, Predicate, Program, Value};

/// The signed integers a value can hold, `lo ..= hi`.
///
/// ```
/// use linear_layout::lower::passes::Range;
/// let r = Range { lo: 0, hi: 33 };
/// assert!(r.non_negative());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    /// The least value.
    pub lo: i128,
    /// The greatest value.
    pub hi: i128,
}

impl Range {
    fn point(x: i128) -> Range {
        Range { lo: x, hi: x }
    }

    /// Whether no value is negative.
    pub fn non_negative(self) -> bool {
        self.lo >= 0
    }

    fn union(self, o: Range) -> Range {
        Range {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    /// `self`, if it fits a signed integer of `bits` bits (else the operation may wrap).
    fn within(self, bits: u32) -> Option<Range> {
        let half = 1i128 << (bits - 1);
        (self.lo >= -half && self.hi < half).then_some(self)
    }
}

/// Folds what the value ranges of `p` decide, everywhere in it (loop bodies and branches too):
/// compares always true or always false and arithmetic of one value become constants, signed
/// divisions, remainders and right shifts of values never negative by positive ones become
/// unsigned, and a global access's predicate that always holds is dropped. Returns how many
/// rewrites it made.
///
/// ```
/// use linear_layout::lower::passes::fold_ranges;
/// use linear_layout::lower::{ArithOp, Op, Predicate, Program, XorMap};
/// let mut p = Program::new("k", 64, 64);
/// // a = the lane (0 ..= 63), b = 34: a + b ∈ [34, 97], (a + b) / 2 ∈ [17, 48].
/// let (a, b) = (p.value(32), p.constant(32, 34));
/// p.ops.push(Op::ThreadMap { dst: a, map: XorMap { cols: (0..6).map(|k| 1 << k).collect(), constant: 0 } });
/// let (sum, two, half, bound, below) = (p.value(32), p.constant(32, 2), p.value(32), p.constant(32, 64), p.value(1));
/// p.ops.push(Op::Arith { op: ArithOp::Add, ty: "i32", dst: sum, src: vec![a, b] });
/// p.ops.push(Op::Arith { op: ArithOp::Div, ty: "i32", dst: half, src: vec![sum, two] });
/// p.ops.push(Op::Compare { pred: Predicate::Slt, ty: "i32", dst: below, a: half, b: bound });
/// assert_eq!(fold_ranges(&mut p), 2);
/// assert!(matches!(p.ops.last(), Some(Op::Constant { bits: 1, .. })));
/// ```
pub fn fold_ranges(p: &mut Program) -> usize {
    let mut ops = std::mem::take(&mut p.ops);
    let mut folding = Folding {
        ranges: vec![None; p.values.len()],
        rewrites: 0,
    };
    folding.ops(p, &mut ops);
    p.ops = ops;
    folding.rewrites
}

struct Folding {
    ranges: Vec<Option<Range>>,
    rewrites: usize,
}

/// An integer type's width, for the types whose values the pass follows.
fn int_bits(ty: &str) -> Option<u32> {
    match ty {
        "i8" => Some(8),
        "i16" => Some(16),
        "i32" => Some(32),
        "i64" => Some(64),
        _ => None,
    }
}

impl Folding {
    fn range(&self, v: Value) -> Option<Range> {
        self.ranges.get(v.0 as usize).copied().flatten()
    }

    fn set(&mut self, v: Value, r: Option<Range>) {
        if let Some(slot) = self.ranges.get_mut(v.0 as usize) {
            *slot = r;
        }
    }

    fn ops(&mut self, p: &Program, ops: &mut [Op]) {
        for op in ops {
            self.op(p, op);
        }
    }

    fn op(&mut self, p: &Program, op: &mut Op) {
        match op {
            Op::Constant { dst, bits } => {
                let x = match p.value_bits(*dst) {
                    1 => i128::from(*bits & 1),
                    w if w >= 64 => i128::from(*bits as i64),
                    // The low `w` bits, sign-extended.
                    w => i128::from(((*bits << (64 - w)) as i64) >> (64 - w)),
                };
                self.set(*dst, Some(Range::point(x)));
            }
            Op::UniformValue { dst, value } => {
                let w = p.value_bits(*dst);
                let r = value.as_constant().map(|c| Range::point(i128::from(c)));
                self.set(*dst, r.and_then(|r| r.within(w)));
            }
            Op::ThreadMap { dst, map } => {
                // Its bits are some of the columns' and the constant's: no more than their or,
                // and no less than the constant's bits no column can clear.
                let w = p.value_bits(*dst);
                let columns = map.cols.iter().fold(0, |m, &c| m | c);
                let r = Range {
                    lo: i128::from(map.constant & !columns),
                    hi: i128::from(map.constant | columns),
                };
                self.set(*dst, if w >= 32 { r.within(w) } else { None });
            }
            Op::Arith { op: a, ty, dst, src } => {
                let r = int_bits(ty)
                    .and_then(|bits| self.arith(a, bits, src).map(|r| (r, bits)))
                    .and_then(|(r, bits)| r.within(bits));
                self.set(*dst, r);
                // One number in every thread: a constant (`x * 0 + 33`, a splat the source
                // wrote as arithmetic).
                if let Some(Range { lo, hi }) = r
                    && lo == hi
                {
                    self.rewrites += 1;
                    *op = Op::Constant {
                        dst: *dst,
                        bits: lo as i64 as u64,
                    };
                }
            }
            Op::Select { dst, cond, a, b } => {
                let r = match self.range(*cond) {
                    Some(Range { lo: 1, hi: 1 }) => self.range(*a),
                    Some(Range { lo: 0, hi: 0 }) => self.range(*b),
                    _ => self.range(*a).zip(self.range(*b)).map(|(x, y)| x.union(y)),
                };
                self.set(*dst, r);
            }
            Op::Compare { pred, ty, dst, a, b } => {
                let decided = int_bits(ty)
                    .and(self.range(*a).zip(self.range(*b)))
                    .and_then(|(x, y)| decide(*pred, x, y));
                match decided {
                    Some(holds) => {
                        self.rewrites += 1;
                        let bits = u64::from(holds);
                        self.set(*dst, Some(Range::point(i128::from(bits))));
                        *op = Op::Constant { dst: *dst, bits };
                    }
                    None => self.set(*dst, Some(Range { lo: 0, hi: 1 })),
                }
            }
            Op::GlobalLoad { offset, .. }
            | Op::GlobalStore { offset, .. }
            | Op::GlobalLoadToLds { offset, .. }
            | Op::GlobalAtomic { offset, .. } => self.drop_true_predicate(offset),
            Op::Loop { body, .. } => self.ops(p, body),
            Op::If { then, otherwise, .. } => {
                self.ops(p, then);
                self.ops(p, otherwise);
            }
            Op::LdsWindow { ops, .. } | Op::Predicated { ops, .. } => self.ops(p, ops),
            Op::While { before, after, .. } => {
                self.ops(p, before);
                self.ops(p, after);
            }
            _ => {}
        }
    }

    /// The interval of `op(src…)` on `bits`-bit integers, before any wrap; a signed division,
    /// remainder or shift whose operands are never negative becomes the unsigned one.
    fn arith(&mut self, op: &mut ArithOp, bits: u32, src: &[Value]) -> Option<Range> {
        let y = src.get(1).and_then(|&v| self.range(v));
        let zero = Some(Range::point(0));
        if *op == ArithOp::Mul && (y == zero || self.range(*src.first()?) == zero) {
            return zero;
        }
        let x = self.range(*src.first()?)?;
        let corners = |f: &dyn Fn(i128, i128) -> i128, y: Range| {
            let c = [f(x.lo, y.lo), f(x.lo, y.hi), f(x.hi, y.lo), f(x.hi, y.hi)];
            Range {
                lo: *c.iter().min().unwrap_or(&0),
                hi: *c.iter().max().unwrap_or(&0),
            }
        };
        let unsigned_form = match op {
            ArithOp::Div => Some(ArithOp::DivU),
            ArithOp::RemS => Some(ArithOp::RemU),
            ArithOp::ShrS => Some(ArithOp::ShrU),
            _ => None,
        };
        if let (Some(u), Some(y)) = (unsigned_form, y)
            && x.non_negative()
            && y.lo > 0
        {
            *op = u;
            self.rewrites += 1;
        }
        let y_positive = y.filter(|y| y.lo > 0);
        match *op {
            ArithOp::Add => Some(corners(&|a, b| a + b, y?)),
            ArithOp::Sub => Some(corners(&|a, b| a - b, y?)),
            ArithOp::Mul => Some(corners(&|a, b| a * b, y?)),
            ArithOp::Max => y.map(|y| Range {
                lo: x.lo.max(y.lo),
                hi: x.hi.max(y.hi),
            }),
            ArithOp::Min => y.map(|y| Range {
                lo: x.lo.min(y.lo),
                hi: x.hi.min(y.hi),
            }),
            // Of values never negative by positive ones (the unsigned forms above).
            ArithOp::DivU if x.non_negative() => y_positive.map(|y| Range {
                lo: x.lo / y.hi,
                hi: x.hi / y.lo,
            }),
            ArithOp::RemU if x.non_negative() => y_positive.map(|y| Range {
                lo: 0,
                hi: x.hi.min(y.hi - 1),
            }),
            ArithOp::ShrU if x.non_negative() => {
                y.filter(|y| y.lo >= 0 && y.hi < i128::from(bits)).map(|y| Range {
                    lo: x.lo >> y.hi,
                    hi: x.hi >> y.lo,
                })
            }
            ArithOp::And if x.non_negative() => Some(Range {
                lo: 0,
                hi: y.filter(|y| y.non_negative()).map_or(x.hi, |y| x.hi.min(y.hi)),
            }),
            _ => None,
        }
    }

    /// A global access's predicate that holds in every thread goes: the access is masked by
    /// its offset's own bounds alone.
    fn drop_true_predicate(&mut self, offset: &mut GlobalOffset) {
        if offset
            .predicate
            .is_some_and(|v| self.range(v) == Some(Range::point(1)))
        {
            offset.predicate = None;
            self.rewrites += 1;
        }
    }
}

/// Whether `a pred b` holds for every pair of the intervals (`Some(true)`), for none
/// (`Some(false)`), or depends on the values (`None`). Unsigned predicates decide only
/// where both intervals are never negative (there they order as the signed ones do).
fn decide(pred: Predicate, a: Range, b: Range) -> Option<bool> {
    let unsigned = matches!(
        pred,
        Predicate::Ult | Predicate::Ule | Predicate::Ugt | Predicate::Uge
    );
    if unsigned && !(a.non_negative() && b.non_negative()) {
        return None;
    }
    // `a < b` decided: Some(true) if always, Some(false) if never.
    let less = |a: Range, b: Range| {
        if a.hi < b.lo {
            Some(true)
        } else if a.lo >= b.hi {
            Some(false)
        } else {
            None
        }
    };
    let equal = if a.hi < b.lo || b.hi < a.lo {
        Some(false)
    } else if a.lo == a.hi && a == b {
        Some(true)
    } else {
        None
    };
    match pred {
        Predicate::Slt | Predicate::Ult => less(a, b),
        Predicate::Sgt | Predicate::Ugt => less(b, a),
        Predicate::Sge | Predicate::Uge => less(a, b).map(|l| !l),
        Predicate::Sle | Predicate::Ule => less(b, a).map(|l| !l),
        Predicate::Eq => equal,
        Predicate::Ne => equal.map(|e| !e),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::ir::XorMap;
    use quickcheck::quickcheck;

    quickcheck! {
        /// A decided compare agrees with every pair of values in the intervals.
        fn decided_compares_hold_for_every_pair(a0: i8, a1: i8, b0: i8, b1: i8, which: u8) -> bool {
            let preds = [Predicate::Slt, Predicate::Sle, Predicate::Sgt, Predicate::Sge, Predicate::Eq,
                Predicate::Ne, Predicate::Ult, Predicate::Ule, Predicate::Ugt, Predicate::Uge];
            let pred = preds[usize::from(which) % preds.len()];
            let a = Range { lo: i128::from(a0.min(a1)), hi: i128::from(a0.max(a1)) };
            let b = Range { lo: i128::from(b0.min(b1)), hi: i128::from(b0.max(b1)) };
            let Some(holds) = decide(pred, a, b) else { return true };
            (a.lo..=a.hi).all(|x| (b.lo..=b.hi).all(|y| {
                let (ux, uy) = (x as i8 as u8, y as i8 as u8);
                let truth = match pred {
                    Predicate::Slt => x < y, Predicate::Sle => x <= y, Predicate::Sgt => x > y,
                    Predicate::Sge => x >= y, Predicate::Eq => x == y, Predicate::Ne => x != y,
                    Predicate::Ult => ux < uy, Predicate::Ule => ux <= uy, Predicate::Ugt => ux > uy,
                    _ => ux >= uy,
                };
                truth == holds
            }))
        }
    }

    #[test]
    fn a_thread_map_reaches_the_or_of_its_columns() {
        let mut p = Program::new("k", 64, 256);
        let (t, bound, below) = (p.value(32), p.constant(32, 256), p.value(1));
        p.ops.push(Op::ThreadMap {
            dst: t,
            map: XorMap {
                cols: vec![4, 8, 16, 32, 64, 128, 0, 0],
                constant: 1,
            },
        });
        p.ops.push(Op::Compare {
            pred: Predicate::Slt,
            ty: "i32",
            dst: below,
            a: t,
            b: bound,
        });
        assert_eq!(fold_ranges(&mut p), 1);
        assert!(matches!(p.ops[2], Op::Constant { bits: 1, .. }));
    }

    /// An argmax's row indices in one thread: the warp's rows `w` and `w | 8` (8 above every
    /// column's reach) never meet, so their compare is decided.
    #[test]
    fn a_thread_map_is_at_least_the_constant_bits_no_column_clears() {
        let mut p = Program::new("k", 64, 512);
        let (low, high, below) = (p.value(32), p.value(32), p.value(1));
        for (dst, constant) in [(low, 0), (high, 8)] {
            p.ops.push(Op::ThreadMap {
                dst,
                map: XorMap {
                    cols: vec![0, 0, 0, 0, 0, 0, 1, 2, 4],
                    constant,
                },
            });
        }
        p.ops.push(Op::Compare {
            pred: Predicate::Slt,
            ty: "i32",
            dst: below,
            a: low,
            b: high,
        });
        assert_eq!(fold_ranges(&mut p), 1);
        assert!(matches!(p.ops[2], Op::Constant { bits: 1, .. }));
    }

    #[test]
    fn a_sum_that_may_wrap_decides_nothing() {
        let mut p = Program::new("k", 64, 64);
        let (big, one, sum, zero, positive) = (
            p.constant(32, 0x7fff_ffff),
            p.constant(32, 1),
            p.value(32),
            p.constant(32, 0),
            p.value(1),
        );
        p.ops.push(Op::Arith {
            op: ArithOp::Add,
            ty: "i32",
            dst: sum,
            src: vec![big, one],
        });
        p.ops.push(Op::Compare {
            pred: Predicate::Sgt,
            ty: "i32",
            dst: positive,
            a: sum,
            b: zero,
        });
        assert_eq!(fold_ranges(&mut p), 0);
    }

    #[test]
    fn a_remainder_of_a_value_that_may_be_negative_stays_signed() {
        let mut p = Program::new("k", 64, 64);
        let (a, b, lane, zero, cond) = (
            p.constant(32, (-3i64) as u64),
            p.constant(32, 5),
            p.value(32),
            p.constant(32, 0),
            p.value(1),
        );
        let (x, four, r) = (p.value(32), p.constant(32, 4), p.value(32));
        p.ops.push(Op::ThreadMap {
            dst: lane,
            map: XorMap {
                cols: vec![1],
                constant: 0,
            },
        });
        p.ops.push(Op::Compare {
            pred: Predicate::Ne,
            ty: "i32",
            dst: cond,
            a: lane,
            b: zero,
        });
        p.ops.push(Op::Select { dst: x, cond, a, b });
        p.ops.push(Op::Arith {
            op: ArithOp::RemS,
            ty: "i32",
            dst: r,
            src: vec![x, four],
        });
        fold_ranges(&mut p);
        assert!(matches!(
            p.ops.last(),
            Some(Op::Arith {
                op: ArithOp::RemS,
                ..
            })
        ));
    }
}
