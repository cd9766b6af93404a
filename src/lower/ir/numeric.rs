//! Numbers in the element types of the matrix instructions: their bit patterns to and from
//! `f64`, what the interpreter computes with.
//!
//! Every type of the instruction table fits `f64` exactly (the widest, `f64` and `i32`, are
//! exact by construction), so decoding is exact; encoding rounds to nearest, ties to even (the
//! hardware's conversion), and integers wrap to their width (`i32 → i8` keeps the low byte).
//! The 8-bit floats are minifloats: `f8E4M3FN` (bias 7, no infinities), `f8E5M2` (bias 15),
//! and the `FNUZ` variants (bias 8 / 16, one NaN at `0x80`, no negative zero).
//!
//! ```
//! use linear_layout::lower::numeric::{decode, encode};
//! assert_eq!(encode("f16", 1.5), Some(0x3e00));
//! assert_eq!(decode("bf16", 0xc040), Some(-3.0));
//! assert_eq!(decode("f8E4M3FNUZ", encode("f8E4M3FNUZ", -2.0).unwrap()), Some(-2.0));
//! assert_eq!(encode("i8", -1.0), Some(0xff));
//! assert_eq!(decode("q7", 0), None); // not a type of the table
//! ```

/// (exponent bits, mantissa bits, bias, FNUZ) of a floating-point type narrower than `f64`.
fn float_format(ty: &str) -> Option<(u32, u32, i32, bool)> {
    Some(match ty {
        "f32" => (8, 23, 127, false),
        "f16" => (5, 10, 15, false),
        "bf16" => (8, 7, 127, false),
        "f8E4M3FN" => (4, 3, 7, false),
        "f8E5M2" => (5, 2, 15, false),
        "f8E4M3FNUZ" => (4, 3, 8, true),
        "f8E5M2FNUZ" => (5, 2, 16, true),
        _ => return None,
    })
}

/// The f32 bits `x` at TF32 precision: the 13 low mantissa bits rounded off to nearest even
/// (a carry into the exponent rounds the largest finite values to infinity); NaN and
/// infinities stay as they are.
fn tf32_of(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0x7f80_0000 {
        return x;
    }
    let half_ulp_and_tie = 0x0fff + (x >> 13 & 1);
    x.wrapping_add(half_ulp_and_tie) & !0x1fff
}

/// The value of the bit pattern `x` of type `ty` (`None` for a type the table does not use).
/// `tf32` is an f32 pattern read at TF32 precision (10 mantissa bits, rounded to nearest
/// even), as CDNA3's XF32 matrix instructions read their operands.
///
/// ```
/// use linear_layout::lower::numeric::decode;
/// assert_eq!(decode("f32", 0x4040_0000), Some(3.0));
/// assert_eq!(decode("tf32", 0x3f80_1000), Some(1.0)); // 1 + 2^-11 ties to even: 1
/// assert_eq!(decode("tf32", 0x3f80_3000), Some(1.0 + 2f64.powi(-9))); // 1 + 3·2^-11
/// assert_eq!(decode("i8", 0xfe), Some(-2.0));
/// assert_eq!(decode("f8E5M2", 0x3c), Some(1.0));
/// ```
pub fn decode(ty: &str, x: u64) -> Option<f64> {
    match ty {
        "f64" => return Some(f64::from_bits(x)),
        "tf32" => return decode("f32", tf32_of(x as u32).into()),
        "i32" => return Some(f64::from(x as u32 as i32)),
        "i8" => return Some(f64::from(x as u8 as i8)),
        _ => {}
    }
    let (e_bits, m_bits, bias, fnuz) = float_format(ty)?;
    let negative = x >> (e_bits + m_bits) & 1 == 1;
    let sign = if negative { -1.0 } else { 1.0 };
    let e = (x >> m_bits) & ((1 << e_bits) - 1);
    let m = (x & ((1 << m_bits) - 1)) as f64;
    let all_ones = e == (1 << e_bits) - 1;
    if fnuz && negative && e == 0 && m == 0.0 {
        return Some(f64::NAN);
    }
    if !fnuz && all_ones {
        // f8E4M3FN has no infinities: only S.1111.111 is NaN.
        if e_bits == 4 {
            if m as u64 == (1 << m_bits) - 1 {
                return Some(f64::NAN);
            }
        } else {
            return Some(if m == 0.0 { sign * f64::INFINITY } else { f64::NAN });
        }
    }
    let scale = |p: i32| 2f64.powi(p);
    Some(if e == 0 {
        sign * m * scale(1 - bias - m_bits as i32)
    } else {
        sign * (1.0 + m * scale(-(m_bits as i32))) * scale(e as i32 - bias)
    })
}

/// The bit pattern of `v` in type `ty`, rounded to nearest even (`None` for a type the table
/// does not use, or a value that is not finite or too large for an 8-bit float; `f16` and
/// `bf16` have infinities and NaN, and a value past their range rounds to ±∞ as IEEE says).
///
/// ```
/// use linear_layout::lower::numeric::encode;
/// assert_eq!(encode("bf16", 1.0), Some(0x3f80));
/// assert_eq!(encode("f16", f64::NEG_INFINITY), Some(0xfc00));
/// assert_eq!(encode("f16", 2049.0), Some(0x6800)); // 2049 rounds to 2048 (ties to even)
/// assert_eq!(encode("f16", 70_000.0), Some(0x7c00)); // past 65504: +∞
/// assert_eq!(encode("i32", -3.0), Some(0xffff_fffd));
/// ```
pub fn encode(ty: &str, v: f64) -> Option<u64> {
    match ty {
        "f64" => return Some(v.to_bits()),
        "f32" => return Some(u64::from((v as f32).to_bits())),
        "i32" => return Some(u64::from(v as i64 as u32)),
        "i8" => return Some(u64::from(v as i64 as u8)),
        _ => {}
    }
    let (e_bits, m_bits, bias, fnuz) = float_format(ty)?;
    if !v.is_finite() {
        let sign = u64::from(v.is_sign_negative()) << (e_bits + m_bits);
        return match ty {
            "f16" | "bf16" if v.is_nan() => Some((((1 << (e_bits + 1)) - 1) << (m_bits - 1)) as u64),
            "f16" | "bf16" => Some(sign | ((1 << e_bits) - 1) << m_bits),
            _ => None,
        };
    }
    let sign = u64::from(v.is_sign_negative()) << (e_bits + m_bits);
    let a = v.abs();
    if a == 0.0 {
        return Some(if fnuz { 0 } else { sign });
    }
    // The smallest normal exponent; below it the spacing stays that of the subnormals.
    let exp = (a.log2().floor() as i32).max(1 - bias);
    let quantum = 2f64.powi(exp - m_bits as i32);
    let mut q = (a / quantum).round_ties_even() as u64; // 1.m as an integer (or 0.m)
    let mut e = exp + bias;
    if q >> (m_bits + 1) != 0 {
        // Rounding carried into the next binade.
        q >>= 1;
        e += 1;
    }
    let biased = if q >> m_bits == 0 { 0 } else { e as u64 };
    let max_biased = (1u64 << e_bits) - if fnuz || e_bits == 4 { 1 } else { 2 };
    if biased > max_biased {
        // IEEE overflow: f16 and bf16 round past their largest finite value to ±∞.
        return matches!(ty, "f16" | "bf16").then_some(sign | ((1 << e_bits) - 1) << m_bits);
    }
    Some(sign | biased << m_bits | (q & ((1 << m_bits) - 1)))
}

/// An 8-bit float type: its format and the codes conversions produce at its edges.
///
/// Conversions into an 8-bit float round to nearest even and **saturate**: a finite value
/// beyond the largest finite one becomes ±max (`0x7E`/`0xFE` for `f8E4M3FN`: ±448), and so
/// does ±∞ in the OCP types; NaN becomes the type's NaN (`0x7F`/`0xFF`, `0x7E`/`0xFE` for
/// `f8E5M2`, with the sign), and in the `FNUZ` types NaN and ±∞ become their one NaN `0x80`
/// (they have no −0 either: a negative value rounding to zero is `0x00`). That is Triton's
/// `tt.fp_to_fp` with `rounding = rtne` on AMD, in hardware and in software.
///
/// ```
/// use linear_layout::lower::numeric::{Fp8, fp8};
/// let e4m3 = fp8("f8E4M3FN").unwrap();
/// assert_eq!((e4m3.max, e4m3.nan, e4m3.fnuz), (0x7E, 0x7F, false));
/// assert_eq!(fp8("f8E5M2FNUZ").map(|f| f.bias), Some(16));
/// assert_eq!(fp8("f16"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fp8 {
    /// Exponent bits.
    pub exponent_bits: u32,
    /// Mantissa bits.
    pub mantissa_bits: u32,
    /// Exponent bias.
    pub bias: i32,
    /// The code of the largest finite magnitude (sign bit clear).
    pub max: u8,
    /// The code a NaN converts to, sign bit clear (the input's sign is added, except in the
    /// `FNUZ` types, whose one NaN is `0x80`).
    pub nan: u8,
    /// An `FNUZ` type: one NaN (`0x80`), no negative zero, no infinities.
    pub fnuz: bool,
    /// The type has infinities (`f8E5M2`: `0x7C`, `0xFC`).
    pub infinity: bool,
}

/// The 8-bit float type `ty` (`f8E4M3FN`, `f8E5M2`, `f8E4M3FNUZ`, `f8E5M2FNUZ`), if it is one.
pub fn fp8(ty: &str) -> Option<Fp8> {
    let (exponent_bits, mantissa_bits, bias, fnuz) = float_format(ty).filter(|f| f.0 + f.1 == 7)?;
    let (max, nan, infinity) = match (fnuz, exponent_bits) {
        (true, _) => (0x7F, 0x80, false),
        (false, 4) => (0x7E, 0x7F, false),
        (false, _) => (0x7B, 0x7E, true),
    };
    Some(Fp8 {
        exponent_bits,
        mantissa_bits,
        bias,
        max,
        nan,
        fnuz,
        infinity,
    })
}

/// `v` rounded into the 8-bit float `ty` (`f`): to nearest even, saturating (see [`Fp8`]);
/// `negative` is the sign bit of the value's pattern (a NaN's too).
fn to_fp8(ty: &str, f: Fp8, v: f64, negative: bool) -> Option<u64> {
    let sign = if negative { 0x80 } else { 0 };
    if v.is_nan() || (f.fnuz && v.is_infinite()) {
        return Some(if f.fnuz { 0x80 } else { sign | u64::from(f.nan) });
    }
    if v.abs() >= decode(ty, u64::from(f.max))? {
        return Some(sign | u64::from(f.max));
    }
    let magnitude = encode(ty, v.abs())?;
    Some(if magnitude == 0 && f.fnuz {
        0
    } else {
        sign | magnitude
    })
}

/// The NaN that the 8-bit float NaN `code` of `f` becomes in the float type `to`: a quiet NaN
/// with the code's sign. `f8E5M2` is the top byte of an `f16`, so its NaN becomes that `f16`
/// (payload and all: `code << 8`) and, in `f32`, that `f16` widened (its payload under the
/// quiet bit); `bf16` is the top half of the `f32`.
fn fp8_nan(f: Fp8, code: u64, to: &str) -> Option<u64> {
    let negative = !f.fnuz && code & 0x80 != 0;
    let ieee_half = f.infinity && f.bias == 15;
    let f32_bits = u64::from(negative) << 31 | 0x7FC0_0000 | if ieee_half { (code & 3) << 21 } else { 0 };
    Some(match to {
        "f32" => f32_bits,
        "bf16" => f32_bits >> 16,
        "f16" if ieee_half => code << 8,
        "f16" => u64::from(negative) << 15 | 0x7E00,
        _ => return None,
    })
}

/// The width and signedness of an integer type of a conversion: `i1`…`i64` signed, `u1`…`u64`
/// unsigned (what `extui`, `uitofp` and `fptoui` read or write).
fn integer(ty: &str) -> Option<(u32, bool)> {
    let (signed, digits) = match ty.as_bytes().first()? {
        b'i' => (true, &ty[1..]),
        b'u' => (false, &ty[1..]),
        _ => return None,
    };
    let bits: u32 = digits.parse().ok()?;
    [1, 8, 16, 32, 64].contains(&bits).then_some((bits, signed))
}

/// The width in bits of a number type: a float of the table, `i1`…`i64` or `u1`…`u64` (0 for
/// any other name).
///
/// ```
/// use linear_layout::lower::numeric::bits;
/// assert_eq!((bits("bf16"), bits("u8"), bits("i1"), bits("q3")), (16, 8, 1, 0));
/// ```
pub fn bits(ty: &str) -> u32 {
    if let Some((b, _)) = integer(ty) {
        return b;
    }
    match float_format(ty) {
        Some((e, m, _, _)) => 1 + e + m,
        None if ty == "f64" => 64,
        None => 0,
    }
}

/// Converts the bit pattern `x` of type `from` into type `to`, as LLVM's casts do: integers
/// extend by their signedness (`i…` signed, `u…` unsigned) or keep their low bits, floats
/// round to nearest even, and a float becomes an integer rounded toward zero (saturated at
/// the integer's range). An 8-bit float converts to and from `f32`, `f16` and `bf16` only:
/// exactly when widening, rounding and saturating as [`Fp8`] says when narrowing. `None` for a
/// type the table does not use.
///
/// ```
/// use linear_layout::lower::numeric::convert;
/// assert_eq!(convert("i8", "i32", 0xff), Some(0xffff_ffff)); // sign-extended
/// assert_eq!(convert("u8", "i32", 0xff), Some(0xff)); // zero-extended
/// assert_eq!(convert("i64", "i16", 0x1_2345), Some(0x2345));
/// assert_eq!(convert("u32", "f32", 0xffff_ffff), Some(u64::from(4294967296f32.to_bits())));
/// assert_eq!(convert("f32", "i32", u64::from((-2.75f32).to_bits())), Some(0xffff_fffe));
/// assert_eq!(convert("u1", "f32", 1), Some(u64::from(1f32.to_bits())));
/// assert_eq!(convert("f32", "f8E4M3FN", u64::from(1000f32.to_bits())), Some(0x7E)); // 448
/// assert_eq!(convert("f8E5M2", "f16", 0x7C), Some(0x7C00)); // +∞
/// ```
pub fn convert(from: &str, to: &str, x: u64) -> Option<u64> {
    // `bf16` is the top half of an `f32`: widening is a shift (a NaN keeps its payload), and
    // a NaN narrowed is quieted keeping its sign and top payload bits, as LLVM's `fpext` and
    // `fptrunc` do.
    match (from, to) {
        ("bf16", "f32") => return Some((x & 0xFFFF) << 16),
        ("f32", "bf16") if f32::from_bits(x as u32).is_nan() => {
            return Some((x & 0xFFFF_FFFF | 0x40_0000) >> 16);
        }
        _ => {}
    }
    let wide = |t: &str| matches!(t, "f32" | "f16" | "bf16");
    match (fp8(from), fp8(to)) {
        (None, Some(f)) if wide(from) => {
            let negative = x >> (bits(from) - 1) & 1 == 1;
            return to_fp8(to, f, decode(from, x)?, negative);
        }
        (Some(f), None) if wide(to) => {
            let v = decode(from, x & 0xFF)?;
            return if v.is_nan() {
                fp8_nan(f, x & 0xFF, to)
            } else {
                encode(to, v)
            };
        }
        (Some(_), _) | (_, Some(_)) => return None,
        (None, None) => {}
    }
    let value = match integer(from) {
        Some((bits, signed)) => {
            let x = if bits == 64 { x } else { x & ((1 << bits) - 1) };
            let wide = if signed && bits < 64 {
                (((x << (64 - bits)) as i64) >> (64 - bits)) as i128
            } else if signed {
                i128::from(x as i64)
            } else {
                i128::from(x)
            };
            if let Some((to_bits, _)) = integer(to) {
                let out = wide as u128 as u64;
                return Some(if to_bits == 64 {
                    out
                } else {
                    out & ((1 << to_bits) - 1)
                });
            }
            return encode(to, wide as f64);
        }
        None => decode(from, x)?,
    };
    match integer(to) {
        Some((bits, signed)) => {
            let t = value.trunc();
            let (lo, hi) = if signed {
                (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1) - 1.0)
            } else {
                (0.0, 2f64.powi(bits as i32) - 1.0)
            };
            let t = if t.is_nan() { 0.0 } else { t.clamp(lo, hi) };
            let out = t as i128 as u128 as u64;
            Some(if bits == 64 { out } else { out & ((1 << bits) - 1) })
        }
        None => encode(to, value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Law: every small integer survives encode → decode in every type that holds it.
    #[test]
    fn small_integers_round_trip() {
        for ty in [
            "f64",
            "f32",
            "f16",
            "bf16",
            "i32",
            "i8",
            "f8E4M3FN",
            "f8E5M2",
            "f8E4M3FNUZ",
            "f8E5M2FNUZ",
        ] {
            for v in -8..=8 {
                let x = f64::from(v);
                assert_eq!(decode(ty, encode(ty, x).unwrap()), Some(x), "{ty} {v}");
            }
        }
        // Fractions, subnormals and the largest finite f16 too; halfway between the two
        // smallest subnormals rounds to the even one.
        let tiny = 2f64.powi(-24);
        for x in [0.5, 0.25, tiny, 3.0 * tiny, 2f64.powi(-14), 65504.0] {
            assert_eq!(decode("f16", encode("f16", x).unwrap()), Some(x));
        }
        assert_eq!(encode("f16", 2.5 * tiny), Some(2));
        assert_eq!(encode("f16", 1e6), Some(0x7c00));
        assert_eq!(encode("f16", -65_519.0), Some(0xfbff)); // rounds down to −65504
        assert_eq!(encode("f16", 65_520.0), Some(0x7c00)); // the tie rounds to ∞
    }

    /// Law: encoding a decoded pattern gives the pattern back (every finite f16 and fp8).
    #[test]
    fn finite_patterns_round_trip() {
        for (ty, n) in [("f16", 1u64 << 16), ("f8E4M3FN", 256), ("f8E5M2FNUZ", 256)] {
            for x in 0..n {
                let v = decode(ty, x).unwrap();
                if !v.is_finite() {
                    continue;
                }
                assert_eq!(encode(ty, v), Some(x), "{ty} {x:#x}");
            }
        }
    }

    /// Law: every 8-bit float code widens exactly and narrows back to itself, from each wide
    /// type (NaN codes to the type's NaN, with the sign where the type has one; ±∞ to ±max).
    #[test]
    fn fp8_codes_round_trip() {
        for ty in ["f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ"] {
            let f = fp8(ty).unwrap();
            for code in 0..256u64 {
                let v = decode(ty, code).unwrap();
                for wide in ["f32", "f16", "bf16"] {
                    let w = convert(ty, wide, code).unwrap();
                    let back = convert(wide, ty, w).unwrap();
                    if v.is_nan() {
                        let sign = if f.fnuz { 0 } else { code & 0x80 };
                        let nan = if f.fnuz { 0x80 } else { u64::from(f.nan) };
                        assert_eq!(back, sign | nan, "{ty} {code:#x} via {wide}");
                        assert!(decode(wide, w).unwrap().is_nan());
                    } else if v.is_infinite() {
                        // ±∞ widens exactly and saturates back to ±max.
                        assert_eq!(decode(wide, w), Some(v));
                        assert_eq!(back, (code & 0x80) | u64::from(f.max));
                    } else {
                        assert_eq!(decode(wide, w), Some(v), "{ty} {code:#x} to {wide}");
                        assert_eq!(back, code, "{ty} {code:#x} via {wide}");
                    }
                }
            }
        }
    }

    /// Law: narrowing saturates (beyond the largest finite value gives ±max, and ±∞ in the
    /// OCP types; NaN in the FNUZ ones), rounds ties to even, and FNUZ types have no −0.
    #[test]
    fn fp8_narrowing_saturates_and_rounds_to_even() {
        let f32_bits = |x: f32| u64::from(x.to_bits());
        for (ty, max) in [
            ("f8E4M3FN", 448.0),
            ("f8E5M2", 57344.0),
            ("f8E4M3FNUZ", 240.0),
            ("f8E5M2FNUZ", 57344.0),
        ] {
            let f = fp8(ty).unwrap();
            let inf = convert("f32", ty, f32_bits(f32::NEG_INFINITY));
            assert_eq!(
                inf,
                Some(if f.fnuz { 0x80 } else { 0x80 | u64::from(f.max) }),
                "{ty} -inf"
            );
            for x in [max * 1.01, 1e30] {
                assert_eq!(
                    convert("f32", ty, f32_bits(x)),
                    Some(u64::from(f.max)),
                    "{ty} {x}"
                );
                assert_eq!(
                    convert("f32", ty, f32_bits(-x)),
                    Some(0x80 | u64::from(f.max)),
                    "{ty} -{x}"
                );
            }
            assert_eq!(
                convert("f32", ty, f32_bits(-1e-30)),
                Some(if f.fnuz { 0 } else { 0x80 })
            );
        }
        // 1 + 1/16 lies halfway between 1 and 1 + 1/8 (E4M3): the even mantissa, 1.
        assert_eq!(convert("f32", "f8E4M3FN", f32_bits(1.0625)), Some(0x38));
        assert_eq!(convert("f32", "f8E4M3FN", f32_bits(1.1875)), Some(0x3A));
        assert_eq!(convert("f16", "f8E5M2", 0x7E00), Some(0x7E)); // NaN
        assert_eq!(convert("f32", "i8", 0), Some(0));
        assert_eq!(convert("f8E4M3FN", "i32", 0x38), None);
    }
}
