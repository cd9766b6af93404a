//! Running the layout passes on a TTGIR module and reporting what they chose.
//!
//! [`run`](crate::heuristics::passes::run) parses nothing itself: give it a [`Module`](crate::ttgir::Module) and a [`PassOptions`](crate::heuristics::passes::PassOptions); it returns a
//! [`Report`](crate::heuristics::passes::Report) whose [`Report::to_json`](crate::heuristics::passes::Report::to_json) has the shape of the `result` member of the oracle
//! runs (`mem` / `dots` / `copies`, each with `enc` in Triton's attribute form and `ll`
//! bases) and whose [`Report::to_text`](crate::heuristics::passes::Report::to_text) names every op, its encoding in Triton's syntax, and
//! why.
//!
//! ```
//! use linear_layout::heuristics::passes::{run, Pass, PassOptions};
//! use linear_layout::ttgir::Module;
//! let m = Module::parse(r#"
//! #bl = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
//! module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
//!   tt.func @k(%src: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
//!     %r = tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32, #bl>
//!     %s = tt.splat %src : !tt.ptr<f16> -> tensor<2048x!tt.ptr<f16>, #bl>
//!     %p = tt.addptr %s, %r : tensor<2048x!tt.ptr<f16>, #bl>, tensor<2048xi32, #bl>
//!     %l = tt.load %p : tensor<2048x!tt.ptr<f16>, #bl>
//!     tt.return
//!   }
//! }"#)?;
//! let r = run(&m, &PassOptions::new(Pass::Coalesce, "gfx942"))?;
//! assert_eq!(r.to_json()["mem"][0]["enc"]["sizePerThread"], serde_json::json!([8]));
//! assert!(r.to_text().contains("divisibility 16 B → 8 × f16 per thread"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde_json::{Map, Value, json};

use crate::encodings::Encoding;
use crate::linear::LinearLayout;

use super::async_copy::{CopyDecision, coalesce_copies};
use super::coalesce::{MemDecision, coalesce_module};
use super::matmul::{DotDecision, accelerate_module};
use crate::ttgir::Module;

pub use super::error::{Decisions, HeuristicError, Undecided};

/// Which pass to run.
///
/// ```
/// use linear_layout::heuristics::passes::Pass;
/// assert_eq!("accelerate_matmul".parse::<Pass>(), Ok(Pass::AccelerateMatmul));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pass {
    /// `tritongpu-coalesce`.
    Coalesce,
    /// `tritongpu-coalesce` followed by `remove-layout-conversions` (dead loads dropped).
    CoalesceCleanup,
    /// `tritonamdgpu-accelerate-matmul`.
    AccelerateMatmul,
    /// `tritonamdgpu-coalesce-async-copy`.
    CoalesceAsyncCopy,
}

impl std::str::FromStr for Pass {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "coalesce" => Ok(Pass::Coalesce),
            "coalesce,remove_layout_conversions" => Ok(Pass::CoalesceCleanup),
            "accelerate_matmul" => Ok(Pass::AccelerateMatmul),
            "coalesce_async_copy" => Ok(Pass::CoalesceAsyncCopy),
            other => Err(format!(
                "unknown pass '{other}' (expected coalesce, accelerate_matmul or coalesce_async_copy)"
            )),
        }
    }
}

/// Options of a run: the pass, the arch, and accelerate-matmul's `kpack` / `nonkdim`.
///
/// ```
/// use linear_layout::heuristics::passes::{Pass, PassOptions};
/// let o = PassOptions::new(Pass::AccelerateMatmul, "gfx950");
/// assert_eq!((o.kpack, o.nonkdim), (1, 0));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassOptions {
    /// The pass.
    pub pass: Pass,
    /// The target arch (`gfx942`).
    pub arch: String,
    /// `kPack` (1 or 2).
    pub kpack: u32,
    /// `matrix_instr_nonkdim` (0 = heuristic).
    pub nonkdim: u32,
}

impl PassOptions {
    /// Default options for a pass and arch.
    ///
    /// ```
    /// use linear_layout::heuristics::passes::{Pass, PassOptions};
    /// assert_eq!(PassOptions::new(Pass::Coalesce, "gfx942").arch, "gfx942");
    /// ```
    pub fn new(pass: Pass, arch: &str) -> Self {
        PassOptions {
            pass,
            arch: arch.to_string(),
            kpack: 1,
            nonkdim: 0,
        }
    }
}

/// What a pass chose for every op it touched.
///
/// ```
/// use linear_layout::heuristics::passes::Report;
/// let r = Report::default();
/// assert!(r.to_json().as_object().unwrap().is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Coalesce decisions.
    pub mem: Option<Vec<MemDecision>>,
    /// Accelerate-matmul decisions.
    pub dots: Option<Vec<DotDecision>>,
    /// Async-copy decisions.
    pub copies: Option<Vec<CopyDecision>>,
    /// The ops the pass handles but decided nothing for, each with its reason.
    pub undecided: Vec<Undecided>,
    /// Notes (unknown ops, …).
    pub notes: Vec<String>,
}

/// Triton's attribute form of an encoding as the oracle records it (`{"kind":
/// "ttg.blocked", "sizePerThread": …}`; defaults Triton does not print are left out).
///
/// ```
/// use linear_layout::encodings::Encoding;
/// use linear_layout::heuristics::passes::encoding_json;
/// let e: Encoding = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>".parse()?;
/// let j = encoding_json(&e);
/// assert_eq!(j["kind"], "ttg.amd_mfma");
/// assert!(j.get("tilesPerWarp").is_none());
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
pub fn encoding_json(e: &Encoding) -> Value {
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    match e {
        Encoding::Blocked(b) => {
            put("kind", json!("ttg.blocked"));
            put("sizePerThread", json!(b.size_per_thread));
            put("threadsPerWarp", json!(b.threads_per_warp));
            put("warpsPerCTA", json!(b.warps_per_cta));
            put("order", json!(b.order));
        }
        Encoding::AmdMfma(x) => {
            put("kind", json!("ttg.amd_mfma"));
            put("version", json!(x.version));
            put("warpsPerCTA", json!(x.warps_per_cta));
            put("instrShape", json!(x.instr_shape));
            put("isTransposed", json!(x.is_transposed));
            if x.tiles_per_warp.iter().any(|&t| t != 1) {
                put("tilesPerWarp", json!(x.tiles_per_warp));
            }
            if x.element_bit_width != 32 {
                put("elementBitWidth", json!(x.element_bit_width));
            }
        }
        Encoding::AmdWmma(x) => {
            put("kind", json!("ttg.amd_wmma"));
            put("version", json!(x.version));
            put("isTranspose", json!(x.is_transposed));
            put("warpsPerCTA", json!(x.warps_per_cta));
            if x.tiles_per_warp.iter().any(|&t| t != 1) {
                put("tilesPerWarp", json!(x.tiles_per_warp));
            }
            if x.instr_shape != [16, 16, 16] {
                put("instrShape", json!(x.instr_shape));
            }
        }
        Encoding::DotOperand(d) => {
            put("kind", json!("ttg.dot_op"));
            put("opIdx", json!(d.op_idx));
            put("parent", encoding_json(&d.parent));
            if d.k_width != 0 {
                put("kWidth", json!(d.k_width));
            }
        }
        Encoding::Linear(l) => {
            put("kind", json!("ttg.linear"));
            put("register", json!(l.register));
            put("lane", json!(l.lane));
            put("warp", json!(l.warp));
            put("block", json!(l.block));
        }
        other => {
            put("kind", json!(format!("ttg.{}", other.kind())));
            put("text", json!(other.to_string()));
        }
    }
    Value::Object(m)
}

/// The bases of a distributed layout as `{register, lane, warp, block}`.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::heuristics::passes::layout_json;
/// let l = LinearLayout::identity_1d(4, "lane", "dim0")?;
/// assert_eq!(layout_json(&l)["lane"], serde_json::json!([[1], [2]]));
/// assert_eq!(layout_json(&l)["register"], serde_json::json!([]));
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn layout_json(l: &LinearLayout) -> Value {
    let mut m = Map::new();
    for d in ["register", "lane", "warp", "block"] {
        let b = l.bases(d).unwrap_or_default();
        m.insert(d.to_string(), json!(b));
    }
    Value::Object(m)
}

impl Report {
    /// The oracle-shaped JSON object.
    ///
    /// ```
    /// use linear_layout::heuristics::passes::Report;
    /// let r = Report { mem: Some(vec![]), ..Report::default() };
    /// assert_eq!(r.to_json()["mem"], serde_json::json!([]));
    /// ```
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        if let Some(dots) = &self.dots {
            let v: Vec<Value> = dots
                .iter()
                .map(|d| {
                    let c = &d.choice;
                    let ll = |e: &Encoding, shape: &[u64]| match e.to_linear_layout(shape) {
                        Ok(l) => layout_json(&l),
                        Err(err) => json!({ "error": err.to_string() }),
                    };
                    json!({
                        "op": c.op,
                        "index": d.index,
                        "kind": c.kind.as_str(),
                        "a_elem": c.a_elem,
                        "b_elem": c.b_elem,
                        "c_elem": c.c_elem,
                        "attrs": d.attrs,
                        "enc": encoding_json(&c.result),
                        "a_enc": encoding_json(&c.a),
                        "b_enc": encoding_json(&c.b),
                        "ll": {
                            "c": ll(&c.result, &d.spec.shape),
                            "a": ll(&c.a, &d.a_shape),
                            "b": ll(&c.b, &d.b_shape),
                        },
                    })
                })
                .collect();
            out.insert("dots".into(), Value::Array(v));
        }
        if let Some(copies) = &self.copies {
            let v: Vec<Value> = copies
                .iter()
                .map(|d| {
                    json!({
                        "index": d.index,
                        "src_enc": encoding_json(&d.choice.encoding),
                        "ll": layout_json(&d.choice.layout),
                        "contiguity": d.choice.contiguity,
                    })
                })
                .collect();
            out.insert("copies".into(), Value::Array(v));
        }
        if let Some(mem) = &self.mem {
            let v: Vec<Value> = mem
                .iter()
                .map(|d| {
                    let c = &d.choice;
                    let mut entry = json!({
                        "op": d.name,
                        "index": d.index,
                        "elem": d.elem,
                        "enc": encoding_json(&c.encoding),
                        "ll": layout_json(&c.layout),
                        "axis": {
                            "contiguity": d.access.axis.contiguity,
                            "divisibility": d.access.axis.divisibility,
                            "constancy": d.access.axis.constancy,
                            "order": c.order,
                            "per_thread_op": c.per_thread_op,
                            "per_thread_same_order": c.per_thread_same_order,
                            "per_thread": c.per_thread,
                        },
                    });
                    // The list is cut at MAX_SAME_ORDER_LISTED: say how many there are.
                    if c.same_order_count > c.per_thread_same_order.len() {
                        entry["same_order_count"] = json!(c.same_order_count);
                    }
                    entry
                })
                .collect();
            out.insert("mem".into(), Value::Array(v));
        }
        if !self.undecided.is_empty() {
            let v: Vec<Value> = self
                .undecided
                .iter()
                .map(|u| json!({"op": u.name, "line": u.line, "reason": u.reason}))
                .collect();
            out.insert("undecided".into(), Value::Array(v));
        }
        Value::Object(out)
    }

    /// A human-readable account: each op, its encoding in Triton's syntax, and why.
    ///
    /// ```
    /// use linear_layout::heuristics::passes::Report;
    /// assert_eq!(Report::default().to_text(), "");
    /// ```
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        if let Some(mem) = &self.mem {
            for d in mem {
                s.push_str(&format!(
                    "{} #{} (line {}): {}\n  pointer AxisInfo: {}\n  why: {}\n",
                    d.name, d.index, d.line, d.choice.encoding, d.access.axis, d.choice.reason
                ));
            }
        }
        if let Some(dots) = &self.dots {
            for d in dots {
                let c = &d.choice;
                s.push_str(&format!(
                    "{} #{} (line {}): {} [{}]\n  A: {} ({})\n  B: {} ({})\n  C: {}\n",
                    c.op,
                    d.index,
                    d.line,
                    c.result,
                    c.kind.as_str(),
                    c.a,
                    c.a_elem,
                    c.b,
                    c.b_elem,
                    c.c_elem
                ));
                for r in &c.reasons {
                    s.push_str(&format!("  why: {r}\n"));
                }
            }
        }
        if let Some(copies) = &self.copies {
            for d in copies {
                let c = &d.choice;
                s.push_str(&format!(
                    "ttg.async_copy_global_to_local #{} (line {}): {}{}\n  why: {}\n",
                    d.index,
                    d.line,
                    c.encoding,
                    match c.contiguity {
                        Some(k) => format!(" {{contiguity = {k}}}"),
                        None => String::new(),
                    },
                    c.reason
                ));
            }
        }
        for u in &self.undecided {
            s.push_str(&format!("{u}\n"));
        }
        for n in &self.notes {
            s.push_str(&format!("note: {n}\n"));
        }
        s
    }
}

/// Runs one pass over a module.
///
/// ```
/// use linear_layout::heuristics::passes::{run, Pass, PassOptions};
/// use linear_layout::ttgir::Module;
/// let m = Module::parse("module {\n tt.func @f() {\n tt.return\n }\n}")?;
/// let r = run(&m, &PassOptions::new(Pass::Coalesce, "gfx942"))?;
/// assert_eq!(r.mem.map(|v| v.len()), Some(0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run(m: &Module, opts: &PassOptions) -> Result<Report, HeuristicError> {
    let mut r = Report {
        notes: m.notes.clone(),
        ..Report::default()
    };
    match opts.pass {
        Pass::Coalesce | Pass::CoalesceCleanup => {
            let d = coalesce_module(m, opts.pass == Pass::CoalesceCleanup)?;
            r.mem = Some(d.decided);
            r.undecided = d.undecided;
        }
        Pass::AccelerateMatmul => {
            let d = accelerate_module(m, &opts.arch, opts.kpack, opts.nonkdim)?;
            r.dots = Some(d.decided);
            r.undecided = d.undecided;
        }
        Pass::CoalesceAsyncCopy => {
            let d = coalesce_copies(m, &opts.arch)?;
            r.copies = Some(d.decided);
            r.undecided = d.undecided;
        }
    }
    Ok(r)
}
