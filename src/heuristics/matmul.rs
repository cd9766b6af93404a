//! `tritonamdgpu-accelerate-matmul`: which matrix instruction (MFMA, WMMA or plain FMA)
//! Triton 3.6 picks for a `tt.dot`, and the layouts that follow from it.
//!
//! # The rules
//!
//! * **Which unit.** gfx90a / gfx942 / gfx950 have MFMA (versions 2, 3, 4); gfx11 has WMMA v1,
//!   gfx12 (except gfx1250) WMMA v2; gfx1250 maps no plain `tt.dot` to WMMA in 3.6 (FMA).
//! * **MFMA tile** from `min(M, N)`: ≥ 32 → 32×32 (16×16 for f64), ≥ 16 → 16×16, ≥ 4 → 64×4
//!   or 4×64 if the other side reaches 64; `nonkdim` forces it. The instruction table
//!   ([`MFMA_TABLE`](crate::heuristics::matmul::MFMA_TABLE)) gives `(kDim, kBase)` candidates per version, tile and type; the first
//!   with `kDim ≤ K` wins (else the last); `K % kDim ≠ 0` falls back to FMA.
//! * **warpsPerCTA** ([`warps_per_tile`](crate::heuristics::matmul::warps_per_tile)): batched `[nw, 1, 1]`; the head of a chain of dots
//!   `[nw, 1]`; the tail `[min(nw, ⌈M/mDim⌉), rest]`; otherwise doubling the side with more
//!   tiles left, then a swap when the N side overshoots.
//! * **kWidth** = `kBase · kPack` (not on a chain tail; a 16-bit chain tail gets 4); the
//!   scaled fp8 instruction halves it.
//! * **gfx950 fp8**: OCP fp8 × fp8 first tries the scaled f8f6f4 instruction and, if `K`
//!   allows, rewrites the dot to `tt.dot_scaled`.
//! * **WMMA**: operand types by a conversion-cost model, 16×16 tiles, `kWidth` 16 (v1) / 8
//!   (v2); mixed 8-bit operand types are promoted to B's type.
//! * **FMA**: the blocked layout stays; operands are cast to a common type unless the dot is
//!   already legal for `v_dot`.
//! * **`tt.dot_scaled`** (observed on the wheel): gfx950 → scaled MFMA (32×32×64 / 16×16×128,
//!   kWidth 16); gfx1250 → scaled WMMA v3 16×16×128 (a packed e2m1 operand's parent says K =
//!   64); gfx11/gfx12 → decomposed into a bf16 `tt.dot` on the WMMA path; gfx90a/gfx942 →
//!   without scales the operands are upcast to bf16 for a plain MFMA `tt.dot` (warps along N),
//!   with both scales left alone, with one not modelled.
//!
//! # A worked example
//!
//! A 128×128×64 f16 dot on gfx942 with 4 warps: `min(M, N) = 128 ≥ 32` → 32×32 tiles; f16 on
//! MFMA v3 has one candidate, `kDim = 8`, `kBase = 4`; 64 % 8 = 0, so `v_mfma_f32_32x32x8f16`;
//! warps double along M then N: `[2, 2]`; `kWidth = 4`.
//!
//! ```
//! use linear_layout::heuristics::matmul::{choose, ChainRole, DotKind, DotSpec};
//! let spec = DotSpec::new("gfx942", "f16", "f16", "f32", &[128, 128], 64, 4);
//! let c = choose(&spec)?;
//! assert_eq!(c.kind, DotKind::Mfma);
//! assert_eq!(c.result.to_string(),
//!     "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>");
//! assert_eq!(c.k_width, 4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

use crate::encodings::{AmdMfma, AmdWmma, Blocked, DotOperand, Encoding};

use super::error::{Decisions, HeuristicError, Undecided};
use crate::target::{MatrixFacts, Target};
use crate::ttgir::{Module, TypeKind, ValueDef, element_bits};

use crate::target::matrix::is_ocp;
pub use crate::target::matrix::{MFMA_TABLE, MfmaRow, MfmaType, mfma_candidates};

/// Where a dot sits in a chain of dots (attention-like `softmax(QK)·V`).
///
/// ```
/// use linear_layout::heuristics::matmul::ChainRole;
/// let r = ChainRole { head_a: true, ..ChainRole::default() };
/// assert!(!r.tail);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ChainRole {
    /// Its result reaches operand A of another dot in the same region.
    pub head_a: bool,
    /// Its result reaches operand B of another dot.
    pub head_b: bool,
    /// Its operand A is computed from another dot.
    pub tail: bool,
}

/// Everything the instruction choice looks at.
///
/// ```
/// use linear_layout::heuristics::matmul::DotSpec;
/// let s = DotSpec::new("gfx1201", "f16", "f16", "f32", &[64, 64], 32, 4);
/// assert_eq!(s.threads_per_warp, 32);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotSpec {
    /// Target name.
    pub arch: String,
    /// Element type of A.
    pub a_elem: String,
    /// Element type of B.
    pub b_elem: String,
    /// Element type of C (and the result).
    pub c_elem: String,
    /// Result shape (`[M, N]` or `[B, M, N]`).
    pub shape: Vec<u64>,
    /// The K dimension.
    pub k: u64,
    /// Warps.
    pub num_warps: u32,
    /// Lanes per warp.
    pub threads_per_warp: u32,
    /// Chain role.
    pub role: ChainRole,
    /// `inputPrecision = tf32` on an f32 dot.
    pub tf32: bool,
    /// `matrix_instr_nonkdim` (0 = heuristic).
    pub nonkdim: u32,
    /// `kPack`.
    pub kpack: u32,
    /// The dot's current (blocked) result encoding, kept by the FMA path.
    pub blocked: Option<Blocked>,
    /// For a `tt.dot_scaled`: the `lhs` / `rhs` formats (`e4m3`, `e5m2`, `e2m1`, `bf16`, …);
    /// `k` then counts elements (two e2m1 values per byte).
    pub scaled: Option<(String, String)>,
    /// For a `tt.dot_scaled`: whether A and B carry scales.
    pub scales: [bool; 2],
}

impl DotSpec {
    /// A spec with default options (no chain, kPack 1, heuristic nonkdim); lanes from the
    /// target's wave size (64 for an unknown arch).
    ///
    /// ```
    /// use linear_layout::heuristics::matmul::DotSpec;
    /// assert_eq!(DotSpec::new("gfx942", "f16", "f16", "f32", &[32, 32], 32, 4).threads_per_warp, 64);
    /// ```
    pub fn new(arch: &str, a: &str, b: &str, c: &str, shape: &[u64], k: u64, num_warps: u32) -> DotSpec {
        DotSpec {
            arch: arch.to_string(),
            a_elem: a.to_string(),
            b_elem: b.to_string(),
            c_elem: c.to_string(),
            shape: shape.to_vec(),
            k,
            num_warps,
            threads_per_warp: Target::by_name(arch).map_or(64, |t| t.wave_size),
            role: ChainRole::default(),
            tf32: false,
            nonkdim: 0,
            kpack: 1,
            blocked: None,
            scaled: None,
            scales: [false, false],
        }
    }
}

/// The unit a dot is mapped to.
///
/// ```
/// use linear_layout::heuristics::matmul::DotKind;
/// assert_eq!(DotKind::Wmma.as_str(), "wmma");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DotKind {
    /// AMD MFMA (CDNA).
    Mfma,
    /// AMD WMMA (RDNA).
    Wmma,
    /// Plain FMA (`v_fma` / `v_dot`) with the blocked layout.
    Fma,
}

impl DotKind {
    /// `mfma`, `wmma` or `fma`.
    ///
    /// ```
    /// use linear_layout::heuristics::matmul::DotKind;
    /// assert_eq!(DotKind::Fma.as_str(), "fma");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            DotKind::Mfma => "mfma",
            DotKind::Wmma => "wmma",
            DotKind::Fma => "fma",
        }
    }
}

/// The decision for one dot.
///
/// ```
/// use linear_layout::encodings::Encoding;
/// use linear_layout::heuristics::matmul::{choose, DotKind, DotSpec};
/// let mut spec = DotSpec::new("gfx1250", "f16", "f16", "f32", &[64, 64], 32, 4);
/// let Encoding::Blocked(b) = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>".parse()? else { unreachable!() };
/// spec.blocked = Some(b); // the FMA path keeps the dot's blocked layout
/// let c = choose(&spec)?;
/// assert_eq!(c.kind, DotKind::Fma);
/// assert_eq!(c.a_elem, "f32"); // no v_dot on gfx1250: cast to f32
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotChoice {
    /// MFMA, WMMA or FMA.
    pub kind: DotKind,
    /// The op after the pass (`tt.dot`, or `tt.dot_scaled` for gfx950's fp8 rewrite).
    pub op: &'static str,
    /// Result (C/D) encoding.
    pub result: Encoding,
    /// Operand A encoding.
    pub a: Encoding,
    /// Operand B encoding.
    pub b: Encoding,
    /// kWidth of the operands (0 for FMA).
    pub k_width: u32,
    /// Element type of A after the pass.
    pub a_elem: String,
    /// Element type of B after the pass.
    pub b_elem: String,
    /// Element type of C (the accumulator) after the pass.
    pub c_elem: String,
    /// Why, step by step.
    pub reasons: Vec<String>,
}

/// `warpsPerTile` (Triton's planWarps) for a result shape and an instruction tile.
///
/// ```
/// use linear_layout::heuristics::matmul::{warps_per_tile, ChainRole};
/// let r = ChainRole::default();
/// assert_eq!(warps_per_tile(&[128, 128], 4, (32, 32), r), vec![2, 2]);
/// // The swap quirk: 128×16 with 32×32 tiles and 4 warps.
/// assert_eq!(warps_per_tile(&[128, 16], 4, (32, 32), r), vec![1, 4]);
/// assert_eq!(warps_per_tile(&[2, 64, 64], 4, (32, 32), r), vec![4, 1, 1]);
/// ```
pub fn warps_per_tile(shape: &[u64], nw: u32, tile: (u32, u32), role: ChainRole) -> Vec<u32> {
    if shape.len() == 3 {
        return vec![nw, 1, 1];
    }
    if role.head_a {
        return vec![nw, 1];
    }
    let (m, n) = (
        shape.first().copied().unwrap_or(1),
        shape.get(1).copied().unwrap_or(1),
    );
    let (tm, tn) = (u64::from(tile.0.max(1)), u64::from(tile.1.max(1)));
    if role.tail {
        let r0 = u64::from(nw).min(m.div_ceil(tm)).max(1);
        return vec![r0 as u32, (u64::from(nw) / r0).max(1) as u32];
    }
    let (mut r0, mut r1) = (1u64, 1u64);
    let nw = u64::from(nw.max(1));
    while r0 * r1 < nw {
        if m / (tm * 2) / r0 >= n / tn / r1 {
            if r0 < m / tm {
                r0 *= 2;
            } else {
                r1 *= 2;
            }
        } else {
            r1 *= 2;
        }
    }
    if r1 * tn > n {
        vec![r1 as u32, r0 as u32]
    } else {
        vec![r0 as u32, r1 as u32]
    }
}

fn is_int(t: &str) -> bool {
    t.starts_with('i') || t.starts_with("ui") || t.starts_with("si")
}

fn bits(t: &str) -> u32 {
    element_bits(t).unwrap_or(32)
}

fn dot_operands(parent: &Encoding, kw: u32) -> (Encoding, Encoding) {
    let mk = |i| {
        Encoding::DotOperand(DotOperand {
            op_idx: i,
            parent: Arc::new(parent.clone()),
            k_width: kw,
        })
    };
    (mk(0), mk(1))
}

/// Chooses the instruction and layouts for one dot.
///
/// ```
/// use linear_layout::heuristics::matmul::{choose, DotKind, DotSpec};
/// // gfx950 rewrites an fp8 × fp8 dot with K = 128 to a scaled MFMA.
/// let c = choose(&DotSpec::new("gfx950", "f8E4M3FN", "f8E4M3FN", "f32", &[64, 64], 128, 4))?;
/// assert_eq!((c.kind, c.op, c.k_width), (DotKind::Mfma, "tt.dot_scaled", 16));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn choose(spec: &DotSpec) -> Result<DotChoice, HeuristicError> {
    let arch = Target::by_name(&spec.arch)
        .ok()
        .filter(|t| !t.wave_from_layout)
        .map(|t| &t.matrix)
        .ok_or_else(|| HeuristicError::new(format!("unknown arch '{}' for accelerate-matmul", spec.arch)))?;
    let rank = spec.shape.len();
    if !(2..=3).contains(&rank) {
        return Err(HeuristicError::new(format!("dot result of rank {rank}")));
    }
    if spec.num_warps == 0 || !spec.num_warps.is_power_of_two() {
        return Err(HeuristicError::new("warps must be a power of two"));
    }
    let mut reasons = Vec::new();
    if let Some((lhs, rhs)) = &spec.scaled {
        return choose_scaled(spec, arch, lhs, rhs);
    }
    if let Some(v) = arch.mfma_version {
        match choose_mfma(spec, v, &mut reasons) {
            Some(c) => return Ok(c),
            None => reasons.push("no MFMA instruction fits: FMA".into()),
        }
    } else if let Some(v) = arch.wmma_version {
        match choose_wmma(spec, v, &mut reasons)? {
            Some(c) => return Ok(c),
            None => reasons.push("no WMMA instruction fits: FMA".into()),
        }
    } else {
        reasons.push(format!(
            "{}: Triton 3.6 maps no plain tt.dot to a matrix instruction here",
            spec.arch
        ));
    }
    choose_fma(spec, arch, reasons)
}

/// Formats the f8f6f4 scaled instructions take.
fn is_f8f6f4(f: &str) -> bool {
    matches!(f, "e4m3" | "e5m2" | "e2m1" | "e2m3" | "e3m2")
}

/// `tt.dot_scaled` (observed on the 3.6.0 wheel): gfx950 → scaled MFMA (f8f6f4), gfx1250 →
/// scaled WMMA v3 16×16×128, gfx11/gfx12 → decomposed into a bf16 `tt.dot` that takes the
/// WMMA path, gfx9 before gfx950 → see [`choose_scaled_upcast`].
fn choose_scaled(
    spec: &DotSpec,
    arch: &MatrixFacts,
    lhs: &str,
    rhs: &str,
) -> Result<DotChoice, HeuristicError> {
    let rank = spec.shape.len();
    let (m, n) = (spec.shape[rank - 2], spec.shape[rank - 1]);
    let f8f6f4 = is_f8f6f4(lhs) && is_f8f6f4(rhs);
    let keep = |why: String| -> Result<DotChoice, HeuristicError> {
        let blocked = spec
            .blocked
            .clone()
            .ok_or_else(|| HeuristicError::new("tt.dot_scaled needs its blocked result encoding"))?;
        let result = Encoding::Blocked(blocked);
        let (a, b) = dot_operands(&result, 0);
        Ok(DotChoice {
            kind: DotKind::Fma,
            op: "tt.dot_scaled",
            result,
            a,
            b,
            k_width: 0,
            a_elem: spec.a_elem.clone(),
            b_elem: spec.b_elem.clone(),
            c_elem: spec.c_elem.clone(),
            reasons: vec![why],
        })
    };
    let scaled_choice = |kind: DotKind, result: Encoding, why: String| {
        let (a, b) = dot_operands(&result, 16);
        DotChoice {
            kind,
            op: "tt.dot_scaled",
            result,
            a,
            b,
            k_width: 16,
            a_elem: spec.a_elem.clone(),
            b_elem: spec.b_elem.clone(),
            c_elem: "f32".into(),
            reasons: vec![why],
        }
    };
    if arch.mfma_version == Some(4) {
        if !f8f6f4 {
            return Err(HeuristicError::new(format!(
                "tt.dot_scaled {lhs} × {rhs} on {}: not modelled (Triton 3.6 decomposes it into an upcast of the scaled operand and a tt.dot; the crate does not yet)",
                spec.arch
            )));
        }
        let (tm, kd): (u32, u32) = match spec.nonkdim {
            32 => (32, 64),
            16 => (16, 128),
            _ if m.min(n) >= 32 => (32, 64),
            _ if m.min(n) >= 16 => (16, 128),
            _ => return keep(format!("result {m}×{n} has no scaled MFMA tile: left alone")),
        };
        if !spec.k.is_multiple_of(u64::from(kd)) {
            return keep(format!(
                "scaled MFMA needs K a multiple of {kd}, K = {}: left alone",
                spec.k
            ));
        }
        let warps = warps_per_tile(&spec.shape, spec.num_warps, (tm, tm), spec.role);
        let mut tiles = vec![1u32; 2];
        if rank == 3 {
            tiles.insert(0, 1);
        }
        let result = Encoding::AmdMfma(AmdMfma {
            version: 4,
            warps_per_cta: warps.clone(),
            instr_shape: vec![tm, tm, kd],
            is_transposed: true,
            tiles_per_warp: tiles,
            element_bit_width: 32,
            cga_layout: vec![],
        });
        let why = format!(
            "tt.dot_scaled {lhs} × {rhs}, result {m}×{n}, K = {}: scaled MFMA {tm}×{tm}×{kd} (f8f6f4); warpsPerCTA {warps:?}; kWidth 16",
            spec.k
        );
        return Ok(scaled_choice(DotKind::Mfma, result, why));
    }
    if let Some(v) = arch.mfma_version {
        return choose_scaled_upcast(spec, v, lhs, rhs, keep);
    }
    if arch.wmma_version.is_none() {
        // gfx1250: scaled WMMA v3.
        if !f8f6f4 || m.min(n) < 16 {
            return keep(format!(
                "tt.dot_scaled {lhs} × {rhs}, result {m}×{n}: no scaled WMMA, left alone"
            ));
        }
        let warps = warps_per_tile(&spec.shape, spec.num_warps, (16, 16), spec.role);
        let result = Encoding::AmdWmma(AmdWmma {
            version: 3,
            is_transposed: true,
            warps_per_cta: warps.clone(),
            tiles_per_warp: vec![1; rank],
            instr_shape: vec![16, 16, 128],
            cga_layout: vec![],
        });
        let why = format!(
            "tt.dot_scaled {lhs} × {rhs}, result {m}×{n}: scaled WMMA v3 16×16×128; warpsPerCTA {warps:?}; kWidth 16{}",
            if lhs == "e2m1" || rhs == "e2m1" {
                "; a packed e2m1 operand's parent has K = 64 (bytes)"
            } else {
                ""
            }
        );
        let mut c = scaled_choice(DotKind::Wmma, result.clone(), why);
        // A packed e2m1 operand (two values per byte) sees the instruction's K in bytes.
        for (fmt, slot, idx) in [(lhs, &mut c.a, 0u32), (rhs, &mut c.b, 1)] {
            if fmt == "e2m1"
                && let Encoding::AmdWmma(w) = &result
            {
                let mut p = w.clone();
                p.instr_shape = vec![16, 16, 64];
                *slot = Encoding::DotOperand(DotOperand {
                    op_idx: idx,
                    parent: Arc::new(Encoding::AmdWmma(p)),
                    k_width: 16,
                });
            }
        }
        return Ok(c);
    }
    // gfx11 / gfx12: decomposed into an upcast bf16 tt.dot.
    if !matches!(lhs, "e4m3" | "e5m2") || !matches!(rhs, "e4m3" | "e5m2") {
        return Err(HeuristicError::new(format!(
            "tt.dot_scaled {lhs} × {rhs} on {}: not modelled (Triton 3.6 decomposes it into upcasts and a tt.dot; the crate does not yet)",
            spec.arch
        )));
    }
    let mut plain = spec.clone();
    plain.scaled = None;
    plain.a_elem = "bf16".into();
    plain.b_elem = "bf16".into();
    let mut c = choose(&plain)?;
    c.reasons.insert(
        0,
        format!(
            "tt.dot_scaled {lhs} × {rhs} decomposed into a tt.dot on bf16 (scales applied by multiplies)"
        ),
    );
    Ok(c)
}

/// `tt.dot_scaled` on CDNA1–3 (Triton's `ScaledBlockedToMFMA`): without scales, the operands
/// upcast to bf16 (f16 if one is f16) for a plain MFMA `tt.dot`, all warps along N; with both
/// scales the pass leaves it alone; one scale (an `amdg.upcast_mxfp`) is not modelled.
fn choose_scaled_upcast(
    spec: &DotSpec,
    v: u32,
    lhs: &str,
    rhs: &str,
    keep: impl Fn(String) -> Result<DotChoice, HeuristicError>,
) -> Result<DotChoice, HeuristicError> {
    match spec.scales {
        [true, true] => {
            return keep(format!(
                "{}: both operands scaled, Triton 3.6 leaves tt.dot_scaled to later passes",
                spec.arch
            ));
        }
        [false, false] => {}
        _ => {
            return Err(HeuristicError::new(format!(
                "tt.dot_scaled with one scale on {}: the upcast_mxfp path is not modelled",
                spec.arch
            )));
        }
    }
    let rank = spec.shape.len();
    let supported = |f: &str| matches!(f, "e2m1" | "e4m3" | "e5m2" | "bf16" | "fp16");
    if rank == 3 || !supported(lhs) || !supported(rhs) {
        return keep(format!(
            "tt.dot_scaled {lhs} × {rhs} of rank {rank} on {}: Triton 3.6 leaves it alone",
            spec.arch
        ));
    }
    if lhs == "e2m1" || rhs == "e2m1" {
        return Err(HeuristicError::new(format!(
            "tt.dot_scaled {lhs} × {rhs} without scales on {}: Triton 3.6 fails (a packed fp4 operand reaches the dot)",
            spec.arch
        )));
    }
    let (m, n) = (spec.shape[rank - 2], spec.shape[rank - 1]);
    let fp16 = lhs == "fp16" || rhs == "fp16";
    let (ty, up) = if fp16 {
        (MfmaType::F16, "f16")
    } else {
        (MfmaType::Bf16, "bf16")
    };
    let (tm, tn) = if spec.nonkdim != 0 {
        (spec.nonkdim, spec.nonkdim)
    } else {
        match m.min(n) {
            s if s >= 32 => (32, 32),
            s if s >= 16 => (16, 16),
            s if s >= 4 && m >= 64 => (64, 4),
            s if s >= 4 && n >= 64 => (4, 64),
            _ => (0, 0),
        }
    };
    let k = spec.k;
    let Some(cands) = mfma_candidates(v, tm, tn, ty) else {
        return keep(format!(
            "tt.dot_scaled upcast to {up}: MFMA v{v} has no {tm}×{tn} instruction, left alone"
        ));
    };
    let Some(&(kd, kb)) = cands
        .iter()
        .take(cands.len() - 1)
        .find(|(kd, _)| u64::from(*kd) <= k)
        .or(cands.last())
    else {
        return keep("no MFMA instruction".into());
    };
    if !k.is_multiple_of(u64::from(kd)) {
        return keep(format!(
            "tt.dot_scaled upcast to {up}: {tm}×{tn}×{kd} needs K a multiple of {kd}, K = {k}; left alone"
        ));
    }
    let warps = vec![1, spec.num_warps];
    let result = Encoding::AmdMfma(AmdMfma {
        version: v,
        warps_per_cta: warps.clone(),
        instr_shape: vec![tm, tn, kd],
        is_transposed: true,
        tiles_per_warp: vec![1, 1],
        element_bit_width: bits(&spec.c_elem),
        cga_layout: vec![],
    });
    let kw = kb * spec.kpack.max(1);
    let (oa, ob) = dot_operands(&result, kw);
    let elem = |f: &str, t: &str| match f {
        "bf16" | "fp16" => t.to_string(),
        _ => up.to_string(),
    };
    let (mut ea, mut eb) = (elem(lhs, &spec.a_elem), elem(rhs, &spec.b_elem));
    if ea != eb {
        // Triton's mixed-mode promotion after the pass (bf16 × f16 meet in f32).
        (ea, eb) = ("f32".into(), "f32".into());
    }
    Ok(DotChoice {
        kind: DotKind::Mfma,
        op: "tt.dot",
        result,
        a: oa,
        b: ob,
        k_width: kw,
        a_elem: ea,
        b_elem: eb,
        c_elem: spec.c_elem.clone(),
        reasons: vec![format!(
            "tt.dot_scaled {lhs} × {rhs} without scales: upcast to {up}, MFMA v{v} {tm}×{tn}×{kd}; warpsPerCTA {warps:?}; kWidth {kw}"
        )],
    })
}

fn choose_mfma(spec: &DotSpec, v: u32, reasons: &mut Vec<String>) -> Option<DotChoice> {
    let rank = spec.shape.len();
    let (m, n) = (spec.shape[rank - 2], spec.shape[rank - 1]);
    let (a, b) = (spec.a_elem.as_str(), spec.b_elem.as_str());
    let k = spec.k;
    let tile = || -> (u32, u32) {
        if spec.nonkdim != 0 {
            return (spec.nonkdim, spec.nonkdim);
        }
        let s = m.min(n);
        if s >= 32 {
            if a == "f64" || b == "f64" {
                (16, 16)
            } else {
                (32, 32)
            }
        } else if s >= 16 {
            (16, 16)
        } else if s >= 4 {
            if m >= 64 {
                (64, 4)
            } else if n >= 64 {
                (4, 64)
            } else {
                (0, 0)
            }
        } else {
            (0, 0)
        }
    };
    let (tm, tn) = tile();
    let try_pick = |scaled: bool, reasons: &mut Vec<String>| -> Option<(u32, u32, MfmaType, String)> {
        let (ty, ea) = if scaled {
            (Some(MfmaType::F8F6F4), a.to_string())
        } else if spec.tf32 && v == 3 && a == "f32" && b == "f32" {
            (Some(MfmaType::Tf32), "f32".to_string())
        } else if v <= 3 && is_ocp(a) && is_ocp(b) {
            reasons.push(format!("OCP fp8 has no native MFMA v{v}: emulated with f16"));
            (Some(MfmaType::F16), "f16".to_string())
        } else {
            (MfmaType::classify(a, b), a.to_string())
        };
        let Some(ty) = ty else {
            reasons.push(format!("MFMA v{v} has no instruction for {a} × {b}"));
            return None;
        };
        let Some(cands) = mfma_candidates(v, tm, tn, ty) else {
            reasons.push(format!(
                "MFMA v{v} has no {tm}×{tn} instruction for {ty:?} (result {m}×{n}, K = {k})"
            ));
            return None;
        };
        let pick = cands
            .iter()
            .take(cands.len() - 1)
            .find(|(kd, _)| u64::from(*kd) <= k)
            .or(cands.last())
            .copied()?;
        if !k.is_multiple_of(u64::from(pick.0)) {
            reasons.push(format!(
                "{}{tm}×{tn}×{} needs K a multiple of {}, K = {k}",
                if scaled { "scaled " } else { "" },
                pick.0,
                pick.0
            ));
            return None;
        }
        Some((pick.0, pick.1, ty, ea))
    };
    let mut scaled = v == 4 && is_ocp(a) && is_ocp(b);
    let mut got = try_pick(scaled, reasons);
    if got.is_none() && scaled {
        scaled = false;
        got = try_pick(false, reasons);
    }
    let (kd, kb, ty, instr_a) = got?;
    let role = spec.role;
    let mut warps = warps_per_tile(&spec.shape, spec.num_warps, (tm, tn), role);
    let mut transposed = !(tm == 4 && tn == 64);
    let is16 = matches!(ty, MfmaType::F16 | MfmaType::Bf16);
    let mut tiles = vec![1u32, 1];
    if v == 4 && is16 && tm == 16 && tn == 16 && rank == 2 {
        if role.head_a && m >= 32 * u64::from(warps[0]) && n == 16 && warps[1] == 1 {
            transposed = true;
            tiles = vec![2, 1];
            reasons.push(format!(
                "{} 16-bit chain head through A with N = 16: tilesPerWarp [2, 1]",
                spec.arch
            ));
        } else if role.head_b && m == 16 && n >= 32 * u64::from(warps[1]) && warps[0] == 1 {
            transposed = false;
            tiles = vec![1, 2];
            reasons.push(format!(
                "{} 16-bit chain head through B with M = 16: tilesPerWarp [1, 2]",
                spec.arch
            ));
        }
    }
    if rank == 3 {
        tiles.insert(0, 1);
        if warps.len() == 2 {
            warps.insert(0, 1);
        }
    }
    let mut kw = kb;
    if !role.tail {
        kw *= spec.kpack.max(1);
    }
    if is16 && role.tail {
        kw = 4;
    }
    if scaled {
        kw /= 2;
    }
    let acc = if is_int(a) {
        "i32"
    } else if a == "f64" {
        "f64"
    } else {
        "f32"
    };
    let result = Encoding::AmdMfma(AmdMfma {
        version: v,
        warps_per_cta: warps.clone(),
        instr_shape: vec![tm, tn, kd],
        is_transposed: transposed,
        tiles_per_warp: tiles,
        element_bit_width: if acc == "f64" { 64 } else { 32 },
        cga_layout: vec![],
    });
    let (ea, eb) = if scaled {
        (a.to_string(), b.to_string())
    } else if instr_a == "f16" && is_ocp(a) {
        ("f16".to_string(), "f16".to_string())
    } else {
        (a.to_string(), b.to_string())
    };
    // Mixed-mode promotion (post-pass): different types wider than 8 bits meet in f16/f32.
    let (ea, eb) = if ea != eb && bits(&ea).max(bits(&eb)) > 8 {
        let t = if bits(&ea).max(bits(&eb)) < 16 {
            "f16"
        } else {
            "f32"
        };
        (t.to_string(), t.to_string())
    } else {
        (ea, eb)
    };
    reasons.insert(
        0,
        format!(
            "result {m}×{n}, K = {k}: {tm}×{tn} MFMA v{v}{} {tm}×{tn}×{kd} (kBase {kb}); warpsPerCTA {warps:?}; kWidth {kw}{}",
            if scaled { " scaled f8f6f4" } else { "" },
            if spec.kpack > 1 && !role.tail { format!(" (kPack {})", spec.kpack) } else { String::new() }
        ),
    );
    if role.tail {
        reasons.push("chain tail: warps along M first; kWidth not multiplied by kPack".into());
    }
    if role.head_a {
        reasons.push("chain head through operand A: all warps along M".into());
    }
    if scaled {
        reasons.push(format!(
            "{}: OCP fp8 × fp8 rewritten to tt.dot_scaled (no scales)",
            spec.arch
        ));
    }
    let (oa, ob) = dot_operands(&result, kw);
    Some(DotChoice {
        kind: DotKind::Mfma,
        op: if scaled { "tt.dot_scaled" } else { "tt.dot" },
        result,
        a: oa,
        b: ob,
        k_width: kw,
        a_elem: ea,
        b_elem: eb,
        c_elem: acc.to_string(),
        reasons: std::mem::take(reasons),
    })
}

/// Conversion cost from type `f` to `t` in the WMMA operand-type model (None = impossible).
fn conv_cost(f: &str, t: &str) -> Option<u32> {
    if f == t {
        return Some(0);
    }
    if is_int(f) != is_int(t) {
        return None;
    }
    if bits(f) <= bits(t) { Some(1) } else { None }
}

fn choose_wmma(
    spec: &DotSpec,
    v: u32,
    reasons: &mut Vec<String>,
) -> Result<Option<DotChoice>, HeuristicError> {
    let rank = spec.shape.len();
    let (m, n) = (spec.shape[rank - 2], spec.shape[rank - 1]);
    let mut cands: Vec<(&str, &str, &str)> = vec![
        ("f16", "f16", "f32"),
        ("bf16", "bf16", "f32"),
        ("i8", "i8", "i32"),
    ];
    if v >= 2 {
        cands.extend([
            ("f8E4M3FN", "f8E4M3FN", "f32"),
            ("f8E4M3FN", "f8E5M2", "f32"),
            ("f8E5M2", "f8E4M3FN", "f32"),
            ("f8E5M2", "f8E5M2", "f32"),
        ]);
    }
    let mut best: Option<((&str, &str, &str), u32)> = None;
    for c in &cands {
        let cost = (|| {
            Some(
                conv_cost(&spec.a_elem, c.0)?
                    + conv_cost(&spec.b_elem, c.1)?
                    + conv_cost(&spec.c_elem, c.2)?
                    + conv_cost(&spec.c_elem, c.2)?,
            )
        })();
        if let Some(cost) = cost
            && best.is_none_or(|(_, bc)| cost < bc)
        {
            best = Some((*c, cost));
        }
    }
    let Some((c, _)) = best else {
        reasons.push(format!(
            "no WMMA operand types reachable from {} × {}",
            spec.a_elem, spec.b_elem
        ));
        return Ok(None);
    };
    if spec.nonkdim != 0 && spec.nonkdim != 16 {
        reasons.push(format!("WMMA has only 16×16 tiles, nonkdim = {}", spec.nonkdim));
        return Ok(None);
    }
    if spec.nonkdim == 16 {
        // Observed on the 3.6.0 wheel: a forced 16×16 tile skips the K check, and a result
        // smaller than the tile aborts the pass.
        if m.min(n) < 16 {
            return Err(HeuristicError::new(format!(
                "Unsupported tensor shape for given wmma layout: result {m}×{n} with nonkdim 16 (Triton 3.6 aborts)"
            )));
        }
        reasons.push("nonkdim = 16 forces the 16×16 WMMA tile (no K check)".into());
    } else {
        if m.min(n) < 16 {
            reasons.push(format!("result {m}×{n} is smaller than the 16×16 WMMA tile"));
            return Ok(None);
        }
        if !spec.k.is_multiple_of(16) {
            reasons.push(format!("WMMA needs K a multiple of 16, K = {}", spec.k));
            return Ok(None);
        }
    }
    let kw = if v == 1 { 16 } else { 8 };
    let warps = warps_per_tile(&spec.shape, spec.num_warps, (16, 16), spec.role);
    let result = Encoding::AmdWmma(AmdWmma {
        version: v,
        is_transposed: true,
        warps_per_cta: warps.clone(),
        tiles_per_warp: vec![1; rank],
        instr_shape: vec![16, 16, 16],
        cga_layout: vec![],
    });
    let (mut ea, eb) = (c.0.to_string(), c.1.to_string());
    let mut why = format!(
        "result {m}×{n}, K = {}: WMMA v{v} 16×16×16 with {} × {} → {}; warpsPerCTA {warps:?}; kWidth {kw}",
        spec.k, c.0, c.1, c.2
    );
    if ea != eb {
        // 3.6.0 mixed-mode quirk: equal widths promote to B's type.
        ea = eb.clone();
        why.push_str(&format!("; mixed operand types promoted to B's {eb}"));
    }
    let (oa, ob) = dot_operands(&result, kw);
    let mut rs = vec![why];
    rs.append(reasons);
    Ok(Some(DotChoice {
        kind: DotKind::Wmma,
        op: "tt.dot",
        result,
        a: oa,
        b: ob,
        k_width: kw,
        a_elem: ea,
        b_elem: eb,
        c_elem: c.2.to_string(),
        reasons: rs,
    }))
}

fn choose_fma(
    spec: &DotSpec,
    arch: &MatrixFacts,
    mut reasons: Vec<String>,
) -> Result<DotChoice, HeuristicError> {
    let blocked = spec
        .blocked
        .clone()
        .ok_or_else(|| HeuristicError::new("FMA fallback needs the dot's blocked result encoding"))?;
    let (a, b, c) = (spec.a_elem.as_str(), spec.b_elem.as_str(), spec.c_elem.as_str());
    let even = spec.k.is_multiple_of(2);
    let legal = (arch.v_dot && a == "f16" && b == "f16" && c == "f32" && even)
        || (arch.v_dot2_bf16 && a == "bf16" && b == "bf16" && c == "f32" && even)
        || (arch.v_dot && a == "i8" && b == "i8" && c == "i32" && spec.k.is_multiple_of(4))
        || (a == b && b == c && matches!(a, "f16" | "f32" | "f64"));
    let (ea, ec) = if legal {
        reasons.push(format!("FMA: {a} × {b} → {c} is legal as is"));
        (a.to_string(), c.to_string())
    } else {
        let all = [a, b, c];
        let small = all.iter().all(|t| bits(t) <= 16)
            && !all.iter().any(|t| *t == "bf16" || (is_int(t) && bits(t) > 8));
        let t = if small { "f16" } else { "f32" };
        reasons.push(format!("FMA: {a} × {b} → {c} cast to {t}"));
        (t.to_string(), t.to_string())
    };
    let result = Encoding::Blocked(blocked);
    let (oa, ob) = dot_operands(&result, 0);
    Ok(DotChoice {
        kind: DotKind::Fma,
        op: "tt.dot",
        result,
        a: oa,
        b: ob,
        k_width: 0,
        a_elem: ea.clone(),
        b_elem: ea,
        c_elem: ec,
        reasons,
    })
}

/// One dot of a module with its decision.
///
/// ```
/// use linear_layout::heuristics::matmul::DotDecision;
/// fn _takes(_: &DotDecision) {}
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotDecision {
    /// Index of the op in [`Module::ops`].
    pub op: usize,
    /// 1-based source line.
    pub line: usize,
    /// Position among ops of the same (final) name.
    pub index: usize,
    /// The spec read from the IR.
    pub spec: DotSpec,
    /// Shapes of A and B.
    pub a_shape: Vec<u64>,
    /// Shape of B.
    pub b_shape: Vec<u64>,
    /// Inline attributes as the oracle reports them (`inputPrecision`, `fastMath`).
    pub attrs: Option<serde_json::Value>,
    /// The decision.
    pub choice: DotChoice,
}

fn same_region(m: &Module, a: usize, b: usize) -> bool {
    m.ops[a].parent == m.ops[b].parent && m.ops[a].func == m.ops[b].func
}

fn is_dot(name: &str) -> bool {
    name == "tt.dot" || name == "tt.dot_scaled"
}

/// The chain role of dot `op` in a module.
///
/// ```
/// use linear_layout::heuristics::{matmul::chain_role, ttgir::Module};
/// let m = Module::parse("module {\n tt.func @f() {\n tt.return\n }\n}")?;
/// assert_eq!(chain_role(&m, &m.users(), 0).tail, false);
/// # Ok::<(), linear_layout::ttgir::TtgirError>(())
/// ```
pub fn chain_role(m: &Module, users: &[Vec<usize>], op: usize) -> super::matmul::ChainRole {
    chain_roles(m, users).get(op).copied().unwrap_or_default()
}

/// The chain role of every op, as Triton 3.6 decides it for a dot from slices of its region
/// (the slices exclude their root):
///
/// * `head_a` / `head_b`: the forward slice of the op holds an op whose result is operand A
///   (B) of a dot;
/// * `tail`: the backward slice of the op defining operand A holds a dot.
///
/// An op's uses come after it in its region, so one pass from the last op to the first finds
/// every forward property, and one from the first to the last every backward one: linear in
/// the module, where a slice per dot was quadratic.
pub(crate) fn chain_roles(m: &Module, users: &[Vec<usize>]) -> Vec<ChainRole> {
    let n = m.ops.len();
    let region_users = |x: usize| {
        m.ops[x]
            .results
            .iter()
            .flat_map(|&r| users.get(r).into_iter().flatten())
            .copied()
            .filter(move |&u| u < n && u != x && same_region(m, u, x))
    };
    // Whether op `u`'s result is operand `idx` of a dot of its region.
    let feeds = |u: usize, idx: usize| {
        region_users(u).any(|o| {
            is_dot(&m.ops[o].name) && m.ops[o].operands.get(idx).and_then(|&v| m.def_op(v)) == Some(u)
        })
    };
    // Forward: some op downstream (the op itself excluded) feeds operand A / B of a dot.
    let mut reaches_a = vec![false; n];
    let mut reaches_b = vec![false; n];
    for x in (0..n).rev() {
        for u in region_users(x) {
            if u > x {
                reaches_a[x] |= reaches_a[u] || feeds(u, 0);
                reaches_b[x] |= reaches_b[u] || feeds(u, 1);
            }
        }
    }
    // Backward: some op upstream (the op itself excluded, block arguments not followed) is a
    // dot.
    let mut after_dot = vec![false; n];
    for x in 0..n {
        for &v in &m.ops[x].operands {
            if let Some(ValueDef::Op { op: d, .. }) = m.values.get(v).map(|val| val.def)
                && d < x
                && same_region(m, d, x)
            {
                after_dot[x] |= after_dot[d] || is_dot(&m.ops[d].name);
            }
        }
    }
    (0..n)
        .map(|x| ChainRole {
            head_a: reaches_a[x],
            head_b: reaches_b[x],
            tail: m.ops[x]
                .operands
                .first()
                .and_then(|&a| m.def_op(a))
                .is_some_and(|d| after_dot[d]),
        })
        .collect()
}

fn precision_name(v: &crate::ttgir::AttrValue) -> String {
    use crate::ttgir::AttrValue;
    match v {
        AttrValue::Int(0) => "tf32".into(),
        AttrValue::Int(1) => "tf32x3".into(),
        AttrValue::Int(2) => "ieee".into(),
        AttrValue::Int(i) => i.to_string(),
        AttrValue::Raw(s) | AttrValue::Str(s) => s.clone(),
        AttrValue::Ints(_) => "?".into(),
    }
}

/// Runs accelerate-matmul over every `tt.dot` of a module.
///
/// ```
/// use linear_layout::heuristics::{matmul::accelerate_module, ttgir::Module};
/// let m = Module::parse(r#"
/// #bl = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]}>
/// module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @f(%a: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #bl}>>, %b: tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #bl}>>) {
///     %c = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #bl>
///     %d = tt.dot %a, %b, %c : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #bl}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #bl}>> -> tensor<64x64xf32, #bl>
///     tt.return
///   }
/// }"#)?;
/// let d = accelerate_module(&m, "gfx950", 1, 0)?;
/// assert_eq!(d[0].choice.result.to_string(),
///     "#ttg.amd_mfma<{version = 4, warpsPerCTA = [2, 2], instrShape = [32, 32, 16], isTransposed = true}>");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn accelerate_module(
    m: &Module,
    arch: &str,
    kpack: u32,
    nonkdim: u32,
) -> Result<Decisions<DotDecision>, HeuristicError> {
    let roles = chain_roles(m, &m.users());
    let mut out = Vec::new();
    let mut undecided = Vec::new();
    let mut counters: std::collections::HashMap<&'static str, usize> = Default::default();
    for oi in super::coalesce::walk_order(m) {
        let op = &m.ops[oi];
        if op.name != "tt.dot" && op.name != "tt.dot_scaled" {
            continue;
        }
        let scaled = op.name == "tt.dot_scaled";
        let main: Vec<usize> = op
            .operands
            .iter()
            .enumerate()
            .filter(|(k, _)| !op.scales.contains(k))
            .map(|(_, &v)| v)
            .collect();
        let err = |s: &str| HeuristicError::new(format!("line {}: tt.dot: {s}", op.line));
        let ty = |k: usize| main.get(k).map(|&v| &m.values[v].ty);
        let (Some(at), Some(bt), Some(ct)) = (ty(0), ty(1), ty(2)) else {
            return Err(err("expected operands A, B and C"));
        };
        let Some(&res) = op.results.first() else {
            return Err(err("expected a result"));
        };
        let rt = &m.values[res].ty;
        if rt.kind != TypeKind::Tensor || at.shape.len() < 2 || at.shape.len() != rt.shape.len() {
            return Err(err("operands must be ranked tensors of the result's rank"));
        }
        let blocked = match rt.encoding.as_deref() {
            Some(Encoding::Blocked(b)) => Some(b.clone()),
            _ => None,
        };
        let prec = crate::ttgir::attr(&op.attrs, "inputPrecision").map(precision_name);
        let fmt = |key: &str| match crate::ttgir::attr(&op.attrs, key) {
            Some(crate::ttgir::AttrValue::Raw(s) | crate::ttgir::AttrValue::Str(s)) => Some(s.clone()),
            _ => None,
        };
        let spec = DotSpec {
            arch: arch.to_string(),
            a_elem: at.element.clone(),
            b_elem: bt.element.clone(),
            c_elem: ct.element.clone(),
            shape: rt.shape.clone(),
            k: *at.shape.last().unwrap_or(&1)
                * if fmt("lhs").as_deref() == Some("e2m1") {
                    2
                } else {
                    1
                },
            num_warps: m.num_warps,
            threads_per_warp: m.threads_per_warp,
            role: roles[oi],
            tf32: prec.as_deref() == Some("tf32"),
            nonkdim,
            kpack,
            blocked,
            scaled: if scaled {
                Some((fmt("lhs").unwrap_or_default(), fmt("rhs").unwrap_or_default()))
            } else {
                None
            },
            // A scale follows the operand it scales (`%a scale %as, %b scale %bs, %c`).
            scales: {
                let a = op.scales.contains(&1);
                [a, op.scales.contains(if a { &3 } else { &2 })]
            },
        };
        if spec.blocked.is_none() {
            undecided.push(Undecided {
                op: oi,
                name: op.name.clone(),
                line: op.line,
                reason: "its result already has a matrix layout: the pass leaves it alone".into(),
            });
            continue;
        }
        let choice = choose(&spec).map_err(|e| err(&e.message))?;
        let c = counters.entry(choice.op).or_default();
        let index = *c;
        *c += 1;
        let attrs = if choice.op == "tt.dot_scaled" {
            let fast = matches!(
                crate::ttgir::attr(&op.attrs, "fastMath"),
                Some(crate::ttgir::AttrValue::Int(1))
            );
            Some(serde_json::json!({ "fastMath": fast }))
        } else {
            prec.filter(|p| p != "ieee")
                .map(|p| serde_json::json!({ "inputPrecision": p }))
        };
        out.push(DotDecision {
            op: oi,
            line: op.line,
            index,
            spec,
            a_shape: at.shape.clone(),
            b_shape: bt.shape.clone(),
            attrs,
            choice,
        });
    }
    Ok(Decisions {
        decided: out,
        undecided,
    })
}
