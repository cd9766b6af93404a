//! `lower::compile` of `tt.dot_scaled` (microscaling dots): decomposed into a dot of upcast,
//! scaled operands before layouts are chosen, on every target — the interpreter's result is
//! the exact sum of the decoded, scaled products (each product exact in f32; the inputs keep
//! the sums small).

mod lower_common;

use lower_common::constructs::{ARCHS, compiled, run, word};

const ZOO: &str = "tests/fixtures/compile/zoo";

/// An OCP fp8 byte (`exponent_bits` of exponent, the rest mantissa, `bias`) as a float.
fn float8(byte: u8, exponent_bits: u32, bias: i32) -> f64 {
    let mantissa_bits = 7 - exponent_bits;
    let e = i32::from(byte >> mantissa_bits) & ((1 << exponent_bits) - 1);
    let m = f64::from(byte & ((1 << mantissa_bits) - 1)) / f64::from(1u32 << mantissa_bits);
    let v = if e == 0 {
        m * 2f64.powi(1 - bias)
    } else {
        (1.0 + m) * 2f64.powi(e - bias)
    };
    if byte & 0x80 != 0 { -v } else { v }
}

/// An e2m1 nibble as a float.
fn e2m1(nibble: u8) -> f64 {
    let v = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0][usize::from(nibble & 7)];
    if nibble & 8 != 0 { -v } else { v }
}

/// Element `k` of the e2m1 pairs packed along K: the low nibble of byte `k / 2` for even `k`.
fn nibble(byte: u8, k: usize) -> u8 {
    if k.is_multiple_of(2) { byte & 15 } else { byte >> 4 }
}

/// The kernels' scale: `2^((s & 3) + 122 − 127)`.
fn scale(byte: u8) -> f64 {
    2f64.powi(i32::from(byte & 3) - 5)
}

/// Bytes 0..n of a fixed pseudo-random sequence.
fn bytes(n: usize, seed: u32) -> Vec<u8> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}

/// The zoo module `kernel` for `arch`.
fn zoo(kernel: &str) -> impl Fn(&str) -> String + '_ {
    move |arch| std::fs::read_to_string(format!("{ZOO}/{kernel}.{arch}.ttir")).unwrap()
}

/// Compiles `module(arch)` (M = N = 32) for each target, runs it on `buffers` (the output
/// last) and checks every element against `want(m, n)` (a NaN against a NaN).
fn check(module: impl Fn(&str) -> String, mut buffers: Vec<Vec<u8>>, want: impl Fn(usize, usize) -> f64) {
    for arch in ARCHS {
        let k = compiled(&module(arch), arch);
        let out = buffers.len() - 1;
        buffers[out] = vec![0xFF; 32 * 32 * 4];
        run(&k, &mut buffers, &[], 1);
        for (m, n) in (0..32).flat_map(|m| (0..32).map(move |n| (m, n))) {
            let got = f64::from(f32::from_bits(word(&buffers[out], m * 32 + n)));
            let wanted = want(m, n);
            let same =
                got.is_nan() && wanted.is_nan() || (got - wanted).abs() <= 1e-4 * wanted.abs().max(1.0);
            assert!(same, "{arch} [{m}, {n}]: {got} vs {wanted}");
        }
    }
}

/// mxfp8: e4m3 × e5m2, each scaled per 32 elements of K (K = 64).
#[test]
fn an_mxfp8_dot_is_the_sum_of_scaled_products() {
    let (a, sa, b, sb) = (
        bytes(32 * 64, 1),
        bytes(32 * 2, 2),
        bytes(64 * 32, 3),
        bytes(32 * 2, 4),
    );
    let want = |m: usize, n: usize| {
        (0..64)
            .map(|k| {
                float8(a[m * 64 + k] & 0xBF, 4, 7)
                    * scale(sa[m * 2 + k / 32])
                    * float8(b[k * 32 + n] & 0xBF, 5, 15)
                    * scale(sb[n * 2 + k / 32])
            })
            .sum()
    };
    let buffers = vec![a.clone(), sa.clone(), b.clone(), sb.clone(), Vec::new()];
    check(zoo("scaled_mxfp8_32x32x64"), buffers, want);
}

/// mxfp4: e2m1 pairs packed along K, two scales (K = 128).
#[test]
fn an_mxfp4_dot_is_the_sum_of_scaled_products() {
    let (a, sa, b, sb) = (
        bytes(32 * 64, 5),
        bytes(32 * 4, 6),
        bytes(64 * 32, 7),
        bytes(32 * 4, 8),
    );
    let want = |m: usize, n: usize| {
        (0..128)
            .map(|k| {
                e2m1(nibble(a[m * 64 + k / 2], k))
                    * scale(sa[m * 4 + k / 32])
                    * e2m1(nibble(b[(k / 2) * 32 + n], k))
                    * scale(sb[n * 4 + k / 32])
            })
            .sum()
    };
    let buffers = vec![a.clone(), sa.clone(), b.clone(), sb.clone(), Vec::new()];
    check(zoo("scaled_mxfp4_32x32x128"), buffers, want);
}

/// e2m1 (packed along K) beside unscaled f16: the compute type is f16, the low nibble of a
/// byte is the earlier element along K (against f16 values that tell the two apart), and a
/// scale byte 0xFF makes its group NaN.
const E2M1_F16: &str = r#"module {
  tt.func public @k(%a_ptr: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %as_ptr: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
    %c32 = arith.constant dense<32> : tensor<32x1xi32>
    %c2 = arith.constant dense<2> : tensor<32x1xi32>
    %c32k = arith.constant dense<32> : tensor<64x1xi32>
    %rm = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %rk = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %rs = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
    %m1 = tt.expand_dims %rm {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %n0 = tt.expand_dims %rm {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %am = arith.muli %m1, %c32 : tensor<32x1xi32>
    %amb = tt.broadcast %am : tensor<32x1xi32> -> tensor<32x32xi32>
    %nb = tt.broadcast %n0 : tensor<1x32xi32> -> tensor<32x32xi32>
    %off = arith.addi %amb, %nb : tensor<32x32xi32>
    %ap = tt.splat %a_ptr : !tt.ptr<i8> -> tensor<32x32x!tt.ptr<i8>>
    %aps = tt.addptr %ap, %off : tensor<32x32x!tt.ptr<i8>>, tensor<32x32xi32>
    %a = tt.load %aps : tensor<32x32x!tt.ptr<i8>>
    %sm = arith.muli %m1, %c2 : tensor<32x1xi32>
    %smb = tt.broadcast %sm : tensor<32x1xi32> -> tensor<32x2xi32>
    %s0 = tt.expand_dims %rs {axis = 0 : i32} : tensor<2xi32> -> tensor<1x2xi32>
    %s0b = tt.broadcast %s0 : tensor<1x2xi32> -> tensor<32x2xi32>
    %soff = arith.addi %smb, %s0b : tensor<32x2xi32>
    %sp = tt.splat %as_ptr : !tt.ptr<i8> -> tensor<32x2x!tt.ptr<i8>>
    %sps = tt.addptr %sp, %soff : tensor<32x2x!tt.ptr<i8>>, tensor<32x2xi32>
    %sa = tt.load %sps : tensor<32x2x!tt.ptr<i8>>
    %k1 = tt.expand_dims %rk {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %bk = arith.muli %k1, %c32k : tensor<64x1xi32>
    %bkb = tt.broadcast %bk : tensor<64x1xi32> -> tensor<64x32xi32>
    %nb2 = tt.broadcast %n0 : tensor<1x32xi32> -> tensor<64x32xi32>
    %boff = arith.addi %bkb, %nb2 : tensor<64x32xi32>
    %bp = tt.splat %b_ptr : !tt.ptr<f16> -> tensor<64x32x!tt.ptr<f16>>
    %bps = tt.addptr %bp, %boff : tensor<64x32x!tt.ptr<f16>>, tensor<64x32xi32>
    %b = tt.load %bps : tensor<64x32x!tt.ptr<f16>>
    %d = tt.dot_scaled %a scale %sa, %b, %zero lhs = e2m1 rhs = fp16 {fastMath = false} : tensor<32x32xi8>, tensor<32x2xi8> * tensor<64x32xf16> -> tensor<32x32xf32>
    %cp = tt.splat %c_ptr : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %cps = tt.addptr %cp, %off : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    tt.store %cps, %d : tensor<32x32x!tt.ptr<f32>>
    tt.return
  }
}
"#;

#[test]
fn e2m1_beside_f16_unpacks_the_low_nibble_first() {
    let a = bytes(32 * 32, 12);
    // Scales 2^-5 … 2^-2, and one 0xFF: row 2's second group of 32 is NaN.
    let mut sa: Vec<u8> = bytes(32 * 2, 13).iter().map(|&s| 122 + (s & 3)).collect();
    sa[2 * 2 + 1] = 0xFF;
    // Even k ≠ odd k: swapping the nibbles changes the sums.
    let small: Vec<f64> = (0..64 * 32)
        .map(|i: usize| if (i / 32).is_multiple_of(2) { 1.0 } else { -3.0 } + f64::from((i % 5) as u8))
        .collect();
    let b: Vec<u8> = small.iter().flat_map(|&v| f16_bits(v).to_le_bytes()).collect();
    let want = |m: usize, n: usize| -> f64 {
        (0..64)
            .map(|k| {
                let s = sa[m * 2 + k / 32];
                let factor = if s == 0xFF {
                    f64::NAN
                } else {
                    2f64.powi(i32::from(s) - 127)
                };
                e2m1(nibble(a[m * 32 + k / 2], k)) * factor * small[k * 32 + n]
            })
            .sum()
    };
    check(
        |_| E2M1_F16.to_string(),
        vec![a.clone(), sa.clone(), b, Vec::new()],
        want,
    );
}

/// A scaled e4m3 operand beside an unscaled f16 one: the products are taken in f16.
#[test]
fn a_scaled_e4m3_operand_beside_f16_computes_in_f16() {
    let (a, sa) = (bytes(32 * 64, 9), bytes(32 * 2, 10));
    // f16 values −3 … 3 (exact), as the emulator case's `int3` inputs.
    let small: Vec<f64> = bytes(64 * 32, 11)
        .iter()
        .map(|&x| f64::from(x % 7) - 3.0)
        .collect();
    let b: Vec<u8> = small.iter().flat_map(|&v| f16_bits(v).to_le_bytes()).collect();
    let want = |m: usize, n: usize| {
        (0..64)
            .map(|k| float8(a[m * 64 + k] & 0xBF, 4, 7) * scale(sa[m * 2 + k / 32]) * small[k * 32 + n])
            .sum()
    };
    check(
        zoo("scaled_e4m3_f16_32x32x64"),
        vec![a.clone(), sa.clone(), b, Vec::new()],
        want,
    );
}

/// The f16 bits of a small integer.
fn f16_bits(v: f64) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let (sign, a) = (if v < 0.0 { 0x8000 } else { 0 }, v.abs() as u16);
    let e = 15 - a.leading_zeros() as u16; // floor(log2 a)
    sign | ((e + 15) << 10) | ((a - (1 << e)) << (10 - e))
}

/// Triton's own TTGIR for gfx950 keeps the mxfp8 dot for its scaled MFMA; `lower ttgir` refuses
/// it at its line, naming the path that takes it (`compile` from TTIR).
#[test]
fn a_scaled_dot_left_for_the_scaled_mfma_is_refused_naming_compile() {
    use linear_layout::lower::ttgir_kernel;
    use linear_layout::target::Target;
    use linear_layout::ttgir::Module;
    let path = "tests/fixtures/lower/ttgir-general/scaled_mxfp8_32x32x64.gfx950.ttgir";
    let text = std::fs::read_to_string(path).unwrap();
    let line = 1 + text.lines().position(|l| l.contains("tt.dot_scaled")).unwrap();
    let m = Module::parse(&text).unwrap();
    let e = ttgir_kernel(&m, Target::by_name("gfx950").unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(&format!("line {line}: tt.dot_scaled: ")), "{e}");
    assert!(e.contains("`compile` decomposes it from TTIR"), "{e}");
}
