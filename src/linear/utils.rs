//! Helpers around layouts that compilers reach for constantly (Triton's `LayoutUtils`):
//! standard dimension names, fitting a layout to a shape, vectorisation, repetitions, and a
//! few factorisations.

use smallvec::SmallVec;

use super::algebra::IdentityDims;
use super::column_action::ColumnAction;
use super::dims::{Dim, Dims};
use super::layout::{Columns, MAX_BITS, Result, low_mask};
use super::{DimName, LayoutError, LinearLayout, divide_left};

/// `dim0`, `dim1`, …, `dim{rank-1}`: the out-dim names of a rank-`rank` tensor.
///
/// ```
/// # use linear_layout::linear::standard_out_dim_names;
/// assert_eq!(standard_out_dim_names(2), ["dim0", "dim1"]);
/// ```
pub fn standard_out_dim_names(rank: usize) -> Vec<DimName> {
    (0..rank).map(DimName::dim).collect()
}

/// The identity from `in_dim` onto a tensor of `shape`, walking the dims in `order` (fastest
/// first). The out-dims come out in `order` order, as in Triton.
///
/// ```
/// # use linear_layout::linear::identity_standard_nd;
/// let l = identity_standard_nd("reg", &[4, 8], &[1, 0])?;
/// assert_eq!(l.out_dim_names().collect::<Vec<_>>(), ["dim1", "dim0"]);
/// assert_eq!(l.bases("reg")?, vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![0, 1], vec![0, 2]]);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn identity_standard_nd(in_dim: &str, shape: &[u64], order: &[usize]) -> Result<LinearLayout> {
    if shape.len() != order.len() {
        return Err(LayoutError::Precondition {
            op: "identity_standard_nd",
            detail: format!("shape has {} dims but order has {}", shape.len(), order.len()),
        });
    }
    let names = standard_out_dim_names(shape.len());
    let mut seen = vec![false; shape.len()];
    let distinct = order
        .iter()
        .all(|&d| d < shape.len() && !std::mem::replace(&mut seen[d], true));
    if distinct && shape.iter().all(|&s| s == 0 || s.is_power_of_two()) {
        // The product of the 1-D identities, built at once: one in-dim whose bits walk the
        // out-dims in `order` (a size-0 dim contributes nothing, as an empty factor).
        let mut outs = Dims::new();
        for &d in order {
            if shape[d] > 0 {
                outs.push(Dim::new(names[d], shape[d].trailing_zeros()));
            }
        }
        if outs.is_empty() {
            return Ok(LinearLayout::empty());
        }
        let bits: u32 = outs.iter().map(|d| d.bits).sum();
        if bits > MAX_BITS {
            return Err(LayoutError::TooManyBits { side: "input", bits });
        }
        let cols = (0..bits).map(|k| 1u64 << k).collect();
        return LinearLayout::from_parts(
            Dims::from_iter([Dim::new(DimName::from(in_dim), bits)]),
            outs,
            cols,
        );
    }
    let mut l = LinearLayout::empty();
    for &d in order {
        let size = *shape.get(d).ok_or_else(|| LayoutError::Precondition {
            op: "identity_standard_nd",
            detail: format!("order names dim {d} of a rank-{} shape", shape.len()),
        })?;
        l = l.product(&LinearLayout::identity_1d(size, in_dim, names[d])?)?;
    }
    Ok(l)
}

/// The same dims and sizes with every basis zero.
///
/// ```
/// # use linear_layout::linear::{zeros_like, LinearLayout};
/// let z = zeros_like(&LinearLayout::identity_1d(4, "i", "o")?);
/// assert_eq!(z.bases("i")?, vec![vec![0], vec![0]]);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn zeros_like(layout: &LinearLayout) -> LinearLayout {
    let mut l = layout.clone();
    l.cols = layout.cols.as_slice().iter().map(|_| 0).collect();
    l
}

fn shape_of<N: AsRef<str>>(layout: &LinearLayout, shape: &[(N, u64)], op: &'static str) -> Result<Vec<u64>> {
    if shape.len() != layout.num_out_dims() {
        return Err(LayoutError::Precondition {
            op,
            detail: format!(
                "the shape has {} entries for {} out-dims",
                shape.len(),
                layout.num_out_dims()
            ),
        });
    }
    layout
        .outs
        .iter()
        .map(|d| {
            shape
                .iter()
                .find(|(n, _)| d.name == *n.as_ref())
                .map(|(_, s)| *s)
                .ok_or(LayoutError::DimNotFound {
                    dim: d.name,
                    side: "shape",
                })
        })
        .collect()
}

/// Shrinks out-dims larger than `shape` (one size per out-dim): every component that no
/// longer fits becomes 0, so the inputs that reached it now repeat (broadcast) data. With
/// `broadcast_registers = false`, register bases that became zero this way are removed
/// instead.
///
/// Triton 3.6 zeroes the largest components one at a time and aborts when two bases share a
/// value; this is the newer formulation, which is right on every input.
///
/// ```
/// # use linear_layout::linear::{ensure_layout_not_larger_than, LinearLayout};
/// let l = LinearLayout::from_bases(
///     [("register", vec![vec![8], vec![4], vec![1]]), ("lane", vec![vec![2], vec![16]])], [("dim0", 32)], true)?;
/// let b = ensure_layout_not_larger_than(&l, &[("dim0", 8)], true)?;
/// assert_eq!(b.bases("register")?, vec![vec![0], vec![4], vec![1]]);
/// let r = ensure_layout_not_larger_than(&l, &[("dim0", 8)], false)?;
/// assert_eq!(r.bases("register")?, vec![vec![4], vec![1]]);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn ensure_layout_not_larger_than<N: AsRef<str>>(
    layout: &LinearLayout,
    shape: &[(N, u64)],
    broadcast_registers: bool,
) -> Result<LinearLayout> {
    let desired = shape_of(layout, shape, "ensure_layout_not_larger_than")?;
    let mut outs = layout.outs.edit();
    for (o, d) in outs.iter_mut().enumerate() {
        let want = desired[o];
        if want < 1u64 << d.bits.min(63) {
            if !want.is_power_of_two() {
                return Err(LayoutError::SizeNotPowerOfTwo {
                    dim: d.name,
                    size: want.min(i64::MAX as u64) as i64,
                });
            }
            d.bits = want.trailing_zeros();
        }
    }
    let mut ins = layout.ins.edit();
    let mut cols = Columns::new();
    for (i, d) in layout.ins.iter().enumerate() {
        let drop = !broadcast_registers && d.name == "register";
        let mut kept = 0;
        for &c in layout.dim_cols(i) {
            // A component that does not fit is zeroed as a whole (not masked).
            let mut v = 0u64;
            let mut shift_old = 0;
            let mut shift_new = 0;
            for (o, od) in layout.outs.iter().enumerate() {
                let comp = c.checked_shr(shift_old).unwrap_or(0) & low_mask(od.bits);
                if comp >> outs[o].bits == 0 {
                    v |= comp.checked_shl(shift_new).unwrap_or(0);
                }
                shift_old += od.bits;
                shift_new += outs[o].bits;
            }
            if drop && c != 0 && v == 0 {
                continue;
            }
            cols.push(v);
            kept += 1;
        }
        ins[i].bits = kept;
    }
    LinearLayout::from_parts(ins, outs, cols)
}

/// Grows out-dims smaller than `shape` (one size per out-dim) by repeating the layout: each
/// out-dim `o` gets `shape[o] / size(o)` more values of the first in-dim (which must be
/// `register` or `offset`), in the high bits.
///
/// ```
/// # use linear_layout::linear::{ensure_layout_not_smaller_than, LinearLayout};
/// let l = LinearLayout::identity_1d(4, "register", "dim0")?;
/// let g = ensure_layout_not_smaller_than(&l, &[("dim0", 16)])?;
/// assert_eq!(g.bases("register")?, vec![vec![1], vec![2], vec![4], vec![8]]);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn ensure_layout_not_smaller_than<N: AsRef<str>>(
    layout: &LinearLayout,
    shape: &[(N, u64)],
) -> Result<LinearLayout> {
    let desired = shape_of(layout, shape, "ensure_layout_not_smaller_than")?;
    if desired.is_empty() {
        return Ok(layout.clone());
    }
    let first = layout
        .ins
        .first()
        .filter(|d| d.name == "register" || d.name == "offset")
        .ok_or_else(|| LayoutError::Precondition {
            op: "ensure_layout_not_smaller_than",
            detail: "the first in-dim must be 'register' or 'offset'".into(),
        })?
        .name;
    let mut l = layout.clone();
    for (o, d) in layout.outs.iter().enumerate() {
        let actual = 1u64 << d.bits.min(63);
        let want = desired[o];
        if !(actual > want || want % actual == 0) {
            return Err(LayoutError::SizeMismatch {
                op: "ensure_layout_not_smaller_than",
                dim: d.name,
                size: actual,
                required: format!("{want} is not a multiple of it"),
            });
        }
        // A factor of one (or none) leaves the layout as it is.
        if want / actual > 1 {
            l = l.product(&LinearLayout::identity_1d(want / actual, first, d.name)?)?;
        }
    }
    Ok(l)
}

/// Reshapes a layout's tensor (out-dims `dim0…`) to `shape`, row-major: the last dim is the
/// fastest, as in `reshape` of a C-ordered array.
///
/// ```
/// # use linear_layout::linear::{identity_standard_nd, reshape_layout};
/// let l = identity_standard_nd("register", &[4, 8], &[0, 1])?;
/// let r = reshape_layout(&l, &[8, 4])?;
/// assert_eq!(r.bases("register")?, vec![vec![2, 0], vec![4, 0], vec![0, 1], vec![0, 2], vec![1, 0]]);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn reshape_layout(layout: &LinearLayout, shape: &[u64]) -> Result<LinearLayout> {
    let reversed: Vec<DimName> = layout.out_dim_names().rev().cloned().collect();
    let names = standard_out_dim_names(shape.len());
    let new: Vec<(DimName, u64)> = names.iter().cloned().zip(shape.iter().copied()).rev().collect();
    layout
        .transpose_outs(&reversed)?
        .reshape_outs(&new)?
        .transpose_outs(&names)
}

/// Permutes every basis's components (`new[k] = old[order[k]]`) while the out-dim names keep
/// their positions; sizes are re-inferred and the result must be surjective. This is how a
/// tensor transpose acts on a layout of it.
///
/// ```
/// # use linear_layout::linear::{transpose_linear_layout, LinearLayout};
/// let l = LinearLayout::from_bases([("register", vec![vec![1, 0], vec![0, 1]]), ("lane", vec![vec![2, 0]])], [("dim0", 4), ("dim1", 2)], true)?;
/// let t = transpose_linear_layout(&l, &[1, 0])?;
/// assert_eq!(t.bases("lane")?, vec![vec![0, 2]]);
/// assert_eq!(t.out_dim_size("dim1")?, 4);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn transpose_linear_layout(layout: &LinearLayout, order: &[usize]) -> Result<LinearLayout> {
    let n = layout.num_out_dims();
    let mut seen = vec![false; n];
    if order.len() != n
        || order
            .iter()
            .any(|&k| k >= n || std::mem::replace(&mut seen[k], true))
    {
        return Err(LayoutError::Precondition {
            op: "transpose_linear_layout",
            detail: format!("order {order:?} is not a permutation of {n} dims"),
        });
    }
    let bases: Vec<(DimName, Vec<Vec<i64>>)> = layout
        .ins
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let bs = layout
                .dim_cols(i)
                .iter()
                .map(|&c| {
                    let comps = layout.unflatten(c);
                    order.iter().map(|&k| comps[k] as i64).collect()
                })
                .collect();
            (d.name, bs)
        })
        .collect();
    LinearLayout::from_bases_inferred(bases, layout.out_dim_names().cloned())
}

/// Drops tensor dim `dim` of a layout whose out-dims are exactly `dim0…dim{r-1}`, renaming the
/// rest to `dim0…dim{r-2}`.
///
/// ```
/// # use linear_layout::linear::{remove_standard_dim, LinearLayout};
/// let l = LinearLayout::from_bases([("register", vec![vec![1, 0], vec![0, 1]])], [("dim0", 2), ("dim1", 2)], true)?;
/// assert_eq!(remove_standard_dim(&l, 0)?.bases("register")?, vec![vec![0], vec![1]]);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn remove_standard_dim(layout: &LinearLayout, dim: usize) -> Result<LinearLayout> {
    let rank = layout.num_out_dims();
    let names = standard_out_dim_names(rank);
    if !layout.out_dim_names().eq(names.iter()) || dim >= rank {
        return Err(LayoutError::Precondition {
            op: "remove_standard_dim",
            detail: format!(
                "out-dims must be dim0..dim{} and {dim} one of them",
                rank.saturating_sub(1)
            ),
        });
    }
    let keep: Vec<DimName> = names
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != dim)
        .map(|(_, n)| *n)
        .collect();
    let ins: Vec<DimName> = layout.in_dim_names().cloned().collect();
    let mut sub = layout.sublayout(&ins, &keep)?;
    let mut outs = sub.outs.edit();
    for (d, name) in outs.iter_mut().zip(standard_out_dim_names(rank - 1)) {
        d.name = name;
    }
    sub.outs = outs.intern("output")?;
    Ok(sub)
}

/// The repetitions of `tile` inside `cvt`: `cvt` with its first bases zeroed where they are
/// exactly `tile`'s, provided no other basis touches the tile's output bits. `None` if `cvt`
/// does not start with `tile`. The tile's out-dims must be among `cvt`'s (Triton 3.6 also
/// required the converse and aborted otherwise).
///
/// ```
/// # use linear_layout::linear::{get_reps, LinearLayout};
/// let cvt = LinearLayout::from_bases([("in", vec![vec![1, 0], vec![0, 1]])], [("out0", 2), ("out1", 2)], true)?;
/// let tile = LinearLayout::identity_1d(2, "in", "out0")?;
/// assert_eq!(get_reps(&cvt, &tile)?.unwrap().bases("in")?, vec![vec![0, 0], vec![0, 1]]);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn get_reps(cvt: &LinearLayout, tile: &LinearLayout) -> Result<Option<LinearLayout>> {
    // The tile embedded in cvt's out-dim arrangement.
    let mut embed = super::fields::FieldMap::new();
    for (o, d) in tile.outs.iter().enumerate() {
        let co = cvt.out_pos(&d.name)?;
        embed.push(tile.out_shift(o), d.bits, cvt.out_shift(co));
    }
    let mask = tile
        .cols
        .as_slice()
        .iter()
        .fold(0u64, |acc, &c| acc | embed.map(c));
    let mut cols = Columns::new();
    for (i, d) in cvt.ins.iter().enumerate() {
        let tile_cols = tile.in_index(&d.name).map_or(&[][..], |t| tile.dim_cols(t));
        let c_cols = cvt.dim_cols(i);
        if tile_cols.len() > c_cols.len() {
            return Ok(None);
        }
        for (k, &c) in c_cols.iter().enumerate() {
            match tile_cols.get(k) {
                Some(&t) if embed.map(t) != c => return Ok(None),
                Some(_) => cols.push(0),
                None if c & mask != 0 => return Ok(None),
                None => cols.push(c),
            }
        }
    }
    LinearLayout::from_parts(cvt.ins, cvt.outs, cols).map(Some)
}

/// The register permutation that makes `b` a left (or right) factor of `a`: each register
/// basis of `b` (broadcast to `a`'s out-dims, shifted to the high bits for a right factor) is
/// matched to the first unused equal register basis of `a`. Both layouts' first in-dim must
/// be `register`. `None` if some basis has no match.
///
/// ```
/// # use linear_layout::linear::{reg_perm_for_divide, LinearLayout};
/// let a = LinearLayout::from_bases([("register", vec![vec![1, 0], vec![0, 1]]), ("lane", vec![vec![2, 0]])], [("dim0", 4), ("dim1", 2)], true)?;
/// let b = LinearLayout::from_bases([("register", vec![vec![0, 1]])], [("dim0", 1), ("dim1", 2)], true)?;
/// assert_eq!(reg_perm_for_divide(&a, &b, true)?.unwrap().action(), &[1, 0]);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn reg_perm_for_divide(a: &LinearLayout, b: &LinearLayout, left: bool) -> Result<Option<ColumnAction>> {
    let first_is_register = |l: &LinearLayout| l.ins.first().is_some_and(|d| d.name == "register");
    if !first_is_register(a) || !first_is_register(b) {
        return Err(LayoutError::Precondition {
            op: "reg_perm_for_divide",
            detail: "the first in-dim of both layouts must be 'register'".into(),
        });
    }
    let mut broadcast = LinearLayout::empty();
    for d in &a.outs {
        broadcast = broadcast.product(&LinearLayout::identity_1d(1, "register", d.name)?)?;
    }
    let bb = broadcast.product(b)?;
    let mut shift_map = super::fields::FieldMap::new();
    for (o, d) in bb.outs.iter().enumerate() {
        let Some(ao) = a.out_index(&d.name) else {
            return Ok(None);
        };
        let a_bits = a.outs[ao].bits;
        if a_bits < d.bits {
            return Ok(None);
        }
        let quotient = if left { 0 } else { a_bits - d.bits };
        shift_map.push(bb.out_shift(o), d.bits, a.out_shift(ao) + quotient);
    }
    if bb.outs.len() != a.outs.len() {
        return Ok(None);
    }
    let a_regs = a.dim_cols(0);
    let mut used = vec![false; a_regs.len()];
    let mut matched = Vec::new();
    for &c in bb.dim_cols(0) {
        let want = shift_map.map(c);
        match (0..a_regs.len()).find(|&j| !used[j] && a_regs[j] == want) {
            Some(j) => {
                used[j] = true;
                matched.push(j);
            }
            None => return Ok(None),
        }
    }
    let rest = (0..a_regs.len()).filter(|&j| !used[j]);
    let action: Vec<usize> = if left {
        matched.iter().copied().chain(rest).collect()
    } else {
        rest.chain(matched.iter().copied()).collect()
    };
    ColumnAction::new(action, "register", a_regs.len() as u32).map(Some)
}

/// The action keeping only the non-zero (non-broadcast) register bases of a layout whose
/// first in-dim is `register`.
///
/// ```
/// # use linear_layout::linear::{action_remove_broadcasted_regs, LinearLayout};
/// let l = LinearLayout::from_bases([("register", vec![vec![1], vec![0], vec![2]])], [("dim0", 4)], true)?;
/// assert_eq!(action_remove_broadcasted_regs(&l)?.action(), &[0, 2]);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn action_remove_broadcasted_regs(layout: &LinearLayout) -> Result<ColumnAction> {
    let first = layout.ins.first().ok_or_else(|| LayoutError::Precondition {
        op: "action_remove_broadcasted_regs",
        detail: "the layout has no in-dims".into(),
    })?;
    let regs = layout.dim_cols(0);
    let keep = regs
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c != 0)
        .map(|(k, _)| k)
        .collect();
    ColumnAction::new(keep, first.name, regs.len() as u32)
}

/// The widest vector, in elements, for moving `cvt` (register/lane/… → `offset`) to memory
/// with accesses of at most 128 bits of `bitwidth`-bit elements (or `max_vec_elems`): the
/// largest `v` such that, after permuting the registers, `v` consecutive registers map to `v`
/// consecutive offsets and nothing else touches the low offset bits. Returns `v` and the
/// register permutation. With a cap given, only the identity permutation is accepted.
///
/// ```
/// # use linear_layout::linear::{largest_vectorisation, LinearLayout};
/// let cvt = LinearLayout::from_bases(
///     [("register", vec![vec![2], vec![1], vec![16], vec![4]]), ("lane", vec![vec![8], vec![32]])], [("offset", 64)], true)?;
/// let (v, perm) = largest_vectorisation(&cvt, 16, None)?;
/// assert_eq!((v, perm.action()), (8, &[1, 0, 3, 2][..]));
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn largest_vectorisation(
    cvt: &LinearLayout,
    bitwidth: u32,
    max_vec_elems: Option<u64>,
) -> Result<(u64, ColumnAction)> {
    if bitwidth == 0 {
        return Err(LayoutError::Precondition {
            op: "largest_vectorisation",
            detail: "the element bit width must be positive".into(),
        });
    }
    let mut v = max_vec_elems.unwrap_or(128 / bitwidth as u64);
    let regs = cvt.in_dim_size_log2("register")?;
    while v >= 1 {
        let tile = LinearLayout::identity_1d(v, "register", "offset")?;
        if let Some(perm) = reg_perm_for_divide(cvt, &tile, true)?
            && (max_vec_elems.is_none() || perm.is_identity())
            && perm.action().len() == regs as usize
            && divide_left(&perm.apply(cvt)?, &tile)?.is_some()
        {
            return Ok((v, perm));
        }
        v /= 2;
    }
    Err(LayoutError::Precondition {
        op: "largest_vectorisation",
        detail: "no vector width of at least 1 element fits".into(),
    })
}

/// `X` with `a ∘ X = b`, solving every in-dim (no identity-dim shortcut): the factorisation
/// of `b` through `a`. Both have the same out-dims (as sets) with `b`'s no larger. `None` when
/// some value of `b` is outside `a`'s image.
///
/// ```
/// # use linear_layout::linear::{factor_through, LinearLayout};
/// let a = LinearLayout::from_bases([("storage", vec![vec![1, 1], vec![2, 0]])], [("x", 4), ("y", 2)], false)?;
/// let b = LinearLayout::from_bases([("value", vec![vec![1, 3]])], [("y", 2), ("x", 4)], false)?;
/// let x = factor_through(&a, &b).unwrap();
/// assert_eq!(x.compose(&a)?, b.transpose_outs(&["x", "y"])?);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn factor_through(a: &LinearLayout, b: &LinearLayout) -> Option<LinearLayout> {
    let order: Vec<DimName> = a.out_dim_names().cloned().collect();
    let b = b.transpose_outs(&order).ok()?;
    b.solve_through(a, IdentityDims::Never, false).ok()
}

/// Whether every value of `subset` is in the image of `superset`.
///
/// ```
/// # use linear_layout::linear::{is_linear_layout_image_subset, LinearLayout};
/// let sup = LinearLayout::identity_1d(8, "x", "o")?;
/// let sub = LinearLayout::strided_1d(2, 4, "y", "o")?;
/// assert!(is_linear_layout_image_subset(&sub, &sup));
/// assert!(!is_linear_layout_image_subset(&sup, &sub));
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn is_linear_layout_image_subset(subset: &LinearLayout, superset: &LinearLayout) -> bool {
    factor_through(superset, subset).is_some()
}

/// OR of the `out_dim` components of every basis of `in_dims`.
///
/// ```
/// # use linear_layout::linear::{basis_mask, LinearLayout};
/// let l = LinearLayout::from_bases([("x", vec![vec![1, 8], vec![2, 16]]), ("y", vec![vec![4, 1]])], [("out0", 8), ("out1", 32)], false)?;
/// assert_eq!(basis_mask(&l, &["x"], "out0")?, 3);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn basis_mask<N: AsRef<str>>(layout: &LinearLayout, in_dims: &[N], out_dim: &str) -> Result<u64> {
    let o = layout.out_pos(out_dim)?;
    let mut mask = 0;
    for n in in_dims {
        let i = layout.in_pos(n.as_ref())?;
        for &c in layout.dim_cols(i) {
            mask |= layout.component(c, o);
        }
    }
    Ok(mask)
}

/// Bit `k` is set when basis `k` of `in_dim` reaches any of `out_dims`.
///
/// ```
/// # use linear_layout::linear::{input_basis_mask, LinearLayout};
/// let l = LinearLayout::from_bases([("x", vec![vec![1, 0], vec![0, 2], vec![0, 0], vec![4, 8]])], [("out0", 8), ("out1", 16)], false)?;
/// assert_eq!(input_basis_mask(&l, "x", &["out0"])?, 0b1001);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn input_basis_mask<N: AsRef<str>>(layout: &LinearLayout, in_dim: &str, out_dims: &[N]) -> Result<u64> {
    let i = layout.in_pos(in_dim)?;
    let outs: Vec<usize> = out_dims
        .iter()
        .map(|n| layout.out_pos(n.as_ref()))
        .collect::<Result<_>>()?;
    Ok(layout
        .dim_cols(i)
        .iter()
        .enumerate()
        .filter(|&(_, &c)| outs.iter().any(|&o| layout.component(c, o) != 0))
        .fold(0, |acc, (k, _)| acc | 1 << k))
}

/// The largest `s ≤ max_size` such that `identity_1d(s, in_dim, out_dim)` divides the layout
/// on the left, with the quotient.
///
/// ```
/// # use linear_layout::linear::{factor_maximal_identity_prefix, LinearLayout};
/// let l = LinearLayout::from_bases([("x", vec![vec![1], vec![2], vec![8]]), ("other", vec![vec![4]])], [("out", 16)], true)?;
/// assert_eq!(factor_maximal_identity_prefix(&l, "x", "out", 8)?.0, 4);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn factor_maximal_identity_prefix(
    layout: &LinearLayout,
    in_dim: &str,
    out_dim: &str,
    max_size: u64,
) -> Result<(u64, LinearLayout)> {
    let mut best = (1, layout.clone());
    let mut s = 2;
    while s <= max_size && s <= 1 << 62 {
        match divide_left(layout, &LinearLayout::identity_1d(s, in_dim, out_dim)?)? {
            Some(q) => best = (s, q),
            None => break,
        }
        s *= 2;
    }
    Ok(best)
}

/// Renames in-dims and out-dims simultaneously (`(old, new)` pairs; unnamed dims keep their
/// names), keeping positions, bases and sizes. The results must stay distinct.
///
/// ```
/// # use linear_layout::linear::{rename_dims, LinearLayout};
/// let l = LinearLayout::from_bases([("a", vec![vec![1, 0]]), ("b", vec![vec![0, 1]])], [("x", 2), ("y", 2)], true)?;
/// let r = rename_dims(&l, &[("a", "b"), ("b", "a")], &[("x", "y"), ("y", "x")])?;
/// assert_eq!(r.in_dim_names().collect::<Vec<_>>(), ["b", "a"]);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn rename_dims<N: AsRef<str>, M: AsRef<str>>(
    layout: &LinearLayout,
    in_renames: &[(N, M)],
    out_renames: &[(N, M)],
) -> Result<LinearLayout> {
    fn apply<N: AsRef<str>, M: AsRef<str>>(
        dims: &[Dim],
        renames: &[(N, M)],
        side: &'static str,
    ) -> Result<Dims> {
        let mut out = Dims::new();
        for d in dims {
            let name = renames
                .iter()
                .find(|(old, _)| d.name == *old.as_ref())
                .map_or(d.name, |(_, new)| DimName::from(new.as_ref()));
            if out.iter().any(|e: &Dim| e.name == name) {
                return Err(LayoutError::DuplicateDim { dim: name, side });
            }
            out.push(Dim::new(name, d.bits));
        }
        Ok(out)
    }
    let ins = apply(&layout.ins, in_renames, "input")?;
    let outs = apply(&layout.outs, out_renames, "output")?;
    LinearLayout::from_parts(ins, outs, layout.cols.clone())
}

/// For each of `in_dims`, `(name, stride, mask)` when that dim maps to `out_dim` as
/// `x ↦ stride·x` (a power-of-two stride, or 0) on bits no other listed dim uses, and no other
/// in-dim touches those bits; `None` otherwise. This is the test for "this part of the layout
/// is plain integer arithmetic".
///
/// ```
/// # use linear_layout::linear::{integer_strides, LinearLayout};
/// let l = LinearLayout::from_bases([("x", vec![vec![2], vec![4]]), ("y", vec![vec![1]]), ("broadcast", vec![vec![0]])], [("out", 8)], true)?;
/// let s = integer_strides(&l, "out", &["x"])?.unwrap();
/// assert_eq!((s[0].1, s[0].2), (2, 6));
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn integer_strides<N: AsRef<str>>(
    layout: &LinearLayout,
    out_dim: &str,
    in_dims: &[N],
) -> Result<Option<Vec<(DimName, u64, u64)>>> {
    let o = layout.out_pos(out_dim)?;
    let mut result = Vec::new();
    let mut selected = 0u64;
    for n in in_dims {
        let i = layout.in_pos(n.as_ref())?;
        let comps: SmallVec<[u64; 8]> = layout
            .dim_cols(i)
            .iter()
            .map(|&c| layout.component(c, o))
            .collect();
        let stride = comps.first().copied().unwrap_or(0);
        if stride != 0 && !stride.is_power_of_two() {
            return Ok(None);
        }
        let mut mask = 0;
        for (bit, &v) in comps.iter().enumerate() {
            if Some(v) != stride.checked_shl(bit as u32).filter(|s| s >> bit == stride) {
                return Ok(None);
            }
            mask |= v;
        }
        if selected & mask != 0 {
            return Ok(None);
        }
        selected |= mask;
        result.push((layout.ins[i].name, stride, mask));
    }
    let others: Vec<DimName> = layout
        .in_dim_names()
        .filter(|d| !in_dims.iter().any(|n| n.as_ref() == d.as_str()))
        .cloned()
        .collect();
    if selected & basis_mask(layout, &others, out_dim)? != 0 {
        return Ok(None);
    }
    Ok(Some(result))
}

/// `b.invert_and_compose(a)` for a multi-CTA conversion, with every `block` bit that `a`
/// replicates (a zero block basis) forced to map to its own block: data stays in its block.
/// Both layouts need a `block` in-dim, and the conversion a `block` out-dim.
///
/// ```
/// # use linear_layout::linear::{invert_and_compose_block_local, LinearLayout};
/// let a = LinearLayout::from_bases([("offset", vec![vec![1]]), ("block", vec![vec![0]])], [("dim", 2)], true)?;
/// let b = LinearLayout::from_bases([("register", vec![]), ("block", vec![vec![1]])], [("dim", 2)], true)?;
/// let c = invert_and_compose_block_local(&a, &b)?;
/// assert_eq!(c.bases("block")?, vec![vec![1, 1]]);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn invert_and_compose_block_local(a: &LinearLayout, b: &LinearLayout) -> Result<LinearLayout> {
    let mut cvt = b.solve_through(a, IdentityDims::IgnoringSizes, false)?;
    let bo = cvt.out_pos("block")?;
    let block_in = cvt.in_pos("block")?;
    let all_outs: Vec<DimName> = a.out_dim_names().cloned().collect();
    let live = input_basis_mask(a, "block", &all_outs)?;
    let block_bits = a.in_dim_size_log2("block")?;
    let shift = cvt.out_shift(bo);
    let start = cvt.in_offset(block_in) as usize;
    let n_block = cvt.ins[block_in].bits;
    for k in 0..block_bits.min(63) {
        if live >> k & 1 == 1 {
            continue;
        }
        let bit = (1u64 << k).checked_shl(shift).unwrap_or(0);
        let cols = cvt.cols.as_mut_slice();
        for c in cols.iter_mut() {
            *c &= !bit;
        }
        if k < n_block {
            cols[start + k as usize] |= bit;
        }
    }
    Ok(cvt)
}

/// The permutation layout from `src`'s in-dims to `dst`'s that matches every basis of `src`
/// with an equal, unused basis of `dst` (scanning `dst` in `src`'s in-dim order). Errors when
/// some basis has no match.
///
/// ```
/// # use linear_layout::linear::{basis_permutation_layout, LinearLayout};
/// let src = LinearLayout::from_bases([("r", vec![vec![2], vec![1]])], [("o", 4)], true)?;
/// let dst = LinearLayout::from_bases([("r", vec![vec![1], vec![2]])], [("o", 4)], true)?;
/// assert_eq!(basis_permutation_layout(&src, &dst)?.bases("r")?, vec![vec![2], vec![1]]);
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn basis_permutation_layout(src: &LinearLayout, dst: &LinearLayout) -> Result<LinearLayout> {
    let order: Vec<DimName> = src.out_dim_names().cloned().collect();
    let dst = dst.transpose_outs(&order)?;
    let mut pool: Vec<(usize, u32, u64, bool)> = Vec::new(); // (src in-dim, basis, value, used)
    for (k, d) in src.ins.iter().enumerate() {
        let di = dst.in_pos(&d.name)?;
        for (b, &c) in dst.dim_cols(di).iter().enumerate() {
            pool.push((k, b as u32, c, false));
        }
    }
    let mut cols = Columns::new();
    for &c in src.cols.as_slice() {
        let slot = pool
            .iter_mut()
            .find(|(_, _, v, used)| !used && *v == c)
            .ok_or_else(|| LayoutError::Precondition {
                op: "basis_permutation_layout",
                detail: format!("no unused basis of the destination equals {c}"),
            })?;
        slot.3 = true;
        // Component of out-dim `slot.0` (src in-dim order) is 2^basis.
        let shift = src.in_offset(slot.0);
        cols.push(1u64.checked_shl(shift + slot.1).unwrap_or(0));
    }
    let outs: Dims = src.ins.iter().map(|d| Dim::new(d.name, d.bits)).collect();
    let l = LinearLayout::from_parts(src.ins, outs, cols)?;
    l.require_surjective()?;
    Ok(l)
}

#[cfg(all(test, feature = "quickcheck"))]
mod laws {
    use super::*;
    use crate::linear::check_law;

    /// identity_standard_nd is the product of the 1-D identities over `order`.
    #[test]
    fn identity_standard_nd_is_the_product_of_1d_identities() {
        fn law(sizes: Vec<u8>, rotate: u8) -> bool {
            let shape: Vec<u64> = sizes
                .iter()
                .take(4)
                .map(|&s| if s % 7 == 6 { 0 } else { 1u64 << (s % 5) })
                .collect();
            let mut order: Vec<usize> = (0..shape.len()).collect();
            if !order.is_empty() {
                let k = rotate as usize % order.len();
                order.rotate_left(k);
            }
            let names = standard_out_dim_names(shape.len());
            let mut product = Ok(LinearLayout::empty());
            for &d in &order {
                product =
                    product.and_then(|p| p.product(&LinearLayout::identity_1d(shape[d], "reg", names[d])?));
            }
            identity_standard_nd("reg", &shape, &order) == product
        }
        check_law(law as fn(Vec<u8>, u8) -> bool);
    }
}
