//! `linear_layout.LinearLayout`: the crate's `LinearLayout`, with the names of Triton's Python
//! binding (`from_bases`, `apply`, `compose`, `invert_and_compose`, `bases`, `out_dims`, …) and
//! the crate's other queries and reshapes.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use linear_layout::linear::{self, LinearLayout};
use linear_layout::view;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::errors::{LayoutError, Raise};

/// A linear layout: a linear map over GF(2) from named input dimensions (hardware: register,
/// lane, warp, block, offset, ...) to named output dimensions (the tensor's dim0, dim1, ...),
/// each of a power-of-two size, given by one basis (a list of out-dim components) per input
/// bit. Immutable and hashable; `==` compares dims in order and every basis.
///
/// `LinearLayout(bases, out_dims)` builds one from a dict of in-dim name -> list of bases and a
/// dict of out-dim name -> size (lists of pairs work too, as in Triton's binding); without
/// out-dim sizes (a list of names) the sizes are inferred and the layout must be surjective.
/// `LinearLayout()` is the empty layout.
#[pyclass(name = "LinearLayout", module = "linear_layout", frozen, skip_from_py_object)]
#[derive(Clone)]
pub struct PyLinearLayout {
    /// The layout.
    pub inner: LinearLayout,
}

impl PyLinearLayout {
    /// Wraps a crate layout.
    pub fn wrap(inner: LinearLayout) -> Self {
        PyLinearLayout { inner }
    }
}

/// The entries of a dict, or of a sequence of (name, value) pairs, in order.
pub fn named_items<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    if let Ok(d) = obj.cast::<PyDict>() {
        return d.iter().map(|(k, v)| Ok((name_of(&k, what)?, v))).collect();
    }
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a dict or a list of (name, value) pairs, not a string"
        )));
    }
    let mut out = Vec::new();
    for item in obj.try_iter().map_err(|_| {
        PyTypeError::new_err(format!("{what} must be a dict or a list of (name, value) pairs"))
    })? {
        let item = item?;
        let pair = item
            .cast::<PyTuple>()
            .ok()
            .filter(|t| t.len() == 2)
            .ok_or_else(|| {
                PyTypeError::new_err(format!("{what} must be a dict or a list of (name, value) pairs"))
            })?;
        out.push((name_of(&pair.get_item(0)?, what)?, pair.get_item(1)?));
    }
    Ok(out)
}

fn name_of(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    obj.extract::<String>()
        .map_err(|_| PyTypeError::new_err(format!("{what}: dimension names must be strings")))
}

/// A Python int as an `i64`: a `TypeError` for a non-int, a `LayoutError` for one out of range.
pub fn int64(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<i64> {
    if obj.is_instance_of::<pyo3::types::PyBool>() || !obj.is_instance_of::<pyo3::types::PyInt>() {
        return Err(PyTypeError::new_err(format!("{what} must be an int")));
    }
    obj.extract::<i64>()
        .map_err(|_| LayoutError::new_err(format!("{what}: {obj} does not fit in 64 bits")))
}

/// Strings of a sequence (a `TypeError` for a lone string, which is a sequence too).
pub fn names(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a list of names, not a string"
        )));
    }
    obj.extract::<Vec<String>>()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a list of names")))
}

fn bases_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<(String, Vec<Vec<i64>>)>> {
    named_items(obj, "bases")?
        .into_iter()
        .map(|(name, bs)| {
            // Messages are made only on failure: this runs once per basis component.
            let not_lists =
                || PyTypeError::new_err(format!("bases of '{name}' must be a list of lists of ints"));
            let mut out = Vec::new();
            for b in bs.try_iter().map_err(|_| not_lists())? {
                let b = b?;
                let mut basis = Vec::new();
                for c in b.try_iter().map_err(|_| not_lists())? {
                    let c = c?;
                    if !c.is_exact_instance_of::<pyo3::types::PyInt>() {
                        basis.push(int64(&c, &format!("a component of the bases of '{name}'"))?);
                    } else {
                        basis.push(c.extract::<i64>().map_err(|_| {
                            LayoutError::new_err(format!(
                                "a component of the bases of '{name}': {c} does not fit in 64 bits"
                            ))
                        })?);
                    }
                }
                out.push(basis);
            }
            Ok((name, out))
        })
        .collect()
}

fn sized_names(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<(String, i64)>> {
    named_items(obj, what)?
        .into_iter()
        .map(|(n, s)| {
            let size = int64(&s, &format!("the size of '{n}'"))?;
            Ok((n, size))
        })
        .collect()
}

/// Sizes as the crate takes them (`u64`); a negative size is refused as not a power of two.
fn sizes_u64(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<(String, u64)>> {
    sized_names(obj, what)?
        .into_iter()
        .map(|(n, s)| {
            u64::try_from(s).map(|s| (n.clone(), s)).map_err(|_| {
                LayoutError::new_err(format!("size {s} of dimension '{n}' is not a power of two"))
            })
        })
        .collect()
}

/// Whether a Python value is a list of names (rather than of (name, size) pairs).
fn is_name_list(obj: &Bound<'_, PyAny>) -> bool {
    !obj.is_instance_of::<PyDict>()
        && obj
            .try_iter()
            .ok()
            .and_then(|mut it| it.next())
            .is_some_and(|first| first.is_ok_and(|f| f.is_instance_of::<PyString>()))
}

fn layout_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<LinearLayout> {
    obj.cast::<PyLinearLayout>()
        .map(|l| l.get().inner.clone())
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a LinearLayout")))
}

fn wrap(l: Result<LinearLayout, linear::LayoutError>) -> PyResult<PyLinearLayout> {
    l.raise().map(PyLinearLayout::wrap)
}

#[pymethods]
impl PyLinearLayout {
    /// LinearLayout(bases=None, out_dims=None, *, require_surjective=False)
    ///
    /// `bases`: {in_dim: [[component per out-dim], ...]} (or a list of (in_dim, bases) pairs),
    /// the bases of each in-dim for input bits 1, 2, 4, ...; `out_dims`: {out_dim: size} (or
    /// (name, size) pairs), or a list of out-dim names, whose sizes are then inferred as the
    /// smallest powers of two that hold every component (the layout must then be surjective).
    /// A repeated in-dim keeps its first position and its last bases.
    #[new]
    #[pyo3(signature = (bases = None, out_dims = None, *, require_surjective = false))]
    fn new(
        bases: Option<&Bound<'_, PyAny>>,
        out_dims: Option<&Bound<'_, PyAny>>,
        require_surjective: bool,
    ) -> PyResult<Self> {
        let bases = match bases {
            Some(b) => bases_arg(b)?,
            None => Vec::new(),
        };
        match out_dims {
            None if bases.is_empty() => Ok(PyLinearLayout::wrap(LinearLayout::empty())),
            None => Err(PyTypeError::new_err(
                "out_dims is required: a dict of out-dim name -> size, or a list of names",
            )),
            Some(o) if is_name_list(o) => {
                wrap(LinearLayout::from_bases_inferred(bases, names(o, "out_dims")?))
            }
            Some(o) => wrap(LinearLayout::from_bases(
                bases,
                sized_names(o, "out_dims")?,
                require_surjective,
            )),
        }
    }

    /// from_bases(bases, out_dim_names, out_dim_sizes=None, require_surjective=True)
    ///
    /// Triton's binding's constructor: `bases` a list of (in_dim, bases) pairs (or a dict),
    /// out-dim names, and their sizes (inferred when None, the layout then surjective).
    #[staticmethod]
    #[pyo3(signature = (bases, out_dim_names, out_dim_sizes = None, require_surjective = true))]
    fn from_bases(
        bases: &Bound<'_, PyAny>,
        out_dim_names: &Bound<'_, PyAny>,
        out_dim_sizes: Option<&Bound<'_, PyAny>>,
        require_surjective: bool,
    ) -> PyResult<Self> {
        let bases = bases_arg(bases)?;
        let out_names = names(out_dim_names, "out_dim_names")?;
        let Some(sizes) = out_dim_sizes else {
            return wrap(LinearLayout::from_bases_inferred(bases, out_names));
        };
        let sizes: Vec<i64> = sizes
            .try_iter()
            .map_err(|_| PyTypeError::new_err("out_dim_sizes must be a list of ints"))?
            .map(|s| int64(&s?, "an out-dim size"))
            .collect::<PyResult<_>>()?;
        if sizes.len() != out_names.len() {
            return Err(LayoutError::new_err(format!(
                "{} out-dim names but {} sizes",
                out_names.len(),
                sizes.len()
            )));
        }
        wrap(LinearLayout::from_bases(
            bases,
            out_names.into_iter().zip(sizes),
            require_surjective,
        ))
    }

    /// The layout from its protocol dict {"in_dims": {name: [basis, ...]}, "out_dims":
    /// {name: size}} (what `to_dict` returns, the batch protocol's layout form; member order is
    /// dimension order; components and sizes are 32-bit ints, as in Triton).
    #[staticmethod]
    pub fn from_dict(d: &Bound<'_, PyAny>) -> PyResult<Self> {
        if !d.is_instance_of::<PyDict>() {
            return Err(PyTypeError::new_err(
                "from_dict takes a dict {'in_dims': {...}, 'out_dims': {...}}",
            ));
        }
        // Through JSON values, so that the protocol's types hold exactly (a bool or a float is
        // not an int there).
        let json = pythonize::depythonize::<serde_json::Value>(d)
            .map_err(|e| LayoutError::new_err(e.to_string()))?;
        serde_json::from_value::<LinearLayout>(json)
            .map(PyLinearLayout::wrap)
            .map_err(|e| LayoutError::new_err(e.to_string()))
    }

    /// The protocol dict {"in_dims": {name: [basis, ...]}, "out_dims": {name: size}}.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize::pythonize(py, &self.inner).map_err(|e| LayoutError::new_err(e.to_string()))
    }

    /// The empty layout (no dims): the unit of `*`.
    #[staticmethod]
    fn empty() -> Self {
        PyLinearLayout::wrap(LinearLayout::empty())
    }

    /// identity_1d(size, in_dim, out_dim): x -> x from `in_dim` to `out_dim`, both of `size`.
    #[staticmethod]
    fn identity_1d(size: &Bound<'_, PyAny>, in_dim: &str, out_dim: &str) -> PyResult<Self> {
        let size = size_u64(size, "size")?;
        wrap(LinearLayout::identity_1d(size, in_dim, out_dim))
    }

    /// strided_1d(size, stride, in_dim, out_dim): x -> stride * x, `out_dim` of size
    /// stride * size.
    #[staticmethod]
    fn strided_1d(
        size: &Bound<'_, PyAny>,
        stride: &Bound<'_, PyAny>,
        in_dim: &str,
        out_dim: &str,
    ) -> PyResult<Self> {
        let size = size_u64(size, "size")?;
        let stride = size_u64(stride, "stride")?;
        wrap(LinearLayout::strided_1d(size, stride, in_dim, out_dim))
    }

    /// zeros_1d(size, in_dim, out_dim, out_dim_size=1): every input to 0 (broadcast).
    #[staticmethod]
    #[pyo3(signature = (size, in_dim, out_dim, out_dim_size = None))]
    fn zeros_1d(
        size: &Bound<'_, PyAny>,
        in_dim: &str,
        out_dim: &str,
        out_dim_size: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let size = size_u64(size, "size")?;
        let out_size = match out_dim_size {
            Some(s) => size_u64(s, "out_dim_size")?,
            None => 1,
        };
        wrap(LinearLayout::zeros_1d(size, in_dim, out_dim, out_size))
    }

    /// The in-dims' bases, Triton's form: [(in_dim, [[component per out-dim], ...]), ...].
    #[getter]
    fn bases(&self) -> PyResult<Vec<(String, Vec<Vec<u64>>)>> {
        self.inner
            .in_dim_names()
            .map(|n| Ok((n.to_string(), self.inner.bases(n).raise()?)))
            .collect()
    }

    /// The out-dims with their sizes: [(name, size), ...].
    #[getter]
    fn out_dims(&self) -> Vec<(String, u64)> {
        self.inner.out_dims().map(|(n, s)| (n.to_string(), s)).collect()
    }

    /// The in-dims with their sizes: [(name, size), ...].
    #[getter]
    fn in_dims(&self) -> Vec<(String, u64)> {
        self.inner.in_dims().map(|(n, s)| (n.to_string(), s)).collect()
    }

    /// The number of in-dims.
    #[getter]
    fn num_in_dims(&self) -> usize {
        self.inner.num_in_dims()
    }

    /// The number of out-dims.
    #[getter]
    fn num_out_dims(&self) -> usize {
        self.inner.num_out_dims()
    }

    /// The in-dim names, in order.
    fn get_in_dim_names(&self) -> Vec<String> {
        self.inner.in_dim_names().map(ToString::to_string).collect()
    }

    /// The out-dim names, in order.
    fn get_out_dim_names(&self) -> Vec<String> {
        self.inner.out_dim_names().map(ToString::to_string).collect()
    }

    /// Whether `name` is an in-dim.
    fn has_in_dim(&self, name: &str) -> bool {
        self.inner.has_in_dim(name)
    }

    /// Whether `name` is an out-dim.
    fn has_out_dim(&self, name: &str) -> bool {
        self.inner.has_out_dim(name)
    }

    /// The size of an in-dim.
    fn in_dim_size(&self, name: &str) -> PyResult<u64> {
        self.inner.in_dim_size(name).raise()
    }

    /// log2 of the size of an in-dim.
    fn in_dim_size_log2(&self, name: &str) -> PyResult<u32> {
        self.inner.in_dim_size_log2(name).raise()
    }

    /// The size of an out-dim.
    fn out_dim_size(&self, name: &str) -> PyResult<u64> {
        self.inner.out_dim_size(name).raise()
    }

    /// log2 of the size of an out-dim.
    fn out_dim_size_log2(&self, name: &str) -> PyResult<u32> {
        self.inner.out_dim_size_log2(name).raise()
    }

    /// Input bits in all (log2 of the product of the in-dim sizes).
    fn total_in_bits(&self) -> u32 {
        self.inner.total_in_bits()
    }

    /// Output bits in all.
    fn total_out_bits(&self) -> u32 {
        self.inner.total_out_bits()
    }

    /// The product of the in-dim sizes.
    fn total_in_size(&self) -> u64 {
        self.inner.total_in_size()
    }

    /// The product of the out-dim sizes.
    fn total_out_size(&self) -> u64 {
        self.inner.total_out_size()
    }

    /// The rank of the matrix over GF(2).
    fn rank(&self) -> u32 {
        self.inner.rank()
    }

    /// Whether every output value is reached.
    fn is_surjective(&self) -> bool {
        self.inner.is_surjective()
    }

    /// Whether no two inputs give the same output.
    fn is_injective(&self) -> bool {
        self.inner.is_injective()
    }

    /// Whether the layout is a bijection.
    fn is_invertible(&self) -> bool {
        self.inner.is_invertible()
    }

    /// The bases of one in-dim: [[component per out-dim], ...].
    fn bases_of(&self, in_dim: &str) -> PyResult<Vec<Vec<u64>>> {
        self.inner.bases(in_dim).raise()
    }

    /// The basis of input bit `index` of `in_dim`.
    fn basis(&self, in_dim: &str, index: usize) -> PyResult<Vec<u64>> {
        self.inner.basis(in_dim, index).raise()
    }

    /// The matrix as rows of 0/1 (Triton's `get_matrix_view`).
    fn get_matrix_view(&self) -> Vec<Vec<u8>> {
        self.inner.matrix_view()
    }

    /// For each in-dim, the mask of its free input bits (bases that combine earlier ones).
    fn free_variable_masks(&self) -> Vec<(String, u64)> {
        self.inner
            .free_variable_masks()
            .iter()
            .map(|(n, m)| (n.to_string(), *m))
            .collect()
    }

    /// apply(inputs) -> {out_dim: value}: the layout applied to {in_dim: value} (every in-dim
    /// once). Bits above an in-dim's size are ignored; a negative value counts by its two's
    /// complement bits, as Triton reads an int32.
    fn apply<'py>(&self, py: Python<'py>, inputs: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let inputs = inputs
            .cast::<PyDict>()
            .map_err(|_| PyTypeError::new_err("apply takes a dict {in_dim: int}"))?;
        let mut args: Vec<(String, u64)> = Vec::with_capacity(inputs.len());
        for (k, v) in inputs.iter() {
            let name = name_of(&k, "apply")?;
            let value = int64(&v, &format!("the value of '{name}'"))
                .map(|x| x as u64)
                .or_else(|e| v.extract::<u64>().map_err(|_| e))?;
            args.push((name, value));
        }
        let out = self.inner.apply(&args).raise()?;
        let d = PyDict::new(py);
        for (n, v) in self.inner.out_dim_names().zip(out) {
            d.set_item(n.as_str(), v)?;
        }
        Ok(d)
    }

    /// outer ∘ self: apply self, then `outer` (self's out-dims must be outer's in-dims, each
    /// no larger).
    fn compose(&self, outer: &Bound<'_, PyAny>) -> PyResult<Self> {
        wrap(self.inner.compose(&layout_arg(outer, "outer")?))
    }

    /// The layout C with outer(C(x)) = self(x): invert `outer`, then compose (Triton's choice
    /// of preimage, bit for bit).
    fn invert_and_compose(&self, outer: &Bound<'_, PyAny>) -> PyResult<Self> {
        wrap(self.inner.invert_and_compose(&layout_arg(outer, "outer")?))
    }

    /// The inverse of a bijective layout (in-dims and out-dims swap roles).
    fn invert(&self) -> PyResult<Self> {
        wrap(self.inner.invert())
    }

    /// A generalised inverse P with L ∘ P ∘ L = L (any layout, surjective or not).
    fn pseudoinvert(&self) -> PyResult<Self> {
        wrap(self.inner.pseudoinvert())
    }

    /// The largest V such that V consecutive values of the first in-dim map to V consecutive
    /// values of the first out-dim (the vector width of a register-to-memory access).
    fn get_num_consecutive_in_out(&self) -> u64 {
        self.inner.num_consecutive_in_out()
    }

    /// The sublayout on some in-dims and out-dims (in the layout's order).
    fn sublayout(&self, in_dims: &Bound<'_, PyAny>, out_dims: &Bound<'_, PyAny>) -> PyResult<Self> {
        wrap(
            self.inner
                .sublayout(&names(in_dims, "in_dims")?, &names(out_dims, "out_dims")?),
        )
    }

    /// Whether the sublayout on these dims maps everything to zero.
    fn sublayout_is_zero(&self, in_dims: &Bound<'_, PyAny>, out_dims: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.inner
            .sublayout_is_zero(&names(in_dims, "in_dims")?, &names(out_dims, "out_dims")?)
            .raise()
    }

    /// Whether the square sublayout on `dims` (in-dims and out-dims alike) is the identity.
    fn square_sublayout_is_identity(&self, dims: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.inner
            .square_sublayout_is_identity(&names(dims, "dims")?)
            .raise()
    }

    /// Whether the layout acts on `dims` as an independent identity block.
    fn is_trivial_over(&self, dims: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.inner.is_trivial_over(&names(dims, "dims")?).raise()
    }

    /// The layout with the identity block on `dims` divided out, or None when it is not one.
    fn quotient(&self, dims: &Bound<'_, PyAny>) -> PyResult<Option<Self>> {
        Ok(self
            .inner
            .quotient(&names(dims, "dims")?)
            .raise()?
            .map(PyLinearLayout::wrap))
    }

    /// The in-dims reordered (a permutation of their names).
    fn transpose_ins(&self, order: &Bound<'_, PyAny>) -> PyResult<Self> {
        wrap(self.inner.transpose_ins(&names(order, "order")?))
    }

    /// The out-dims reordered (a permutation of their names).
    fn transpose_outs(&self, order: &Bound<'_, PyAny>) -> PyResult<Self> {
        wrap(self.inner.transpose_outs(&names(order, "order")?))
    }

    /// The in-dims flattened and split again into `new_dims` ((name, size) pairs, same total).
    fn reshape_ins(&self, new_dims: &Bound<'_, PyAny>) -> PyResult<Self> {
        wrap(self.inner.reshape_ins(&sizes_u64(new_dims, "new_dims")?))
    }

    /// The out-dims flattened and split again into `new_dims` ((name, size) pairs, same total).
    fn reshape_outs(&self, new_dims: &Bound<'_, PyAny>) -> PyResult<Self> {
        wrap(self.inner.reshape_outs(&sizes_u64(new_dims, "new_dims")?))
    }

    /// One in-dim (named like the first) of the total input size.
    fn flatten_ins(&self) -> PyResult<Self> {
        wrap(self.inner.flatten_ins())
    }

    /// One out-dim (named like the first) of the total output size.
    fn flatten_outs(&self) -> PyResult<Self> {
        wrap(self.inner.flatten_outs())
    }

    /// An in-dim resized: shrinking keeps the low bases, growing appends zero bases.
    fn resize_in_dim(&self, dim: &str, size: &Bound<'_, PyAny>) -> PyResult<Self> {
        wrap(self.inner.resize_in_dim(dim, size_u64(size, "size")?))
    }

    /// An out-dim shrunk to `size`: a component that does not fit becomes 0 (dropped, not
    /// masked).
    fn resize_out_dim(&self, dim: &str, size: &Bound<'_, PyAny>) -> PyResult<Self> {
        wrap(self.inner.resize_out_dim(dim, size_u64(size, "size")?))
    }

    /// The in-dims of `other` appended (same out-dims).
    fn concat_ins(&self, other: &Bound<'_, PyAny>) -> PyResult<Self> {
        wrap(self.inner.concat_ins(&layout_arg(other, "other")?))
    }

    /// The out-dims of `other` appended (same in-dims).
    fn concat_outs(&self, other: &Bound<'_, PyAny>) -> PyResult<Self> {
        wrap(self.inner.concat_outs(&layout_arg(other, "other")?))
    }

    /// A size-1 in-dim removed.
    fn squeeze_in(&self, dim: &str) -> PyResult<Self> {
        wrap(self.inner.squeeze_in(dim))
    }

    /// A size-1 out-dim removed.
    fn squeeze_out(&self, dim: &str) -> PyResult<Self> {
        wrap(self.inner.squeeze_out(dim))
    }

    /// The zero bases of an in-dim removed.
    fn remove_zero_bases_along_dim(&self, dim: &str) -> PyResult<Self> {
        wrap(self.inner.remove_zero_bases_along_dim(dim))
    }

    /// An in-dim renamed.
    fn rename_in_dim(&self, old: &str, new: &str) -> PyResult<Self> {
        wrap(self.inner.rename_in_dim(old, new))
    }

    /// An out-dim renamed.
    fn rename_out_dim(&self, old: &str, new: &str) -> PyResult<Self> {
        wrap(self.inner.rename_out_dim(old, new))
    }

    /// Equal but for the out-dim sizes.
    fn equal_ignoring_out_dim_sizes(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self
            .inner
            .equal_ignoring_out_dim_sizes(&layout_arg(other, "other")?))
    }

    /// Triton's `get_distributed_view`: the tensor view (who holds each element) or, with
    /// `hw`, the hardware view, byte for byte.
    #[pyo3(signature = (hw = false))]
    fn get_distributed_view(&self, hw: bool) -> PyResult<String> {
        view::distributed_view(&self.inner, hw).raise()
    }

    /// Triton's `get_shared_view`: the offset of each element or, with `hw`, the element at
    /// each offset, byte for byte.
    #[pyo3(signature = (hw = false))]
    fn get_shared_view(&self, hw: bool) -> PyResult<String> {
        view::shared_view(&self.inner, hw).raise()
    }

    /// The layout's picture as a standalone SVG document: one cell per tensor element (rows =
    /// all dims but the last), a distributed layout's cells coloured by warp, shaded by lane
    /// and labelled `lane:register`, a shared layout's showing each element's offset and
    /// 4-byte bank for elements of `bits` bits over `banks` banks (32 or 64).
    #[pyo3(signature = (title = "", bits = 16, banks = 32))]
    fn to_svg(&self, title: &str, bits: u32, banks: u32) -> PyResult<String> {
        view::svg(&self.inner, &picture_options(title, bits, banks)).raise()
    }

    /// The same picture as `to_svg`, in a self-contained HTML page (no scripts, no network).
    #[pyo3(signature = (title = "", bits = 16, banks = 32))]
    fn to_html(&self, title: &str, bits: u32, banks: u32) -> PyResult<String> {
        view::html(&self.inner, &picture_options(title, bits, banks)).raise()
    }

    /// Jupyter's picture of the layout (`to_svg`), or None for a layout with no picture (not
    /// over `dim0…` out-dims, or too large to draw), which Jupyter then shows as text.
    fn _repr_svg_(&self) -> Option<String> {
        view::svg(&self.inner, &view::PictureOptions::default()).ok()
    }

    /// IPython's plain-text display: who holds each element (Triton's distributed or shared
    /// view), or Triton's printing of the bases where the layout has no such view.
    fn _repr_pretty_(&self, printer: &Bound<'_, PyAny>, _cycle: bool) -> PyResult<()> {
        let text = if view::is_shared(&self.inner) {
            view::shared_view(&self.inner, false)
        } else {
            view::distributed_view(&self.inner, false)
        };
        printer.call_method1("text", (text.unwrap_or_else(|_| self.inner.to_string()),))?;
        Ok(())
    }

    /// The product `self * other` (Triton's `operator*`): self owns the low bits of every
    /// shared dim, `other` the high ones.
    fn __mul__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = other.py();
        match other.cast::<PyLinearLayout>() {
            Ok(o) => Ok(wrap(self.inner.product(&o.get().inner))?
                .into_pyobject(py)?
                .into_any()
                .unbind()),
            Err(_) => Ok(py.NotImplemented()),
        }
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyLinearLayout>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __ne__(&self, other: &Bound<'_, PyAny>) -> bool {
        !self.__eq__(other)
    }

    fn __hash__(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.inner.hash(&mut h);
        h.finish()
    }

    /// Triton's printing of the layout (its `toString`).
    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    /// Triton's printing of the layout (its `toString`), as Triton's binding's repr.
    fn __repr__(&self) -> String {
        self.inner.to_string()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))> {
        let py = slf.py();
        let from_dict = py.get_type::<PyLinearLayout>().getattr("from_dict")?;
        Ok((from_dict, (slf.get().to_dict(py)?,)))
    }

    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }
}

/// A picture's options: its title, and the element width and banks of a shared layout's.
fn picture_options(title: &str, bits: u32, banks: u32) -> view::PictureOptions {
    view::PictureOptions {
        title: title.to_string(),
        bits,
        banks,
        ..view::PictureOptions::default()
    }
}

/// A size: a non-negative int (a negative one is refused as not a power of two).
pub fn size_u64(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    let v = int64(obj, what)?;
    u64::try_from(v).map_err(|_| LayoutError::new_err(format!("{what} {v} is not a power of two")))
}

/// `divide_left(a, b)`: the layout C with a = b * C, or None.
#[pyfunction]
pub fn divide_left(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Option<PyLinearLayout>> {
    Ok(linear::divide_left(&layout_arg(a, "a")?, &layout_arg(b, "b")?)
        .raise()?
        .map(PyLinearLayout::wrap))
}

/// `divide_right(a, b)`: the layout C with a = C * b, or None.
#[pyfunction]
pub fn divide_right(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Option<PyLinearLayout>> {
    Ok(linear::divide_right(&layout_arg(a, "a")?, &layout_arg(b, "b")?)
        .raise()?
        .map(PyLinearLayout::wrap))
}
