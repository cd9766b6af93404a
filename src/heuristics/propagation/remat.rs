//! Backward rematerialisation: a convert left after the forward step asks whether its source
//! can be *recomputed* in the destination layout instead (Triton's `LayoutRematerialization`).
//!
//! ```text
//! %r = tt.make_range … : tensor<128xi32, #a>
//! %e = arith.extsi %r : … #a -> tensor<128xi64, #a>
//! %c = ttg.convert_layout %e : #a -> #b
//! ```
//!
//! The slice behind `%c` is `{%e, %r}`; the range can be made in `#b` directly and the
//! extension follows it, so the convert goes: `%r' = make_range : #b`, `%e' = extsi %r'`.
//! Triton prices it: the convert costs `32 × bytes` (at least 32 elements of 32 bits, a round
//! trip through shared memory with a barrier), the recomputation the bytes of every op in the
//! slice that other users keep alive (8 × for loads and expensive math); a convert whose slice
//! costs more stays.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::encodings::Encoding;
use crate::ttgir::element_bits;
use crate::ttgir::graph::{Def, Graph, OpId, ValueId};

use super::PassError;
use super::forward::{block_arg, func_walk};
use super::ops::{can_be_remat, can_fold_into_conversion, infer_src, is_free_convert};

/// An ordered set of values with their layouts (Triton's `SetVector` + `DenseMap`).
#[derive(Default, Clone)]
pub(super) struct Slice {
    pub(super) values: Vec<ValueId>,
    pub(super) layout: HashMap<ValueId, Arc<Encoding>>,
}

impl Slice {
    fn contains(&self, v: ValueId) -> bool {
        self.values.contains(&v)
    }

    /// Adds `v` in `enc`; false when it already has another layout.
    fn update(&mut self, v: ValueId, enc: &Arc<Encoding>) -> bool {
        if !self.values.contains(&v) {
            self.values.push(v);
        }
        match self.layout.get(&v) {
            Some(e) if e != enc => false,
            _ => {
                self.layout.insert(v, enc.clone());
                true
            }
        }
    }
}

/// The state of one function's rematerialisation.
pub(super) struct Remat {
    /// (value, encoding) → a value already computing it in that encoding.
    mapping: HashMap<(ValueId, Arc<Encoding>), ValueId>,
    mapped: HashMap<ValueId, Arc<Encoding>>,
    to_delete: Vec<OpId>,
    /// Whether loads Triton keeps as anchors may be recomputed too (the cost mode's
    /// [`super::moves`]: a load made directly in the layout its users want).
    loads_move: bool,
}

impl Remat {
    pub(super) fn new() -> Remat {
        Remat {
            mapping: HashMap::new(),
            mapped: HashMap::new(),
            to_delete: Vec::new(),
            loads_move: false,
        }
    }

    /// A state whose slices may recompute any load (see [`Remat::loads_move`]).
    pub(super) fn moving_loads() -> Remat {
        Remat {
            loads_move: true,
            ..Remat::new()
        }
    }

    fn add(&mut self, old: ValueId, enc: &Arc<Encoding>, new: ValueId) {
        self.mapping.insert((old, enc.clone()), new);
        self.mapped.insert(old, enc.clone());
    }

    fn get(&self, v: ValueId, enc: &Arc<Encoding>) -> Option<ValueId> {
        self.mapping.get(&(v, enc.clone())).copied()
    }

    pub(super) fn cleanup(&mut self, g: &mut Graph) {
        for &op in self.to_delete.iter().rev() {
            if !g.ops[op].erased {
                g.erase_op(op);
            }
        }
        self.to_delete.clear();
    }

    /// Triton's `getConvertBackwardSlice`: the values behind operand `k` of `user` and the layout
    /// each must have for the operand to be in `enc`; `None` where some value cannot.
    fn backward_slice(
        &self,
        g: &Graph,
        user: OpId,
        k: usize,
        enc: &Arc<Encoding>,
        stop: &dyn Fn(&Graph, OpId) -> bool,
    ) -> Option<Slice> {
        let mut slice = Slice::default();
        let mut seen: HashSet<((OpId, usize), Arc<Encoding>)> = HashSet::new();
        let mut queue: Vec<((OpId, usize), Arc<Encoding>)> = Vec::new();
        let mut enqueue = |use_: (OpId, usize), e: Arc<Encoding>, queue: &mut Vec<_>| {
            if seen.insert((use_, e.clone())) {
                queue.push((use_, e));
            }
        };
        enqueue((user, k), enc.clone(), &mut queue);
        while let Some(((u, kk), e)) = queue.pop() {
            let mut cur = g.ops[u].operands[kk];
            if !g.is_tensor(cur) {
                continue;
            }
            if let Some(d) = g.def_op(cur)
                && matches!(g.ops[d].name.as_str(), "scf.for" | "scf.while")
            {
                return None;
            }
            if !slice.update(cur, &e) {
                return None;
            }
            if let Some(existing) = self.get(cur, &e)
                && g.properly_dominates(existing, u)
            {
                if !slice.update(existing, &e) {
                    return None;
                }
                cur = existing;
            }
            match g.values[cur].def {
                Def::Result { op: d, index } => {
                    if g.ops[d].name == "scf.if" {
                        if stop(g, d) {
                            continue;
                        }
                        for r in 0..2 {
                            let b = g.ops[d].regions.get(r).and_then(|x| x.first()).copied()?;
                            let y = *g.blocks[b].ops.last()?;
                            enqueue((y, index), e.clone(), &mut queue);
                        }
                        continue;
                    }
                    for &r in &g.ops[d].results {
                        if r != cur && g.is_tensor(r) && !slice.update(r, &e) {
                            return None;
                        }
                    }
                    if is_free_convert(g, d) {
                        enqueue((d, 0), e.clone(), &mut queue);
                        continue;
                    }
                    if can_fold_into_conversion(g, d, &e) || stop(g, d) {
                        continue;
                    }
                    if g.ops[d].name == "tt.cat" {
                        return None;
                    }
                    if g.ops[d].name == "tt.gather" {
                        let src = infer_src(g, d, &e)?;
                        enqueue((d, 1), src, &mut queue);
                        continue;
                    }
                    for i in 0..g.ops[d].operands.len() {
                        let src = infer_src(g, d, &e)?;
                        if g.encoding(g.ops[d].operands[i]) == Some(&src) {
                            continue;
                        }
                        enqueue((d, i), src, &mut queue);
                    }
                }
                Def::Arg { block, index } => {
                    let owner = g.block_parent_op(block)?;
                    if g.ops[owner].name != "scf.for" || index == 0 {
                        return None;
                    }
                    let y = *g.blocks[block].ops.last()?;
                    enqueue((owner, 3 + index - 1), e.clone(), &mut queue);
                    enqueue((y, index - 1), e.clone(), &mut queue);
                }
            }
        }
        Some(slice)
    }

    /// Triton's `getRematerializableSlice`: a backward slice whose every op may be recomputed.
    pub(super) fn remat_slice(
        &self,
        g: &Graph,
        user: OpId,
        k: usize,
        enc: &Arc<Encoding>,
        stop: &dyn Fn(&Graph, OpId) -> bool,
    ) -> Option<Slice> {
        let s = self.backward_slice(g, user, k, enc, stop)?;
        if s.values.is_empty() {
            return None;
        }
        for &v in &s.values {
            if let Some(d) = g.def_op(v)
                && !can_be_remat(g, d)
                && !(self.loads_move && g.ops[d].name == "tt.load")
            {
                return None;
            }
        }
        Some(s)
    }

    /// Recomputes `slice` in its layouts and replaces the convert `cvt` by the result.
    pub(super) fn rewrite_slice(
        &mut self,
        g: &mut Graph,
        slice: &mut Slice,
        cvt: OpId,
        mapping: &mut HashMap<ValueId, ValueId>,
    ) -> Result<(), PassError> {
        let mut to_rewrite: Vec<OpId> = Vec::new();
        let mut yield_operands: HashMap<OpId, Vec<usize>> = HashMap::new();
        let mut existing = Vec::new();
        for &v in &slice.values {
            let enc = slice.layout[&v].clone();
            if let Some(r) = self.get(v, &enc) {
                mapping.insert(v, r);
                existing.push(v);
                continue;
            }
            match g.values[v].def {
                Def::Result { op, index } => {
                    push_unique(&mut to_rewrite, op);
                    if g.ops[op].name == "scf.if" {
                        for r in 0..2 {
                            if let Some(&b) = g.ops[op].regions.get(r).and_then(|x| x.first())
                                && let Some(&y) = g.blocks[b].ops.last()
                            {
                                push_unique(&mut to_rewrite, y);
                                yield_operands.entry(y).or_default().push(index);
                            }
                        }
                    }
                }
                Def::Arg { block, index } => {
                    if let Some(owner) = g.block_parent_op(block)
                        && g.ops[owner].name == "scf.for"
                    {
                        push_unique(&mut to_rewrite, owner);
                        if let Some(&y) = g.blocks[block].ops.last() {
                            yield_operands.entry(y).or_default().push(index - 1);
                            push_unique(&mut to_rewrite, y);
                        }
                    }
                }
            }
        }
        slice.values.retain(|v| !existing.contains(v));
        // Producers before users: the function's walk order.
        let order: HashMap<OpId, usize> = func_walk(g, func_of(g, cvt))
            .into_iter()
            .enumerate()
            .map(|(i, o)| (o, i))
            .collect();
        to_rewrite.sort_by_key(|o| order.get(o).copied().unwrap_or(usize::MAX));
        let mut replacements: Vec<(ValueId, ValueId)> = Vec::new();
        let mut dead = Vec::new();
        for op in to_rewrite {
            let name = g.ops[op].name.clone();
            if name == "scf.for" {
                let n_init = g.ops[op].operands.len() - 3;
                let mut arg_map = Vec::new();
                let mut new_operands = Vec::new();
                for k in 0..n_init {
                    let Some(arg) = block_arg(g, op, 0, k + 1) else {
                        continue;
                    };
                    if slice.contains(arg) {
                        arg_map.push((k, n_init + new_operands.len()));
                        let init = g.ops[op].operands[3 + k];
                        new_operands.push(*mapping.get(&init).unwrap_or(&init));
                    }
                }
                let new = replace_for_with_new_signature(g, op, &new_operands, &mut replacements);
                dead.push(op);
                let body = g.ops[new].regions[0][0];
                for (old_k, new_k) in arg_map {
                    let (old_arg, new_arg) = (g.blocks[body].args[old_k + 1], g.blocks[body].args[new_k + 1]);
                    mapping.insert(g.ops[op].results[old_k], g.ops[new].results[new_k]);
                    mapping.insert(old_arg, new_arg);
                    let enc = slice.layout[&old_arg].clone();
                    self.add(g.ops[new].results[old_k], &enc, g.ops[new].results[new_k]);
                    self.add(old_arg, &enc, new_arg);
                }
                continue;
            }
            if name == "scf.if" {
                let mut new_tys = Vec::new();
                for &r in &g.ops[op].results {
                    if slice.contains(r) {
                        let mut t = g.values[r].ty.clone();
                        t.encoding = Some(slice.layout[&r].clone());
                        new_tys.push(t);
                    }
                }
                let new = replace_if_with_new_signature(g, op, new_tys, &mut replacements);
                let n_old = g.ops[op].results.len();
                let mut new_idx = n_old;
                for k in 0..n_old {
                    let r = g.ops[op].results[k];
                    if slice.contains(r) {
                        let nr = g.ops[new].results[new_idx];
                        mapping.insert(r, nr);
                        let enc = slice.layout[&r].clone();
                        self.add(r, &enc, nr);
                        new_idx += 1;
                    }
                }
                dead.push(op);
                continue;
            }
            if name == "scf.yield" {
                let mut idx = yield_operands.get(&op).cloned().unwrap_or_default();
                idx.sort_unstable();
                let extra: Vec<ValueId> = idx
                    .iter()
                    .map(|&i| {
                        let v = g.ops[op].operands[i];
                        *mapping.get(&v).unwrap_or(&v)
                    })
                    .collect();
                g.ops[op].operands.extend(extra);
                continue;
            }
            let at = g.position(op);
            if name == "arith.constant" {
                let mut m = HashMap::new();
                let copy = g.clone_deep(op, at, &mut m);
                let r0 = g.ops[op].results[0];
                let enc = slice.layout[&r0].clone();
                let at = g.position(op);
                let c = g.insert_convert(at, g.ops[copy].results[0], enc.clone());
                mapping.insert(r0, c);
                self.add(r0, &enc, c);
                continue;
            }
            let new = g.clone_deep(op, at, mapping);
            for (k, &old) in g.ops[op].results.clone().iter().enumerate() {
                let Some(enc) = slice.layout.get(&old).cloned() else {
                    continue;
                };
                let nv = g.ops[new].results[k];
                g.values[nv].ty.encoding = Some(enc.clone());
                self.add(old, &enc, nv);
            }
        }
        let src = g.ops[cvt].operands[0];
        let res = g.ops[cvt].results[0];
        let by = *mapping.get(&src).unwrap_or(&src);
        g.replace_all_uses(res, by);
        self.to_delete.push(cvt);
        self.update_mapping(&replacements);
        for (old, new) in replacements {
            g.replace_all_uses(old, new);
        }
        self.to_delete.extend(dead);
        Ok(())
    }

    /// Triton's `updateRematMapping`: entries keyed by a replaced loop or branch result follow
    /// it to the new op.
    fn update_mapping(&mut self, replacements: &[(ValueId, ValueId)]) {
        for &(old, new) in replacements {
            let Some(enc) = self.mapped.remove(&old) else {
                continue;
            };
            let Some(mut value) = self.mapping.remove(&(old, enc.clone())) else {
                continue;
            };
            if let Some(&(_, after)) = replacements.iter().find(|(before, _)| *before == value) {
                value = after;
            }
            self.mapping.insert((new, enc.clone()), value);
            self.mapped.insert(new, enc);
        }
    }

    fn backward_one(&mut self, g: &mut Graph, cvt: OpId) -> Result<(), PassError> {
        let res = g.ops[cvt].results[0];
        let Some(target) = g.encoding(res).cloned() else {
            return Ok(());
        };
        if matches!(*target, Encoding::DotOperand(_)) {
            return Ok(());
        }
        let src = g.ops[cvt].operands[0];
        if let Some(v) = self.get(src, &target)
            && g.properly_dominates(v, cvt)
        {
            g.replace_all_uses(res, v);
            self.to_delete.push(cvt);
            return Ok(());
        }
        let Some(mut slice) = self.remat_slice(g, cvt, 0, &target, &|_, _| false) else {
            g.note(cvt, "stays: its source cannot be recomputed in the destination layout (an anchor, a loop result, or a layout that does not cross an op)");
            return Ok(());
        };
        let (remat, convert) = self.costs(g, cvt, &slice);
        if remat.is_none_or(|r| r > convert) {
            let r = remat.map_or("a shared reduction".to_string(), |r| r.to_string());
            g.note(
                cvt,
                format_args!("stays: recomputing its source costs {r} against {convert} for the convert"),
            );
            return Ok(());
        }
        g.note(
            cvt,
            format_args!(
                "removed: {} values recomputed in the destination layout (cost {} ≤ {convert} for the convert)",
                slice.values.len(),
                remat.unwrap_or(0)
            ),
        );
        self.rewrite_slice(g, &mut slice, cvt, &mut HashMap::new())
    }

    /// Triton's cost model: recomputing the slice's ops that other users keep alive against the
    /// convert's `32 × bytes`; (recomputation, convert), the first `None` when the slice holds a
    /// reduction other users keep (Triton keeps the convert then).
    fn costs(&self, g: &Graph, cvt: OpId, slice: &Slice) -> (Option<i64>, i64) {
        let mut slice_ops: Vec<OpId> = Vec::new();
        for &v in &slice.values {
            if let Some(d) = g.def_op(v) {
                push_unique(&mut slice_ops, d);
            }
        }
        let uses = g.all_uses();
        let mut memo: HashMap<OpId, bool> = HashMap::new();
        fn single_use(
            g: &Graph,
            op: OpId,
            cvt: OpId,
            ops: &[OpId],
            uses: &[Vec<(OpId, usize)>],
            memo: &mut HashMap<OpId, bool>,
        ) -> bool {
            if let Some(&m) = memo.get(&op) {
                return m;
            }
            // A cycle through loop-carried values counts as several users.
            memo.insert(op, false);
            let mut single = true;
            'outer: for &r in &g.ops[op].results {
                for &(u, _) in &uses[r] {
                    if u == cvt {
                        continue;
                    }
                    if !ops.contains(&u) || !single_use(g, u, cvt, ops, uses, memo) {
                        single = false;
                        break 'outer;
                    }
                }
            }
            memo.insert(op, single);
            single
        }
        let convert_cost = 32 * bytes(g, g.ops[cvt].operands[0], 32, 32);
        let mut remat_cost: i64 = 0;
        for &op in &slice_ops {
            let name = g.ops[op].name.as_str();
            if single_use(g, op, cvt, &slice_ops, &uses, &mut memo) || name == "arith.constant" {
                continue;
            }
            if matches!(name, "tt.load" | "ttg.local_load") {
                for &r in &g.ops[op].results {
                    remat_cost += 8 * bytes(g, r, 0, 0);
                }
            } else if name.starts_with("arith.") || name.starts_with("math.") {
                let m = if is_expensive_math(name) { 8 } else { 1 };
                for &r in &g.ops[op].results {
                    remat_cost += m * bytes(g, r, 0, 0);
                }
            } else if name == "tt.reduce" {
                // Triton weighs a shared reduction by its warp-level data; it is never cheaper
                // than a convert of its operand here, so keep the convert.
                return (None, convert_cost);
            }
        }
        (Some(remat_cost), convert_cost)
    }
}

fn is_expensive_math(name: &str) -> bool {
    matches!(
        name,
        "arith.divf"
            | "math.erfc"
            | "math.sinh"
            | "math.cosh"
            | "math.tanh"
            | "math.asinh"
            | "math.acosh"
            | "math.atanh"
            | "math.ctpop"
            | "math.ctlz"
            | "math.cttz"
            | "math.exp"
            | "math.exp2"
            | "math.expm1"
            | "math.log"
            | "math.log2"
            | "math.log10"
            | "math.log1p"
            | "math.sin"
            | "math.cos"
            | "math.tan"
            | "math.asin"
            | "math.acos"
            | "math.atan"
            | "math.atan2"
            | "math.powf"
            | "math.sqrt"
            | "math.rsqrt"
            | "math.erf"
            | "math.cbrt"
    )
}

/// Triton's `getByteCount`: elements × bits / 8, each at least the given minimum.
fn bytes(g: &Graph, v: ValueId, min_elements: i64, min_bits: i64) -> i64 {
    let t = &g.values[v].ty;
    let (mut n, mut bits) = (0i64, 0i64);
    if g.is_tensor(v) {
        n = t.shape.iter().map(|&d| d as i64).product();
        if !t.element.starts_with('!') {
            bits = i64::from(element_bits(&t.element).unwrap_or(0));
        }
    }
    (n.max(min_elements) * bits.max(min_bits)) >> 3
}

fn push_unique(v: &mut Vec<OpId>, op: OpId) {
    if !v.contains(&op) {
        v.push(op);
    }
}

fn func_of(g: &Graph, op: OpId) -> usize {
    let mut b = g.ops[op].block;
    loop {
        match g.blocks[b].owner {
            crate::ttgir::graph::BlockOwner::Func(f) => return f,
            crate::ttgir::graph::BlockOwner::Op(o) => b = g.ops[o].block,
        }
    }
}

/// Triton's `replaceForOpWithNewSignature`: a loop with more iteration arguments, the body
/// moved into it; the old results' replacements are recorded, not applied.
pub(super) fn replace_for_with_new_signature(
    g: &mut Graph,
    op: OpId,
    extra: &[ValueId],
    replacements: &mut Vec<(ValueId, ValueId)>,
) -> OpId {
    let mut operands = g.ops[op].operands.clone();
    operands.extend_from_slice(extra);
    let tys = operands[3..].iter().map(|&v| g.values[v].ty.clone()).collect();
    let at = g.position(op);
    let new = g.insert_like(op, at, operands, tys);
    let body = g.ops[op].regions[0][0];
    g.ops[op].regions.clear();
    g.blocks[body].owner = crate::ttgir::graph::BlockOwner::Op(new);
    for &v in extra {
        let ty = g.values[v].ty.clone();
        let index = g.blocks[body].args.len();
        let a = g.new_value(ty, Def::Arg { block: body, index });
        g.blocks[body].args.push(a);
    }
    g.ops[new].regions = vec![vec![body]];
    for k in 0..g.ops[op].results.len() {
        replacements.push((g.ops[op].results[k], g.ops[new].results[k]));
    }
    new
}

/// Triton's `replaceIfOpWithNewSignature`: a branch with more results, the regions moved.
fn replace_if_with_new_signature(
    g: &mut Graph,
    op: OpId,
    extra: Vec<crate::ttgir::ValueType>,
    replacements: &mut Vec<(ValueId, ValueId)>,
) -> OpId {
    let mut tys: Vec<_> = g.ops[op]
        .results
        .iter()
        .map(|&r| g.values[r].ty.clone())
        .collect();
    tys.extend(extra);
    let at = g.position(op);
    let operands = g.ops[op].operands.clone();
    let new = g.insert_like(op, at, operands, tys);
    let regions = std::mem::take(&mut g.ops[op].regions);
    for region in &regions {
        for &b in region {
            g.blocks[b].owner = crate::ttgir::graph::BlockOwner::Op(new);
        }
    }
    g.ops[new].regions = regions;
    for k in 0..g.ops[op].results.len() {
        replacements.push((g.ops[op].results[k], g.ops[new].results[k]));
    }
    new
}

/// Runs the backward rematerialisation on function `f`; whether it removed a convert.
pub(super) fn backward(g: &mut Graph, f: usize) -> Result<bool, PassError> {
    let mut r = Remat::new();
    let converts: Vec<OpId> = func_walk(g, f)
        .into_iter()
        .filter(|&o| g.ops[o].name == "ttg.convert_layout")
        .collect();
    let mut changed = false;
    for cvt in converts {
        if g.ops[cvt].erased {
            continue;
        }
        r.backward_one(g, cvt)?;
        if r.to_delete.contains(&cvt) {
            changed = true;
        } else if let Some(e) = g.encoding(g.ops[cvt].results[0]).cloned() {
            let (s, d) = (g.ops[cvt].operands[0], g.ops[cvt].results[0]);
            r.add(s, &e, d);
        }
    }
    r.cleanup(g);
    Ok(changed)
}

/// The hoists of the pass's third step on function `f`: converts move above extensions and
/// broadcasts (a smaller tensor to convert), then into the one branch of an `scf.if` in a loop
/// whose value cannot be recomputed (see [`super::conditionals`]), then converts into MMA dot
/// operands move up to the loads feeding them (over element-wise ops and views), each step
/// with its own state as in Triton.
/// (`dot_operands: false` leaves that last step out.)
pub(super) fn hoist(g: &mut Graph, f: usize, dot_operands: bool) -> Result<(), PassError> {
    type Step = fn(&mut Remat, &mut Graph, OpId) -> Result<(), PassError>;
    let steps: &[Step] = if dot_operands {
        &[
            Remat::hoist_over_ext,
            Remat::hoist_into_conditionals,
            Remat::hoist_dot_operand,
        ]
    } else {
        &[Remat::hoist_over_ext, Remat::hoist_into_conditionals]
    };
    for &step in steps {
        let mut r = Remat::new();
        let converts: Vec<OpId> = func_walk(g, f)
            .into_iter()
            .filter(|&o| g.ops[o].name == "ttg.convert_layout")
            .collect();
        for cvt in converts {
            if g.ops[cvt].erased {
                continue;
            }
            step(&mut r, g, cvt)?;
            if !r.to_delete.contains(&cvt)
                && let Some(e) = g.encoding(g.ops[cvt].results[0]).cloned()
            {
                let (s, d) = (g.ops[cvt].operands[0], g.ops[cvt].results[0]);
                r.add(s, &e, d);
            }
        }
        r.cleanup(g);
    }
    Ok(())
}

/// What the log says of a convert into a dot operand hoisted to the loads it reads.
pub const HOISTED_TO_THE_LOADS: &str = "hoisted to the loads it reads";

/// Whether `op` computes without moving data between threads (element-wise ops without side
/// effects, broadcasts, converts, views).
fn no_data_movement(g: &Graph, op: OpId) -> bool {
    let name = g.ops[op].name.as_str();
    (super::ops::is_elementwise(name) && super::ops::is_removable_op(g, op))
        || matches!(
            name,
            "tt.broadcast"
                | "ttg.fp4_to_fp"
                | "ttg.convert_layout"
                | "tt.expand_dims"
                | "tt.reshape"
                | "tt.trans"
                | "tt.join"
                | "tt.split"
        )
}

/// Whether every path from `op` to the end of its function passes `dot`: `dot` follows, in
/// the same block, `op` or the region op holding it.
fn post_dominates(g: &Graph, dot: OpId, op: OpId) -> bool {
    let dot_at = g.position(dot);
    let mut cur = op;
    loop {
        let p = g.position(cur);
        if p.block == dot_at.block {
            return p.index < dot_at.index;
        }
        match g.parent_op(cur) {
            Some(parent) => cur = parent,
            None => return false,
        }
    }
}

fn is_ext_or_broadcast(g: &Graph, op: OpId) -> bool {
    let o = &g.ops[op];
    match o.name.as_str() {
        "arith.extsi" | "arith.extui" | "arith.extf" | "tt.broadcast" | "tt.expand_dims" => true,
        "tt.fp_to_fp" => {
            let bits = |v: ValueId| element_bits(&g.values[v].ty.element).unwrap_or(0);
            bits(o.operands[0]) < bits(o.results[0])
        }
        _ => false,
    }
}

impl Remat {
    /// Triton's `hoistConvertDotOperand`: a convert into a dot operand of an MMA dot that runs
    /// after it moves up to the loads it reads, over element-wise ops and views (so that the
    /// loads can be pipelined into the operand layout).
    fn hoist_dot_operand(&mut self, g: &mut Graph, cvt: OpId) -> Result<(), PassError> {
        let Some(target) = g.encoding(g.ops[cvt].results[0]).cloned() else {
            return Ok(());
        };
        // The ops of the convert's parent: its region op, or its function.
        let scope: Vec<OpId> = match g.parent_op(cvt) {
            None => func_walk(g, func_of(g, cvt)),
            Some(parent) => {
                let mut v = Vec::new();
                for region in &g.ops[parent].regions {
                    for &b in region {
                        g.walk_block(b, &mut v);
                    }
                }
                v
            }
        };
        let mma_dots: Vec<OpId> = scope
            .into_iter()
            .filter(|&o| {
                matches!(g.ops[o].name.as_str(), "tt.dot" | "tt.dot_scaled")
                    && g.ops[o].operands.first().and_then(|&a| g.encoding(a)).is_some_and(|e| {
                        matches!(&**e, Encoding::DotOperand(d) if matches!(*d.parent, Encoding::AmdMfma(_) | Encoding::AmdWmma(_) | Encoding::NvidiaMma(_)))
                    })
            })
            .collect();
        if !mma_dots.iter().any(|&d| post_dominates(g, d, cvt)) {
            return Ok(());
        }
        let stop = |g: &Graph, op: OpId| !no_data_movement(g, op);
        let Some(slice) = self.plain_backward_slice(g, cvt, &target, &stop) else {
            return Ok(());
        };
        let mut mapping = HashMap::new();
        let mut inner = Slice::default();
        for &v in &slice.values {
            let Some(d) = g.def_op(v) else { return Ok(()) };
            if matches!(g.ops[d].name.as_str(), "tt.load" | "tt.descriptor_load") {
                let Some(enc) = slice.layout.get(&v).cloned() else {
                    continue;
                };
                if !g.is_tensor(v) {
                    continue;
                }
                let at = g.after_value(v);
                let c = g.insert_convert(at, v, enc);
                mapping.insert(v, c);
            } else if g.ops[d].name == "arith.constant" || no_data_movement(g, d) {
                inner.values.push(v);
                inner.layout.insert(v, slice.layout[&v].clone());
            } else {
                return Ok(());
            }
        }
        if inner.values.is_empty() {
            return Ok(());
        }
        g.note(
            cvt,
            format_args!(
                "{HOISTED_TO_THE_LOADS}: {} values computed in the dot-operand layout",
                inner.values.len()
            ),
        );
        self.rewrite_slice(g, &mut inner, cvt, &mut mapping)
    }

    /// Triton's `getConvertBackwardSlice` without reusing earlier conversions.
    fn plain_backward_slice(
        &self,
        g: &Graph,
        cvt: OpId,
        enc: &Arc<Encoding>,
        stop: &dyn Fn(&Graph, OpId) -> bool,
    ) -> Option<Slice> {
        Remat::new().backward_slice(g, cvt, 0, enc, stop)
    }

    /// Triton's `hoistConvertOnTopOfExtOrBroadcast`.
    fn hoist_over_ext(&mut self, g: &mut Graph, cvt: OpId) -> Result<(), PassError> {
        let Some(target) = g.encoding(g.ops[cvt].results[0]).cloned() else {
            return Ok(());
        };
        if matches!(*target, Encoding::DotOperand(_)) {
            return Ok(());
        }
        let Some(mut slice) = self.remat_slice(g, cvt, 0, &target, &is_ext_or_broadcast) else {
            return Ok(());
        };
        let mut ext: Option<OpId> = None;
        let n = slice.values.len();
        for i in 0..n {
            let v = slice.values[i];
            let Some(op) = g.def_op(v) else { continue };
            if !is_ext_or_broadcast(g, op) {
                continue;
            }
            let Some(src) = infer_src(g, op, &slice.layout[&v]) else {
                return Ok(());
            };
            let mut temp = self.remat_slice(g, op, 0, &src, &|_, _| false);
            if let Some(t) = &temp
                && t.layout
                    .iter()
                    .any(|(val, e)| slice.layout.get(val).is_some_and(|x| x != e))
            {
                temp = None;
            }
            if let Some(t) = temp {
                for &tv in &t.values {
                    if !slice.values.contains(&tv) {
                        slice.values.push(tv);
                    }
                }
                for (k, e) in t.layout {
                    slice.layout.entry(k).or_insert(e);
                }
                continue;
            }
            if ext.is_some() {
                return Ok(());
            }
            ext = Some(op);
        }
        let Some(ext) = ext else { return Ok(()) };
        let r0 = g.ops[ext].results[0];
        let dst = slice.layout[&r0].clone();
        let Some(src) = infer_src(g, ext, &dst) else {
            return Ok(());
        };
        let at = g.position(ext);
        let operand = g.ops[ext].operands[0];
        let c = g.insert_convert(at, operand, src);
        let at = g.position(ext);
        let mut m = HashMap::new();
        m.insert(operand, c);
        let copy = g.clone_deep(ext, at, &mut m);
        let nr = g.ops[copy].results[0];
        g.values[nr].ty.encoding = Some(dst);
        let mut mapping = HashMap::new();
        mapping.insert(r0, nr);
        slice.values.retain(|&v| v != r0);
        self.rewrite_slice(g, &mut slice, cvt, &mut mapping)
    }
}
