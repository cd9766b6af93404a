//! Every value in registers: the general lowering behind the symbolic fast paths.
//!
//! Index tensors, splat constants and coordinate masks are kept symbolic ([`Sym::Affine`],
//! [`Sym::Splat`], [`Sym::Mask`]) because the accesses that read them need no register for
//! them. When an op needs one as data — an index that is `xori`-ed, compared with something
//! other than a bound, stored, selected — it is materialised here, register by register, from
//! the value's own layout: register `r` of thread `t` holds element `L(r, t)`, whose coordinate
//! along dimension `d` is an [`XorMap`] of the thread id ([`Op::ThreadMap`](ProgramOp::ThreadMap)),
//! and the affine formula `u + Σ c_d·k_d` is then ordinary arithmetic with the uniforms in
//! registers ([`Op::UniformValue`](ProgramOp::UniformValue)). A mask becomes one predicate
//! (1 bit) per register: each bound a comparison, each uniform condition too, all of them
//! and-ed. Nothing is refused because it left the affine world.
//!
//! # Worked example
//!
//! `offs = pid * 64 + arange(0, 64)` in a layout of one element per lane is affine
//! (`u = 64·pid`, `k₀ = 1`). Stored as data (`tl.store(out + offs, offs)`), each lane computes
//! `64·pid + lane` — its coordinate (`ThreadMap` of the lane bits) plus the uniform:
//!
//! ```
//! use linear_layout::lower::{run_launch, ttgir_kernel, Launch};
//! use linear_layout::target::Target;
//! use linear_layout::ttgir::Module;
//! let text = r#"
//! #l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
//! module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
//!   tt.func public @ids(%out: !tt.ptr<i32>) {
//!     %c64 = arith.constant 64 : i32
//!     %pid = tt.get_program_id x : i32
//!     %base = arith.muli %pid, %c64 : i32
//!     %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
//!     %b = tt.splat %base : i32 -> tensor<64xi32, #l>
//!     %offs = arith.addi %b, %r : tensor<64xi32, #l>
//!     %p = tt.splat %out : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
//!     %q = tt.addptr %p, %offs : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
//!     tt.store %q, %offs : tensor<64x!tt.ptr<i32>, #l>
//!     tt.return
//!   }
//! }"#;
//! let k = ttgir_kernel(&Module::parse(text)?, Target::by_name("gfx942")?)?;
//! let mut out = vec![vec![0u8; 128 * 4]];
//! run_launch(&k.program, &mut out, &Launch { scalars: vec![], workgroup: [1, 0, 0], grid: [2, 1, 1] })?;
//! let word = |i: usize| u32::from_le_bytes(out[0][4 * i..4 * i + 4].try_into().unwrap());
//! assert_eq!((word(64), word(100)), (64, 100));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{Lowering, Sym, fail};
use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::{
    ArithOp, Cmp, Condition, Extent, Op as ProgramOp, Predicate, Uniform, UniformInput, Value, XorMap,
};
use crate::lower::plan::dist::{Addressing, Dist};
use crate::ttgir::{Op, op_place};

/// The comparison of a uniform [`Condition`] as a per-thread [`Predicate`].
fn predicate_of(cmp: Cmp) -> Predicate {
    match cmp {
        Cmp::Lt => Predicate::Slt,
        Cmp::Le => Predicate::Sle,
        Cmp::Gt => Predicate::Sgt,
        Cmp::Ge => Predicate::Sge,
        Cmp::Eq => Predicate::Eq,
        Cmp::Ne => Predicate::Ne,
    }
}

/// An affine index tensor `constant + Σ c_d·coef[d]` the program holds in registers of
/// `layout` (32-bit): what a mask compared, and what an access at the same offsets shifts to
/// bytes instead of computing its offset again.
pub(super) struct HeldIndex {
    constant: Uniform,
    coef: Vec<Uniform>,
    layout: LinearLayout,
    /// `layout` flattened (what [`rows_in`] matches coordinates by).
    dist: Dist,
    pub(super) values: Vec<Value>,
}

/// Per register of `access`, the register of the held index `h` whose coordinate `from` is the
/// access element's coordinate `dim` in every thread — `rows` (shape `BM`, or `BM × 1`) for a
/// `BM × BN` access: the threads must own the two alike.
fn rows_in(h: &HeldIndex, from: usize, access: &Dist, dim: usize) -> Option<Vec<Value>> {
    let held = &h.dist;
    if held.thread.len() != access.thread.len()
        || held
            .thread
            .iter()
            .zip(&access.thread)
            .any(|(&a, &b)| held.coord(a, from) != access.coord(b, dim))
    {
        return None;
    }
    (0..access.registers())
        .map(|r| {
            let want = access.coord(access.reg_position(r), dim);
            let q = (0..held.registers()).find(|&q| held.coord(held.reg_position(q), from) == want)?;
            h.values.get(q).copied()
        })
        .collect()
}

impl Lowering<'_> {
    /// Per register of `layout`, the element offset `base + Σ c_d·strides[d]` of an access of
    /// `vector` elements per instruction, if the program holds it (see [`HeldIndex`]) and
    /// taking it saves code: a base that is no constant (its scalar code), and accesses of one
    /// element (each needs an offset of its own; a vector's is one shift either way, and the
    /// held register would only lengthen its dependence chain).
    ///
    /// A base that changes in a loop is a scalar add per iteration beside a thread part
    /// computed once, where a held index costs a shift per register per iteration: the held
    /// one is taken only where the thread holds one register. There the two cost the same,
    /// and the held one leaves the loop's scalar condition free to be computed early — the
    /// scalar add of a moving `soffset` comes after the iteration's last access and
    /// overwrites the condition code, so the loop's compare must wait for it, and the
    /// compare's own hazard with the first masked select then costs a wait state (a
    /// grid-stride loop: 13 instructions per iteration with `soffset`, 12 held, as Triton's).
    fn held_offsets(
        &self,
        addressing: &Addressing,
        layout: &LinearLayout,
        vector: usize,
    ) -> Option<Vec<Value>> {
        let in_loop = addressing
            .base
            .inputs()
            .any(|x| matches!(x, UniformInput::Carried(_) | UniformInput::Derived(_)));
        if addressing.base.as_constant().is_some() || vector != 1 {
            return None;
        }
        self.held
            .iter()
            .rev()
            .find(|h| {
                h.constant == addressing.base
                    && h.layout == *layout
                    && h.coef.len() == addressing.strides.len()
                    && h.coef
                        .iter()
                        .zip(&addressing.strides)
                        .all(|(k, s)| k.extent() == Some(*s))
            })
            .filter(|h| !in_loop || h.values.len() == 1)
            .map(|h| h.values.clone())
    }

    /// The held row (see [`HeldRow`](crate::lower::ir::HeldRow)) an access at `addressing` in
    /// `layout` takes one dimension's part from, where its offset is not held whole: a held
    /// index `start + c` of one coordinate alone (`rows` that `rows < M` or `rows[:, None] <
    /// M` compared) whose threads own that coordinate as the access's threads own one of its
    /// dimensions, where that dimension's stride is an argument and the access's base holds
    /// `start · stride` — one product per register in place of the coordinate's product and
    /// the scalar code of the uniform part. Outside loops whose base moves: there a uniform
    /// add per iteration beside a thread part computed once is what the loop keeps.
    fn held_row(&self, addressing: &Addressing, access: &Dist) -> Option<(usize, Uniform, Vec<Value>)> {
        let in_loop = addressing
            .base
            .inputs()
            .any(|x| matches!(x, UniformInput::Carried(_) | UniformInput::Derived(_)));
        if addressing.held.is_some() || in_loop {
            return None;
        }
        self.held.iter().rev().find_map(|h| {
            let mut varying = h.coef.iter().enumerate().filter(|(_, c)| !c.is_zero());
            let (from, coef) = varying.next()?;
            if varying.next().is_some() || coef.as_constant() != Some(1) {
                return None;
            }
            (0..addressing.strides.len()).find_map(|dim| {
                let stride = addressing.strides[dim];
                if !matches!(stride, Extent::Scalar { .. }) || addressing.bounds.get(dim)?.is_some() {
                    return None;
                }
                let rest = addressing.base.add(&h.constant.mul(&stride.uniform()), -1);
                if rest.terms.len() >= addressing.base.terms.len() || rest.subtracts() {
                    return None;
                }
                let values = rows_in(h, from, access, dim)?;
                Some((dim, h.constant.clone(), values))
            })
        })
    }

    /// `addressing` with what the program holds of its offset: the whole of it
    /// ([`held_offsets`](Self::held_offsets)) or else one dimension's part
    /// ([`held_row`](Self::held_row)).
    pub(super) fn take_held(
        &self,
        addressing: &mut Addressing,
        layout: &LinearLayout,
        dist: &Dist,
        vector: usize,
    ) {
        addressing.held = self.held_offsets(addressing, layout, vector);
        addressing.held_row = self.held_row(addressing, dist);
    }

    /// The 32-bit registers of the affine tensor `constant + Σ c_d·coef[d]` in `layout` as
    /// `k·h + c` of a held index `h` (integers `k`, `c`): at most a multiply and an add per
    /// register, where computing it anew takes the coordinates, their products and the
    /// uniform part again (`offs * K` of Philox after the mask compared `offs`).
    fn affine_from_held(
        &mut self,
        constant: &Uniform,
        coef: &[Uniform],
        layout: &LinearLayout,
    ) -> Option<Vec<Value>> {
        let (k, c, held) = self.held.iter().rev().find_map(|h| {
            if h.layout != *layout || h.coef.len() != coef.len() {
                return None;
            }
            let k = if h.coef == coef {
                1
            } else {
                let (from, to) = h
                    .coef
                    .iter()
                    .zip(coef)
                    .find_map(|(a, b)| Some((a.as_constant().filter(|&a| a != 0)?, b)))?;
                let to = to.as_constant()?;
                // Checked: `i64::MIN / -1` overflows.
                (to.checked_rem(from)? == 0).then_some(to.checked_div(from)?)?
            };
            let times = Uniform::constant(k);
            if h.coef.iter().zip(coef).any(|(a, b)| a.mul(&times) != *b)
                || h.coef.iter().all(Uniform::is_zero)
            {
                return None;
            }
            let c = constant.add(&h.constant.mul(&times), -1).as_constant()?;
            Some((k, c, h.values.clone()))
        })?;
        let factor = (k != 1).then(|| self.uniform_register(&Uniform::constant(k), 32));
        let addend = (c != 0).then(|| self.uniform_register(&Uniform::constant(c), 32));
        Some(
            held.into_iter()
                .map(|h| {
                    let scaled = factor.map_or(h, |f| self.binary(ArithOp::Mul, "i32", h, f));
                    addend.map_or(scaled, |a| self.binary(ArithOp::Add, "i32", scaled, a))
                })
                .collect(),
        )
    }

    /// A symbolic tensor `v` (an affine index, a splat constant, a coordinate mask) in
    /// registers of its own layout.
    pub(super) fn materialise(
        &mut self,
        op: &Op,
        v: usize,
    ) -> Result<(Box<LinearLayout>, Vec<Value>), LowerError> {
        let sym = self.sym(op, v)?.clone();
        let layout = self.layout(op, v)?;
        let dist = Dist::of(&layout, self.target.wave_size)?;
        let values = match sym {
            Sym::Splat(bits) => {
                let width = self.bits(op, v)?;
                let dst = self.p.value(width);
                self.p.ops.push(ProgramOp::Constant { dst, bits });
                vec![dst; dist.registers()]
            }
            Sym::Affine {
                base: None,
                constant,
                coef,
            } => {
                let width = self.bits(op, v)?;
                let from_held = (width == 32)
                    .then(|| self.affine_from_held(&constant, &coef, &layout))
                    .flatten();
                let values = match from_held {
                    Some(values) => values,
                    None => self.affine_registers(op, &dist, &constant, &coef, width)?,
                };
                if width == 32 {
                    self.held.push(HeldIndex {
                        constant,
                        coef,
                        layout: layout.clone(),
                        dist: dist.clone(),
                        values: values.clone(),
                    });
                }
                values
            }
            Sym::Affine { base: Some(_), .. } => {
                return fail(
                    op,
                    format!(
                        "{} is a tensor of pointers; pointers are not held in registers",
                        self.m.values[v].name
                    ),
                );
            }
            Sym::Mask { bounds, when } => self.mask_registers(op, &dist, &bounds, &when)?,
            Sym::Cond(c) => self.mask_registers(op, &dist, &[], &[c])?,
            Sym::Int(u) => {
                let width = self.bits(op, v)?;
                vec![self.uniform_register(&u, width); dist.registers()]
            }
            _ => return fail(op, format!("{} is not data", self.m.values[v].name)),
        };
        Ok((Box::new(layout), values))
    }

    /// A uniform in a register of `bits` bits (a constant when it is one).
    /// The scalars a body's terminator `ret` returns (a reduce's combiner, a mapped
    /// function), each in a register of the width `bits` gives: a scalar in registers as it
    /// is, a uniform or a constant materialised.
    pub(super) fn returned_scalars(&mut self, ret: &Op, bits: &[u32]) -> Result<Vec<Value>, LowerError> {
        if ret.operands.len() != bits.len() {
            return fail(
                ret,
                format!(
                    "returns {} values where {} are expected",
                    ret.operands.len(),
                    bits.len()
                ),
            );
        }
        let mut out = Vec::with_capacity(bits.len());
        for (&v, &bits) in ret.operands.iter().zip(bits) {
            let x = match self.sym(ret, v)?.clone() {
                Sym::Lanes(x) => x,
                Sym::Int(u) => self.uniform_register(&u, bits),
                Sym::Splat(c) => {
                    let dst = self.p.value(bits);
                    self.p.ops.push(ProgramOp::Constant { dst, bits: c });
                    dst
                }
                _ => return fail(ret, "returns a value that is not a scalar"),
            };
            if self.p.value_bits(x) != bits {
                return fail(ret, "returns a value of another width than expected");
            }
            out.push(x);
        }
        Ok(out)
    }

    pub(super) fn uniform_register(&mut self, u: &Uniform, bits: u32) -> Value {
        let dst = self.p.value(bits);
        // Uniforms are computed in 32 bits; a 64-bit argument read whole keeps its high bits.
        if bits == 64
            && let [(1, inputs)] = u.terms.as_slice()
            && let [UniformInput::Argument(index)] = inputs.as_slice()
            && self.p.scalars.get(*index).is_some_and(|s| s.ty == "i64")
        {
            self.p.ops.push(ProgramOp::Argument { dst, index: *index });
            return dst;
        }
        match u.as_constant() {
            Some(c) => self.p.ops.push(ProgramOp::Constant { dst, bits: c as u64 }),
            None => self.p.ops.push(ProgramOp::UniformValue {
                dst,
                value: u.clone(),
            }),
        }
        dst
    }

    /// Coordinate `d` of register `r`'s element, per thread, in a register of `bits` bits.
    fn coordinate_register(&mut self, dist: &Dist, r: usize, d: usize, bits: u32) -> Value {
        let map = XorMap {
            cols: dist.thread.iter().map(|&c| dist.coord(c, d)).collect(),
            constant: dist.coord(dist.reg_position(r), d),
        };
        let dst = self.p.value(bits);
        self.p.ops.push(ProgramOp::ThreadMap { dst, map });
        dst
    }

    /// `a op b` in a fresh register as wide as `a`.
    pub(super) fn binary(&mut self, op: ArithOp, ty: &'static str, a: Value, b: Value) -> Value {
        let dst = self.p.value(self.p.value_bits(a));
        self.p.ops.push(ProgramOp::Arith {
            op,
            ty,
            dst,
            src: vec![a, b],
        });
        dst
    }

    /// `constant + Σ coordinate_d · coef[d]` per register of `dist`, in `bits`-bit integers
    /// (narrower ones computed in 32 bits and truncated: the same bits, as integers wrap).
    pub(super) fn affine_registers(
        &mut self,
        op: &Op,
        dist: &Dist,
        constant: &Uniform,
        coef: &[Uniform],
        bits: u32,
    ) -> Result<Vec<Value>, LowerError> {
        let narrow: Option<&'static str> = match bits {
            1 => Some("i1"),
            8 => Some("i8"),
            16 => Some("i16"),
            _ => None,
        };
        if let Some(to) = narrow {
            let wide = self.affine_registers(op, dist, constant, coef, 32)?;
            return Ok(wide
                .into_iter()
                .map(|v| {
                    let d = self.p.value(bits);
                    self.p.ops.push(ProgramOp::Convert {
                        dst: vec![d],
                        src: vec![v],
                        from: "i32",
                        to,
                    });
                    d
                })
                .collect());
        }
        let ty = match bits {
            32 => "i32",
            64 => "i64",
            _ => return fail(op, format!("an index tensor of {bits}-bit integers in registers")),
        };
        if coef.len() != dist.dim_bits.len() {
            return fail(op, "an index tensor of another rank than its layout");
        }
        let base = self.uniform_register(constant, bits);
        // Per dimension: no term, the coordinate itself, or the coordinate times a register.
        let factors: Vec<Option<Option<Value>>> = coef
            .iter()
            .map(|k| match k.as_constant() {
                Some(0) => None,
                Some(1) => Some(None),
                _ => Some(Some(self.uniform_register(k, bits))),
            })
            .collect();
        let mut out = Vec::with_capacity(dist.registers());
        for r in 0..dist.registers() {
            let mut acc = base;
            for (d, factor) in factors.iter().enumerate() {
                let Some(k) = *factor else { continue };
                let x = self.coordinate_register(dist, r, d, bits);
                let term = match k {
                    None => x,
                    Some(k) => self.binary(ArithOp::Mul, ty, x, k),
                };
                acc = self.binary(ArithOp::Add, ty, acc, term);
            }
            out.push(acc);
        }
        Ok(out)
    }

    /// `a ∧ b` of two predicates (just `b` where there is no `a`).
    pub(super) fn and_predicates(&mut self, a: Option<Value>, b: Value) -> Value {
        match a {
            Some(a) => self.binary(ArithOp::And, "i1", a, b),
            None => b,
        }
    }

    /// Per register, `existing ∧ more` (just `more` where there is no existing predicate).
    pub(super) fn and_predicate_registers(
        &mut self,
        existing: Option<Vec<Value>>,
        more: Vec<Value>,
    ) -> Vec<Value> {
        match existing {
            None => more,
            Some(own) => own
                .into_iter()
                .zip(more)
                .map(|(a, b)| self.and_predicates(Some(a), b))
                .collect(),
        }
    }

    /// A uniform condition as a predicate in every thread.
    pub(super) fn condition_register(&mut self, c: &Condition) -> Value {
        let (lhs, rhs) = (
            self.uniform_register(&c.lhs, 32),
            self.uniform_register(&c.rhs, 32),
        );
        let dst = self.p.value(1);
        self.p.ops.push(ProgramOp::Compare {
            pred: predicate_of(c.cmp),
            ty: "i32",
            dst,
            a: lhs,
            b: rhs,
        });
        dst
    }

    /// A coordinate mask as one predicate per register: every bound and condition holds.
    fn mask_registers(
        &mut self,
        op: &Op,
        dist: &Dist,
        bounds: &[Option<Extent>],
        when: &[Condition],
    ) -> Result<Vec<Value>, LowerError> {
        if bounds.len() != dist.dim_bits.len() {
            return fail(op, "a mask of another rank than its layout");
        }
        let mut shared = None;
        for c in when {
            let p = self.condition_register(c);
            shared = Some(self.and_predicates(shared, p));
        }
        let limits: Vec<Option<Value>> = bounds
            .iter()
            .map(|b| b.map(|b| self.uniform_register(&b.uniform(), 32)))
            .collect();
        let mut out = Vec::with_capacity(dist.registers());
        for r in 0..dist.registers() {
            let mut acc = shared;
            for (d, limit) in limits.iter().enumerate() {
                let Some(limit) = *limit else { continue };
                let x = self.coordinate_register(dist, r, d, 32);
                let dst = self.p.value(1);
                self.p.ops.push(ProgramOp::Compare {
                    pred: Predicate::Slt,
                    ty: "i32",
                    dst,
                    a: x,
                    b: limit,
                });
                acc = Some(self.and_predicates(acc, dst));
            }
            let p = match acc {
                Some(p) => p,
                None => {
                    let one = self.p.value(1);
                    self.p.ops.push(ProgramOp::Constant { dst: one, bits: 1 });
                    one
                }
            };
            out.push(p);
        }
        Ok(out)
    }

    /// `arith.cmpi` / `arith.cmpf` of two tensors in registers (any operand symbolic is
    /// materialised first): one predicate per register.
    pub(super) fn compare_registers(&mut self, op: &Op) -> Result<(), LowerError> {
        let keyword = op.keyword.as_deref().unwrap_or("");
        let pred = Predicate::parse(keyword)
            .map_err(|e| LowerError::new(format!("{}: {e}", op_place(op.line, &op.name))))?;
        let element = self.m.values[op.operands[0]].ty.element.clone();
        let Some(ty) = super::data::numeric_type(&element) else {
            return fail(op, format!("comparisons of {element} are not lowered"));
        };
        let float = !ty.starts_with('i');
        if float != (op.name == "arith.cmpf")
            || !(if float {
                pred.on_floats()
            } else {
                pred.on_integers()
            })
        {
            return fail(op, format!("`{keyword}` does not compare {element}"));
        }
        let (la, a) = self.typed_data(op, op.operands[0])?;
        let (lb, b) = self.typed_data(op, op.operands[1])?;
        if la != lb {
            return fail(op, "operands in different layouts");
        }
        let out = self.computed_once(op.results[0], &la, a.len(), |l, i| {
            let dst = l.p.value(1);
            l.p.ops.push(ProgramOp::Compare {
                pred,
                ty,
                dst,
                a: a[i],
                b: b[i],
            });
            dst
        });
        self.define(
            op,
            Sym::Data {
                layout: la,
                values: out,
            },
        )
    }
}
