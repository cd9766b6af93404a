//! A body of several blocks: Triton's early returns, in a function or in a scalar function
//! mapped over elements.
//!
//! `if slot < 0: return` cannot be an `scf.if` (a region does not return from the function),
//! so Triton splits the body into blocks joined by `cf.cond_br` / `cf.br`, each ending in a
//! branch or `tt.return`. Such a graph without cycles is structured again here: a block's ops
//! lower in order; `cf.br ^b(args)` goes on with block `b`, its arguments the values passed;
//! `cf.cond_br %c, ^a, ^b` becomes an [`If`](crate::lower::Op::If) whose arms lower `a` and
//! `b` the same way (a block both reach is lowered in each: what a block defines is only seen
//! by the blocks it dominates, and the copies never meet). A mapped function's blocks end in
//! `tt.map_elementwise.return`: each path returns its scalars, and the `If` joins them as its
//! results.
//!
//! # Worked example
//!
//! `slot = tl.load(slots + tok); if slot < 0: return; …copy…` is block 0 (the load, the
//! compare, `cf.cond_br %neg, ^bb1, ^bb2`), block 1 (`tt.return`) and block 2 (the copy,
//! `tt.return`): the program loads the slot, then runs `If { cond: slot < 0, then: [],
//! otherwise: [the copy] }` — its test a scalar every thread holds, made uniform.

use super::{Lowering, fail};
use crate::lower::error::LowerError;
use crate::lower::ir::{Op as ProgramOp, Value};
use crate::ttgir::FuncBlock;

/// Most blocks one body lowers (blocks reached by both arms of a branch count each time).
const MAX_BLOCK_LOWERINGS: usize = 256;

/// A body of blocks: a function's, or a region's (a mapped scalar function's).
#[derive(Clone, Copy)]
pub(super) struct Blocks<'m> {
    /// Its ops, block after block.
    pub body: &'m [usize],
    /// Its blocks (none: one block, the whole body).
    pub blocks: &'m [FuncBlock],
    /// The widths of the scalars a mapped function returns (empty for a function).
    pub returns: &'m [u32],
}

impl Blocks<'_> {
    /// The ops of block `b`, its terminator last.
    fn ops(&self, b: usize) -> &[usize] {
        let Some(block) = self.blocks.get(b) else {
            return if b == 0 { self.body } else { &[] };
        };
        let start = block.start.min(self.body.len());
        let end = self
            .blocks
            .get(b + 1)
            .map_or(self.body.len(), |n| n.start)
            .clamp(start, self.body.len());
        &self.body[start..end]
    }
}

impl Lowering<'_> {
    /// Lowers the body of `func`, of one block or several.
    pub(super) fn lower_body(&mut self, func: &crate::ttgir::Func) -> Result<(), LowerError> {
        if func.blocks.is_empty() {
            for &i in &func.body {
                if !self.op(i)? {
                    break;
                }
            }
            return Ok(());
        }
        let body = Blocks {
            body: &func.body,
            blocks: &func.blocks,
            returns: &[],
        };
        self.lower_blocks(body).map(|_| ())
    }

    /// Lowers `body` from its entry block: the scalars its paths return (`None` where they
    /// return from the function).
    pub(super) fn lower_blocks(&mut self, body: Blocks) -> Result<Option<Vec<Value>>, LowerError> {
        let mut budget = MAX_BLOCK_LOWERINGS;
        self.lower_block(body, 0, &mut Vec::new(), &mut budget)
    }

    /// Lowers block `b` and what it branches to; `path` holds the blocks being lowered around
    /// it (a branch back to one is a loop of blocks, which is refused).
    fn lower_block(
        &mut self,
        body: Blocks,
        b: usize,
        path: &mut Vec<usize>,
        budget: &mut usize,
    ) -> Result<Option<Vec<Value>>, LowerError> {
        let ops = body.ops(b);
        let label = |b: usize| body.blocks.get(b).map_or("^bb0", |x| x.label.as_str());
        let Some((&last, inner)) = ops.split_last() else {
            return Err(LowerError::new(format!("block {} has no terminator", label(b))));
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
                return Ok(None);
            }
        }
        let op = &self.m.ops[last];
        let returned = match op.name.as_str() {
            "cf.br" | "cf.cond_br" => {
                let conditional = op.name == "cf.cond_br";
                let mut passed = &op.operands[usize::from(conditional).min(op.operands.len())..];
                let mut targets = Vec::new();
                for s in &op.successors {
                    let Some(t) = body.blocks.iter().position(|x| x.label == s.block) else {
                        return fail(op, format!("branches to {}, which the body has not", s.block));
                    };
                    if path.contains(&t) {
                        return fail(
                            op,
                            format!("branches back to {}: a loop of blocks is not lowered", s.block),
                        );
                    }
                    if s.operands > passed.len() || body.blocks[t].args.len() != s.operands {
                        return fail(
                            op,
                            format!(
                                "passes {} values to {}'s {} arguments",
                                s.operands,
                                s.block,
                                body.blocks[t].args.len()
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
                    self.bind_block_args(op, body, t, &args)?;
                    self.lower_block(body, t, path, budget)?
                } else {
                    self.issue_pending(op)?;
                    let cond = self.branch_condition(op)?;
                    let mut arms = Vec::new();
                    for (t, args) in targets {
                        // What an arm defines is seen by its blocks only.
                        let (outside, start) = (self.syms.clone(), self.p.ops.len());
                        self.bind_block_args(op, body, t, &args)?;
                        let returned = self.lower_block(body, t, path, budget)?;
                        arms.push((self.p.ops.split_off(start), returned));
                        self.syms = outside;
                    }
                    let (otherwise, b) = arms.pop().unwrap_or_default();
                    let (then, a) = arms.pop().unwrap_or_default();
                    let (results, joined) = match (a, b) {
                        (Some(a), Some(b)) => {
                            let dsts: Vec<Value> =
                                a.iter().map(|&v| self.p.value(self.p.value_bits(v))).collect();
                            let results = dsts.iter().zip(a.iter().zip(&b)).map(|(&d, (&x, &y))| [d, x, y]);
                            (results.collect(), Some(dsts))
                        }
                        (None, None) => (Vec::new(), None),
                        _ => {
                            return fail(
                                op,
                                "one arm returns from the function, the other from the mapped function",
                            );
                        }
                    };
                    self.p.ops.push(ProgramOp::If {
                        cond,
                        then,
                        otherwise,
                        results,
                    });
                    joined
                }
            }
            "tt.map_elementwise.return" => Some(self.returned_scalars(op, body.returns)?),
            _ => {
                self.op(last)?;
                None
            }
        };
        path.pop();
        Ok(returned)
    }

    /// Block `t`'s arguments take the symbols of the values passed to them.
    fn bind_block_args(
        &mut self,
        op: &crate::ttgir::Op,
        body: Blocks,
        t: usize,
        args: &[usize],
    ) -> Result<(), LowerError> {
        for (&arg, &v) in body.blocks[t].args.iter().zip(args) {
            let sym = self.sym(op, v)?.clone();
            self.syms[arg] = Some(sym);
        }
        Ok(())
    }
}
