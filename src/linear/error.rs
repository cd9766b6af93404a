//! The one error type of the layout core.
//!
//! Triton aborts the process (`report_fatal_error`, failed `assert`) on every malformed layout
//! and every broken precondition. Here each of those is a [`LayoutError`] variant whose message
//! names the dimensions and sizes involved.

use std::fmt;

use super::DimName;
use crate::limits::LimitExceeded;

/// Why a layout operation could not produce a result.
///
/// ```
/// use linear_layout::linear::{LayoutError, LinearLayout};
/// let err = LinearLayout::identity_1d(6, "x", "y").unwrap_err();
/// assert!(matches!(err, LayoutError::SizeNotPowerOfTwo { .. }));
/// assert_eq!(err.to_string(), "size 6 of dimension 'x' is not a power of two");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LayoutError {
    /// A basis component is negative.
    NegativeBasis {
        /// The input dimension.
        in_dim: DimName,
        /// The output dimension of the component.
        out_dim: DimName,
        /// The component.
        value: i64,
    },
    /// A basis of `in_dim` has `got` components where the layout has `expected` out-dims.
    BasisLength {
        /// The input dimension.
        in_dim: DimName,
        /// The number of out-dims.
        expected: usize,
        /// The number of components of the basis.
        got: usize,
    },
    /// A dimension size that must be a power of two (≥ 1) is not.
    SizeNotPowerOfTwo {
        /// The dimension.
        dim: DimName,
        /// The size given.
        size: i64,
    },
    /// A basis component does not fit its out-dim.
    BasisOutOfRange {
        /// The input dimension.
        in_dim: DimName,
        /// The output dimension of the component.
        out_dim: DimName,
        /// The component.
        value: i64,
        /// The out-dim's size.
        size: u64,
    },
    /// The layout would have more than [`MAX_BITS`](super::MAX_BITS) (64) input or output
    /// bits.
    TooManyBits {
        /// `"input"` or `"output"`.
        side: &'static str,
        /// The number of bits it would have.
        bits: u32,
    },
    /// The layout was required to be surjective and is not.
    NotSurjective {
        /// The rank of the layout's matrix.
        rank: u32,
        /// The number of output bits.
        out_bits: u32,
    },
    /// A named dimension is not in the layout.
    DimNotFound {
        /// The name looked up.
        dim: DimName,
        /// Where it was looked for (`"input"`, `"output"`, `"shape"`).
        side: &'static str,
    },
    /// A dimension name appears twice where names must be distinct.
    DuplicateDim {
        /// The repeated name.
        dim: DimName,
        /// Where it is repeated.
        side: &'static str,
    },
    /// Two lists of dimensions that must match (as sets or in order) do not.
    DimsMismatch {
        /// The operation.
        op: &'static str,
        /// The dimensions required.
        expected: Vec<DimName>,
        /// The dimensions given.
        got: Vec<DimName>,
    },
    /// A dimension has a size the operation cannot accept.
    SizeMismatch {
        /// The operation.
        op: &'static str,
        /// The dimension.
        dim: DimName,
        /// Its size.
        size: u64,
        /// What the operation needs instead, in words.
        required: String,
    },
    /// `invert_and_compose`: some value of this layout is not in the image of `outer`.
    ImageNotContained {
        /// The out-dims of the layout.
        dims: Vec<DimName>,
    },
    /// `invert`: the layout is not a bijection.
    NotInvertible {
        /// The number of input bits.
        in_bits: u32,
        /// The number of output bits.
        out_bits: u32,
        /// The rank of the layout's matrix.
        rank: u32,
    },
    /// One of the crate's limits ([`limits`](crate::limits)) would be exceeded, such as
    /// [`MAX_DIMS`](super::MAX_DIMS).
    Limit(LimitExceeded),
    /// Any other broken precondition, described in words.
    Precondition {
        /// The operation.
        op: &'static str,
        /// What is wrong.
        detail: String,
    },
}

fn names(list: &[DimName]) -> String {
    let inner: Vec<&str> = list.iter().map(|n| n.as_str()).collect();
    format!("[{}]", inner.join(", "))
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::NegativeBasis {
                in_dim,
                out_dim,
                value,
            } => write!(
                f,
                "basis component {value} of in-dim '{in_dim}' for out-dim '{out_dim}' is negative"
            ),
            LayoutError::BasisLength {
                in_dim,
                expected,
                got,
            } => write!(
                f,
                "a basis of in-dim '{in_dim}' has {got} components, but the layout has {expected} out-dims"
            ),
            LayoutError::SizeNotPowerOfTwo { dim, size } => {
                write!(f, "size {size} of dimension '{dim}' is not a power of two")
            }
            LayoutError::BasisOutOfRange {
                in_dim,
                out_dim,
                value,
                size,
            } => write!(
                f,
                "basis component {value} of in-dim '{in_dim}' does not fit out-dim '{out_dim}' of size {size}"
            ),
            LayoutError::TooManyBits { side, bits } => write!(
                f,
                "layout too large: {bits} {side} bits (at most linear::MAX_BITS = 64 are supported)"
            ),
            LayoutError::NotSurjective { rank, out_bits } => write!(
                f,
                "layout is required to be surjective, but its rank {rank} is below its {out_bits} output bits"
            ),
            LayoutError::DimNotFound { dim, side } => {
                write!(f, "{side} dimension '{dim}' is not in the layout")
            }
            LayoutError::DuplicateDim { dim, side } => {
                write!(f, "{side} dimension '{dim}' appears more than once")
            }
            LayoutError::DimsMismatch { op, expected, got } => write!(
                f,
                "{op}: dimensions {} do not match {}",
                names(got),
                names(expected)
            ),
            LayoutError::SizeMismatch {
                op,
                dim,
                size,
                required,
            } => write!(f, "{op}: dimension '{dim}' has size {size}, but {required}"),
            LayoutError::ImageNotContained { dims } => write!(
                f,
                "invert_and_compose: the image of this layout over out-dims {} is not contained in the image of the outer layout",
                names(dims)
            ),
            LayoutError::NotInvertible {
                in_bits,
                out_bits,
                rank,
            } => write!(
                f,
                "invert: the layout is not invertible ({in_bits} input bits, {out_bits} output bits, rank {rank}); it must be surjective and square"
            ),
            LayoutError::Limit(limit) => write!(f, "{limit}"),
            LayoutError::Precondition { op, detail } => write!(f, "{op}: {detail}"),
        }
    }
}

impl std::error::Error for LayoutError {}

impl From<LimitExceeded> for LayoutError {
    fn from(limit: LimitExceeded) -> Self {
        LayoutError::Limit(limit)
    }
}
