//! The one error type of every lowering stage: the IR's validation, the plans, the TTGIR front
//! and the back ends all report a [`LowerError`], a one-line message naming what was refused.

use std::fmt;

use crate::linear::LayoutError;

/// Why a kernel could not be generated or run.
///
/// ```
/// use linear_layout::lower::LowerError;
/// assert_eq!(LowerError::new("too big").to_string(), "too big");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    message: String,
}

impl LowerError {
    /// An error with this message.
    ///
    /// ```
    /// use linear_layout::lower::LowerError;
    /// assert_eq!(LowerError::new("x").message(), "x");
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        LowerError {
            message: message.into(),
        }
    }

    /// The message.
    ///
    /// ```
    /// use linear_layout::lower::LowerError;
    /// assert!(LowerError::new("no").message().starts_with('n'));
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LowerError {}

impl From<LayoutError> for LowerError {
    fn from(e: LayoutError) -> Self {
        LowerError::new(e.to_string())
    }
}

impl From<crate::heuristics::convert::ConvertError> for LowerError {
    fn from(e: crate::heuristics::convert::ConvertError) -> Self {
        LowerError::new(e.message())
    }
}
