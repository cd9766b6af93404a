#![warn(missing_docs)]
//! The Python package `linear_layout`: the linear-layout crate (GPU tensor layouts as linear
//! maps over GF(2), exact with Triton 3.6.0) from Python.
//!
//! This crate is the extension module `linear_layout._native`; `linear_layout/__init__.py`
//! re-exports it, and `linear_layout/strategies.py` adds Hypothesis strategies. Every function
//! is a thin call into the crate: layouts are the crate's `LinearLayout`, dicts are the batch
//! protocol's JSON forms (through serde), and every error of the crate is raised as a subclass
//! of `linear_layout.LinearLayoutError` with the crate's message.

mod errors;
mod layout;
mod tools;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<layout::PyLinearLayout>()?;
    m.add_class::<tools::PyBankConflicts>()?;
    m.add_class::<tools::PyConvertCost>()?;
    m.add_class::<tools::PyHeuristicsReport>()?;
    m.add_function(wrap_pyfunction!(layout::divide_left, m)?)?;
    m.add_function(wrap_pyfunction!(layout::divide_right, m)?)?;
    m.add_function(wrap_pyfunction!(tools::to_linear_layout, m)?)?;
    m.add_function(wrap_pyfunction!(tools::tensor_view, m)?)?;
    m.add_function(wrap_pyfunction!(tools::hardware_view, m)?)?;
    m.add_function(wrap_pyfunction!(tools::bank_conflicts, m)?)?;
    m.add_function(wrap_pyfunction!(tools::convert_cost, m)?)?;
    m.add_function(wrap_pyfunction!(tools::heuristics, m)?)?;
    m.add_function(wrap_pyfunction!(tools::lower_copy, m)?)?;
    m.add_function(wrap_pyfunction!(tools::lower_convert, m)?)?;
    m.add_function(wrap_pyfunction!(tools::lower_lds_copy, m)?)?;
    m.add_function(wrap_pyfunction!(tools::lower_matmul, m)?)?;
    m.add_function(wrap_pyfunction!(tools::lower_ttgir, m)?)?;
    m.add("TARGETS", tools::target_names())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
