//! Values that come out of branches and loops in forms the registers need not hold: a pointer
//! an `scf.if` yields (one of two buffers, or one buffer at one of two offsets), an index
//! tensor a loop multiplies (its strides change each iteration), a pointer a loop starts as
//! `ub.poison` (what the loop nest fusion makes), and a 64-bit argument read whole. The
//! interpreter checks every result exactly, on CDNA and RDNA, and llc-22 compiles each module.

mod lower_common;

use linear_layout::lower::{Kernel, ttgir_kernel};
use linear_layout::target::Target;
use linear_layout::ttgir::Module;
use lower_common::constructs::{float, floats, run, word, words};
use lower_common::{compile, llc};

const ARCHS: [&str; 2] = ["gfx942", "gfx1100"];

/// `src = a if sel > 0 else b` and `q = b + 64 + i if sel > 0 else b + i`, each an `scf.if`;
/// `out[i] = src[i] + *q`.
const BRANCH_POINTERS: &str = r#"
#l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @branch_pointers(%a: !tt.ptr<i32>, %b: !tt.ptr<i32>, %out: !tt.ptr<i32>, %sel: i32) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant dense<64> : tensor<64xi32, #l>
    %c = arith.cmpi sgt, %sel, %c0 : i32
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
    %src = scf.if %c -> (!tt.ptr<i32>) {
      scf.yield %a : !tt.ptr<i32>
    } else {
      scf.yield %b : !tt.ptr<i32>
    }
    %bs = tt.splat %b : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
    %bp = tt.addptr %bs, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
    %q = scf.if %c -> (tensor<64x!tt.ptr<i32>, #l>) {
      %up = tt.addptr %bp, %c64 : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
      scf.yield %up : tensor<64x!tt.ptr<i32>, #l>
    } else {
      scf.yield %bp : tensor<64x!tt.ptr<i32>, #l>
    }
    %ss = tt.splat %src : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
    %sp = tt.addptr %ss, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
    %x = tt.load %sp : tensor<64x!tt.ptr<i32>, #l>
    %y = tt.load %q : tensor<64x!tt.ptr<i32>, #l>
    %s = arith.addi %x, %y : tensor<64xi32, #l>
    %os = tt.splat %out : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
    %op = tt.addptr %os, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
    tt.store %op, %s : tensor<64x!tt.ptr<i32>, #l>
    tt.return
  }
}
"#;

/// A flag loaded from memory picks `src = a` and `q = b + i`, or `src = b` and `q = a + 63 − i`
/// (an `scf.if` whose condition is a scalar in registers); `out[i] = 10·src[i] + *q`.
const LOADED_FLAG: &str = r#"
#l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @loaded_flag(%flag: !tt.ptr<i32>, %a: !tt.ptr<i32>, %b: !tt.ptr<i32>, %out: !tt.ptr<i32>) {
    %c0 = arith.constant 0 : i32
    %c10 = arith.constant dense<10> : tensor<64xi32, #l>
    %c63 = arith.constant dense<63> : tensor<64xi32, #l>
    %f = tt.load %flag : !tt.ptr<i32>
    %c = arith.cmpi sgt, %f, %c0 : i32
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
    %src, %q = scf.if %c -> (!tt.ptr<i32>, tensor<64x!tt.ptr<i32>, #l>) {
      %bs = tt.splat %b : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
      %bp = tt.addptr %bs, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
      scf.yield %a, %bp : !tt.ptr<i32>, tensor<64x!tt.ptr<i32>, #l>
    } else {
      %rev = arith.subi %c63, %r : tensor<64xi32, #l>
      %as = tt.splat %a : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
      %ap = tt.addptr %as, %rev : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
      scf.yield %b, %ap : !tt.ptr<i32>, tensor<64x!tt.ptr<i32>, #l>
    }
    %ss = tt.splat %src : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
    %sp = tt.addptr %ss, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
    %x = tt.load %sp : tensor<64x!tt.ptr<i32>, #l>
    %y = tt.load %q : tensor<64x!tt.ptr<i32>, #l>
    %x10 = arith.muli %x, %c10 : tensor<64xi32, #l>
    %s = arith.addi %x10, %y : tensor<64xi32, #l>
    %os = tt.splat %out : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
    %op = tt.addptr %os, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
    tt.store %op, %s : tensor<64x!tt.ptr<i32>, #l>
    tt.return
  }
}
"#;

/// `x = arange(64); for _ in range(n): x = x * 2; out[i] = x[i]`.
const GROWING_INDEX: &str = r#"
#l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @growing_index(%out: !tt.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant dense<2> : tensor<64xi32, #l>
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
    %f = scf.for %i = %c0 to %n step %c1 iter_args(%x = %r) -> (tensor<64xi32, #l>) : i32 {
      %y = arith.muli %x, %c2 : tensor<64xi32, #l>
      scf.yield %y : tensor<64xi32, #l>
    }
    %o = tt.splat %out : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
    %w = tt.addptr %o, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
    tt.store %w, %f : tensor<64x!tt.ptr<i32>, #l>
    tt.return
  }
}
"#;

/// A pointer the loop starts as poison and sets in its first iteration (`x + i`), then moves
/// by 64 elements: `out[i] = Σ_k x[64·k + i]` over `n` iterations.
const POISON_START: &str = r#"
#l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @poison_start(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant dense<64> : tensor<64xi32, #l>
    %zero = arith.constant dense<0.000000e+00> : tensor<64xf32, #l>
    %p0 = ub.poison : tensor<64x!tt.ptr<f32>, #l>
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
    %f:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %p0, %acc = %zero) -> (tensor<64x!tt.ptr<f32>, #l>, tensor<64xf32, #l>) : i32 {
      %first = arith.cmpi eq, %i, %c0 : i32
      %q = scf.if %first -> (tensor<64x!tt.ptr<f32>, #l>) {
        %xs = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #l>
        %xp = tt.addptr %xs, %r : tensor<64x!tt.ptr<f32>, #l>, tensor<64xi32, #l>
        scf.yield %xp : tensor<64x!tt.ptr<f32>, #l>
      } else {
        %np = tt.addptr %p, %c64 : tensor<64x!tt.ptr<f32>, #l>, tensor<64xi32, #l>
        scf.yield %np : tensor<64x!tt.ptr<f32>, #l>
      }
      %v = tt.load %q : tensor<64x!tt.ptr<f32>, #l>
      %a = arith.addf %acc, %v : tensor<64xf32, #l>
      scf.yield %q, %a : tensor<64x!tt.ptr<f32>, #l>, tensor<64xf32, #l>
    }
    %o = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #l>
    %w = tt.addptr %o, %r : tensor<64x!tt.ptr<f32>, #l>, tensor<64xi32, #l>
    tt.store %w, %f#1 : tensor<64x!tt.ptr<f32>, #l>
    tt.return
  }
}
"#;

/// `v = 3·seed + 1 + i` in 64 bits; `out[i] = v if seed > 2^33 else -v`.
const WIDE_ARGUMENT: &str = r#"
#l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @wide_argument(%out: !tt.ptr<i64>, %seed: i64) {
    %big = arith.constant 8589934592 : i64
    %zero = arith.constant dense<0> : tensor<64xi64, #l>
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
    %r64 = arith.extsi %r : tensor<64xi32, #l> to tensor<64xi64, #l>
    %c1 = arith.constant 1 : i64
    %c3 = arith.constant 3 : i64
    %seed3 = arith.muli %seed, %c3 : i64
    %base = arith.addi %seed3, %c1 : i64
    %s = tt.splat %base : i64 -> tensor<64xi64, #l>
    %v = arith.addi %r64, %s : tensor<64xi64, #l>
    %c = arith.cmpi sgt, %seed, %big : i64
    %res = scf.if %c -> (tensor<64xi64, #l>) {
      scf.yield %v : tensor<64xi64, #l>
    } else {
      %neg = arith.subi %zero, %v : tensor<64xi64, #l>
      scf.yield %neg : tensor<64xi64, #l>
    }
    %o = tt.splat %out : !tt.ptr<i64> -> tensor<64x!tt.ptr<i64>, #l>
    %w = tt.addptr %o, %r : tensor<64x!tt.ptr<i64>, #l>, tensor<64xi32, #l>
    tt.store %w, %res : tensor<64x!tt.ptr<i64>, #l>
    tt.return
  }
}
"#;

/// `out[i] = i if (sel − 9) % 4 == 0 else −i`, `(sel − 9) % 4 != 0` for a second store: the
/// signed remainder by a power of two tested against zero (as a mask of its low bits).
const REMAINDER_TEST: &str = r#"
#l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @remainder_test(%out: !tt.ptr<i32>, %other: !tt.ptr<i32>, %sel: i32) {
    %c0 = arith.constant 0 : i32
    %c4 = arith.constant 4 : i32
    %c9 = arith.constant 9 : i32
    %zero = arith.constant dense<0> : tensor<64xi32, #l>
    %x = arith.subi %sel, %c9 : i32
    %rem = arith.remsi %x, %c4 : i32
    %even = arith.cmpi eq, %rem, %c0 : i32
    %odd = arith.cmpi ne, %c0, %rem : i32
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
    %neg = arith.subi %zero, %r : tensor<64xi32, #l>
    %v = arith.select %even, %r, %neg : tensor<64xi32, #l>
    %w = arith.select %odd, %r, %neg : tensor<64xi32, #l>
    %o = tt.splat %out : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
    %op = tt.addptr %o, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
    tt.store %op, %v : tensor<64x!tt.ptr<i32>, #l>
    %q = tt.splat %other : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
    %qp = tt.addptr %q, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
    tt.store %qp, %w : tensor<64x!tt.ptr<i32>, #l>
    tt.return
  }
}
"#;

/// A loop over 64-bit integers from `base` (an argument past 2^32) to `base + n` (`n` loaded
/// from memory): `out[j] = Σ_i (i + j)` in 64 bits.
const WIDE_LOOP: &str = r#"
#l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @wide_loop(%lens: !tt.ptr<i64>, %out: !tt.ptr<i64>, %base: i64) {
    %c1 = arith.constant 1 : i64
    %zero = arith.constant dense<0> : tensor<64xi64, #l>
    %n = tt.load %lens : !tt.ptr<i64>
    %ub = arith.addi %base, %n : i64
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
    %r64 = arith.extsi %r : tensor<64xi32, #l> to tensor<64xi64, #l>
    %f = scf.for %i = %base to %ub step %c1 iter_args(%acc = %zero) -> (tensor<64xi64, #l>) : i64 {
      %s = tt.splat %i : i64 -> tensor<64xi64, #l>
      %t = arith.addi %s, %r64 : tensor<64xi64, #l>
      %a = arith.addi %acc, %t : tensor<64xi64, #l>
      scf.yield %a : tensor<64xi64, #l>
    }
    %o = tt.splat %out : !tt.ptr<i64> -> tensor<64x!tt.ptr<i64>, #l>
    %w = tt.addptr %o, %r : tensor<64x!tt.ptr<i64>, #l>, tensor<64xi32, #l>
    tt.store %w, %f : tensor<64x!tt.ptr<i64>, #l>
    tt.return
  }
}
"#;

/// The module lowered for `arch` (its lanes per warp the target's: on a 32-lane target each
/// thread holds two elements), and checked by llc-22 where it is installed.
fn lower(text: &str, name: &str, arch: &str) -> Kernel {
    let target = Target::by_name(arch).unwrap();
    let lanes = target.wave_size;
    let text = text
        .replace("threadsPerWarp = [64]", &format!("threadsPerWarp = [{lanes}]"))
        .replace(
            "\"ttg.threads-per-warp\" = 64",
            &format!("\"ttg.threads-per-warp\" = {lanes}"),
        );
    let m = Module::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let k = ttgir_kernel(&m, target).unwrap_or_else(|e| panic!("{name} on {arch}: {e}"));
    if let Some(llc) = llc() {
        let dir = std::env::temp_dir().join(format!("ll-branch-{name}-{arch}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        compile(llc, &k.llvm_ir().unwrap(), k.target, &dir, name).unwrap_or_else(|e| panic!("{arch}: {e}"));
        let _ = std::fs::remove_dir_all(&dir);
    }
    k
}

#[test]
fn a_branch_yields_a_pointer_to_either_buffer_or_offset() {
    let a: Vec<u32> = (0..64).map(|i| 1000 + i).collect();
    let b: Vec<u32> = (0..128).map(|i| 5 * i).collect();
    for arch in ARCHS {
        let k = lower(BRANCH_POINTERS, "branch_pointers", arch);
        for sel in [1u64, 0] {
            let mut buffers = vec![words(&a), words(&b), vec![0; 4 * 64]];
            run(&k, &mut buffers, &[sel], 1);
            for i in 0..64 {
                let want = if sel > 0 { a[i] + b[64 + i] } else { 2 * b[i] };
                assert_eq!(word(&buffers[2], i), want, "{arch}, sel {sel}: element {i}");
            }
        }
    }
}

#[test]
fn an_index_whose_strides_change_is_carried_in_registers() {
    for arch in ARCHS {
        let k = lower(GROWING_INDEX, "growing_index", arch);
        let mut buffers = vec![vec![0; 4 * 64]];
        run(&k, &mut buffers, &[3], 1);
        for i in 0..64 {
            assert_eq!(word(&buffers[0], i), 8 * i as u32, "{arch}: element {i}");
        }
    }
}

#[test]
fn a_pointer_started_as_poison_is_carried_as_the_loop_yields_it() {
    let n = 3;
    let x: Vec<f32> = (0..64 * n).map(|i| (i % 17) as f32).collect();
    for arch in ARCHS {
        let k = lower(POISON_START, "poison_start", arch);
        let mut buffers = vec![floats(&x), vec![0; 4 * 64]];
        run(&k, &mut buffers, &[n as u64], 1);
        for i in 0..64 {
            let want: f32 = (0..n).map(|k| x[64 * k + i]).sum();
            assert_eq!(float(&buffers[1], i), want, "{arch}: element {i}");
        }
    }
}

#[test]
fn a_64_bit_argument_keeps_its_high_bits() {
    for arch in ARCHS {
        let k = lower(WIDE_ARGUMENT, "wide_argument", arch);
        // 2^33 + 5 is past 2^33; 2^32 + 7 is not, though its low 32 bits (7) are past 2^33's (0).
        for seed in [(1i64 << 33) + 5, (1i64 << 32) + 7] {
            let mut buffers = vec![vec![0; 8 * 64]];
            run(&k, &mut buffers, &[seed as u64], 1);
            for i in 0..64 {
                let got = i64::from_le_bytes(buffers[0][8 * i..8 * i + 8].try_into().unwrap());
                let v = 3 * seed + 1 + i as i64;
                let want = if seed > 1 << 33 { v } else { -v };
                assert_eq!(got, want, "{arch}, seed {seed}: element {i}");
            }
        }
    }
}

#[test]
fn a_remainder_by_a_power_of_two_tests_zero_by_its_low_bits() {
    for arch in ARCHS {
        let k = lower(REMAINDER_TEST, "remainder_test", arch);
        for sel in [-7i32, -6, -3, 0, 1, 5, 9, 13, 14] {
            let mut buffers = vec![vec![0; 4 * 64], vec![0; 4 * 64]];
            run(&k, &mut buffers, &[sel as u32 as u64], 1);
            let zero = (sel - 9) % 4 == 0;
            for i in 0..64 {
                let (v, w) = if zero { (i, -i) } else { (-i, i) };
                assert_eq!(
                    word(&buffers[0], i as usize) as i32,
                    v,
                    "{arch}, sel {sel}: element {i}"
                );
                assert_eq!(
                    word(&buffers[1], i as usize) as i32,
                    w,
                    "{arch}, sel {sel}: element {i}"
                );
            }
        }
    }
}

#[test]
fn a_branch_on_a_loaded_flag_yields_either_pointer() {
    let a: Vec<u32> = (0..64).map(|i| 3 + i).collect();
    let b: Vec<u32> = (0..64).map(|i| 500 + 7 * i).collect();
    for arch in ARCHS {
        let k = lower(LOADED_FLAG, "loaded_flag", arch);
        for flag in [1u32, 0] {
            let mut buffers = vec![words(&[flag]), words(&a), words(&b), vec![0; 4 * 64]];
            run(&k, &mut buffers, &[], 1);
            for i in 0..64 {
                let want = if flag > 0 {
                    10 * a[i] + b[i]
                } else {
                    10 * b[i] + a[63 - i]
                };
                assert_eq!(word(&buffers[3], i), want, "{arch}, flag {flag}: element {i}");
            }
        }
    }
}

#[test]
fn a_loop_over_64_bit_integers_counts_its_trips() {
    let base = (1i64 << 33) + 5;
    for arch in ARCHS {
        let k = lower(WIDE_LOOP, "wide_loop", arch);
        for n in [3i64, 0, -2] {
            let mut buffers = vec![n.to_le_bytes().to_vec(), vec![0; 8 * 64]];
            run(&k, &mut buffers, &[base as u64], 1);
            for j in 0..64 {
                let got = i64::from_le_bytes(buffers[1][8 * j..8 * j + 8].try_into().unwrap());
                let want: i64 = (base..base + n).map(|i| i + j as i64).sum();
                assert_eq!(got, want, "{arch}, n {n}: element {j}");
            }
        }
    }
}
