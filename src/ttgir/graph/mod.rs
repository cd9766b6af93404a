//! An editable TTGIR module: what the layout passes rewrite and print back as TTGIR.
//!
//! [`Module`] is the reader's analysis view: ops in source order, values with their types. A
//! pass that changes layouts needs more: it gives values new encodings, inserts
//! `ttg.convert_layout` ops, clones ops into another layout, rebuilds loops with more iteration
//! arguments and erases what became dead — and then prints a module that Triton's own parser
//! reads. [`Graph`] is that view, MLIR's shape in a few arrays:
//!
//! * **values** — each with its type and its definition (an op's result or a block's
//!   argument); a value's id is its index, and a [`Graph`] made from a [`Module`] keeps the
//!   module's value ids;
//! * **ops** — name, operands, results, regions (each a list of blocks), and how to print
//!   them; erased ops stay in the array, out of every block;
//! * **blocks** — an ordered list of ops and the block's arguments.
//!
//! Printing keeps the text of every op it did not build: an op is printed from its source
//! line with its operand names and its tensor types filled in again (a *template*), so
//! attributes, properties and the op's own syntax pass through untouched, while a value that
//! got a new encoding prints with it. The structured ops whose signature a pass changes
//! (`scf.for`, `scf.if`, `scf.while`, their terminators) and the ops passes create
//! (`ttg.convert_layout`, `ttg.local_alloc`, `ttg.local_load`) are printed from the graph.
//!
//! ```
//! use linear_layout::ttgir::graph::Graph;
//! let text = r#"
//! #a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
//! #b = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
//! module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
//!   tt.func @k(%n: i32) {
//!     %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #a>
//!     %c = ttg.convert_layout %r : tensor<256xi32, #a> -> tensor<256xi32, #b>
//!     %s = arith.addi %c, %c : tensor<256xi32, #b>
//!     tt.return
//!   }
//! }"#;
//! let mut g = Graph::parse(text)?;
//! // Give the range the convert's layout and drop the convert: the add reads the range.
//! let (range, convert) = (g.find_op("tt.make_range").unwrap(), g.find_op("ttg.convert_layout").unwrap());
//! let (r, c) = (g.op(range).results[0], g.op(convert).results[0]);
//! g.value_mut(r).ty = g.value(c).ty.clone();
//! g.replace_all_uses(c, r);
//! g.erase_op(convert);
//! let out = g.print()?;
//! assert!(out.contains("%r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #b>"));
//! assert!(out.contains("%s = arith.addi %r, %r : tensor<256xi32, #b>"));
//! assert!(!out.contains("convert_layout"));
//! # Ok::<(), linear_layout::ttgir::TtgirError>(())
//! ```

mod build;
mod edit;
mod inline;
mod print;

use std::sync::Arc;

use crate::encodings::Encoding;

use super::{Attrs, Module, TtgirError, TypeKind, ValueType};

/// A value's id: its index in [`Graph::values`].
pub type ValueId = usize;
/// An op's id: its index in [`Graph::ops`].
pub type OpId = usize;
/// A block's id: its index in [`Graph::blocks`].
pub type BlockId = usize;

/// Where a value comes from.
///
/// ```
/// use linear_layout::ttgir::graph::Def;
/// assert_ne!(Def::Result { op: 0, index: 0 }, Def::Arg { block: 0, index: 0 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Def {
    /// Result `index` of op `op`.
    Result {
        /// The op.
        op: OpId,
        /// Result position.
        index: usize,
    },
    /// Argument `index` of block `block` (a function's entry block holds its arguments).
    Arg {
        /// The block.
        block: BlockId,
        /// Argument position.
        index: usize,
    },
}

/// One SSA value.
#[derive(Clone, Debug, PartialEq)]
pub struct GValue {
    /// Its type (a pass changes the encoding here).
    pub ty: ValueType,
    /// Its definition.
    pub def: Def,
    /// The name it prints under (`%5`, `%for#1`).
    pub(crate) name: String,
}

/// What owns a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockOwner {
    /// A region of this op.
    Op(OpId),
    /// The body of this function.
    Func(usize),
}

/// A block: ops in order and arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct GBlock {
    /// The ops, in order.
    pub ops: Vec<OpId>,
    /// The arguments.
    pub args: Vec<ValueId>,
    /// Who owns it.
    pub owner: BlockOwner,
    /// Its label in a function of several blocks (`^bb1`).
    pub(crate) label: Option<String>,
}

/// How an op prints.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Form {
    /// From its source text: the head line, then its regions, then the tail (the region's
    /// closing line, for an op with a region).
    Template {
        /// The line of the op (or of its region's opening).
        head: Arc<Vec<Piece>>,
        /// The line closing its region (`}) : (…) -> …`), empty for an op without regions.
        tail: Arc<Vec<Piece>>,
    },
    /// Printed from the graph (`scf.for`, `ttg.convert_layout`, …); `trailing` is an
    /// attribute dictionary printed after the op (`{tt.num_stages = 2 : i32}`), kept verbatim.
    Built {
        /// Written after the op's closing `}` (regions) or after its types.
        trailing: String,
    },
}

/// A piece of an op's source text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Piece {
    /// Text kept as it is.
    Text(String),
    /// The op's result list (`%a`, `%r:2`).
    Results,
    /// Operand `k`.
    Operand(usize),
    /// A tensor or memdesc type as written: printed as the new type of the op's values of that type.
    Type(ValueType),
}

/// A position among an op's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Operand `k`.
    Operand(usize),
    /// Result `k`.
    Result(usize),
    /// Argument `k` of the block of region `r`.
    Arg(usize, usize),
}

/// One op.
#[derive(Clone, Debug, PartialEq)]
pub struct GOp {
    /// Its name (`tt.load`).
    pub name: String,
    /// Operands.
    pub operands: Vec<ValueId>,
    /// Results.
    pub results: Vec<ValueId>,
    /// Its regions, each a list of blocks (one block for the structured ops).
    pub regions: Vec<Vec<BlockId>>,
    /// Attributes as the reader read them (for queries; printing uses the op's text).
    pub attrs: Attrs,
    /// The block holding it.
    pub block: BlockId,
    /// Whether a pass erased it.
    pub erased: bool,
    /// Its 1-based source line (0 for ops a pass made).
    pub line: usize,
    /// The types its operands, results and region arguments had in the source, by position:
    /// a template's type prints as the current type of the values that had it.
    pub(crate) original: Vec<(Slot, ValueType)>,
    pub(crate) form: Form,
    /// The name of its results when it has several (`%for` of `%for:2`).
    pub(crate) group: Option<String>,
    /// The blocks a branch (`cf.br`, `cf.cond_br`) goes to, by label, each with how many of its
    /// operands it passes ([`Op::successors`](crate::ttgir::Op::successors)).
    pub successors: Vec<crate::ttgir::Successor>,
}

/// A function.
#[derive(Clone, Debug, PartialEq)]
pub struct GFunc {
    /// Its symbol name.
    pub name: String,
    /// Its blocks, the entry block first (it holds the arguments).
    pub blocks: Vec<BlockId>,
    /// Its header line, verbatim (`tt.func public @k(%a: …) attributes {…} {`).
    pub(crate) header: String,
}

/// Module-level text around the functions.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Item {
    /// Lines kept verbatim (aliases, the module line, closing braces).
    Text(String),
    /// A function.
    Func(usize),
}

/// An editable module; see the [module docs](self).
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// `ttg.num-warps`.
    pub num_warps: u32,
    /// `ttg.threads-per-warp`.
    pub threads_per_warp: u32,
    /// The arch of `ttg.target`, if any.
    pub target: Option<String>,
    /// Values.
    pub values: Vec<GValue>,
    /// Ops (erased ones included, flagged).
    pub ops: Vec<GOp>,
    /// Blocks.
    pub blocks: Vec<GBlock>,
    /// Functions.
    pub funcs: Vec<GFunc>,
    pub(crate) items: Vec<Item>,
    /// The source's encoding aliases: read by templates, and used when printing a type with
    /// one of them.
    pub(crate) aliases: crate::encodings::Aliases,
    /// Counter of fresh names.
    pub(crate) fresh: usize,
    /// What the passes changed, and why, one line each (`line 12: tt.load: anchor in
    /// #ttg.blocked<…>`), in the order they decided.
    pub log: Vec<String>,
}

/// Where to insert an op: before position `index` of `block`.
///
/// ```
/// use linear_layout::ttgir::graph::InsertPoint;
/// let p = InsertPoint { block: 0, index: 3 };
/// assert_eq!(p.index, 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InsertPoint {
    /// The block.
    pub block: BlockId,
    /// The position in it.
    pub index: usize,
}

impl Graph {
    /// Reads a TTGIR module (one) into an editable graph.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    tt.return\n  }\n}")?;
    /// assert_eq!(g.walk().len(), 2);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn parse(text: &str) -> Result<Graph, TtgirError> {
        Ok(Graph::parse_with_module(text)?.0)
    }

    /// Reads a module into a graph and the reader's [`Module`] of the same text: op and value
    /// ids agree between them (a pass that asks the module's analyses rewrites the graph).
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let (g, m) = Graph::parse_with_module("module {\n  tt.func @f(%a: i32) {\n    tt.return\n  }\n}")?;
    /// assert_eq!(g.op(0).name, m.ops[0].name);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn parse_with_module(text: &str) -> Result<(Graph, Module), TtgirError> {
        let module = Module::parse(text)?;
        let g = build::build(&module, text)?;
        Ok((g, module))
    }

    /// The op `id`.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.op(add).name, "arith.addi");
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn op(&self, id: OpId) -> &GOp {
        &self.ops[id]
    }

    /// The value `id`.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.value(b).ty.element, "i32");
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn value(&self, id: ValueId) -> &GValue {
        &self.values[id]
    }

    /// The value `id`, to change its type.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// g.value_mut(b).ty = linear_layout::ttgir::ValueType::scalar("i64");
    /// assert_eq!(g.value(b).ty.element, "i64");
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn value_mut(&mut self, id: ValueId) -> &mut GValue {
        &mut self.values[id]
    }

    /// The first live op named `name`, in walk order.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.find_op("tt.return").map(|o| g.op(o).name.clone()), Some("tt.return".to_string()));
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn find_op(&self, name: &str) -> Option<OpId> {
        self.walk().into_iter().find(|&o| self.ops[o].name == name)
    }

    /// Every live op in walk order (pre-order: an op before the ops of its regions), function
    /// by function.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.walk().len(), 3);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn walk(&self) -> Vec<OpId> {
        let mut out = Vec::new();
        for f in &self.funcs {
            for &b in &f.blocks {
                self.walk_block(b, &mut out);
            }
        }
        out
    }

    /// The live ops of block `b` and of the regions below it, in walk order.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// let mut ops = Vec::new();
    /// g.walk_block(g.funcs[0].blocks[0], &mut ops);
    /// assert_eq!(ops, g.walk());
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn walk_block(&self, b: BlockId, out: &mut Vec<OpId>) {
        for &o in &self.blocks[b].ops {
            out.push(o);
            for region in &self.ops[o].regions {
                for &rb in region {
                    self.walk_block(rb, out);
                }
            }
        }
    }

    /// The encoding of a tensor value, if it has one.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert!(g.encoding(b).is_none()); // a scalar
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn encoding(&self, v: ValueId) -> Option<&Arc<Encoding>> {
        let t = &self.values[v].ty;
        match t.kind {
            TypeKind::Tensor => t.encoding.as_ref(),
            _ => None,
        }
    }

    /// Whether `v` is a ranked tensor.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert!(!g.is_tensor(b));
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn is_tensor(&self, v: ValueId) -> bool {
        self.values[v].ty.kind == TypeKind::Tensor
    }

    /// The op defining `v`, if it is a result.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.def_op(b), Some(add));
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn def_op(&self, v: ValueId) -> Option<OpId> {
        match self.values[v].def {
            Def::Result { op, .. } => Some(op),
            Def::Arg { .. } => None,
        }
    }

    /// The op owning block `b`, if a region op owns it.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.block_parent_op(g.funcs[0].blocks[0]), None); // a function body
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn block_parent_op(&self, b: BlockId) -> Option<OpId> {
        match self.blocks[b].owner {
            BlockOwner::Op(o) => Some(o),
            BlockOwner::Func(_) => None,
        }
    }

    /// The region op holding `op`, if any.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.parent_op(add), None);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn parent_op(&self, op: OpId) -> Option<OpId> {
        self.block_parent_op(self.ops[op].block)
    }

    /// Every use of `v` by a live op, as (op, operand position), in walk order.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.uses(b), vec![(mul, 0), (mul, 1)]);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn uses(&self, v: ValueId) -> Vec<(OpId, usize)> {
        let mut out = Vec::new();
        for o in self.walk() {
            for (k, &x) in self.ops[o].operands.iter().enumerate() {
                if x == v {
                    out.push((o, k));
                }
            }
        }
        out
    }

    /// Every live use of every value, indexed by value: one walk for many queries.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.all_uses()[c].len(), 0);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn all_uses(&self) -> Vec<Vec<(OpId, usize)>> {
        let mut out = vec![Vec::new(); self.values.len()];
        for o in self.walk() {
            for (k, &x) in self.ops[o].operands.iter().enumerate() {
                out[x].push((o, k));
            }
        }
        out
    }

    /// Replaces every use of `old` by `new`.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// let a = g.op(add).operands[0];
    /// g.replace_all_uses(b, a);
    /// assert!(g.print()?.contains("arith.muli %a, %a"));
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn replace_all_uses(&mut self, old: ValueId, new: ValueId) {
        for op in self.ops.iter_mut().filter(|o| !o.erased) {
            for x in op.operands.iter_mut() {
                if *x == old {
                    *x = new;
                }
            }
        }
    }

    /// Where `op` sits in its block.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.position(mul).index, 1);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn position(&self, op: OpId) -> InsertPoint {
        let block = self.ops[op].block;
        let index = self.blocks[block].ops.iter().position(|&o| o == op).unwrap_or(0);
        InsertPoint { block, index }
    }

    /// The point right after `v`'s definition: after its op, or at the start of its block.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.after_value(b), g.position(mul));
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn after_value(&self, v: ValueId) -> InsertPoint {
        match self.values[v].def {
            Def::Result { op, .. } => {
                let p = self.position(op);
                InsertPoint {
                    index: p.index + 1,
                    ..p
                }
            }
            Def::Arg { block, .. } => InsertPoint { block, index: 0 },
        }
    }

    /// Removes `op` from its block (its regions go with it).
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// g.erase_op(mul);
    /// assert_eq!(g.walk().len(), 2);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn erase_op(&mut self, op: OpId) {
        let b = self.ops[op].block;
        self.blocks[b].ops.retain(|&o| o != op);
        self.ops[op].erased = true;
        let regions = std::mem::take(&mut self.ops[op].regions);
        for region in regions {
            for rb in region {
                for o in self.blocks[rb].ops.clone() {
                    self.erase_op(o);
                }
            }
        }
    }

    /// A new value of type `ty`.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// let v = g.new_value(linear_layout::ttgir::ValueType::scalar("i1"), g.value(b).def);
    /// assert_eq!(g.value(v).ty.element, "i1");
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn new_value(&mut self, ty: ValueType, def: Def) -> ValueId {
        let name = self.fresh_name();
        self.values.push(GValue { ty, def, name });
        self.values.len() - 1
    }

    pub(crate) fn fresh_name(&mut self) -> String {
        self.fresh += 1;
        format!("%ll{}", self.fresh)
    }

    /// Inserts a new op printed from the graph (see `Form::Built`) at `at`, with results of
    /// the given types; returns its id.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// let at = g.position(mul);
    /// let op = g.insert_built(at, "ttg.convert_layout", vec![b], vec![g.value(b).ty.clone()]);
    /// assert_eq!(g.position(op).index, 1);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn insert_built(
        &mut self,
        at: InsertPoint,
        name: &str,
        operands: Vec<ValueId>,
        result_types: Vec<ValueType>,
    ) -> OpId {
        self.insert_op(
            at,
            name,
            operands,
            result_types,
            Form::Built {
                trailing: String::new(),
            },
            Vec::new(),
        )
    }

    pub(crate) fn insert_op(
        &mut self,
        at: InsertPoint,
        name: &str,
        operands: Vec<ValueId>,
        result_types: Vec<ValueType>,
        form: Form,
        attrs: Attrs,
    ) -> OpId {
        let id = self.ops.len();
        let group = (result_types.len() > 1).then(|| self.fresh_name());
        let mut results = Vec::new();
        for (index, ty) in result_types.into_iter().enumerate() {
            let name = match &group {
                Some(g) => format!("{g}#{index}"),
                None => self.fresh_name(),
            };
            self.values.push(GValue {
                ty,
                def: Def::Result { op: id, index },
                name,
            });
            results.push(self.values.len() - 1);
        }
        self.ops.push(GOp {
            name: name.to_string(),
            operands,
            results,
            regions: Vec::new(),
            attrs,
            block: at.block,
            erased: false,
            line: 0,
            original: Vec::new(),
            form,
            group,
            successors: Vec::new(),
        });
        let ops = &mut self.blocks[at.block].ops;
        let index = at.index.min(ops.len());
        ops.insert(index, id);
        id
    }

    /// A `ttg.convert_layout` of `v` to `encoding`, inserted at `at`; returns its result.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// let enc: linear_layout::encodings::Encoding = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>".parse().unwrap();
    /// let at = g.after_value(b);
    /// let v = g.insert_convert(at, b, std::sync::Arc::new(enc));
    /// assert!(g.value(v).ty.encoding.is_some());
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn insert_convert(&mut self, at: InsertPoint, v: ValueId, encoding: Arc<Encoding>) -> ValueId {
        let ty = ValueType {
            encoding: Some(encoding),
            ..self.values[v].ty.clone()
        };
        let op = self.insert_built(at, "ttg.convert_layout", vec![v], vec![ty]);
        self.ops[op].results[0]
    }

    /// Whether the definition of `v` properly dominates `op`: `v` is defined before `op` in
    /// a block that holds `op` or one of its ancestors (a block argument dominates its block).
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert!(g.properly_dominates(b, mul));
    /// assert!(!g.properly_dominates(c, mul));
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn properly_dominates(&self, v: ValueId, op: OpId) -> bool {
        let (def_block, def_index) = match self.values[v].def {
            Def::Arg { block, .. } => (block, None),
            Def::Result { op: d, .. } => {
                if d == op || self.ops[d].erased {
                    return false;
                }
                let p = self.position(d);
                (p.block, Some(p.index))
            }
        };
        let mut cur = op;
        loop {
            let p = self.position(cur);
            if p.block == def_block {
                return def_index.is_none_or(|d| d < p.index);
            }
            match self.parent_op(cur) {
                Some(parent) => cur = parent,
                None => return false,
            }
        }
    }

    /// Whether `ancestor` is `op` or holds it in one of its regions.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert!(g.is_ancestor(add, add));
    /// assert!(!g.is_ancestor(add, mul));
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn is_ancestor(&self, ancestor: OpId, op: OpId) -> bool {
        let mut cur = Some(op);
        while let Some(c) = cur {
            if c == ancestor {
                return true;
            }
            cur = self.parent_op(c);
        }
        false
    }

    /// Adds a line to [`Graph::log`] about `op` (its source line and name).
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// g.note(add, "kept");
    /// assert_eq!(g.log, ["line 3: arith.addi: kept"]);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn note(&mut self, op: OpId, what: impl std::fmt::Display) {
        let o = &self.ops[op];
        let line = format!("{}: {what}", super::op_place(o.line, &o.name));
        self.log.push(line);
    }

    /// Prints the module as TTGIR.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert!(g.print()?.contains("%c = arith.muli %b, %b : i32"));
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn print(&self) -> Result<String, TtgirError> {
        Ok(print::print(self)?.0)
    }

    /// Prints the module and reads it back as the reader's [`Module`], each op keeping the
    /// line it had in the text this graph was first read from (0 for ops a pass made): what a
    /// later stage reports about an op names the line a person wrote.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("// a comment\nmodule {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    tt.return\n  }\n}")?;
    /// let (_, m) = g.print_module()?;
    /// assert_eq!(m.ops[0].line, 4); // printed on line 3, written on line 4
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn print_module(&self) -> Result<(String, Module), TtgirError> {
        let (text, sources) = print::print(self)?;
        let mut m = Module::parse(&text)?;
        for op in &mut m.ops {
            op.line = source_line(&sources, op.line);
        }
        Ok((text, m))
    }

    /// The graph printed and read again (with the reader's [`Module`] of the same text, ids
    /// agreeing), each op keeping the line it had in the text this graph was first read from;
    /// the log goes with it.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let g = Graph::parse("\n\nmodule {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    tt.return\n  }\n}")?;
    /// let (again, _) = g.read_again()?;
    /// assert_eq!(again.op(again.find_op("arith.addi").unwrap()).line, 5);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn read_again(&self) -> Result<(Graph, Module), TtgirError> {
        let (text, sources) = print::print(self)?;
        let (mut g, mut m) = Graph::parse_with_module(&text)?;
        for op in &mut g.ops {
            op.line = source_line(&sources, op.line);
        }
        for op in &mut m.ops {
            op.line = source_line(&sources, op.line);
        }
        g.log = self.log.clone();
        Ok((g, m))
    }

    /// Sets the module attribute `name` to `value`, written as MLIR writes it (`4 : i32`,
    /// `"hip:gfx942"`). The `module` line is kept as text: an attribute of that name is
    /// replaced there, a new one takes its place in MLIR's order (a dictionary is sorted by
    /// name), and a module without attributes gets `attributes {…}`. The name is quoted when it
    /// is not a bare identifier, as MLIR prints it (`"ttg.num-warps"` but `ttg.target`).
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f() {\n    tt.return\n  }\n}")?;
    /// g.set_module_attr("ttg.target", "\"hip:gfx942\"")?;
    /// g.set_module_attr("ttg.num-warps", "4 : i32")?;
    /// g.set_module_attr("ttg.num-warps", "8 : i32")?;
    /// let out = g.print()?;
    /// assert!(out.starts_with("module attributes {\"ttg.num-warps\" = 8 : i32, ttg.target = \"hip:gfx942\"} {"), "{out}");
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn set_module_attr(&mut self, name: &str, value: &str) -> Result<(), TtgirError> {
        for item in &mut self.items {
            let Item::Text(text) = item else {
                continue;
            };
            let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
            let Some(line) = lines.iter_mut().find(|l| is_module_line(l)) else {
                continue;
            };
            *line = with_module_attr(line, name, value).ok_or_else(|| TtgirError {
                line: 1,
                column: 1,
                message: format!("cannot set module attribute '{name}' in '{line}'"),
                limit: None,
            })?;
            *text = lines.join("\n");
            return Ok(());
        }
        Err(TtgirError {
            line: 1,
            column: 1,
            message: "cannot set a module attribute: no 'module' line".into(),
            limit: None,
        })
    }

    /// One op's text without its result names and regions (`arith.constant dense<0.0> :
    /// tensor<…>`): equal texts, equal ops.
    ///
    /// ```
    /// use linear_layout::ttgir::graph::Graph;
    /// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    %c = arith.muli %b, %b : i32\n    tt.return\n  }\n}")?;
    /// let (add, mul) = (g.find_op("arith.addi").unwrap(), g.find_op("arith.muli").unwrap());
    /// let (b, c) = (g.op(add).results[0], g.op(mul).results[0]);
    /// assert_eq!(g.op_text_without_results(add), "arith.addi %a, %a : i32");
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn op_text_without_results(&self, op: OpId) -> String {
        print::op_text_without_results(self, op)
    }
}

/// Whether a (trimmed) line opens the module: `module {`, `module attributes {…} {`,
/// `module @name …`.
fn is_module_line(line: &str) -> bool {
    line.strip_prefix("module")
        .is_some_and(|r| r.starts_with([' ', '{', '@']))
}

/// An attribute name as MLIR prints it: quoted unless it is a bare identifier
/// (`"ttg.num-warps"` but `ttg.target`).
fn quoted_unless_bare(name: &str) -> String {
    let bare = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if bare {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}

/// `line` (a module line) with attribute `name = value` set; `None` when its dictionary is
/// not where a module line has it.
fn with_module_attr(line: &str, name: &str, value: &str) -> Option<String> {
    let entry = format!("{} = {value}", quoted_unless_bare(name));
    let (head, inner, tail) = match line.find("attributes") {
        Some(a) => {
            let open = a + line[a..].find('{')?;
            let close = super::reader::matching(line, open)?;
            (&line[..open], &line[open + 1..close], &line[close + 1..])
        }
        None => {
            let body = line.trim_end().strip_suffix('{')?.trim_end();
            return Some(format!("{body} attributes {{{entry}}} {{"));
        }
    };
    let unquoted = |e: &str| {
        let k = super::reader::split_top(e, "=")[0].1.trim();
        k.trim_matches('"').to_string()
    };
    let mut entries: Vec<(String, String)> = super::reader::split_top(inner, ",")
        .into_iter()
        .map(|(_, e)| e.trim())
        .filter(|e| !e.is_empty())
        .map(|e| (unquoted(e), e.to_string()))
        .filter(|(k, _)| k != name)
        .collect();
    entries.push((name.to_string(), entry));
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let dict: Vec<String> = entries.into_iter().map(|(_, e)| e).collect();
    Some(format!("{head}{{{}}}{tail}", dict.join(", ")))
}

/// The source line of what was printed on `printed` (1-based), 0 when no source op wrote it.
fn source_line(sources: &[usize], printed: usize) -> usize {
    printed
        .checked_sub(1)
        .and_then(|k| sources.get(k))
        .copied()
        .unwrap_or(0)
}
