//! `tt.map_elementwise` (`tl.map_elementwise`): a scalar function applied to a tensor's
//! elements, `pack` at a time.
//!
//! Every operand and result has the same layout, so a thread's registers line up: call `g`
//! takes registers `g·pack … g·pack + pack − 1` of each operand (block argument `i·pack + j` is
//! operand `i`'s element `j`) and returns as many of each result (returned value `r·pack + j`
//! is result `r`'s element `j`) — Triton's order. The body is lowered once per call on
//! scalars in registers, each thread's own: a branch on one of them parts the threads
//! ([`BranchCondition::PerThread`](crate::lower::BranchCondition::PerThread)), a loop carries
//! its values in registers and runs, in each thread, until that thread's test fails. An early
//! `return` in the function makes the body several blocks ([`blocks`](super::blocks)), whose
//! paths each return their scalars. The body computes on scalars only: a memory access or a
//! tensor op in it is refused at its line.
//!
//! # Worked example
//!
//! ```text
//! @triton.jit
//! def selu(x, alpha):
//!     if x > 0:
//!         return x
//!     return alpha * (tl.exp(x) - 1)
//! y = tl.map_elementwise(selu, x, alpha)      # x: 256 f32, one per thread of 4 warps
//! ```
//!
//! is a body of three blocks (`cf.cond_br` on `x > 0`, the exponential, the join), so each
//! thread runs `If { cond: PerThread(x > 0), then: [], otherwise: [exp, sub, mul] }` and keeps
//! its own result: LLVM masks the lanes whose `x` is positive around the exponential, and a
//! wave whose elements are all positive skips it.

use super::blocks::Blocks;
use super::data::numeric_type;
use super::{Lowering, Sym, fail};
use crate::lower::error::LowerError;
use crate::lower::ir::Value;
use crate::ttgir::{AttrValue, Op, attr};

/// Whether an op may sit in a mapped scalar function: arithmetic, math, control flow and
/// element-wise library calls on scalars.
fn scalar_op(name: &str) -> bool {
    ["arith.", "math.", "scf.", "cf."]
        .iter()
        .any(|p| name.starts_with(p))
        || matches!(
            name,
            "tt.map_elementwise.return"
                | "tt.extern_elementwise"
                | "tt.precise_sqrt"
                | "tt.precise_divf"
                | "tt.mulhiui"
                | "tt.clampf"
                | "tt.fp_to_fp"
                | "tt.bitcast"
                | "ub.poison"
        )
}

impl Lowering<'_> {
    pub(super) fn map_elementwise(&mut self, op: &Op) -> Result<(), LowerError> {
        let pack = match attr(&op.attrs, "pack") {
            Some(AttrValue::Int(n)) if *n >= 1 => *n as usize,
            None => 1,
            Some(_) => return fail(op, "pack must be a positive integer"),
        };
        self.check_scalar_body(&op.body)?;
        let Some(&first) = op.results.first() else {
            return fail(op, "has no result");
        };
        let arguments = op.operands.len() * pack;
        if op.block_args.len() < arguments {
            return fail(
                op,
                format!(
                    "a function of {} arguments for {arguments} elements",
                    op.block_args.len()
                ),
            );
        }
        let (layout, registers, operands) = self.grouped_operands(op, first, ("pack", pack))?;
        let mut returns = Vec::with_capacity(op.results.len() * pack);
        for &r in &op.results {
            if numeric_type(&self.m.values[r].ty.element).is_none() {
                return fail(
                    op,
                    format!("a result of {}: not a number", self.m.values[r].ty.element),
                );
            }
            if self.layout(op, r)? != layout {
                return fail(op, "results in different layouts");
            }
            returns.extend(std::iter::repeat_n(self.bits(op, r)?, pack));
        }
        let body = Blocks {
            body: &op.body,
            blocks: &op.blocks,
            returns: &returns,
        };
        let mut results: Vec<Vec<Value>> = vec![Vec::with_capacity(registers); op.results.len()];
        let was_divergent = std::mem::replace(&mut self.divergent, true);
        for g in (0..registers).step_by(pack) {
            for (i, values) in operands.iter().enumerate() {
                for j in 0..pack {
                    self.syms[op.block_args[i * pack + j]] = Some(Sym::Lanes(values[g + j]));
                }
            }
            let returned = self.lower_blocks(body)?;
            let Some(returned) = returned else {
                return fail(op, "its function returns from the kernel");
            };
            for (r, result) in results.iter_mut().enumerate() {
                result.extend_from_slice(&returned[r * pack..(r + 1) * pack]);
            }
        }
        self.divergent = was_divergent;
        for (i, values) in results.into_iter().enumerate() {
            let layout = Box::new(layout.clone());
            self.define_result(op, i, Sym::Data { layout, values })?;
        }
        Ok(())
    }

    /// Refuses, at its line, an op of a mapped function's body (or of a region in it) that is
    /// not a computation on scalars.
    fn check_scalar_body(&self, body: &[usize]) -> Result<(), LowerError> {
        for &i in body {
            let inner = &self.m.ops[i];
            if !scalar_op(&inner.name) {
                return fail(
                    inner,
                    "in a mapped function, only computations on scalars are lowered (a memory access or a tensor op is not)",
                );
            }
            self.check_scalar_body(&inner.body)?;
        }
        Ok(())
    }
}
