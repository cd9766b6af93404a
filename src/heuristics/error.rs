//! The error the layout passes share: the passes import it from here, and the dispatcher
//! ([`passes`](super::passes)) re-exports it, so no pass imports the module that runs it.

use std::fmt;

/// An error of a heuristic (inconsistent input, failed cross-check).
///
/// ```
/// use linear_layout::heuristics::error::HeuristicError;
/// assert_eq!(HeuristicError::new("bad").to_string(), "bad");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeuristicError {
    /// What went wrong.
    pub message: String,
}

impl HeuristicError {
    /// An error with a message.
    ///
    /// ```
    /// use linear_layout::heuristics::error::HeuristicError;
    /// assert_eq!(HeuristicError::new("x").message, "x");
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        HeuristicError {
            message: message.into(),
        }
    }
}

impl fmt::Display for HeuristicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HeuristicError {}
