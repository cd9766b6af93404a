//! Printing a [`Graph`] as TTGIR that Triton's parser reads.
//!
//! Ops with a template print their source text with the current operand names and types;
//! the structured ops and the ops passes create print in Triton's custom syntax
//! (`scf.for %iv = %lb to %ub step %s iter_args(%a = %x) -> (T) : i32 {`). Encodings that had an
//! alias in the source print under it; new ones print inline (`#ttg.blocked<{…}>`).

use std::fmt::Write;

use super::super::{TtgirError, TypeKind, ValueType};
use super::{BlockId, Form, Graph, Item, OpId, Piece, Slot};

fn err(line: usize, message: String) -> TtgirError {
    TtgirError {
        line: line.max(1),
        column: 1,
        message,
        limit: None,
    }
}

/// The text of one op without its result names (regions not included): two constants with the
/// same text are the same constant.
pub(super) fn op_text_without_results(g: &Graph, o: OpId) -> String {
    let p = Printer {
        g,
        out: String::new(),
        aliases: Vec::new(),
        sources: Vec::new(),
        current: 0,
    };
    let op = &g.ops[o];
    let types = |vs: &[usize]| p.types(vs, op.line).unwrap_or_default();
    match &op.form {
        Form::Template { head, .. } => {
            let mut body: Vec<Piece> = head
                .iter()
                .skip_while(|x| matches!(x, Piece::Results) || matches!(x, Piece::Text(t) if t == " = "))
                .cloned()
                .collect();
            // A template written in one piece (`$r = arith.constant 0 : $rt0`) keeps the ` = `
            // at the start of the text that follows its results.
            if head.first().is_some_and(|x| matches!(x, Piece::Results))
                && let Some(Piece::Text(t)) = body.first_mut()
                && let Some(rest) = t.strip_prefix(" = ")
            {
                *t = rest.to_string();
            }
            p.pieces(o, &body).unwrap_or_default()
        }
        Form::Built { .. } => format!(
            "{} {} : {} -> {}",
            op.name,
            p.names(&op.operands),
            types(&op.operands),
            types(&op.results)
        ),
    }
}

/// The module's text and, per line of it, the source line of the op printed there (0 for
/// lines no source op wrote: module text, headers, ops a pass made).
pub(super) fn print(g: &Graph) -> Result<(String, Vec<usize>), TtgirError> {
    let mut p = Printer {
        g,
        out: String::new(),
        aliases: g.aliases.iter().map(|(k, e)| (k.as_str(), e)).collect(),
        sources: Vec::new(),
        current: 0,
    };
    p.aliases.sort_by(|a, b| a.0.cmp(b.0));
    for item in &g.items {
        match item {
            Item::Text(t) => {
                p.out.push_str(t);
                p.sources.extend(t.matches('\n').map(|_| 0));
            }
            Item::Func(f) => p.func(*f)?,
        }
    }
    Ok((p.out, p.sources))
}

/// The values whose types an op's syntax writes, in order, for the ops that write fewer types
/// than they have values: `tt.dot %a, %b, %c : A * B -> D` (the accumulator has the result's
/// type).
fn written_types(name: &str) -> Option<&'static [Slot]> {
    match name {
        "tt.dot" => Some(&[Slot::Operand(0), Slot::Operand(1), Slot::Result(0)]),
        _ => None,
    }
}

struct Printer<'g> {
    g: &'g Graph,
    out: String,
    aliases: Vec<(&'g str, &'g std::sync::Arc<crate::encodings::Encoding>)>,
    /// Per line written so far, the source line of the op that wrote it.
    sources: Vec<usize>,
    /// The source line of the op being printed (0 outside ops).
    current: usize,
}

impl Printer<'_> {
    fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
        self.sources.extend(text.matches('\n').map(|_| self.current));
        self.sources.push(self.current);
    }

    fn func(&mut self, f: usize) -> Result<(), TtgirError> {
        let func = &self.g.funcs[f];
        self.line(1, &func.header);
        if func.blocks.is_empty() {
            return Ok(());
        }
        for (k, &b) in func.blocks.iter().enumerate() {
            if k > 0 {
                let label = self.g.blocks[b]
                    .label
                    .clone()
                    .unwrap_or_else(|| format!("^bb{k}"));
                let head = format!("{label}{}:", self.block_args(b)?);
                self.line(1, &head);
            }
            self.block(b, 2)?;
        }
        self.line(1, "}");
        Ok(())
    }

    /// `(%a: T, …)` of a block with arguments, empty otherwise.
    fn block_args(&self, b: BlockId) -> Result<String, TtgirError> {
        let args = &self.g.blocks[b].args;
        if args.is_empty() {
            return Ok(String::new());
        }
        let mut s = String::from("(");
        for (k, &a) in args.iter().enumerate() {
            if k > 0 {
                s.push_str(", ");
            }
            let _ = write!(
                s,
                "{}: {}",
                self.g.values[a].name,
                self.ty(&self.g.values[a].ty, 0)?
            );
        }
        s.push(')');
        Ok(s)
    }

    fn block(&mut self, b: BlockId, depth: usize) -> Result<(), TtgirError> {
        for &o in &self.g.blocks[b].ops {
            self.op(o, depth)?;
        }
        Ok(())
    }

    fn name(&self, v: usize) -> &str {
        &self.g.values[v].name
    }

    fn names(&self, vs: &[usize]) -> String {
        vs.iter().map(|&v| self.name(v)).collect::<Vec<_>>().join(", ")
    }

    fn types(&self, vs: &[usize], line: usize) -> Result<String, TtgirError> {
        let mut out = Vec::new();
        for &v in vs {
            out.push(self.ty(&self.g.values[v].ty, line)?);
        }
        Ok(out.join(", "))
    }

    /// The result list and ` = `, or nothing.
    fn lhs(&self, o: OpId) -> String {
        let op = &self.g.ops[o];
        match (&op.group, op.results.len()) {
            (_, 0) => String::new(),
            (Some(g), n) if n > 1 => format!("{g}:{n} = "),
            _ => format!("{} = ", self.names(&op.results)),
        }
    }

    fn ty(&self, t: &ValueType, line: usize) -> Result<String, TtgirError> {
        match t.kind {
            TypeKind::Tensor | TypeKind::MemDesc => {
                let memdesc = t.kind == TypeKind::MemDesc;
                let mut s = String::from(if memdesc { "!ttg.memdesc<" } else { "tensor<" });
                for d in &t.shape {
                    let _ = write!(s, "{d}x");
                }
                s.push_str(&t.element);
                if let Some(e) = &t.encoding {
                    match self
                        .aliases
                        .iter()
                        .find(|(_, a)| std::sync::Arc::ptr_eq(a, e) || ***a == **e)
                    {
                        Some((name, _)) => {
                            let _ = write!(s, ", #{name}");
                        }
                        None => {
                            let _ = write!(s, ", {e}");
                        }
                    }
                }
                for extra in &t.memory {
                    let _ = write!(s, ", {extra}");
                }
                s.push('>');
                Ok(s)
            }
            // The reader's placeholder for a type it could not read: nothing to print.
            TypeKind::Other if t.element == "?" => Err(err(
                line,
                "cannot print a value whose type the reader could not read".into(),
            )),
            TypeKind::Scalar | TypeKind::Other => Ok(t.element.clone()),
        }
    }

    fn slot_value(&self, o: OpId, slot: Slot) -> Option<usize> {
        let op = &self.g.ops[o];
        match slot {
            Slot::Operand(k) => op.operands.get(k).copied(),
            Slot::Result(k) => op.results.get(k).copied(),
            Slot::Arg(r, k) => op
                .regions
                .get(r)
                .and_then(|blocks| blocks.first())
                .and_then(|&b| self.g.blocks[b].args.get(k).copied()),
        }
    }

    fn pieces(&self, o: OpId, pieces: &[Piece]) -> Result<String, TtgirError> {
        let op = &self.g.ops[o];
        let mut s = String::new();
        for (i, p) in pieces.iter().enumerate() {
            match p {
                Piece::Text(t) => s.push_str(t),
                Piece::Results => match (&op.group, op.results.len()) {
                    (Some(g), n) if n > 1 => {
                        let _ = write!(s, "{g}:{n}");
                    }
                    _ => s.push_str(&self.names(&op.results)),
                },
                Piece::Operand(k) => {
                    let v = op
                        .operands
                        .get(*k)
                        .copied()
                        .ok_or_else(|| err(op.line, format!("op '{}' lost operand {k}", op.name)))?;
                    s.push_str(self.name(v));
                }
                Piece::Type(t) => {
                    let now = self.type_now(o, pieces, i, t)?;
                    s.push_str(&self.ty(now.unwrap_or(t), op.line)?);
                }
            }
        }
        Ok(s)
    }

    /// The current type of the values that the type piece `pieces[i]` (written `t` in the
    /// source) stands for. When those values now differ — `tt.trans` of a square tile, whose
    /// operand and result were both `tensor<64x64xf16>`, or `tt.dot` of two operands of one
    /// type that became `opIdx = 0` and `opIdx = 1` — and the text writes `t` once per value,
    /// the k-th `t` written is the k-th of those values (operands, then results, then region
    /// arguments: the order ops write their types in).
    fn type_now(
        &self,
        o: OpId,
        pieces: &[Piece],
        i: usize,
        t: &ValueType,
    ) -> Result<Option<&ValueType>, TtgirError> {
        let op = &self.g.ops[o];
        let slots: Vec<&ValueType> = op
            .original
            .iter()
            .filter(|(_, orig)| orig == t)
            .filter_map(|(slot, _)| self.slot_value(o, *slot))
            .map(|v| &self.g.values[v].ty)
            .collect();
        let Some(&first) = slots.first() else {
            return Ok(None);
        };
        if slots.iter().all(|&x| x == first) {
            return Ok(Some(first));
        }
        let written = |p: &Piece| matches!(p, Piece::Type(x) if x == t);
        let k = pieces[..i].iter().filter(|p| written(p)).count();
        let count = pieces.iter().filter(|p| written(p)).count();
        if count == slots.len() {
            return Ok(Some(slots[k]));
        }
        // A syntax that writes fewer types than the op has values: the written ones, in order.
        if let Some(written_slots) = written_types(&op.name) {
            let typed: Vec<&ValueType> = written_slots
                .iter()
                .filter(|s| op.original.iter().any(|(slot, orig)| slot == *s && orig == t))
                .filter_map(|s| self.slot_value(o, *s))
                .map(|v| &self.g.values[v].ty)
                .collect();
            if typed.len() == count {
                return Ok(Some(typed[k]));
            }
        }
        Err(err(
            op.line,
            format!(
                "cannot print op '{}': values written with one type now have different types",
                op.name
            ),
        ))
    }

    fn op(&mut self, o: OpId, depth: usize) -> Result<(), TtgirError> {
        let outer = std::mem::replace(&mut self.current, self.g.ops[o].line);
        let printed = self.op_lines(o, depth);
        self.current = outer;
        printed
    }

    fn op_lines(&mut self, o: OpId, depth: usize) -> Result<(), TtgirError> {
        let g = self.g;
        let op = &g.ops[o];
        // MLIR's `scf.if` and `scf.for` print their terminators only when they carry values:
        // an empty yield there is implicit.
        if op.name == "scf.yield"
            && op.operands.is_empty()
            && g.block_parent_op(op.block)
                .is_some_and(|p| matches!(g.ops[p].name.as_str(), "scf.if" | "scf.for"))
        {
            return Ok(());
        }
        match &op.form {
            Form::Template { head, tail } => {
                let h = self.pieces(o, head)?;
                self.line(depth, &h);
                for region in &op.regions {
                    for (k, &b) in region.iter().enumerate() {
                        let args = self.block_args(b)?;
                        // The entry block is labelled where it has arguments; the others,
                        // which branches name, always.
                        if k > 0 {
                            let label = g.blocks[b].label.clone().unwrap_or_else(|| format!("^bb{k}"));
                            self.line(depth, &format!("{label}{args}:"));
                        } else if !args.is_empty() {
                            self.line(depth, &format!("^bb0{args}:"));
                        }
                        self.block(b, depth + 1)?;
                    }
                }
                if !tail.is_empty() {
                    let t = self.pieces(o, tail)?;
                    self.line(depth, &t);
                }
                Ok(())
            }
            Form::Built { trailing } => self.built(o, depth, trailing),
        }
    }

    fn region_block(&self, o: OpId, r: usize) -> Option<BlockId> {
        self.g.ops[o].regions.get(r).and_then(|b| b.first()).copied()
    }

    fn closing(&mut self, depth: usize, trailing: &str) {
        if trailing.is_empty() {
            self.line(depth, "}");
        } else {
            self.line(depth, &format!("}} {trailing}"));
        }
    }

    fn built(&mut self, o: OpId, depth: usize, trailing: &str) -> Result<(), TtgirError> {
        let g = self.g;
        let op = &g.ops[o];
        let lhs = self.lhs(o);
        let line = op.line;
        match op.name.as_str() {
            "ttg.convert_layout" if op.operands.len() == 1 && op.results.len() == 1 => {
                let s = format!(
                    "{lhs}ttg.convert_layout {} : {} -> {}",
                    self.name(op.operands[0]),
                    self.types(&op.operands, line)?,
                    self.types(&op.results, line)?
                );
                self.line(depth, &s);
            }
            "ttg.local_alloc" if op.operands.len() == 1 && op.results.len() == 1 => {
                let s = format!(
                    "{lhs}ttg.local_alloc {} : ({}) -> {}",
                    self.name(op.operands[0]),
                    self.types(&op.operands, line)?,
                    self.types(&op.results, line)?
                );
                self.line(depth, &s);
            }
            "ttg.local_load" if op.operands.len() == 1 && op.results.len() == 1 => {
                let s = format!(
                    "{lhs}ttg.local_load {} : {} -> {}",
                    self.name(op.operands[0]),
                    self.types(&op.operands, line)?,
                    self.types(&op.results, line)?
                );
                self.line(depth, &s);
            }
            "scf.yield" => {
                let s = if op.operands.is_empty() {
                    "scf.yield".to_string()
                } else {
                    format!(
                        "scf.yield {} : {}",
                        self.names(&op.operands),
                        self.types(&op.operands, line)?
                    )
                };
                self.line(depth, &s);
            }
            "scf.condition" if !op.operands.is_empty() => {
                let rest = &op.operands[1..];
                let mut s = format!("scf.condition({})", self.name(op.operands[0]));
                if !rest.is_empty() {
                    let _ = write!(s, " {} : {}", self.names(rest), self.types(rest, line)?);
                }
                self.line(depth, &s);
            }
            "scf.for" if op.operands.len() >= 3 => {
                let body = self
                    .region_block(o, 0)
                    .ok_or_else(|| err(line, "scf.for without a body".into()))?;
                let args = g.blocks[body].args.clone();
                let Some((&iv, iters)) = args.split_first() else {
                    return Err(err(line, "scf.for without an induction variable".into()));
                };
                let mut s = format!(
                    "{lhs}scf.for {} = {} to {} step {}",
                    self.name(iv),
                    self.name(op.operands[0]),
                    self.name(op.operands[1]),
                    self.name(op.operands[2])
                );
                let inits = &op.operands[3..];
                if !inits.is_empty() {
                    let pairs: Vec<String> = iters
                        .iter()
                        .zip(inits)
                        .map(|(&a, &x)| format!("{} = {}", self.name(a), self.name(x)))
                        .collect();
                    let _ = write!(
                        s,
                        " iter_args({}) -> ({})",
                        pairs.join(", "),
                        self.types(&op.results, line)?
                    );
                }
                let iv_ty = self.ty(&g.values[iv].ty, line)?;
                if iv_ty != "index" {
                    let _ = write!(s, "  : {iv_ty}");
                }
                s.push_str(" {");
                self.line(depth, &s);
                self.block(body, depth + 1)?;
                self.closing(depth, trailing);
            }
            "scf.if" if op.operands.len() == 1 => {
                let mut s = format!("{lhs}scf.if {}", self.name(op.operands[0]));
                if !op.results.is_empty() {
                    let _ = write!(s, " -> ({})", self.types(&op.results, line)?);
                }
                s.push_str(" {");
                self.line(depth, &s);
                if let Some(then) = self.region_block(o, 0) {
                    self.block(then, depth + 1)?;
                }
                // MLIR prints an `else` region that has a block, even one with only its
                // implicit yield.
                if let Some(els) = self.region_block(o, 1) {
                    self.line(depth, "} else {");
                    self.block(els, depth + 1)?;
                }
                self.closing(depth, trailing);
            }
            "scf.while" => {
                let before = self
                    .region_block(o, 0)
                    .ok_or_else(|| err(line, "scf.while without a condition region".into()))?;
                let after = self
                    .region_block(o, 1)
                    .ok_or_else(|| err(line, "scf.while without a body".into()))?;
                let mut s = format!("{lhs}scf.while");
                if !op.operands.is_empty() {
                    let pairs: Vec<String> = g.blocks[before]
                        .args
                        .iter()
                        .zip(&op.operands)
                        .map(|(&a, &x)| format!("{} = {}", self.name(a), self.name(x)))
                        .collect();
                    let _ = write!(s, " ({})", pairs.join(", "));
                }
                let _ = write!(
                    s,
                    " : ({}) -> ({}) {{",
                    self.types(&op.operands, line)?,
                    self.types(&op.results, line)?
                );
                self.line(depth, &s);
                self.block(before, depth + 1)?;
                self.line(depth, "} do {");
                let args = self.block_args(after)?;
                if !args.is_empty() {
                    self.line(depth, &format!("^bb0{args}:"));
                }
                self.block(after, depth + 1)?;
                self.closing(depth, trailing);
            }
            other => {
                return Err(err(line, format!("cannot print op '{other}' from the graph")));
            }
        }
        Ok(())
    }
}
