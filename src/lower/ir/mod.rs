//! The IR of the lowering: a wave-level [`Program`] and everything needed to say what it means.
//!
//! Every stage meets here. The plans and the TTGIR front build programs; the emitter turns them
//! into LLVM IR and the interpreter runs them. This stage imports none of those: it holds the
//! values and ops ([`program`]), the workgroup-uniform integers that offsets, bounds and loops
//! are made of ([`uniform`]), the XOR maps of the thread id that every address is
//! ([`xor_map`]), the number formats ([`numeric`]), the matrix instructions' semantics
//! ([`mma`]), and what makes a program well formed ([`validate`]).
//!
//! # Worked example: a program by hand
//!
//! A 64-lane wave copies 128 `i32`: each lane loads two consecutive elements at element offset
//! `2·lane` and stores them back at the same offset. The offset is an [`XorMap`] of the thread
//! id — lane bit `i` moves the offset by `cols[i]` — so the whole kernel is two ops:
//!
//! ```
//! use linear_layout::lower::{Buffer, Extent, GlobalOffset, Op, Program, Uniform, XorMap, run};
//! let mut p = Program::new("copy2", 64, 64);
//! for name in ["in", "out"] {
//!     p.buffers.push(Buffer { name: name.into(), elements: Some(128), element_bits: 32, address: None });
//! }
//! let offset = GlobalOffset {
//!     coords: vec![XorMap { cols: vec![2, 4, 8, 16, 32, 64], constant: 0 }],
//!     strides: vec![Extent::Elements(1)],
//!     bounds: vec![None],
//!     base: Uniform::default(),
//!     when: vec![],
//!     index: None,
//!     predicate: None,
//!     held: None, held_row: None,
//! };
//! let v = p.values_of(2, 32);
//! p.ops.push(Op::GlobalLoad { dst: v.clone(), buffer: 0, offset: offset.clone(), other: 0 });
//! p.ops.push(Op::GlobalStore { src: v, buffer: 1, offset });
//! p.validate()?;
//! // What it means: run it (the interpreter reads only this IR) ...
//! let input: Vec<u8> = (0..512).map(|i| (i % 251) as u8).collect();
//! let mut buffers = vec![input.clone(), vec![0; 512]];
//! run(&p, &mut buffers)?;
//! assert_eq!(buffers[1], input);
//! // ... and what it costs: one load and one store per thread.
//! assert_eq!(p.op_counts()["global_load"], 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod arith;
mod atomic;
mod conjunction;
mod kernel;
pub mod mma;
pub mod numeric;
mod operands;
mod predicate;
mod program;
pub(crate) mod special;
mod uniform;
mod validate;
mod xor_map;

pub use arith::ArithOp;
pub use atomic::{AtomicKind, AtomicOrdering, AtomicPath, AtomicScope};
pub use conjunction::Conjunctions;
pub use kernel::Kernel;
pub use predicate::Predicate;
pub use program::{
    AsmValues, AtomicNeighbour, BranchCondition, Buffer, CarriedUniform, CarriedValue, DppCtrl, GlobalOffset,
    HeldRow, Op, PackedPair, Packing, Program, Scalar, SwapKind, Value,
};
pub(crate) use program::{dpp_folds_into_next, walk};
pub use special::Bessel;
pub(crate) use uniform::Env;
pub use uniform::{Cmp, Condition, Derived, Extent, Launch, Uniform, UniformInput, UniformOp};
pub use xor_map::{ShiftTerm, XorMap};
