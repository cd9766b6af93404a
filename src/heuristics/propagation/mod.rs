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
mod forward;
mod ops;
mod remat;
mod to_ttgpuir;

use std::fmt;

pub use to_ttgpuir::convert_to_ttgpuir;

use crate::ttgir::graph::{Graph, OpId};

/// A pass that cannot go on: the op and line it stopped at, and why.
///
/// ```
/// use linear_layout::heuristics::propagation::PassError;
/// let e = PassError { line: 7, op: "tt.foo".into(), message: "cannot rewrite".into() };
/// assert_eq!(e.to_string(), "line 7: 'tt.foo': cannot rewrite");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassError {
    /// The 1-based source line of the op (0 for an op a pass made).
    pub line: usize,
    /// The op's name.
    pub op: String,
    /// Why.
    pub message: String,
}

impl PassError {
    pub(crate) fn new(g: &Graph, op: Option<OpId>, message: &str) -> PassError {
        let (line, name) = op.map_or((0, String::new()), |o| (g.ops[o].line, g.ops[o].name.clone()));
        PassError {
            line,
            op: name,
            message: message.to_string(),
        }
    }
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: '{}': {}", self.line, self.op, self.message)
    }
}

impl std::error::Error for PassError {}

/// Triton 3.6's `tritongpu-remove-layout-conversions` on `g`, in place; see the
/// [module docs](self).
pub fn remove_layout_conversions(g: &mut Graph) -> Result<(), PassError> {
    for f in 0..g.funcs.len() {
        forward::propagate(g, f)?;
    }
    cleanup::canonicalize(g, cleanup::Patterns::Converts);
    // Each round removes at least one convert: bounded by the number of converts.
    loop {
        let mut changed = false;
        for f in 0..g.funcs.len() {
            changed |= remat::backward(g, f)?;
        }
        cleanup::canonicalize(g, cleanup::Patterns::Converts);
        if !changed {
            break;
        }
    }
    for f in 0..g.funcs.len() {
        remat::hoist(g, f)?;
    }
    cleanup::canonicalize(g, cleanup::Patterns::Final);
    Ok(())
}
