//! The device library's special functions the crate computes itself — `erfc`, `erfcx`,
//! `erfinv`, `lgamma`, the Bessel functions `j0`, `j1`, `y0`, `y1`, `i0`, `i1` — as the formulas [`ArithOp::eval`](super::ArithOp::eval) evaluates (in
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
//! let erfc = |x: f32| f32::from_bits(ArithOp::Erfc.eval("f32", 32, &[f(x)]).map_or(u32::MAX, |b| b as u32));
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

/// A Bessel function of the device library ([`ArithOp::Bessel`](super::ArithOp::Bessel)):
/// of the first kind (`J`), of the second (`Y`), modified of the first (`I`), of order 0 or 1.
///
/// Each is a rational fit `P(x²)/Q(x²)` near zero and Hankel's asymptotic form
/// `√(2/(πx))·(cos θ·P₁ − (8/x)·sin θ·Q₁)` (`θ = x − π/4` or `x − 3π/4`) from 8 on for `J` and
/// `Y`, a polynomial in `(x/3.75)²` and `e^x/√x` times one in `3.75/x` for `I` — the fits of
/// Press et al. (*Numerical Recipes* §6.5–6.6, after Hart and Abramowitz–Stegun 9.8), within
/// about 10⁻⁷ of the function (relative to it, or to 1 where it is smaller).
///
/// ```
/// use linear_layout::lower::{ArithOp, Bessel};
/// let f = |x: f32| u64::from(x.to_bits());
/// let at = |b, x: f32| f32::from_bits(ArithOp::Bessel(b).eval("f32", 32, &[f(x)]).map_or(u32::MAX, |b| b as u32));
/// assert!((at(Bessel::J0, 1.0) - 0.765_197_7).abs() < 1e-6);
/// assert!((at(Bessel::I1, 1.0) - 0.565_159_1).abs() < 1e-6);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bessel {
    /// `J₀`.
    J0,
    /// `J₁`.
    J1,
    /// `Y₀` (NaN below 0, −∞ at 0).
    Y0,
    /// `Y₁` (NaN below 0, −∞ at 0).
    Y1,
    /// `I₀`.
    I0,
    /// `I₁`.
    I1,
}

/// One fit of [`Bessel`]: coefficients lowest degree first.
pub(crate) struct BesselFit {
    /// `P` and `Q` of the rational fit in `x²` below 8 (`J`, `Y`), or the polynomial in
    /// `(x/3.75)²` below 3.75 and (as `far`) the one in `3.75/x` above (`I`, `Q` empty).
    pub(crate) near: (&'static [f64], &'static [f64]),
    /// `P₁` and `Q₁` of the asymptotic form in `(8/x)²` (`J`, `Y`), or the polynomial in
    /// `3.75/x` (`I`, `Q₁` empty).
    pub(crate) far: (&'static [f64], &'static [f64]),
    /// The phase `θ = x − shift` of the asymptotic form.
    pub(crate) shift: f64,
}

impl Bessel {
    /// Its fit.
    pub(crate) fn fit(self) -> BesselFit {
        const P0: [f64; 5] = [
            1.0,
            -1.098_628_627e-3,
            2.734_510_407e-5,
            -2.073_370_639e-6,
            2.093_887_211e-7,
        ];
        const Q0J: [f64; 5] = [
            -1.562_499_995e-2,
            1.430_488_765e-4,
            -6.911_147_651e-6,
            7.621_095_161e-7,
            -9.349_351_52e-8,
        ];
        const Q0Y: [f64; 5] = [
            -1.562_499_995e-2,
            1.430_488_765e-4,
            -6.911_147_651e-6,
            7.621_095_161e-7,
            -9.349_451_52e-8,
        ];
        const P1: [f64; 5] = [
            1.0,
            1.831_05e-3,
            -3.516_396_496e-5,
            2.457_520_174e-6,
            -2.403_370_19e-7,
        ];
        const Q1: [f64; 5] = [
            4.687_499_995e-2,
            -2.002_690_873e-4,
            8.449_199_096e-6,
            -8.822_898_7e-7,
            1.057_874_12e-7,
        ];
        match self {
            Bessel::J0 => BesselFit {
                near: (
                    &[
                        5.756_849_057_4e10,
                        -1.336_259_035_4e10,
                        6.516_196_407e8,
                        -1.121_442_418e7,
                        7.739_233_017e4,
                        -1.849_052_456e2,
                    ],
                    &[
                        5.756_849_041_1e10,
                        1.029_532_985e9,
                        9.494_680_718e6,
                        5.927_264_853e4,
                        2.678_532_712e2,
                        1.0,
                    ],
                ),
                far: (&P0, &Q0J),
                shift: 0.785_398_164,
            },
            Bessel::J1 => BesselFit {
                near: (
                    &[
                        7.236_261_423_2e10,
                        -7.895_059_235e9,
                        2.423_968_531e8,
                        -2.972_611_439e6,
                        1.570_448_26e4,
                        -3.016_036_606e1,
                    ],
                    &[
                        1.447_252_284_42e11,
                        2.300_535_178e9,
                        1.858_330_474e7,
                        9.944_743_394e4,
                        3.769_991_397e2,
                        1.0,
                    ],
                ),
                far: (&P1, &Q1),
                shift: 2.356_194_491,
            },
            Bessel::Y0 => BesselFit {
                near: (
                    &[
                        -2.957_821_389e9,
                        7.062_834_065e9,
                        -5.123_598_036e8,
                        1.087_988_129e7,
                        -8.632_792_757e4,
                        2.284_622_733e2,
                    ],
                    &[
                        4.007_654_426_9e10,
                        7.452_499_648e8,
                        7.189_466_438e6,
                        4.744_726_47e4,
                        2.261_030_244e2,
                        1.0,
                    ],
                ),
                far: (&P0, &Q0Y),
                shift: 0.785_398_164,
            },
            Bessel::Y1 => BesselFit {
                near: (
                    &[
                        -4.900_604_943e12,
                        1.275_274_39e12,
                        -5.153_438_139e10,
                        7.349_264_551e8,
                        -4.237_922_726e6,
                        8.511_937_935e3,
                    ],
                    &[
                        2.499_580_57e13,
                        4.244_419_664e11,
                        3.733_650_367e9,
                        2.245_904_002e7,
                        1.020_426_05e5,
                        3.549_632_885e2,
                        1.0,
                    ],
                ),
                far: (&P1, &Q1),
                shift: 2.356_194_491,
            },
            Bessel::I0 => BesselFit {
                near: (
                    &[
                        1.0,
                        3.515_622_9,
                        3.089_942_4,
                        1.206_749_2,
                        0.265_973_2,
                        3.607_68e-2,
                        4.581_3e-3,
                    ],
                    &[],
                ),
                far: (
                    &[
                        0.398_942_28,
                        1.328_592e-2,
                        2.253_19e-3,
                        -1.575_65e-3,
                        9.162_81e-3,
                        -2.057_706e-2,
                        2.635_537e-2,
                        -1.647_633e-2,
                        3.923_77e-3,
                    ],
                    &[],
                ),
                shift: 0.0,
            },
            Bessel::I1 => BesselFit {
                near: (
                    &[
                        0.5,
                        0.878_905_94,
                        0.514_988_69,
                        0.150_849_34,
                        2.658_733e-2,
                        3.015_32e-3,
                        3.241_1e-4,
                    ],
                    &[],
                ),
                far: (
                    &[
                        0.398_942_28,
                        -3.988_024e-2,
                        -3.620_18e-3,
                        1.638_01e-3,
                        -1.031_555e-2,
                        2.282_967e-2,
                        -2.895_312e-2,
                        1.787_654e-2,
                        -4.200_59e-3,
                    ],
                    &[],
                ),
                shift: 0.0,
            },
        }
    }
}

/// `2/π` (the fits write it to nine digits).
pub(crate) const TWO_OVER_PI: f64 = std::f64::consts::FRAC_2_PI;

/// Bessel function `kind` at `x` ([`Bessel`]'s formulas in `f64`).
pub(crate) fn bessel(kind: Bessel, x: f64) -> f64 {
    let horner = |c: &[f64], z: f64| c.iter().rev().fold(0.0, |acc, &k| acc * z + k);
    let fit = kind.fit();
    let ax = x.abs();
    if matches!(kind, Bessel::I0 | Bessel::I1) {
        if ax.is_infinite() {
            return if kind == Bessel::I1 { x } else { ax };
        }
        let magnitude = if ax < 3.75 {
            let y = (x / 3.75) * (x / 3.75);
            let p = horner(fit.near.0, y);
            if kind == Bessel::I1 { ax * p } else { p }
        } else {
            (ax - 0.5 * ax.ln()).exp() * horner(fit.far.0, 3.75 / ax)
        };
        return if kind == Bessel::I1 && x < 0.0 {
            -magnitude
        } else {
            magnitude
        };
    }
    let second = matches!(kind, Bessel::Y0 | Bessel::Y1);
    if x.is_nan() || (second && x < 0.0) {
        return f64::NAN;
    }
    if ax.is_infinite() {
        return 0.0;
    }
    if kind == Bessel::Y1 && x == 0.0 {
        return f64::NEG_INFINITY;
    }
    let order_one = matches!(kind, Bessel::J1 | Bessel::Y1);
    if ax < 8.0 {
        let y = x * x;
        let ratio = horner(fit.near.0, y) / horner(fit.near.1, y);
        let ratio = if order_one { x * ratio } else { ratio };
        return match kind {
            Bessel::Y0 => ratio + TWO_OVER_PI * bessel(Bessel::J0, x) * x.ln(),
            Bessel::Y1 => ratio + TWO_OVER_PI * (bessel(Bessel::J1, x) * x.ln() - 1.0 / x),
            _ => ratio,
        };
    }
    let z = 8.0 / ax;
    let y = z * z;
    let theta = ax - fit.shift;
    let (p, q) = (horner(fit.far.0, y), horner(fit.far.1, y));
    let amplitude = (TWO_OVER_PI / ax).sqrt();
    let r = if second {
        amplitude * (theta.sin() * p + z * theta.cos() * q)
    } else {
        amplitude * (theta.cos() * p - z * theta.sin() * q)
    };
    if kind == Bessel::J1 && x < 0.0 { -r } else { r }
}
