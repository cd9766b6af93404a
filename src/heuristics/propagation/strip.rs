//! Layouts taken off: a TTGIR module made layout-free again, so that every layout is chosen
//! anew rather than continued from the module's.
//!
//! A module whose layouts are all distributed (registers, lanes, warps) carries them only in
//! its tensor types and its `ttg.convert_layout` ops: removing the converts (each result
//! replaced by its operand) and the encodings leaves the TTIR the module came from, up to the
//! order of its ops. A module that already uses shared memory or target ops (`ttg.local_alloc`,
//! async copies, `amdg.buffer_load`, …) has made decisions beyond layouts, and a function
//! taking tensors in layouts has them in its signature; such a module is left as it is.
//!
//! ```
//! use linear_layout::heuristics::propagation::strip_layouts;
//! use linear_layout::ttgir::graph::Graph;
//! let text = r#"
//! #a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
//! #b = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
//! module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
//!   tt.func @k(%p: !tt.ptr<f32>) {
//!     %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #a>
//!     %s = tt.splat %p : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>, #a>
//!     %q = tt.addptr %s, %r : tensor<256x!tt.ptr<f32>, #a>, tensor<256xi32, #a>
//!     %x = tt.load %q : tensor<256x!tt.ptr<f32>, #a>
//!     %c = ttg.convert_layout %x : tensor<256xf32, #a> -> tensor<256xf32, #b>
//!     %y = arith.addf %c, %c : tensor<256xf32, #b>
//!     tt.return
//!   }
//! }"#;
//! let mut g = Graph::parse(text)?;
//! assert!(strip_layouts(&mut g));
//! let out = g.print()?;
//! assert!(!out.contains("#") && !out.contains("convert_layout"), "{out}");
//! assert!(out.contains("arith.addf %x, %x : tensor<256xf32>"), "{out}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::ttgir::graph::{Graph, Item};

/// Takes every layout off `g` (see the module docs); false, leaving `g` as it is, when
/// the module has ops beyond distributed layouts.
///
/// ```
/// use linear_layout::heuristics::propagation::strip_layouts;
/// use linear_layout::ttgir::graph::Graph;
/// // Shared memory: a decision beyond layouts, kept.
/// let text = r#"
/// #a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
/// #s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
/// module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @k() {
///     %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #a>
///     %m = ttg.local_alloc %r : (tensor<64xi32, #a>) -> !ttg.memdesc<64xi32, #s, #ttg.shared_memory>
///     tt.return
///   }
/// }"#;
/// let mut g = Graph::parse(text)?;
/// assert!(!strip_layouts(&mut g));
/// assert!(g.print()?.contains("#a"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn strip_layouts(g: &mut Graph) -> bool {
    let live = g.walk();
    let beyond_layouts = live.iter().any(|&op| {
        let name = g.ops[op].name.as_str();
        name != "ttg.convert_layout"
            && (name.starts_with("ttg.") || name.starts_with("amdg.") || name.starts_with("ttng."))
    }) || g.values.iter().any(|v| v.ty.element.starts_with("!ttg."))
        || g.funcs.iter().any(|f| {
            f.blocks.first().is_some_and(|&b| {
                g.blocks[b]
                    .args
                    .iter()
                    .any(|&a| g.values[a].ty.encoding.is_some())
            })
        });
    if beyond_layouts {
        return false;
    }
    for op in live {
        if g.ops[op].name == "ttg.convert_layout" {
            let (src, dst) = (g.ops[op].operands[0], g.ops[op].results[0]);
            g.replace_all_uses(dst, src);
            g.erase_op(op);
        }
    }
    for v in &mut g.values {
        v.ty.encoding = None;
    }
    // The encoding aliases (`#blocked = …`) name nothing any more.
    g.aliases.clear();
    for item in &mut g.items {
        if let Item::Text(text) = item {
            *text = text
                .split('\n')
                .filter(|l| !l.trim_start().starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n");
        }
    }
    true
}
