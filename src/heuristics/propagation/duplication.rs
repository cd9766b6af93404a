//! `tritongpu-reduce-data-duplication`: a convert into a dot operand that must cross warps
//! goes through shared memory explicitly, in the swizzled layout the matrix instruction reads.
//!
//! ```text
//! %a = ttg.convert_layout %x : #blocked -> #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>
//! ```
//!
//! becomes `ttg.local_alloc %x` into `#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase =
//! 8, order = [1, 0]}>` and a `ttg.local_load` into the dot operand: the same data movement,
//! now with the LDS layout chosen for the operand (Triton's `composeSharedLayoutForOperand`:
//! vectors of `kWidth` along K, phases that spread a warp's rows over the banks).

use std::sync::Arc;

use crate::encodings::{DotOperand, Encoding, Swizzled};
use crate::heuristics::convert::triton_uses_shared_memory;
use crate::ttgir::element_bits;
use crate::ttgir::graph::{Graph, OpId, ValueId};
use crate::ttgir::{TypeKind, ValueType};

use super::PassError;

/// The dims of a layout in the order its `in_dim` bases first move them, completed by
/// `default` (Triton's `orderPerDim`).
pub(super) fn order_per_dim(ll: &crate::linear::LinearLayout, in_dim: &str, default: &[u32]) -> Vec<u32> {
    let names: Vec<_> = ll.out_dim_names().collect();
    let index = |k: usize| -> u32 {
        names
            .get(k)
            .and_then(|n| n.as_str().strip_prefix("dim"))
            .and_then(|d| d.parse().ok())
            .unwrap_or(k as u32)
    };
    let mut order: Vec<u32> = Vec::new();
    for b in ll.bases(in_dim).unwrap_or_default() {
        if let Some(k) = b.iter().position(|&x| x != 0) {
            let d = index(k);
            if !order.contains(&d) {
                order.push(d);
            }
        }
    }
    for &d in default {
        if !order.contains(&d) {
            order.push(d);
        }
    }
    order
}

/// Triton's `getOrderForMemory`: the register order of the layout, unless its fastest thread
/// dimension holds one element per thread (then the thread order).
pub(super) fn order_for_memory(ty: &ValueType) -> Option<Vec<u32>> {
    let ll = ty.encoding.as_ref()?.to_linear_layout(&ty.shape).ok()?;
    let rank = ty.shape.len() as u32;
    let default: Vec<u32> = (0..rank).rev().collect();
    let order = order_per_dim(&ll, "register", &default);
    let thread = order_per_dim(&ll, "lane", &order);
    if order == thread {
        return Some(order);
    }
    let names: Vec<_> = ll.out_dim_names().collect();
    // Elements per thread per dim (Triton's `basesPerDim` without skipping broadcasts: a zero
    // register basis doubles the last dim seen, dim 0 before any).
    let mut contig = vec![1u64; rank as usize];
    let mut last = 0usize;
    for b in ll.bases("register").unwrap_or_default() {
        if let Some(k) = b.iter().position(|&x| x != 0) {
            last = names
                .get(k)
                .and_then(|n| n.as_str().strip_prefix("dim"))
                .and_then(|d| d.parse::<usize>().ok())
                .unwrap_or(k);
        }
        if let Some(c) = contig.get_mut(last) {
            *c *= 2;
        }
    }
    if contig.get(*thread.first()? as usize) == Some(&1) {
        return Some(thread);
    }
    Some(order)
}

/// Triton's shared layout for a dot operand: `composeSharedLayoutForOperand` for MFMA and WMMA
/// parents, the Ampere/Hopper rule for NVIDIA MMA; a blocked parent gets no swizzling.
pub(super) fn operand_shared_layout(dot: &DotOperand, shape: &[u64], order: &[u32], bits: u32) -> Swizzled {
    let plain = Swizzled {
        vec: 1,
        per_phase: 1,
        max_phase: 1,
        order: order.to_vec(),
        cga_layout: Vec::new(),
    };
    let k_dim: u32 = if dot.op_idx == 0 { 1 } else { 0 };
    let inner = order
        .first()
        .and_then(|&d| shape.get(d as usize))
        .copied()
        .unwrap_or(1) as i64;
    let bits_i = i64::from(bits.max(1));
    match &*dot.parent {
        Encoding::AmdMfma(m) => {
            if dot.op_idx >= 2 {
                return plain;
            }
            let k_contig = order.first() == Some(&k_dim);
            let gfx950 = m.version == 4;
            let swizzle_non_k = gfx950 && (bits == 8 || bits == 16);
            if !k_contig && !swizzle_non_k {
                return plain;
            }
            let banks: i64 = if gfx950 { 64 } else { 32 };
            let per_row = banks * 32 / bits_i;
            let per_phase = (per_row / inner.max(1)).max(1);
            let vec = i64::from(dot.k_width.max(1));
            let mut max_phase = (16 / per_phase).min(inner / vec).max(1);
            if m.instr_shape.first() == Some(&4) {
                max_phase = 4;
            }
            Swizzled {
                vec: dot.k_width,
                per_phase: per_phase as u32,
                max_phase: max_phase as u32,
                ..plain
            }
        }
        Encoding::AmdWmma(w) => {
            if order.first() != Some(&k_dim) {
                return plain;
            }
            let vec = (i64::from(dot.k_width) * bits_i).min(128) / bits_i;
            let per_row = 32 * 32 / bits_i;
            let per_phase = (per_row / inner.max(1)).max(1);
            let m_dim = i64::from(w.instr_shape.first().copied().unwrap_or(16));
            let max_phase = (m_dim / per_phase).min(inner / vec.max(1)).max(1);
            Swizzled {
                vec: vec as u32,
                per_phase: per_phase as u32,
                max_phase: max_phase as u32,
                ..plain
            }
        }
        // Ampere and Hopper: 4 × kWidth along K, rows packed to cover the banks.
        Encoding::NvidiaMma(m) if matches!(m.version_major, 2 | 3) => {
            let rank = order.len();
            let k = inner.max(1);
            let per_phase = (1024 / (bits_i * k)).max(1);
            let (mut vec, mut stride) = (4 * i64::from(dot.k_width), 8i64);
            let k_dim = if dot.op_idx == 0 {
                rank.saturating_sub(1)
            } else {
                rank.saturating_sub(2)
            };
            if order.first().map(|&d| d as usize) != Some(k_dim) {
                std::mem::swap(&mut vec, &mut stride);
            }
            let max_phase = (stride.min(1024 / (vec.max(1) * bits_i)).max(1) / per_phase).max(1);
            Swizzled {
                vec: vec as u32,
                per_phase: per_phase as u32,
                max_phase: max_phase as u32,
                ..plain
            }
        }
        _ => plain,
    }
}

fn needs_shared_memory(src: &ValueType, dst: &ValueType) -> bool {
    let (Some(s), Some(d)) = (&src.encoding, &dst.encoding) else {
        return false;
    };
    let (Ok(sl), Ok(dl)) = (s.to_linear_layout(&src.shape), d.to_linear_layout(&dst.shape)) else {
        return false;
    };
    triton_uses_shared_memory(&sl, &dl).unwrap_or(true)
}

/// Triton 3.6's `tritongpu-reduce-data-duplication` on `g`, in place.
///
/// ```
/// use linear_layout::heuristics::propagation::reduce_data_duplication;
/// use linear_layout::ttgir::graph::Graph;
/// let text = r#"
/// #blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
/// #mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>
/// module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @k(%x: tensor<128x64xf16, #blocked>) {
///     %a = ttg.convert_layout %x : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>
///     tt.return
///   }
/// }"#;
/// let mut g = Graph::parse(text)?;
/// reduce_data_duplication(&mut g)?;
/// let out = g.print()?;
/// assert!(out.contains("ttg.local_alloc %x : (tensor<128x64xf16, #blocked>) -> !ttg.memdesc<128x64xf16, #ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [1, 0]}>, #ttg.shared_memory>"), "{out}");
/// assert!(out.contains("ttg.local_load"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reduce_data_duplication(g: &mut Graph) -> Result<(), PassError> {
    super::bounded(g)?;
    let converts: Vec<OpId> = g
        .walk()
        .into_iter()
        .filter(|&o| g.ops[o].name == "ttg.convert_layout")
        .collect();
    for cvt in converts {
        rewrite(g, cvt);
    }
    Ok(())
}

fn rewrite(g: &mut Graph, cvt: OpId) -> Option<()> {
    let (src, res): (ValueId, ValueId) = (g.ops[cvt].operands[0], g.ops[cvt].results[0]);
    let (st, dt) = (g.values[src].ty.clone(), g.values[res].ty.clone());
    let src_enc = st.encoding.clone()?;
    if !src_enc.is_distributed() {
        return None;
    }
    let Encoding::DotOperand(dot) = &**dt.encoding.as_ref()? else {
        return None;
    };
    if !needs_shared_memory(&st, &dt) {
        return None;
    }
    let order = order_for_memory(&st)?;
    let bits = element_bits(&st.element).unwrap_or(32);
    let shared = operand_shared_layout(dot, &st.shape, &order, bits);
    let mem = ValueType {
        kind: TypeKind::MemDesc,
        shape: dt.shape.clone(),
        element: dt.element.clone(),
        encoding: Some(Arc::new(Encoding::SwizzledShared(shared))),
        memory: vec!["#ttg.shared_memory".to_string()],
    };
    if let Some(e) = &mem.encoding {
        g.note(
            cvt,
            format_args!("through shared memory in {e}: the conversion crosses warps"),
        );
    }
    let at = g.position(cvt);
    let alloc = g.insert_built(at, "ttg.local_alloc", vec![src], vec![mem]);
    let buffer = g.ops[alloc].results[0];
    let at = g.position(cvt);
    let load = g.insert_built(at, "ttg.local_load", vec![buffer], vec![dt]);
    let loaded = g.ops[load].results[0];
    g.replace_all_uses(res, loaded);
    g.erase_op(cvt);
    Some(())
}
