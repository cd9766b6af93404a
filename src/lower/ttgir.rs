//! Triton's final TTGIR, lowered: each tensor is a per-thread array of registers given by its
//! layout, and each op is algebra on those layouts.
//!
//! Index arithmetic never reaches the registers. `tt.make_range`, `tt.splat`,
//! `tt.expand_dims`, `tt.broadcast`, `arith.addi`/`muli` and `tt.addptr` build tensors that are
//! *affine* in their coordinates — element `(c₀, c₁, …)` is `Σ cᵢ·kᵢ` with each `kᵢ` a
//! constant or a constant times a scalar argument (a row stride) — so they are kept as those
//! coefficients, whatever their layout (a `ttg.convert_layout` of one is free). A load or store
//! through such a pointer tensor becomes the buffer accesses of its layout
//! ([`GlobalOffset`](super::GlobalOffset) with the coefficients as strides), vectorised as far
//! as the layout's registers and the crate's AxisInfo of the pointer allow. Loaded data lives in
//! registers; `ttg.convert_layout` of data is the conversion `cost` plans (register moves, lane
//! shuffles or a round trip through LDS).
//!
//! A load is issued where its data is first needed, and a load → `convert_layout` → store
//! chain streams: each round trip through LDS loads its registers right before writing them and
//! stores what it read right away, so a thread holds one round trip's registers (Triton holds
//! the whole tile). Loads of a buffer still happen before the stores to it; pointer arguments
//! are taken not to alias one another.
//!
//! # Worked example
//!
//! A 64×64 f32 copy with a runtime row stride: `offsets = rows·stride + cols` is affine
//! (coefficients `[stride, 1]`), so the load is 4 vector loads per thread of the blocked layout
//! at `row·stride + col`, and the store the same through the destination.
//!
//! ```
//! use linear_layout::lower::{run_with, ttgir_kernel};
//! use linear_layout::target::Target;
//! use linear_layout::ttgir::Module;
//! let text = r#"
//! #blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
//! module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
//!   tt.func public @copy(%src: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %dst: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %stride: i32 {tt.divisibility = 16 : i32}) {
//!     %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
//!     %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
//!     %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
//!     %s = tt.splat %stride : i32 -> tensor<64x1xi32, #blocked>
//!     %rs = arith.muli %r2, %s : tensor<64x1xi32, #blocked>
//!     %rb = tt.broadcast %rs : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
//!     %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
//!     %cb = tt.broadcast %c2 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
//!     %off = arith.addi %rb, %cb : tensor<64x64xi32, #blocked>
//!     %sp = tt.splat %src : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #blocked>
//!     %p = tt.addptr %sp, %off : tensor<64x64x!tt.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
//!     %x = tt.load %p : tensor<64x64x!tt.ptr<f32>, #blocked>
//!     %dp = tt.splat %dst : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #blocked>
//!     %q = tt.addptr %dp, %off : tensor<64x64x!tt.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
//!     tt.store %q, %x : tensor<64x64x!tt.ptr<f32>, #blocked>
//!     tt.return
//!   }
//! }"#;
//! let k = ttgir_kernel(&Module::parse(text)?, Target::by_name("gfx942")?)?;
//! assert_eq!(k.program.name, "copy");
//! assert_eq!(k.program.op_counts()["global_load"], 4); // 16 f32 per thread, 128-bit vectors
//! assert!(k.llvm_ir()?.contains("define amdgpu_kernel void @copy(ptr addrspace(1) %src, ptr addrspace(1) %dst, i32 %stride)"));
//! // Rows 96 elements apart: the stride is an argument.
//! let src: Vec<u8> = (0..64 * 96 * 4).map(|i| (i % 251) as u8).collect();
//! let mut buffers = vec![src.clone(), vec![0; 64 * 96 * 4]];
//! run_with(&k.program, &mut buffers, &[96])?;
//! for row in 0..64 {
//!     let r = row * 96 * 4..row * 96 * 4 + 64 * 4;
//!     assert_eq!(buffers[1][r.clone()], src[r]);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::dist::{Dist, Loader, Storer};
use super::lds::{Source, Transfer, Trip, round_trips};
use super::matmul::{chain, instruction_for};
use super::mma::plan_dot;
use super::program::{Buffer, Extent, Program, Scalar, Value};
use super::{Kernel, LowerError, check_target, convert};
use crate::heuristics::convert::lds_bank_conflicts;
use crate::linear::LinearLayout;
use crate::target::LdsOp;
use crate::target::Target;
use crate::ttgir::axisinfo::{AxisInfo, analyze};
use crate::ttgir::{AttrValue, Constant, Module, Op, TypeKind, attr, element_bits};

use super::program::Op as ProgramOp;

/// An integer known up to scalar arguments: `constant + Σ factor·argument`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Lin {
    constant: i64,
    /// (index into [`Program::scalars`], factor), factors non-zero.
    terms: Vec<(usize, i64)>,
}

impl Lin {
    fn constant(c: i64) -> Lin {
        Lin {
            constant: c,
            terms: Vec::new(),
        }
    }

    fn is_zero(&self) -> bool {
        self.constant == 0 && self.terms.is_empty()
    }

    fn add(&self, o: &Lin, sign: i64) -> Lin {
        let mut terms = self.terms.clone();
        for &(i, k) in &o.terms {
            match terms.iter_mut().find(|(j, _)| *j == i) {
                Some(t) => t.1 += sign * k,
                None => terms.push((i, sign * k)),
            }
        }
        terms.retain(|t| t.1 != 0);
        Lin {
            constant: self.constant + sign * o.constant,
            terms,
        }
    }

    /// The product, when one side is a constant.
    fn mul(&self, o: &Lin) -> Option<Lin> {
        let (k, x) = if self.terms.is_empty() {
            (self.constant, o)
        } else if o.terms.is_empty() {
            (o.constant, self)
        } else {
            return None;
        };
        Some(Lin {
            constant: x.constant * k,
            terms: x
                .terms
                .iter()
                .map(|&(i, f)| (i, f * k))
                .filter(|t| t.1 != 0)
                .collect(),
        })
    }

    /// As a stride: a non-negative constant, or a positive constant times one argument.
    fn stride(&self) -> Option<Extent> {
        match (self.constant, self.terms.as_slice()) {
            (c, []) if c >= 0 => Some(Extent::Elements(c as u64)),
            (0, [(index, times)]) if *times > 0 => Some(Extent::Scalar {
                index: *index,
                times: *times as u64,
            }),
            _ => None,
        }
    }
}

/// What a TTGIR value is while lowering.
#[derive(Clone, Debug)]
enum Sym {
    /// A scalar integer.
    Int(Lin),
    /// A pointer argument: its buffer.
    Ptr(usize),
    /// A tensor affine in its coordinates: element `c` is `base + constant + Σ c_d·coef[d]`
    /// (`base`: the buffer of a pointer tensor).
    Affine {
        base: Option<usize>,
        constant: Lin,
        coef: Vec<Lin>,
    },
    /// Data in registers: one value per register of `layout`.
    Data {
        layout: Box<LinearLayout>,
        values: Vec<Value>,
    },
    /// A float splat of zero: a dot's initial accumulator, a masked load's `other`.
    Zeros,
    /// A mask that bounds coordinates: per dimension, `Some(n)` when the coordinate must stay
    /// below `n` (`arith.cmpi slt` of a range against a splat, `andi`-ed, expanded, broadcast).
    Mask(Vec<Option<Extent>>),
    /// A tile in LDS (`ttg.local_alloc`): the registers that fill it, its shared layout and
    /// where it lives.
    Shared(Box<SharedTile>),
    /// A load not issued yet, perhaps converted: issued where it is first needed, so that a
    /// load → convert_layout → store streams through one round trip at a time.
    Pending(Box<Pending>),
}

/// A tile in LDS.
#[derive(Clone, Debug)]
struct SharedTile {
    /// The layout of the registers it is written from, and their values.
    layout: LinearLayout,
    values: Vec<Value>,
    /// offset → tensor.
    shared: LinearLayout,
    /// Byte offset in LDS, and bytes.
    base: u64,
    bytes: u64,
    bits: u32,
}

/// A deferred load (and conversion).
#[derive(Clone, Debug)]
struct Pending {
    /// The loaded layout.
    layout: LinearLayout,
    buffer: usize,
    strides: Vec<Extent>,
    bounds: Vec<Option<Extent>>,
    vector: usize,
    bits: u32,
    /// The layout it is converted to, if any.
    converted: Option<LinearLayout>,
}

/// Where an access's addresses come from, for AxisInfo.
#[derive(Clone, Copy)]
enum Address {
    /// A tensor of pointers.
    Pointers(usize),
    /// A base pointer and a tensor of element offsets (`amdg.buffer_load` / `_store`).
    BaseAndOffsets(usize, usize),
}

struct Lowering<'a> {
    m: &'a Module,
    target: &'static Target,
    axis: Vec<Option<AxisInfo>>,
    /// Per scalar argument, its divisibility (`tt.divisibility`, 1 when absent).
    divisibility: Vec<u64>,
    syms: Vec<Option<Sym>>,
    /// Per value, how many operands name it.
    users: Vec<usize>,
    /// LDS bytes allocated so far (`ttg.local_alloc`).
    lds_top: u64,
    p: Program,
}

fn fail<T>(op: &Op, what: impl std::fmt::Display) -> Result<T, LowerError> {
    Err(LowerError::new(format!("line {}: {}: {what}", op.line, op.name)))
}

/// The layout whose lanes supply the addresses of `ds_read_b64_tr_b{8,16}` reading `dst`: its
/// registers are `dst`'s first lanes (the chunk's elements), its lanes the rest of the 16-lane
/// group, then `dst`'s first registers, then the upper lanes. `None` where the target has no such
/// read or the layout does not fit it.
fn transposing_view(
    dst: &LinearLayout,
    bits: u32,
    target: &Target,
) -> Result<Option<LinearLayout>, LowerError> {
    if !target.instructions.ds_read_tr_b64 || !(bits == 8 || bits == 16) {
        return Ok(None);
    }
    let e = (64 / bits).trailing_zeros() as usize;
    let bases = |d: &str| -> Result<Vec<Vec<i64>>, LowerError> {
        Ok(if dst.has_in_dim(d) {
            dst.bases(d)?
                .into_iter()
                .map(|b| b.into_iter().map(|x| x as i64).collect())
                .collect()
        } else {
            Vec::new()
        })
    };
    let (reg, lane, warp) = (bases("register")?, bases("lane")?, bases("warp")?);
    if lane.len() < 4 || reg.len() < e {
        return Ok(None);
    }
    let mut vreg = lane[..e].to_vec();
    vreg.extend_from_slice(&reg[e..]);
    let mut vlane = lane[e..4].to_vec();
    vlane.extend_from_slice(&reg[..e]);
    vlane.extend_from_slice(&lane[4..]);
    if vreg.iter().any(|b| b.iter().all(|&x| x == 0)) {
        return Ok(None);
    }
    let outs: Vec<(String, i64)> = dst.out_dims().map(|(n, s)| (n.to_string(), s as i64)).collect();
    Ok(Some(LinearLayout::from_bases(
        [("register", vreg), ("lane", vlane), ("warp", warp)],
        outs,
        false,
    )?))
}

/// The operands and results (at least) an op the lowering handles has.
fn arity(name: &str) -> Option<(usize, usize)> {
    Some(match name {
        "tt.make_range" | "arith.constant" => (0, 1),
        "tt.splat"
        | "tt.expand_dims"
        | "tt.broadcast"
        | "ttg.convert_layout"
        | "amdg.in_thread_transpose"
        | "ttg.local_alloc"
        | "ttg.local_load"
        | "arith.truncf"
        | "arith.extf"
        | "tt.load" => (1, 1),
        "arith.addi" | "arith.subi" | "arith.muli" | "tt.addptr" | "amdg.buffer_load" | "arith.cmpi"
        | "arith.andi" => (2, 1),
        "tt.store" => (2, 0),
        "amdg.buffer_store" => (3, 0),
        "tt.dot" => (3, 1),
        _ => return None,
    })
}

/// The instruction table's name of a float or integer element type.
fn numeric_type(name: &str) -> Option<&'static str> {
    ["f64", "f32", "f16", "bf16", "i32", "i8"]
        .into_iter()
        .find(|&t| t == name)
}

/// A kernel argument's name as an LLVM identifier that none of the emitted names can take.
fn argument_name(name: &str) -> String {
    let clean: String = name
        .trim_start_matches('%')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let reserved = clean == "tid"
        || clean.is_empty()
        || ["t", "v", "rsrc"].iter().any(|p| {
            clean
                .strip_prefix(p)
                .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
        });
    if reserved { format!("arg_{clean}") } else { clean }
}

impl Lowering<'_> {
    fn sym(&self, op: &Op, v: usize) -> Result<&Sym, LowerError> {
        match self.syms.get(v).and_then(Option::as_ref) {
            Some(s) => Ok(s),
            None => fail(
                op,
                format!("{} has no value the lowering knows", self.m.values[v].name),
            ),
        }
    }

    fn operand(&self, op: &Op, i: usize) -> Result<&Sym, LowerError> {
        let Some(&v) = op.operands.get(i) else {
            return fail(op, format!("operand {i} is missing"));
        };
        self.sym(op, v)
    }

    fn define(&mut self, op: &Op, sym: Sym) -> Result<(), LowerError> {
        match op.results.first() {
            Some(&r) => {
                self.syms[r] = Some(sym);
                Ok(())
            }
            None => fail(op, "has no result"),
        }
    }

    /// Defines the result of `op` as registers `values` of `layout`.
    fn define_data(&mut self, op: &Op, layout: LinearLayout, values: Vec<Value>) -> Result<(), LowerError> {
        self.define(
            op,
            Sym::Data {
                layout: Box::new(layout),
                values,
            },
        )
    }

    /// The layout of value `v` (a tensor with an encoding).
    fn layout(&self, op: &Op, v: usize) -> Result<LinearLayout, LowerError> {
        let ty = &self.m.values[v].ty;
        let Some(enc) = &ty.encoding else {
            return fail(op, format!("{} has no encoding", self.m.values[v].name));
        };
        enc.to_linear_layout(&ty.shape)
            .map_err(|e| LowerError::new(format!("line {}: {}: {e}", op.line, op.name)))
    }

    fn rank(&self, v: usize) -> usize {
        self.m.values[v].ty.shape.len()
    }

    fn affine(&self, op: &Op, i: usize, rank: usize) -> Result<(Option<usize>, Lin, Vec<Lin>), LowerError> {
        match self.operand(op, i)? {
            Sym::Affine { base, constant, coef } => Ok((*base, constant.clone(), coef.clone())),
            Sym::Int(l) => Ok((None, l.clone(), vec![Lin::constant(0); rank])),
            _ => fail(op, "an index operand that is not affine in its coordinates"),
        }
    }

    /// The element strides of a pointer tensor and its buffer.
    fn pointer(
        &self,
        op: &Op,
        base: Option<usize>,
        constant: &Lin,
        coef: &[Lin],
    ) -> Result<(usize, Vec<Extent>), LowerError> {
        let Some(buffer) = base else {
            return fail(op, "the address is not a pointer argument plus offsets");
        };
        if !constant.is_zero() {
            return fail(
                op,
                "an address with a constant offset from its base is not lowered yet",
            );
        }
        let strides = coef
            .iter()
            .map(|c| c.stride())
            .collect::<Option<Vec<Extent>>>()
            .map_or_else(
                || {
                    fail(
                        op,
                        "an offset coefficient that is not a constant times one argument",
                    )
                },
                Ok,
            )?;
        Ok((buffer, strides))
    }

    /// Elements per vector access: the layout's consecutive registers along the last
    /// dimension, the AxisInfo alignment of the address, and every other stride's
    /// divisibility. The address is a pointer tensor, or (buffer ops) a base pointer and a
    /// tensor of element offsets.
    fn vector(
        &self,
        dist: &Dist,
        shape: &[u64],
        bits: u32,
        strides: &[Extent],
        address: Address,
    ) -> Result<usize, LowerError> {
        let mut v = dist.global_vector(shape, bits)? as u64;
        let last = strides.len().saturating_sub(1);
        if strides.last() != Some(&Extent::Elements(1)) {
            return Ok(1);
        }
        let bytes = u64::from(bits / 8).max(1);
        let info = |x: usize| self.axis.get(x).and_then(Option::as_ref);
        let last_of = |i: &AxisInfo| i.contiguity.len().saturating_sub(1);
        match address {
            Address::Pointers(ptr) => {
                if let Some(i) = info(ptr) {
                    v = v.min(i.alignment(last_of(i), bytes));
                }
            }
            Address::BaseAndOffsets(base, offsets) => {
                // A scalar base: only its divisibility (bytes) counts.
                if let Some(d) = info(base).and_then(|i| i.divisibility.first()) {
                    v = v.min((d / bytes).max(1));
                }
                if let Some(i) = info(offsets) {
                    v = v.min(i.alignment(last_of(i), 1));
                }
            }
        }
        for s in &strides[..last] {
            let div = match *s {
                Extent::Elements(k) => 1u64 << k.trailing_zeros().min(63),
                Extent::Scalar { index, times } => {
                    self.divisibility[index].saturating_mul(1u64 << times.trailing_zeros().min(63))
                }
            };
            v = v.min(div.max(1));
        }
        Ok(v.max(1) as usize)
    }

    fn load(&mut self, op: &Op, buffer: usize, strides: Vec<Extent>, ptr: Address) -> Result<(), LowerError> {
        let bounds = self.bounds(op, strides.len())?;
        let r = op
            .results
            .first()
            .copied()
            .ok_or_else(|| LowerError::new("a load without result"))?;
        let layout = self.layout(op, r)?;
        let shape = self.m.values[r].ty.shape.clone();
        if strides.len() != shape.len() {
            return fail(op, "the address has another rank than the result");
        }
        let bits = self.p.buffers[buffer].element_bits;
        let dist = Dist::of(&layout, self.target.wave_size)?;
        let vector = self
            .vector(&dist, &shape, bits, &strides, ptr)?
            .min(self.mask_vector(op, &bounds));
        self.define(
            op,
            Sym::Pending(Box::new(Pending {
                layout,
                buffer,
                strides,
                bounds,
                vector,
                bits,
                converted: None,
            })),
        )
    }

    /// Value `v` in registers, each as wide as its type's elements says (a module whose types
    /// disagree with what computed them is refused, not lowered).
    fn typed_data(&mut self, op: &Op, v: usize) -> Result<(Box<LinearLayout>, Vec<Value>), LowerError> {
        let bits = self.bits(op, v)?;
        let (layout, values) = self.data(op, v)?;
        if values.iter().any(|&x| self.p.value_bits(x) != bits) {
            return fail(
                op,
                format!(
                    "{} holds elements of another width than its type",
                    self.m.values[v].name
                ),
            );
        }
        Ok((layout, values))
    }

    /// Value `v` in registers: a deferred load is issued (and converted) now, once.
    fn data(&mut self, op: &Op, v: usize) -> Result<(Box<LinearLayout>, Vec<Value>), LowerError> {
        match self.sym(op, v)?.clone() {
            Sym::Data { layout, values } => Ok((layout, values)),
            Sym::Pending(pending) => {
                let dist = Dist::of(&pending.layout, self.target.wave_size)?;
                let mut values = Loader::strided(
                    &dist,
                    (&pending.strides, &pending.bounds),
                    pending.vector,
                    pending.buffer,
                    pending.bits,
                )
                .all(&mut self.p);
                let mut layout = pending.layout;
                if let Some(dst) = pending.converted {
                    values =
                        convert::registers(&mut self.p, &layout, &dst, &values, pending.bits, self.target)?;
                    layout = dst;
                }
                let layout = Box::new(layout);
                self.syms[v] = Some(Sym::Data {
                    layout: layout.clone(),
                    values: values.clone(),
                });
                Ok((layout, values))
            }
            _ => fail(op, format!("{} is not data", self.m.values[v].name)),
        }
    }

    fn store(
        &mut self,
        op: &Op,
        data: usize,
        buffer: usize,
        strides: Vec<Extent>,
        ptr: Address,
    ) -> Result<(), LowerError> {
        let shape = self.m.values[data].ty.shape.clone();
        if strides.len() != shape.len() {
            return fail(op, "the address has another rank than the data");
        }
        let bounds = self.bounds(op, strides.len())?;
        let masked = self.mask_vector(op, &bounds);
        let bits = self.p.buffers[buffer].element_bits;
        // Loads of the buffer written here happen before the store, as the program says.
        for v in 0..self.syms.len() {
            if v != data
                && let Some(Sym::Pending(pending)) = &self.syms[v]
                && pending.buffer == buffer
            {
                self.data(op, v)?;
            }
        }
        // A converted load stored once: loads, round trips and stores interleave.
        if let Sym::Pending(pending) = self.sym(op, data)?.clone()
            && let Some(dst) = &pending.converted
            && self.users[data] == 1
        {
            if pending.bits != bits {
                return fail(op, "stores elements of another width than the pointer's");
            }
            let s = Dist::of(&pending.layout, self.target.wave_size)?;
            let d = Dist::of(dst, self.target.wave_size)?;
            let vector = self.vector(&d, &shape, bits, &strides, ptr)?.min(masked);
            let mut loader = Loader::strided(
                &s,
                (&pending.strides, &pending.bounds),
                pending.vector,
                pending.buffer,
                pending.bits,
            );
            let mut storer = Storer::strided(&d, (&strides, &bounds), vector, buffer);
            let values = convert::streaming(
                &mut self.p,
                (&pending.layout, &s),
                (dst, &d),
                pending.bits,
                self.target,
                &mut loader,
                Some(&mut storer),
            )?;
            return storer.finish(&mut self.p, &values);
        }
        let (layout, values) = self.typed_data(op, data)?;
        if values.iter().any(|&v| self.p.value_bits(v) != bits) {
            return fail(op, "stores elements of another width than the pointer's");
        }
        let dist = Dist::of(&layout, self.target.wave_size)?;
        let vector = self.vector(&dist, &shape, bits, &strides, ptr)?.min(masked);
        Storer::strided(&dist, (&strides, &bounds), vector, buffer).finish(&mut self.p, &values)
    }

    /// The bounds of a load's or store's mask (none without one); a load's `other` must be zero,
    /// what a masked buffer access reads.
    fn bounds(&self, op: &Op, rank: usize) -> Result<Vec<Option<Extent>>, LowerError> {
        if let Some(i) = op.other {
            let zero = match self.operand(op, i)? {
                Sym::Zeros => true,
                Sym::Affine {
                    base: None,
                    constant,
                    coef,
                } => constant.is_zero() && coef.iter().all(Lin::is_zero),
                _ => false,
            };
            if !zero {
                return fail(op, "a masked load whose `other` is not zero is not lowered yet");
            }
        }
        let Some(i) = op.mask else {
            return Ok(vec![None; rank]);
        };
        match self.operand(op, i)? {
            Sym::Mask(b) if b.len() == rank => Ok(b.clone()),
            Sym::Mask(_) => fail(op, "the mask has another rank than the access"),
            _ => fail(
                op,
                "a mask that is not a conjunction of coordinate bounds is not lowered yet",
            ),
        }
    }

    /// Elements per vector a mask allows: a bound on the last dimension may cut a vector, so
    /// vectors are no longer than the mask's AxisInfo constancy there.
    fn mask_vector(&self, op: &Op, bounds: &[Option<Extent>]) -> usize {
        if bounds.last().is_none_or(Option::is_none) {
            return usize::MAX;
        }
        op.mask
            .and_then(|i| op.operands.get(i))
            .and_then(|&v| self.axis.get(v))
            .and_then(Option::as_ref)
            .and_then(|info| info.constancy.last().copied())
            .map_or(1, |c| c.max(1) as usize)
    }

    /// Bits of value `v`'s elements (8 to 64).
    fn bits(&self, op: &Op, v: usize) -> Result<u32, LowerError> {
        element_bits(&self.m.values[v].ty.element)
            .filter(|b| [8, 16, 32, 64].contains(b))
            .map_or_else(|| fail(op, "elements that are not 8 to 64 bits wide"), Ok)
    }

    /// A tile written to LDS and read back in `dst`: one round trip in its own part of LDS.
    fn through_lds(&mut self, tile: &SharedTile, dst: &LinearLayout) -> Result<Vec<Value>, LowerError> {
        let s = Dist::of(&tile.layout, self.target.wave_size)?;
        let d = Dist::of(dst, self.target.wave_size)?;
        let write = lds_bank_conflicts(&tile.layout, &tile.shared, tile.bits, self.target, LdsOp::Write)?;
        let read = lds_bank_conflicts(dst, &tile.shared, tile.bits, self.target, LdsOp::Read)?;
        // gfx950's transposing reads, where they take fewer instructions: lane s of each 16
        // supplies the address of the 64-bit chunk lane L receives as its registers j, so the
        // chunk's elements must be consecutive in the shared layout along the addressing lanes.
        let regs = 1u64 << d.reg.iter().filter(|&&c| c != 0).count();
        let plain_reads = regs / read.vector_elems.max(1);
        let read_transposed = match transposing_view(dst, tile.bits, self.target)? {
            Some(view) => {
                let r = lds_bank_conflicts(&view, &tile.shared, tile.bits, self.target, LdsOp::Read)?;
                r.vector_elems * u64::from(tile.bits) >= 64
                    && (regs * u64::from(tile.bits) / 64).max(1) < plain_reads
            }
            None => false,
        };
        let mut loader = Loader::loaded(&s, &tile.values, tile.bits);
        let transfer = Transfer {
            s: &s,
            d: &d,
            trip: Trip {
                shared: &tile.shared,
                reps: 1,
                lds_bytes: tile.bytes,
                write_vector: write.vector_elems,
                read_vector: read.vector_elems,
                read_transposed,
                element_bits: tile.bits,
            },
            base: tile.base,
            source: Source::Registers(&mut loader),
            sink: None,
        };
        round_trips(&mut self.p, &mut [transfer], self.target)?
            .pop()
            .ok_or_else(|| LowerError::new("a round trip without a result"))
    }

    fn op(&mut self, i: usize) -> Result<bool, LowerError> {
        let op = &self.m.ops[i];
        if let Some((operands, results)) = arity(&op.name)
            && (op.operands.len() < operands || op.results.len() < results)
        {
            return fail(
                op,
                format!(
                    "takes {operands} operands and {results} results, not {} and {}",
                    op.operands.len(),
                    op.results.len()
                ),
            );
        }
        let rank = op.results.first().map_or(0, |&r| self.rank(r));
        match op.name.as_str() {
            "tt.return" => return Ok(false),
            "tt.make_range" => {
                let start = match attr(&op.attrs, "start") {
                    Some(AttrValue::Int(s)) => *s,
                    _ => 0,
                };
                self.define(
                    op,
                    Sym::Affine {
                        base: None,
                        constant: Lin::constant(start),
                        coef: vec![Lin::constant(1)],
                    },
                )?;
            }
            "arith.constant" => match (&op.constant, rank) {
                (Some(Constant::Int(c)), 0) => self.define(op, Sym::Int(Lin::constant(*c)))?,
                (Some(Constant::Float(z)), 1..) if *z == 0.0 => self.define(op, Sym::Zeros)?,
                (Some(Constant::Int(c)), _) => self.define(
                    op,
                    Sym::Affine {
                        base: None,
                        constant: Lin::constant(*c),
                        coef: vec![Lin::constant(0); rank],
                    },
                )?,
                _ => return fail(op, "only integer constants are lowered"),
            },
            "tt.splat" => {
                let sym = match self.operand(op, 0)? {
                    Sym::Int(l) => Sym::Affine {
                        base: None,
                        constant: l.clone(),
                        coef: vec![Lin::constant(0); rank],
                    },
                    Sym::Ptr(b) => Sym::Affine {
                        base: Some(*b),
                        constant: Lin::constant(0),
                        coef: vec![Lin::constant(0); rank],
                    },
                    _ => return fail(op, "splats a value that is not a scalar argument or constant"),
                };
                self.define(op, sym)?;
            }
            "tt.expand_dims" => {
                let axis = match attr(&op.attrs, "axis") {
                    Some(AttrValue::Int(a)) if (*a as usize) < rank => *a as usize,
                    _ => return fail(op, "needs an axis inside the result"),
                };
                if let Sym::Mask(b) = self.operand(op, 0)? {
                    let mut b = b.clone();
                    if axis > b.len() {
                        return fail(op, "the axis lies beyond the operand's dimensions");
                    }
                    b.insert(axis, None);
                    self.define(op, Sym::Mask(b))?;
                    return Ok(true);
                }
                let (base, constant, mut coef) = self.affine(op, 0, rank.saturating_sub(1))?;
                if axis > coef.len() {
                    return fail(op, "the axis lies beyond the operand's dimensions");
                }
                coef.insert(axis, Lin::constant(0));
                self.define(op, Sym::Affine { base, constant, coef })?;
            }
            "tt.broadcast" => {
                let sym = self.operand(op, 0)?.clone();
                if let Sym::Data { .. } | Sym::Pending(_) = sym {
                    return fail(op, "broadcasts of data are not lowered yet");
                }
                self.define(op, sym)?;
            }
            "ttg.convert_layout" => {
                let r = op.results[0];
                let sym = match self.operand(op, 0)?.clone() {
                    Sym::Pending(mut pending) if pending.converted.is_none() => {
                        pending.converted = Some(self.layout(op, r)?);
                        Sym::Pending(pending)
                    }
                    Sym::Data { .. } | Sym::Pending(_) => {
                        let (layout, values) = self.typed_data(op, op.operands[0])?;
                        let dst = self.layout(op, r)?;
                        let bits = element_bits(&self.m.values[r].ty.element)
                            .filter(|b| [8, 16, 32, 64].contains(b))
                            .map_or_else(|| fail(op, "converts elements that are not 8 to 64 bits"), Ok)?;
                        let values =
                            convert::registers(&mut self.p, &layout, &dst, &values, bits, self.target)?;
                        Sym::Data {
                            layout: Box::new(dst),
                            values,
                        }
                    }
                    // Index arithmetic does not depend on the layout.
                    other => other,
                };
                self.define(op, sym)?;
            }
            "arith.addi" | "arith.subi" | "arith.muli" | "tt.addptr" => {
                let (b0, c0, k0) = self.affine(op, 0, rank)?;
                let (b1, c1, k1) = self.affine(op, 1, rank)?;
                let scalar = rank == 0;
                let (base, constant, coef) = match op.name.as_str() {
                    "arith.muli" => {
                        let (Some(c), true) = (c0.mul(&c1), b0.is_none() && b1.is_none()) else {
                            return fail(op, "a product of two values that both depend on arguments");
                        };
                        // (a + Σ x·k)(b + Σ x·l) is affine when one side is a splat.
                        let coef = if k0.iter().all(Lin::is_zero) {
                            k1.iter().map(|k| c0.mul(k)).collect::<Option<Vec<_>>>()
                        } else if k1.iter().all(Lin::is_zero) {
                            k0.iter().map(|k| k.mul(&c1)).collect::<Option<Vec<_>>>()
                        } else {
                            None
                        };
                        let Some(coef) = coef else {
                            return fail(op, "a product that is not affine in the coordinates");
                        };
                        (None, c, coef)
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
                let sym = if scalar && base.is_none() {
                    Sym::Int(constant)
                } else {
                    Sym::Affine { base, constant, coef }
                };
                self.define(op, sym)?;
            }
            "tt.load" | "amdg.buffer_load" => {
                let (base, constant, coef, ptr) = if op.name == "tt.load" {
                    let (b, c, k) = self.affine(op, 0, rank)?;
                    (b, c, k, Address::Pointers(op.operands[0]))
                } else {
                    let Sym::Ptr(b) = self.operand(op, 0)? else {
                        return fail(op, "the base is not a pointer argument");
                    };
                    let b = *b;
                    let (_, c, k) = self.affine(op, 1, rank)?;
                    (
                        Some(b),
                        c,
                        k,
                        Address::BaseAndOffsets(op.operands[0], op.operands[1]),
                    )
                };
                let (buffer, strides) = self.pointer(op, base, &constant, &coef)?;
                self.load(op, buffer, strides, ptr)?;
            }
            "tt.store" | "amdg.buffer_store" => {
                let (data, base, constant, coef, ptr) = if op.name == "tt.store" {
                    let data = op
                        .operands
                        .get(1)
                        .copied()
                        .ok_or_else(|| LowerError::new("a store without data"))?;
                    let r = self.rank(data);
                    let (b, c, k) = self.affine(op, 0, r)?;
                    (data, b, c, k, Address::Pointers(op.operands[0]))
                } else {
                    let data = op.operands[0];
                    let r = self.rank(data);
                    let Sym::Ptr(b) = self.operand(op, 1)? else {
                        return fail(op, "the base is not a pointer argument");
                    };
                    let b = *b;
                    let (_, c, k) = self.affine(op, 2, r)?;
                    (
                        data,
                        Some(b),
                        c,
                        k,
                        Address::BaseAndOffsets(op.operands[1], op.operands[2]),
                    )
                };
                let (buffer, strides) = self.pointer(op, base, &constant, &coef)?;
                self.store(op, data, buffer, strides, ptr)?;
            }
            "arith.cmpi" => {
                let predicate = op.keyword.as_deref().unwrap_or("");
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
                    k1.iter().all(Lin::is_zero),
                ) else {
                    return fail(
                        op,
                        "a comparison that does not bound one coordinate by a splat is not lowered yet",
                    );
                };
                let bound = c1.add(&c0, -1).stride();
                let (true, Some(bound)) = (k0[*d] == Lin::constant(1), bound) else {
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
                self.define(op, Sym::Mask(b))?;
            }
            "arith.andi" => {
                let (Sym::Mask(a), Sym::Mask(b)) = (self.operand(op, 0)?, self.operand(op, 1)?) else {
                    return fail(op, "integer `andi` other than of masks is not lowered yet");
                };
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
                self.define(op, Sym::Mask(merged))?;
            }
            "amdg.in_thread_transpose" => {
                // A permutation of each thread's registers: a conversion the cost model plans
                // as register moves.
                let (layout, values) = self.typed_data(op, op.operands[0])?;
                let r = op.results[0];
                let dst = self.layout(op, r)?;
                let bits = self.bits(op, r)?;
                let values = convert::registers(&mut self.p, &layout, &dst, &values, bits, self.target)?;
                self.define_data(op, dst, values)?;
            }
            "ttg.local_alloc" => {
                let Some(&src) = op.operands.first() else {
                    return fail(op, "an allocation without a value to hold is not lowered yet");
                };
                let (layout, values) = self.typed_data(op, src)?;
                let r = op.results[0];
                let shared = self.layout(op, r)?;
                let bits = self.bits(op, r)?;
                if bits != self.bits(op, src)? {
                    return fail(op, "the buffer's elements have another width than the value's");
                }
                let bytes = shared.in_dim_size("offset")? * u64::from(bits / 8);
                let align = bytes.next_power_of_two();
                let base = self.lds_top.div_ceil(align) * align;
                self.lds_top = base + bytes;
                self.define(
                    op,
                    Sym::Shared(Box::new(SharedTile {
                        layout: *layout,
                        values,
                        shared,
                        base,
                        bytes,
                        bits,
                    })),
                )?;
            }
            "ttg.local_dealloc" => {}
            "ttg.local_load" => {
                let Sym::Shared(tile) = self.operand(op, 0)?.clone() else {
                    return fail(op, "reads a buffer that is not a tile written by ttg.local_alloc");
                };
                let r = op.results[0];
                let dst = self.layout(op, r)?;
                let values = self.through_lds(&tile, &dst)?;
                self.define_data(op, dst, values)?;
            }
            "tt.dot" => {
                let r = op.results[0];
                let (la, va) = self.typed_data(op, op.operands[0])?;
                let (lb, vb) = self.typed_data(op, op.operands[1])?;
                let lc = self.layout(op, r)?;
                let acc = match self.operand(op, 2)? {
                    Sym::Zeros => None,
                    _ => Some(self.typed_data(op, op.operands[2])?.1),
                };
                let ab = self.m.values[op.operands[0]].ty.element.clone();
                let acc_ty = self.m.values[r].ty.element.clone();
                let encoding = self.m.values[r]
                    .ty
                    .encoding
                    .clone()
                    .map_or_else(|| fail(op, "the result has no encoding"), Ok)?;
                let instr = instruction_for(&encoding, &ab, &acc_ty, self.target)?;
                let plan = plan_dot(&la, &lb, &lc, instr, self.target.wave_size)?;
                let registers = Dist::of(&lc, self.target.wave_size)?.registers();
                let acc_bits = self.bits(op, r)?;
                let values = chain(&mut self.p, &plan, &va, &vb, acc.as_deref(), registers, acc_bits)?;
                self.define_data(op, lc, values)?;
            }
            "arith.truncf" | "arith.extf" => {
                let (layout, values) = self.typed_data(op, op.operands[0])?;
                let r = op.results[0];
                let from = numeric_type(&self.m.values[op.operands[0]].ty.element).map_or_else(
                    || fail(op, "converts from an element type that is not lowered"),
                    Ok,
                )?;
                let to = numeric_type(&self.m.values[r].ty.element)
                    .map_or_else(|| fail(op, "converts to an element type that is not lowered"), Ok)?;
                let bits = self.bits(op, r)?;
                // In vectors of four registers: packed conversions where the target has them.
                let mut out = Vec::with_capacity(values.len());
                for src in values.chunks(4) {
                    let dst = self.p.values_of(src.len(), bits);
                    self.p.ops.push(ProgramOp::Convert {
                        dst: dst.clone(),
                        src: src.to_vec(),
                        from,
                        to,
                    });
                    out.extend(dst);
                }
                self.define(op, Sym::Data { layout, values: out })?;
            }
            _ => return fail(op, "is not lowered (yet)"),
        }
        Ok(true)
    }
}

/// Lowers the module's single `tt.func` to a kernel for `target` (see the module docs): one
/// `amdgpu_kernel` named as the function, its arguments in order (`!tt.ptr<T>` → a buffer,
/// `i32`/`i64` → a scalar). An op outside the lowered subset is an error naming it and its line.
///
/// ```
/// use linear_layout::lower::ttgir_kernel;
/// use linear_layout::target::Target;
/// use linear_layout::ttgir::Module;
/// let m = Module::parse("module attributes {\"ttg.threads-per-warp\" = 64 : i32} {\n tt.func @f(%x: i32) {\n %y = arith.xori %x, %x : i32\n tt.return\n }\n}")?;
/// let e = ttgir_kernel(&m, Target::by_name("gfx942")?).unwrap_err();
/// assert!(e.to_string().starts_with("line 3: arith.xori"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn ttgir_kernel(m: &Module, target: &'static Target) -> Result<Kernel, LowerError> {
    check_target(target)?;
    let [func] = m.funcs.as_slice() else {
        return Err(LowerError::new(format!(
            "the module has {} functions; the lowering takes one",
            m.funcs.len()
        )));
    };
    if m.threads_per_warp != target.wave_size {
        return Err(LowerError::new(format!(
            "the module runs {} lanes per warp; {} has {}",
            m.threads_per_warp, target.name, target.wave_size
        )));
    }
    let threads = m.threads_per_warp.saturating_mul(m.num_warps);
    if threads == 0 || threads > 1024 {
        return Err(LowerError::new(format!("{threads} threads per workgroup")));
    }
    let axis = analyze(m).map_err(|e| LowerError::new(e.to_string()))?;
    let mut l = Lowering {
        m,
        target,
        axis,
        divisibility: Vec::new(),
        syms: vec![None; m.values.len()],
        users: m.users().iter().map(Vec::len).collect(),
        lds_top: 0,
        p: Program::new(&func.name, target.wave_size, threads),
    };
    for (position, (&v, attrs)) in func.args.iter().zip(&func.arg_attrs).enumerate() {
        let value = &m.values[v];
        let name = argument_name(&value.name);
        if value.ty.kind != TypeKind::Scalar {
            return Err(LowerError::new(format!(
                "argument {} is not a scalar or a pointer",
                value.name
            )));
        }
        if let Some(bits) = value.ty.pointee_bits() {
            l.syms[v] = Some(Sym::Ptr(l.p.buffers.len()));
            l.p.buffers.push(Buffer {
                name,
                elements: None,
                element_bits: bits,
            });
        } else {
            let bits = match value.ty.element.as_str() {
                "i32" => 32,
                "i64" => 64,
                other => {
                    return Err(LowerError::new(format!(
                        "argument {} is {other}; the lowering takes pointers, i32 and i64",
                        value.name
                    )));
                }
            };
            l.syms[v] = Some(Sym::Int(Lin {
                constant: 0,
                terms: vec![(l.p.scalars.len(), 1)],
            }));
            l.divisibility.push(match attr(attrs, "tt.divisibility") {
                Some(AttrValue::Int(d)) if *d > 0 => *d as u64,
                _ => 1,
            });
            l.p.scalars.push(Scalar { name, bits, position });
        }
    }
    for &i in &func.body {
        if !l.op(i)? {
            break;
        }
    }
    Ok(Kernel { program: l.p, target })
}
