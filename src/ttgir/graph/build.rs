//! From the reader's [`Module`] and its text to a [`Graph`]: the same values and ops, each op
//! with the template of its source line.
//!
//! The walk mirrors the reader's over the logical lines (one op, region opening or region
//! closing per line): the k-th op line is the module's op k, a closing line ends the innermost
//! open op or function.

use std::sync::Arc;

use crate::encodings::TensorType;

use super::super::lines::logical_text;
use super::super::{Module, TtgirError, TypeKind, ValueDef, ValueType};
use super::{BlockOwner, Def, Form, GBlock, GFunc, GOp, GValue, Graph, Item, Piece, Slot};

/// Ops printed from the graph rather than from their text.
pub(super) const BUILT: &[&str] = &[
    "scf.for",
    "scf.if",
    "scf.while",
    "scf.yield",
    "scf.condition",
    "ttg.convert_layout",
];

fn err(line: usize, message: String) -> TtgirError {
    TtgirError {
        line,
        column: 1,
        message,
        limit: None,
    }
}

/// What is open while walking the lines.
enum Open {
    Func,
    Op(usize),
}

pub(super) fn build(m: &Module, text: &str) -> Result<Graph, TtgirError> {
    let logical = logical_text(text);
    let mut g = Graph {
        num_warps: m.num_warps,
        threads_per_warp: m.threads_per_warp,
        target: m.target.clone(),
        values: m
            .values
            .iter()
            .map(|v| GValue {
                ty: v.ty.clone(),
                def: Def::Result { op: 0, index: 0 },
                name: v.name.clone(),
            })
            .collect(),
        ops: Vec::with_capacity(m.ops.len()),
        blocks: Vec::new(),
        funcs: Vec::new(),
        items: Vec::new(),
        aliases: m.aliases.clone(),
        fresh: 0,
        log: Vec::new(),
    };
    // Fresh names continue after those a pass printed before (`%ll7`, `%ll9#1`).
    g.fresh = m
        .values
        .iter()
        .filter_map(|v| v.name.strip_prefix("%ll"))
        .filter_map(|n| n.split('#').next().and_then(|d| d.parse::<usize>().ok()))
        .max()
        .unwrap_or(0);
    // Lines: heads and tails of ops, function headers, module-level text.
    let mut heads: Vec<Option<String>> = vec![None; m.ops.len()];
    let mut tails: Vec<String> = vec![String::new(); m.ops.len()];
    let mut func_headers: Vec<String> = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut next_op = 0usize;
    let mut text_run = String::new();
    let mut in_module = false;
    for (i, raw) in logical.split('\n').enumerate() {
        let t = raw.trim();
        let line = i + 1;
        if stack.is_empty() {
            if t.starts_with("tt.func") || t.starts_with("func.func") {
                if !text_run.is_empty() {
                    g.items.push(Item::Text(std::mem::take(&mut text_run)));
                }
                g.items.push(Item::Func(func_headers.len()));
                func_headers.push(t.to_string());
                if t.ends_with('{') {
                    stack.push(Open::Func);
                }
                continue;
            }
            if t.starts_with("\"tt.func\"") || t.starts_with("\"builtin.module\"") {
                return Err(err(line, "cannot rewrite a module in generic form".into()));
            }
            // Location aliases (`#loc3 = loc(…)`): the logical text blanked the locations.
            if t.is_empty() || t.starts_with('#') && t.ends_with('=') {
                continue;
            }
            if t.starts_with("module") {
                in_module = true;
            }
            if !in_module && !t.starts_with('#') {
                return Err(err(line, format!("cannot rewrite '{t}' outside a module")));
            }
            text_run.push_str(t);
            text_run.push('\n');
            continue;
        }
        if t.is_empty() || t.starts_with('^') {
            continue;
        }
        let closes_with_attrs = t.strip_prefix("} {").is_some_and(|r| !r.trim().is_empty());
        if t == "}" || closes_with_attrs || t.starts_with("})") {
            if let Some(Open::Op(op)) = stack.pop() {
                tails[op] = t.to_string();
            }
            continue;
        }
        if t == "} else {" || t == "} do {" || t == "} {" || t == "}, {" {
            continue;
        }
        let op = next_op;
        next_op += 1;
        let Some(mop) = m.ops.get(op) else {
            return Err(err(line, "the op lines do not match the module's ops".into()));
        };
        let word = match t.split_once(" = ") {
            Some((_, r)) if t.starts_with('%') => r,
            _ => t,
        }
        .trim_start_matches('"');
        if !word.starts_with(&mop.name) {
            return Err(err(line, format!("expected op '{}' on this line", mop.name)));
        }
        heads[op] = Some(t.to_string());
        if t.ends_with('{') {
            stack.push(Open::Op(op));
        }
    }
    if !text_run.is_empty() {
        g.items.push(Item::Text(text_run));
    }
    if next_op != m.ops.len() || func_headers.len() != m.funcs.len() {
        return Err(err(1, "the lines do not match the module's ops".into()));
    }
    // Blocks of the functions and the ops' regions, with their arguments' definitions.
    for (f, func) in m.funcs.iter().enumerate() {
        let mut blocks = Vec::new();
        if func.blocks.is_empty() {
            let b = new_block(
                &mut g,
                BlockOwner::Func(f),
                None,
                func.body.clone(),
                func.args.clone(),
            );
            blocks.push(b);
        } else {
            for (k, fb) in func.blocks.iter().enumerate() {
                let end = func.blocks.get(k + 1).map_or(func.body.len(), |n| n.start);
                let ops = func.body.get(fb.start..end).unwrap_or_default().to_vec();
                let args = if k == 0 {
                    func.args.clone()
                } else {
                    fb.args.clone()
                };
                let label = (k > 0).then(|| fb.label.clone());
                blocks.push(new_block(&mut g, BlockOwner::Func(f), label, ops, args));
            }
        }
        g.funcs.push(GFunc {
            name: func.name.clone(),
            blocks,
            header: func_headers[f].clone(),
        });
    }
    for (k, mop) in m.ops.iter().enumerate() {
        let head = heads[k].clone().unwrap_or_default();
        let form = if BUILT.contains(&mop.name.as_str()) {
            let trailing = tails[k]
                .strip_prefix("} ")
                .map(str::trim)
                .unwrap_or("")
                .to_string();
            Form::Built { trailing }
        } else {
            let head_pieces = template(&g, &head, mop.operands.len(), mop.line)?;
            let tail_pieces = if tails[k].is_empty() {
                Vec::new()
            } else {
                let tail = template(&g, &tails[k], 0, mop.line)?;
                if tail.iter().any(|p| matches!(p, Piece::Results)) {
                    return Err(err(
                        mop.line,
                        format!("cannot rewrite op '{}': unexpected region closing", mop.name),
                    ));
                }
                tail
            };
            if mop.regions.len() > 1 {
                return Err(err(
                    mop.line,
                    format!(
                        "cannot rewrite op '{}': an op of several regions in generic form",
                        mop.name
                    ),
                ));
            }
            Form::Template {
                head: Arc::new(head_pieces),
                tail: Arc::new(tail_pieces),
            }
        };
        let group = (mop.results.len() > 1)
            .then(|| {
                m.values[mop.results[0]]
                    .name
                    .split('#')
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .filter(|g| m.values[mop.results[0]].name.contains('#') && !g.is_empty());
        let mut original = Vec::new();
        for (i, &v) in mop.operands.iter().enumerate() {
            original.push((Slot::Operand(i), m.values[v].ty.clone()));
        }
        for (i, &v) in mop.results.iter().enumerate() {
            original.push((Slot::Result(i), m.values[v].ty.clone()));
        }
        g.ops.push(GOp {
            name: mop.name.clone(),
            operands: mop.operands.clone(),
            results: mop.results.clone(),
            regions: Vec::new(),
            attrs: mop.attrs.clone(),
            block: 0,
            erased: false,
            line: mop.line,
            original,
            form,
            group,
            successors: mop.successors.clone(),
        });
    }
    // Regions: the body split at the region starts; block arguments by op kind.
    for (k, mop) in m.ops.iter().enumerate() {
        if mop.regions.is_empty() {
            continue;
        }
        let n = mop.regions.len();
        for r in 0..n {
            let start = mop.regions[r];
            let end = mop.regions.get(r + 1).copied().unwrap_or(mop.body.len());
            let ops = mop.body.get(start..end).unwrap_or_default().to_vec();
            let args: Vec<usize> = match (mop.name.as_str(), r) {
                ("scf.while", 0) => mop.block_args.iter().take(mop.operands.len()).copied().collect(),
                ("scf.while", _) => mop.block_args.iter().skip(mop.operands.len()).copied().collect(),
                ("scf.if", _) => Vec::new(),
                (_, 0) => mop.block_args.clone(),
                _ => Vec::new(),
            };
            // A region of several labelled blocks (branches between them): its entry block
            // takes the entry label's arguments, the others their own.
            let labelled: Vec<&crate::ttgir::FuncBlock> = mop
                .blocks
                .iter()
                .filter(|b| (start..end).contains(&b.start))
                .collect();
            let args = match labelled.as_slice() {
                [entry, _, ..] if entry.start == start => entry.args.clone(),
                _ => args,
            };
            for (i, &a) in args.iter().enumerate() {
                g.ops[k].original.push((Slot::Arg(r, i), m.values[a].ty.clone()));
            }
            if labelled.len() > 1 && labelled[0].start == start {
                let mut blocks = Vec::with_capacity(labelled.len());
                for (j, fb) in labelled.iter().enumerate() {
                    let stop = labelled.get(j + 1).map_or(end, |n| n.start);
                    let ops = mop.body.get(fb.start..stop).unwrap_or_default().to_vec();
                    let (label, args) = if j == 0 {
                        (None, args.clone())
                    } else {
                        (Some(fb.label.clone()), fb.args.clone())
                    };
                    blocks.push(new_block(&mut g, BlockOwner::Op(k), label, ops, args));
                }
                g.ops[k].regions.push(blocks);
                continue;
            }
            let b = new_block(&mut g, BlockOwner::Op(k), None, ops, args);
            g.ops[k].regions.push(vec![b]);
        }
    }
    // Which block holds each op, and the definitions of results.
    for b in 0..g.blocks.len() {
        for i in 0..g.blocks[b].ops.len() {
            let o = g.blocks[b].ops[i];
            g.ops[o].block = b;
        }
        for (index, &a) in g.blocks[b].args.clone().iter().enumerate() {
            g.values[a].def = Def::Arg { block: b, index };
        }
    }
    for (o, op) in m.ops.iter().enumerate() {
        for (index, &r) in op.results.iter().enumerate() {
            g.values[r].def = Def::Result { op: o, index };
        }
    }
    // Every value has a definition the graph knows.
    for (v, mv) in m.values.iter().enumerate() {
        if let ValueDef::FuncArg { .. } | ValueDef::BlockArg { .. } | ValueDef::FuncBlockArg { .. } = mv.def
            && !matches!(g.values[v].def, Def::Arg { .. })
        {
            return Err(err(
                1,
                format!("cannot rewrite: the argument {} has no block", mv.name),
            ));
        }
    }
    Ok(g)
}

fn new_block(
    g: &mut Graph,
    owner: BlockOwner,
    label: Option<String>,
    ops: Vec<usize>,
    args: Vec<usize>,
) -> usize {
    g.blocks.push(GBlock {
        ops,
        args,
        owner,
        label,
    });
    g.blocks.len() - 1
}

/// The template of one line: its result list, its operand references (there must be
/// `operands` of them, in order) and its tensor and memdesc types; the rest is kept as text.
fn template(g: &Graph, line_text: &str, operands: usize, line: usize) -> Result<Vec<Piece>, TtgirError> {
    let mut pieces = Vec::new();
    let mut rest = line_text;
    if line_text.starts_with('%')
        && let Some(eq) = line_text.find(" = ")
    {
        pieces.push(Piece::Results);
        pieces.push(Piece::Text(" = ".into()));
        rest = &line_text[eq + 3..];
    }
    let b = rest.as_bytes();
    let mut text = String::new();
    let mut i = 0;
    let mut k = 0;
    let flush = |text: &mut String, pieces: &mut Vec<Piece>| {
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(text)));
        }
    };
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            let st = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            text.push_str(&rest[st..i]);
        } else if c == b'%' {
            let st = i;
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'#' | b'.' | b'$' | b'-'))
            {
                i += 1;
            }
            if i == st + 1 {
                text.push('%');
                continue;
            }
            flush(&mut text, &mut pieces);
            pieces.push(Piece::Operand(k));
            k += 1;
        } else if let Some(open) = type_opening(rest, i) {
            let end = angle_end(b, open);
            let ty_text = &rest[i..end];
            match parse_type(g, ty_text) {
                Some(ty) => {
                    flush(&mut text, &mut pieces);
                    pieces.push(Piece::Type(ty));
                }
                None => text.push_str(ty_text),
            }
            i = end;
        } else {
            let ch = rest[i..].chars().next().unwrap_or(' ');
            text.push(ch);
            i += ch.len_utf8();
        }
    }
    flush(&mut text, &mut pieces);
    if k != operands {
        return Err(err(
            line,
            format!("cannot rewrite this op: {k} value references for {operands} operands"),
        ));
    }
    Ok(pieces)
}

/// The byte after the `>` matching the `<` at `open`.
fn angle_end(b: &[u8], open: usize) -> usize {
    let mut depth = 0i32;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'<' => depth += 1,
            b'>' if i > 0 && b[i - 1] != b'-' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// The byte of the `<` when a tensor or memdesc type starts at byte `i` of `text`.
fn type_opening(text: &str, i: usize) -> Option<usize> {
    let b = text.as_bytes();
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.') {
        return None;
    }
    let rest = &text[i..];
    ["tensor<", "!ttg.memdesc<"]
        .iter()
        .find(|p| rest.starts_with(**p))
        .map(|p| i + p.len() - 1)
}

/// A tensor or memdesc type: memdescs are types the passes change too (a buffer's shared
/// layout).
fn parse_type(g: &Graph, text: &str) -> Option<ValueType> {
    let t = TensorType::parse_with_aliases(text, &g.aliases).ok()?;
    Some(ValueType {
        kind: if t.memdesc.is_some() {
            TypeKind::MemDesc
        } else {
            TypeKind::Tensor
        },
        shape: t.shape,
        element: t.element_type,
        encoding: t.encoding,
        memory: t.memdesc.unwrap_or_default(),
    })
}
