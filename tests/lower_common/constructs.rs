//! TTIR compiled as `linear-layout compile` compiles it, for the constructs' tests: llc-22
//! accepts every kernel (where it is installed), and the interpreter runs it over a grid.

use std::sync::atomic::{AtomicUsize, Ordering};

use linear_layout::lower::{CompileOptions, Kernel, Launch, compile, run_launch};
use linear_layout::target::Target;

use super::{compile as assemble, llc};

/// A 64-lane and a 32-lane target.
pub const ARCHS: [&str; 2] = ["gfx942", "gfx1100"];

/// `text` compiled for `arch` (4 warps), llc-22 accepting it where it is installed.
pub fn compiled(text: &str, arch: &str) -> Kernel {
    let target = Target::by_name(arch).unwrap();
    let k = compile(text, target, &CompileOptions::new(4))
        .unwrap_or_else(|e| panic!("{arch}: {e}"))
        .kernel;
    if let Some(llc) = llc() {
        // One directory per kernel: the tests run in parallel.
        static KERNELS: AtomicUsize = AtomicUsize::new(0);
        let id = KERNELS.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ll-constructs-{arch}-{}-{id}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assemble(llc, &k.llvm_ir().unwrap(), k.target, &dir, "k").unwrap_or_else(|e| panic!("{arch}: {e}"));
        let _ = std::fs::remove_dir_all(&dir);
    }
    k
}

/// Runs `k` over a grid of `grid` workgroups along x.
pub fn run(k: &Kernel, buffers: &mut [Vec<u8>], scalars: &[u64], grid: u32) {
    for wg in 0..grid {
        let launch = Launch {
            scalars: scalars.to_vec(),
            workgroup: [wg, 0, 0],
            grid: [grid, 1, 1],
        };
        run_launch(&k.program, buffers, &launch).unwrap_or_else(|e| panic!("{}: {e}", k.target.name));
    }
}

/// Little-endian bytes of 32-bit words.
pub fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The 32-bit word `i` of little-endian bytes.
pub fn word(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap())
}

/// Little-endian bytes of `f32`s.
pub fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The `f32` `i` of little-endian bytes.
pub fn float(b: &[u8], i: usize) -> f32 {
    f32::from_bits(word(b, i))
}
