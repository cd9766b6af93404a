//! Structural operations: reorder, reshape, restrict, resize, concatenate and rename dims.
//!
//! None of these changes what the layout computes beyond what its name says; most only
//! re-label the columns of the matrix or re-pack the fields of a flattened basis.

use super::dims::{Dim, DimList, Dims};
use super::fields::FieldMap;
use super::layout::{Columns, MAX_BITS, MAX_DIMS, Result, low_mask, too_many_dims};
use super::{DimName, LayoutError, LinearLayout};

fn list<N: AsRef<str>>(names: &[N]) -> Vec<DimName> {
    names.iter().map(|n| DimName::from(n.as_ref())).collect()
}

/// `order` must list every dim of `dims` exactly once.
fn permutation<N: AsRef<str>>(op: &'static str, dims: &[Dim], order: &[N]) -> Result<Vec<usize>> {
    let mismatch = || LayoutError::DimsMismatch {
        op,
        expected: dims.iter().map(|d| d.name).collect(),
        got: list(order),
    };
    if order.len() != dims.len() {
        return Err(mismatch());
    }
    let mut perm = Vec::with_capacity(order.len());
    for n in order {
        let p = dims
            .iter()
            .position(|d| d.name == *n.as_ref())
            .ok_or_else(mismatch)?;
        if perm.contains(&p) {
            return Err(mismatch());
        }
        perm.push(p);
    }
    Ok(perm)
}

/// New dims from `(name, size)` pairs whose sizes multiply to `2^total_bits`.
fn resized_dims<N: AsRef<str>>(op: &'static str, new_dims: &[(N, u64)], total_bits: u32) -> Result<Dims> {
    let mut dims = Dims::new();
    let mut bits = 0u32;
    for (name, size) in new_dims {
        let name = DimName::from(name.as_ref());
        if *size == 0 || !size.is_power_of_two() {
            return Err(LayoutError::SizeNotPowerOfTwo {
                dim: name,
                size: (*size).min(i64::MAX as u64) as i64,
            });
        }
        if dims.iter().any(|d: &Dim| d.name == name) {
            return Err(LayoutError::DuplicateDim { dim: name, side: op });
        }
        if dims.len() == MAX_DIMS {
            return Err(too_many_dims(
                if op == "reshape_ins" { "input" } else { "output" },
                new_dims.len(),
            ));
        }
        bits += size.trailing_zeros();
        dims.push(Dim::new(name, size.trailing_zeros()));
    }
    if bits != total_bits {
        return Err(LayoutError::Precondition {
            op,
            detail: format!(
                "the new sizes multiply to 2^{bits}, but the layout's total size is 2^{total_bits}"
            ),
        });
    }
    Ok(dims)
}

impl LinearLayout {
    /// Reorders the in-dims (`order` lists each exactly once); bases are unchanged.
    ///
    /// Law: transposing to a permutation and back gives the original layout.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(2, "a", "o")?.product(&LinearLayout::identity_1d(2, "b", "o")?)?;
    /// let t = l.transpose_ins(&["b", "a"])?;
    /// assert_eq!(t.in_dim_names().collect::<Vec<_>>(), ["b", "a"]);
    /// assert_eq!(t.transpose_ins(&["a", "b"])?, l);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn transpose_ins<N: AsRef<str>>(&self, order: &[N]) -> Result<LinearLayout> {
        let perm = permutation("transpose_ins", &self.ins, order)?;
        if perm.iter().enumerate().all(|(k, &p)| k == p) {
            return Ok(self.clone());
        }
        let ins: Dims = perm.iter().map(|&p| self.ins[p]).collect();
        let mut cols = Columns::new();
        for &p in &perm {
            for &c in self.dim_cols(p) {
                cols.push(c);
            }
        }
        LinearLayout::from_parts(ins, self.outs, cols)
    }

    /// Reorders the out-dims (`order` lists each exactly once); every basis's components are
    /// permuted to match.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::from_bases([("i", vec![vec![1, 0], vec![0, 1]])], [("a", 2), ("b", 2)], true)?;
    /// let t = l.transpose_outs(&["b", "a"])?;
    /// assert_eq!(t.bases("i")?, vec![vec![0, 1], vec![1, 0]]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn transpose_outs<N: AsRef<str>>(&self, order: &[N]) -> Result<LinearLayout> {
        let perm = permutation("transpose_outs", &self.outs, order)?;
        if perm.iter().enumerate().all(|(k, &p)| k == p) {
            return Ok(self.clone());
        }
        let outs: Dims = perm.iter().map(|&p| self.outs[p]).collect();
        let mut map = FieldMap::new();
        let mut shift = 0;
        for &p in &perm {
            map.push(self.out_shift(p), self.outs[p].bits, shift);
            shift += self.outs[p].bits;
        }
        let cols = self.cols.as_slice().iter().map(|&c| map.map(c)).collect();
        LinearLayout::from_parts(self.ins, outs, cols)
    }

    /// Re-cuts the input space into new in-dims: all bases, in order, are dealt out to the new
    /// dims (`log2(size)` each, in order). The sizes must multiply to the total input size.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(8, "i", "o")?;
    /// let r = l.reshape_ins(&[("a", 2), ("b", 4)])?;
    /// assert_eq!(r.bases("b")?, vec![vec![2], vec![4]]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn reshape_ins<N: AsRef<str>>(&self, new_dims: &[(N, u64)]) -> Result<LinearLayout> {
        let ins = resized_dims("reshape_ins", new_dims, self.total_in_bits())?;
        LinearLayout::from_parts(ins, self.outs, self.cols.clone())
    }

    /// Re-cuts the output space into new out-dims, reading each output as one row-major-style
    /// number (the first out-dim least significant). The sizes must multiply to the total
    /// output size.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(8, "i", "o")?;
    /// let r = l.reshape_outs(&[("lo", 2), ("hi", 4)])?;
    /// assert_eq!(r.bases("i")?, vec![vec![1, 0], vec![0, 1], vec![0, 2]]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn reshape_outs<N: AsRef<str>>(&self, new_dims: &[(N, u64)]) -> Result<LinearLayout> {
        let outs = resized_dims("reshape_outs", new_dims, self.total_out_bits())?;
        LinearLayout::from_parts(self.ins, outs, self.cols.clone())
    }

    /// One in-dim (named like the first) of the total input size.
    ///
    /// Law: flattening agrees with apply (the flattened input is the in-dims concatenated).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(2, "a", "o")?.product(&LinearLayout::identity_1d(2, "b", "o")?)?;
    /// assert_eq!(l.flatten_ins()?.in_dims().map(|(n, s)| (n.as_str(), s)).collect::<Vec<_>>(), [("a", 4)]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn flatten_ins(&self) -> Result<LinearLayout> {
        match self.ins.first() {
            None => self.reshape_ins::<&str>(&[]),
            Some(d) => self.reshape_ins(&[(d.name.as_str(), self.total_in_size())]),
        }
    }

    /// One out-dim (named like the first) of the total output size.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::from_bases([("i", vec![vec![0, 1], vec![1, 0]])], [("a", 2), ("b", 2)], true)?;
    /// assert_eq!(l.flatten_outs()?.bases("i")?, vec![vec![2], vec![1]]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn flatten_outs(&self) -> Result<LinearLayout> {
        match self.outs.first() {
            None => self.reshape_outs::<&str>(&[]),
            Some(d) => self.reshape_outs(&[(d.name.as_str(), self.total_out_size())]),
        }
    }

    /// The layout restricted to some in-dims (the others read as 0) and some out-dims (the
    /// others dropped from every basis). Both lists must be subsets; the layout's own order is
    /// kept and out-dim sizes are unchanged.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::from_bases([("i", vec![vec![1, 1]]), ("j", vec![vec![0, 1]])], [("a", 2), ("b", 2)], false)?;
    /// let s = l.sublayout(&["i"], &["b"])?;
    /// assert_eq!(s.bases("i")?, vec![vec![1]]);
    /// assert!(!s.has_in_dim("j"));
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn sublayout<N: AsRef<str>, M: AsRef<str>>(
        &self,
        in_dims: &[N],
        out_dims: &[M],
    ) -> Result<LinearLayout> {
        let subset_error = || LayoutError::Precondition {
            op: "sublayout",
            detail: format!(
                "dimensions in {:?} / out {:?} must be a subset of the layout's in {:?} / out {:?}",
                list(in_dims),
                list(out_dims),
                self.ins.iter().map(|d| &d.name).collect::<Vec<_>>(),
                self.outs.iter().map(|d| &d.name).collect::<Vec<_>>()
            ),
        };
        if !in_dims.iter().all(|n| self.has_in_dim(n.as_ref()))
            || !out_dims.iter().all(|n| self.has_out_dim(n.as_ref()))
        {
            return Err(subset_error());
        }
        let mut outs = Dims::new();
        let mut map = FieldMap::new();
        let mut shift = 0;
        for (o, d) in self.outs.iter().enumerate() {
            if out_dims.iter().any(|n| d.name == *n.as_ref()) {
                map.push(self.out_shift(o), d.bits, shift);
                shift += d.bits;
                outs.push(*d);
            }
        }
        let mut ins = Dims::new();
        let mut cols = Columns::new();
        for (i, d) in self.ins.iter().enumerate() {
            if in_dims.iter().any(|n| d.name == *n.as_ref()) {
                for &c in self.dim_cols(i) {
                    cols.push(map.map(c));
                }
                ins.push(*d);
            }
        }
        LinearLayout::from_parts(ins, outs, cols)
    }

    /// Whether [`sublayout(in_dims, out_dims)`](Self::sublayout) maps everything to zero.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::from_bases([("i", vec![vec![1, 0]]), ("j", vec![vec![0, 1]])], [("a", 2), ("b", 2)], true)?;
    /// assert!(l.sublayout_is_zero(&["i"], &["b"])?);
    /// assert!(!l.sublayout_is_zero(&["j"], &["b"])?);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn sublayout_is_zero<N: AsRef<str>, M: AsRef<str>>(
        &self,
        in_dims: &[N],
        out_dims: &[M],
    ) -> Result<bool> {
        Ok(self
            .sublayout(in_dims, out_dims)?
            .cols
            .as_slice()
            .iter()
            .all(|&c| c == 0))
    }

    /// Whether the square sublayout on `dims` (each both an in- and an out-dim) is the
    /// identity: equal sizes, and flattened basis `i` equal to `2^i` (Triton's
    /// `squareSublayoutIsIdentity`). Empty `dims` gives `true`.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(4, "block", "block")?;
    /// assert!(l.square_sublayout_is_identity(&["block"])?);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn square_sublayout_is_identity<N: AsRef<str>>(&self, dims: &[N]) -> Result<bool> {
        if dims.is_empty() {
            return Ok(true);
        }
        let sub = self.sublayout(dims, dims)?;
        for d in dims {
            if self.in_dim_size_log2(d.as_ref())? != self.out_dim_size_log2(d.as_ref())? {
                return Ok(false);
            }
        }
        Ok(sub
            .cols
            .as_slice()
            .iter()
            .enumerate()
            .all(|(i, &c)| c == 1u64 << i))
    }

    /// Changes an in-dim's size. Shrinking keeps the low bases; growing appends zero bases
    /// (the new input bits are broadcast). Triton 3.6 only shrinks; growing is the newer
    /// behaviour and is what a caller asking for a larger size means.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(4, "i", "o")?;
    /// assert_eq!(l.resize_in_dim("i", 2)?.bases("i")?, vec![vec![1]]);
    /// assert_eq!(l.resize_in_dim("i", 16)?.bases("i")?, vec![vec![1], vec![2], vec![0], vec![0]]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn resize_in_dim(&self, dim: &str, size: u64) -> Result<LinearLayout> {
        let i = self.in_pos(dim)?;
        if size == 0 || !size.is_power_of_two() {
            return Err(LayoutError::SizeNotPowerOfTwo {
                dim: dim.into(),
                size: size.min(i64::MAX as u64) as i64,
            });
        }
        let bits = size.trailing_zeros();
        let total = self.total_in_bits() - self.ins[i].bits + bits;
        if total > MAX_BITS {
            return Err(LayoutError::TooManyBits {
                side: "input",
                bits: total,
            });
        }
        let mut ins = self.ins.edit();
        let mut cols = Columns::new();
        for k in 0..self.ins.len() {
            let old = self.dim_cols(k);
            if k == i {
                for b in 0..bits as usize {
                    cols.push(old.get(b).copied().unwrap_or(0));
                }
            } else {
                old.iter().for_each(|&c| cols.push(c));
            }
        }
        ins[i].bits = bits;
        LinearLayout::from_parts(ins, self.outs, cols)
    }

    /// Shrinks an out-dim to `size`: every component of that out-dim that does not fit becomes
    /// 0 (it is dropped, not masked: 5 resized to 4 becomes 0).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::from_bases([("i", vec![vec![1], vec![5]])], [("o", 8)], false)?;
    /// assert_eq!(l.resize_out_dim("o", 4)?.bases("i")?, vec![vec![1], vec![0]]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn resize_out_dim(&self, dim: &str, size: u64) -> Result<LinearLayout> {
        let o = self.out_pos(dim)?;
        if size == 0 || !size.is_power_of_two() {
            return Err(LayoutError::SizeNotPowerOfTwo {
                dim: dim.into(),
                size: size.min(i64::MAX as u64) as i64,
            });
        }
        let bits = size.trailing_zeros();
        let old_bits = self.outs[o].bits;
        if bits > old_bits {
            return Err(LayoutError::SizeMismatch {
                op: "resize_out_dim",
                dim: dim.into(),
                size: 1 << old_bits.min(63),
                required: format!("it cannot grow to {size}"),
            });
        }
        let shift = self.out_shift(o);
        let mut outs = self.outs.edit();
        outs[o].bits = bits;
        let mut map = FieldMap::new();
        let mut to = 0;
        for (k, d) in outs.iter().enumerate() {
            map.push(self.out_shift(k), d.bits, to);
            to += d.bits;
        }
        let cols = self
            .cols
            .as_slice()
            .iter()
            .map(|&c| {
                let comp = c.checked_shr(shift).unwrap_or(0) & low_mask(old_bits);
                let kept = if comp >> bits != 0 {
                    c & !(low_mask(old_bits) << shift)
                } else {
                    c
                };
                map.map(kept)
            })
            .collect();
        LinearLayout::from_parts(self.ins, outs, cols)
    }

    /// `self`'s in-dims followed by `other`'s, over the same out-dims (names, order, sizes).
    /// The in-dim names must be disjoint (Triton 3.6 silently dropped a repeated one).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let a = LinearLayout::identity_1d(4, "i", "o")?;
    /// let b = LinearLayout::identity_1d(4, "j", "o")?;
    /// assert_eq!(a.concat_ins(&b)?.in_dim_names().collect::<Vec<_>>(), ["i", "j"]);
    /// assert!(a.concat_ins(&a).is_err());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn concat_ins(&self, other: &LinearLayout) -> Result<LinearLayout> {
        if self.outs != other.outs {
            return Err(LayoutError::DimsMismatch {
                op: "concat_ins (out-dims, with sizes)",
                expected: self.out_dim_names().cloned().collect(),
                got: other.out_dim_names().cloned().collect(),
            });
        }
        if let Some(d) = other.ins.iter().find(|d| self.has_in_dim(&d.name)) {
            return Err(LayoutError::DuplicateDim {
                dim: d.name,
                side: "concat_ins input",
            });
        }
        let total = self.total_in_bits() + other.total_in_bits();
        if total > MAX_BITS {
            return Err(LayoutError::TooManyBits {
                side: "input",
                bits: total,
            });
        }
        let mut ins = self.ins.edit();
        ins.extend(other.ins.iter().cloned());
        let cols = self
            .cols
            .as_slice()
            .iter()
            .chain(other.cols.as_slice())
            .copied()
            .collect();
        LinearLayout::from_parts(ins, self.outs, cols)
    }

    /// `self`'s out-dims followed by `other`'s, over the same in-dims (names, order, sizes):
    /// each basis is `self`'s components then `other`'s. Out-dim names must be disjoint.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let a = LinearLayout::identity_1d(4, "i", "o")?;
    /// let b = LinearLayout::identity_1d(4, "i", "p")?;
    /// assert_eq!(a.concat_outs(&b)?.bases("i")?, vec![vec![1, 1], vec![2, 2]]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn concat_outs(&self, other: &LinearLayout) -> Result<LinearLayout> {
        if self.ins != other.ins {
            return Err(LayoutError::DimsMismatch {
                op: "concat_outs (in-dims, with sizes)",
                expected: self.in_dim_names().cloned().collect(),
                got: other.in_dim_names().cloned().collect(),
            });
        }
        if let Some(d) = other.outs.iter().find(|d| self.has_out_dim(&d.name)) {
            return Err(LayoutError::DuplicateDim {
                dim: d.name,
                side: "concat_outs output",
            });
        }
        let low = self.total_out_bits();
        let total = low + other.total_out_bits();
        if total > MAX_BITS {
            return Err(LayoutError::TooManyBits {
                side: "output",
                bits: total,
            });
        }
        let mut outs = self.outs.edit();
        outs.extend(other.outs.iter().cloned());
        let cols = self
            .cols
            .as_slice()
            .iter()
            .zip(other.cols.as_slice())
            .map(|(&a, &b)| a | b.checked_shl(low).unwrap_or(0))
            .collect();
        LinearLayout::from_parts(self.ins, outs, cols)
    }

    /// Removes an in-dim of size 1 (Triton 3.6's `unsqueezeIn`, newer `squeezeIns`).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(1, "block", "o")?.product(&LinearLayout::identity_1d(4, "i", "o")?)?;
    /// assert_eq!(l.squeeze_in("block")?.in_dim_names().collect::<Vec<_>>(), ["i"]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn squeeze_in(&self, dim: &str) -> Result<LinearLayout> {
        let i = self.in_pos(dim)?;
        if self.ins[i].bits != 0 {
            return Err(LayoutError::SizeMismatch {
                op: "squeeze_in",
                dim: dim.into(),
                size: 1 << self.ins[i].bits.min(63),
                required: "only a size-1 dimension can be removed".into(),
            });
        }
        let mut ins = self.ins.edit();
        ins.remove(i);
        LinearLayout::from_parts(ins, self.outs, self.cols.clone())
    }

    /// Removes an out-dim of size 1 (Triton 3.6's `unsqueezeOut`). Triton 3.6 rebuilds the
    /// layout with bases that still carry the removed component and so aborts whenever the
    /// layout has a basis; here the component (always 0) is dropped, as intended.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::from_bases([("i", vec![vec![1, 0], vec![2, 0]])], [("o", 4), ("p", 1)], true)?;
    /// assert_eq!(l.squeeze_out("p")?.bases("i")?, vec![vec![1], vec![2]]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn squeeze_out(&self, dim: &str) -> Result<LinearLayout> {
        let o = self.out_pos(dim)?;
        if self.outs[o].bits != 0 {
            return Err(LayoutError::SizeMismatch {
                op: "squeeze_out",
                dim: dim.into(),
                size: 1 << self.outs[o].bits.min(63),
                required: "only a size-1 dimension can be removed".into(),
            });
        }
        let mut outs = self.outs.edit();
        outs.remove(o);
        LinearLayout::from_parts(self.ins, outs, self.cols.clone())
    }

    /// Drops the zero bases of one in-dim (its size shrinks accordingly).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::from_bases([("r", vec![vec![1], vec![0], vec![2]])], [("o", 4)], true)?;
    /// assert_eq!(l.remove_zero_bases_along_dim("r")?.bases("r")?, vec![vec![1], vec![2]]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn remove_zero_bases_along_dim(&self, dim: &str) -> Result<LinearLayout> {
        let i = self.in_pos(dim)?;
        let mut ins = self.ins.edit();
        let mut cols = Columns::new();
        for k in 0..self.ins.len() {
            for &c in self.dim_cols(k) {
                if k != i || c != 0 {
                    cols.push(c);
                }
            }
        }
        ins[i].bits = self.dim_cols(i).iter().filter(|&&c| c != 0).count() as u32;
        LinearLayout::from_parts(ins, self.outs, cols)
    }

    /// Renames an in-dim, keeping its position and bases.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(4, "offset", "dim0")?.rename_in_dim("offset", "register")?;
    /// assert!(l.has_in_dim("register"));
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn rename_in_dim(&self, old: &str, new: impl Into<DimName>) -> Result<LinearLayout> {
        let mut l = self.clone();
        l.ins = rename(self.ins, old, new.into(), "input")?;
        Ok(l)
    }

    /// Renames an out-dim, keeping its position and size.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(4, "lane", "x")?.rename_out_dim("x", "dim0")?;
    /// assert!(l.has_out_dim("dim0"));
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn rename_out_dim(&self, old: &str, new: impl Into<DimName>) -> Result<LinearLayout> {
        let mut l = self.clone();
        l.outs = rename(self.outs, old, new.into(), "output")?;
        Ok(l)
    }
}

fn rename(dims: DimList, old: &str, new: DimName, side: &'static str) -> Result<DimList> {
    let k = dims
        .iter()
        .position(|d| d.name == *old)
        .ok_or_else(|| LayoutError::DimNotFound {
            dim: old.into(),
            side,
        })?;
    if dims.iter().enumerate().any(|(j, d)| j != k && d.name == new) {
        return Err(LayoutError::DuplicateDim { dim: new, side });
    }
    let mut dims = dims.edit();
    dims[k].name = new;
    dims.intern(side)
}

#[cfg(all(test, feature = "quickcheck"))]
mod laws {
    use super::*;
    use crate::linear::check_law;
    use quickcheck::{Arbitrary, Gen};

    fn permuted(names: Vec<DimName>, seed: u64) -> Vec<DimName> {
        let mut v = names;
        let mut g = Gen::new(8);
        for i in (1..v.len()).rev() {
            let j = (u64::arbitrary(&mut g) ^ seed) as usize % (i + 1);
            v.swap(i, j);
        }
        v
    }

    /// Transposing the ins or outs to any order and back gives the layout again.
    #[test]
    fn transpose_round_trips() {
        fn law(l: LinearLayout, seed: u64) -> bool {
            let ins: Vec<DimName> = l.in_dim_names().cloned().collect();
            let outs: Vec<DimName> = l.out_dim_names().cloned().collect();
            let t = l
                .transpose_ins(&permuted(ins.clone(), seed))
                .and_then(|t| t.transpose_outs(&permuted(outs.clone(), seed)));
            t.and_then(|t| t.transpose_ins(&ins)?.transpose_outs(&outs)).ok() == Some(l)
        }
        check_law(law as fn(LinearLayout, u64) -> bool);
    }

    /// Reshaping the ins and outs (here: flattening) and back gives the layout again, and the
    /// flattened layout computes the same function.
    #[test]
    fn flatten_and_reshape_agree_with_apply() {
        fn law(l: LinearLayout, x: u64) -> bool {
            let flat = l.flatten_ins().and_then(|f| f.flatten_outs()).unwrap();
            let ins: Vec<(DimName, u64)> = l.in_dims().map(|(n, s)| (*n, s)).collect();
            let outs: Vec<(DimName, u64)> = l.out_dims().map(|(n, s)| (*n, s)).collect();
            let back = flat.reshape_ins(&ins).and_then(|b| b.reshape_outs(&outs));
            let x = x & low_mask(l.total_in_bits());
            let same_function = flat.in_dims().len() > 1
                || flat.apply_flat(x) == l.apply_flat(x)
                    && (flat.num_in_dims() == 0
                        || flat
                            .apply(&[(flat.ins[0].name.as_str(), x)])
                            .map(|o| o.first().copied())
                            .ok()
                            == Some(flat.outs.first().map(|_| l.apply_flat(x))));
            back.ok() == Some(l) && same_function
        }
        check_law(law as fn(LinearLayout, u64) -> bool);
    }

    /// concat_outs of two sublayouts over complementary out-dims is the layout again.
    #[test]
    fn sublayouts_concatenate_back() {
        fn law(l: LinearLayout, split: u8) -> bool {
            let outs: Vec<DimName> = l.out_dim_names().cloned().collect();
            let ins: Vec<DimName> = l.in_dim_names().cloned().collect();
            let k = split as usize % (outs.len() + 1);
            let (lo, hi) = outs.split_at(k);
            let joined = l
                .sublayout(&ins, lo)
                .and_then(|a| a.concat_outs(&l.sublayout(&ins, hi)?));
            joined.ok() == Some(l)
        }
        check_law(law as fn(LinearLayout, u8) -> bool);
    }
}
