//! A function body of several blocks: Triton's early returns.
//!
//! `if slot < 0: return` cannot be an `scf.if` (a region does not return from the function),
//! so Triton splits the body into blocks joined by `cf.cond_br` / `cf.br`, each ending in a
//! branch or `tt.return`. Such a graph without cycles is structured again here: a block's ops
//! lower in order; `cf.br ^b(args)` goes on with block `b`, its arguments the values passed;
//! `cf.cond_br %c, ^a, ^b` becomes an [`If`](crate::lower::Op::If) whose arms lower `a` and
//! `b` the same way (a block both reach is lowered in each: what a block defines is only seen
//! by the blocks it dominates, and the copies never meet).
//!
//! # Worked example
//!
//! `slot = tl.load(slots + tok); if slot < 0: return; …copy…` is block 0 (the load, the
//! compare, `cf.cond_br %neg, ^bb1, ^bb2`), block 1 (`tt.return`) and block 2 (the copy,
//! `tt.return`): the program loads the slot, then runs `If { cond: slot < 0, then: [],
//! otherwise: [the copy] }` — its test a scalar every thread holds, made uniform.

use super::{Lowering, fail};
use crate::lower::error::LowerError;
use crate::lower::ir::Op as ProgramOp;
use crate::ttgir::Func;

/// Most blocks one body lowers (blocks reached by both arms of a branch count each time).
const MAX_BLOCK_LOWERINGS: usize = 256;

impl Lowering<'_> {
    /// Lowers the body of `func`, of one block or several.
    pub(super) fn lower_body(&mut self, func: &Func) -> Result<(), LowerError> {
        if func.blocks.is_empty() {
            for &i in &func.body {
                if !self.op(i)? {
                    break;
                }
            }
            return Ok(());
        }
        let mut budget = MAX_BLOCK_LOWERINGS;
        self.lower_block(func, 0, &mut Vec::new(), &mut budget)
    }

    /// Lowers block `b` and what it branches to; `path` holds the blocks being lowered around
    /// it (a branch back to one is a loop of blocks, which is refused).
    fn lower_block(
        &mut self,
        func: &Func,
        b: usize,
        path: &mut Vec<usize>,
        budget: &mut usize,
    ) -> Result<(), LowerError> {
        let ops = block_ops(func, b);
        let Some((&last, inner)) = ops.split_last() else {
            return Err(LowerError::new(format!(
                "block {} has no terminator",
                func.blocks[b].label
            )));
        };
        if *budget == 0 {
            let op = &self.m.ops[last];
            return fail(
                op,
                format!("the body's blocks lower more than {MAX_BLOCK_LOWERINGS} times"),
            );
        }
        *budget -= 1;
        path.push(b);
        for &i in inner {
            if !self.op(i)? {
                // A return before the block's end: the rest never runs.
                path.pop();
                return Ok(());
            }
        }
        let op = &self.m.ops[last];
        match op.name.as_str() {
            "cf.br" | "cf.cond_br" => {
                let conditional = op.name == "cf.cond_br";
                let mut passed = &op.operands[usize::from(conditional).min(op.operands.len())..];
                let mut targets = Vec::new();
                for s in &op.successors {
                    let Some(t) = func.blocks.iter().position(|x| x.label == s.block) else {
                        return fail(op, format!("branches to {}, which the function has not", s.block));
                    };
                    if path.contains(&t) {
                        return fail(
                            op,
                            format!("branches back to {}: a loop of blocks is not lowered", s.block),
                        );
                    }
                    if s.operands > passed.len() || func.blocks[t].args.len() != s.operands {
                        return fail(
                            op,
                            format!(
                                "passes {} values to {}'s {} arguments",
                                s.operands,
                                s.block,
                                func.blocks[t].args.len()
                            ),
                        );
                    }
                    let (now, rest) = passed.split_at(s.operands);
                    targets.push((t, now.to_vec()));
                    passed = rest;
                }
                if targets.len() != if conditional { 2 } else { 1 } {
                    return fail(op, "has another number of successors than its kind");
                }
                if !conditional {
                    let (t, args) = targets.remove(0);
                    self.bind_block_args(op, func, t, &args)?;
                    self.lower_block(func, t, path, budget)?;
                } else {
                    self.issue_pending(op)?;
                    let cond = self.branch_condition(op)?;
                    let mut arms = Vec::new();
                    for (t, args) in targets {
                        // What an arm defines is seen by its blocks only.
                        let (outside, start) = (self.syms.clone(), self.p.ops.len());
                        self.bind_block_args(op, func, t, &args)?;
                        self.lower_block(func, t, path, budget)?;
                        arms.push(self.p.ops.split_off(start));
                        self.syms = outside;
                    }
                    let otherwise = arms.pop().unwrap_or_default();
                    let then = arms.pop().unwrap_or_default();
                    self.p.ops.push(ProgramOp::If {
                        cond,
                        then,
                        otherwise,
                        results: Vec::new(),
                    });
                }
            }
            _ => {
                self.op(last)?;
            }
        }
        path.pop();
        Ok(())
    }

    /// Block `t`'s arguments take the symbols of the values passed to them.
    fn bind_block_args(
        &mut self,
        op: &crate::ttgir::Op,
        func: &Func,
        t: usize,
        args: &[usize],
    ) -> Result<(), LowerError> {
        for (&arg, &v) in func.blocks[t].args.iter().zip(args) {
            let sym = self.sym(op, v)?.clone();
            self.syms[arg] = Some(sym);
        }
        Ok(())
    }
}

/// The ops of block `b` of `func`'s body, its terminator last.
fn block_ops(func: &Func, b: usize) -> &[usize] {
    let start = func.blocks[b].start.min(func.body.len());
    let end = func
        .blocks
        .get(b + 1)
        .map_or(func.body.len(), |n| n.start)
        .clamp(start, func.body.len());
    &func.body[start..end]
}
