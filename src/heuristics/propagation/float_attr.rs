//! Float constants as MLIR holds them, for the folders of [`super::fold`]: a literal denotes
//! the nearest value of its type, a value is rounded to a type as `APFloat` rounds, and a
//! folded value is written as MLIR's printer writes it (equal constants must print alike, or
//! the rewriter could not merge them).
//!
//! ```text
//! 0.1 : f16                   is 0.0999755859375 (the nearest f16)
//! 0xFF800000 : f32            is -inf (a hex literal is the type's bit pattern)
//! 0.0999755859375 : f16       prints 9.997550e-02 (six digits, cut as APFloat cuts them)
//! 0.100000001490116 : f32     prints 1.000000e-01 (the six digits read back exactly)
//! 1234567.0 : f32             prints 0x4996B438 (six digits do not read back, the long form
//!                             1234567 has no '.')
//! ```
//!
//! The types handled are `f16`, `bf16`, `f32` and `f64`; a value is kept in an `f64`, which
//! holds every value of them exactly.

/// An IEEE binary format: `precision` bits of significand (with the leading one), normal
/// exponents `min_exp..=max_exp`, `width` bits in all.
#[derive(Clone, Copy)]
struct Format {
    precision: u32,
    min_exp: i32,
    max_exp: i32,
    width: u32,
}

fn format_of(element: &str) -> Option<Format> {
    let (precision, min_exp, max_exp, width) = match element {
        "f16" => (11, -14, 15, 16),
        "bf16" => (8, -126, 127, 16),
        "f32" => (24, -126, 127, 32),
        "f64" => (53, -1022, 1023, 64),
        _ => return None,
    };
    Some(Format {
        precision,
        min_exp,
        max_exp,
        width,
    })
}

/// The exponent of a normal `f64`'s leading bit (`-1023` for zero and subnormals).
fn exponent(v: f64) -> i32 {
    ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// `v` rounded to the float type `element` as `APFloat` rounds: to nearest, ties to even,
/// below the smallest normal value to a subnormal, past the largest finite value to an
/// infinity. `None` for a type not handled here.
pub(super) fn round_to(v: f64, element: &str) -> Option<f64> {
    let f = format_of(element)?;
    if f.precision == 53 || v == 0.0 || !v.is_finite() {
        return Some(v);
    }
    let e = exponent(v.abs()).max(f.min_exp);
    let quantum = 2f64.powi(e - (f.precision as i32 - 1));
    let r = (v / quantum).round_ties_even() * quantum;
    let largest = (2.0 - 2f64.powi(1 - f.precision as i32)) * 2f64.powi(f.max_exp);
    Some(if r.abs() > largest {
        f64::INFINITY.copysign(v)
    } else {
        r
    })
}

/// `v` when the float type `element` holds it exactly (MLIR folds no lossy conversion).
pub(super) fn exact(v: f64, element: &str) -> Option<f64> {
    round_to(v, element).filter(|&r| r == v)
}

/// The integer `v` converted to the float type `element`, rounded once (`APFloat`'s
/// `convertFromAPInt`): `16777217` is `16777216.0` in `f32`, `100000` is `+inf` in `f16`.
pub(super) fn from_int(v: i128, element: &str) -> Option<f64> {
    let f = format_of(element)?;
    let a = v.unsigned_abs();
    let len = 128 - a.leading_zeros();
    let rounded = match len.checked_sub(f.precision) {
        Some(shift) if shift > 0 => {
            let (q, rem, half) = (a >> shift, a & ((1u128 << shift) - 1), 1u128 << (shift - 1));
            let q = if rem > half || (rem == half && q & 1 == 1) {
                q + 1
            } else {
                q
            };
            q << shift
        }
        _ => a,
    };
    // At most `precision` significant bits: exact in an f64.
    let value = rounded as f64;
    round_to(if v < 0 { -value } else { value }, element)
}

/// The value the literal of a constant of type `element` denotes: a decimal literal the
/// nearest value of the type (`None` past its range), a hex literal the bit pattern (`0xFC00`
/// is `-inf` in `f16`).
pub(super) fn read(literal: &str, element: &str) -> Option<f64> {
    let literal = literal.trim();
    if let Some(hex) = literal.strip_prefix("0x") {
        return decode(u64::from_str_radix(hex, 16).ok()?, format_of(element)?);
    }
    round_to(literal.parse().ok()?, element).filter(|v| v.is_finite())
}

/// The float with the bits `bits` in format `f`.
fn decode(bits: u64, f: Format) -> Option<f64> {
    if f.width == 64 {
        return Some(f64::from_bits(bits));
    }
    if bits >> f.width != 0 {
        return None;
    }
    let frac_bits = f.precision - 1;
    let exp_mask = (1u64 << (f.width - 1 - frac_bits)) - 1;
    let sign = if (bits >> (f.width - 1)) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let (field, frac) = ((bits >> frac_bits) & exp_mask, bits & ((1u64 << frac_bits) - 1));
    let scale = |e: i32| 2f64.powi(e - frac_bits as i32);
    Some(match field {
        0 => sign * frac as f64 * scale(f.min_exp),
        _ if field == exp_mask && frac == 0 => sign * f64::INFINITY,
        _ if field == exp_mask => f64::NAN,
        _ => sign * (frac | 1u64 << frac_bits) as f64 * scale(field as i32 - f.max_exp),
    })
}

/// The bits of `v` (finite or infinite, held exactly by format `f`) in format `f`.
fn encode(v: f64, f: Format) -> u64 {
    if f.width == 64 {
        return v.to_bits();
    }
    let frac_bits = f.precision - 1;
    let sign = u64::from(v.is_sign_negative()) << (f.width - 1);
    let exp_mask = (1u64 << (f.width - 1 - frac_bits)) - 1;
    let a = v.abs();
    if a.is_infinite() {
        return sign | exp_mask << frac_bits;
    }
    if a == 0.0 {
        return sign;
    }
    let e = exponent(a);
    if e < f.min_exp {
        return sign | (a / 2f64.powi(f.min_exp - frac_bits as i32)) as u64;
    }
    let frac = (a / 2f64.powi(e - frac_bits as i32)) as u64 & ((1u64 << frac_bits) - 1);
    sign | ((e + f.max_exp) as u64) << frac_bits | frac
}

/// The literal MLIR's printer writes for the float `v` of type `element` (its
/// `printFloatValue`): `APFloat::toString` with six digits in exponent form when that reads
/// back as `v`, else its shortest-for-the-type form when that has a '.', else the bit pattern
/// in hex (as for infinities). Zero prints so in every float type. `None` for a NaN, a type not
/// handled or a value the type does not hold.
pub(super) fn print(v: f64, element: &str) -> Option<String> {
    if v == 0.0 {
        // Types without a negative zero (`f8E4M3FNUZ`, …) make it positive.
        let negative = v.is_sign_negative() && !element.contains("FNUZ");
        return Some(if negative { "-0.000000e+00" } else { "0.000000e+00" }.to_string());
    }
    let f = format_of(element)?;
    let v = exact(v, element)?;
    if v.is_finite() {
        let short = to_string(v, f.precision, 6, 0, false);
        if read(&short, element) == Some(v) {
            return Some(short);
        }
        let long = to_string(v, f.precision, 0, 3, true);
        if long.contains('.') {
            return Some(long);
        }
    }
    Some(format!("0x{:X}", encode(v, f)))
}

/// `APFloat::toString` of the finite non-zero `v` of a type with `precision` significand
/// bits: at most `digits` significant digits (`0`: as many as the type needs), cut by
/// dropping the digits past what they need, then rounded half up; in exponent form when more
/// than `max_padding` zeros would pad it (always for `0`); `truncate_zero` writes `1.0E+2`
/// where `false` writes `1.000000e+02` (zeros to `digits`, two exponent digits).
fn to_string(v: f64, precision: u32, digits: u32, max_padding: u32, truncate_zero: bool) -> String {
    let digits = if digits == 0 {
        2 + precision * 59 / 196
    } else {
        digits
    };
    // v = m * 2^e, m odd.
    let bits = v.abs().to_bits();
    let (field, frac) = ((bits >> 52) as i32, bits & ((1u64 << 52) - 1));
    let (m, e) = if field == 0 {
        (frac, -1074)
    } else {
        (frac | 1u64 << 52, field - 1075)
    };
    let (m, e) = (m >> m.trailing_zeros(), e + m.trailing_zeros() as i32);
    // n * 10^exp = v.
    let mut n = Nat::from(m);
    let mut exp = 0;
    for _ in 0..e.unsigned_abs() {
        n.mul_small(if e > 0 { 2 } else { 5 });
    }
    if e < 0 {
        exp = e;
    }
    // APFloat first drops the decimal digits the precision cannot need (a cut, no rounding).
    let needed = (digits * 196).div_ceil(59);
    if n.bits() > needed {
        let removable = (n.bits() - needed) * 59 / 196;
        for _ in 0..removable {
            n.div_small(10);
        }
        exp += removable as i32;
    }
    // The digits, least significant first, trailing zeros dropped.
    let mut buffer: Vec<u8> = Vec::new();
    while !n.is_zero() {
        let d = n.div_small(10) as u8;
        if buffer.is_empty() && d == 0 {
            exp += 1;
        } else {
            buffer.push(d);
        }
    }
    round_digits(&mut buffer, &mut exp, digits as usize);
    let nd = buffer.len() as i32;
    let scientific = if max_padding == 0 {
        true
    } else if exp >= 0 {
        exp as u32 > max_padding || (nd + exp) as u32 > digits
    } else {
        let most_significant = exp + nd - 1;
        most_significant < 0 && most_significant.unsigned_abs() > max_padding
    };
    let mut out = String::new();
    if v < 0.0 {
        out.push('-');
    }
    let ch = |d: &u8| char::from(b'0' + d);
    let mut from_top = buffer.iter().rev().map(ch);
    if scientific {
        exp += nd - 1;
        out.extend(from_top.next());
        out.push('.');
        if nd == 1 && truncate_zero {
            out.push('0');
        }
        out.extend(from_top);
        if !truncate_zero {
            out.extend(std::iter::repeat_n(
                '0',
                (digits as usize + 1).saturating_sub(nd as usize),
            ));
        }
        out.push(if truncate_zero { 'E' } else { 'e' });
        out.push(if exp >= 0 { '+' } else { '-' });
        if !truncate_zero && exp.unsigned_abs() < 10 {
            out.push('0');
        }
        out.push_str(&exp.unsigned_abs().to_string());
    } else if exp >= 0 {
        out.extend(from_top);
        out.extend(std::iter::repeat_n('0', exp as usize));
    } else {
        let whole = exp + nd;
        if whole > 0 {
            out.extend(from_top.by_ref().take(whole as usize));
            out.push('.');
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', whole.unsigned_abs() as usize));
        }
        out.extend(from_top);
    }
    out
}

/// APFloat's rounding of a digit buffer (least significant first) to `digits` digits: half
/// up, trailing zeros dropped into `exp`.
fn round_digits(buffer: &mut Vec<u8>, exp: &mut i32, digits: usize) {
    let n = buffer.len();
    if n <= digits {
        return;
    }
    let mut first = n - digits;
    if buffer.get(first - 1).is_some_and(|&d| d < 5) {
        while buffer.get(first) == Some(&0) {
            first += 1;
        }
    } else {
        // Carry: each 9 becomes a dropped 0.
        while buffer.get(first) == Some(&9) {
            first += 1;
        }
        match buffer.get_mut(first) {
            Some(d) => *d += 1,
            None => {
                *exp += n as i32;
                *buffer = vec![1];
                return;
            }
        }
    }
    *exp += first as i32;
    buffer.drain(..first);
}

/// A natural number, base 2^32, least significant limb first, no leading zero limb.
struct Nat(Vec<u32>);

impl Nat {
    fn from(v: u64) -> Nat {
        let mut n = Nat(vec![v as u32, (v >> 32) as u32]);
        n.trim();
        n
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn bits(&self) -> u32 {
        self.0
            .last()
            .map_or(0, |top| (self.0.len() as u32 - 1) * 32 + 32 - top.leading_zeros())
    }

    fn mul_small(&mut self, k: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let x = u64::from(*limb) * u64::from(k) + carry;
            *limb = x as u32;
            carry = x >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    /// Divides by `k`, returns the remainder.
    fn div_small(&mut self, k: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let x = rem << 32 | u64::from(*limb);
            *limb = (x / u64::from(k)) as u32;
            rem = x % u64::from(k);
        }
        self.trim();
        rem as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_literals_are_bit_patterns_of_their_type() {
        assert_eq!(read("0xFF800000", "f32"), Some(f64::NEG_INFINITY));
        assert_eq!(read("0x7C00", "f16"), Some(f64::INFINITY));
        assert_eq!(read("0x3C00", "f16"), Some(1.0));
        assert_eq!(read("0x0001", "f16"), Some(2f64.powi(-24)));
        assert_eq!(read("0xFF80", "bf16"), Some(f64::NEG_INFINITY));
        assert!(read("0x7E00", "f16").is_some_and(f64::is_nan));
        assert_eq!(read("0x7F800000", "i32"), None);
        assert_eq!(read("0x17C00", "f16"), None);
        assert_eq!(
            read("-0.000000e+00", "f32").map(f64::is_sign_negative),
            Some(true)
        );
    }

    #[test]
    fn a_literal_denotes_the_nearest_value_of_its_type() {
        assert_eq!(read("9.997559e-02", "f16"), Some(0.0999755859375));
        assert_eq!(read("1.000000e+00", "bf16"), Some(1.0));
        assert_eq!(read("1.0e5", "f16"), None); // past f16's largest finite value
        assert_eq!(read("0.1", "f32"), Some(f64::from(0.1f32)));
        // Rounding: ties to even, subnormals, overflow to infinity.
        assert_eq!(round_to(2049.0, "f16"), Some(2048.0));
        assert_eq!(round_to(2f64.powi(-25) * 3.0, "f16"), Some(2f64.powi(-23)));
        assert_eq!(round_to(65520.0, "f16"), Some(f64::INFINITY));
        assert_eq!(exact(0.1, "f32"), None);
        assert_eq!(from_int(16_777_217, "f32"), Some(16_777_216.0));
        assert_eq!(from_int(-100_000, "f16"), Some(f64::NEG_INFINITY));
        assert_eq!(from_int(i128::from(u64::MAX), "f64"), Some(2f64.powi(64)));
    }

    #[test]
    fn floats_print_as_mlir_prints_them() {
        let p = |v: f64, e: &str| print(v, e).unwrap_or_default();
        assert_eq!(p(0.0, "f32"), "0.000000e+00");
        assert_eq!(p(-0.0, "f16"), "-0.000000e+00");
        assert_eq!(p(-0.0, "f8E4M3FNUZ"), "0.000000e+00");
        assert_eq!(p(3136.0, "f32"), "3.136000e+03");
        assert_eq!(p(-0.25, "f32"), "-2.500000e-01");
        assert_eq!(p(1e10, "f32"), "1.000000e+10");
        assert_eq!(p(f64::from(0.1f32), "f32"), "1.000000e-01");
        // APFloat cuts the digits it does not need before it rounds: 9.99755859375e-02 gives
        // 9.99755 (Triton prints this f16 0.1 so), 1.275634765625e-01 gives 1.27563.
        assert_eq!(p(0.0999755859375, "f16"), "9.997550e-02");
        assert_eq!(p(0.1275634765625, "f16"), "1.275630e-01");
        // Six digits do not read back: the type's own number of digits.
        assert_eq!(p(f64::from(0.3f32) * 3.0, "f64"), "0.90000003576278687");
        assert_eq!(p(f64::from(f32::MAX), "f32"), "3.40282347E+38");
        assert_eq!(p(1234567.0, "f32"), "0x4996B438");
        assert_eq!(p(f64::NEG_INFINITY, "f32"), "0xFF800000");
        assert_eq!(p(f64::INFINITY, "f16"), "0x7C00");
        assert_eq!(p(f64::NEG_INFINITY, "bf16"), "0xFF80");
        assert_eq!(print(f64::NAN, "f32"), None);
        assert_eq!(print(0.1, "f32"), None); // not an f32
        for (v, e) in [
            (2f64.powi(-24), "f16"),
            (f64::from(f32::MIN_POSITIVE) / 8.0, "f32"),
        ] {
            assert_eq!(read(&p(v, e), e), Some(v));
            assert_eq!(
                decode(encode(v, format_of(e).unwrap()), format_of(e).unwrap()),
                Some(v)
            );
        }
    }
}
