//! `tritonamdgpu-optimize-epilogue`: store a matrix instruction's result in its own layout.
//!
//! A dot's result is in an MMA layout; the store that writes it back was coalesced to a
//! blocked one, so a convert sits between them — a round trip through LDS:
//!
//! ```text
//! %c = ttg.convert_layout %acc : #mma -> #blocked
//! %h = arith.truncf %c : f32 -> f16            (one-operand element-wise ops, one use each)
//! tt.store %ptr, %h : #blocked
//! ```
//!
//! becomes a store in `#mma`: the pointers (and the mask) are converted instead, the chain is
//! retyped, and the result's convert dies. On gfx950 an f16/bf16 transposed MFMA result is
//! stored in a layout where each thread holds eight consecutive elements (Triton pairs columns
//! with `v_permlane*_swap`), so the store is 128 bits wide.

use std::sync::Arc;

use crate::encodings::Encoding;
use crate::linear::LinearLayout;
use crate::ttgir::graph::{Graph, OpId, ValueId};

fn is_one_operand_elementwise(g: &Graph, op: OpId) -> bool {
    let o = &g.ops[op];
    match o.name.as_str() {
        "arith.extf" | "arith.extsi" | "arith.extui" | "arith.fptosi" | "arith.fptoui" | "arith.negf"
        | "arith.sitofp" | "arith.truncf" | "arith.trunci" | "arith.uitofp" | "math.absf" | "math.absi"
        | "math.atan" | "math.atan2" | "math.ceil" | "math.cos" | "math.sin" | "math.ctlz" | "math.cttz"
        | "math.ctpop" | "math.erf" | "math.exp" | "math.exp2" | "math.expm1" | "math.floor" | "math.log"
        | "math.log10" | "math.log1p" | "math.log2" | "math.sqrt" | "math.rsqrt" | "math.tanh"
        | "tt.int_to_ptr" | "tt.ptr_to_int" | "tt.bitcast" | "tt.fp_to_fp" => true,
        "tt.extern_elementwise" => {
            o.operands.len() == 1
                && o.results.len() == 1
                && matches!(
                    crate::ttgir::attr(&o.attrs, "pure"),
                    Some(crate::ttgir::AttrValue::Int(1))
                )
        }
        _ => false,
    }
}

fn is_mma(e: &Encoding) -> bool {
    matches!(
        e,
        Encoding::AmdMfma(_) | Encoding::AmdWmma(_) | Encoding::NvidiaMma(_)
    )
}

/// Triton's `chooseMfmaLikeStoreLayout`: on gfx950, the layout of a transposed f16/bf16
/// MFMA 32×32 (or 16×16 with one warp along N and two tiles) result in which each thread
/// holds eight consecutive elements: the MFMA layout composed with a swap of two column bits.
fn mfma_store_layout(g: &Graph, v: ValueId) -> Option<Arc<Encoding>> {
    let t = &g.values[v].ty;
    let Encoding::AmdMfma(m) = &**t.encoding.as_ref()? else {
        return None;
    };
    let (is32, is16) = match m.instr_shape.as_slice() {
        [32, 32, ..] => (true, false),
        [16, 16, ..] => (false, true),
        _ => (false, false),
    };
    let n = *t.shape.last()?;
    let valid16 = is16 && n >= 32 && m.warps_per_cta.last() == Some(&1);
    if !(t.shape.len() == 2
        && matches!(t.element.as_str(), "f16" | "bf16")
        && m.version == 4
        && m.is_transposed
        && (is32 || valid16))
    {
        return None;
    }
    let mfma = t.encoding.as_ref()?.to_linear_layout(&t.shape).ok()?;
    let rows = t.shape[0];
    let row_bases: Vec<Vec<i64>> = (0..rows.trailing_zeros()).map(|i| vec![1i64 << i, 0]).collect();
    let mut col_bases: Vec<Vec<i64>> = (0..n.trailing_zeros()).map(|i| vec![0, 1i64 << i]).collect();
    let other = if is32 { 3 } else { 4 };
    if col_bases.len() <= other {
        return None;
    }
    col_bases.swap(2, other);
    let swap = LinearLayout::from_bases(
        [("dim0", row_bases), ("dim1", col_bases)],
        [("dim0", rows as i64), ("dim1", n as i64)],
        true,
    )
    .ok()?;
    let ll = mfma.compose(&swap).ok()?;
    super::ops::linear_encoding(&ll)
}

/// Triton's `BypassEpilogueSMEM` on one `tt.store`; the ops it made or changed.
pub(super) fn bypass(g: &mut Graph, store: OpId) -> Option<Vec<OpId>> {
    let ops = g.ops[store].operands.clone();
    let (&ptr, &val0) = (ops.first()?, ops.get(1)?);
    let mask = ops.get(2).copied();
    let blocked =
        |v: ValueId| g.is_tensor(v) && matches!(g.encoding(v).map(|e| &**e), Some(Encoding::Blocked(_)));
    if !blocked(ptr) || !blocked(val0) {
        return None;
    }
    let uses = g.all_uses();
    let one_use = |op: OpId| g.ops[op].results.iter().map(|&r| uses[r].len()).sum::<usize>() == 1;
    let mut chain = Vec::new();
    let mut val = val0;
    let cvt = loop {
        let d = g.def_op(val)?;
        if g.ops[d].name == "ttg.convert_layout" {
            break d;
        }
        if !one_use(d) || !is_one_operand_elementwise(g, d) {
            return None;
        }
        val = g.ops[d].operands[0];
        chain.push(d);
    };
    let src = g.ops[cvt].operands[0];
    let enc = g.encoding(src)?.clone();
    if !is_mma(&enc) || uses[g.ops[cvt].results[0]].len() != 1 {
        return None;
    }
    g.note(
        store,
        format_args!("stored in {enc}, the matrix result's layout: the convert before it goes"),
    );
    let at = g.position(store);
    let new_ptr = g.insert_convert(at, ptr, enc.clone());
    let mut new_val = src;
    for &op in chain.iter().rev() {
        g.ops[op].operands[0] = new_val;
        new_val = g.ops[op].results[0];
        g.values[new_val].ty.encoding = Some(enc.clone());
    }
    let mut new_mask = mask.map(|m| {
        let at = g.position(store);
        g.insert_convert(at, m, enc.clone())
    });
    let mut operands = vec![new_ptr, new_val];
    if let Some(lin) = mfma_store_layout(g, new_val) {
        let at = g.position(store);
        let p = g.insert_convert(at, new_ptr, lin.clone());
        let at = g.position(store);
        let v = g.insert_convert(at, new_val, lin.clone());
        new_mask = new_mask.map(|m| {
            let at = g.position(store);
            g.insert_convert(at, m, lin.clone())
        });
        operands = vec![p, v];
    }
    operands.extend(new_mask);
    let at = g.position(store);
    let new = g.insert_like(store, at, operands, Vec::new());
    g.erase_op(store);
    let mut touched = vec![new, cvt];
    touched.extend(chain);
    Some(touched)
}
