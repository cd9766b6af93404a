//! A reader for the subset of Triton's TTGIR text that the layout heuristics need.
//!
//! Triton prints one operation per line; regions open with a trailing `{` and close with a
//! line holding `}`. This reader follows that shape: it reads the attribute aliases
//! (`#bl = #ttg.blocked<…>`), the module attributes (`ttg.num-warps`, `ttg.threads-per-warp`,
//! `ttg.num-ctas`, `ttg.target`), every `tt.func` with its argument attributes
//! (`tt.divisibility`, `tt.contiguity`, `tt.constancy`), and every operation with its
//! operands, result types and attributes (`start`/`end`, `axis`, predicates, constants,
//! `inputPrecision`, masks, the atomics' kind, ordering and scope, `fastmath`). Operations it
//! has no rule for are kept as *opaque* values (their results get a conservative AxisInfo) and
//! listed in [`Module::notes`](crate::ttgir::Module::notes).
//!
//! It reads what `triton-opt` prints and accepts: value names with `-`, `$` and `.`
//! (`%c-766435501_i32`) and result numbers (`%5#1`); ops in generic form with their regions
//! (`"tt.reduce"(…) <{axis = 1 : i32}> ({ … }) : (…) -> …`, or the attributes after the
//! region); an op's text going on over several lines; `loc(…)` in every form, on ops, region
//! closings, function and block arguments, with `#loc` aliases before or after the module;
//! attributes in any order; functions without a `module` around them (MLIR's parser makes
//! one, with no attributes); a module written all in generic form (`triton-opt
//! --mlir-print-op-generic`: `"builtin.module"() ({ "tt.func"() <{sym_name = "k", …}> ({
//! ^bb0(%arg0: …): …`).
//!
//! ```
//! use linear_layout::ttgir::Module;
//! let text = r#"
//! #bl = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
//! module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
//!   tt.func public @k(%src: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
//!     %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #bl>
//!     %s = tt.splat %src : !tt.ptr<f16> -> tensor<256x!tt.ptr<f16>, #bl>
//!     %p = tt.addptr %s, %r : tensor<256x!tt.ptr<f16>, #bl>, tensor<256xi32, #bl>
//!     %l = tt.load %p : tensor<256x!tt.ptr<f16>, #bl>
//!     tt.return
//!   }
//! }"#;
//! let m = Module::parse(text)?;
//! assert_eq!((m.num_warps, m.threads_per_warp), (4, 64));
//! assert_eq!(m.target.as_deref(), Some("gfx942"));
//! let load = m.ops.iter().find(|o| o.name == "tt.load").unwrap();
//! assert_eq!(m.values[load.results[0]].ty.element, "f16");
//! # Ok::<(), linear_layout::ttgir::TtgirError>(())
//! ```
//!
//! Syntax errors carry the 1-based line and column; no input makes the reader panic.

/// AxisInfo: Triton 3.6's contiguity / divisibility / constancy lattice over pointer expressions.
pub mod axisinfo;
/// An editable module: what the layout passes rewrite and print back.
pub mod graph;
mod lines;
mod model;
mod reader;

pub use model::*;
pub use reader::{MAX_INPUT_BYTES, MAX_MODULES, MAX_OP_RESULTS, MAX_REGION_DEPTH, MAX_VALUES};
