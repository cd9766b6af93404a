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
//! * an op without side effects whose results are unused is erased;
//! * an op that folds (see [`super::fold`]) is replaced by its fold, before any pattern;
//! * constants are unique per function and stand at the top of its entry block (MLIR's
//!   folder: a constant not already in the leading run of constants moves to the front).

use std::collections::HashMap;

use crate::encodings::Encoding;
use crate::ttgir::graph::{Graph, InsertPoint, OpId, ValueId};

use super::forward::block_arg;
use super::ops::is_removable_op;

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
fn would_be_dead(g: &Graph, op: OpId) -> bool {
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
    // MLIR's greedy rewriter tries an op's folder before any pattern.
    if let Some(new) = super::fold::fold(g, op) {
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
        "scf.for" if patterns == Patterns::Final => for_cleanups(g, op),
        "scf.if" if patterns == Patterns::Final => if_unused_results(g, op),
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

/// The `scf.for` cleanups of the pass's last step: dead iteration arguments (Triton's
/// `ForOpDeadArgElimination`), iteration arguments that only pass their value through (MLIR's
/// `ForOpIterArgsFolder`), then loops whose trip count makes them trivial.
fn for_cleanups(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    if dead_args(g, op) {
        return Some(vec![op]);
    }
    fold_iter_args(g, op).or_else(|| trivial_loop(g, op))
}

/// MLIR's `SimplifyTrivialLoops`: a loop that never runs (equal bounds, or constant bounds
/// with `ub <= lb`) gives its inits; one that runs once (constant `step >= ub - lb`) is its body
/// with the induction variable `lb`; one that runs at least once and only yields values from
/// before it gives those values.
///
/// ```text
/// %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %x) -> (i32) { scf.yield %y : i32 }
/// ```
///
/// is `%y`.
fn trivial_loop(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    let o = g.ops[op].clone();
    let (lb, ub, step) = (*o.operands.first()?, *o.operands.get(1)?, *o.operands.get(2)?);
    let inits = o.operands.get(3..)?.to_vec();
    let y = yield_of(g, op)?;
    let body = g.ops[y].block;
    let mut touched: Vec<OpId> = o.operands.iter().filter_map(|&v| g.def_op(v)).collect();
    for &r in &o.results {
        touched.extend(g.uses(r).into_iter().map(|(u, _)| u));
    }
    let int = |v: ValueId| super::fold::int_constant(g, v);
    let diff = if lb == ub {
        Some(0)
    } else {
        int(ub).zip(int(lb)).map(|(u, l)| u - l)
    }?;
    let replace = |g: &mut Graph, values: &[ValueId]| {
        for (&r, &v) in o.results.iter().zip(values) {
            g.replace_all_uses(r, v);
        }
        g.erase_op(op);
    };
    if diff <= 0 {
        g.note(op, "removed: the loop never runs");
        replace(g, &inits);
        return Some(touched);
    }
    // Without a constant step nothing more is known of the trip count.
    if int(step)? >= diff {
        // Runs once: the body moves before the loop, the induction variable is `lb`.
        let args = g.blocks[body].args.clone();
        let yielded = g.ops[y].operands.clone();
        let map = |v: ValueId| match args.iter().position(|&a| a == v) {
            Some(0) => lb,
            Some(k) => inits.get(k - 1).copied().unwrap_or(v),
            None => v,
        };
        let results: Vec<ValueId> = yielded.iter().map(|&v| map(v)).collect();
        for (k, &a) in args.iter().enumerate() {
            let by = if k == 0 { lb } else { *inits.get(k - 1)? };
            g.replace_all_uses(a, by);
        }
        let moved: Vec<OpId> = g.blocks[body].ops.iter().copied().filter(|&x| x != y).collect();
        let at = g.position(op);
        for (i, &m) in moved.iter().enumerate() {
            g.ops[m].block = at.block;
            g.blocks[at.block].ops.insert(at.index + i, m);
        }
        g.blocks[body].ops.retain(|&x| x == y);
        g.note(op, "removed: the loop runs once, its body takes its place");
        replace(g, &results);
        touched.extend(moved);
        return Some(touched);
    }
    let outside = |v: ValueId| match g.values[v].def {
        crate::ttgir::graph::Def::Result { op: d, .. } => !g.is_ancestor(op, d),
        crate::ttgir::graph::Def::Arg { block, .. } => {
            block != body && g.block_parent_op(block).is_none_or(|p| !g.is_ancestor(op, p))
        }
    };
    if g.blocks[body].ops.len() != 1 || !g.ops[y].operands.iter().all(|&v| outside(v)) {
        return None;
    }
    let yielded = g.ops[y].operands.clone();
    g.note(op, "removed: the loop only yields values from before it");
    replace(g, &yielded);
    Some(touched)
}

fn yield_of(g: &Graph, for_op: OpId) -> Option<OpId> {
    let b = *g.ops[for_op].regions.first()?.first()?;
    g.blocks[b]
        .ops
        .last()
        .copied()
        .filter(|&y| g.ops[y].name == "scf.yield")
}

/// Triton's `ForOpDeadArgElimination`: a loop-carried value nothing outside the chain of the
/// loop uses is yielded as its own argument (then folded away).
fn dead_args(g: &mut Graph, op: OpId) -> bool {
    let Some(y) = yield_of(g, op) else { return false };
    let n = g.ops[op].results.len();
    let uses = g.all_uses();
    let mut alive: Vec<bool> = vec![false; g.values.len()];
    let mut queue = Vec::new();
    let inside = |g: &Graph, v: ValueId| match g.values[v].def {
        crate::ttgir::graph::Def::Result { op: d, .. } => g.is_ancestor(op, d) && d != op,
        crate::ttgir::graph::Def::Arg { block, .. } => {
            g.block_parent_op(block).is_some_and(|p| g.is_ancestor(op, p))
        }
    };
    let mark = |v: ValueId, alive: &mut Vec<bool>, queue: &mut Vec<ValueId>, g: &Graph| {
        if inside(g, v) && !alive[v] {
            alive[v] = true;
            queue.push(v);
        }
    };
    for k in 0..n {
        if !uses[g.ops[op].results[k]].is_empty() {
            mark(g.ops[y].operands[k], &mut alive, &mut queue, g);
        }
    }
    let live_results = (0..n).filter(|&k| !uses[g.ops[op].results[k]].is_empty()).count();
    if live_results == n {
        return false;
    }
    let mut body = Vec::new();
    for region in &g.ops[op].regions {
        for &b in region {
            g.walk_block(b, &mut body);
        }
    }
    for &i in &body {
        let name = g.ops[i].name.as_str();
        if !matches!(name, "scf.yield" | "scf.for") && !would_be_dead(g, i) {
            for &v in &g.ops[i].operands.clone() {
                mark(v, &mut alive, &mut queue, g);
            }
        }
    }
    while let Some(v) = queue.pop() {
        match g.values[v].def {
            crate::ttgir::graph::Def::Result { op: d, index } => match g.ops[d].name.as_str() {
                "scf.for" => {
                    if let Some(&init) = g.ops[d].operands.get(3 + index) {
                        mark(init, &mut alive, &mut queue, g);
                    }
                    if let Some(ny) = yield_of(g, d)
                        && let Some(&yv) = g.ops[ny].operands.get(index)
                    {
                        mark(yv, &mut alive, &mut queue, g);
                    }
                }
                "scf.if" => {
                    mark(g.ops[d].operands[0], &mut alive, &mut queue, g);
                    for region in g.ops[d].regions.clone() {
                        if let Some(&b) = region.first()
                            && let Some(&t) = g.blocks[b].ops.last()
                            && let Some(&yv) = g.ops[t].operands.get(index)
                        {
                            mark(yv, &mut alive, &mut queue, g);
                        }
                    }
                }
                "scf.while" => return false,
                _ => {
                    for &x in &g.ops[d].operands.clone() {
                        mark(x, &mut alive, &mut queue, g);
                    }
                }
            },
            crate::ttgir::graph::Def::Arg { block, index } => {
                if let Some(owner) = g.block_parent_op(block)
                    && g.ops[owner].name == "scf.for"
                    && index > 0
                {
                    if let Some(oy) = yield_of(g, owner)
                        && let Some(&yv) = g.ops[oy].operands.get(index - 1)
                    {
                        mark(yv, &mut alive, &mut queue, g);
                    }
                    if let Some(&init) = g.ops[owner].operands.get(3 + index - 1) {
                        mark(init, &mut alive, &mut queue, g);
                    }
                }
            }
        }
    }
    let mut changed = false;
    for k in 0..n {
        let v = g.ops[y].operands[k];
        if alive[v] {
            continue;
        }
        let Some(arg) = block_arg(g, op, 0, k + 1) else {
            continue;
        };
        if v == arg {
            continue;
        }
        if !inside(g, v) && v != g.ops[op].operands[3 + k] {
            continue;
        }
        g.ops[y].operands[k] = arg;
        changed = true;
    }
    changed
}

/// MLIR's `ForOpIterArgsFolder`: an iteration argument whose yield is itself (or its init), or
/// that nothing uses inside or after the loop, is removed; its result becomes the init.
fn fold_iter_args(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    let y = yield_of(g, op)?;
    let n = g.ops[op].results.len();
    let uses = g.all_uses();
    let mut keep = Vec::new();
    for k in 0..n {
        let arg = block_arg(g, op, 0, k + 1)?;
        let init = g.ops[op].operands[3 + k];
        let yielded = g.ops[y].operands[k];
        let forwarded = yielded == arg || yielded == init;
        let arg_used = uses[arg]
            .iter()
            .any(|&(u, _)| !(u == y && g.ops[y].operands[k] == arg && uses[arg].len() == 1));
        let unused = !arg_used && uses[g.ops[op].results[k]].is_empty();
        keep.push(!(forwarded || unused && yielded == arg));
    }
    if keep.iter().all(|&k| k) {
        return None;
    }
    let o = g.ops[op].clone();
    let body = o.regions[0][0];
    let mut operands = o.operands[..3].to_vec();
    let mut tys = Vec::new();
    for (k, _) in keep.iter().enumerate().filter(|(_, kept)| **kept) {
        operands.push(o.operands[3 + k]);
        tys.push(g.values[o.results[k]].ty.clone());
    }
    let at = g.position(op);
    let new = g.insert_like(op, at, operands, tys.clone());
    let iv_ty = g.values[g.blocks[body].args[0]].ty.clone();
    let nb = g.new_block(
        crate::ttgir::graph::BlockOwner::Op(new),
        std::iter::once(iv_ty).chain(tys).collect(),
    );
    g.ops[new].regions = vec![vec![nb]];
    g.move_ops(body, nb);
    let old_args = g.blocks[body].args.clone();
    g.replace_all_uses(old_args[0], g.blocks[nb].args[0]);
    let mut j = 0;
    for (k, &kept) in keep.iter().enumerate() {
        let init = o.operands[3 + k];
        if kept {
            j += 1;
            g.replace_all_uses(old_args[k + 1], g.blocks[nb].args[j]);
            g.replace_all_uses(o.results[k], g.ops[new].results[j - 1]);
        } else {
            g.replace_all_uses(old_args[k + 1], init);
            g.replace_all_uses(o.results[k], init);
        }
    }
    let ny = g.blocks[nb].ops.last().copied()?;
    let kept: Vec<ValueId> = g.ops[ny]
        .operands
        .iter()
        .enumerate()
        .filter(|(k, _)| keep.get(*k).copied().unwrap_or(true))
        .map(|(_, &v)| v)
        .collect();
    g.ops[ny].operands = kept;
    g.erase_op(op);
    Some(vec![new, ny])
}

/// MLIR's `RemoveUnusedResults` of `scf.if`: results nobody uses are dropped.
fn if_unused_results(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    let uses = g.all_uses();
    let results = g.ops[op].results.clone();
    let used: Vec<bool> = results.iter().map(|&r| !uses[r].is_empty()).collect();
    if used.iter().all(|&u| u) || results.is_empty() {
        return None;
    }
    let o = g.ops[op].clone();
    let tys = results
        .iter()
        .zip(&used)
        .filter(|(_, u)| **u)
        .map(|(&r, _)| g.values[r].ty.clone())
        .collect();
    let at: InsertPoint = g.position(op);
    let new = g.insert_like(op, at, o.operands.clone(), tys);
    let mut regions = Vec::new();
    for region in &o.regions {
        let nb = g.new_block(crate::ttgir::graph::BlockOwner::Op(new), Vec::new());
        if let Some(&b) = region.first() {
            g.move_ops(b, nb);
        }
        if let Some(&y) = g.blocks[nb].ops.last()
            && g.ops[y].name == "scf.yield"
        {
            let kept = g.ops[y]
                .operands
                .iter()
                .zip(&used)
                .filter(|(_, u)| **u)
                .map(|(&v, _)| v)
                .collect();
            g.ops[y].operands = kept;
        }
        regions.push(vec![nb]);
    }
    g.ops[new].regions = regions;
    let mut j = 0;
    for (k, &r) in results.iter().enumerate() {
        if used[k] {
            g.replace_all_uses(r, g.ops[new].results[j]);
            j += 1;
        }
    }
    g.erase_op(op);
    Some(vec![new])
}
