//! The device library in double precision, which no AMDGPU instruction computes: `eˣ`, `2ˣ`,
//! `eˣ − 1`, `ln x`, `log₂ x`, `log₁₀ x`, `xʸ`, `tanh x`, `sin x`, `cos x`, `tan x`,
//! `√(x² + y²)` and `1/√x` of `f64`, from a reduced argument and a polynomial.
//!
//! Three reductions carry everything:
//!
//! - **Exponentials**: `eˣ = 2ᵏ·eʳ` with `k` the integer nearest `x·log₂e` and
//!   `r = x − k·ln 2` (ln 2 in two parts, so `r` keeps every bit), `|r| ≤ ln 2 / 2`; `eʳ` by a
//!   polynomial of degree 11 (within 2⁻⁵⁵·⁸ of it) and `2ᵏ` by `ldexp`, exact.
//!   For `x = 3`: `k = 4`, `r = 3 − 4·0.693… = 0.2274…`, `eʳ = 1.2553…`, `2⁴·1.2553… = 20.0855…`.
//!   `2ˣ` takes `k` the integer nearest `x` and `r = (x − k)·ln 2`.
//! - **Logarithms**: `x = 2ᵉ·m` with `m` in `[√½, √2)` (`frexp`), `ln m = 2·atanh(s)` with
//!   `s = (m − 1)/(m + 1)`, `|s| ≤ 0.1716`, by its series to `s²¹`; then `ln x = e·ln 2 + ln m`,
//!   `log₂ x = e + ln m·log₂e` (exact at powers of two), `log₁₀ x = e·log₁₀2 + ln m·log₁₀e`.
//! - **Angles**: `|x| = j·π/2 + r` with `|r| ≲ π/4` as a pair `r_hi + r_lo`, by π/2 in three
//!   parts below 2³⁰ and by the bits of 2/π (`v_trig_preop_f64`) above; the sine's and cosine's
//!   series of `r` to `r¹⁹` and `r¹⁸`, chosen and signed by `j mod 4`. For `x = 2`: `j = 1`,
//!   `r = 2 − π/2 = 0.4292…`, `sin 2 = cos r = 0.9093…`.
//!
//! `xʸ = 2^(y·log₂|x|)` needs `log₂|x|` to more bits than a double holds: the product's
//! rounding error is multiplied by `ln 2·|y·log₂|x||` in the result. So the power takes the
//! logarithm as a pair `hi + lo` (the division of `s` and the products by `log₂e` carried with
//! their rounding errors, recovered by `fma`), forms `y·(hi + lo)` as a pair too, and feeds
//! its low half to the exponential's reduced argument.
//!
//! Every function keeps IEEE's special values: `eˣ` is `+∞` past the largest finite result and
//! `0` below the smallest subnormal; logarithms are `−∞` at `0`, NaN below it, `+∞` at `+∞`.

use super::Emitter;
use super::arith::literal_of;
use crate::lower::error::LowerError;
use crate::lower::ir::ArithOp;

/// ln 2 in two parts, the first with its low bits zero (`k·LN2_HI` exact for the exponents a
/// double reaches).
const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
/// `log₂e − LOG2_E`: the bits of log₂e a double rounds off.
const LOG2_E_LO: f64 = 2.035_527_374_093_103_3e-17;
/// The largest `x` whose `eˣ` is finite (ln of the largest double).
const LN_MAX: f64 = 709.782_712_893_384;
/// Below this `x`, `eˣ` rounds to zero (ln 2⁻¹⁰⁷⁵, rounded down).
const LN_MIN: f64 = -745.2;

/// π/2 in three parts, each the double nearest what the parts before it leave.
const HALF_PI: [f64; 3] = [
    std::f64::consts::FRAC_PI_2,
    6.123_233_995_736_766e-17,
    -1.497_384_904_859_169_8e-33,
];
/// At and above this magnitude a sine's or cosine's argument is reduced by the bits of 2/π
/// the hardware holds (`v_trig_preop_f64`); below it, by [`HALF_PI`]'s parts.
const LARGE_ANGLE: f64 = 1_073_741_824.0;

const DOUBLE: &str = "double";

/// `c₂ … c₁₁` of `eʳ ≈ 1 + r + c₂r² + … + c₁₁r¹¹` on `|r| ≤ ln 2 / 2`: the polynomial
/// interpolating `eʳ` at the interval's ten Chebyshev nodes, within 2⁻⁵⁵·⁸ of it
/// (`scripts/fit_exp_polynomial.py` solves for them exactly and prints them; Taylor's
/// coefficients `1/n!` would need two degrees more for the same error).
const EXP_POLYNOMIAL: [f64; 10] = [
    0.500_000_000_000_000_1,
    0.166_666_666_666_666_69,
    0.041_666_666_666_624_164,
    0.008_333_333_333_330_065,
    0.001_388_888_891_719_689,
    0.000_198_412_698_630_406_75,
    2.480_152_132_210_459e-5,
    2.755_726_848_010_692_6e-6,
    2.762_007_600_563_138e-7,
    2.510_037_592_918_592_5e-8,
];

/// The coefficients for Horner's rule in `r`, highest first: of `eʳ` (`from` 0) or of
/// `(eʳ − 1)/r` (`from` 1).
fn exp_coefficients(from: usize) -> Vec<f64> {
    let mut all = vec![1.0, 1.0];
    all.extend(EXP_POLYNOMIAL);
    all[from..].iter().rev().copied().collect()
}

/// `(−1)ᵏ/(2k+1)!` for `k` from 9 down to 1: the sine's series after `r`, divided by `r³`
/// (Horner in `r²`). To `r¹⁹`, the first term left out is below 2⁻⁷² of the sine at
/// `|r| ≤ π/4`.
fn sine_coefficients() -> Vec<f64> {
    series_coefficients(|k| 2 * k + 1)
}

/// `(−1)ᵏ/(2k)!` for `k` from 9 down to 2: the cosine's series after `1 − r²/2`, divided by
/// `r⁴` (the first term left out is below 2⁻⁶⁸ of the cosine).
fn cosine_coefficients() -> Vec<f64> {
    let mut c = series_coefficients(|k| 2 * k);
    c.pop();
    c
}

/// `(−1)ᵏ/n(k)!` for `k` from 9 down to 1.
fn series_coefficients(n: impl Fn(u32) -> u32) -> Vec<f64> {
    (1..=9)
        .rev()
        .map(|k| {
            let factorial: f64 = (1..=n(k)).map(f64::from).product();
            if k % 2 == 1 {
                -1.0 / factorial
            } else {
                1.0 / factorial
            }
        })
        .collect()
}

impl Emitter<'_> {
    /// `fma(a, b, c)` of doubles.
    fn fma_f64(&mut self, a: &str, b: &str, c: &str) -> String {
        let r = self.tmp();
        self.intrinsic(&r, "fma", DOUBLE, &[a, b, c]);
        r
    }

    /// `eˣ·2^shift` in double precision (`shift` −1 halves it without losing the top of the
    /// range to overflow): see the module's exponential reduction.
    pub(super) fn exp_f64(&mut self, x: &str, shift: i32) -> String {
        let t = DOUBLE;
        let (k, r) = self.reduce_by_ln2_f64(x);
        let ln2 = std::f64::consts::LN_2;
        let over = self.compute(|c| {
            format!(
                "{c} = fcmp ogt {t} {x}, {}",
                literal_of(t, LN_MAX - f64::from(shift) * ln2)
            )
        });
        let under = self.compute(|c| {
            format!(
                "{c} = fcmp olt {t} {x}, {}",
                literal_of(t, LN_MIN - f64::from(shift) * ln2)
            )
        });
        self.scaled_exp_f64(&k, &r, shift, &over, &under)
    }

    /// `x = k·ln 2 + r`: `(k, r)` with `k` the integer nearest `x·log₂e` (a double) and
    /// `|r| ≤ ln 2 / 2`, ln 2 in two parts so that `r` keeps every bit.
    fn reduce_by_ln2_f64(&mut self, x: &str) -> (String, String) {
        let t = DOUBLE;
        let scaled =
            self.compute(|r| format!("{r} = fmul {t} {x}, {}", literal_of(t, std::f64::consts::LOG2_E)));
        let k = self.tmp();
        self.intrinsic(&k, "rint", t, &[&scaled]);
        let nk = self.compute(|r| format!("{r} = fneg {t} {k}"));
        let r1 = self.fma_f64(&nk, &literal_of(t, LN2_HI), x);
        let r = self.fma_f64(&nk, &literal_of(t, LN2_LO), &r1);
        (k, r)
    }

    /// The integer-valued double `k` as an `i32` (`v_cvt_i32_f64`). A `k` no `i32` holds —
    /// NaN, or past ±2³¹ — converts to poison in LLVM's terms, which `freeze` makes some fixed
    /// `i32` at no cost: such a `k` only comes of an argument whose result is NaN whatever the
    /// exponent, or is settled by the caller's `over` and `under` selects.
    fn exponent_f64(&mut self, k: &str) -> String {
        self.fixed_i32(k)
    }

    /// `fptosi` of the double `v` to an `i32`, frozen (see [`exponent_f64`](Self::exponent_f64)).
    fn fixed_i32(&mut self, v: &str) -> String {
        let converted = self.compute(|c| format!("{c} = fptosi double {v} to i32"));
        self.compute(|c| format!("{c} = freeze i32 {converted}"))
    }

    /// `2ⁿ·v` (`llvm.ldexp`: exact, or rounded once into the subnormals).
    fn ldexp_f64(&mut self, v: &str, n: &str) -> String {
        self.decls
            .insert("declare double @llvm.ldexp.f64.i32(double, i32)".to_string());
        self.compute(|c| format!("{c} = call double @llvm.ldexp.f64.i32(double {v}, i32 {n})"))
    }

    /// `eˣ − 1` in double precision, without the cancellation of `eˣ` minus 1: with `x` reduced
    /// as for `eˣ`, `eʳ − 1 = u = r·(1 + r/2 + r²/6 + …)` and `eˣ − 1 = 2ᵏ·(u + (1 − 2⁻ᵏ))`
    /// (`k = 0`, `|x| ≤ ln 2 / 2`: `u` itself). `−1` below −40, `+∞` past the largest finite
    /// result, `±0` itself.
    pub(super) fn expm1_f64(&mut self, x: &str) -> String {
        let t = DOUBLE;
        let lit = |v: f64| literal_of(t, v);
        let (k, r) = self.reduce_by_ln2_f64(x);
        let q = self.polynomial(t, &r, &exp_coefficients(1));
        let u = self.compute(|c| format!("{c} = fmul {t} {r}, {q}"));
        // 2ᵏ·(u + (1 − 2⁻ᵏ)): `1 − 2⁻ᵏ` is exact (or rounded far below the sum's last place),
        // and the scaling by 2ᵏ comes last, so nothing overflows before the result does.
        let n = self.exponent_f64(&k);
        let minus_n = self.compute(|c| format!("{c} = sub i32 0, {n}"));
        let inverse = self.ldexp_f64(&lit(1.0), &minus_n);
        let rest = self.compute(|c| format!("{c} = fsub {t} {}, {inverse}", lit(1.0)));
        let v = self.compute(|c| format!("{c} = fadd {t} {u}, {rest}"));
        let sum = self.ldexp_f64(&v, &n);
        let over = self.compute(|c| format!("{c} = fcmp ogt {t} {x}, {}", lit(LN_MAX)));
        let under = self.compute(|c| format!("{c} = fcmp olt {t} {x}, {}", lit(-40.0)));
        let zero = self.compute(|c| format!("{c} = fcmp oeq {t} {x}, {}", lit(0.0)));
        let high = self.compute(|c| format!("{c} = select i1 {over}, {t} {}, {t} {sum}", lit(f64::INFINITY)));
        let low = self.compute(|c| format!("{c} = select i1 {under}, {t} {}, {t} {high}", lit(-1.0)));
        self.compute(|c| format!("{c} = select i1 {zero}, {t} {x}, {t} {low}"))
    }

    /// `2ˣ` in double precision: `k` the integer nearest `x`, `r = (x − k)·ln 2` (the
    /// difference is exact).
    pub(super) fn exp2_f64(&mut self, x: &str) -> String {
        let t = DOUBLE;
        let k = self.tmp();
        self.intrinsic(&k, "rint", t, &[x]);
        let f = self.compute(|r| format!("{r} = fsub {t} {x}, {k}"));
        let r = self.compute(|c| format!("{c} = fmul {t} {f}, {}", literal_of(t, std::f64::consts::LN_2)));
        let over = self.compute(|c| format!("{c} = fcmp oge {t} {x}, {}", literal_of(t, 1024.0)));
        let under = self.compute(|c| format!("{c} = fcmp olt {t} {x}, {}", literal_of(t, -1075.0)));
        self.scaled_exp_f64(&k, &r, 0, &over, &under)
    }

    /// `2^(k + shift)·eʳ` for an integer-valued `k` and `|r| ≤ ln 2 / 2`: `+∞` where `over`,
    /// `0` where `under` (NaN passes through both).
    fn scaled_exp_f64(&mut self, k: &str, r: &str, shift: i32, over: &str, under: &str) -> String {
        let t = DOUBLE;
        let acc = self.polynomial(t, r, &exp_coefficients(0));
        let ki = self.exponent_f64(k);
        let exponent = if shift == 0 {
            ki
        } else {
            self.compute(|c| format!("{c} = add i32 {ki}, {shift}"))
        };
        let e = self.ldexp_f64(&acc, &exponent);
        let inf = literal_of(t, f64::INFINITY);
        let high = self.compute(|c| format!("{c} = select i1 {over}, {t} {inf}, {t} {e}"));
        self.compute(|c| format!("{c} = select i1 {under}, {t} {}, {t} {high}", literal_of(t, 0.0)))
    }

    /// `x = 2ᵉ·f` with `f` in `[½, 1)` (`llvm.frexp`; 0 and 0 for a zero): `(f, e as an i32)`.
    fn frexp_f64(&mut self, x: &str) -> (String, String) {
        self.decls
            .insert("declare { double, i32 } @llvm.frexp.f64.i32(double)".to_string());
        let parts = self.compute(|r| format!("{r} = call {{ double, i32 }} @llvm.frexp.f64.i32(double {x})"));
        let f = self.compute(|r| format!("{r} = extractvalue {{ double, i32 }} {parts}, 0"));
        let e = self.compute(|r| format!("{r} = extractvalue {{ double, i32 }} {parts}, 1"));
        (f, e)
    }

    /// `x = 2ᵉ·m`, `m` in `[√½, √2)`: `(m, e as a double)`.
    fn split_f64(&mut self, x: &str) -> (String, String) {
        let t = DOUBLE;
        let (m0, e0) = self.frexp_f64(x);
        let low = self.compute(|r| {
            format!(
                "{r} = fcmp olt {t} {m0}, {}",
                literal_of(t, std::f64::consts::FRAC_1_SQRT_2)
            )
        });
        let m2 = self.compute(|r| format!("{r} = fadd {t} {m0}, {m0}"));
        let m = self.compute(|r| format!("{r} = select i1 {low}, {t} {m2}, {t} {m0}"));
        let e1 = self.compute(|r| format!("{r} = sub i32 {e0}, 1"));
        let e = self.compute(|r| format!("{r} = select i1 {low}, i32 {e1}, i32 {e0}"));
        let ef = self.compute(|r| format!("{r} = sitofp i32 {e} to {t}"));
        (m, ef)
    }

    /// `(s, 1 + s²/3 + s⁴/5 + … + s²⁰/21)` for `s = (m − 1)/(m + 1)`: `ln m = 2s·series`.
    fn atanh_series_f64(&mut self, m: &str) -> (String, String) {
        let t = DOUBLE;
        let one = literal_of(t, 1.0);
        let num = self.compute(|r| format!("{r} = fsub {t} {m}, {one}"));
        let den = self.compute(|r| format!("{r} = fadd {t} {m}, {one}"));
        let s = self.compute(|r| format!("{r} = fdiv {t} {num}, {den}"));
        let z = self.compute(|r| format!("{r} = fmul {t} {s}, {s}"));
        let coefficients: Vec<f64> = (0..=10).rev().map(|n| 1.0 / f64::from(2 * n + 1)).collect();
        let series = self.polynomial(t, &z, &coefficients);
        (s, series)
    }

    /// `ln x`, `log₂ x` or `log₁₀ x` (by `op`) in double precision: see the module's
    /// logarithm.
    pub(super) fn log_f64(&mut self, op: ArithOp, x: &str) -> String {
        let t = DOUBLE;
        let (m, ef) = self.split_f64(x);
        let (s, series) = self.atanh_series_f64(&m);
        let two_s = self.compute(|r| format!("{r} = fadd {t} {s}, {s}"));
        let ln_m = self.compute(|r| format!("{r} = fmul {t} {two_s}, {series}"));
        let value = match op {
            ArithOp::Log2 => self.fma_f64(&ln_m, &literal_of(t, std::f64::consts::LOG2_E), &ef),
            ArithOp::Log10 => {
                let tail = self.compute(|r| {
                    format!(
                        "{r} = fmul {t} {ln_m}, {}",
                        literal_of(t, std::f64::consts::LOG10_E)
                    )
                });
                self.fma_f64(&ef, &literal_of(t, std::f64::consts::LOG10_2), &tail)
            }
            _ => {
                let lo = self.fma_f64(&ef, &literal_of(t, LN2_LO), &ln_m);
                self.fma_f64(&ef, &literal_of(t, LN2_HI), &lo)
            }
        };
        self.log_special_values_f64(x, &value)
    }

    /// A logarithm's `value` with IEEE's special values of its argument `x`: `+∞` at `+∞`,
    /// `−∞` at `±0`, NaN below zero.
    fn log_special_values_f64(&mut self, x: &str, value: &str) -> String {
        let t = DOUBLE;
        let zero = literal_of(t, 0.0);
        let is_zero = self.compute(|r| format!("{r} = fcmp oeq {t} {x}, {zero}"));
        let negative = self.compute(|r| format!("{r} = fcmp olt {t} {x}, {zero}"));
        let infinite = self.compute(|r| format!("{r} = fcmp oeq {t} {x}, {}", literal_of(t, f64::INFINITY)));
        let a = self.compute(|r| format!("{r} = select i1 {infinite}, {t} {x}, {t} {value}"));
        let b = self.compute(|r| {
            format!(
                "{r} = select i1 {is_zero}, {t} {}, {t} {a}",
                literal_of(t, f64::NEG_INFINITY)
            )
        });
        self.compute(|r| {
            format!(
                "{r} = select i1 {negative}, {t} {}, {t} {b}",
                literal_of(t, f64::NAN)
            )
        })
    }

    /// `(s, e)` with `s = a + b` rounded and `e` its rounding error (`a + b = s + e` exactly),
    /// for `|a| ≥ |b|` or `a = 0`.
    fn fast_two_sum_f64(&mut self, a: &str, b: &str) -> (String, String) {
        let t = DOUBLE;
        let s = self.compute(|r| format!("{r} = fadd {t} {a}, {b}"));
        let z = self.compute(|r| format!("{r} = fsub {t} {s}, {a}"));
        let e = self.compute(|r| format!("{r} = fsub {t} {b}, {z}"));
        (s, e)
    }

    /// `|x|ʸ` in double precision for `x` finite and nonzero or not (`log₂ 0 = −∞`,
    /// `log₂ ∞ = ∞`): `2^(y·log₂|x|)` with the logarithm and the product carried as pairs
    /// (see the module), so the result is within a few units in the last place at any
    /// exponent.
    pub(super) fn pow_magnitude_f64(&mut self, ax: &str, y: &str) -> String {
        let t = DOUBLE;
        let lit = |v: f64| literal_of(t, v);
        let (m, ef) = self.split_f64(ax);
        // s = (m − 1)/(m + 1) as s_hi + s_lo: m − 1 is exact, m + 1 is not (its error
        // `den_lo`), and the quotient's remainder comes back by an fma.
        let one = lit(1.0);
        let num = self.compute(|r| format!("{r} = fsub {t} {m}, {one}"));
        let den = self.compute(|r| format!("{r} = fadd {t} {m}, {one}"));
        let den_less_one = self.compute(|r| format!("{r} = fsub {t} {den}, {one}"));
        let den_lo = self.compute(|r| format!("{r} = fsub {t} {m}, {den_less_one}"));
        let s = self.compute(|r| format!("{r} = fdiv {t} {num}, {den}"));
        let ns = self.compute(|r| format!("{r} = fneg {t} {s}"));
        let remainder = self.fma_f64(&ns, &den, &num);
        let remainder = self.fma_f64(&ns, &den_lo, &remainder);
        let s_lo = self.compute(|r| format!("{r} = fdiv {t} {remainder}, {den}"));
        // ln m = 2s + 2s·z·(1/3 + z/5 + …): the tail is under 1% of the sum, so a double
        // holds it to far more bits than the sum needs.
        let z = self.compute(|r| format!("{r} = fmul {t} {s}, {s}"));
        let coefficients: Vec<f64> = (1..=10).rev().map(|n| 1.0 / f64::from(2 * n + 1)).collect();
        let p = self.polynomial(t, &z, &coefficients);
        let two_s = self.compute(|r| format!("{r} = fadd {t} {s}, {s}"));
        let two_s_z = self.compute(|r| format!("{r} = fmul {t} {two_s}, {z}"));
        let tail = self.compute(|r| format!("{r} = fmul {t} {two_s_z}, {p}"));
        let ln_lo = self.fma_f64(&lit(2.0), &s_lo, &tail);
        // log₂ m = (2s + ln_lo)·(LOG2_E + LOG2_E_LO), its high product's error by an fma.
        let prod = self.compute(|r| format!("{r} = fmul {t} {two_s}, {}", lit(std::f64::consts::LOG2_E)));
        let nprod = self.compute(|r| format!("{r} = fneg {t} {prod}"));
        let prod_err = self.fma_f64(&two_s, &lit(std::f64::consts::LOG2_E), &nprod);
        let lo_terms = self.compute(|r| format!("{r} = fmul {t} {ln_lo}, {}", lit(std::f64::consts::LOG2_E)));
        let lo_terms = self.fma_f64(&two_s, &lit(LOG2_E_LO), &lo_terms);
        let prod_lo = self.compute(|r| format!("{r} = fadd {t} {prod_err}, {lo_terms}"));
        // log₂|x| = e + log₂ m: e is an integer of magnitude at least that of log₂ m, or 0.
        let (sum, sum_err) = self.fast_two_sum_f64(&ef, &prod);
        let sum_lo = self.compute(|r| format!("{r} = fadd {t} {sum_err}, {prod_lo}"));
        let (l_hi, l_lo) = self.fast_two_sum_f64(&sum, &sum_lo);
        // Zero and infinity: the pair is (∓∞, 0).
        let zero = lit(0.0);
        let is_zero = self.compute(|r| format!("{r} = fcmp oeq {t} {ax}, {zero}"));
        let infinite = self.compute(|r| format!("{r} = fcmp oeq {t} {ax}, {}", lit(f64::INFINITY)));
        let l_hi = self.compute(|r| format!("{r} = select i1 {infinite}, {t} {ax}, {t} {l_hi}"));
        let l_hi = self.compute(|r| {
            format!(
                "{r} = select i1 {is_zero}, {t} {}, {t} {l_hi}",
                lit(f64::NEG_INFINITY)
            )
        });
        let edge = self.compute(|r| format!("{r} = or i1 {is_zero}, {infinite}"));
        let l_lo = self.compute(|r| format!("{r} = select i1 {edge}, {t} {zero}, {t} {l_lo}"));
        // p = y·log₂|x| as p_hi + p_lo.
        let p_hi = self.compute(|r| format!("{r} = fmul {t} {y}, {l_hi}"));
        let np = self.compute(|r| format!("{r} = fneg {t} {p_hi}"));
        let p_err = self.fma_f64(y, &l_hi, &np);
        let p_lo = self.fma_f64(y, &l_lo, &p_err);
        // 2^p: k nearest p_hi, r = ((p_hi − k) + p_lo)·ln 2.
        let k = self.tmp();
        self.intrinsic(&k, "rint", t, &[&p_hi]);
        let f = self.compute(|r| format!("{r} = fsub {t} {p_hi}, {k}"));
        let f = self.compute(|r| format!("{r} = fadd {t} {f}, {p_lo}"));
        let r = self.compute(|c| format!("{c} = fmul {t} {f}, {}", lit(std::f64::consts::LN_2)));
        let over = self.compute(|c| format!("{c} = fcmp oge {t} {p_hi}, {}", lit(1024.0)));
        let under = self.compute(|c| format!("{c} = fcmp olt {t} {p_hi}, {}", lit(-1075.0)));
        self.scaled_exp_f64(&k, &r, 0, &over, &under)
    }

    /// `tanh x = −u/(u + 2)` with `u = eˣ − 1` of `−2|x|` (in `(−1, 0]`, so nothing cancels),
    /// the sign of `x` copied on: `x` itself near 0, `±1` far out.
    pub(super) fn tanh_f64(&mut self, x: &str) -> Result<String, LowerError> {
        let t = DOUBLE;
        let a = self.tmp();
        self.intrinsic(&a, "fabs", t, &[x]);
        let m = self.compute(|r| format!("{r} = fmul {t} {a}, {}", literal_of(t, -2.0)));
        let u = self.float_op(ArithOp::Expm1, t, &[m])?;
        let nu = self.compute(|r| format!("{r} = fneg {t} {u}"));
        let den = self.compute(|r| format!("{r} = fadd {t} {u}, {}", literal_of(t, 2.0)));
        let q = self.compute(|r| format!("{r} = fdiv {t} {nu}, {den}"));
        let r = self.tmp();
        self.intrinsic(&r, "copysign", t, &[&q, x]);
        Ok(r)
    }

    /// `1/√x`: AMDGPU's `v_rsq_f64` `y` (good to 2⁻²³) refined by one step of the series
    /// `x^(−1/2) = y·(1 − e)^(−1/2) = y·(1 + e/2 + 3e²/8 + …)`, `e = 1 − x·y²`, which leaves
    /// an error of order `e³` (below 2⁻⁶⁸); `±0` and `+∞` keep the instruction's `±∞` and `0`,
    /// where the step would make NaN.
    pub(super) fn rsqrt_f64(&mut self, x: &str) -> String {
        let t = DOUBLE;
        let lit = |v: f64| literal_of(t, v);
        self.decls
            .insert("declare double @llvm.amdgcn.rsq.f64(double)".to_string());
        let y = self.compute(|r| format!("{r} = call double @llvm.amdgcn.rsq.f64(double {x})"));
        let refined = self.refine_rsqrt_f64(x, &y);
        let zero = self.compute(|r| format!("{r} = fcmp oeq {t} {x}, {}", lit(0.0)));
        let infinite = self.compute(|r| format!("{r} = fcmp oeq {t} {x}, {}", lit(f64::INFINITY)));
        let edge = self.compute(|r| format!("{r} = or i1 {zero}, {infinite}"));
        self.compute(|r| format!("{r} = select i1 {edge}, {t} {y}, {t} {refined}"))
    }

    /// `y·(1 + e/2 + 3e²/8)` with `e = 1 − x·y²`: `1/√x` from an estimate `y` of it.
    fn refine_rsqrt_f64(&mut self, x: &str, y: &str) -> String {
        let t = DOUBLE;
        let lit = |v: f64| literal_of(t, v);
        let xy = self.compute(|r| format!("{r} = fmul {t} {x}, {y}"));
        let nxy = self.compute(|r| format!("{r} = fneg {t} {xy}"));
        let e = self.fma_f64(&nxy, y, &lit(1.0));
        let series = self.fma_f64(&e, &lit(0.375), &lit(0.5));
        let ye = self.compute(|r| format!("{r} = fmul {t} {y}, {e}"));
        self.fma_f64(&ye, &series, y)
    }

    /// `√(x² + y²)` in double precision: the larger magnitude `m` and the smaller `n` scaled by
    /// `2⁻ᵉ` (`m = 2ᵉ·f`, `f` in `[½, 1)`: exact, so no square overflows or underflows and no
    /// division is needed), the root of the sum in `[¼, 2]` scaled back. `+∞` where either is
    /// infinite, else NaN where either is NaN; `0` where both are `0`.
    pub(super) fn hypot_f64(&mut self, x: &str, y: &str) -> String {
        let t = DOUBLE;
        let (ax, ay) = (self.tmp(), self.tmp());
        self.intrinsic(&ax, "fabs", t, &[x]);
        self.intrinsic(&ay, "fabs", t, &[y]);
        let (m, n) = (self.tmp(), self.tmp());
        self.intrinsic(&m, "maxnum", t, &[&ax, &ay]);
        self.intrinsic(&n, "minnum", t, &[&ax, &ay]);
        let (f, e) = self.frexp_f64(&m);
        let minus_e = self.compute(|r| format!("{r} = sub i32 0, {e}"));
        let g = self.ldexp_f64(&n, &minus_e);
        let gg = self.compute(|r| format!("{r} = fmul {t} {g}, {g}"));
        let s = self.fma_f64(&f, &f, &gg);
        // s is in [¼, 2]: its root needs none of the scaling and special cases `llvm.sqrt` adds
        // around `v_rsq_f64`. √s = s·(1/√s), the product's rounding corrected by an fma.
        self.decls
            .insert("declare double @llvm.amdgcn.rsq.f64(double)".to_string());
        let estimate = self.compute(|r| format!("{r} = call double @llvm.amdgcn.rsq.f64(double {s})"));
        let inverse = self.refine_rsqrt_f64(&s, &estimate);
        let near = self.compute(|r| format!("{r} = fmul {t} {s}, {inverse}"));
        let nnear = self.compute(|r| format!("{r} = fneg {t} {near}"));
        let residual = self.fma_f64(&nnear, &near, &s);
        let half_inverse = self.compute(|r| format!("{r} = fmul {t} {inverse}, {}", literal_of(t, 0.5)));
        let root = self.fma_f64(&residual, &half_inverse, &near);
        let h = self.ldexp_f64(&root, &e);
        let zero = self.compute(|r| format!("{r} = fcmp oeq {t} {m}, {}", literal_of(t, 0.0)));
        let h = self.compute(|r| format!("{r} = select i1 {zero}, {t} {m}, {t} {h}"));
        self.hypot_special_values(t, &ax, &ay, &h)
    }

    /// `(s, e)` with `s = a + b` rounded and `e` its rounding error, for any `a` and `b`.
    fn two_sum_f64(&mut self, a: &str, b: &str) -> (String, String) {
        let t = DOUBLE;
        let s = self.compute(|r| format!("{r} = fadd {t} {a}, {b}"));
        let bb = self.compute(|r| format!("{r} = fsub {t} {s}, {a}"));
        let ab = self.compute(|r| format!("{r} = fsub {t} {s}, {bb}"));
        let ea = self.compute(|r| format!("{r} = fsub {t} {a}, {ab}"));
        let eb = self.compute(|r| format!("{r} = fsub {t} {b}, {bb}"));
        let e = self.compute(|r| format!("{r} = fadd {t} {ea}, {eb}"));
        (s, e)
    }

    /// `|x| = j·π/2 + r`: `(j mod 4 as i32, r_hi, r_lo)` with `r = r_hi + r_lo` a pair and
    /// `|r| ≲ π/4`.
    ///
    /// Below 2³⁰, `j` the integer nearest `|x|·2/π` and `r = |x| − j·π/2` with
    /// π/2 in three parts (`|x| − j·P₁` is exact; the next two products' rounding is carried in
    /// `r_lo`). At 2³⁰ and above (a branch only lanes that need it take), Payne and Hanek's:
    /// `v_trig_preop_f64` gives 2/π's bits from where the bits before them only add multiples
    /// of 4 to `|x|·2/π`, 53 at a time; the products with `|x|` are summed exactly as pairs,
    /// their whole part taken mod 4 and the rest is `r/(π/2)`. A NaN or infinite `x` gives NaN.
    fn reduce_angle_f64(&mut self, x: &str) -> (String, String, String) {
        let t = DOUBLE;
        let lit = |v: f64| literal_of(t, v);
        let a = self.tmp();
        self.intrinsic(&a, "fabs", t, &[x]);
        // Below 2³⁰: by the parts of π/2.
        let scaled = self.compute(|r| format!("{r} = fmul {t} {a}, {}", lit(std::f64::consts::FRAC_2_PI)));
        let j = self.tmp();
        self.intrinsic(&j, "rint", t, &[&scaled]);
        let nj = self.compute(|r| format!("{r} = fneg {t} {j}"));
        let t1 = self.fma_f64(&nj, &lit(HALF_PI[0]), &a);
        let jp2 = self.compute(|r| format!("{r} = fmul {t} {j}, {}", lit(HALF_PI[1])));
        let njp2 = self.compute(|r| format!("{r} = fneg {t} {jp2}"));
        let jp2_err = self.fma_f64(&j, &lit(HALF_PI[1]), &njp2);
        let (near_hi, e) = self.two_sum_f64(&t1, &njp2);
        let e = self.compute(|r| format!("{r} = fsub {t} {e}, {jp2_err}"));
        let near_lo = self.fma_f64(&nj, &lit(HALF_PI[2]), &e);
        // Frozen: a NaN angle's quadrant is some i32, its result NaN in any quadrant.
        let near_j = self.fixed_i32(&j);
        // At 2³⁰ and above: by 2/π's bits.
        let large = self.compute(|r| format!("{r} = fcmp oge {t} {a}, {}", lit(LARGE_ANGLE)));
        let (reduce, reduced) = (self.label("trig_reduce"), self.label("trig_reduced"));
        let before = self.block.clone();
        self.line(&format!("br i1 {large}, label %{reduce}, label %{reduced}"));
        self.start_block(&reduce);
        let (far_j, far_hi, far_lo) = self.reduce_by_two_over_pi(&a);
        let after = self.block.clone();
        self.line(&format!("br label %{reduced}"));
        self.start_block(&reduced);
        let merge = |e: &mut Self, ty: &str, near: &str, far: &str| {
            e.compute(|r| format!("{r} = phi {ty} [ {near}, %{before} ], [ {far}, %{after} ]"))
        };
        let quadrant = merge(self, "i32", &near_j, &far_j);
        let r_hi = merge(self, t, &near_hi, &far_hi);
        let r_lo = merge(self, t, &near_lo, &far_lo);
        (quadrant, r_hi, r_lo)
    }

    /// `(sin r, cos r)` of a reduced angle `r = r_hi + r_lo`, `|r| ≲ π/4`:
    /// `sin r ≈ r_hi + (r_hi·z·S(z) + r_lo)`, `cos r ≈ (1 − z/2) + (z²·C(z) − r_hi·r_lo)` with
    /// `z = r_hi²` (the pair's second part enters to first order).
    fn sine_cosine_f64(&mut self, r_hi: &str, r_lo: &str) -> (String, String) {
        let t = DOUBLE;
        let lit = |v: f64| literal_of(t, v);
        let z = self.compute(|r| format!("{r} = fmul {t} {r_hi}, {r_hi}"));
        let sp = self.polynomial(t, &z, &sine_coefficients());
        let rz = self.compute(|r| format!("{r} = fmul {t} {r_hi}, {z}"));
        let sine_tail = self.fma_f64(&rz, &sp, r_lo);
        let sine = self.compute(|r| format!("{r} = fadd {t} {r_hi}, {sine_tail}"));
        let cp = self.polynomial(t, &z, &cosine_coefficients());
        let half = self.compute(|r| format!("{r} = fmul {t} {z}, {}", lit(0.5)));
        let w = self.compute(|r| format!("{r} = fsub {t} {}, {half}", lit(1.0)));
        let w_dropped = self.compute(|r| format!("{r} = fsub {t} {}, {w}", lit(1.0)));
        let w_err = self.compute(|r| format!("{r} = fsub {t} {w_dropped}, {half}"));
        let zz = self.compute(|r| format!("{r} = fmul {t} {z}, {z}"));
        let nr = self.compute(|r| format!("{r} = fneg {t} {r_hi}"));
        let cross = self.fma_f64(&nr, r_lo, &w_err);
        let cosine_tail = self.fma_f64(&zz, &cp, &cross);
        let cosine = self.compute(|r| format!("{r} = fadd {t} {w}, {cosine_tail}"));
        (sine, cosine)
    }

    /// `sin x` (`shift` 0) or `cos x` (`shift` 1) in double precision: the quadrant
    /// `(j + shift) mod 4` of the reduced angle chooses the sine or cosine of `r` and its sign,
    /// and a sine takes the sign of `x`. A NaN or infinite `x` gives NaN.
    pub(super) fn sin_cos_f64(&mut self, x: &str, shift: i64) -> String {
        let t = DOUBLE;
        let (quadrant, r_hi, r_lo) = self.reduce_angle_f64(x);
        let (sine, cosine) = self.sine_cosine_f64(&r_hi, &r_lo);
        let q = self.compute(|r| format!("{r} = add i32 {quadrant}, {shift}"));
        let odd = self.compute(|r| format!("{r} = trunc i32 {q} to i1"));
        let q2 = self.compute(|r| format!("{r} = and i32 {q}, 2"));
        let mut flip = self.compute(|r| format!("{r} = icmp ne i32 {q2}, 0"));
        if shift == 0 {
            let bits = self.compute(|r| format!("{r} = bitcast {t} {x} to i64"));
            let negative = self.compute(|r| format!("{r} = icmp slt i64 {bits}, 0"));
            flip = self.compute(|r| format!("{r} = xor i1 {flip}, {negative}"));
        }
        let v = self.compute(|r| format!("{r} = select i1 {odd}, {t} {cosine}, {t} {sine}"));
        let nv = self.compute(|r| format!("{r} = fneg {t} {v}"));
        self.compute(|r| format!("{r} = select i1 {flip}, {t} {nv}, {t} {v}"))
    }

    /// `tan x` in double precision: `sin r / cos r` of the reduced angle, `−cos r / sin r` in
    /// the odd quadrants, with the sign of `x`.
    pub(super) fn tan_f64(&mut self, x: &str) -> String {
        let t = DOUBLE;
        let (quadrant, r_hi, r_lo) = self.reduce_angle_f64(x);
        let (sine, cosine) = self.sine_cosine_f64(&r_hi, &r_lo);
        let odd = self.compute(|r| format!("{r} = trunc i32 {quadrant} to i1"));
        let num = self.compute(|r| format!("{r} = select i1 {odd}, {t} {cosine}, {t} {sine}"));
        let den = self.compute(|r| format!("{r} = select i1 {odd}, {t} {sine}, {t} {cosine}"));
        let q = self.compute(|r| format!("{r} = fdiv {t} {num}, {den}"));
        let bits = self.compute(|r| format!("{r} = bitcast {t} {x} to i64"));
        let negative = self.compute(|r| format!("{r} = icmp slt i64 {bits}, 0"));
        let flip = self.compute(|r| format!("{r} = xor i1 {odd}, {negative}"));
        let nq = self.compute(|r| format!("{r} = fneg {t} {q}"));
        self.compute(|r| format!("{r} = select i1 {flip}, {t} {nq}, {t} {q}"))
    }

    /// Payne and Hanek's reduction of `a = |x| ≥ 2³⁰`: `(j mod 4 as i32, r_hi, r_lo)` with
    /// `a·2/π = 4n + j + f`, `r = f·π/2`. `v_trig_preop_f64(a, k)` is the `k`-th run of 53 bits
    /// of 2/π after those whose product with `a` is a multiple of 4 (scaled by 2¹²⁸ for `a` at
    /// 2⁹⁴⁵ and above, which `a` is scaled down by to match).
    fn reduce_by_two_over_pi(&mut self, a: &str) -> (String, String, String) {
        let t = DOUBLE;
        let lit = |v: f64| literal_of(t, v);
        self.decls
            .insert("declare double @llvm.amdgcn.trig.preop.f64(double, i32)".to_string());
        let bits = self.compute(|r| format!("{r} = bitcast {t} {a} to i64"));
        let huge = self.compute(|r| format!("{r} = icmp uge i64 {bits}, {}", 1968u64 << 52));
        let down = self.ldexp_f64(a, "-128");
        let xs = self.compute(|r| format!("{r} = select i1 {huge}, {t} {down}, {t} {a}"));
        let bits_of = |e: &mut Self, k: u32| {
            e.compute(|r| format!("{r} = call double @llvm.amdgcn.trig.preop.f64(double {a}, i32 {k})"))
        };
        let (p0, p1, p2, p3) = (
            bits_of(self, 0),
            bits_of(self, 1),
            bits_of(self, 2),
            bits_of(self, 3),
        );
        // Each product as an exact pair (the last one's rounding is far below what is kept).
        let product = |e: &mut Self, p: &str| {
            let h = e.compute(|r| format!("{r} = fmul {t} {xs}, {p}"));
            let nh = e.compute(|r| format!("{r} = fneg {t} {h}"));
            let l = e.fma_f64(&xs, p, &nh);
            (h, l)
        };
        let (h0, l0) = product(self, &p0);
        let (h1, l1) = product(self, &p1);
        let (h2, l2) = product(self, &p2);
        let h3 = self.compute(|r| format!("{r} = fmul {t} {xs}, {p3}"));
        // h0 mod 4 (exact: h0 is a multiple of its last place, which is at most 8).
        let quarter = self.compute(|r| format!("{r} = fmul {t} {h0}, {}", lit(0.25)));
        let whole = self.tmp();
        self.intrinsic(&whole, "trunc", t, &[&quarter]);
        let h0m = self.fma_f64(&whole, &lit(-4.0), &h0);
        let (s1, e1) = self.two_sum_f64(&h0m, &h1);
        let (s2, e2) = self.two_sum_f64(&s1, &l0);
        // Smallest first: what is below the pair's last place of s2.
        let small = self.compute(|r| format!("{r} = fadd {t} {h3}, {l2}"));
        let small = self.compute(|r| format!("{r} = fadd {t} {small}, {h2}"));
        let small = self.compute(|r| format!("{r} = fadd {t} {small}, {l1}"));
        let small = self.compute(|r| format!("{r} = fadd {t} {small}, {e2}"));
        let small = self.compute(|r| format!("{r} = fadd {t} {small}, {e1}"));
        let j = self.tmp();
        self.intrinsic(&j, "rint", t, &[&s2]);
        let f = self.compute(|r| format!("{r} = fsub {t} {s2}, {j}"));
        let (f_hi, f_lo) = self.two_sum_f64(&f, &small);
        // r = f·π/2 as a pair.
        let r_hi = self.compute(|r| format!("{r} = fmul {t} {f_hi}, {}", lit(HALF_PI[0])));
        let nr = self.compute(|r| format!("{r} = fneg {t} {r_hi}"));
        let r_err = self.fma_f64(&f_hi, &lit(HALF_PI[0]), &nr);
        let lo = self.compute(|r| format!("{r} = fmul {t} {f_lo}, {}", lit(HALF_PI[0])));
        let lo = self.fma_f64(&f_hi, &lit(HALF_PI[1]), &lo);
        let r_lo = self.compute(|r| format!("{r} = fadd {t} {r_err}, {lo}"));
        let ji = self.fixed_i32(&j);
        (ji, r_hi, r_lo)
    }
}
