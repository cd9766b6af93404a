//! `tritonamdgpu-coalesce-async-copy`: the source layout of `ttg.async_copy_global_to_local`
//! on gfx942 / gfx950, so that the direct-to-LDS loads write LDS coalesced.
//!
//! # The rules
//!
//! 1. **Contiguity** of the copy: the pointer's alignment (AxisInfo along the source
//!    layout's `order[0]`) capped by the layout's contiguous elements per thread, and by the
//!    mask's constancy if there is a mask.
//! 2. **Shared layout**: `C` = [`num_consecutive_in_out`] of the register → shared map
//!    (`invert_and_compose` of the source layout with the shared layout, or the padded layout's
//!    linear component). Different orders give 1; a swizzle vector limits it.
//! 3. **Fit** ([`fit_to_valid_width`](crate::heuristics::async_copy::fit_to_valid_width)): halve until `contig · bits` is a width Triton 3.6 can load
//!    directly to LDS — gfx942: 32 bits; gfx950: 128 or 32 bits. 0 → no rewrite.
//! 4. **Already coalesced?** ([`writes_coalesced`](crate::heuristics::async_copy::writes_coalesced)): a warp writes one contiguous run of
//!    `contig · lanes` elements (the first `log2 contig` register bases and all lane bases span
//!    exactly the low offset bits) → no rewrite.
//! 5. **Rewrite**: swizzled destination → the blocked layout with `sizePerThread[order[0]] =
//!    contig`; padded destination → a `#ttg.linear` layout built from the shared offset bases
//!    (register, then lanes, then warps, rest registers).
//!
//! [`num_consecutive_in_out`]: crate::linear::LinearLayout::num_consecutive_in_out
//!
//! # A worked example
//!
//! A 64×64 f16 copy with `sizePerThread = [1, 8]` into an unswizzled row-major buffer: the
//! pointer allows 8 elements (16 B), `C = 64`; on gfx942 only 32-bit direct loads exist, so 8
//! → 4 → 2 elements; the current layout has lanes 8 elements apart, so it is rewritten to
//! `sizePerThread = [1, 2]`, lanes `[2, 32]`. On gfx950 128-bit loads exist and the layout
//! already writes coalesced.
//!
//! ```
//! use linear_layout::heuristics::async_copy::fit_to_valid_width;
//! assert_eq!(fit_to_valid_width(8, 16, "gfx942"), 2);
//! assert_eq!(fit_to_valid_width(8, 16, "gfx950"), 8);
//! assert_eq!(fit_to_valid_width(2, 32, "gfx950"), 1); // 64-bit is not supported
//! assert_eq!(fit_to_valid_width(1, 16, "gfx942"), 0); // 16-bit is not supported
//! ```

use crate::encodings::{Blocked, Encoding, Linear};
use crate::linear::LinearLayout;
use crate::target::{TARGETS, Target};

use super::coalesce::blocked_for;
use super::error::{Decisions, HeuristicError};
use crate::ttgir::axisinfo::AxisInfo;
use crate::ttgir::{Module, TypeKind};

/// The direct-to-LDS widths (bits per lane) Triton 3.6 accepts on a target: its row's
/// [`triton_direct_to_lds_bits`](crate::target::Target::triton_direct_to_lds_bits); empty (the
/// pass does nothing there) for a target the table does not know.
///
/// ```
/// use linear_layout::heuristics::async_copy::direct_to_lds_bits;
/// assert_eq!(direct_to_lds_bits("gfx950"), &[128, 32]);
/// assert!(direct_to_lds_bits("gfx1201").is_empty());
/// ```
pub fn direct_to_lds_bits(arch: &str) -> &'static [u32] {
    Target::by_name(arch).map_or(&[], |t| t.triton_direct_to_lds_bits)
}

/// The primary targets where the pass runs, for messages.
fn targets_with_direct_to_lds() -> Vec<&'static str> {
    TARGETS
        .iter()
        .filter(|t| t.same_as.is_none() && !t.triton_direct_to_lds_bits.is_empty())
        .map(|t| t.name)
        .collect()
}

/// `fitToValidDirectToLdsVecSize`: halves `contig` until `contig · bits` is a supported width.
///
/// ```
/// use linear_layout::heuristics::async_copy::fit_to_valid_width;
/// assert_eq!(fit_to_valid_width(16, 8, "gfx942"), 4);
/// ```
pub fn fit_to_valid_width(contig: u64, bits: u32, arch: &str) -> u64 {
    let ok = direct_to_lds_bits(arch);
    let mut c = contig;
    while c > 0 && !ok.iter().any(|&w| u64::from(w) == c * u64::from(bits)) {
        c /= 2;
    }
    c
}

/// Whether, with vectors of `vec` elements, each warp writes one contiguous run of
/// `vec · lanes` shared elements: the first `log2 vec` register bases and the lane bases of the
/// register → offset map `reg_to_shared` span exactly the low `log2(vec · lanes)` offset bits.
///
/// ```
/// use linear_layout::encodings::Encoding;
/// use linear_layout::heuristics::async_copy::writes_coalesced;
/// let src: Encoding = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>".parse()?;
/// let dst: Encoding = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>".parse()?;
/// let c = src.to_linear_layout(&[64, 64])?.invert_and_compose(&dst.to_linear_layout(&[64, 64])?)?;
/// assert!(writes_coalesced(&c, 8));
/// assert!(!writes_coalesced(&c, 2)); // lanes 8 elements apart
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn writes_coalesced(reg_to_shared: &LinearLayout, vec: u64) -> bool {
    if vec == 0 || !vec.is_power_of_two() {
        return false;
    }
    let Ok(oi) = reg_to_shared.out_dim_index("offset") else {
        return false;
    };
    let regs = reg_to_shared.bases("register").unwrap_or_default();
    let lanes = reg_to_shared.bases("lane").unwrap_or_default();
    let k = vec.trailing_zeros() as usize;
    if regs.len() < k {
        return false;
    }
    let vals: Vec<u64> = regs[..k].iter().chain(lanes.iter()).map(|b| b[oi]).collect();
    let bits = k + lanes.len();
    let limit = 1u64 << bits.min(63);
    if vals.iter().any(|&v| v >= limit) {
        return false;
    }
    gf2_rank(&vals) == bits
}

fn gf2_rank(vals: &[u64]) -> usize {
    let mut basis: Vec<u64> = Vec::new();
    for &v in vals {
        let mut x = v;
        for &b in &basis {
            x = x.min(x ^ b);
        }
        if x != 0 {
            basis.push(x);
            basis.sort_unstable_by(|a, b| b.cmp(a));
        }
    }
    basis.len()
}

/// The decision for one async copy.
///
/// ```
/// use linear_layout::heuristics::async_copy::CopyChoice;
/// fn _takes(_: &CopyChoice) {}
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyChoice {
    /// The source encoding after the pass.
    pub encoding: Encoding,
    /// Its layout at the source shape.
    pub layout: LinearLayout,
    /// The `contiguity` attribute set on the op (`None`: not rewritten, or 1).
    pub contiguity: Option<u64>,
    /// Whether the op was rewritten.
    pub rewritten: bool,
    /// Why, in words.
    pub reason: String,
}

/// What the async-copy rules need about one copy.
///
/// ```
/// use linear_layout::heuristics::async_copy::CopySpec;
/// fn _takes(_: &CopySpec) {}
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopySpec {
    /// Target name.
    pub arch: String,
    /// Source (pointer tensor) shape.
    pub shape: Vec<u64>,
    /// Source encoding.
    pub src: Encoding,
    /// Destination shared encoding.
    pub dst: Encoding,
    /// Destination allocation shape.
    pub alloc_shape: Vec<u64>,
    /// Element bits.
    pub elem_bits: u32,
    /// Pointer AxisInfo.
    pub ptr: AxisInfo,
    /// Mask AxisInfo, if masked.
    pub mask: Option<AxisInfo>,
    /// Warps.
    pub num_warps: u32,
    /// Lanes.
    pub lanes: u32,
}

fn unchanged(spec: &CopySpec, reason: String) -> Result<CopyChoice, HeuristicError> {
    let layout = spec
        .src
        .to_linear_layout(&spec.shape)
        .map_err(|e| HeuristicError::new(e.to_string()))?;
    Ok(CopyChoice {
        encoding: spec.src.clone(),
        layout,
        contiguity: None,
        rewritten: false,
        reason,
    })
}

/// Runs the async-copy coalescing rules on one copy.
///
/// ```
/// use linear_layout::ttgir::axisinfo::AxisInfo;
/// use linear_layout::heuristics::async_copy::{coalesce_copy, CopySpec};
/// let spec = CopySpec {
///     arch: "gfx942".into(), shape: vec![64, 64], alloc_shape: vec![64, 64], elem_bits: 16,
///     src: "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>".parse()?,
///     dst: "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>".parse()?,
///     ptr: AxisInfo { contiguity: vec![1, 64], divisibility: vec![16, 16], constancy: vec![1, 1], constant: None },
///     mask: None, num_warps: 4, lanes: 64,
/// };
/// let c = coalesce_copy(&spec)?;
/// assert_eq!(c.encoding.to_string(),
///     "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]}>");
/// assert_eq!(c.contiguity, Some(2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn coalesce_copy(spec: &CopySpec) -> Result<CopyChoice, HeuristicError> {
    if direct_to_lds_bits(&spec.arch).is_empty() {
        return unchanged(
            spec,
            format!(
                "{}: the pass only runs on {}",
                spec.arch,
                targets_with_direct_to_lds().join(" and ")
            ),
        );
    }
    let Encoding::Blocked(b) = &spec.src else {
        return unchanged(spec, "src encoding must be #blocked".into());
    };
    let d0 = *b.order.first().unwrap_or(&0) as usize;
    let eb = u64::from((spec.elem_bits / 8).max(1));
    let align = spec.ptr.alignment(d0, eb);
    let per_thread = u64::from(b.size_per_thread.get(d0).copied().unwrap_or(1))
        .min(spec.shape.get(d0).copied().unwrap_or(1));
    let mut contig = align.min(per_thread);
    let mut why = format!(
        "pointer alignment {align} × {}-bit along dim {d0}, {per_thread} per thread → {contig}",
        spec.elem_bits
    );
    if let Some(m) = &spec.mask {
        let mk = m.constancy.get(d0).copied().unwrap_or(1);
        if mk < contig {
            why.push_str(&format!("; mask constancy {mk}"));
        }
        contig = contig.min(mk);
    }
    let src_ll = spec
        .src
        .to_linear_layout(&spec.shape)
        .map_err(|e| HeuristicError::new(e.to_string()))?;
    let shared_ll = match &spec.dst {
        Encoding::SwizzledShared(_) | Encoding::PaddedShared(_) => spec
            .dst
            .to_linear_layout(&spec.alloc_shape)
            .map_err(|e| HeuristicError::new(e.to_string()))?,
        _ => {
            return unchanged(
                spec,
                "dst encoding must be #swizzled_shared or #padded_shared".into(),
            );
        }
    };
    let reg_to_shared = src_ll
        .invert_and_compose(&shared_ll)
        .map_err(|e| HeuristicError::new(format!("register → shared: {e}")))?;
    let c = reg_to_shared.num_consecutive_in_out();
    if c < contig {
        why.push_str(&format!("; register → shared moves {c} consecutive"));
    }
    contig = contig.min(c);
    let fitted = fit_to_valid_width(contig, spec.elem_bits, &spec.arch);
    if fitted != contig {
        why.push_str(&format!(
            "; {} bits is no direct-to-LDS width on {} → {fitted}",
            contig * u64::from(spec.elem_bits),
            spec.arch
        ));
    }
    if fitted == 0 {
        return unchanged(spec, format!("{why}: no supported vector size, left alone"));
    }
    if writes_coalesced(&reg_to_shared, fitted) {
        return unchanged(spec, format!("{why}: already writes coalesced"));
    }
    let (encoding, layout) = match &spec.dst {
        Encoding::PaddedShared(_) => {
            let offs = shared_ll
                .bases("offset")
                .map_err(|e| HeuristicError::new(e.to_string()))?;
            let (kr, kl, kw) = (
                fitted.trailing_zeros() as usize,
                spec.lanes.trailing_zeros() as usize,
                spec.num_warps.trailing_zeros() as usize,
            );
            if offs.len() < kr + kl {
                return unchanged(spec, format!("{why}: padded layout too small for a warp"));
            }
            let cv = |v: &Vec<u64>| v.iter().map(|&x| x as u32).collect::<Vec<u32>>();
            let rank = spec.shape.len();
            let mut register: Vec<Vec<u32>> = offs[..kr].iter().map(cv).collect();
            let lane: Vec<Vec<u32>> = offs[kr..kr + kl].iter().map(cv).collect();
            let mut warp: Vec<Vec<u32>> = offs[kr + kl..].iter().take(kw).map(cv).collect();
            while warp.len() < kw {
                warp.push(vec![0; rank]);
            }
            register.extend(offs.iter().skip(kr + kl + kw).map(cv));
            let e = Encoding::Linear(Linear {
                register,
                lane,
                warp,
                block: vec![],
                shape: None,
            });
            let l = e
                .to_linear_layout(&spec.shape)
                .map_err(|e| HeuristicError::new(e.to_string()))?;
            why.push_str(&format!(
                "; padded destination: linear layout from its offset bases, {fitted} per thread"
            ));
            (e, l)
        }
        _ => {
            let mut spt: Vec<u32> = b
                .size_per_thread
                .iter()
                .zip(&spec.shape)
                .map(|(&s, &n)| s.min(n.min(u64::from(u32::MAX)) as u32))
                .collect();
            spt[d0] = fitted as u32;
            let nb: Blocked = blocked_for(
                &spec.shape,
                &spt,
                &b.order,
                spec.num_warps,
                spec.lanes,
                b.cga_layout.clone(),
            );
            let e = Encoding::Blocked(nb);
            let l = e
                .to_linear_layout(&spec.shape)
                .map_err(|e| HeuristicError::new(e.to_string()))?;
            why.push_str(&format!("; rewritten to {fitted} per thread"));
            (e, l)
        }
    };
    if encoding == spec.src {
        return unchanged(spec, format!("{why}: same encoding"));
    }
    Ok(CopyChoice {
        encoding,
        layout,
        contiguity: (fitted > 1).then_some(fitted),
        rewritten: true,
        reason: why,
    })
}

/// One async copy of a module with its decision.
///
/// ```
/// use linear_layout::heuristics::async_copy::CopyDecision;
/// fn _takes(_: &CopyDecision) {}
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyDecision {
    /// Index of the op in [`Module::ops`].
    pub op: usize,
    /// 1-based line.
    pub line: usize,
    /// Position among the async copies.
    pub index: usize,
    /// The decision.
    pub choice: CopyChoice,
}

/// Runs the async-copy coalescing over every `ttg.async_copy_global_to_local` of a module.
///
/// ```
/// use linear_layout::heuristics::{async_copy::coalesce_copies, ttgir::Module};
/// let m = Module::parse("module {\n tt.func @f() {\n tt.return\n }\n}")?;
/// assert!(coalesce_copies(&m, "gfx950")?.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn coalesce_copies(m: &Module, arch: &str) -> Result<Decisions<CopyDecision>, HeuristicError> {
    let axis = crate::ttgir::axisinfo::analyze(m)?;
    let mut out = Vec::new();
    for oi in super::coalesce::walk_order(m) {
        let op = &m.ops[oi];
        if op.name != "ttg.async_copy_global_to_local" {
            continue;
        }
        let err = |s: &str| HeuristicError::new(format!("line {}: {}: {s}", op.line, op.name));
        let (Some(&pv), Some(&dv)) = (op.operands.first(), op.operands.get(1)) else {
            return Err(err("expected a pointer and a destination"));
        };
        let pt = &m.values[pv].ty;
        let dt = &m.values[dv].ty;
        if pt.kind != TypeKind::Tensor || dt.kind != TypeKind::MemDesc {
            return Err(err("expected a tensor of pointers and a memdesc"));
        }
        let (Some(src), Some(dst)) = (pt.encoding.as_deref().cloned(), dt.encoding.as_deref().cloned())
        else {
            return Err(err("source and destination need encodings"));
        };
        let spec = CopySpec {
            arch: arch.to_string(),
            shape: pt.shape.clone(),
            src,
            dst,
            alloc_shape: dt.shape.clone(),
            elem_bits: pt.pointee_bits().unwrap_or(32),
            ptr: axis
                .get(pv)
                .cloned()
                .flatten()
                .unwrap_or_else(|| AxisInfo::pessimistic(pt.rank())),
            mask: op
                .mask
                .and_then(|k| op.operands.get(k))
                .and_then(|&v| axis.get(v).cloned().flatten()),
            num_warps: m.num_warps,
            lanes: m.threads_per_warp,
        };
        let choice = coalesce_copy(&spec).map_err(|e| err(&e.message))?;
        out.push(CopyDecision {
            op: oi,
            line: op.line,
            index: out.len(),
            choice,
        });
    }
    Ok(Decisions {
        decided: out,
        undecided: Vec::new(),
    })
}
