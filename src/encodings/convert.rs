//! Encoding → [`LinearLayout`], following Triton 3.6's `toLinearLayout` step by step (the
//! common encodings take the one-pass route of [`super::direct`] first).

use crate::linear::{DimName, LinearLayout, identity_standard_nd, reshape_layout, transpose_linear_layout};

use super::error::EncodingError;
use super::types::*;

type R<T> = Result<T, EncodingError>;

const REG: &str = "register";
const LANE: &str = "lane";
const WARP: &str = "warp";
const BLOCK: &str = "block";
const OFFSET: &str = "offset";

fn dim(k: usize) -> DimName {
    DimName::dim(k)
}

#[inline]
fn id(n: u64, i: impl Into<DimName>, o: impl Into<DimName>) -> R<LinearLayout> {
    Ok(LinearLayout::identity_1d(n, i, o)?)
}

#[inline]
fn zeros(n: u64, i: impl Into<DimName>, o: impl Into<DimName>) -> R<LinearLayout> {
    Ok(LinearLayout::zeros_1d(n, i, o, 1)?)
}

#[inline]
fn mul(a: LinearLayout, b: LinearLayout) -> R<LinearLayout> {
    Ok(a.product(&b)?)
}

#[inline]
fn id_nd(i: &str, sizes: &[u64], order: &[usize]) -> R<LinearLayout> {
    Ok(identity_standard_nd(i, sizes, order)?)
}

#[inline]
fn transpose(l: &LinearLayout, names: &[DimName]) -> R<LinearLayout> {
    Ok(l.transpose_outs(names)?)
}

fn std_names(rank: usize) -> Vec<DimName> {
    (0..rank).map(dim).collect()
}

fn out_names(l: &LinearLayout) -> Vec<DimName> {
    l.out_dim_names().copied().collect()
}

/// `getMatrixOrder(rank, rowMajor)`.
fn matrix_order(rank: usize, row_major: bool) -> Vec<usize> {
    let mut o: Vec<usize> = (0..rank).rev().collect();
    if rank >= 2 && !row_major {
        o.swap(0, 1);
    }
    o
}

/// `getOrderForDotOperand(opIdx, rank, kContig = true)`.
fn dot_order(op_idx: u32, rank: usize) -> Vec<usize> {
    matrix_order(rank, op_idx == 0)
}

fn u(v: &[u32]) -> Vec<u64> {
    v.iter().map(|&x| x as u64).collect()
}

fn us(v: &[u32]) -> Vec<usize> {
    v.iter().map(|&x| x as usize).collect()
}

/// A layout's bases packed one integer each (as [`LinearLayout::flat_bases`] gives them), for
/// the edits Triton makes basis by basis before rebuilding a layout.
struct Packed {
    ins: Vec<(DimName, Vec<u64>)>,
    /// Per out-dim: name, bits, and shift of its field in a packed basis.
    outs: Vec<(DimName, u32, u32)>,
}

impl Packed {
    fn of(l: &LinearLayout) -> R<Packed> {
        let mut ins = Vec::with_capacity(l.num_in_dims());
        for name in l.in_dim_names() {
            ins.push((*name, l.flat_bases(name)?.to_vec()));
        }
        let mut shift = 0;
        let outs = l
            .out_dims()
            .map(|(name, size)| {
                let bits = size.trailing_zeros();
                let entry = (*name, bits, shift);
                shift += bits;
                entry
            })
            .collect();
        Ok(Packed { ins, outs })
    }

    fn mask(bits: u32) -> u64 {
        1u64.checked_shl(bits).map_or(u64::MAX, |m| m - 1)
    }

    fn component(&self, basis: u64, o: usize) -> u64 {
        let (_, bits, shift) = self.outs[o];
        basis.checked_shr(shift).unwrap_or(0) & Self::mask(bits)
    }

    fn clear(&self, basis: &mut u64, o: usize) {
        let (_, bits, shift) = self.outs[o];
        *basis &= !Self::mask(bits).checked_shl(shift).unwrap_or(0);
    }

    /// Drops the all-zero bases of `in_dim`.
    fn drop_zero_bases(&mut self, in_dim: &str) {
        if let Some((_, bs)) = self.ins.iter_mut().find(|(n, _)| n == in_dim) {
            bs.retain(|&b| b != 0);
        }
    }

    /// Rebuilds the layout with each out-dim shrunk to the smallest power of two above all
    /// its components, as Triton's size-inferring constructor does (which also requires the
    /// result to be surjective).
    fn into_inferred(self) -> R<LinearLayout> {
        let new_bits: Vec<u32> = (0..self.outs.len())
            .map(|o| {
                let max = self
                    .ins
                    .iter()
                    .flat_map(|(_, bs)| bs)
                    .map(|&b| self.component(b, o))
                    .max();
                64 - max.unwrap_or(0).leading_zeros()
            })
            .collect();
        let repack = |b: u64| {
            let mut shift = 0;
            let mut v = 0u64;
            for (o, &bits) in new_bits.iter().enumerate() {
                v |= self.component(b, o).checked_shl(shift).unwrap_or(0);
                shift += bits;
            }
            v
        };
        let ins: Vec<(DimName, Vec<u64>)> = self
            .ins
            .iter()
            .map(|(n, bs)| (*n, bs.iter().map(|&b| repack(b)).collect()))
            .collect();
        let outs = self
            .outs
            .iter()
            .zip(&new_bits)
            .map(|(&(name, _, _), &bits)| (name, 1u64 << bits.min(63)));
        Ok(LinearLayout::from_flat_bases(ins, outs, true)?)
    }
}

/// Triton 3.6's `ensureLayoutNotLargerThan`: for each out-dim that is too large, zero its
/// largest coordinates one at a time (registers are removed instead when
/// `broadcast_registers` is false), then rebuild with inferred sizes (which must be
/// surjective, or Triton aborts with "Invalid basis").
fn ensure_not_larger(
    l: &LinearLayout,
    shape: &[(DimName, u64)],
    broadcast_registers: bool,
) -> R<LinearLayout> {
    // Nothing to shrink: Triton still rebuilds with inferred sizes, which changes nothing for
    // a surjective layout (every out-dim's top bit is reached) and rejects any other.
    let fits = l.out_dims().all(|(name, size)| {
        shape
            .iter()
            .find(|(n, _)| name == n.as_str())
            .is_some_and(|&(_, want)| size <= want)
    });
    if fits && l.is_surjective() {
        return Ok(l.clone());
    }
    let mut packed = Packed::of(l)?;
    let mut removed_regs: Vec<usize> = Vec::new();
    for o in 0..packed.outs.len() {
        let (name, bits, _) = packed.outs[o];
        let desired = shape
            .iter()
            .find(|(n, _)| name == n.as_str())
            .map(|(_, s)| *s)
            .ok_or(EncodingError::Layout(crate::linear::LayoutError::DimNotFound {
                dim: name,
                side: "shape",
            }))?;
        let mut actual = 1u64 << bits;
        if actual <= desired {
            continue;
        }
        // Every non-zero coordinate along this dim, largest first (ties in basis order).
        let mut sorted: Vec<(usize, usize, u64)> = Vec::new();
        for (k, (_, bs)) in packed.ins.iter().enumerate() {
            for (j, &b) in bs.iter().enumerate() {
                let v = packed.component(b, o);
                if v == 0 {
                    continue;
                }
                if !v.is_power_of_two() {
                    return Err(EncodingError::Layout(crate::linear::LayoutError::Precondition {
                        op: "ensure_layout_not_larger_than",
                        detail: format!("basis component {v} along '{name}' is not a power of two"),
                    }));
                }
                sorted.push((k, j, v));
            }
        }
        sorted.sort_by_key(|x| std::cmp::Reverse(x.2));
        for (k, j, _) in sorted {
            if actual <= desired {
                break;
            }
            if !broadcast_registers && packed.ins[k].0 == REG {
                removed_regs.push(j);
            } else {
                let mut b = packed.ins[k].1[j];
                packed.clear(&mut b, o);
                packed.ins[k].1[j] = b;
            }
            actual >>= 1;
        }
    }
    if !broadcast_registers && let Some((_, regs)) = packed.ins.iter_mut().find(|(n, _)| n == REG) {
        let mut j = 0;
        regs.retain(|_| {
            let keep = !removed_regs.contains(&j);
            j += 1;
            keep
        });
    }
    packed.into_inferred()
}

fn ensure_not_smaller(l: &LinearLayout, shape: &[(DimName, u64)]) -> R<LinearLayout> {
    Ok(crate::linear::ensure_layout_not_smaller_than(l, shape)?)
}

fn named(names: &[DimName], sizes: &[u64]) -> Vec<(DimName, u64)> {
    names.iter().cloned().zip(sizes.iter().copied()).collect()
}

/// The CGA (block) layout: `block` bases onto `dim0…`, sizes inferred (must be surjective).
fn cga_layout(kind: &'static str, cga: &[Vec<u32>], rank: usize) -> R<LinearLayout> {
    if cga.is_empty() {
        // One CTA: a size-1 block dim over size-1 tensor dims.
        let outs = std_names(rank).into_iter().map(|n| (n, 1u64));
        return Ok(LinearLayout::from_flat_bases(
            [(BLOCK, [0u64; 0].as_slice())],
            outs,
            true,
        )?);
    }
    let bases: Vec<Vec<i64>> = cga
        .iter()
        .map(|b| b.iter().map(|&v| v as i64).collect())
        .collect();
    LinearLayout::from_bases_inferred([(BLOCK, bases)], std_names(rank)).map_err(|e| {
        EncodingError::param(
            kind,
            "CGALayout",
            format!("the CTA layout must be surjective onto its split: {e}"),
        )
    })
}

/// `CTASplitNum`: per dim, 2^(number of non-zero block bases along it).
fn cta_split(cga: &[Vec<u32>], rank: usize) -> Vec<u64> {
    let mut ret = vec![1u64; rank];
    for b in cga {
        if let Some(i) = b.iter().position(|&v| v != 0) {
            ret[i] = ret[i].saturating_mul(2);
        }
    }
    ret
}

/// `getShapePerCTA`.
fn shape_per_cta(cga: &[Vec<u32>], shape: &[u64]) -> Vec<u64> {
    let split = cta_split(cga, shape.len());
    shape
        .iter()
        .zip(split)
        .map(|(&s, p)| s / s.min(p).max(1))
        .collect()
}

/// `combineCtaCgaWithShape`.
fn combine(kind: &'static str, cta: LinearLayout, cga: &[Vec<u32>], shape: &[u64]) -> R<LinearLayout> {
    let rank = shape.len();
    if cta.num_out_dims() != rank {
        return Err(EncodingError::shape(
            kind,
            format!(
                "the layout has rank {} but the shape {shape:?} has rank {rank}",
                cta.num_out_dims()
            ),
        ));
    }
    let names = std_names(rank);
    let labeled = named(&names, shape);
    let cga_ll = cga_layout(kind, cga, rank)?;
    let cga_ll = ensure_not_larger(&cga_ll, &labeled, true)?;
    let cta_order = out_names(&cta);
    let cga_ll = transpose(&cga_ll, &cta_order)?;
    let mut cta_shape = Vec::with_capacity(rank);
    for n in &cta_order {
        let full = labeled.iter().find(|(m, _)| m == n).map(|(_, s)| *s).unwrap_or(1);
        let c = cga_ll.out_dim_size(n)?;
        cta_shape.push((*n, (full / c).max(1)));
    }
    let cta = ensure_not_smaller(&cta, &cta_shape)?;
    let cta = ensure_not_larger(&cta, &cta_shape, true)?;
    let ret = mul(cta, cga_ll)?;
    let ret = transpose(&ret, &names)?;
    for (n, s) in &labeled {
        if ret.out_dim_size(n)? != *s {
            return Err(EncodingError::shape(
                kind,
                format!(
                    "the layout covers {} elements of {n}, not {s}",
                    ret.out_dim_size(n)?
                ),
            ));
        }
    }
    Ok(ret)
}

fn check_shape(kind: &'static str, shape: &[u64], rank: Option<usize>) -> R<()> {
    check_shape_values(kind, shape)?;
    if let Some(r) = rank
        && r != shape.len()
    {
        return Err(EncodingError::shape(
            kind,
            format!(
                "the encoding has rank {r} but the shape {shape:?} has rank {}",
                shape.len()
            ),
        ));
    }
    Ok(())
}

impl Encoding {
    /// The linear layout of a tensor of `shape` in this encoding, exactly as Triton 3.6's
    /// `toLinearLayout(shape, attr)` computes it (for `padded_shared`: its linear component).
    ///
    /// Distributed encodings map `register, lane, warp, block` to `dim0…`; shared encodings map
    /// `offset, block`. The encoding is validated first; shapes must be powers of two with at
    /// most 2^30 elements.
    ///
    /// ```
    /// use linear_layout::encodings::Encoding;
    /// let e: Encoding = "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>".parse()?;
    /// let l = e.to_linear_layout(&[16])?; // smaller than the 512-element tile: broadcast
    /// assert_eq!(l.bases("lane")?, vec![vec![4], vec![8], vec![0], vec![0], vec![0]]);
    /// assert!(e.to_linear_layout(&[12]).is_err());
    /// # Ok::<(), linear_layout::encodings::EncodingError>(())
    /// ```
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout, EncodingError> {
        self.validate()?;
        match super::direct::convert(self, shape) {
            Some(layout) => Ok(layout),
            None => self.reference(shape),
        }
    }

    /// The layout built as Triton builds it, step by step: what every encoding falls back to
    /// and what [`super::direct`] is checked against.
    pub(super) fn reference(&self, shape: &[u64]) -> R<LinearLayout> {
        let kind = self.kind();
        match self {
            Encoding::Blocked(b) => {
                check_shape(kind, shape, self.rank())?;
                let order = us(&b.order);
                let cta = mul(
                    mul(
                        id_nd(REG, &u(&b.size_per_thread), &order)?,
                        id_nd(LANE, &u(&b.threads_per_warp), &order)?,
                    )?,
                    id_nd(WARP, &u(&b.warps_per_cta), &order)?,
                )?;
                combine(kind, cta, &b.cga_layout, shape)
            }
            Encoding::Slice(s) => {
                check_shape(kind, shape, self.rank())?;
                let d = s.dim as usize;
                let mut pshape = shape.to_vec();
                pshape.insert(d, 1);
                let p = s.parent.reference(&pshape)?;
                let sliced = crate::linear::remove_standard_dim(&p, d)?;
                let mut packed = Packed::of(&sliced)?;
                packed.drop_zero_bases(REG);
                packed.into_inferred()
            }
            Encoding::AmdMfma(m) => mfma(m, shape),
            Encoding::AmdWmma(w) => wmma(w, shape),
            Encoding::NvidiaMma(m) => nvidia_mma(m, shape),
            Encoding::DotOperand(d) => {
                check_shape(kind, shape, self.rank())?;
                match d.parent.as_ref() {
                    Encoding::Blocked(b) => fma_dot(d, b, shape),
                    Encoding::NvidiaMma(m) => nvidia_dot(d, m, shape),
                    Encoding::AmdMfma(m) => mfma_dot(d, m, shape),
                    Encoding::AmdWmma(w) => wmma_dot(d, w, shape),
                    other => Err(EncodingError::param(
                        kind,
                        "parent",
                        format!("unsupported parent {}", other.kind()),
                    )),
                }
            }
            Encoding::Linear(l) => linear(l, shape),
            Encoding::SwizzledShared(s) => swizzled(kind, s, shape, false),
            Encoding::AmdRotatingShared(s) => swizzled(kind, s, shape, true),
            Encoding::NvmmaShared(n) => nvmma_shared(n, shape),
            Encoding::PaddedShared(p) => padded_component(p, shape),
            Encoding::SharedLinear(s) => {
                check_shape(kind, shape, self.rank())?;
                let l = shared_linear_layout(s)?;
                for (k, &sz) in shape.iter().enumerate() {
                    if l.out_dim_size(&dim(k))? != sz {
                        return Err(EncodingError::shape(
                            kind,
                            format!(
                                "shared_linear layouts do not broadcast: shape {shape:?} differs from the layout's"
                            ),
                        ));
                    }
                }
                Ok(l)
            }
        }
    }
}

fn to_i64(bs: &[Vec<u32>]) -> Vec<Vec<i64>> {
    bs.iter().map(|b| b.iter().map(|&v| v as i64).collect()).collect()
}

fn shared_linear_layout(s: &SharedLinear) -> R<LinearLayout> {
    const K: &str = "shared_linear";
    let rank = s.offset.first().or(s.block.first()).map_or(0, |b| b.len());
    let l = LinearLayout::from_bases_inferred(
        [(OFFSET, to_i64(&s.offset)), (BLOCK, to_i64(&s.block))],
        std_names(rank),
    )
    .map_err(|e| EncodingError::param(K, "offsetBases", format!("The layout must be surjective: {e}")))?;
    let wb = l
        .remove_zero_bases_along_dim(OFFSET)?
        .remove_zero_bases_along_dim(BLOCK)?;
    if !wb.is_invertible() {
        return Err(EncodingError::param(
            K,
            "offsetBases",
            "After removing the zero bases the layout must be bijective",
        ));
    }
    Ok(l)
}

fn linear(l: &Linear, shape: &[u64]) -> R<LinearLayout> {
    const K: &str = "linear";
    let rank = l.shape.as_ref().map(|s| s.len()).or_else(|| {
        [&l.register, &l.lane, &l.warp, &l.block]
            .iter()
            .find_map(|v| v.first().map(|b| b.len()))
    });
    check_shape(K, shape, rank)?;
    let rank = shape.len();
    let names = std_names(rank);
    let bases = [
        (REG, to_i64(&l.register)),
        (LANE, to_i64(&l.lane)),
        (WARP, to_i64(&l.warp)),
        (BLOCK, to_i64(&l.block)),
    ];
    let ll = match &l.shape {
        Some(s) => {
            check_shape_values(K, s)?;
            LinearLayout::from_bases(
                bases,
                names.iter().cloned().zip(s.iter().map(|&v| v as i64)),
                true,
            )
        }
        // The JSON form without a shape: the layout is built on the tensor's shape.
        None => LinearLayout::from_bases(
            bases,
            names.iter().cloned().zip(shape.iter().map(|&v| v as i64)),
            true,
        ),
    }
    .map_err(|e| EncodingError::param(K, "registerBases", format!("invalid bases: {e}")))?;
    // getOrder(): the dims in the order the register bases first move along them, then the
    // rest from the default order [rank-1, …, 0].
    let mut order: Vec<usize> = Vec::new();
    for b in &l.register {
        if let Some(i) = b.iter().position(|&v| v != 0)
            && !order.contains(&i)
        {
            order.push(i);
        }
    }
    for i in (0..rank).rev() {
        if !order.contains(&i) {
            order.push(i);
        }
    }
    let permuted: Vec<DimName> = order.iter().map(|&d| dim(d)).collect();
    let target: Vec<(DimName, u64)> = order.iter().map(|&d| (dim(d), shape[d])).collect();
    let ll = transpose(&ll, &permuted)?;
    let ll = ensure_not_smaller(&ll, &target)?;
    let ll = ensure_not_larger(&ll, &target, false)?;
    transpose(&ll, &names)
}

fn mfma(m: &AmdMfma, shape: &[u64]) -> R<LinearLayout> {
    const K: &str = "amd_mfma";
    let rank = m.warps_per_cta.len();
    check_shape(K, shape, Some(rank))?;
    let batch = rank == 3;
    let (mi, ni) = (batch as usize, 1 + batch as usize);
    let (dm, dn) = (dim(mi), dim(ni));
    let (md, nd) = (m.instr_shape[0] as u64, m.instr_shape[1] as u64);
    if md == 64 && nd == 4 && !m.is_transposed {
        return Err(EncodingError::param(
            K,
            "isTransposed",
            "64x4 mfma must be transposed",
        ));
    }
    let h: u64 = if m.element_bit_width == 64 { 1 } else { 4 };
    const WS: u64 = 64;
    let tiles = md * nd / (WS * h);
    let mut tile = if !m.is_transposed {
        let t = mul(id(h, REG, dm)?, mul(id(nd, LANE, dn)?, id(WS / nd, LANE, dm)?)?)?;
        if tiles > 0 {
            mul(t, id(tiles, REG, dm)?)?
        } else {
            t
        }
    } else {
        let t = mul(id(h, REG, dn)?, mul(id(md, LANE, dm)?, id(WS / md, LANE, dn)?)?)?;
        if tiles > 0 {
            mul(t, id(tiles, REG, dn)?)?
        } else {
            t
        }
    };
    tile = transpose(&tile, &[dn, dm])?;
    let tpw = u(&m.tiles_per_warp);
    let wpc = u(&m.warps_per_cta);
    tile = mul(tile, id(tpw[ni], REG, dn)?)?;
    tile = mul(tile, id(wpc[ni], WARP, dn)?)?;
    tile = mul(
        tile,
        id(
            shape[ni] / nd.saturating_mul(wpc[ni]).saturating_mul(tpw[ni]),
            REG,
            dn,
        )?,
    )?;
    tile = mul(tile, id(tpw[mi], REG, dm)?)?;
    tile = mul(tile, id(wpc[mi], WARP, dm)?)?;
    if batch {
        tile = mul(tile, id(1, REG, "dim0")?)?;
        tile = mul(tile, id(1, LANE, "dim0")?)?;
        tile = mul(tile, id(wpc[0], WARP, "dim0")?)?;
    }
    combine(K, tile, &m.cga_layout, shape)
}

fn wmma_tile(w: &AmdWmma, rank: usize) -> R<LinearLayout> {
    let batch = rank == 3;
    let thread_order = matrix_order(rank, !w.is_transposed);
    let a = dim(thread_order[0]);
    let b = dim(thread_order[1]);
    let (regs, lanes): (Vec<Vec<i64>>, Vec<Vec<i64>>) = if w.version == 1 {
        (
            vec![vec![0, 2], vec![0, 4], vec![0, 8]],
            vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, 1]],
        )
    } else {
        (
            vec![vec![0, 1], vec![0, 2], vec![0, 4]],
            vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![0, 8]],
        )
    };
    let mut t = LinearLayout::from_bases_inferred([(REG, regs), (LANE, lanes)], [a, b])?;
    if batch {
        t = mul(t, id(1, REG, "dim0")?)?;
        t = mul(t, id(1, LANE, "dim0")?)?;
    }
    transpose(&t, &std_names(rank))
}

fn wmma(w: &AmdWmma, shape: &[u64]) -> R<LinearLayout> {
    const K: &str = "amd_wmma";
    let rank = w.warps_per_cta.len();
    check_shape(K, shape, Some(rank))?;
    let batch = rank == 3;
    let (mi, ni) = (batch as usize, 1 + batch as usize);
    let (md, nd) = (w.instr_shape[0] as u64, w.instr_shape[1] as u64);
    if !((shape[mi] == 1 || shape[mi] >= md) && (shape[ni] == 1 || shape[ni] >= nd)) {
        return Err(EncodingError::shape(
            K,
            format!(
                "Unsupported tensor shape {shape:?} for given wmma layout: M and N extents must be 1 or at least 16"
            ),
        ));
    }
    let (dm, dn) = (dim(mi), dim(ni));
    let tpw = u(&w.tiles_per_warp);
    let wpc = u(&w.warps_per_cta);
    let mut t = wmma_tile(w, rank)?;
    t = mul(t, id(tpw[ni], REG, dn)?)?;
    t = mul(t, id(wpc[ni], WARP, dn)?)?;
    t = mul(
        t,
        id(
            shape[ni] / 16u64.saturating_mul(wpc[ni]).saturating_mul(tpw[ni]),
            REG,
            dn,
        )?,
    )?;
    t = mul(t, id(tpw[mi], REG, dm)?)?;
    t = mul(t, id(wpc[mi], WARP, dm)?)?;
    if batch {
        t = mul(t, id(wpc[0], WARP, "dim0")?)?;
    }
    let rep: Vec<DimName> = matrix_order(rank, true).into_iter().map(dim).collect();
    let t = transpose(&t, &rep)?;
    combine(K, t, &w.cga_layout, shape)
}

/// `nvidiaMmaTile`.
fn nvidia_mma_tile(
    kind: &'static str,
    tile: &[u64],
    k_width: u64,
    order: &[usize],
    rep_order: &[usize],
) -> R<LinearLayout> {
    let rank = rep_order.len();
    let cta = id_nd(REG, &vec![1; rank], rep_order)?;
    let (inner, outer) = (order[0], order[1]);
    let (m, n) = (tile[outer], tile[inner]);
    if m % 8 != 0 || n % (k_width * 4) != 0 {
        return Err(EncodingError::param(
            kind,
            "instrShape",
            format!(
                "the mma tile {tile:?} must be a multiple of 8 x (4 * kWidth = {})",
                k_width * 4
            ),
        ));
    }
    let (di, dout) = (dim(inner), dim(outer));
    let mut l = mul(cta, id(k_width, REG, di)?)?;
    l = mul(l, id(4, LANE, di)?)?;
    l = mul(l, id(8, LANE, dout)?)?;
    l = mul(l, id(m / 8, REG, dout)?)?;
    mul(l, id(n / (k_width * 4), REG, di)?)
}

fn nvidia_mma(m: &NvidiaMma, shape: &[u64]) -> R<LinearLayout> {
    const K: &str = "nvidia_mma";
    let rank = m.warps_per_cta.len();
    check_shape(K, shape, Some(rank))?;
    let hopper = match m.version_major {
        2 => false,
        3 => true,
        v => {
            return Err(EncodingError::param(
                K,
                "versionMajor",
                format!("only 2 (Ampere) and 3 (Hopper) have linear layouts, got {v}"),
            ));
        }
    };
    let tile: Vec<u64> = if hopper {
        if m.instr_shape.len() < 2 || rank != 2 {
            return Err(EncodingError::param(
                K,
                "instrShape",
                "Hopper mma needs rank 2 and instrShape [M, N, K]",
            ));
        }
        vec![m.instr_shape[0] as u64, m.instr_shape[1] as u64]
    } else {
        if m.instr_shape.len() != rank {
            return Err(EncodingError::param(
                K,
                "instrShape",
                format!(
                    "Ampere instrShape must have {rank} entries, got {:?}",
                    m.instr_shape
                ),
            ));
        }
        u(&m.instr_shape)
    };
    let order = matrix_order(rank, true);
    let mut cta = nvidia_mma_tile(K, &tile, 2, &order, &order)?;
    let warps = id_nd(WARP, &u(&m.warps_per_cta), &matrix_order(rank, !hopper))?;
    let warps = transpose(&warps, &out_names(&cta))?;
    cta = mul(cta, warps)?;
    combine(K, cta, &m.cga_layout, shape)
}

/// `broadcastedDotOperandLayout`: identity per dim in `order`, zeros along `k_dim`.
fn broadcasted(sizes: &[u64], order: &[usize], k_dim: usize, in_dim: &str) -> R<LinearLayout> {
    let mut l = LinearLayout::empty();
    for &d in order {
        let f = if d == k_dim {
            zeros(sizes[d], in_dim, dim(d))?
        } else {
            id(sizes[d], in_dim, dim(d))?
        };
        l = mul(l, f)?;
    }
    Ok(l)
}

fn fma_dot(d: &DotOperand, b: &Blocked, shape: &[u64]) -> R<LinearLayout> {
    const K: &str = "dot_operand";
    let rank = shape.len();
    let order = us(&b.order);
    let k_dim = if d.op_idx == 0 { rank - 1 } else { rank - 2 };
    let mut thread_size = u(&b.size_per_thread);
    thread_size[k_dim] = shape[k_dim];
    let rep: Vec<DimName> = order.iter().map(|&o| dim(o)).collect();
    let regs = transpose(&id_nd(REG, &thread_size, &order)?, &rep)?;
    let lanes = transpose(&broadcasted(&u(&b.threads_per_warp), &order, k_dim, LANE)?, &rep)?;
    let warps = transpose(&broadcasted(&u(&b.warps_per_cta), &order, k_dim, WARP)?, &rep)?;
    let cta = mul(mul(regs, lanes)?, warps)?;
    combine(K, cta, &b.cga_layout, shape)
}

fn nvidia_dot(d: &DotOperand, m: &NvidiaMma, shape: &[u64]) -> R<LinearLayout> {
    const K: &str = "dot_operand";
    let rank = shape.len();
    if rank < 2 {
        return Err(EncodingError::shape(K, "dot operands have rank 2 or 3"));
    }
    let kw = d.k_width as u64;
    let is_a = d.op_idx == 0;
    let hopper = match m.version_major {
        2 => false,
        3 => true,
        v => {
            return Err(EncodingError::param(
                "nvidia_mma",
                "versionMajor",
                format!("only 2 (Ampere) and 3 (Hopper) have linear layouts, got {v}"),
            ));
        }
    };
    let mut tile = vec![1u64; rank];
    if is_a {
        tile[rank - 2] = 16;
        tile[rank - 1] = kw * 8;
    } else {
        tile[rank - 2] = kw * 8;
        tile[rank - 1] = 8;
    }
    let order = dot_order(d.op_idx, rank);
    let mut cta = nvidia_mma_tile(K, &tile, kw, &order, &order)?;
    let k_dim = if is_a { rank - 1 } else { rank - 2 };
    let warps = broadcasted(&u(&m.warps_per_cta), &matrix_order(rank, !hopper), k_dim, WARP)?;
    let warps = transpose(&warps, &out_names(&cta))?;
    cta = mul(cta, warps)?;
    combine(K, cta, &m.cga_layout, shape)
}

fn mfma_dot(d: &DotOperand, m: &AmdMfma, shape: &[u64]) -> R<LinearLayout> {
    const K: &str = "dot_operand";
    let rank = shape.len();
    let batch = rank == 3;
    let kw = d.k_width as u64;
    let non_k_idx = if d.op_idx == 0 { rank - 2 } else { rank - 1 };
    let k_idx = if d.op_idx == 0 { rank - 1 } else { rank - 2 };
    let (md, nd) = (m.instr_shape[0] as u64, m.instr_shape[1] as u64);
    let non_k = if d.op_idx == 0 { md } else { nd };
    const WS: u64 = 64;
    let k_size = shape[k_idx];
    let order = dot_order(d.op_idx, rank);
    let (dk, dnk) = (dim(order[0]), dim(order[1]));
    let mut tile = mul(
        id(kw, REG, dk)?,
        mul(id(non_k, LANE, dnk)?, id(WS / non_k, LANE, dk)?)?,
    )?;
    let mut k_tile = WS / non_k * kw;
    if (md == 64 && nd == 4 && d.op_idx == 0) || (md == 4 && nd == 64 && d.op_idx == 1) {
        tile = mul(tile, id(16, REG, dk)?)?;
        k_tile *= 16;
    }
    if k_size > k_tile {
        tile = mul(tile, id(k_size / k_tile, REG, dk)?)?;
    }
    tile = mul(tile, id(m.tiles_per_warp[non_k_idx] as u64, REG, dnk)?)?;
    tile = transpose(&tile, &[dk, dnk])?;
    if batch {
        tile = mul(tile, id(1, REG, "dim0")?)?;
        tile = mul(tile, id(1, LANE, "dim0")?)?;
    }
    let warps = id_nd(WARP, &u(&m.warps_per_cta), &matrix_order(rank, true))?;
    let cta = mul(tile, warps)?;
    combine(K, cta, &m.cga_layout, shape)
}

fn wmma_dot(d: &DotOperand, w: &AmdWmma, shape: &[u64]) -> R<LinearLayout> {
    const K: &str = "dot_operand";
    let rank = shape.len();
    let order = dot_order(d.op_idx, rank);
    let (dk, dnk) = (dim(order[0]), dim(order[1]));
    let k_instr = w.instr_shape[2] as u64;
    let k_idx = if d.op_idx == 0 { rank - 1 } else { rank - 2 };
    let non_k_idx = if d.op_idx == 0 { rank - 2 } else { rank - 1 };
    let tpw = u(&w.tiles_per_warp);
    // The K extent the repetition registers cover. With one tile per warp along the
    // operand's non-K dim it is one CTA's share of K, so a CGA split along K adds no register;
    // with several it is the whole tensor's K (as the MFMA operand always counts), and the
    // registers beyond the CTA's share become broadcast zeros in `combine`.
    let k_size = if tpw[non_k_idx] > 1 {
        shape[k_idx]
    } else {
        shape_per_cta(&w.cga_layout, shape)[k_idx]
    };
    let non_k = if d.op_idx == 0 {
        w.instr_shape[0]
    } else {
        w.instr_shape[1]
    } as u64;
    let kw = d.k_width as u64;
    const WS: u64 = 32;
    let depth = WS / non_k;
    let mut tile = mul(id(kw, REG, dk)?, id(non_k, LANE, dnk)?)?;
    tile = mul(
        tile,
        if w.version == 1 {
            zeros(depth, LANE, dk)?
        } else {
            id(depth, LANE, dk)?
        },
    )?;
    let k_tile = depth * kw;
    tile = mul(tile, id(k_size.max(k_instr) / k_tile, REG, dk)?)?;
    // The CTA part (tiles per warp and warps, N first), projected away from K. A batch entry
    // of tilesPerWarp places no tiles, as in the parent's own layout: batch elements come from
    // the batch warps and then from repetition, so on a batch extent smaller than
    // tilesPerWarp[0] there are no extra broadcast registers.
    let mut cta = LinearLayout::empty();
    let wpc = u(&w.warps_per_cta);
    let batch_dim = (rank == 3).then_some(0);
    for dd in matrix_order(rank, true) {
        let tiles = if Some(dd) == batch_dim { 1 } else { tpw[dd] };
        cta = mul(cta, id(tiles, REG, dim(dd))?)?;
        cta = mul(cta, id(wpc[dd], WARP, dim(dd))?)?;
    }
    let names = std_names(rank);
    cta = transpose(&cta, &names)?;
    let mut packed = Packed::of(&cta)?;
    let ins = std::mem::take(&mut packed.ins);
    packed.ins = ins
        .into_iter()
        .map(|(n, mut bs)| {
            for b in bs.iter_mut() {
                packed.clear(b, k_idx);
            }
            (n, bs)
        })
        .collect();
    packed.drop_zero_bases(REG);
    let cta = packed.into_inferred()?;
    let dot = mul(tile, cta)?;
    let rep: Vec<DimName> = order.iter().map(|&o| dim(o)).collect();
    let dot = transpose(&dot, &rep)?;
    combine(K, dot, &w.cga_layout, shape)
}

fn swizzled(kind: &'static str, s: &Swizzled, shape: &[u64], rotating: bool) -> R<LinearLayout> {
    let rank = s.order.len();
    check_shape(kind, shape, Some(rank))?;
    let spc = shape_per_cta(&s.cga_layout, shape);
    if rank == 1 {
        return combine(kind, id(spc[0], OFFSET, "dim0")?, &s.cga_layout, shape);
    }
    let order = us(&s.order);
    let dims_src = if rotating { shape.to_vec() } else { spc.clone() };
    let (col_dim, row_dim) = (order[0], order[1]);
    let (num_cols, num_rows) = (dims_src[col_dim], dims_src[row_dim]);
    let (vec, per_phase, max_phase) = (s.vec as u64, s.per_phase as u64, s.max_phase as u64);
    // Offset bases packed as (row, col) with the row in the low bits, then rebuilt with the
    // sizes Triton's size-inferring constructor gives them (which must be surjective).
    let (row_bits, col_bits) = (num_rows.trailing_zeros(), num_cols.trailing_zeros());
    let mut bases: Vec<u64> = Vec::with_capacity((row_bits + col_bits) as usize);
    let mut col = 1;
    while col < num_cols {
        bases.push(col << row_bits);
        col *= 2;
    }
    let mut row = 1;
    while row < num_rows {
        let phase = (row / per_phase) % max_phase;
        let p = if rotating {
            let block_no = row / max_phase / per_phase % max_phase;
            phase ^ block_no
        } else {
            phase
        };
        bases.push(row | (vec.saturating_mul(p) % num_cols) << row_bits);
        row *= 2;
    }
    let packed = Packed {
        ins: vec![(DimName::from(OFFSET), bases)],
        outs: vec![(dim(row_dim), row_bits, 0), (dim(col_dim), col_bits, row_bits)],
    };
    let mut cta = packed.into_inferred().map_err(|e| {
        EncodingError::param(
            kind,
            "vec",
            format!("the swizzle does not give a valid layout: {e}"),
        )
    })?;
    for &d in &order[2..] {
        cta = mul(cta, id(dims_src[d], OFFSET, dim(d))?)?;
    }
    combine(kind, cta, &s.cga_layout, shape)
}

fn nvmma_shared(n: &NvmmaShared, shape: &[u64]) -> R<LinearLayout> {
    const K: &str = "nvmma_shared";
    let rank = shape.len();
    let own_rank = n
        .rank
        .map(|r| r as usize)
        .or_else(|| n.cga_layout.first().map(|b| b.len()));
    check_shape(K, shape, own_rank)?;
    let spc = shape_per_cta(&n.cga_layout, shape);
    let bw = n.element_bit_width as u64;
    let sw = n.swizzling_byte_width as u64;
    // getTMABlockShape(packed = true)
    let mut tma = spc.clone();
    let cd = if n.transposed { 0 } else { rank - 1 };
    if n.fp4_padded {
        tma[cd] *= 2;
    }
    for t in tma.iter_mut() {
        *t = (*t).min(256);
    }
    if sw != 0 {
        let contig = 8 * sw / bw;
        if tma[cd] < contig {
            return Err(EncodingError::shape(
                K,
                format!(
                    "Block shape is too small for the swizzle byte size in NVMMA Shared Layout ({shape:?})"
                ),
            ));
        }
        tma[cd] = contig;
    }
    if n.fp4_padded {
        tma[cd] /= 2;
    }
    let names = std_names(rank);
    if sw == 0 {
        let mut l = id(tma[rank - 1], OFFSET, dim(rank - 1))?;
        for i in (0..rank - 1).rev() {
            l = mul(l, id(tma[i], OFFSET, dim(i))?)?;
        }
        let l = ensure_not_smaller(&l, &named(&names, &spc))?;
        return combine(K, l, &n.cga_layout, shape);
    }
    if rank < 2 {
        return Err(EncodingError::param(
            K,
            "swizzlingByteWidth",
            "a swizzled NVMMA layout needs rank >= 2",
        ));
    }
    let mut collapsed = [tma[..rank - 1].iter().product::<u64>(), tma[rank - 1]];
    if n.transposed {
        collapsed.swap(0, 1);
    }
    // The core matrix.
    let vec = 128 / bw;
    let per_phase = 128 / sw;
    let max_phase = sw / 16;
    if per_phase == 0 || max_phase == 0 || vec == 0 {
        return Err(EncodingError::param(
            K,
            "swizzlingByteWidth",
            format!("unsupported swizzle width {sw} for {bw}-bit elements"),
        ));
    }
    let tile_cols = 8 * sw.max(16) / bw;
    let pack = |c: u64| if n.fp4_padded { c / 16 * 8 + c % 8 } else { c };
    let mut bases: Vec<Vec<i64>> = Vec::new();
    let mut col = 1;
    while col < tile_cols {
        bases.push(vec![0, pack(col) as i64]);
        col *= 2;
    }
    for row in [1u64, 2, 4] {
        bases.push(vec![
            row as i64,
            pack(vec * ((row / per_phase) % max_phase)) as i64,
        ]);
    }
    let tile = LinearLayout::from_bases_inferred([(OFFSET, bases)], ["dim0", "dim1"])
        .map_err(|e| EncodingError::param(K, "swizzlingByteWidth", format!("invalid core matrix: {e}")))?;
    let (tr, tc) = (tile.out_dim_size("dim0")?, tile.out_dim_size("dim1")?);
    let p = if n.fp4_padded { 2 } else { 1 };
    if collapsed[1] * p < tc || collapsed[0] < tr {
        return Err(EncodingError::shape(
            K,
            format!(
                "Illegal shared layout; expected collapsed shapePerCTA to be at least [{tr}, {}], got {collapsed:?}",
                tc / p
            ),
        ));
    }
    let l = ensure_not_smaller(&tile, &[(dim(0), collapsed[0]), (dim(1), collapsed[1])])?;
    let mut target = tma.clone();
    if n.transposed {
        target.rotate_left(1);
    }
    let mut l = reshape_layout(&l, &target)?;
    if n.transposed {
        let mut order = vec![rank - 1];
        order.extend(0..rank - 1);
        l = transpose_linear_layout(&l, &order)?;
    }
    let l = ensure_not_smaller(&l, &named(&names, &spc))?;
    combine(K, l, &n.cga_layout, shape)
}

/// The identity component of `padded_shared` in the `order` form: `identityStandardND` then
/// `combineCtaCgaWithShape` with a trivial CGA layout.
/// The linear component of `padded_shared`'s `order`/`shape` form.
pub(crate) fn padded_identity(order: &[u32], shape: &[u64]) -> R<LinearLayout> {
    const K: &str = "padded_shared";
    if order.len() != shape.len() {
        return Err(EncodingError::param(
            K,
            "shape",
            "Mismatch of shape and order ranks in padded layout",
        ));
    }
    check_shape_values(K, shape)?;
    let l = id_nd(OFFSET, shape, &us(order))?;
    combine(K, l, &[], shape)
}

fn padded_component(p: &PaddedShared, shape: &[u64]) -> R<LinearLayout> {
    const K: &str = "padded_shared";
    let l = match &p.linear {
        PaddedLinear::Identity {
            order,
            shape: Some(s),
        } => padded_identity(order, s)?,
        PaddedLinear::Identity { order, shape: None } => {
            // The JSON form: offset bit j walks the dims in `order` (which may name fewer
            // dims than the shape has), fastest first, as Gluon's `with_identity_for`.
            check_shape_values(K, shape)?;
            let rank = shape.len();
            let mut bases: Vec<Vec<i64>> = Vec::new();
            for &d in order {
                let d = d as usize;
                let size = *shape.get(d).ok_or_else(|| {
                    EncodingError::param(K, "order", format!("dim {d} is not a dim of the shape {shape:?}"))
                })?;
                let mut v = 1;
                while v < size {
                    let mut b = vec![0i64; rank];
                    b[d] = v as i64;
                    bases.push(b);
                    v *= 2;
                }
            }
            LinearLayout::from_bases_inferred([(OFFSET, bases), (BLOCK, Vec::new())], std_names(rank))?
        }
        PaddedLinear::Bases { offset, block } => {
            let rank = offset.first().or(block.first()).map_or(0, |b| b.len());
            if !shape.is_empty() && shape.len() != rank {
                return Err(EncodingError::shape(
                    K,
                    format!(
                        "the linear component has rank {rank} but the shape {shape:?} has rank {}",
                        shape.len()
                    ),
                ));
            }
            LinearLayout::from_bases_inferred(
                [(OFFSET, to_i64(offset)), (BLOCK, to_i64(block))],
                std_names(rank),
            )
            .map_err(|e| EncodingError::param(K, "offsetBases", format!("invalid linear component: {e}")))?
        }
    };
    if !l.is_invertible() {
        return Err(EncodingError::param(
            K,
            "offsetBases",
            "Broadcasting is not supported.",
        ));
    }
    Ok(l)
}

/// The linear component of a padded layout (for printing), when it does not depend on a
/// request shape.
pub(crate) fn padded_component_fixed(p: &PaddedShared) -> Option<LinearLayout> {
    match &p.linear {
        PaddedLinear::Identity { shape: None, .. } => None,
        _ => padded_component(p, &[]).ok(),
    }
}
