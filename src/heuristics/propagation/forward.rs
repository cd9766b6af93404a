//! Forward propagation: anchors' layouts flow to their users, conflicts are resolved, and the
//! function is rewritten in one shot (Triton's `LayoutPropagation`).
//!
//! Take a coalesced load in `#blocked1` whose result is converted to `#blocked` before an add:
//!
//! ```text
//! %x = tt.load %p : tensor<128x!tt.ptr<f32>, #blocked1>          // anchor: #blocked1
//! %c = ttg.convert_layout %x : #blocked1 -> #blocked               // → #blocked1 (cancels)
//! %y = arith.addf %c, %c : tensor<128xf32, #blocked>              // → #blocked1
//! ```
//!
//! The load's layout reaches the convert's result (a convert takes its source's layout) and
//! the add; the rewrite makes the add in `#blocked1`, and the convert, now from `#blocked1`
//! to `#blocked1`, is gone after the cleanup.

use std::collections::HashMap;
use std::sync::Arc;

use crate::encodings::Encoding;
use crate::ttgir::graph::{BlockId, BlockOwner, Graph, OpId, ValueId};

use super::PassError;
use super::ops::{
    can_fold_into_conversion, infer_dst, infer_src, is_anchor, is_elementwise,
    same_operands_and_result_encoding,
};

/// The candidate layouts of each value, in the order they were found, and the anchor each
/// came from.
#[derive(Default)]
struct Layouts {
    order: Vec<ValueId>,
    encodings: HashMap<ValueId, Vec<Arc<Encoding>>>,
    /// (value, layout) → the anchor op it flowed from (`None`: a function argument's layout).
    origin: HashMap<(ValueId, Arc<Encoding>), Option<OpId>>,
}

impl Layouts {
    fn insert(&mut self, v: ValueId, e: Arc<Encoding>, origin: Option<OpId>) -> bool {
        let list = self.encodings.entry(v).or_insert_with(|| {
            self.order.push(v);
            Vec::new()
        });
        if list.contains(&e) {
            false
        } else {
            list.push(e.clone());
            self.origin.insert((v, e), origin);
            true
        }
    }

    /// Where `v`'s layout `e` came from: "the anchor at line 12 (tt.load)".
    fn origin_text(&self, g: &Graph, v: ValueId, e: &Arc<Encoding>) -> String {
        match self.origin.get(&(v, e.clone())) {
            Some(Some(op)) if g.ops[*op].line > 0 => {
                format!("the anchor at line {} ({})", g.ops[*op].line, g.ops[*op].name)
            }
            Some(Some(op)) => format!("the anchor {}", g.ops[*op].name),
            Some(None) => "a function argument".to_string(),
            None => "its operands' anchors".to_string(),
        }
    }

    fn picked(&self, v: ValueId) -> Option<&Arc<Encoding>> {
        self.encodings.get(&v).and_then(|l| l.first())
    }
}

fn is_mma(e: &Encoding) -> bool {
    matches!(
        e,
        Encoding::AmdMfma(_) | Encoding::AmdWmma(_) | Encoding::NvidiaMma(_)
    )
}

/// Runs the forward propagation on function `f` of `g`.
pub(super) fn propagate(g: &mut Graph, f: usize) -> Result<(), PassError> {
    let mut p = Propagation {
        conflicts: Vec::new(),
        layouts: Layouts::default(),
        mapping: HashMap::new(),
        to_delete: Vec::new(),
    };
    p.init_anchors(g, f);
    for op in func_walk(g, f) {
        if is_anchor(g, op)
            && let Some(e) = g.ops[op].results.first().and_then(|&r| g.encoding(r)).cloned()
        {
            g.note(op, format_args!("anchor: its layout {e} propagates to its users"));
        }
    }
    p.propagate(g);
    p.resolve_conflicts(g);
    g.log.append(&mut p.conflicts);
    p.rewrite(g, f)
}

struct Propagation {
    /// The conflicts resolved, one line each, for the log.
    conflicts: Vec<String>,
    layouts: Layouts,
    /// (old value, encoding) → its rewritten value.
    mapping: HashMap<(ValueId, Arc<Encoding>), ValueId>,
    to_delete: Vec<OpId>,
}

impl Propagation {
    fn init_anchors(&mut self, g: &Graph, f: usize) {
        let Some(&entry) = g.funcs[f].blocks.first() else {
            return;
        };
        for &a in &g.blocks[entry].args {
            if let Some(e) = g.encoding(a) {
                self.layouts.insert(a, e.clone(), None);
            }
        }
        for op in func_walk(g, f) {
            if is_anchor(g, op) {
                for &r in &g.ops[op].results {
                    if let Some(e) = g.encoding(r) {
                        self.layouts.insert(r, e.clone(), Some(op));
                    }
                }
            }
        }
    }

    fn set_encoding(
        &mut self,
        g: &Graph,
        values: &[ValueId],
        src: ValueId,
        info: &[Arc<Encoding>],
        user: OpId,
        changed: &mut Vec<ValueId>,
    ) {
        for &v in values {
            if !g.is_tensor(v) {
                continue;
            }
            let mut any = false;
            for e in info {
                let dst = if g.ops[user].name == "ttg.convert_layout" {
                    Some(e.clone())
                } else {
                    infer_dst(g, user, e)
                };
                if let Some(d) = dst {
                    let origin = self.layouts.origin.get(&(src, e.clone())).copied().flatten();
                    any |= self.layouts.insert(v, d, origin);
                }
            }
            if any {
                changed.push(v);
            }
        }
    }

    fn propagate_to_users(
        &mut self,
        g: &Graph,
        src: ValueId,
        info: &[Arc<Encoding>],
        uses: &[(OpId, usize)],
    ) -> Vec<ValueId> {
        let mut changed = Vec::new();
        // MLIR lists a value's uses newest first: the last user in the text comes first.
        for &(user, k) in uses.iter().rev() {
            let op = &g.ops[user];
            match op.name.as_str() {
                "scf.for" if k >= 3 => {
                    let arg = block_arg(g, user, 0, k - 3 + 1);
                    let res = op.results.get(k - 3).copied();
                    let vals: Vec<ValueId> = arg.into_iter().chain(res).collect();
                    self.set_encoding(g, &vals, src, info, user, &mut changed);
                }
                "scf.while" => {
                    let vals: Vec<ValueId> = block_arg(g, user, 0, k).into_iter().collect();
                    self.set_encoding(g, &vals, src, info, user, &mut changed);
                }
                "scf.yield" => {
                    let Some(parent) = g.parent_op(user) else { continue };
                    let pname = g.ops[parent].name.as_str();
                    let mut vals = Vec::new();
                    if matches!(pname, "scf.for" | "scf.if" | "scf.while") {
                        vals.extend(g.ops[parent].results.get(k).copied());
                    }
                    if pname == "scf.for" {
                        vals.extend(block_arg(g, parent, 0, k + 1));
                    }
                    if pname == "scf.while" {
                        vals.extend(block_arg(g, parent, 0, k));
                    }
                    if matches!(pname, "scf.for" | "scf.if" | "scf.while") {
                        self.set_encoding(g, &vals, src, info, user, &mut changed);
                    }
                }
                "scf.condition" => {
                    let Some(parent) = g.parent_op(user) else { continue };
                    if k == 0 {
                        continue;
                    }
                    let vals: Vec<ValueId> = block_arg(g, parent, 1, k - 1)
                        .into_iter()
                        .chain(g.ops[parent].results.get(k - 1).copied())
                        .collect();
                    self.set_encoding(g, &vals, src, info, user, &mut changed);
                }
                "tt.gather" if k == 1 && crate::ttgir::attr(&op.attrs, "efficient_layout").is_none() => {
                    let res = op.results.clone();
                    self.set_encoding(g, &res, src, info, user, &mut changed);
                }
                name if same_operands_and_result_encoding(name)
                    || is_elementwise(name)
                    || matches!(
                        name,
                        "tt.reduce"
                            | "tt.expand_dims"
                            | "tt.reshape"
                            | "tt.trans"
                            | "tt.join"
                            | "tt.split"
                            | "ttg.convert_layout"
                    ) =>
                {
                    let res = op.results.clone();
                    self.set_encoding(g, &res, src, info, user, &mut changed);
                }
                _ => {}
            }
        }
        changed
    }

    fn propagate(&mut self, g: &Graph) {
        let uses = g.all_uses();
        let mut queue: Vec<ValueId> = self.layouts.order.clone();
        // Each round adds at least one new (value, layout) pair: bounded by values × layouts.
        while let Some(v) = queue.pop() {
            let info = self.layouts.encodings.get(&v).cloned().unwrap_or_default();
            let changed = self.propagate_to_users(g, v, &info, &uses[v]);
            queue.extend(changed);
        }
    }

    fn resolve_conflicts(&mut self, g: &Graph) {
        for &v in &self.layouts.order {
            let Some(list) = self.layouts.encodings.get_mut(&v) else {
                continue;
            };
            if list.len() <= 1 {
                continue;
            }
            let load_or_store = g.def_op(v).is_some_and(|o| {
                matches!(
                    g.ops[o].name.as_str(),
                    "tt.load" | "tt.store" | "tt.atomic_rmw" | "tt.atomic_cas"
                )
            });
            let pick = list
                .iter()
                .find(|e| {
                    (load_or_store && matches!(***e, Encoding::Blocked(_))) || (!load_or_store && is_mma(e))
                })
                .unwrap_or(&list[0])
                .clone();
            let why = if load_or_store {
                "a load or store keeps a blocked layout"
            } else {
                "compute prefers an MMA layout"
            };
            let line = format!(
                "{}: {} layouts reach it; {pick} kept ({why}, else the first to arrive)",
                g.values[v].name,
                list.len()
            );
            *list = vec![pick];
            self.conflicts.push(line);
        }
    }

    fn map(&mut self, g: &Graph, old: ValueId, new: ValueId) {
        if let Some(e) = g.encoding(new) {
            self.mapping.insert((old, e.clone()), new);
        }
    }

    fn rewritten(&self, g: &Graph, v: ValueId) -> Result<ValueId, PassError> {
        let Some(cur) = g.encoding(v) else { return Ok(v) };
        let Some(picked) = self.layouts.picked(v) else {
            return Ok(v);
        };
        if picked == cur {
            return Ok(v);
        }
        self.mapping
            .get(&(v, picked.clone()))
            .copied()
            .ok_or_else(|| PassError::new(g, g.def_op(v), "a value's new layout was used before it was made"))
    }

    /// `v` in `enc`: its rewritten value, converted if that has another layout.
    fn value_as(&mut self, g: &mut Graph, v: ValueId, enc: &Arc<Encoding>) -> Result<ValueId, PassError> {
        if !g.is_tensor(v) {
            return Ok(v);
        }
        let r = self.rewritten(g, v)?;
        if g.encoding(r) == Some(enc) {
            return Ok(r);
        }
        let at = g.after_value(r);
        Ok(g.insert_convert(at, r, enc.clone()))
    }

    fn rewrite(&mut self, g: &mut Graph, f: usize) -> Result<(), PassError> {
        let mut queue: std::collections::VecDeque<Vec<BlockId>> =
            g.funcs[f].blocks.clone().into_iter().map(|b| vec![b]).collect();
        while let Some(region) = queue.pop_front() {
            for b in region {
                let mut cur = g.blocks[b].ops.first().copied();
                while let Some(op) = cur {
                    let regions = self.rewrite_one(g, op)?;
                    queue.extend(regions);
                    cur = g.next_sibling(op);
                }
            }
        }
        for &op in self.to_delete.iter().rev() {
            g.erase_op(op);
        }
        Ok(())
    }

    /// Rewrites one op; returns the regions to visit next.
    fn rewrite_one(&mut self, g: &mut Graph, op: OpId) -> Result<Vec<Vec<BlockId>>, PassError> {
        let need = g.ops[op]
            .results
            .iter()
            .any(|&r| match (self.layouts.picked(r), g.encoding(r)) {
                (Some(p), Some(cur)) => p != cur,
                _ => false,
            });
        if need {
            if let Some((r, e)) = g.ops[op]
                .results
                .iter()
                .find_map(|&r| self.layouts.picked(r).cloned().map(|e| (r, e)))
            {
                let from = self.layouts.origin_text(g, r, &e);
                g.note(op, format_args!("rewritten in {e}, the layout of {from}"));
            }
            let new = self.rewrite_op(g, op)?;
            return Ok(g.ops[new].regions.clone());
        }
        let name = g.ops[op].name.clone();
        match name.as_str() {
            "scf.yield" => self.rewrite_yield(g, op)?,
            "scf.condition" => self.rewrite_condition(g, op)?,
            "tt.reduce" if g.ops[op].results.first().is_some_and(|&r| !g.is_tensor(r)) => {
                let src = g.ops[op]
                    .operands
                    .iter()
                    .find_map(|&o| self.layouts.picked(o).cloned());
                if let Some(src) = src {
                    for k in 0..g.ops[op].operands.len() {
                        let v = g.ops[op].operands[k];
                        g.ops[op].operands[k] = self.value_as(g, v, &src)?;
                    }
                }
            }
            "tt.assert" => {
                if let Some(&v) = g.ops[op].operands.first()
                    && let Some(e) = self.layouts.picked(v).cloned()
                {
                    g.ops[op].operands[0] = self.value_as(g, v, &e)?;
                }
            }
            _ => {
                for k in 0..g.ops[op].operands.len() {
                    let v = g.ops[op].operands[k];
                    if !self.layouts.encodings.contains_key(&v) {
                        continue;
                    }
                    let Some(e) = g.encoding(v).cloned() else { continue };
                    g.ops[op].operands[k] = self.value_as(g, v, &e)?;
                }
            }
        }
        Ok(g.ops[op].regions.clone())
    }

    fn rewrite_yield(&mut self, g: &mut Graph, op: OpId) -> Result<(), PassError> {
        let Some(parent) = g.parent_op(op) else {
            return Ok(());
        };
        let pname = g.ops[parent].name.clone();
        for k in 0..g.ops[op].operands.len() {
            let target = match pname.as_str() {
                "scf.for" | "scf.if" => g.ops[parent].results.get(k).copied(),
                "scf.while" => block_arg(g, parent, 0, k),
                _ => Some(g.ops[op].operands[k]),
            };
            let Some(t) = target else { continue };
            let Some(e) = g.encoding(t).cloned() else { continue };
            let v = g.ops[op].operands[k];
            g.ops[op].operands[k] = self.value_as(g, v, &e)?;
        }
        Ok(())
    }

    fn rewrite_condition(&mut self, g: &mut Graph, op: OpId) -> Result<(), PassError> {
        let Some(parent) = g.parent_op(op) else {
            return Ok(());
        };
        for k in 1..g.ops[op].operands.len() {
            let Some(&r) = g.ops[parent].results.get(k - 1) else {
                continue;
            };
            let Some(e) = g.encoding(r).cloned() else { continue };
            let v = g.ops[op].operands[k];
            g.ops[op].operands[k] = self.value_as(g, v, &e)?;
        }
        Ok(())
    }

    /// Replaces or maps each old result by the new one of the same position.
    fn remap(&mut self, g: &mut Graph, old: &[ValueId], new: &[ValueId]) {
        for (&o, &n) in old.iter().zip(new) {
            if g.values[o].ty == g.values[n].ty {
                g.replace_all_uses(o, n);
            } else {
                self.map(g, o, n);
            }
        }
    }

    fn rewrite_op(&mut self, g: &mut Graph, op: OpId) -> Result<OpId, PassError> {
        self.to_delete.push(op);
        let name = g.ops[op].name.clone();
        let at = g.position(op);
        match name.as_str() {
            "scf.for" => return self.rewrite_for(g, op),
            "scf.while" => return self.rewrite_while(g, op),
            "scf.if" => return self.rewrite_if(g, op),
            _ => {}
        }
        let result0 = g.ops[op].results[0];
        let enc = self
            .layouts
            .picked(result0)
            .cloned()
            .ok_or_else(|| PassError::new(g, Some(op), "no layout picked"))?;
        if name == "ttg.convert_layout" {
            let src = g.ops[op].operands[0];
            let src_enc = match self.layouts.picked(src) {
                Some(e) => e.clone(),
                None => g
                    .encoding(src)
                    .cloned()
                    .ok_or_else(|| PassError::new(g, Some(op), "a convert of a value without layout"))?,
            };
            let s = self.value_as(g, src, &src_enc)?;
            let at = g.position(op);
            let c = g.insert_convert(at, s, enc);
            self.map(g, result0, c);
            return Ok(g.def_op(c).unwrap_or(op));
        }
        if can_fold_into_conversion(g, op, &enc) {
            let mut map = HashMap::new();
            let copy = g.clone_deep(op, at, &mut map);
            let r = g.ops[copy].results[0];
            let at = g.position(op);
            let c = g.insert_convert(at, r, enc);
            self.map(g, result0, c);
            return Ok(g.def_op(c).unwrap_or(op));
        }
        if same_operands_and_result_encoding(&name)
            || is_elementwise(&name)
            || matches!(
                name.as_str(),
                "tt.reduce"
                    | "tt.expand_dims"
                    | "tt.reshape"
                    | "tt.trans"
                    | "tt.join"
                    | "tt.split"
                    | "tt.gather"
            )
        {
            let new = self.clone_elementwise(g, op, &enc)?;
            let (old, newr) = (g.ops[op].results.clone(), g.ops[new].results.clone());
            self.remap(g, &old, &newr);
            return Ok(new);
        }
        Err(PassError::new(
            g,
            Some(op),
            "an op the forward propagation cannot rewrite (Triton aborts: unexpected op in rewrite)",
        ))
    }

    fn clone_elementwise(&mut self, g: &mut Graph, op: OpId, enc: &Arc<Encoding>) -> Result<OpId, PassError> {
        let at = g.position(op);
        let mut map = HashMap::new();
        let new = g.clone_deep(op, at, &mut map);
        let operands = g.ops[op].operands.clone();
        let mut operand_enc = None;
        for &o in &operands {
            let r = self.rewritten(g, o)?;
            let Some(e) = g.encoding(r).cloned() else { continue };
            if infer_dst(g, op, &e).as_ref() == Some(enc) {
                operand_enc = Some(e);
                break;
            }
        }
        if !operands.is_empty() {
            let e = match operand_enc {
                Some(e) => e,
                None => infer_src(g, op, enc)
                    .ok_or_else(|| PassError::new(g, Some(op), "no operand layout for the result's"))?,
            };
            for (k, &o) in operands.iter().enumerate() {
                let v = self.value_as(g, o, &e)?;
                g.ops[new].operands[k] = v;
            }
        }
        for &r in &g.ops[new].results.clone() {
            if g.is_tensor(r) {
                g.values[r].ty.encoding = Some(enc.clone());
            }
        }
        Ok(new)
    }

    fn rewrite_for(&mut self, g: &mut Graph, op: OpId) -> Result<OpId, PassError> {
        let o = g.ops[op].clone();
        let mut operands = o.operands[..3].to_vec();
        for (k, &init) in o.operands[3..].iter().enumerate() {
            let v = match o.results.get(k).and_then(|&r| self.layouts.picked(r).cloned()) {
                Some(e) => self.value_as(g, init, &e)?,
                None => init,
            };
            operands.push(v);
        }
        let tys: Vec<_> = operands[3..].iter().map(|&v| g.values[v].ty.clone()).collect();
        let at = g.position(op);
        let new = g.insert_like(op, at, operands, tys.clone());
        let old_body = o.regions[0][0];
        let iv_ty = g.values[g.blocks[old_body].args[0]].ty.clone();
        let body = g.new_block(BlockOwner::Op(new), std::iter::once(iv_ty).chain(tys).collect());
        g.ops[new].regions = vec![vec![body]];
        g.move_ops(old_body, body);
        let (old_res, new_res) = (o.results.clone(), g.ops[new].results.clone());
        self.remap(g, &old_res, &new_res);
        let (old_args, new_args) = (g.blocks[old_body].args.clone(), g.blocks[body].args.clone());
        self.remap(g, &old_args, &new_args);
        Ok(new)
    }

    fn rewrite_while(&mut self, g: &mut Graph, op: OpId) -> Result<OpId, PassError> {
        let o = g.ops[op].clone();
        let (before, after) = (o.regions[0][0], o.regions[1][0]);
        let mut operands = Vec::new();
        for (k, &x) in o.operands.iter().enumerate() {
            let arg = g.blocks[before].args[k];
            let v = match self.layouts.picked(arg).cloned() {
                Some(e) => self.value_as(g, x, &e)?,
                None => x,
            };
            operands.push(v);
        }
        let result_tys = self.picked_types(g, &o.results);
        let before_tys: Vec<_> = operands.iter().map(|&v| g.values[v].ty.clone()).collect();
        let at = g.position(op);
        let new = g.insert_like(op, at, operands, result_tys.clone());
        let nb = g.new_block(BlockOwner::Op(new), before_tys);
        let na = g.new_block(BlockOwner::Op(new), result_tys);
        g.ops[new].regions = vec![vec![nb], vec![na]];
        g.move_ops(before, nb);
        g.move_ops(after, na);
        let pairs = [
            (o.results.clone(), g.ops[new].results.clone()),
            (g.blocks[before].args.clone(), g.blocks[nb].args.clone()),
            (g.blocks[after].args.clone(), g.blocks[na].args.clone()),
        ];
        for (old, newv) in pairs {
            self.remap(g, &old, &newv);
        }
        Ok(new)
    }

    /// The types of `values` in the layouts the analysis picked for them.
    fn picked_types(&self, g: &Graph, values: &[ValueId]) -> Vec<crate::ttgir::ValueType> {
        values
            .iter()
            .map(|&r| {
                let mut t = g.values[r].ty.clone();
                if let Some(e) = self.layouts.picked(r) {
                    t.encoding = Some(e.clone());
                }
                t
            })
            .collect()
    }

    fn rewrite_if(&mut self, g: &mut Graph, op: OpId) -> Result<OpId, PassError> {
        let o = g.ops[op].clone();
        let tys = self.picked_types(g, &o.results);
        let at = g.position(op);
        let new = g.insert_like(op, at, o.operands.clone(), tys);
        let mut regions = Vec::new();
        for region in &o.regions {
            let nb = g.new_block(BlockOwner::Op(new), Vec::new());
            if let Some(&b) = region.first() {
                g.move_ops(b, nb);
            }
            regions.push(vec![nb]);
        }
        g.ops[new].regions = regions;
        let (old, newr) = (o.results.clone(), g.ops[new].results.clone());
        self.remap(g, &old, &newr);
        Ok(new)
    }
}

/// Argument `k` of the block of region `r` of `op`.
pub(super) fn block_arg(g: &Graph, op: OpId, r: usize, k: usize) -> Option<ValueId> {
    let b = *g.ops[op].regions.get(r)?.first()?;
    g.blocks[b].args.get(k).copied()
}

/// The ops of function `f` in walk order.
pub(super) fn func_walk(g: &Graph, f: usize) -> Vec<OpId> {
    let mut out = Vec::new();
    for &b in &g.funcs[f].blocks {
        g.walk_block(b, &mut out);
    }
    out
}
