//! MLIR's folders of `arith` ops, which its greedy rewriter applies wherever it runs (every
//! pass's cleanup, not only `canonicalize`).
//!
//! A folder replaces an op by a value it already has (`addi(x, 0)` is `x`), by a new constant
//! (`subi(3, 1)` is `2`), or changes it in place (`maxsi(1, x)` becomes `maxsi(x, 1)`: a
//! commutative op takes its constant on the right). The rules are those of MLIR's
//! `ArithOps.cpp`, with its integer semantics: values wrap at their width, and a division by
//! zero or one that overflows is not folded.
//!
//! Constants are read when they are one value: a scalar or a splat (`dense<0>`). Folding two
//! constants that are not splats (MLIR folds them element by element) is left out, as are
//! folding float arithmetic on two constants and `cmpi`'s own move of a constant to the right
//! (it also flips the predicate).

use crate::ttgir::graph::{Graph, OpId, ValueId};
use crate::ttgir::{TypeKind, ValueType};

/// What a folder makes of an op.
enum Folded {
    /// The op's result is this existing value.
    Value(ValueId),
    /// The op's result is this integer constant.
    Int(Int),
    /// The op's result is the float constant with this literal (as MLIR prints it).
    Float(String),
    /// The op was changed in place.
    InPlace,
}

/// Folds `op` if one of MLIR's `arith` folders applies; returns the ops made or changed (the
/// greedy rewriter looks at them again), `None` if nothing applies.
pub(super) fn fold(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    let name = g.ops[op].name.clone();
    if !name.starts_with("arith.") || g.ops[op].results.len() != 1 {
        return None;
    }
    let folded = match name.as_str() {
        "arith.extf" => fold_extf(g, op),
        "arith.truncf" => fold_truncf(g, op),
        _ => fold_binary(g, op, &name),
    };
    let folded = folded.or_else(|| move_constant_right(g, op, &name))?;
    apply(g, op, folded)
}

/// Carries a fold out: replaces the op's result and erases it, or notes the in-place change.
fn apply(g: &mut Graph, op: OpId, folded: Folded) -> Option<Vec<OpId>> {
    let &res = g.ops[op].results.first()?;
    let ty = g.values[res].ty.clone();
    let value = match folded {
        Folded::InPlace => return Some(vec![op]),
        Folded::Value(v) => {
            // A folder keeps the type; a value of another type is a graph this code does not
            // understand, left as it is.
            if g.values[v].ty != ty {
                return None;
            }
            v
        }
        Folded::Int(n) => materialize(g, op, &ty, &n.literal())?,
        Folded::Float(literal) => materialize(g, op, &ty, &literal)?,
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

/// A new `arith.constant` of `literal` right before `op` (where MLIR's rewriter puts a folded
/// constant; the next round moves it to the top of the function or merges it with an equal
/// one). Returns its result.
fn materialize(g: &mut Graph, op: OpId, ty: &ValueType, literal: &str) -> Option<ValueId> {
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
    g.note(new, format!("folded from a {}", g.ops[op].name));
    g.ops[new].results.first().copied()
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

/// The integer `v` is a constant of, when it is one value (a scalar or a splat).
fn int_constant(g: &Graph, v: ValueId) -> Option<Int> {
    let bits = int_width(&g.values[v].ty.element)?;
    let literal = constant_literal(g, v)?;
    match literal.as_str() {
        "true" => Some(Int::new(bits, 1)),
        "false" => Some(Int::new(bits, 0)),
        l => l.parse::<i128>().ok().map(|n| Int::new(bits, n)),
    }
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

/// `arith.cmpi`: `cmpi(p, x, x)` is true for `eq`, `sle`, `sge`, `ule`, `uge` and false for
/// the others; two constants compare; `cmpi ne, x, false` and `cmpi eq, x, true` on `i1` are
/// `x`.
fn fold_cmpi(g: &Graph, op: OpId, lhs: ValueId, rhs: ValueId) -> Option<Folded> {
    let text = g.op_text_without_results(op);
    let predicate = text
        .strip_prefix("arith.cmpi ")?
        .split(',')
        .next()?
        .trim()
        .to_string();
    let bool_of = |b: bool| Folded::Int(Int::new(1, i128::from(b)));
    if lhs == rhs {
        let equal_holds = matches!(predicate.as_str(), "eq" | "sle" | "sge" | "ule" | "uge");
        compare(&predicate, Int::new(1, 0), Int::new(1, 0))?;
        return Some(bool_of(equal_holds));
    }
    let r = int_constant(g, rhs);
    if g.values[lhs].ty.element == "i1"
        && let Some(r) = r
        && ((r.is_zero() && predicate == "ne") || (r.is_one() && predicate == "eq"))
    {
        return Some(Folded::Value(lhs));
    }
    let (a, b) = (int_constant(g, lhs)?, r?);
    Some(bool_of(compare(&predicate, a, b)?))
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
        return fold_float_identity(g, op, name, lhs, rhs);
    }
    let r = int_constant(g, rhs);
    let rhs_is = |want: fn(Int) -> bool| r.is_some_and(want);
    let bits = int_width(&g.values[rhs].ty.element)?;
    let zero = || Some(Folded::Int(Int::new(bits, 0)));
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
    fold_constants(name, a, b).map(Folded::Int)
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
    let operands = &mut g.ops[op].operands;
    let (&lhs, &rhs) = (operands.first()?, operands.get(1)?);
    if operands.len() != 2 || !is_constant(g, lhs) || is_constant(g, rhs) {
        return None;
    }
    g.ops[op].operands.swap(0, 1);
    Some(Folded::InPlace)
}

/// The float identities of MLIR's folders: `x + (-0.0)`, `x - 0.0`, `x * 1.0`, `x / 1.0`,
/// `max(x, -inf)`, `min(x, +inf)` are `x`.
fn fold_float_identity(g: &Graph, op: OpId, name: &str, lhs: ValueId, rhs: ValueId) -> Option<Folded> {
    let &res = g.ops[op].results.first()?;
    let element = g.values[res].ty.element.as_str();
    let value = constant_literal(g, rhs).and_then(|l| float_literal(&l, element))?;
    let identity = match name {
        "arith.addf" => value == 0.0 && value.is_sign_negative(),
        "arith.subf" => value == 0.0 && value.is_sign_positive(),
        "arith.mulf" | "arith.divf" => value == 1.0,
        "arith.maximumf" | "arith.maxnumf" => value == f64::NEG_INFINITY,
        "arith.minimumf" | "arith.minnumf" => value == f64::INFINITY,
        _ => false,
    };
    identity.then_some(Folded::Value(lhs))
}

/// `v` rounded to the nearest value with `mantissa` fraction bits and exponents from `min_exp`
/// (subnormals below it), ties to even; `None` past `max`.
fn round_float(v: f64, mantissa: i32, min_exp: i32, max: f64) -> Option<f64> {
    if v == 0.0 || !v.is_finite() {
        return Some(v);
    }
    let e = (v.abs().log2().floor() as i32).max(min_exp);
    let q = 2f64.powi(e - mantissa);
    let r = (v / q).round_ties_even() * q;
    (r.abs() <= max).then_some(r)
}

/// The value `v` rounds to in `element` (`f16`, `bf16`, `f32`, `f64`).
fn round_to(v: f64, element: &str) -> Option<f64> {
    match element {
        "f16" => round_float(v, 10, -14, 65504.0),
        "bf16" => round_float(v, 7, -126, 3.3895313892515355e38),
        "f32" => round_float(v, 23, -126, f64::from(f32::MAX)),
        "f64" => Some(v),
        _ => None,
    }
}

/// The exact value a decimal float literal denotes in `element`.
fn exact_in(literal: &str, element: &str) -> Option<f64> {
    round_to(literal.trim().parse().ok()?, element)
}

/// The literal MLIR prints for the finite float `v` of type `element`: seven significant
/// digits in exponent form (`1.000000e+00`, `-2.500000e-01`). `None` when that form does not
/// read back as `v` (MLIR then prints a longer form, not produced here).
fn print_float(v: f64, element: &str) -> Option<String> {
    if !v.is_finite() {
        return None;
    }
    let text = format!("{v:.6e}");
    let (mantissa, exp) = text.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let sign = if exp < 0 { '-' } else { '+' };
    let printed = format!("{mantissa}e{sign}{:02}", exp.unsigned_abs());
    let back = exact_in(&printed, element)?;
    (back == v && back.is_sign_negative() == v.is_sign_negative()).then_some(printed)
}

/// The value of the float constant `v`, with its element type, when it is one decimal value
/// (hex literals are bit patterns of infinities and NaNs: not folded here).
fn float_constant(g: &Graph, v: ValueId) -> Option<(f64, String)> {
    let literal = constant_literal(g, v)?;
    if literal.starts_with("0x") {
        return None;
    }
    let element = g.values[v].ty.element.clone();
    Some((exact_in(&literal, &element)?, element))
}

/// `arith.extf` of a float constant: the constant in the wider type (exact, as every wider
/// float type holds the value): `extf(dense<1.0> : f16)` is `dense<1.000000e+00> : f32`.
fn fold_extf(g: &Graph, op: OpId) -> Option<Folded> {
    let &src = g.ops[op].operands.first()?;
    let (value, _) = float_constant(g, src)?;
    let &res = g.ops[op].results.first()?;
    print_float(value, &g.values[res].ty.element).map(Folded::Float)
}

/// `arith.truncf`: of an `extf`, the extension's source when it has the result's type
/// (`truncf(extf(x : f16) : f32) : f16` is `x`), or a truncation of that source when it is
/// wider than the result (changed in place); of a constant, the constant in the narrower type
/// when it holds the value exactly (`truncf(dense<0.0> : f32)` is `dense<0.000000e+00> :
/// f16`; `0.1` is not folded).
fn fold_truncf(g: &mut Graph, op: OpId) -> Option<Folded> {
    let &src = g.ops[op].operands.first()?;
    let &res = g.ops[op].results.first()?;
    let to = g.values[res].ty.element.clone();
    if let Some(ext) = g.def_op(src)
        && g.ops[ext].name == "arith.extf"
        && let Some(&inner) = g.ops[ext].operands.first()
    {
        let width = |e: &str| match e {
            "f16" | "bf16" => Some(16),
            "f32" => Some(32),
            "f64" => Some(64),
            _ => None,
        };
        let from = g.values[inner].ty.element.clone();
        // Every extension this code meets (f16/bf16 to f32/f64, f32 to f64) is exact.
        if width(&from)? > width(&to)? {
            g.ops[op].operands[0] = inner;
            return Some(Folded::InPlace);
        }
        if from == to {
            return Some(Folded::Value(inner));
        }
    }
    let (value, _) = float_constant(g, src)?;
    if round_to(value, &to)? != value {
        return None;
    }
    print_float(value, &to).map(Folded::Float)
}

/// The literal of the constant `v` is, when it is one value (a scalar or a splat): `0`,
/// `true`, `-0.000000e+00`, `1.000000e+00`.
pub(super) fn constant_literal(g: &Graph, v: ValueId) -> Option<String> {
    let cst = g.def_op(v)?;
    if g.ops[cst].name != "arith.constant" {
        return None;
    }
    let text = g.op_text_without_results(cst);
    let body = text.strip_prefix("arith.constant ")?;
    let literal = match body.strip_prefix("dense<") {
        Some(rest) if !rest.starts_with('[') && !rest.starts_with('"') => &rest[..rest.find('>')?],
        Some(_) => return None,
        None => body.split(" : ").next()?,
    };
    Some(literal.trim().to_string())
}

/// The value of a float literal as MLIR prints it: decimal, or the bit pattern in hex
/// (`0xFF800000` is -inf in f32, `0xFC00` in f16).
fn float_literal(literal: &str, element: &str) -> Option<f64> {
    let Some(hex) = literal.strip_prefix("0x") else {
        return literal.parse().ok();
    };
    let bits = u64::from_str_radix(hex, 16).ok()?;
    match element {
        "f64" => Some(f64::from_bits(bits)),
        "f32" => Some(f64::from(f32::from_bits(u32::try_from(bits).ok()?))),
        // bf16 is the top half of an f32.
        "bf16" => Some(f64::from(f32::from_bits(u32::try_from(bits).ok()? << 16))),
        "f16" => {
            let b = u16::try_from(bits).ok()?;
            let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
            let (exp, frac) = (i32::from((b >> 10) & 0x1f), f64::from(b & 0x3ff));
            Some(match exp {
                0 => sign * frac * 2f64.powi(-24),
                31 if frac == 0.0 => sign * f64::INFINITY,
                31 => f64::NAN,
                e => sign * (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
            })
        }
        _ => None,
    }
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
        assert_eq!(Int::new(1, 1).literal(), "true");
        assert_eq!(Int::new(64, -1).literal(), "-1");
    }

    #[test]
    fn division_by_zero_and_overflow_are_not_folded() {
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
    }

    #[test]
    fn divisions_round_as_named() {
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
    }

    #[test]
    fn cmpi_predicates_read_signedness() {
        assert_eq!(compare("slt", i32c(-1), i32c(0)), Some(true));
        assert_eq!(compare("ult", i32c(-1), i32c(0)), Some(false));
        assert_eq!(compare("bogus", i32c(0), i32c(0)), None);
    }

    #[test]
    fn floats_print_as_mlir_does() {
        assert_eq!(print_float(0.0, "f16").as_deref(), Some("0.000000e+00"));
        assert_eq!(print_float(-0.0, "f32").as_deref(), Some("-0.000000e+00"));
        assert_eq!(
            print_float(0.0999755859375, "f16").as_deref(),
            Some("9.997559e-02")
        );
        assert_eq!(print_float(1e10, "f32").as_deref(), Some("1.000000e+10"));
        // 0.1 in f64 needs more digits than the short form has.
        assert_eq!(print_float(0.1 + 1e-12, "f64"), None);
    }

    #[test]
    fn hex_literals_are_bit_patterns_of_their_type() {
        assert_eq!(float_literal("0xFF800000", "f32"), Some(f64::NEG_INFINITY));
        assert_eq!(float_literal("0x7C00", "f16"), Some(f64::INFINITY));
        assert_eq!(float_literal("0x3C00", "f16"), Some(1.0));
        assert_eq!(float_literal("0xFF80", "bf16"), Some(f64::NEG_INFINITY));
        assert_eq!(
            float_literal("-0.000000e+00", "f32").map(f64::is_sign_negative),
            Some(true)
        );
        assert_eq!(float_literal("0x7F800000", "i32"), None);
    }

    #[test]
    fn a_literal_denotes_the_nearest_value_of_its_type() {
        // MLIR prints f16 0.1 with six digits; the value is the f16 nearest to it.
        assert_eq!(exact_in("9.997559e-02", "f16"), Some(0.0999755859375));
        assert_eq!(exact_in("1.000000e+00", "bf16"), Some(1.0));
        assert_eq!(exact_in("1.0e5", "f16"), None); // past f16's largest finite value
        assert_eq!(exact_in("0.1", "f32"), Some(f64::from(0.1f32)));
    }

    fn module(body: &str) -> Graph {
        let text =
            format!("module {{\n  tt.func @k(%x: i32, %y: i1, %f: f32) {{\n{body}\n    tt.return\n  }}\n}}");
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
            "    %c1 = arith.constant 1 : i32\n    %d = arith.ceildivsi %x, %c1 : i32\n    tt.store %d, %d : i32",
        );
        assert!(fold_named(&mut g, "arith.ceildivsi").is_some());
        let out = g.print().unwrap();
        assert!(
            !out.contains("ceildivsi") && out.contains("tt.store %x, %x"),
            "{out}"
        );
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
    fn truncf_folds_only_exact_constants() {
        let mut g = module(
            "    %z = arith.constant dense<0.000000e+00> : tensor<4xf32>\n    %t = arith.truncf %z : tensor<4xf32> to tensor<4xf16>\n    %p = arith.constant dense<1.000000e-01> : tensor<4xf32>\n    %u = arith.truncf %p : tensor<4xf32> to tensor<4xf16>\n    tt.store %t, %u : tensor<4xf16>",
        );
        let truncs: Vec<OpId> = g
            .walk()
            .into_iter()
            .filter(|&o| g.ops[o].name == "arith.truncf")
            .collect();
        assert!(fold(&mut g, truncs[0]).is_some());
        assert!(fold(&mut g, truncs[1]).is_none());
        let out = g.print().unwrap();
        assert!(
            out.contains("arith.constant dense<0.000000e+00> : tensor<4xf16>"),
            "{out}"
        );
    }
}
