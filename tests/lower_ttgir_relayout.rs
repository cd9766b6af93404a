//! Ops whose operand and result layouts are not the pair Triton would give them: a scan over a
//! layout one of whose bits moves along two bits of the axis at once, a transpose into an
//! unrelated layout, a gather whose index is in another layout than its result. Each is converted first, then computed as usual; the interpreter checks every
//! result exactly, and llc-22 compiles the module.

mod lower_common;

use linear_layout::lower::{Kernel, ttgir_kernel};
use linear_layout::target::Target;
use linear_layout::ttgir::Module;
use lower_common::constructs::{float, floats, run};
use lower_common::{compile, llc};

/// A 16×32 f32 tile whose first register bit moves three columns at once (`[0, 3]`), read once
/// and sent through every op the module names.
const MODULE: &str = r#"
#lin = #ttg.linear<{register = [[0, 3], [0, 2], [2, 0]], lane = [[1, 0], [0, 4], [0, 8], [0, 16], [4, 0], [8, 0]], warp = [], block = []}>
#b = #ttg.blocked<{sizePerThread = [2, 4], threadsPerWarp = [16, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#g = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @relayout(%x: !tt.ptr<f32>, %scan: !tt.ptr<f32>, %t: !tt.ptr<f32>, %g: !tt.ptr<f32>) {
    %c32 = arith.constant dense<32> : tensor<16x1xi32, #g>
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 1, parent = #g}>>
    %c = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #g}>>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #ttg.slice<{dim = 1, parent = #g}>> -> tensor<16x1xi32, #g>
    %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #g}>> -> tensor<1x32xi32, #g>
    %rs = arith.muli %r2, %c32 : tensor<16x1xi32, #g>
    %rb = tt.broadcast %rs : tensor<16x1xi32, #g> -> tensor<16x32xi32, #g>
    %cb = tt.broadcast %c2 : tensor<1x32xi32, #g> -> tensor<16x32xi32, #g>
    %rb2 = tt.broadcast %r2 : tensor<16x1xi32, #g> -> tensor<16x32xi32, #g>
    %goffs = arith.addi %rb, %cb : tensor<16x32xi32, #g>
    %offs = ttg.convert_layout %goffs : tensor<16x32xi32, #g> -> tensor<16x32xi32, #lin>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x32x!tt.ptr<f32>, #lin>
    %xp = tt.addptr %xs, %offs : tensor<16x32x!tt.ptr<f32>, #lin>, tensor<16x32xi32, #lin>
    %v = tt.load %xp : tensor<16x32x!tt.ptr<f32>, #lin>
    %cum = "tt.scan"(%v) <{axis = 1 : i32, reverse = false}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.scan.return %s : f32
    }) : (tensor<16x32xf32, #lin>) -> tensor<16x32xf32, #lin>
    %ss = tt.splat %scan : !tt.ptr<f32> -> tensor<16x32x!tt.ptr<f32>, #lin>
    %sp = tt.addptr %ss, %offs : tensor<16x32x!tt.ptr<f32>, #lin>, tensor<16x32xi32, #lin>
    tt.store %sp, %cum : tensor<16x32x!tt.ptr<f32>, #lin>
    %tv = tt.trans %v {order = array<i32: 1, 0>} : tensor<16x32xf32, #lin> -> tensor<32x16xf32, #b>
    %c16 = arith.constant dense<16> : tensor<32x1xi32, #b>
    %tr = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #b}>>
    %tc = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #b}>>
    %tr2 = tt.expand_dims %tr {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #b}>> -> tensor<32x1xi32, #b>
    %tc2 = tt.expand_dims %tc {axis = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #b}>> -> tensor<1x16xi32, #b>
    %trs = arith.muli %tr2, %c16 : tensor<32x1xi32, #b>
    %trb = tt.broadcast %trs : tensor<32x1xi32, #b> -> tensor<32x16xi32, #b>
    %tcb = tt.broadcast %tc2 : tensor<1x16xi32, #b> -> tensor<32x16xi32, #b>
    %toffs = arith.addi %trb, %tcb : tensor<32x16xi32, #b>
    %ts = tt.splat %t : !tt.ptr<f32> -> tensor<32x16x!tt.ptr<f32>, #b>
    %tp = tt.addptr %ts, %toffs : tensor<32x16x!tt.ptr<f32>, #b>, tensor<32x16xi32, #b>
    tt.store %tp, %tv : tensor<32x16x!tt.ptr<f32>, #b>
    %seven = arith.constant dense<7> : tensor<16x32xi32, #g>
    %mask31 = arith.constant dense<31> : tensor<16x32xi32, #g>
    %g7 = arith.muli %cb, %seven : tensor<16x32xi32, #g>
    %gsum = arith.addi %g7, %rb2 : tensor<16x32xi32, #g>
    %idx = arith.andi %gsum, %mask31 : tensor<16x32xi32, #g>
    %gv = tt.gather %v[%idx] {axis = 1 : i32} : (tensor<16x32xf32, #lin>, tensor<16x32xi32, #g>) -> tensor<16x32xf32, #lin>
    %gs = tt.splat %g : !tt.ptr<f32> -> tensor<16x32x!tt.ptr<f32>, #lin>
    %gp = tt.addptr %gs, %offs : tensor<16x32x!tt.ptr<f32>, #lin>, tensor<16x32xi32, #lin>
    tt.store %gp, %gv : tensor<16x32x!tt.ptr<f32>, #lin>
    tt.return
  }
}
"#;

fn lower(arch: &str) -> Kernel {
    let m = Module::parse(MODULE).unwrap_or_else(|e| panic!("{e}"));
    ttgir_kernel(&m, Target::by_name(arch).unwrap()).unwrap_or_else(|e| panic!("{arch}: {e}"))
}

#[test]
fn ops_in_layouts_triton_would_not_give_are_converted_first() {
    let (rows, cols) = (16usize, 32usize);
    // Small integers: every sum is exact in f32, whatever the order.
    let x: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 37 + 11) % 23) as f32 - 11.0)
        .collect();
    let at = |i: usize, j: usize| x[i * cols + j];
    for arch in ["gfx942", "gfx950"] {
        let k = lower(arch);
        let mut buffers = vec![
            floats(&x),
            vec![0; 4 * rows * cols],
            vec![0; 4 * rows * cols],
            vec![0; 4 * rows * cols],
        ];
        run(&k, &mut buffers, &[], 1);
        for i in 0..rows {
            let mut running = 0.0;
            for j in 0..cols {
                running += at(i, j);
                assert_eq!(
                    float(&buffers[1], i * cols + j),
                    running,
                    "{arch}: scan ({i}, {j})"
                );
                assert_eq!(
                    float(&buffers[2], j * rows + i),
                    at(i, j),
                    "{arch}: transpose ({i}, {j})"
                );
                let index = (7 * j + i) % cols;
                assert_eq!(
                    float(&buffers[3], i * cols + j),
                    at(i, index),
                    "{arch}: gather ({i}, {j})"
                );
            }
        }
        if let Some(llc) = llc() {
            let dir = std::env::temp_dir().join(format!("ll-relayout-{arch}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            compile(llc, &k.llvm_ir().unwrap(), k.target, &dir, "relayout")
                .unwrap_or_else(|e| panic!("{arch}: {e}"));
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
