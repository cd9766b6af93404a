//! The module model: values, ops, functions and attributes as the reader leaves them.

use std::fmt;
use std::sync::Arc;

use crate::encodings::{Aliases, Encoding};
use crate::limits::LimitExceeded;

/// A TTGIR syntax or reference error, with its 1-based position.
///
/// ```
/// use linear_layout::ttgir::Module;
/// let err = Module::parse("module {\n  tt.func @f() {\n    %x = arith.addi %nope, %nope : i32\n  }\n}").unwrap_err();
/// assert_eq!((err.line, err.column), (3, 21));
/// assert!(err.to_string().contains("%nope"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TtgirError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// The limit exceeded, when that is what is wrong ([`MAX_INPUT_BYTES`](super::MAX_INPUT_BYTES),
    /// [`MAX_MODULES`](super::MAX_MODULES), [`MAX_REGION_DEPTH`](super::MAX_REGION_DEPTH),
    /// [`MAX_OP_RESULTS`](super::MAX_OP_RESULTS), [`MAX_VALUES`](super::MAX_VALUES), or
    /// one of an encoding's).
    pub limit: Option<LimitExceeded>,
}

impl TtgirError {
    /// The same position, with `limit` as what is wrong.
    pub(crate) fn with_limit(self, limit: LimitExceeded) -> TtgirError {
        TtgirError {
            message: limit.to_string(),
            limit: Some(limit),
            ..self
        }
    }
}

/// A limit exceeded by the text as a whole (at line 1, column 1).
impl From<LimitExceeded> for TtgirError {
    fn from(limit: LimitExceeded) -> Self {
        TtgirError {
            line: 1,
            column: 1,
            message: limit.to_string(),
            limit: Some(limit),
        }
    }
}

impl fmt::Display for TtgirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for TtgirError {}

/// What a value's type says: shape (empty for scalars), element type and encoding.
///
/// ```
/// use linear_layout::ttgir::ValueType;
/// let t = ValueType::scalar("!tt.ptr<f16>");
/// assert_eq!(t.pointee(), Some("f16"));
/// assert_eq!(t.pointee_bits(), Some(16));
/// assert_eq!(t.rank(), 1); // scalars count as rank 1 for AxisInfo
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueType {
    /// `Tensor`, `Scalar`, `MemDesc` or `Other` (tokens, unknown types).
    pub kind: TypeKind,
    /// Dimensions (empty for scalars).
    pub shape: Vec<u64>,
    /// The element type as written (`f16`, `i32`, `!tt.ptr<f16>`, …).
    pub element: String,
    /// The encoding, if any (values whose types name one alias share it).
    pub encoding: Option<Arc<Encoding>>,
    /// What a `!ttg.memdesc<…>` says after its encoding (memory space, `mutable`, alloc
    /// shape), verbatim; empty for other types.
    pub memory: Vec<String>,
}

/// The four kinds of [`ValueType`].
///
/// ```
/// use linear_layout::ttgir::{TypeKind, ValueType};
/// assert_eq!(ValueType::scalar("i32").kind, TypeKind::Scalar);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeKind {
    /// `tensor<…>`.
    Tensor,
    /// A scalar (`i32`, `f16`, `!tt.ptr<f16>`).
    Scalar,
    /// `!ttg.memdesc<…>` (shared memory).
    MemDesc,
    /// Anything else (`!ttg.async.token`, unknown types).
    Other,
}

impl ValueType {
    /// A scalar of element type `element`.
    ///
    /// ```
    /// use linear_layout::ttgir::ValueType;
    /// assert!(ValueType::scalar("i32").shape.is_empty());
    /// ```
    pub fn scalar(element: &str) -> ValueType {
        ValueType {
            kind: TypeKind::Scalar,
            shape: Vec::new(),
            element: element.to_string(),
            encoding: None,
            memory: Vec::new(),
        }
    }

    /// An opaque type (tokens and anything unrecognised).
    ///
    /// ```
    /// use linear_layout::ttgir::{TypeKind, ValueType};
    /// assert_eq!(ValueType::other("!ttg.async.token").kind, TypeKind::Other);
    /// ```
    pub fn other(text: &str) -> ValueType {
        ValueType {
            kind: TypeKind::Other,
            shape: Vec::new(),
            element: text.to_string(),
            encoding: None,
            memory: Vec::new(),
        }
    }

    /// AxisInfo rank: the number of dims, 1 for scalars.
    ///
    /// ```
    /// use linear_layout::ttgir::ValueType;
    /// assert_eq!(ValueType::scalar("i1").rank(), 1);
    /// ```
    pub fn rank(&self) -> usize {
        self.shape.len().max(1)
    }

    /// The pointee of a pointer element type (`!tt.ptr<f16>` → `f16`).
    ///
    /// ```
    /// use linear_layout::ttgir::ValueType;
    /// assert_eq!(ValueType::scalar("i32").pointee(), None);
    /// ```
    pub fn pointee(&self) -> Option<&str> {
        self.element
            .strip_prefix("!tt.ptr<")
            .and_then(|r| r.strip_suffix('>'))
            .map(|p| p.split(',').next().unwrap_or(p).trim())
    }

    /// Bit width of the pointee of a pointer element type.
    ///
    /// ```
    /// use linear_layout::ttgir::ValueType;
    /// assert_eq!(ValueType::scalar("!tt.ptr<bf16>").pointee_bits(), Some(16));
    /// ```
    pub fn pointee_bits(&self) -> Option<u32> {
        self.pointee().and_then(element_bits)
    }

    /// Whether this is a ranked tensor of pointers.
    ///
    /// ```
    /// use linear_layout::ttgir::ValueType;
    /// assert!(!ValueType::scalar("!tt.ptr<f16>").is_tensor_of_ptr());
    /// ```
    pub fn is_tensor_of_ptr(&self) -> bool {
        self.kind == TypeKind::Tensor && self.pointee().is_some()
    }

    /// The same type with another element type (a load's result from its pointer type).
    pub(super) fn with_element(&self, element: &str) -> ValueType {
        ValueType {
            element: element.to_string(),
            ..self.clone()
        }
    }
}

/// Bit width of an element type name (`f16` → 16, `f8E4M3FN` → 8, `!tt.ptr<…>` → 64).
///
/// ```
/// use linear_layout::ttgir::element_bits;
/// assert_eq!(element_bits("bf16"), Some(16));
/// assert_eq!(element_bits("f8E5M2FNUZ"), Some(8));
/// assert_eq!(element_bits("i1"), Some(1));
/// assert_eq!(element_bits("foo"), None);
/// ```
pub fn element_bits(t: &str) -> Option<u32> {
    let t = t.trim();
    if t.starts_with("!tt.ptr") {
        return Some(64);
    }
    if t.starts_with("f8") {
        return Some(8);
    }
    match t {
        "f16" | "bf16" => Some(16),
        "f32" | "tf32" => Some(32),
        "f64" => Some(64),
        "index" => Some(64),
        "f4E2M1FN" => Some(4),
        _ => t
            .strip_prefix('i')
            .or_else(|| t.strip_prefix("ui"))
            .or_else(|| t.strip_prefix("si"))
            .and_then(|n| n.parse().ok())
            .filter(|&b: &u32| b > 0 && b <= 128),
    }
}

/// Where a value comes from.
///
/// ```
/// use linear_layout::ttgir::ValueDef;
/// let d = ValueDef::Op { op: 3, index: 0 };
/// assert!(matches!(d, ValueDef::Op { op: 3, .. }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// Argument `index` of function `func`.
    FuncArg {
        /// Index into [`Module::funcs`].
        func: usize,
        /// Argument position.
        index: usize,
    },
    /// Result `index` of operation `op`.
    Op {
        /// Index into [`Module::ops`].
        op: usize,
        /// Result position.
        index: usize,
    },
    /// Argument `index` of block `block` of function `func`'s body ([`Func::blocks`]).
    FuncBlockArg {
        /// Index into [`Module::funcs`].
        func: usize,
        /// Index into the function's [`blocks`](Func::blocks).
        block: usize,
        /// Argument position.
        index: usize,
    },
    /// Block argument `index` of the region of operation `op` (`scf.for`: 0 is the induction
    /// variable, then the iteration arguments).
    BlockArg {
        /// The region's operation.
        op: usize,
        /// Argument position.
        index: usize,
    },
}

/// One SSA value.
///
/// ```
/// use linear_layout::ttgir::{Value, ValueDef, ValueType};
/// let v = Value { name: "%x".into(), ty: ValueType::scalar("i32"), def: ValueDef::FuncArg { func: 0, index: 0 } };
/// assert_eq!(v.name, "%x");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Value {
    /// The SSA name (`%p3`, `%for17#1`).
    pub name: String,
    /// Its type.
    pub ty: ValueType,
    /// Its definition.
    pub def: ValueDef,
}

/// An attribute value as far as the heuristics care.
///
/// ```
/// use linear_layout::ttgir::AttrValue;
/// assert_eq!(AttrValue::Int(16).ints(1), Some(vec![16]));
/// assert_eq!(AttrValue::Ints(vec![8, 8]).ints(2), Some(vec![8, 8]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrValue {
    /// `16 : i32`, `true`.
    Int(i64),
    /// `dense<[8, 8]> : tensor<2xi32>`, `array<i32: 1, 2>`, `[1, 2]`.
    Ints(Vec<i64>),
    /// `"hip:gfx942"`.
    Str(String),
    /// Anything else, verbatim.
    Raw(String),
}

impl AttrValue {
    /// The value as `rank` integers: a scalar is repeated, a list must have `rank` entries.
    ///
    /// ```
    /// use linear_layout::ttgir::AttrValue;
    /// assert_eq!(AttrValue::Int(4).ints(3), Some(vec![4, 4, 4]));
    /// assert_eq!(AttrValue::Ints(vec![1]).ints(2), None);
    /// ```
    pub fn ints(&self, rank: usize) -> Option<Vec<i64>> {
        match self {
            AttrValue::Int(v) => Some(vec![*v; rank]),
            AttrValue::Ints(v) if v.len() == rank => Some(v.clone()),
            _ => None,
        }
    }
}

/// A named attribute list (`{axis = 1 : i32, …}`), in source order.
///
/// ```
/// use linear_layout::ttgir::{Attrs, AttrValue};
/// let a: Attrs = vec![("tt.divisibility".into(), AttrValue::Int(16))];
/// assert_eq!(a.len(), 1);
/// ```
pub type Attrs = Vec<(String, AttrValue)>;

/// Looks an attribute up by name.
///
/// ```
/// use linear_layout::ttgir::{attr, AttrValue};
/// let a = vec![("axis".to_string(), AttrValue::Int(1))];
/// assert_eq!(attr(&a, "axis"), Some(&AttrValue::Int(1)));
/// ```
pub fn attr<'a>(attrs: &'a Attrs, name: &str) -> Option<&'a AttrValue> {
    attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

/// The text of a string attribute as the module writes it (`AttrValue::Str` keeps MLIR's
/// escapes): `\\`, `\"`, `\n`, `\t` and `\` with two hex digits decoded; `None` for a
/// malformed escape or bytes that are not UTF-8.
///
/// ```
/// use linear_layout::ttgir::decode_string;
/// assert_eq!(decode_string(r#"v_min_i32 $0, $2, $3\0A v_max_i32 $1, $2, $3"#).as_deref(),
///     Some("v_min_i32 $0, $2, $3\n v_max_i32 $1, $2, $3"));
/// assert_eq!(decode_string(r#"say \"hi\""#).as_deref(), Some("say \"hi\""));
/// assert_eq!(decode_string(r"\q"), None);
/// assert_eq!(decode_string(r"\+1"), None);
/// ```
pub fn decode_string(raw: &str) -> Option<String> {
    let b = raw.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let (byte, len) = match b.get(i + 1)? {
            b'\\' => (b'\\', 2),
            b'"' => (b'"', 2),
            b'n' => (b'\n', 2),
            b't' => (b'\t', 2),
            _ => {
                let hex = raw
                    .get(i + 1..i + 3)
                    .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))?;
                (u8::from_str_radix(hex, 16).ok()?, 3)
            }
        };
        out.push(byte);
        i += len;
    }
    String::from_utf8(out).ok()
}

/// A constant written in an `arith.constant`.
///
/// ```
/// use linear_layout::ttgir::Constant;
/// assert_eq!(Constant::Int(64), Constant::Int(64));
/// assert_ne!(Constant::Float(0.0), Constant::Other);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Constant {
    /// An integer (scalar or `dense<v>` splat), or the bit pattern of a float written in hex
    /// (`dense<0xFF800000> : tensor<…xf32>`, −∞: `0xFF800000`; a 64-bit pattern wraps to
    /// negative).
    Int(i64),
    /// A float (scalar or `dense<v>` splat), e.g. `dense<0.000000e+00>`.
    Float(f64),
    /// A non-splat constant.
    Other,
}

/// One operation.
///
/// ```
/// use linear_layout::ttgir::Module;
/// let m = Module::parse("module {\n tt.func @f(%a: i32) {\n %b = arith.addi %a, %a : i32\n tt.return\n }\n}")?;
/// let add = &m.ops[0];
/// assert_eq!((add.name.as_str(), add.operands.len(), add.line), ("arith.addi", 2, 3));
/// # Ok::<(), linear_layout::ttgir::TtgirError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    /// The op name (`tt.load`, `arith.addi`, …).
    pub name: String,
    /// Operand values (indices into [`Module::values`]).
    pub operands: Vec<usize>,
    /// Result values.
    pub results: Vec<usize>,
    /// The attributes: the op's dictionary (inline, or after its regions), its properties
    /// (`<{…}>` of the generic form), `key = value` written among the operands
    /// (`rounding = rtne`, `propagateNan = all`), `fastmath` (the flags: `nnan,ninf`), the
    /// `predicate` of `arith.cmpi` / `arith.cmpf` by name (`slt`, whichever form it was written
    /// in), and the leading keywords of the atomics under Triton's names (`atomic_rmw_op`,
    /// `sem`, `scope`: `fadd`, `acq_rel`, `gpu`), the function a `tt.call` calls
    /// (`callee`, an [`AttrValue::Str`] without `@` and quotes) and the assembly of
    /// `tt.elementwise_inline_asm` (`asm_string`, escapes as written: [`decode_string`]). Enumerations are
    /// [`AttrValue::Raw`], in source order.
    pub attrs: Attrs,
    /// The predicate of `arith.cmpi` / `arith.cmpf` (`slt`, `ogt`, …) or the first keyword of
    /// other ops (`x` of `tt.get_program_id x`, `fadd` of `tt.atomic_rmw`).
    pub keyword: Option<String>,
    /// The constant of `arith.constant`.
    pub constant: Option<Constant>,
    /// Operand position of the mask (`tt.load`, `tt.store`, `tt.atomic_rmw`, async copies), if
    /// any.
    pub mask: Option<usize>,
    /// Operand position of the `other` value, if any.
    pub other: Option<usize>,
    /// `tt.dot_scaled`: operand positions of the scales.
    pub scales: Vec<usize>,
    /// Block arguments of its region(s) (`scf.for`: induction variable, then iteration args;
    /// `scf.while`: those of the condition region, one per operand, then those of the body;
    /// `tt.reduce` / `tt.scan`: the combiner's, two per operand).
    pub block_args: Vec<usize>,
    /// The ops of its region(s), in order.
    pub body: Vec<usize>,
    /// Where each of its regions starts in [`body`](Op::body): `[0]` for one region, `[0, k]`
    /// for `scf.if … else` (`body[k..]` is the else region, which has no `scf.yield` when the
    /// op has no results) and `scf.while` (`body[k..]` is the `do` region); empty for an op
    /// without regions.
    ///
    /// ```
    /// use linear_layout::ttgir::Module;
    /// let m = Module::parse("module {\n tt.func @f(%c: i1) {\n scf.if %c {\n } else {\n tt.return\n }\n tt.return\n }\n}")?;
    /// assert_eq!((m.ops[0].regions.as_slice(), m.ops[0].body.len()), (&[0, 0][..], 1));
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub regions: Vec<usize>,
    /// The enclosing region op, if any.
    pub parent: Option<usize>,
    /// The function it belongs to.
    pub func: usize,
    /// 1-based source line (0 for an op the layout passes made, in a module read back from
    /// their output: see [`Graph::print_module`](crate::ttgir::graph::Graph::print_module)).
    pub line: usize,
    /// Whether the reader has no rule for this op (its results are opaque).
    pub opaque: bool,
    /// The blocks a branch (`cf.br`, `cf.cond_br`) goes to, in order, each with how many of
    /// the operands it passes (after the condition of `cf.cond_br`, in order).
    pub successors: Vec<Successor>,
    /// The labelled blocks of its regions (`^bb0(…):`, `^bb1:` …), in order, each starting at
    /// its place in [`body`](Op::body): a region of several blocks branches between them (a
    /// scalar function with an early `return` mapped by `tt.map_elementwise`).
    ///
    /// ```
    /// use linear_layout::ttgir::Module;
    /// let m = Module::parse("module {\n tt.func @f(%x: tensor<4xf32>) {\n %y = \"tt.map_elementwise\"(%x) <{pack = 1 : i32}> ({\n ^bb0(%a: f32):\n %c = arith.constant 0.0 : f32\n %p = arith.cmpf ogt, %a, %c : f32\n cf.cond_br %p, ^bb2(%a : f32), ^bb1\n ^bb1:\n cf.br ^bb2(%c : f32)\n ^bb2(%r: f32):\n tt.map_elementwise.return %r : f32\n }) : (tensor<4xf32>) -> tensor<4xf32>\n tt.return\n }\n}")?;
    /// let labels: Vec<(&str, usize)> = m.ops[0].blocks.iter().map(|b| (b.label.as_str(), b.start)).collect();
    /// assert_eq!(labels, [("^bb0", 0), ("^bb1", 3), ("^bb2", 4)]);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub blocks: Vec<FuncBlock>,
}

/// A branch's target: a block of the function's body and the number of operands passed to
/// its arguments.
///
/// ```
/// use linear_layout::ttgir::Module;
/// let m = Module::parse("module {\n tt.func @f(%c: i1, %a: i32) {\n cf.cond_br %c, ^bb1, ^bb2(%a : i32)\n ^bb1:\n tt.return\n ^bb2(%x: i32):\n tt.return\n }\n}")?;
/// let br = &m.ops[0];
/// assert_eq!(br.successors.iter().map(|s| (s.block.as_str(), s.operands)).collect::<Vec<_>>(), [("^bb1", 0), ("^bb2", 1)]);
/// assert_eq!(m.funcs[0].blocks.len(), 3);
/// # Ok::<(), linear_layout::ttgir::TtgirError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Successor {
    /// The block's label (`^bb1`).
    pub block: String,
    /// Operands passed to its arguments.
    pub operands: usize,
}

/// A block of a body that has several — a function's or a region's (`^bb1(%a: i32):` … a
/// branch, a return or the region's terminator).
#[derive(Clone, Debug, PartialEq)]
pub struct FuncBlock {
    /// Its label (`^bb0` for the entry block).
    pub label: String,
    /// Where its ops start in the body ([`Func::body`], [`Op::body`]).
    pub start: usize,
    /// Its arguments' values.
    pub args: Vec<usize>,
}

/// A `tt.func`.
///
/// ```
/// use linear_layout::ttgir::Module;
/// let m = Module::parse("module {\n tt.func public @f(%a: i32 {tt.divisibility = 16 : i32}) {\n tt.return\n }\n}")?;
/// assert_eq!(m.funcs[0].name, "f");
/// assert_eq!(m.funcs[0].arg_attrs[0][0].0, "tt.divisibility");
/// # Ok::<(), linear_layout::ttgir::TtgirError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    /// The symbol name, without `@`.
    pub name: String,
    /// Argument values.
    pub args: Vec<usize>,
    /// Argument attribute dictionaries.
    pub arg_attrs: Vec<Attrs>,
    /// Top-level ops of the body.
    pub body: Vec<usize>,
    /// The body's blocks where it has several (an early `return` makes Triton branch with
    /// `cf.cond_br`): the entry block first; empty for a body of one block.
    pub blocks: Vec<FuncBlock>,
}

/// A parsed TTGIR module.
///
/// ```
/// use linear_layout::ttgir::Module;
/// let m = Module::parse(r#"module attributes {"ttg.num-warps" = 8 : i32} { }"#)?;
/// assert_eq!(m.num_warps, 8);
/// assert_eq!(m.threads_per_warp, 32); // Triton's default when absent
/// # Ok::<(), linear_layout::ttgir::TtgirError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// `ttg.num-warps` (4 when absent).
    pub num_warps: u32,
    /// `ttg.threads-per-warp` (32 when absent, Triton's default).
    pub threads_per_warp: u32,
    /// `ttg.num-ctas` (1 when absent).
    pub num_ctas: u32,
    /// The arch of `ttg.target = "hip:gfx942"`, if any.
    pub target: Option<String>,
    /// The 1-based line of the `module` keyword in the text it was read from.
    pub first_line: usize,
    /// Module attributes, verbatim.
    pub attrs: Attrs,
    /// The encoding aliases.
    pub aliases: Aliases,
    /// All values.
    pub values: Vec<Value>,
    /// All ops, in source order (a region op comes before its body).
    pub ops: Vec<Op>,
    /// The functions.
    pub funcs: Vec<Func>,
    /// Things the reader could not model (unknown ops), one line each.
    pub notes: Vec<String>,
}

impl Module {
    /// The op that defines value `v`, if it is an op result.
    ///
    /// ```
    /// use linear_layout::ttgir::Module;
    /// let m = Module::parse("module {\n tt.func @f(%a: i32) {\n %b = arith.addi %a, %a : i32\n tt.return\n }\n}")?;
    /// assert_eq!(m.def_op(m.ops[0].results[0]), Some(0));
    /// assert_eq!(m.def_op(m.ops[0].operands[0]), None);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn def_op(&self, v: usize) -> Option<usize> {
        match self.values.get(v)?.def {
            ValueDef::Op { op, .. } => Some(op),
            _ => None,
        }
    }

    /// For each value, the ops that use it.
    ///
    /// ```
    /// use linear_layout::ttgir::Module;
    /// let m = Module::parse("module {\n tt.func @f(%a: i32) {\n %b = arith.addi %a, %a : i32\n tt.return\n }\n}")?;
    /// assert_eq!(m.users()[0], vec![0, 0]);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn users(&self) -> Vec<Vec<usize>> {
        let mut u = vec![Vec::new(); self.values.len()];
        for (i, op) in self.ops.iter().enumerate() {
            for &v in &op.operands {
                if let Some(x) = u.get_mut(v) {
                    x.push(i);
                }
            }
        }
        u
    }
}

/// Where an op is, for a message: `line 12: tt.load`, or `tt.load (made by the layout passes)`
/// for an op with no source line.
///
/// ```
/// use linear_layout::ttgir::op_place;
/// assert_eq!(op_place(12, "tt.load"), "line 12: tt.load");
/// assert_eq!(op_place(0, "ttg.convert_layout"), "ttg.convert_layout (made by the layout passes)");
/// ```
pub fn op_place(line: usize, name: &str) -> String {
    if line == 0 {
        format!("{name} (made by the layout passes)")
    } else {
        format!("line {line}: {name}")
    }
}
