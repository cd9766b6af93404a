//! Making and moving ops: new blocks, ops moved or copied (with their regions), ops printed
//! from MLIR syntax with holes, operands and trailing attributes added to an op's text.

use std::sync::Arc;

use super::super::{TtgirError, ValueType};
use super::*;

impl Graph {
    /// Moves `op` to right after `after` (in `after`'s block).
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// let ret = g.find_op("tt.return").unwrap();
    /// g.move_after(add, mul);
    /// assert_eq!(g.walk(), vec![mul, add, ret]);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn move_after(&mut self, op: OpId, after: OpId) {
        let b = self.ops[op].block;
        self.blocks[b].ops.retain(|&o| o != op);
        let p = self.position(after);
        self.blocks[p.block].ops.insert(p.index + 1, op);
        self.ops[op].block = p.block;
    }

    /// The op after `op` in its block.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.next_sibling(add), Some(mul));
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn next_sibling(&self, op: OpId) -> Option<OpId> {
        let p = self.position(op);
        self.blocks[p.block].ops.get(p.index + 1).copied()
    }

    /// A new block owned by `owner`, with arguments of the given types; not in any region
    /// until the caller puts it in one.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// use linear_layout::ttgir::graph::BlockOwner;
    /// let blk = g.new_block(BlockOwner::Op(add), vec![linear_layout::ttgir::ValueType::scalar("i32")]);
    /// assert_eq!(g.blocks[blk].args.len(), 1);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn new_block(&mut self, owner: BlockOwner, arg_types: Vec<ValueType>) -> BlockId {
        let b = self.blocks.len();
        self.blocks.push(GBlock {
            ops: Vec::new(),
            args: Vec::new(),
            owner,
            label: None,
        });
        for (index, ty) in arg_types.into_iter().enumerate() {
            let v = self.new_value(ty, Def::Arg { block: b, index });
            self.blocks[b].args.push(v);
        }
        b
    }

    /// Moves every op of block `from` to the end of block `to`.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// use linear_layout::ttgir::graph::BlockOwner;
    /// let body = g.funcs[0].blocks[0];
    /// let other = g.new_block(BlockOwner::Func(0), vec![]);
    /// g.move_ops(body, other);
    /// assert_eq!(g.blocks[other].ops.len(), 3);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn move_ops(&mut self, from: BlockId, to: BlockId) {
        let ops = std::mem::take(&mut self.blocks[from].ops);
        for &o in &ops {
            self.ops[o].block = to;
        }
        self.blocks[to].ops.extend(ops);
    }

    /// A new op like `op` (name, attributes, how it prints; its trailing attributes kept),
    /// with the given operands and result types and no regions, inserted at `at`.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// let at = g.position(mul);
    /// let op = g.insert_like(add, at, vec![c, c], vec![g.value(b).ty.clone()]);
    /// assert_eq!(g.op(op).name, "arith.addi");
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn insert_like(
        &mut self,
        op: OpId,
        at: InsertPoint,
        operands: Vec<ValueId>,
        result_types: Vec<ValueType>,
    ) -> OpId {
        let src = self.ops[op].clone();
        let new = self.insert_op(
            at,
            &src.name,
            operands,
            result_types,
            src.form.clone(),
            src.attrs.clone(),
        );
        self.ops[new].original = src.original.clone();
        self.ops[new].line = src.line;
        self.ops[new].successors = src.successors.clone();
        new
    }

    /// A copy of `op` with its regions at `at`, operands mapped through `map` (values not in
    /// it stay); every value the copy defines is added to `map`.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// let mut map = std::collections::HashMap::new();
    /// let at = g.position(mul);
    /// let copy = g.clone_deep(add, at, &mut map);
    /// assert_eq!(map[&b], g.op(copy).results[0]);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn clone_deep(
        &mut self,
        op: OpId,
        at: InsertPoint,
        map: &mut std::collections::HashMap<ValueId, ValueId>,
    ) -> OpId {
        let operands: Vec<ValueId> = self.ops[op]
            .operands
            .iter()
            .map(|v| *map.get(v).unwrap_or(v))
            .collect();
        let tys = self.ops[op]
            .results
            .iter()
            .map(|&r| self.values[r].ty.clone())
            .collect();
        let new = self.insert_like(op, at, operands, tys);
        for (k, &r) in self.ops[op].results.clone().iter().enumerate() {
            map.insert(r, self.ops[new].results[k]);
        }
        for region in self.ops[op].regions.clone() {
            let mut blocks = Vec::new();
            for b in region {
                let tys = self.blocks[b]
                    .args
                    .iter()
                    .map(|&a| self.values[a].ty.clone())
                    .collect();
                let nb = self.new_block(BlockOwner::Op(new), tys);
                self.blocks[nb].label = self.blocks[b].label.clone();
                for (k, &a) in self.blocks[b].args.clone().iter().enumerate() {
                    map.insert(a, self.blocks[nb].args[k]);
                }
                for inner in self.blocks[b].ops.clone() {
                    let end = InsertPoint {
                        block: nb,
                        index: self.blocks[nb].ops.len(),
                    };
                    self.clone_deep(inner, end, map);
                }
                blocks.push(nb);
            }
            self.ops[new].regions.push(blocks);
        }
        new
    }
}

impl Graph {
    /// Inserts a new op at `at` printed from `format`, MLIR's custom syntax with holes: `$r`
    /// (the result list), `$0`, `$1`, … (operand names), `$t0`, … (operand types) and `$rt0`, …
    /// (result types); `$$` is a `$` of the text (inline assembly's own `$0`). Types print as
    /// the values' current types, so a pass may retype the op's values later.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// use linear_layout::ttgir::ValueType;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: f16) {\n    tt.return\n  }\n}")?;
    /// let a = g.blocks[g.funcs[0].blocks[0]].args[0];
    /// let at = g.position(g.find_op("tt.return").unwrap());
    /// let op = g.insert_text(at, "arith.extf", vec![a], vec![ValueType::scalar("f32")], "$r = arith.extf $0 : $t0 to $rt0")?;
    /// assert!(g.print()?.contains("%ll1 = arith.extf %a : f16 to f32"));
    /// assert_eq!(g.op(op).results.len(), 1);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn insert_text(
        &mut self,
        at: InsertPoint,
        name: &str,
        operands: Vec<ValueId>,
        result_types: Vec<ValueType>,
        format: &str,
    ) -> Result<OpId, TtgirError> {
        let bad = |m: String| TtgirError {
            line: 1,
            column: 1,
            message: m,
            limit: None,
        };
        let mut pieces = Vec::new();
        let mut original = Vec::new();
        let mut text = String::new();
        let mut rest = format;
        while let Some(p) = rest.find('$') {
            text.push_str(&rest[..p]);
            rest = &rest[p + 1..];
            if let Some(t) = rest.strip_prefix('$') {
                text.push('$');
                rest = t;
                continue;
            }
            let (kind, tail) = if let Some(t) = rest.strip_prefix("rt") {
                ("rt", t)
            } else if let Some(t) = rest.strip_prefix('t') {
                ("t", t)
            } else if let Some(t) = rest.strip_prefix('r') {
                ("r", t)
            } else {
                ("o", rest)
            };
            let digits = tail.chars().take_while(char::is_ascii_digit).count();
            let k: Option<usize> = tail[..digits].parse().ok();
            rest = &tail[digits..];
            if !text.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut text)));
            }
            match (kind, k) {
                ("r", None) => pieces.push(Piece::Results),
                ("o", Some(k)) if k < operands.len() => pieces.push(Piece::Operand(k)),
                ("t", Some(k)) if k < operands.len() => {
                    let ty = self.values[operands[k]].ty.clone();
                    original.push((Slot::Operand(k), ty.clone()));
                    pieces.push(Piece::Type(ty));
                }
                ("rt", Some(k)) if k < result_types.len() => {
                    let ty = result_types[k].clone();
                    original.push((Slot::Result(k), ty.clone()));
                    pieces.push(Piece::Type(ty));
                }
                _ => return Err(bad(format!("a hole of '{format}' names no operand or result"))),
            }
        }
        text.push_str(rest);
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        let form = Form::Template {
            head: Arc::new(pieces),
            tail: Arc::new(Vec::new()),
        };
        let op = self.insert_op(at, name, operands, result_types, form, Vec::new());
        self.ops[op].original = original;
        Ok(op)
    }
}

impl Graph {
    /// Sets attribute `name` of an op printed from the graph (`scf.for`, `scf.if`) to `value`
    /// as MLIR writes it (`""` for a unit attribute, `"2 : i32"`), or removes it with `None`:
    /// in the dictionary printed after the op, kept sorted by name as MLIR's dictionaries are,
    /// and in [`GOp::attrs`]. An op printed from its source text is left as it is.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let text = "module {\n  tt.func @f(%n: i32) {\n    %c0 = arith.constant 0 : i32\n    %c1 = arith.constant 1 : i32\n    scf.for %i = %c0 to %n step %c1  : i32 {\n    } {tt.flatten}\n    tt.return\n  }\n}";
    /// let mut g = Graph::parse(text)?;
    /// let lp = g.find_op("scf.for").unwrap();
    /// g.set_trailing_attr(lp, "tt.num_stages", Some("2 : i32"));
    /// g.set_trailing_attr(lp, "tt.flatten", None);
    /// g.set_trailing_attr(lp, "tt.disallow_acc_multi_buffer", Some(""));
    /// assert!(g.print()?.contains("} {tt.disallow_acc_multi_buffer, tt.num_stages = 2 : i32}"));
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn set_trailing_attr(&mut self, op: OpId, name: &str, value: Option<&str>) {
        let o = &mut self.ops[op];
        let Form::Built { trailing } = &mut o.form else {
            return;
        };
        let inner = trailing.trim().trim_start_matches('{').trim_end_matches('}');
        let key = |entry: &str| {
            let k = super::super::reader::split_top(entry, "=")[0].1.trim();
            k.trim_matches('"').to_string()
        };
        let mut entries: Vec<(String, String)> = super::super::reader::split_top(inner, ",")
            .into_iter()
            .map(|(_, e)| e.trim())
            .filter(|e| !e.is_empty())
            .map(|e| (key(e), e.to_string()))
            .filter(|(k, _)| k != name)
            .collect();
        o.attrs.retain(|(k, _)| k != name);
        if let Some(v) = value {
            let key = quoted_unless_bare(name);
            // The reader's view of a unit attribute is the integer 1.
            let (entry, read) = if v.is_empty() {
                (key, super::super::AttrValue::Int(1))
            } else {
                (format!("{key} = {v}"), super::super::reader::parse_attr_value(v))
            };
            entries.push((name.to_string(), entry));
            o.attrs.push((name.to_string(), read));
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let dict: Vec<String> = entries.into_iter().map(|(_, e)| e).collect();
        *trailing = if dict.is_empty() {
            String::new()
        } else {
            format!("{{{}}}", dict.join(", "))
        };
    }
}

impl Graph {
    /// Adds `v` as a new operand of `op` right after operand `k`, and to its text after that
    /// operand's name (`tt.load %p` → `tt.load %p, %mask`), keeping its attributes.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// let a = g.op(add).operands[0];
    /// g.insert_operand_after(add, 0, a)?;
    /// assert_eq!(g.op(add).operands.len(), 3);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn insert_operand_after(&mut self, op: OpId, k: usize, v: ValueId) -> Result<(), TtgirError> {
        let o = &mut self.ops[op];
        let Form::Template { head, .. } = &mut o.form else {
            return Err(TtgirError {
                line: o.line.max(1),
                column: 1,
                message: format!("cannot add an operand to '{}' printed from the graph", o.name),
                limit: None,
            });
        };
        let mut pieces = Vec::with_capacity(head.len() + 2);
        for p in head.iter() {
            match p {
                Piece::Operand(j) if *j > k => pieces.push(Piece::Operand(j + 1)),
                Piece::Operand(j) if *j == k => {
                    pieces.push(Piece::Operand(k));
                    pieces.push(Piece::Text(", ".into()));
                    pieces.push(Piece::Operand(k + 1));
                }
                other => pieces.push(other.clone()),
            }
        }
        *head = Arc::new(pieces);
        for (slot, _) in o.original.iter_mut() {
            if let Slot::Operand(j) = slot
                && *j > k
            {
                *j += 1;
            }
        }
        o.operands.insert(k + 1, v);
        Ok(())
    }
}
