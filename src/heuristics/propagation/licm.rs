//! `triton-licm`: loop-invariant code motion, with Triton's rule for loads.
//!
//! An op inside a loop whose operands all come from outside it computes the same value every
//! iteration, and moves in front of the loop when that is safe: it has no side effects and
//! cannot fault (a division by a value that may be zero stays), or it is a load in a loop
//! that only reads memory — then it is masked by `lb < ub`, so a loop that runs zero times
//! loads nothing:
//!
//! ```text
//! scf.for %i = %lb to %ub step %s {            %c = arith.cmpi slt, %lb, %ub
//!   %x = tt.load %p : …               →       %m = tt.splat %c
//!   …                                          %x = tt.load %p, %m
//! }                                            scf.for … { … }
//! ```
//!
//! Loops are visited innermost first, so an op can leave a nest one level at a time.

use std::collections::VecDeque;

use crate::ttgir::graph::{Def, Graph, OpId, ValueId};
use crate::ttgir::{TypeKind, ValueType};

use super::PassError;
use super::ops::is_removable_when_unused;

/// Whether `v` is defined outside loop `lp`.
fn outside(g: &Graph, v: ValueId, lp: OpId) -> bool {
    match g.values[v].def {
        Def::Result { op, .. } => !g.is_ancestor(lp, op),
        Def::Arg { block, .. } => g.block_parent_op(block).is_none_or(|p| !g.is_ancestor(lp, p)),
    }
}

/// Ops that write memory or have other effects (recursively through regions).
fn has_writes(g: &Graph, op: OpId) -> bool {
    let o = &g.ops[op];
    let own = match o.name.as_str() {
        "tt.load" | "ttg.local_load" | "scf.yield" | "scf.condition" | "scf.for" | "scf.if" | "scf.while" => {
            false
        }
        name => !is_removable_when_unused(name),
    };
    own || o
        .regions
        .iter()
        .flatten()
        .any(|&b| g.blocks[b].ops.iter().any(|&i| has_writes(g, i)))
}

/// Triton's `isSpeculatable && isMemoryEffectFree` for ops other than loads.
pub(super) fn hoistable(g: &Graph, op: OpId) -> bool {
    let o = &g.ops[op];
    let name = o.name.as_str();
    if !o.regions.is_empty() && !matches!(name, "tt.reduce" | "tt.scan") {
        return false;
    }
    if matches!(
        name,
        "arith.divsi"
            | "arith.divui"
            | "arith.remsi"
            | "arith.remui"
            | "arith.ceildivsi"
            | "arith.ceildivui"
            | "arith.floordivsi"
    ) {
        // Speculatable only when the divisor is a constant that cannot fault.
        return o.operands.get(1).and_then(|&d| g.def_op(d)).is_some_and(|d| {
            g.ops[d].name == "arith.constant" && {
                let text = g.op_text_without_results(d);
                let value = text.split_whitespace().nth(1).unwrap_or("");
                !matches!(value, "0" | "-1" | "dense<0>" | "dense<-1>")
            }
        });
    }
    if matches!(
        name,
        "tt.load" | "tt.print" | "tt.assert" | "tt.histogram" | "tt.gather"
    ) {
        return name == "tt.histogram" || name == "tt.gather";
    }
    is_removable_when_unused(name) && name != "ttg.local_alloc" && name != "ttg.local_load"
}

/// Whether every value `op` (and its regions) reads from above it is defined outside `lp`.
fn operands_outside(g: &Graph, op: OpId, lp: OpId) -> bool {
    let mut ops = vec![op];
    for region in &g.ops[op].regions {
        for &b in region {
            g.walk_block(b, &mut ops);
        }
    }
    ops.iter().all(|&i| {
        g.ops[i]
            .operands
            .iter()
            .all(|&v| outside(g, v, lp) || !outside(g, v, op) && v != op)
    })
}

/// Triton 3.6's `triton-licm` on `g`, in place.
///
/// ```
/// use linear_layout::heuristics::propagation::licm;
/// use linear_layout::ttgir::graph::Graph;
/// let text = r#"
/// #a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
/// module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @k(%p: tensor<256x!tt.ptr<f32>, #a>, %n: i32) {
///     %c0 = arith.constant 0 : i32
///     %c1 = arith.constant 1 : i32
///     %z = arith.constant dense<0.000000e+00> : tensor<256xf32, #a>
///     %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<256xf32, #a>)  : i32 {
///       %x = tt.load %p : tensor<256x!tt.ptr<f32>, #a>
///       %s = arith.addf %acc, %x : tensor<256xf32, #a>
///       scf.yield %s : tensor<256xf32, #a>
///     }
///     tt.return
///   }
/// }"#;
/// let mut g = Graph::parse(text)?;
/// licm(&mut g)?;
/// let out = g.print()?;
/// assert!(out.find("tt.load").unwrap() < out.find("scf.for").unwrap(), "{out}");
/// assert!(out.contains("arith.cmpi slt, %c0, %n : i32"), "{out}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn licm(g: &mut Graph) -> Result<(), PassError> {
    super::bounded(g)?;
    // Innermost loops first: the post-order of the walk.
    for lp in post_order_loops(g) {
        hoist_invariants(g, lp, true)?;
    }
    Ok(())
}

/// The loops in MLIR's default walk order: nested ones before the loop holding them.
fn post_order_loops(g: &Graph) -> Vec<OpId> {
    fn visit(g: &Graph, b: usize, out: &mut Vec<OpId>) {
        for &o in &g.blocks[b].ops {
            for region in &g.ops[o].regions {
                for &rb in region {
                    visit(g, rb, out);
                }
            }
            if g.ops[o].name == "scf.for" {
                out.push(o);
            }
        }
    }
    let mut out = Vec::new();
    for f in &g.funcs {
        for &b in &f.blocks {
            visit(g, b, &mut out);
        }
    }
    out
}

/// Moves the invariant ops of loop `lp`'s body in front of it; loads only with `with_loads`
/// (Triton's rule; MLIR's own loop-invariant code motion leaves them).
pub(super) fn hoist_invariants(g: &mut Graph, lp: OpId, with_loads: bool) -> Result<(), PassError> {
    let Some(&body) = g.ops[lp].regions.first().and_then(|r| r.first()) else {
        return Ok(());
    };
    let loop_reads_only = !g.blocks[body].ops.iter().any(|&o| has_writes(g, o));
    let mut work: VecDeque<OpId> = g.blocks[body].ops.iter().copied().collect();
    // Each op moves at most once; a moved op's users are queued again: bounded by uses.
    while let Some(op) = work.pop_front() {
        if g.ops[op].erased || g.ops[op].block != body {
            continue;
        }
        let is_load = g.ops[op].name == "tt.load";
        let allowed = if is_load {
            with_loads && loop_reads_only
        } else {
            hoistable(g, op)
        };
        if !allowed || !operands_outside(g, op, lp) {
            continue;
        }
        if is_load {
            mask_by_trip_count(g, op, lp)?;
        }
        let at = g.position(lp);
        g.blocks[body].ops.retain(|&o| o != op);
        g.blocks[at.block].ops.insert(at.index, op);
        g.ops[op].block = at.block;
        let results = g.ops[op].results.clone();
        for &r in &results {
            for (user, _) in g.uses(r) {
                if g.ops[user].block == body {
                    work.push_back(user);
                }
            }
        }
    }
    Ok(())
}

/// Masks a load leaving loop `lp` by `lb < ub` (and its own mask).
fn mask_by_trip_count(g: &mut Graph, load: OpId, lp: OpId) -> Result<(), PassError> {
    let err = |g: &Graph, e: crate::ttgir::TtgirError| PassError::new(g, Some(load), &e.message);
    let (lb, ub) = (g.ops[lp].operands[0], g.ops[lp].operands[1]);
    let at = g.position(lp);
    let cond = g
        .insert_text(
            at,
            "arith.cmpi",
            vec![lb, ub],
            vec![ValueType::scalar("i1")],
            "$r = arith.cmpi slt, $0, $1 : $t0",
        )
        .map_err(|e| err(g, e))?;
    let cond = g.ops[cond].results[0];
    let ptr_ty = g.values[g.ops[load].operands[0]].ty.clone();
    if ptr_ty.kind != TypeKind::Tensor {
        // A scalar load: the condition itself masks it.
        return set_mask(g, load, cond);
    }
    let mask_ty = ValueType {
        element: "i1".to_string(),
        ..ptr_ty
    };
    let at = g.position(lp);
    let splat = g
        .insert_text(
            at,
            "tt.splat",
            vec![cond],
            vec![mask_ty.clone()],
            "$r = tt.splat $0 : $t0 -> $rt0",
        )
        .map_err(|e| err(g, e))?;
    let splat = g.ops[splat].results[0];
    let mask = match g.ops[load].operands.get(1).copied() {
        Some(old) => {
            let at = g.position(lp);
            let and = g
                .insert_text(
                    at,
                    "arith.andi",
                    vec![old, splat],
                    vec![mask_ty],
                    "$r = arith.andi $0, $1 : $t0",
                )
                .map_err(|e| err(g, e))?;
            g.ops[and].results[0]
        }
        None => splat,
    };
    set_mask(g, load, mask)
}

/// Gives `load` the mask `mask` (a new operand after the pointer when it had none).
fn set_mask(g: &mut Graph, load: OpId, mask: ValueId) -> Result<(), PassError> {
    if g.ops[load].operands.len() >= 2 {
        g.ops[load].operands[1] = mask;
        return Ok(());
    }
    g.insert_operand_after(load, 0, mask)
        .map_err(|e| PassError::new(g, Some(load), &e.message))
}
