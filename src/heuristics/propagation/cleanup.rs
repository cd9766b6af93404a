//! The cleanups the passes run between their steps: MLIR's greedy rewriter with Triton's
//! `ttg.convert_layout` canonicalizations, and at the end of the pass the loop and branch
//! cleanups.
//!
//! What they do to a module, as laws:
//!
//! * `convert(x : A -> A)` is `x`;
//! * `convert(convert(x : A -> B) : B -> C)` is `convert(x : A -> C)`;
//! * a convert of a `tt.splat`, `tt.make_range`, splat constant, `tt.histogram` or
//!   `ttg.local_load` is that op made directly in the convert's layout;
//! * `tt.reshape(convert(x))` is `tt.reshape(x)` when the convert only renames the layout (both
//!   sides the same linear layout), or when the reshape may reorder elements and reshaping `x`
//!   itself moves no data between threads (Triton's `isExpensiveView`);
//! * an op without side effects whose results are unused is erased;
//! * constants are unique per function and stand at the top of its entry block (MLIR's
//!   folder: a constant not already in the leading run of constants moves to the front);
//! * ops fold as MLIR's and Triton's folders say, before any pattern, in every pass
//!   ([`fold`]);
//! * at the end of a pass, `scf.for` and `scf.if` are canonicalized ([`scf_cleanup`]).

use std::collections::HashMap;

use crate::encodings::Encoding;
use crate::ttgir::graph::{Graph, OpId, ValueId};

use super::locality::{is_expensive_view, layout};
use super::ops::is_removable_op;
use super::{fold, scf_cleanup};
use crate::ttgir::attr;

/// Most rounds of the greedy rewriter (MLIR's default).
const MAX_ROUNDS: usize = 10;

/// Which pattern sets run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Patterns {
    /// `ConvertLayoutOp`'s canonicalizations.
    Converts,
    /// Those plus dead loop arguments and the `scf.for` / `scf.if` cleanups (the pass's last
    /// step).
    Final,
    /// Only `tritonamdgpu-optimize-epilogue`'s store rewrite.
    Epilogue,
    /// No pattern: dead ops and constants only.
    None,
}

/// Runs the greedy rewriter on the whole module.
pub(super) fn canonicalize(g: &mut Graph, patterns: Patterns) {
    let mut owned: Vec<bool> = Vec::new();
    let mut uniques: Vec<HashMap<String, OpId>> = vec![HashMap::new(); g.funcs.len()];
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        let mut worklist = Vec::new();
        for (f, unique) in uniques.iter_mut().enumerate() {
            for op in post_order(g, f) {
                if g.ops[op].erased {
                    continue;
                }
                if g.ops[op].name == "arith.constant" {
                    owned.resize(g.ops.len(), false);
                    changed |= known_constant(g, f, op, &mut owned, unique);
                } else {
                    worklist.push(op);
                }
            }
        }
        // Live uses per value: kept up to date as ops are erased, counted again after a
        // pattern rewrites (one walk per rewrite, not one per op).
        let mut uses = use_counts(g);
        while let Some(op) = worklist.pop() {
            if g.ops[op].erased {
                continue;
            }
            if would_be_dead(g, op)
                && g.ops[op]
                    .results
                    .iter()
                    .all(|&r| uses.get(r).is_none_or(|&n| n == 0))
            {
                for &v in &g.ops[op].operands.clone() {
                    worklist.extend(g.def_op(v));
                }
                let mut gone = vec![op];
                for region in &g.ops[op].regions {
                    for &b in region {
                        g.walk_block(b, &mut gone);
                    }
                }
                for o in gone {
                    for &v in &g.ops[o].operands {
                        if let Some(n) = uses.get_mut(v) {
                            *n = n.saturating_sub(1);
                        }
                    }
                }
                g.erase_op(op);
                changed = true;
                continue;
            }
            if let Some(new) = apply(g, op, patterns) {
                worklist.extend(new);
                changed = true;
                uses = use_counts(g);
            }
        }
        if !changed {
            return;
        }
    }
}

/// The ops of function `f`, nested ops before the op holding them (MLIR's default walk).
fn post_order(g: &Graph, f: usize) -> Vec<OpId> {
    fn visit(g: &Graph, b: usize, out: &mut Vec<OpId>) {
        for &o in &g.blocks[b].ops {
            for region in &g.ops[o].regions {
                for &rb in region {
                    visit(g, rb, out);
                }
            }
            out.push(o);
        }
    }
    let mut out = Vec::new();
    for &b in &g.funcs[f].blocks {
        visit(g, b, &mut out);
    }
    out
}

/// How many live ops use each value.
fn use_counts(g: &Graph) -> Vec<usize> {
    let mut n = vec![0usize; g.values.len()];
    for o in g.walk() {
        for &v in &g.ops[o].operands {
            if let Some(c) = n.get_mut(v) {
                *c += 1;
            }
        }
    }
    n
}

/// Whether `op` has no effect but its results (region ops: nothing inside has one).
pub(super) fn would_be_dead(g: &Graph, op: OpId) -> bool {
    let o = &g.ops[op];
    match o.name.as_str() {
        "scf.for" | "scf.if" | "scf.while" => o.regions.iter().flatten().all(|&b| {
            g.blocks[b].ops.iter().all(|&i| {
                matches!(g.ops[i].name.as_str(), "scf.yield" | "scf.condition") || would_be_dead(g, i)
            })
        }),
        "tt.reduce" | "tt.scan" | "tt.map_elementwise" => true,
        _ => o.regions.is_empty() && !o.results.is_empty() && is_removable_op(g, op),
    }
}

/// The text of a constant without its result name: equal texts are equal constants.
fn constant_key(g: &Graph, op: OpId) -> String {
    g.op_text_without_results(op)
}

/// MLIR's `OperationFolder::insertKnownConstant`: a constant equal to one seen before in the
/// function is replaced by it; otherwise it moves to the front of the entry block unless it is
/// there or follows a constant already placed. Returns whether the module changed.
fn known_constant(
    g: &mut Graph,
    f: usize,
    op: OpId,
    owned: &mut [bool],
    uniques: &mut HashMap<String, OpId>,
) -> bool {
    let key = constant_key(g, op);
    if let Some(&first) = uniques.get(&key)
        && first != op
        && !g.ops[first].erased
    {
        let (old, new) = (g.ops[op].results[0], g.ops[first].results[0]);
        g.replace_all_uses(old, new);
        g.erase_op(op);
        return true;
    }
    let Some(&entry) = g.funcs[f].blocks.first() else {
        return false;
    };
    let p = g.position(op);
    let in_place = p.block == entry
        && (p.index == 0
            || owned
                .get(g.blocks[entry].ops[p.index - 1])
                .copied()
                .unwrap_or(false));
    let mut changed = false;
    if !in_place {
        g.blocks[p.block].ops.remove(p.index);
        g.blocks[entry].ops.insert(0, op);
        g.ops[op].block = entry;
        changed = true;
    }
    if let Some(o) = owned.get_mut(op) {
        *o = true;
    }
    uniques.insert(key, op);
    changed
}

/// Applies the first pattern that matches `op`; returns the ops it made or changed.
fn apply(g: &mut Graph, op: OpId, patterns: Patterns) -> Option<Vec<OpId>> {
    // MLIR's greedy rewriter tries the op's folder before its patterns, in every pass.
    if let Some(new) = fold::fold(g, op) {
        return Some(new);
    }
    match patterns {
        Patterns::Epilogue if g.ops[op].name == "tt.store" => return super::epilogue::bypass(g, op),
        Patterns::Epilogue | Patterns::None => return None,
        Patterns::Converts | Patterns::Final => {}
    }
    match g.ops[op].name.as_str() {
        "ttg.convert_layout" => convert_from_convert(g, op),
        "ttg.local_alloc" | "ttg.local_store" | "tt.histogram" => fold_convert_operand(g, op),
        "tt.reshape" => reshape_of_convert(g, op),
        "scf.for" if patterns == Patterns::Final => scf_cleanup::for_cleanups(g, op),
        "scf.if" if patterns == Patterns::Final => scf_cleanup::if_cleanups(g, op),
        _ => None,
    }
}

/// Replaces every use of `op`'s results by `values` and erases it.
fn replace_op(g: &mut Graph, op: OpId, values: &[ValueId]) {
    for (k, &r) in g.ops[op].results.clone().iter().enumerate() {
        if let Some(&v) = values.get(k) {
            g.replace_all_uses(r, v);
        }
    }
    g.erase_op(op);
}

/// Triton's `CanonicalizeConvertFromConvert`.
fn convert_from_convert(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    let src = g.ops[op].operands[0];
    let res = g.ops[op].results[0];
    if g.values[src].ty == g.values[res].ty {
        g.note(op, "removed: its source already has the destination layout");
        let users = g.uses(res).into_iter().map(|(u, _)| u).collect();
        replace_op(g, op, &[src]);
        return Some(users);
    }
    let dst_ty = g.values[res].ty.clone();
    if let (Some(d), Some(s)) = (&dst_ty.encoding, g.encoding(src))
        && matches!(**d, Encoding::DotOperand(_))
        && matches!(**s, Encoding::NvidiaMma(_))
    {
        return None;
    }
    let arg = g.def_op(src)?;
    let at = g.position(op);
    let name = g.ops[arg].name.clone();
    let new = match name.as_str() {
        "tt.histogram" | "tt.splat" | "tt.make_range" => {
            let operands = g.ops[arg].operands.clone();
            g.insert_like(arg, at, operands, vec![dst_ty])
        }
        "ttg.local_load" => {
            let operands = g.ops[arg].operands.clone();
            let at = g.position(arg);
            g.insert_like(arg, at, operands, vec![dst_ty])
        }
        "ttg.convert_layout" => {
            let inner = g.ops[arg].operands[0];
            g.insert_like(op, at, vec![inner], vec![dst_ty])
        }
        "arith.constant" if is_splat_constant(g, arg) => g.insert_like(arg, at, Vec::new(), vec![dst_ty]),
        _ => return None,
    };
    let what = if name == "ttg.convert_layout" {
        "merged with the convert before it".to_string()
    } else {
        format!("folded: the {name} it converts is made in the destination layout")
    };
    g.note(op, what);
    let r = g.ops[new].results[0];
    let mut touched = vec![new];
    touched.extend(g.uses(res).into_iter().map(|(u, _)| u));
    touched.push(arg);
    replace_op(g, op, &[r]);
    Some(touched)
}

/// Triton's `CanonicalizeConvertFromReshape`: `reshape(convert(x))` reshapes `x` itself where
/// the convert is trivial (the same linear layout on both sides), or where the reshape has
/// `allow_reorder` and reshaping `x` is not an expensive view. The reshape keeps its attributes
/// (`efficient_layout` too).
///
/// ```text
/// %c = ttg.convert_layout %x : tensor<16x32xf32, #A> -> tensor<16x32xf32, #B>
/// %r = tt.reshape %c allow_reorder : tensor<16x32xf32, #B> -> tensor<512xf32, #C>
/// // becomes
/// %r = tt.reshape %x allow_reorder : tensor<16x32xf32, #A> -> tensor<512xf32, #C>
/// ```
fn reshape_of_convert(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    let src = *g.ops[op].operands.first()?;
    let cvt = g.def_op(src)?;
    if g.ops[cvt].name != "ttg.convert_layout" {
        return None;
    }
    let inner = *g.ops[cvt].operands.first()?;
    let (from, to) = (&g.values[inner].ty, &g.values[src].ty);
    let trivial = matches!((layout(from), layout(to)), (Some(a), Some(b)) if a == b);
    if !trivial {
        let result = &g.values[*g.ops[op].results.first()?].ty;
        if is_expensive_view(from, result) || attr(&g.ops[op].attrs, "allow_reorder").is_none() {
            return None;
        }
    }
    g.note(
        op,
        "reshapes the converted value's source: the convert before it folded",
    );
    g.ops[op].operands[0] = inner;
    Some(vec![op, cvt])
}

fn is_splat_constant(g: &Graph, op: OpId) -> bool {
    let text = g.op_text_without_results(op);
    text.contains("dense<") && !text.contains("dense<[") && !text.contains("dense<\"")
}

/// `local_alloc(convert(x))`, `local_store(convert(x))`, `histogram(convert(x))`: the op reads
/// `x` (shared memory and histograms do not care about the source's layout).
fn fold_convert_operand(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    let &src = g.ops[op].operands.first()?;
    let cvt = g.def_op(src)?;
    if g.ops[cvt].name != "ttg.convert_layout" {
        return None;
    }
    if g.ops[op].name == "tt.histogram" && g.ops[op].operands.len() > 1 {
        return None;
    }
    let inner = g.ops[cvt].operands[0];
    g.ops[op].operands[0] = inner;
    Some(vec![op, cvt])
}
