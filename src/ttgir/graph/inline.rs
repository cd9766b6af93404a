//! Inlining: every `tt.call` replaced by the body of the function it calls.
//!
//! Triton keeps a helper marked `@triton.jit(noinline=True)` as a function of its own (it must
//! take scalars only) and the kernel calls it with `tt.call`; its AMD backend lowers the call to
//! a real one (`s_swappc_b64`, the arguments in registers). Layouts and code are the kernel's
//! business, so the compiler inlines: a call becomes a copy of the callee's ops with its
//! arguments bound to the call's operands, and the call's results become what the callee's
//! `tt.return` returns. The result computes the same values — the callee cannot see where it
//! was called from, it only has its arguments — in fewer instructions (no call, no saved
//! registers).
//!
//! ```text
//!   tt.func public @k(%x: f32) {                tt.func public @k(%x: f32) {
//!     %y = tt.call @twice(%x) : (f32) -> f32  ⇒    %ll1 = arith.addf %x, %x : f32
//!     …                                              … (uses of %y read %ll1)
//!   tt.func private @twice(%a: f32) -> f32 {
//!     %s = arith.addf %a, %a : f32
//!     tt.return %s : f32
//! ```
//!
//! A callee of several blocks — an early `return` (`if lim < 0: return v * 2.0`) makes Triton
//! branch between blocks with `cf.cond_br` — is copied structured, as the caller's block must
//! stay one: from its entry block on, each block's ops are copied in place, a `cf.br` goes on
//! with its target (its arguments bound to the values passed), a `cf.cond_br` becomes an
//! `scf.if` whose arms copy the two targets and yield what their paths return, and a
//! `tt.return` gives the values returned. A block both arms reach is copied in each; a branch
//! back to a block on the path (a loop of blocks) is refused.
//!
//! ```text
//!   tt.func private @f(%v: f32, %lim: f32) -> f32 {      %c = arith.cmpf olt, %lim, %zero
//!     %c = arith.cmpf olt, %lim, %zero                   %r = scf.if %c -> (f32) {
//!     cf.cond_br %c, ^bb1, ^bb2                    ⇒       %d = arith.mulf %v, %two
//!   ^bb1:                                                  scf.yield %d
//!     %d = arith.mulf %v, %two                           } else {
//!     tt.return %d : f32                                   %m = arith.minnumf …
//!   ^bb2:                                                  scf.yield %m
//!     %m = arith.minnumf …                               }
//!     tt.return %m : f32
//! ```
//!
//! Callees are inlined innermost first: a function's own calls are inlined before it is copied
//! into its callers, so each function is copied as it finally is. A function that calls itself,
//! directly or through others, cannot be inlined and is refused. What inlining adds is bounded
//! by [`MAX_VALUES`](crate::ttgir::MAX_VALUES), and the blocks one call copies by
//! [`MAX_BLOCK_COPIES`].

use std::collections::HashMap;

use super::{BlockOwner, Graph, InsertPoint, Item, OpId, ValueId};
use crate::limits::LimitExceeded;
use crate::ttgir::{AttrValue, MAX_VALUES, Module, TtgirError, attr};

/// Most blocks of a callee one call copies (a block both arms of a branch reach counts each
/// time).
pub const MAX_BLOCK_COPIES: usize = 256;

impl Graph {
    /// Reads `text` as [`Graph::parse_with_module`] does, every `tt.call` inlined where it has
    /// any (see [`Graph::inline_calls`]): the graph and module of one function, each op keeping
    /// the line it has in `text`.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let text = "module {\n  tt.func public @k(%x: i32) {\n    %y = tt.call @inc(%x) : (i32) -> i32\n    tt.return\n  }\n  tt.func private @inc(%a: i32) -> i32 {\n    %c = arith.constant 1 : i32\n    %s = arith.addi %a, %c : i32\n    tt.return %s : i32\n  }\n}";
    /// let (g, m) = Graph::parse_inlined(text)?;
    /// assert_eq!((g.funcs.len(), m.funcs.len()), (1, 1));
    /// let add = m.ops.iter().find(|o| o.name == "arith.addi").unwrap();
    /// assert_eq!(add.line, 8); // where the callee wrote it
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn parse_inlined(text: &str) -> Result<(Graph, Module), TtgirError> {
        let (mut g, m) = Graph::parse_with_module(text)?;
        if !m.ops.iter().any(|o| o.name == "tt.call") {
            return Ok((g, m));
        }
        g.inline_calls()?;
        g.read_again()
    }

    /// Inlines every `tt.call` (see the [module docs](self)) and drops the functions that were
    /// called; returns how many calls it inlined. A call of a function the module does not
    /// define, a recursive call, a callee of several blocks, or arguments or results that do not
    /// match the callee's are errors at the call's line.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse(r#"module {
    ///   tt.func public @k(%x: f32) {
    ///     %y = tt.call @"m.twice__fp32__"(%x) : (f32) -> f32
    ///     %z = arith.mulf %y, %y : f32
    ///     tt.return
    ///   }
    ///   tt.func private @"m.twice__fp32__"(%a: f32) -> f32 attributes {noinline = true} {
    ///     %s = arith.addf %a, %a : f32
    ///     tt.return %s : f32
    ///   }
    /// }"#)?;
    /// assert_eq!(g.inline_calls()?, 1);
    /// let text = g.print()?;
    /// assert!(!text.contains("tt.call") && !text.contains("twice"), "{text}");
    /// assert!(text.contains("= arith.addf %x, %x : f32"), "{text}");
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn inline_calls(&mut self) -> Result<usize, TtgirError> {
        let mut inlined = 0;
        let mut called = Vec::new();
        for f in self.callees_first()? {
            for call in self.calls_in(f) {
                let callee = self.callee_of(call)?;
                self.inline_call(call, callee)?;
                called.push(callee);
                inlined += 1;
            }
        }
        for f in called {
            let blocks = std::mem::take(&mut self.funcs[f].blocks);
            for b in blocks {
                for op in self.blocks[b].ops.clone() {
                    self.erase_op(op);
                }
            }
            self.items.retain(|item| *item != Item::Func(f));
        }
        Ok(inlined)
    }

    /// The functions in an order where each comes after every function it calls; a cycle of
    /// calls is an error at a call on it.
    fn callees_first(&self) -> Result<Vec<usize>, TtgirError> {
        // 0: not seen, 1: on the path being explored, 2: done.
        let mut state = vec![0u8; self.funcs.len()];
        let mut order = Vec::new();
        for root in 0..self.funcs.len() {
            if state[root] != 0 {
                continue;
            }
            state[root] = 1;
            // Depth-first without recursion: (function, its calls' callees still to visit).
            let mut stack = vec![(root, self.calls_in(root))];
            while let Some((f, pending)) = stack.last_mut() {
                let f = *f;
                let Some(call) = pending.pop() else {
                    state[f] = 2;
                    order.push(f);
                    stack.pop();
                    continue;
                };
                let callee = self.callee_of(call)?;
                match state[callee] {
                    0 => {
                        state[callee] = 1;
                        stack.push((callee, self.calls_in(callee)));
                    }
                    1 => {
                        return Err(self.error_at(
                            call,
                            format!(
                                "calls @{} recursively: a recursive function cannot be inlined",
                                self.funcs[callee].name
                            ),
                        ));
                    }
                    _ => {}
                }
            }
        }
        Ok(order)
    }

    /// The `tt.call` ops of function `f`, in walk order.
    fn calls_in(&self, f: usize) -> Vec<OpId> {
        let mut ops = Vec::new();
        for &b in &self.funcs[f].blocks {
            self.walk_block(b, &mut ops);
        }
        ops.retain(|&o| self.ops[o].name == "tt.call");
        ops
    }

    /// The function `call` calls.
    fn callee_of(&self, call: OpId) -> Result<usize, TtgirError> {
        let Some(AttrValue::Str(name)) = attr(&self.ops[call].attrs, "callee") else {
            return Err(self.error_at(call, "names no function".to_string()));
        };
        self.funcs
            .iter()
            .position(|f| f.name == *name)
            .ok_or_else(|| self.error_at(call, format!("calls @{name}, which the module does not define")))
    }

    /// Replaces `call` by a copy of `callee`'s body.
    fn inline_call(&mut self, call: OpId, callee: usize) -> Result<(), TtgirError> {
        let name = self.funcs[callee].name.clone();
        let Some(&entry) = self.funcs[callee].blocks.first() else {
            return Err(self.error_at(call, format!("calls @{name}, which has no body")));
        };
        let params = self.blocks[entry].args.clone();
        let operands = self.ops[call].operands.clone();
        if params.len() != operands.len() {
            return Err(self.error_at(
                call,
                format!(
                    "passes {} arguments to @{name}, which takes {}",
                    operands.len(),
                    params.len()
                ),
            ));
        }
        let results = self.ops[call].results.clone();
        let mut map: HashMap<usize, usize> = params.into_iter().zip(operands).collect();
        let mut copy = BlockCopy {
            call,
            callee,
            results: results.len(),
            path: Vec::new(),
            budget: MAX_BLOCK_COPIES,
        };
        let at = self.position(call);
        let (returned, _) = self.copy_block(&mut copy, 0, at, &mut map)?;
        for (r, v) in results.into_iter().zip(returned) {
            self.replace_all_uses(r, v);
        }
        self.erase_op(call);
        if self.values.len() > MAX_VALUES {
            let limit = LimitExceeded::new(
                "ttgir::MAX_VALUES",
                "values of one module",
                MAX_VALUES as u64,
                self.values.len() as u64,
            );
            return Err(self.error_at(call, String::new()).with_limit(limit));
        }
        Ok(())
    }

    /// Copies block `b` of the callee (and what it branches to) at `at`, its values mapped
    /// through `map`: the values its paths return, and where the copy ends.
    fn copy_block(
        &mut self,
        copy: &mut BlockCopy,
        b: usize,
        mut at: InsertPoint,
        map: &mut HashMap<usize, usize>,
    ) -> Result<(Vec<ValueId>, InsertPoint), TtgirError> {
        let (call, name) = (copy.call, self.funcs[copy.callee].name.clone());
        if copy.budget == 0 {
            return Err(self.error_at(
                call,
                format!("calls @{name}, whose blocks copy more than {MAX_BLOCK_COPIES} times"),
            ));
        }
        copy.budget -= 1;
        copy.path.push(b);
        let block = self.funcs[copy.callee].blocks[b];
        let body = self.blocks[block].ops.clone();
        let Some((&last, ops)) = body.split_last() else {
            return Err(self.error_at(call, format!("calls @{name}, which has an empty block")));
        };
        for &op in ops {
            self.clone_deep(op, at, map);
            at.index += 1;
        }
        let term = self.ops[last].clone();
        let returned = match term.name.as_str() {
            "tt.return" => {
                if term.operands.len() != copy.results {
                    return Err(self.error_at(
                        call,
                        format!(
                            "takes {} results from @{name}, which returns {}",
                            copy.results,
                            term.operands.len()
                        ),
                    ));
                }
                (mapped(map, &term.operands), at)
            }
            "cf.br" | "cf.cond_br" => {
                let conditional = term.name == "cf.cond_br";
                let mut passed = &term.operands[usize::from(conditional).min(term.operands.len())..];
                let mut targets = Vec::new();
                for s in &term.successors {
                    let blocks = &self.funcs[copy.callee].blocks;
                    // The entry block is `^bb0`, its label implicit.
                    let label = |k: usize| self.blocks[blocks[k]].label.as_deref().unwrap_or("^bb0");
                    let Some(t) = (0..blocks.len()).find(|&k| label(k) == s.block) else {
                        return Err(self.error_at(
                            call,
                            format!("calls @{name}, which branches to {}, a block it has not", s.block),
                        ));
                    };
                    let args = &self.blocks[blocks[t]].args;
                    if copy.path.contains(&t) || s.operands > passed.len() || args.len() != s.operands {
                        return Err(self.error_at(
                            call,
                            format!("calls @{name}, which branches back to {} or passes it another number of values: a loop of blocks is not inlined", s.block),
                        ));
                    }
                    let (now, rest) = passed.split_at(s.operands);
                    targets.push((t, args.clone(), mapped(map, now)));
                    passed = rest;
                }
                match (conditional, targets.as_slice()) {
                    (false, [(t, args, values)]) => {
                        map.extend(args.iter().copied().zip(values.iter().copied()));
                        self.copy_block(copy, *t, at, map)?
                    }
                    (true, [_, _]) => {
                        let Some(&cond) = term.operands.first() else {
                            return Err(
                                self.error_at(call, format!("calls @{name}, whose cf.cond_br tests nothing"))
                            );
                        };
                        let cond = *map.get(&cond).unwrap_or(&cond);
                        let types = copy_types(self, call);
                        let branch = self.insert_built(at, "scf.if", vec![cond], types);
                        self.ops[branch].line = term.line;
                        for (t, args, values) in targets {
                            let arm = self.new_block(BlockOwner::Op(branch), Vec::new());
                            self.ops[branch].regions.push(vec![arm]);
                            let mut inner = map.clone();
                            inner.extend(args.iter().copied().zip(values));
                            let start = InsertPoint { block: arm, index: 0 };
                            let (yielded, end) = self.copy_block(copy, t, start, &mut inner)?;
                            self.insert_built(end, "scf.yield", yielded, Vec::new());
                        }
                        at.index += 1;
                        (self.ops[branch].results.clone(), at)
                    }
                    _ => {
                        return Err(self.error_at(
                            call,
                            format!(
                                "calls @{name}, whose {} has another number of successors than its kind",
                                term.name
                            ),
                        ));
                    }
                }
            }
            other => {
                return Err(self.error_at(call, format!("calls @{name}, a block of which ends in {other}")));
            }
        };
        copy.path.pop();
        Ok(returned)
    }

    /// An error at `op`'s source line naming it.
    fn error_at(&self, op: OpId, message: String) -> TtgirError {
        let o = &self.ops[op];
        TtgirError {
            line: o.line,
            column: 1,
            message: format!("{}: {message}", o.name),
            limit: None,
        }
    }
}

/// One call's copy of its callee's blocks.
struct BlockCopy {
    call: OpId,
    callee: usize,
    /// How many results the call takes.
    results: usize,
    /// The callee's blocks being copied around the one at hand.
    path: Vec<usize>,
    /// Blocks the call may still copy.
    budget: usize,
}

/// The types of `call`'s results.
fn copy_types(g: &Graph, call: OpId) -> Vec<crate::ttgir::ValueType> {
    g.ops[call]
        .results
        .iter()
        .map(|&r| g.values[r].ty.clone())
        .collect()
}

/// `vs` through `map` (values not in it stay).
fn mapped(map: &HashMap<usize, usize>, vs: &[ValueId]) -> Vec<ValueId> {
    vs.iter().map(|v| *map.get(v).unwrap_or(v)).collect()
}
