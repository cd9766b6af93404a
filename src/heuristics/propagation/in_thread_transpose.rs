//! `tritonamdgpu-in-thread-transpose`: transpose a dot operand in registers before it goes to
//! LDS, so the LDS writes are wide.
//!
//! A dot operand that is not contiguous along K in global memory is loaded in a blocked layout
//! whose fastest dim is M (or N); the shared buffer the matrix instruction reads from wants K
//! fastest. Each thread then writes one element per LDS store. The pass widens the load's
//! `sizePerThread` along K (up to 64 bits' worth of elements, as far as the tile allows), so a
//! thread holds a small 2-D tile it can transpose in registers, and stores K-contiguous runs:
//!
//! ```text
//! %x = tt.load %p      : tensor<32x128xf16, #blocked>   sizePerThread [1, 8], order [1, 0]
//! %a = ttg.local_alloc %x : !ttg.memdesc<32x128xf16, #swizzled_shared>
//! %b = ttg.local_load  %a : … -> #ttg.dot_op<{opIdx = 1, …}>          (K = dim 0)
//! ```
//!
//! becomes a load in `sizePerThread [4, 8]` (4 f16 = 64 bits along K), an
//! `amdg.in_thread_transpose` into the `#ttg.linear` layout whose register bases walk K first
//! (`register = [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4], …]`), and the buffer in
//! `#ttg.amd_rotating_shared` with the swizzle the dot operand's shared layout would have:
//!
//! ```text
//! %p' = ttg.convert_layout %p : #blocked -> #blocked1      sizePerThread [4, 8]
//! %x' = tt.load %p'
//! %x  = ttg.convert_layout %x' : #blocked1 -> #blocked     (what the load's users read)
//! %y  = ttg.convert_layout %x  : #blocked -> #blocked1
//! %t  = amdg.in_thread_transpose %y : #blocked1 -> #linear
//! %a  = ttg.local_alloc %t : !ttg.memdesc<32x128xf16, #ttg.amd_rotating_shared<…>>
//! ```
//!
//! The converts cancel in the layout propagation Triton runs after this pass. The pattern
//! follows the buffer through `ttg.memdesc_index`, `ttg.local_store`, loops and branches (the
//! pipelined form); it does not apply where the buffer is filled by a direct-to-LDS copy, where
//! its loads differ in type, where the tile has no room along K, or where a value leaves the
//! function.

use std::collections::HashSet;
use std::sync::Arc;

use crate::encodings::{Blocked, Encoding};
use crate::heuristics::coalesce::blocked_for;
use crate::ttgir::ValueType;
use crate::ttgir::element_bits;
use crate::ttgir::graph::{Def, Graph, OpId, ValueId};

use super::PassError;
use super::duplication::operand_shared_layout;

/// Triton 3.6's `tritonamdgpu-in-thread-transpose` on `g`, in place: every `ttg.local_load`
/// into an MFMA or WMMA dot operand whose buffer is filled from global loads not contiguous
/// along K gets its loads widened along K, an in-register transpose before the buffer, and a
/// rotating shared layout.
///
/// ```
/// use linear_layout::heuristics::propagation::in_thread_transpose;
/// use linear_layout::ttgir::graph::Graph;
/// let text = r#"
/// #blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [1, 8], order = [1, 0]}>
/// #mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [4, 2], instrShape = [32, 32, 8], isTransposed = true}>
/// #shared = #ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [0, 1]}>
/// #smem = #ttg.shared_memory
/// module attributes {"ttg.num-warps" = 8 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @k(%p: tensor<32x128x!tt.ptr<f16>, #blocked>) {
///     %x = tt.load %p : tensor<32x128x!tt.ptr<f16>, #blocked>
///     %a = ttg.local_alloc %x : (tensor<32x128xf16, #blocked>) -> !ttg.memdesc<32x128xf16, #shared, #smem>
///     %b = ttg.local_load %a : !ttg.memdesc<32x128xf16, #shared, #smem> -> tensor<32x128xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>
///     tt.return
///   }
/// }"#;
/// let mut g = Graph::parse(text)?;
/// in_thread_transpose(&mut g)?;
/// let out = g.print()?;
/// assert!(out.contains("amdg.in_thread_transpose"), "{out}");
/// assert!(out.contains("sizePerThread = [4, 8]"), "{out}");
/// assert!(out.contains("#ttg.amd_rotating_shared<{vec = 4, perPhase = 2, maxPhase = 8, order = [0, 1]}>"), "{out}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn in_thread_transpose(g: &mut Graph) -> Result<(), PassError> {
    super::bounded(g)?;
    let loads: Vec<OpId> = g
        .walk()
        .into_iter()
        .filter(|&o| g.ops[o].name == "ttg.local_load")
        .collect();
    for load in loads {
        if let Some(chain) = matched(g, load) {
            rewrite(g, load, &chain)?;
        }
    }
    Ok(())
}

/// The ops and values of one buffer's def-use network, from the global loads to the reads.
#[derive(Default)]
struct Chain {
    /// `tt.load`s whose results are stored into the buffer (each once).
    global_loads: Vec<OpId>,
    /// `ttg.local_alloc` and `ttg.local_store` ops of the buffer (each once).
    stores: Vec<OpId>,
    /// Every memdesc value of the network (allocations, views, loop-carried copies).
    buffers: Vec<ValueId>,
}

/// The values whose definitions `v` may come from, hopping over loops and branches (Triton's
/// `traverseCFForValueDefs`): a plain op's result is itself; a loop's or branch's result or
/// argument is followed to what is yielded into it and listed too. `None` where a function
/// argument or an unknown region is reached.
fn defs(g: &Graph, v: ValueId, seen: &mut HashSet<ValueId>) -> Option<Vec<ValueId>> {
    if !seen.insert(v) {
        return Some(Vec::new());
    }
    let mut found = Vec::new();
    match g.values[v].def {
        Def::Result { op, index } => {
            let o = &g.ops[op];
            if !matches!(
                o.name.as_str(),
                "scf.for" | "scf.if" | "scf.while" | "scf.execute_region" | "scf.index_switch"
            ) {
                return Some(vec![v]);
            }
            // Every `scf.yield` directly in the op's regions (for `scf.while`, its body's: the
            // results come from its condition, but this is what Triton follows).
            for region in &o.regions {
                for &b in region {
                    let Some(&t) = g.blocks[b].ops.last() else {
                        continue;
                    };
                    if g.ops[t].name == "scf.yield" {
                        found.extend(defs(g, *g.ops[t].operands.get(index)?, seen)?);
                    }
                }
            }
        }
        Def::Arg { block, index } => {
            let parent = g.block_parent_op(block)?;
            let p = &g.ops[parent];
            let yielded = |region: usize, k: usize| -> Option<ValueId> {
                let b = *p.regions.get(region)?.first()?;
                let t = *g.blocks[b].ops.last()?;
                (g.ops[t].name == "scf.yield").then_some(())?;
                g.ops[t].operands.get(k).copied()
            };
            match p.name.as_str() {
                "scf.for" if index == 0 => found.extend(defs(g, *p.operands.first()?, seen)?),
                "scf.for" => {
                    found.extend(defs(g, yielded(0, index - 1)?, seen)?);
                    found.extend(defs(g, *p.operands.get(index + 2)?, seen)?);
                }
                "scf.while" => {
                    found.extend(defs(g, yielded(1, index)?, seen)?);
                    found.extend(defs(g, *p.operands.get(index)?, seen)?);
                }
                _ => return None,
            }
        }
    }
    found.push(v);
    Some(found)
}

/// The ops that use `v`, hopping over loops and branches (Triton's `traverseCFForValueUses`),
/// and the loop and branch values it flows into. `None` where it leaves the function or meets
/// a region it cannot follow.
fn uses(
    g: &Graph,
    all: &[Vec<(OpId, usize)>],
    v: ValueId,
    seen: &mut HashSet<ValueId>,
    out: &mut (Vec<OpId>, Vec<ValueId>),
) -> Option<()> {
    if !seen.insert(v) {
        return Some(());
    }
    let arg = |op: OpId, region: usize, k: usize| -> Option<ValueId> {
        let b = *g.ops[op].regions.get(region)?.first()?;
        g.blocks[b].args.get(k).copied()
    };
    let mut flows = |to: ValueId, out: &mut (Vec<OpId>, Vec<ValueId>)| -> Option<()> {
        out.1.push(to);
        uses(g, all, to, seen, out)
    };
    for &(user, k) in all.get(v)? {
        let u = &g.ops[user];
        match u.name.as_str() {
            "tt.return" => return None,
            "scf.yield" => {
                let parent = g.parent_op(user)?;
                let p = &g.ops[parent];
                if matches!(p.name.as_str(), "scf.for" | "scf.if") {
                    flows(*p.results.get(k)?, out)?;
                }
                match p.name.as_str() {
                    "scf.for" => flows(arg(parent, 0, k + 1)?, out)?,
                    "scf.while" => flows(arg(parent, 0, k)?, out)?,
                    "scf.if" => {}
                    _ => return None,
                }
            }
            "scf.for" => flows(arg(user, 0, k.checked_sub(3)? + 1)?, out)?,
            "scf.while" => flows(arg(user, 0, k)?, out)?,
            "scf.condition" => {
                let k = k.checked_sub(1)?;
                let parent = g.parent_op(user).filter(|&p| g.ops[p].name == "scf.while")?;
                flows(arg(parent, 1, k)?, out)?;
                flows(*g.ops[parent].results.get(k)?, out)?;
            }
            name if name.starts_with("scf.") => return None,
            _ => out.0.push(user),
        }
    }
    Some(())
}

/// The buffer network reachable from `root` along shared memory (Triton's
/// `findReachableSMemOps`): allocations, stores, views, reads and deallocations. `None` where
/// an op of another kind touches it (a direct-to-LDS copy among them).
fn network(g: &Graph, root: OpId) -> Option<Chain> {
    let all = g.all_uses();
    let mut chain = Chain::default();
    let (mut seen_ops, mut forward, mut backward) = (HashSet::new(), HashSet::new(), HashSet::new());
    let mut step = vec![root];
    while !step.is_empty() {
        let mut next = Vec::new();
        for op in step {
            if !seen_ops.insert(op) {
                continue;
            }
            let o = &g.ops[op];
            let (read, written) = match o.name.as_str() {
                "ttg.local_alloc" => {
                    chain.stores.push(op);
                    (None, o.results.first())
                }
                "ttg.local_store" => {
                    chain.stores.push(op);
                    (o.operands.get(1), None)
                }
                "ttg.memdesc_index" => (o.operands.first(), o.results.first()),
                "ttg.local_load" | "ttg.local_dealloc" => (o.operands.first(), None),
                _ => return None,
            };
            if let Some(&m) = read {
                for d in defs(g, m, &mut backward)? {
                    chain.buffers.push(d);
                    if let Some(def) = g.def_op(d)
                        && matches!(g.ops[def].name.as_str(), "ttg.memdesc_index" | "ttg.local_alloc")
                    {
                        next.push(def);
                    }
                }
            }
            if let Some(&m) = written {
                let mut found = (Vec::new(), Vec::new());
                uses(g, &all, m, &mut forward, &mut found)?;
                chain.buffers.extend(found.1);
                next.extend(found.0);
            }
        }
        step = next;
    }
    Some(chain)
}

/// The most elements a thread of the blocked layout of `ty` can hold along `dim` (0 when the
/// layout is not blocked).
fn max_size_per_thread(ty: &ValueType, dim: usize) -> u64 {
    let Some(Encoding::Blocked(b)) = ty.encoding.as_deref() else {
        return 0;
    };
    let (Some(&lanes), Some(&warps), Some(&size)) = (
        b.threads_per_warp.get(dim),
        b.warps_per_cta.get(dim),
        ty.shape.get(dim),
    ) else {
        return 0;
    };
    (size / (u64::from(lanes) * u64::from(warps)).max(1)).max(1)
}

/// Triton's `matchInThreadTransposePattern`: the network of `load`'s buffer when the pass
/// applies to it.
fn matched(g: &Graph, load: OpId) -> Option<Chain> {
    let dot = match g.encoding(*g.ops[load].results.first()?).map(|e| &**e) {
        Some(Encoding::DotOperand(d)) if matches!(*d.parent, Encoding::AmdMfma(_) | Encoding::AmdWmma(_)) => {
            d
        }
        _ => return None,
    };
    let k_dim = if dot.op_idx == 0 { 1 } else { 0 };
    let mut chain = network(g, load)?;
    if chain.stores.is_empty() {
        return None;
    }
    for &store in &chain.stores {
        let Some(&data) = g.ops[store].operands.first() else {
            continue;
        };
        let Some(Encoding::Blocked(b)) = g.encoding(data).map(|e| &**e) else {
            return None;
        };
        if b.order.first() == Some(&k_dim) {
            return None;
        }
        for v in defs(g, data, &mut HashSet::new())? {
            if let Some(op) = g.def_op(v)
                && g.ops[op].name == "tt.load"
                && !chain.global_loads.contains(&op)
            {
                chain.global_loads.push(op);
            }
        }
    }
    let first = *chain.global_loads.first()?;
    let ty = &g.values[*g.ops[first].results.first()?].ty;
    if ty.shape.len() != 2 || max_size_per_thread(ty, k_dim as usize) < 2 {
        return None;
    }
    let same = |&l: &OpId| g.ops[l].results.first().is_some_and(|&r| g.values[r].ty == *ty);
    chain.global_loads.iter().all(same).then_some(chain)
}

/// Triton's `getTransposableBlockedEnc`: the load's blocked layout with `sizePerThread` along K
/// raised to what 64 bits hold (`ds_write_b64`), as far as the tile allows, lanes and warps
/// spread again.
fn transposable_blocked(ty: &ValueType, b: &Blocked, k_dim: usize) -> Blocked {
    let bits = u64::from(element_bits(&ty.element).unwrap_or(32).max(1));
    let k = max_size_per_thread(ty, k_dim).min(64 / bits).max(1);
    let mut spt = b.size_per_thread.clone();
    spt[k_dim] = k as u32;
    let warps = b.warps_per_cta.iter().product();
    let lanes = b.threads_per_warp.iter().product();
    blocked_for(&ty.shape, &spt, &b.order, warps, lanes, b.cga_layout.clone())
}

/// The `amdg.in_thread_transpose` result's layout (the op's `deduceOutputLayout`): the blocked
/// layout with its first register bases — one thread's `sizePerThread` tile — walking the two
/// fastest dims in swapped order.
fn transposed_layout(shape: &[u64], b: &Blocked) -> Option<Arc<Encoding>> {
    let ll = Encoding::Blocked(b.clone()).to_linear_layout(shape).ok()?;
    let Some(Encoding::Linear(mut lin)) = super::ops::linear_encoding(&ll).map(|e| (*e).clone()) else {
        return None;
    };
    let mut order = b.order.clone();
    let rank = order.len();
    if rank < 2 {
        return None;
    }
    order.swap(rank - 2, rank - 1);
    let mut tile = Vec::new();
    for &d in &order {
        let mut step = 1u32;
        while step < *b.size_per_thread.get(d as usize)? {
            let mut basis = vec![0u32; rank];
            basis[d as usize] = step;
            tile.push(basis);
            step *= 2;
        }
    }
    for (k, basis) in tile.into_iter().enumerate() {
        *lin.register.get_mut(k)? = basis;
    }
    Some(Arc::new(Encoding::Linear(lin)))
}

fn rewrite(g: &mut Graph, local_load: OpId, chain: &Chain) -> Result<(), PassError> {
    let fail =
        |g: &Graph, op: OpId| PassError::new(g, Some(op), "in_thread_transpose: cannot rewrite this op");
    let dot_ty = g.values[g.ops[local_load].results[0]].ty.clone();
    let Some(Encoding::DotOperand(dot)) = dot_ty.encoding.as_deref() else {
        return Err(fail(g, local_load));
    };
    let k_dim = if dot.op_idx == 0 { 1 } else { 0 };
    let first = chain.global_loads[0];
    let load_ty = g.values[g.ops[first].results[0]].ty.clone();
    let Some(Encoding::Blocked(b)) = load_ty.encoding.as_deref() else {
        return Err(fail(g, first));
    };
    let wide = transposable_blocked(&load_ty, b, k_dim);
    let transposed = transposed_layout(&load_ty.shape, &wide).ok_or_else(|| fail(g, first))?;
    let wide = Arc::new(Encoding::Blocked(wide));
    g.note(
        local_load,
        format_args!(
            "dot operand read from LDS: its loads become {wide}, transposed in registers before the store"
        ),
    );

    for &load in &chain.global_loads {
        let old = g.ops[load].results[0];
        let mut operands = Vec::new();
        for v in g.ops[load].operands.clone() {
            operands.push(if g.is_tensor(v) {
                let at = g.position(load);
                g.insert_convert(at, v, wide.clone())
            } else {
                v
            });
        }
        let ty = ValueType {
            encoding: Some(wide.clone()),
            ..g.values[old].ty.clone()
        };
        let at = g.position(load);
        let new = g.insert_like(load, at, operands, vec![ty]);
        let loaded = g.ops[new].results[0];
        let at = g.position(load);
        let back = g.insert_convert(at, loaded, load_ty.encoding.clone().ok_or_else(|| fail(g, load))?);
        g.replace_all_uses(old, back);
        g.erase_op(load);
    }

    for &store in &chain.stores {
        let Some(&data) = g.ops[store].operands.first() else {
            continue;
        };
        let at = g.position(store);
        let wide_data = g.insert_convert(at, data, wide.clone());
        let ty = ValueType {
            encoding: Some(transposed.clone()),
            ..g.values[data].ty.clone()
        };
        let at = g.position(store);
        let op = g
            .insert_text(
                at,
                "amdg.in_thread_transpose",
                vec![wide_data],
                vec![ty],
                "$r = amdg.in_thread_transpose $0 : $t0 -> $rt0",
            )
            .map_err(|e| PassError::new(g, Some(store), &e.message))?;
        g.ops[store].operands[0] = g.ops[op].results[0];
    }

    let order: Vec<u32> = if dot.op_idx == 1 { vec![0, 1] } else { vec![1, 0] };
    let bits = element_bits(&dot_ty.element).unwrap_or(32);
    let rotating = Arc::new(Encoding::AmdRotatingShared(operand_shared_layout(
        dot,
        &dot_ty.shape,
        &order,
        bits,
    )));
    for &m in &chain.buffers {
        let ty = &mut g.values[m].ty;
        if matches!(ty.encoding.as_deref(), Some(Encoding::SwizzledShared(_))) {
            ty.encoding = Some(rotating.clone());
        }
    }
    Ok(())
}
