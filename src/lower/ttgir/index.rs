//! Index arithmetic: tensors affine in their coordinates, and the masks that bound them.
//!
//! `tt.make_range`, `tt.splat`, `tt.expand_dims`, `tt.broadcast`, `arith.addi`/`subi`/`muli`
//! and `tt.addptr` keep a tensor as `base + constant + Σ c_d·coef[d]` ([`Sym::Affine`]), each
//! coefficient and the constant a workgroup-uniform polynomial ([`Uniform`]: constants, scalar
//! arguments, `tt.get_program_id`, `tt.get_num_programs`). Nothing of it reaches the
//! registers: a load or store turns it into its access's strides and base. A comparison of one
//! coordinate against a splat (`arith.cmpi slt`/`ult`), `andi`-ed, expanded and broadcast, is a
//! [`Sym::Mask`]: the accesses' bounds.

use super::{Lowering, Sym, fail};
use crate::lower::error::LowerError;
use crate::lower::ir::{Cmp, Condition, Derived, Uniform, UniformInput, UniformOp};
use crate::lower::plan::dist::Dist;
use crate::ttgir::{AttrValue, Constant, Op, attr};

/// The float element types a constant may have.
const FLOATS: [&str; 4] = ["f64", "f32", "f16", "bf16"];

impl Lowering<'_> {
    /// Operand `i` as an affine tensor of `rank` dimensions: (buffer of a pointer tensor,
    /// constant, coefficients). A scalar is a splat.
    pub(super) fn affine(
        &self,
        op: &Op,
        i: usize,
        rank: usize,
    ) -> Result<(Option<usize>, Uniform, Vec<Uniform>), LowerError> {
        match self.operand(op, i)? {
            Sym::Affine { base, constant, coef } => Ok((*base, constant.clone(), coef.clone())),
            Sym::Int(l) => Ok((None, l.clone(), vec![Uniform::default(); rank])),
            Sym::Ptr(b) => Ok((Some(*b), Uniform::default(), vec![Uniform::default(); rank])),
            _ => fail(op, "an index operand that is not affine in its coordinates"),
        }
    }

    /// `tt.make_range`: element `c` is `start + c`.
    pub(super) fn make_range(&mut self, op: &Op) -> Result<(), LowerError> {
        let start = match attr(&op.attrs, "start") {
            Some(AttrValue::Int(s)) => *s,
            _ => 0,
        };
        self.define(
            op,
            Sym::Affine {
                base: None,
                constant: Uniform::constant(start),
                coef: vec![Uniform::constant(1)],
            },
        )
    }

    /// `tt.get_program_id` / `tt.get_num_programs` along the op's axis.
    pub(super) fn program_id(&mut self, op: &Op) -> Result<(), LowerError> {
        let axis = match op.keyword.as_deref() {
            Some("x") => 0,
            Some("y") => 1,
            Some("z") => 2,
            _ => match attr(&op.attrs, "axis") {
                Some(AttrValue::Int(a)) if (0..3).contains(a) => *a as u8,
                _ => return fail(op, "needs an axis x, y or z"),
            },
        };
        let input = if op.name == "tt.get_program_id" {
            UniformInput::ProgramId(axis)
        } else {
            UniformInput::NumPrograms(axis)
        };
        self.define(op, Sym::Int(Uniform::input(input)))
    }

    /// An integer `arith.constant` (a splat tensor is affine with zero coefficients).
    pub(super) fn int_constant(&mut self, op: &Op, c: i64, rank: usize) -> Result<(), LowerError> {
        let sym = if rank == 0 {
            Sym::Int(Uniform::constant(c))
        } else {
            Sym::Affine {
                base: None,
                constant: Uniform::constant(c),
                coef: vec![Uniform::default(); rank],
            }
        };
        self.define(op, sym)
    }

    /// `tt.splat` of a scalar (an integer, a pointer, a constant of data, a scalar in registers).
    pub(super) fn splat(&mut self, op: &Op, rank: usize) -> Result<(), LowerError> {
        let sym = match self.operand(op, 0)? {
            Sym::Int(l) => Sym::Affine {
                base: None,
                constant: l.clone(),
                coef: vec![Uniform::default(); rank],
            },
            Sym::Ptr(b) => Sym::Affine {
                base: Some(*b),
                constant: Uniform::default(),
                coef: vec![Uniform::default(); rank],
            },
            Sym::Affine { base, constant, coef } if coef.is_empty() => Sym::Affine {
                base: *base,
                constant: constant.clone(),
                coef: vec![Uniform::default(); rank],
            },
            Sym::Splat(bits) => Sym::Splat(*bits),
            Sym::Cond(c) => Sym::Mask {
                bounds: vec![None; rank],
                when: vec![c.clone()],
            },
            // A scalar in registers (a loop's running sum, a loaded value): every register of
            // the tensor is that register.
            Sym::Lanes(_) | Sym::Data { .. } if self.scalar_register(op)?.is_some() => {
                let v = self
                    .scalar_register(op)?
                    .ok_or_else(|| LowerError::new("a scalar register"))?;
                let layout = self.layout(op, op.results[0])?;
                let registers = Dist::of(&layout, self.target.wave_size)?.registers();
                Sym::Data {
                    layout: Box::new(layout),
                    values: vec![v; registers],
                }
            }
            other => {
                return fail(
                    op,
                    format!(
                        "splats {}, not a scalar argument, a constant or a scalar in registers",
                        other.kind()
                    ),
                );
            }
        };
        self.define(op, sym)
    }

    /// The one register of `op`'s first operand where it is a scalar in registers (rank 0).
    fn scalar_register(&self, op: &Op) -> Result<Option<crate::lower::ir::Value>, LowerError> {
        Ok(match self.operand(op, 0)? {
            Sym::Lanes(v) => Some(*v),
            Sym::Data { layout, values } if layout.num_out_dims() == 0 && values.len() == 1 => {
                Some(values[0])
            }
            _ => None,
        })
    }

    /// `tt.expand_dims` of an index tensor or a mask (data: [`Lowering::regather`]).
    pub(super) fn expand_index(&mut self, op: &Op, axis: usize, rank: usize) -> Result<(), LowerError> {
        if let Sym::Mask { bounds, when } = self.operand(op, 0)? {
            let (mut b, when) = (bounds.clone(), when.clone());
            if axis > b.len() {
                return fail(op, "the axis lies beyond the operand's dimensions");
            }
            b.insert(axis, None);
            return self.define(op, Sym::Mask { bounds: b, when });
        }
        let (base, constant, mut coef) = self.affine(op, 0, rank.saturating_sub(1))?;
        if axis > coef.len() {
            return fail(op, "the axis lies beyond the operand's dimensions");
        }
        coef.insert(axis, Uniform::default());
        self.define(op, Sym::Affine { base, constant, coef })
    }

    /// `arith.addi` / `subi` / `muli` / `tt.addptr` of index tensors or scalars.
    pub(super) fn index_arith(&mut self, op: &Op, rank: usize) -> Result<(), LowerError> {
        let (b0, c0, k0) = self.affine(op, 0, rank)?;
        let (b1, c1, k1) = self.affine(op, 1, rank)?;
        if k0.len() != k1.len() {
            return fail(op, "operands of different ranks");
        }
        // Uniforms are 32-bit: 64-bit integers computed from a 64-bit argument, whose high
        // bits they would drop, are computed in registers.
        if self.m.values[op.results[0]].ty.element == "i64"
            && [&c0, &c1]
                .into_iter()
                .chain(&k0)
                .chain(&k1)
                .any(|u| self.reads_wide_argument(u))
        {
            return fail(op, "64-bit arithmetic on a 64-bit argument");
        }
        let (base, constant, coef) = match op.name.as_str() {
            "arith.muli" => {
                if b0.is_some() || b1.is_some() {
                    return fail(op, "a product of pointers");
                }
                // (a + Σ x·k)(b + Σ x·l) is affine when one side is a splat.
                let coef = if k0.iter().all(Uniform::is_zero) {
                    k1.iter().map(|k| c0.mul(k)).collect()
                } else if k1.iter().all(Uniform::is_zero) {
                    k0.iter().map(|k| k.mul(&c1)).collect()
                } else {
                    return fail(op, "a product that is not affine in the coordinates");
                };
                (None, c0.mul(&c1), coef)
            }
            name => {
                let sign = if name == "arith.subi" { -1 } else { 1 };
                if b1.is_some() || (b0.is_some() && sign < 0) {
                    return fail(op, "pointer arithmetic other than pointer + offset");
                }
                let coef = k0.iter().zip(&k1).map(|(a, b)| a.add(b, sign)).collect();
                (b0, c0.add(&c1, sign), coef)
            }
        };
        let sym = if rank == 0 && base.is_none() {
            Sym::Int(constant)
        } else {
            Sym::Affine { base, constant, coef }
        };
        self.define(op, sym)
    }

    /// `arith.cmpi slt`/`ult` of one coordinate against a splat: a bound on that coordinate;
    /// a signed comparison of two uniforms: a condition.
    pub(super) fn compare(&mut self, op: &Op, rank: usize) -> Result<(), LowerError> {
        let predicate = op.keyword.as_deref().unwrap_or("");
        if rank == 0 {
            let cmp = match predicate {
                "slt" => Cmp::Lt,
                "sle" => Cmp::Le,
                "sgt" => Cmp::Gt,
                "sge" => Cmp::Ge,
                "eq" => Cmp::Eq,
                "ne" => Cmp::Ne,
                _ => {
                    return fail(
                        op,
                        format!("scalar comparisons `{predicate}` are not lowered yet"),
                    );
                }
            };
            let (Sym::Int(lhs), Sym::Int(rhs)) = (self.operand(op, 0)?, self.operand(op, 1)?) else {
                return fail(op, "compares values that are not uniform integers");
            };
            // Uniforms compare in 32 bits: a 64-bit argument's high bits are compared in
            // registers.
            if [lhs, rhs].iter().any(|u| self.reads_wide_argument(u)) {
                return fail(op, "compares a 64-bit argument");
            }
            let (mut lhs, mut rhs) = (lhs.clone(), rhs.clone());
            if matches!(cmp, Cmp::Eq | Cmp::Ne) {
                if rhs.as_constant() == Some(0) {
                    lhs = self.remainder_as_mask(lhs)?;
                } else if lhs.as_constant() == Some(0) {
                    rhs = self.remainder_as_mask(rhs)?;
                }
            }
            return self.define(op, Sym::Cond(Condition { lhs, cmp, rhs }));
        }
        if !["slt", "ult"].contains(&predicate) {
            return fail(
                op,
                format!("comparisons `{predicate}` are not lowered yet (masks: slt, ult)"),
            );
        }
        let (b0, c0, k0) = self.affine(op, 0, rank)?;
        let (b1, c1, k1) = self.affine(op, 1, rank)?;
        // coordinate_d + c0 < n  ⇔  coordinate_d < n − c0.
        let dims: Vec<usize> = (0..k0.len()).filter(|&d| !k0[d].is_zero()).collect();
        let (true, [d], true) = (
            b0.is_none() && b1.is_none(),
            dims.as_slice(),
            k1.iter().all(Uniform::is_zero),
        ) else {
            return fail(
                op,
                "a comparison that does not bound one coordinate by a splat is not lowered yet",
            );
        };
        let bound = c1.add(&c0, -1).extent();
        let (true, Some(bound)) = (k0[*d] == Uniform::constant(1), bound) else {
            return fail(
                op,
                "a bound that is not a constant or an argument is not lowered yet",
            );
        };
        if k0.len() != rank {
            return fail(op, "the compared values have another rank than the result");
        }
        let mut b = vec![None; rank];
        b[*d] = Some(bound);
        self.define(
            op,
            Sym::Mask {
                bounds: b,
                when: Vec::new(),
            },
        )
    }

    /// `arith.andi` of masks: both bounds.
    pub(super) fn and_masks(&mut self, op: &Op) -> Result<(), LowerError> {
        let (Sym::Mask { bounds: a, when: wa }, Sym::Mask { bounds: b, when: wb }) =
            (self.operand(op, 0)?, self.operand(op, 1)?)
        else {
            return fail(op, "integer `andi` other than of masks is not lowered yet");
        };
        let when: Vec<Condition> = wa.iter().chain(wb).cloned().collect();
        let merged = a
            .iter()
            .zip(b)
            .map(|(x, y)| match (x, y) {
                (None, y) => Some(*y),
                (x, None) => Some(*x),
                (Some(x), Some(y)) if x == y => Some(Some(*x)),
                _ => None,
            })
            .collect::<Option<Vec<_>>>();
        let Some(merged) = merged else {
            return fail(op, "two different bounds on one coordinate are not lowered yet");
        };
        self.define(op, Sym::Mask { bounds: merged, when })
    }

    /// `x % 2^k`, compared with zero, as `x & (2^k − 1)`: a remainder by a power of two is
    /// zero exactly when those low bits are, signed or not — one instruction where the signed
    /// remainder takes four.
    fn remainder_as_mask(&mut self, u: Uniform) -> Result<Uniform, LowerError> {
        if let [(1, inputs)] = u.terms.as_slice()
            && let [UniformInput::Derived(k)] = inputs.as_slice()
            && let Some(Derived::Binary {
                op: UniformOp::RemS | UniformOp::RemU,
                a,
                b,
            }) = self.p.derived.get(*k as usize)
            && let Some(c) = b.as_constant()
            && c > 0
            && (c as u64).is_power_of_two()
        {
            let d = Derived::Binary {
                op: UniformOp::And,
                a: a.clone(),
                b: Uniform::constant(c - 1),
            };
            return self.new_derived(d);
        }
        Ok(u)
    }

    /// Whether `u` reads a 64-bit integer argument, whose high bits a uniform (32 bits) drops.
    pub(super) fn reads_wide_argument(&self, u: &Uniform) -> bool {
        u.terms.iter().flat_map(|(_, inputs)| inputs).any(|x| {
            matches!(x, UniformInput::Argument(i) if self.p.scalars.get(*i).is_some_and(|s| s.ty == "i64"))
        })
    }

    /// `ub.poison`: a value no path reads before it is overwritten (the loop nest fusion
    /// starts what crosses from one piece of the old outer body to the next as poison). Any
    /// value refines poison: zero, or a pointer to the start of an argument buffer of the
    /// same elements.
    pub(super) fn poison(&mut self, op: &Op, rank: usize) -> Result<(), LowerError> {
        let r = op.results[0];
        let Some(bits) = self.m.values[r].ty.pointee_bits() else {
            if FLOATS.contains(&self.m.values[r].ty.element.as_str()) {
                return self.define(op, Sym::Splat(0));
            }
            return self.int_constant(op, 0, rank);
        };
        let arguments = || self.p.buffers.iter().enumerate().filter(|(_, b)| b.is_argument());
        let Some(buffer) = arguments()
            .find(|(_, b)| b.element_bits == bits.max(8))
            .or_else(|| arguments().next())
            .map(|(k, _)| k)
        else {
            return fail(op, "a poison pointer in a kernel without pointer arguments");
        };
        let sym = if rank == 0 {
            Sym::Ptr(buffer)
        } else {
            Sym::Affine {
                base: Some(buffer),
                constant: Uniform::default(),
                coef: vec![Uniform::default(); rank],
            }
        };
        self.define(op, sym)
    }

    /// An `arith.constant`: integers are index values, floats a splat of data.
    pub(super) fn constant(&mut self, op: &Op, rank: usize) -> Result<(), LowerError> {
        let r = op.results[0];
        let element = self.m.values[r].ty.element.clone();
        let float = FLOATS.contains(&element.as_str());
        match (&op.constant, float) {
            (Some(Constant::Int(c)), false) => self.int_constant(op, *c, rank),
            // A float written in hex (`0xFF800000`, −∞) is its bit pattern.
            (Some(Constant::Int(c)), true) => {
                let bits = *c as u64 & self.element_mask(op, r)?;
                self.define(op, Sym::Splat(bits))
            }
            (Some(Constant::Float(f)), true) => match crate::lower::ir::numeric::encode(&element, *f) {
                Some(bits) => self.define(op, Sym::Splat(bits)),
                None => fail(op, format!("{f} is not a {element}")),
            },
            _ => fail(op, "only integer and float splat constants are lowered"),
        }
    }
}
