//! `tritonamdgpu-optimize-dot-operands`: stage the scales of gfx950's scaled upcasts in LDS.
//!
//! On CDNA4 a dot operand in a microscaling format is upcast next to the matrix instruction
//! (`amdg.scaled_upcast_fp8 %x scale %s`), its scale tensor loaded from global memory and
//! spread over the operand's layout by a chain of broadcasts, transposes and reshapes. Inside a
//! loop the pass puts the load of the scales through shared memory, unswizzled, so the software
//! pipeliner that runs later can prefetch it like any other operand:
//!
//! ```text
//! %s = tt.load %p : tensor<128x4xi8, #blocked>
//! %c = ttg.convert_layout %s : #blocked -> #linear      … -> amdg.scaled_upcast_fp8
//! ```
//!
//! becomes
//!
//! ```text
//! %s = tt.load %p : tensor<128x4xi8, #blocked>
//! %a = ttg.local_alloc %s : !ttg.memdesc<128x4xi8, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #smem>
//! %c = ttg.local_load %a : … -> tensor<128x4xi8, #linear>
//! ```
//!
//! (the convert folds into the read). The convert canonicalizations run with it.

use std::collections::HashSet;
use std::sync::Arc;

use crate::encodings::{Encoding, Swizzled};
use crate::ttgir::graph::{Graph, OpId, ValueId};
use crate::ttgir::{TypeKind, ValueType};

use super::PassError;
use super::cleanup;
use super::duplication::order_for_memory;

/// Triton 3.6's `tritonamdgpu-optimize-dot-operands` on `g`, in place: on CDNA4 (MFMA version
/// 4, from the target table) the scales of each scaled upcast inside a loop, loaded by exactly
/// one `tt.load` and not yet in shared memory, go through an unswizzled LDS buffer; then the
/// convert canonicalizations (and the greedy rewriter's cleanups) run.
///
/// ```
/// use linear_layout::heuristics::propagation::optimize_dot_operands;
/// use linear_layout::ttgir::graph::Graph;
/// let text = r#"
/// #a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
/// module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @k(%x: tensor<256xf32, #a>) {
///     %c = ttg.convert_layout %x : tensor<256xf32, #a> -> tensor<256xf32, #a>
///     %y = arith.addf %c, %c : tensor<256xf32, #a>
///     tt.return
///   }
/// }"#;
/// let mut g = Graph::parse(text)?;
/// optimize_dot_operands(&mut g, "gfx942")?;
/// assert!(!g.print()?.contains("convert_layout"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn optimize_dot_operands(g: &mut Graph, arch: &str) -> Result<(), PassError> {
    super::bounded(g)?;
    let cdna4 = crate::target::Target::by_name(arch).is_ok_and(|t| t.matrix.mfma_version == Some(4));
    if cdna4 {
        let upcasts: Vec<OpId> = g
            .walk()
            .into_iter()
            .filter(|&o| {
                matches!(
                    g.ops[o].name.as_str(),
                    "amdg.scaled_upcast_fp4" | "amdg.scaled_upcast_fp8"
                )
            })
            .collect();
        for op in upcasts {
            if let Some(load) = scale_load(g, op) {
                stage_in_shared_memory(g, op, load)?;
            }
        }
    }
    cleanup::canonicalize(g, cleanup::Patterns::Converts);
    Ok(())
}

/// The one `tt.load` the scales of the upcast `op` come from, when `op` is inside a loop and
/// the scales do not already pass through shared memory.
fn scale_load(g: &Graph, op: OpId) -> Option<OpId> {
    let mut parent = g.parent_op(op);
    while let Some(p) = parent
        && g.ops[p].name != "scf.for"
    {
        parent = g.parent_op(p);
    }
    parent?;
    let &scale = g.ops[op].operands.get(1)?;
    let slice = backward_slice(g, scale);
    if slice.iter().any(|&o| g.ops[o].name == "ttg.local_load") {
        return None;
    }
    let mut loads = slice.into_iter().filter(|&o| g.ops[o].name == "tt.load");
    match (loads.next(), loads.next()) {
        (Some(load), None) => Some(load),
        _ => None,
    }
}

/// The ops `v` is computed from, not counting the op that defines it (MLIR's `getBackwardSlice`
/// of a value, not inclusive, block arguments not followed).
fn backward_slice(g: &Graph, v: ValueId) -> HashSet<OpId> {
    let mut slice = HashSet::new();
    let Some(root) = g.def_op(v) else {
        return slice;
    };
    let mut stack = vec![root];
    while let Some(op) = stack.pop() {
        for &operand in &g.ops[op].operands {
            if let Some(def) = g.def_op(operand)
                && def != root
                && slice.insert(def)
            {
                stack.push(def);
            }
        }
    }
    slice
}

/// `load`'s result stored in an unswizzled LDS buffer right after it and read back for every
/// user.
fn stage_in_shared_memory(g: &mut Graph, upcast: OpId, load: OpId) -> Result<(), PassError> {
    let fail = |g: &Graph| {
        PassError::new(
            g,
            Some(load),
            "optimize_dot_operands: cannot stage this load in LDS",
        )
    };
    let &loaded = g.ops[load].results.first().ok_or_else(|| fail(g))?;
    let ty = g.values[loaded].ty.clone();
    let order = order_for_memory(&ty).ok_or_else(|| fail(g))?;
    let cga_layout = match ty.encoding.as_deref() {
        Some(Encoding::Blocked(b)) => b.cga_layout.clone(),
        _ => Vec::new(),
    };
    let shared = Swizzled {
        vec: 1,
        per_phase: 1,
        max_phase: 1,
        order,
        cga_layout,
    };
    let buffer_ty = ValueType {
        kind: TypeKind::MemDesc,
        encoding: Some(Arc::new(Encoding::SwizzledShared(shared))),
        memory: vec!["#ttg.shared_memory".to_string()],
        ..ty.clone()
    };
    let users = g.uses(loaded);
    let at = g.after_value(loaded);
    let alloc = g.insert_built(at, "ttg.local_alloc", vec![loaded], vec![buffer_ty]);
    let buffer = g.ops[alloc].results[0];
    let at = g.after_value(buffer);
    let read = g.insert_built(at, "ttg.local_load", vec![buffer], vec![ty]);
    let value = g.ops[read].results[0];
    for (user, k) in users {
        g.ops[user].operands[k] = value;
    }
    g.note(
        upcast,
        "its scales go through LDS (unswizzled), for the pipeliner to prefetch",
    );
    Ok(())
}
