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
//! Callees are inlined innermost first: a function's own calls are inlined before it is copied
//! into its callers, so each function is copied as it finally is. A function that calls itself,
//! directly or through others, cannot be inlined and is refused; so is a callee of several
//! blocks (an early `return` inside it), whose copy would have to split the caller's block.
//! What inlining adds is bounded by [`MAX_VALUES`](crate::ttgir::MAX_VALUES).

use std::collections::HashMap;

use super::{Graph, InsertPoint, Item, OpId};
use crate::limits::LimitExceeded;
use crate::ttgir::{AttrValue, MAX_VALUES, Module, TtgirError, attr};

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
        if self.funcs[callee].blocks.is_empty() {
            return Err(self.error_at(call, format!("calls @{name}, which has no body")));
        }
        let [entry] = self.funcs[callee].blocks[..] else {
            return Err(self.error_at(
                call,
                format!("calls @{name}, a function of several blocks (an early return): only a function of one block is inlined"),
            ));
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
        let body = self.blocks[entry].ops.clone();
        let Some((&ret, ops)) = body
            .split_last()
            .filter(|(r, _)| self.ops[**r].name == "tt.return")
        else {
            return Err(self.error_at(
                call,
                format!("calls @{name}, whose body does not end in tt.return"),
            ));
        };
        let results = self.ops[call].results.clone();
        if self.ops[ret].operands.len() != results.len() {
            return Err(self.error_at(
                call,
                format!(
                    "takes {} results from @{name}, which returns {}",
                    results.len(),
                    self.ops[ret].operands.len()
                ),
            ));
        }
        let mut map: HashMap<usize, usize> = params.into_iter().zip(operands).collect();
        let at = self.position(call);
        for (k, &op) in ops.iter().enumerate() {
            let point = InsertPoint {
                block: at.block,
                index: at.index + k,
            };
            self.clone_deep(op, point, &mut map);
        }
        let returned: Vec<usize> = self.ops[ret]
            .operands
            .iter()
            .map(|v| *map.get(v).unwrap_or(v))
            .collect();
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
