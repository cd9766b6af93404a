//! The device library's special functions the crate computes itself — `erfc`, `erfcx`,
//! `erfinv`, `lgamma` — as the formulas [`ArithOp::eval`](super::ArithOp::eval) evaluates (in
//! `f64`) and the emitted code follows step by step (in `f32`), and `nextafter` on bit patterns.
//!
//! # Worked example
//!
//! `erfc(2)`: `t = 1/(1 + 2/2) = ½`, the Chebyshev fit `P(½) ≈ −1.2907`, and
//! `erfc(2) = t·e^(−4 + P) ≈ 0.0046777` (the exact value is 0.004677734981…): the fit's relative
//! error stays below 1.2·10⁻⁷ on the whole line, so neither the tail (`erfc(4) ≈ 1.5·10⁻⁸`) nor
//! negative arguments (`erfc(−x) = 2 − erfc(x)`) lose digits as `1 − erf(x)` does.
//!
//! ```
//! use linear_layout::lower::ArithOp;
//! let f = |x: f32| u64::from(x.to_bits());
//! let erfc = |x: f32| f32::from_bits(ArithOp::Erfc.eval("f32", 32, &[f(x)]).unwrap() as u32);
//! assert!((erfc(2.0) - 0.004_677_735).abs() < 1e-9);
//! assert!((erfc(-2.0) - 1.995_322_3).abs() < 1e-6);
//! ```

/// `P(t)` of `erfc(x) = t·e^(−x² + P(t))`, `t = 1/(1 + |x|/2)` (the Chebyshev fit of Press et
/// al., *Numerical Recipes* §6.2: relative error below 1.2·10⁻⁷), lowest degree first.
pub(crate) const ERFC_FIT: [f64; 10] = [
    -1.265_512_23,
    1.000_023_68,
    0.374_091_96,
    0.096_784_18,
    -0.186_288_06,
    0.278_868_07,
    -1.135_203_98,
    1.488_515_87,
    -0.822_152_23,
    0.170_872_77,
];

/// `erfinv(x) = x·P(w − 2.5)` for `w = −ln((1 − x)(1 + x)) < 5`, `x·Q(√w − 3)` above (Giles,
/// *Approximating the erfinv function*, the single-precision fits), highest degree first.
pub(crate) const ERFINV_CENTRAL: [f64; 9] = [
    2.810_226_36e-8,
    3.432_739_39e-7,
    -3.523_387_7e-6,
    -4.391_506_54e-6,
    2.185_808_7e-4,
    -1.253_725_03e-3,
    -4.177_681_64e-3,
    2.466_407_27e-1,
    1.501_409_41,
];

/// The tail fit of [`ERFINV_CENTRAL`]'s formula, highest degree first.
pub(crate) const ERFINV_TAIL: [f64; 9] = [
    -2.002_142_57e-4,
    1.009_505_58e-4,
    1.349_343_22e-3,
    -3.673_428_44e-3,
    5.739_507_73e-3,
    -7.622_461_3e-3,
    9.438_870_47e-3,
    1.001_674_06,
    2.832_976_82,
];

/// Lanczos' series as Press et al. write it (`gammln`, *Numerical Recipes* §6.1):
/// `ln Γ(x) = (x + ½)·ln(x + 5.5) − (x + 5.5) + ln(√(2π)·S(x)/x)` with
/// `S(x) = c₀ + Σⱼ cⱼ/(x + j)`, relative error below 2·10⁻¹⁰ for `x > 0`.
pub(crate) const LANCZOS: [f64; 7] = [
    1.000_000_000_190_015,
    76.180_091_729_471_46,
    -86.505_320_329_416_77,
    24.014_098_240_830_91,
    -1.231_739_572_450_155,
    1.208_650_973_866_179e-3,
    -5.395_239_384_953e-6,
];

/// `√(2π)`.
pub(crate) const SQRT_TWO_PI: f64 = 2.506_628_274_631_000_5;

/// `(t, P(t))` of [`ERFC_FIT`] for `x`.
fn erfc_fit(x: f64) -> (f64, f64) {
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    (t, ERFC_FIT.iter().rev().fold(0.0, |acc, &c| acc * t + c))
}

/// The complementary error function `1 − erf(x)`.
pub(crate) fn erfc(x: f64) -> f64 {
    let (t, p) = erfc_fit(x);
    let tail = t * (p - x * x).exp();
    if x >= 0.0 { tail } else { 2.0 - tail }
}

/// The scaled complementary error function `e^(x²)·erfc(x)` (no overflow for large `x`: the
/// fit's `e^(−x²)` cancels).
pub(crate) fn erfcx(x: f64) -> f64 {
    let (t, p) = erfc_fit(x);
    let scaled = t * p.exp();
    if x >= 0.0 {
        scaled
    } else {
        2.0 * (x * x).exp() - scaled
    }
}

/// The inverse error function on `(−1, 1)`: ±∞ at ±1, NaN beyond.
pub(crate) fn erfinv(x: f64) -> f64 {
    if x.abs() == 1.0 {
        return f64::INFINITY.copysign(x);
    }
    let w = -((1.0 - x) * (1.0 + x)).ln();
    let horner = |c: &[f64], z: f64| c.iter().fold(0.0, |acc, &k| acc * z + k);
    let p = if w < 5.0 {
        horner(&ERFINV_CENTRAL, w - 2.5)
    } else {
        horner(&ERFINV_TAIL, w.sqrt() - 3.0)
    };
    p * x
}

/// `ln|Γ(x)|`: Lanczos' series for `x ≥ ½`, the reflection `ln(π/|sin πx|) − ln|Γ(1 − x)|`
/// below (`+∞` at the poles `0, −1, −2, …` and at `±∞`).
pub(crate) fn lgamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    if x < 0.5 {
        // sin(πx) of the distance to the nearest integer: exact however large x is.
        let r = x - x.round_ties_even();
        let s = (std::f64::consts::PI * r).sin().abs();
        return (std::f64::consts::PI / s).ln() - lgamma(1.0 - x);
    }
    let sum = LANCZOS[1..]
        .iter()
        .enumerate()
        .fold(LANCZOS[0], |acc, (j, &c)| acc + c / (x + j as f64 + 1.0));
    let shifted = x + 5.5;
    (x + 0.5) * shifted.ln() - shifted + (SQRT_TWO_PI * sum / x).ln()
}

/// The next number of type `bits` wide (32: `f32`, 16: `f16`, 64: `f64`) after `x` toward `y`,
/// on bit patterns: `y` where they are equal, NaN where either is, the smallest subnormal
/// with `y`'s sign after a zero.
pub(crate) fn next_after(x: u64, y: u64, bits: u32, decode: impl Fn(u64) -> f64) -> u64 {
    let (a, b) = (decode(x), decode(y));
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() { x } else { y };
    }
    if a == b {
        return y;
    }
    let sign = 1u64 << (bits - 1);
    if a == 0.0 {
        return (y & sign) | 1;
    }
    // Away from zero: one more in the magnitude's bits; toward zero: one less.
    if (b > a) == (a > 0.0) { x + 1 } else { x - 1 }
}
