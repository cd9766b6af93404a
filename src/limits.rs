//! Bounded work: the limits on what one request may ask for, and the error value that names
//! each.
//!
//! Every public function and every request of the command and the batch protocol takes time
//! and memory bounded by its input: what would go past one of the limits below is refused with
//! a [`LimitExceeded`], carried by the error type of the module where the limit lives
//! ([`LayoutError::Limit`](crate::linear::LayoutError::Limit),
//! [`EncodingError::Limit`](crate::encodings::EncodingError::Limit),
//! [`ViewError::Limit`](crate::view::ViewError::Limit),
//! [`TtgirError::limit`](crate::ttgir::TtgirError::limit),
//! [`HeuristicError::limit`](crate::heuristics::error::HeuristicError::limit),
//! [`ConvertError::limit`](crate::heuristics::convert::ConvertError::limit); the batch protocol
//! puts the message in its `error` member). Each limit is a constant, documented where it lives:
//!
//! | limit | value | bounds |
//! |---|---|---|
//! | [`linear::MAX_BITS`](crate::linear::MAX_BITS) | 64 | input bits, and output bits, of a layout (Triton's own limit) |
//! | [`linear::MAX_DIMS`](crate::linear::MAX_DIMS) | 32 | input dims, and output dims, of a layout |
//! | [`encodings::MAX_RANK`](crate::encodings::MAX_RANK) | 16 | the rank of a tensor an encoding is converted for |
//! | [`encodings::MAX_ELEMENTS_LOG2`](crate::encodings::MAX_ELEMENTS_LOG2) | 30 | log2 of the elements of a tensor an encoding is converted for |
//! | [`encodings::MAX_NESTING`](crate::encodings::MAX_NESTING) | 16 | `slice` / `dot_op` parents nested in one encoding, aliases included |
//! | [`encodings::MAX_LIST_LEN`](crate::encodings::MAX_LIST_LEN) | 64 | entries of one list in attribute text |
//! | [`encodings::MAX_LIST_DEPTH`](crate::encodings::MAX_LIST_DEPTH) | 4 | lists nested in lists in attribute text |
//! | [`view::MAX_VIEW_ELEMENTS`](crate::view::MAX_VIEW_ELEMENTS) | 2^20 | tensor elements, and hardware positions, of a text view or a picture |
//! | [`view::MAX_PICTURE_ELEMENTS`](crate::view::MAX_PICTURE_ELEMENTS) | 2^16 | tensor elements of a picture (SVG, HTML) |
//! | [`heuristics::convert::MAX_COST_ELEMENTS_LOG2`](crate::heuristics::convert::MAX_COST_ELEMENTS_LOG2) | 40 | log2 of the tensor elements a conversion is priced (and its LDS layout searched) for, and of either layout's hardware positions |
//! | [`heuristics::convert::MAX_SIMULATED_ELEMENTS_LOG2`](crate::heuristics::convert::MAX_SIMULATED_ELEMENTS_LOG2) | 22 | log2 of the tensor elements the bank-conflict simulator enumerates |
//! | [`ttgir::MAX_INPUT_BYTES`](crate::ttgir::MAX_INPUT_BYTES) | 16 MiB | TTGIR text read at once |
//! | [`ttgir::MAX_MODULES`](crate::ttgir::MAX_MODULES) | 1,024 | modules in one TTGIR text |
//! | [`ttgir::MAX_REGION_DEPTH`](crate::ttgir::MAX_REGION_DEPTH) | 32 | regions nested in a function (`scf.for` in `scf.if` in …) |
//! | [`ttgir::MAX_OP_RESULTS`](crate::ttgir::MAX_OP_RESULTS) | 4,096 | results one op declares (`%r:4096`: a few bytes of text name that many values) |
//! | [`ttgir::MAX_VALUES`](crate::ttgir::MAX_VALUES) | 2^20 | values (arguments and results) of one module |
//! | [`ttgir::axisinfo::MAX_EVALUATIONS`](crate::ttgir::axisinfo::MAX_EVALUATIONS) | 2^20 | op evaluations of one AxisInfo analysis (loops nested in loops are iterated to a fixed point) |
//! | [`batch::MAX_LINE_BYTES`](crate::batch::MAX_LINE_BYTES) | 1 MiB | one request line of the batch protocol |
//!
//! JSON input is also bounded by `serde_json`'s nesting limit (128 levels).
//!
//! Within the limits, time and memory grow with the input: encodings named by alias are shared
//! by the values that name them, the layout passes take time linear in the module (a coalescing
//! decision lists at most
//! [`coalesce::MAX_SAME_ORDER_LISTED`](crate::heuristics::coalesce::MAX_SAME_ORDER_LISTED) of
//! its partners and counts the rest), and the batch protocol keeps one request line at a time.
//!
//! ```
//! use linear_layout::linear::{LayoutError, LinearLayout, MAX_DIMS};
//! let dims: Vec<(String, Vec<Vec<i64>>)> = (0..=MAX_DIMS).map(|i| (format!("d{i}"), vec![])).collect();
//! let err = LinearLayout::from_bases(dims, [("x", 1)], false).unwrap_err();
//! let LayoutError::Limit(limit) = &err else { panic!("{err}") };
//! assert_eq!((limit.limit, limit.max, limit.got), ("linear::MAX_DIMS", 32, 33));
//! assert_eq!(err.to_string(), "input dims of a layout: 33 exceeds the limit linear::MAX_DIMS = 32");
//! ```

use std::fmt;

/// A request went past one of the crate's limits (see the [module docs](self)).
///
/// ```
/// use linear_layout::limits::LimitExceeded;
/// let e = LimitExceeded::new("view::MAX_PICTURE_ELEMENTS", "tensor elements of a picture", 1 << 16, 1 << 18);
/// assert_eq!(e.to_string(), "tensor elements of a picture: 262144 exceeds the limit view::MAX_PICTURE_ELEMENTS = 65536");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LimitExceeded {
    /// The limit: the path of its constant (`"view::MAX_PICTURE_ELEMENTS"`).
    pub limit: &'static str,
    /// What the limit counts.
    pub counts: &'static str,
    /// The limit's value: the largest count allowed.
    pub max: u64,
    /// The count met (`max + 1` where counting stopped at the limit).
    pub got: u64,
}

impl LimitExceeded {
    /// The error for `got` of what `limit` counts, against its value `max`.
    ///
    /// ```
    /// use linear_layout::limits::LimitExceeded;
    /// let e = LimitExceeded::new("batch::MAX_LINE_BYTES", "bytes of a request line", 1 << 20, (1 << 20) + 1);
    /// assert_eq!(e.got, e.max + 1);
    /// ```
    pub const fn new(limit: &'static str, counts: &'static str, max: u64, got: u64) -> Self {
        LimitExceeded {
            limit,
            counts,
            max,
            got,
        }
    }

    /// `Err` naming the limit when `got` exceeds `max`.
    ///
    /// ```
    /// use linear_layout::limits::LimitExceeded;
    /// assert!(LimitExceeded::check("ttgir::MAX_MODULES", "modules", 1024, 1024).is_ok());
    /// assert_eq!(LimitExceeded::check("ttgir::MAX_MODULES", "modules", 1024, 1025).unwrap_err().got, 1025);
    /// ```
    pub fn check(limit: &'static str, counts: &'static str, max: u64, got: u64) -> Result<(), LimitExceeded> {
        if got > max {
            Err(LimitExceeded::new(limit, counts, max, got))
        } else {
            Ok(())
        }
    }
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} exceeds the limit {} = {}",
            self.counts, self.got, self.limit, self.max
        )
    }
}

impl std::error::Error for LimitExceeded {}
