//! One level of a nest fused: the outer loop and the loops directly in its body become one
//! loop over the product of their trip counts (see the [parent module](super) for the shape).

use std::collections::{HashMap, HashSet};

use crate::ttgir::ValueType;
use crate::ttgir::graph::{BlockId, Graph, InsertPoint, OpId, ValueId};

use super::super::PassError;
use super::*;

/// An inner loop to fuse.
struct Inner {
    lp: OpId,
    /// Whether its bounds can be computed before the outer loop.
    invariant: bool,
    /// Otherwise, the ops computing them from the outer induction variable.
    sliced: Vec<OpId>,
}

/// The ops of the outer body between two inner loops (or before the first, or after the
/// last), and their results used after them.
struct Logue {
    ops: Vec<OpId>,
    outputs: Vec<ValueId>,
}

impl Logue {
    /// `ops` (consecutive in `body`); an output is a result used after the last of them, or
    /// inside the last one.
    fn new(g: &Graph, body: BlockId, ops: Vec<OpId>) -> Logue {
        let mut outputs = Vec::new();
        if let Some(&last) = ops.last() {
            let last_index = g.position(last).index;
            let uses = g.all_uses();
            for &op in &ops {
                for &r in &g.ops[op].results {
                    let escapes = uses[r].iter().any(|&(u, _)| {
                        ancestor_in(g, u, body)
                            .is_some_and(|a| g.position(a).index > last_index || a == last && u != last)
                    });
                    if escapes {
                        outputs.push(r);
                    }
                }
            }
        }
        Logue { ops, outputs }
    }
}

/// Fuses the loops directly in node `node`'s loop into it (Triton's `fuseOneLevel`): one new
/// loop over `len(outer) × inner_len` iterations replaces them.
pub(super) fn fuse_one_level(g: &mut Graph, nest: &mut Nest, node: usize) -> Result<(), PassError> {
    let outer = nest.nodes[node].lp;
    let children = std::mem::take(&mut nest.nodes[node].children);
    let body = g.ops[outer].regions[0][0];
    let iv = g.blocks[body].args[0];

    let mut inners = Vec::new();
    let mut to_hoist: Vec<OpId> = Vec::new();
    for child in children {
        let Some(lp) = nest.nodes.get(child).map(|n| n.lp) else {
            continue;
        };
        let bounds = g.ops[lp].operands[..3].to_vec();
        if let Some(ops) = ops_to_hoist(g, outer, &bounds, is_func_arg) {
            to_hoist.extend(
                ops.into_iter()
                    .filter(|o| !to_hoist.contains(o))
                    .collect::<Vec<_>>(),
            );
            inners.push(Inner {
                lp,
                invariant: true,
                sliced: Vec::new(),
            });
        } else if let Some(sliced) = ops_to_hoist(g, outer, &bounds, |g, v| v == iv || is_func_arg(g, v)) {
            inners.push(Inner {
                lp,
                invariant: false,
                sliced,
            });
        }
    }
    if inners.is_empty() {
        return Ok(());
    }
    move_before(g, &to_hoist, outer);

    let o = g.ops[outer].clone();
    let (lb, ub, step) = (o.operands[0], o.operands[1], o.operands[2]);
    let outer_yield = g.blocks[body]
        .ops
        .last()
        .copied()
        .filter(|&y| g.ops[y].name == "scf.yield");
    let iv_of = |g: &Graph, lp: OpId| g.blocks[g.ops[lp].regions[0][0]].args[0];
    let mut width = 0;
    for lp in std::iter::once(outer).chain(inners.iter().map(|i| i.lp)) {
        let element = &g.values[iv_of(g, lp)].ty.element;
        width = width.max(int_width(element).ok_or_else(|| {
            PassError::new(g, Some(lp), "a loop whose induction variable is not an integer")
        })?);
    }
    let int_ty = ValueType::scalar(&format!("i{width}"));
    let all_invariant = inners.iter().all(|i| i.invariant);
    let n_inner = inners.len();

    // Lengths and the total, before the outer loop.
    let mut b = Builder::new(g, outer);
    let len_outer = b.trip_count(g, lb, ub, step)?;
    let mut len_inners = Vec::new();
    for inner in &inners {
        let len = if inner.invariant {
            let [l, u, s] = bounds_of(g, inner.lp);
            let n = b.trip_count(g, l, u, s)?;
            b.cast(g, n, &int_ty)?
        } else {
            b.zero_or_poison(g, &int_ty)?
        };
        len_inners.push(len);
    }
    let mut inner_len = b.int(g, 0, &int_ty)?;
    for (inner, &len) in inners.iter().zip(&len_inners) {
        if inner.invariant {
            let one = b.int(g, 1, &int_ty)?;
            let at_least_one = b.binary(g, "arith.maxsi", one, len)?;
            inner_len = b.binary(g, "arith.addi", inner_len, at_least_one)?;
        }
    }
    let overlaps = b.int(g, n_inner as i64 - 1, &int_ty)?;
    inner_len = b.binary(g, "arith.subi", inner_len, overlaps)?;
    let len_outer = b.cast(g, len_outer, &int_ty)?;
    let total = b.binary(g, "arith.muli", len_outer, inner_len)?;

    // A loop over the outer range adds up the lengths that vary with it.
    let (peeled, peeled_body) = b.for_op(g, [lb, ub, step], vec![total]);
    let mut p = b.to(InsertPoint {
        block: peeled_body,
        index: 0,
    });
    let mut acc = g.blocks[peeled_body].args[1];
    let mut map = HashMap::from([(iv, g.blocks[peeled_body].args[0])]);
    let mut cloned = HashSet::new();
    for inner in inners.iter().filter(|i| !i.invariant) {
        let n = p.sliced_trip_count(g, inner, &mut map, &mut cloned)?;
        let n = p.cast(g, n, &int_ty)?;
        let one = p.int(g, 1, &int_ty)?;
        let at_least_one = p.binary(g, "arith.maxsi", one, n)?;
        acc = p.binary(g, "arith.addi", acc, at_least_one)?;
    }
    append_yield(g, peeled_body, vec![acc]);
    let total = g.ops[peeled].results[0];

    // The pieces of the outer body, before the loops move.
    let body_ops = g.blocks[body].ops.clone();
    let index_of = |lp: OpId| body_ops.iter().position(|&o| o == lp).unwrap_or(0);
    let end = body_ops.len() - usize::from(outer_yield.is_some());
    let mut cuts = vec![0];
    for inner in &inners {
        let k = index_of(inner.lp);
        cuts.push(k);
        cuts.push(k + 1);
    }
    cuts.push(end);
    let logues: Vec<Logue> = cuts
        .chunks(2)
        .map(|c| {
            let (from, to) = (c[0], c[1].max(c[0]));
            Logue::new(g, body, body_ops[from..to].to_vec())
        })
        .collect();
    // An inner start value defined outside the nest starts the fused loop and is reset by the
    // epilogue, instead of being carried out of the prologue.
    let from_outside: Vec<Vec<bool>> = inners
        .iter()
        .map(|i| {
            g.ops[i.lp].operands[3..]
                .iter()
                .map(|&init| !defined_inside(g, init, outer))
                .collect()
        })
        .collect();

    // The fused loop's carried values, in Triton's order.
    let mut inits = Vec::new();
    inits.push(b.int(g, 0, &int_ty)?);
    inits.push(b.binary(g, "arith.subi", lb, step)?);
    let outer_args_at = inits.len();
    inits.extend_from_slice(&o.operands[3..]);
    let lens_at = inits.len();
    inits.extend_from_slice(&len_inners);
    let inner_len_at = inits.len();
    inits.push(inner_len);
    let ivs_at = inits.len();
    for inner in &inners {
        let ty = g.values[iv_of(g, inner.lp)].ty.clone();
        inits.push(b.zero_or_poison(g, &ty)?);
    }
    let outs_at = inits.len();
    for (inner, outside) in inners.iter().zip(&from_outside) {
        let o = g.ops[inner.lp].clone();
        for ((&r, &init), &outside) in o.results.iter().zip(&o.operands[3..]).zip(outside) {
            let ty = g.values[r].ty.clone();
            let undef = b.zero_or_poison(g, &ty)?;
            inits.push(if outside { init } else { undef });
        }
    }
    let logue_outs_at = inits.len();
    for logue in &logues[..logues.len() - 1] {
        for &out in &logue.outputs {
            let ty = g.values[out].ty.clone();
            inits.push(b.zero_or_poison(g, &ty)?);
        }
    }
    let zero = b.int(g, 0, &int_ty)?;
    let one = b.int(g, 1, &int_ty)?;
    let (fused, fused_body) = b.for_op(g, [zero, total, one], inits);
    let carried: Vec<ValueId> = g.blocks[fused_body].args[1..].to_vec();
    for (k, &arg) in g.blocks[body].args[1..].to_vec().iter().enumerate() {
        g.replace_all_uses(arg, carried[outer_args_at + k]);
    }
    let mut len_inners: Vec<ValueId> = carried[lens_at..lens_at + n_inner].to_vec();
    let t = carried[0];
    let cur_i = carried[1];

    let mut b = b.to(InsertPoint {
        block: fused_body,
        index: 0,
    });
    let mut i = cur_i;
    let mut logue_out = logue_outs_at;
    let mut inner_out = outs_at;
    let mut prologue_ifs = Vec::new();
    let mut body_ifs = Vec::new();
    for (k, inner) in inners.iter().enumerate() {
        // Prologue k runs where inner loop k starts: T == Σ_{j<k} max(1, len_j) - k.
        let mut start = b.int(g, 0, &int_ty)?;
        for &len in &len_inners[..k] {
            let one = b.int(g, 1, &int_ty)?;
            let at_least_one = b.binary(g, "arith.maxsi", one, len)?;
            start = b.binary(g, "arith.addi", start, at_least_one)?;
        }
        let kc = b.int(g, k as i64, &int_ty)?;
        start = b.binary(g, "arith.subi", start, kc)?;
        let starts_here = b.cmpi(g, "eq", t, start)?;

        let lp = g.ops[inner.lp].clone();
        let inner_body = lp.regions[0][0];
        let inner_iv = g.blocks[inner_body].args[0];
        let inner_args = g.blocks[inner_body].args[1..].to_vec();
        let kept: Vec<usize> = (0..lp.results.len()).filter(|&j| !from_outside[k][j]).collect();
        let prologue = &logues[k];
        let n_out = prologue.outputs.len();
        let mut tys = vec![g.values[inner_iv].ty.clone()];
        tys.extend(types(g, &prologue.outputs));
        tys.extend(kept.iter().map(|&j| g.values[lp.operands[3 + j]].ty.clone()));
        if k == 0 {
            tys.push(g.values[cur_i].ty.clone());
            tys.extend(std::iter::repeat_n(int_ty.clone(), n_inner));
            tys.push(int_ty.clone());
        }
        let (prologue_if, then_block, else_block) = b.if_op(g, starts_here, tys);
        for &op in &prologue.ops {
            let from = g.ops[op].block;
            g.blocks[from].ops.retain(|&x| x != op);
            g.blocks[then_block].ops.push(op);
            g.ops[op].block = then_block;
        }
        let mut then_outs = vec![lp.operands[0]];
        then_outs.extend_from_slice(&prologue.outputs);
        then_outs.extend(kept.iter().map(|&j| lp.operands[3 + j]));
        let mut else_outs = vec![carried[ivs_at + k]];
        else_outs.extend_from_slice(&carried[logue_out..logue_out + n_out]);
        else_outs.extend(kept.iter().map(|&j| carried[inner_out + j]));
        logue_out += n_out;
        if k == 0 {
            // The outer step happens in the first prologue, with the lengths that vary.
            let mut tb = b.to(InsertPoint {
                block: then_block,
                index: 0,
            });
            let next_i = tb.binary(g, "arith.addi", cur_i, step)?;
            replace_uses_inside(g, iv, next_i, then_block);
            let mut map = HashMap::from([(iv, next_i)]);
            let mut cloned = HashSet::new();
            for (j, inner) in inners.iter().enumerate() {
                if !inner.invariant {
                    let n = tb.sliced_trip_count(g, inner, &mut map, &mut cloned)?;
                    let n = tb.cast(g, n, &int_ty)?;
                    len_inners[j] = n;
                    let one = tb.int(g, 1, &int_ty)?;
                    let at_least_one = tb.binary(g, "arith.maxsi", one, n)?;
                    inner_len = tb.binary(g, "arith.addi", inner_len, at_least_one)?;
                }
            }
            then_outs.push(next_i);
            then_outs.extend_from_slice(&len_inners);
            then_outs.push(inner_len);
            else_outs.push(cur_i);
            else_outs.extend_from_slice(&carried[lens_at..lens_at + n_inner]);
            // Triton forwards the value itself when no length varies.
            else_outs.push(if all_invariant {
                inner_len
            } else {
                carried[inner_len_at]
            });
        }
        append_yield(g, then_block, then_outs);
        append_yield(g, else_block, else_outs);

        let results = g.ops[prologue_if].results.clone();
        g.replace_all_uses(inner_iv, results[0]);
        for (n, &out) in prologue.outputs.iter().enumerate() {
            replace_uses_outside(g, out, results[1 + n], then_block);
        }
        let mut kept_results = results[1 + n_out..].iter();
        for (j, &arg) in inner_args.iter().enumerate() {
            let start_value = if from_outside[k][j] {
                Some(carried[inner_out + j])
            } else {
                kept_results.next().copied()
            };
            if let Some(v) = start_value {
                g.replace_all_uses(arg, v);
            }
        }
        if k == 0 {
            let m = results.len();
            i = results[m - 2 - n_inner];
            len_inners = results[m - 1 - n_inner..m - 1].to_vec();
            inner_len = results[m - 1];
            g.replace_all_uses(iv, i);
        }
        let jk = results[0];

        // Inner body k runs on the len_k iterations from there.
        let len = b.cast(g, len_inners[k], &int_ty)?;
        let end = b.binary(g, "arith.addi", start, len)?;
        let after_start = b.cmpi(g, "sge", t, start)?;
        let before_end = b.cmpi(g, "slt", t, end)?;
        let inside = b.binary(g, "arith.andi", after_start, before_end)?;
        let mut tys = vec![g.values[jk].ty.clone()];
        tys.extend(types(g, &lp.results));
        let (body_if, body_then, body_else) = b.if_op(g, inside, tys);
        g.move_ops(inner_body, body_then);
        let inner_yield = g.blocks[body_then]
            .ops
            .last()
            .copied()
            .filter(|&y| g.ops[y].name == "scf.yield");
        let before_yield = match inner_yield {
            Some(y) => g.position(y),
            None => end_of(g, body_then),
        };
        // The step as it is now: a prologue output has become the prologue's result.
        let inner_step = g.ops[inner.lp].operands[2];
        let next_jk = b.to(before_yield).binary(g, "arith.addi", jk, inner_step)?;
        match inner_yield {
            Some(y) => g.ops[y].operands.insert(0, next_jk),
            None => append_yield(g, body_then, vec![next_jk]),
        }
        let mut forwarded = vec![jk];
        forwarded.extend_from_slice(&carried[inner_out..inner_out + lp.results.len()]);
        inner_out += lp.results.len();
        append_yield(g, body_else, forwarded);
        let body_results = g.ops[body_if].results.clone();
        for (&r, &nr) in lp.results.iter().zip(&body_results[1..]) {
            g.replace_all_uses(r, nr);
        }
        if has_attr(g, inner.lp, MUST_EXECUTE) {
            let always = b.to(g.position(body_if)).int(g, 1, &ValueType::scalar("i1"))?;
            g.ops[body_if].operands[0] = always;
        }
        b.at = g.position(body_if);
        b.at.index += 1;
        prologue_ifs.push((prologue_if, n_out));
        body_ifs.push(body_if);
    }

    // The epilogue runs on the last iteration of the outer one, and resets the start values
    // that come from outside.
    let epilogue = &logues[logues.len() - 1];
    let mut used_args = Vec::new();
    for &out in &epilogue.outputs {
        let yielded: Vec<usize> = g
            .uses(out)
            .into_iter()
            .filter(|&(u, _)| Some(u) == outer_yield)
            .map(|(_, k)| k)
            .collect();
        let &[k] = yielded.as_slice() else {
            return Err(PassError::new(
                g,
                Some(outer),
                "a value after the inner loops that the loop does not yield exactly once",
            ));
        };
        used_args.push(carried[outer_args_at + k]);
    }
    let mut resets = Vec::new();
    let mut kept_going = Vec::new();
    for ((inner, outside), &body_if) in inners.iter().zip(&from_outside).zip(&body_ifs) {
        for (j, &outside) in outside.iter().enumerate() {
            if outside {
                resets.push(g.ops[inner.lp].operands[3 + j]);
                kept_going.push(g.ops[body_if].results[1 + j]);
            }
        }
    }
    let one = b.int(g, 1, &int_ty)?;
    let last = b.binary(g, "arith.subi", inner_len, one)?;
    let ends_here = b.cmpi(g, "eq", t, last)?;
    let mut tys = types(g, &epilogue.outputs);
    tys.extend(types(g, &resets));
    let (epilogue_if, then_block, else_block) = b.if_op(g, ends_here, tys);
    for &op in &epilogue.ops {
        let from = g.ops[op].block;
        g.blocks[from].ops.retain(|&x| x != op);
        g.blocks[then_block].ops.push(op);
        g.ops[op].block = then_block;
    }
    let epilogue_results = g.ops[epilogue_if].results.clone();
    append_yield(
        g,
        then_block,
        epilogue.outputs.iter().chain(&resets).copied().collect(),
    );
    append_yield(g, else_block, used_args.into_iter().chain(kept_going).collect());
    for (n, &out) in epilogue.outputs.iter().enumerate() {
        replace_uses_outside(g, out, epilogue_results[n], then_block);
    }

    // T wraps around at the end of each outer iteration.
    let mut b = b.to(end_of(g, fused_body));
    let one = b.int(g, 1, &int_ty)?;
    let next_t = b.binary(g, "arith.addi", t, one)?;
    let one = b.int(g, 1, &int_ty)?;
    let last = b.binary(g, "arith.subi", inner_len, one)?;
    let wraps = b.cmpi(g, "eq", t, last)?;
    let zero = b.int(g, 0, &int_ty)?;
    let next_t = b.select(g, wraps, zero, next_t)?;
    let mut outs = vec![next_t, i];
    if let Some(y) = outer_yield {
        outs.extend_from_slice(&g.ops[y].operands);
    }
    outs.extend_from_slice(&len_inners);
    outs.push(inner_len);
    outs.extend(body_ifs.iter().map(|&bi| g.ops[bi].results[0]));
    let mut resets_out = epilogue_results[epilogue.outputs.len()..].iter();
    for (outside, &body_if) in from_outside.iter().zip(&body_ifs) {
        for (j, &outside) in outside.iter().enumerate() {
            let reset = if outside { resets_out.next().copied() } else { None };
            outs.push(reset.unwrap_or(g.ops[body_if].results[1 + j]));
        }
    }
    for &(prologue_if, n_out) in &prologue_ifs {
        outs.extend_from_slice(&g.ops[prologue_if].results[1..1 + n_out]);
    }
    append_yield(g, fused_body, outs);
    let fused_results = g.ops[fused].results.clone();
    for (k, &r) in o.results.iter().enumerate() {
        g.replace_all_uses(r, fused_results[outer_args_at + k]);
    }

    // The fused loop keeps what the pipeliner reads from the loops it replaces.
    let loops: Vec<OpId> = std::iter::once(outer)
        .chain(inners.iter().map(|i| i.lp))
        .collect();
    for flag in [WARP_SPECIALIZE, DISALLOW_ACC_MULTI_BUFFER] {
        if loops.iter().any(|&lp| has_attr(g, lp, flag)) {
            g.set_trailing_attr(fused, flag, Some(""));
        }
    }
    let stages = loops
        .iter()
        .filter_map(|&lp| match crate::ttgir::attr(&g.ops[lp].attrs, NUM_STAGES) {
            Some(crate::ttgir::AttrValue::Int(n)) => Some(*n),
            _ => None,
        })
        .max()
        .unwrap_or(1);
    if stages > 1 {
        g.set_trailing_attr(fused, NUM_STAGES, Some(&format!("{stages} : i32")));
    }
    for inner in &inners {
        g.erase_op(inner.lp);
    }
    g.erase_op(outer);
    nest.nodes[node].lp = fused;
    Ok(())
}

fn bounds_of(g: &Graph, lp: OpId) -> [ValueId; 3] {
    let o = &g.ops[lp].operands;
    [o[0], o[1], o[2]]
}

impl Builder {
    /// The trip count of `inner`, its bound computations copied here (once each, through
    /// `map`, which maps the outer induction variable to its value here).
    fn sliced_trip_count(
        &mut self,
        g: &mut Graph,
        inner: &Inner,
        map: &mut HashMap<ValueId, ValueId>,
        cloned: &mut HashSet<OpId>,
    ) -> Result<ValueId, PassError> {
        for op in program_order(g, &inner.sliced) {
            if cloned.insert(op) {
                g.clone_deep(op, self.at, map);
                self.at.index += 1;
            }
        }
        let [l, u, s] = bounds_of(g, inner.lp).map(|v| *map.get(&v).unwrap_or(&v));
        self.trip_count(g, l, u, s)
    }
}
