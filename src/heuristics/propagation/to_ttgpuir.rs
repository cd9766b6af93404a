//! Triton's `convert-triton-to-tritongpu`: a TTIR module, whose tensors have no layout, becomes
//! TTGIR, where every tensor has one.
//!
//! Triton 3.6 does it with MLIR's dialect conversion, and the layouts follow from three rules:
//!
//! * **The type rule.** A tensor type without an encoding gets the *default* blocked layout
//!   of its shape: one element per thread, dimensions ordered fastest-last, the warp's lanes
//!   and the warps spread from the fastest dimension on (`getDefaultBlockedEncoding`). For 4
//!   warps of 64 lanes, `tensor<16x128xf32>` gets `sizePerThread = [1, 1], threadsPerWarp =
//!   [1, 64], warpsPerCTA = [2, 2], order = [1, 0]`.
//! * **The op rules.** Most ops take the default layout for their results. Some infer it from
//!   their operand instead: a `tt.reduce` along axis 1 makes a `#ttg.slice<{dim = 1, parent =
//!   …}>` of its operand's layout, `tt.broadcast` keeps its operand's layout (on the larger
//!   shape), `tt.trans` permutes it, `tt.join` / `tt.split` add or drop a last dimension of 2
//!   elements per thread, `tt.expand_dims` reads a slice of a layout with a 1 inserted at the
//!   axis, `tt.dot` reads `#ttg.dot_op` operands of a blocked layout with up to 4×4 elements
//!   per thread. Such an op converts its operand where it needs another layout (the convert
//!   stands right before the op).
//! * **The operand rule.** Every op reads its operands in the default layout of their
//!   shapes. Where an operand was made in another layout (the result of a reduce, of a
//!   broadcast), one `ttg.convert_layout` to the default layout is made right after the
//!   operand's definition and every such user reads it.
//!
//! So an `expand_dims` of a 16-element range, compared with a splat of the expanded shape:
//!
//! ```text
//! %r = tt.make_range … : tensor<16xi32>                      → #blocked1 (default, 1-D)
//! %e = tt.expand_dims %r {axis = 1} : … -> tensor<16x1xi32>  → reads a slice of #blocked2
//! %c = arith.cmpi slt, %e, %s : tensor<16x1xi32>             → #blocked3 (default, 2-D)
//! ```
//!
//! becomes a convert of `%r` to `#ttg.slice<{dim = 1, parent = #blocked2}>` before the
//! expand_dims (the op rule), the expand_dims in `#blocked2`, and a convert of its result to
//! `#blocked3` right after it, which the compare reads (the operand rule).
//!
//! Before converting an op, MLIR's conversion tries to fold it: an identity `tt.trans`,
//! `tt.reshape` or `tt.broadcast` gives way to its operand, a view of a splat constant becomes
//! that constant in the new shape. Canonical TTIR (what `make_ttir` prints) has nothing to
//! fold; the pass makes these folds and reports the ones it does not make (see
//! `Conversion::fold`).
//!
//! The module gets `ttg.num-ctas` (1), `ttg.num-warps`, `ttg.target` and
//! `ttg.threads-per-warp`; a module whose tensors all have layouts is otherwise left as it
//! is. An op Triton's conversion has no rule for, or a conversion the crate cannot express
//! (tensor arguments of a function — Triton fails on them too —, pointers to tensors, a
//! `tt.join` of a layout other than blocked), is a [`PassError`] naming the op.

use std::collections::HashMap;
use std::sync::Arc;

use crate::encodings::{Blocked, DotOperand, Encoding, Slice};
use crate::heuristics::coalesce::blocked_for;
use crate::ttgir::graph::{BlockId, Def, Graph, InsertPoint, OpId, ValueId};
use crate::ttgir::{TypeKind, ValueType, attr};

use super::PassError;
use super::ops::{int_attr, trans};

/// The most lanes per warp and warps per CTA the pass takes (the reader's bound on the module
/// attributes).
const MAX_THREADS: u32 = 1 << 16;

/// Ops whose results simply take the default layout, and whose operands are read in theirs
/// (Triton's `GenericOpPattern` and the patterns that behave like it).
const GENERIC: &[&str] = &[
    // arith
    "arith.constant",
    "arith.addi",
    "arith.subi",
    "arith.muli",
    "arith.divui",
    "arith.divsi",
    "arith.ceildivui",
    "arith.ceildivsi",
    "arith.floordivsi",
    "arith.remui",
    "arith.remsi",
    "arith.andi",
    "arith.ori",
    "arith.xori",
    "arith.shli",
    "arith.shrui",
    "arith.shrsi",
    "arith.addf",
    "arith.subf",
    "arith.maximumf",
    "arith.maxnumf",
    "arith.maxsi",
    "arith.maxui",
    "arith.minimumf",
    "arith.minnumf",
    "arith.minsi",
    "arith.minui",
    "arith.mulf",
    "arith.divf",
    "arith.remf",
    "arith.cmpi",
    "arith.cmpf",
    "arith.select",
    "arith.trunci",
    "arith.truncf",
    "arith.extui",
    "arith.extsi",
    "arith.extf",
    "arith.sitofp",
    "arith.fptosi",
    "arith.fptoui",
    "arith.uitofp",
    // math
    "math.exp",
    "math.exp2",
    "math.floor",
    "math.ceil",
    "math.cos",
    "math.sin",
    "math.log",
    "math.log2",
    "math.erf",
    "math.absf",
    "math.absi",
    "math.sqrt",
    "math.rsqrt",
    "math.fma",
    // triton
    "tt.advance",
    "tt.make_tensor_ptr",
    "tt.reshape",
    "tt.bitcast",
    "tt.fp_to_fp",
    "tt.int_to_ptr",
    "tt.ptr_to_int",
    "tt.splat",
    "tt.unsplat",
    "tt.addptr",
    "tt.clampf",
    "tt.precise_sqrt",
    "tt.precise_divf",
    "tt.mulhiui",
    "tt.elementwise_inline_asm",
    "tt.reduce.return",
    "tt.scan.return",
    "tt.make_range",
    "tt.map_elementwise",
    "tt.load",
    "tt.store",
    "tt.histogram",
    "tt.gather",
    "tt.extern_elementwise",
    "tt.print",
    "tt.assert",
    "tt.atomic_cas",
    "tt.atomic_rmw",
    "tt.descriptor_load",
    "tt.descriptor_store",
    "tt.descriptor_reduce",
    "tt.dot_scaled",
    "tt.call",
    "tt.return",
    // scf, cf, ub: the arguments of their regions take the default layouts with the op
    // (`Conversion::legal_results`), those of a function's other blocks up front
    // (`Conversion::retype_functions`)
    "scf.yield",
    "scf.condition",
    "scf.if",
    "scf.for",
    "scf.while",
    "cf.br",
    "cf.cond_br",
    "ub.poison",
];

/// Triton 3.6's `convert-triton-to-tritongpu` on `g`, for `num_warps` warps of
/// `threads_per_warp` lanes and one CTA; `target` is Triton's `target` option, written into
/// `ttg.target` as it is (`hip:gfx942`, `cuda:80`). See the module docs.
///
/// On an error `g` is left as it was.
///
/// ```
/// use linear_layout::heuristics::propagation::convert_to_ttgpuir;
/// use linear_layout::ttgir::graph::Graph;
/// let ttir = r#"
/// module {
///   tt.func public @k(%p: !tt.ptr<f32>) {
///     %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
///     %e = tt.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
///     %s = tt.broadcast %e : tensor<16x1xi32> -> tensor<16x64xi32>
///     %x = arith.addi %s, %s : tensor<16x64xi32>
///     tt.return
///   }
/// }"#;
/// let mut g = Graph::parse(ttir)?;
/// convert_to_ttgpuir(&mut g, "hip:gfx942", 4, 64)?;
/// let out = g.print()?;
/// assert!(out.starts_with(r#"module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {"#), "{out}");
/// // The range in the default layout of 16 elements, then read as a slice by expand_dims.
/// let d1 = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>";
/// assert!(out.contains(&format!("tt.make_range {{end = 16 : i32, start = 0 : i32}} : tensor<16xi32, {d1}>")), "{out}");
/// let e = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [64, 1], warpsPerCTA = [4, 1], order = [0, 1]}>";
/// assert!(out.contains(&format!("-> tensor<16xi32, #ttg.slice<{{dim = 1, parent = {e}}}>>")), "{out}");
/// // The add reads the broadcast in the default layout of 16x64.
/// let d2 = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]}>";
/// assert!(out.contains(&format!(": tensor<16x64xi32, {d2}>\n")), "{out}");
/// // Three converts: to the slice, of the expand_dims result to the default layout of
/// // 16x1 (the broadcast's operand), of the broadcast result to that of 16x64.
/// assert_eq!(out.matches("ttg.convert_layout").count(), 3, "{out}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert_to_ttgpuir(
    g: &mut Graph,
    target: &str,
    num_warps: u32,
    threads_per_warp: u32,
) -> Result<(), PassError> {
    super::bounded(g)?;
    let bad = |message: String| PassError {
        line: 0,
        op: String::new(),
        message,
        limit: None,
    };
    if target.is_empty() {
        return Err(bad(
            "the conversion needs a target (Triton's 'target' option)".into()
        ));
    }
    for (what, n) in [("num_warps", num_warps), ("threads_per_warp", threads_per_warp)] {
        if !n.is_power_of_two() || n > MAX_THREADS {
            return Err(bad(format!(
                "{what} = {n}: expected a power of two up to {MAX_THREADS}"
            )));
        }
    }
    let mut work = g.clone();
    // Triton sets the attributes before it converts, in this order; the dictionary sorts them.
    let attrs = [
        ("ttg.num-warps", format!("{num_warps} : i32")),
        ("ttg.threads-per-warp", format!("{threads_per_warp} : i32")),
        ("ttg.num-ctas", "1 : i32".to_string()),
        ("ttg.target", format!("{target:?}")),
    ];
    for (name, value) in &attrs {
        work.set_module_attr(name, value).map_err(|e| bad(e.message))?;
    }
    work.num_warps = num_warps;
    work.threads_per_warp = threads_per_warp;
    work.target = Some(target.strip_prefix("hip:").unwrap_or(target).to_string());
    let mut c = Conversion {
        num_warps,
        lanes: threads_per_warp,
        original: work.values.iter().map(|v| v.ty.clone()).collect(),
        block_ops: work.blocks.iter().map(|b| b.ops.clone()).collect(),
        defaults: HashMap::new(),
        materialized: HashMap::new(),
        before: HashMap::new(),
        after: HashMap::new(),
        at_start: HashMap::new(),
        folded: HashMap::new(),
    };
    c.retype_functions(&mut work)?;
    for op in work.walk() {
        c.convert(&mut work, op)?;
    }
    c.place(&mut work);
    *g = work;
    Ok(())
}

/// The state of one conversion.
struct Conversion {
    num_warps: u32,
    lanes: u32,
    /// Every value's type before the conversion (the values the conversion makes come after).
    original: Vec<ValueType>,
    /// Every block's ops before the conversion; the converts join them in [`Conversion::place`].
    block_ops: Vec<Vec<OpId>>,
    /// The default layout of each shape met.
    defaults: HashMap<Vec<u64>, Arc<Encoding>>,
    /// A value made in a layout other than its default → its convert to the default.
    materialized: HashMap<ValueId, ValueId>,
    /// Converts an op's rule makes, to stand right before it (in the order made).
    before: HashMap<OpId, Vec<OpId>>,
    /// Converts of an op's results to their default layout, to stand right after it.
    after: HashMap<OpId, Vec<OpId>>,
    /// Converts of a block's arguments, to stand at its start.
    at_start: HashMap<BlockId, Vec<OpId>>,
    /// The result of a folded op → the value that replaces it.
    folded: HashMap<ValueId, ValueId>,
}

impl Conversion {
    /// Triton's `getDefaultBlockedEncoding`: one element per thread, the last dimension
    /// fastest, lanes then warps given to the dimensions from the fastest on.
    fn default_encoding(&mut self, shape: &[u64]) -> Arc<Encoding> {
        if let Some(e) = self.defaults.get(shape) {
            return e.clone();
        }
        let rank = shape.len();
        let order: Vec<u32> = (0..rank as u32).rev().collect();
        let b = blocked_for(
            shape,
            &vec![1; rank],
            &order,
            self.num_warps,
            self.lanes,
            Vec::new(),
        );
        let e = Arc::new(Encoding::Blocked(b));
        self.defaults.insert(shape.to_vec(), e.clone());
        e
    }

    /// The type converter: a tensor without an encoding gets its shape's default layout;
    /// every other type stays. `Err` for what Triton converts and the crate cannot write.
    fn legal_type(&mut self, t: &ValueType) -> Result<ValueType, String> {
        match t.kind {
            TypeKind::Tensor if t.encoding.is_none() => {
                if t.shape.is_empty() {
                    return Err("a tensor of rank 0 has no default layout".into());
                }
                Ok(ValueType {
                    encoding: Some(self.default_encoding(&t.shape)),
                    ..t.clone()
                })
            }
            TypeKind::Scalar | TypeKind::Other if t.element.starts_with("!tt.ptr<tensor<") => {
                Err(format!("pointers to tensors ('{}') are not supported", t.element))
            }
            _ => Ok(t.clone()),
        }
    }

    /// Whether `t` changes under the type converter.
    fn is_illegal(&mut self, t: &ValueType) -> Result<bool, String> {
        Ok(self.legal_type(t)? != *t)
    }

    /// The functions' signatures: tensor arguments are not supported (the function type is
    /// kept as text); the arguments of the other blocks of a function (`cf.br` targets) take
    /// their default layouts, as the branch patterns convert those blocks.
    fn retype_functions(&mut self, g: &mut Graph) -> Result<(), PassError> {
        for f in 0..g.funcs.len() {
            let blocks = g.funcs[f].blocks.clone();
            for (k, &b) in blocks.iter().enumerate() {
                for a in g.blocks[b].args.clone() {
                    let t = g.values[a].ty.clone();
                    let legal = self.legal_type(&t).map_err(|m| func_error(g, f, &m))?;
                    if k == 0 && legal != t {
                        return Err(func_error(
                            g,
                            f,
                            "tensor arguments of a function are not supported",
                        ));
                    }
                    g.values[a].ty = legal;
                }
            }
        }
        Ok(())
    }

    /// Whether Triton's conversion target finds `op` illegal: a type of its operands,
    /// results or region arguments changes, or a `tt.dot` reads operands that are not
    /// `#ttg.dot_op`.
    fn op_is_illegal(&mut self, g: &Graph, op: OpId) -> Result<bool, String> {
        let o = &g.ops[op];
        if o.name == "tt.dot" {
            let dot_operand = |k: usize| {
                o.operands
                    .get(k)
                    .and_then(|&v| g.encoding(v))
                    .is_some_and(|e| matches!(**e, Encoding::DotOperand(_)))
            };
            if !(dot_operand(0) && dot_operand(1)) {
                return Ok(true);
            }
        }
        let region_args = o.regions.iter().flatten().flat_map(|&b| g.blocks[b].args.iter());
        for &v in o.operands.iter().chain(&o.results).chain(region_args) {
            let t = self
                .original
                .get(v)
                .cloned()
                .unwrap_or_else(|| g.values[v].ty.clone());
            if self.is_illegal(&t)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `v` as an op reads it: in the layout the type converter gives its original type. A
    /// value made in another layout is converted once, right after its definition.
    fn adapt(&mut self, g: &mut Graph, v: ValueId) -> Result<ValueId, String> {
        let Some(original) = self.original.get(v).cloned() else {
            return Ok(v);
        };
        let want = self.legal_type(&original)?;
        if g.values[v].ty == want {
            return Ok(v);
        }
        if let Some(&m) = self.materialized.get(&v) {
            return Ok(m);
        }
        let Some(encoding) = want.encoding.clone() else {
            return Err("an operand lost its layout".into());
        };
        let (block, slot) = match g.values[v].def {
            Def::Result { op, .. } => (g.ops[op].block, Slot::After(op)),
            Def::Arg { block, .. } => (block, Slot::Start(block)),
        };
        let m = g.insert_convert(
            InsertPoint {
                block,
                index: usize::MAX,
            },
            v,
            encoding,
        );
        let cvt = g.def_op(m).ok_or("a convert without an op")?;
        match slot {
            Slot::After(op) => self.after.entry(op).or_default().push(cvt),
            Slot::Start(b) => self.at_start.entry(b).or_default().push(cvt),
        }
        self.materialized.insert(v, m);
        Ok(m)
    }

    /// Every operand of `op` as it reads it ([`Conversion::adapt`]).
    fn adapt_operands(&mut self, g: &mut Graph, op: OpId) -> Result<(), String> {
        for k in 0..g.ops[op].operands.len() {
            let mut v = g.ops[op].operands[k];
            // A fold's replacement may be a folded op's result too (an identity reshape of an
            // identity transpose); each step goes to an earlier value.
            for _ in 0..self.folded.len() {
                match self.folded.get(&v) {
                    Some(&r) => v = r,
                    None => break,
                }
            }
            let a = self.adapt(g, v)?;
            g.ops[op].operands[k] = a;
        }
        Ok(())
    }

    /// Operand `k` of `op` converted to `encoding` by a convert right before `op`.
    fn convert_operand(&mut self, g: &mut Graph, op: OpId, k: usize, encoding: Arc<Encoding>) {
        let v = g.ops[op].operands[k];
        let at = InsertPoint {
            block: g.ops[op].block,
            index: usize::MAX,
        };
        let r = g.insert_convert(at, v, encoding);
        if let Some(cvt) = g.def_op(r) {
            self.before.entry(op).or_default().push(cvt);
        }
        g.ops[op].operands[k] = r;
    }

    /// Result `k` of `op` in `encoding` (its original shape and element type).
    fn set_result(&mut self, g: &mut Graph, op: OpId, k: usize, encoding: Arc<Encoding>) {
        let r = g.ops[op].results[k];
        let t = self.original[r].clone();
        g.values[r].ty = ValueType {
            encoding: Some(encoding),
            ..t
        };
    }

    /// Every result and region argument of `op` as the type converter gives them.
    fn legal_results(&mut self, g: &mut Graph, op: OpId) -> Result<(), String> {
        let region_args: Vec<ValueId> = g.ops[op]
            .regions
            .iter()
            .flatten()
            .flat_map(|&b| g.blocks[b].args.clone())
            .collect();
        for v in g.ops[op].results.clone().into_iter().chain(region_args) {
            let t = self
                .original
                .get(v)
                .cloned()
                .unwrap_or_else(|| g.values[v].ty.clone());
            g.values[v].ty = self.legal_type(&t)?;
        }
        Ok(())
    }

    /// The encoding of operand `k` of `op`, which must be blocked.
    fn blocked_operand(g: &Graph, op: OpId, k: usize) -> Result<Blocked, String> {
        let v = *g.ops[op].operands.get(k).ok_or("a missing operand")?;
        match g.encoding(v).map(|e| &**e) {
            Some(Encoding::Blocked(b)) if b.cga_layout.is_empty() => Ok(b.clone()),
            Some(e) => Err(format!("expected a blocked operand, got {e}")),
            None => Err("expected a tensor operand".into()),
        }
    }

    /// Converts one op as Triton's pattern for it does.
    fn convert(&mut self, g: &mut Graph, op: OpId) -> Result<(), PassError> {
        let illegal = self
            .op_is_illegal(g, op)
            .map_err(|m| PassError::new(g, Some(op), &m))?;
        if !illegal {
            return Ok(());
        }
        match self.fold(g, op).map_err(|m| PassError::new(g, Some(op), &m))? {
            Some(Fold::Value(v)) => {
                for r in g.ops[op].results.clone() {
                    self.folded.insert(r, v);
                }
                g.ops[op].erased = true;
                return Ok(());
            }
            Some(Fold::Splat(constant)) => {
                let r = *g.ops[op]
                    .results
                    .first()
                    .ok_or_else(|| PassError::new(g, Some(op), "no result"))?;
                let ty = self
                    .legal_type(&self.original[r].clone())
                    .map_err(|m| PassError::new(g, Some(op), &m))?;
                let at = InsertPoint {
                    block: g.ops[op].block,
                    index: usize::MAX,
                };
                let new = g.insert_like(constant, at, Vec::new(), vec![ty]);
                self.before.entry(op).or_default().push(new);
                self.folded.insert(r, g.ops[new].results[0]);
                g.ops[op].erased = true;
                return Ok(());
            }
            None => {}
        }
        let name = g.ops[op].name.clone();
        let done = match name.as_str() {
            "tt.broadcast" => self.broadcast(g, op),
            "tt.expand_dims" => self.expand_dims(g, op),
            "tt.dot" => self.dot(g, op),
            "tt.cat" => self.cat(g, op),
            "tt.join" => self.join(g, op),
            "tt.split" => self.split(g, op),
            "tt.trans" => self.trans(g, op),
            "tt.reduce" => self.reduce(g, op),
            "tt.scan" => self.scan(g, op),
            "tt.descriptor_gather" | "tt.descriptor_scatter" => self.gather_scatter(g, op),
            n if GENERIC.contains(&n) => self
                .adapt_operands(g, op)
                .and_then(|()| self.legal_results(g, op)),
            _ => Err("Triton's conversion has no rule for this op on tensors".into()),
        };
        done.map_err(|m| PassError::new(g, Some(op), &m))
    }

    /// `tt.broadcast`: the result keeps its operand's layout.
    fn broadcast(&mut self, g: &mut Graph, op: OpId) -> Result<(), String> {
        self.adapt_operands(g, op)?;
        let src = *g.ops[op].operands.first().ok_or("a broadcast without operand")?;
        let e = g.encoding(src).cloned().ok_or("a broadcast of a non-tensor")?;
        self.set_result(g, op, 0, e);
        Ok(())
    }

    /// `tt.expand_dims`: the operand's layout with a 1 inserted at the axis (the order the
    /// identity) is the result's; the operand is converted to its slice along the axis.
    fn expand_dims(&mut self, g: &mut Graph, op: OpId) -> Result<(), String> {
        self.adapt_operands(g, op)?;
        let src = Self::blocked_operand(g, op, 0)?;
        let axis = int_attr(g, op, "axis").ok_or("expand_dims without an axis")?;
        let axis = usize::try_from(axis)
            .ok()
            .filter(|&a| a <= src.order.len())
            .ok_or("bad axis")?;
        let insert = |v: &[u32]| {
            let mut v = v.to_vec();
            v.insert(axis, 1);
            v
        };
        let rank = src.order.len() + 1;
        let result = Arc::new(Encoding::Blocked(Blocked {
            size_per_thread: insert(&src.size_per_thread),
            threads_per_warp: insert(&src.threads_per_warp),
            warps_per_cta: insert(&src.warps_per_cta),
            order: (0..rank as u32).collect(),
            cga_layout: Vec::new(),
        }));
        let slice = Arc::new(Encoding::Slice(Slice {
            dim: axis as u32,
            parent: result.clone(),
        }));
        self.convert_operand(g, op, 0, slice);
        self.set_result(g, op, 0, result);
        Ok(())
    }

    /// `tt.dot`: a blocked result with up to 4×4 elements per thread (by elements per
    /// thread of the whole tile), `a` and `b` converted to its `#ttg.dot_op`s and the
    /// accumulator to it.
    fn dot(&mut self, g: &mut Graph, op: OpId) -> Result<(), String> {
        self.adapt_operands(g, op)?;
        if g.ops[op].operands.len() < 3 || g.ops[op].results.is_empty() {
            return Err("a dot without a, b and c".into());
        }
        let r = g.ops[op].results[0];
        let shape = self.original[r].shape.clone();
        let rank = shape.len();
        if rank < 2 {
            return Err("a dot of rank below 2".into());
        }
        let elements = shape.iter().fold(1u64, |a, &d| a.saturating_mul(d));
        let per_thread = elements / (u64::from(self.num_warps) * u64::from(self.lanes));
        let side: u64 = match per_thread {
            16.. => 4,
            4.. => 2,
            _ => 1,
        };
        let mut spt = vec![1u32; rank];
        for d in [rank - 2, rank - 1] {
            spt[d] = side.min(shape[d]).max(1) as u32;
        }
        let order: Vec<u32> = (0..rank as u32).rev().collect();
        let d = Arc::new(Encoding::Blocked(blocked_for(
            &shape,
            &spt,
            &order,
            self.num_warps,
            self.lanes,
            Vec::new(),
        )));
        for k in [0u32, 1] {
            let v = g.ops[op].operands[k as usize];
            if !matches!(g.encoding(v).map(|e| &**e), Some(Encoding::DotOperand(_))) {
                let e = Encoding::DotOperand(DotOperand {
                    op_idx: k,
                    parent: d.clone(),
                    k_width: 0,
                });
                self.convert_operand(g, op, k as usize, Arc::new(e));
            }
        }
        self.convert_operand(g, op, 2, d.clone());
        self.set_result(g, op, 0, d);
        Ok(())
    }

    /// `tt.cat`: the default layout of the result, with enough elements per thread along its
    /// fastest dimension to hold both operands' (rounded up to a power of two).
    fn cat(&mut self, g: &mut Graph, op: OpId) -> Result<(), String> {
        self.adapt_operands(g, op)?;
        let r = *g.ops[op].results.first().ok_or("a cat without result")?;
        let shape = self.original[r].shape.clone();
        let default = self.default_encoding(&shape);
        let Encoding::Blocked(mut b) = (*default).clone() else {
            return Err("the default layout is blocked".into());
        };
        let per_thread = |g: &Graph, v: ValueId| -> Result<u64, String> {
            let t = &g.values[v].ty;
            let e = t.encoding.as_ref().ok_or("a cat of a non-tensor")?;
            registers(e, &t.shape)
        };
        let (lhs, rhs) = match g.ops[op].operands[..] {
            [l, r, ..] => (l, r),
            _ => return Err("a cat without two operands".into()),
        };
        let total = per_thread(g, lhs)? + per_thread(g, rhs)?;
        let now = registers(&default, &shape)?;
        let too_many = "too many elements per thread";
        let grow = total.checked_next_power_of_two().ok_or(too_many)? / now.max(1);
        let fastest = *b.order.first().ok_or("a cat of rank 0")? as usize;
        let spt = u64::from(b.size_per_thread[fastest])
            .checked_mul(grow)
            .ok_or(too_many)?;
        b.size_per_thread[fastest] = u32::try_from(spt).map_err(|_| too_many)?;
        self.set_result(g, op, 0, Arc::new(Encoding::Blocked(b)));
        Ok(())
    }

    /// `tt.join`: the operands' blocked layout with a new fastest last dimension of 2
    /// elements per thread.
    fn join(&mut self, g: &mut Graph, op: OpId) -> Result<(), String> {
        self.adapt_operands(g, op)?;
        let mut b = Self::blocked_operand(g, op, 0)?;
        let rank = b.order.len() as u32;
        b.size_per_thread.push(2);
        b.threads_per_warp.push(1);
        b.warps_per_cta.push(1);
        b.order.insert(0, rank);
        self.set_result(g, op, 0, Arc::new(Encoding::Blocked(b)));
        Ok(())
    }

    /// `tt.split`: the operand must hold both halves in one thread with the last dimension
    /// fastest; if not, it is converted to the results' default layout with that dimension
    /// added. The results drop the last dimension.
    fn split(&mut self, g: &mut Graph, op: OpId) -> Result<(), String> {
        self.adapt_operands(g, op)?;
        let src = Self::blocked_operand(g, op, 0)?;
        let rank = src.order.len();
        if rank == 0 {
            return Err("a split of rank 0".into());
        }
        let ready = src.size_per_thread.last() == Some(&2) && src.order.first() == Some(&(rank as u32 - 1));
        let src = if ready {
            src
        } else {
            let r = *g.ops[op].results.first().ok_or("a split without results")?;
            let shape = self.original[r].shape.clone();
            let Encoding::Blocked(d) = (*self.default_encoding(&shape)).clone() else {
                return Err("the default layout is blocked".into());
            };
            let mut b = d;
            b.size_per_thread.push(2);
            b.threads_per_warp.push(1);
            b.warps_per_cta.push(1);
            b.order.insert(0, rank as u32 - 1);
            self.convert_operand(g, op, 0, Arc::new(Encoding::Blocked(b.clone())));
            b
        };
        if src.threads_per_warp.last() != Some(&1) || src.warps_per_cta.last() != Some(&1) {
            return Err("a split whose halves are in different threads".into());
        }
        let mut b = src;
        b.size_per_thread.pop();
        b.threads_per_warp.pop();
        b.warps_per_cta.pop();
        b.order.retain(|&d| d as usize != rank - 1);
        let e = Arc::new(Encoding::Blocked(b));
        for k in 0..g.ops[op].results.len() {
            self.set_result(g, op, k, e.clone());
        }
        Ok(())
    }

    /// `tt.trans`: the operand's layout permuted (blocked fields, or the bases of a linear layout).
    fn trans(&mut self, g: &mut Graph, op: OpId) -> Result<(), String> {
        self.adapt_operands(g, op)?;
        let src = *g.ops[op].operands.first().ok_or("a trans without operand")?;
        let rank = g.values[src].ty.shape.len();
        let order: Vec<u32> = attr(&g.ops[op].attrs, "order")
            .and_then(|a| a.ints(rank))
            .and_then(|o| o.into_iter().map(|x| u32::try_from(x).ok()).collect())
            .ok_or("a trans without an order")?;
        let e = g.encoding(src).cloned().ok_or("a trans of a non-tensor")?;
        let shape = g.values[src].ty.shape.clone();
        let result = trans(&e, &shape, &order).ok_or("a trans whose layout cannot be permuted")?;
        self.set_result(g, op, 0, result);
        Ok(())
    }

    /// `tt.reduce`: each result is a slice of its operand's layout along the axis.
    fn reduce(&mut self, g: &mut Graph, op: OpId) -> Result<(), String> {
        self.adapt_operands(g, op)?;
        let axis = int_attr(g, op, "axis").ok_or("a reduce without an axis")?;
        let dim = u32::try_from(axis).map_err(|_| "bad axis")?;
        for k in 0..g.ops[op].results.len() {
            let v = *g.ops[op]
                .operands
                .get(k)
                .ok_or("a reduce with more results than operands")?;
            let parent = g.encoding(v).cloned().ok_or("a reduce of a non-tensor")?;
            if self.original[g.ops[op].results[k]].kind != TypeKind::Tensor {
                // A reduce to a scalar keeps its result type.
                continue;
            }
            self.set_result(g, op, k, Arc::new(Encoding::Slice(Slice { dim, parent })));
        }
        Ok(())
    }

    /// `tt.scan`: each result has its operand's type.
    fn scan(&mut self, g: &mut Graph, op: OpId) -> Result<(), String> {
        self.adapt_operands(g, op)?;
        for k in 0..g.ops[op].results.len() {
            let v = *g.ops[op]
                .operands
                .get(k)
                .ok_or("a scan with more results than operands")?;
            let e = g.encoding(v).cloned().ok_or("a scan of a non-tensor")?;
            self.set_result(g, op, k, e);
        }
        Ok(())
    }

    /// `tt.descriptor_gather` / `tt.descriptor_scatter`: the row offsets are read 4 to a
    /// thread, in a slice of a layout whose lanes run down the rows.
    fn gather_scatter(&mut self, g: &mut Graph, op: OpId) -> Result<(), String> {
        self.adapt_operands(g, op)?;
        self.legal_results(g, op)?;
        let parent = Blocked {
            size_per_thread: vec![1, 4],
            threads_per_warp: vec![self.lanes, 1],
            warps_per_cta: vec![1, self.num_warps],
            order: vec![1, 0],
            cga_layout: Vec::new(),
        };
        let e = Arc::new(Encoding::Slice(Slice {
            dim: 0,
            parent: Arc::new(Encoding::Blocked(parent)),
        }));
        let x = *g.ops[op].operands.get(1).ok_or("a gather without row offsets")?;
        if g.values[x].ty.shape.len() != 1 {
            return Err("row offsets of rank other than 1".into());
        }
        if g.encoding(x) == Some(&e) {
            return Err("the row offsets already have the layout Triton converts them to".into());
        }
        self.convert_operand(g, op, 1, e);
        Ok(())
    }

    /// MLIR's conversion first tries to fold an op it must convert, with the operands of the
    /// source module: Triton's folders of a transpose, broadcast, reshape or conversion that
    /// changes nothing give their operand; of a view of a splat constant, that constant in the
    /// new shape (made right where the op was). Canonical TTIR (what `make_ttir` prints) has
    /// nothing to fold; the folds that would need a constant written anew, and the `arith`
    /// and `math` folders, are not reproduced (errors for the former).
    fn fold(&self, g: &Graph, op: OpId) -> Result<Option<Fold>, String> {
        let o = &g.ops[op];
        let (Some(&src), Some(&r)) = (o.operands.first(), o.results.first()) else {
            return Ok(None);
        };
        let same_type = self.original.get(src) == self.original.get(r);
        let def = g
            .def_op(src)
            .filter(|&d| g.ops[d].name == "arith.constant" && !g.ops[d].erased);
        let dense = def.and_then(|d| dense_value(&g.op_text_without_results(d)));
        let splat = dense.as_deref().is_some_and(|d| !d.starts_with(['[', '"']));
        let view = |dense: &Option<String>| -> Result<Option<Fold>, String> {
            match (def, dense) {
                (Some(d), Some(_)) if splat => Ok(Some(Fold::Splat(d))),
                (_, Some(_)) => {
                    Err("Triton folds a view of a constant that is not a splat; not supported".into())
                }
                _ => Ok(None),
            }
        };
        match o.name.as_str() {
            "tt.trans" => {
                let rank = self.original.get(src).map_or(0, |t| t.shape.len());
                let iota = attr(&o.attrs, "order")
                    .and_then(|a| a.ints(rank))
                    .is_some_and(|v| v.iter().enumerate().all(|(i, &x)| x == i as i64));
                if iota && same_type {
                    return Ok(Some(Fold::Value(src)));
                }
                if g.def_op(src).is_some_and(|d| g.ops[d].name == "tt.trans") {
                    return Err("Triton folds a transpose of a transpose into one; not supported".into());
                }
                Ok(if splat { def.map(Fold::Splat) } else { None })
            }
            "tt.broadcast" if same_type => Ok(Some(Fold::Value(src))),
            "tt.broadcast" => Ok(if splat { def.map(Fold::Splat) } else { None }),
            "tt.reshape" if same_type && attr(&g.ops[op].attrs, "allow_reorder").is_none() => {
                Ok(Some(Fold::Value(src)))
            }
            "tt.reshape" | "tt.expand_dims" => view(&dense),
            "tt.fp_to_fp" if same_type => Ok(Some(Fold::Value(src))),
            "tt.fp_to_fp" if dense.as_deref().is_some_and(is_float_zero) => {
                Err("Triton folds a conversion of a zero constant; not supported".into())
            }
            "tt.addptr" => {
                let offset = o.operands.get(1).and_then(|&v| g.def_op(v));
                let zero = offset
                    .filter(|&d| g.ops[d].name == "arith.constant")
                    .and_then(|d| dense_value(&g.op_text_without_results(d)))
                    .is_some_and(|v| v == "0");
                Ok(zero.then_some(Fold::Value(src)))
            }
            "tt.splat" if g.def_op(src).is_some_and(|d| g.ops[d].name == "arith.constant") => {
                Err("Triton folds a splat of a constant into a constant; not supported".into())
            }
            "tt.make_range" => {
                let bound = |k: &str| match attr(&o.attrs, k) {
                    Some(crate::ttgir::AttrValue::Int(v)) => Some(*v),
                    _ => None,
                };
                match (bound("start"), bound("end")) {
                    (Some(a), Some(b)) if a.checked_add(1) == Some(b) => {
                        Err("Triton folds a range of one element into a constant; not supported".into())
                    }
                    _ => Ok(None),
                }
            }
            _ => Ok(None),
        }
    }

    /// Puts the converts in their places: a block's argument converts at its start, then
    /// each op with the converts its rule made before it and the converts of its results
    /// after it. Converts placed at one point stand in reverse order of making, as MLIR
    /// inserts each at the point right after the definition, before the earlier ones.
    fn place(&self, g: &mut Graph) {
        for (b, ops) in self.block_ops.iter().enumerate() {
            let mut out = Vec::with_capacity(ops.len());
            if let Some(start) = self.at_start.get(&b) {
                out.extend(start.iter().rev());
            }
            for &op in ops {
                if let Some(pre) = self.before.get(&op) {
                    out.extend(pre);
                }
                if !g.ops[op].erased {
                    out.push(op);
                }
                if let Some(post) = self.after.get(&op) {
                    out.extend(post.iter().rev());
                }
            }
            g.blocks[b].ops = out;
        }
    }
}

/// What an op folds to.
enum Fold {
    /// This existing value.
    Value(ValueId),
    /// This splat `arith.constant`, in the op's result shape.
    Splat(OpId),
}

/// The `X` of `arith.constant dense<X> : …`.
fn dense_value(text: &str) -> Option<String> {
    let start = text.find("dense<")? + "dense<".len();
    let end = text.rfind(" : ")?;
    let inner = text.get(start..end)?.trim_end().strip_suffix('>')?;
    Some(inner.trim().to_string())
}

/// Whether a constant's text is a float zero of either sign (`0.000000e+00`, `-0.0`,
/// `0x80000000`).
fn is_float_zero(v: &str) -> bool {
    if let Some(hex) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16)
            .is_ok_and(|b| b == 0 || matches!(b, 0x8000 | 0x8000_0000 | 0x8000_0000_0000_0000));
    }
    v.parse::<f64>().is_ok_and(|x| x == 0.0)
}

/// Where a convert of a value goes.
enum Slot {
    /// Right after this op.
    After(OpId),
    /// At the start of this block.
    Start(BlockId),
}

/// Elements per thread of a tensor of `shape` in layout `e` (Triton's
/// `getTotalElemsPerThread`).
fn registers(e: &Encoding, shape: &[u64]) -> Result<u64, String> {
    let l = e.to_linear_layout(shape).map_err(|e| e.to_string())?;
    l.in_dim_size("register").map_err(|e| e.to_string())
}

/// An error about function `f` (the graph keeps no line for a function header).
fn func_error(g: &Graph, f: usize, message: &str) -> PassError {
    PassError {
        line: 0,
        op: format!("tt.func @{}", g.funcs[f].name),
        message: message.to_string(),
        limit: None,
    }
}
