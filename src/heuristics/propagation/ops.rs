//! What the layout passes know about each op: which ops carry a layout through unchanged, how
//! a layout crosses a reduction or an `expand_dims`, which ops are anchors, which can be
//! recomputed in another layout.
//!
//! A layout crosses an op *forward* (`infer_dst`: the result's layout from an operand's) and
//! *backward* (`infer_src`: an operand's layout from the result's). Through an element-wise
//! op both are the identity; through `tt.reduce` along axis 1 of a `#blocked` operand the
//! result is `#ttg.slice<{dim = 1, parent = #blocked}>`, and back again; `tt.expand_dims` is
//! the reverse of that.

use std::sync::Arc;

use crate::encodings::{Encoding, Slice};
use crate::heuristics::convert::{ConversionKind, classify};
use crate::ttgir::graph::{Graph, OpId, ValueId};

use super::locality::is_expensive_view;
use crate::ttgir::{AttrValue, TypeKind, ValueType, attr};

/// `arith`/`math` ops with operands, and Triton's element-wise ops: one result element from
/// the operands' elements at the same position.
pub(crate) fn is_elementwise(name: &str) -> bool {
    (name.starts_with("arith.") && name != "arith.constant")
        || name.starts_with("math.")
        || matches!(
            name,
            "tt.int_to_ptr"
                | "tt.ptr_to_int"
                | "tt.bitcast"
                | "tt.fp_to_fp"
                | "tt.clampf"
                | "tt.precise_sqrt"
                | "tt.precise_divf"
                | "tt.mulhiui"
                | "tt.addptr"
                | "tt.extern_elementwise"
                | "tt.elementwise_inline_asm"
        )
}

/// Ops whose operands and results share one encoding (Triton's
/// `SameOperandsAndResultEncoding`).
pub(crate) fn same_operands_and_result_encoding(name: &str) -> bool {
    matches!(
        name,
        "tt.int_to_ptr"
            | "tt.ptr_to_int"
            | "tt.bitcast"
            | "tt.fp_to_fp"
            | "tt.addptr"
            | "tt.atomic_rmw"
            | "tt.atomic_cas"
            | "tt.splat"
            | "tt.broadcast"
            | "tt.extern_elementwise"
            | "tt.elementwise_inline_asm"
            | "tt.scan"
            | "tt.map_elementwise"
    )
}

/// [`same_operands_and_result_encoding`] or a load or store (whose pointer, mask, other and
/// result share one: Triton's `SameLoadStoreOperandsAndResultEncoding`).
fn same_encoding(name: &str) -> bool {
    same_operands_and_result_encoding(name) || matches!(name, "tt.load" | "tt.store")
}

/// An integer attribute of an op (`axis`).
pub(crate) fn int_attr(g: &Graph, op: OpId, name: &str) -> Option<i64> {
    match attr(&g.ops[op].attrs, name)? {
        AttrValue::Int(v) => Some(*v),
        _ => None,
    }
}

fn slice(dim: i64, parent: &Arc<Encoding>) -> Option<Arc<Encoding>> {
    Some(Arc::new(Encoding::Slice(Slice {
        dim: u32::try_from(dim).ok()?,
        parent: parent.clone(),
    })))
}

/// The layout of `op`'s results given an operand's layout `enc` (Triton's `inferDstEncoding`);
/// `None` where the layout does not cross the op.
pub(crate) fn infer_dst(g: &Graph, op: OpId, enc: &Arc<Encoding>) -> Option<Arc<Encoding>> {
    let name = g.ops[op].name.as_str();
    if name == "tt.scan" && !matches!(**enc, Encoding::Blocked(_)) {
        return None;
    }
    if same_encoding(name)
        || is_elementwise(name)
        || matches!(
            name,
            "scf.while" | "scf.for" | "scf.yield" | "scf.condition" | "tt.gather"
        )
    {
        return Some(enc.clone());
    }
    match name {
        "tt.reduce" => slice(int_attr(g, op, "axis")?, enc),
        "tt.expand_dims" => match &**enc {
            Encoding::Slice(s) if i64::from(s.dim) == int_attr(g, op, "axis")? => Some(s.parent.clone()),
            _ => None,
        },
        "tt.trans" => trans(enc, &g.values[g.ops[op].operands[0]].ty.shape, &order(g, op)?),
        "tt.join" => join(enc, &g.values[g.ops[op].operands[0]].ty.shape),
        "tt.split" => split(enc, &g.values[g.ops[op].operands[0]].ty.shape),
        "tt.reshape" if attr(&g.ops[op].attrs, "allow_reorder").is_none() => {
            let o = &g.ops[op];
            super::reshape::infer_reshape(
                &g.values[o.operands[0]].ty.shape,
                enc,
                &g.values[o.results[0]].ty.shape,
            )
        }
        _ => None,
    }
}

/// The layout an operand of `op` must have for its result to have `enc` (Triton's
/// `inferSrcEncoding`); `None` where no layout does.
pub(crate) fn infer_src(g: &Graph, op: OpId, enc: &Arc<Encoding>) -> Option<Arc<Encoding>> {
    let name = g.ops[op].name.as_str();
    if name == "tt.scan" && !matches!(**enc, Encoding::Blocked(_)) {
        return None;
    }
    if same_encoding(name)
        || is_elementwise(name)
        || matches!(name, "scf.while" | "scf.yield" | "scf.condition" | "tt.gather")
    {
        return Some(enc.clone());
    }
    match name {
        "tt.reduce" => match &**enc {
            Encoding::Slice(s) if i64::from(s.dim) == int_attr(g, op, "axis")? => Some(s.parent.clone()),
            _ => None,
        },
        "tt.expand_dims" => slice(int_attr(g, op, "axis")?, enc),
        "tt.trans" => {
            let order = order(g, op)?;
            let mut inverse = vec![0u32; order.len()];
            for (i, &o) in order.iter().enumerate() {
                *inverse.get_mut(o as usize)? = u32::try_from(i).ok()?;
            }
            trans(enc, &g.values[g.ops[op].results[0]].ty.shape, &inverse)
        }
        "tt.join" => split(enc, &g.values[g.ops[op].results[0]].ty.shape),
        "tt.split" => join(enc, &g.values[g.ops[op].results[0]].ty.shape),
        "tt.reshape" if attr(&g.ops[op].attrs, "allow_reorder").is_none() => {
            let o = &g.ops[op];
            super::reshape::infer_reshape(
                &g.values[o.results[0]].ty.shape,
                enc,
                &g.values[o.operands[0]].ty.shape,
            )
        }
        _ => None,
    }
}

fn order(g: &Graph, op: OpId) -> Option<Vec<u32>> {
    let rank = g.values[g.ops[op].operands[0]].ty.shape.len();
    attr(&g.ops[op].attrs, "order")?
        .ints(rank)?
        .into_iter()
        .map(|v| u32::try_from(v).ok())
        .collect()
}

/// `tt.trans` of a layout (Triton's `inferTransOpEncoding`): a blocked layout has every
/// per-dimension field permuted by `order` and its order renamed; any other distributed
/// layout becomes the `#ttg.linear` layout of its bases with the dims permuted.
pub(crate) fn trans(enc: &Arc<Encoding>, shape: &[u64], order: &[u32]) -> Option<Arc<Encoding>> {
    if order.iter().enumerate().all(|(i, &o)| o as usize == i) {
        return Some(enc.clone());
    }
    let mut inverse = vec![0u32; order.len()];
    for (i, &o) in order.iter().enumerate() {
        *inverse.get_mut(o as usize)? = u32::try_from(i).ok()?;
    }
    if let Encoding::Blocked(b) = &**enc {
        if !b.cga_layout.is_empty() || order.len() != b.order.len() {
            return None;
        }
        let permute =
            |v: &[u32]| -> Option<Vec<u32>> { order.iter().map(|&o| v.get(o as usize).copied()).collect() };
        let mut t = b.clone();
        t.size_per_thread = permute(&b.size_per_thread)?;
        t.threads_per_warp = permute(&b.threads_per_warp)?;
        t.warps_per_cta = permute(&b.warps_per_cta)?;
        t.order = b
            .order
            .iter()
            .map(|&d| inverse.get(d as usize).copied())
            .collect::<Option<_>>()?;
        return Some(Arc::new(Encoding::Blocked(t)));
    }
    if !enc.is_distributed() || shape.len() != order.len() {
        return None;
    }
    let ll = enc.to_linear_layout(shape).ok()?;
    let order: Vec<usize> = order.iter().map(|&o| o as usize).collect();
    let t = crate::linear::transpose_linear_layout(&ll, &order).ok()?;
    linear_encoding(&t)
}

/// The layout of `tt.join` of two tensors of `shape` in `enc` (Triton's
/// `inferDefaultJoinOpEncoding`): a slice along the new last dimension whose parent splits back
/// into it gives that parent; a blocked layout takes two elements per thread along a new,
/// fastest dimension; any other layout becomes linear with the new dimension in its first
/// register bit (`[16]` in `#linear<{register = [[1]]…}>` joins to `register = [[0, 1], [1, 0]]…`).
fn join(enc: &Arc<Encoding>, shape: &[u64]) -> Option<Arc<Encoding>> {
    let rank = shape.len();
    if let Encoding::Slice(s) = &**enc
        && s.dim as usize == rank
    {
        let mut joined = shape.to_vec();
        joined.push(2);
        let same = split(&s.parent, &joined).is_some_and(|back| {
            let (a, b) = (back.to_linear_layout(shape), enc.to_linear_layout(shape));
            a.is_ok() && a.ok() == b.ok()
        });
        if same {
            return Some(s.parent.clone());
        }
    }
    let Encoding::Blocked(b) = &**enc else {
        return join_linear(enc, shape);
    };
    if !b.cga_layout.is_empty() {
        return None;
    }
    let rank = u32::try_from(b.order.len()).ok()?;
    let mut t = b.clone();
    t.size_per_thread.push(2);
    t.threads_per_warp.push(1);
    t.warps_per_cta.push(1);
    t.order.insert(0, rank);
    Some(Arc::new(Encoding::Blocked(t)))
}

/// The layout of the halves `tt.split` makes of a tensor of `shape` (last dimension 2) in `enc`
/// (Triton's `inferSplitOpEncoding`): a blocked layout holding the last dimension's two
/// elements in each thread drops that dimension; any other layout whose registers hold that
/// dimension's bit becomes linear without it (register bases with the bit dropped, the rest
/// halved along it).
fn split(enc: &Arc<Encoding>, shape: &[u64]) -> Option<Arc<Encoding>> {
    let simple = |b: &crate::encodings::Blocked| {
        b.size_per_thread.last() == Some(&2)
            && b.threads_per_warp.last() == Some(&1)
            && b.warps_per_cta.last() == Some(&1)
            && b.cga_layout.is_empty()
    };
    let b = match &**enc {
        Encoding::Blocked(b) if simple(b) => b,
        _ => return split_linear(enc, shape),
    };
    let last = u32::try_from(b.order.len().checked_sub(1)?).ok()?;
    let mut t = b.clone();
    t.size_per_thread.pop();
    t.threads_per_warp.pop();
    t.warps_per_cta.pop();
    t.order.retain(|&d| d != last);
    Some(Arc::new(Encoding::Blocked(t)))
}

/// The bases of `ll` per in-dim, each as coordinates in `rank` dimensions (`dimK` at `K`).
fn bases_by_dim(ll: &crate::linear::LinearLayout, rank: usize) -> Option<Vec<(String, Vec<Vec<i64>>)>> {
    let outs: Vec<usize> = ll
        .out_dim_names()
        .map(|n| n.as_str().strip_prefix("dim").and_then(|d| d.parse().ok()))
        .collect::<Option<_>>()?;
    let mut all = Vec::new();
    for name in ll.in_dim_names() {
        let mut vs = Vec::new();
        for b in ll.bases(name.as_str()).ok()? {
            let mut c = vec![0i64; rank];
            for (k, &d) in outs.iter().enumerate() {
                *c.get_mut(d)? = i64::try_from(*b.get(k)?).ok()?;
            }
            vs.push(c);
        }
        all.push((name.as_str().to_string(), vs));
    }
    Some(all)
}

/// A `#ttg.linear` encoding from bases per in-dim over a tensor of `shape`.
fn linear_from(bases: Vec<(String, Vec<Vec<i64>>)>, shape: &[u64]) -> Option<Arc<Encoding>> {
    let outs: Vec<(String, i64)> = shape
        .iter()
        .enumerate()
        .map(|(d, &n)| Some((format!("dim{d}"), i64::try_from(n).ok()?)))
        .collect::<Option<_>>()?;
    let ll = crate::linear::LinearLayout::from_bases(bases, outs, false).ok()?;
    linear_encoding(&ll)
}

/// [`join`] of a layout that is neither a matching slice nor blocked: the new last dimension is
/// the first register bit.
fn join_linear(enc: &Arc<Encoding>, shape: &[u64]) -> Option<Arc<Encoding>> {
    let rank = shape.len();
    let ll = enc.to_linear_layout(shape).ok()?;
    let mut bases = bases_by_dim(&ll, rank + 1)?;
    let mut bit = vec![0i64; rank + 1];
    *bit.last_mut()? = 1;
    match bases.iter_mut().find(|(n, _)| n == "register") {
        Some((_, r)) => r.insert(0, bit),
        None => bases.insert(0, ("register".to_string(), vec![bit])),
    }
    let mut joined = shape.to_vec();
    joined.push(2);
    linear_from(bases, &joined)
}

/// [`split`] of a layout that is not a simple blocked one: register bases along the last
/// dimension go, every other basis is halved along it; `None` when no register holds it.
fn split_linear(enc: &Arc<Encoding>, shape: &[u64]) -> Option<Arc<Encoding>> {
    let (&last, rest) = shape.split_last()?;
    if last != 2 {
        return None;
    }
    let ll = enc.to_linear_layout(shape).ok()?;
    let axis = rest.len();
    let mut found = false;
    let mut bases = Vec::new();
    for (name, vs) in bases_by_dim(&ll, shape.len())? {
        let mut kept = Vec::new();
        for mut b in vs {
            if name == "register" && b.get(axis) == Some(&1) {
                found = true;
                continue;
            }
            b.truncate(axis);
            kept.push(b);
        }
        bases.push((name, kept));
    }
    if !found {
        return None;
    }
    linear_from(bases, rest)
}

/// The `#ttg.linear` encoding of a distributed layout whose out-dims are `dim0`, `dim1`, ….
pub(crate) fn linear_encoding(ll: &crate::linear::LinearLayout) -> Option<Arc<Encoding>> {
    let names: Vec<_> = ll.out_dim_names().collect();
    let rank = names.len();
    let to_coords = |b: &[u64]| -> Option<Vec<u32>> {
        let mut c = vec![0u32; rank];
        for (k, name) in names.iter().enumerate() {
            let d: usize = name.as_str().strip_prefix("dim")?.parse().ok()?;
            *c.get_mut(d)? = u32::try_from(b.get(k).copied().unwrap_or(0)).ok()?;
        }
        Some(c)
    };
    let dim = |name: &str| -> Option<Vec<Vec<u32>>> {
        if !ll.has_in_dim(name) {
            return Some(Vec::new());
        }
        ll.bases(name).ok()?.iter().map(|b| to_coords(b)).collect()
    };
    Some(Arc::new(Encoding::Linear(crate::encodings::Linear {
        register: dim("register")?,
        lane: dim("lane")?,
        warp: dim("warp")?,
        block: dim("block")?,
        shape: None,
    })))
}

/// Number of elements of a tensor value (1 for scalars).
pub(crate) fn num_elements(g: &Graph, v: ValueId) -> u64 {
    g.values[v].ty.shape.iter().product::<u64>().max(1)
}

/// Triton's `isExpensiveLoadOrStore`: a load or store whose pointer tensor has at least as
/// many elements as the CTA has threads (smaller ones are cheap to repeat).
pub(crate) fn is_expensive_load_or_store(g: &Graph, op: OpId) -> bool {
    let Some(&ptr) = g.ops[op].operands.first() else {
        return false;
    };
    let ty = &g.values[ptr].ty;
    if ty.element.starts_with("!tt.ptr<tensor<") {
        return true;
    }
    if ty.kind != TypeKind::Tensor || num_elements(g, ptr) == 1 {
        return false;
    }
    num_elements(g, ptr) >= u64::from(g.num_warps) * u64::from(g.threads_per_warp)
}

/// Triton's `isLayoutAnchor`: ops whose result layout the forward propagation starts from.
pub(crate) fn is_anchor(g: &Graph, op: OpId) -> bool {
    let name = g.ops[op].name.as_str();
    match name {
        "tt.load" | "tt.store" => is_expensive_load_or_store(g, op),
        "tt.dot" | "tt.dot_scaled" | "tt.atomic_rmw" | "tt.atomic_cas" => true,
        "tt.gather" => attr(&g.ops[op].attrs, "efficient_layout").is_some(),
        "tt.reshape" => attr(&g.ops[op].attrs, "allow_reorder").is_some(),
        "tt.descriptor_load"
        | "tt.descriptor_store"
        | "tt.descriptor_gather"
        | "tt.descriptor_scatter"
        | "tt.descriptor_reduce" => true,
        _ => false,
    }
}

/// Triton's `canFoldIntoConversion`: a producer that can make its result directly in another
/// layout (a constant, a range, a splat, a conversion, a shared-memory load).
pub(crate) fn can_fold_into_conversion(g: &Graph, op: OpId, target: &Arc<Encoding>) -> bool {
    let o = &g.ops[op];
    match o.name.as_str() {
        "tt.cat" => false,
        "tt.reshape" => {
            attr(&o.attrs, "allow_reorder").is_some()
                && attr(&o.attrs, "efficient_layout").is_none()
                && !is_expensive_view(
                    &g.values[o.operands[0]].ty,
                    &ValueType {
                        encoding: Some(target.clone()),
                        ..g.values[o.results[0]].ty.clone()
                    },
                )
        }
        "ttg.convert_layout" => {
            if matches!(**target, Encoding::NvidiaMma(_)) {
                return g.encoding(o.operands[0]) == Some(target);
            }
            true
        }
        "arith.constant" | "tt.make_range" | "tt.splat" | "tt.histogram" | "ttg.local_alloc"
        | "ttg.local_load" | "ttg.local_store" => true,
        _ => false,
    }
}

/// Triton's `canBeRemat`: ops the backward rematerialisation may recompute in another layout.
pub(crate) fn can_be_remat(g: &Graph, op: OpId) -> bool {
    match g.ops[op].name.as_str() {
        "tt.load" | "tt.store" => !is_expensive_load_or_store(g, op),
        "tt.atomic_rmw" | "tt.atomic_cas" | "tt.dot" => false,
        "tt.gather" => attr(&g.ops[op].attrs, "efficient_layout").is_none(),
        "scf.while" | "scf.condition" => false,
        _ => true,
    }
}

/// Whether a `ttg.convert_layout` only moves registers within each thread (Triton's
/// `cvtReordersRegisters`).
pub(crate) fn is_free_convert(g: &Graph, op: OpId) -> bool {
    let o = &g.ops[op];
    if o.name != "ttg.convert_layout" {
        return false;
    }
    let (src, dst) = (&g.values[o.operands[0]].ty, &g.values[o.results[0]].ty);
    let (Some(se), Some(de)) = (&src.encoding, &dst.encoding) else {
        return false;
    };
    let (Ok(s), Ok(d)) = (se.to_linear_layout(&src.shape), de.to_linear_layout(&dst.shape)) else {
        return false;
    };
    classify(&s, &d).is_ok_and(|c| matches!(c.kind, ConversionKind::Noop | ConversionKind::Register))
}

/// [`is_removable_when_unused`] for one op: inline assembly and external functions marked
/// `pure` have no effect either (`tt.elementwise_inline_asm … {pure = true}`).
pub(crate) fn is_removable_op(g: &Graph, op: OpId) -> bool {
    let name = g.ops[op].name.as_str();
    is_removable_when_unused(name)
        || (matches!(name, "tt.elementwise_inline_asm" | "tt.extern_elementwise")
            && g.op_text_without_results(op).contains("pure = true"))
}

/// Ops without side effects (or only reads) whose results are unused are dead (MLIR's
/// `isOpTriviallyDead`, with Triton's effects).
pub(crate) fn is_removable_when_unused(name: &str) -> bool {
    !matches!(
        name,
        "tt.store"
            | "tt.atomic_rmw"
            | "tt.atomic_cas"
            | "tt.print"
            | "tt.assert"
            | "tt.return"
            | "tt.call"
            | "tt.extern_elementwise"
            | "tt.elementwise_inline_asm"
            | "scf.yield"
            | "scf.condition"
            | "scf.for"
            | "scf.if"
            | "scf.while"
            | "cf.br"
            | "cf.cond_br"
            | "ttg.local_store"
            | "ttg.local_dealloc"
            | "ttg.async_copy_global_to_local"
            | "ttg.async_commit_group"
            | "ttg.async_wait"
            | "ttg.barrier"
            | "gpu.barrier"
            | "amdg.buffer_store"
            | "amdg.buffer_atomic_rmw"
            | "amdg.buffer_atomic_cas"
            | "amdg.buffer_load_to_local"
            | "amdg.async_copy_local_to_global"
    ) && !name.starts_with("rocdl.")
        && !name.starts_with("llvm.")
}

/// The operands (at least) and results (exactly) an op of a known name has: what the passes
/// index. `None` for ops they do not look into.
fn arity(name: &str) -> Option<(usize, usize)> {
    Some(match name {
        "arith.constant" | "tt.make_range" | "tt.get_program_id" | "tt.get_num_programs" => (0, 1),
        "ttg.convert_layout"
        | "tt.splat"
        | "tt.broadcast"
        | "tt.expand_dims"
        | "tt.trans"
        | "tt.reshape"
        | "tt.fp_to_fp"
        | "tt.bitcast"
        | "tt.int_to_ptr"
        | "tt.ptr_to_int"
        | "ttg.local_load"
        | "tt.load"
        | "tt.histogram"
        | "amdg.in_thread_transpose" => (1, 1),
        "ttg.local_dealloc" => (1, 0),
        "ttg.memdesc_index" => (2, 1),
        "ttg.local_alloc" => (0, 1),
        "tt.store" | "ttg.local_store" => (2, 0),
        "tt.addptr" | "tt.join" | "tt.gather" | "tt.atomic_rmw" => (2, 1),
        "tt.atomic_cas" | "tt.dot" | "tt.dot_scaled" => (3, 1),
        "tt.split" => (1, 2),
        n if n.starts_with("math.") || n.starts_with("arith.") => (1, 1),
        _ => return None,
    })
}

/// Whether every op the passes look into has the operands, results and regions its kind
/// has (a mangled module can name an op without them); the first op that does not, if any.
pub(crate) fn malformed(g: &Graph) -> Option<OpId> {
    let block_ok = |b: &[usize], args: usize, term: &str, term_operands: usize| -> bool {
        b.first().is_some_and(|&blk| {
            // A terminator without operands may be left out of the text (`scf.for` without
            // iteration arguments).
            g.blocks[blk].args.len() == args
                && match g.blocks[blk].ops.last() {
                    Some(&t) if g.ops[t].name == term => g.ops[t].operands.len() == term_operands,
                    _ => term_operands == 0,
                }
        })
    };
    g.walk().into_iter().find(|&op| {
        let o = &g.ops[op];
        let (n_in, n_out) = (o.operands.len(), o.results.len());
        match o.name.as_str() {
            "scf.for" => {
                n_in < 3
                    || n_out != n_in - 3
                    || o.regions.len() != 1
                    || !block_ok(&o.regions[0], n_out + 1, "scf.yield", n_out)
            }
            "scf.if" => {
                n_in != 1
                    || o.regions.is_empty()
                    || o.regions.len() > 2
                    || n_out > 0
                        && (o.regions.len() != 2
                            || o.regions.iter().any(|r| !block_ok(r, 0, "scf.yield", n_out)))
            }
            "scf.while" => {
                o.regions.len() != 2
                    || !block_ok(&o.regions[0], n_in, "scf.condition", n_out + 1)
                    || !block_ok(&o.regions[1], n_out, "scf.yield", n_in)
            }
            "tt.reduce" | "tt.scan" => n_in == 0 || n_out != n_in || o.regions.len() != 1,
            "arith.constant" => n_out != 1,
            name => arity(name).is_some_and(|(a, r)| n_in < a || n_out != r),
        }
    })
}
