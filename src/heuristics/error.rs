//! The types the layout passes share (their error, their decisions and the ops they leave
//! undecided): the passes import them from here, and the dispatcher
//! ([`passes`](crate::heuristics::passes)) re-exports it, so no pass imports the module that runs it.

use std::fmt;

use crate::limits::LimitExceeded;

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
    /// The limit exceeded, when that is what went wrong (such as
    /// [`axisinfo::MAX_EVALUATIONS`](crate::ttgir::axisinfo::MAX_EVALUATIONS)).
    pub limit: Option<LimitExceeded>,
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
            limit: None,
        }
    }
}

impl From<LimitExceeded> for HeuristicError {
    fn from(limit: LimitExceeded) -> Self {
        HeuristicError {
            message: limit.to_string(),
            limit: Some(limit),
        }
    }
}

impl fmt::Display for HeuristicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HeuristicError {}

/// A memory or dot op a pass saw and made no decision for, with the reason: every op a pass
/// handles ends up either decided or here, never silently missing.
///
/// ```
/// use linear_layout::heuristics::error::Undecided;
/// let u = Undecided { op: 3, name: "tt.load".into(), line: 12, reason: "a scalar pointer".into() };
/// assert_eq!(u.to_string(), "tt.load (line 12): no decision: a scalar pointer");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undecided {
    /// Index of the op in [`Module::ops`](crate::ttgir::Module::ops).
    pub op: usize,
    /// The op name.
    pub name: String,
    /// 1-based source line.
    pub line: usize,
    /// Why no decision was made.
    pub reason: String,
}

impl fmt::Display for Undecided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (line {}): no decision: {}",
            self.name, self.line, self.reason
        )
    }
}

/// What a pass returns for a module: its decisions in walk order, and the ops it handles but
/// decided nothing for. Dereferences to the decisions.
///
/// ```
/// use linear_layout::heuristics::error::Decisions;
/// let d: Decisions<u32> = Decisions { decided: vec![7], undecided: vec![] };
/// assert_eq!((d.len(), d[0]), (1, 7));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decisions<D> {
    /// The decisions, in walk order.
    pub decided: Vec<D>,
    /// The ops with no decision, in walk order.
    pub undecided: Vec<Undecided>,
}

impl<D> Default for Decisions<D> {
    fn default() -> Self {
        Decisions {
            decided: Vec::new(),
            undecided: Vec::new(),
        }
    }
}

impl<D> std::ops::Deref for Decisions<D> {
    type Target = [D];

    fn deref(&self) -> &[D] {
        &self.decided
    }
}
