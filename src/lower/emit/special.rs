//! The device library's special functions in LLVM IR, step by step as the formulas of
//! [`ir::special`](crate::lower::ir::special) (evaluated in the value's type; `f16` in `f32`):
//! `erfc` and `erfcx` from one fit, `erfinv` from Giles' two, `lgamma` from Lanczos' series
//! and the reflection formula, the Bessel functions from their fits, and `nextafter` on bit
//! patterns.
//!
//! # Worked example
//!
//! `erfc(x)` of an `f32`, about thirty instructions: `a = |x|`, `t = 1/(1 + a/2)` (`v_rcp_f32`),
//! the fit `P(t)` by nine `fma`s, `x²` split exactly into `h + l` (`l = fma(a, a, −h)`), then
//! `t·e^(P − h)·(1 − l)` — the low part of `x²` kept, which at `x = 4` is worth 2·10⁻⁷ of the
//! result — and `2 − ` that for a negative `x`. `a` is capped at 10.5, where the result has
//! long flushed to zero (`v_exp_f32` flushes below the normal range), so that `a²` of an
//! infinite `x` does not make `∞ − ∞`.

use super::Emitter;
use super::arith::{int_of, literal_of};
use crate::lower::error::LowerError;
use crate::lower::ir::special::{ERFC_FIT, ERFINV_CENTRAL, ERFINV_TAIL, LANCZOS, SQRT_TWO_PI, TWO_OVER_PI};
use crate::lower::ir::{ArithOp, Bessel, numeric};

impl Emitter<'_> {
    /// `erfc(x)` ([`ArithOp::Erfc`]) or `e^(x²)·erfc(x)` ([`ArithOp::Erfcx`]).
    pub(super) fn erfc(&mut self, op: ArithOp, t: &str, x: &str) -> Result<String, LowerError> {
        let (one, two) = (literal_of(t, 1.0), literal_of(t, 2.0));
        let magnitude = self.tmp();
        self.intrinsic(&magnitude, "fabs", t, &[x]);
        let a = self.tmp();
        self.intrinsic(&a, "minnum", t, &[&magnitude, &literal_of(t, 10.5)]);
        let den = self.tmp();
        self.intrinsic(&den, "fma", t, &[&a, &literal_of(t, 0.5), &one]);
        let tt = self.compute(|r| format!("{r} = fdiv arcp afn {t} {one}, {den}"));
        let fit: Vec<f64> = ERFC_FIT.iter().rev().copied().collect();
        let p = self.polynomial(t, &tt, &fit);
        let negative = self.compute(|r| format!("{r} = fcmp olt {t} {x}, {}", literal_of(t, 0.0)));
        if op == ArithOp::Erfcx {
            // e^(x²)·erfc(x) = t·e^P for x ≥ 0; 2·e^(x²) − t·e^P(|x|) below.
            let e = self.float_op(ArithOp::Exp, t, &[p])?;
            let scaled = self.compute(|r| format!("{r} = fmul {t} {tt}, {e}"));
            // The uncapped |x| here: e^(x²) of a large negative x is +∞, as it should be.
            let square = self.compute(|r| format!("{r} = fmul {t} {x}, {x}"));
            let big = self.float_op(ArithOp::Exp, t, &[square])?;
            let neg = self.compute(|r| format!("{r} = fneg {t} {scaled}"));
            let reflected = self.tmp();
            self.intrinsic(&reflected, "fma", t, &[&big, &two, &neg]);
            return Ok(self.compute(|r| format!("{r} = select i1 {negative}, {t} {reflected}, {t} {scaled}")));
        }
        let high = self.compute(|r| format!("{r} = fmul {t} {a}, {a}"));
        let minus_high = self.compute(|r| format!("{r} = fneg {t} {high}"));
        let low = self.tmp();
        self.intrinsic(&low, "fma", t, &[&a, &a, &minus_high]);
        let exponent = self.compute(|r| format!("{r} = fsub {t} {p}, {high}"));
        let e = self.float_op(ArithOp::Exp, t, &[exponent])?;
        // e·(1 − l) = e − e·l.
        let minus_e = self.compute(|r| format!("{r} = fneg {t} {e}"));
        let corrected = self.tmp();
        self.intrinsic(&corrected, "fma", t, &[&minus_e, &low, &e]);
        let tail = self.compute(|r| format!("{r} = fmul {t} {tt}, {corrected}"));
        let reflected = self.compute(|r| format!("{r} = fsub {t} {two}, {tail}"));
        Ok(self.compute(|r| format!("{r} = select i1 {negative}, {t} {reflected}, {t} {tail}")))
    }

    /// `erfinv(x)` ([`ArithOp::Erfinv`]): `w = −ln((1 − x)(1 + x))`, the central fit in
    /// `w − 2.5` below 5, the tail fit in `√w − 3` above; `±∞` at `±1` (where the tail fit,
    /// outside its range, would take the wrong sign).
    pub(super) fn erfinv(&mut self, t: &str, x: &str) -> Result<String, LowerError> {
        let one = literal_of(t, 1.0);
        let below = self.compute(|r| format!("{r} = fsub {t} {one}, {x}"));
        let above = self.compute(|r| format!("{r} = fadd {t} {one}, {x}"));
        let product = self.compute(|r| format!("{r} = fmul {t} {below}, {above}"));
        let l = self.float_op(ArithOp::Log, t, &[product])?;
        let w = self.compute(|r| format!("{r} = fneg {t} {l}"));
        let central_at = self.compute(|r| format!("{r} = fsub {t} {w}, {}", literal_of(t, 2.5)));
        let central = self.polynomial(t, &central_at, &ERFINV_CENTRAL);
        let root = self.float_op(ArithOp::Sqrt, t, std::slice::from_ref(&w))?;
        let tail_at = self.compute(|r| format!("{r} = fsub {t} {root}, {}", literal_of(t, 3.0)));
        let tail = self.polynomial(t, &tail_at, &ERFINV_TAIL);
        let small = self.compute(|r| format!("{r} = fcmp olt {t} {w}, {}", literal_of(t, 5.0)));
        let p = self.compute(|r| format!("{r} = select i1 {small}, {t} {central}, {t} {tail}"));
        let value = self.compute(|r| format!("{r} = fmul {t} {p}, {x}"));
        let magnitude = self.tmp();
        self.intrinsic(&magnitude, "fabs", t, &[x]);
        let edge = self.compute(|r| format!("{r} = fcmp oeq {t} {magnitude}, {one}"));
        let infinite = self.tmp();
        self.intrinsic(&infinite, "copysign", t, &[&literal_of(t, f64::INFINITY), x]);
        Ok(self.compute(|r| format!("{r} = select i1 {edge}, {t} {infinite}, {t} {value}")))
    }

    /// `ln|Γ(x)|` ([`ArithOp::Lgamma`]): Lanczos' series at `y = x` (`x ≥ ½`) or `y = 1 − x`,
    /// then `ln(π/|sin πr|) − lgamma(y)` with `r = x − rint(x)` below ½; `+∞` at `±∞`.
    pub(super) fn lgamma(&mut self, t: &str, x: &str) -> Result<String, LowerError> {
        let (one, half) = (literal_of(t, 1.0), literal_of(t, 0.5));
        let reflect = self.compute(|r| format!("{r} = fcmp olt {t} {x}, {half}"));
        let mirrored = self.compute(|r| format!("{r} = fsub {t} {one}, {x}"));
        let y = self.compute(|r| format!("{r} = select i1 {reflect}, {t} {mirrored}, {t} {x}"));
        // S(y) = c₀ + Σ cⱼ/(y + j), each quotient to an ulp (`v_rcp_f32`).
        let mut sum = literal_of(t, LANCZOS[0]);
        for (j, &c) in LANCZOS.iter().enumerate().skip(1) {
            let den = self.compute(|r| format!("{r} = fadd {t} {y}, {}", literal_of(t, j as f64)));
            let term = self.compute(|r| format!("{r} = fdiv arcp afn {t} {}, {den}", literal_of(t, c)));
            sum = self.compute(|r| format!("{r} = fadd {t} {sum}, {term}"));
        }
        let shifted = self.compute(|r| format!("{r} = fadd {t} {y}, {}", literal_of(t, 5.5)));
        let log_shifted = self.float_op(ArithOp::Log, t, std::slice::from_ref(&shifted))?;
        let power = self.compute(|r| format!("{r} = fadd {t} {y}, {half}"));
        let scaled = self.compute(|r| format!("{r} = fmul {t} {sum}, {}", literal_of(t, SQRT_TWO_PI)));
        let ratio = self.compute(|r| format!("{r} = fdiv arcp afn {t} {scaled}, {y}"));
        let log_ratio = self.float_op(ArithOp::Log, t, &[ratio])?;
        let minus_shifted = self.compute(|r| format!("{r} = fneg {t} {shifted}"));
        let first = self.tmp();
        self.intrinsic(&first, "fma", t, &[&power, &log_shifted, &minus_shifted]);
        let series = self.compute(|r| format!("{r} = fadd {t} {first}, {log_ratio}"));
        // The reflection: sin(π·r) of the distance to the nearest integer (exact).
        let nearest = self.tmp();
        self.intrinsic(&nearest, "rint", t, &[x]);
        let distance = self.compute(|r| format!("{r} = fsub {t} {x}, {nearest}"));
        let angle = self.compute(|r| {
            format!(
                "{r} = fmul {t} {distance}, {}",
                literal_of(t, std::f64::consts::PI)
            )
        });
        let sine = self.float_op(ArithOp::Sin, t, &[angle])?;
        let magnitude = self.tmp();
        self.intrinsic(&magnitude, "fabs", t, &[&sine]);
        let quotient = self.compute(|r| {
            format!(
                "{r} = fdiv {t} {}, {magnitude}",
                literal_of(t, std::f64::consts::PI)
            )
        });
        let log_quotient = self.float_op(ArithOp::Log, t, &[quotient])?;
        let reflected = self.compute(|r| format!("{r} = fsub {t} {log_quotient}, {series}"));
        let finite = self.compute(|r| format!("{r} = select i1 {reflect}, {t} {reflected}, {t} {series}"));
        let absolute = self.tmp();
        self.intrinsic(&absolute, "fabs", t, &[x]);
        let inf = literal_of(t, f64::INFINITY);
        let infinite = self.compute(|r| format!("{r} = fcmp oeq {t} {absolute}, {inf}"));
        Ok(self.compute(|r| format!("{r} = select i1 {infinite}, {t} {inf}, {t} {finite}")))
    }

    /// `nextafter(x, y)` ([`ArithOp::NextAfter`]) on the bit patterns: `x ± 1` (away from zero
    /// where `y` lies beyond `x`), the smallest subnormal with `y`'s sign after a zero, `y`
    /// where they are equal, NaN where either is.
    pub(super) fn next_after(&mut self, t: &str, x: &str, y: &str) -> String {
        let int = int_of(t);
        let bits = numeric::bits(int);
        let xi = self.compute(|r| format!("{r} = bitcast {t} {x} to {int}"));
        let yi = self.compute(|r| format!("{r} = bitcast {t} {y} to {int}"));
        let up = self.compute(|r| format!("{r} = add {int} {xi}, 1"));
        let down = self.compute(|r| format!("{r} = sub {int} {xi}, 1"));
        let beyond = self.compute(|r| format!("{r} = fcmp ogt {t} {y}, {x}"));
        let positive = self.compute(|r| format!("{r} = fcmp ogt {t} {x}, {}", literal_of(t, 0.0)));
        let toward_zero = self.compute(|r| format!("{r} = xor i1 {beyond}, {positive}"));
        let step = self.compute(|r| format!("{r} = select i1 {toward_zero}, {int} {down}, {int} {up}"));
        // The sign bit, written as the most negative number of the type.
        let sign = self.compute(|r| format!("{r} = and {int} {yi}, -{}", 1u128 << (bits - 1)));
        let tiny = self.compute(|r| format!("{r} = or {int} {sign}, 1"));
        let zero = self.compute(|r| format!("{r} = fcmp oeq {t} {x}, {}", literal_of(t, 0.0)));
        let from_zero = self.compute(|r| format!("{r} = select i1 {zero}, {int} {tiny}, {int} {step}"));
        let stepped = self.compute(|r| format!("{r} = bitcast {int} {from_zero} to {t}"));
        let same = self.compute(|r| format!("{r} = fcmp ueq {t} {x}, {y}"));
        let nan = self.compute(|r| format!("{r} = fadd {t} {x}, {y}"));
        let unordered = self.compute(|r| format!("{r} = fcmp uno {t} {x}, {y}"));
        let equal_or_nan = self.compute(|r| format!("{r} = select i1 {unordered}, {t} {nan}, {t} {y}"));
        self.compute(|r| format!("{r} = select i1 {same}, {t} {equal_or_nan}, {t} {stepped}"))
    }

    /// `c₀ + c₁·z + …` (coefficients lowest degree first) by Horner's rule.
    fn ascending(&mut self, t: &str, z: &str, coefficients: &[f64]) -> String {
        let highest_first: Vec<f64> = coefficients.iter().rev().copied().collect();
        self.polynomial(t, z, &highest_first)
    }

    /// `P(y)/Q(y)` of a Bessel function's fit below 8.
    fn bessel_ratio(&mut self, t: &str, kind: Bessel, y: &str) -> String {
        let (p, q) = kind.fit().near;
        let (p, q) = (self.ascending(t, y, p), self.ascending(t, y, q));
        self.compute(|r| format!("{r} = fdiv arcp afn {t} {p}, {q}"))
    }

    /// A Bessel function ([`ArithOp::Bessel`]) as [`Bessel`]'s formulas say, both ranges
    /// computed and one selected; `J` and `Y` are 0 at ±∞ (where the phase is NaN), `Y` NaN
    /// below 0 and `Y₁` −∞ at 0, `I` ±∞ at ±∞.
    pub(super) fn bessel(&mut self, kind: Bessel, t: &str, x: &str) -> Result<String, LowerError> {
        let fit = kind.fit();
        let inf = literal_of(t, f64::INFINITY);
        let ax = self.tmp();
        self.intrinsic(&ax, "fabs", t, &[x]);
        let infinite = self.compute(|r| format!("{r} = fcmp oeq {t} {ax}, {inf}"));
        if matches!(kind, Bessel::I0 | Bessel::I1) {
            let scaled = self.compute(|r| format!("{r} = fmul {t} {x}, {}", literal_of(t, 1.0 / 3.75)));
            let y = self.compute(|r| format!("{r} = fmul {t} {scaled}, {scaled}"));
            let p = self.ascending(t, &y, fit.near.0);
            let near = match kind {
                Bessel::I1 => self.compute(|r| format!("{r} = fmul {t} {ax}, {p}")),
                _ => p,
            };
            let w = self.compute(|r| format!("{r} = fdiv arcp afn {t} {}, {ax}", literal_of(t, 3.75)));
            let tail = self.ascending(t, &w, fit.far.0);
            // e^x/√x as e^(x − ln(x)/2): no overflow before the function's own.
            let l = self.float_op(ArithOp::Log, t, std::slice::from_ref(&ax))?;
            let exponent = self.tmp();
            self.intrinsic(&exponent, "fma", t, &[&l, &literal_of(t, -0.5), &ax]);
            let e = self.float_op(ArithOp::Exp, t, &[exponent])?;
            let far = self.compute(|r| format!("{r} = fmul {t} {e}, {tail}"));
            let small = self.compute(|r| format!("{r} = fcmp olt {t} {ax}, {}", literal_of(t, 3.75)));
            let finite = self.compute(|r| format!("{r} = select i1 {small}, {t} {near}, {t} {far}"));
            let magnitude = self.compute(|r| format!("{r} = select i1 {infinite}, {t} {inf}, {t} {finite}"));
            if kind == Bessel::I0 {
                return Ok(magnitude);
            }
            let signed = self.tmp();
            self.intrinsic(&signed, "copysign", t, &[&magnitude, x]);
            return Ok(signed);
        }
        let second = matches!(kind, Bessel::Y0 | Bessel::Y1);
        let y = self.compute(|r| format!("{r} = fmul {t} {x}, {x}"));
        let ratio = self.bessel_ratio(t, kind, &y);
        let ratio = match kind {
            Bessel::J1 | Bessel::Y1 => self.compute(|r| format!("{r} = fmul {t} {x}, {ratio}")),
            _ => ratio,
        };
        let near = match kind {
            Bessel::Y0 | Bessel::Y1 => {
                // + (2/π)·(J(x)·ln x [− 1/x]), J's own fit below 8.
                let first = if kind == Bessel::Y0 {
                    Bessel::J0
                } else {
                    Bessel::J1
                };
                let j = self.bessel_ratio(t, first, &y);
                let j = match first {
                    Bessel::J1 => self.compute(|r| format!("{r} = fmul {t} {x}, {j}")),
                    _ => j,
                };
                let l = self.float_op(ArithOp::Log, t, &[x.to_string()])?;
                let jl = self.compute(|r| format!("{r} = fmul {t} {j}, {l}"));
                let term = match kind {
                    Bessel::Y1 => {
                        let inverse =
                            self.compute(|r| format!("{r} = fdiv arcp afn {t} {}, {x}", literal_of(t, 1.0)));
                        self.compute(|r| format!("{r} = fsub {t} {jl}, {inverse}"))
                    }
                    _ => jl,
                };
                let sum = self.tmp();
                self.intrinsic(&sum, "fma", t, &[&term, &literal_of(t, TWO_OVER_PI), &ratio]);
                sum
            }
            _ => ratio,
        };
        let z = self.compute(|r| format!("{r} = fdiv arcp afn {t} {}, {ax}", literal_of(t, 8.0)));
        let zz = self.compute(|r| format!("{r} = fmul {t} {z}, {z}"));
        let p = self.ascending(t, &zz, fit.far.0);
        let q = self.ascending(t, &zz, fit.far.1);
        let theta = self.compute(|r| format!("{r} = fsub {t} {ax}, {}", literal_of(t, fit.shift)));
        let sine = self.float_op(ArithOp::Sin, t, std::slice::from_ref(&theta))?;
        let cosine = self.float_op(ArithOp::Cos, t, &[theta])?;
        let zq = self.compute(|r| format!("{r} = fmul {t} {z}, {q}"));
        let wave = if second {
            let a = self.compute(|r| format!("{r} = fmul {t} {cosine}, {zq}"));
            let w = self.tmp();
            self.intrinsic(&w, "fma", t, &[&sine, &p, &a]);
            w
        } else {
            let a = self.compute(|r| format!("{r} = fmul {t} {sine}, {zq}"));
            let minus = self.compute(|r| format!("{r} = fneg {t} {a}"));
            let w = self.tmp();
            self.intrinsic(&w, "fma", t, &[&cosine, &p, &minus]);
            w
        };
        let ratio_over =
            self.compute(|r| format!("{r} = fdiv arcp afn {t} {}, {ax}", literal_of(t, TWO_OVER_PI)));
        let amplitude = self.float_op(ArithOp::Sqrt, t, &[ratio_over])?;
        let far = self.compute(|r| format!("{r} = fmul {t} {amplitude}, {wave}"));
        let far = match kind {
            // J₁ is odd (and changes sign on its own: no copysign).
            Bessel::J1 => {
                let negative = self.compute(|r| format!("{r} = fcmp olt {t} {x}, {}", literal_of(t, 0.0)));
                let minus = self.compute(|r| format!("{r} = fneg {t} {far}"));
                self.compute(|r| format!("{r} = select i1 {negative}, {t} {minus}, {t} {far}"))
            }
            _ => far,
        };
        let small = self.compute(|r| format!("{r} = fcmp olt {t} {ax}, {}", literal_of(t, 8.0)));
        let finite = self.compute(|r| format!("{r} = select i1 {small}, {t} {near}, {t} {far}"));
        let mut value = self.compute(|r| {
            format!(
                "{r} = select i1 {infinite}, {t} {}, {t} {finite}",
                literal_of(t, 0.0)
            )
        });
        if second {
            let negative = self.compute(|r| format!("{r} = fcmp olt {t} {x}, {}", literal_of(t, 0.0)));
            let nan = literal_of(t, f64::NAN);
            value = self.compute(|r| format!("{r} = select i1 {negative}, {t} {nan}, {t} {value}"));
        }
        if kind == Bessel::Y1 {
            let zero = self.compute(|r| format!("{r} = fcmp oeq {t} {x}, {}", literal_of(t, 0.0)));
            let minus_inf = literal_of(t, f64::NEG_INFINITY);
            value = self.compute(|r| format!("{r} = select i1 {zero}, {t} {minus_inf}, {t} {value}"));
        }
        Ok(value)
    }
}
