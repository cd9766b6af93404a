//! The crate's tools on layouts, as the command line offers them: encodings to layouts, text
//! views, bank conflicts and conversion costs, Triton's AMD layout passes, and AMDGPU
//! lowering.

use std::collections::BTreeMap;

use linear_layout::batch::{check_cost_shape, cost_operand};
use linear_layout::encodings::{Encoding, TensorType};
use linear_layout::heuristics::convert::{self, BankConflicts, ConvertCost};
use linear_layout::heuristics::passes::{self, Pass, PassOptions, Report};
use linear_layout::linear::LinearLayout;
use linear_layout::lower::matmul::{MatmulOptions, accumulator_of, matmul_kernel, resolve_type};
use linear_layout::lower::{
    Dtype, Kernel, LowerError as CrateLowerError, convert_kernel, copy_kernel, lds_copy_kernel, ttgir_kernel,
};
use linear_layout::target::{TARGETS, Target};
use linear_layout::ttgir::Module;
use linear_layout::view;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde_json::{Value, json};

use crate::errors::{LinearLayoutError, LowerError, Raise, to_exception};
use crate::layout::{PyLinearLayout, int64};

/// What a layout argument was given as.
enum Operand {
    /// A layout (boxed: a layout holds its columns inline).
    Layout(Box<LinearLayout>),
    /// An encoding (attribute text or its JSON dict), which needs a shape.
    Encoding(Encoding),
    /// A tensor type, which carries its shape.
    Tensor(TensorType),
}

/// A layout argument: a `LinearLayout`, Triton attribute text (`#ttg.blocked<{...}>`), a tensor
/// type (`tensor<128x64xf16, #ttg...>`), an encoding dict (`{"kind": "blocked", ...}`) or a
/// layout dict (`{"in_dims": ..., "out_dims": ...}`).
fn operand(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Operand> {
    if let Ok(l) = obj.cast::<PyLinearLayout>() {
        return Ok(Operand::Layout(Box::new(l.get().inner.clone())));
    }
    if obj.is_instance_of::<PyString>() {
        let text = obj.extract::<String>()?.trim().to_string();
        if text.starts_with("tensor<") || text.starts_with("!ttg.memdesc<") {
            return text.parse::<TensorType>().raise().map(Operand::Tensor);
        }
        return text.parse::<Encoding>().raise().map(Operand::Encoding);
    }
    if obj.is_instance_of::<PyDict>() {
        if obj.cast::<PyDict>()?.contains("in_dims")? {
            return PyLinearLayout::from_dict(obj).map(|l| Operand::Layout(Box::new(l.inner)));
        }
        return Encoding::from_json(&json_arg(obj, what)?)
            .raise()
            .map(Operand::Encoding);
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be a LinearLayout, Triton attribute text, a tensor type, or an encoding or layout dict"
    )))
}

/// A dict as JSON.
fn json_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    pythonize::depythonize::<Value>(obj).map_err(|e| PyTypeError::new_err(format!("{what}: {e}")))
}

/// The layout of an operand at `shape` (required for an encoding; for a layout or a tensor
/// type it must agree with theirs).
fn resolve(op: Operand, shape: Option<&[u64]>, what: &str) -> PyResult<LinearLayout> {
    match op {
        Operand::Layout(l) => {
            let sizes: Vec<u64> = l.out_dims().map(|(_, s)| s).collect();
            match shape {
                Some(s) if s != sizes.as_slice() => Err(LinearLayoutError::new_err(format!(
                    "{what}: the layout has out-dim sizes {sizes:?}; shape {s:?} disagrees"
                ))),
                _ => Ok(*l),
            }
        }
        Operand::Encoding(e) => {
            let shape = shape.ok_or_else(|| {
                LinearLayoutError::new_err(format!("{what} is an encoding: give the tensor shape"))
            })?;
            e.to_linear_layout(shape).raise()
        }
        Operand::Tensor(t) => match shape {
            Some(s) if s != t.shape.as_slice() => Err(LinearLayoutError::new_err(format!(
                "{what} has shape {:?}; shape {s:?} disagrees",
                t.shape
            ))),
            _ => t.to_linear_layout().raise(),
        },
    }
}

/// A shape: a sequence of positive ints.
fn shape_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err("shape must be a sequence of ints"));
    }
    let mut shape = Vec::new();
    for d in obj
        .try_iter()
        .map_err(|_| PyTypeError::new_err("shape must be a sequence of ints"))?
    {
        let d = int64(&d?, "a shape dimension")?;
        match u64::try_from(d) {
            Ok(v) if v > 0 => shape.push(v),
            _ => {
                return Err(LinearLayoutError::new_err(format!(
                    "shape: {d} is not a positive size"
                )));
            }
        }
    }
    Ok(shape)
}

fn optional_shape(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<u64>>> {
    obj.filter(|o| !o.is_none()).map(shape_arg).transpose()
}

fn target(name: &str) -> PyResult<&'static Target> {
    Target::by_name(name).raise()
}

/// to_linear_layout(encoding, shape=None) -> LinearLayout
///
/// The layout of an encoding at a tensor shape, exactly as Triton 3.6's `toLinearLayout`:
/// `encoding` is Triton attribute text (`#ttg.amd_mfma<{...}>`), a tensor type (which carries
/// the shape), or the protocol's encoding dict (`{"kind": "blocked", "sizePerThread": [...],
/// ...}`, or `{"kind": "mlir", "text": ...}`).
#[pyfunction]
#[pyo3(signature = (encoding, shape = None))]
pub fn to_linear_layout(
    encoding: &Bound<'_, PyAny>,
    shape: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyLinearLayout> {
    let shape = optional_shape(shape)?;
    let op = operand(encoding, "encoding")?;
    resolve(op, shape.as_deref(), "encoding").map(PyLinearLayout::wrap)
}

/// tensor_view(layout, shape=None) -> str
///
/// Triton's tensor view (`triton-tensor-layout`, `get_distributed_view(False)` /
/// `get_shared_view(False)`), byte for byte: who holds each element. `layout` takes every form
/// of `to_linear_layout` and a `LinearLayout`.
#[pyfunction]
#[pyo3(signature = (layout, shape = None))]
pub fn tensor_view(layout: &Bound<'_, PyAny>, shape: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    let shape = optional_shape(shape)?;
    let l = resolve(operand(layout, "layout")?, shape.as_deref(), "layout")?;
    view::tensor_view(&l).raise()
}

/// hardware_view(layout, shape=None) -> str
///
/// Triton's hardware view (`get_distributed_view(True)` / `get_shared_view(True)`), byte for
/// byte: per warp and register, the element each lane holds (for a shared layout, the element
/// at each offset).
#[pyfunction]
#[pyo3(signature = (layout, shape = None))]
pub fn hardware_view(layout: &Bound<'_, PyAny>, shape: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    let shape = optional_shape(shape)?;
    let l = resolve(operand(layout, "layout")?, shape.as_deref(), "layout")?;
    view::hardware_view(&l).raise()
}

/// A cost operand as the batch protocol's JSON member.
fn cost_json(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    if let Ok(l) = obj.cast::<PyLinearLayout>() {
        return serde_json::to_value(&l.get().inner).map_err(|e| LinearLayoutError::new_err(e.to_string()));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(json!({"kind": "mlir", "text": obj.extract::<String>()?}));
    }
    if obj.is_instance_of::<PyDict>() {
        return json_arg(obj, what);
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be a LinearLayout, Triton attribute text, or an encoding or layout dict"
    )))
}

/// The shape of a cost op: given, or the out-dim sizes of the first `LinearLayout` operand.
fn cost_shape(shape: Option<&Bound<'_, PyAny>>, operands: &[&Bound<'_, PyAny>]) -> PyResult<Vec<u64>> {
    let shape = match optional_shape(shape)? {
        Some(s) => s,
        None => operands
            .iter()
            .find_map(|o| o.cast::<PyLinearLayout>().ok())
            .map(|l| l.get().inner.out_dims().map(|(_, s)| s).collect())
            .ok_or_else(|| {
                LinearLayoutError::new_err("shape is required when no operand is a LinearLayout")
            })?,
    };
    check_cost_shape(&shape).raise()?;
    Ok(shape)
}

/// The bank conflicts of a distributed/shared pair (`bank_conflicts`'s answer).
#[pyclass(name = "BankConflicts", module = "linear_layout", frozen, skip_from_py_object)]
pub struct PyBankConflicts {
    inner: BankConflicts,
    /// The shared layout, its element width and the target's banks, for its bank map.
    picture: SharedPicture,
}

/// What the bank map of a shared layout is drawn from.
struct SharedPicture {
    shared: LinearLayout,
    element_bits: u32,
    banks: u32,
}

impl SharedPicture {
    /// The layout's bank map (each element's offset and bank) inline in a page, over one
    /// repetition of it (its offsets and blocks); empty where it has no picture.
    fn svg(&self) -> String {
        let options = view::PictureOptions {
            title: "shared layout: offset and bank of each element".to_string(),
            bits: self.element_bits,
            banks: self.banks,
            ..view::PictureOptions::default()
        };
        view::lds_picture(&self.shared, &options).unwrap_or_default()
    }
}

#[pymethods]
impl PyBankConflicts {
    /// Excess wavefronts per LDS instruction: Triton's figure on `generic32`, the read side's
    /// on an AMD target.
    #[getter]
    fn value(&self) -> u32 {
        self.inner.value
    }

    /// Excess wavefronts per write instruction (None on `generic32`).
    #[getter]
    fn write(&self) -> Option<u32> {
        self.inner.write
    }

    /// Excess wavefronts per read instruction (None on `generic32`).
    #[getter]
    fn read(&self) -> Option<u32> {
        self.inner.read
    }

    /// Bits each lane moves per instruction (None on `generic32`).
    #[getter]
    fn access_bits(&self) -> Option<u32> {
        self.inner.access_bits
    }

    /// The protocol's answer members: {"value": ..., and "write", "read", "access_bits" on an
    /// AMD target}.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize::pythonize(py, &self.inner.to_json()).map_err(|e| LinearLayoutError::new_err(e.to_string()))
    }

    fn __repr__(&self) -> String {
        format!("BankConflicts({})", self.inner.to_json())
    }

    /// Jupyter's display: the figures as a small table, and the shared layout's bank map.
    fn _repr_html_(&self) -> String {
        let figure = |v: Option<u32>| v.map_or("—".to_string(), |v| v.to_string());
        let table = html_table(
            "bank conflicts",
            &[
                ("excess wavefronts per instruction", self.inner.value.to_string()),
                ("per write", figure(self.inner.write)),
                ("per read", figure(self.inner.read)),
                ("bits a lane moves", figure(self.inner.access_bits)),
            ],
        );
        table + &self.picture.svg()
    }
}

/// A small HTML table of `(label, value)` rows under a caption, for Jupyter; the text is
/// escaped.
fn html_table(caption: &str, rows: &[(&str, String)]) -> String {
    let mut out = format!("<table><caption>{}</caption>", view::escape(caption));
    for (label, value) in rows {
        out.push_str(&format!(
            "<tr><th style=\"text-align:left\">{}</th><td style=\"text-align:left\">{}</td></tr>",
            view::escape(label),
            view::escape(value)
        ));
    }
    out.push_str("</table>");
    out
}

/// bank_conflicts(distributed, shared, shape=None, element_bits=16, target="generic32")
///
/// The LDS bank conflicts of writing `distributed` to `shared` and reading it back, as the batch
/// protocol's `bank_conflicts` op (Triton 3.6's `bank_conflicts` figure on `generic32`, the
/// target's phase model elsewhere). Operands: a `LinearLayout` (out-dims dim0.. of `shape`;
/// in-dims register/lane/warp/block, or offset/block for `shared`), attribute text, or an
/// encoding or layout dict. `shape` defaults to a `LinearLayout` operand's out-dim sizes.
#[pyfunction]
#[pyo3(signature = (distributed, shared, shape = None, element_bits = 16, target = "generic32"))]
pub fn bank_conflicts(
    distributed: &Bound<'_, PyAny>,
    shared: &Bound<'_, PyAny>,
    shape: Option<&Bound<'_, PyAny>>,
    element_bits: u32,
    target: &str,
) -> PyResult<PyBankConflicts> {
    let shape = cost_shape(shape, &[distributed, shared])?;
    let t = self::target(target)?;
    let d = cost_operand(
        &cost_json(distributed, "distributed")?,
        "distributed",
        &shape,
        false,
    )
    .raise()?;
    let s = cost_operand(&cost_json(shared, "shared")?, "shared", &shape, true).raise()?;
    let inner = convert::bank_conflicts(&d, &s, element_bits, t).raise()?;
    let picture = SharedPicture {
        shared: s,
        element_bits,
        banks: t.lds_banks,
    };
    Ok(PyBankConflicts { inner, picture })
}

/// What converting a tensor between two layouts costs (`convert_cost`'s answer).
#[pyclass(name = "ConvertCost", module = "linear_layout", frozen, skip_from_py_object)]
pub struct PyConvertCost {
    inner: ConvertCost,
    /// The element width and the target's LDS banks, for the picture of the shared layout.
    element_bits: u32,
    banks: u32,
}

#[pymethods]
impl PyConvertCost {
    /// Triton's kind of conversion: "noop", "register", "shuffle" or "lds".
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind.as_str()
    }

    /// Instruction mnemonic -> count per thread.
    #[getter]
    fn instructions(&self) -> BTreeMap<String, u64> {
        self.inner.instructions.clone()
    }

    /// LDS bytes of one round trip (0 unless the kind is "lds").
    #[getter]
    fn lds_bytes(&self) -> u64 {
        self.inner.lds_bytes
    }

    /// Excess wavefronts per write instruction plus per read instruction.
    #[getter]
    fn bank_conflicts(&self) -> u64 {
        self.inner.bank_conflicts
    }

    /// Excess wavefronts per write instruction.
    #[getter]
    fn write_conflicts(&self) -> u64 {
        self.inner.write_conflicts
    }

    /// Excess wavefronts per read instruction.
    #[getter]
    fn read_conflicts(&self) -> u64 {
        self.inner.read_conflicts
    }

    /// Estimated cycles (coarse, for ranking alternatives).
    #[getter]
    fn cycles(&self) -> u64 {
        self.inner.cycles
    }

    /// The chosen shared layout (offset -> tensor) of an LDS round trip, else None.
    #[getter]
    fn shared_layout(&self) -> Option<PyLinearLayout> {
        self.inner.shared_layout().cloned().map(PyLinearLayout::wrap)
    }

    /// Why, in words.
    #[getter]
    fn explanation(&self) -> &str {
        &self.inner.explanation
    }

    /// LDS data instructions (ds_read*, ds_write*, ds_load*, ds_store*) per thread.
    fn lds_instructions(&self) -> u64 {
        self.inner.lds_instructions()
    }

    /// The protocol's answer members (kind, instructions, lds_bytes, bank_conflicts,
    /// write_conflicts, read_conflicts, cycles, shared_layout as a layout dict or None,
    /// explanation).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize::pythonize(py, &self.inner.to_json()).map_err(|e| LinearLayoutError::new_err(e.to_string()))
    }

    /// Jupyter's display: the figures as a small table and, for a round trip through LDS,
    /// the chosen shared layout's bank map (each element's offset and bank).
    fn _repr_html_(&self) -> String {
        let c = &self.inner;
        let instructions: Vec<String> = c
            .instructions
            .iter()
            .map(|(op, n)| format!("{op} × {n}"))
            .collect();
        let mut out = html_table(
            "conversion cost",
            &[
                ("kind", c.kind.as_str().to_string()),
                ("cycles (estimate)", c.cycles.to_string()),
                ("LDS bytes", c.lds_bytes.to_string()),
                (
                    "bank conflicts",
                    format!(
                        "{} (write {}, read {})",
                        c.bank_conflicts, c.write_conflicts, c.read_conflicts
                    ),
                ),
                ("instructions per thread", instructions.join(", ")),
                ("why", c.explanation.clone()),
            ],
        );
        if let Some(shared) = c.shared_layout() {
            let picture = SharedPicture {
                shared: shared.clone(),
                element_bits: self.element_bits,
                banks: self.banks,
            };
            out.push_str(&picture.svg());
        }
        out
    }

    fn __repr__(&self) -> String {
        format!(
            "ConvertCost(kind={:?}, cycles={}, lds_bytes={}, bank_conflicts={})",
            self.inner.kind.as_str(),
            self.inner.cycles,
            self.inner.lds_bytes,
            self.inner.bank_conflicts
        )
    }
}

/// convert_cost(src, dst, shape=None, element_bits=16, target="gfx942") -> ConvertCost
///
/// What converting a tensor from layout `src` to `dst` costs on `target`, and why: the kind
/// (no-op, register permutation, in-warp shuffle, or a round trip through LDS in a chosen
/// swizzle), instructions, LDS bytes, bank conflicts and cycles — the batch protocol's
/// `convert_cost`. Operands as for `bank_conflicts`.
#[pyfunction]
#[pyo3(signature = (src, dst, shape = None, element_bits = 16, target = "gfx942"))]
pub fn convert_cost(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    shape: Option<&Bound<'_, PyAny>>,
    element_bits: u32,
    target: &str,
) -> PyResult<PyConvertCost> {
    let shape = cost_shape(shape, &[src, dst])?;
    let t = self::target(target)?;
    let s = cost_operand(&cost_json(src, "src")?, "src", &shape, false).raise()?;
    let d = cost_operand(&cost_json(dst, "dst")?, "dst", &shape, false).raise()?;
    let inner = py
        .detach(|| convert::convert_cost(&s, &d, element_bits, t))
        .raise()?;
    Ok(PyConvertCost {
        inner,
        element_bits,
        banks: t.lds_banks,
    })
}

/// What one of Triton's AMD layout passes chose in one module.
#[pyclass(
    name = "HeuristicsReport",
    module = "linear_layout",
    frozen,
    skip_from_py_object
)]
pub struct PyHeuristicsReport {
    report: Report,
    arch: String,
    module_line: usize,
    num_warps: u32,
    threads_per_warp: u32,
}

#[pymethods]
impl PyHeuristicsReport {
    /// The line the module starts on.
    #[getter]
    fn module_line(&self) -> usize {
        self.module_line
    }

    /// The arch the pass ran for.
    #[getter]
    fn arch(&self) -> &str {
        &self.arch
    }

    /// The module's warps per CTA.
    #[getter]
    fn num_warps(&self) -> u32 {
        self.num_warps
    }

    /// The module's lanes per warp.
    #[getter]
    fn threads_per_warp(&self) -> u32 {
        self.threads_per_warp
    }

    /// Every decision in Triton's syntax with its reason (what `linear-layout heuristics`
    /// prints for the module).
    #[getter]
    fn text(&self) -> String {
        self.report.to_text()
    }

    /// The decisions as the oracle records them (`mem` / `dots` / `copies`, ...): what
    /// `linear-layout heuristics --json` prints.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize::pythonize(py, &self.report.to_json())
            .map_err(|e| LinearLayoutError::new_err(e.to_string()))
    }

    fn __repr__(&self) -> String {
        format!(
            "HeuristicsReport(module_line={}, arch={:?}, decisions={})",
            self.module_line,
            self.arch,
            self.report.mem.as_ref().map_or(0, Vec::len)
                + self.report.dots.as_ref().map_or(0, Vec::len)
                + self.report.copies.as_ref().map_or(0, Vec::len)
        )
    }
}

/// heuristics(ttgir, pass_, arch=None, *, kpack=1, nonkdim=0) -> list[HeuristicsReport]
///
/// Triton 3.6's AMD layout decisions on TTGIR text, one report per module (`// -----`
/// separates modules): `pass_` is "coalesce", "accelerate_matmul" or "coalesce_async_copy";
/// `arch` defaults to each module's `ttg.target`; `kpack` and `nonkdim` are accelerate-matmul's.
#[pyfunction]
#[pyo3(signature = (ttgir, pass_, arch = None, *, kpack = 1, nonkdim = 0))]
pub fn heuristics(
    py: Python<'_>,
    ttgir: &str,
    pass_: &str,
    arch: Option<&str>,
    kpack: u32,
    nonkdim: u32,
) -> PyResult<Vec<PyHeuristicsReport>> {
    let pass: Pass = pass_.parse::<Pass>().raise()?;
    if kpack != 1 && kpack != 2 {
        return Err(LinearLayoutError::new_err(format!(
            "kpack must be 1 or 2, got {kpack}"
        )));
    }
    let modules = py.detach(|| Module::parse_all(ttgir)).raise()?;
    let mut reports = Vec::with_capacity(modules.len());
    for module in &modules {
        let arch = arch
            .map(str::to_string)
            .or_else(|| module.target.clone())
            .ok_or_else(|| {
                LinearLayoutError::new_err(format!(
                    "module at line {}: no arch given and the module has no ttg.target",
                    module.first_line
                ))
            })?;
        let mut opts = PassOptions::new(pass, &arch);
        opts.kpack = kpack;
        opts.nonkdim = nonkdim;
        let report = py.detach(|| passes::run(module, &opts)).raise()?;
        reports.push(PyHeuristicsReport {
            report,
            arch,
            module_line: module.first_line,
            num_warps: module.num_warps,
            threads_per_warp: module.threads_per_warp,
        });
    }
    Ok(reports)
}

/// The shape, its power-of-two padding, the dtype and the target of a lowering.
fn lowering(
    shape: &Bound<'_, PyAny>,
    dtype: &str,
    arch: &str,
) -> PyResult<(Vec<u64>, Vec<u64>, Dtype, &'static Target)> {
    let shape = shape_arg(shape)?;
    let padded = shape
        .iter()
        .map(|&s| {
            s.checked_next_power_of_two()
                .ok_or_else(|| LinearLayoutError::new_err(format!("shape: {s} is too large")))
        })
        .collect::<PyResult<Vec<u64>>>()?;
    let dtype = Dtype::parse(dtype).raise()?;
    Ok((shape, padded, dtype, target(arch)?))
}

/// The module text of a kernel, generated with the GIL released.
fn llvm_ir(
    py: Python<'_>,
    make: impl FnOnce() -> Result<Kernel, CrateLowerError> + Send,
) -> PyResult<String> {
    py.detach(|| make().and_then(|k| k.llvm_ir())).raise()
}

/// lower_copy(layout, shape, dtype="f16", arch="gfx942") -> str
///
/// `linear-layout lower copy`: LLVM IR of an AMDGPU kernel `@copy(in, out)` moving every
/// element of a dense row-major tensor of `shape` through the registers `layout` gives it
/// (sizes that are not powers of two are masked). `layout` takes the forms of
/// `to_linear_layout` (an encoding is converted at `shape` rounded up to powers of two) and a
/// `LinearLayout`.
#[pyfunction]
#[pyo3(signature = (layout, shape, dtype = "f16", arch = "gfx942"))]
pub fn lower_copy(
    py: Python<'_>,
    layout: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
    dtype: &str,
    arch: &str,
) -> PyResult<String> {
    let (shape, padded, dtype, t) = lowering(shape, dtype, arch)?;
    let l = resolve(operand(layout, "layout")?, Some(&padded), "layout")?;
    llvm_ir(py, || copy_kernel(&l, &shape, dtype, t))
}

/// lower_convert(src, dst, shape, dtype="f16", arch="gfx942") -> str
///
/// `linear-layout lower convert`: `@convert(in, out, regs)` loads through `src`, converts to
/// `dst` with the plan `convert_cost` reports, stores through `dst`, and writes each thread's
/// `dst` registers to `regs`.
#[pyfunction]
#[pyo3(signature = (src, dst, shape, dtype = "f16", arch = "gfx942"))]
pub fn lower_convert(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
    dtype: &str,
    arch: &str,
) -> PyResult<String> {
    let (shape, padded, dtype, t) = lowering(shape, dtype, arch)?;
    let s = resolve(operand(src, "src")?, Some(&padded), "src")?;
    let d = resolve(operand(dst, "dst")?, Some(&padded), "dst")?;
    llvm_ir(py, || convert_kernel(&s, &d, &shape, dtype, t))
}

/// lower_lds_copy(src, shared, dst, shape, dtype="f16", arch="gfx942") -> str
///
/// `linear-layout lower lds-copy`: `@lds_copy(in, out, regs)` loads `in` straight into LDS by
/// the threads of `src` in the shared layout `shared`, and reads the tile back into `dst`'s
/// registers.
#[pyfunction]
#[pyo3(signature = (src, shared, dst, shape, dtype = "f16", arch = "gfx942"))]
pub fn lower_lds_copy(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    shared: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
    dtype: &str,
    arch: &str,
) -> PyResult<String> {
    let (shape, padded, dtype, t) = lowering(shape, dtype, arch)?;
    let s = resolve(operand(src, "src")?, Some(&padded), "src")?;
    let m = resolve(operand(shared, "shared")?, Some(&padded), "shared")?;
    let d = resolve(operand(dst, "dst")?, Some(&padded), "dst")?;
    llvm_ir(py, || lds_copy_kernel(&s, &m, &d, &shape, dtype, t))
}

/// lower_matmul(m, n, k, dtype="f16", acc=None, warps=4, arch="gfx942", nonkdim=0, kpack=1) -> str
///
/// `linear-layout lower matmul`: `@matmul(a, b, c)` computing C (m x n) = A (m x k) · B (k x n),
/// all row-major, with the MFMA / WMMA instructions Triton's accelerate-matmul heuristic picks.
/// `acc` is the output type (default: the accumulator's, f32 for floats, i32 for i8).
#[pyfunction]
#[pyo3(signature = (m, n, k, dtype = "f16", acc = None, warps = 4, arch = "gfx942", nonkdim = 0, kpack = 1))]
#[allow(clippy::too_many_arguments)]
pub fn lower_matmul(
    py: Python<'_>,
    m: u64,
    n: u64,
    k: u64,
    dtype: &str,
    acc: Option<&str>,
    warps: u32,
    arch: &str,
    nonkdim: u32,
    kpack: u32,
) -> PyResult<String> {
    if m == 0 || n == 0 || k == 0 {
        return Err(LowerError::new_err(format!(
            "the tile {m}x{n}x{k} has an empty side"
        )));
    }
    let t = target(arch)?;
    let dtype = resolve_type(dtype, t).raise()?;
    let acc = match acc {
        Some(a) => resolve_type(a, t),
        None => accumulator_of(dtype),
    }
    .raise()?;
    let options = MatmulOptions { nonkdim, kpack };
    llvm_ir(py, || matmul_kernel(m, n, k, dtype, acc, warps, t, options))
}

/// lower_ttgir(ttgir, arch=None) -> str
///
/// `linear-layout lower ttgir`: Triton's final TTGIR (one module, one `tt.func`) lowered to one
/// AMDGPU kernel; `arch` defaults to the module's `ttg.target`. An op outside the lowered subset
/// raises `LowerError` naming it and its line.
#[pyfunction]
#[pyo3(signature = (ttgir, arch = None))]
pub fn lower_ttgir(py: Python<'_>, ttgir: &str, arch: Option<&str>) -> PyResult<String> {
    let module = py.detach(|| Module::parse(ttgir)).raise()?;
    let arch = match (arch, &module.target) {
        (Some(a), _) => a.to_string(),
        (None, Some(t)) => t.clone(),
        (None, None) => {
            return Err(to_exception(&CrateLowerError::new(
                "the module names no ttg.target; give arch",
            )));
        }
    };
    let t = target(&arch)?;
    llvm_ir(py, || ttgir_kernel(&module, t))
}

/// The names of the targets (`gfx942`, ..., `generic32`) the cost model and lowering know.
pub fn target_names() -> Vec<&'static str> {
    TARGETS.iter().map(|t| t.name).collect()
}
