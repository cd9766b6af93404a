//! The folds MLIR's greedy rewriter tries on every op it visits, before any pattern: an op whose
//! result is known from constant operands becomes a constant, and an op that gives back one of
//! its operands (`x + 0`, a broadcast to its own type) is replaced by it.
//!
//! ```text
//! %z = arith.sitofp %c0 : tensor<64xi32, #b> to tensor<64xf32, #b>   // %c0 = dense<0>
//! %s = arith.addf %z, %f0 : tensor<64xf32, #b>                       // %f0 = dense<0.0>
//! ```
//!
//! folds to `%z' = arith.constant dense<0.000000e+00> : tensor<64xf32, #b>`, then `%s` to
//! another such constant, which the rewriter's next round finds equal to `%f0` and drops. Only
//! splat constants take part (every element the same value), and only folds whose result is
//! exact in its type (as MLIR refuses a lossy `arith.truncf`).
//!
//! A new constant stands where the folded op stood; the rewriter's constant step moves it to
//! the top of the function later, as MLIR's does.

use crate::ttgir::TypeKind;
use crate::ttgir::graph::{Graph, OpId, ValueId};

/// The value every element of a splat constant (or a scalar constant) holds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lit {
    /// An integer, sign-extended from its width (`true` of `i1` is `-1`).
    Int(i128),
    /// A float, exactly the value its type holds.
    Float(f64),
}

/// Tries MLIR's and Triton's folders on `op`; returns the ops it made or touched when it folded.
pub(super) fn fold(g: &mut Graph, op: OpId) -> Option<Vec<OpId>> {
    let name = g.ops[op].name.clone();
    let operands = g.ops[op].operands.clone();
    let &res = g.ops[op].results.first()?;
    if g.ops[op].results.len() != 1 {
        return None;
    }
    let same_type = |k: usize| {
        operands
            .get(k)
            .is_some_and(|&v| g.values[v].ty == g.values[res].ty)
    };
    let lit = |k: usize| operands.get(k).and_then(|&v| constant_value(g, v));
    let out = element(g, res);
    let folded = match name.as_str() {
        "tt.splat" | "tt.expand_dims" | "tt.trans" => Fold::Const(lit(0)?),
        "tt.broadcast" if same_type(0) => Fold::Value(operands[0]),
        // A reshape that may reorder elements is kept even to its own type.
        "tt.reshape" if same_type(0) && !g.op_text_without_results(op).contains("allow_reorder") => {
            Fold::Value(operands[0])
        }
        "tt.broadcast" | "tt.reshape" => Fold::Const(lit(0)?),
        "tt.make_range" => {
            let (start, end) = range_bounds(&g.op_text_without_results(op))?;
            (end == start + 1).then_some(Fold::Const(Lit::Int(start)))?
        }
        "tt.fp_to_fp" if same_type(0) => Fold::Value(operands[0]),
        "tt.fp_to_fp" => match lit(0)? {
            Lit::Float(v) if v == 0.0 => Fold::Const(Lit::Float(v)),
            _ => return None,
        },
        "tt.addptr" if lit(1) == Some(Lit::Int(0)) => Fold::Value(operands[0]),
        "arith.extf" | "arith.truncf" => match lit(0)? {
            Lit::Float(v) => Fold::Const(Lit::Float(exact(v, &out)?)),
            Lit::Int(_) => return None,
        },
        "arith.sitofp" | "arith.uitofp" => {
            let Lit::Int(v) = lit(0)? else { return None };
            let v = if name == "arith.uitofp" {
                unsigned(v, int_bits(&element(g, operands[0]))?)
            } else {
                v
            };
            // Beyond 2^53 the value would be rounded twice on its way to the type.
            if v.unsigned_abs() > 1 << 53 {
                return None;
            }
            Fold::Const(Lit::Float(round_to(v as f64, &out)?))
        }
        "arith.extsi" | "arith.extui" | "arith.trunci" => {
            let Lit::Int(v) = lit(0)? else { return None };
            let v = if name == "arith.extui" {
                unsigned(v, int_bits(&element(g, operands[0]))?)
            } else {
                v
            };
            Fold::Const(Lit::Int(wrap(v, int_bits(&out)?)))
        }
        "arith.addi" | "arith.subi" | "arith.muli" => int_binary(&name, lit(0), lit(1), &operands, &out)?,
        "arith.addf" | "arith.subf" | "arith.mulf" | "arith.divf" => {
            float_binary(&name, lit(0), lit(1), &operands, &out)?
        }
        // max(x, -inf) and min(x, +inf) are x (the constant on either side: MLIR moves it to
        // the right of these commutative ops first).
        "arith.maximumf" | "arith.maxnumf" | "arith.minimumf" | "arith.minnumf" => {
            let identity = if name.contains("max") {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
            match (float_of(lit(0)), float_of(lit(1))) {
                (_, Some(b)) if b == identity => Fold::Value(operands[0]),
                (Some(a), _) if a == identity => Fold::Value(operands[1]),
                _ => return None,
            }
        }
        _ => return None,
    };
    let users: Vec<OpId> = g.uses(res).into_iter().map(|(u, _)| u).collect();
    let mut touched: Vec<OpId> = operands.iter().filter_map(|&v| g.def_op(v)).collect();
    touched.extend(users);
    let by = match folded {
        Fold::Value(v) => {
            g.note(op, "folded: it gives back its operand");
            v
        }
        Fold::Const(l) => {
            let new = make_constant(g, op, l)?;
            g.note(new, format_args!("folded: the {name} of constants is a constant"));
            touched.push(new);
            g.ops[new].results[0]
        }
    };
    g.replace_all_uses(res, by);
    g.erase_op(op);
    Some(touched)
}

/// What an op folds to.
enum Fold {
    /// One of its operands.
    Value(ValueId),
    /// A new constant of its result type.
    Const(Lit),
}

/// `arith.addi`, `subi`, `muli`: constants give their wrapped result; `x + 0`, `x - 0`, `x * 1`
/// give `x` and `x * 0` the zero (MLIR's folders).
fn int_binary(name: &str, a: Option<Lit>, b: Option<Lit>, operands: &[ValueId], out: &str) -> Option<Fold> {
    let bits = int_bits(out)?;
    let (a, b) = (int_of(a), int_of(b));
    if let (Some(x), Some(y)) = (a, b) {
        let v = match name {
            "arith.addi" => x.wrapping_add(y),
            "arith.subi" => x.wrapping_sub(y),
            _ => x.wrapping_mul(y),
        };
        return Some(Fold::Const(Lit::Int(wrap(v, bits))));
    }
    let (&lhs, &rhs) = (operands.first()?, operands.get(1)?);
    match (name, a, b) {
        ("arith.addi", _, Some(0)) | ("arith.subi", _, Some(0)) | ("arith.muli", _, Some(1)) => {
            Some(Fold::Value(lhs))
        }
        ("arith.addi", Some(0), _) | ("arith.muli", Some(1), _) => Some(Fold::Value(rhs)),
        ("arith.muli", _, Some(0)) => Some(Fold::Value(rhs)),
        ("arith.muli", Some(0), _) => Some(Fold::Value(lhs)),
        _ => None,
    }
}

/// `arith.addf`, `subf`, `mulf`, `divf`: constants give their result when it is finite; `x + -0`,
/// `x - 0`, `x * 1`, `x / 1` give `x` (MLIR's folders).
fn float_binary(name: &str, a: Option<Lit>, b: Option<Lit>, operands: &[ValueId], out: &str) -> Option<Fold> {
    let (a, b) = (float_of(a), float_of(b));
    if let (Some(x), Some(y)) = (a, b) {
        // In f64 the four operations on narrower floats round once, as in their own type.
        let v = match name {
            "arith.addf" => x + y,
            "arith.subf" => x - y,
            "arith.mulf" => x * y,
            _ => x / y,
        };
        if !v.is_finite() {
            return None;
        }
        return Some(Fold::Const(Lit::Float(round_to(v, out)?)));
    }
    let neg_zero = |v: Option<f64>| v.is_some_and(|v| v == 0.0 && v.is_sign_negative());
    let pos_zero = |v: Option<f64>| v.is_some_and(|v| v == 0.0 && v.is_sign_positive());
    let (&lhs, &rhs) = (operands.first()?, operands.get(1)?);
    match name {
        "arith.addf" if neg_zero(b) => Some(Fold::Value(lhs)),
        "arith.addf" if neg_zero(a) => Some(Fold::Value(rhs)),
        "arith.subf" if pos_zero(b) => Some(Fold::Value(lhs)),
        "arith.mulf" | "arith.divf" if b == Some(1.0) => Some(Fold::Value(lhs)),
        "arith.mulf" if a == Some(1.0) => Some(Fold::Value(rhs)),
        _ => None,
    }
}

fn int_of(l: Option<Lit>) -> Option<i128> {
    match l? {
        Lit::Int(v) => Some(v),
        Lit::Float(_) => None,
    }
}

fn float_of(l: Option<Lit>) -> Option<f64> {
    match l? {
        Lit::Float(v) => Some(v),
        Lit::Int(_) => None,
    }
}

fn element(g: &Graph, v: ValueId) -> String {
    g.values[v].ty.element.clone()
}

/// The width of an integer element type (`index` is 64 bits).
fn int_bits(element: &str) -> Option<u32> {
    if element == "index" {
        return Some(64);
    }
    element
        .strip_prefix('i')?
        .parse()
        .ok()
        .filter(|&b: &u32| (1..=64).contains(&b))
}

/// `v` as a `bits`-wide two's-complement integer, read back signed.
fn wrap(v: i128, bits: u32) -> i128 {
    let m = 1i128 << bits;
    let r = v.rem_euclid(m);
    if r >= m / 2 { r - m } else { r }
}

/// `v`'s `bits` low bits read as an unsigned number.
fn unsigned(v: i128, bits: u32) -> i128 {
    v.rem_euclid(1i128 << bits)
}

/// `make_range`'s `start` and `end` from its text (`{end = 1 : i32, start = 0 : i32}`).
fn range_bounds(text: &str) -> Option<(i128, i128)> {
    let field = |key: &str| -> Option<i128> {
        let at = text.find(key)? + key.len();
        let rest = text[at..].trim_start();
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '-'))?;
        rest[..end].parse().ok()
    };
    Some((field("start =")?, field("end =")?))
}

/// The integer `v` holds when it is an integer `arith.constant` (scalar or splat).
pub(super) fn int_constant(g: &Graph, v: ValueId) -> Option<i128> {
    int_of(constant_value(g, v))
}

/// The value of `v` when it is a splat or scalar `arith.constant` of an integer or float type.
fn constant_value(g: &Graph, v: ValueId) -> Option<Lit> {
    let op = g.def_op(v)?;
    if g.ops[op].name != "arith.constant" {
        return None;
    }
    let text = g.op_text_without_results(op);
    let body = text.strip_prefix("arith.constant ")?;
    let lit = match body.strip_prefix("dense<") {
        Some(rest) => &rest[..rest.find('>')?],
        None => body.split(" : ").next()?,
    }
    .trim();
    // Element lists and strings do not take part.
    if lit.contains(['[', '"', '{']) {
        return None;
    }
    let el = element(g, v);
    if let Some(hex) = lit.strip_prefix("0x") {
        return bit_pattern(hex, &el).map(Lit::Float);
    }
    if let Some(bits) = int_bits(&el) {
        let n = match lit {
            "true" => 1,
            "false" => 0,
            _ => lit.parse().ok()?,
        };
        return Some(Lit::Int(wrap(n, bits)));
    }
    Some(Lit::Float(exact_in(lit, &el)?))
}

/// The float a hex literal's bits denote in `element` (MLIR prints infinities and NaNs so:
/// `0xFF800000` is -inf in f32, `0xFC00` in f16); integers do not take this form.
fn bit_pattern(hex: &str, element: &str) -> Option<f64> {
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

/// A new `arith.constant` of `op`'s result type holding `l`, where `op` stands.
fn make_constant(g: &mut Graph, op: OpId, l: Lit) -> Option<OpId> {
    let ty = g.values[*g.ops[op].results.first()?].ty.clone();
    let text = match l {
        Lit::Int(v) if int_bits(&ty.element)? == 1 => (if v != 0 { "true" } else { "false" }).to_string(),
        Lit::Int(v) => v.to_string(),
        Lit::Float(v) => float_literal(v, &ty.element)?,
    };
    let format = match ty.kind {
        TypeKind::Tensor => format!("$r = arith.constant dense<{text}> : $rt0"),
        TypeKind::Scalar if ty.element == "i1" => format!("$r = arith.constant {text}"),
        TypeKind::Scalar => format!("$r = arith.constant {text} : $rt0"),
        _ => return None,
    };
    let at = g.position(op);
    g.insert_text(at, "arith.constant", Vec::new(), vec![ty], &format)
        .ok()
}

/// How MLIR prints a float attribute: six digits after the point (`1.000000e+00`) when that
/// reads back as the same value, else the shortest exact form (so equal constants print alike
/// and the rewriter merges them). Zero prints so in any float type.
fn float_literal(v: f64, element: &str) -> Option<String> {
    if !v.is_finite() {
        return None;
    }
    let short = format!("{v:.6e}");
    let (mantissa, exp) = short.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let sign = if exp < 0 { '-' } else { '+' };
    let printed = format!("{mantissa}e{sign}{:02}", exp.abs());
    if v == 0.0 || exact_in(&printed, element) == Some(v) {
        return Some(printed);
    }
    let exact = format!("{v:e}");
    Some(if exact.split('e').next().unwrap_or("").contains('.') {
        exact
    } else {
        exact.replacen('e', ".0e", 1)
    })
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

/// `v` rounded to the float type `element` (`f16`, `bf16`, `f32`, `f64`).
fn round_to(v: f64, element: &str) -> Option<f64> {
    match element {
        "f16" => round_float(v, 10, -14, 65504.0),
        "bf16" => round_float(v, 7, -126, 3.3895313892515355e38),
        "f32" => round_float(v, 23, -126, f64::from(f32::MAX)),
        "f64" => Some(v),
        _ => None,
    }
}

/// `v` when the float type `element` holds it exactly (MLIR does not fold a lossy cast).
fn exact(v: f64, element: &str) -> Option<f64> {
    round_to(v, element).filter(|&r| r == v)
}

/// The exact value a float literal denotes in `element`.
fn exact_in(literal: &str, element: &str) -> Option<f64> {
    round_to(literal.trim().parse().ok()?, element)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_literals_are_bit_patterns_of_their_type() {
        assert_eq!(bit_pattern("FF800000", "f32"), Some(f64::NEG_INFINITY));
        assert_eq!(bit_pattern("7C00", "f16"), Some(f64::INFINITY));
        assert_eq!(bit_pattern("3C00", "f16"), Some(1.0));
        assert_eq!(bit_pattern("FF80", "bf16"), Some(f64::NEG_INFINITY));
        assert!(bit_pattern("7E00", "f16").is_some_and(f64::is_nan));
        assert_eq!(bit_pattern("7F800000", "i32"), None);
    }

    #[test]
    fn a_literal_denotes_the_nearest_value_of_its_type() {
        // MLIR prints f16 0.1 with six digits; the value is the f16 nearest to it.
        assert_eq!(exact_in("9.997559e-02", "f16"), Some(0.0999755859375));
        assert_eq!(exact_in("1.000000e+00", "bf16"), Some(1.0));
        assert_eq!(exact_in("1.0e5", "f16"), None); // past f16's largest finite value
        assert_eq!(exact_in("0.1", "f32"), Some(f64::from(0.1f32)));
    }

    #[test]
    fn floats_print_as_mlir_prints_them() {
        assert_eq!(float_literal(0.0, "f32").as_deref(), Some("0.000000e+00"));
        assert_eq!(float_literal(-0.0, "f16").as_deref(), Some("-0.000000e+00"));
        assert_eq!(float_literal(3136.0, "f32").as_deref(), Some("3.136000e+03"));
        // Too many digits for six: the shortest exact form.
        let v = f64::from(f32::MAX);
        assert_eq!(exact_in(&float_literal(v, "f32").unwrap(), "f32"), Some(v));
    }

    #[test]
    fn integers_wrap_to_their_width() {
        assert_eq!(wrap(255, 8), -1);
        assert_eq!(wrap(1 << 31, 32), -(1 << 31));
        assert_eq!(unsigned(-1, 8), 255);
        assert_eq!(
            range_bounds("tt.make_range {end = 1 : i32, start = 0 : i32} : tensor<1xi32>"),
            Some((0, 1))
        );
    }
}
