//! `tritongpu-optimize-thread-locality`: keep the data a reduction or a gather combines inside
//! one thread, or at least one warp.
//!
//! Three rewrites, in Triton 3.6's order:
//!
//! 1. **Reshapes feeding a reduction.** A `tt.reshape … allow_reorder` whose users reduce along
//!    one axis may place its elements freely; it is given the blocked layout that walks the
//!    reduction axis last (one element per thread, lanes and warps on the other dimensions
//!    first), marked `efficient_layout`, and converted back for its users. Skipped when the
//!    layout already keeps the axis in one thread, or when the new layout would make the
//!    reshape move data.
//! 2. **Gathers.** A `tt.gather` gets a layout where one warp spans whole columns of the
//!    gather axis, so the lookup is a warp shuffle: as many lanes as fit along the axis, the
//!    rest on the other dimensions, no warp along the axis. Source, indices and result are
//!    converted around it.
//! 3. **Reductions accumulated over a loop.** In
//!
//!    ```text
//!    %acc = scf.for … iter_args(%a = %cst) {
//!      %x = tt.load …                  : tensor<32x128xf32, #blocked>   (2 elements per thread on dim 1)
//!      %r = tt.reduce(%x) axis = 1     : … -> tensor<32xf32, #slice>
//!      %u = arith.addf %a, %r
//!      scf.yield %u
//!    }
//!    ```
//!
//!    each iteration reduces across threads. The loop instead carries a partial sum that
//!    stays per thread: the loaded tile is reshaped to `32x32x4` (the thread's own elements
//!    along a new last axis), reduced along that axis only — within the thread — and added to
//!    a new `32x32` accumulator; after the loop one reduction along the old axis finishes the
//!    job, and the original accumulator's start value is added back. The old reduction and
//!    update stay in the loop, dead, for the next cleanup (as in Triton).
//!
//! Only reductions whose combine region is one `arith.addf`, `mulf`, `maximumf`, `maxnumf`,
//! `minimumf` or `minnumf`, over a blocked tensor of rank ≥ 2 along its last axis, whose
//! operands are loads, whose single update is yielded by the enclosing `scf.for` and whose
//! accumulator starts from a constant, are rewritten.

use std::collections::HashMap;
use std::sync::Arc;

use crate::encodings::{Blocked, Encoding, Slice};
use crate::heuristics::coalesce::blocked_for;
use crate::linear::LinearLayout;
use crate::ttgir::graph::{Def, Form, Graph, InsertPoint, OpId, Piece, ValueId};
use crate::ttgir::{AttrValue, TypeKind, ValueType, attr};

use super::PassError;
use super::cleanup;
use super::duplication::order_per_dim;
use super::ops::int_attr;
use super::remat::replace_for_with_new_signature;

/// Triton 3.6's `tritongpu-optimize-thread-locality` on `g`, in place; see the
/// module docs. On an error `g` is left as it was.
///
/// ```
/// use linear_layout::heuristics::propagation::optimize_thread_locality;
/// use linear_layout::ttgir::graph::Graph;
/// // A gather along dim 1 of a layout that spreads dim 1 over 16 lanes and dim 0 over 4.
/// let text = r#"
/// #blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
/// module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @k(%src: tensor<16x64xf32, #blocked>, %idx: tensor<16x64xi32, #blocked>) -> tensor<16x64xf32, #blocked> {
///     %g = tt.gather %src[%idx] {axis = 1 : i32} : (tensor<16x64xf32, #blocked>, tensor<16x64xi32, #blocked>) -> tensor<16x64xf32, #blocked>
///     tt.return %g : tensor<16x64xf32, #blocked>
///   }
/// }"#;
/// let mut g = Graph::parse(text)?;
/// optimize_thread_locality(&mut g)?;
/// let out = g.print()?;
/// // All 64 lanes of a warp along the gather axis: one warp holds whole rows.
/// let warp_local = "sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]";
/// assert!(out.contains(warp_local), "{out}");
/// assert!(out.contains("{axis = 1 : i32, efficient_layout}"), "{out}");
/// assert_eq!(out.matches("ttg.convert_layout").count(), 3, "{out}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn optimize_thread_locality(g: &mut Graph) -> Result<(), PassError> {
    super::bounded(g)?;
    // Work on a copy: a reduction found unfit half-way through leaves `g` untouched.
    let mut work = g.clone();
    for op in work.walk() {
        if work.ops[op].erased {
            continue;
        }
        match work.ops[op].name.as_str() {
            "tt.reshape" => reshape_for_reduction(&mut work, op)?,
            "tt.gather" => gather(&mut work, op)?,
            _ => {}
        }
    }
    // The greedy rewriter that ran those patterns also drops dead ops and hoists constants.
    cleanup::canonicalize(&mut work, cleanup::Patterns::None);
    let plans: Vec<Plan> = work
        .walk()
        .into_iter()
        .filter(|&o| work.ops[o].name == "tt.reduce")
        .map(|o| plan(&work, o))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    for p in plans {
        accumulate_in_thread(&mut work, &p)?;
    }
    *g = work;
    Ok(())
}

fn err(g: &Graph, op: OpId, message: &str) -> PassError {
    PassError::new(g, Some(op), message)
}

fn after(g: &Graph, op: OpId) -> InsertPoint {
    let p = g.position(op);
    InsertPoint {
        index: p.index + 1,
        ..p
    }
}

pub(super) fn layout(ty: &ValueType) -> Option<LinearLayout> {
    ty.encoding.as_ref()?.to_linear_layout(&ty.shape).ok()
}

/// The dimension index of out-dim `k` of a tensor layout (`dim3` → 3).
fn dim_index(ll: &LinearLayout, k: usize) -> usize {
    ll.out_dim_names()
        .nth(k)
        .and_then(|n| n.as_str().strip_prefix("dim").and_then(|d| d.parse().ok()))
        .unwrap_or(k)
}

/// Triton's `getElemsPerThread`: per dimension, the elements one thread holds (a broadcast
/// register counts for the dimension of the register before it, dim 0 before any).
fn elems_per_thread(ty: &ValueType) -> Option<Vec<u64>> {
    let ll = layout(ty)?;
    let mut out = vec![1u64; ty.shape.len()];
    let mut last = 0usize;
    for b in ll.bases("register").ok()? {
        if let Some(k) = b.iter().position(|&x| x != 0) {
            last = dim_index(&ll, k);
        }
        *out.get_mut(last)? *= 2;
    }
    Some(out)
}

/// Triton's `getOrder`, `getThreadOrder` and `getWarpOrder` of a tensor type, from its layout.
fn orders(ty: &ValueType) -> Option<(Vec<u32>, Vec<u32>, Vec<u32>)> {
    let ll = layout(ty)?;
    let default: Vec<u32> = (0..ty.shape.len() as u32).rev().collect();
    let order = order_per_dim(&ll, "register", &default);
    let lanes = order_per_dim(&ll, "lane", &order);
    let warps = order_per_dim(&ll, "warp", &order);
    Some((order, lanes, warps))
}

/// Whether the layout spans one CTA (the rewrites build layouts for one CTA only).
fn one_cta(ty: &ValueType) -> bool {
    layout(ty).is_some_and(|ll| !ll.has_in_dim("block") || ll.in_dim_size("block").is_ok_and(|s| s == 1))
}

fn has_attr(g: &Graph, op: OpId, name: &str) -> bool {
    attr(&g.ops[op].attrs, name).is_some()
}

fn with_encoding(ty: &ValueType, e: Arc<Encoding>) -> ValueType {
    ValueType {
        encoding: Some(e),
        ..ty.clone()
    }
}

/// Triton's `isExpensiveView`: a reshape between these types moves data when the two layouts
/// replicate differently or hold different numbers of elements per thread.
pub(super) fn is_expensive_view(src: &ValueType, dst: &ValueType) -> bool {
    let (Some(a), Some(b)) = (layout(src), layout(dst)) else {
        return true;
    };
    let (ma, mb) = (a.free_variable_masks(), b.free_variable_masks());
    if ma.iter().zip(mb.iter()).any(|(x, y)| x.1 != y.1) {
        return true;
    }
    let total = |t: &ValueType| elems_per_thread(t).map(|v| v.iter().product::<u64>());
    total(src) != total(dst)
}

/// Triton's `OptimizeReshapeLayoutPattern` on one `tt.reshape`.
fn reshape_for_reduction(g: &mut Graph, view: OpId) -> Result<(), PassError> {
    if !has_attr(g, view, "allow_reorder") {
        return Ok(());
    }
    let res = g.ops[view].results[0];
    let mut axis = None;
    for (user, _) in g.uses(res) {
        if g.ops[user].name != "tt.reduce" {
            continue;
        }
        let a = int_attr(g, user, "axis").ok_or_else(|| err(g, user, "a reduction without an axis"))?;
        match axis {
            Some(x) if x != a => return Ok(()),
            _ => axis = Some(a),
        }
    }
    let Some(axis) = axis else {
        return Ok(());
    };
    let axis = axis as usize;
    let ty = g.values[res].ty.clone();
    let rank = ty.shape.len();
    if axis >= rank {
        return Err(err(g, view, "a reduction axis beyond the reshape's rank"));
    }
    let Some(old_enc) = ty.encoding.clone() else {
        return Err(err(g, view, "a reshape result without a layout"));
    };
    if let Some(Encoding::Blocked(b)) = ty.encoding.as_deref()
        && b.threads_per_warp[axis] == 1
        && b.warps_per_cta[axis] == 1
        && b.cga_layout
            .iter()
            .all(|basis| basis.get(axis).is_none_or(|&x| x == 0))
    {
        // Every element along the axis is in one thread already.
        return Ok(());
    }
    if !one_cta(&ty) {
        return Err(err(g, view, "a reshape over several CTAs is not handled"));
    }
    let (order, _, _) = orders(&ty).ok_or_else(|| err(g, view, "the reshape's layout has no linear form"))?;
    let mut new_order: Vec<u32> = order.into_iter().filter(|&d| d as usize != axis).collect();
    new_order.push(axis as u32);
    let b = blocked_for(
        &ty.shape,
        &vec![1; rank],
        &new_order,
        g.num_warps,
        g.threads_per_warp,
        Vec::new(),
    );
    let enc = Arc::new(Encoding::Blocked(b));
    if ty.encoding.as_ref() == Some(&enc) {
        return Ok(());
    }
    let new_ty = with_encoding(&ty, enc);
    let src = g.ops[view].operands[0];
    if is_expensive_view(&g.values[src].ty, &new_ty) {
        return Ok(());
    }
    let at = g.position(view);
    let new = g
        .insert_text(
            at,
            "tt.reshape",
            vec![src],
            vec![new_ty],
            "$r = tt.reshape $0 allow_reorder efficient_layout : $t0 -> $rt0",
        )
        .map_err(|e| err(g, view, &e.message))?;
    g.ops[new].line = g.ops[view].line;
    g.ops[new].attrs = vec![
        ("allow_reorder".into(), AttrValue::Int(1)),
        ("efficient_layout".into(), AttrValue::Int(1)),
    ];
    let new_res = g.ops[new].results[0];
    let back = g.insert_convert(after(g, new), new_res, old_enc);
    g.replace_all_uses(res, back);
    g.erase_op(view);
    Ok(())
}

/// Triton's `OptimizeGatherLayoutPattern` on one `tt.gather`.
fn gather(g: &mut Graph, op: OpId) -> Result<(), PassError> {
    if has_attr(g, op, "efficient_layout") {
        return Ok(());
    }
    let (src, idx) = match g.ops[op].operands.as_slice() {
        [s, i] => (*s, *i),
        _ => return Err(err(g, op, "a gather without source and indices")),
    };
    let src_ty = g.values[src].ty.clone();
    let rank = src_ty.shape.len();
    if rank == 1 {
        return Ok(());
    }
    let axis = int_attr(g, op, "axis").ok_or_else(|| err(g, op, "a gather without an axis"))? as usize;
    if axis >= rank {
        return Err(err(g, op, "a gather axis beyond the source's rank"));
    }
    if !one_cta(&src_ty) {
        return Err(err(g, op, "a gather over several CTAs is not handled"));
    }
    let (_, thread_order, warp_order) =
        orders(&src_ty).ok_or_else(|| err(g, op, "the gather's source layout has no linear form"))?;
    let dim = |d: usize| src_ty.shape[d];
    let lanes = u64::from(g.threads_per_warp);
    let mut tpw = vec![0u64; rank];
    let mut wpc = vec![0u64; rank];
    // As many lanes along the axis as it has elements: fewest index elements per thread.
    tpw[axis] = dim(axis).min(lanes);
    let mut lanes_left = lanes / tpw[axis].max(1);
    let mut order = vec![axis as u32];
    for &d in &thread_order {
        let d = d as usize;
        if d == axis {
            continue;
        }
        order.push(d as u32);
        let n = dim(d).min(lanes_left);
        tpw[d] = n;
        lanes_left /= n.max(1);
    }
    wpc[axis] = 1;
    let mut warps_left = u64::from(g.num_warps);
    for &d in &warp_order {
        let d = d as usize;
        if d == axis {
            continue;
        }
        let fit = dim(d) / tpw[d].max(1);
        let n = fit.min(warps_left);
        if n == 0 {
            return Err(err(g, op, "no warp fits along a dimension of the gather"));
        }
        wpc[d] = n;
        warps_left /= n;
    }
    if tpw.contains(&0) || wpc.contains(&0) {
        return Err(err(g, op, "a gather layout with an empty dimension"));
    }
    let mut spt = vec![1u32; rank];
    spt[axis] = (dim(axis) / tpw[axis]) as u32;
    // What is left of lanes and warps broadcasts along the axis.
    tpw[axis] *= lanes_left;
    wpc[axis] *= warps_left;
    let enc = Arc::new(Encoding::Blocked(Blocked {
        size_per_thread: spt,
        threads_per_warp: tpw.iter().map(|&x| x as u32).collect(),
        warps_per_cta: wpc.iter().map(|&x| x as u32).collect(),
        order,
        cga_layout: Vec::new(),
    }));
    let res = g.ops[op].results[0];
    let res_ty = g.values[res].ty.clone();
    let Some(old_enc) = res_ty.encoding.clone() else {
        return Err(err(g, op, "a gather result without a layout"));
    };
    let at = g.position(op);
    let s = g.insert_convert(at, src, enc.clone());
    let at = g.position(op);
    let i = g.insert_convert(at, idx, enc.clone());
    let at = g.position(op);
    let format =
        format!("$r = tt.gather $0[$1] {{axis = {axis} : i32, efficient_layout}} : ($t0, $t1) -> $rt0");
    let new = g
        .insert_text(
            at,
            "tt.gather",
            vec![s, i],
            vec![with_encoding(&res_ty, enc)],
            &format,
        )
        .map_err(|e| err(g, op, &e.message))?;
    g.ops[new].line = g.ops[op].line;
    g.ops[new].attrs = vec![
        ("axis".into(), AttrValue::Int(axis as i64)),
        ("efficient_layout".into(), AttrValue::Int(1)),
    ];
    let new_res = g.ops[new].results[0];
    let back = g.insert_convert(after(g, new), new_res, old_enc);
    g.replace_all_uses(res, back);
    g.erase_op(op);
    Ok(())
}

/// A reduction accumulated over a loop, with everything its rewrite needs.
struct Plan {
    reduce: OpId,
    /// The combine op inside the reduction (`arith.addf`).
    combine: String,
    /// The op adding the reduction to the accumulator.
    update: OpId,
    /// Which iteration argument the accumulator is (0-based, without the induction variable).
    acc: usize,
    elems: u64,
}

/// The combine op of a reduction whose region is one op and its terminator.
fn combine_op(g: &Graph, reduce: OpId) -> Option<OpId> {
    let [region] = g.ops[reduce].regions.as_slice() else {
        return None;
    };
    let [block] = region.as_slice() else {
        return None;
    };
    match g.blocks[*block].ops.as_slice() {
        [op, _terminator] => Some(*op),
        _ => None,
    }
}

fn total_uses(g: &Graph, op: OpId) -> Vec<(OpId, usize)> {
    g.ops[op].results.iter().flat_map(|&r| g.uses(r)).collect()
}

/// Whether `reduce` qualifies (Triton's filter), and then its plan; an error where Triton
/// would assume something this reduction does not satisfy.
fn plan(g: &Graph, reduce: OpId) -> Result<Option<Plan>, PassError> {
    let Some(&src) = g.ops[reduce].operands.first() else {
        return Ok(None);
    };
    let ty = &g.values[src].ty;
    let rank = ty.shape.len();
    let Some(combine) = combine_op(g, reduce) else {
        return Ok(None);
    };
    let combine = g.ops[combine].name.clone();
    if !matches!(
        combine.as_str(),
        "arith.addf" | "arith.mulf" | "arith.maximumf" | "arith.maxnumf" | "arith.minimumf" | "arith.minnumf"
    ) {
        return Ok(None);
    }
    if !matches!(ty.encoding.as_deref(), Some(Encoding::Blocked(_))) || rank <= 1 {
        return Ok(None);
    }
    if int_attr(g, reduce, "axis") != Some(rank as i64 - 1) {
        return Ok(None);
    }
    let loaded = |v: ValueId| g.def_op(v).is_some_and(|d| g.ops[d].name == "tt.load");
    if !g.ops[reduce].operands.iter().all(|&v| loaded(v)) {
        return Ok(None);
    }
    let Some(elems) = elems_per_thread(ty).and_then(|e| e.get(rank - 1).copied()) else {
        return Err(err(g, reduce, "the reduced tensor's layout has no linear form"));
    };
    if elems == 1 {
        return Ok(None);
    }
    let [(update, _)] = total_uses(g, reduce)[..] else {
        return Ok(None);
    };
    let [(yield_op, slot)] = total_uses(g, update)[..] else {
        return Ok(None);
    };
    if g.ops[yield_op].name != "scf.yield" {
        return Ok(None);
    }
    let Some(for_op) = g.parent_op(reduce).filter(|&p| g.ops[p].name == "scf.for") else {
        return Ok(None);
    };
    let init_is_constant = g.ops[for_op]
        .operands
        .get(3 + slot)
        .and_then(|&v| g.def_op(v))
        .is_some_and(|d| g.ops[d].name == "arith.constant");
    if !init_is_constant {
        return Ok(None);
    }
    // From here on Triton assumes the shape of the loop: refuse what does not have it.
    if g.ops[reduce].operands.len() != 1 || g.ops[reduce].results.len() != 1 {
        return Err(err(
            g,
            reduce,
            "a reduction of several operands accumulated in a loop is not handled",
        ));
    }
    let body = g.ops[for_op].regions[0][0];
    if g.blocks[body].ops.last() != Some(&yield_op) {
        return Err(err(
            g,
            update,
            "the accumulator is yielded by another region than the loop's",
        ));
    }
    let reduced = g.ops[reduce].results[0];
    let operands = &g.ops[update].operands;
    if operands.len() != 2 || g.ops[update].results.len() != 1 {
        return Err(err(g, update, "an accumulator update that is not a binary op"));
    }
    let other = if operands[0] == reduced {
        operands[1]
    } else {
        operands[0]
    };
    let acc = match g.values[other].def {
        Def::Arg { block, index } if block == body && index >= 1 => index - 1,
        _ => {
            return Err(err(
                g,
                update,
                "the accumulator is not an iteration argument of the loop",
            ));
        }
    };
    if g.ops[for_op].operands.get(3 + acc).is_none() {
        return Err(err(g, for_op, "the loop has no such iteration argument"));
    }
    let Some(&loop_result) = g.ops[for_op].results.get(acc) else {
        return Err(err(g, for_op, "the loop has no such result"));
    };
    if g.uses(loop_result).len() != 1 {
        return Err(err(g, for_op, "the accumulated result must have exactly one use"));
    }
    if g.values[reduced].ty.element != g.values[src].ty.element || neutral(&combine, &ty.element).is_none() {
        return Err(err(
            g,
            reduce,
            "no neutral element for this reduction's element type",
        ));
    }
    Ok(Some(Plan {
        reduce,
        combine,
        update,
        acc,
        elems,
    }))
}

/// The neutral element of a combine op, as MLIR prints it in a dense constant.
fn neutral(combine: &str, element: &str) -> Option<String> {
    let (neg_inf, pos_inf) = match element {
        "f32" => ("0xFF800000", "0x7F800000"),
        "f16" => ("0xFC00", "0x7C00"),
        "bf16" => ("0xFF80", "0x7F80"),
        "f64" => ("0xFFF0000000000000", "0x7FF0000000000000"),
        _ => return None,
    };
    Some(
        match combine {
            "arith.addf" => "0.000000e+00",
            "arith.mulf" => "1.000000e+00",
            "arith.maximumf" | "arith.maxnumf" => neg_inf,
            _ => pos_inf,
        }
        .to_string(),
    )
}

/// Replaces `from` by `to` in the text of `op` (an attribute written in its head line).
fn retext(g: &mut Graph, op: OpId, from: &str, to: &str) -> bool {
    let Form::Template { head, .. } = &mut g.ops[op].form else {
        return false;
    };
    let mut pieces: Vec<Piece> = head.as_ref().clone();
    let mut found = false;
    for p in &mut pieces {
        if let Piece::Text(t) = p
            && !found
            && t.contains(from)
        {
            *t = t.replacen(from, to, 1);
            found = true;
        }
    }
    *head = Arc::new(pieces);
    found
}

/// Rewrites one planned reduction (Triton's loop rewrite of the pass).
fn accumulate_in_thread(g: &mut Graph, p: &Plan) -> Result<(), PassError> {
    // The loop as it is now: an earlier rewrite in the same loop rebuilt it.
    let for_op = g
        .parent_op(p.reduce)
        .ok_or_else(|| err(g, p.reduce, "the reduction left its loop"))?;
    let Some(&loop_result) = g.ops[for_op].results.get(p.acc) else {
        return Err(err(g, for_op, "the loop has no such result"));
    };
    let [loop_user] = g.uses(loop_result)[..] else {
        return Err(err(g, for_op, "the accumulated result must have exactly one use"));
    };
    let src = g.ops[p.reduce].operands[0];
    let src_ty = g.values[src].ty.clone();
    let Some(Encoding::Blocked(b)) = src_ty.encoding.as_deref().cloned() else {
        return Err(err(g, p.reduce, "the reduced tensor is not blocked"));
    };
    if !b.cga_layout.is_empty() {
        return Err(err(g, p.reduce, "a reduction over several CTAs is not handled"));
    }
    let rank = src_ty.shape.len();
    let axis = rank - 1;
    // The thread's own elements along the axis move to a new last dimension.
    let mut spt = b.size_per_thread.clone();
    spt.push(b.size_per_thread[axis]);
    spt[axis] = 1;
    let mut tpw = b.threads_per_warp.clone();
    tpw.push(1);
    let mut wpc = b.warps_per_cta.clone();
    wpc.push(1);
    let mut order = vec![rank as u32];
    order.extend(&b.order);
    let blocked3 = Arc::new(Encoding::Blocked(Blocked {
        size_per_thread: spt,
        threads_per_warp: tpw,
        warps_per_cta: wpc,
        order,
        cga_layout: Vec::new(),
    }));
    let mut view_shape = src_ty.shape.clone();
    view_shape[axis] /= p.elems;
    view_shape.push(p.elems);
    let view_ty = ValueType {
        kind: TypeKind::Tensor,
        shape: view_shape.clone(),
        element: src_ty.element.clone(),
        encoding: Some(blocked3.clone()),
        memory: Vec::new(),
    };
    let slice2 = Arc::new(Encoding::Slice(Slice {
        dim: rank as u32,
        parent: blocked3,
    }));
    let acc_ty = ValueType {
        shape: view_shape[..rank].to_vec(),
        encoding: Some(slice2.clone()),
        ..view_ty.clone()
    };

    // The new accumulator's start, right after the old one's constant.
    let old_init = g.ops[for_op].operands[3 + p.acc];
    let init_def = g
        .def_op(old_init)
        .ok_or_else(|| err(g, for_op, "the accumulator's start is not a constant"))?;
    let value = neutral(&p.combine, &src_ty.element)
        .ok_or_else(|| err(g, p.reduce, "no neutral element for this reduction"))?;
    let cst = g
        .insert_text(
            after(g, init_def),
            "arith.constant",
            Vec::new(),
            vec![acc_ty.clone()],
            &format!("$r = arith.constant dense<{value}> : $rt0"),
        )
        .map_err(|e| err(g, p.reduce, &e.message))?;
    let new_init = g.ops[cst].results[0];

    // The loop with one more iteration argument; the body moves into it.
    let mut replacements = Vec::new();
    let new_for = replace_for_with_new_signature(g, for_op, &[new_init], &mut replacements);
    for (old, now) in replacements {
        g.replace_all_uses(old, now);
    }
    let body = g.ops[new_for].regions[0][0];
    let new_arg = *g.blocks[body].args.last().unwrap_or(&new_init);

    // Inside the loop: reshape, reduce within the thread, accumulate.
    let view = g
        .insert_text(
            after(g, p.reduce),
            "tt.reshape",
            vec![src],
            vec![view_ty],
            "$r = tt.reshape $0 allow_reorder efficient_layout : $t0 -> $rt0",
        )
        .map_err(|e| err(g, p.reduce, &e.message))?;
    g.ops[view].attrs = vec![
        ("allow_reorder".into(), AttrValue::Int(1)),
        ("efficient_layout".into(), AttrValue::Int(1)),
    ];
    let viewed = g.ops[view].results[0];
    let mut map = HashMap::from([(src, viewed)]);
    let local = g.clone_deep(p.reduce, after(g, view), &mut map);
    let axis_text = format!("axis = {axis} : i32");
    if !retext(g, local, &axis_text, &format!("axis = {rank} : i32")) {
        return Err(err(g, p.reduce, "cannot find the reduction's axis in its text"));
    }
    for (k, v) in g.ops[local].attrs.iter_mut() {
        if k == "axis" {
            *v = AttrValue::Int(rank as i64);
        }
    }
    let local_res = g.ops[local].results[0];
    g.values[local_res].ty = acc_ty.clone();
    let update = g.insert_like(p.update, after(g, local), vec![new_arg, local_res], vec![acc_ty]);
    let new_sum = g.ops[update].results[0];

    // The yield passes the old accumulator through and yields the new one.
    let old_yield = *g.blocks[body]
        .ops
        .last()
        .ok_or_else(|| err(g, new_for, "a loop without a terminator"))?;
    let mut yielded = g.ops[old_yield].operands.clone();
    yielded[p.acc] = g.blocks[body].args[p.acc + 1];
    yielded.push(new_sum);
    let at = g.position(old_yield);
    g.insert_like(old_yield, at, yielded, Vec::new());
    g.erase_op(old_yield);

    // After the loop: the cross-thread reduction once, back to the old layout, plus the
    // accumulator's start value.
    let carried = *g.ops[new_for]
        .results
        .last()
        .ok_or_else(|| err(g, new_for, "a loop without results"))?;
    let mut map = HashMap::from([(src, carried)]);
    let finish = g.clone_deep(p.reduce, after(g, new_for), &mut map);
    let finish_res = g.ops[finish].results[0];
    let old_res_ty = g.values[g.ops[p.reduce].results[0]].ty.clone();
    g.values[finish_res].ty = with_encoding(
        &old_res_ty,
        Arc::new(Encoding::Slice(Slice {
            dim: axis as u32,
            parent: slice2,
        })),
    );
    let Some(old_enc) = g.values[loop_result].ty.encoding.clone() else {
        return Err(err(g, for_op, "the accumulator has no layout"));
    };
    let back = g.insert_convert(after(g, finish), finish_res, old_enc);
    let back_op = g.def_op(back).unwrap_or(finish);
    let upd_ty = g.values[g.ops[p.update].results[0]].ty.clone();
    let total = g.insert_like(p.update, after(g, back_op), vec![old_init, back], vec![upd_ty]);
    let total_res = g.ops[total].results[0];
    let (user, k) = loop_user;
    g.ops[user].operands[k] = total_res;
    g.erase_op(for_op);
    Ok(())
}
