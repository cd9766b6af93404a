//! `lower::compile` of the device library's functions (`tt.extern_elementwise` into
//! `__ocml_*` and Triton's own `__triton_hip_*`), which the crate computes itself: each kernel
//! a small TTIR module as Triton's `make_ttir` leaves it, run in the interpreter against the
//! function and accepted by llc-22.

mod lower_common;

use lower_common::constructs::{ARCHS, compiled, float, floats, run, word, words};

/// The device library's functions people call through `libdevice` that the crate computes:
/// `pow` (a negative base to an integer power, a fractional power), `log1p` and `expm1` near 0
/// (where `log(1 + x)` and `exp(x) - 1` lose every digit), `copysign`.
#[test]
fn library_pow_log1p_expm1_and_copysign() {
    // `make_ttir` of: `ax = tl.abs(x) + 0.25`, `small = x * 2⁻¹⁰`; stored: `pow(x, 3.0)`,
    // `pow(ax, 1.5)`, `log1p(small)`, `expm1(small)`, `pow(-ax, 2.0)`, `copysign(ax, x)`.
    let text = r#"module {
  tt.func public @math_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y3: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y4: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y5: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y6: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {
    %cst = arith.constant dense<2.000000e+00> : tensor<256xf32>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<256xf32>
    %cst_1 = arith.constant dense<1.500000e+00> : tensor<256xf32>
    %cst_2 = arith.constant dense<3.000000e+00> : tensor<256xf32>
    %small = arith.constant dense<9.765625E-4> : tensor<256xf32>
    %ax = arith.constant dense<2.500000e-01> : tensor<256xf32>
    %x = arith.constant dense<1.000000e+00> : tensor<256xf32>
    %c256_i32 = arith.constant 256 : i32
    %offs = tt.get_program_id x : i32
    %offs_3 = arith.muli %offs, %c256_i32 : i32
    %offs_4 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %offs_5 = tt.splat %offs_3 : i32 -> tensor<256xi32>
    %offs_6 = arith.addi %offs_5, %offs_4 : tensor<256xi32>
    %mask = tt.splat %n : i32 -> tensor<256xi32>
    %mask_7 = arith.cmpi slt, %offs_6, %mask : tensor<256xi32>
    %x_8 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %x_9 = tt.addptr %x_8, %offs_6 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x_10 = tt.load %x_9, %mask_7, %x : tensor<256x!tt.ptr<f32>>
    %ax_11 = math.absf %x_10 : tensor<256xf32>
    %ax_12 = arith.addf %ax_11, %ax : tensor<256xf32>
    %small_13 = arith.mulf %x_10, %small : tensor<256xf32>
    %0 = tt.splat %y1 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %1 = tt.addptr %0, %offs_6 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %2 = tt.extern_elementwise %x_10, %cst_2 {libname = "", libpath = "", pure = true, symbol = "__ocml_pow_f32"} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    tt.store %1, %2, %mask_7 : tensor<256x!tt.ptr<f32>>
    %3 = tt.splat %y2 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %4 = tt.addptr %3, %offs_6 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %5 = tt.extern_elementwise %ax_12, %cst_1 {libname = "", libpath = "", pure = true, symbol = "__ocml_pow_f32"} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    tt.store %4, %5, %mask_7 : tensor<256x!tt.ptr<f32>>
    %6 = tt.splat %y3 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %7 = tt.addptr %6, %offs_6 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %8 = tt.extern_elementwise %small_13 {libname = "", libpath = "", pure = true, symbol = "__ocml_log1p_f32"} : (tensor<256xf32>) -> tensor<256xf32>
    tt.store %7, %8, %mask_7 : tensor<256x!tt.ptr<f32>>
    %9 = tt.splat %y4 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %10 = tt.addptr %9, %offs_6 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %11 = tt.extern_elementwise %small_13 {libname = "", libpath = "", pure = true, symbol = "__ocml_expm1_f32"} : (tensor<256xf32>) -> tensor<256xf32>
    tt.store %10, %11, %mask_7 : tensor<256x!tt.ptr<f32>>
    %12 = tt.splat %y5 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %13 = tt.addptr %12, %offs_6 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %14 = arith.subf %cst_0, %ax_12 : tensor<256xf32>
    %15 = tt.extern_elementwise %14, %cst {libname = "", libpath = "", pure = true, symbol = "__ocml_pow_f32"} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    tt.store %13, %15, %mask_7 : tensor<256x!tt.ptr<f32>>
    %16 = tt.splat %y6 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %17 = tt.addptr %16, %offs_6 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %18 = tt.extern_elementwise %ax_12, %x_10 {libname = "", libpath = "", pure = true, symbol = "__ocml_copysign_f32"} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    tt.store %17, %18, %mask_7 : tensor<256x!tt.ptr<f32>>
    tt.return
  }
}"#;
    let n = 1000usize;
    let x: Vec<f32> = (0..1024).map(|i| ((i * 37 % 129) as f32 - 64.0) * 0.25).collect();
    let want = |i: usize| -> [f64; 6] {
        let (v, ax) = (f64::from(x[i]), f64::from(x[i].abs() + 0.25));
        let small = v / 1024.0;
        [
            v.powi(3),
            ax.powf(1.5),
            small.ln_1p(),
            small.exp_m1(),
            ax * ax,
            ax.copysign(v),
        ]
    };
    for arch in ARCHS {
        let k = compiled(text, arch);
        let xs: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
        let mut buffers = vec![words(&xs)];
        buffers.extend((0..6).map(|_| vec![0; 1024 * 4]));
        run(&k, &mut buffers, &[n as u64], 4);
        for i in 0..n {
            for (out, w) in want(i).into_iter().enumerate() {
                let got = f64::from(f32::from_bits(word(&buffers[out + 1], i)));
                assert!(
                    (got - w).abs() <= 1e-6 * w.abs().max(1e-30),
                    "{arch}: output {out} at {i}: {got} vs {w}"
                );
            }
        }
    }
}

/// The device library's classifications (`libdevice.isnan`, `isinf`, `signbit`): an `i32` 1 or
/// 0 per element, NaNs of either sign, infinities, −0.0.
#[test]
fn library_classifications_of_floats() {
    // `make_ttir` of: storing `libdevice.isnan(x)`, `libdevice.isinf(x)`, `libdevice.signbit(x)`
    // (BLOCK 128).
    let text = r#"module {
  tt.func public @classify_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %nan_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %inf_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %sign_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {
    %cst = arith.constant dense<0> : tensor<128xi32>
    %c128_i32 = arith.constant 128 : i32
    %offs = tt.get_program_id x : i32
    %offs_0 = arith.muli %offs, %c128_i32 : i32
    %offs_1 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %offs_2 = tt.splat %offs_0 : i32 -> tensor<128xi32>
    %offs_3 = arith.addi %offs_2, %offs_1 : tensor<128xi32>
    %mask = tt.splat %n : i32 -> tensor<128xi32>
    %mask_4 = arith.cmpi slt, %offs_3, %mask : tensor<128xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %x_5 = tt.addptr %x, %offs_3 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %x_6 = tt.load %x_5, %mask_4 : tensor<128x!tt.ptr<f32>>
    %0 = tt.splat %nan_ptr : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %1 = tt.addptr %0, %offs_3 : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %2 = tt.extern_elementwise %x_6 {libname = "", libpath = "", pure = true, symbol = "__ocml_isnan_f32"} : (tensor<128xf32>) -> tensor<128xi32>
    %3 = arith.cmpi ne, %2, %cst : tensor<128xi32>
    %4 = arith.extui %3 : tensor<128xi1> to tensor<128xi32>
    tt.store %1, %4, %mask_4 : tensor<128x!tt.ptr<i32>>
    %5 = tt.splat %inf_ptr : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %6 = tt.addptr %5, %offs_3 : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %7 = tt.extern_elementwise %x_6 {libname = "", libpath = "", pure = true, symbol = "__ocml_isinf_f32"} : (tensor<128xf32>) -> tensor<128xi32>
    %8 = arith.cmpi ne, %7, %cst : tensor<128xi32>
    %9 = arith.extui %8 : tensor<128xi1> to tensor<128xi32>
    tt.store %6, %9, %mask_4 : tensor<128x!tt.ptr<i32>>
    %10 = tt.splat %sign_ptr : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %11 = tt.addptr %10, %offs_3 : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %12 = tt.extern_elementwise %x_6 {libname = "", libpath = "", pure = true, symbol = "__ocml_signbit_f32"} : (tensor<128xf32>) -> tensor<128xi32>
    tt.store %11, %12, %mask_4 : tensor<128x!tt.ptr<i32>>
    tt.return
  }
}"#;
    let special = [
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        0.0,
        f32::MIN_POSITIVE,
        -1.5,
        f32::MAX,
    ];
    let x: Vec<f32> = (0..256)
        .map(|i| {
            if i % 3 == 0 {
                special[i % special.len()]
            } else {
                i as f32 - 100.0
            }
        })
        .collect();
    for arch in ARCHS {
        let k = compiled(text, arch);
        let xs: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
        let mut buffers = vec![words(&xs), vec![0; 1024], vec![0; 1024], vec![0; 1024]];
        run(&k, &mut buffers, &[256], 2);
        for (i, v) in x.iter().enumerate() {
            let got = [word(&buffers[1], i), word(&buffers[2], i), word(&buffers[3], i)];
            let want = [v.is_nan(), v.is_infinite(), v.is_sign_negative()].map(u32::from);
            assert_eq!(got, want, "{arch}: {v} at {i}");
        }
    }
}

/// The device library's `tan` (`sin / cos`) and `hypot` (no square overflows: `3e30` and `4e30`
/// give `5e30`).
#[test]
fn library_tan_and_hypot() {
    // `make_ttir` of: storing `libdevice.tan(x * 0.09)` and `libdevice.hypot(x, y)` (BLOCK 256).
    let text = r#"module {
  tt.func public @trig_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %t_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %h_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {
    %cst = arith.constant dense<9.000000e-02> : tensor<256xf32>
    %c256_i32 = arith.constant 256 : i32
    %offs = tt.get_program_id x : i32
    %offs_0 = arith.muli %offs, %c256_i32 : i32
    %offs_1 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %offs_2 = tt.splat %offs_0 : i32 -> tensor<256xi32>
    %offs_3 = arith.addi %offs_2, %offs_1 : tensor<256xi32>
    %mask = tt.splat %n : i32 -> tensor<256xi32>
    %mask_4 = arith.cmpi slt, %offs_3, %mask : tensor<256xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %x_5 = tt.addptr %x, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x_6 = tt.load %x_5, %mask_4 : tensor<256x!tt.ptr<f32>>
    %y = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %y_7 = tt.addptr %y, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %y_8 = tt.load %y_7, %mask_4 : tensor<256x!tt.ptr<f32>>
    %0 = tt.splat %t_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %1 = tt.addptr %0, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %2 = arith.mulf %x_6, %cst : tensor<256xf32>
    %3 = tt.extern_elementwise %2 {libname = "", libpath = "", pure = true, symbol = "__ocml_tan_f32"} : (tensor<256xf32>) -> tensor<256xf32>
    tt.store %1, %3, %mask_4 : tensor<256x!tt.ptr<f32>>
    %4 = tt.splat %h_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %5 = tt.addptr %4, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %6 = tt.extern_elementwise %x_6, %y_8 {libname = "", libpath = "", pure = true, symbol = "__ocml_hypot_f32"} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    tt.store %5, %6, %mask_4 : tensor<256x!tt.ptr<f32>>
    tt.return
  }
}"#;
    let x: Vec<f32> = (0..512).map(|i| ((i * 37 % 129) as f32 - 64.0) * 0.25).collect();
    let mut y: Vec<f32> = (0..512).map(|i| ((i * 11 % 61) as f32 - 30.0) * 0.5).collect();
    let mut x = x;
    (x[5], y[5], x[6], y[6], x[7], y[7]) = (3e30, 4e30, 0.0, 0.0, f32::NEG_INFINITY, f32::NAN);
    for arch in ARCHS {
        let k = compiled(text, arch);
        let bits = |v: &[f32]| -> Vec<u32> { v.iter().map(|f| f.to_bits()).collect() };
        let mut buffers = vec![words(&bits(&x)), words(&bits(&y)), vec![0; 2048], vec![0; 2048]];
        run(&k, &mut buffers, &[500], 2);
        for i in 0..500 {
            let tan = f64::from(x[i] * 0.09f32).tan();
            let hypot = f64::from(x[i]).hypot(f64::from(y[i]));
            let (got_tan, got_hypot) = (
                f32::from_bits(word(&buffers[2], i)),
                f32::from_bits(word(&buffers[3], i)),
            );
            if i != 5 && i != 7 {
                assert!(
                    (f64::from(got_tan) - tan).abs() <= 1e-6 * tan.abs().max(1.0),
                    "{arch}: tan at {i}: {got_tan} vs {tan}"
                );
            }
            let close = f64::from(got_hypot) == hypot || (f64::from(got_hypot) - hypot).abs() <= 1e-6 * hypot;
            assert!(close, "{arch}: hypot at {i}: {got_hypot} vs {hypot}");
        }
    }
}

/// The device library's inverse trigonometry (Triton's tutorial on external functions calls
/// `libdevice.asin`): `asin` and `acos` over [−1, 1] (and NaN past it), `atan`, `atan2` in
/// every quadrant and on the axes; `tl.sin` beside them.
#[test]
fn library_inverse_trigonometry() {
    // `make_ttir` of: `u = x * 0.0625`; storing `libdevice.asin(u)`, `libdevice.acos(u)`,
    // `libdevice.atan(x)`, `libdevice.atan2(y, x)`, `tl.sin(x)` (BLOCK 256).
    let text = r#"module {
  tt.func public @inverse_trig_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o3: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o4: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o5: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {
    %u = arith.constant dense<6.250000e-02> : tensor<256xf32>
    %c256_i32 = arith.constant 256 : i32
    %offs = tt.get_program_id x : i32
    %offs_0 = arith.muli %offs, %c256_i32 : i32
    %offs_1 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %offs_2 = tt.splat %offs_0 : i32 -> tensor<256xi32>
    %offs_3 = arith.addi %offs_2, %offs_1 : tensor<256xi32>
    %mask = tt.splat %n : i32 -> tensor<256xi32>
    %mask_4 = arith.cmpi slt, %offs_3, %mask : tensor<256xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %x_5 = tt.addptr %x, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x_6 = tt.load %x_5, %mask_4 : tensor<256x!tt.ptr<f32>>
    %y = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %y_7 = tt.addptr %y, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %y_8 = tt.load %y_7, %mask_4 : tensor<256x!tt.ptr<f32>>
    %u_9 = arith.mulf %x_6, %u : tensor<256xf32>
    %0 = tt.splat %o1 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %1 = tt.addptr %0, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %2 = tt.extern_elementwise %u_9 {libname = "", libpath = "", pure = true, symbol = "__ocml_asin_f32"} : (tensor<256xf32>) -> tensor<256xf32>
    tt.store %1, %2, %mask_4 : tensor<256x!tt.ptr<f32>>
    %3 = tt.splat %o2 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %4 = tt.addptr %3, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %5 = tt.extern_elementwise %u_9 {libname = "", libpath = "", pure = true, symbol = "__ocml_acos_f32"} : (tensor<256xf32>) -> tensor<256xf32>
    tt.store %4, %5, %mask_4 : tensor<256x!tt.ptr<f32>>
    %6 = tt.splat %o3 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %7 = tt.addptr %6, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %8 = tt.extern_elementwise %x_6 {libname = "", libpath = "", pure = true, symbol = "__ocml_atan_f32"} : (tensor<256xf32>) -> tensor<256xf32>
    tt.store %7, %8, %mask_4 : tensor<256x!tt.ptr<f32>>
    %9 = tt.splat %o4 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %10 = tt.addptr %9, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %11 = tt.extern_elementwise %y_8, %x_6 {libname = "", libpath = "", pure = true, symbol = "__ocml_atan2_f32"} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    tt.store %10, %11, %mask_4 : tensor<256x!tt.ptr<f32>>
    %12 = tt.splat %o5 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %13 = tt.addptr %12, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %14 = math.sin %x_6 : tensor<256xf32>
    tt.store %13, %14, %mask_4 : tensor<256x!tt.ptr<f32>>
    tt.return
  }
}"#;
    let mut x: Vec<f32> = (0..512).map(|i| ((i * 37 % 129) as f32 - 64.0) * 0.25).collect();
    let mut y: Vec<f32> = (0..512).map(|i| ((i * 11 % 61) as f32 - 30.0) * 0.5).collect();
    (x[3], y[3], x[4], y[4], x[5], y[5], x[6], y[6]) = (0.0, 2.0, 0.0, -2.0, -0.0, 0.0, 17.0, 1.0);
    for arch in ARCHS {
        let k = compiled(text, arch);
        let bits = |v: &[f32]| -> Vec<u32> { v.iter().map(|f| f.to_bits()).collect() };
        let mut buffers = vec![words(&bits(&x)), words(&bits(&y))];
        buffers.extend((0..5).map(|_| vec![0; 2048]));
        run(&k, &mut buffers, &[500], 2);
        for i in 0..500 {
            let (u, xi, yi) = (f64::from(x[i] * 0.0625f32), f64::from(x[i]), f64::from(y[i]));
            let want = [u.asin(), u.acos(), xi.atan(), yi.atan2(xi), xi.sin()];
            for (out, w) in want.into_iter().enumerate() {
                let got = f64::from(f32::from_bits(word(&buffers[out + 2], i)));
                let close =
                    got == w || (w.is_nan() && got.is_nan()) || (got - w).abs() <= 1e-6 * w.abs().max(1.0);
                assert!(
                    close,
                    "{arch}: output {out} at {i} (x {xi}, y {yi}): {got} vs {w}"
                );
            }
        }
    }
}

/// `libdevice.ilogb(x)`: `⌊log₂|x|⌋` for normal and subnormal numbers, `i32::MIN` for ±0 and
/// `i32::MAX` for infinities and NaNs — what Triton's code returns (an `frexp` of the value
/// widened to f64, minus one, and those two selects).
#[test]
fn library_ilogb_of_every_kind_of_float() {
    // `tl.store(y_ptr + offs, libdevice.ilogb(tl.load(x_ptr + offs, mask=m)), mask=m)`,
    // in the form `make_ttir` leaves it (BLOCK 128).
    let text = r#"module {
  tt.func public @ilogb_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {
    %c128_i32 = arith.constant 128 : i32
    %pid = tt.get_program_id x : i32
    %base = arith.muli %pid, %c128_i32 : i32
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %b = tt.splat %base : i32 -> tensor<128xi32>
    %offs = arith.addi %b, %r : tensor<128xi32>
    %nn = tt.splat %n : i32 -> tensor<128xi32>
    %m = arith.cmpi slt, %offs, %nn : tensor<128xi32>
    %xp = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %xq = tt.addptr %xp, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %x = tt.load %xq, %m : tensor<128x!tt.ptr<f32>>
    %y = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__ocml_ilogb_f32"} : (tensor<128xf32>) -> tensor<128xi32>
    %yp = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %yq = tt.addptr %yp, %offs : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    tt.store %yq, %y, %m : tensor<128x!tt.ptr<i32>>
    tt.return
  }
}"#;
    let mut x: Vec<f32> = (0..256)
        .map(|i| ((i as f32) - 128.0) * 3.7e3_f32.powf((i % 9) as f32 - 4.0))
        .collect();
    let specials = [
        0.0,
        -0.0,
        1.0,
        0.75,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        -1e-45,
        f32::MIN_POSITIVE,
        f32::MAX,
        3.0e-39,
    ];
    x[..specials.len()].copy_from_slice(&specials);
    let n = 250;
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![floats(&x), vec![0; 1024]];
        run(&k, &mut buffers, &[n as u64], 2);
        for (i, &v) in x.iter().enumerate().take(n) {
            let want = if v == 0.0 {
                i32::MIN
            } else if !v.is_finite() {
                i32::MAX
            } else {
                // The exponent of the value in f64, where every f32 is normal.
                (((f64::from(v).to_bits() >> 52) & 0x7ff) as i32) - 1023
            };
            assert_eq!(word(&buffers[1], i) as i32, want, "{arch}: ilogb({v:e}) at {i}");
        }
    }
}

/// The device library's `log10` (`libdevice.log10(x)`, masked `other = 1`): LLVM's `log10`,
/// `log₂ x · log₁₀ 2` on AMDGPU; −∞ at 0, NaN below. Values are quarters from 1/4 to 64 and
/// exact powers of ten.
#[test]
fn library_log10() {
    // `make_ttir` of: `tl.store(y_ptr + offs, libdevice.log10(tl.load(x_ptr + offs, mask=m, other=1.)), mask=m)`.
    let text = r#"module {
  tt.func public @k_log10(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %n: i32) attributes {noinline = false} {
    %x = arith.constant dense<1.000000e+00> : tensor<256xf32>
    %c256_i32 = arith.constant 256 : i32
    %offs = tt.get_program_id x : i32
    %offs_0 = arith.muli %offs, %c256_i32 : i32
    %offs_1 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %offs_2 = tt.splat %offs_0 : i32 -> tensor<256xi32>
    %offs_3 = arith.addi %offs_2, %offs_1 : tensor<256xi32>
    %x_4 = tt.splat %n : i32 -> tensor<256xi32>
    %x_5 = arith.cmpi slt, %offs_3, %x_4 : tensor<256xi32>
    %x_6 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %x_7 = tt.addptr %x_6, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x_8 = tt.load %x_7, %x_5, %x : tensor<256x!tt.ptr<f32>>
    %y = tt.extern_elementwise %x_8 {libname = "", libpath = "", pure = true, symbol = "__ocml_log10_f32"} : (tensor<256xf32>) -> tensor<256xf32>
    %0 = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %1 = tt.addptr %0, %offs_3 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    tt.store %1, %y, %x_5 : tensor<256x!tt.ptr<f32>>
    tt.return
  }
}"#;
    let mut x: Vec<f32> = (0..512).map(|i| ((i * 37 % 256) + 1) as f32 * 0.25).collect();
    (x[3], x[4], x[5], x[6]) = (1000.0, 1e-3, 0.0, -2.0);
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![floats(&x), vec![0; 2048]];
        run(&k, &mut buffers, &[500], 2);
        for (i, &v) in x.iter().enumerate().take(500) {
            let (got, want) = (float(&buffers[1], i), f64::from(v).log10());
            match i {
                5 => assert_eq!(got, f32::NEG_INFINITY, "{arch}: log10(0)"),
                6 => assert!(got.is_nan(), "{arch}: log10(-2) = {got}"),
                _ => assert!(
                    (f64::from(got) - want).abs() <= 1e-6 * want.abs().max(1.0),
                    "{arch}: log10({v}) = {got}, not {want}"
                ),
            }
        }
    }
}

/// A vector kernel of one element-wise device-library call on `f32`: `y = f(x[, x + 3])`.
fn library_kernel(symbol: &str, operands: usize) -> String {
    let args = if operands == 2 { "%x, %x3" } else { "%x" };
    let types = if operands == 2 {
        "tensor<256xf32>, tensor<256xf32>"
    } else {
        "tensor<256xf32>"
    };
    format!(
        r#"module {{
  tt.func public @k(%x_ptr: !tt.ptr<f32> {{tt.divisibility = 16 : i32}}, %y_ptr: !tt.ptr<f32> {{tt.divisibility = 16 : i32}}) {{
    %three = arith.constant dense<3.000000e+00> : tensor<256xf32>
    %r = tt.make_range {{end = 256 : i32, start = 0 : i32}} : tensor<256xi32>
    %px = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %ax = tt.addptr %px, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x = tt.load %ax : tensor<256x!tt.ptr<f32>>
    %x3 = arith.addf %x, %three : tensor<256xf32>
    %y = tt.extern_elementwise {args} {{libname = "", libpath = "", pure = true, symbol = "{symbol}"}} : ({types}) -> tensor<256xf32>
    %py = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %ay = tt.addptr %py, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    tt.store %ay, %y : tensor<256x!tt.ptr<f32>>
    tt.return
  }}
}}
"#
    )
}

/// `libdevice.fast_dividef(x, x + 3)` is `x · rcp(x + 3)` and `fast_tanhf` Triton's
/// `1 − 2/(e^(2|x|) + 1)` with the sign of `x` (no series near zero): within 2 ulp of the
/// quotient and of `tanh` away from zero, and `±1` far out.
#[test]
fn library_fast_dividef_and_fast_tanhf() {
    let x: Vec<f32> = (0..256).map(|i| (i as f32 - 128.5) / 9.0).collect();
    for arch in ARCHS {
        for (symbol, operands) in [("__triton_hip_fast_fdividef", 2), ("__triton_hip_fast_tanhf", 1)] {
            let k = compiled(&library_kernel(symbol, operands), arch);
            let ir = k.llvm_ir().unwrap();
            let instruction = if operands == 2 {
                "@llvm.amdgcn.rcp.f32("
            } else {
                "@llvm.amdgcn.exp2.f32("
            };
            assert!(ir.contains(instruction), "{arch} {symbol}:\n{ir}");
            let mut buffers = vec![floats(&x), vec![0; 1024]];
            run(&k, &mut buffers, &[], 1);
            for (i, &v) in x.iter().enumerate() {
                let got = f64::from(float(&buffers[1], i));
                let want = if operands == 2 {
                    f64::from(v) / f64::from(v + 3.0)
                } else {
                    f64::from(v).tanh()
                };
                let tolerance = if operands == 2 {
                    4e-7 * want.abs()
                } else {
                    2e-7_f64.max(4e-7 * want.abs())
                };
                assert!(
                    (got - want).abs() <= tolerance.max(1e-30),
                    "{arch} {symbol}({v}) = {got}, not {want}"
                );
            }
        }
    }
}

/// `libdevice.llrint` (`__triton_hip_llrint`): to the nearest integer, halfway cases to even,
/// as a 64-bit integer.
#[test]
fn library_llrint_rounds_halfway_to_even() {
    let text = r#"module {
  tt.func public @k(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<i64> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %px = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %ax = tt.addptr %px, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x = tt.load %ax : tensor<256x!tt.ptr<f32>>
    %y = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__triton_hip_llrint"} : (tensor<256xf32>) -> tensor<256xi64>
    %py = tt.splat %y_ptr : !tt.ptr<i64> -> tensor<256x!tt.ptr<i64>>
    %ay = tt.addptr %py, %r : tensor<256x!tt.ptr<i64>>, tensor<256xi32>
    tt.store %ay, %y : tensor<256x!tt.ptr<i64>>
    tt.return
  }
}
"#;
    // Quarters, so every halfway case between −32 and 32 is there, and a value past 2³².
    let mut x: Vec<f32> = (0..256).map(|i| (i as f32 - 128.0) / 4.0).collect();
    x[255] = 6e9;
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![floats(&x), vec![0; 256 * 8]];
        run(&k, &mut buffers, &[], 1);
        for (i, &v) in x.iter().enumerate() {
            let got = i64::from_le_bytes(buffers[1][8 * i..8 * i + 8].try_into().unwrap());
            assert_eq!(got, f64::from(v).round_ties_even() as i64, "{arch}: llrint({v})");
        }
    }
}

/// What a library function computes, in f64.
type Reference = fn(f64) -> f64;

/// The hyperbolic functions and their inverses (`__ocml_sinh_f32`, …): within 4 ulp of the
/// function over arguments from 1/64 to 80 of either sign (their domains), ±∞ where it
/// overflows, NaN outside the domain.
#[test]
fn library_hyperbolic_functions() {
    let x: Vec<f32> = (0..256)
        .map(|i| {
            let magnitude = 2f32.powf((i % 128) as f32 / 128.0 * 12.3 - 6.0);
            if i < 128 { magnitude } else { -magnitude }
        })
        .collect();
    let functions: [(&str, Reference); 5] = [
        ("__ocml_sinh_f32", f64::sinh),
        ("__ocml_cosh_f32", f64::cosh),
        ("__ocml_asinh_f32", f64::asinh),
        ("__ocml_acosh_f32", f64::acosh),
        ("__ocml_atanh_f32", f64::atanh),
    ];
    for arch in ARCHS {
        for (symbol, f) in functions {
            let k = compiled(&library_kernel(symbol, 1), arch);
            let mut buffers = vec![floats(&x), vec![0; 1024]];
            run(&k, &mut buffers, &[], 1);
            for (i, &v) in x.iter().enumerate() {
                let got = f64::from(float(&buffers[1], i));
                let want = f(f64::from(v));
                let same = if want.is_nan() {
                    got.is_nan()
                } else if (want as f32).is_infinite() {
                    got == f64::from(want as f32)
                } else {
                    (got - want).abs() <= 4.0 * f64::from(f32::EPSILON) * want.abs()
                };
                assert!(same, "{arch} {symbol}({v}) = {got}, not {want}");
            }
        }
    }
}

/// `libdevice.ldexp` (`__ocml_ldexp_f32`): `x · 2ⁿ` for an i32 `n`, exact, ±∞ past the range
/// and rounded once into the subnormals.
#[test]
fn library_ldexp_scales_by_integer_powers_of_two() {
    let text = float_by_integer_kernel("__ocml_ldexp_f32");
    let x: Vec<f32> = (0..256).map(|i| 1.0 + i as f32 / 256.0).collect();
    // Exponents from −160 (into the subnormals and to zero) to +150 (past the largest float).
    let n: Vec<u32> = (0..256i32).map(|i| (i * 310 / 255 - 160) as u32).collect();
    for arch in ARCHS {
        let k = compiled(&text, arch);
        let mut buffers = vec![floats(&x), words(&n), vec![0; 1024]];
        run(&k, &mut buffers, &[], 1);
        for i in 0..256 {
            let want = (f64::from(x[i]) * 2f64.powi(n[i] as i32)) as f32;
            assert_eq!(
                word(&buffers[2], i),
                want.to_bits(),
                "{arch}: ldexp({}, {})",
                x[i],
                n[i] as i32
            );
        }
    }
}

/// A vector kernel of one device-library call of an f32 and an i32 tensor: `y = f(x, n)`.
fn float_by_integer_kernel(symbol: &str) -> String {
    r#"module {
  tt.func public @k(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %px = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %ax = tt.addptr %px, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x = tt.load %ax : tensor<256x!tt.ptr<f32>>
    %pn = tt.splat %n_ptr : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>>
    %an = tt.addptr %pn, %r : tensor<256x!tt.ptr<i32>>, tensor<256xi32>
    %n = tt.load %an : tensor<256x!tt.ptr<i32>>
    %y = tt.extern_elementwise %x, %n {libname = "", libpath = "", pure = true, symbol = "SYMBOL"} : (tensor<256xf32>, tensor<256xi32>) -> tensor<256xf32>
    %py = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %ay = tt.addptr %py, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    tt.store %ay, %y : tensor<256x!tt.ptr<f32>>
    tt.return
  }
}
"#
        .replace("SYMBOL", symbol)
}

/// `erfc`, `erfcx` and `erfinv` against their values to 16 digits (Abramowitz–Stegun tables
/// 7.1 and 7.2): a relative error below 10⁻⁶ where `1 − erf(x)` has no digits left (`erfc(3.5)`
/// is 7·10⁻⁷), `erfinv(±1) = ±∞`, NaN outside `[−1, 1]`.
#[test]
fn library_erfc_erfcx_and_erfinv() {
    let erfc = [
        (0.5, 0.479_500_122_186_953_5),
        (1.0, 0.157_299_207_050_285_13),
        (2.0, 0.004_677_734_981_047_266),
        (3.5, 7.430_983_723_414_128e-7),
        (-1.0, 1.842_700_792_949_715),
        (-3.0, 1.999_977_909_503_001_5),
    ];
    let erfcx: Vec<(f32, f64)> = erfc
        .iter()
        .map(|&(x, e)| (x, (f64::from(x) * f64::from(x)).exp() * e))
        .collect();
    // At the f32 arguments (0.9 is 0.89999998; erfinv's slope near 1 magnifies the difference).
    let erfinv = [
        (0.5, 0.476_936_276_204_469_9),
        (0.9, 1.163_087_071_945_772_2),
        (1.0 - 1.0 / 2048.0, 2.465_754_958_722_755),
        (-0.3, -0.272_462_726_105_523_8),
        (1.0, f64::INFINITY),
        (-1.0, f64::NEG_INFINITY),
        (1.5, f64::NAN),
    ];
    let tables: [(&str, &[(f32, f64)]); 3] = [
        ("__ocml_erfc_f32", &erfc),
        ("__ocml_erfcx_f32", &erfcx),
        ("__ocml_erfinv_f32", &erfinv),
    ];
    check_tables(&tables, 0.0);
}

/// `lgamma` against `ln|Γ|` to 16 digits (poles `+∞`, negative arguments by reflection, within
/// 10⁻⁶ absolute near the zeros at 1 and 2); `nextafter` one step either way and off zero;
/// `pow` of an integer exponent (`__ocml_pown_f32`); the device library's `abs` of f32.
#[test]
fn library_lgamma_nextafter_pown_and_abs() {
    let lgamma: [(f32, f64); 10] = [
        (0.5, 0.572_364_942_924_700_1),
        (1.0, 0.0),
        (3.0, std::f64::consts::LN_2),
        (10.0, 12.801_827_480_081_469),
        (100.0, 359.134_205_369_575_4),
        (-0.5, 1.265_512_123_484_645_4),
        (-2.5, -0.056_243_716_497_674_05),
        (0.0, f64::INFINITY),
        (-3.0, f64::INFINITY),
        (f32::NEG_INFINITY, f64::INFINITY),
    ];
    let x: Vec<f32> = (0..256).map(|i| lgamma[i % lgamma.len()].0).collect();
    let n: Vec<u32> = (0..256i32).map(|i| (i % 9 - 4) as u32).collect();
    for arch in ARCHS {
        let k = compiled(&library_kernel("__ocml_lgamma_f32", 1), arch);
        let mut buffers = vec![floats(&x), vec![0; 1024]];
        run(&k, &mut buffers, &[], 1);
        for (i, &(x, want)) in lgamma.iter().enumerate() {
            let got = f64::from(float(&buffers[1], i));
            let close = if want.is_infinite() {
                got == want
            } else {
                (got - want).abs() <= 1e-6 * want.abs().max(1.0)
            };
            assert!(close, "{arch} lgamma({x}) = {got}, not {want}");
        }
        // nextafter(x, x + 3): away from zero for a positive x, toward it for a negative one.
        let k = compiled(&library_kernel("__ocml_nextafter_f32", 2), arch);
        let steps: Vec<f32> = (0..256).map(|i| (i as f32 - 128.0) * 0.0625).collect();
        let mut buffers = vec![floats(&steps), vec![0; 1024]];
        run(&k, &mut buffers, &[], 1);
        for (i, &v) in steps.iter().enumerate() {
            let want = match v {
                0.0 => 1,
                v if v > 0.0 => v.to_bits() + 1,
                v => v.to_bits() - 1,
            };
            assert_eq!(word(&buffers[1], i), want, "{arch}: nextafter({v}, {})", v + 3.0);
        }
        let k = compiled(&float_by_integer_kernel("__ocml_pown_f32"), arch);
        let bases: Vec<f32> = (0..256).map(|i| (i as f32 - 128.0) / 16.0).collect();
        let mut buffers = vec![floats(&bases), words(&n), vec![0; 1024]];
        run(&k, &mut buffers, &[], 1);
        for i in 0..256 {
            let want = f64::from(bases[i]).powi(n[i] as i32);
            let got = f64::from(float(&buffers[2], i));
            let close = if want.is_infinite() {
                got == want
            } else {
                (got - want).abs() <= 1e-6 * want.abs()
            };
            assert!(
                close,
                "{arch}: pown({}, {}) = {got}, not {want}",
                bases[i], n[i] as i32
            );
        }
        let k = compiled(&library_kernel("__triton_hip_fabs", 1), arch);
        let mut buffers = vec![floats(&bases), vec![0; 1024]];
        run(&k, &mut buffers, &[], 1);
        assert!(
            (0..256).all(|i| float(&buffers[1], i) == bases[i].abs()),
            "{arch}: abs"
        );
    }
}

/// The Bessel functions `j0`, `j1`, `y0`, `y1`, `i0`, `i1` (`cyl_bessel_i0`, `…_i1`) against
/// their values to 16 digits (both sides of the fits' switch at 8 and 3.75, negative
/// arguments of the odd and even ones), within 10⁻⁶ of the value (or of 1 where it is
/// smaller); `Y` −∞ at 0 and NaN below, `J` 0 at ∞, `I` ±∞ at ±∞.
#[test]
fn library_bessel_functions() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let tables: [(&str, &[(f32, f64)]); 6] = [
        (
            "__ocml_j0_f32",
            &[
                (1.0, 0.765_197_686_557_966_6),
                (5.0, -0.177_596_771_314_338_1),
                (10.0, -0.245_935_764_451_342_9),
                (-2.5, -0.048_383_776_468_198),
                (20.0, 0.167_024_664_349_836_2),
                (f32::INFINITY, 0.0),
            ],
        ),
        (
            "__ocml_j1_f32",
            &[
                (1.0, 0.440_050_585_744_933_5),
                (10.0, 0.043_472_746_168_985_94),
                (-3.0, -0.339_058_958_525_936_5),
                (-20.0, -0.066_833_124_015_804_96),
            ],
        ),
        (
            "__ocml_y0_f32",
            &[
                (1.0, 0.088_256_964_215_676_97),
                (10.0, 0.055_671_167_283_819_49),
                (0.1, -1.534_238_651_350_367),
                (0.0, -inf),
                (-1.0, nan),
            ],
        ),
        (
            "__ocml_y1_f32",
            &[
                (1.0, -0.781_212_821_300_288_7),
                (10.0, 0.249_015_424_207_093_4),
                (2.5, 0.145_918_137_966_786),
                (0.0, -inf),
            ],
        ),
        (
            "__ocml_i0_f32",
            &[
                (1.0, 1.266_065_877_752_008_2),
                (5.0, 27.239_871_823_604_45),
                (-2.0, 2.279_585_302_336_067),
                (f32::INFINITY, inf),
            ],
        ),
        (
            "__ocml_i1_f32",
            &[
                (1.0, 0.565_159_103_992_485),
                (5.0, 24.335_642_142_450_53),
                (-2.0, -1.590_636_854_637_329),
                (f32::NEG_INFINITY, -inf),
            ],
        ),
    ];
    check_tables(&tables, 1.0);
}

/// `op` of f32 arguments as the interpreter evaluates it.
fn evaluated(op: linear_layout::lower::ArithOp, args: &[f32]) -> f32 {
    let bits: Vec<u64> = args.iter().map(|x| u64::from(x.to_bits())).collect();
    f32::from_bits(op.eval("f32", 32, &bits).unwrap() as u32)
}

/// Laws of the special functions (the emitted code follows the same formulas): erfc's
/// reflection `erfc(−x) = 2 − erfc(x)`, lgamma's recurrence `lgamma(x + 1) = lgamma(x) + ln x`,
/// nextafter's steps undoing each other, and `I₀` even, `J₁` odd.
#[test]
fn special_functions_keep_their_laws() {
    use linear_layout::lower::{ArithOp, Bessel};
    fn reflection(x: f32) -> bool {
        let x = (x % 6.0).abs();
        if x.is_nan() {
            return true;
        }
        let (a, b) = (evaluated(ArithOp::Erfc, &[x]), evaluated(ArithOp::Erfc, &[-x]));
        (f64::from(a) + f64::from(b) - 2.0).abs() < 1e-6
    }
    fn recurrence(x: f32) -> bool {
        let x = (x % 30.0).abs() + 0.5;
        if x.is_nan() {
            return true;
        }
        let (a, b) = (
            evaluated(ArithOp::Lgamma, &[x + 1.0]),
            evaluated(ArithOp::Lgamma, &[x]),
        );
        let want = f64::from(b) + f64::from(x).ln();
        (f64::from(a) - want).abs() <= 1e-5 * want.abs().max(1.0)
    }
    fn steps(bits: u32) -> bool {
        let x = f32::from_bits(bits);
        if !x.is_finite() || x == f32::MAX || x == 0.0 {
            return true;
        }
        let up = evaluated(ArithOp::NextAfter, &[x, f32::INFINITY]);
        up > x && evaluated(ArithOp::NextAfter, &[up, f32::NEG_INFINITY]).to_bits() == x.to_bits()
    }
    fn parity(x: f32) -> bool {
        let x = x % 40.0;
        if x.is_nan() {
            return true;
        }
        let (i0, j1) = (ArithOp::Bessel(Bessel::I0), ArithOp::Bessel(Bessel::J1));
        evaluated(i0, &[x]) == evaluated(i0, &[-x]) && evaluated(j1, &[x]) == -evaluated(j1, &[-x])
    }
    let mut q = quickcheck::QuickCheck::new().tests(5_000);
    q.quickcheck(reflection as fn(f32) -> bool);
    q.quickcheck(recurrence as fn(f32) -> bool);
    q.quickcheck(steps as fn(u32) -> bool);
    q.quickcheck(parity as fn(f32) -> bool);
}

/// Each function of `tables` (a symbol and its `(x, f(x))` pairs) compiled, run on every
/// target and compared: NaN for NaN, infinities exactly, else within 10⁻⁶ of `max(|f(x)|,
/// floor)`.
fn check_tables(tables: &[(&str, &[(f32, f64)])], floor: f64) {
    for arch in ARCHS {
        for &(symbol, table) in tables {
            let k = compiled(&library_kernel(symbol, 1), arch);
            let x: Vec<f32> = (0..256).map(|i| table[i % table.len()].0).collect();
            let mut buffers = vec![floats(&x), vec![0; 1024]];
            run(&k, &mut buffers, &[], 1);
            for (i, &(x, want)) in table.iter().enumerate() {
                let got = f64::from(float(&buffers[1], i));
                let close = if want.is_nan() {
                    got.is_nan()
                } else if want.is_infinite() {
                    got == want
                } else {
                    (got - want).abs() <= 1e-6 * want.abs().max(floor)
                };
                assert!(close, "{arch} {symbol}({x}) = {got}, not {want}");
            }
        }
    }
}
