//! AMDGPU code generated from layouts.
//!
//! A distributed layout says, bit by bit, where each (register, lane, warp) element of a tensor
//! lives; a shared layout does the same for LDS offsets. Everything a kernel needs to move data
//! follows from those maps: the global offset of a thread's register `r` is the layout applied
//! to `(r, lane, warp)` — a constant for `r` XOR a linear function of the thread id
//! ([`XorMap`]) — and so are LDS addresses (the shared layout's inverse composed with the
//! distributed one) and the source lanes of a shuffle (the destination layout's inverse
//! composed with the source).
//!
//! The lowering builds a small wave-level [`Program`] (typed per-thread values, buffer loads and
//! stores with a vector width, LDS writes and reads at an address, barriers, `ds_bpermute`,
//! permlane swaps, selects and packing) and derives two things from it:
//!
//! * [`emit_llvm`]: LLVM IR text for `amdgcn-amd-amdhsa` that `llc-22` compiles;
//! * [`run`]: an interpreter executing one workgroup on the CPU, lane by lane, with a race
//!   check — the reference semantics the tests hold the code to.
//!
//! Hardware facts come from the [`Target`](crate::target::Target) row (wave size, instruction availability, LDS
//! banks) and its [`LoweringFacts`](crate::target::LoweringFacts) (descriptor flags, intrinsic
//! spellings, kernel attributes); the conversion plan is the one
//! [`convert_cost`](crate::heuristics::convert::convert_cost) prices, so the code and the price
//! agree instruction for instruction on LDS and cross-lane traffic.
//!
//! # The stages
//!
//! The lowering is a small compiler, one folder a stage; each imports only the stages below it:
//!
//! ```text
//!   ttgir/  the TTGIR front: module ops → plans and IR          ─┐
//!     │                                                           │
//!     ▼                                                           │
//!   plan/   programs from layouts: accesses, LDS round trips,     │ build
//!     │     shuffles, matrix tiles; copy/convert/matmul kernels  ─┘
//!     ▼
//!   ir/     the Program: values, ops, uniforms, XOR maps, number formats, instruction semantics
//!     ▲         ▲
//!     │         │ rewrite
//!     │       passes/  what value ranges settle, selects of constants, common values,
//!     │                predicated regions: run by the TTGIR front on the program it built
//!     │ read                              ▲ read
//!   emit/   LLVM IR text                interp.rs   execution on the CPU
//! ```
//!
//! [`LowerError`] (`error.rs`) sits under all of them. [`compile`] (`compile.rs`) sits above
//! them: it chooses a TTIR module's layouts with the layout passes, then lowers it through
//! the stages. This module is only the facade: the public paths (`linear_layout::lower::…`)
//! are re-exports of the stages.
//!
//! # Worked example: a copy kernel
//!
//! 64 lanes, each holding 4 consecutive f32 of a 256-element vector: one 128-bit buffer load
//! and one 128-bit store per thread, at byte offset `16·lane`.
//!
//! ```
//! use linear_layout::linear::LinearLayout;
//! use linear_layout::lower::{copy_kernel, run, Dtype, Op};
//! use linear_layout::target::Target;
//! let layout = LinearLayout::identity_1d(4, "register", "dim0")?
//!     .product(&LinearLayout::identity_1d(64, "lane", "dim0")?)?;
//! let k = copy_kernel(&layout, &[256], Dtype::F32, Target::by_name("gfx942")?)?;
//! // The program: one vector load, one vector store.
//! assert_eq!(k.program.ops.len(), 2);
//! let Op::GlobalLoad { dst, offset, .. } = &k.program.ops[0] else { unreachable!() };
//! assert_eq!(dst.len(), 4);
//! assert_eq!(offset.coords[0].cols, vec![4, 8, 16, 32, 64, 128]); // element offset 4·lane
//! // Its LLVM IR: the lane bits shifted by 4 give the byte offset.
//! let ir = k.llvm_ir()?;
//! assert!(ir.contains("shl i32 %tid, 4"));
//! assert!(ir.contains("@llvm.amdgcn.raw.ptr.buffer.load.v4i32"));
//! // Its execution: out = in.
//! let input: Vec<u8> = (0..1024).map(|i| (i * 7 % 251) as u8).collect();
//! let mut buffers = vec![input.clone(), vec![0; 1024]];
//! run(&k.program, &mut buffers)?;
//! assert_eq!(buffers[1], input);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A conversion is the same with a middle part: [`convert_kernel`] loads through the source
//! layout, converts with the plan `cost` reports (register moves, a lane shuffle, permlane
//! swaps or a round trip through LDS), and stores through the destination layout.
//! [`lds_copy_kernel`] loads global memory straight into a shared layout (direct-to-LDS loads)
//! and reads it back in a distributed one.
//!
//! A matmul tile adds the matrix instructions: [`matmul::matmul_kernel`] loads A and B, converts
//! them into their dot-operand layouts through LDS, issues the MFMA / WMMA calls
//! [`mma::plan_dot`] derives from the three layouts ([`Op::Mma`], executed by the interpreter
//! from the instructions' own lane layouts) and stores C from the accumulator layout.

mod choose;
mod compile;
mod cost;
mod emit;
mod error;
mod interp;
mod ir;
pub mod passes;
mod plan;
mod ttgir;

pub use choose::{EXACT_COMBINATIONS, LayoutChoice, MAX_PRICED_KERNELS};
pub use compile::{CompileOptions, Compiled, Layouts, PricedConversion, compile};
pub use cost::{KernelCost, UNKNOWN_TRIPS, kernel_cost};
pub use emit::emit_llvm;
pub use error::LowerError;
pub use interp::{interpreted_address, run, run_launch, run_with};
pub use ir::numeric;
pub use ir::{
    ArithOp, AsmValues, AtomicKind, AtomicNeighbour, AtomicOrdering, AtomicPath, AtomicScope, Bessel,
    BranchCondition, Buffer, CarriedUniform, CarriedValue, Cmp, Condition, Conjunctions, Derived, DppCtrl,
    Extent, GlobalOffset, HeldRow, Kernel, Launch, Op, PackedPair, Packing, Predicate, Program, Scalar,
    ShiftTerm, SwapKind, Uniform, UniformInput, UniformOp, Value, XorMap,
};
pub use plan::Dtype;
pub use plan::convert::convert_kernel;
pub use plan::copy::copy_kernel;
pub use plan::direct::lds_copy_kernel;
pub use plan::matmul;
pub use ttgir::ttgir_kernel;

/// Matrix instructions: which registers of A, B and C each MFMA / WMMA call reads and writes
/// ([`plan_dot`](plan::mma::plan_dot), a plan), and what one call computes
/// ([`execute`](ir::mma::execute), the semantics of the IR).
///
/// ```
/// use linear_layout::lower::mma::execute;
/// use linear_layout::target::mma::MMA_INSTRUCTIONS;
/// let i = MMA_INSTRUCTIONS.iter().find(|i| i.intrinsic == "llvm.amdgcn.mfma.f32.16x16x4f32").unwrap();
/// // D = C + A·B with C = 3 everywhere, A = B = 0: D = C.
/// let d = execute(i, &vec![vec![0.0]; 64], &vec![vec![0.0]; 64], &vec![vec![3.0; 4]; 64]);
/// assert!(d.iter().flatten().all(|&x| x == 3.0));
/// ```
pub mod mma {
    pub use super::ir::mma::execute;
    pub use super::plan::mma::{DotPlan, MmaCall, plan_dot};
}
