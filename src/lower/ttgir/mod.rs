//! Triton's final TTGIR, lowered: each tensor is a per-thread array of registers given by its
//! layout, and each op is algebra on those layouts.
//!
//! Index arithmetic never reaches the registers ([`index`]). `tt.make_range`, `tt.splat`,
//! `tt.expand_dims`, `tt.broadcast`, `arith.addi`/`muli` and `tt.addptr` build tensors that are
//! *affine* in their coordinates — element `(c₀, c₁, …)` is `u + Σ cᵢ·kᵢ` with `u` and each `kᵢ`
//! uniform over the workgroup (constants, scalar arguments such as a row stride, program ids)
//! — so they are kept as those coefficients, whatever their layout (a `ttg.convert_layout` of
//! one is free). A load or store through such a pointer tensor becomes the buffer accesses of
//! its layout ([`memory`]: a [`GlobalOffset`](super::GlobalOffset) with the coefficients as
//! strides and `u` as its base), vectorised as far as the layout's registers and the crate's
//! AxisInfo of the pointer allow. Loaded data lives in registers ([`data`]): element-wise
//! arithmetic acts register by register, `ttg.convert_layout` of data is the conversion `cost`
//! plans (register moves, lane shuffles or a round trip through LDS), `tt.reduce` combines in
//! the thread, across lanes and across warps as the layout spreads the axis ([`reduce`]), and
//! `ttg.local_alloc`/`local_load`/`local_store` go through LDS ([`shared`]). `scf.for`,
//! `scf.while` and `scf.if` become the program's uniform loops and branches ([`control`]):
//! Triton's software-pipelined K loop (prologue loads guarded by `K > 0`, a loop that stores
//! the next tile while the dot reads this one, an epilogue under `scf.if`) lowers as Triton
//! emits it; `rocdl` scheduling hints are dropped, the program's order being the one they ask
//! for.
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

mod atomic;
mod blocks;
mod carried_pointer;
mod choice;
mod control;
mod data;
mod gather;
mod gather_op;
mod general;
mod histogram;
mod index;
mod inline_asm;
mod liveness;
mod loaded_pointer;
mod map_elementwise;
mod memory;
mod reduce;
mod relayout;
mod scan;
mod shape;
mod shared;

use super::error::LowerError;
use super::ir::{
    ArithOp, Buffer, Condition, Kernel, Program, Scalar, Uniform, UniformInput, UniformOp, Value,
};
use super::plan::check_target;
use crate::linear::LinearLayout;
use crate::target::Target;
use crate::ttgir::axisinfo::{AxisInfo, analyze};
use crate::ttgir::{AttrValue, Module, Op, TypeKind, attr, op_place};
use memory::Pending;
use shared::{LdsBuffer, SharedRead, SharedTile};

/// What a TTGIR value is while lowering.
#[derive(Clone, Debug)]
enum Sym {
    /// A workgroup-uniform integer.
    Int(Uniform),
    /// A pointer argument: its buffer.
    Ptr(usize),
    /// A tensor affine in its coordinates: element `c` is `base + constant + Σ c_d·coef[d]`
    /// (`base`: the buffer of a pointer tensor; no coefficients: a scalar pointer plus an
    /// offset).
    Affine {
        base: Option<usize>,
        constant: Uniform,
        coef: Vec<Uniform>,
    },
    /// Data in registers: one value per register of `layout`.
    Data {
        layout: Box<LinearLayout>,
        values: Vec<Value>,
    },
    /// A float constant (scalar or splat), as its bit pattern: a dot's initial accumulator, a
    /// masked load's `other`.
    Splat(u64),
    /// A mask that bounds coordinates: per dimension, `Some(n)` when the coordinate must stay
    /// below `n` (`arith.cmpi slt` of a range against a splat, `andi`-ed, expanded, broadcast),
    /// and conditions the whole workgroup agrees on (a splat of a scalar comparison).
    Mask {
        bounds: Vec<Option<super::ir::Extent>>,
        when: Vec<Condition>,
    },
    /// A scalar comparison of uniforms (`arith.cmpi` of `i32`s).
    Cond(Condition),
    /// A tile in LDS (`ttg.local_alloc`): the registers that fill it, its shared layout and
    /// where it lives.
    Shared(Box<SharedTile>),
    /// A mutable LDS buffer or a slice of one.
    Buffer(Box<LdsBuffer>),
    /// A load not issued yet, perhaps converted: issued where it is first needed, so that a
    /// load → convert_layout → store streams through one round trip at a time.
    Pending(Box<Pending>),
    /// A `ttg.local_load` of a tile not issued yet: its round trip runs with every other one
    /// pending when the first of them is needed — the tiles written, one barrier, the tiles
    /// read — or before the next op that may touch LDS or branch ([`lds_free`]).
    SharedRead(Box<SharedRead>),
    /// A scalar every thread holds in a register (a scalar loaded from memory).
    Lanes(Value),
    /// A pointer or tensor of pointers whose offset is partly data (gathers, scatters).
    Indexed(Box<gather::Indexed>),
    /// A pointer chosen at run time: `then` where `cond` holds, else `otherwise` (see
    /// [`choice`]).
    Choice {
        cond: Box<Sym>,
        then: Box<Sym>,
        otherwise: Box<Sym>,
    },
}

impl Sym {
    /// What kind of value it is, for messages.
    fn kind(&self) -> &'static str {
        match self {
            Sym::Int(_) => "a uniform integer",
            Sym::Ptr(_) => "a pointer argument",
            Sym::Affine { .. } => "an affine index",
            Sym::Data { .. } => "data in registers",
            Sym::Splat(_) => "a constant",
            Sym::Mask { .. } => "a mask of bounds",
            Sym::Cond(_) => "a uniform condition",
            Sym::Shared(_) => "a shared-memory tile",
            Sym::Buffer(_) => "a shared-memory buffer",
            Sym::Pending(_) => "a load",
            Sym::SharedRead(_) => "a tile read from LDS",
            Sym::Lanes(_) => "a scalar in registers",
            Sym::Indexed(_) => "an address with a data part",
            Sym::Choice { .. } => "a pointer chosen at run time",
        }
    }
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
    /// LDS bytes allocated so far (`ttg.local_alloc`, reductions across warps).
    lds_top: u64,
    /// Where each `ttg.local_alloc`'s buffer is live.
    liveness: liveness::BufferLiveness,
    /// The buffers allocated so far: the allocating op and the end of its bytes.
    placed: Vec<(usize, u64)>,
    /// The op being lowered (the innermost).
    current: usize,
    /// Uniform slots of the loops so far.
    slots: u32,
    /// Index tensors materialised in registers so far, in scope (an access at the same
    /// offsets takes its address from them).
    held: Vec<general::HeldIndex>,
    /// The sides of chosen pointers the accesses being lowered take.
    arms: Vec<choice::Arm>,
    /// Whether the ops being lowered are a scalar function mapped over elements
    /// ([`map_elementwise`]): its scalars are each thread's own, so branches on them part the
    /// threads and what a loop carries lives in registers.
    divergent: bool,
    /// Loop arguments that start as `ub.poison`, with that value: the form they are carried
    /// in may be taken from what the loop yields ([`Lowering::poison_form`]).
    poison_carried: std::collections::HashMap<usize, usize>,
    /// Per `ub.poison` value a loop carries, the form the loop yields, which it starts as.
    poison_forms: std::collections::HashMap<usize, Sym>,
    /// Set when a loop's lowering stopped to start a poison argument in another form.
    refined_poison: bool,
    p: Program,
}

fn fail<T>(op: &Op, what: impl std::fmt::Display) -> Result<T, LowerError> {
    Err(LowerError::new(format!(
        "{}: {what}",
        op_place(op.line, &op.name)
    )))
}

/// The operands and results (at least) an op the lowering handles has.
fn arity(name: &str) -> Option<(usize, usize)> {
    if let Some(arith) = data::arith_op(name) {
        return Some((arith.operands(), 1));
    }
    Some(match name {
        "tt.make_range" | "arith.constant" | "ub.poison" => (0, 1),
        "tt.splat"
        | "tt.expand_dims"
        | "tt.broadcast"
        | "ttg.convert_layout"
        | "amdg.in_thread_transpose"
        | "tt.trans"
        | "ttg.local_load"
        | "arith.truncf"
        | "arith.extf"
        | "arith.sitofp"
        | "arith.uitofp"
        | "arith.fptosi"
        | "arith.fptoui"
        | "arith.extsi"
        | "arith.extui"
        | "arith.trunci"
        | "tt.fp_to_fp"
        | "tt.bitcast"
        | "arith.bitcast"
        | "math.exp"
        | "tt.reduce"
        | "tt.scan"
        | "tt.histogram"
        | "tt.extern_elementwise"
        | "tt.int_to_ptr"
        | "tt.ptr_to_int"
        | "tt.load" => (1, 1),
        "arith.addi" | "arith.subi" | "arith.muli" | "tt.addptr" | "amdg.buffer_load" | "arith.cmpi"
        | "arith.andi" | "arith.addf" | "arith.subf" | "arith.mulf" | "arith.divf" | "arith.maxnumf"
        | "arith.minnumf" | "arith.maxsi" | "arith.minsi" | "arith.cmpf" | "arith.ori" => (2, 1),
        "tt.get_program_id" | "tt.get_num_programs" | "ttg.local_alloc" => (0, 1),
        "ttg.memdesc_index" | "arith.divsi" | "tt.join" | "tt.cat" | "tt.gather" => (2, 1),
        "tt.reshape" => (1, 1),
        "tt.split" => (1, 2),
        "tt.clampf" => (3, 1),
        "ttg.local_store" => (2, 0),
        "arith.select" => (3, 1),
        "scf.for" => (3, 0),
        "scf.if" => (1, 0),
        "scf.while" | "gpu.barrier" => (0, 0),
        "tt.store" => (2, 0),
        "amdg.buffer_store" => (3, 0),
        "tt.dot" | "tt.dot_scaled" => (3, 1),
        _ => return None,
    })
}

/// Whether op `name` leaves LDS alone and does not branch, so that tile reads not issued yet
/// ([`Sym::SharedRead`]) may wait past it: index arithmetic, element-wise ops, global loads
/// and stores, moves within a thread's registers, a tile's `ttg.local_alloc` and
/// `ttg.local_load` (which issues what it would overlap, and what a buffer's read follows).
fn lds_free(name: &str) -> bool {
    name.starts_with("arith.")
        || name.starts_with("math.")
        || matches!(
            name,
            "tt.splat"
                | "tt.make_range"
                | "tt.expand_dims"
                | "tt.broadcast"
                | "tt.addptr"
                | "tt.load"
                | "tt.store"
                | "amdg.buffer_load"
                | "amdg.buffer_store"
                | "tt.get_program_id"
                | "tt.get_num_programs"
                | "tt.bitcast"
                | "tt.fp_to_fp"
                | "tt.precise_sqrt"
                | "tt.precise_divf"
                | "tt.mulhiui"
                | "tt.clampf"
                | "tt.extern_elementwise"
                | "amdg.in_thread_transpose"
                | "ttg.local_alloc"
                | "ttg.local_load"
        )
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
        || ["t", "u", "v", "rsrc"].iter().any(|p| {
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

    /// Defines the result of `op` (a scalar in registers is [`Sym::Lanes`], whatever computed
    /// it).
    fn define(&mut self, op: &Op, sym: Sym) -> Result<(), LowerError> {
        self.define_result(op, 0, sym)
    }

    /// Defines result `i` of `op`.
    fn define_result(&mut self, op: &Op, i: usize, sym: Sym) -> Result<(), LowerError> {
        let sym = match sym {
            Sym::Data { layout, values } if layout.num_out_dims() == 0 && values.len() == 1 => {
                Sym::Lanes(values[0])
            }
            other => other,
        };
        match op.results.get(i) {
            Some(&r) => {
                self.syms[r] = Some(sym);
                Ok(())
            }
            None => fail(op, format!("has no result {i}")),
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

    /// The layout of value `v` (a tensor with an encoding; a scalar: every thread holds it).
    fn layout(&self, op: &Op, v: usize) -> Result<LinearLayout, LowerError> {
        let ty = &self.m.values[v].ty;
        if ty.shape.is_empty() && ty.encoding.is_none() {
            return self.scalar_layout();
        }
        let Some(enc) = &ty.encoding else {
            return fail(op, format!("{} has no encoding", self.m.values[v].name));
        };
        enc.to_linear_layout(&ty.shape)
            .map_err(|e| LowerError::new(format!("{}: {e}", op_place(op.line, &op.name))))
    }

    /// The layout of a scalar every thread holds: one register, no dimension, every lane and
    /// warp the same.
    fn scalar_layout(&self) -> Result<LinearLayout, LowerError> {
        let bits = |n: u32| vec![Vec::<i64>::new(); n.trailing_zeros() as usize];
        LinearLayout::from_bases(
            [
                ("register", Vec::new()),
                ("lane", bits(self.m.threads_per_warp)),
                ("warp", bits(self.m.num_warps)),
            ],
            Vec::<(&str, i64)>::new(),
            false,
        )
        .map_err(|e| LowerError::new(e.to_string()))
    }

    fn rank(&self, v: usize) -> usize {
        self.m.values[v].ty.shape.len()
    }

    /// The `axis` attribute, below `rank`.
    fn axis(&self, op: &Op, rank: usize) -> Result<usize, LowerError> {
        match attr(&op.attrs, "axis") {
            Some(AttrValue::Int(a)) if (0..rank as i64).contains(a) => Ok(*a as usize),
            _ => fail(op, "needs an axis inside the tensor"),
        }
    }

    /// Whether operand `i` is data (in registers or about to be loaded).
    fn is_data(&self, op: &Op, i: usize) -> bool {
        matches!(
            op.operands
                .get(i)
                .and_then(|&v| self.syms.get(v))
                .and_then(Option::as_ref),
            Some(Sym::Data { .. } | Sym::Pending(_) | Sym::SharedRead(_) | Sym::Lanes(_))
        )
    }

    /// Drops the loads op `i`'s regions defined and never issued: nothing outside a region
    /// reads its values (a pipelined loop's load that only a layout conversion of it reads,
    /// issued through that conversion), so they are dead — issued later, as the next loop
    /// issues what is pending, they would read a mask defined inside the region.
    fn forget_loads_inside(&mut self, i: usize) {
        for v in 0..self.syms.len() {
            if !matches!(self.syms[v], Some(Sym::Pending(_) | Sym::SharedRead(_))) {
                continue;
            }
            let mut at = self.m.def_op(v).and_then(|d| self.m.ops[d].parent);
            while let Some(parent) = at {
                if parent == i {
                    self.syms[v] = None;
                    break;
                }
                at = self.m.ops[parent].parent;
            }
        }
    }

    /// Lowers op `i` (`false`: it returned). Every error names the op and its line.
    fn op(&mut self, i: usize) -> Result<bool, LowerError> {
        // Registers an op's regions compute do not dominate what follows it.
        let held = self.held.len();
        // A conversion's round trip keeps above the buffers live here.
        let outer = (self.current, self.p.lds_reserved);
        self.current = i;
        self.p.lds_reserved = self
            .placed
            .iter()
            .filter(|&&(alloc, _)| self.liveness.live_at(alloc, i))
            .map(|&(_, end)| end)
            .max()
            .unwrap_or(0);
        let lowered = match lds_free(&self.m.ops[i].name) {
            true => self.lower_op(i),
            false => self.issue_shared_reads().and_then(|()| self.lower_op(i)),
        };
        (self.current, self.p.lds_reserved) = outer;
        if !self.m.ops[i].body.is_empty() {
            self.held.truncate(held);
            self.forget_loads_inside(i);
        }
        lowered.map_err(|e| {
            if e.message().starts_with("line ") {
                e
            } else {
                let op = &self.m.ops[i];
                LowerError::new(format!("{}: {}", op_place(op.line, &op.name), e.message()))
            }
        })
    }

    fn lower_op(&mut self, i: usize) -> Result<bool, LowerError> {
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
        data::element_types_agree(self.m, op)?;
        if op.name != "arith.select"
            && let Some(k) =
                (0..op.operands.len()).find(|&k| matches!(self.operand(op, k), Ok(Sym::Choice { .. })))
        {
            self.through_choice(i, k)?;
            return Ok(true);
        }
        let rank = op.results.first().map_or(0, |&r| self.rank(r));
        let data = (0..op.operands.len()).any(|k| self.is_data(op, k));
        match op.name.as_str() {
            "tt.return" => return Ok(false),
            "arith.select" if self.m.values[op.results[0]].ty.element.starts_with("!tt.ptr") => {
                self.choose_pointer(op)?
            }
            "tt.make_range" => self.make_range(op)?,
            "tt.get_program_id" | "tt.get_num_programs" => self.program_id(op)?,
            "arith.constant" => self.constant(op, rank)?,
            "ub.poison" => self.poison(op, rank)?,
            "tt.splat" if self.is_register_scalar_or_indexed(op, 0) => self.splat_registers(op, rank)?,
            "tt.splat" => self.splat(op, rank)?,
            "tt.expand_dims" | "tt.broadcast" if self.is_register_scalar_or_indexed(op, 0) => {
                self.reshape_indexed(op)?
            }
            "tt.load" if rank == 0 => self.scalar_load(op)?,
            "tt.store" if op.operands.len() > 1 && self.rank(op.operands[1]) == 0 => self.scalar_store(op)?,
            "tt.addptr" if data || (0..2).any(|k| self.is_register_scalar_or_indexed(op, k)) => {
                self.register_address_arith(op, rank)?
            }
            "arith.andi" | "arith.ori" | "arith.xori"
                if rank == 0
                    && (0..2).any(|k| matches!(self.operand(op, k), Ok(Sym::Cond(_))))
                    && (0..2).all(|k| matches!(self.operand(op, k), Ok(Sym::Cond(_) | Sym::Int(_)))) =>
            {
                if let Some(uop) = UniformOp::parse(&op.name) {
                    self.condition_logic(op, uop)?
                }
            }
            // Uniforms are 32-bit: a 64-bit result whose high bits matter is computed in
            // registers.
            name if rank == 0
                && UniformOp::parse(name).is_some()
                && op
                    .results
                    .first()
                    .and_then(|&r| self.m.values.get(r))
                    .and_then(|v| crate::ttgir::element_bits(&v.ty.element))
                    .is_some_and(|b| b <= 32)
                && (0..2).all(|k| matches!(self.operand(op, k), Ok(Sym::Int(_)))) =>
            {
                if let Some(uop) = UniformOp::parse(name) {
                    self.uniform_binary(op, uop)?
                }
            }
            "tt.expand_dims" | "tt.broadcast" if data => self.reshape_data(op)?,
            "tt.expand_dims" => {
                let axis = self.axis(op, rank)?;
                self.expand_index(op, axis, rank)?;
            }
            // Index values, masks and constants do not depend on their shape's layout.
            "tt.broadcast" => self.define(op, self.operand(op, 0)?.clone())?,
            "ttg.convert_layout" => {
                let r = op.results[0];
                let sym = match self.operand(op, 0)?.clone() {
                    Sym::Pending(mut pending) if pending.converted.is_none() => {
                        pending.converted = Some(self.layout(op, r)?);
                        Sym::Pending(pending)
                    }
                    Sym::Data { .. } | Sym::Pending(_) | Sym::SharedRead(_) => {
                        return self.convert_data(op).map(|()| true);
                    }
                    // An address with a data part: the index registers move to the new layout
                    // (a scatter's offsets loaded in one layout, stored through in another).
                    Sym::Indexed(mut x) => {
                        if let Some(from) = x.layout.as_deref() {
                            let to = self.layout(op, r)?;
                            if *from != to {
                                x.index = crate::lower::plan::convert::registers(
                                    &mut self.p,
                                    from,
                                    &to,
                                    &x.index,
                                    32,
                                    self.target,
                                )?;
                                x.layout = Some(Box::new(to));
                            }
                        }
                        Sym::Indexed(x)
                    }
                    other => other,
                };
                self.define(op, sym)?;
            }
            // A permutation of each thread's registers: a conversion planned as register moves.
            "amdg.in_thread_transpose" => self.convert_data(op)?,
            name if data && data::arith_op(name).is_some() => {
                if let Some(arith) = data::arith_op(name) {
                    self.elementwise(op, arith)?;
                }
            }
            "tt.addptr" => self.index_arith(op, rank)?,
            // Affine while it stays affine; any other sum or product in registers.
            "arith.addi" | "arith.subi" | "arith.muli" => {
                if self.index_arith(op, rank).is_err()
                    && let Some(arith) = data::arith_op(&op.name)
                {
                    self.elementwise(op, arith)?
                }
            }
            "tt.load" | "amdg.buffer_load" => self.lower_load(op, rank)?,
            "tt.store" | "amdg.buffer_store" => self.lower_store(op)?,
            // Bounds and uniform conditions first; any other comparison in registers.
            "arith.cmpi" if data => self.compare_registers(op)?,
            // A uniform condition where it is one; any other scalar comparison in registers.
            "arith.cmpi" if rank == 0 => self.compare(op, rank).or_else(|_| self.compare_registers(op))?,
            "arith.cmpi" => self.compare(op, rank).or_else(|_| self.compare_registers(op))?,
            "arith.cmpf" => self.compare_registers(op)?,
            "arith.andi" if !data && self.and_masks(op).is_ok() => {}
            "ttg.local_alloc" => self.local_alloc(op)?,
            "ttg.local_dealloc" => {}
            "ttg.memdesc_index" => self.memdesc_index(op)?,
            "scf.for" => self.scf_for(op)?,
            "scf.if" => self.scf_if(op)?,
            "scf.while" => self.scf_while(op)?,
            "arith.select" => self.select(op)?,
            "tt.trans" => self.transpose(op)?,
            "tt.reshape" => self.reshape(op)?,
            "tt.join" => self.join(op)?,
            "tt.split" => self.split(op)?,
            "tt.cat" => self.cat(op)?,
            "tt.gather" => self.gather_along_axis(op)?,
            "tt.histogram" => self.histogram(op)?,
            // A fact for LLVM's optimiser (`tl.multiple_of`, `tl.assume`): the lowering reads
            // such facts from AxisInfo, and code without the hint computes the same.
            "llvm.intr.assume" => {}
            // Scheduling hints: the order they ask for is the program's own.
            "rocdl.s.setprio" | "rocdl.sched.barrier" | "rocdl.sched.group.barrier" | "rocdl.iglp.opt" => {}
            "ttg.local_store" => self.local_store(op)?,
            "ttg.local_load" => self.local_load(op)?,
            "tt.dot" => self.dot(op)?,
            // Without scale operands (`lhs = e4m3 rhs = e4m3`), a dot of 8-bit floats.
            "tt.dot_scaled" if op.operands.len() == 3 => self.dot(op)?,
            "tt.reduce" => self.reduce(op)?,
            "tt.atomic_rmw" | "amdg.buffer_atomic_rmw" | "tt.atomic_cas" | "amdg.buffer_atomic_cas" => {
                self.atomic(op)?
            }
            "tt.scan" => self.scan(op)?,
            // A uniform index widened or narrowed stays the same uniform (uniforms are the
            // hardware's 32-bit scalars).
            "arith.extsi" | "arith.trunci"
                if rank == 0
                    && matches!(self.operand(op, 0)?, Sym::Int(_))
                    && crate::ttgir::element_bits(&self.m.values[op.results[0]].ty.element)
                        .is_some_and(|b| b >= 32) =>
            {
                self.define(op, self.operand(op, 0)?.clone())?
            }
            "arith.truncf" | "arith.extf" | "arith.sitofp" | "arith.uitofp" | "arith.fptosi"
            | "arith.fptoui" | "arith.extsi" | "arith.extui" | "arith.trunci" | "tt.fp_to_fp" => {
                self.convert_numbers(op)?
            }
            "tt.bitcast" if self.m.values[op.operands[0]].ty.pointee().is_some() => {
                self.pointer_bitcast(op)?
            }
            "tt.bitcast" | "arith.bitcast" => self.bitcast(op)?,
            "tt.int_to_ptr" => self.int_to_ptr(op)?,
            "tt.ptr_to_int" => self.ptr_to_int(op)?,
            // Every other element-wise op: its operands in registers, whatever they are.
            name if data::arith_op(name).is_some() => {
                if let Some(arith) = data::arith_op(name) {
                    self.elementwise(op, arith)?
                }
            }
            "tt.clampf" => self.clampf(op)?,
            "tt.elementwise_inline_asm" => self.inline_asm(op)?,
            "tt.map_elementwise" => self.map_elementwise(op)?,
            // `tl.debug_barrier()`: every thread's memory accesses before it precede every
            // one after it, in global memory too.
            "gpu.barrier" => self.p.ops.push(super::ir::Op::WorkgroupBarrier),
            "tt.print" | "tt.assert" => {
                return fail(
                    op,
                    "device printing and assertions need a host runtime; not lowered",
                );
            }
            // A device-library call whose function the crate computes itself.
            "tt.extern_elementwise" => {
                let symbol = match attr(&op.attrs, "symbol") {
                    Some(AttrValue::Str(s) | AttrValue::Raw(s)) => s.trim_matches('"').to_string(),
                    _ => String::new(),
                };
                match (data::library_op(&symbol), data::library_class(&symbol)) {
                    _ if symbol == "__triton_hip_llrint" && op.operands.len() == 1 => self.llrint(op)?,
                    _ if symbol == "__ocml_ldexp_f32" && op.operands.len() == 2 => {
                        self.float_by_integer(op, ArithOp::Ldexp)?
                    }
                    _ if (symbol == "__ocml_pown_f32" || symbol == "__ocml_pown_f64")
                        && op.operands.len() == 2 =>
                    {
                        self.float_by_integer(op, ArithOp::Pow)?
                    }
                    (Some(arith), _) if op.operands.len() == arith.operands() => {
                        self.elementwise(op, arith)?
                    }
                    (None, Some(class)) if op.operands.len() == 1 => self.classify(op, class)?,
                    _ => {
                        return fail(
                            op,
                            format!(
                                "{symbol}: a device-library function the crate does not compute; not lowered"
                            ),
                        );
                    }
                }
            }
            "tt.dot_scaled" => {
                return fail(
                    op,
                    "a scaled dot left for a scaled matrix instruction is not lowered; \
                     `compile` decomposes it from TTIR",
                );
            }
            _ => return fail(op, "is not lowered (yet)"),
        }
        Ok(true)
    }
}

/// Lowers the module's single `tt.func` to a kernel for `target` (see the module docs): one
/// `amdgpu_kernel` named as the function, its arguments in order (`!tt.ptr<T>` → a buffer,
/// an integer or float → a scalar of [`Scalar::TYPES`]). An op the lowering does not handle
/// (the README lists them) is an error naming it and its line.
///
/// ```
/// use linear_layout::lower::ttgir_kernel;
/// use linear_layout::target::Target;
/// use linear_layout::ttgir::Module;
/// let m = Module::parse("module attributes {\"ttg.threads-per-warp\" = 64 : i32} {\n tt.func @f(%x: i32) {\n tt.print \": \" {hex = false, isSigned = array<i32: 1>} : %x : i32\n tt.return\n }\n}")?;
/// let e = ttgir_kernel(&m, Target::by_name("gfx942")?).unwrap_err();
/// assert!(e.to_string().starts_with("line 3: tt.print"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn ttgir_kernel(m: &Module, target: &'static Target) -> Result<Kernel, LowerError> {
    let mut kernel = built_kernel(m, target)?;
    crate::lower::passes::optimize(&mut kernel.program);
    Ok(kernel)
}

/// [`ttgir_kernel`] before [`passes::optimize`](crate::lower::passes::optimize): the program
/// as the front end builds it (with what its value ranges settle), which the cost model prices.
pub(crate) fn built_kernel(m: &Module, target: &'static Target) -> Result<Kernel, LowerError> {
    check_target(target)?;
    let [func] = m.funcs.as_slice() else {
        return Err(LowerError::new(format!(
            "the module has {} functions; the lowering takes one (Graph::parse_inlined inlines calls)",
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
        liveness: liveness::BufferLiveness::of(m),
        placed: Vec::new(),
        current: 0,
        slots: 0,
        held: Vec::new(),
        arms: Vec::new(),
        divergent: false,
        poison_carried: std::collections::HashMap::new(),
        poison_forms: std::collections::HashMap::new(),
        refined_poison: false,
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
                // Booleans take a byte each in memory (Triton reads them through `!tt.ptr<i8>`).
                element_bits: bits.max(8),
                address: None,
            });
        } else {
            let Some(&ty) = Scalar::TYPES.iter().find(|&&t| t == value.ty.element) else {
                return Err(LowerError::new(format!(
                    "argument {} is {}; the lowering takes pointers and scalars of {}",
                    value.name,
                    value.ty.element,
                    Scalar::TYPES.join(", ")
                )));
            };
            let index = l.p.scalars.len();
            let scalar = Scalar { name, ty, position };
            let bits = scalar.bits();
            l.p.scalars.push(scalar);
            // 32- and 64-bit integers are uniforms (offsets, bounds, loop counts); floats and
            // narrow integers are numbers in a register of every thread.
            l.syms[v] = Some(if ty == "i32" || ty == "i64" {
                Sym::Int(Uniform::input(UniformInput::Argument(index)))
            } else {
                let dst = l.p.value(bits);
                l.p.ops.push(super::ir::Op::Argument { dst, index });
                Sym::Lanes(dst)
            });
            l.divisibility.push(match attr(attrs, "tt.divisibility") {
                Some(AttrValue::Int(d)) if *d > 0 => *d as u64,
                _ => 1,
            });
        }
    }
    l.lower_body(func)?;
    crate::lower::passes::fold_ranges(&mut l.p);
    Ok(Kernel { program: l.p, target })
}
