//! Triton 3.6's `tritonamdgpu-accelerate-matmul` rewrite: each dot moves to the matrix
//! instruction [`accelerate_module`] chose for it.
//!
//! The pass runs in three steps, as Triton's does, each on the whole module:
//!
//! 1. **Matrix cores** (MFMA, WMMA, gfx950's scaled MFMA, and on CDNA1–3 a `tt.dot_scaled`
//!    without scales as a bf16 MFMA `tt.dot`), under MLIR's greedy rewriter: the
//!    accumulator is converted to the instruction's layout and cast to its accumulator type,
//!    A and B are converted to their dot-operand layouts and cast to the instruction's input
//!    types (OCP fp8 on CDNA3 runs as f16), the new `tt.dot` (or `tt.dot_scaled`) takes them,
//!    and its result is converted back to the old layout and type. A cast from type `s` to `t`
//!    is `arith.extf` (f16 → f32), `arith.truncf` (f32 → f16), `tt.fp_to_fp` (other floats),
//!    `arith.trunci` / `arith.extui` / `arith.extsi` / `arith.bitcast` (integers).
//! 2. **FMA**, under a second greedy rewriter: a dot that is not already in a form `v_fma` /
//!    `v_dot` takes gets A, B and C cast to a common type (f16, or f32) and its result cast
//!    back; a cast of a constant zero folds into a constant.
//! 3. **Mixed modes**: a matrix-core dot whose A and B differ in type gets both promoted by
//!    `tt.fp_to_fp` (to f16 or f32 on MFMA, to the wider of the two on WMMA).
//!
//! Each greedy rewriter also removes dead ops and makes constants unique at the top of their
//! function.

use std::sync::Arc;

use crate::encodings::Encoding;
use crate::heuristics::matmul::{DotDecision, DotKind, accelerate_module};
use crate::ttgir::graph::{Graph, OpId, ValueId};
use crate::ttgir::{AttrValue, Module, TypeKind, ValueType, attr, element_bits};

use super::PassError;
use super::cleanup::{Patterns, canonicalize};
use super::coalesce_rewrite::{from_heuristic, same_op};

/// What becomes of one dot.
enum Path {
    /// A matrix-core dot: the layouts, the types, and the op that replaces it.
    Matrix {
        result: Arc<Encoding>,
        a: Arc<Encoding>,
        b: Arc<Encoding>,
        /// The accumulator's (C's and the new result's) element type.
        acc: String,
        /// The instruction's input types.
        a_elem: String,
        b_elem: String,
        new: NewDot,
    },
    /// An FMA dot cast to a common type.
    Fma { common: String },
}

/// The op a matrix-core rewrite makes.
enum NewDot {
    /// A `tt.dot` like the old one.
    Dot,
    /// A `tt.dot_scaled` of an OCP fp8 `tt.dot` (gfx950), without scales.
    ScaledFromDot { lhs: &'static str, rhs: &'static str },
    /// A `tt.dot_scaled` like the old one (no scales).
    Scaled,
    /// A plain `tt.dot` of a `tt.dot_scaled` whose operands were upcast (CDNA1–3, no scales).
    DotFromScaled,
}

fn is_int(t: &str) -> bool {
    t.starts_with('i') || t.starts_with("si") || t.starts_with("ui")
}

fn is_float(t: &str) -> bool {
    !is_int(t) && element_bits(t).is_some() && !t.starts_with('!')
}

fn bits(t: &str) -> u32 {
    element_bits(t).unwrap_or(0)
}

fn is_ocp(t: &str) -> bool {
    matches!(t, "f8E4M3FN" | "f8E5M2")
}

/// The `tt.dot_scaled` name of an OCP fp8 type.
fn scaled_name(t: &str) -> Option<&'static str> {
    match t {
        "f8E4M3FN" => Some("e4m3"),
        "f8E5M2" => Some("e5m2"),
        _ => None,
    }
}

/// Triton's WMMA operand types (A, B, C, D) by its conversion-cost model, if any is reachable.
fn wmma_operand_types(have: [&str; 4], version: u32) -> Option<[&'static str; 4]> {
    let mut cands: Vec<[&'static str; 4]> = vec![
        ["f16", "f16", "f32", "f32"],
        ["bf16", "bf16", "f32", "f32"],
        ["i8", "i8", "i32", "i32"],
    ];
    if version == 2 || version == 3 {
        cands.extend([
            ["f8E4M3FN", "f8E4M3FN", "f32", "f32"],
            ["f8E4M3FN", "f8E5M2", "f32", "f32"],
            ["f8E5M2", "f8E4M3FN", "f32", "f32"],
            ["f8E5M2", "f8E5M2", "f32", "f32"],
        ]);
    }
    let max = i64::from(i32::MAX) / 4;
    let cost = |from: &str, to: &str| -> i64 {
        if from == to {
            return 0;
        }
        if is_int(from) != is_int(to) {
            return max;
        }
        let unsigned = |t: &str| t.starts_with("ui");
        if is_int(from) && unsigned(from) != unsigned(to) {
            return if unsigned(from) && bits(from) < bits(to) {
                1
            } else {
                max
            };
        }
        if bits(from) <= bits(to) { 1 } else { max }
    };
    let mut best: Option<[&'static str; 4]> = None;
    let mut min = max;
    for c in cands {
        let total: i64 = (0..4).map(|i| cost(have[i], c[i])).sum();
        if total < min {
            min = total;
            best = Some(c);
        }
    }
    best
}

/// A tensor type like `t` with another element type and, if given, another encoding.
fn retyped(t: &ValueType, elem: &str, enc: Option<&Arc<Encoding>>) -> ValueType {
    ValueType {
        element: elem.to_string(),
        encoding: enc.cloned().or_else(|| t.encoding.clone()),
        ..t.clone()
    }
}

/// Where new ops go: before `op`.
struct Builder<'g> {
    g: &'g mut Graph,
    before: OpId,
}

impl Builder<'_> {
    fn err(&self, message: &str) -> PassError {
        PassError::new(self.g, Some(self.before), message)
    }

    fn convert(&mut self, v: ValueId, enc: &Arc<Encoding>) -> ValueId {
        let at = self.g.position(self.before);
        self.g.insert_convert(at, v, enc.clone())
    }

    fn text(&mut self, name: &str, v: ValueId, ty: ValueType, format: &str) -> Result<ValueId, PassError> {
        let at = self.g.position(self.before);
        let op = self
            .g
            .insert_text(at, name, vec![v], vec![ty], format)
            .map_err(|e| self.err(&e.message))?;
        Ok(self.g.ops[op].results[0])
    }

    /// Triton's `convertAndCastTensor`: `v` converted to `enc`, then cast to `elem`.
    fn convert_and_cast(
        &mut self,
        v: ValueId,
        enc: &Arc<Encoding>,
        elem: &str,
    ) -> Result<ValueId, PassError> {
        let c = self.convert(v, enc);
        let ty = self.g.values[c].ty.clone();
        let old = ty.element.clone();
        if old == elem {
            return Ok(c);
        }
        let new_ty = retyped(&ty, elem, None);
        let arith = |op: &str| (format!("arith.{op}"), format!("$r = arith.{op} $0 : $t0 to $rt0"));
        let (name, format, result) = if is_int(elem) && is_int(&old) {
            let (ow, nw) = (bits(&old), bits(elem));
            let (n, f) = if ow == nw {
                arith("bitcast")
            } else if ow > nw {
                arith("trunci")
            } else if old.starts_with("si") {
                arith("extsi")
            } else {
                arith("extui")
            };
            // A bitcast of equal widths keeps the converted type (as Triton builds it).
            (n, f, if ow == nw { ty.clone() } else { new_ty })
        } else if is_float(elem) && is_float(&old) {
            if old == "f16" && elem == "f32" {
                let (n, f) = arith("extf");
                (n, f, new_ty)
            } else if old == "f32" && elem == "f16" {
                let (n, f) = arith("truncf");
                (n, f, new_ty)
            } else if bits(elem) < bits(&old) {
                return Err(self.err(&format!(
                    "casting {old} to {elem} without a rounding mode does not verify in Triton"
                )));
            } else {
                (
                    "tt.fp_to_fp".to_string(),
                    "$r = tt.fp_to_fp $0 : $t0 -> $rt0".to_string(),
                    new_ty,
                )
            }
        } else {
            return Err(self.err(&format!("no cast from {old} to {elem} between dot layouts")));
        };
        self.text(&name, c, result, &format)
    }

    /// The FMA path's cast of `v` to `elem` (`castToElTy`), folded when `v` is a constant the
    /// cast's folder takes.
    fn cast_to(&mut self, v: ValueId, elem: &str) -> Result<ValueId, PassError> {
        let ty = self.g.values[v].ty.clone();
        let old = ty.element.clone();
        if old == elem {
            return Ok(v);
        }
        let new_ty = retyped(&ty, elem, None);
        let (name, format) = match (is_float(&old), is_float(elem)) {
            (true, true) if bits(elem) < bits(&old) => (
                "tt.fp_to_fp",
                "$r = tt.fp_to_fp $0, rounding = rtne : $t0 -> $rt0",
            ),
            (true, true) => ("tt.fp_to_fp", "$r = tt.fp_to_fp $0 : $t0 -> $rt0"),
            (false, true) => ("arith.sitofp", "$r = arith.sitofp $0 : $t0 to $rt0"),
            (true, false) => ("arith.fptosi", "$r = arith.fptosi $0 : $t0 to $rt0"),
            (false, false) => {
                return Err(self.err(&format!("an integer cast {old} to {elem} in an FMA dot")));
            }
        };
        if let Some(value) = self.folded(v, name, elem) {
            let at = self.g.position(self.before);
            let op = self
                .g
                .insert_text(
                    at,
                    "arith.constant",
                    Vec::new(),
                    vec![new_ty],
                    &format!("$r = arith.constant dense<{value}> : $rt0"),
                )
                .map_err(|e| self.err(&e.message))?;
            return Ok(self.g.ops[op].results[0]);
        }
        self.text(name, v, new_ty, format)
    }

    /// What cast `name` of `v` to `elem` folds to, when `v` is a splat constant its folder
    /// takes: the element of the new constant as MLIR prints it.
    fn folded(&self, v: ValueId, name: &str, elem: &str) -> Option<String> {
        let def = self.g.def_op(v)?;
        if self.g.ops[def].name != "arith.constant" || self.g.values[v].ty.kind != TypeKind::Tensor {
            return None;
        }
        let text = self.g.op_text_without_results(def);
        let inner = text.split_once("dense<")?.1;
        let inner = &inner[..inner.find('>')?];
        if inner.contains(['[', '"', '(']) {
            return None;
        }
        match name {
            "tt.fp_to_fp" => {
                let f: f64 = inner.parse().ok()?;
                (f == 0.0).then(|| {
                    if inner.starts_with('-') {
                        "-0.000000e+00".to_string()
                    } else {
                        "0.000000e+00".to_string()
                    }
                })
            }
            "arith.sitofp" => {
                let i: i64 = inner.parse().ok()?;
                let exact = if elem == "f16" || elem == "bf16" {
                    256
                } else {
                    1 << 20
                };
                (i.unsigned_abs() <= exact).then(|| float_text(i))
            }
            _ => None,
        }
    }
}

/// An integer as MLIR prints a float of that value (`3.000000e+00`).
fn float_text(i: i64) -> String {
    if i == 0 {
        return "0.000000e+00".into();
    }
    let digits = i.unsigned_abs().to_string();
    let exp = digits.len() - 1;
    let mut mantissa: String = digits.chars().take(7).collect();
    while mantissa.len() < 7 {
        mantissa.push('0');
    }
    format!(
        "{}{}.{}e+{exp:02}",
        if i < 0 { "-" } else { "" },
        &mantissa[..1],
        &mantissa[1..]
    )
}

/// The plan for one decided dot.
fn plan(g: &Graph, m: &Module, d: &DotDecision) -> Result<Option<Path>, PassError> {
    let o = d.op;
    let c = &d.choice;
    let name = g.ops[o].name.clone();
    let err = |msg: &str| PassError::new(g, Some(o), msg);
    if g.ops[o].operands.len() < 3 || g.ops[o].results.len() != 1 {
        return Err(err("expected operands A, B, C and one result"));
    }
    let ty = |k: usize| &g.values[g.ops[o].operands[k]].ty;
    let (at, bt, ct) = (ty(0), ty(1), ty(2));
    let rt = &g.values[g.ops[o].results[0]].ty;
    if [at, bt, ct, rt].iter().any(|t| t.kind != TypeKind::Tensor) {
        return Err(err("the operands and the result must be tensors"));
    }
    let scaled = name == "tt.dot_scaled";
    if scaled {
        match (c.kind, c.op) {
            (DotKind::Fma, "tt.dot_scaled") => return Ok(None),
            (DotKind::Mfma, _) => {}
            (DotKind::Wmma, "tt.dot_scaled") => {
                return Err(err("scaled WMMA (its scale layouts) is not implemented"));
            }
            _ => {
                return Err(err(
                    "decomposing a tt.dot_scaled into a tt.dot with explicit scaling is not implemented",
                ));
            }
        }
        if !m.ops[o].scales.is_empty() || g.ops[o].operands.len() != 3 {
            return Err(err(
                "a scaled MFMA with scales (their layouts) is not implemented",
            ));
        }
        let packed = |k: &str| !matches!(attr(&g.ops[o].attrs, k), Some(AttrValue::Int(0)));
        if !packed("lhs_k_pack") || !packed("rhs_k_pack") {
            return Err(err(
                "an operand packed along M or N (a transposed packed local load) is not implemented",
            ));
        }
        if c.op == "tt.dot_scaled" && (rt.shape.len() != 2 || g.num_warps == 1) {
            return Err(err(
                "Triton decomposes this tt.dot_scaled (3-d or one warp): not implemented",
            ));
        }
    }
    let lanes = match c.kind {
        DotKind::Mfma => 64,
        DotKind::Wmma => 32,
        DotKind::Fma => g.threads_per_warp,
    };
    if lanes != g.threads_per_warp {
        return Err(err(&format!(
            "the module has {} threads per warp, the instruction's layout {lanes}",
            g.threads_per_warp
        )));
    }
    let enc = |e: &Encoding| Arc::new(e.clone());
    match c.kind {
        DotKind::Fma => {
            let legal = c.a_elem == at.element && c.b_elem == bt.element && c.c_elem == ct.element;
            if legal {
                return Ok(None);
            }
            if c.a_elem != c.b_elem || c.a_elem != c.c_elem {
                return Err(err("an FMA dot casts to one common type"));
            }
            Ok(Some(Path::Fma {
                common: c.a_elem.clone(),
            }))
        }
        DotKind::Mfma => {
            let Encoding::AmdMfma(mfma) = &c.result else {
                return Err(err("an MFMA decision without an MFMA layout"));
            };
            let new = match (scaled, c.op) {
                (true, "tt.dot") => NewDot::DotFromScaled,
                (true, _) => NewDot::Scaled,
                (false, "tt.dot_scaled") => match (scaled_name(&at.element), scaled_name(&bt.element)) {
                    (Some(lhs), Some(rhs)) => NewDot::ScaledFromDot { lhs, rhs },
                    _ => return Err(err("a scaled MFMA of operands that are not OCP fp8")),
                },
                (false, _) => NewDot::Dot,
            };
            let (acc, a_elem, b_elem) = if matches!(new, NewDot::DotFromScaled) {
                // Operands not already bf16 / fp16 are upcast to bf16 (f16 if one is fp16).
                let format = |k: &str| match attr(&g.ops[o].attrs, k) {
                    Some(AttrValue::Raw(f) | AttrValue::Str(f)) => f.clone(),
                    _ => String::new(),
                };
                let (lhs, rhs) = (format("lhs"), format("rhs"));
                let up = if lhs == "fp16" || rhs == "fp16" {
                    "f16"
                } else {
                    "bf16"
                };
                let elem = |f: &str, t: &ValueType| match f {
                    "bf16" | "fp16" => t.element.clone(),
                    _ => up.to_string(),
                };
                (rt.element.clone(), elem(&lhs, at), elem(&rhs, bt))
            } else if scaled {
                (rt.element.clone(), at.element.clone(), bt.element.clone())
            } else {
                let acc = if is_int(&rt.element) {
                    "i32"
                } else if rt.element == "f64" {
                    "f64"
                } else {
                    "f32"
                };
                let emulated = matches!(new, NewDot::Dot)
                    && mfma.version <= 3
                    && is_ocp(&at.element)
                    && is_ocp(&bt.element);
                if emulated {
                    (acc.to_string(), "f16".to_string(), "f16".to_string())
                } else {
                    (acc.to_string(), at.element.clone(), bt.element.clone())
                }
            };
            Ok(Some(Path::Matrix {
                result: enc(&c.result),
                a: enc(&c.a),
                b: enc(&c.b),
                acc,
                a_elem,
                b_elem,
                new,
            }))
        }
        DotKind::Wmma => {
            let Encoding::AmdWmma(wmma) = &c.result else {
                return Err(err("a WMMA decision without a WMMA layout"));
            };
            let have = [
                at.element.as_str(),
                bt.element.as_str(),
                ct.element.as_str(),
                rt.element.as_str(),
            ];
            let Some(types) = wmma_operand_types(have, wmma.version) else {
                return Err(err("no WMMA operand types are reachable from the dot's types"));
            };
            Ok(Some(Path::Matrix {
                result: enc(&c.result),
                a: enc(&c.a),
                b: enc(&c.b),
                acc: types[2].to_string(),
                a_elem: types[0].to_string(),
                b_elem: types[1].to_string(),
                new: NewDot::Dot,
            }))
        }
    }
}

/// Rewrites dot `o` onto a matrix core.
fn rewrite_matrix(g: &mut Graph, o: OpId, path: &Path) -> Result<(), PassError> {
    let Path::Matrix {
        result,
        a,
        b,
        acc,
        a_elem,
        b_elem,
        new,
    } = path
    else {
        return Ok(());
    };
    let [va, vb, vc] = [0, 1, 2].map(|k| g.ops[o].operands[k]);
    let old = g.ops[o].results[0];
    let old_ty = g.values[old].ty.clone();
    let mut bld = Builder { g, before: o };
    let c2 = bld.convert_and_cast(vc, result, acc)?;
    let a2 = bld.convert_and_cast(va, a, a_elem)?;
    let b2 = bld.convert_and_cast(vb, b, b_elem)?;
    let new_ty = retyped(&old_ty, acc, Some(result));
    let at = bld.g.position(o);
    let dot = match new {
        NewDot::Dot | NewDot::Scaled => bld.g.insert_like(o, at, vec![a2, b2, c2], vec![new_ty]),
        NewDot::DotFromScaled => bld
            .g
            .insert_text(
                at,
                "tt.dot",
                vec![a2, b2, c2],
                vec![new_ty],
                "$r = tt.dot $0, $1, $2 : $t0 * $t1 -> $rt0",
            )
            .map_err(|e| PassError::new(bld.g, Some(o), &e.message))?,
        NewDot::ScaledFromDot { lhs, rhs } => {
            let format = format!(
                "$r = tt.dot_scaled $0, $1, $2 lhs = {lhs} rhs = {rhs} {{fastMath = false}} : $t0 * $t1 -> $rt0"
            );
            let d = bld
                .g
                .insert_text(at, "tt.dot_scaled", vec![a2, b2, c2], vec![new_ty], &format)
                .map_err(|e| PassError::new(bld.g, Some(o), &e.message))?;
            bld.g.ops[d].attrs = vec![
                ("lhs".into(), AttrValue::Raw((*lhs).into())),
                ("rhs".into(), AttrValue::Raw((*rhs).into())),
                ("fastMath".into(), AttrValue::Int(0)),
            ];
            d
        }
    };
    let r = bld.g.ops[dot].results[0];
    let old_enc = old_ty
        .encoding
        .clone()
        .ok_or_else(|| bld.err("the dot's result has no layout"))?;
    let back = bld.convert_and_cast(r, &old_enc, &old_ty.element)?;
    g.replace_all_uses(old, back);
    g.erase_op(o);
    Ok(())
}

/// Rewrites dot `o` to FMA's common type.
fn rewrite_fma(g: &mut Graph, o: OpId, common: &str) -> Result<(), PassError> {
    let [va, vb, vc] = [0, 1, 2].map(|k| g.ops[o].operands[k]);
    let old = g.ops[o].results[0];
    let old_ty = g.values[old].ty.clone();
    let mut bld = Builder { g, before: o };
    let a2 = bld.cast_to(va, common)?;
    let b2 = bld.cast_to(vb, common)?;
    let c2 = bld.cast_to(vc, common)?;
    let at = bld.g.position(o);
    let new_ty = retyped(&old_ty, common, None);
    let dot = bld.g.insert_like(o, at, vec![a2, b2, c2], vec![new_ty]);
    let r = bld.g.ops[dot].results[0];
    let back = bld.cast_to(r, &old_ty.element)?;
    g.replace_all_uses(old, back);
    g.erase_op(o);
    // A constant only a folded cast read is dead now: the rewriter erases it.
    for v in [va, vb, vc] {
        if let Some(d) = g.def_op(v)
            && g.ops[d].name == "arith.constant"
            && !g.ops[d].erased
            && g.uses(v).is_empty()
        {
            g.erase_op(d);
        }
    }
    Ok(())
}

/// Triton's `decomposeMixedModeDotOp`: matrix-core dots whose A and B types differ.
fn promote_mixed(g: &mut Graph) -> Result<(), PassError> {
    for o in g.walk() {
        if g.ops[o].name != "tt.dot" || g.ops[o].operands.len() < 2 || g.ops[o].results.is_empty() {
            continue;
        }
        let (va, vb) = (g.ops[o].operands[0], g.ops[o].operands[1]);
        let (a, b) = (g.values[va].ty.element.clone(), g.values[vb].ty.element.clone());
        let to = match g.encoding(g.ops[o].results[0]).map(|e| &**e) {
            Some(Encoding::AmdMfma(_)) => {
                let max = bits(&a).max(bits(&b));
                if max == 8 || a == b {
                    continue;
                }
                if max < 16 {
                    "f16".to_string()
                } else if max <= 32 {
                    "f32".to_string()
                } else {
                    return Err(PassError::new(
                        g,
                        Some(o),
                        "Triton has no promotion for these mixed operand types",
                    ));
                }
            }
            Some(Encoding::AmdWmma(_)) => {
                if a == b {
                    continue;
                }
                if bits(&a) > bits(&b) { a.clone() } else { b.clone() }
            }
            _ => continue,
        };
        if !is_float(&a) || !is_float(&b) || !is_float(&to) {
            return Err(PassError::new(
                g,
                Some(o),
                "promoting integer operands with tt.fp_to_fp does not verify in Triton",
            ));
        }
        let mut bld = Builder { g, before: o };
        let mut promoted = Vec::new();
        for v in [va, vb] {
            let ty = retyped(&bld.g.values[v].ty, &to, None);
            promoted.push(bld.text("tt.fp_to_fp", v, ty, "$r = tt.fp_to_fp $0 : $t0 -> $rt0")?);
        }
        g.ops[o].operands[0] = promoted[0];
        g.ops[o].operands[1] = promoted[1];
    }
    Ok(())
}

/// Triton 3.6's `tritonamdgpu-accelerate-matmul` on `g` for target `arch` with `kpack` and
/// `nonkdim` (`matrix_instr_nonkdim`, 0 for the heuristic), in place: every dot moves to the
/// instruction [`accelerate_module`] chose (MFMA, WMMA, gfx950's scaled MFMA, or FMA in a
/// common type), with the converts and casts Triton inserts, and the greedy rewriter's cleanup
/// of the module. `m` is the module `g` was read from. A `tt.dot_scaled` that Triton rewrites
/// with its scales, decomposes, or maps to WMMA is refused in one line naming the op, as is a
/// module Triton fails on; on an error nothing has changed.
///
/// ```
/// use linear_layout::heuristics::propagation::accelerate_matmul;
/// use linear_layout::ttgir::{graph::Graph, Module};
/// let text = r#"
/// #bl = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]}>
/// module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @f(%a: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #bl}>>, %b: tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #bl}>>, %p: tensor<64x64x!tt.ptr<f32>, #bl>) {
///     %c = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #bl>
///     %d = tt.dot %a, %b, %c : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #bl}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #bl}>> -> tensor<64x64xf32, #bl>
///     tt.store %p, %d : tensor<64x64x!tt.ptr<f32>, #bl>
///     tt.return
///   }
/// }"#;
/// let (m, mut g) = (Module::parse(text)?, Graph::parse(text)?);
/// accelerate_matmul(&mut g, &m, "gfx942", 1, 0)?;
/// let out = g.print()?;
/// let mfma = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>";
/// assert!(out.contains(&format!("-> tensor<64x64xf32, {mfma}>")), "{out}");
/// assert!(out.contains("kWidth = 4"), "{out}");
/// assert_eq!(out.matches("ttg.convert_layout").count(), 4, "{out}"); // C, A, B in; D out
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn accelerate_matmul(
    g: &mut Graph,
    m: &Module,
    arch: &str,
    kpack: u32,
    nonkdim: u32,
) -> Result<(), PassError> {
    super::bounded(g)?;
    let decisions = accelerate_module(m, arch, kpack, nonkdim).map_err(|e| from_heuristic(g, &e))?;
    let mut plans = Vec::new();
    for d in decisions.decided.iter() {
        if !same_op(g, m, d.op) {
            return Err(PassError {
                line: d.line,
                op: m.ops.get(d.op).map_or(String::new(), |o| o.name.clone()),
                message: "the graph is not the module the decisions were made for".into(),
                limit: None,
            });
        }
        if let Some(p) = plan(g, m, d)? {
            plans.push((d.op, p));
        }
    }
    let mut w = g.clone();
    for (o, p) in &plans {
        if matches!(p, Path::Matrix { .. }) {
            rewrite_matrix(&mut w, *o, p)?;
        }
    }
    canonicalize(&mut w, Patterns::None);
    for (o, p) in &plans {
        if let Path::Fma { common } = p {
            if w.ops[*o].erased {
                // A dead dot is erased, not rewritten.
                continue;
            }
            rewrite_fma(&mut w, *o, common)?;
        }
    }
    canonicalize(&mut w, Patterns::None);
    promote_mixed(&mut w)?;
    *g = w;
    Ok(())
}
