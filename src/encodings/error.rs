//! [`EncodingError`]: why an encoding could not be built, parsed or converted.

use std::fmt;

use crate::limits::LimitExceeded;
use crate::linear::LayoutError;

/// Why an encoding is invalid, could not be parsed, or could not be turned into a layout.
///
/// Triton reports most of these through its attribute verifiers; many others are C++
/// assertions that abort the compiler. Here every one is a value, and the message names the
/// encoding kind and the offending parameter.
///
/// ```
/// use linear_layout::encodings::{Encoding, EncodingError};
/// let e = Encoding::from_json_str(
///     r#"{"kind": "blocked", "sizePerThread": [3], "threadsPerWarp": [32], "warpsPerCTA": [1], "order": [0]}"#,
/// )?;
/// let err = e.to_linear_layout(&[64]).unwrap_err();
/// assert!(matches!(err, EncodingError::InvalidParameter { param: "sizePerThread", .. }));
/// assert_eq!(err.to_string(), "blocked: sizePerThread: every element must be a power of two, got [3]");
/// # Ok::<(), EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodingError {
    /// A parameter of an encoding violates Triton's rules (verifier or conversion assertion).
    InvalidParameter {
        /// The encoding kind, as in the JSON schema (`blocked`, `amd_mfma`, …).
        kind: &'static str,
        /// The parameter, spelled as in the JSON schema / MLIR text.
        param: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The tensor shape cannot be used with this encoding.
    InvalidShape {
        /// The encoding kind.
        kind: &'static str,
        /// What is wrong with the shape.
        reason: String,
    },
    /// A JSON description is malformed (missing member, wrong type, unknown kind).
    Json(String),
    /// Attribute text could not be parsed; `line` and `column` are 1-based (in characters).
    Parse {
        /// The line of the error (1 for single-line text).
        line: usize,
        /// The column of the error.
        column: usize,
        /// What was expected or found.
        message: String,
    },
    /// The layout algebra rejected an intermediate layout.
    Layout(LayoutError),
    /// One of the crate's limits ([`limits`](crate::limits)) would be exceeded: a rank above
    /// [`MAX_RANK`](super::MAX_RANK), more than 2^[`MAX_ELEMENTS_LOG2`](super::MAX_ELEMENTS_LOG2)
    /// elements, parents nested deeper than [`MAX_NESTING`](super::MAX_NESTING), a list in
    /// attribute text longer than [`MAX_LIST_LEN`](super::MAX_LIST_LEN) or deeper than
    /// [`MAX_LIST_DEPTH`](super::MAX_LIST_DEPTH).
    Limit(LimitExceeded),
}

impl EncodingError {
    pub(crate) fn param(kind: &'static str, param: &'static str, reason: impl Into<String>) -> Self {
        EncodingError::InvalidParameter {
            kind,
            param,
            reason: reason.into(),
        }
    }

    pub(crate) fn shape(kind: &'static str, reason: impl Into<String>) -> Self {
        EncodingError::InvalidShape {
            kind,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for EncodingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodingError::InvalidParameter { kind, param, reason } => write!(f, "{kind}: {param}: {reason}"),
            EncodingError::InvalidShape { kind, reason } => write!(f, "{kind}: shape: {reason}"),
            EncodingError::Json(m) => write!(f, "bad encoding JSON: {m}"),
            EncodingError::Parse {
                line,
                column,
                message,
            } => {
                write!(f, "parse error at line {line}, column {column}: {message}")
            }
            EncodingError::Layout(e) => write!(f, "layout error: {e}"),
            EncodingError::Limit(l) => write!(f, "{l}"),
        }
    }
}

impl std::error::Error for EncodingError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EncodingError::Layout(e) => Some(e),
            _ => None,
        }
    }
}

impl From<LayoutError> for EncodingError {
    fn from(e: LayoutError) -> Self {
        match e {
            LayoutError::Limit(l) => EncodingError::Limit(l),
            e => EncodingError::Layout(e),
        }
    }
}

impl From<LimitExceeded> for EncodingError {
    fn from(l: LimitExceeded) -> Self {
        EncodingError::Limit(l)
    }
}
