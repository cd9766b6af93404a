//! The layout of a `tt.reshape`'s result from its operand's (Triton's `inferReshapeOpEncoding`).
//!
//! A reshape keeps each thread's elements; only their coordinates change. For a blocked
//! layout the result is often blocked again: a `[32, 2]` tensor with `sizePerThread = [1, 2]`,
//! `threadsPerWarp = [32, 1]`, `order = [1, 0]` reshaped to `[64]` is the blocked layout with
//! `sizePerThread = [2]`, `threadsPerWarp = [32]`: each group of merged dims must be
//! consecutive in the layout's order and fill its minor dims before its major ones (Triton's
//! "legacy" rule). When it is not, the result is the `#ttg.linear` layout of the reshaped bases,
//! which always exists: a reshape is a bijection of coordinates, composed with the layout.
//!
//! The rule is symmetric: the operand's layout for a result layout is the same inference with
//! the shapes swapped.

use std::sync::Arc;

use crate::encodings::{Blocked, Encoding};
use crate::heuristics::coalesce::blocked_for;
use crate::linear::reshape_layout;

use super::ops::linear_encoding;

/// The dims of `src` and `dst` that a reshape merges or splits together, chunk by chunk
/// (Triton's `getReshapeDecomposition`).
fn decomposition(src: &[u64], dst: &[u64]) -> Vec<(Vec<usize>, Vec<usize>)> {
    let mut out: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    if src.is_empty() {
        return out;
    }
    out.push((Vec::new(), Vec::new()));
    let (mut i, mut j) = (0usize, 0usize);
    let (mut ns, mut nd) = (1u64, 1u64);
    // Each step takes one dim of one side or closes a chunk: at most 2 × (ranks) steps.
    while i < src.len() || j < dst.len() {
        let last = out.len() - 1;
        if (ns < nd || i < src.len() && (ns == 1 || src[i] == 1)) && i < src.len() {
            ns = ns.saturating_mul(src[i]);
            out[last].0.push(i);
            i += 1;
        } else if (nd < ns || j < dst.len() && dst[j] == 1) && j < dst.len() {
            nd = nd.saturating_mul(dst[j]);
            out[last].1.push(j);
            j += 1;
        } else if ns == nd && (i < src.len() || j < dst.len()) {
            out.push((Vec::new(), Vec::new()));
            ns = 1;
            nd = 1;
        } else {
            // Shapes of different sizes: no decomposition.
            return Vec::new();
        }
    }
    out
}

fn inverse(order: &[u32]) -> Option<Vec<u32>> {
    let mut inv = vec![0u32; order.len()];
    for (i, &o) in order.iter().enumerate() {
        *inv.get_mut(o as usize)? = u32::try_from(i).ok()?;
    }
    Some(inv)
}

/// Triton's legacy rule for blocked layouts; `None` where it does not apply.
fn legacy(src_shape: &[u64], enc: &Arc<Encoding>, dst_shape: &[u64]) -> Option<Arc<Encoding>> {
    let Encoding::Blocked(b) = &**enc else {
        return None;
    };
    if src_shape == dst_shape {
        return Some(enc.clone());
    }
    if !b.cga_layout.is_empty() || b.order.len() != src_shape.len() {
        return None;
    }
    let warps: u32 = b.warps_per_cta.iter().product();
    let lanes: u32 = b.threads_per_warp.iter().product();
    let default = |shape: &[u64]| {
        let rank = shape.len();
        let order: Vec<u32> = (0..rank as u32).rev().collect();
        blocked_for(shape, &vec![1; rank], &order, warps, lanes, Vec::new())
    };
    if *b == default(src_shape) {
        return Some(Arc::new(Encoding::Blocked(default(dst_shape))));
    }
    let subs: [&Vec<u32>; 3] = [&b.size_per_thread, &b.threads_per_warp, &b.warps_per_cta];
    for sub in subs {
        for (d, &s) in src_shape.iter().enumerate() {
            let k = u64::from(*sub.get(d)?);
            if k == 0 || s >= k && s % k != 0 {
                return None;
            }
        }
    }
    let decomp = decomposition(src_shape, dst_shape);
    if decomp.is_empty() || decomp.iter().any(|(s, d)| s.is_empty() || d.is_empty()) {
        return None;
    }
    let inv = inverse(&b.order)?;
    // Merged dims are consecutive in the order, the first the most major.
    for (src_dims, _) in &decomp {
        let v: Vec<u32> = src_dims.iter().rev().map(|&d| inv[d]).collect();
        if v.windows(2).any(|w| w[1] != w[0] + 1) {
            return None;
        }
    }
    // Each chunk's minor dims are filled before its major dims hold more than one.
    for (src_dims, _) in &decomp {
        let mut remaining: Vec<u64> = src_dims.iter().map(|&d| src_shape[d]).collect();
        for sub in subs {
            for i in (0..src_dims.len()).rev() {
                let k = u64::from(sub[src_dims[i]]);
                if k == 1 {
                    continue;
                }
                if remaining[i + 1..].iter().any(|&r| r != 1) {
                    return None;
                }
                remaining[i] = if remaining[i] >= k { remaining[i] / k } else { 0 };
                if remaining[i] == 0 && i != 0 {
                    return None;
                }
            }
        }
    }
    // The destination's fields, filled greedily from each chunk's most minor dim.
    let mut dst_remaining: Vec<u64> = dst_shape.to_vec();
    let mut fields: Vec<Vec<u32>> = Vec::new();
    for sub in subs {
        let mut out = vec![1u32; dst_shape.len()];
        for (src_dims, dst_dims) in &decomp {
            let mut left: u64 = src_dims.iter().map(|&d| u64::from(sub[d])).product();
            for &d in dst_dims.iter().rev() {
                let val = left.min(dst_remaining[d]).max(1);
                out[d] = u32::try_from(val).ok()?;
                left /= val;
                dst_remaining[d] /= val;
            }
            let major = dst_dims[0];
            out[major] = out[major].checked_mul(u32::try_from(left).ok()?)?;
        }
        fields.push(out);
    }
    let mut sorted = decomp.clone();
    sorted.sort_by_key(|(s, _)| inv[s[0]]);
    let mut dst_inv = vec![0u32; dst_shape.len()];
    let mut i = 0u32;
    for (_, dst_dims) in &sorted {
        for &d in dst_dims.iter().rev() {
            dst_inv[d] = i;
            i += 1;
        }
    }
    let order = inverse(&dst_inv)?;
    let mut f = fields.into_iter();
    Some(Arc::new(Encoding::Blocked(Blocked {
        size_per_thread: f.next()?,
        threads_per_warp: f.next()?,
        warps_per_cta: f.next()?,
        order,
        cga_layout: Vec::new(),
    })))
}

/// The layout of a reshape from `src_shape` in `enc` to `dst_shape` (no reordering allowed).
pub(crate) fn infer_reshape(
    src_shape: &[u64],
    enc: &Arc<Encoding>,
    dst_shape: &[u64],
) -> Option<Arc<Encoding>> {
    if src_shape.iter().product::<u64>() != dst_shape.iter().product::<u64>() {
        return None;
    }
    if let Some(e) = legacy(src_shape, enc, dst_shape) {
        return Some(e);
    }
    if !enc.is_distributed() {
        return None;
    }
    let ll = enc.to_linear_layout(src_shape).ok()?;
    linear_encoding(&reshape_layout(&ll, dst_shape).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_two_dims_of_a_blocked_layout_gives_a_blocked_layout() {
        let e: Encoding = "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>"
            .parse()
            .unwrap();
        let out = infer_reshape(&[32, 2], &Arc::new(e), &[64]).unwrap();
        assert_eq!(
            out.to_string(),
            "#ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>"
        );
    }

    #[test]
    fn the_rule_is_symmetric() {
        let e: Encoding =
            "#ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>"
                .parse()
                .unwrap();
        let back = infer_reshape(&[64], &Arc::new(e), &[32, 2]).unwrap();
        assert_eq!(
            back.to_string(),
            "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>"
        );
    }
}
