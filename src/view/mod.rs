//! Layouts for people: Triton's text views of a layout, its bases ready to paste, and a
//! picture (SVG, or a self-contained HTML page).
//!
//! The text views are byte for byte those of Triton 3.6.0 (`triton-tensor-layout`, and the
//! Python `LinearLayout.get_distributed_view` / `get_shared_view`):
//!
//! * the **tensor view** ([`tensor_view`]) prints the tensor as nested brackets, each element
//!   naming what holds it — `T<thread>:<register>` for a distributed layout (every owner of a
//!   broadcast element, joined with `|`; `B<block>:` in front when there are several blocks),
//!   `(<dim0>:<dim1>…)` for a shared layout (the element stored at the offset that position
//!   would have in a row-major array, as Triton prints it);
//! * the **hardware view** ([`hardware_view`]) lists, per warp and register, the element each
//!   lane holds; for a shared layout, the element at each offset.
//!
//! A layout with an `offset` in-dim is a shared-memory layout ([`is_shared`]); any other is
//! read as a distributed one, whose in-dims must be among `register`, `lane`, `warp`, `block`
//! (a missing one counts as size 1, where Triton would assert).
//!
//! ```
//! use linear_layout::linear::LinearLayout;
//! use linear_layout::view;
//! // 2 registers x 4 lanes x 2 warps over a 4x4 tensor.
//! let l = LinearLayout::from_bases(
//!     [("register", vec![vec![0, 1]]), ("lane", vec![vec![0, 2], vec![1, 0]]),
//!      ("warp", vec![vec![2, 0]]), ("block", vec![])],
//!     [("dim0", 4), ("dim1", 4)], false)?;
//! assert_eq!(view::tensor_view(&l)?,
//!     "[[T0:0, T0:1, T1:0, T1:1]\n[ T2:0, T2:1, T3:0, T3:1]\n[ T4:0, T4:1, T5:0, T5:1]\n[ T6:0, T6:1, T7:0, T7:1]]\n");
//! assert!(view::hardware_view(&l)?.starts_with("Warp0:\n(0,0), (0,2), (1,0), (1,2)\n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::{self, Write as _};

use crate::limits::LimitExceeded;
use crate::linear::LinearLayout;

/// The largest number of tensor elements, and of hardware positions (registers × lanes ×
/// warps × blocks, or offsets × blocks), a text view is made for (2^20: a 1024×1024 tensor).
/// A view names every owner of every element, so its text grows with the hardware positions:
/// about 12 MB at the limit.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::{self, ViewError, MAX_VIEW_ELEMENTS};
/// let l = |n: u64| LinearLayout::identity_1d(n, "register", "dim0");
/// let err = view::tensor_view(&l(2 * MAX_VIEW_ELEMENTS)?).unwrap_err();
/// assert!(matches!(err, ViewError::Limit(l) if l.limit == "view::MAX_VIEW_ELEMENTS"));
/// // Hardware positions count too: 2^21 lanes broadcasting one element.
/// let broadcast = LinearLayout::from_bases([("lane", vec![vec![0]; 21])], [("dim0", 1)], false)?;
/// assert!(matches!(view::tensor_view(&broadcast), Err(ViewError::Limit(_))));
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub const MAX_VIEW_ELEMENTS: u64 = 1 << 20;

/// The largest number of tensor elements a picture is drawn for (2^16: a 256×256 tensor); its
/// hardware positions are bounded by [`MAX_VIEW_ELEMENTS`], as a text view's.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::{self, PictureOptions, ViewError, MAX_PICTURE_ELEMENTS};
/// let l = |n: u64| LinearLayout::identity_1d(n, "register", "dim0");
/// let err = view::svg(&l(2 * MAX_PICTURE_ELEMENTS)?, &PictureOptions::default()).unwrap_err();
/// assert!(matches!(err, ViewError::Limit(l) if l.limit == "view::MAX_PICTURE_ELEMENTS"));
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub const MAX_PICTURE_ELEMENTS: u64 = 1 << 16;

/// Why a view cannot be made.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::{self, ViewError};
/// let l = LinearLayout::identity_1d(4, "thread", "dim0")?;
/// let e = view::tensor_view(&l).unwrap_err();
/// assert!(matches!(e, ViewError::UnexpectedInDim { .. }));
/// assert_eq!(e.to_string(), "in-dim 'thread' is not one of register, lane, warp, block (a distributed layout) or offset, block (a shared layout)");
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewError {
    /// The layout has no out-dims (no tensor to show).
    NoOutDims,
    /// An in-dim the view does not know.
    UnexpectedInDim {
        /// The in-dim's name.
        name: String,
    },
    /// Too many elements or hardware positions to print or draw: past
    /// [`MAX_VIEW_ELEMENTS`] or [`MAX_PICTURE_ELEMENTS`].
    Limit(LimitExceeded),
    /// A picture option out of range.
    BadOption(String),
}

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewError::NoOutDims => f.write_str("the layout has no out-dims: there is no tensor to show"),
            ViewError::UnexpectedInDim { name } => write!(
                f,
                "in-dim '{name}' is not one of register, lane, warp, block (a distributed layout) or offset, block (a shared layout)"
            ),
            ViewError::Limit(l) => write!(f, "{l}"),
            ViewError::BadOption(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for ViewError {}

/// Whether the layout is a shared-memory layout (it has an `offset` in-dim).
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::is_shared;
/// assert!(is_shared(&LinearLayout::identity_1d(8, "offset", "dim0")?));
/// assert!(!is_shared(&LinearLayout::identity_1d(8, "lane", "dim0")?));
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn is_shared(l: &LinearLayout) -> bool {
    l.has_in_dim("offset")
}

/// Triton's tensor view (`get_distributed_view(False)`, or `get_shared_view(False)` for a
/// shared layout): the tensor in nested brackets, each element naming where it lives.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::tensor_view;
/// // Lanes 0 and 1 both hold element 0 (broadcast); nobody holds element 1.
/// let l = LinearLayout::from_bases([("lane", vec![vec![0]])], [("dim0", 2)], false)?;
/// assert_eq!(tensor_view(&l)?, "[T0:0|T1:0, ]\n");
/// // A shared layout: the element at each offset, in row-major position order.
/// let s = LinearLayout::from_bases([("offset", vec![vec![0, 1], vec![1, 1]])], [("dim0", 2), ("dim1", 2)], false)?;
/// assert_eq!(tensor_view(&s)?, "[[(0:0),(0:1)]\n[ (1:1),(1:0)]]\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tensor_view(l: &LinearLayout) -> Result<String, ViewError> {
    if is_shared(l) {
        shared_view(l, false)
    } else {
        distributed_view(l, false)
    }
}

/// Triton's hardware view (`get_distributed_view(True)`, or `get_shared_view(True)` for a
/// shared layout): per warp and register the element of every lane; per offset its element.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::hardware_view;
/// let l = LinearLayout::from_bases([("register", vec![vec![1]]), ("lane", vec![vec![2]])], [("dim0", 4)], false)?;
/// assert_eq!(hardware_view(&l)?, "Warp0:\n(0), (2)\n(1), (3)\n");
/// let s = LinearLayout::from_bases([("offset", vec![vec![1]])], [("dim0", 2)], false)?;
/// assert_eq!(hardware_view(&s)?, "Block: 0:\nOffset: 0 -> (0)\nOffset: 1 -> (1)\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn hardware_view(l: &LinearLayout) -> Result<String, ViewError> {
    if is_shared(l) {
        shared_view(l, true)
    } else {
        distributed_view(l, true)
    }
}

/// Number of decimal digits of `v`.
fn digits(v: u64) -> usize {
    let mut n = 1;
    let mut x = v;
    while x >= 10 {
        x /= 10;
        n += 1;
    }
    n
}

/// Triton's `numCharacterPadding(value, max)`.
fn pad_count(value: u64, max: u64) -> usize {
    digits(max).saturating_sub(digits(value))
}

/// Triton's `paddedString(value, max)`, appended to `out`.
fn push_padded(out: &mut String, value: u64, max: u64) {
    for _ in 0..pad_count(value, max) {
        out.push(' ');
    }
    let _ = write!(out, "{value}");
}

/// The out-dims: sizes, and each one's (start bit, bit count) in the flat output.
struct OutDims {
    sizes: Vec<u64>,
    fields: Vec<(u32, u32)>,
    total: u64,
}

impl OutDims {
    fn of(l: &LinearLayout) -> Result<Self, ViewError> {
        if l.num_out_dims() == 0 {
            return Err(ViewError::NoOutDims);
        }
        let mut sizes = Vec::new();
        let mut fields = Vec::new();
        let mut start = 0u32;
        for (_, size) in l.out_dims() {
            let bits = size.trailing_zeros();
            sizes.push(size);
            fields.push((start, bits));
            start += bits;
        }
        let bits = l.total_out_bits();
        within_view_limit(bits, "tensor elements of a view")?;
        Ok(OutDims {
            sizes,
            fields,
            total: 1u64 << bits,
        })
    }

    /// One value per out-dim of a flat output.
    fn split(&self, flat: u64) -> impl Iterator<Item = u64> + '_ {
        self.fields
            .iter()
            .map(move |&(s, b)| (flat >> s) & ((1u64 << b) - 1))
    }

    /// The row-major (last dim fastest) index of a flat output.
    fn linear_index(&self, flat: u64) -> u64 {
        let mut idx = 0u64;
        for ((s, b), size) in self.fields.iter().zip(&self.sizes) {
            idx = idx * size + ((flat >> s) & ((1u64 << b) - 1));
        }
        idx
    }
}

/// `2^bits` things (`what`) are within [`MAX_VIEW_ELEMENTS`], or the limit's error.
fn within_view_limit(bits: u32, what: &'static str) -> Result<(), ViewError> {
    if bits > MAX_VIEW_ELEMENTS.trailing_zeros() {
        return Err(ViewError::Limit(LimitExceeded::new(
            "view::MAX_VIEW_ELEMENTS",
            what,
            MAX_VIEW_ELEMENTS,
            1u64.checked_shl(bits).unwrap_or(u64::MAX),
        )));
    }
    Ok(())
}

/// The in-dims a view reads: for each wanted name, its (start bit, size) in the flat input
/// (size 1 when absent). Any other in-dim is an error.
fn in_fields<const N: usize>(l: &LinearLayout, names: [&str; N]) -> Result<[(u32, u64); N], ViewError> {
    let mut out = [(0u32, 1u64); N];
    let mut start = 0u32;
    for (name, size) in l.in_dims() {
        match names.iter().position(|n| *n == name.as_str()) {
            Some(k) => out[k] = (start, size),
            None => {
                return Err(ViewError::UnexpectedInDim {
                    name: name.to_string(),
                });
            }
        }
        start += size.trailing_zeros();
    }
    within_view_limit(
        l.total_in_bits(),
        "hardware positions of a view (the product of the in-dim sizes)",
    )?;
    Ok(out)
}

/// For every tensor element (row-major), its owners' hardware keys in increasing order.
struct Owners {
    starts: Vec<u32>,
    keys: Vec<u32>,
}

impl Owners {
    /// `inputs` yields (key, flat input) in increasing key order.
    fn collect(l: &LinearLayout, outs: &OutDims, inputs: impl Iterator<Item = (u32, u64)> + Clone) -> Self {
        let n = outs.total as usize;
        let mut counts = vec![0u32; n + 1];
        for (_, x) in inputs.clone() {
            counts[outs.linear_index(l.apply_flat(x)) as usize + 1] += 1;
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let mut fill = counts.clone();
        let mut keys = vec![0u32; counts[n] as usize];
        for (k, x) in inputs {
            let e = outs.linear_index(l.apply_flat(x)) as usize;
            keys[fill[e] as usize] = k;
            fill[e] += 1;
        }
        Owners { starts: counts, keys }
    }

    fn of(&self, e: usize) -> &[u32] {
        let (a, b) = (self.starts[e] as usize, self.starts[e + 1] as usize);
        &self.keys[a..b]
    }
}

/// Writes Triton's bracketed tensor grid: `cell(out, i)` writes element `i` (row-major).
fn grid(out: &mut String, shape: &[u64], sep: &str, mut cell: impl FnMut(&mut String, usize)) {
    let rank = shape.len();
    let total: u64 = shape.iter().product();
    let mut idx = vec![0u64; rank];
    let mut new_line = true;
    for i in 0..total {
        let open = idx.iter().rev().take_while(|&&v| v == 0).count();
        for _ in 0..open {
            out.push('[');
        }
        if new_line {
            for _ in 0..rank - open {
                out.push(' ');
            }
            new_line = false;
        }
        cell(out, i as usize);
        // Advance the odometer (wrapping to all zeros after the last element).
        for j in (0..rank).rev() {
            idx[j] += 1;
            if idx[j] < shape[j] {
                break;
            }
            idx[j] = 0;
        }
        let close = idx.iter().rev().take_while(|&&v| v == 0).count();
        for _ in 0..close {
            out.push(']');
        }
        if idx[rank - 1] == 0 {
            out.push('\n');
            new_line = true;
        } else {
            out.push_str(sep);
        }
    }
}

/// The distributed hardware: sizes and flat-input fields of register, lane, warp, block.
struct Hw {
    f: [(u32, u64); 4],
}

impl Hw {
    const NAMES: [&'static str; 4] = ["register", "lane", "warp", "block"];

    fn of(l: &LinearLayout) -> Result<Self, ViewError> {
        Ok(Hw {
            f: in_fields(l, Self::NAMES)?,
        })
    }
    fn regs(&self) -> u64 {
        self.f[0].1
    }
    fn lanes(&self) -> u64 {
        self.f[1].1
    }
    fn warps(&self) -> u64 {
        self.f[2].1
    }
    fn blocks(&self) -> u64 {
        self.f[3].1
    }
    fn total(&self) -> u64 {
        self.regs() * self.lanes() * self.warps() * self.blocks()
    }
    /// (register, lane, warp, block) of a key (Triton's loop order: block outermost).
    fn decode(&self, key: u64) -> [u64; 4] {
        let r = key % self.regs();
        let rest = key / self.regs();
        let t = rest % self.lanes();
        let rest = rest / self.lanes();
        [r, t, rest % self.warps(), rest / self.warps()]
    }
    fn flat(&self, key: u64) -> u64 {
        self.decode(key)
            .iter()
            .zip(&self.f)
            .fold(0, |acc, (v, (s, _))| acc | (v << s))
    }
    fn inputs(&self) -> impl Iterator<Item = (u32, u64)> + Clone + '_ {
        (0..self.total()).map(|k| (k as u32, self.flat(k)))
    }
}

/// Triton's `getDistributedLayoutStr(ll, hw)`: the tensor view (`hw = false`) or the hardware
/// view (`hw = true`) of a distributed layout (in-dims among `register`, `lane`, `warp`,
/// `block`).
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::distributed_view;
/// // 2 blocks, each with 2 lanes holding the same 2 elements.
/// let l = LinearLayout::from_bases([("register", vec![]), ("lane", vec![vec![1]]), ("warp", vec![]), ("block", vec![vec![0]])], [("dim0", 2)], false)?;
/// assert_eq!(distributed_view(&l, false)?, "[B0:T0:0|B1:T0:0, B0:T1:0|B1:T1:0]\n");
/// assert_eq!(distributed_view(&l, true)?, "Block0:\nWarp0:\n(0), (1)\nBlock1:\nWarp0:\n(0), (1)\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn distributed_view(l: &LinearLayout, hw: bool) -> Result<String, ViewError> {
    let outs = OutDims::of(l)?;
    let h = Hw::of(l)?;
    let mut s = String::new();
    if !hw {
        let owners = Owners::collect(l, &outs, h.inputs());
        let threads = h.warps() * h.lanes();
        grid(&mut s, &outs.sizes, ", ", |s, e| {
            for (n, &k) in owners.of(e).iter().enumerate() {
                if n > 0 {
                    s.push('|');
                }
                let [r, t, w, b] = h.decode(k as u64);
                let tid = t + w * h.lanes();
                let pad = pad_count(b, h.blocks()) + pad_count(tid, threads) + pad_count(r, h.regs());
                for _ in 0..pad {
                    s.push(' ');
                }
                if h.blocks() > 1 {
                    let _ = write!(s, "B{b}:");
                }
                let _ = write!(s, "T{tid}:{r}");
            }
        });
    } else {
        for b in 0..h.blocks() {
            if h.blocks() > 1 {
                let _ = writeln!(s, "Block{b}:");
            }
            for w in 0..h.warps() {
                let _ = writeln!(s, "Warp{w}:");
                for r in 0..h.regs() {
                    for t in 0..h.lanes() {
                        let key = ((b * h.warps() + w) * h.lanes() + t) * h.regs() + r;
                        s.push('(');
                        for (i, v) in outs.split(l.apply_flat(h.flat(key))).enumerate() {
                            if i > 0 {
                                s.push(',');
                            }
                            push_padded(&mut s, v, outs.sizes[i]);
                        }
                        s.push(')');
                        if t + 1 < h.lanes() {
                            s.push_str(", ");
                        }
                    }
                    s.push('\n');
                }
            }
        }
    }
    Ok(s)
}

/// Triton's `getSharedLayoutStr(ll, hw)`: the tensor view (`hw = false`) or the hardware view
/// (`hw = true`) of a shared layout (in-dims `offset` and optionally `block`). As in Triton,
/// each block shows offsets `0 .. elements / blocks` (bits of an offset beyond the `offset`
/// in-dim are ignored), and position `i` of the tensor view shows the element at offset `i`.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::shared_view;
/// let s = LinearLayout::from_bases([("offset", vec![vec![1], vec![8]]), ("block", vec![vec![2]])], [("dim0", 16)], false)?;
/// assert_eq!(shared_view(&s, false)?,
///     "[( 0),( 1),( 8),( 9),( 0),( 1),( 8),( 9),( 2),( 3),(10),(11),( 2),( 3),(10),(11)]\n");
/// assert!(shared_view(&s, true)?.starts_with("Block: 0:\nOffset: 0 -> ( 0)\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn shared_view(l: &LinearLayout, hw: bool) -> Result<String, ViewError> {
    let outs = OutDims::of(l)?;
    let [(off_start, off_size), (blk_start, blocks)] = in_fields(l, ["offset", "block"])?;
    let block_size = outs.total / blocks;
    let off_mask = off_size - 1;
    let element = |block: u64, offset: u64, sep: char, s: &mut String| {
        let out = l.apply_flat(((offset & off_mask) << off_start) | (block << blk_start));
        s.push('(');
        for (i, v) in outs.split(out).enumerate() {
            if i > 0 {
                s.push(sep);
            }
            push_padded(s, v, outs.sizes[i]);
        }
        s.push(')');
    };
    let mut s = String::new();
    if !hw {
        grid(&mut s, &outs.sizes, ",", |s, i| {
            let i = i as u64;
            if let Some(b) = i.checked_div(block_size)
                && b < blocks
            {
                element(b, i % block_size, ':', s);
            }
        });
    } else {
        for b in 0..blocks {
            let _ = writeln!(s, "Block: {b}:");
            for o in 0..block_size {
                let _ = write!(s, "Offset: {o} -> ");
                element(b, o, ',', &mut s);
                s.push('\n');
            }
        }
    }
    Ok(s)
}

fn bases_list(l: &LinearLayout, dim: &str) -> String {
    let mut s = String::from("[");
    for (i, b) in l.bases(dim).unwrap_or_default().iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push('[');
        for (j, v) in b.iter().enumerate() {
            if j > 0 {
                s.push_str(", ");
            }
            let _ = write!(s, "{v}");
        }
        s.push(']');
    }
    s.push(']');
    s
}

/// The bases ready to paste: as a `#ttg.linear<{…}>` (or `#ttg.shared_linear<{…}>`) attribute
/// and as the arguments of Gluon's `DistributedLinearLayout` (or `SharedLinearLayout`).
///
/// The distributed attribute lists `register`, `lane`, `warp`, `block` (empty when absent);
/// the shared one `offset`, `block` and Gluon's default `alignment = 16`. Other in-dims are
/// listed under their own names.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::pasteable_bases;
/// let l = LinearLayout::from_bases([("register", vec![vec![1]]), ("lane", vec![vec![2], vec![4]])], [("dim0", 8)], false)?;
/// assert_eq!(pasteable_bases(&l),
///     "#ttg.linear<{register = [[1]], lane = [[2], [4]], warp = [], block = []}>\n\
///      ttgl.DistributedLinearLayout(reg_bases=[[1]], lane_bases=[[2], [4]], warp_bases=[], block_bases=[], shape=[8])\n");
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn pasteable_bases(l: &LinearLayout) -> String {
    let shape = format!(
        "[{}]",
        l.out_dims()
            .map(|(_, s)| s.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (attr, kinds, gluon): (&str, &[(&str, &str)], &str) = if is_shared(l) {
        (
            "#ttg.shared_linear",
            &[("offset", "offset_bases"), ("block", "block_bases")],
            "ttgl.SharedLinearLayout",
        )
    } else {
        (
            "#ttg.linear",
            &[
                ("register", "reg_bases"),
                ("lane", "lane_bases"),
                ("warp", "warp_bases"),
                ("block", "block_bases"),
            ],
            "ttgl.DistributedLinearLayout",
        )
    };
    let mut dims: Vec<(String, String)> = kinds
        .iter()
        .map(|(d, g)| (d.to_string(), g.to_string()))
        .collect();
    for name in l.in_dim_names() {
        if !dims.iter().any(|(d, _)| d == name.as_str()) {
            dims.push((name.to_string(), format!("{name}_bases")));
        }
    }
    let fields: Vec<String> = dims
        .iter()
        .map(|(d, _)| format!("{d} = {}", bases_list(l, d)))
        .collect();
    let args: Vec<String> = dims
        .iter()
        .map(|(d, g)| format!("{g}={}", bases_list(l, d)))
        .collect();
    if is_shared(l) {
        format!(
            "{attr}<{{{}}}, alignment = 16>\n{gluon}({}, alignment=16)\n",
            fields.join(", "),
            args.join(", ")
        )
    } else {
        format!(
            "{attr}<{{{}}}>\n{gluon}({}, shape={shape})\n",
            fields.join(", "),
            args.join(", ")
        )
    }
}

mod picture;

pub use picture::{PictureOptions, escape, html, inline_svg, lds_picture, svg};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_matches_triton() {
        assert_eq!(pad_count(0, 1), 0);
        assert_eq!(pad_count(5, 64), 1);
        assert_eq!(pad_count(63, 64), 0);
        assert_eq!(pad_count(3, 128), 2);
    }

    /// Nothing panics on any layout; a distributed tensor view names every hardware
    /// position exactly once.
    #[cfg(feature = "quickcheck")]
    #[test]
    fn views_never_panic() {
        fn law(l: LinearLayout) -> bool {
            let tv = tensor_view(&l);
            let _ = hardware_view(&l);
            let _ = pasteable_bases(&l);
            if l.total_out_bits() <= 8 {
                let _ = svg(&l, &PictureOptions::default());
            }
            match tv {
                Ok(v) if !is_shared(&l) => v.matches('T').count() as u64 == l.total_in_size(),
                _ => true,
            }
        }
        crate::linear::check_law(law as fn(LinearLayout) -> bool);
    }

    #[test]
    fn no_out_dims_is_an_error() {
        let l = LinearLayout::empty();
        assert_eq!(tensor_view(&l), Err(ViewError::NoOutDims));
        assert!(svg(&l, &PictureOptions::default()).is_err());
    }
}
