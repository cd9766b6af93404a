//! Addresses that are data: scalars loaded from memory, gathers and scatters.
//!
//! An embedding lookup loads a row number and then reads the table at it; a cross-entropy
//! loss loads a label and reads the logit at it. Such an address is no longer affine in the
//! coordinates with uniform coefficients: part of it is data. It is kept as its affine part
//! (buffer, uniform constant, uniform coefficients — the strides and base of the access, as
//! for any address) plus a per-register element offset in registers ([`Indexed`]), which the
//! access adds per thread (the buffer instruction's `voffset`). A scalar loaded by every thread
//! ([`Sym::Lanes`]) is a register holding the same number in every thread; splatting it makes
//! a tensor whose registers all hold it.
//!
//! Vectors stay as long as the pointer's AxisInfo proves its elements contiguous: a splat of a
//! loaded row plus `arange` is contiguous along the row, a gathered index tensor is not.
//!
//! # Worked example
//!
//! `id = tl.load(ids + pid); x = tl.load(table + id * stride + cols)`: `id` is a register of
//! every thread (one load of the same element), `id · stride` a product in registers, and the
//! table's address is `table + cols` (affine: coefficient 1) with the per-thread index
//! `id · stride`, so each thread reads its columns of the looked-up row:
//!
//! ```
//! use linear_layout::lower::{run_launch, ttgir_kernel, Launch};
//! use linear_layout::target::Target;
//! use linear_layout::ttgir::Module;
//! let text = r#"
//! #l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
//! module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
//!   tt.func public @lookup(%ids: !tt.ptr<i32>, %table: !tt.ptr<f32>, %out: !tt.ptr<f32>, %stride: i32) {
//!     %pid = tt.get_program_id x : i32
//!     %ip = tt.addptr %ids, %pid : !tt.ptr<i32>, i32
//!     %id = tt.load %ip : !tt.ptr<i32>
//!     %row = arith.muli %id, %stride : i32
//!     %base = tt.addptr %table, %row : !tt.ptr<f32>, i32
//!     %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
//!     %bs = tt.splat %base : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #l>
//!     %p = tt.addptr %bs, %cols : tensor<64x!tt.ptr<f32>, #l>, tensor<64xi32, #l>
//!     %x = tt.load %p : tensor<64x!tt.ptr<f32>, #l>
//!     %o = arith.muli %pid, %stride : i32
//!     %ob = tt.addptr %out, %o : !tt.ptr<f32>, i32
//!     %os = tt.splat %ob : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #l>
//!     %q = tt.addptr %os, %cols : tensor<64x!tt.ptr<f32>, #l>, tensor<64xi32, #l>
//!     tt.store %q, %x : tensor<64x!tt.ptr<f32>, #l>
//!     tt.return
//!   }
//! }"#;
//! let k = ttgir_kernel(&Module::parse(text)?, Target::by_name("gfx942")?)?;
//! // Table rows 0..4 of 64 floats; workgroup 0 looks up row 3.
//! let ids: Vec<u8> = [3u32, 1].iter().flat_map(|x| x.to_le_bytes()).collect();
//! let table: Vec<u8> = (0..256).flat_map(|i| (i as f32).to_le_bytes()).collect();
//! let mut buffers = vec![ids, table, vec![0; 2 * 64 * 4]];
//! run_launch(&k.program, &mut buffers, &Launch { scalars: vec![64], workgroup: [0, 0, 0], grid: [2, 1, 1] })?;
//! let first = f32::from_le_bytes(buffers[2][0..4].try_into().unwrap());
//! assert_eq!(first, 192.0); // table[3][0]
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::memory::IndexRegisters;
use super::{Lowering, Sym, fail};
use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::{ArithOp, GlobalOffset, Op as ProgramOp, Uniform, Value};
use crate::lower::plan::dist::Dist;
use crate::ttgir::Op;

/// A pointer (or tensor of pointers) whose element offset is partly data: element `c` is at
/// `buffer[constant + Σ c_d·coef[d] + index(c)]`.
#[derive(Clone, Debug)]
pub(super) struct Indexed {
    pub(super) buffer: usize,
    pub(super) constant: Uniform,
    pub(super) coef: Vec<Uniform>,
    /// The layout of the index registers (`None`: a scalar pointer, one index).
    pub(super) layout: Option<Box<LinearLayout>>,
    /// Element offsets (32 bits), one per register of `layout`.
    pub(super) index: Vec<Value>,
}

/// The parts of an address operand: affine (buffer, constant, coefficients) and data.
pub(super) struct AddressParts {
    pub(super) buffer: Option<usize>,
    pub(super) constant: Uniform,
    pub(super) coef: Vec<Uniform>,
    pub(super) data: Option<IndexRegisters>,
}

impl Lowering<'_> {
    /// Whether operand `i` is a value in registers that is no tensor of data: a scalar every
    /// thread holds, or an address with a data part.
    pub(super) fn is_register_scalar_or_indexed(&self, op: &Op, i: usize) -> bool {
        matches!(
            op.operands
                .get(i)
                .and_then(|&v| self.syms.get(v))
                .and_then(Option::as_ref),
            Some(Sym::Lanes(_) | Sym::Indexed(_))
        )
    }

    /// A 32-bit element offset from an integer register (the low half of an `i64`).
    fn offset_register(&mut self, v: Value) -> Value {
        match self.p.value_bits(v) {
            32 => v,
            64 => {
                let parts = self.p.values_of(2, 32);
                self.p.ops.push(ProgramOp::Unpack {
                    dst: parts.clone(),
                    src: v,
                });
                parts[0]
            }
            bits => {
                // Narrower integers: the sign-extended value, as `addptr` reads them.
                let wide = self.p.value(32);
                let from = if bits == 16 { "i16" } else { "i8" };
                self.p.ops.push(ProgramOp::Convert {
                    dst: vec![wide],
                    src: vec![v],
                    from,
                    to: "i32",
                });
                wide
            }
        }
    }

    /// Operand `i` split into its affine and data parts (`rank` coordinates).
    pub(super) fn address_parts(
        &mut self,
        op: &Op,
        i: usize,
        rank: usize,
    ) -> Result<AddressParts, LowerError> {
        let v = op.operands[i];
        let parts = match self.sym(op, v)?.clone() {
            Sym::Ptr(b) => AddressParts {
                buffer: Some(b),
                constant: Uniform::default(),
                coef: vec![Uniform::default(); rank],
                data: None,
            },
            Sym::Int(u) => AddressParts {
                buffer: None,
                constant: u,
                coef: vec![Uniform::default(); rank],
                data: None,
            },
            Sym::Affine { base, constant, coef } => AddressParts {
                buffer: base,
                constant,
                coef: if coef.is_empty() {
                    vec![Uniform::default(); rank]
                } else {
                    coef
                },
                data: None,
            },
            Sym::Indexed(x) => AddressParts {
                buffer: Some(x.buffer),
                constant: x.constant,
                coef: if x.coef.is_empty() {
                    vec![Uniform::default(); rank]
                } else {
                    x.coef
                },
                data: Some((x.layout, x.index)),
            },
            Sym::Lanes(x) => {
                let x = self.offset_register(x);
                AddressParts {
                    buffer: None,
                    constant: Uniform::default(),
                    coef: vec![Uniform::default(); rank],
                    data: Some((None, vec![x])),
                }
            }
            Sym::Data { .. } | Sym::Pending(_) | Sym::SharedRead(_) => {
                let (layout, values) = self.typed_data(op, v)?;
                let values = values.into_iter().map(|x| self.offset_register(x)).collect();
                AddressParts {
                    buffer: None,
                    constant: Uniform::default(),
                    coef: vec![Uniform::default(); rank],
                    data: Some((Some(layout), values)),
                }
            }
            _ => return fail(op, "an address operand that is neither a pointer nor an integer"),
        };
        if parts.coef.len() != rank {
            return fail(op, "an address operand of another rank than the result");
        }
        self.coefficients_in_registers(op, v, parts)
    }

    /// An address whose coefficient along some coordinate is no stride the access can take
    /// (negative, as in a reversed `BLOCK - 1 - offs`; a product of two arguments): those
    /// coordinates' terms and the constant join the address's data part, computed in registers
    /// of the operand's layout; the other coordinates stay affine.
    fn coefficients_in_registers(
        &mut self,
        op: &Op,
        v: usize,
        mut parts: AddressParts,
    ) -> Result<AddressParts, LowerError> {
        if parts.coef.iter().all(|k| k.extent().is_some()) {
            return Ok(parts);
        }
        let layout = self.layout(op, v)?;
        let dist = Dist::of(&layout, self.target.wave_size)?;
        let moved: Vec<Uniform> = parts
            .coef
            .iter_mut()
            .map(|k| match k.extent() {
                Some(_) => Uniform::default(),
                None => std::mem::take(k),
            })
            .collect();
        // The constant joins them: the buffer instructions' per-thread offset is unsigned, and
        // a negative term (`BLOCK - 1 - offs`) is only non-negative with it.
        let constant = std::mem::take(&mut parts.constant);
        let terms = self.affine_registers(op, &dist, &constant, &moved, 32)?;
        let index = match parts.data.take() {
            None => terms,
            Some((data_layout, values)) => {
                let values = match (data_layout, values.len()) {
                    (_, 1) => vec![values[0]; terms.len()],
                    (Some(l), _) if *l == layout => values,
                    _ => {
                        return fail(
                            op,
                            "the address's data part is in another layout than its pointers",
                        );
                    }
                };
                terms
                    .into_iter()
                    .zip(values)
                    .map(|(t, x)| self.binary(ArithOp::Add, "i32", t, x))
                    .collect()
            }
        };
        parts.data = Some((Some(Box::new(layout)), index));
        Ok(parts)
    }

    /// A buffer op's address: a scalar base pointer (operand `base`) plus a tensor of element
    /// offsets (operand `offsets`), either part perhaps data.
    pub(super) fn base_and_offsets(
        &mut self,
        op: &Op,
        base: usize,
        offsets: usize,
        rank: usize,
    ) -> Result<AddressParts, LowerError> {
        let element = &self.m.values[*op
            .operands
            .get(offsets)
            .ok_or_else(|| LowerError::new("no offsets"))?]
        .ty
        .element;
        if !matches!(element.as_str(), "i32" | "i64") {
            return fail(
                op,
                format!("offsets of {element}: a buffer access takes 32- or 64-bit integers"),
            );
        }
        let b = self.address_parts(op, base, 0)?;
        let o = self.address_parts(op, offsets, rank)?;
        if b.buffer.is_none() || o.buffer.is_some() {
            return fail(op, "the base is not a pointer or the offsets are pointers");
        }
        let data = self.add_data(op, b.data, o.data)?;
        Ok(AddressParts {
            buffer: b.buffer,
            constant: b.constant.add(&o.constant, 1),
            coef: o.coef,
            data,
        })
    }

    /// The sum of two data parts: per register of the one with a layout (a scalar adds to
    /// every register).
    fn add_data(
        &mut self,
        op: &Op,
        a: Option<IndexRegisters>,
        b: Option<IndexRegisters>,
    ) -> Result<Option<IndexRegisters>, LowerError> {
        let (Some((la, va)), Some((lb, vb))) = (a.clone(), b.clone()) else {
            return Ok(a.or(b));
        };
        let layout = match (&la, &lb) {
            (Some(x), Some(y)) if x != y => return fail(op, "address parts in different layouts"),
            (Some(x), _) | (None, Some(x)) => Some(x.clone()),
            (None, None) => None,
        };
        let n = va.len().max(vb.len());
        let pick = |v: &[Value], r: usize| if v.len() == 1 { v[0] } else { v[r] };
        let sum = (0..n)
            .map(|r| {
                let dst = self.p.value(32);
                self.p.ops.push(ProgramOp::Arith {
                    op: ArithOp::Add,
                    ty: "i32",
                    dst,
                    src: vec![pick(&va, r), pick(&vb, r)],
                });
                dst
            })
            .collect();
        Ok(Some((layout, sum)))
    }

    /// `tt.addptr` where a part of the address is in registers.
    pub(super) fn register_address_arith(&mut self, op: &Op, rank: usize) -> Result<(), LowerError> {
        let p = self.address_parts(op, 0, rank)?;
        let o = self.address_parts(op, 1, rank)?;
        let (Some(buffer), None) = (p.buffer, o.buffer) else {
            return fail(op, "pointer arithmetic other than pointer + offset");
        };
        let coef = p.coef.iter().zip(&o.coef).map(|(a, b)| a.add(b, 1)).collect();
        let constant = p.constant.add(&o.constant, 1);
        let data = self.add_data(op, p.data, o.data)?;
        let sym = match data {
            None => Sym::Affine {
                base: Some(buffer),
                constant,
                coef,
            },
            Some((layout, index)) => {
                let layout = match layout {
                    Some(l) => Some(l),
                    None if rank > 0 => Some(Box::new(self.layout(op, op.results[0])?)),
                    None => None,
                };
                let index = match &layout {
                    Some(l) if index.len() == 1 => {
                        vec![index[0]; Dist::of(l, self.target.wave_size)?.registers()]
                    }
                    _ => index,
                };
                Sym::Indexed(Box::new(Indexed {
                    buffer,
                    constant,
                    coef: if rank == 0 { Vec::new() } else { coef },
                    layout,
                    index,
                }))
            }
        };
        self.define(op, sym)
    }

    /// `tt.splat` of a register scalar or a scalar address with a data part.
    pub(super) fn splat_registers(&mut self, op: &Op, rank: usize) -> Result<(), LowerError> {
        let r = op.results[0];
        let layout = self.layout(op, r)?;
        let registers = Dist::of(&layout, self.target.wave_size)?.registers();
        match self.operand(op, 0)?.clone() {
            Sym::Lanes(x) => self.define_data(op, layout, vec![x; registers]),
            Sym::Indexed(x) if x.layout.is_none() && x.index.len() == 1 => self.define(
                op,
                Sym::Indexed(Box::new(Indexed {
                    buffer: x.buffer,
                    constant: x.constant,
                    coef: vec![Uniform::default(); rank],
                    layout: Some(Box::new(layout)),
                    index: vec![x.index[0]; registers],
                })),
            ),
            _ => fail(op, "splats a value that is not a scalar"),
        }
    }

    /// `tt.expand_dims` / `tt.broadcast` of an address with a data part: the coefficients as
    /// for an index tensor, the index registers as for data.
    pub(super) fn reshape_indexed(&mut self, op: &Op) -> Result<(), LowerError> {
        let Sym::Indexed(x) = self.operand(op, 0)?.clone() else {
            return fail(op, "is not an address with a data part");
        };
        let Some(src_layout) = x.layout.clone() else {
            return fail(op, "reshapes a scalar");
        };
        let r = op.results[0];
        let rank = self.rank(r);
        let dst_layout = self.layout(op, r)?;
        let s = Dist::of(&src_layout, self.target.wave_size)?;
        let d = Dist::of(&dst_layout, self.target.wave_size)?;
        let from = self.m.values[op.operands[0]].ty.shape.clone();
        let (coef, index) = if op.name == "tt.expand_dims" {
            let axis = self.axis(op, rank)?;
            let mut coef = x.coef.clone();
            if axis > coef.len() {
                return fail(op, "the axis lies beyond the operand's dimensions");
            }
            coef.insert(axis, Uniform::default());
            let index = self.regather(op, (&s, &x.index), &d, |c| {
                c.iter()
                    .enumerate()
                    .filter(|&(k, _)| k != axis)
                    .map(|(_, &v)| v)
                    .collect()
            })?;
            (coef, index)
        } else {
            let index = self.regather(op, (&s, &x.index), &d, |c| {
                c.iter()
                    .zip(&from)
                    .map(|(&v, &n)| if n == 1 { 0 } else { v })
                    .collect()
            })?;
            (x.coef.clone(), index)
        };
        self.define(
            op,
            Sym::Indexed(Box::new(Indexed {
                buffer: x.buffer,
                constant: x.constant,
                coef,
                layout: Some(Box::new(dst_layout)),
                index,
            })),
        )
    }

    /// A load of one element through a scalar pointer: every thread loads it into a register.
    pub(super) fn scalar_load(&mut self, op: &Op) -> Result<(), LowerError> {
        let r = op.results[0];
        let bits = self.bits(op, r)?;
        let parts = self.address_parts(op, 0, 0)?;
        let Some(buffer) = parts.buffer else {
            return fail(op, "loads through an address that is not a pointer");
        };
        if self.p.buffers[buffer].element_bits != bits {
            return fail(op, "loads elements of another width than the pointer's");
        }
        // A uniform mask is a branch-free `when`; any other is a predicate in a register.
        let mask = op.mask.map(|i| self.operand(op, i).cloned()).transpose()?;
        let (mut when, mut predicate) = match (mask, op.mask) {
            (Some(Sym::Cond(c)), _) => (vec![c], None),
            (Some(_), Some(i)) => (Vec::new(), Some(self.typed_data(op, op.operands[i])?.1[0])),
            _ => (Vec::new(), None),
        };
        // An arm of a chosen pointer: its side of the condition masks the load too.
        let arm = self.arm_masks(op, op.operands[0])?;
        when.extend(arm.when);
        if let Some(p) = arm.predicate.and_then(|p| p.first().copied()) {
            predicate = Some(self.and_predicates(predicate, p));
        }
        let constant_other = match op.other.map(|i| self.operand(op, i)).transpose()? {
            None => Some(0),
            Some(Sym::Splat(b)) => Some(*b),
            Some(Sym::Int(u)) => u.as_constant().map(|c| c as u64),
            Some(_) => None,
        };
        let dst = self.p.value(bits);
        self.p.ops.push(ProgramOp::GlobalLoad {
            dst: vec![dst],
            buffer,
            offset: GlobalOffset {
                base: parts.constant,
                when: when.clone(),
                index: parts.data.map(|(_, v)| v[0]),
                predicate,
                ..GlobalOffset::default()
            },
            other: constant_other.unwrap_or(0),
        });
        let (Some(i), None) = (op.other, constant_other) else {
            return self.define(op, Sym::Lanes(dst));
        };
        // `other` a value: chosen where the mask fails.
        let other = self.typed_data(op, op.operands[i])?.1[0];
        let cond = match (predicate, op.mask) {
            (Some(p), _) => p,
            (None, Some(m)) => self.typed_data(op, op.operands[m])?.1[0],
            (None, None) => return self.define(op, Sym::Lanes(dst)),
        };
        let chosen = self.p.value(bits);
        self.p.ops.push(ProgramOp::Select {
            dst: chosen,
            cond,
            a: dst,
            b: other,
        });
        self.define(op, Sym::Lanes(chosen))
    }

    /// A store of one element through a scalar pointer: the first thread stores it (every
    /// thread holds the same value), as Triton predicates scalar stores.
    pub(super) fn scalar_store(&mut self, op: &Op) -> Result<(), LowerError> {
        let data = op.operands[1];
        let bits = self.bits(op, data)?;
        let parts = self.address_parts(op, 0, 0)?;
        let Some(buffer) = parts.buffer else {
            return fail(op, "stores through an address that is not a pointer");
        };
        if self.p.buffers[buffer].element_bits != bits {
            return fail(op, "stores elements of another width than the pointer's");
        }
        let value = match self.sym(op, data)?.clone() {
            Sym::Lanes(x) => x,
            Sym::Int(u) => self.uniform_register(&u, bits),
            Sym::Splat(b) => {
                let dst = self.p.value(bits);
                self.p.ops.push(ProgramOp::Constant { dst, bits: b });
                dst
            }
            // A scalar in registers by another road (a loop's result): one register.
            _ => match self.typed_data(op, data)? {
                (_, values) if values.len() == 1 => values[0],
                _ => return fail(op, "stores a scalar held in more than one register"),
            },
        };
        if self.p.value_bits(value) != bits {
            return fail(op, "stores a value of another width than its type");
        }
        let mut when = match op.mask.map(|i| self.operand(op, i)).transpose()? {
            None => Vec::new(),
            Some(Sym::Cond(c)) => vec![c.clone()],
            Some(_) => return fail(op, "a scalar store's mask that is not a uniform condition"),
        };
        let arm = self.arm_masks(op, op.operands[0])?;
        when.extend(arm.when);
        let thread_bits = self.p.thread_bits();
        let tid = crate::lower::ir::XorMap {
            cols: (0..thread_bits).map(|b| 1 << b).collect(),
            constant: 0,
        };
        let first = self.p.thread_test(tid, crate::lower::ir::Predicate::Eq, 0);
        let first = match arm.predicate.and_then(|p| p.first().copied()) {
            Some(p) => self.and_predicates(Some(first), p),
            None => first,
        };
        self.p.ops.push(ProgramOp::GlobalStore {
            src: vec![value],
            buffer,
            offset: GlobalOffset {
                base: parts.constant,
                when,
                index: parts.data.map(|(_, v)| v[0]),
                predicate: Some(first),
                ..GlobalOffset::default()
            },
        });
        Ok(())
    }
}
