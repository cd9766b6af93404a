//! The folders MLIR's greedy rewriter tries on every op it visits, before any pattern, in every
//! pass's cleanup (not only `canonicalize`): MLIR's `arith` folders (`ArithOps.cpp`) and
//! Triton's folders of its own ops. A folder replaces an op by a value it already has, by a new
//! constant (placed where the op stood; the rewriter's constant step then moves it to the top
//! of the function or merges it with an equal one), or changes it in place.
//!
//! Triton's ops, on constants that are one value (a scalar or a splat, `dense<0>`):
//!
//! * `tt.splat`, `tt.expand_dims`, `tt.trans`, `tt.broadcast`, `tt.reshape` of a constant are
//!   the constant in the result type: `tt.splat %c3 : i32 -> tensor<64xi32>` is `dense<3>`;
//! * `tt.broadcast %x` and `tt.reshape %x` (without `allow_reorder`) to `%x`'s own type, and
//!   `tt.fp_to_fp %x` to its own type, are `%x`; `tt.fp_to_fp` of `±0.0` is `±0.0`;
//! * `tt.make_range {end = 5, start = 4}` is `dense<4>`; `tt.addptr %p, %zero` is `%p`.
//!
//! `arith`'s integer ops, values wrapping at their width (`index` is 64 bits):
//!
//! * identities: `addi x, 0`, `subi x, 0`, `muli x, 1`, `divsi x, 1` (every division),
//!   `andi x, -1`, `ori x, 0`, `xori x, 0`, `shli x, 0`, `maxsi x, MIN`, `minui x, MAX`, and
//!   `maxsi x, x` (every min/max) are `x`; `muli x, 0`, `andi x, 0`, `ori x, -1`,
//!   `maxsi x, MAX`, `minsi x, MIN`, `maxui x, MAX`, `minui x, 0` are their constant;
//!   `subi x, x`, `xori x, x`, `remsi x, 1`, `andi x, (xori x, -1)` are `0` and
//!   `ori x, (xori x, -1)` is `-1`;
//! * `addi (subi a, b), b`, `subi (addi a, b), b`, `xori (xori a, b), b`, `divsi (muli a, b),
//!   b` (with `nsw`; `divui` with `nuw`) are `a`; `andi a, (andi a, b)` is `andi a, b`;
//! * two constants fold: `addi 2147483647, 1 : i32` is `-2147483648`, `ceildivsi 7, 2` is `4`,
//!   `shrsi -8, 1` is `-4`; a division by zero, `divsi MIN, -1`, a shift by the width or more
//!   are not folded;
//! * `cmpi p, x, x` is `true` for `eq`, `sle`, `sge`, `ule`, `uge`, else `false`; two
//!   constants compare; on `i1`, `cmpi ne, x, false` and `cmpi eq, x, true` are `x`, as is
//!   `cmpi ne, (extui x : i1), 0`;
//! * `select c, x, x` and `select true, x, y` are `x`; `select c, true, false` is `c`;
//!   `select (cmpi ne, a, b), a, b` is `a` (with `eq`: `b`).
//!
//! `arith`'s float ops, computed as `APFloat` computes (rounded once to the type; an overflow
//! is an infinity, written in hex as MLIR writes it):
//!
//! * `addf x, -0.0`, `subf x, 0.0`, `mulf x, 1.0`, `divf x, 1.0`, `maximumf x, -inf`,
//!   `minimumf x, +inf`, `maxnumf x, NaN`, `minnumf x, NaN`, `maximumf x, x` (every
//!   min/max) are `x`;
//! * two constants fold: `addf 1.0, 2.0` is `3.0`, `divf 1.0, 0.0` is `+inf`;
//! * casts of constants: `extf` and `truncf` when the value is exact in the new type
//!   (`truncf 0.1 : f32 to f16` is not folded), `sitofp` and `uitofp` rounded once, `extsi`,
//!   `extui` and `trunci` at the widths; `truncf (extf x : f16 to f32) to f16` is `x` and
//!   `truncf (extf x : f32 to f64) to f16` is `truncf x`.
//!
//! A commutative op with a constant on the left and none on the right has them swapped in place
//! (`maxsi 1, x` becomes `maxsi x, 1`), as MLIR's `Commutative` trait folds, so the rules above
//! that look right see it.
//!
//! Left out: constants that are not one value (MLIR folds them element by element), results
//! that are NaNs (MLIR writes their payload's bits), `cmpi`'s move of a constant to the right
//! (it also flips the predicate), folds under fast-math flags, and the other ops' folders
//! (`negf`, `remf`, `cmpf`, `bitcast`, …).

use crate::ttgir::graph::{Graph, OpId, ValueId};
use crate::ttgir::{TypeKind, ValueType};

use super::float_attr;

/// A constant that is one value: a scalar, or a splat (every element the same).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lit {
    Int(Int),
    /// A float, exactly the value its type holds (infinities and NaNs included).
    Float(f64),
}

/// What a folder makes of an op.
enum Folded {
    /// The op's result is this existing value.
    Value(ValueId),
    /// The op's result is a new constant of its result type holding this.
    Const(Lit),
    /// The op was changed in place.
    InPlace,
}

/// Folds `op` if one of the folders applies; returns the ops made or changed (the greedy
/// rewriter looks at them again), `None` if nothing applies.
pub(super) fn fold(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    if g.ops[op].results.len() != 1 {
        return None;
    }
    let name = g.ops[op].name.clone();
    let folded = match name.as_str() {
        "arith.extf" | "arith.truncf" | "arith.sitofp" | "arith.uitofp" | "arith.extsi" | "arith.extui"
        | "arith.trunci" => fold_cast(g, op, &name),
        "arith.select" => fold_select(g, op),
        n if n.starts_with("arith.") => fold_binary(g, op, n),
        n if n.starts_with("tt.") => fold_triton(g, op, n),
        _ => None,
    };
    let folded = folded.or_else(|| move_constant_right(g, op, &name))?;
    apply(g, op, &name, folded)
}

/// Carries a fold out: replaces the op's result and erases it, or notes the in-place change.
fn apply(g: &mut Graph, op: OpId, name: &str, folded: Folded) -> Option<Vec<OpId>> {
    let &res = g.ops[op].results.first()?;
    let ty = g.values[res].ty.clone();
    let value = match folded {
        Folded::InPlace => {
            g.note(op, "folded in place");
            return Some(vec![op]);
        }
        // A folder keeps the type; a value of another type is a graph this code does not
        // understand, left as it is.
        Folded::Value(v) if g.values[v].ty != ty => return None,
        Folded::Value(v) => {
            g.note(op, "folded: its result is a value already there");
            v
        }
        Folded::Const(lit) => materialize(g, op, name, &ty, lit)?,
    };
    let mut touched: Vec<OpId> = g.uses(res).into_iter().map(|(u, _)| u).collect();
    touched.extend(g.def_op(value));
    for &o in &g.ops[op].operands {
        touched.extend(g.def_op(o));
    }
    g.replace_all_uses(res, value);
    g.erase_op(op);
    Some(touched)
}

/// A new `arith.constant` of type `ty` holding `lit`, right before `op`; returns its result.
fn materialize(g: &mut Graph, op: OpId, name: &str, ty: &ValueType, lit: Lit) -> Option<ValueId> {
    let literal = match lit {
        Lit::Int(n) => n.literal(),
        Lit::Float(v) => float_attr::print(v, &ty.element)?,
    };
    let text = match ty.kind {
        TypeKind::Tensor => format!("$r = arith.constant dense<{literal}> : $rt0"),
        TypeKind::Scalar if ty.element == "i1" => format!("$r = arith.constant {literal}"),
        TypeKind::Scalar => format!("$r = arith.constant {literal} : $rt0"),
        TypeKind::MemDesc | TypeKind::Other => return None,
    };
    let at = g.position(op);
    let new = g
        .insert_text(at, "arith.constant", Vec::new(), vec![ty.clone()], &text)
        .ok()?;
    g.note(new, format_args!("folded: the {name} is a constant"));
    g.ops[new].results.first().copied()
}

/// Triton's folders: constants through shape ops, ops to their own type, size-one ranges,
/// `addptr p, 0`.
fn fold_triton(g: &Graph, op: OpId, name: &str) -> Option<Folded> {
    let o = &g.ops[op];
    let &res = o.results.first()?;
    if name == "tt.make_range" {
        let (start, end) = range_bounds(&g.op_text_without_results(op))?;
        let bits = int_width(&g.values[res].ty.element)?;
        return (end == start + 1).then(|| Folded::Const(Lit::Int(Int::new(bits, start))));
    }
    let &src = o.operands.first()?;
    let same_type = g.values[src].ty == g.values[res].ty;
    let splat = || constant_value(g, src).map(Folded::Const);
    match name {
        "tt.splat" | "tt.expand_dims" | "tt.trans" => splat(),
        "tt.broadcast" | "tt.fp_to_fp" if same_type => Some(Folded::Value(src)),
        // A reshape that may reorder elements is kept even to its own type.
        "tt.reshape" if same_type && !g.op_text_without_results(op).contains("allow_reorder") => {
            Some(Folded::Value(src))
        }
        "tt.broadcast" | "tt.reshape" => splat(),
        "tt.fp_to_fp" => float_constant(g, src)
            .filter(|&v| v == 0.0)
            .map(|v| Folded::Const(Lit::Float(v))),
        "tt.addptr" => int_constant(g, *o.operands.get(1)?)
            .filter(|n| n.is_zero())
            .map(|_| Folded::Value(src)),
        _ => None,
    }
}

/// `make_range`'s `start` and `end` from its text (`{end = 1 : i32, start = 0 : i32}`).
fn range_bounds(text: &str) -> Option<(i128, i128)> {
    let field = |key: &str| -> Option<i128> {
        let rest = text.get(text.find(key)? + key.len()..)?.trim_start();
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '-'))?;
        rest.get(..end)?.parse().ok()
    };
    Some((field("start =")?, field("end =")?))
}

/// The cast folders: constants converted, `truncf` of an `extf`.
fn fold_cast(g: &mut Graph, op: OpId, name: &str) -> Option<Folded> {
    let (&src, &res) = (g.ops[op].operands.first()?, g.ops[op].results.first()?);
    let to = g.values[res].ty.element.clone();
    if name == "arith.truncf"
        && let Some(folded) = truncf_of_extf(g, op, src, &to)
    {
        return Some(folded);
    }
    let out = match (name, constant_value(g, src)?) {
        ("arith.extf" | "arith.truncf", Lit::Float(v)) => Lit::Float(float_attr::exact(v, &to)?),
        ("arith.sitofp", Lit::Int(n)) => Lit::Float(float_attr::from_int(n.s(), &to)?),
        ("arith.uitofp", Lit::Int(n)) => Lit::Float(float_attr::from_int(n.u(), &to)?),
        ("arith.extsi" | "arith.trunci", Lit::Int(n)) => Lit::Int(Int::new(int_width(&to)?, n.s())),
        ("arith.extui", Lit::Int(n)) => Lit::Int(Int::new(int_width(&to)?, n.u())),
        _ => return None,
    };
    Some(Folded::Const(out))
}

/// `truncf` of an `extf` (which is exact): the extension's source when it has the result's
/// type, or a truncation of that source (changed in place) when it is wider than the result.
fn truncf_of_extf(g: &mut Graph, op: OpId, src: ValueId, to: &str) -> Option<Folded> {
    let ext = g.def_op(src).filter(|&e| g.ops[e].name == "arith.extf")?;
    let &inner = g.ops[ext].operands.first()?;
    let from = g.values[inner].ty.element.clone();
    let width = |e: &str| match e {
        "f16" | "bf16" => Some(16),
        "f32" => Some(32),
        "f64" => Some(64),
        _ => None,
    };
    if from == to {
        return Some(Folded::Value(inner));
    }
    if width(&from)? > width(to)? {
        *g.ops[op].operands.first_mut()? = inner;
        return Some(Folded::InPlace);
    }
    None
}

/// An integer of `bits` bits (1 to 64; `index` is 64), kept as its two's-complement bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Int {
    bits: u32,
    raw: u64,
}

impl Int {
    /// `v` wrapped to `bits` bits.
    fn new(bits: u32, v: i128) -> Int {
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        // The low 64 bits of `v`, then its low `bits`: wrapping, as APInt's arithmetic does.
        Int {
            bits,
            raw: (v as u64) & mask,
        }
    }

    /// The value read as signed.
    fn s(self) -> i128 {
        let shift = 128 - self.bits;
        (i128::from(self.raw) << shift) >> shift
    }

    /// The value read as unsigned.
    fn u(self) -> i128 {
        i128::from(self.raw)
    }

    fn min_signed(bits: u32) -> i128 {
        -(1i128 << (bits - 1))
    }

    fn max_signed(bits: u32) -> i128 {
        (1i128 << (bits - 1)) - 1
    }

    fn max_unsigned(bits: u32) -> i128 {
        (1i128 << bits) - 1
    }

    /// `v` if it fits `bits` bits as a signed value (otherwise the operation overflowed).
    fn signed(bits: u32, v: i128) -> Option<Int> {
        (Int::min_signed(bits)..=Int::max_signed(bits))
            .contains(&v)
            .then(|| Int::new(bits, v))
    }

    fn is_zero(self) -> bool {
        self.raw == 0
    }

    fn is_one(self) -> bool {
        self.raw == 1
    }

    fn is_all_ones(self) -> bool {
        self.u() == Int::max_unsigned(self.bits)
    }

    /// The literal MLIR prints: `true`/`false` for `i1`, otherwise the signed value.
    fn literal(self) -> String {
        match (self.bits, self.raw) {
            (1, 0) => "false".into(),
            (1, _) => "true".into(),
            _ => self.s().to_string(),
        }
    }
}

/// The width of an integer element type: `i1` … `i64`, `index` (64).
fn int_width(element: &str) -> Option<u32> {
    if element == "index" {
        return Some(64);
    }
    let bits: u32 = element.strip_prefix('i')?.parse().ok()?;
    (1..=64).contains(&bits).then_some(bits)
}

/// The value of `v` when it is an `arith.constant` of one value of an integer or float type:
/// `dense<1>`, `true`, `-0.000000e+00`, `0xFF800000`.
fn constant_value(g: &Graph, v: ValueId) -> Option<Lit> {
    let cst = g.def_op(v)?;
    if g.ops[cst].name != "arith.constant" {
        return None;
    }
    let text = g.op_text_without_results(cst);
    let body = text.strip_prefix("arith.constant ")?;
    let literal = match body.strip_prefix("dense<") {
        Some(rest) => rest.get(..rest.find('>')?)?,
        None => body.split(" : ").next()?,
    }
    .trim();
    // Element lists, strings and attribute dictionaries do not take part.
    if literal.contains(['[', '"', '{']) {
        return None;
    }
    let element = &g.values[v].ty.element;
    if let Some(bits) = int_width(element) {
        let n = match literal {
            "true" => 1,
            "false" => 0,
            l => l.parse().ok()?,
        };
        return Some(Lit::Int(Int::new(bits, n)));
    }
    float_attr::read(literal, element).map(Lit::Float)
}

fn int_constant(g: &Graph, v: ValueId) -> Option<Int> {
    match constant_value(g, v)? {
        Lit::Int(n) => Some(n),
        Lit::Float(_) => None,
    }
}

fn float_constant(g: &Graph, v: ValueId) -> Option<f64> {
    match constant_value(g, v)? {
        Lit::Float(x) => Some(x),
        Lit::Int(_) => None,
    }
}

/// The signed value of `v` when it is an integer constant (scalar or splat): `-1` for
/// `arith.constant -1 : i32`.
pub(super) fn int_value(g: &Graph, v: ValueId) -> Option<i128> {
    int_constant(g, v).map(Int::s)
}

/// `true` or `false` when `v` is a scalar `i1` constant.
pub(super) fn bool_constant(g: &Graph, v: ValueId) -> Option<bool> {
    let ty = &g.values[v].ty;
    if ty.element != "i1" || !ty.shape.is_empty() {
        return None;
    }
    int_constant(g, v).map(|n| !n.is_zero())
}

fn is_constant(g: &Graph, v: ValueId) -> bool {
    g.def_op(v).is_some_and(|d| g.ops[d].name == "arith.constant")
}

/// The op defining `v` when it is named `name`, with its operands.
fn defined_by(g: &Graph, v: ValueId, name: &str) -> Option<(OpId, ValueId, ValueId)> {
    let d = g.def_op(v)?;
    let o = &g.ops[d];
    (o.name == name && o.operands.len() == 2).then(|| (d, o.operands[0], o.operands[1]))
}

/// Whether `v` is `xor(x, all ones)`, the negation of `x`.
fn is_not_of(g: &Graph, v: ValueId, x: ValueId) -> bool {
    defined_by(g, v, "arith.xori")
        .is_some_and(|(_, a, b)| a == x && int_constant(g, b).is_some_and(Int::is_all_ones))
}

/// Whether the `arith.muli` `op` carries the overflow flag `flag` (`nsw`, `nuw`).
fn has_overflow_flag(g: &Graph, op: OpId, flag: &str) -> bool {
    let text = g.op_text_without_results(op);
    text.split_once("overflow<")
        .and_then(|(_, rest)| rest.split_once('>'))
        .is_some_and(|(flags, _)| flags.split(',').any(|f| f.trim() == flag))
}

/// `(a * b) / b` is `a` (and `(a * b) / a` is `b`) when the multiplication cannot overflow
/// (`flag`: `nsw` for signed division, `nuw` for unsigned).
fn div_of_mul(g: &Graph, lhs: ValueId, rhs: ValueId, flag: &str) -> Option<Folded> {
    let (mul, a, b) = defined_by(g, lhs, "arith.muli")?;
    if !has_overflow_flag(g, mul, flag) {
        return None;
    }
    if a == rhs {
        Some(Folded::Value(b))
    } else if b == rhs {
        Some(Folded::Value(a))
    } else {
        None
    }
}

/// `ceildivsi` of two constants (MLIR's folder): `None` for a division by zero or when a step
/// overflows (`MIN / -1`, negating `MIN`).
fn ceil_div_signed(a: Int, b: Int) -> Option<Int> {
    let bits = a.bits;
    let (x, y) = (a.s(), b.s());
    if y == 0 {
        return None;
    }
    if x == 0 {
        return Some(a);
    }
    let neg = |v: i128| Int::signed(bits, -v).map(Int::s);
    // (p - 1) / q + 1 for positive p and q.
    let ceil_pos = |p: i128, q: i128| Int::signed(bits, (p - 1) / q + 1);
    match (x > 0, y > 0) {
        (true, true) => ceil_pos(x, y),
        (false, false) => ceil_pos(neg(x)?, neg(y)?),
        (false, true) => Int::signed(bits, -(neg(x)? / y)),
        (true, false) => Int::signed(bits, -(x / neg(y)?)),
    }
}

/// Two integer constants combined by the op `name`, as MLIR's constant folders do.
fn fold_constants(name: &str, a: Int, b: Int) -> Option<Int> {
    let bits = a.bits;
    let wrap = |v: i128| Some(Int::new(bits, v));
    // A shift by the width or more is not folded.
    let shift = u32::try_from(b.u()).ok().filter(|&s| s < bits);
    match name {
        "arith.addi" => wrap(a.s() + b.s()),
        "arith.subi" => wrap(a.s() - b.s()),
        "arith.muli" => wrap(a.s() * b.s()),
        "arith.divui" if !b.is_zero() => wrap(a.u() / b.u()),
        "arith.divsi" if !b.is_zero() => Int::signed(bits, a.s() / b.s()),
        "arith.ceildivui" if !b.is_zero() => {
            let q = a.u() / b.u();
            let q = if a.u() % b.u() == 0 { q } else { q + 1 };
            (q <= Int::max_unsigned(bits)).then(|| Int::new(bits, q))
        }
        "arith.ceildivsi" => ceil_div_signed(a, b),
        "arith.floordivsi" if !b.is_zero() => {
            let q = a.s() / b.s();
            let q = if q * b.s() != a.s() && (a.s() < 0) != (b.s() < 0) {
                q - 1
            } else {
                q
            };
            Int::signed(bits, q)
        }
        "arith.remui" if !b.is_zero() => wrap(a.u() % b.u()),
        "arith.remsi" if !b.is_zero() => wrap(a.s() % b.s()),
        "arith.andi" => wrap(i128::from(a.raw & b.raw)),
        "arith.ori" => wrap(i128::from(a.raw | b.raw)),
        "arith.xori" => wrap(i128::from(a.raw ^ b.raw)),
        "arith.maxsi" => wrap(a.s().max(b.s())),
        "arith.minsi" => wrap(a.s().min(b.s())),
        "arith.maxui" => wrap(a.u().max(b.u())),
        "arith.minui" => wrap(a.u().min(b.u())),
        "arith.shli" => wrap(a.u() << shift?),
        "arith.shrui" => wrap(a.u() >> shift?),
        "arith.shrsi" => wrap(a.s() >> shift?),
        _ => None,
    }
}

/// The predicate of `arith.cmpi` applied to two integers.
fn compare(predicate: &str, a: Int, b: Int) -> Option<bool> {
    Some(match predicate {
        "eq" => a.raw == b.raw,
        "ne" => a.raw != b.raw,
        "slt" => a.s() < b.s(),
        "sle" => a.s() <= b.s(),
        "sgt" => a.s() > b.s(),
        "sge" => a.s() >= b.s(),
        "ult" => a.u() < b.u(),
        "ule" => a.u() <= b.u(),
        "ugt" => a.u() > b.u(),
        "uge" => a.u() >= b.u(),
        _ => return None,
    })
}

/// The predicate of the `arith.cmpi` `op` (`slt`).
fn cmpi_predicate(g: &Graph, op: OpId) -> Option<String> {
    let text = g.op_text_without_results(op);
    let predicate = text.strip_prefix("arith.cmpi ")?.split(',').next()?.trim();
    Some(predicate.to_string())
}

/// `arith.cmpi`'s folder.
fn fold_cmpi(g: &Graph, op: OpId, lhs: ValueId, rhs: ValueId) -> Option<Folded> {
    let predicate = cmpi_predicate(g, op)?;
    let bool_of = |b: bool| Folded::Const(Lit::Int(Int::new(1, i128::from(b))));
    if lhs == rhs {
        let equal_holds = matches!(predicate.as_str(), "eq" | "sle" | "sge" | "ule" | "uge");
        compare(&predicate, Int::new(1, 0), Int::new(1, 0))?;
        return Some(bool_of(equal_holds));
    }
    let r = int_constant(g, rhs);
    if let Some(r) = r
        && r.is_zero()
        && predicate == "ne"
        && let Some(ext) = g.def_op(lhs)
        && matches!(g.ops[ext].name.as_str(), "arith.extsi" | "arith.extui")
        && let Some(&x) = g.ops[ext].operands.first()
        && g.values[x].ty.element == "i1"
    {
        return Some(Folded::Value(x));
    }
    if g.values[lhs].ty.element == "i1"
        && let Some(r) = r
        && ((r.is_zero() && predicate == "ne") || (r.is_one() && predicate == "eq"))
    {
        return Some(Folded::Value(lhs));
    }
    let (a, b) = (int_constant(g, lhs)?, r?);
    Some(bool_of(compare(&predicate, a, b)?))
}

/// `arith.select`'s folder.
fn fold_select(g: &Graph, op: OpId) -> Option<Folded> {
    let o = &g.ops[op];
    let (&cond, &t, &f) = (o.operands.first()?, o.operands.get(1)?, o.operands.get(2)?);
    if t == f {
        return Some(Folded::Value(t));
    }
    if let Some(c) = int_constant(g, cond) {
        return Some(Folded::Value(if c.is_zero() { f } else { t }));
    }
    if int_constant(g, t).is_some_and(|n| n.bits == 1 && n.is_one())
        && int_constant(g, f).is_some_and(|n| n.bits == 1 && n.is_zero())
    {
        return Some(Folded::Value(cond));
    }
    let cmp = g.def_op(cond).filter(|&c| g.ops[c].name == "arith.cmpi")?;
    let (&a, &b) = (g.ops[cmp].operands.first()?, g.ops[cmp].operands.get(1)?);
    if !((a == t && b == f) || (a == f && b == t)) {
        return None;
    }
    match cmpi_predicate(g, cmp)?.as_str() {
        "ne" => Some(Folded::Value(t)),
        "eq" => Some(Folded::Value(f)),
        _ => None,
    }
}

/// The folders of the binary `arith` ops (MLIR's rules, which look for a constant on the
/// right: the commutative ops move theirs there first).
fn fold_binary(g: &Graph, op: OpId, name: &str) -> Option<Folded> {
    let o = &g.ops[op];
    let (&lhs, &rhs) = (o.operands.first()?, o.operands.get(1)?);
    if o.operands.len() != 2 {
        return None;
    }
    if name == "arith.cmpi" {
        return fold_cmpi(g, op, lhs, rhs);
    }
    if name.ends_with('f') {
        return fold_float_binary(g, op, name, lhs, rhs);
    }
    let r = int_constant(g, rhs);
    let rhs_is = |want: fn(Int) -> bool| r.is_some_and(want);
    let bits = int_width(&g.values[rhs].ty.element)?;
    let zero = || Some(Folded::Const(Lit::Int(Int::new(bits, 0))));
    let keep = |v: ValueId| Some(Folded::Value(v));
    let special = match name {
        "arith.addi" => {
            if rhs_is(Int::is_zero) {
                keep(lhs)
            } else if let Some((_, a, b)) = defined_by(g, lhs, "arith.subi")
                && b == rhs
            {
                // (a - b) + b
                keep(a)
            } else if let Some((_, a, b)) = defined_by(g, rhs, "arith.subi")
                && b == lhs
            {
                // b + (a - b)
                keep(a)
            } else {
                None
            }
        }
        "arith.subi" => {
            if lhs == rhs {
                zero()
            } else if rhs_is(Int::is_zero) {
                keep(lhs)
            } else if let Some((_, a, b)) = defined_by(g, lhs, "arith.addi")
                && (rhs == a || rhs == b)
            {
                // (a + b) - b, (a + b) - a
                keep(if rhs == b { a } else { b })
            } else {
                None
            }
        }
        "arith.muli" if rhs_is(Int::is_zero) => keep(rhs),
        "arith.muli" if rhs_is(Int::is_one) => keep(lhs),
        "arith.divui" | "arith.divsi" | "arith.ceildivui" | "arith.ceildivsi" | "arith.floordivsi"
            if rhs_is(Int::is_one) =>
        {
            keep(lhs)
        }
        "arith.divui" => div_of_mul(g, lhs, rhs, "nuw"),
        "arith.divsi" => div_of_mul(g, lhs, rhs, "nsw"),
        "arith.remui" | "arith.remsi" if rhs_is(Int::is_one) => zero(),
        "arith.shli" | "arith.shrui" | "arith.shrsi" if rhs_is(Int::is_zero) => keep(lhs),
        "arith.andi" => {
            if rhs_is(Int::is_zero) {
                keep(rhs)
            } else if rhs_is(Int::is_all_ones) {
                keep(lhs)
            } else if is_not_of(g, rhs, lhs) || is_not_of(g, lhs, rhs) {
                zero()
            } else {
                // and(a, and(a, b)) is and(a, b), either way round.
                [(lhs, rhs), (rhs, lhs)].into_iter().find_map(|(prev, other)| {
                    let (_, a, b) = defined_by(g, prev, "arith.andi")?;
                    (other == a || other == b).then_some(Folded::Value(prev))
                })
            }
        }
        "arith.ori" => {
            if rhs_is(Int::is_zero) {
                keep(lhs)
            } else if rhs_is(Int::is_all_ones) {
                keep(rhs)
            } else if is_not_of(g, rhs, lhs) {
                // or(x, not x): all ones, the xor's own constant.
                defined_by(g, rhs, "arith.xori").and_then(|(_, _, ones)| keep(ones))
            } else if is_not_of(g, lhs, rhs) {
                defined_by(g, lhs, "arith.xori").and_then(|(_, _, ones)| keep(ones))
            } else {
                None
            }
        }
        "arith.xori" => {
            if rhs_is(Int::is_zero) {
                keep(lhs)
            } else if lhs == rhs {
                zero()
            } else if let Some((_, a, b)) = defined_by(g, lhs, "arith.xori")
                && (b == rhs || a == rhs)
            {
                // (x ^ a) ^ a, (a ^ x) ^ a
                keep(if b == rhs { a } else { b })
            } else if let Some((_, a, b)) = defined_by(g, rhs, "arith.xori")
                && (b == lhs || a == lhs)
            {
                // a ^ (x ^ a), a ^ (a ^ x)
                keep(if b == lhs { a } else { b })
            } else {
                None
            }
        }
        "arith.maxsi" | "arith.minsi" | "arith.maxui" | "arith.minui" if lhs == rhs => keep(rhs),
        "arith.maxsi" if r.is_some_and(|c| c.s() == Int::max_signed(bits)) => keep(rhs),
        "arith.maxsi" if r.is_some_and(|c| c.s() == Int::min_signed(bits)) => keep(lhs),
        "arith.minsi" if r.is_some_and(|c| c.s() == Int::min_signed(bits)) => keep(rhs),
        "arith.minsi" if r.is_some_and(|c| c.s() == Int::max_signed(bits)) => keep(lhs),
        "arith.maxui" if rhs_is(Int::is_all_ones) => keep(rhs),
        "arith.maxui" if rhs_is(Int::is_zero) => keep(lhs),
        "arith.minui" if rhs_is(Int::is_zero) => keep(rhs),
        "arith.minui" if rhs_is(Int::is_all_ones) => keep(lhs),
        _ => None,
    };
    if special.is_some() {
        return special;
    }
    let (a, b) = (int_constant(g, lhs)?, r?);
    fold_constants(name, a, b).map(|n| Folded::Const(Lit::Int(n)))
}

/// The folders of the binary float ops: the identities on the right, then two constants.
fn fold_float_binary(g: &Graph, op: OpId, name: &str, lhs: ValueId, rhs: ValueId) -> Option<Folded> {
    let &res = g.ops[op].results.first()?;
    let b = float_constant(g, rhs);
    let identity = match name {
        "arith.addf" => b.is_some_and(|y| y == 0.0 && y.is_sign_negative()),
        "arith.subf" => b.is_some_and(|y| y == 0.0 && y.is_sign_positive()),
        "arith.mulf" | "arith.divf" => b == Some(1.0),
        "arith.maximumf" => lhs == rhs || b == Some(f64::NEG_INFINITY),
        "arith.minimumf" => lhs == rhs || b == Some(f64::INFINITY),
        // maxnum(x, -inf) is not x: a NaN x gives -inf.
        "arith.maxnumf" | "arith.minnumf" => lhs == rhs || b.is_some_and(f64::is_nan),
        _ => return None,
    };
    if identity {
        return Some(Folded::Value(lhs));
    }
    let (x, y) = (float_constant(g, lhs)?, b?);
    let v = match name {
        "arith.addf" => x + y,
        "arith.subf" => x - y,
        "arith.mulf" => x * y,
        "arith.divf" => x / y,
        _ => min_max(name, x, y)?,
    };
    // An f64 holds the exact result of these on narrower floats well enough that one
    // rounding to the type is APFloat's.
    let v = float_attr::round_to(v, &g.values[res].ty.element)?;
    (!v.is_nan()).then_some(Folded::Const(Lit::Float(v)))
}

/// `maximumf`, `minimumf` (a NaN wins, `-0.0 < +0.0`), `maxnumf`, `minnumf` (a NaN loses; of
/// two zeros of different signs LLVM's versions differ: not folded) of two constants.
fn min_max(name: &str, x: f64, y: f64) -> Option<f64> {
    let max = name.starts_with("arith.max");
    let nan_loses = name.ends_with("numf");
    if x.is_nan() || y.is_nan() {
        return nan_loses.then(|| if x.is_nan() { y } else { x });
    }
    if x == 0.0 && y == 0.0 && x.is_sign_negative() != y.is_sign_negative() {
        return (!nan_loses).then_some(if max { 0.0 } else { -0.0 });
    }
    Some(if max { x.max(y) } else { x.min(y) })
}

/// Whether `name` is a commutative `arith` op (MLIR's `Commutative` trait).
fn is_commutative(name: &str) -> bool {
    matches!(
        name,
        "arith.addi"
            | "arith.muli"
            | "arith.andi"
            | "arith.ori"
            | "arith.xori"
            | "arith.maxsi"
            | "arith.maxui"
            | "arith.minsi"
            | "arith.minui"
            | "arith.addf"
            | "arith.mulf"
            | "arith.maximumf"
            | "arith.minimumf"
            | "arith.maxnumf"
            | "arith.minnumf"
    )
}

/// MLIR's fold of the `Commutative` trait, tried when the op's own folder did nothing: a
/// constant operand moves to the right, in place (`maxsi(1, x)` becomes `maxsi(x, 1)`), so
/// that the folders' right-hand rules see it.
fn move_constant_right(g: &mut Graph, op: OpId, name: &str) -> Option<Folded> {
    if !is_commutative(name) {
        return None;
    }
    let operands = &g.ops[op].operands;
    let (&lhs, &rhs) = (operands.first()?, operands.get(1)?);
    if operands.len() != 2 || !is_constant(g, lhs) || is_constant(g, rhs) {
        return None;
    }
    g.ops[op].operands.swap(0, 1);
    Some(Folded::InPlace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i32c(v: i128) -> Int {
        Int::new(32, v)
    }

    #[test]
    fn integers_wrap_at_their_width() {
        assert_eq!(
            fold_constants("arith.addi", i32c(i128::from(i32::MAX)), i32c(1)),
            Some(i32c(i128::from(i32::MIN)))
        );
        assert_eq!(
            fold_constants("arith.muli", Int::new(8, 16), Int::new(8, 16)),
            Some(Int::new(8, 0))
        );
        assert_eq!(
            fold_constants("arith.subi", i32c(0), i32c(1)).map(Int::s),
            Some(-1)
        );
        assert_eq!(Int::new(8, 255).s(), -1);
        assert_eq!(Int::new(8, -1).u(), 255);
        assert_eq!(Int::new(1, 1).literal(), "true");
        assert_eq!(Int::new(64, -1).literal(), "-1");
        assert_eq!(
            range_bounds("tt.make_range {end = 1 : i32, start = 0 : i32} : tensor<1xi32>"),
            Some((0, 1))
        );
    }

    #[test]
    fn division_by_zero_overflow_and_wide_shifts_are_not_folded() {
        for name in [
            "arith.divsi",
            "arith.divui",
            "arith.remsi",
            "arith.remui",
            "arith.ceildivsi",
            "arith.ceildivui",
            "arith.floordivsi",
        ] {
            assert_eq!(fold_constants(name, i32c(7), i32c(0)), None, "{name}");
        }
        let min = i32c(i128::from(i32::MIN));
        assert_eq!(fold_constants("arith.divsi", min, i32c(-1)), None);
        assert_eq!(fold_constants("arith.floordivsi", min, i32c(-1)), None);
        // Negating MIN overflows: MLIR's ceildivsi gives up.
        assert_eq!(fold_constants("arith.ceildivsi", min, i32c(-2)), None);
        // MIN % -1 is 0, no overflow.
        assert_eq!(fold_constants("arith.remsi", min, i32c(-1)), Some(i32c(0)));
        assert_eq!(fold_constants("arith.shli", i32c(1), i32c(32)), None);
        assert_eq!(fold_constants("arith.shli", i32c(1), i32c(-1)), None);
        assert_eq!(fold_constants("arith.shli", i32c(1), i32c(31)), Some(min));
    }

    #[test]
    fn divisions_and_shifts_round_as_named() {
        let f = |name, a, b| fold_constants(name, i32c(a), i32c(b)).map(Int::s);
        assert_eq!(f("arith.divsi", -7, 2), Some(-3));
        assert_eq!(f("arith.ceildivsi", 7, 2), Some(4));
        assert_eq!(f("arith.ceildivsi", -7, 2), Some(-3));
        assert_eq!(f("arith.ceildivsi", 7, -2), Some(-3));
        assert_eq!(f("arith.ceildivsi", -7, -2), Some(4));
        assert_eq!(f("arith.ceildivsi", 0, -2), Some(0));
        assert_eq!(f("arith.floordivsi", -7, 2), Some(-4));
        assert_eq!(f("arith.floordivsi", 7, 2), Some(3));
        assert_eq!(f("arith.remsi", -7, 2), Some(-1));
        // Unsigned ops read -1 as the largest value.
        assert_eq!(f("arith.divui", -1, 2), Some(i128::from(i32::MAX)));
        assert_eq!(f("arith.ceildivui", 7, 2), Some(4));
        assert_eq!(f("arith.maxui", -1, 2), Some(-1));
        assert_eq!(f("arith.maxsi", -1, 2), Some(2));
        assert_eq!(f("arith.shrsi", -8, 1), Some(-4));
        assert_eq!(f("arith.shrui", -8, 28), Some(15));
    }

    #[test]
    fn cmpi_predicates_read_signedness() {
        assert_eq!(compare("slt", i32c(-1), i32c(0)), Some(true));
        assert_eq!(compare("ult", i32c(-1), i32c(0)), Some(false));
        assert_eq!(compare("bogus", i32c(0), i32c(0)), None);
    }

    #[test]
    fn float_min_max_follow_llvm() {
        assert_eq!(
            min_max("arith.maximumf", -0.0, 0.0).map(f64::is_sign_positive),
            Some(true)
        );
        assert_eq!(
            min_max("arith.minimumf", 0.0, -0.0).map(f64::is_sign_negative),
            Some(true)
        );
        assert!(min_max("arith.maximumf", f64::NAN, 1.0).is_none_or(f64::is_nan));
        assert_eq!(min_max("arith.maxnumf", f64::NAN, 1.0), Some(1.0));
        assert_eq!(min_max("arith.minnumf", -0.0, 0.0), None);
        assert_eq!(min_max("arith.minnumf", 2.0, -3.0), Some(-3.0));
    }

    fn module(body: &str) -> Graph {
        let text = format!(
            "module {{\n  tt.func @k(%x: i32, %y: i1, %f: f32, %p: !tt.ptr<f32>) {{\n{body}\n    tt.return\n  }}\n}}"
        );
        Graph::parse(&text).expect("test module parses")
    }

    fn fold_named(g: &mut Graph, name: &str) -> Option<Vec<OpId>> {
        let op = g.find_op(name).expect("op in test module");
        fold(g, op)
    }

    #[test]
    fn a_constant_on_the_left_of_a_commutative_op_moves_right() {
        let mut g = module(
            "    %c1 = arith.constant 1 : i32\n    %m = arith.maxsi %c1, %x : i32\n    tt.store %m, %m : i32",
        );
        assert!(fold_named(&mut g, "arith.maxsi").is_some());
        assert!(g.print().unwrap().contains("arith.maxsi %x, %c1 : i32"));
        // Now the op is canonical: nothing more to fold.
        assert!(fold_named(&mut g, "arith.maxsi").is_none());
    }

    #[test]
    fn identities_keep_the_other_operand() {
        let mut g = module(
            "    %c1 = arith.constant 1 : i32\n    %d = arith.ceildivsi %x, %c1 : i32\n    %m = arith.constant -0.000000e+00 : f32\n    %a = arith.addf %f, %m : f32\n    %s = arith.select %y, %d, %d : i32\n    tt.store %s, %a : i32",
        );
        for name in ["arith.ceildivsi", "arith.addf", "arith.select"] {
            assert!(fold_named(&mut g, name).is_some(), "{name}");
        }
        let out = g.print().unwrap();
        assert!(out.contains("tt.store %x, %f"), "{out}");
    }

    #[test]
    fn constants_fold_to_a_new_constant_before_the_op() {
        let mut g = module(
            "    %c7 = arith.constant 7 : i32\n    %c2 = arith.constant 2 : i32\n    %d = arith.ceildivsi %c7, %c2 : i32\n    %e = arith.cmpi slt, %d, %c2 : i32\n    tt.store %d, %e : i32",
        );
        assert!(fold_named(&mut g, "arith.ceildivsi").is_some());
        assert!(fold_named(&mut g, "arith.cmpi").is_some());
        let out = g.print().unwrap();
        assert!(out.contains("arith.constant 4 : i32"), "{out}");
        assert!(out.contains("arith.constant false"), "{out}");
    }

    #[test]
    fn casts_of_constants_fold_exactly() {
        let mut g = module(
            "    %z = arith.constant dense<0.000000e+00> : tensor<4xf32>\n    %t = arith.truncf %z : tensor<4xf32> to tensor<4xf16>\n    %p = arith.constant dense<1.000000e-01> : tensor<4xf32>\n    %u = arith.truncf %p : tensor<4xf32> to tensor<4xf16>\n    %i = arith.constant dense<0xFC00> : tensor<4xf16>\n    %e = arith.extf %i : tensor<4xf16> to tensor<4xf32>\n    %c = arith.constant dense<16777217> : tensor<4xi32>\n    %s = arith.sitofp %c : tensor<4xi32> to tensor<4xf32>\n    tt.store %t, %u, %e, %s : tensor<4xf16>",
        );
        let casts: Vec<OpId> = g
            .walk()
            .into_iter()
            .filter(|&o| g.ops[o].name != "arith.constant" && g.ops[o].name.starts_with("arith."))
            .collect();
        let folded: Vec<bool> = casts.iter().map(|&o| fold(&mut g, o).is_some()).collect();
        assert_eq!(folded, [true, false, true, true]);
        let out = g.print().unwrap();
        for text in [
            "arith.constant dense<0.000000e+00> : tensor<4xf16>",
            "arith.constant dense<0xFF800000> : tensor<4xf32>",
            // 16777217 rounds to 2^24, which MLIR writes in hex (its long form, 16777216, has
            // no '.').
            "arith.constant dense<0x4B800000> : tensor<4xf32>",
        ] {
            assert!(out.contains(text), "{text} in {out}");
        }
    }

    #[test]
    fn triton_ops_fold_splat_constants() {
        let mut g = module(
            "    %c3 = arith.constant 3 : i32\n    %s = tt.splat %c3 : i32 -> tensor<8xi32>\n    %r = tt.make_range {end = 6 : i32, start = 5 : i32} : tensor<1xi32>\n    %z = arith.constant 0 : i32\n    %q = tt.addptr %p, %z : !tt.ptr<f32>, i32\n    tt.store %q, %s, %r : tensor<8xi32>",
        );
        for name in ["tt.splat", "tt.make_range", "tt.addptr"] {
            assert!(fold_named(&mut g, name).is_some(), "{name}");
        }
        let out = g.print().unwrap();
        assert!(out.contains("arith.constant dense<3> : tensor<8xi32>"), "{out}");
        assert!(out.contains("arith.constant dense<5> : tensor<1xi32>"), "{out}");
        assert!(out.contains("tt.store %p,"), "{out}");
    }
}
