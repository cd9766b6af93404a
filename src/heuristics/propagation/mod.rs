//! Layout propagation: Triton's `tritongpu-remove-layout-conversions`, on an editable module.
//!
//! The anchors (expensive loads and stores, dots, atomics) fix some layouts; everything
//! between them is free to follow. The pass makes the whole kernel consistent in four steps,
//! as Triton 3.6 does:
//!
//! 1. **Forward**: each anchor's layout flows to its users through element-wise ops,
//!    reductions (as a slice), `expand_dims` (back to the parent), loops and branches; where
//!    a value receives several, loads and stores keep a blocked layout and the rest prefer an
//!    MMA layout; the function is rewritten, converts inserted where a user needs another
//!    layout.
//! 2. **Cleanup**: converts of converts merge, converts to the same layout vanish, a convert of
//!    a constant, splat or range becomes that op in the new layout, dead ops go.
//! 3. **Backward**: each convert left tries to recompute its source's producers in the
//!    destination layout instead, when Triton's cost model says the recomputation is cheaper
//!    (`32 × bytes` for the convert against the bytes of duplicated ops), until nothing
//!    changes.
//! 4. **Final cleanup**: dead loop-carried values and unused branch results go.
//!
//! ```
//! use linear_layout::heuristics::propagation::remove_layout_conversions;
//! use linear_layout::ttgir::graph::Graph;
//! let text = r#"
//! #a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
//! #b = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
//! module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
//!   tt.func @k(%p: !tt.ptr<f32>) {
//!     %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #a>
//!     %s = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #a>
//!     %q = tt.addptr %s, %r : tensor<1024x!tt.ptr<f32>, #a>, tensor<1024xi32, #a>
//!     %x = tt.load %q : tensor<1024x!tt.ptr<f32>, #a>
//!     %c = ttg.convert_layout %x : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
//!     %y = arith.addf %c, %c : tensor<1024xf32, #b>
//!     %d = ttg.convert_layout %y : tensor<1024xf32, #b> -> tensor<1024xf32, #a>
//!     tt.store %q, %d : tensor<1024x!tt.ptr<f32>, #a>
//!     tt.return
//!   }
//! }"#;
//! let mut g = Graph::parse(text)?;
//! remove_layout_conversions(&mut g)?;
//! let out = g.print()?;
//! assert!(!out.contains("convert_layout"), "{out}");
//! assert!(out.contains("arith.addf %x, %x : tensor<1024xf32, #a>"), "{out}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod cleanup;
mod coalesce_rewrite;
mod conditionals;
mod dot_operands;
mod duplication;
mod epilogue;
mod f32_dot;
mod float_attr;
mod fold;
mod forward;
mod fuse_loops;
mod in_thread_transpose;
mod licm;
mod locality;
mod matmul_rewrite;
mod moves;
mod ops;
mod pipeline;
mod remat;
mod reshape;
mod scaled_dot;
mod scf_cleanup;
mod strip;
mod to_ttgpuir;

pub use coalesce_rewrite::coalesce;
pub use dot_operands::optimize_dot_operands;
pub use duplication::reduce_data_duplication;
pub use f32_dot::f32_dot_tc;
pub use fuse_loops::fuse_nested_loops;
pub use in_thread_transpose::in_thread_transpose;
pub use licm::licm;
pub use locality::optimize_thread_locality;
pub use matmul_rewrite::accelerate_matmul;
pub use moves::{LayoutMove, apply_layout_move, layout_moves};
pub use pipeline::{
    LayoutPass, LayoutPassOptions, PIPELINE, layout_pipeline, run_layout_pass, run_layout_pass_explained,
};
pub use remat::HOISTED_TO_THE_LOADS;
pub use scaled_dot::decompose_scaled_dots;
pub use strip::strip_layouts;

use std::fmt;

pub use to_ttgpuir::convert_to_ttgpuir;

use crate::ttgir::graph::{Graph, OpId};

/// Most ops of a module the layout passes take: propagation and rematerialisation take time
/// polynomial in the module (a backward slice per convert, each over the module's uses).
///
/// ```
/// use linear_layout::heuristics::propagation::{run_layout_pass, LayoutPass, LayoutPassOptions, MAX_PASS_OPS};
/// let body: String = (0..MAX_PASS_OPS).map(|i| format!("    %v{i} = arith.addi %a, %a : i32\n")).collect();
/// let text = format!("module {{\n  tt.func @f(%a: i32) {{\n{body}    tt.return\n  }}\n}}\n");
/// let e = run_layout_pass(&text, LayoutPass::Canonicalize, &LayoutPassOptions::new("gfx942")).unwrap_err();
/// assert_eq!(e.limit.unwrap().limit, "heuristics::propagation::MAX_PASS_OPS");
/// ```
pub const MAX_PASS_OPS: usize = 1 << 14;

/// Most rounds of backward rematerialisation (Triton repeats it while a round removes a
/// convert; each round that continues removed at least one).
///
/// ```
/// use linear_layout::heuristics::propagation::{MAX_PASS_OPS, MAX_REMAT_ROUNDS};
/// assert!(MAX_REMAT_ROUNDS < MAX_PASS_OPS); // a round that continues removed one of the ops
/// ```
pub const MAX_REMAT_ROUNDS: usize = 1 << 10;

/// A pass that cannot go on: the op and line it stopped at, and why (or the limit it met).
///
/// ```
/// use linear_layout::heuristics::propagation::PassError;
/// let e = PassError { line: 7, op: "tt.foo".into(), message: "cannot rewrite".into(), limit: None };
/// assert_eq!(e.to_string(), "line 7: 'tt.foo': cannot rewrite");
/// let whole = PassError { line: 0, op: String::new(), message: "too many ops".into(), limit: None };
/// assert_eq!(whole.to_string(), "too many ops");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassError {
    /// The 1-based source line of the op (0 for an op a pass made).
    pub line: usize,
    /// The op's name.
    pub op: String,
    /// Why.
    pub message: String,
    /// The limit met, if that is why.
    pub limit: Option<crate::limits::LimitExceeded>,
}

impl PassError {
    pub(crate) fn new(g: &Graph, op: Option<OpId>, message: &str) -> PassError {
        let (line, name) = op.map_or((0, String::new()), |o| (g.ops[o].line, g.ops[o].name.clone()));
        PassError {
            line,
            op: name,
            message: message.to_string(),
            limit: None,
        }
    }

    fn limit(l: crate::limits::LimitExceeded) -> PassError {
        PassError {
            line: 0,
            op: String::new(),
            message: l.to_string(),
            limit: Some(l),
        }
    }
}

/// [`MAX_PASS_OPS`]: the module is small enough for the layout passes; and every op they look
/// into has its kind's operands, results and regions.
fn bounded(g: &Graph) -> Result<(), PassError> {
    crate::limits::LimitExceeded::check(
        "heuristics::propagation::MAX_PASS_OPS",
        "ops of a module the layout passes take",
        MAX_PASS_OPS as u64,
        g.ops.len() as u64,
    )
    .map_err(PassError::limit)?;
    match ops::malformed(g) {
        Some(op) => Err(PassError::new(
            g,
            Some(op),
            "the op lacks operands, results or regions its kind has",
        )),
        None => Ok(()),
    }
}

impl fmt::Display for PassError {
    /// `line 12: 'tt.dot': message`; without the line or the op where the error has none.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        if !self.op.is_empty() {
            write!(f, "'{}': ", self.op)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for PassError {}

/// Triton 3.6's `tritongpu-remove-layout-conversions` on `g`, in place; see the
/// [module docs](self).
pub fn remove_layout_conversions(g: &mut Graph) -> Result<(), PassError> {
    remove_layout_conversions_with(g, true)
}

/// [`remove_layout_conversions`], with Triton's last hoist — a convert into an MMA dot operand
/// moved up to the loads it reads, the element-wise ops between computed in the operand's
/// layout — taken (`hoist_dot_operands`, Triton's pass) or left out (the convert stays by the
/// dot: the cost mode prices both).
///
/// ```
/// use linear_layout::heuristics::propagation::remove_layout_conversions_with;
/// use linear_layout::ttgir::graph::Graph;
/// let mut g = Graph::parse("module {\n  tt.func @k(%a: i32) {\n    tt.return\n  }\n}\n")?;
/// remove_layout_conversions_with(&mut g, false)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn remove_layout_conversions_with(g: &mut Graph, hoist_dot_operands: bool) -> Result<(), PassError> {
    bounded(g)?;
    for f in 0..g.funcs.len() {
        forward::propagate(g, f)?;
    }
    cleanup::canonicalize(g, cleanup::Patterns::Converts);
    rematerialise(g, MAX_REMAT_ROUNDS)?;
    for f in 0..g.funcs.len() {
        remat::hoist(g, f, hoist_dot_operands)?;
    }
    cleanup::canonicalize(g, cleanup::Patterns::Final);
    Ok(())
}

/// Backward rematerialisation, round after round while a round changes the module; past
/// `max_rounds` changing rounds, the limit error.
fn rematerialise(g: &mut Graph, max_rounds: usize) -> Result<(), PassError> {
    let mut rounds = 0usize;
    loop {
        let mut changed = false;
        for f in 0..g.funcs.len() {
            changed |= remat::backward(g, f)?;
        }
        cleanup::canonicalize(g, cleanup::Patterns::Converts);
        if !changed {
            return Ok(());
        }
        rounds += 1;
        crate::limits::LimitExceeded::check(
            "heuristics::propagation::MAX_REMAT_ROUNDS",
            "rounds of backward rematerialisation",
            max_rounds as u64,
            rounds as u64,
        )
        .map_err(PassError::limit)?;
    }
}

/// Triton 3.6's `tritonamdgpu-optimize-epilogue` on `g`, in place: a store of an MMA result
/// reached through a convert and one-operand element-wise ops stores in the MMA layout (on
/// gfx950, f16/bf16 MFMA results in a layout of eight consecutive elements per thread).
///
/// ```
/// use linear_layout::heuristics::propagation::optimize_epilogue;
/// use linear_layout::ttgir::graph::Graph;
/// let text = r#"
/// #blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
/// #mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>
/// module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @k(%acc: tensor<64x64xf32, #mma>, %p: tensor<64x64x!tt.ptr<f16>, #blocked>) {
///     %c = ttg.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
///     %h = arith.truncf %c : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
///     tt.store %p, %h : tensor<64x64x!tt.ptr<f16>, #blocked>
///     tt.return
///   }
/// }"#;
/// let mut g = Graph::parse(text)?;
/// optimize_epilogue(&mut g)?;
/// let out = g.print()?;
/// assert!(out.contains("arith.truncf %acc : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>"), "{out}");
/// assert!(out.contains("tt.store %ll1, %h : tensor<64x64x!tt.ptr<f16>, #mma>"), "{out}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn optimize_epilogue(g: &mut Graph) -> Result<(), PassError> {
    bounded(g)?;
    cleanup::canonicalize(g, cleanup::Patterns::Epilogue);
    Ok(())
}

/// Triton 3.6's `tritonamdgpu-hoist-layout-conversions` on `g`, in place: a convert into a
/// dot operand inside a loop whose source an op outside the loop defines moves right after
/// that op (attention's Q is converted once, not every iteration; a function argument's
/// convert stays, as in Triton).
///
/// ```
/// use linear_layout::heuristics::propagation::hoist_layout_conversions;
/// use linear_layout::ttgir::graph::Graph;
/// let text = r#"
/// #blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
/// #mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [4, 1], instrShape = [32, 32, 8], isTransposed = true}>
/// module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @k(%q: tensor<128x64xf16, #blocked>, %n: i32) {
///     %c0 = arith.constant 0 : i32
///     %c1 = arith.constant 1 : i32
///     %s = arith.addf %q, %q : tensor<128x64xf16, #blocked>
///     scf.for %i = %c0 to %n step %c1  : i32 {
///       %a = ttg.convert_layout %s : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>
///     }
///     tt.return
///   }
/// }"#;
/// let mut g = Graph::parse(text)?;
/// hoist_layout_conversions(&mut g)?;
/// let out = g.print()?;
/// assert!(out.find("convert_layout").unwrap() < out.find("scf.for").unwrap(), "{out}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn hoist_layout_conversions(g: &mut Graph) -> Result<(), PassError> {
    bounded(g)?;
    let converts: Vec<OpId> = g
        .walk()
        .into_iter()
        .filter(|&o| g.ops[o].name == "ttg.convert_layout")
        .collect();
    for cvt in converts {
        let res = g.ops[cvt].results[0];
        if !matches!(
            g.encoding(res).map(|e| &**e),
            Some(crate::encodings::Encoding::DotOperand(_))
        ) {
            continue;
        }
        let Some(src_def) = g.def_op(g.ops[cvt].operands[0]) else {
            continue;
        };
        // The nearest enclosing loop.
        let mut parent = g.parent_op(cvt);
        while let Some(p) = parent
            && g.ops[p].name != "scf.for"
        {
            parent = g.parent_op(p);
        }
        if let Some(for_op) = parent
            && !g.is_ancestor(for_op, src_def)
        {
            g.note(
                cvt,
                "hoisted out of its loop: its source is defined before the loop",
            );
            g.move_after(cvt, src_def);
        }
    }
    Ok(())
}

/// MLIR's `canonicalize` as far as the layout pipeline needs it, on `g`: the greedy
/// rewriter's dead-op removal, constant uniquing and `arith` folding, the convert
/// canonicalizations, the `scf.for` and `scf.if` canonicalizations (dead and pass-through loop
/// arguments; branches on constants, results that are selects or plain values, unused
/// results). (MLIR's canonicalizer also runs every dialect's other patterns; the layout
/// pipeline's input is canonical already, so what is left to do here is what the layout
/// passes leave behind.)
///
/// ```
/// use linear_layout::heuristics::propagation::canonicalize;
/// use linear_layout::ttgir::graph::Graph;
/// let mut g = Graph::parse("module {\n  tt.func @k(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    tt.return\n  }\n}")?;
/// canonicalize(&mut g)?;
/// assert!(!g.print()?.contains("arith.addi"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn canonicalize(g: &mut Graph) -> Result<(), PassError> {
    bounded(g)?;
    cleanup::canonicalize(g, cleanup::Patterns::Final);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A convert of a mask that is cheaper to recompute in the store's layout: one round
    /// of rematerialisation removes it.
    const REMAT: &str = r#"
#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#b = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @k(%p: tensor<1024x!tt.ptr<f32>, #a>, %q: tensor<1024x!tt.ptr<f32>, #b>, %n: i32) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #a>
    %s = tt.splat %n : i32 -> tensor<1024xi32, #a>
    %m = arith.cmpi slt, %r, %s : tensor<1024xi32, #a>
    %x = tt.load %p, %m : tensor<1024x!tt.ptr<f32>, #a>
    %c = ttg.convert_layout %m : tensor<1024xi1, #a> -> tensor<1024xi1, #b>
    %y = tt.load %q, %c : tensor<1024x!tt.ptr<f32>, #b>
    tt.store %q, %y, %c : tensor<1024x!tt.ptr<f32>, #b>
    tt.store %p, %x, %m : tensor<1024x!tt.ptr<f32>, #a>
    tt.return
  }
}"#;

    #[test]
    fn rematerialisation_stops_at_its_round_limit() {
        let mut g = Graph::parse(REMAT).unwrap();
        forward::propagate(&mut g, 0).unwrap();
        let e = rematerialise(&mut g, 0).unwrap_err();
        let limit = e.limit.expect("a limit error");
        assert_eq!(limit.limit, "heuristics::propagation::MAX_REMAT_ROUNDS");
        let mut g = Graph::parse(REMAT).unwrap();
        forward::propagate(&mut g, 0).unwrap();
        rematerialise(&mut g, 1).unwrap();
        assert!(!g.print().unwrap().contains("convert_layout"));
    }
}
