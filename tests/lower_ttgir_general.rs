//! The general lowering of TTGIR values: what leaves the symbolic fast paths (affine indices,
//! coordinate bounds, constant `other`s) is computed in registers. Each module is small and
//! hand-written in the form `triton-opt` prints; each runs in the interpreter against a
//! reference over several workgroups, and llc-22 compiles it.

mod lower_common;

use linear_layout::lower::{Kernel, Launch, run_launch, ttgir_kernel};
use linear_layout::target::Target;
use linear_layout::ttgir::Module;
use lower_common::{compile, llc};

fn lower(text: &str, arch: &str) -> Kernel {
    let m = Module::parse(text).unwrap_or_else(|e| panic!("{e}"));
    ttgir_kernel(&m, Target::by_name(arch).unwrap()).unwrap_or_else(|e| panic!("{arch}: {e}"))
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn word(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap())
}

fn llc_accepts(k: &Kernel, name: &str) {
    if let Some(llc) = llc() {
        let dir = std::env::temp_dir().join(format!("ll-general-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        compile(llc, &k.llvm_ir().unwrap(), k.target, &dir, name).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A masked load whose `other` is a scalar argument, not a constant: masked elements read the
/// argument (a select after the load), the others memory; the mask `offs < n` with
/// `offs = pid·BLOCK + arange` bounds no coordinate by a constant or argument alone, so it is a
/// predicate per register.
#[test]
fn a_load_whose_other_is_an_argument() {
    for (arch, lanes) in [("gfx942", 64), ("gfx1100", 32)] {
        let text = format!(
            r#"
#l = #ttg.blocked<{{sizePerThread = [2], threadsPerWarp = [{lanes}], warpsPerCTA = [2], order = [0]}}>
module attributes {{"ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @fill(%x: !tt.ptr<i32>, %out: !tt.ptr<i32>, %n: i32, %fill: i32) {{
    %c256 = arith.constant 256 : i32
    %pid = tt.get_program_id x : i32
    %start = arith.muli %pid, %c256 : i32
    %r = tt.make_range {{end = 256 : i32, start = 0 : i32}} : tensor<256xi32, #l>
    %s = tt.splat %start : i32 -> tensor<256xi32, #l>
    %offs = arith.addi %s, %r : tensor<256xi32, #l>
    %ns = tt.splat %n : i32 -> tensor<256xi32, #l>
    %mask = arith.cmpi slt, %offs, %ns : tensor<256xi32, #l>
    %xs = tt.splat %x : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>, #l>
    %xp = tt.addptr %xs, %offs : tensor<256x!tt.ptr<i32>, #l>, tensor<256xi32, #l>
    %fs = tt.splat %fill : i32 -> tensor<256xi32, #l>
    %v = tt.load %xp, %mask, %fs : tensor<256x!tt.ptr<i32>, #l>
    %os = tt.splat %out : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>, #l>
    %op = tt.addptr %os, %offs : tensor<256x!tt.ptr<i32>, #l>, tensor<256xi32, #l>
    tt.store %op, %v : tensor<256x!tt.ptr<i32>, #l>
    tt.return
  }}
}}"#
        );
        let k = lower(&text, arch);
        let n = 300usize;
        let x: Vec<u32> = (0..512).map(|i| i * 3 + 1).collect();
        let mut buffers = vec![words(&x), vec![0; 512 * 4]];
        for wg in 0..2 {
            let launch = Launch {
                scalars: vec![n as u64, 0xdead],
                workgroup: [wg, 0, 0],
                grid: [2, 1, 1],
            };
            run_launch(&k.program, &mut buffers, &launch).unwrap();
        }
        for i in 0..512 {
            let want = if i < n { x[i] } else { 0xdead };
            assert_eq!(word(&buffers[1], i), want, "{arch}: element {i}");
        }
        llc_accepts(&k, &format!("fill_{arch}"));
    }
}
