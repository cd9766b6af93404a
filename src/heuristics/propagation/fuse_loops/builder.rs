//! Inserting ops one after the other, as MLIR's builder does: the fusion makes every op through
//! it, in Triton's order, so the fused module reads op for op like Triton's.

use crate::ttgir::graph::{BlockId, BlockOwner, Graph, InsertPoint, OpId, ValueId};
use crate::ttgir::{TypeKind, ValueType};

use super::super::PassError;
use super::*;

/// Inserts ops one after the other, as MLIR's builder does.
pub(super) struct Builder {
    pub(super) at: InsertPoint,
    /// The loop being rewritten, named when something cannot be built.
    pub(super) about: OpId,
}

impl Builder {
    /// Inserting in front of `op`.
    pub(super) fn new(g: &Graph, op: OpId) -> Builder {
        Builder {
            at: g.position(op),
            about: op,
        }
    }

    /// A builder for the same loop inserting at `at`.
    pub(super) fn to(&self, at: InsertPoint) -> Builder {
        Builder {
            at,
            about: self.about,
        }
    }

    pub(super) fn text(
        &mut self,
        g: &mut Graph,
        name: &str,
        operands: Vec<ValueId>,
        ty: ValueType,
        format: &str,
    ) -> Result<ValueId, PassError> {
        let op = g
            .insert_text(self.at, name, operands, vec![ty], format)
            .map_err(|e| PassError::new(g, Some(self.about), &e.message))?;
        self.at.index += 1;
        Ok(g.ops[op].results[0])
    }

    /// `a <name> b`, of `a`'s type.
    pub(super) fn binary(
        &mut self,
        g: &mut Graph,
        name: &str,
        a: ValueId,
        b: ValueId,
    ) -> Result<ValueId, PassError> {
        let ty = g.values[a].ty.clone();
        self.text(g, name, vec![a, b], ty, &format!("$r = {name} $0, $1 : $t0"))
    }

    pub(super) fn cmpi(
        &mut self,
        g: &mut Graph,
        predicate: &str,
        a: ValueId,
        b: ValueId,
    ) -> Result<ValueId, PassError> {
        let format = format!("$r = arith.cmpi {predicate}, $0, $1 : $t0");
        self.text(g, "arith.cmpi", vec![a, b], ValueType::scalar("i1"), &format)
    }

    pub(super) fn select(
        &mut self,
        g: &mut Graph,
        cond: ValueId,
        a: ValueId,
        b: ValueId,
    ) -> Result<ValueId, PassError> {
        let ty = g.values[a].ty.clone();
        self.text(
            g,
            "arith.select",
            vec![cond, a, b],
            ty,
            "$r = arith.select $0, $1, $2 : $t1",
        )
    }

    /// The integer constant `v` of scalar type `ty`.
    pub(super) fn int(&mut self, g: &mut Graph, v: i64, ty: &ValueType) -> Result<ValueId, PassError> {
        let literal = match ty.element.as_str() {
            "i1" if v == 0 => "false".to_string(),
            "i1" => "true".to_string(),
            e => format!("{v} : {e}"),
        };
        let format = format!("$r = arith.constant {literal}");
        self.text(g, "arith.constant", Vec::new(), ty.clone(), &format)
    }

    /// A value of type `ty` no live path reads: zero where the type has one, else poison.
    pub(super) fn zero_or_poison(&mut self, g: &mut Graph, ty: &ValueType) -> Result<ValueId, PassError> {
        let e = ty.element.as_str();
        let zero = if e == "i1" {
            Some("false")
        } else if is_float(e) {
            Some("0.000000e+00")
        } else {
            int_width(e).map(|_| "0")
        };
        let (name, format) = match (ty.kind, zero) {
            // MLIR writes an i1 constant without its type.
            (TypeKind::Scalar, Some("false")) => ("arith.constant", "$r = arith.constant false".to_string()),
            (TypeKind::Scalar, Some(z)) => ("arith.constant", format!("$r = arith.constant {z} : $rt0")),
            (TypeKind::Tensor, Some(z)) => {
                ("arith.constant", format!("$r = arith.constant dense<{z}> : $rt0"))
            }
            _ => ("ub.poison", "$r = ub.poison : $rt0".to_string()),
        };
        self.text(g, name, Vec::new(), ty.clone(), &format)
    }

    /// `v` as the integer type `ty` (sign-extended, truncated or cast from `index`).
    pub(super) fn cast(&mut self, g: &mut Graph, v: ValueId, ty: &ValueType) -> Result<ValueId, PassError> {
        let from = g.values[v].ty.element.clone();
        if from == ty.element {
            return Ok(v);
        }
        let name = if from == "index" || ty.element == "index" {
            "arith.index_cast"
        } else if int_width(&from) > int_width(&ty.element) {
            "arith.trunci"
        } else {
            "arith.extsi"
        };
        self.text(
            g,
            name,
            vec![v],
            ty.clone(),
            &format!("$r = {name} $0 : $t0 to $rt0"),
        )
    }

    /// `len(range(lb, ub, step))` = `(ub - lb) ceildiv step` (right for negative steps too).
    pub(super) fn trip_count(
        &mut self,
        g: &mut Graph,
        lb: ValueId,
        ub: ValueId,
        step: ValueId,
    ) -> Result<ValueId, PassError> {
        let diff = self.binary(g, "arith.subi", ub, lb)?;
        self.binary(g, "arith.ceildivsi", diff, step)
    }

    /// An `scf.if` with `then` and `else` blocks, still without yields.
    pub(super) fn if_op(
        &mut self,
        g: &mut Graph,
        cond: ValueId,
        result_tys: Vec<ValueType>,
    ) -> (OpId, BlockId, BlockId) {
        let op = g.insert_built(self.at, "scf.if", vec![cond], result_tys);
        self.at.index += 1;
        let then_block = g.new_block(BlockOwner::Op(op), Vec::new());
        let else_block = g.new_block(BlockOwner::Op(op), Vec::new());
        g.ops[op].regions = vec![vec![then_block], vec![else_block]];
        (op, then_block, else_block)
    }

    /// An `scf.for` with an empty body (induction variable of `lb`'s type).
    pub(super) fn for_op(
        &mut self,
        g: &mut Graph,
        bounds: [ValueId; 3],
        inits: Vec<ValueId>,
    ) -> (OpId, BlockId) {
        let tys = types(g, &inits);
        let operands = bounds.iter().copied().chain(inits).collect();
        let op = g.insert_built(self.at, "scf.for", operands, tys.clone());
        self.at.index += 1;
        let iv_ty = g.values[bounds[0]].ty.clone();
        let body = g.new_block(BlockOwner::Op(op), std::iter::once(iv_ty).chain(tys).collect());
        g.ops[op].regions = vec![vec![body]];
        (op, body)
    }
}
