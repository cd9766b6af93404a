//! `lower::compile` of the device library's functions of `f64`, which no AMDGPU instruction
//! computes in double precision: the crate's reduced arguments and polynomials
//! (`src/lower/emit/double.rs`). Each kernel is a small TTIR module as Triton's `make_ttir`
//! leaves it, accepted by llc-22 and run in the interpreter against Rust's `f64` functions;
//! the emitted code's own results are checked on the emulator (the second zoo's round 29).

mod lower_common;

use lower_common::constructs::{ARCHS, compiled, run};

/// The little-endian bytes of doubles.
fn doubles(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The double `i` of little-endian bytes.
fn double(b: &[u8], i: usize) -> f64 {
    f64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap())
}

/// Whether `got` is `want`, NaN for NaN, or within `ulps` units in the last place of it.
fn close(got: f64, want: f64, ulps: f64) -> bool {
    got == want || (got.is_nan() && want.is_nan()) || (got - want).abs() <= ulps * f64::EPSILON * want.abs()
}

/// `tl.exp` and `tl.log` of f64 (no instruction computes them in double precision): a reduced
/// argument and a polynomial, to the last bits of a double.
#[test]
fn double_precision_exp_and_log() {
    // `make_ttir` of: storing `tl.exp(x * 3.0)` and `tl.log(x)` of f64 `x` (BLOCK 128).
    let text = r#"module {
  tt.func public @f64_kernel(%x_ptr: !tt.ptr<f64> {tt.divisibility = 16 : i32}, %e_ptr: !tt.ptr<f64> {tt.divisibility = 16 : i32}, %l_ptr: !tt.ptr<f64> {tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {
    %cst = arith.constant dense<3.000000e+00> : tensor<128xf64>
    %c128_i32 = arith.constant 128 : i32
    %offs = tt.get_program_id x : i32
    %offs_0 = arith.muli %offs, %c128_i32 : i32
    %offs_1 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %offs_2 = tt.splat %offs_0 : i32 -> tensor<128xi32>
    %offs_3 = arith.addi %offs_2, %offs_1 : tensor<128xi32>
    %mask = tt.splat %n : i32 -> tensor<128xi32>
    %mask_4 = arith.cmpi slt, %offs_3, %mask : tensor<128xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f64> -> tensor<128x!tt.ptr<f64>>
    %x_5 = tt.addptr %x, %offs_3 : tensor<128x!tt.ptr<f64>>, tensor<128xi32>
    %x_6 = tt.load %x_5, %mask_4 : tensor<128x!tt.ptr<f64>>
    %0 = tt.splat %e_ptr : !tt.ptr<f64> -> tensor<128x!tt.ptr<f64>>
    %1 = tt.addptr %0, %offs_3 : tensor<128x!tt.ptr<f64>>, tensor<128xi32>
    %2 = arith.mulf %x_6, %cst : tensor<128xf64>
    %3 = math.exp %2 : tensor<128xf64>
    tt.store %1, %3, %mask_4 : tensor<128x!tt.ptr<f64>>
    %4 = tt.splat %l_ptr : !tt.ptr<f64> -> tensor<128x!tt.ptr<f64>>
    %5 = tt.addptr %4, %offs_3 : tensor<128x!tt.ptr<f64>>, tensor<128xi32>
    %6 = math.log %x_6 : tensor<128xf64>
    tt.store %5, %6, %mask_4 : tensor<128x!tt.ptr<f64>>
    tt.return
  }
}"#;
    let mut x: Vec<f64> = (0..256).map(|i| (i as f64 - 100.0) * 0.37).collect();
    (x[1], x[2], x[3]) = (0.0, f64::INFINITY, 5e-310);
    for arch in ARCHS {
        let k = compiled(text, arch);
        let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut buffers = vec![bytes, vec![0; 2048], vec![0; 2048]];
        run(&k, &mut buffers, &[250], 2);
        let get = |b: &[u8], i: usize| f64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap());
        for (i, &v) in x.iter().enumerate().take(250) {
            for (got, want) in [
                (get(&buffers[1], i), (v * 3.0).exp()),
                (get(&buffers[2], i), v.ln()),
            ] {
                let close = got == want
                    || (got.is_nan() && want.is_nan())
                    || (got - want).abs() <= 1e-15 * want.abs();
                assert!(close, "{arch}: {v} at {i}: {got} vs {want}");
            }
        }
    }
}

/// A vector kernel of 256 doubles storing `y = f(x, z)`, `f` the TTIR op `op` of operands
/// `%x` and `%z` (and `%n`, `z` truncated to an `i32`).
fn function_kernel(op: &str) -> String {
    format!(
        r#"module {{
  tt.func public @k(%x_ptr: !tt.ptr<f64> {{tt.divisibility = 16 : i32}}, %z_ptr: !tt.ptr<f64> {{tt.divisibility = 16 : i32}}, %y_ptr: !tt.ptr<f64> {{tt.divisibility = 16 : i32}}) {{
    %r = tt.make_range {{end = 256 : i32, start = 0 : i32}} : tensor<256xi32>
    %px = tt.splat %x_ptr : !tt.ptr<f64> -> tensor<256x!tt.ptr<f64>>
    %ax = tt.addptr %px, %r : tensor<256x!tt.ptr<f64>>, tensor<256xi32>
    %x = tt.load %ax : tensor<256x!tt.ptr<f64>>
    %pz = tt.splat %z_ptr : !tt.ptr<f64> -> tensor<256x!tt.ptr<f64>>
    %az = tt.addptr %pz, %r : tensor<256x!tt.ptr<f64>>, tensor<256xi32>
    %z = tt.load %az : tensor<256x!tt.ptr<f64>>
    %n = arith.fptosi %z : tensor<256xf64> to tensor<256xi32>
    %y = {op}
    %py = tt.splat %y_ptr : !tt.ptr<f64> -> tensor<256x!tt.ptr<f64>>
    %ay = tt.addptr %py, %r : tensor<256x!tt.ptr<f64>>, tensor<256xi32>
    tt.store %ay, %y : tensor<256x!tt.ptr<f64>>
    tt.return
  }}
}}
"#
    )
}

/// `tt.extern_elementwise` of `symbol` on `operands` (`%x`, `%x, %z` or `%x, %n`).
fn library_call(symbol: &str, operands: &str) -> String {
    let types = match operands {
        "%x" => "tensor<256xf64>",
        "%x, %n" => "tensor<256xf64>, tensor<256xi32>",
        _ => "tensor<256xf64>, tensor<256xf64>",
    };
    format!(
        r#"tt.extern_elementwise {operands} {{libname = "", libpath = "", pure = true, symbol = "{symbol}"}} : ({types}) -> tensor<256xf64>"#
    )
}

/// What a function of two doubles computes.
type Reference = fn(f64, f64) -> f64;

/// Every device-library function of `f64` the crate computes — `exp2`, `log2`, `log10`,
/// `rsqrt`, `sin`, `cos`, `tan`, `tanh`, `log1p`, `expm1`, `pow`, `pown`, `hypot` and the
/// hyperbolic functions — compiles (each was refused before: only f32's instructions existed),
/// llc-22 accepts it, and it computes the function: over magnitudes from 2⁻³⁰ to 2³⁰⁰ of
/// either sign, zeros, infinities and NaN.
#[test]
fn double_precision_library_functions() {
    let mut x: Vec<f64> = (0..256)
        .map(|i| {
            let magnitude = 2f64.powf((i % 128) as f64 / 128.0 * 330.0 - 30.0);
            if i < 128 { magnitude } else { -magnitude }
        })
        .collect();
    (x[0], x[1], x[2], x[3]) = (0.0, -0.0, f64::INFINITY, f64::NAN);
    let z: Vec<f64> = (0..256).map(|i| (i % 17) as f64 * 0.75 - 6.0).collect();
    let functions: Vec<(String, Reference)> = vec![
        ("math.exp2 %x : tensor<256xf64>".into(), |x, _| x.exp2()),
        ("math.log2 %x : tensor<256xf64>".into(), |x, _| x.log2()),
        ("math.rsqrt %x : tensor<256xf64>".into(), |x, _| 1.0 / x.sqrt()),
        ("math.sin %x : tensor<256xf64>".into(), |x, _| x.sin()),
        ("math.cos %x : tensor<256xf64>".into(), |x, _| x.cos()),
        (library_call("__ocml_log10_f64", "%x"), |x, _| x.log10()),
        (library_call("__ocml_tan_f64", "%x"), |x, _| x.tan()),
        (library_call("__ocml_tanh_f64", "%x"), |x, _| x.tanh()),
        (library_call("__ocml_log1p_f64", "%x"), |x, _| x.ln_1p()),
        (library_call("__ocml_expm1_f64", "%x"), |x, _| x.exp_m1()),
        (library_call("__ocml_sinh_f64", "%x"), |x, _| x.sinh()),
        (library_call("__ocml_cosh_f64", "%x"), |x, _| x.cosh()),
        (library_call("__ocml_asinh_f64", "%x"), |x, _| x.asinh()),
        (library_call("__ocml_acosh_f64", "%x"), |x, _| x.acosh()),
        (library_call("__ocml_atanh_f64", "%x"), |x, _| x.atanh()),
        (library_call("__ocml_pow_f64", "%x, %z"), f64::powf),
        (library_call("__ocml_pown_f64", "%x, %n"), |x, z| {
            x.powf(f64::from(z as i32))
        }),
        (library_call("__ocml_hypot_f64", "%x, %z"), f64::hypot),
    ];
    for arch in ARCHS {
        for (op, f) in &functions {
            let k = compiled(&function_kernel(op), arch);
            let mut buffers = vec![doubles(&x), doubles(&z), vec![0; 2048]];
            run(&k, &mut buffers, &[], 1);
            for i in 0..256 {
                let (got, want) = (double(&buffers[2], i), f(x[i], z[i]));
                assert!(
                    close(got, want, 4.0),
                    "{arch} {op}: f({}, {}) = {got}, not {want}",
                    x[i],
                    z[i]
                );
            }
        }
    }
}

/// What a classification of a double computes.
type Classification = fn(f64) -> i32;

/// The device library's classifications of f64 (`libdevice.isnan`, `isinf`, `signbit`,
/// `ilogb`: `__ocml_*_f64`), computed on the double's bits: an `i32` per element, 1 or 0 (the
/// sign bit itself for `signbit`), and `⌊log₂|x|⌋` for normal and subnormal numbers,
/// `i32::MIN` for ±0 and `i32::MAX` for infinities and NaNs.
#[test]
fn double_precision_classifications() {
    let special = [
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        0.0,
        f64::MIN_POSITIVE,
        5e-324,
        -3.7e-310,
        f64::MAX,
    ];
    let x: Vec<f64> = (0..256)
        .map(|i| {
            if i % 3 == 0 {
                special[i % special.len()]
            } else {
                (i as f64 - 100.0) * 1.7e10
            }
        })
        .collect();
    let z = vec![0.0; 256];
    let ilogb = |v: f64| -> i32 {
        if v.is_nan() || v.is_infinite() {
            i32::MAX
        } else if v == 0.0 {
            i32::MIN
        } else {
            // The exponent field, or the top set bit of a subnormal's mantissa.
            let bits = v.to_bits();
            match ((bits >> 52) & 0x7ff) as i32 {
                0 => 63 - (bits & ((1 << 52) - 1)).leading_zeros() as i32 - 1074,
                field => field - 1023,
            }
        }
    };
    let functions: [(&str, Classification); 4] = [
        ("__ocml_isnan_f64", |v| i32::from(v.is_nan())),
        ("__ocml_isinf_f64", |v| i32::from(v.is_infinite())),
        ("__ocml_signbit_f64", |v| i32::from(v.is_sign_negative())),
        ("__ocml_ilogb_f64", ilogb),
    ];
    for arch in ARCHS {
        for (symbol, f) in functions {
            let op = format!(
                r#"tt.extern_elementwise %x {{libname = "", libpath = "", pure = true, symbol = "{symbol}"}} : (tensor<256xf64>) -> tensor<256xi32>
    %yd = arith.sitofp %y : tensor<256xi32> to tensor<256xf64>"#
            );
            let k = compiled(
                &function_kernel(&op).replace("tt.store %ay, %y", "tt.store %ay, %yd"),
                arch,
            );
            let mut buffers = vec![doubles(&x), doubles(&z), vec![0; 2048]];
            run(&k, &mut buffers, &[], 1);
            for (i, &v) in x.iter().enumerate() {
                let got = double(&buffers[2], i);
                assert_eq!(got, f64::from(f(v)), "{arch} {symbol}({v})");
            }
        }
    }
}
