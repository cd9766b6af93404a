//! The `scf.for` and `scf.if` canonicalizations that run at the end of a pass (MLIR's
//! patterns of those ops, as the canonicalizer and Triton's cleanups apply them).
//!
//! * a loop-carried value nothing uses is dropped, as is one that only passes its value
//!   through: `scf.for … iter_args(%a = %x) { scf.yield %a }` gives `%x`;
//! * a loop that never runs gives its inits, one that runs once is its body, one that only
//!   yields values from before it gives them: `scf.for %i = %c0 to %c0 …` gives its inits;
//! * an `scf.if` on a constant condition is the branch it takes;
//! * an `scf.if` result yielding values defined outside the `if` is an `arith.select` before
//!   it (the same value on both sides is that value);
//! * unused `scf.if` results are dropped, and an empty `else` of an `if` without results.

use crate::ttgir::graph::{BlockOwner, Def, Graph, InsertPoint, OpId, ValueId};

use super::cleanup::would_be_dead;
use super::fold::{bool_constant, int_value};
use super::forward::block_arg;

/// The `scf.for` cleanups of the pass's last step: dead iteration arguments (Triton's
/// `ForOpDeadArgElimination`), iteration arguments that only pass their value through (MLIR's
/// `ForOpIterArgsFolder`), then loops whose trip count makes them trivial.
pub(super) fn for_cleanups(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    if dead_args(g, op) {
        return Some(vec![op]);
    }
    fold_iter_args(g, op).or_else(|| trivial_loop(g, op))
}

/// The `scf.yield` of the loop `for_op`, when the loop is well formed: as many inits, block
/// arguments after the induction variable and yielded values as results.
fn yield_of(g: &Graph, for_op: OpId) -> Option<OpId> {
    let o = &g.ops[for_op];
    let b = *o.regions.first()?.first()?;
    let n = o.results.len();
    let y = g.blocks[b]
        .ops
        .last()
        .copied()
        .filter(|&y| g.ops[y].name == "scf.yield")?;
    (o.operands.len() == 3 + n && g.blocks[b].args.len() == 1 + n && g.ops[y].operands.len() == n)
        .then_some(y)
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
        Def::Result { op: d, .. } => g.is_ancestor(op, d) && d != op,
        Def::Arg { block, .. } => g.block_parent_op(block).is_some_and(|p| g.is_ancestor(op, p)),
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
            Def::Result { op: d, index } => match g.ops[d].name.as_str() {
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
                    if let Some(&cond) = g.ops[d].operands.first() {
                        mark(cond, &mut alive, &mut queue, g);
                    }
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
            Def::Arg { block, index } => {
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
    let nb = g.new_block(BlockOwner::Op(new), std::iter::once(iv_ty).chain(tys).collect());
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
    let int = |v: ValueId| int_value(g, v);
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
        Def::Result { op: d, .. } => !g.is_ancestor(op, d),
        Def::Arg { block, .. } => {
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

/// MLIR's `scf.if` canonicalizations, the first that applies, in MLIR's order:
/// [`if_to_select`], [`drop_empty_else`], [`static_condition`], [`drop_unused_results`],
/// [`same_yield`]. (MLIR's `CombineIfs`, `CombineNestedIfs` and `ConditionPropagation` are
/// not reproduced.)
pub(super) fn if_cleanups(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    if_to_select(g, op)
        .or_else(|| drop_empty_else(g, op))
        .or_else(|| static_condition(g, op))
        .or_else(|| drop_unused_results(g, op))
        .or_else(|| same_yield(g, op))
}

/// The `scf.yield` ending region `k` of `op`.
fn region_yield(g: &Graph, op: OpId, k: usize) -> Option<OpId> {
    let b = *g.ops[op].regions.get(k)?.first()?;
    g.blocks[b]
        .ops
        .last()
        .copied()
        .filter(|&y| g.ops[y].name == "scf.yield")
}

/// The values both branches of `op` yield, result by result: `(then, else)`.
fn yields(g: &Graph, op: OpId) -> Option<Vec<(ValueId, ValueId)>> {
    let (t, e) = (region_yield(g, op, 0)?, region_yield(g, op, 1)?);
    let (t, e) = (&g.ops[t].operands, &g.ops[e].operands);
    let n = g.ops[op].results.len();
    (t.len() == n && e.len() == n).then(|| t.iter().copied().zip(e.iter().copied()).collect())
}

/// A new `scf.if` right before `op` with `op`'s condition and its results where `keep` says,
/// both branches moved into it with their yields cut to the kept values; uses of the kept
/// results move to the new op. `op` is left empty, for the caller to replace and erase.
fn rebuild_if(g: &mut Graph, op: OpId, keep: &[bool]) -> OpId {
    let o = g.ops[op].clone();
    let tys = o
        .results
        .iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .map(|(&r, _)| g.values[r].ty.clone())
        .collect();
    let at: InsertPoint = g.position(op);
    let new = g.insert_like(op, at, o.operands.clone(), tys);
    let mut regions = Vec::new();
    for region in &o.regions {
        let nb = g.new_block(BlockOwner::Op(new), Vec::new());
        if let Some(&b) = region.first() {
            g.move_ops(b, nb);
        }
        if let Some(&y) = g.blocks[nb].ops.last()
            && g.ops[y].name == "scf.yield"
        {
            let kept = g.ops[y]
                .operands
                .iter()
                .zip(keep)
                .filter(|(_, k)| **k)
                .map(|(&v, _)| v)
                .collect();
            g.ops[y].operands = kept;
        }
        regions.push(vec![nb]);
    }
    g.ops[new].regions = regions;
    let kept_results = o.results.iter().zip(keep).filter(|(_, k)| **k);
    for ((&r, _), &nr) in kept_results.zip(&g.ops[new].results.clone()) {
        g.replace_all_uses(r, nr);
    }
    new
}

/// Whether `v` is defined directly in the block of region `k` of `op`.
fn defined_in_region(g: &Graph, op: OpId, k: usize, v: ValueId) -> bool {
    let Some(&b) = g.ops[op].regions.get(k).and_then(|r| r.first()) else {
        return false;
    };
    match g.values[v].def {
        Def::Result { op: d, .. } => g.ops[d].block == b,
        Def::Arg { block, .. } => block == b,
    }
}

/// MLIR's `ConvertTrivialIfToSelect`: a result whose two yielded values are defined outside
/// the `if` becomes `arith.select %cond, %then, %else` right before it (or the value itself
/// when both are the same); the `if` keeps the other results.
///
/// `%r:2 = scf.if %c -> (i32, i32) { … scf.yield %a, %x } else { scf.yield %b, %y }`, with
/// `%x`, `%y` defined before, becomes `%s = arith.select %c, %x, %y : i32` and
/// `%r = scf.if %c -> (i32) { … scf.yield %a } else { scf.yield %b }`.
fn if_to_select(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    if g.ops[op].results.is_empty() {
        return None;
    }
    let pairs = yields(g, op)?;
    let keep: Vec<bool> = pairs
        .iter()
        .map(|&(t, e)| defined_in_region(g, op, 0, t) || defined_in_region(g, op, 1, e))
        .collect();
    if keep.iter().all(|&k| k) {
        return None;
    }
    let cond = *g.ops[op].operands.first()?;
    let results = g.ops[op].results.clone();
    let new = rebuild_if(g, op, &keep);
    let mut touched = vec![new];
    for (k, &(t, e)) in pairs.iter().enumerate() {
        if keep[k] {
            continue;
        }
        let value = if t == e {
            t
        } else {
            let ty = g.values[results[k]].ty.clone();
            let at = g.position(new);
            let select = g
                .insert_text(
                    at,
                    "arith.select",
                    vec![cond, t, e],
                    vec![ty],
                    "$r = arith.select $0, $1, $2 : $rt0",
                )
                .ok()?;
            g.note(select, "an scf.if result yielding values defined outside it");
            touched.push(select);
            g.ops[select].results[0]
        };
        touched.extend(g.uses(results[k]).into_iter().map(|(u, _)| u));
        g.replace_all_uses(results[k], value);
    }
    g.erase_op(op);
    Some(touched)
}

/// MLIR's `RemoveEmptyElseBranch`: an `if` without results whose `else` holds only its yield
/// loses the `else`.
fn drop_empty_else(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    if !g.ops[op].results.is_empty() {
        return None;
    }
    let &b = g.ops[op].regions.get(1)?.first()?;
    if g.blocks[b].ops.len() > 1 {
        return None;
    }
    if let Some(&y) = g.blocks[b].ops.first() {
        g.erase_op(y);
    }
    g.ops[op].regions.truncate(1);
    Some(vec![op])
}

/// Moves the ops of block `b` but its terminator right before `op`; returns the values the
/// terminator yielded.
fn inline_before(g: &mut Graph, b: usize, op: OpId) -> Vec<ValueId> {
    let mut ops = std::mem::take(&mut g.blocks[b].ops);
    let mut yielded = Vec::new();
    if let Some(&y) = ops.last()
        && g.ops[y].name == "scf.yield"
    {
        yielded = g.ops[y].operands.clone();
        ops.pop();
        g.blocks[b].ops.push(y);
        g.erase_op(y);
    }
    let at = g.position(op);
    for &o in &ops {
        g.ops[o].block = at.block;
    }
    g.blocks[at.block].ops.splice(at.index..at.index, ops);
    yielded
}

/// MLIR's `RemoveStaticCondition`: `scf.if %true { A } else { B }` is `A` in place of the
/// `if` (its results the values `A` yields); on `%false` it is `B`, or nothing without an
/// `else`.
fn static_condition(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    let &cond = g.ops[op].operands.first()?;
    let taken = if bool_constant(g, cond)? { 0 } else { 1 };
    let results = g.ops[op].results.clone();
    let mut touched: Vec<OpId> = results
        .iter()
        .flat_map(|&r| g.uses(r).into_iter().map(|(u, _)| u))
        .collect();
    if let Some(&b) = g.ops[op].regions.get(taken).and_then(|r| r.first()) {
        touched.extend(g.blocks[b].ops.iter().copied());
        let yielded = inline_before(g, b, op);
        for (&r, &v) in results.iter().zip(&yielded) {
            g.replace_all_uses(r, v);
        }
    } else if !results.is_empty() {
        return None;
    }
    touched.extend(g.def_op(cond));
    g.note(op, "inlined: its condition is a constant");
    g.erase_op(op);
    touched.retain(|&o| !g.ops[o].erased);
    Some(touched)
}

/// MLIR's `RemoveUnusedResults` of `scf.if`: results nobody uses are dropped.
fn drop_unused_results(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    let uses = g.all_uses();
    let used: Vec<bool> = g.ops[op].results.iter().map(|&r| !uses[r].is_empty()).collect();
    if used.iter().all(|&u| u) {
        return None;
    }
    let new = rebuild_if(g, op, &used);
    g.erase_op(op);
    Some(vec![new])
}

/// MLIR's `ReplaceIfYieldWithConditionOrValue`: a used result yielding the same value on both
/// sides is that value; one yielding `true`/`false` is the condition, `false`/`true` its
/// negation (`arith.xori %cond, %true`, made before the `if`).
fn same_yield(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    let pairs = yields(g, op)?;
    let &cond = g.ops[op].operands.first()?;
    let results = g.ops[op].results.clone();
    let mut touched = Vec::new();
    for (k, &(t, e)) in pairs.iter().enumerate() {
        let users: Vec<OpId> = g.uses(results[k]).into_iter().map(|(u, _)| u).collect();
        if users.is_empty() {
            continue;
        }
        let value = if t == e {
            t
        } else {
            match (bool_constant(g, t), bool_constant(g, e)) {
                (Some(true), Some(false)) => cond,
                (Some(false), Some(true)) => {
                    let ty = g.values[cond].ty.clone();
                    let at = g.position(op);
                    let one = g
                        .insert_text(
                            at,
                            "arith.constant",
                            Vec::new(),
                            vec![ty.clone()],
                            "$r = arith.constant true",
                        )
                        .ok()?;
                    let one = g.ops[one].results[0];
                    let at = g.position(op);
                    let not = g
                        .insert_text(
                            at,
                            "arith.xori",
                            vec![cond, one],
                            vec![ty],
                            "$r = arith.xori $0, $1 : $rt0",
                        )
                        .ok()?;
                    touched.extend(g.def_op(one));
                    touched.push(not);
                    g.ops[not].results[0]
                }
                _ => continue,
            }
        };
        touched.extend(users);
        g.replace_all_uses(results[k], value);
    }
    (!touched.is_empty()).then(|| {
        touched.push(op);
        touched
    })
}

#[cfg(test)]
mod tests {
    use crate::heuristics::propagation::canonicalize;
    use crate::ttgir::graph::Graph;

    /// The op lines of a printed module with every value name reduced to `%`.
    fn shapes(text: &str) -> Vec<String> {
        text.lines()
            .map(|l| {
                let mut out = String::new();
                let mut in_name = false;
                for c in l.trim().chars() {
                    if in_name && (c.is_alphanumeric() || c == '_' || c == '#') {
                        continue;
                    }
                    in_name = c == '%';
                    out.push(c);
                }
                out
            })
            .filter(|l| !l.is_empty())
            .collect()
    }

    /// Triton 3.6's canonicalizer on this module (run with the pass oracle) folds the
    /// arithmetic, moves the `maxsi` constant right, turns the first `if`'s second result into
    /// a select before it and inlines the `if` on `true`.
    #[test]
    fn branches_and_arithmetic_fold_as_in_triton() {
        let input = r#"module {
  tt.func @k(%x: i32, %y: i32, %p: !tt.ptr<i32>) {
    %c1 = arith.constant 1 : i32
    %c7 = arith.constant 7 : i32
    %c2 = arith.constant 2 : i32
    %m = arith.maxsi %c1, %x : i32
    %d = arith.ceildivsi %m, %c1 : i32
    %e = arith.ceildivsi %c7, %c2 : i32
    %f = arith.addi %d, %e : i32
    %b = arith.cmpi slt, %x, %y : i32
    %r:2 = scf.if %b -> (i32, i32) {
      %s = arith.addi %f, %x : i32
      scf.yield %s, %x : i32, i32
    } else {
      scf.yield %y, %y : i32, i32
    }
    %t = arith.constant true
    %q = scf.if %t -> (i32) {
      %u = arith.muli %r#0, %r#1 : i32
      scf.yield %u : i32
    } else {
      scf.yield %x : i32
    }
    tt.store %p, %q : !tt.ptr<i32>
    tt.return
  }
}"#;
        let triton = r#"module {
  tt.func @k(%arg0: i32, %arg1: i32, %arg2: !tt.ptr<i32>) {
    %c4_i32 = arith.constant 4 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = arith.maxsi %arg0, %c1_i32 : i32
    %1 = arith.addi %0, %c4_i32 : i32
    %2 = arith.cmpi slt, %arg0, %arg1 : i32
    %3 = arith.select %2, %arg0, %arg1 : i32
    %4 = scf.if %2 -> (i32) {
      %6 = arith.addi %1, %arg0 : i32
      scf.yield %6 : i32
    } else {
      scf.yield %arg1 : i32
    }
    %5 = arith.muli %4, %3 : i32
    tt.store %arg2, %5 : !tt.ptr<i32>
    tt.return
  }
}"#;
        let mut g = Graph::parse(input).unwrap();
        canonicalize(&mut g).unwrap();
        assert_eq!(shapes(&g.print().unwrap()), shapes(triton));
    }

    /// An `if` left without results prints no yields (MLIR's printer leaves them implicit),
    /// and its `else` holding nothing else goes.
    #[test]
    fn an_if_without_results_prints_no_yield() {
        let input = r#"module {
  tt.func @k(%b: i1, %p: !tt.ptr<i32>, %x: i32) {
    %r = scf.if %b -> (i32) {
      tt.store %p, %x : !tt.ptr<i32>
      scf.yield %x : i32
    } else {
      scf.yield %x : i32
    }
    tt.return
  }
}"#;
        let mut g = Graph::parse(input).unwrap();
        canonicalize(&mut g).unwrap();
        let out = g.print().unwrap();
        assert!(!out.contains("scf.yield") && !out.contains("else"), "{out}");
        assert!(out.contains("scf.if %b {"), "{out}");
    }
}
