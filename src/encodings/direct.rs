//! The common encodings built in one pass.
//!
//! Triton builds an encoding's layout as a chain of products of one-dimensional identities,
//! transposes and a final combination with the CTA tiling; [`super::convert`] follows that
//! chain step by step (the reference), each step a layout. Here the same chain runs on a
//! [`Tile`]: plain arrays of columns in a fixed wide arrangement (tensor dim `d` in bits
//! `d·W…`), with no intermediate layout, and the final layout is made once. The order of the
//! bases is the chain's, so the result is the reference's bit for bit (a law checks it on
//! generated encodings).
//!
//! Only what the tiles of one CTA need is covered — blocked, slice, AMD MFMA and WMMA, MFMA
//! dot operands, swizzled and AMD rotating shared layouts, without a CGA layout; anything else
//! (and any input the reference rejects) answers `None`, and the reference takes over.

use smallvec::SmallVec;

use std::cell::Cell;

use crate::linear::{DimList, DimName, LinearLayout};

use super::types::*;

const MFMA_WAVE: u64 = 64;

/// The in-dims of encodings' layouts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum In {
    Register,
    Lane,
    Warp,
    Block,
    Offset,
}

use In::{Block as BLOCK, Lane as LANE, Offset as OFFSET, Register as REG, Warp as WARP};

/// The in-dims' names, made once.
static NAMES: std::sync::LazyLock<[DimName; 5]> =
    std::sync::LazyLock::new(|| [REG, LANE, WARP, BLOCK, OFFSET].map(|i| DimName::from(i.name())));

impl In {
    fn dim_name(self) -> DimName {
        NAMES[self as usize]
    }

    fn name(self) -> &'static str {
        match self {
            REG => "register",
            LANE => "lane",
            WARP => "warp",
            BLOCK => "block",
            OFFSET => "offset",
        }
    }
}

/// The most columns a tile holds: a layout's input has at most 64 bits.
const MAX_COLS: usize = 64;

/// The most in-dims a tile has (register, lane, warp, block, offset).
const MAX_INS: usize = 5;

/// The most tensor dims a tile spans.
const MAX_RANK: usize = 4;

/// A layout under construction: in-dims with their columns, out-dims in order with their
/// sizes (in bits). A column holds tensor dim `d`'s component in bits `d·width…`.
///
/// Plain arrays, nothing on the heap: the columns of every in-dim in one array, in-dim after
/// in-dim, so that adding columns to an in-dim moves at most the later in-dims' columns.
struct Tile {
    width: u32,
    /// The in-dims' columns, in-dim after in-dim: the first `used`.
    cols: [u64; MAX_COLS],
    used: usize,
    /// The in-dims in order, each with its number of columns: the first `num_ins`.
    ins: [(In, usize); MAX_INS],
    num_ins: usize,
    /// The out-dims (tensor dims) in order: the first `num_outs`.
    outs: [usize; MAX_RANK],
    num_outs: usize,
    /// Each tensor dim's size in bits so far: the first `rank`.
    bits: [u32; MAX_RANK],
    rank: usize,
}

fn log2(n: u64) -> Option<u32> {
    n.is_power_of_two().then(|| n.trailing_zeros())
}

impl Tile {
    /// An empty tile over `rank` tensor dims (at most 4; [`finish`](Tile::finish) refuses
    /// more).
    fn new(rank: usize) -> Tile {
        Tile {
            width: 64 / rank.clamp(1, MAX_RANK) as u32,
            cols: [0; MAX_COLS],
            used: 0,
            ins: [(REG, 0); MAX_INS],
            num_ins: 0,
            outs: [0; MAX_RANK],
            num_outs: 0,
            bits: [0; MAX_RANK],
            rank: rank.min(MAX_RANK),
        }
    }

    /// Appends `new` columns to in-dim `name` (a new in-dim at the end when the tile has none
    /// of that name). `None` past [`MAX_COLS`] columns.
    fn push_cols(&mut self, name: In, new: impl ExactSizeIterator<Item = u64>) -> Option<()> {
        let k = new.len();
        let at = match self.ins[..self.num_ins].iter().position(|(n, _)| *n == name) {
            Some(at) => at,
            None => {
                *self.ins.get_mut(self.num_ins)? = (name, 0);
                self.num_ins += 1;
                self.num_ins - 1
            }
        };
        let end: usize = self.ins[..=at].iter().map(|(_, n)| n).sum();
        let used = self.used + k;
        if used > MAX_COLS {
            return None;
        }
        self.cols.copy_within(end..self.used, end + k);
        for (slot, c) in self.cols[end..end + k].iter_mut().zip(new) {
            *slot = c;
        }
        self.ins[at].1 += k;
        self.used = used;
        Some(())
    }

    fn out_dim(&mut self, d: usize) -> Option<()> {
        if d >= self.rank {
            return None;
        }
        if !self.outs[..self.num_outs].contains(&d) {
            self.outs[self.num_outs] = d;
            self.num_outs += 1;
        }
        Some(())
    }

    /// `self * identity_1d(n, in_dim, dim d)`. `n = 0` is the empty layout, the unit of the
    /// product.
    fn id(&mut self, n: u64, in_dim: In, d: usize) -> Option<()> {
        if n == 0 {
            return Some(());
        }
        let k = log2(n)?;
        self.out_dim(d)?;
        let (at, width) = (self.bits[d], self.width);
        if at + k > width {
            return None;
        }
        let shift = d as u32 * width + at;
        self.push_cols(in_dim, (0..k).map(|i| 1u64 << (shift + i)))?;
        self.bits[d] += k;
        Some(())
    }

    /// A column with `value` along tensor dim `d` only.
    fn along(&self, d: usize, value: u64) -> Option<u64> {
        (self.width == 64 || value >> self.width == 0).then(|| value << (d as u32 * self.width))
    }

    /// Out-dims reordered (the reference's `transpose_outs`): the same set, in `order`.
    fn transpose(&mut self, order: &[usize]) -> Option<()> {
        let outs = &self.outs[..self.num_outs];
        if order.len() != outs.len() || !order.iter().all(|d| outs.contains(d)) {
            return None;
        }
        self.outs[..order.len()].copy_from_slice(order);
        Some(())
    }

    fn component(&self, column: u64, d: usize) -> u64 {
        let mask = if self.width == 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        };
        column >> (d as u32 * self.width) & mask
    }

    /// Triton's combination with a one-CTA tiling on a tensor of `shape`: registers (or
    /// offsets) repeat up to the shape, coordinates beyond it broadcast (largest first), a
    /// size-1 `block` dim is appended and the out-dims come in `dim0…` order.
    ///
    /// `sliced`: the layout of a slice along that dim (of size 1 in `shape`) instead — the dim
    /// dropped, the others renumbered, and the register bases that no longer move anything
    /// (the ones along it) dropped, as `SliceEncodingAttr` does with its parent's layout.
    fn finish(&mut self, shape: &[u64], sliced: Option<usize>) -> Option<LinearLayout> {
        let rank = shape.len();
        if self.num_outs != rank || self.rank != rank {
            return None;
        }
        let mut want = [0u32; MAX_RANK];
        for (w, &s) in want.iter_mut().zip(shape) {
            *w = log2(s)?;
        }
        // ensureLayoutNotSmallerThan: the first in-dim repeats along each short dim.
        let first = Some(self.ins[0].0).filter(|n| self.num_ins > 0 && (*n == REG || *n == OFFSET))?;
        for k in 0..rank {
            let d = self.outs[k];
            if self.bits[d] < want[d] {
                self.id(1u64 << (want[d] - self.bits[d]), first, d)?;
            }
        }
        // ensureLayoutNotLargerThan: along each long dim, zero the largest coordinates.
        for (d, &want_d) in want.iter().enumerate().take(rank) {
            if self.bits[d] <= want_d {
                continue;
            }
            // The columns with a coordinate along `d`, largest first and among equal ones in
            // column order (a stable sort's): each as one key, the complement of the
            // coordinate's bit above the column's index.
            let mut found: SmallVec<[u32; 16]> = SmallVec::new();
            for (i, &c) in self.cols[..self.used].iter().enumerate() {
                let v = self.component(c, d);
                if v != 0 {
                    if !v.is_power_of_two() {
                        return None;
                    }
                    found.push((63 - v.trailing_zeros()) << 8 | i as u32);
                }
            }
            found.sort_unstable();
            let excess = (self.bits[d] - want_d) as usize;
            let clear = !self.along(d, self.component(u64::MAX, d))?;
            for &key in found.iter().take(excess) {
                self.cols[(key & 0xff) as usize] &= clear;
            }
            self.bits[d] = want_d;
        }
        // Every dim must be covered exactly up to its size (what the reference's size-inferring
        // rebuild and its final check require).
        // The highest bit reached along a dim is that of the union of all columns.
        let reached = self.cols[..self.used].iter().fold(0, |acc, &c| acc | c);
        if (0..rank).any(|d| 64 - self.component(reached, d).leading_zeros() != want[d]) {
            return None;
        }
        if !self.ins[..self.num_ins].iter().any(|(n, _)| *n == BLOCK) {
            self.push_cols(BLOCK, std::iter::empty())?;
        }
        // Re-pack into dim0, dim1, … fields of the final sizes, in-dim after in-dim, in place
        // (a column never moves up).
        let mut offsets = [0u32; MAX_RANK];
        for d in 1..rank {
            offsets[d] = offsets[d - 1] + want[d - 1];
        }
        let (width, mask) = (self.width, self.component(u64::MAX, 0));
        let repack = |c: u64| {
            (0..rank).fold(0u64, |acc, d| {
                acc | (c >> (d as u32 * width) & mask) << offsets[d]
            })
        };
        let mut n = 0;
        let mut start = 0;
        for k in 0..self.num_ins {
            let (name, len) = self.ins[k];
            // A slice keeps only the register bases that still move something.
            let drop_zeros = sliced.is_some() && name == REG;
            let mut kept = 0;
            for j in start..start + len {
                let packed = repack(self.cols[j]);
                if packed != 0 || !drop_zeros {
                    self.cols[n] = packed;
                    n += 1;
                    kept += 1;
                }
            }
            start += len;
            self.ins[k].1 = kept;
        }
        let ins = self.ins[..self.num_ins].iter().map(|&(i, k)| (i, k as u32));
        let outs = (0..rank).filter(|&d| Some(d) != sliced).map(|d| want[d]);
        LinearLayout::from_packed(in_list(ins)?, out_list(outs)?, &self.cols[..n])
    }
}

/// `getMatrixOrder(rank, rowMajor)`.
fn matrix_order(rank: usize, row_major: bool) -> SmallVec<[usize; 4]> {
    let mut o: SmallVec<[usize; 4]> = (0..rank).rev().collect();
    if rank >= 2 && !row_major {
        o.swap(0, 1);
    }
    o
}

fn get(v: &[u32], i: usize) -> Option<u64> {
    v.get(i).map(|&x| x as u64)
}

/// The layout of `encoding` on `shape` when it is one of the encodings built here, and the
/// reference accepts it; `None` otherwise.
pub(super) fn convert(encoding: &Encoding, shape: &[u64]) -> Option<LinearLayout> {
    check_shape_values(encoding.kind(), shape).ok()?;
    match encoding {
        Encoding::Slice(s) => slice(s, shape),
        Encoding::SwizzledShared(s) => swizzled(s, shape, false),
        Encoding::AmdRotatingShared(s) => swizzled(s, shape, true),
        _ => tiled(encoding, shape, None),
    }
}

/// The layout of a distributed encoding built as a [`Tile`] (`sliced`: of its slice along
/// that dim, see [`Tile::finish`]); `None` for the others.
fn tiled(encoding: &Encoding, shape: &[u64], sliced: Option<usize>) -> Option<LinearLayout> {
    match encoding {
        Encoding::Blocked(b) => blocked(b, shape, sliced),
        Encoding::AmdMfma(m) => mfma(m, shape, sliced),
        Encoding::AmdWmma(w) => wmma(w, shape, sliced),
        Encoding::DotOperand(d) => match d.parent.as_ref() {
            Encoding::AmdMfma(m) => mfma_dot(d, m, shape, sliced),
            _ => None,
        },
        _ => None,
    }
}

fn blocked(b: &Blocked, shape: &[u64], sliced: Option<usize>) -> Option<LinearLayout> {
    if !b.cga_layout.is_empty() || b.order.len() != shape.len() {
        return None;
    }
    let mut t = Tile::new(shape.len());
    for (in_dim, sizes) in [
        (REG, &b.size_per_thread),
        (LANE, &b.threads_per_warp),
        (WARP, &b.warps_per_cta),
    ] {
        for &d in &b.order {
            t.id(get(sizes, d as usize)?, in_dim, d as usize)?;
        }
    }
    t.finish(shape, sliced)
}

/// The bases of one in-dim, packed.
type Bases = SmallVec<[u64; 16]>;

fn slice(s: &Slice, shape: &[u64]) -> Option<LinearLayout> {
    let d = s.dim as usize;
    if d > shape.len() {
        return None;
    }
    let mut pshape: SmallVec<[u64; 4]> = shape.iter().copied().collect();
    pshape.insert(d, 1);
    // A parent built as a tile finishes as the slice directly.
    check_shape_values(s.parent.kind(), &pshape).ok()?;
    if let Some(sliced) = tiled(&s.parent, &pshape, Some(d)) {
        return Some(sliced);
    }
    let parent = convert(&s.parent, &pshape)?;
    // The sliced dim has size 1, so the other dims' fields do not move: drop the zero
    // register bases, and shrink each dim to what its bases reach.
    let outs: SmallVec<[u32; 4]> = parent.out_dims().map(|(_, s)| s.trailing_zeros()).collect();
    let mut offsets: SmallVec<[u32; 4]> = SmallVec::new();
    let mut total = 0;
    for &w in &outs {
        offsets.push(total);
        total += w;
    }
    let ins: SmallVec<[(&DimName, Bases); 4]> = parent
        .in_dim_names()
        .map(|n| {
            let cols = parent.flat_bases(n).unwrap_or_default();
            let keep = |c: &&u64| **c != 0 || *n != REG.name();
            (n, cols.iter().filter(keep).copied().collect())
        })
        .collect();
    let reach = |k: usize| {
        let top = ins
            .iter()
            .flat_map(|(_, cols)| cols.iter())
            .map(|&c| c >> offsets[k] & ((1u64 << outs[k]) - 1))
            .max()
            .unwrap_or(0);
        64 - top.leading_zeros()
    };
    let sizes: SmallVec<[u32; 4]> = (0..outs.len()).map(reach).collect();
    let repack = |c: u64| {
        let mut at = 0;
        let mut v = 0u64;
        for k in 0..outs.len() {
            v |= (c >> offsets[k] & ((1u64 << outs[k]) - 1)) << at;
            at += sizes[k];
        }
        v
    };
    let ins: SmallVec<[(&DimName, Bases); 4]> = ins
        .into_iter()
        .map(|(n, cols)| (n, cols.iter().map(|&c| repack(c)).collect()))
        .collect();
    // The remaining dims are renumbered dim0, dim1, …
    let names = (0..outs.len().saturating_sub(1)).map(DimName::dim);
    let outs = names.zip((0..outs.len()).filter(|&k| k != d).map(|k| 1u64 << sizes[k]));
    LinearLayout::from_flat_bases(ins.iter().map(|(n, c)| (**n, c.as_slice())), outs, true).ok()
}

fn mfma(m: &AmdMfma, shape: &[u64], sliced: Option<usize>) -> Option<LinearLayout> {
    let rank = m.warps_per_cta.len();
    if !m.cga_layout.is_empty() || rank != shape.len() || !(rank == 2 || rank == 3) {
        return None;
    }
    let batch = rank == 3;
    let (dm, dn) = (batch as usize, 1 + batch as usize);
    let (md, nd) = (get(&m.instr_shape, 0)?, get(&m.instr_shape, 1)?);
    if (md == 64 && nd == 4 && !m.is_transposed) || md == 0 || nd == 0 {
        return None;
    }
    let h: u64 = if m.element_bit_width == 64 { 1 } else { 4 };
    let tiles = md * nd / (MFMA_WAVE * h);
    let mut t = Tile::new(rank);
    // The instruction's tile: registers along M (N when transposed), lanes across.
    let (along, across, across_size) = if m.is_transposed {
        (dn, dm, md)
    } else {
        (dm, dn, nd)
    };
    t.id(h, REG, along)?;
    t.id(across_size, LANE, across)?;
    t.id(MFMA_WAVE / across_size, LANE, along)?;
    if tiles > 0 {
        t.id(tiles, REG, along)?;
    }
    t.transpose(&[dn, dm])?;
    let (tpw, wpc) = (&m.tiles_per_warp, &m.warps_per_cta);
    t.id(get(tpw, dn)?, REG, dn)?;
    t.id(get(wpc, dn)?, WARP, dn)?;
    let per_cta = nd.saturating_mul(get(wpc, dn)?).saturating_mul(get(tpw, dn)?);
    t.id(shape[dn].checked_div(per_cta)?, REG, dn)?;
    t.id(get(tpw, dm)?, REG, dm)?;
    t.id(get(wpc, dm)?, WARP, dm)?;
    if batch {
        t.id(1, REG, 0)?;
        t.id(1, LANE, 0)?;
        t.id(get(wpc, 0)?, WARP, 0)?;
    }
    t.finish(shape, sliced)
}

fn mfma_dot(d: &DotOperand, m: &AmdMfma, shape: &[u64], sliced: Option<usize>) -> Option<LinearLayout> {
    let rank = shape.len();
    if !m.cga_layout.is_empty() || m.warps_per_cta.len() != rank || !(rank == 2 || rank == 3) {
        return None;
    }
    let batch = rank == 3;
    let kw = d.k_width as u64;
    let a = d.op_idx == 0;
    let (non_k_idx, k_idx) = if a {
        (rank - 2, rank - 1)
    } else {
        (rank - 1, rank - 2)
    };
    let (md, nd) = (get(&m.instr_shape, 0)?, get(&m.instr_shape, 1)?);
    let non_k = if a { md } else { nd };
    if non_k == 0 || d.op_idx > 1 {
        return None;
    }
    // getOrderForDotOperand: K fastest.
    let order = matrix_order(rank, a);
    let (dk, dnk) = (order[0], order[1]);
    let mut t = Tile::new(rank);
    t.id(kw, REG, dk)?;
    t.id(non_k, LANE, dnk)?;
    t.id(MFMA_WAVE / non_k, LANE, dk)?;
    let mut k_tile = MFMA_WAVE / non_k * kw;
    if k_tile == 0 {
        return None;
    }
    if (md == 64 && nd == 4 && a) || (md == 4 && nd == 64 && !a) {
        t.id(16, REG, dk)?;
        k_tile *= 16;
    }
    let k_size = shape[k_idx];
    if k_size > k_tile {
        t.id(k_size / k_tile, REG, dk)?;
    }
    t.id(get(&m.tiles_per_warp, non_k_idx)?, REG, dnk)?;
    t.transpose(&[dk, dnk])?;
    if batch {
        t.id(1, REG, 0)?;
        t.id(1, LANE, 0)?;
    }
    for dd in matrix_order(rank, true) {
        t.id(get(&m.warps_per_cta, dd)?, WARP, dd)?;
    }
    t.finish(shape, sliced)
}

fn wmma(w: &AmdWmma, shape: &[u64], sliced: Option<usize>) -> Option<LinearLayout> {
    let rank = w.warps_per_cta.len();
    if !w.cga_layout.is_empty() || rank != shape.len() || !(rank == 2 || rank == 3) {
        return None;
    }
    let batch = rank == 3;
    let (dm, dn) = (batch as usize, 1 + batch as usize);
    let (md, nd) = (get(&w.instr_shape, 0)?, get(&w.instr_shape, 1)?);
    if !((shape[dm] == 1 || shape[dm] >= md) && (shape[dn] == 1 || shape[dn] >= nd)) {
        return None;
    }
    // The 16x16 instruction tile: dims `a` (lanes) and `b` (registers, and one lane bit).
    let thread_order = matrix_order(rank, !w.is_transposed);
    let (a, b) = (thread_order[0], thread_order[1]);
    let mut t = Tile::new(rank);
    let (regs, top_lane): ([u64; 3], u64) = if w.version == 1 {
        ([2, 4, 8], 1)
    } else {
        ([1, 2, 4], 8)
    };
    let reg_cols = [t.along(b, regs[0])?, t.along(b, regs[1])?, t.along(b, regs[2])?];
    let lane_cols = [
        t.along(a, 1)?,
        t.along(a, 2)?,
        t.along(a, 4)?,
        t.along(a, 8)?,
        t.along(b, top_lane)?,
    ];
    t.out_dim(a)?;
    t.out_dim(b)?;
    t.push_cols(REG, reg_cols.into_iter())?;
    t.push_cols(LANE, lane_cols.into_iter())?;
    t.bits[a] = 4;
    t.bits[b] = 4;
    if batch {
        t.id(1, REG, 0)?;
        t.id(1, LANE, 0)?;
    }
    let natural: SmallVec<[usize; 4]> = (0..rank).collect();
    t.transpose(&natural)?;
    let (tpw, wpc) = (&w.tiles_per_warp, &w.warps_per_cta);
    t.id(get(tpw, dn)?, REG, dn)?;
    t.id(get(wpc, dn)?, WARP, dn)?;
    let per_cta = 16u64.saturating_mul(get(wpc, dn)?).saturating_mul(get(tpw, dn)?);
    t.id(shape[dn].checked_div(per_cta)?, REG, dn)?;
    t.id(get(tpw, dm)?, REG, dm)?;
    t.id(get(wpc, dm)?, WARP, dm)?;
    if batch {
        t.id(get(wpc, 0)?, WARP, 0)?;
    }
    t.transpose(&matrix_order(rank, true))?;
    t.finish(shape, sliced)
}

fn swizzled(s: &Swizzled, shape: &[u64], rotating: bool) -> Option<LinearLayout> {
    let rank = s.order.len();
    if !s.cga_layout.is_empty() || rank != shape.len() {
        return None;
    }
    if rank == 1 {
        return offsets_1d(shape);
    }
    let (col_dim, row_dim) = (*s.order.first()? as usize, *s.order.get(1)? as usize);
    let (num_cols, num_rows) = (*shape.get(col_dim)?, *shape.get(row_dim)?);
    let (vec, per_phase, max_phase) = (s.vec as u64, s.per_phase as u64, s.max_phase as u64);
    if per_phase == 0 || max_phase == 0 || num_cols == 0 {
        return None;
    }
    let (col_bits, row_bits) = (log2(num_cols)?, log2(num_rows)?);
    // Row `2^k`'s phase, `(row / perPhase) % maxPhase` (rotating: xor
    // `row / maxPhase / perPhase % maxPhase`), from quotients kept bit by bit: no division.
    let mut phase = PowerQuotients::new(per_phase, max_phase);
    let mut rotation = PowerQuotients::new(max_phase.saturating_mul(per_phase), max_phase);
    // `num_cols` is a power of two: `% num_cols` keeps the low bits (of a saturated product too).
    let swizzle = move || {
        let p = phase.next() ^ if rotating { rotation.next() } else { 0 };
        vec.saturating_mul(p) & (num_cols - 1)
    };
    if rank == 2 {
        return swizzled_2d((col_dim, col_bits), (row_dim, row_bits), swizzle);
    }
    swizzled_nd(&s.order, shape, (col_bits, row_bits), swizzle)
}

/// The shared layout of a one-dimensional tensor: offsets in order.
fn offsets_1d(shape: &[u64]) -> Option<LinearLayout> {
    let mut t = Tile::new(1);
    t.id(*shape.first()?, OFFSET, 0)?;
    t.finish(shape, None)
}

/// A swizzled layout of three or more dims: the two-dimensional tile of the fastest dims
/// (`order[0]` the columns, `order[1]` the rows), repeated along the others in `order`.
fn swizzled_nd(
    order: &[u32],
    shape: &[u64],
    (col_bits, row_bits): (u32, u32),
    mut swizzle: impl FnMut() -> u64,
) -> Option<LinearLayout> {
    let (col_dim, row_dim) = (*order.first()? as usize, *order.get(1)? as usize);
    let mut t = Tile::new(shape.len());
    if col_bits > t.width || row_bits > t.width {
        return None;
    }
    let width = t.width;
    let along = move |d: usize, v: u64| v << (d as u32 * width);
    let cols = (0..col_bits).map(|k| along(col_dim, 1 << k));
    let rows = (0..row_bits).map(|k| along(row_dim, 1 << k) | along(col_dim, swizzle()));
    t.push_cols(OFFSET, cols)?;
    t.push_cols(OFFSET, rows)?;
    t.out_dim(row_dim)?;
    t.out_dim(col_dim)?;
    t.bits[row_dim] = row_bits;
    t.bits[col_dim] = col_bits;
    for &d in order.iter().skip(2) {
        t.id(*shape.get(d as usize)?, OFFSET, d as usize)?;
    }
    t.finish(shape, None)
}

/// A two-dimensional swizzled tile: one offset in-dim whose columns are the column dim's bits,
/// then each row bit with its swizzle (`shift()` along the column dim, called for rows 1, 2, 4,
/// … in turn). The tile is exactly
/// the shape — nothing repeats or broadcasts — so the columns go straight into the final
/// `dim0`, `dim1` fields: what [`Tile::finish`] would make of them, without the tile (the
/// same limit of 32 bits a dim, past which the reference answers).
fn swizzled_2d(
    (col_dim, col_bits): (usize, u32),
    (row_dim, row_bits): (usize, u32),
    mut shift: impl FnMut() -> u64,
) -> Option<LinearLayout> {
    if col_bits > 32 || row_bits > 32 {
        return None;
    }
    let mut want = [0u32; 2];
    want[col_dim] = col_bits;
    want[row_dim] = row_bits;
    let field = |d: usize, v: u64| v << if d == 0 { 0 } else { want[0] };
    let mut cols = [0u64; 64];
    let n = (col_bits + row_bits) as usize;
    for k in 0..col_bits {
        cols[k as usize] = field(col_dim, 1 << k);
    }
    for k in 0..row_bits {
        cols[(col_bits + k) as usize] = field(row_dim, 1 << k) | field(col_dim, shift());
    }
    LinearLayout::from_packed(
        in_list([(OFFSET, n as u32), (BLOCK, 0)].into_iter())?,
        out_list(want.into_iter())?,
        cols.get(..n)?,
    )
}

/// The interned list of in-dims `(dim, bits)`.
fn in_list(dims: impl Iterator<Item = (In, u32)> + Clone) -> Option<DimList> {
    let code = list_code(dims.clone().map(|(i, bits)| (i as u64 + 1, bits)));
    memo_list(code, || {
        DimList::new("input", dims.map(|(i, bits)| (i.dim_name(), bits)))
    })
}

/// The interned list of out-dims `dim0`, `dim1`, … of `bits`.
fn out_list(bits: impl Iterator<Item = u32> + Clone) -> Option<DimList> {
    let code = list_code(bits.clone().map(|b| (OUT_KIND, b)));
    memo_list(code, || {
        DimList::new("output", bits.enumerate().map(|(k, b)| (DimName::dim(k), b)))
    })
}

/// The kind of an out-dim in a [`list_code`] (in-dims are 1–5, by [`In`]).
const OUT_KIND: u64 = 6;

/// A list of dims as one word: after a leading 1, ten bits a dim — its kind (three bits: an
/// in-dim's [`In`], or the next out-dim `dimK`) and its bits (seven). `None` past six dims or
/// for a dim of more than 64 bits (such lists are not memoized).
fn list_code(dims: impl Iterator<Item = (u64, u32)>) -> Option<u64> {
    let mut code = 1u64;
    for (kind, bits) in dims {
        if code >> 54 != 0 || bits > 64 {
            return None;
        }
        code = code << 10 | kind << 7 | bits as u64;
    }
    Some(code)
}

/// Slots of each thread's memo of dim lists (a power of two), in pairs.
const LIST_SLOTS: usize = 32;

thread_local! {
    /// Dim lists this thread made recently, by code: the lists of the common encodings
    /// repeat, and making a list of names to intern costs more than the rest of a
    /// conversion. Two-way: a code lives in either slot of its pair, so the two lists of one
    /// conversion never evict each other.
    static LISTS: [Cell<(u64, Option<DimList>)>; LIST_SLOTS] =
        const { [const { Cell::new((0, None)) }; LIST_SLOTS] };
}

/// The list of `code` from the memo, or `make` (remembered when the code exists).
fn memo_list(code: Option<u64>, make: impl FnOnce() -> crate::linear::Result<DimList>) -> Option<DimList> {
    let Some(code) = code else {
        return make().ok();
    };
    let pair = (code.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - LIST_SLOTS.trailing_zeros())) as usize & !1;
    LISTS.with(|memo| {
        let (first, second) = (&memo[pair], &memo[pair + 1]);
        for slot in [first, second] {
            if let (held, Some(list)) = slot.get()
                && held == code
            {
                return Some(list);
            }
        }
        let list = make().ok()?;
        // The newer entry stays; the older goes.
        second.set(first.get());
        first.set((code, Some(list)));
        Some(list)
    })
}

/// `(2^k / d) % m` for `k = 0, 1, 2, …` in turn (`d, m ≥ 1`), by long division one bit at a
/// time: the quotient doubles and gains the bit the doubled remainder reaches `d`, so each
/// step is a shift, a compare and two subtractions — swizzles ask it of every row bit, and a
/// 64-bit division costs tens of cycles.
///
/// Law: the `k`-th value is `(2^k / d) % m`.
struct PowerQuotients {
    d: u64,
    m: u64,
    /// `2^k mod d`.
    remainder: u64,
    /// `(2^k / d) mod m`.
    quotient: u64,
}

impl PowerQuotients {
    fn new(d: u64, m: u64) -> Self {
        let (d, m) = (d.max(1), m.max(1));
        // k = 0: 1 / d and 1 % d.
        let (quotient, remainder) = if d == 1 { (1 % m, 0) } else { (0, 1) };
        PowerQuotients {
            d,
            m,
            remainder,
            quotient,
        }
    }

    /// The value for the current `k`, then on to `k + 1`.
    fn next(&mut self) -> u64 {
        let now = self.quotient;
        // remainder < d, so the doubled remainder is below 2d; the new bit is whether it
        // reaches d (a doubling past 2^64 always does, and wrapping arithmetic then still
        // leaves the right remainder). The quotient stays below m < 2^32.
        let doubled = self.remainder << 1;
        let bit = u64::from(doubled >= self.d || doubled < self.remainder);
        self.remainder = doubled.wrapping_sub(bit * self.d);
        let q = (self.quotient << 1) + bit;
        self.quotient = if q >= self.m { q - self.m } else { q };
        now
    }
}

#[cfg(all(test, feature = "quickcheck"))]
mod laws {
    use quickcheck::{Gen, TestResult};

    use super::*;
    use crate::linear::check_law;

    fn pick<T: Copy>(g: &mut Gen, from: &[T]) -> T {
        *g.choose(from).unwrap_or(&from[0])
    }

    /// `2^bits` (`bits` one of `choices`) split over `rank` dims at random, as a list.
    fn split(g: &mut Gen, rank: usize, choices: &[u32]) -> Vec<u64> {
        let bits = pick(g, choices);
        let mut v = vec![1u64; rank];
        for _ in 0..bits {
            v[pick(g, &(0..rank).collect::<Vec<_>>())] *= 2;
        }
        v
    }

    fn order(g: &mut Gen, rank: usize) -> Vec<usize> {
        let mut o: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            o.swap(i, pick(g, &(0..=i).collect::<Vec<_>>()));
        }
        o
    }

    fn mfma(g: &mut Gen, rank: usize) -> String {
        let instr = pick(
            g,
            &[
                "[32, 32, 8]",
                "[16, 16, 16]",
                "[32, 32, 16]",
                "[16, 16, 32]",
                "[64, 4, 4]",
                "[4, 64, 4]",
                "[4, 4, 4]",
            ],
        );
        let tiles = split(g, rank, &[0, 0, 1, 2]);
        format!(
            "#ttg.amd_mfma<{{version = {}, warpsPerCTA = {:?}, instrShape = {instr}, isTransposed = {}, tilesPerWarp = {tiles:?}, elementBitWidth = {}}}>",
            pick(g, &[2, 3, 4]),
            split(g, rank, &[0, 1, 2, 3]),
            bool::arbitrary(g),
            pick(g, &[32, 32, 64]),
        )
    }

    fn encoding(g: &mut Gen, rank: usize) -> String {
        match pick(g, &[0, 1, 2, 3, 4, 5, 6]) {
            0 => format!(
                "#ttg.blocked<{{sizePerThread = {:?}, threadsPerWarp = {:?}, warpsPerCTA = {:?}, order = {:?}}}>",
                split(g, rank, &[0, 1, 2, 3]),
                split(g, rank, &[5, 6]),
                split(g, rank, &[0, 1, 2, 3]),
                order(g, rank),
            ),
            1 if rank >= 2 => mfma(g, rank.min(3)),
            2 if rank >= 2 => format!(
                "#ttg.amd_wmma<{{version = {}, isTranspose = {}, warpsPerCTA = {:?}, tilesPerWarp = {:?}}}>",
                pick(g, &[1, 2, 3]),
                bool::arbitrary(g),
                split(g, rank.min(3), &[0, 1, 2]),
                split(g, rank.min(3), &[0, 0, 1]),
            ),
            3 if rank >= 2 => format!(
                "#ttg.dot_op<{{opIdx = {}, parent = {}, kWidth = {}}}>",
                pick(g, &[0, 1]),
                mfma(g, rank.min(3)),
                pick(g, &[1, 2, 4, 8, 16]),
            ),
            4 => format!(
                "#ttg.{}<{{vec = {}, perPhase = {}, maxPhase = {}, order = {:?}}}>",
                pick(g, &["swizzled_shared", "amd_rotating_shared"]),
                pick(g, &[1, 2, 4, 8, 16]),
                pick(g, &[1, 2, 4]),
                pick(g, &[1, 2, 4, 8, 16]),
                order(g, rank),
            ),
            5 if rank <= 2 => format!(
                "#ttg.slice<{{dim = {}, parent = {}}}>",
                pick(g, &[0, 1]),
                encoding(g, rank + 1)
            ),
            _ => format!(
                "#ttg.blocked<{{sizePerThread = {:?}, threadsPerWarp = [32{}], warpsPerCTA = {:?}, order = {:?}}}>",
                vec![1; rank],
                ", 1".repeat(rank - 1),
                vec![1; rank],
                order(g, rank),
            ),
        }
    }

    use quickcheck::Arbitrary;

    /// An encoding in Triton's text, and a shape, generated over the encodings built directly
    /// (ranks 1 to 3, tensors from one element to past the encoding's tile).
    #[derive(Clone, Debug)]
    struct Case(String, Vec<u64>);

    impl Arbitrary for Case {
        fn arbitrary(g: &mut Gen) -> Self {
            let rank = pick(g, &[1, 2, 2, 2, 3]);
            let text = encoding(g, rank);
            let shape = (0..rank)
                .map(|_| 1u64 << pick(g, &[0, 1, 3, 4, 5, 6, 7, 8]))
                .collect();
            Case(text, shape)
        }
    }

    /// Built in one pass, an encoding's layout is the reference's, bit for bit and in the
    /// same order of bases; wherever the reference fails, the one-pass route declines.
    #[test]
    fn one_pass_layouts_are_the_reference_layouts() {
        fn law(Case(text, shape): Case) -> TestResult {
            let Ok(e) = text.parse::<Encoding>() else {
                return TestResult::discard();
            };
            if e.validate().is_err() {
                return TestResult::discard();
            }
            match (convert(&e, &shape), e.reference(&shape)) {
                (None, _) => TestResult::discard(),
                (Some(direct), Ok(reference)) => TestResult::from_bool(direct == reference),
                (Some(_), Err(_)) => TestResult::failed(),
            }
        }
        check_law(law as fn(Case) -> TestResult);
    }

    /// Row bits' quotients kept by long division are the divisions written out: `(2^k / d) % m`
    /// for every `k` below 64, divisors up to `2^63` and moduli up to `2^32`.
    #[test]
    fn power_quotients_are_the_divisions() {
        fn law(d: u64, m: u32) -> TestResult {
            let (d, m) = ((d >> (d % 64)).max(1), u64::from(m.max(1)));
            let mut q = PowerQuotients::new(d, m);
            TestResult::from_bool((0..64).all(|k| q.next() == ((1u64 << k) / d) % m))
        }
        check_law(law as fn(u64, u32) -> TestResult);
    }

    /// The standard encodings of the benchmarks take the one-pass route.
    #[test]
    fn the_standard_encodings_are_built_in_one_pass() {
        for (text, shape) in [
            (
                "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
                [128, 128],
            ),
            (
                "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
                [128, 128],
            ),
            (
                "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
                [128, 64],
            ),
            (
                "#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>, kWidth = 8}>",
                [128, 64],
            ),
            (
                "#ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2]}>",
                [64, 64],
            ),
            (
                "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>",
                [128, 1],
            ),
        ] {
            let e: Encoding = text.parse().unwrap();
            let shape = &shape[..if text.starts_with("#ttg.slice") { 1 } else { 2 }];
            assert_eq!(convert(&e, shape), Some(e.reference(shape).unwrap()), "{text}");
        }
    }
}
