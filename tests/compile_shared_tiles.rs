//! `lower::compile` of kernels whose tiles pass through shared memory (`ttg.local_alloc` then
//! `ttg.local_load`, the operands of a dot): the reads of several tiles are issued together
//! where the first of them is needed — every tile written, one barrier, every tile read — so a
//! matmul's loop holds two barriers per iteration (the writes wait for the last iteration's
//! reads, the reads for the writes), not one more per tile.

mod lower_common;

use linear_layout::lower::{CompileOptions, Op, compile};
use linear_layout::target::Target;
use lower_common::constructs::{ARCHS, float, run};

/// The barriers of the innermost loop's body of `ops` (`None`: no loop).
fn innermost_barriers(ops: &[Op]) -> Option<usize> {
    ops.iter().find_map(|op| match op {
        Op::Loop { body, .. } => innermost_barriers(body)
            .or_else(|| Some(body.iter().filter(|o| matches!(o, Op::Barrier)).count())),
        _ => None,
    })
}

/// A 3×3 convolution (NHWC, padding 1) as an implicit GEMM — the second zoo's
/// `conv2d_nhwc_kernel`, `make_ttir` of `scripts/zoo2/gen13.py` — over 2 images of 5 × 6
/// pixels, 20 channels in and 24 out: 32 × 16 pixel × channel tiles of the input and 16 × 32
/// tiles of the weights meet in a dot, both through LDS, in a loop over the channels inside
/// the loops over the filter's taps.
#[test]
fn a_dots_two_tiles_share_one_barrier() {
    let text = include_str!("fixtures/compile/zoo/conv2d_nhwc_32x32x16_f16.gfx942.ttir");
    let (nb, h, w, c, k) = (2usize, 5usize, 6usize, 20usize, 24usize);
    let m = nb * h * w;
    // Small integers: every product and sum is exact in f16 and f32.
    let x: Vec<f32> = (0..m * c).map(|i| ((i * 7 + i / 11) % 7) as f32 - 3.0).collect();
    let wt: Vec<f32> = (0..9 * c * k)
        .map(|i| ((i * 5 + i / 13) % 5) as f32 - 2.0)
        .collect();
    let halves = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|&f| half_bits(f).to_le_bytes()).collect() };
    for arch in ARCHS {
        let target = Target::by_name(arch).unwrap();
        let kernel = compile(text, target, &CompileOptions::new(4))
            .unwrap_or_else(|e| panic!("{arch}: {e}"))
            .kernel;
        assert_eq!(innermost_barriers(&kernel.program.ops), Some(2), "{arch}");
        let mut buffers = vec![halves(&x), halves(&wt), vec![0; 4 * m * k]];
        let scalars = [nb, h, w, c, k].map(|v| v as u64);
        // The grid is (⌈m/32⌉, ⌈k/32⌉) = (2, 1): the x axis is the program id the kernel reads.
        run(&kernel, &mut buffers, &scalars, m.div_ceil(32) as u32);
        for (pixel, out) in (0..m).flat_map(|p| (0..k).map(move |o| (p, o))) {
            let (image, row, col) = (pixel / (h * w), pixel / w % h, pixel % w);
            let mut want = 0.0;
            for (r, s) in (0..3).flat_map(|r| (0..3).map(move |s| (r, s))) {
                let (ih, iw) = (row as i64 + r as i64 - 1, col as i64 + s as i64 - 1);
                if ih < 0 || ih >= h as i64 || iw < 0 || iw >= w as i64 {
                    continue;
                }
                let base = ((image * h + ih as usize) * w + iw as usize) * c;
                for ch in 0..c {
                    want += x[base + ch] * wt[((r * 3 + s) * c + ch) * k + out];
                }
            }
            assert_eq!(
                float(&buffers[2], pixel * k + out),
                want,
                "{arch}: pixel {pixel}, channel {out}"
            );
        }
    }
}

/// The f16 bits of a small integer-valued `f32`.
fn half_bits(f: f32) -> u16 {
    let bits = f.to_bits();
    if f == 0.0 {
        return (bits >> 16) as u16;
    }
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mantissa = ((bits >> 13) & 0x3ff) as u16;
    sign | ((exponent as u16) << 10) | mantissa
}

/// An int4 matmul as AWQ stores its weights (the second zoo's `awq_matmul_kernel`,
/// `scripts/zoo2/gen14.py`): eight nibbles per i32, a zero and an f16 scale per group of 32
/// rows of K, dequantized to f16 before the dot. Triton's layouts hoist the dot operand's
/// conversion to the loads — the packed words, the zeros and the scales each go through LDS and
/// the dequantization runs in the operand's layout, which repeats every element across the
/// wave's halves on gfx1100 — where the cost mode leaves the one conversion of the f16 result
/// by the dot: cheaper under the model, fewer instructions, the same numbers.
#[test]
fn a_dequantization_stays_in_its_loads_layout() {
    use linear_layout::lower::Layouts;
    let text = include_str!("fixtures/compile/zoo/awq_matmul_16x32x32_f16.gfx1100.ttir");
    let (m, n, k, group) = (20usize, 64usize, 64usize, 32usize);
    let a: Vec<f32> = (0..m * k).map(|i| ((i * 7 + i / 5) % 7) as f32 - 3.0).collect();
    let packed: Vec<u32> = (0..k * n / 8)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761))
        .collect();
    let scales: Vec<f32> = (0..(k / group) * n).map(|i| (i % 5) as f32 - 2.0).collect();
    let zeros: Vec<u32> = (0..(k / group) * n).map(|i| (i % 7) as u32).collect();
    for arch in ARCHS {
        let target = Target::by_name(arch).unwrap();
        let options = |layouts| CompileOptions {
            layouts,
            ..CompileOptions::new(4)
        };
        let triton = compile(text, target, &options(Layouts::Triton)).unwrap();
        let cost = compile(text, target, &options(Layouts::Cost)).unwrap();
        let dequantized_in_dot_operand = |ttgir: &str| {
            ttgir
                .lines()
                .any(|l| l.contains("arith.sitofp") && l.contains("dot_op"))
        };
        assert!(
            dequantized_in_dot_operand(&triton.ttgir),
            "{arch}: Triton's layouts"
        );
        assert!(!dequantized_in_dot_operand(&cost.ttgir), "{arch}: {}", cost.ttgir);
        assert!(
            cost.cost.cycles < triton.cost.cycles && cost.cost.instructions < triton.cost.instructions,
            "{arch}: {} against {}",
            cost.cost,
            triton.cost
        );
        let words = |v: &[u32]| v.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
        let halves = |v: &[f32]| {
            v.iter()
                .flat_map(|&f| half_bits(f).to_le_bytes())
                .collect::<Vec<u8>>()
        };
        let mut buffers = vec![
            halves(&a),
            words(&packed),
            halves(&scales),
            words(&zeros),
            vec![0; 4 * m * n],
        ];
        let grid = [m.div_ceil(16) as u32, n.div_ceil(32) as u32, 1];
        for (x, y) in (0..grid[0]).flat_map(|x| (0..grid[1]).map(move |y| (x, y))) {
            let launch = linear_layout::lower::Launch {
                scalars: [m, n, k].map(|v| v as u64).to_vec(),
                workgroup: [x, y, 0],
                grid,
            };
            linear_layout::lower::run_launch(&cost.kernel.program, &mut buffers, &launch)
                .unwrap_or_else(|e| panic!("{arch}: {e}"));
        }
        for (i, j) in (0..m).flat_map(|i| (0..n).map(move |j| (i, j))) {
            let want: f32 = (0..k)
                .map(|kk| {
                    let nibble = (packed[kk * (n / 8) + j / 8] >> ((j % 8) * 4)) & 0xF;
                    let g = kk / group;
                    let w = (nibble as f32 - zeros[g * n + j] as f32) * scales[g * n + j];
                    a[i * k + kk] * w
                })
                .sum();
            assert_eq!(float(&buffers[4], i * n + j), want, "{arch}: C[{i}][{j}]");
        }
    }
}

/// Booleans converted between layouts that exchange them across threads move as bytes: LDS and
/// the lane moves address whole bytes, so `i1` elements packed eight to a byte would overwrite
/// each other's bits. A mask made in one layout (each thread a row) and used in another (each
/// thread a column): every element selects right, and no access of LDS is narrower than a byte.
#[test]
fn booleans_cross_threads_as_bytes() {
    let text = r#"
#row = #ttg.blocked<{sizePerThread = [1, 32], threadsPerWarp = [32, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #ttg.blocked<{sizePerThread = [32, 1], threadsPerWarp = [2, 32], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%x: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {
    %zero = arith.constant dense<0> : tensor<128x64xi32, #row>
    %none = arith.constant dense<-1> : tensor<128x64xi32, #col>
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #row}>>
    %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #row}>>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #row}>> -> tensor<128x1xi32, #row>
    %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #row}>> -> tensor<1x64xi32, #row>
    %k64 = arith.constant dense<64> : tensor<128x1xi32, #row>
    %ro = arith.muli %r2, %k64 : tensor<128x1xi32, #row>
    %rb = tt.broadcast %ro : tensor<128x1xi32, #row> -> tensor<128x64xi32, #row>
    %cb = tt.broadcast %c2 : tensor<1x64xi32, #row> -> tensor<128x64xi32, #row>
    %o = arith.addi %rb, %cb : tensor<128x64xi32, #row>
    %px = tt.splat %x : !tt.ptr<i32> -> tensor<128x64x!tt.ptr<i32>, #row>
    %ax = tt.addptr %px, %o : tensor<128x64x!tt.ptr<i32>, #row>, tensor<128x64xi32, #row>
    %v = tt.load %ax : tensor<128x64x!tt.ptr<i32>, #row>
    %m = arith.cmpi sgt, %v, %zero : tensor<128x64xi32, #row>
    %mc = ttg.convert_layout %m : tensor<128x64xi1, #row> -> tensor<128x64xi1, #col>
    %vc = ttg.convert_layout %v : tensor<128x64xi32, #row> -> tensor<128x64xi32, #col>
    %oc = ttg.convert_layout %o : tensor<128x64xi32, #row> -> tensor<128x64xi32, #col>
    %s = arith.select %mc, %vc, %none : tensor<128x64xi1, #col>, tensor<128x64xi32, #col>
    %py = tt.splat %y : !tt.ptr<i32> -> tensor<128x64x!tt.ptr<i32>, #col>
    %ay = tt.addptr %py, %oc : tensor<128x64x!tt.ptr<i32>, #col>, tensor<128x64xi32, #col>
    tt.store %ay, %s : tensor<128x64x!tt.ptr<i32>, #col>
    tt.return
  }
}"#;
    use linear_layout::lower::{Launch, run_launch, ttgir_kernel};
    use linear_layout::ttgir::Module;
    let module = Module::parse(text).unwrap();
    let kernel = ttgir_kernel(&module, Target::by_name("gfx942").unwrap()).unwrap();
    let ir = kernel.llvm_ir().unwrap();
    assert!(
        !ir.lines()
            .any(|l| l.contains("addrspace(3)") && (l.contains(" i1 ") || l.contains("x i1>"))),
        "an LDS access of booleans"
    );
    let x: Vec<i32> = (0..128 * 64).map(|i| (i * 37 % 11) - 5).collect();
    let mut buffers = vec![
        x.iter().flat_map(|v| v.to_le_bytes()).collect(),
        vec![0u8; 4 * 128 * 64],
    ];
    let launch = Launch {
        scalars: vec![],
        workgroup: [0, 0, 0],
        grid: [1, 1, 1],
    };
    run_launch(&kernel.program, &mut buffers, &launch).unwrap();
    for (i, &v) in x.iter().enumerate() {
        let got = i32::from_le_bytes(buffers[1][4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(got, if v > 0 { v } else { -1 }, "element {i}");
    }
}
