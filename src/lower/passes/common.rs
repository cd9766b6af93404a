//! Common values: an operation that computes what an earlier one already did — the same pure
//! operation on the same operands — goes, and its result is read from the earlier one; a
//! select whose condition is a constant, and a conjunction with `true`, go, and their result is
//! the operand they keep; an
//! integer remainder whose quotient is known is `x − q·d` (a multiply and a subtract where
//! the target has no division instruction and a remainder would repeat the whole division).
//!
//! # Worked example
//!
//! A scalar stored twice and exchanged once (`tl.store(acc, v)`, `tl.atomic_xchg(lock, 0)`,
//! `tl.store(hits + pid, 1)`): each is done by the first thread alone, and each asked for that
//! test on its own:
//!
//! ```text
//! t0 = tid & 255   z0 = 0   first0 = t0 == z0     store acc     where first0
//! t1 = tid & 255   z1 = 0   first1 = t1 == z1
//! yes = 1   both = yes ∧ first1                  xchg lock     where both
//! t2 = tid & 255   z2 = 0   first2 = t2 == z2     store hits    where first2
//! ```
//!
//! After the pass every access reads `first0` (`t1`, `z1`, `first1`, `both`, `t2`, … are
//! gone), so the three can share one branch
//! ([`form_predicated_regions`](super::form_predicated_regions)).
//!
//! # The law
//!
//! A value replaced by another holds the same bits in every thread wherever it is read: the
//! earlier operation is pure (no memory, no other thread's data), reads the same operands, and
//! dominates the later one — it comes before it in the same body or in one enclosing it (a
//! loop's body, a branch's arm, a predicated region and a while loop's first part are bodies
//! of their own; the second part sees the first's). A uniform that reads a loop's slots is
//! not merged: the slots change between iterations and where a uniform is read into them.
//! A remainder computed from its quotient is the same bits wherever the quotient is defined,
//! and where it is not (a division by zero) the quotient's own operation fails first.

use std::collections::HashMap;

use crate::lower::ir::{ArithOp, Op, Predicate, Program, Uniform, UniformInput, Value, XorMap};

/// What a pure operation computes, in terms of its operands (after renaming): two operations
/// with equal keys compute the same bits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Constant {
        width: u32,
        bits: u64,
    },
    ThreadMap {
        width: u32,
        map: XorMap,
    },
    Uniform {
        width: u32,
        value: Uniform,
    },
    Argument {
        width: u32,
        index: usize,
    },
    Compare {
        pred: Predicate,
        ty: &'static str,
        a: Value,
        b: Value,
    },
    Select {
        cond: Value,
        a: Value,
        b: Value,
    },
    Arith {
        op: ArithOp,
        ty: &'static str,
        src: Vec<Value>,
    },
    Convert {
        from: &'static str,
        to: &'static str,
        src: Value,
    },
    SelectOnThreadBit {
        bit: u32,
        one: Value,
        zero: Value,
    },
    Pack {
        parts: Vec<Value>,
    },
}

/// Merges the common values of `p` everywhere in it (loop bodies and branches too): each later
/// copy of a pure operation goes and its uses read the first; a select on a constant condition
/// and a conjunction with `true` go and their uses read the operand they keep; a remainder
/// after its quotient becomes a multiply and a subtract. Returns how many operations went.
///
/// ```
/// use linear_layout::lower::passes::common_values;
/// use linear_layout::lower::{Op, Predicate, Program, XorMap};
/// let mut p = Program::new("k", 64, 64);
/// let lanes = XorMap { cols: (0..6).map(|b| 1 << b).collect(), constant: 0 };
/// let first = p.thread_test(lanes.clone(), Predicate::Eq, 0);
/// let again = p.thread_test(lanes, Predicate::Eq, 0);
/// let (yes, both) = (p.constant(1, 1), p.value(1));
/// p.ops.push(Op::Select { dst: both, cond: yes, a: again, b: first });
/// // The second test (its map, constant and compare) and the select on `yes` go.
/// assert_eq!(common_values(&mut p), 4);
/// assert_eq!(p.ops.len(), 4);
/// ```
pub fn common_values(p: &mut Program) -> usize {
    let mut merging = Merging {
        widths: std::mem::take(&mut p.values),
        scopes: vec![HashMap::new()],
        renamed: HashMap::new(),
        constants: HashMap::new(),
        dropped: 0,
    };
    let ops = std::mem::take(&mut p.ops);
    p.ops = merging.body(ops);
    for buffer in &mut p.buffers {
        if let Some(a) = &mut buffer.address {
            *a = merging.name(*a);
        }
    }
    p.values = merging.widths;
    merging.dropped
}

struct Merging {
    /// The program's values' widths (new values are added here).
    widths: Vec<u32>,
    /// The pure operations of each open body, innermost last, by what they compute.
    scopes: Vec<HashMap<Key, Value>>,
    /// Each dropped result, and the value read in its place.
    renamed: HashMap<Value, Value>,
    /// The bits of each constant (a constant is one everywhere: no scope).
    constants: HashMap<Value, u64>,
    dropped: usize,
}

impl Merging {
    fn name(&self, v: Value) -> Value {
        self.renamed.get(&v).copied().unwrap_or(v)
    }

    fn width(&self, v: Value) -> u32 {
        self.widths.get(v.0 as usize).copied().unwrap_or(0)
    }

    /// `ops` as a body of its own: what it computes is not seen after it.
    fn body(&mut self, ops: Vec<Op>) -> Vec<Op> {
        self.scopes.push(HashMap::new());
        let kept = self.ops(ops);
        self.scopes.pop();
        kept
    }

    fn ops(&mut self, ops: Vec<Op>) -> Vec<Op> {
        let mut kept = Vec::with_capacity(ops.len());
        for mut op in ops {
            self.bodies(&mut op);
            for v in op.operands_mut() {
                *v = self.name(*v);
            }
            if let Some(result) = self.merged(&op)
                && let Some(&dst) = op.defined().first()
            {
                self.dropped += 1;
                self.renamed.insert(dst, result);
                continue;
            }
            if let Some(product) = self.remainder_from_quotient(&mut op) {
                kept.push(product);
            }
            kept.push(op);
        }
        kept
    }

    /// The operations in `op`'s bodies, each body a scope (a while loop's second part inside
    /// its first's).
    fn bodies(&mut self, op: &mut Op) {
        match op {
            Op::Loop { body, .. } => *body = self.body(std::mem::take(body)),
            Op::If { then, otherwise, .. } => {
                *then = self.body(std::mem::take(then));
                *otherwise = self.body(std::mem::take(otherwise));
            }
            Op::Predicated { ops, .. } => *ops = self.body(std::mem::take(ops)),
            Op::LdsWindow { ops, .. } => *ops = self.ops(std::mem::take(ops)),
            Op::While { before, after, .. } => {
                self.scopes.push(HashMap::new());
                *before = self.ops(std::mem::take(before));
                *after = self.body(std::mem::take(after));
                self.scopes.pop();
            }
            _ => {}
        }
    }

    /// The value `op` (renamed) computes when an earlier one has it, or when it is a select on a
    /// constant; otherwise `None`, and `op` is remembered.
    fn merged(&mut self, op: &Op) -> Option<Value> {
        if let Op::Select { cond, a, b, .. } = op
            && let Some(&bits) = self.constants.get(cond)
        {
            return Some(if bits & 1 == 1 { *a } else { *b });
        }
        if let Op::Arith {
            op: ArithOp::And,
            ty: "i1",
            src,
            ..
        } = op
            && let [x, y] = src[..]
        {
            let true_bit = |v: Value| self.constants.get(&v).is_some_and(|&b| b & 1 == 1);
            if true_bit(x) {
                return Some(y);
            }
            if true_bit(y) {
                return Some(x);
            }
        }
        let (dst, key) = self.key(op)?;
        if let Some(&earlier) = self.scopes.iter().rev().find_map(|s| s.get(&key)) {
            return Some(earlier);
        }
        if let Key::Constant { bits, .. } = key {
            self.constants.insert(dst, bits);
        }
        self.scopes.last_mut()?.insert(key, dst);
        None
    }

    /// An integer remainder `x % d` whose quotient `q = x / d` an earlier operation computed
    /// becomes `x − p`, and the product `p = q·d` it needs is returned (to go before it).
    fn remainder_from_quotient(&mut self, op: &mut Op) -> Option<Op> {
        let Op::Arith {
            op: kind,
            ty,
            dst,
            src,
        } = op
        else {
            return None;
        };
        let division = match kind {
            ArithOp::RemS => ArithOp::Div,
            ArithOp::RemU => ArithOp::DivU,
            _ => return None,
        };
        if !ty.starts_with('i') || src.len() != 2 {
            return None;
        }
        let quotient = Key::Arith {
            op: division,
            ty,
            src: src.clone(),
        };
        let q = self.scopes.iter().rev().find_map(|s| s.get(&quotient)).copied()?;
        let product = Value(u32::try_from(self.widths.len()).ok()?);
        self.widths.push(self.width(*dst));
        let multiply = Op::Arith {
            op: ArithOp::Mul,
            ty,
            dst: product,
            src: vec![q, src[1]],
        };
        *kind = ArithOp::Sub;
        src[1] = product;
        Some(multiply)
    }

    /// A pure operation's result and what it computes; `None` for any other.
    fn key(&self, op: &Op) -> Option<(Value, Key)> {
        let width_of = |v: &Value| self.width(*v);
        Some(match op {
            Op::Constant { dst, bits } => {
                let width = width_of(dst);
                let mask = if width >= 64 { u64::MAX } else { (1 << width) - 1 };
                (
                    *dst,
                    Key::Constant {
                        width,
                        bits: bits & mask,
                    },
                )
            }
            Op::ThreadMap { dst, map } => (
                *dst,
                Key::ThreadMap {
                    width: width_of(dst),
                    map: map.clone(),
                },
            ),
            Op::UniformValue { dst, value } => {
                if value
                    .inputs()
                    .any(|x| matches!(x, UniformInput::Carried(_) | UniformInput::Derived(_)))
                {
                    return None;
                }
                (
                    *dst,
                    Key::Uniform {
                        width: width_of(dst),
                        value: value.clone(),
                    },
                )
            }
            Op::Argument { dst, index } => (
                *dst,
                Key::Argument {
                    width: width_of(dst),
                    index: *index,
                },
            ),
            Op::Compare { pred, ty, dst, a, b } => (
                *dst,
                Key::Compare {
                    pred: *pred,
                    ty,
                    a: *a,
                    b: *b,
                },
            ),
            Op::Select { dst, cond, a, b } => (
                *dst,
                Key::Select {
                    cond: *cond,
                    a: *a,
                    b: *b,
                },
            ),
            Op::Arith { op, ty, dst, src } => (
                *dst,
                Key::Arith {
                    op: *op,
                    ty,
                    src: src.clone(),
                },
            ),
            Op::Convert { dst, src, from, to } if dst.len() == 1 && src.len() == 1 => (
                dst[0],
                Key::Convert {
                    from,
                    to,
                    src: src[0],
                },
            ),
            Op::SelectOnThreadBit { dst, bit, one, zero } => (
                *dst,
                Key::SelectOnThreadBit {
                    bit: *bit,
                    one: *one,
                    zero: *zero,
                },
            ),
            Op::Pack { dst, parts } => (*dst, Key::Pack { parts: parts.clone() }),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::ir::{CarriedValue, GlobalOffset, Uniform};

    fn lanes() -> XorMap {
        XorMap {
            cols: (0..6).map(|b| 1 << b).collect(),
            constant: 0,
        }
    }

    /// A two-iteration loop whose body computes the lane and carries it.
    fn loop_of_the_lanes(p: &mut Program) {
        let (phi, init, inner) = (p.value(32), p.constant(32, 0), p.value(32));
        p.ops.push(Op::Loop {
            counter: 0,
            start: Uniform::constant(0),
            end: Uniform::constant(2),
            step: Uniform::constant(1),
            uniforms: vec![],
            values: vec![CarriedValue {
                phi,
                init,
                next: inner,
            }],
            body: vec![Op::ThreadMap {
                dst: inner,
                map: lanes(),
            }],
        });
    }

    #[test]
    fn a_value_of_a_closed_body_is_not_read_after_it() {
        let mut p = Program::new("k", 64, 64);
        loop_of_the_lanes(&mut p);
        let after = p.value(32);
        p.ops.push(Op::ThreadMap {
            dst: after,
            map: lanes(),
        });
        assert_eq!(common_values(&mut p), 0);
        assert_eq!(p.ops.len(), 3);
    }

    #[test]
    fn a_body_reads_the_value_before_it_and_its_loop_carries_the_renamed_one() {
        let mut p = Program::new("k", 64, 64);
        let outer = p.value(32);
        p.ops.push(Op::ThreadMap {
            dst: outer,
            map: lanes(),
        });
        loop_of_the_lanes(&mut p);
        assert_eq!(common_values(&mut p), 1);
        let Some(Op::Loop { values, body, .. }) = p.ops.last() else {
            panic!("the loop stays last")
        };
        assert!(body.is_empty());
        assert_eq!(values[0].next, outer);
    }

    #[test]
    fn a_remainder_after_its_quotient_is_a_multiply_and_a_subtract_of_the_same_bits() {
        use crate::lower::ir::{Buffer, Extent};
        use crate::lower::run;
        let mut p = Program::new("k", 64, 64);
        p.buffers.push(Buffer {
            name: "out".into(),
            elements: Some(64),
            element_bits: 32,
            address: None,
        });
        let (x, seven, q, r) = (
            p.value(32),
            p.constant(32, (-7i64) as u64),
            p.value(32),
            p.value(32),
        );
        p.ops.push(Op::ThreadMap { dst: x, map: lanes() });
        let shifted = p.value(32);
        let thirty = p.constant(32, 30);
        p.ops.push(Op::Arith {
            op: ArithOp::Sub,
            ty: "i32",
            dst: shifted,
            src: vec![x, thirty],
        });
        p.ops.push(Op::Arith {
            op: ArithOp::Div,
            ty: "i32",
            dst: q,
            src: vec![shifted, seven],
        });
        p.ops.push(Op::Arith {
            op: ArithOp::RemS,
            ty: "i32",
            dst: r,
            src: vec![shifted, seven],
        });
        p.ops.push(Op::GlobalStore {
            src: vec![r],
            buffer: 0,
            offset: GlobalOffset {
                coords: vec![lanes()],
                strides: vec![Extent::Elements(1)],
                bounds: vec![None],
                ..GlobalOffset::default()
            },
        });
        let mut before = vec![vec![0u8; 256]];
        run(&p, &mut before).unwrap();
        common_values(&mut p);
        assert!(!p.ops.iter().any(|op| matches!(
            op,
            Op::Arith {
                op: ArithOp::RemS,
                ..
            }
        )));
        let mut after = vec![vec![0u8; 256]];
        run(&p, &mut after).unwrap();
        assert_eq!(after, before);
        // Lane 0: -30 rem -7 = -2.
        assert_eq!(&after[0][..4], &(-2i32).to_le_bytes());
    }

    #[test]
    fn a_uniform_of_a_loop_slot_is_read_anew() {
        let mut p = Program::new("k", 64, 64);
        let (a, b) = (p.value(32), p.value(32));
        let slot = Uniform::input(UniformInput::Carried(0));
        for dst in [a, b] {
            p.ops.push(Op::UniformValue {
                dst,
                value: slot.clone(),
            });
        }
        assert_eq!(common_values(&mut p), 0);
    }

    #[test]
    fn loads_are_never_merged_and_their_predicates_are_renamed() {
        let mut p = Program::new("k", 64, 64);
        p.buffers.push(crate::lower::ir::Buffer {
            name: "x".into(),
            elements: Some(64),
            element_bits: 32,
            address: None,
        });
        let first = p.thread_test(lanes(), Predicate::Eq, 0);
        let again = p.thread_test(lanes(), Predicate::Eq, 0);
        let (x, y) = (p.value(32), p.value(32));
        for (dst, predicate) in [(x, first), (y, again)] {
            p.ops.push(Op::GlobalLoad {
                dst: vec![dst],
                buffer: 0,
                offset: GlobalOffset {
                    predicate: Some(predicate),
                    ..GlobalOffset::default()
                },
                other: 0,
            });
        }
        assert_eq!(common_values(&mut p), 3);
        let predicates: Vec<_> = p
            .ops
            .iter()
            .filter_map(|op| match op {
                Op::GlobalLoad { offset, .. } => offset.predicate,
                _ => None,
            })
            .collect();
        assert_eq!(predicates, vec![first, first]);
    }
}
