//! `tritongpu-F32DotTC`: an f32 dot asked for in a split precision becomes several dots of
//! narrower operands.
//!
//! A matrix instruction of bf16 operands keeps 8 bits of each f32 mantissa. Splitting
//! `a = hi + mid (+ lo)`, each part a bf16 (`hi = bf16(a)`, `mid = bf16(a - hi)`, …), and
//! summing the partial products that matter gives close to f32 accuracy at bf16 speed:
//!
//! ```text
//! tt.dot %a, %b, %c, inputPrecision = bf16x3       (f32 × f32)
//! ```
//!
//! becomes, with `a_hi = truncf a`, `a_mid = truncf(a - extf a_hi)` and the same for `b`:
//!
//! ```text
//! %d1 = tt.dot a_mid, b_hi, 0
//! %d2 = tt.dot a_hi, b_mid, %d1
//! %d3 = select(isnan %d2, 0, %d2)        (an infinity times a zero part is not a NaN of a·b)
//! %d4 = tt.dot a_hi, b_hi, %d3
//! %r  = arith.addf %d4, %c
//! ```
//!
//! `bf16x6` splits in three and adds the three products of the next order first. With TF32
//! emulation (`tf32x3`, NVIDIA only: the split is PTX's `cvt.rna.tf32.f32`) the same scheme runs
//! on TF32 dots. Triton's AMD pipeline runs the pass without TF32 emulation.

use crate::ttgir::graph::{Graph, InsertPoint, OpId, ValueId};
use crate::ttgir::{AttrValue, ValueType, attr};

use super::PassError;
use super::cleanup;

/// Triton 3.6's `tritongpu-F32DotTC` on `g`: dots of f32 operands with `inputPrecision =
/// bf16x3` or `bf16x6` (and `tf32x3` when `emu_tf32`) are split into bf16 (TF32) dots, then the
/// greedy rewriter's cleanups run.
///
/// ```
/// use linear_layout::heuristics::propagation::f32_dot_tc;
/// use linear_layout::ttgir::graph::Graph;
/// let text = r#"
/// module {
///   tt.func @k(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
///     %d = tt.dot %a, %b, %c, inputPrecision = bf16x3 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
///     tt.return %d : tensor<16x16xf32>
///   }
/// }"#;
/// let mut g = Graph::parse(text)?;
/// f32_dot_tc(&mut g, false)?;
/// let out = g.print()?;
/// assert_eq!(out.matches("tt.dot").count(), 3, "{out}");
/// assert!(out.contains("tensor<16x16xbf16> * tensor<16x16xbf16> -> tensor<16x16xf32>"), "{out}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn f32_dot_tc(g: &mut Graph, emu_tf32: bool) -> Result<(), PassError> {
    super::bounded(g)?;
    let dots: Vec<OpId> = g
        .walk()
        .into_iter()
        .filter(|&o| g.ops[o].name == "tt.dot")
        .collect();
    for dot in dots {
        let precision = match attr(&g.ops[dot].attrs, "inputPrecision") {
            Some(AttrValue::Raw(p)) => p.clone(),
            _ => String::from("ieee"),
        };
        let o = &g.ops[dot];
        let f32_operands = o
            .operands
            .iter()
            .take(2)
            .all(|&v| g.values[v].ty.element == "f32");
        if !f32_operands {
            continue;
        }
        let result = match precision.as_str() {
            "bf16x3" => bf16_split(g, dot, 2),
            "bf16x6" => bf16_split(g, dot, 3),
            "tf32x3" if emu_tf32 => tf32_split(g, dot),
            _ => continue,
        }
        .map_err(|e| PassError::new(g, Some(dot), &e))?;
        g.note(dot, format_args!("split into narrower dots ({precision})"));
        let old = g.ops[dot].results[0];
        g.replace_all_uses(old, result);
        g.erase_op(dot);
    }
    cleanup::canonicalize(g, cleanup::Patterns::None);
    Ok(())
}

/// Builds ops right before one op (the rewrites that replace one op by several share it).
pub(super) struct Before<'g> {
    pub(super) g: &'g mut Graph,
    pub(super) op: OpId,
}

impl Before<'_> {
    fn at(&self) -> InsertPoint {
        self.g.position(self.op)
    }

    /// One new op of one result, printed from `format` (see [`Graph::insert_text`]).
    pub(super) fn op(
        &mut self,
        name: &str,
        operands: Vec<ValueId>,
        ty: ValueType,
        format: &str,
    ) -> Result<ValueId, String> {
        let at = self.at();
        let op = self
            .g
            .insert_text(at, name, operands, vec![ty], format)
            .map_err(|e| e.message)?;
        Ok(self.g.ops[op].results[0])
    }

    pub(super) fn ty(&self, v: ValueId) -> ValueType {
        self.g.values[v].ty.clone()
    }

    pub(super) fn with_element(&self, v: ValueId, element: &str) -> ValueType {
        ValueType {
            element: element.to_string(),
            ..self.ty(v)
        }
    }

    fn truncf(&mut self, v: ValueId, element: &str) -> Result<ValueId, String> {
        let ty = self.with_element(v, element);
        self.op("arith.truncf", vec![v], ty, "$r = arith.truncf $0 : $t0 to $rt0")
    }

    fn extf(&mut self, v: ValueId, element: &str) -> Result<ValueId, String> {
        let ty = self.with_element(v, element);
        self.op("arith.extf", vec![v], ty, "$r = arith.extf $0 : $t0 to $rt0")
    }

    pub(super) fn binary(&mut self, name: &str, a: ValueId, b: ValueId) -> Result<ValueId, String> {
        let ty = self.ty(a);
        self.op(name, vec![a, b], ty, &format!("$r = {name} $0, $1 : $rt0"))
    }

    /// A zero of `v`'s type: the dense constant Triton's splat of `0.0` folds to.
    fn zero_like(&mut self, v: ValueId) -> Result<ValueId, String> {
        let ty = self.ty(v);
        self.op(
            "arith.constant",
            Vec::new(),
            ty,
            "$r = arith.constant dense<0.000000e+00> : $rt0",
        )
    }

    /// `tt.dot a, b, acc` with the given precision and imprecise-accumulation bound (printed
    /// only when not the defaults, `ieee` and 0).
    pub(super) fn dot(
        &mut self,
        a: ValueId,
        b: ValueId,
        acc: ValueId,
        precision: &str,
        imprecise: &str,
    ) -> Result<ValueId, String> {
        let ty = self.ty(acc);
        let mut extra = String::new();
        if precision != "ieee" {
            extra.push_str(&format!(", inputPrecision = {precision}"));
        }
        if !imprecise.is_empty() && imprecise != "0" {
            extra.push_str(&format!(", maxNumImpreciseAcc = {imprecise}"));
        }
        self.op(
            "tt.dot",
            vec![a, b, acc],
            ty,
            &format!("$r = tt.dot $0, $1, $2{extra} : $t0 * $t1 -> $rt0"),
        )
    }

    /// `name predicate, a, b` (`arith.cmpf uno`, `arith.cmpi eq`): a mask of `a`'s shape.
    pub(super) fn compare(
        &mut self,
        name: &str,
        predicate: &str,
        a: ValueId,
        b: ValueId,
    ) -> Result<ValueId, String> {
        let mask_ty = self.with_element(a, "i1");
        self.op(
            name,
            vec![a, b],
            mask_ty,
            &format!("$r = {name} {predicate}, $0, $1 : $t0"),
        )
    }

    /// `arith.select mask, a, b`.
    pub(super) fn select(&mut self, mask: ValueId, a: ValueId, b: ValueId) -> Result<ValueId, String> {
        let ty = self.ty(a);
        self.op(
            "arith.select",
            vec![mask, a, b],
            ty,
            "$r = arith.select $0, $1, $2 : $t0, $rt0",
        )
    }

    /// `select(isnan v, 0, v)`.
    fn nans_to_zero(&mut self, v: ValueId) -> Result<ValueId, String> {
        let nans = self.compare("arith.cmpf", "uno", v, v)?;
        let zero = self.zero_like(v)?;
        self.select(nans, zero, v)
    }

    /// `v` rounded to TF32 (PTX's `cvt.rna.tf32.f32`, as inline assembly).
    fn tf32(&mut self, v: ValueId) -> Result<ValueId, String> {
        let ty = self.ty(v);
        self.op(
            "tt.elementwise_inline_asm",
            vec![v],
            ty,
            "$r = tt.elementwise_inline_asm \"cvt.rna.tf32.f32 $$0, $$1;\" {constraints = \"=r,r\", packed_element = 1 : i32, pure = true} $0 : $t0 -> $rt0",
        )
    }

    /// `v` as `parts` bf16 values, most significant first.
    fn split_bf16(&mut self, mut v: ValueId, parts: usize) -> Result<Vec<ValueId>, String> {
        let mut out = Vec::new();
        for k in 0..parts {
            let part = self.truncf(v, "bf16")?;
            if k + 1 < parts {
                let back = self.extf(part, "f32")?;
                v = self.binary("arith.subf", v, back)?;
            }
            out.push(part);
        }
        Ok(out)
    }
}

/// The `bf16x3` (`parts` = 2) or `bf16x6` (3) decomposition of `dot`; returns its new result.
fn bf16_split(g: &mut Graph, dot: OpId, parts: usize) -> Result<ValueId, String> {
    let (a, b, c) = operands(g, dot)?;
    let mut at = Before { g, op: dot };
    let lhs = at.split_bf16(a, parts)?;
    let rhs = at.split_bf16(b, parts)?;
    let (hi, mid, lo) = (0, 1, 2);
    let mut acc = at.zero_like(c)?;
    if parts == 3 {
        acc = at.dot(lhs[mid], rhs[mid], acc, "ieee", "")?;
        acc = at.dot(lhs[lo], rhs[hi], acc, "ieee", "")?;
        acc = at.dot(lhs[hi], rhs[lo], acc, "ieee", "")?;
    }
    acc = at.dot(lhs[mid], rhs[hi], acc, "ieee", "")?;
    acc = at.dot(lhs[hi], rhs[mid], acc, "ieee", "")?;
    acc = at.nans_to_zero(acc)?;
    acc = at.dot(lhs[hi], rhs[hi], acc, "ieee", "")?;
    at.binary("arith.addf", acc, c)
}

/// The `tf32x3` decomposition of `dot` (TF32 parts by PTX's rounding); returns its new result.
fn tf32_split(g: &mut Graph, dot: OpId) -> Result<ValueId, String> {
    let (a, b, c) = operands(g, dot)?;
    let imprecise = match attr(&g.ops[dot].attrs, "maxNumImpreciseAcc") {
        Some(AttrValue::Int(n)) => n.to_string(),
        Some(AttrValue::Raw(n)) => n.clone(),
        _ => String::new(),
    };
    let mut at = Before { g, op: dot };
    let a_big = at.tf32(a)?;
    let a_small = at.binary("arith.subf", a, a_big)?;
    let b_big = at.tf32(b)?;
    let b_small = at.binary("arith.subf", b, b_big)?;
    let zero = at.zero_like(c)?;
    let d1 = at.dot(a_small, b_big, zero, "tf32", &imprecise)?;
    let d2 = at.dot(a_big, b_small, d1, "tf32", &imprecise)?;
    let d2 = at.nans_to_zero(d2)?;
    let d3 = at.dot(a_big, b_big, d2, "tf32", &imprecise)?;
    at.binary("arith.addf", d3, c)
}

fn operands(g: &Graph, dot: OpId) -> Result<(ValueId, ValueId, ValueId), String> {
    match g.ops[dot].operands[..] {
        [a, b, c, ..] if !g.ops[dot].results.is_empty() => Ok((a, b, c)),
        _ => Err("a dot needs three operands and a result".to_string()),
    }
}
