//! Triton's three-tier classification of a conversion (`minimalCvtLayout` and friends).

use std::fmt;

use super::{ConvertError, HW_DIMS, canonical_distributed, same_tensor};
use crate::linear::LinearLayout;

/// What a conversion needs, cheapest first.
///
/// ```
/// use linear_layout::heuristics::convert::ConversionKind;
/// assert_eq!(ConversionKind::Shuffle.as_str(), "shuffle");
/// assert!(ConversionKind::Register < ConversionKind::Lds);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConversionKind {
    /// The layouts place every element identically.
    Noop,
    /// Each thread already holds its elements, in other registers.
    Register,
    /// Elements move between lanes of one warp (and registers).
    Shuffle,
    /// Elements cross warps: a round trip through LDS.
    Lds,
}

impl ConversionKind {
    /// The protocol name: `noop`, `register`, `shuffle` or `lds`.
    ///
    /// ```
    /// use linear_layout::heuristics::convert::ConversionKind;
    /// assert_eq!(ConversionKind::Lds.as_str(), "lds");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ConversionKind::Noop => "noop",
            ConversionKind::Register => "register",
            ConversionKind::Shuffle => "shuffle",
            ConversionKind::Lds => "lds",
        }
    }
}

impl fmt::Display for ConversionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verdict on a conversion, with the algebra behind it.
///
/// ```
/// use linear_layout::heuristics::convert::{classify, ConversionKind};
/// use linear_layout::linear::LinearLayout;
/// let l = LinearLayout::identity_1d(4, "register", "dim0")?.product(&LinearLayout::identity_1d(32, "lane", "dim0")?)?;
/// let c = classify(&l, &l)?;
/// assert_eq!(c.kind, ConversionKind::Noop);
/// assert!(c.minimal.num_in_dims() == 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classification {
    /// The tier.
    pub kind: ConversionKind,
    /// `D⁻¹∘S` (source hardware → destination hardware) with the trivial dims quotiented out,
    /// as Triton's `minimalCvtLayout`.
    pub minimal: LinearLayout,
    /// `D⁻¹∘S` on all four hardware dims.
    pub full: LinearLayout,
    /// Why, in words ("lane bit 3 maps to warp bit 0, so the data must cross warps").
    pub explanation: String,
}

/// Classifies `src → dst` as Triton 3.6 does: `C = D⁻¹∘S`, then quotient by block, warp, lane,
/// register (slowest first, stopping at the first that is not trivial); the in-dims left decide.
///
/// Law: `classify(l, l)` is `Noop` for every injective `l`; swapping two register bases gives
/// `Register`.
///
/// ```
/// use linear_layout::heuristics::convert::{classify, ConversionKind};
/// use linear_layout::linear::LinearLayout;
/// let src = LinearLayout::from_bases([("register", vec![vec![1]]), ("lane", vec![vec![2]]), ("warp", vec![vec![4]])], [("dim0", 8)], true)?;
/// let dst = LinearLayout::from_bases([("register", vec![vec![1]]), ("lane", vec![vec![4]]), ("warp", vec![vec![2]])], [("dim0", 8)], true)?;
/// let c = classify(&src, &dst)?;
/// assert_eq!(c.kind, ConversionKind::Lds);
/// assert!(c.explanation.contains("lane bit 0 (the element at dim0=2) maps to destination warp bit 0"), "{}", c.explanation);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn classify(src: &LinearLayout, dst: &LinearLayout) -> Result<Classification, ConvertError> {
    same_tensor(src, dst, "classify")?;
    let s = canonical_distributed(src)?;
    let d = canonical_distributed(dst)?;
    let full = s.invert_and_compose(&d)?;
    // Quotient by block, warp, lane, register (slowest first) while the dim is trivial: the
    // same test as `LinearLayout::quotient`, done on the packed columns of `full`.
    let mut left: Vec<&str> = HW_DIMS.to_vec();
    let mut out_masks: Vec<(&str, u64, u32)> = Vec::with_capacity(4);
    let mut shift = 0u32;
    for (name, size) in full.out_dims() {
        let bits = size.trailing_zeros();
        let mask = if bits == 0 {
            0
        } else {
            ((1u64 << bits) - 1) << shift
        };
        if let Some(d) = HW_DIMS.iter().find(|d| **d == name.as_str()) {
            out_masks.push((d, mask, shift));
        }
        shift += bits;
    }
    let out_of = |d: &str| {
        out_masks
            .iter()
            .find(|(n, ..)| *n == d)
            .map(|&(_, m, sh)| (m, sh))
    };
    for dim in ["block", "warp", "lane", "register"] {
        let (mask, sh) = out_of(dim).unwrap_or((0, 0));
        let cols = full.flat_bases(dim)?;
        let square = u64::from(mask.count_ones()) == cols.len() as u64;
        let identity = square
            && cols
                .iter()
                .enumerate()
                .all(|(i, &c)| c & mask == 1u64 << (sh + i as u32));
        let others_in = left.iter().filter(|e| **e != dim).all(|e| {
            full.flat_bases(e)
                .map(|cs| cs.iter().all(|&c| c & mask == 0))
                .unwrap_or(true)
        });
        let others_out = left
            .iter()
            .filter(|e| **e != dim)
            .all(|e| out_of(e).is_none_or(|(m, _)| cols.iter().all(|&c| c & m == 0)));
        if !(identity && others_in && others_out) {
            break;
        }
        left.retain(|e| *e != dim);
    }
    let minimal = full.sublayout(&left, &left)?;
    let has = |n: &str| left.contains(&n);
    let kind = if left.is_empty() {
        ConversionKind::Noop
    } else if !has("lane") && !has("warp") && !has("block") {
        ConversionKind::Register
    } else if !has("warp") && !has("block") {
        ConversionKind::Shuffle
    } else {
        ConversionKind::Lds
    };
    let explanation = explain(&full, &s, kind)?;
    Ok(Classification {
        kind,
        minimal,
        full,
        explanation,
    })
}

/// "warp bit 0 + lane bit 1", or "nothing (the source holds a copy)", from a packed column.
fn describe(outs: &[(String, u32)], col: u64) -> String {
    let mut parts = Vec::new();
    let mut shift = 0;
    for (name, bits) in outs {
        for b in 0..*bits {
            if col >> (shift + b) & 1 == 1 {
                parts.push(format!("{name} bit {b}"));
            }
        }
        shift += bits;
    }
    if parts.is_empty() {
        "nothing (the source holds a copy)".to_string()
    } else {
        parts.join(" + ")
    }
}

fn rank(dim: &str) -> usize {
    HW_DIMS.iter().position(|d| *d == dim).unwrap_or(HW_DIMS.len())
}

fn explain(full: &LinearLayout, src: &LinearLayout, kind: ConversionKind) -> Result<String, ConvertError> {
    let outs: Vec<(String, u32)> = full
        .out_dims()
        .map(|(n, s)| (n.to_string(), s.trailing_zeros()))
        .collect();
    // Bit offset and level of each out-dim in a packed column.
    let mut out_info: Vec<(u64, usize)> = Vec::with_capacity(outs.len());
    let mut shift = 0;
    for (name, bits) in &outs {
        let mask = if *bits == 0 {
            0
        } else {
            ((1u64 << bits) - 1) << shift
        };
        out_info.push((mask, rank(name)));
        shift += bits;
    }
    // The source basis that forces the data to travel furthest (first one on ties).
    let mut worst: Option<(usize, &str, usize, u64)> = None;
    for (name, _) in full.in_dims() {
        let own = outs.iter().position(|(o, _)| o == name.as_str());
        for (i, &col) in full.flat_bases(name)?.iter().enumerate() {
            // Basis i of an in-dim is the identity when it is bit i of the out-dim of the same
            // name (an in-dim may have more bases than that out-dim has bits).
            let identity = own.is_some_and(|p| {
                let off: u32 = outs[..p].iter().map(|(_, b)| b).sum();
                (i as u32) < outs[p].1 && col == 1u64 << (off + i as u32)
            });
            if identity {
                continue;
            }
            let mut level = rank(name.as_str());
            for &(mask, r) in &out_info {
                if col & mask != 0 {
                    level = level.max(r);
                }
            }
            if worst.is_none_or(|(l, ..)| level > l) {
                worst = Some((level, name.as_str(), i, col));
            }
        }
    }
    Ok(match (kind, worst) {
        (ConversionKind::Noop, _) | (_, None) => {
            "D⁻¹∘S is the identity on registers, lanes, warps and blocks: nothing moves".to_string()
        }
        (kind, Some((level, name, i, col))) => {
            let at = src
                .basis(name, i)
                .map(|v| {
                    let parts: Vec<String> = src
                        .out_dim_names()
                        .zip(v)
                        .map(|(n, x)| format!("{n}={x}"))
                        .collect();
                    format!(" (the element at {})", parts.join(", "))
                })
                .unwrap_or_default();
            let t = format!(
                "source {name} bit {i}{at} maps to destination {}",
                describe(&outs, col)
            );
            match kind {
                ConversionKind::Register => format!("{t}, so each thread only reorders its own registers"),
                ConversionKind::Shuffle => {
                    format!("{t}, so data moves between lanes of one warp (no warp crossing)")
                }
                _ => {
                    let why = if level >= 3 { "cross blocks" } else { "cross warps" };
                    format!("{t}, so the data must {why}: a round trip through LDS")
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(reg: &[u64], lane: &[u64], warp: &[u64]) -> LinearLayout {
        let b = |v: &[u64]| v.iter().map(|&x| vec![x as i64]).collect::<Vec<_>>();
        LinearLayout::from_bases(
            [("register", b(reg)), ("lane", b(lane)), ("warp", b(warp))],
            [("dim0", 64)],
            true,
        )
        .unwrap()
    }

    /// Law: a layout converted to itself is a no-op; swapping two of its register bases is a
    /// register permutation.
    #[test]
    fn self_conversion_is_noop() {
        for k in 1..6u64 {
            let regs: Vec<u64> = (0..k).map(|i| 1 << i).collect();
            let lanes: Vec<u64> = (k..k + 5).map(|i| 1 << i).collect();
            let a = l(&regs, &lanes[..(6 - k as usize).min(5)], &[]);
            assert_eq!(classify(&a, &a).unwrap().kind, ConversionKind::Noop);
        }
    }

    /// The tiers on hand-built cases.
    #[test]
    fn tiers() {
        let a = l(&[1, 2], &[4, 8], &[16, 32]);
        assert_eq!(classify(&a, &a).unwrap().kind, ConversionKind::Noop);
        assert_eq!(
            classify(&a, &l(&[2, 1], &[4, 8], &[16, 32])).unwrap().kind,
            ConversionKind::Register
        );
        assert_eq!(
            classify(&a, &l(&[1, 4], &[2, 8], &[16, 32])).unwrap().kind,
            ConversionKind::Shuffle
        );
        let c = classify(&a, &l(&[1, 2], &[4, 16], &[8, 32])).unwrap();
        assert_eq!(c.kind, ConversionKind::Lds);
        assert!(c.explanation.contains("cross warps"), "{}", c.explanation);
    }
}
