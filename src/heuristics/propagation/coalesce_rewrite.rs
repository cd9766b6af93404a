//! Triton 3.6's `tritongpu-coalesce` rewrite: each memory op moves to the blocked layout
//! [`coalesce_module`] decided for it.
//!
//! For every decided op, in walk order, the module changes as Triton's
//! `convertDistributedOpEncoding` changes it:
//!
//! * every tensor operand is converted to the chosen layout (even one already in it);
//! * a new op of the same kind takes the converted operands, its tensor results in the chosen
//!   layout (an async copy's token stays as it is);
//! * each result whose type changed is converted back to its old layout for its users;
//! * the old op goes.
//!
//! Descriptor loads and stores (`tt.descriptor_load`, `tt.descriptor_store`, …) get Triton's
//! descriptor layout: row-major, `min(elements / threads, 128 / bits)` elements per thread on
//! the last dimension.

use std::sync::Arc;

use crate::encodings::Encoding;
use crate::heuristics::coalesce::{blocked_for, coalesce_module, mem_ptr_operand};
use crate::heuristics::error::HeuristicError;
use crate::ttgir::graph::{Graph, OpId};
use crate::ttgir::{Module, TypeKind, ValueType, element_bits};

use super::PassError;

/// One op to move and the layout it moves to.
struct Plan {
    op: OpId,
    encoding: Arc<Encoding>,
}

/// A heuristics error as a pass error, with the op and line when its message names a line.
pub(super) fn from_heuristic(g: &Graph, e: &HeuristicError) -> PassError {
    let (line, rest) = match e.message.strip_prefix("line ").and_then(|r| r.split_once(':')) {
        Some((n, rest)) => (n.trim().parse::<usize>().ok(), rest.trim()),
        None => (None, e.message.as_str()),
    };
    let op = line.and_then(|l| g.ops.iter().position(|o| !o.erased && o.line == l));
    match op {
        Some(o) => PassError::new(g, Some(o), rest),
        None => PassError {
            line: line.unwrap_or(0),
            op: String::new(),
            message: e.message.clone(),
            limit: None,
        },
    }
}

/// Whether op `op` of the graph is op `op` of the module (the graph was read from the module's
/// text).
pub(super) fn same_op(g: &Graph, m: &Module, op: usize) -> bool {
    match (g.ops.get(op), m.ops.get(op)) {
        (Some(a), Some(b)) => !a.erased && a.name == b.name && a.operands == b.operands,
        _ => false,
    }
}

/// Descriptor ops: whether the op reads (the layout follows its result) or writes (its last
/// operand, the source), and the operand Triton leaves alone (gather / scatter offsets).
fn descriptor_kind(name: &str) -> Option<(bool, Option<usize>)> {
    match name {
        "tt.descriptor_load" => Some((true, None)),
        "tt.descriptor_gather" => Some((true, Some(1))),
        "tt.descriptor_store" | "tt.descriptor_reduce" => Some((false, None)),
        "tt.descriptor_scatter" => Some((false, Some(1))),
        _ => None,
    }
}

/// Triton's layout of a descriptor load or store of a tensor of type `ty`.
fn descriptor_layout(g: &Graph, op: OpId, ty: &ValueType) -> Result<Encoding, PassError> {
    let bits = element_bits(&ty.element)
        .filter(|&b| b > 0)
        .ok_or_else(|| PassError::new(g, Some(op), "the tensor's element type has no known width"))?;
    let rank = ty.shape.len();
    if rank == 0 || g.num_warps == 0 || g.threads_per_warp == 0 {
        return Err(PassError::new(
            g,
            Some(op),
            "a descriptor access needs a ranked tensor, warps and lanes",
        ));
    }
    let elems: u64 = ty.shape.iter().product();
    let threads = u64::from(g.num_warps) * u64::from(g.threads_per_warp);
    let vec = (elems / threads).max(1).min(u64::from((128 / bits).max(1)));
    let mut spt = vec![1u32; rank];
    spt[rank - 1] = vec as u32;
    let order: Vec<u32> = (0..rank as u32).rev().collect();
    let cga = match ty.encoding.as_deref() {
        Some(Encoding::Blocked(b)) => b.cga_layout.clone(),
        _ => Vec::new(),
    };
    Ok(Encoding::Blocked(blocked_for(
        &ty.shape,
        &spt,
        &order,
        g.num_warps,
        g.threads_per_warp,
        cga,
    )))
}

/// Triton 3.6's `tritongpu-coalesce` on `g`, in place: every memory access through a tensor of
/// pointers moves to the layout [`coalesce_module`] decides for it (converts in, converts
/// back out), descriptor accesses to Triton's descriptor layout. `m` is the module `g` was
/// read from (the decisions name its ops). On an error nothing has changed.
///
/// ```
/// use linear_layout::heuristics::propagation::coalesce;
/// use linear_layout::ttgir::{graph::Graph, Module};
/// let text = r#"
/// #bl = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
/// module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @k(%src: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
///     %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #bl>
///     %s = tt.splat %src : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #bl>
///     %p = tt.addptr %s, %r : tensor<1024x!tt.ptr<f32>, #bl>, tensor<1024xi32, #bl>
///     %l = tt.load %p : tensor<1024x!tt.ptr<f32>, #bl>
///     tt.store %p, %l : tensor<1024x!tt.ptr<f32>, #bl>
///     tt.return
///   }
/// }"#;
/// let (m, mut g) = (Module::parse(text)?, Graph::parse(text)?);
/// coalesce(&mut g, &m)?;
/// let out = g.print()?;
/// // The load reads four f32 per thread, its result goes back to #bl for the store, whose
/// // operands move to the store's own layout.
/// let v4 = "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>";
/// assert!(out.contains(&format!("tt.load %ll1 : tensor<1024x!tt.ptr<f32>, {v4}>")), "{out}");
/// assert_eq!(out.matches("ttg.convert_layout").count(), 4, "{out}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn coalesce(g: &mut Graph, m: &Module) -> Result<(), PassError> {
    super::bounded(g)?;
    let decisions = coalesce_module(m, false).map_err(|e| from_heuristic(g, &e))?;
    let mut plans = Vec::new();
    for d in decisions.decided.iter() {
        if !same_op(g, m, d.op) || g.ops[d.op].name != d.name {
            return Err(PassError {
                line: d.line,
                op: d.name.clone(),
                message: "the graph is not the module the decisions were made for".into(),
                limit: None,
            });
        }
        plans.push(Plan {
            op: d.op,
            encoding: Arc::new(d.choice.encoding.clone()),
        });
    }
    // A memory op through a tensor of pointers that got no decision is one Triton coalesces.
    for u in &decisions.undecided {
        let ptr = m.ops.get(u.op).and_then(|o| {
            let k = mem_ptr_operand(&o.name)?;
            o.operands.get(k)
        });
        if ptr.is_some_and(|&p| m.values[p].ty.is_tensor_of_ptr()) {
            return Err(PassError {
                line: u.line,
                op: u.name.clone(),
                message: format!("no layout decided: {}", u.reason),
                limit: None,
            });
        }
    }
    for o in g.walk() {
        let Some((reads, _)) = descriptor_kind(&g.ops[o].name) else {
            continue;
        };
        let ty = if reads {
            if g.ops[o].results.len() != 1 {
                continue;
            }
            g.values[g.ops[o].results[0]].ty.clone()
        } else {
            match g.ops[o].operands.last() {
                Some(&v) => g.values[v].ty.clone(),
                None => continue,
            }
        };
        if ty.kind != TypeKind::Tensor {
            return Err(PassError::new(
                g,
                Some(o),
                "the descriptor's data is not a tensor",
            ));
        }
        let enc = descriptor_layout(g, o, &ty)?;
        plans.push(Plan {
            op: o,
            encoding: Arc::new(enc),
        });
    }
    for p in &plans {
        let op = &g.ops[p.op];
        let async_copy = op.name == "ttg.async_copy_global_to_local";
        if !async_copy
            && op
                .results
                .iter()
                .any(|&r| g.values[r].ty.kind != TypeKind::Tensor)
        {
            return Err(PassError::new(
                g,
                Some(p.op),
                "a result is not a tensor: it cannot take the layout",
            ));
        }
    }
    for p in plans {
        rewrite(g, p.op, &p.encoding);
    }
    Ok(())
}

/// Triton's `convertDistributedOpEncoding`: `op` again with its tensor operands and results in
/// `encoding`.
fn rewrite(g: &mut Graph, op: OpId, encoding: &Arc<Encoding>) {
    let name = g.ops[op].name.clone();
    let skipped = descriptor_kind(&name).and_then(|(_, s)| s);
    let mut operands = Vec::new();
    for (k, v) in g.ops[op].operands.clone().into_iter().enumerate() {
        if g.values[v].ty.kind == TypeKind::Tensor && skipped != Some(k) {
            let at = g.position(op);
            operands.push(g.insert_convert(at, v, encoding.clone()));
        } else {
            operands.push(v);
        }
    }
    let async_copy = name == "ttg.async_copy_global_to_local";
    let old_results = g.ops[op].results.clone();
    let types: Vec<ValueType> = old_results
        .iter()
        .map(|&r| {
            let t = g.values[r].ty.clone();
            if async_copy || t.kind != TypeKind::Tensor {
                t
            } else {
                ValueType {
                    encoding: Some(encoding.clone()),
                    ..t
                }
            }
        })
        .collect();
    let at = g.position(op);
    let new = g.insert_like(op, at, operands, types);
    for (k, &old) in old_results.iter().enumerate() {
        let mut r = g.ops[new].results[k];
        let old_ty = g.values[old].ty.clone();
        if g.values[r].ty != old_ty {
            let at = g.position(op);
            let cvt = g.insert_built(at, "ttg.convert_layout", vec![r], vec![old_ty]);
            r = g.ops[cvt].results[0];
        }
        g.replace_all_uses(old, r);
    }
    g.erase_op(op);
}
