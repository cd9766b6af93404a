//! Rounding to `bf16` bit for bit as Triton does it on each target: on CDNA2/3 and RDNA3 in
//! integers (`(x + 0x7FFF + lsb) >> 16`, every NaN `0x7FFF`), elsewhere with LLVM's `fptrunc`
//! (a NaN quieted, keeping its sign and top payload bits). `x.to(tl.bfloat16)` of `f32` and
//! `f16` values — ties both ways, NaNs of every kind, infinities, the largest finite values,
//! subnormals — compiled for every target the row distinguishes, run in the interpreter and
//! compared with the rule written out here; llc-22 accepts each kernel.

mod lower_common;

use linear_layout::lower::{CompileOptions, Kernel, Launch, compile, run_launch};
use linear_layout::target::Target;
use lower_common::{compile as assemble, llc};

/// `y = x.to(tl.bfloat16)` over 256 elements of type `from`, as `make_ttir` leaves it (an
/// `f16` through `f32`, as Triton casts between the two 16-bit floats).
fn kernel(from: &str) -> String {
    let cast = if from == "f32" {
        "%b = arith.truncf %v : tensor<256xf32> to tensor<256xbf16>".to_string()
    } else {
        format!(
            "%w = arith.extf %v : tensor<256x{from}> to tensor<256xf32>\n    %b = arith.truncf %w : tensor<256xf32> to tensor<256xbf16>"
        )
    };
    format!(
        r#"module {{
  tt.func public @to_bf16_kernel(%x: !tt.ptr<{from}> {{tt.divisibility = 16 : i32}}, %y: !tt.ptr<bf16> {{tt.divisibility = 16 : i32}}) attributes {{noinline = false}} {{
    %r = tt.make_range {{end = 256 : i32, start = 0 : i32}} : tensor<256xi32>
    %xs = tt.splat %x : !tt.ptr<{from}> -> tensor<256x!tt.ptr<{from}>>
    %xp = tt.addptr %xs, %r : tensor<256x!tt.ptr<{from}>>, tensor<256xi32>
    %v = tt.load %xp : tensor<256x!tt.ptr<{from}>>
    {cast}
    %ys = tt.splat %y : !tt.ptr<bf16> -> tensor<256x!tt.ptr<bf16>>
    %yp = tt.addptr %ys, %r : tensor<256x!tt.ptr<bf16>>, tensor<256xi32>
    tt.store %yp, %b : tensor<256x!tt.ptr<bf16>>
    tt.return
  }}
}}
"#
    )
}

/// Runs `k` as one workgroup over `buffers`.
fn run_once(k: &Kernel, buffers: &mut [Vec<u8>]) {
    let launch = Launch {
        scalars: vec![],
        workgroup: [0, 0, 0],
        grid: [1, 1, 1],
    };
    run_launch(&k.program, buffers, &launch).unwrap_or_else(|e| panic!("{}: {e}", k.target.name));
}

/// `f32` bits rounded to `bf16` the way `target` rounds them (see the module docs).
fn expected(f32_bits: u32, in_integers: bool) -> u16 {
    let nan = f32::from_bits(f32_bits).is_nan();
    match (nan, in_integers) {
        (true, true) => 0x7FFF,
        (true, false) => ((f32_bits | 0x40_0000) >> 16) as u16,
        (false, _) => (f32_bits.wrapping_add(0x7FFF + (f32_bits >> 16 & 1)) >> 16) as u16,
    }
}

/// The `f32` value of `f16` bits (exact).
fn widen_f16(h: u16) -> u32 {
    let (sign, exp, man) = (
        u32::from(h >> 15) << 31,
        u32::from(h >> 10 & 0x1F),
        u32::from(h & 0x3FF),
    );
    match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // A subnormal: normalise its mantissa.
            let shift = m.leading_zeros() - 21;
            sign | (113 - shift) << 23 | ((m << shift) & 0x3FF) << 13
        }
        (31, m) => sign | 0x7F80_0000 | m << 13,
        (e, m) => sign | (e + 112) << 23 | m << 13,
    }
}

fn run(text: &str, arch: &str, input: Vec<u8>) -> Vec<u16> {
    let target = Target::by_name(arch).unwrap();
    let k = compile(text, target, &CompileOptions::new(4))
        .unwrap_or_else(|e| panic!("{arch}: {e}"))
        .kernel;
    if let Some(llc) = llc() {
        let dir = std::env::temp_dir().join(format!("ll-bf16-{arch}-{}-{}", text.len(), std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assemble(llc, &k.llvm_ir().unwrap(), k.target, &dir, "k").unwrap_or_else(|e| panic!("{arch}: {e}"));
        let _ = std::fs::remove_dir_all(&dir);
    }
    let mut buffers = vec![input, vec![0u8; 2 * 256]];
    run_once(&k, &mut buffers);
    buffers[1]
        .chunks(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect()
}

#[test]
fn f32_and_f16_round_to_bf16_as_triton_does_on_each_target() {
    let edges: [u32; 16] = [
        0x3F80_8000, // 1 + 2^-8: a tie, even below → 0x3F80
        0x3F81_8000, // a tie, odd below → 0x3F82
        0x3F80_8001, // just past a tie → up
        0x7F7F_FFFF, // the largest finite f32 → ∞
        0xFF7F_FFFF, // its negative → −∞
        0x7F80_0000, // ∞
        0xFF80_0000, // −∞
        0x7FC0_0000, // the quiet NaN
        0xFFC0_0000, // a negative quiet NaN
        0x7F80_0001, // a signalling NaN, low payload
        0x7FA0_0000, // a signalling NaN, high payload
        0x0000_8000, // a subnormal tie → 0
        0x0001_8000, // a subnormal tie, odd below → up
        0x8000_0000, // −0
        0x0080_0000, // the smallest normal
        0x4049_0FDB, // π
    ];
    // Edges first, then a spread of other bit patterns.
    let mut words: Vec<u32> = edges.to_vec();
    let mut h = 0x9E37_79B9u32;
    while words.len() < 256 {
        h = h
            .wrapping_mul(0x0101_0101)
            .wrapping_add(0x6D2B_79F5)
            .rotate_left(7);
        words.push(h);
    }
    let halves: Vec<u16> = (0..256u32)
        .map(|i| (i.wrapping_mul(0x9E37) ^ i << 8) as u16)
        .collect();
    let mut checked = 0;
    for arch in ["gfx942", "gfx950", "gfx1100", "gfx1201"] {
        let in_integers = Target::by_name(arch).unwrap().lowering.bf16_rounding_in_integers;
        let got = run(
            &kernel("f32"),
            arch,
            words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        );
        for (i, (&w, &g)) in words.iter().zip(&got).enumerate() {
            assert_eq!(g, expected(w, in_integers), "{arch} f32 {w:#010x} (element {i})");
        }
        let got = run(
            &kernel("f16"),
            arch,
            halves.iter().flat_map(|h| h.to_le_bytes()).collect(),
        );
        // An f16 NaN's payload after widening is the widening's business (the interpreter
        // makes it the canonical NaN); rounded in integers every NaN is 0x7FFF anyway.
        for (&h, &g) in halves.iter().zip(&got) {
            let w = widen_f16(h);
            if in_integers || !f32::from_bits(w).is_nan() {
                assert_eq!(g, expected(w, in_integers), "{arch} f16 {h:#06x}");
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 4);
    // The rows this test distinguishes: Triton rounds in integers on gfx942 and gfx1100 only.
    let rows: Vec<bool> = ["gfx942", "gfx950", "gfx1100", "gfx1201"]
        .iter()
        .map(|a| Target::by_name(a).unwrap().lowering.bf16_rounding_in_integers)
        .collect();
    assert_eq!(rows, [true, false, true, false]);
}

/// `x * y + x` of bf16 tensors (each operation rounded back to bf16, as Triton computes bf16
/// arithmetic): the numbers of f32 arithmetic rounded to nearest even on every target, and a
/// NaN result `0x7FFF` where Triton rounds in integers (`∞ · 0`, NaN operands).
#[test]
fn bf16_arithmetic_rounds_each_result_as_triton_does() {
    let text = r#"module {
  tt.func public @fma_bf16_kernel(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %y: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %z: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<256x!tt.ptr<bf16>>
    %xp = tt.addptr %xs, %r : tensor<256x!tt.ptr<bf16>>, tensor<256xi32>
    %a = tt.load %xp : tensor<256x!tt.ptr<bf16>>
    %ys = tt.splat %y : !tt.ptr<bf16> -> tensor<256x!tt.ptr<bf16>>
    %yp = tt.addptr %ys, %r : tensor<256x!tt.ptr<bf16>>, tensor<256xi32>
    %b = tt.load %yp : tensor<256x!tt.ptr<bf16>>
    %p = arith.mulf %a, %b : tensor<256xbf16>
    %s = arith.addf %p, %a : tensor<256xbf16>
    %zs = tt.splat %z : !tt.ptr<bf16> -> tensor<256x!tt.ptr<bf16>>
    %zp = tt.addptr %zs, %r : tensor<256x!tt.ptr<bf16>>, tensor<256xi32>
    tt.store %zp, %s : tensor<256x!tt.ptr<bf16>>
    tt.return
  }
}
"#;
    // Edges (∞ · 0, NaN, the largest finite values), then a spread of ordinary values.
    let mut x: Vec<u16> = vec![0x7F80, 0x7FC0, 0x7F7F, 0xFF80, 0x3F80, 0x0001];
    let mut y: Vec<u16> = vec![0x0000, 0x3F80, 0x4000, 0x8000, 0x7FC1, 0x3F00];
    for i in 0..250u32 {
        let h = i.wrapping_mul(0x9E37_79B9).rotate_left(13);
        x.push((0x3000 + (h & 0x1FFF) as u16) | (h >> 31 << 15) as u16);
        y.push(0x3000 + (h >> 13 & 0x1FFF) as u16);
    }
    let wide = |b: u16| f32::from_bits(u32::from(b) << 16);
    for arch in ["gfx942", "gfx950", "gfx1100", "gfx1201"] {
        let target = Target::by_name(arch).unwrap();
        let in_integers = target.lowering.bf16_rounding_in_integers;
        let k = compile(text, target, &CompileOptions::new(4))
            .unwrap_or_else(|e| panic!("{arch}: {e}"))
            .kernel;
        let bytes = |v: &[u16]| v.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
        let mut buffers = vec![bytes(&x), bytes(&y), vec![0u8; 2 * 256]];
        run_once(&k, &mut buffers);
        for i in 0..256 {
            let got = u16::from_le_bytes([buffers[2][2 * i], buffers[2][2 * i + 1]]);
            let product = expected((wide(x[i]) * wide(y[i])).to_bits(), in_integers);
            let sum = (wide(product) + wide(x[i])).to_bits();
            if in_integers || !f32::from_bits(sum).is_nan() {
                assert_eq!(
                    got,
                    expected(sum, in_integers),
                    "{arch}: {:#06x} * {:#06x} + x",
                    x[i],
                    y[i]
                );
            }
        }
    }
}

/// `tl.sum` of a bf16 tensor combines as bf16 additions do: exact sums stay exact on every
/// target, and `∞ + (−∞)` is `0x7FFF` where Triton rounds bf16 in integers.
#[test]
fn bf16_sums_reduce_as_triton_adds() {
    let text = r#"module {
  tt.func public @sum_bf16_kernel(%x: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %z: !tt.ptr<bf16> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %xs = tt.splat %x : !tt.ptr<bf16> -> tensor<256x!tt.ptr<bf16>>
    %xp = tt.addptr %xs, %r : tensor<256x!tt.ptr<bf16>>, tensor<256xi32>
    %a = tt.load %xp : tensor<256x!tt.ptr<bf16>>
    %s = "tt.reduce"(%a) <{axis = 0 : i32}> ({
    ^bb0(%p: bf16, %q: bf16):
      %t = arith.addf %p, %q : bf16
      tt.reduce.return %t : bf16
    }) : (tensor<256xbf16>) -> bf16
    tt.store %z, %s : !tt.ptr<bf16>
    tt.return
  }
}
"#;
    for arch in ["gfx942", "gfx950", "gfx1100", "gfx1201"] {
        let target = Target::by_name(arch).unwrap();
        let k = compile(text, target, &CompileOptions::new(4))
            .unwrap_or_else(|e| panic!("{arch}: {e}"))
            .kernel;
        let sum = |x: &[u16]| {
            let mut buffers = vec![x.iter().flat_map(|h| h.to_le_bytes()).collect(), vec![0u8; 2]];
            run_once(&k, &mut buffers);
            u16::from_le_bytes([buffers[1][0], buffers[1][1]])
        };
        assert_eq!(sum(&[0x3F80; 256]), 0x4380, "{arch}: 256 ones");
        let mut infinities = vec![0x3F80u16; 256];
        infinities[3] = 0x7F80;
        infinities[200] = 0xFF80;
        let nan = sum(&infinities);
        assert!(
            f32::from_bits(u32::from(nan) << 16).is_nan(),
            "{arch}: {nan:#06x}"
        );
        if target.lowering.bf16_rounding_in_integers {
            assert_eq!(nan, 0x7FFF, "{arch}");
        }
    }
}
