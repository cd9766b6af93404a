//! The [`LinearLayout`] value: representation, constructors, queries, `apply` and printing.

use std::fmt;
use std::hash::{Hash, Hasher};

use smallvec::SmallVec;

use super::dims::{Dim, DimList, Dims};
use super::gf2;
use super::{DimName, LayoutError};
use crate::limits::LimitExceeded;

/// Result of a layout operation.
pub type Result<T, E = LayoutError> = std::result::Result<T, E>;

/// The most input bits, and the most output bits, a layout may have (as in Triton).
///
/// ```
/// use linear_layout::linear::{LayoutError, LinearLayout, MAX_BITS};
/// let wide = LinearLayout::identity_1d(1 << 32, "x", "y")?;
/// assert_eq!(wide.product(&LinearLayout::identity_1d(1 << 32, "z", "w")?)?.total_in_bits(), MAX_BITS);
/// let err = wide.product(&LinearLayout::identity_1d(1 << 33, "z", "w")?).unwrap_err();
/// assert!(matches!(err, LayoutError::TooManyBits { bits: 65, .. }));
/// # Ok::<(), LayoutError>(())
/// ```
pub const MAX_BITS: u32 = 64;

/// The most input dims, and the most output dims, a layout may have. Dims of size 1 hold no
/// bits, so [`MAX_BITS`] alone would not bound them; GPU layouts use four or five a side.
///
/// ```
/// use linear_layout::linear::{LayoutError, LinearLayout, MAX_DIMS};
/// let outs = |n: usize| (0..n).map(|i| (format!("dim{i}"), 1)).collect::<Vec<_>>();
/// assert!(LinearLayout::from_bases([("x", vec![])], outs(MAX_DIMS), false).is_ok());
/// let err = LinearLayout::from_bases([("x", vec![])], outs(MAX_DIMS + 1), false).unwrap_err();
/// assert!(matches!(err, LayoutError::Limit(l) if l.limit == "linear::MAX_DIMS"));
/// ```
pub const MAX_DIMS: usize = 32;

// `apply` marks the in-dims it has seen in one `u64`.
const _: () = assert!(MAX_DIMS <= 64);

/// The error for `got` dims on `side` (`"input"` or `"output"`).
pub(crate) fn too_many_dims(side: &'static str, got: usize) -> LayoutError {
    LayoutError::Limit(LimitExceeded::new(
        "linear::MAX_DIMS",
        if side == "input" {
            "input dims of a layout"
        } else {
            "output dims of a layout"
        },
        MAX_DIMS as u64,
        got as u64,
    ))
}

/// A dimension name to look up: a `str` or a [`DimName`]. A `str` is converted once, so every
/// comparison is between two `DimName`s (three word compares for short names).
pub(crate) trait NameRef {
    fn find_in(&self, dims: &[Dim]) -> Option<usize>;
    fn to_name(&self) -> DimName;
}

impl NameRef for str {
    #[inline]
    fn find_in(&self, dims: &[Dim]) -> Option<usize> {
        dims.iter().position(|d| d.name == *self)
    }
    fn to_name(&self) -> DimName {
        DimName::from(self)
    }
}

impl NameRef for DimName {
    #[inline]
    fn find_in(&self, dims: &[Dim]) -> Option<usize> {
        dims.iter().position(|d| d.name == *self)
    }
    fn to_name(&self) -> DimName {
        *self
    }
}

/// The flattened bases of a layout: one `u64` per input bit (a column of the matrix), in
/// canonical order (in-dims in order, bit 0 first). Up to 24 columns live inline, which covers
/// the layouts GPU kernels use; larger ones (up to [`MAX_BITS`]) spill to the heap.
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct Columns(SmallVec<[u64; 24]>);

impl Clone for Columns {
    fn clone(&self) -> Self {
        Columns(SmallVec::from_slice(&self.0))
    }
}

impl Columns {
    pub(crate) fn new() -> Self {
        Columns(SmallVec::new())
    }

    /// Appends a column. Callers check the total of input bits beforehand; a push past
    /// [`MAX_BITS`] is ignored rather than allowed to grow without bound.
    #[inline]
    pub(crate) fn push(&mut self, column: u64) {
        if self.0.len() < MAX_BITS as usize {
            self.0.push(column);
        }
    }

    #[inline]
    pub(crate) fn as_slice(&self) -> &[u64] {
        &self.0
    }

    #[inline]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u64] {
        &mut self.0
    }
}

impl FromIterator<u64> for Columns {
    /// At most [`MAX_BITS`] columns are taken, as [`push`](Columns::push) would. Filled in a
    /// plain array and copied once: cheaper than growing the vector column by column.
    #[inline]
    fn from_iter<T: IntoIterator<Item = u64>>(iter: T) -> Self {
        let mut buf = [0u64; MAX_BITS as usize];
        let mut len = 0;
        for (slot, c) in buf.iter_mut().zip(iter) {
            *slot = c;
            len += 1;
        }
        Columns(SmallVec::from_slice(&buf[..len]))
    }
}

/// `2^bits - 1`, also for `bits = 64`.
#[inline]
pub(crate) const fn low_mask(bits: u32) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}

/// A linear map over GF(2) from named input dimensions to named output dimensions.
///
/// # The idea
///
/// A GPU tensor layout says which hardware resource holds each tensor element: register `r`
/// of lane `l` of warp `w` holds element `(i, j)`. For every layout a GPU compiler uses, this
/// map is *linear over GF(2)*: write each hardware index and each tensor index in binary, and
/// every output bit is the XOR of some input bits. So the whole layout is known from the image
/// of each single input bit — its *bases*.
///
/// Example: 4 lanes, 2 registers each, over a 2×4 tensor (`dim0` rows, `dim1` columns), with
/// each lane holding two consecutive columns:
///
/// ```text
///  register=1 -> (dim1=1, dim0=0)
///  lane=1     -> (dim1=2, dim0=0)
///  lane=2     -> (dim1=0, dim0=1)
/// ```
///
/// Lane 3, register 1 is `lane=1 ⊕ lane=2 ⊕ register=1` → `(dim1 = 2⊕1 = 3, dim0 = 1)`.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// let l = LinearLayout::from_bases(
///     [("register", vec![vec![1, 0]]), ("lane", vec![vec![2, 0], vec![0, 1]])],
///     [("dim1", 4), ("dim0", 2)],
///     true,
/// )?;
/// let out = l.apply(&[("register", 1), ("lane", 3)])?;
/// assert_eq!(out.as_slice(), &[3, 1]); // (dim1, dim0)
/// assert!(l.is_invertible());
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
///
/// # Data model (as Triton's `LinearLayout`)
///
/// * In-dims: an ordered list of names, each with `k` bases; the dim's size is `2^k`
///   (`k = 0` is a size-1 dimension). Basis `i` is the image of input value `2^i`.
/// * Out-dims: an ordered list of names with power-of-two sizes.
/// * A basis has one component per out-dim, each below that out-dim's size.
/// * Order is significant everywhere (equality, printing, reshapes). Dims are listed
///   minor-to-major. An in-dim may share its name with an out-dim.
/// * At most 64 input bits and 64 output bits in total.
///
/// Surjectivity, injectivity and invertibility are derived from the rank; nothing else is
/// stored. The representation is the matrix itself: one `u64` column per input bit (the basis
/// with its components packed, first out-dim in the low bits), held inline (up to 24 columns),
/// plus the two lists of dims, each interned once per process and held as one pointer. A
/// layout is three words and its columns: cloning one copies them and allocates nothing.
#[derive(Clone)]
pub struct LinearLayout {
    pub(crate) ins: DimList,
    pub(crate) outs: DimList,
    pub(crate) cols: Columns,
}

/// The dims of one side of a layout under construction: an interned list as it is, or a list
/// to check and intern.
pub(crate) trait IntoDimList {
    fn into_dim_list(self, side: &'static str) -> Result<DimList>;
}

impl IntoDimList for DimList {
    #[inline]
    fn into_dim_list(self, _: &'static str) -> Result<DimList> {
        Ok(self)
    }
}

impl IntoDimList for Dims {
    #[inline]
    fn into_dim_list(mut self, side: &'static str) -> Result<DimList> {
        self.intern(side)
    }
}

/// Named entries, inline for the usual few dims.
type Named<T> = SmallVec<[(DimName, T); 8]>;

/// Named entries with repeated names resolved as Triton's ordered maps resolve them: the
/// first position, the last value. More than [`MAX_DIMS`] distinct names is an error (found
/// before the rest of the entries is read).
fn last_wins<N: Into<DimName>, T>(
    side: &'static str,
    entries: impl IntoIterator<Item = (N, T)>,
) -> Result<Named<T>> {
    let mut out = Named::new();
    for (name, value) in entries {
        let name = name.into();
        match out.iter().position(|(n, _)| *n == name) {
            Some(i) => out[i].1 = value,
            None if out.len() == MAX_DIMS => return Err(too_many_dims(side, MAX_DIMS + 1)),
            None => out.push((name, value)),
        }
    }
    Ok(out)
}

/// Named entries with repeated names collapsed into the first one (at most [`MAX_DIMS`]
/// distinct names).
fn first_wins<N: Into<DimName>, T>(
    side: &'static str,
    entries: impl IntoIterator<Item = (N, T)>,
) -> Result<Named<T>> {
    let mut out = Named::new();
    for (name, value) in entries {
        let name = name.into();
        if !out.iter().any(|(n, _)| *n == name) {
            if out.len() == MAX_DIMS {
                return Err(too_many_dims(side, MAX_DIMS + 1));
            }
            out.push((name, value));
        }
    }
    Ok(out)
}

fn check_size(dim: &DimName, size: i64) -> Result<u32> {
    if size < 1 || (size as u64).count_ones() != 1 {
        return Err(LayoutError::SizeNotPowerOfTwo { dim: *dim, size });
    }
    Ok((size as u64).trailing_zeros())
}

impl LinearLayout {
    /// A surjective layout from its interned dims and its packed columns in canonical order:
    /// how a builder that packs columns itself (the encodings) makes its result. `None` when
    /// the number of columns is not the input's bits, a column reaches past the output, or the
    /// layout is not surjective — the builder then leaves the input to the reference
    /// construction, which names the fault.
    pub(crate) fn from_packed(ins: DimList, outs: DimList, cols: &[u64]) -> Option<Self> {
        let out_bits = outs.bits();
        // One pass: no column past the out-dims, and the quick test of surjectivity (every
        // output bit the highest or every one the lowest bit of some column).
        let (mut stray, mut highest, mut lowest) = (0u64, 0u64, 0u64);
        for &c in cols {
            stray |= c;
            if c != 0 {
                highest |= 1 << (63 - c.leading_zeros());
                lowest |= c & c.wrapping_neg();
            }
        }
        let all = low_mask(out_bits);
        let fits = cols.len() == ins.bits() as usize && stray & !all == 0;
        let onto = highest == all || lowest == all || super::gf2::rank(cols) == out_bits;
        (fits && onto).then(|| LinearLayout {
            ins,
            outs,
            cols: Columns(SmallVec::from_slice(cols)),
        })
    }

    /// Assembles a layout from validated parts; dims still to intern are checked against the
    /// limits ([`MAX_BITS`], [`MAX_DIMS`]) on the way.
    #[inline(always)]
    pub(crate) fn from_parts(ins: impl IntoDimList, outs: impl IntoDimList, cols: Columns) -> Result<Self> {
        Ok(LinearLayout {
            ins: ins.into_dim_list("input")?,
            outs: outs.into_dim_list("output")?,
            cols,
        })
    }

    /// The layout with no dimensions: the unit of [`product`](Self::product).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let e = LinearLayout::empty();
    /// assert_eq!(e.num_in_dims(), 0);
    /// assert_eq!(e.to_string(), "\n(empty layout)");
    /// ```
    pub fn empty() -> Self {
        LinearLayout {
            ins: DimList::EMPTY,
            outs: DimList::EMPTY,
            cols: Columns::new(),
        }
    }

    /// `x ↦ x` from `in_dim` to `out_dim`, both of `size`. Size 0 gives [`empty`](Self::empty).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let id = LinearLayout::identity_1d(4, "lane", "dim0")?;
    /// assert_eq!(id.apply(&[("lane", 3)])?[0], 3);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn identity_1d(size: u64, in_dim: impl Into<DimName>, out_dim: impl Into<DimName>) -> Result<Self> {
        Self::strided_1d(size, 1, in_dim, out_dim)
    }

    /// `x ↦ stride·x` from `in_dim` (of `size`) to `out_dim` (of `stride·size`, which must be a
    /// power of two). Size 0 gives [`empty`](Self::empty).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let s = LinearLayout::strided_1d(4, 2, "register", "dim0")?;
    /// assert_eq!(s.out_dim_size("dim0")?, 8);
    /// assert_eq!(s.apply(&[("register", 3)])?[0], 6);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn strided_1d(
        size: u64,
        stride: u64,
        in_dim: impl Into<DimName>,
        out_dim: impl Into<DimName>,
    ) -> Result<Self> {
        if size == 0 {
            return Ok(Self::empty());
        }
        let in_dim = in_dim.into();
        let out_dim = out_dim.into();
        let in_bits = check_size(&in_dim, size.min(i64::MAX as u64) as i64)?;
        let out_size = stride.checked_mul(size).unwrap_or(0);
        let out_bits = check_size(&out_dim, out_size.min(i64::MAX as u64) as i64)?;
        let mut cols = Columns::new();
        if in_bits > MAX_BITS || out_bits > MAX_BITS {
            return Err(LayoutError::TooManyBits {
                side: "input",
                bits: in_bits.max(out_bits),
            });
        }
        for i in 0..in_bits {
            cols.push(stride << i);
        }
        Self::from_parts(
            Dims::from_iter([Dim::new(in_dim, in_bits)]),
            Dims::from_iter([Dim::new(out_dim, out_bits)]),
            cols,
        )
    }

    /// `x ↦ 0` from `in_dim` (of `size`) to `out_dim` (of `out_size`): every input value is
    /// broadcast to element 0. Size 0 gives [`empty`](Self::empty).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let z = LinearLayout::zeros_1d(8, "lane", "dim0", 1)?;
    /// assert_eq!(z.in_dim_size("lane")?, 8);
    /// assert!(!z.is_injective());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn zeros_1d(
        size: u64,
        in_dim: impl Into<DimName>,
        out_dim: impl Into<DimName>,
        out_size: u64,
    ) -> Result<Self> {
        if size == 0 {
            return Ok(Self::empty());
        }
        let in_dim = in_dim.into();
        let out_dim = out_dim.into();
        let in_bits = check_size(&in_dim, size.min(i64::MAX as u64) as i64)?;
        let out_bits = check_size(&out_dim, out_size.min(i64::MAX as u64) as i64)?;
        let cols = (0..in_bits.min(MAX_BITS)).map(|_| 0).collect();
        Self::from_parts(
            Dims::from_iter([Dim::new(in_dim, in_bits)]),
            Dims::from_iter([Dim::new(out_dim, out_bits)]),
            cols,
        )
    }

    /// Builds a layout from its bases and explicit out-dim sizes, validating every invariant
    /// (in Triton's order: non-negative components, one component per out-dim, power-of-two
    /// sizes, components below their size, at most 64 bits a side, and surjectivity when
    /// `require_surjective`).
    ///
    /// A repeated in-dim name keeps its first position and its last bases; a repeated out-dim
    /// name collapses into one out-dim (as Triton's ordered maps do).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::from_bases(
    ///     [("register", vec![vec![0, 1]]), ("lane", vec![vec![1, 0], vec![0, 0]])],
    ///     [("dim0", 2), ("dim1", 2)],
    ///     false,
    /// )?;
    /// assert_eq!(l.basis("lane", 0)?, vec![1, 0]);
    /// assert!(LinearLayout::from_bases([("x", vec![vec![4]])], [("y", 4)], false).is_err());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn from_bases<I, N, O, M>(bases: I, out_dims: O, require_surjective: bool) -> Result<Self>
    where
        I: IntoIterator<Item = (N, Vec<Vec<i64>>)>,
        N: Into<DimName>,
        O: IntoIterator<Item = (M, i64)>,
        M: Into<DimName>,
    {
        let ins = last_wins("input", bases)?;
        let outs = first_wins("output", out_dims)?;
        Self::build(&ins, &outs, require_surjective)
    }

    /// Builds a layout from its bases, inferring each out-dim's size as the smallest power of
    /// two above every component (at least 1). Like Triton's constructor of this form, the
    /// result must be surjective.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::from_bases_inferred([("in", vec![vec![1], vec![2]])], ["out"])?;
    /// assert_eq!(l.out_dim_size("out")?, 4);
    /// // {1, 4} spans only half of 0..8: not surjective, so rejected.
    /// assert!(LinearLayout::from_bases_inferred([("in", vec![vec![1], vec![4]])], ["out"]).is_err());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn from_bases_inferred<I, N, O, M>(bases: I, out_names: O) -> Result<Self>
    where
        I: IntoIterator<Item = (N, Vec<Vec<i64>>)>,
        N: Into<DimName>,
        O: IntoIterator<Item = M>,
        M: Into<DimName>,
    {
        let bases = last_wins("input", bases)?;
        let names: Vec<DimName> = out_names.into_iter().take(MAX_DIMS + 1).map(Into::into).collect();
        if names.len() > MAX_DIMS {
            return Err(too_many_dims("output", names.len()));
        }
        let sizes: Vec<i64> = (0..names.len())
            .map(|o| {
                bases
                    .iter()
                    .flat_map(|(_, bs)| bs.iter())
                    .filter_map(|b| b.get(o).copied())
                    .filter(|&v| v >= 0)
                    .map(|v| (v as u64 + 1).checked_next_power_of_two().unwrap_or(0))
                    .map(|v| v.min(i64::MAX as u64) as i64)
                    .fold(1i64, i64::max)
            })
            .collect();
        Self::from_bases(bases, names.into_iter().zip(sizes), true)
    }

    /// Builds a layout from flattened bases (as [`flat_bases`](Self::flat_bases) returns them:
    /// each basis one integer, the first out-dim's component in the lowest bits) and explicit
    /// out-dim sizes, with the same checks as [`from_bases`](Self::from_bases): power-of-two
    /// sizes, every basis within the total output size, at most 64 bits a side, and
    /// surjectivity when `require_surjective`. The cheapest way to build a layout whose bases
    /// are already packed.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::from_flat_bases([("i", [1u64, 4].as_slice())], [("a", 4), ("b", 2)], false)?;
    /// assert_eq!(l.bases("i")?, vec![vec![1, 0], vec![0, 1]]);
    /// assert!(LinearLayout::from_flat_bases([("i", [8u64].as_slice())], [("a", 4), ("b", 2)], false).is_err());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn from_flat_bases<I, N, B, O, M>(bases: I, out_dims: O, require_surjective: bool) -> Result<Self>
    where
        I: IntoIterator<Item = (N, B)>,
        N: Into<DimName>,
        B: AsRef<[u64]>,
        O: IntoIterator<Item = (M, u64)>,
        M: Into<DimName>,
    {
        let mut outs = Dims::new();
        for (name, size) in first_wins("output", out_dims)? {
            let bits = check_size(&name, size.min(i64::MAX as u64) as i64)?;
            outs.push(Dim::new(name, bits));
        }
        let out_bits: u32 = outs.iter().map(|d| d.bits).sum();
        if out_bits > MAX_BITS {
            return Err(LayoutError::TooManyBits {
                side: "output",
                bits: out_bits,
            });
        }
        let bases = last_wins("input", bases)?;
        let in_bits: usize = bases.iter().map(|(_, b)| b.as_ref().len()).sum();
        if in_bits > MAX_BITS as usize {
            return Err(LayoutError::TooManyBits {
                side: "input",
                bits: in_bits.min(u32::MAX as usize) as u32,
            });
        }
        let mut ins = Dims::new();
        let mut cols = Columns::new();
        for (name, b) in &bases {
            let d = Dim::new(*name, b.as_ref().len() as u32);
            for &c in b.as_ref() {
                if out_bits < 64 && c >> out_bits != 0 {
                    // The basis overflows the last out-dim (or there is none).
                    let last = outs.last();
                    return Err(LayoutError::BasisOutOfRange {
                        in_dim: d.name,
                        out_dim: last.map_or(DimName::from(""), |o| o.name),
                        value: (c >> (out_bits - last.map_or(0, |o| o.bits))).min(i64::MAX as u64) as i64,
                        size: last.map_or(1, |o| 1u64 << o.bits),
                    });
                }
                cols.push(c);
            }
            ins.push(d);
        }
        let layout = Self::from_parts(ins, outs, cols)?;
        if require_surjective {
            layout.require_surjective()?;
        }
        Ok(layout)
    }

    fn build(ins: &[(DimName, Vec<Vec<i64>>)], outs: &[(DimName, i64)], surj: bool) -> Result<Self> {
        // 1. non-negative components
        for (name, bs) in ins {
            for b in bs {
                for (o, &v) in b.iter().enumerate() {
                    if v < 0 {
                        let out_dim = outs
                            .get(o)
                            .map(|x| x.0)
                            .unwrap_or_else(|| DimName::from(format!("#{o}").as_str()));
                        return Err(LayoutError::NegativeBasis {
                            in_dim: *name,
                            out_dim,
                            value: v,
                        });
                    }
                }
            }
        }
        // 2. one component per out-dim
        for (name, bs) in ins {
            if let Some(b) = bs.iter().find(|b| b.len() != outs.len()) {
                return Err(LayoutError::BasisLength {
                    in_dim: *name,
                    expected: outs.len(),
                    got: b.len(),
                });
            }
        }
        // 3. power-of-two sizes
        let mut out_dims = Dims::new();
        for (name, size) in outs {
            let bits = check_size(name, *size)?;
            out_dims.push(Dim::new(*name, bits));
        }
        // 4. components below their size
        for (name, bs) in ins {
            for b in bs {
                for (o, &v) in b.iter().enumerate() {
                    if (v as u64) >> out_dims[o].bits != 0 {
                        return Err(LayoutError::BasisOutOfRange {
                            in_dim: *name,
                            out_dim: out_dims[o].name,
                            value: v,
                            size: outs[o].1 as u64,
                        });
                    }
                }
            }
        }
        // 5. at most 64 bits a side
        let in_bits: usize = ins.iter().map(|(_, bs)| bs.len()).sum();
        let out_bits: u32 = out_dims.iter().map(|d| d.bits).sum();
        if in_bits > MAX_BITS as usize {
            return Err(LayoutError::TooManyBits {
                side: "input",
                bits: in_bits.min(u32::MAX as usize) as u32,
            });
        }
        if out_bits > MAX_BITS {
            return Err(LayoutError::TooManyBits {
                side: "output",
                bits: out_bits,
            });
        }
        let mut cols = Columns::new();
        let mut in_dims = Dims::new();
        for (name, bs) in ins {
            for b in bs {
                let mut flat = 0u64;
                let mut shift = 0u32;
                for (o, &v) in b.iter().enumerate() {
                    flat |= (v as u64).checked_shl(shift).unwrap_or(0);
                    shift += out_dims[o].bits;
                }
                cols.push(flat);
            }
            in_dims.push(Dim::new(*name, bs.len() as u32));
        }
        let layout = Self::from_parts(in_dims, out_dims, cols)?;
        // 6. surjectivity
        if surj {
            layout.require_surjective()?;
        }
        Ok(layout)
    }

    pub(crate) fn require_surjective(&self) -> Result<()> {
        if self.is_surjective() {
            return Ok(());
        }
        Err(LayoutError::NotSurjective {
            rank: self.rank(),
            out_bits: self.total_out_bits(),
        })
    }

    // ---------------------------------------------------------------- internal geometry

    #[inline]
    pub(crate) fn in_index<N: NameRef + ?Sized>(&self, name: &N) -> Option<usize> {
        name.find_in(&self.ins)
    }

    #[inline]
    pub(crate) fn out_index<N: NameRef + ?Sized>(&self, name: &N) -> Option<usize> {
        name.find_in(&self.outs)
    }

    pub(crate) fn in_pos<N: NameRef + ?Sized>(&self, name: &N) -> Result<usize> {
        self.in_index(name).ok_or_else(|| LayoutError::DimNotFound {
            dim: name.to_name(),
            side: "input",
        })
    }

    pub(crate) fn out_pos<N: NameRef + ?Sized>(&self, name: &N) -> Result<usize> {
        self.out_index(name).ok_or_else(|| LayoutError::DimNotFound {
            dim: name.to_name(),
            side: "output",
        })
    }

    /// Index of the first column of in-dim `i`.
    #[inline]
    pub(crate) fn in_offset(&self, i: usize) -> u32 {
        self.ins[i].start
    }

    /// Bit position of out-dim `o` inside a flattened basis.
    #[inline]
    pub(crate) fn out_shift(&self, o: usize) -> u32 {
        self.outs[o].start
    }

    /// The columns of in-dim `i`.
    #[inline]
    pub(crate) fn dim_cols(&self, i: usize) -> &[u64] {
        let d = &self.ins[i];
        self.cols
            .as_slice()
            .get(d.start as usize..(d.start + d.bits) as usize)
            .unwrap_or(&[])
    }

    /// Component of out-dim `o` in a flattened basis.
    pub(crate) fn component(&self, flat: u64, o: usize) -> u64 {
        flat.checked_shr(self.out_shift(o)).unwrap_or(0) & low_mask(self.outs[o].bits)
    }

    // ---------------------------------------------------------------- queries

    /// The input dimensions, in order, with their sizes.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(8, "lane", "dim0")?;
    /// assert_eq!(l.in_dims().map(|(n, s)| (n.to_string(), s)).collect::<Vec<_>>(), [("lane".to_string(), 8)]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn in_dims(&self) -> impl DoubleEndedIterator<Item = (&DimName, u64)> + ExactSizeIterator + '_ {
        self.ins.iter().map(|d| (&d.name, 1u64 << d.bits.min(63)))
    }

    /// The output dimensions, in order, with their sizes.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::strided_1d(4, 2, "lane", "dim0")?;
    /// assert_eq!(l.out_dims().map(|(n, s)| (n.as_str(), s)).collect::<Vec<_>>(), [("dim0", 8)]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn out_dims(&self) -> impl DoubleEndedIterator<Item = (&DimName, u64)> + ExactSizeIterator + '_ {
        self.outs.iter().map(|d| (&d.name, 1u64 << d.bits.min(63)))
    }

    /// The input dimension names, in order.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(8, "lane", "dim0")?;
    /// assert_eq!(l.in_dim_names().collect::<Vec<_>>(), ["lane"]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn in_dim_names(&self) -> impl DoubleEndedIterator<Item = &DimName> + ExactSizeIterator + '_ {
        self.ins.iter().map(|d| &d.name)
    }

    /// The output dimension names, in order.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(8, "lane", "dim0")?;
    /// assert_eq!(l.out_dim_names().collect::<Vec<_>>(), ["dim0"]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn out_dim_names(&self) -> impl DoubleEndedIterator<Item = &DimName> + ExactSizeIterator + '_ {
        self.outs.iter().map(|d| &d.name)
    }

    /// Number of input dimensions.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::identity_1d(8, "lane", "dim0")?.num_in_dims(), 1);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn num_in_dims(&self) -> usize {
        self.ins.len()
    }

    /// Number of output dimensions.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::empty().num_out_dims(), 0);
    /// ```
    pub fn num_out_dims(&self) -> usize {
        self.outs.len()
    }

    /// Whether the layout has an input dimension of this name.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(8, "lane", "dim0")?;
    /// assert!(l.has_in_dim("lane") && !l.has_in_dim("dim0"));
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn has_in_dim(&self, name: &str) -> bool {
        self.in_index(name).is_some()
    }

    /// Whether the layout has an output dimension of this name.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(8, "lane", "dim0")?;
    /// assert!(l.has_out_dim("dim0"));
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn has_out_dim(&self, name: &str) -> bool {
        self.out_index(name).is_some()
    }

    /// Position of an output dimension.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(2, "i", "a")?.product(&LinearLayout::identity_1d(2, "i", "b")?)?;
    /// assert_eq!(l.out_dim_index("b")?, 1);
    /// assert!(l.out_dim_index("c").is_err());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn out_dim_index(&self, name: &str) -> Result<usize> {
        self.out_pos(name)
    }

    /// `log2` of an input dimension's size.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::identity_1d(8, "lane", "dim0")?.in_dim_size_log2("lane")?, 3);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn in_dim_size_log2(&self, name: &str) -> Result<u32> {
        Ok(self.ins[self.in_pos(name)?].bits)
    }

    /// An input dimension's size.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::identity_1d(8, "lane", "dim0")?.in_dim_size("lane")?, 8);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn in_dim_size(&self, name: &str) -> Result<u64> {
        Ok(1u64 << self.in_dim_size_log2(name)?.min(63))
    }

    /// `log2` of an output dimension's size.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::strided_1d(4, 4, "i", "o")?.out_dim_size_log2("o")?, 4);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn out_dim_size_log2(&self, name: &str) -> Result<u32> {
        Ok(self.outs[self.out_pos(name)?].bits)
    }

    /// An output dimension's size.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::strided_1d(4, 4, "i", "o")?.out_dim_size("o")?, 16);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn out_dim_size(&self, name: &str) -> Result<u64> {
        Ok(1u64 << self.out_dim_size_log2(name)?.min(63))
    }

    /// Total number of input bits (`log2` of the number of inputs).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(8, "i", "o")?.product(&LinearLayout::identity_1d(4, "j", "o")?)?;
    /// assert_eq!(l.total_in_bits(), 5);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn total_in_bits(&self) -> u32 {
        self.ins.bits()
    }

    /// Total number of output bits.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::zeros_1d(8, "i", "o", 4)?.total_out_bits(), 2);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn total_out_bits(&self) -> u32 {
        self.outs.bits()
    }

    /// Total number of inputs (`2^total_in_bits`; saturates at `u64::MAX` for 64 bits).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::identity_1d(8, "i", "o")?.total_in_size(), 8);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn total_in_size(&self) -> u64 {
        1u64.checked_shl(self.total_in_bits()).unwrap_or(u64::MAX)
    }

    /// Total number of outputs (`2^total_out_bits`; saturates at `u64::MAX` for 64 bits).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::strided_1d(8, 2, "i", "o")?.total_out_size(), 16);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn total_out_size(&self) -> u64 {
        1u64.checked_shl(self.total_out_bits()).unwrap_or(u64::MAX)
    }

    /// The bases of an input dimension, one `Vec` of components (in out-dim order) per basis.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::strided_1d(4, 2, "i", "o")?;
    /// assert_eq!(l.bases("i")?, vec![vec![2], vec![4]]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn bases(&self, in_dim: &str) -> Result<Vec<Vec<u64>>> {
        let i = self.in_pos(in_dim)?;
        Ok(self
            .dim_cols(i)
            .iter()
            .map(|&c| self.unflatten(c).into_vec())
            .collect())
    }

    /// Basis `index` of an input dimension (the image of input value `2^index`).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::strided_1d(4, 2, "i", "o")?;
    /// assert_eq!(l.basis("i", 1)?, vec![4]);
    /// assert!(l.basis("i", 2).is_err());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn basis(&self, in_dim: &str, index: usize) -> Result<Vec<u64>> {
        let i = self.in_pos(in_dim)?;
        let cols = self.dim_cols(i);
        let c = cols.get(index).ok_or_else(|| LayoutError::SizeMismatch {
            op: "basis",
            dim: self.ins[i].name,
            size: cols.len() as u64,
            required: format!("basis index {index} needs more bases"),
        })?;
        Ok(self.unflatten(*c).into_vec())
    }

    /// The flattened bases of an input dimension: each basis packed in one integer, the first
    /// out-dim's component in the lowest bits, then the next out-dim's above it.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::from_bases([("i", vec![vec![1, 0], vec![0, 1]])], [("a", 4), ("b", 2)], false)?;
    /// assert_eq!(l.flat_bases("i")?, &[1, 4]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn flat_bases(&self, in_dim: &str) -> Result<&[u64]> {
        Ok(self.dim_cols(self.in_pos(in_dim)?))
    }

    /// Every basis of every in-dim, flattened (see [`flat_bases`](Self::flat_bases)), in
    /// canonical order: the columns of the layout's matrix.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(4, "i", "o")?;
    /// assert_eq!(l.columns(), &[1, 2]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn columns(&self) -> &[u64] {
        self.cols.as_slice()
    }

    /// Splits a flattened output value into its per-out-dim components.
    pub(crate) fn unflatten(&self, flat: u64) -> SmallVec<[u64; 4]> {
        let mut shift = 0;
        self.outs
            .iter()
            .map(|d| {
                let v = flat.checked_shr(shift).unwrap_or(0) & low_mask(d.bits);
                shift += d.bits;
                v
            })
            .collect()
    }

    /// The GF(2) rank of the layout's matrix.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert_eq!(LinearLayout::zeros_1d(8, "i", "o", 1)?.rank(), 0);
    /// assert_eq!(LinearLayout::identity_1d(8, "i", "o")?.rank(), 3);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn rank(&self) -> u32 {
        gf2::rank(self.cols.as_slice())
    }

    /// Every output value is reached (rank = output bits).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert!(LinearLayout::identity_1d(8, "i", "o")?.is_surjective());
    /// assert!(!LinearLayout::strided_1d(8, 2, "i", "o")?.is_surjective());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn is_surjective(&self) -> bool {
        // Columns with distinct highest (or distinct lowest) bits are independent: when every
        // output bit is the highest or every one the lowest bit of some column (as in the
        // layouts built from identities and swizzles) the rank is full without eliminating.
        let (mut highest, mut lowest) = (0u64, 0u64);
        for &c in self.cols.as_slice().iter().filter(|&&c| c != 0) {
            highest |= 1 << (63 - c.leading_zeros());
            lowest |= c & c.wrapping_neg();
        }
        let out_bits = self.total_out_bits();
        let all = low_mask(out_bits);
        highest == all || lowest == all || self.rank() == out_bits
    }

    /// No two inputs reach the same output (rank = input bits).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert!(LinearLayout::strided_1d(8, 2, "i", "o")?.is_injective());
    /// assert!(!LinearLayout::zeros_1d(2, "i", "o", 1)?.is_injective());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn is_injective(&self) -> bool {
        self.rank() == self.total_in_bits()
    }

    /// Surjective with as many input bits as output bits: a bijection.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// assert!(LinearLayout::identity_1d(8, "i", "o")?.is_invertible());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn is_invertible(&self) -> bool {
        let out_bits = self.total_out_bits();
        self.total_in_bits() == out_bits && self.rank() == out_bits
    }

    /// The matrix, one `u64` per output bit (out-dims in order, bit 0 first) with bit `c` set
    /// when column `c` (input bit `c` in canonical order) reaches that output bit. Triton's
    /// `getMatrix`.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let swap = LinearLayout::from_bases([("x", vec![vec![2], vec![1]])], [("y", 4)], true)?;
    /// assert_eq!(swap.matrix(), vec![0b10, 0b01]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn matrix(&self) -> Vec<u64> {
        (0..self.total_out_bits())
            .map(|r| {
                self.cols
                    .as_slice()
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| *c >> r & 1 == 1)
                    .fold(0u64, |acc, (j, _)| acc | 1 << j)
            })
            .collect()
    }

    /// The matrix as rows of 0/1 entries (index = column): Triton's `get_matrix_view`.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let swap = LinearLayout::from_bases([("x", vec![vec![2], vec![1]])], [("y", 4)], true)?;
    /// assert_eq!(swap.matrix_view(), vec![vec![0, 1], vec![1, 0]]);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn matrix_view(&self) -> Vec<Vec<u8>> {
        let n = self.cols.as_slice().len();
        self.matrix()
            .into_iter()
            .map(|row| (0..n).map(|c| (row >> c & 1) as u8).collect())
            .collect()
    }

    // ---------------------------------------------------------------- apply

    /// Applies the layout to a flattened input (in-dims concatenated in order, the first in
    /// the low bits) and returns the flattened output (see [`flat_bases`](Self::flat_bases)).
    /// Bits above the total input size are ignored. This is the allocation-free core of
    /// [`apply`](Self::apply).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(4, "i", "o")?.product(&LinearLayout::identity_1d(2, "j", "o")?)?;
    /// // i = 3, j = 1  ->  input bits 0b111  ->  o = 3 + 4 = 7
    /// assert_eq!(l.apply_flat(0b111), 7);
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    #[inline]
    pub fn apply_flat(&self, input: u64) -> u64 {
        let mut acc = 0u64;
        let mut bits = input;
        let cols = self.cols.as_slice();
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            match cols.get(j) {
                Some(c) => acc ^= c,
                None => break,
            }
            bits &= bits - 1;
        }
        acc
    }

    /// Applies the layout to one value per input dimension (named, in any order; every in-dim
    /// exactly once) and returns one value per output dimension, in
    /// [`out_dim_names`](Self::out_dim_names) order. Bits of an input above its dimension's
    /// size are ignored, as in Triton.
    ///
    /// Law: apply is linear — `L(x ⊕ y) = L(x) ⊕ L(y)` and `L(0) = 0`.
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(4, "lane", "dim0")?;
    /// assert_eq!(l.apply(&[("lane", 2)])?.as_slice(), &[2]);
    /// assert!(l.apply(&[("warp", 2)]).is_err());
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    #[inline]
    pub fn apply<N: AsRef<str>>(&self, inputs: &[(N, u64)]) -> Result<SmallVec<[u64; 4]>> {
        let flat = match self.pack_in_order(inputs) {
            Some(flat) => flat,
            None => self.pack_by_name(inputs)?,
        };
        let out = self.apply_flat(flat);
        let outs = self.outs.placed();
        let value = |p: &super::dims::Placed| out >> p.shift & p.mask;
        if outs.len() <= 4 {
            let mut buf = [0u64; 4];
            buf.iter_mut().zip(outs).for_each(|(v, p)| *v = value(p));
            return Ok(SmallVec::from_buf_and_len(buf, outs.len()));
        }
        Ok(outs.iter().map(value).collect())
    }

    /// The flattened input of `apply` when `inputs` name the in-dims in the layout's own order
    /// (the usual case): each name is compared once, with the dim at its position, by the key
    /// made when the dims were interned. `None` when they do not (or a name is longer than a
    /// key holds).
    #[inline]
    fn pack_in_order<N: AsRef<str>>(&self, inputs: &[(N, u64)]) -> Option<u64> {
        let placed = self.ins.placed();
        if inputs.len() != placed.len() {
            return None;
        }
        let mut flat = 0u64;
        for ((name, value), p) in inputs.iter().zip(placed) {
            if !p.name.matches(name.as_ref()) {
                return None;
            }
            flat |= (value & p.mask) << p.shift;
        }
        Some(flat)
    }

    /// The flattened input of `apply` for inputs in any order: each name looked up, each in-dim
    /// given exactly once.
    #[cold]
    #[inline(never)]
    fn pack_by_name<N: AsRef<str>>(&self, inputs: &[(N, u64)]) -> Result<u64> {
        let placed = self.ins.placed();
        if inputs.len() != placed.len() {
            return Err(self.apply_mismatch(inputs));
        }
        let mut flat = 0u64;
        let mut seen = 0u64;
        for (name, value) in inputs {
            let Some(i) = self.in_index(name.as_ref()) else {
                return Err(self.apply_mismatch(inputs));
            };
            // With as many inputs as in-dims, no repeat means none is missing; there are at
            // most MAX_DIMS <= 64 in-dims, so one bit of `seen` each.
            if seen >> i & 1 == 1 {
                return Err(self.apply_mismatch(inputs));
            }
            seen |= 1 << i;
            flat |= (value & placed[i].mask) << placed[i].shift;
        }
        Ok(flat)
    }

    #[cold]
    fn apply_mismatch<N: AsRef<str>>(&self, inputs: &[(N, u64)]) -> LayoutError {
        LayoutError::DimsMismatch {
            op: "apply",
            expected: self.ins.iter().map(|d| d.name).collect(),
            got: inputs.iter().map(|(n, _)| DimName::from(n.as_ref())).collect(),
        }
    }

    // ---------------------------------------------------------------- equality

    /// Equal except for the out-dim sizes (same out-dim names in the same order, same in-dims
    /// with identical bases).
    ///
    /// ```
    /// # use linear_layout::linear::LinearLayout;
    /// let a = LinearLayout::strided_1d(2, 2, "i", "o")?;
    /// let b = LinearLayout::from_bases([("i", vec![vec![2]])], [("o", 8)], false)?;
    /// assert!(a != b && a.equal_ignoring_out_dim_sizes(&b));
    /// # Ok::<(), linear_layout::linear::LayoutError>(())
    /// ```
    pub fn equal_ignoring_out_dim_sizes(&self, other: &Self) -> bool {
        self.ins == other.ins
            && self.outs.len() == other.outs.len()
            && self.outs.iter().zip(&other.outs).all(|(a, b)| a.name == b.name)
            && self.ins.iter().enumerate().all(|(i, _)| {
                let (a, b) = (self.dim_cols(i), other.dim_cols(i));
                a.iter()
                    .zip(b)
                    .all(|(&x, &y)| self.unflatten(x) == other.unflatten(y))
            })
    }
}

impl PartialEq for LinearLayout {
    fn eq(&self, other: &Self) -> bool {
        self.ins == other.ins && self.outs == other.outs && self.cols == other.cols
    }
}

impl Eq for LinearLayout {}

impl Hash for LinearLayout {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.ins.hash(state);
        self.outs.hash(state);
        self.cols.hash(state);
    }
}

/// Triton's `toString` format, exactly.
///
/// ```
/// # use linear_layout::linear::LinearLayout;
/// let l = LinearLayout::identity_1d(4, "lane", "dim0")?;
/// assert_eq!(
///     l.to_string(),
///     "\n - lane=1 -> (1)\n   lane=2 -> (2)\nwhere out dims are: [dim0 (size 4)]"
/// );
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
impl fmt::Display for LinearLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let out_list = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
            for (k, d) in self.outs.iter().enumerate() {
                if k > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{} (size {})", d.name, 1u64 << d.bits.min(63))?;
            }
            Ok(())
        };
        if self.ins.is_empty() {
            if self.outs.is_empty() {
                return f.write_str("\n(empty layout)");
            }
            f.write_str("\n(empty layout with out-dims [")?;
            out_list(f)?;
            return f.write_str("])");
        }
        f.write_str("\n")?;
        for (i, d) in self.ins.iter().enumerate() {
            if d.bits == 0 {
                writeln!(f, " - {} is a size 1 dimension", d.name)?;
                continue;
            }
            for (k, &c) in self.dim_cols(i).iter().enumerate() {
                f.write_str(if k == 0 { " - " } else { "   " })?;
                write!(f, "{}={} -> (", d.name, 1u64 << k)?;
                for (o, v) in self.unflatten(c).iter().enumerate() {
                    if o > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")\n")?;
            }
        }
        f.write_str("where out dims are: [")?;
        out_list(f)?;
        f.write_str("]")
    }
}

impl fmt::Debug for LinearLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LinearLayout{self}")
    }
}

#[cfg(all(test, feature = "quickcheck"))]
mod laws {
    use super::*;
    use crate::linear::check_law;

    /// apply is linear: L(x ⊕ y) = L(x) ⊕ L(y), and L(0) = 0.
    #[test]
    fn apply_is_linear() {
        fn law(l: LinearLayout, x: u64, y: u64) -> bool {
            let mask = low_mask(l.total_in_bits());
            let (x, y) = (x & mask, y & mask);
            l.apply_flat(x ^ y) == l.apply_flat(x) ^ l.apply_flat(y) && l.apply_flat(0) == 0
        }
        check_law(law as fn(LinearLayout, u64, u64) -> bool);
    }

    /// apply by name agrees with apply_flat on the concatenated input, whatever the order of
    /// the named inputs.
    #[test]
    fn apply_by_name_agrees_with_flat_apply() {
        fn law(l: LinearLayout, x: u64) -> bool {
            let x = x & low_mask(l.total_in_bits());
            let mut shift = 0;
            let mut inputs: Vec<(DimName, u64)> = l
                .ins
                .iter()
                .map(|d| {
                    let v = x.checked_shr(shift).unwrap_or(0) & low_mask(d.bits);
                    shift += d.bits;
                    (d.name, v)
                })
                .collect();
            let flat = l.apply_flat(x);
            let agrees = |inputs: &[(DimName, u64)]| {
                let named: Vec<(&str, u64)> = inputs.iter().map(|(n, v)| (n.as_str(), *v)).collect();
                let out = l.apply(&named).unwrap();
                out.len() == l.outs.len() && out.iter().enumerate().all(|(o, v)| *v == l.component(flat, o))
            };
            // The layout's own order, and any other order.
            let in_order = agrees(&inputs);
            inputs.reverse();
            in_order && agrees(&inputs)
        }
        check_law(law as fn(LinearLayout, u64) -> bool);
    }

    /// Display is faithful: the printed bases and sizes rebuild the same layout.
    #[test]
    fn display_rebuilds_the_layout() {
        fn law(l: LinearLayout) -> bool {
            let text = l.to_string();
            if l.ins.is_empty() {
                return text.starts_with("\n(empty layout");
            }
            let (body, outs) = text.rsplit_once("where out dims are: [").unwrap();
            let outs: Vec<(String, i64)> = outs
                .trim_end_matches(']')
                .split(", ")
                .filter(|s| !s.is_empty())
                .map(|s| {
                    let (name, size) = s.split_once(" (size ").unwrap();
                    (name.to_string(), size.trim_end_matches(')').parse().unwrap())
                })
                .collect();
            let mut ins: Vec<(String, Vec<Vec<i64>>)> = Vec::new();
            for line in body.lines().skip(1) {
                if let Some(rest) = line
                    .strip_prefix(" - ")
                    .filter(|r| r.ends_with(" is a size 1 dimension"))
                {
                    ins.push((
                        rest.trim_end_matches(" is a size 1 dimension").to_string(),
                        vec![],
                    ));
                    continue;
                }
                let (lhs, rhs) = line[3..].split_once(" -> (").unwrap();
                let name = lhs.rsplit_once('=').unwrap().0.to_string();
                let basis: Vec<i64> = rhs
                    .trim_end_matches(')')
                    .split(", ")
                    .filter(|s| !s.is_empty())
                    .map(|v| v.parse().unwrap())
                    .collect();
                if line.starts_with(" - ") {
                    ins.push((name, vec![basis]));
                } else if let Some(last) = ins.last_mut() {
                    last.1.push(basis);
                }
            }
            LinearLayout::from_bases(ins, outs, false).ok() == Some(l)
        }
        check_law(law as fn(LinearLayout) -> bool);
    }

    /// from_flat_bases rebuilds any layout from its flattened bases and sizes.
    #[test]
    fn flat_bases_rebuild_the_layout() {
        fn law(l: LinearLayout) -> bool {
            let bases: Vec<(DimName, &[u64])> = l
                .ins
                .iter()
                .map(|d| (d.name, l.flat_bases(&d.name).unwrap()))
                .collect();
            let outs: Vec<(DimName, u64)> = l.out_dims().map(|(n, s)| (*n, s)).collect();
            LinearLayout::from_flat_bases(bases, outs, false).ok() == Some(l)
        }
        check_law(law as fn(LinearLayout) -> bool);
    }

    /// Equal layouts hash equally, and a layout differs from any single-bit change of it.
    #[test]
    fn equality_and_hash_agree() {
        fn law(l: LinearLayout, bit: u8) -> bool {
            use std::collections::hash_map::DefaultHasher;
            let h = |x: &LinearLayout| {
                let mut s = DefaultHasher::new();
                x.hash(&mut s);
                s.finish()
            };
            let copy = l.clone();
            let mut changed = l.clone();
            let n = changed.cols.as_slice().len();
            let out_bits = l.total_out_bits();
            if n > 0 && out_bits > 0 {
                changed.cols.as_mut_slice()[bit as usize % n] ^= 1 << (bit as u32 % out_bits);
            }
            copy == l && h(&copy) == h(&l) && (n == 0 || out_bits == 0 || changed != l)
        }
        check_law(law as fn(LinearLayout, u8) -> bool);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With as many in-dims as a layout may have, a repeated name (and so a missing one) is
    /// still rejected.
    #[test]
    fn apply_rejects_a_repeated_input_at_the_dims_limit() {
        let names: Vec<String> = (0..MAX_DIMS).map(|k| format!("d{k}")).collect();
        let l =
            LinearLayout::from_bases(names.iter().map(|n| (n.as_str(), vec![])), [("o", 1)], false).unwrap();
        let mut inputs: Vec<(&str, u64)> = names.iter().map(|n| (n.as_str(), 0)).collect();
        assert!(l.apply(&inputs).is_ok());
        inputs[MAX_DIMS - 1] = ("d30", 0);
        assert!(l.apply(&inputs).is_err());
    }
}
