//! The exceptions: `LinearLayoutError(ValueError)` and one subclass per error type of the
//! crate, each raised with the crate's message.
//!
//! Every exception has a `limit` attribute: `None`, or `(name, max, got)` when the error is a
//! limit of the crate's `limits` module (`("linear::MAX_BITS", 64, 65)`). A `TtgirError` also
//! has `line` and `column`.

use std::fmt::Display;

use linear_layout::encodings::EncodingError as CrateEncodingError;
use linear_layout::heuristics::convert::ConvertError as CrateConvertError;
use linear_layout::heuristics::error::HeuristicError as CrateHeuristicError;
use linear_layout::limits::LimitExceeded;
use linear_layout::linear::LayoutError as CrateLayoutError;
use linear_layout::lower::LowerError as CrateLowerError;
use linear_layout::ttgir::TtgirError as CrateTtgirError;
use linear_layout::view::ViewError as CrateViewError;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    linear_layout,
    LinearLayoutError,
    PyValueError,
    "Base of every error of linear_layout: an input the crate rejects, with its message. \
     `limit` is None or (name, max, got) when a limit of the crate was exceeded."
);
create_exception!(
    linear_layout,
    LayoutError,
    LinearLayoutError,
    "A layout operation failed: a malformed layout, mismatched dims, a non-invertible layout, ..."
);
create_exception!(
    linear_layout,
    EncodingError,
    LinearLayoutError,
    "An encoding (Triton attribute text or JSON) is malformed or has no layout at the shape."
);
create_exception!(
    linear_layout,
    ViewError,
    LinearLayoutError,
    "A text view cannot be made of the layout."
);
create_exception!(
    linear_layout,
    ConvertError,
    LinearLayoutError,
    "A conversion or a bank-conflict count cannot be priced."
);
create_exception!(
    linear_layout,
    TtgirError,
    LinearLayoutError,
    "TTGIR text cannot be read; `line` and `column` say where."
);
create_exception!(
    linear_layout,
    HeuristicError,
    LinearLayoutError,
    "A layout pass cannot run on the module."
);
create_exception!(
    linear_layout,
    LowerError,
    LinearLayoutError,
    "A kernel cannot be generated."
);

/// An error of the crate, raised as its Python exception.
pub trait CrateError: Display {
    /// The exception, with the crate's message.
    fn exception(&self) -> PyErr;
    /// The limit exceeded, when that is what is wrong.
    fn limit(&self) -> Option<LimitExceeded> {
        None
    }
    /// Further attributes of the exception.
    fn annotate(&self, _exc: &Bound<'_, PyAny>) -> PyResult<()> {
        Ok(())
    }
}

impl CrateError for CrateLayoutError {
    fn exception(&self) -> PyErr {
        LayoutError::new_err(self.to_string())
    }
    fn limit(&self) -> Option<LimitExceeded> {
        match self {
            CrateLayoutError::Limit(l) => Some(*l),
            _ => None,
        }
    }
}

impl CrateError for CrateEncodingError {
    fn exception(&self) -> PyErr {
        EncodingError::new_err(self.to_string())
    }
    fn limit(&self) -> Option<LimitExceeded> {
        match self {
            CrateEncodingError::Limit(l) => Some(*l),
            _ => None,
        }
    }
}

impl CrateError for CrateViewError {
    fn exception(&self) -> PyErr {
        ViewError::new_err(self.to_string())
    }
    fn limit(&self) -> Option<LimitExceeded> {
        match self {
            CrateViewError::Limit(l) => Some(*l),
            _ => None,
        }
    }
}

impl CrateError for CrateConvertError {
    fn exception(&self) -> PyErr {
        ConvertError::new_err(self.to_string())
    }
    fn limit(&self) -> Option<LimitExceeded> {
        CrateConvertError::limit(self).copied()
    }
}

impl CrateError for CrateTtgirError {
    fn exception(&self) -> PyErr {
        TtgirError::new_err(self.to_string())
    }
    fn limit(&self) -> Option<LimitExceeded> {
        self.limit
    }
    fn annotate(&self, exc: &Bound<'_, PyAny>) -> PyResult<()> {
        exc.setattr("line", self.line)?;
        exc.setattr("column", self.column)
    }
}

impl CrateError for CrateHeuristicError {
    fn exception(&self) -> PyErr {
        HeuristicError::new_err(self.to_string())
    }
    fn limit(&self) -> Option<LimitExceeded> {
        self.limit
    }
}

impl CrateError for CrateLowerError {
    fn exception(&self) -> PyErr {
        LowerError::new_err(self.to_string())
    }
}

/// A message of the crate that has no error type of its own (an unknown target, a malformed
/// cost operand): raised as `LinearLayoutError`.
impl CrateError for String {
    fn exception(&self) -> PyErr {
        LinearLayoutError::new_err(self.clone())
    }
}

/// `Result<T, E>` of the crate to `PyResult<T>`.
pub trait Raise<T> {
    /// The value, or the error raised as its exception.
    fn raise(self) -> PyResult<T>;
}

impl<T, E: CrateError> Raise<T> for Result<T, E> {
    fn raise(self) -> PyResult<T> {
        self.map_err(|e| to_exception(&e))
    }
}

/// The exception of an error, its attributes set.
pub fn to_exception<E: CrateError>(e: &E) -> PyErr {
    let err = e.exception();
    Python::attach(|py| {
        let exc = err.value(py).as_any();
        let limit = e.limit().map(|l| (l.limit, l.max, l.got));
        exc.setattr("limit", limit).and_then(|()| e.annotate(exc))
    })
    .map_or_else(|failed| failed, |()| err)
}

/// Adds the exceptions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("LinearLayoutError", py.get_type::<LinearLayoutError>())?;
    py.get_type::<LinearLayoutError>().setattr("limit", py.None())?;
    m.add("LayoutError", py.get_type::<LayoutError>())?;
    m.add("EncodingError", py.get_type::<EncodingError>())?;
    m.add("ViewError", py.get_type::<ViewError>())?;
    m.add("ConvertError", py.get_type::<ConvertError>())?;
    m.add("TtgirError", py.get_type::<TtgirError>())?;
    m.add("HeuristicError", py.get_type::<HeuristicError>())?;
    m.add("LowerError", py.get_type::<LowerError>())?;
    Ok(())
}
