//! `lower::compile` of a `tt.dot` of `f64` tiles: CDNA's double-precision MFMA
//! (`v_mfma_f64_16x16x4f64`, where Triton 3.6 aborts on gfx942), gfx1100's multiply-adds. The
//! AMD ISA emulator does not model the f64 MFMA (Triton's own gfx950 code computes wrong there
//! too), so the interpreter, which runs the instruction's lane layouts, checks the values.

mod lower_common;

use linear_layout::lower::{CompileOptions, Launch, compile, run_launch};
use linear_layout::target::Target;
use lower_common::constructs::{float, floats};

/// The second zoo's `dot_f64_kernel` (`scripts/zoo2/gen13.py`): `C = A·B` of f32 matrices
/// read as f64, 16 × 16 × 16 tiles over K in a loop, stored back as f32 — 40 × 24 × 40.
#[test]
fn a_dot_of_doubles_is_exact_on_every_target() {
    let text = include_str!("fixtures/compile/zoo/dot_f64_16x16x16.gfx942.ttir");
    let (m, n, k) = (40usize, 24usize, 40usize);
    // Products of these need more than f32's 24 bits: an f32 dot would round them.
    let a: Vec<f32> = (0..m * k).map(|i| ((i * 7919) % 4093) as f32 + 0.5).collect();
    let b: Vec<f32> = (0..k * n)
        .map(|i| ((i * 104_729) % 4091) as f32 - 2045.25)
        .collect();
    for arch in ["gfx942", "gfx950", "gfx1100"] {
        let target = Target::by_name(arch).unwrap();
        let kernel = compile(text, target, &CompileOptions::new(4))
            .unwrap_or_else(|e| panic!("{arch}: {e}"))
            .kernel;
        if target.matrix.mfma_version.is_some() {
            let ir = kernel.llvm_ir().unwrap();
            assert!(ir.contains("llvm.amdgcn.mfma.f64"), "{arch}: no f64 MFMA");
        }
        let mut buffers = vec![floats(&a), floats(&b), vec![0; 4 * m * n]];
        // The grid is (⌈m/16⌉, ⌈n/16⌉): each workgroup's two program ids.
        let grid = [m.div_ceil(16) as u32, n.div_ceil(16) as u32, 1];
        for (x, y) in (0..grid[0]).flat_map(|x| (0..grid[1]).map(move |y| (x, y))) {
            let launch = Launch {
                scalars: [m, n, k].map(|v| v as u64).to_vec(),
                workgroup: [x, y, 0],
                grid,
            };
            run_launch(&kernel.program, &mut buffers, &launch).unwrap_or_else(|e| panic!("{arch}: {e}"));
        }
        for (i, j) in (0..m).flat_map(|i| (0..n).map(move |j| (i, j))) {
            let exact: f64 = (0..k)
                .map(|kk| f64::from(a[i * k + kk]) * f64::from(b[kk * n + j]))
                .sum();
            assert_eq!(float(&buffers[2], i * n + j), exact as f32, "{arch}: C[{i}][{j}]");
        }
    }
}
