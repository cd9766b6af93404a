//! Conversions to and from the 8-bit floats in LLVM IR, which has no 8-bit float type: integer
//! arithmetic on the codes, the same on every target, computing exactly what
//! [`numeric::convert`](crate::lower::ir::numeric::convert) says.
//!
//! **Widening** a code `c` of `E` exponent and `M` mantissa bits (bias `B`) is exact in `f32`:
//! with `e = c >> M & (2^E − 1)` and `m = c & (2^M − 1)`, the value is
//! `m · 2^(1−B−M)` when `e = 0` and `(2^M + m) · 2^(e−B−M)` otherwise. A normal code's low seven
//! bits shifted to the top of an `f32`'s exponent and mantissa and re-biased by adding
//! `(127 − B) << 23` are the `f32` of that value; a subnormal code is one `uitofp` of `m` times
//! `2^(1−B−M)`; then the sign bit, and the NaN (and, in `f8E5M2`, ∞) codes are selected in. `f16` and `bf16` results are that `f32` narrowed (every 8-bit float value is
//! exact in both), except `f8E5M2 → f16`, which is the code shifted into an `f16`'s top byte.
//! For `f8E4M3FN`, `0x3A` (e = 7, m = 2) is `(8 + 2) · 2^(7−7−3)` = 1.25.
//!
//! **Narrowing** widens the operand to `f32` (exact) and rounds its magnitude `a`:
//! - at or beyond the largest finite value (∞ too): the largest finite code (saturation);
//! - below the smallest normal `2^(1−B)`: the subnormal code `rint(a · 2^(B+M−1))` — the scaled
//!   value is below `2^M`, so `v_rndne_f32` rounds it to nearest even, and a result of `2^M`
//!   is the smallest normal's code, as it should be;
//! - otherwise the `f32` bits rounded to `M` mantissa bits (add `2^(22−M) − 1` plus the kept
//!   part's lowest bit, shift right by `23 − M`) and re-biased (subtract `(127 − B) · 2^M`);
//!
//! then the sign (none on a zero of an `FNUZ` type), and NaN (∞ too in the `FNUZ` types)
//! selected to the type's NaN.
//! `1.1875` in `f8E4M3FN`: bits `0x3F98_0000`, `+ 0x7_FFFF + 1` (the kept part `0x3F9` is
//! odd), `>> 20` = `0x3FA`, `− 0x3C0` = `0x3A` (1.25).

use super::Emitter;
use crate::lower::error::LowerError;
use crate::lower::ir::Value;
use crate::lower::ir::numeric::{Fp8, fp8};

/// `2^p` as an LLVM `float` literal (exact: `p` is within `f32`'s normal range here).
fn power_of_two(p: i32) -> String {
    format!("0x{:016X}", 2f64.powi(p).to_bits())
}

impl Emitter<'_> {
    /// `dst[i] = convert(src[i])` where `from` or `to` is an 8-bit float.
    pub(super) fn convert_fp8(
        &mut self,
        dst: &[Value],
        src: &[Value],
        from: &str,
        to: &str,
    ) -> Result<(), LowerError> {
        for (&d, &s) in dst.iter().zip(src) {
            let x = self.val(s)?;
            let (y, bits) = match (fp8(from), fp8(to)) {
                (Some(f), None) => (self.widen_fp8(f, from, to, &x)?, wide_bits(to)?),
                (None, Some(f)) => (self.narrow_to_fp8(f, from, &x)?, 8),
                _ => {
                    return Err(LowerError::new(format!("no conversion from {from} to {to}")));
                }
            };
            let r = self.define(d)?;
            self.line(&format!("{r} = add i{bits} 0, {y}"));
        }
        Ok(())
    }

    /// The `f32` / `f16` / `bf16` bits of the code `x` (an `i8`).
    fn widen_fp8(&mut self, f: Fp8, from: &str, to: &str, x: &str) -> Result<String, LowerError> {
        if from == "f8E5M2" && to == "f16" {
            let c = self.tmp();
            self.line(&format!("{c} = zext i8 {x} to i16"));
            let r = self.tmp();
            self.line(&format!("{r} = shl i16 {c}, 8"));
            return Ok(r);
        }
        let m = f.mantissa_bits;
        let c = self.tmp();
        self.line(&format!("{c} = zext i8 {x} to i32"));
        let magnitude = self.tmp();
        self.line(&format!("{magnitude} = and i32 {c}, 127"));
        let mant = self.tmp();
        self.line(&format!("{mant} = and i32 {c}, {}", (1 << m) - 1));
        // A normal code's exponent and mantissa bits moved to an f32's and re-biased; a
        // subnormal one's mantissa converted and scaled (no subnormal f32 on the way, so the
        // result does not depend on the denormal mode).
        let shifted = self.tmp();
        self.line(&format!("{shifted} = shl i32 {magnitude}, {}", 23 - m));
        let normal = self.tmp();
        self.line(&format!("{normal} = add i32 {shifted}, {}", (127 - f.bias) << 23));
        let sf = self.tmp();
        self.line(&format!("{sf} = uitofp i32 {mant} to float"));
        let sv = self.tmp();
        self.line(&format!(
            "{sv} = fmul float {sf}, {}",
            power_of_two(1 - f.bias - m as i32)
        ));
        let subnormal = self.tmp();
        self.line(&format!("{subnormal} = bitcast float {sv} to i32"));
        let is_subnormal = self.tmp();
        self.line(&format!("{is_subnormal} = icmp ult i32 {magnitude}, {}", 1 << m));
        let vb = self.tmp();
        self.line(&format!(
            "{vb} = select i1 {is_subnormal}, i32 {subnormal}, i32 {normal}"
        ));
        let sign = self.tmp();
        self.line(&format!("{sign} = and i32 {c}, 128"));
        let sign32 = self.tmp();
        self.line(&format!("{sign32} = shl i32 {sign}, 24"));
        let mut r = self.tmp();
        self.line(&format!("{r} = or i32 {vb}, {sign32}"));
        // The special codes.
        let is_nan = self.tmp();
        let nan = self.tmp();
        if f.fnuz {
            self.line(&format!("{is_nan} = icmp eq i32 {c}, 128"));
            self.line(&format!("{nan} = add i32 0, {}", 0x7FC0_0000u32));
        } else {
            let top = (1u32 << 7) - if f.infinity { 1 << m } else { 1 };
            self.line(&format!(
                "{is_nan} = icmp ugt i32 {magnitude}, {}",
                top - u32::from(!f.infinity)
            ));
            let payload = if f.infinity {
                let p = self.tmp();
                self.line(&format!("{p} = shl i32 {mant}, 21"));
                let q = self.tmp();
                self.line(&format!("{q} = or i32 {sign32}, {p}"));
                q
            } else {
                sign32.clone()
            };
            self.line(&format!("{nan} = or i32 {payload}, {}", 0x7FC0_0000u32));
        }
        let with_nan = self.tmp();
        self.line(&format!("{with_nan} = select i1 {is_nan}, i32 {nan}, i32 {r}"));
        r = with_nan;
        if f.infinity {
            let is_inf = self.tmp();
            self.line(&format!("{is_inf} = icmp eq i32 {magnitude}, {}", 128 - (1 << m)));
            let inf = self.tmp();
            self.line(&format!("{inf} = or i32 {sign32}, {}", 0x7F80_0000u32));
            let with_inf = self.tmp();
            self.line(&format!("{with_inf} = select i1 {is_inf}, i32 {inf}, i32 {r}"));
            r = with_inf;
        }
        Ok(match to {
            "f32" => r,
            "bf16" => {
                let hi = self.tmp();
                self.line(&format!("{hi} = lshr i32 {r}, 16"));
                let t = self.tmp();
                self.line(&format!("{t} = trunc i32 {hi} to i16"));
                t
            }
            "f16" => {
                let fl = self.tmp();
                self.line(&format!("{fl} = bitcast i32 {r} to float"));
                let h = self.tmp();
                self.line(&format!("{h} = fptrunc float {fl} to half"));
                let t = self.tmp();
                self.line(&format!("{t} = bitcast half {h} to i16"));
                t
            }
            other => return Err(LowerError::new(format!("no conversion from {from} to {other}"))),
        })
    }

    /// The code (an `i8`) of the `f32` / `f16` / `bf16` bits `x`, rounded to nearest even and
    /// saturated.
    fn narrow_to_fp8(&mut self, f: Fp8, from: &str, x: &str) -> Result<String, LowerError> {
        let u = match from {
            "f32" => x.to_string(),
            "bf16" => {
                let z = self.tmp();
                self.line(&format!("{z} = zext i16 {x} to i32"));
                let u = self.tmp();
                self.line(&format!("{u} = shl i32 {z}, 16"));
                u
            }
            "f16" => {
                let h = self.tmp();
                self.line(&format!("{h} = bitcast i16 {x} to half"));
                let w = self.tmp();
                self.line(&format!("{w} = fpext half {h} to float"));
                let u = self.tmp();
                self.line(&format!("{u} = bitcast float {w} to i32"));
                u
            }
            other => {
                return Err(LowerError::new(format!(
                    "no conversion from {other} to an 8-bit float"
                )));
            }
        };
        let m = f.mantissa_bits;
        let shift = 23 - m;
        let a = self.tmp();
        self.line(&format!("{a} = and i32 {u}, {}", 0x7FFF_FFFFu32));
        // Normal range: round the f32 bits to M mantissa bits, re-bias.
        let kept = self.tmp();
        self.line(&format!("{kept} = lshr i32 {a}, {shift}"));
        let lsb = self.tmp();
        self.line(&format!("{lsb} = and i32 {kept}, 1"));
        let biased = self.tmp();
        self.line(&format!("{biased} = add i32 {a}, {}", (1u32 << (shift - 1)) - 1));
        let rounded = self.tmp();
        self.line(&format!("{rounded} = add i32 {biased}, {lsb}"));
        let n = self.tmp();
        self.line(&format!("{n} = lshr i32 {rounded}, {shift}"));
        let normal = self.tmp();
        self.line(&format!("{normal} = sub i32 {n}, {}", (127 - f.bias) << m));
        // Subnormal range: rint(a * 2^(B+M-1)).
        let af = self.tmp();
        self.line(&format!("{af} = bitcast i32 {a} to float"));
        let scaled = self.tmp();
        self.line(&format!(
            "{scaled} = fmul float {af}, {}",
            power_of_two(f.bias + m as i32 - 1)
        ));
        self.decls
            .insert("declare float @llvm.rint.f32(float)".to_string());
        let ri = self.tmp();
        self.line(&format!("{ri} = call float @llvm.rint.f32(float {scaled})"));
        let sub = self.tmp();
        self.line(&format!("{sub} = fptoui float {ri} to i32"));
        let min_normal = (127 - f.bias + 1) << 23;
        let is_sub = self.tmp();
        self.line(&format!("{is_sub} = icmp ult i32 {a}, {min_normal}"));
        let code = self.tmp();
        self.line(&format!("{code} = select i1 {is_sub}, i32 {sub}, i32 {normal}"));
        // Saturation at the largest finite value (its f32 bits), ∞ included.
        let max_bits = ((u32::from(f.max) >> m) as i32 - f.bias + 127) << 23
            | ((u32::from(f.max) & ((1 << m) - 1)) << shift) as i32;
        let over = self.tmp();
        self.line(&format!("{over} = icmp uge i32 {a}, {max_bits}"));
        let sat = self.tmp();
        self.line(&format!("{sat} = select i1 {over}, i32 {}, i32 {code}", f.max));
        let sign = self.tmp();
        self.line(&format!("{sign} = lshr i32 {u}, 24"));
        let sign8 = self.tmp();
        self.line(&format!("{sign8} = and i32 {sign}, 128"));
        let signed_sign = if f.fnuz {
            let zero = self.tmp();
            self.line(&format!("{zero} = icmp eq i32 {sat}, 0"));
            let s = self.tmp();
            self.line(&format!("{s} = select i1 {zero}, i32 0, i32 {sign8}"));
            s
        } else {
            sign8.clone()
        };
        let with_sign = self.tmp();
        self.line(&format!("{with_sign} = or i32 {sat}, {signed_sign}"));
        // NaN (and, in the FNUZ types, ±∞) to the type's NaN.
        let is_nan = self.tmp();
        let pred = if f.fnuz { "uge" } else { "ugt" };
        self.line(&format!("{is_nan} = icmp {pred} i32 {a}, {}", 0x7F80_0000u32));
        let nan = if f.fnuz {
            "128".to_string()
        } else {
            let n = self.tmp();
            self.line(&format!("{n} = or i32 {sign8}, {}", f.nan));
            n
        };
        let r = self.tmp();
        self.line(&format!("{r} = select i1 {is_nan}, i32 {nan}, i32 {with_sign}"));
        let t = self.tmp();
        self.line(&format!("{t} = trunc i32 {r} to i8"));
        Ok(t)
    }
}

/// The width of a wide float type an 8-bit float widens to.
fn wide_bits(ty: &str) -> Result<u32, LowerError> {
    match ty {
        "f32" => Ok(32),
        "f16" | "bf16" => Ok(16),
        other => Err(LowerError::new(format!(
            "no conversion from an 8-bit float to {other}"
        ))),
    }
}
