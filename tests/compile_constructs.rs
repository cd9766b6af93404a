//! `lower::compile` on constructs of kernels as people write them, each a small TTIR module in
//! the form Triton's `make_ttir` leaves it (no layouts): compiled for a 64-lane and a 32-lane
//! target, run in the interpreter over several workgroups against a reference, and accepted by
//! llc-22. What the compiler refuses, it refuses naming the line the author wrote.

mod lower_common;

use linear_layout::lower::{CompileOptions, compile};
use linear_layout::target::Target;
use lower_common::constructs::{ARCHS, compiled, float, floats, run, word, words};
use lower_common::{compile as assemble, llc};

/// A refusal names the line of the input the op was read from, though the layout passes print
/// and read the module again (here after a preamble of location aliases, as Triton prints TTIR
/// with its debug locations).
#[test]
fn a_refusal_names_the_line_the_author_wrote() {
    let text = r#"#loc = loc("k.py":1:0)
#loc1 = loc("x"(#loc))
module {
  tt.func public @k(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32> loc(#loc)
    %p = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>> loc(#loc)
    %q = tt.addptr %p, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32> loc(#loc)
    %v = tt.load %q : tensor<64x!tt.ptr<f32>> loc(#loc)
    tt.print " v: " {hex = false, isSigned = array<i32: 0>} : %v : tensor<64xf32> loc(#loc)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
"#;
    for arch in ARCHS {
        let e = compile(text, Target::by_name(arch).unwrap(), &CompileOptions::new(4))
            .err()
            .unwrap_or_else(|| panic!("{arch}: device printing compiled"));
        assert!(e.to_string().starts_with("line 9: tt.print: "), "{arch}: {e}");
    }
}

/// The f16 value of a small integer (exact in f16), as bits.
fn f16_of(v: i32) -> u16 {
    if v == 0 {
        return 0;
    }
    let (sign, m) = (u16::from(v < 0) << 15, v.unsigned_abs());
    let e = 31 - m.leading_zeros();
    sign | ((e + 15) as u16) << 10 | ((m << (10 - e)) & 0x3ff) as u16
}

/// `tl.dot(a, b, out_dtype=tl.float16)`: an f16 accumulator, which the matrix units lack — the
/// product accumulates in f32 and is rounded to f16 once (as Triton's accelerate-matmul does).
/// Small integers keep every sum exact.
#[test]
fn a_dot_with_an_f16_result() {
    // `make_ttir` of the kernel: `c = tl.dot(a, b, out_dtype=tl.float16)` on 32×32 tiles.
    let text = r#"module {
  tt.func public @dot_f16_out_kernel(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}) attributes {noinline = false} {
    %c = arith.constant dense<0.000000e+00> : tensor<32x32xf16>
    %cst = arith.constant dense<32> : tensor<32x1xi32>
    %rm = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %a = tt.expand_dims %rm {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %a_0 = arith.muli %a, %cst : tensor<32x1xi32>
    %a_1 = tt.splat %a_ptr : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
    %a_2 = tt.addptr %a_1, %a_0 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
    %a_3 = tt.expand_dims %rm {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %a_4 = tt.broadcast %a_2 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
    %a_5 = tt.broadcast %a_3 : tensor<1x32xi32> -> tensor<32x32xi32>
    %a_6 = tt.addptr %a_4, %a_5 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %a_7 = tt.load %a_6 : tensor<32x32x!tt.ptr<f16>>
    %b = tt.splat %b_ptr : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
    %b_8 = tt.addptr %b, %a_0 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
    %b_9 = tt.broadcast %b_8 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
    %b_10 = tt.addptr %b_9, %a_5 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    %b_11 = tt.load %b_10 : tensor<32x32x!tt.ptr<f16>>
    %c_12 = tt.dot %a_7, %b_11, %c, inputPrecision = tf32 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf16>
    %0 = tt.splat %c_ptr : !tt.ptr<f16> -> tensor<32x1x!tt.ptr<f16>>
    %1 = tt.addptr %0, %a_0 : tensor<32x1x!tt.ptr<f16>>, tensor<32x1xi32>
    %2 = tt.broadcast %1 : tensor<32x1x!tt.ptr<f16>> -> tensor<32x32x!tt.ptr<f16>>
    %3 = tt.addptr %2, %a_5 : tensor<32x32x!tt.ptr<f16>>, tensor<32x32xi32>
    tt.store %3, %c_12 : tensor<32x32x!tt.ptr<f16>>
    tt.return
  }
}"#;
    let a: Vec<i32> = (0..32 * 32).map(|i| (i * 7 % 9) - 4).collect();
    let b: Vec<i32> = (0..32 * 32).map(|i| (i * 5 % 7) - 3).collect();
    let halves = |v: &[i32]| -> Vec<u8> { v.iter().flat_map(|&x| f16_of(x).to_le_bytes()).collect() };
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![halves(&a), halves(&b), vec![0; 32 * 32 * 2]];
        run(&k, &mut buffers, &[], 1);
        for i in 0..32 {
            for j in 0..32 {
                let want: i32 = (0..32).map(|t| a[i * 32 + t] * b[t * 32 + j]).sum();
                let got =
                    u16::from_le_bytes([buffers[2][2 * (i * 32 + j)], buffers[2][2 * (i * 32 + j) + 1]]);
                assert_eq!(got, f16_of(want), "{arch}: c[{i}][{j}]");
            }
        }
    }
}

/// Which of two floats an extreme keeps.
type Pick = fn(f32, f32) -> f32;

/// `tl.atomic_max` / `tl.atomic_min` of floats: Triton's TTIR reinterprets the pointer as one to
/// `i32` (`tt.bitcast` of a tensor of pointers) and takes a signed max of the non-negative
/// values' bits and an unsigned min of the negative ones' (or the reverse for min). Four slots,
/// two workgroups, a masked tail; values `offs - 100`, negative and positive.
#[test]
fn atomic_max_and_min_of_floats_through_integer_pointers() {
    // `make_ttir` of `tl.atomic_max(p_f32 + offs % 4, offs.to(tl.float32) - 100.0, mask=offs < n)`
    // (BLOCK 128; the other arguments unused).
    let max = r#"module {
  tt.func public @atomic_one_kernel(%p_i32: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %p_f32: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %p_i64: !tt.ptr<i64> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %p_bf16: !tt.ptr<bf16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %p_f64: !tt.ptr<f64> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %out_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %n: i32) attributes {noinline = false} {
    %cst = arith.constant dense<true> : tensor<128xi1>
    %cst_0 = arith.constant dense<0> : tensor<128xi32>
    %cst_1 = arith.constant dense<31> : tensor<128xi32>
    %cst_2 = arith.constant dense<1.000000e+02> : tensor<128xf32>
    %slot = arith.constant dense<4> : tensor<128xi32>
    %c128_i32 = arith.constant 128 : i32
    %offs = tt.get_program_id x : i32
    %offs_3 = arith.muli %offs, %c128_i32 : i32
    %offs_4 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %offs_5 = tt.splat %offs_3 : i32 -> tensor<128xi32>
    %offs_6 = arith.addi %offs_5, %offs_4 : tensor<128xi32>
    %mask = tt.splat %n : i32 -> tensor<128xi32>
    %mask_7 = arith.cmpi slt, %offs_6, %mask : tensor<128xi32>
    %slot_8 = arith.remsi %offs_6, %slot : tensor<128xi32>
    %0 = tt.splat %p_f32 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %1 = tt.addptr %0, %slot_8 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %2 = arith.sitofp %offs_6 : tensor<128xi32> to tensor<128xf32>
    %3 = arith.subf %2, %cst_2 : tensor<128xf32>
    %4 = tt.bitcast %3 : tensor<128xf32> -> tensor<128xi32>
    %5 = tt.bitcast %1 : tensor<128x!tt.ptr<f32>> -> tensor<128x!tt.ptr<i32>>
    %6 = arith.shrui %4, %cst_1 : tensor<128xi32>
    %7 = arith.cmpi ne, %6, %cst_0 : tensor<128xi32>
    %8 = arith.xori %7, %cst : tensor<128xi1>
    %9 = arith.andi %mask_7, %8 : tensor<128xi1>
    %10 = tt.atomic_rmw max, acq_rel, gpu, %5, %4, %9 : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>, tensor<128xi1>) -> tensor<128xi32>
    %11 = arith.andi %mask_7, %7 : tensor<128xi1>
    %12 = tt.atomic_rmw umin, acq_rel, gpu, %5, %4, %11 : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>, tensor<128xi1>) -> tensor<128xi32>
    tt.return
  }
}"#;
    // The same with `tl.atomic_min`.
    let min = r#"module {
  tt.func public @atomic_one_kernel(%p_i32: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %p_f32: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %p_i64: !tt.ptr<i64> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %p_bf16: !tt.ptr<bf16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %p_f64: !tt.ptr<f64> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %out_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %n: i32) attributes {noinline = false} {
    %cst = arith.constant dense<true> : tensor<128xi1>
    %cst_0 = arith.constant dense<0> : tensor<128xi32>
    %cst_1 = arith.constant dense<31> : tensor<128xi32>
    %cst_2 = arith.constant dense<1.000000e+02> : tensor<128xf32>
    %slot = arith.constant dense<4> : tensor<128xi32>
    %c128_i32 = arith.constant 128 : i32
    %offs = tt.get_program_id x : i32
    %offs_3 = arith.muli %offs, %c128_i32 : i32
    %offs_4 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %offs_5 = tt.splat %offs_3 : i32 -> tensor<128xi32>
    %offs_6 = arith.addi %offs_5, %offs_4 : tensor<128xi32>
    %mask = tt.splat %n : i32 -> tensor<128xi32>
    %mask_7 = arith.cmpi slt, %offs_6, %mask : tensor<128xi32>
    %slot_8 = arith.remsi %offs_6, %slot : tensor<128xi32>
    %0 = tt.splat %p_f32 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %1 = tt.addptr %0, %slot_8 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %2 = arith.sitofp %offs_6 : tensor<128xi32> to tensor<128xf32>
    %3 = arith.subf %2, %cst_2 : tensor<128xf32>
    %4 = tt.bitcast %3 : tensor<128xf32> -> tensor<128xi32>
    %5 = tt.bitcast %1 : tensor<128x!tt.ptr<f32>> -> tensor<128x!tt.ptr<i32>>
    %6 = arith.shrui %4, %cst_1 : tensor<128xi32>
    %7 = arith.cmpi ne, %6, %cst_0 : tensor<128xi32>
    %8 = arith.xori %7, %cst : tensor<128xi1>
    %9 = arith.andi %mask_7, %8 : tensor<128xi1>
    %10 = tt.atomic_rmw min, acq_rel, gpu, %5, %4, %9 : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>, tensor<128xi1>) -> tensor<128xi32>
    %11 = arith.andi %mask_7, %7 : tensor<128xi1>
    %12 = tt.atomic_rmw umax, acq_rel, gpu, %5, %4, %11 : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>, tensor<128xi1>) -> tensor<128xi32>
    tt.return
  }
}"#;
    let n = 200u32;
    let values = || (0..n).map(|o| o as f32 - 100.0);
    for arch in ARCHS {
        let extremes = [
            (max, f32::NEG_INFINITY, f32::max as Pick),
            (min, f32::INFINITY, f32::min),
        ];
        for (text, start, pick) in extremes {
            let k = compiled(text, arch);
            let mut buffers = vec![
                vec![0; 4],
                words(&[start.to_bits(); 4]),
                vec![0; 8],
                vec![0; 2],
                vec![0; 8],
                vec![0; 4],
            ];
            run(&k, &mut buffers, &[u64::from(n)], 2);
            for slot in 0..4 {
                let want = values()
                    .enumerate()
                    .filter(|(o, _)| o % 4 == slot)
                    .fold(start, |a, (_, v)| pick(a, v));
                assert_eq!(
                    f32::from_bits(word(&buffers[1], slot)),
                    want,
                    "{arch}: slot {slot}"
                );
            }
        }
    }
}

/// Booleans in memory (`torch.bool`): Triton's TTIR reads and writes them through pointers
/// reinterpreted as `!tt.ptr<i8>`, a byte each.
#[test]
fn boolean_tensors_load_and_store_a_byte_each() {
    // `make_ttir` of: `keep = tl.load(m_ptr + offs, mask=mask, other=False)`,
    // `tl.store(y_ptr + offs, tl.where(keep, x, 0.), mask=mask)`, `tl.store(flag_ptr + offs, x > 0, mask=mask)`.
    let text = r#"module {
  tt.func public @bool_mask_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %m_ptr: !tt.ptr<i1> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %flag_ptr: !tt.ptr<i1> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %n: i32) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<256xf32>
    %cst_0 = arith.constant dense<0> : tensor<256xi8>
    %c256_i32 = arith.constant 256 : i32
    %offs = tt.get_program_id x : i32
    %offs_1 = arith.muli %offs, %c256_i32 : i32
    %offs_2 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %offs_3 = tt.splat %offs_1 : i32 -> tensor<256xi32>
    %offs_4 = arith.addi %offs_3, %offs_2 : tensor<256xi32>
    %mask = tt.splat %n : i32 -> tensor<256xi32>
    %mask_5 = arith.cmpi slt, %offs_4, %mask : tensor<256xi32>
    %keep = tt.splat %m_ptr : !tt.ptr<i1> -> tensor<256x!tt.ptr<i1>>
    %keep_6 = tt.addptr %keep, %offs_4 : tensor<256x!tt.ptr<i1>>, tensor<256xi32>
    %keep_7 = tt.bitcast %keep_6 : tensor<256x!tt.ptr<i1>> -> tensor<256x!tt.ptr<i8>>
    %keep_8 = tt.load %keep_7, %mask_5, %cst_0 : tensor<256x!tt.ptr<i8>>
    %keep_9 = arith.cmpi ne, %keep_8, %cst_0 : tensor<256xi8>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %x_10 = tt.addptr %x, %offs_4 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x_11 = tt.load %x_10, %mask_5, %cst : tensor<256x!tt.ptr<f32>>
    %0 = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %1 = tt.addptr %0, %offs_4 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %2 = arith.select %keep_9, %x_11, %cst : tensor<256xi1>, tensor<256xf32>
    tt.store %1, %2, %mask_5 : tensor<256x!tt.ptr<f32>>
    %3 = tt.splat %flag_ptr : !tt.ptr<i1> -> tensor<256x!tt.ptr<i1>>
    %4 = tt.addptr %3, %offs_4 : tensor<256x!tt.ptr<i1>>, tensor<256xi32>
    %5 = arith.cmpf ogt, %x_11, %cst : tensor<256xf32>
    %6 = tt.bitcast %4 : tensor<256x!tt.ptr<i1>> -> tensor<256x!tt.ptr<i8>>
    %7 = arith.extui %5 : tensor<256xi1> to tensor<256xi8>
    tt.store %6, %7, %mask_5 : tensor<256x!tt.ptr<i8>>
    tt.return
  }
}"#;
    let n = 300usize;
    let keep: Vec<u8> = (0..512).map(|i| u8::from(i % 3 == 0)).collect();
    let x: Vec<f32> = (0..512).map(|i| (i as f32 - 150.0) * 0.5).collect();
    for arch in ARCHS {
        let k = compiled(text, arch);
        let xs: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
        let mut buffers = vec![words(&xs), keep.clone(), vec![0; 512 * 4], vec![7; 512]];
        run(&k, &mut buffers, &[n as u64], 2);
        for i in 0..512 {
            let (y, flag) = (f32::from_bits(word(&buffers[2], i)), buffers[3][i]);
            if i < n {
                assert_eq!(y, if keep[i] == 1 { x[i] } else { 0.0 }, "{arch}: y[{i}]");
                assert_eq!(flag, u8::from(x[i] > 0.0), "{arch}: flag[{i}]");
            } else {
                assert_eq!((y, flag), (0.0, 7), "{arch}: {i} is past n");
            }
        }
    }
}

/// `tl.debug_barrier()` between a store and loads of what other threads stored, through a
/// reversed index (`BLOCK - 1 - offs`: a negative coefficient, computed in registers).
#[test]
fn a_debug_barrier_orders_global_memory_and_reversed_indices_load() {
    // `make_ttir` of: `tl.store(y_ptr + offs, tl.load(x_ptr + offs))`, `tl.debug_barrier()`,
    // `tl.store(x_ptr + offs, tl.load(y_ptr + BLOCK - 1 - offs))` (BLOCK 128).
    let text = r#"module {
  tt.func public @barrier_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}) attributes {noinline = false} {
    %c127_i32 = arith.constant 127 : i32
    %cst = arith.constant dense<0> : tensor<128xi32>
    %offs = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %x_0 = tt.addptr %x, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %x_1 = tt.load %x_0 : tensor<128x!tt.ptr<f32>>
    %0 = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %1 = tt.addptr %0, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    tt.store %1, %x_1 : tensor<128x!tt.ptr<f32>>
    gpu.barrier
    %2 = tt.addptr %y_ptr, %c127_i32 : !tt.ptr<f32>, i32
    %3 = tt.splat %2 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %4 = arith.subi %cst, %offs : tensor<128xi32>
    %5 = tt.addptr %3, %4 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %6 = tt.load %5 : tensor<128x!tt.ptr<f32>>
    tt.store %x_0, %6 : tensor<128x!tt.ptr<f32>>
    tt.return
  }
}"#;
    let x: Vec<u32> = (0..128).map(|i| i * 7 + 3).collect();
    for arch in ARCHS {
        let k = compiled(text, arch);
        assert!(
            k.llvm_ir()
                .unwrap()
                .contains("fence syncscope(\"workgroup\") release\n"),
            "{arch}: no fence for global memory"
        );
        let mut buffers = vec![words(&x), vec![0; 128 * 4]];
        run(&k, &mut buffers, &[], 1);
        for i in 0..128 {
            assert_eq!(word(&buffers[1], i), x[i], "{arch}: y[{i}]");
            assert_eq!(word(&buffers[0], i), x[127 - i], "{arch}: x[{i}]");
        }
    }
}

/// A scalar accumulated in a loop and stored as a scalar (`acc += tl.load(x_ptr + i)`,
/// `tl.store(y_ptr, acc)`): the loop's result is one register every thread holds.
#[test]
fn a_scalar_accumulated_in_a_loop_is_stored() {
    // `make_ttir` of: `acc = 0.0; for i in range(n): acc += tl.load(x_ptr + i)`, `tl.store(y_ptr, acc)`.
    let text = r#"module {
  tt.func public @scalar_only_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %n: i32) attributes {noinline = false} {
    %acc = arith.constant 0.000000e+00 : f32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %acc_0 = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%acc_1 = %acc) -> (f32)  : i32 {
      %acc_2 = tt.addptr %x_ptr, %i : !tt.ptr<f32>, i32
      %acc_3 = tt.load %acc_2 : !tt.ptr<f32>
      %acc_4 = arith.addf %acc_1, %acc_3 : f32
      scf.yield %acc_4 : f32
    }
    tt.store %y_ptr, %acc_0 : !tt.ptr<f32>
    tt.return
  }
}"#;
    let x: Vec<f32> = (0..40).map(|i| i as f32 * 0.5 - 3.0).collect();
    for arch in ARCHS {
        let k = compiled(text, arch);
        let xs: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
        let mut buffers = vec![words(&xs), vec![0; 4]];
        run(&k, &mut buffers, &[37], 1);
        let want: f32 = x[..37].iter().sum();
        assert_eq!(f32::from_bits(word(&buffers[1], 0)), want, "{arch}");
    }
}

/// Scatters through offsets loaded from memory: a store and a float atomic add at `y + d[i]`,
/// the offsets loaded in the load's layout and stored through in another (a conversion of the
/// address's data part), on one, two and four warps.
#[test]
fn scatters_through_loaded_offsets() {
    // `d = tl.load(dst_ptr + r)`; `tl.store(y_ptr + d, tl.load(x_ptr + r))` (256 elements).
    let store = r#"module {
  tt.func public @k(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %dst_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}) {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %x5 = tt.addptr %x, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x6 = tt.load %x5 : tensor<256x!tt.ptr<f32>>
    %d = tt.splat %dst_ptr : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>>
    %d8 = tt.addptr %d, %r : tensor<256x!tt.ptr<i32>>, tensor<256xi32>
    %d9 = tt.load %d8 : tensor<256x!tt.ptr<i32>>
    %2 = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %3 = tt.addptr %2, %d9 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    tt.store %3, %x6 : tensor<256x!tt.ptr<f32>>
    tt.return
  }
}"#;
    // The same with `tl.atomic_add(y_ptr + d, x)`.
    let atomic = r#"module {
  tt.func public @k(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %dst_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}) {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %x5 = tt.addptr %x, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x6 = tt.load %x5 : tensor<256x!tt.ptr<f32>>
    %d = tt.splat %dst_ptr : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>>
    %d8 = tt.addptr %d, %r : tensor<256x!tt.ptr<i32>>, tensor<256xi32>
    %d9 = tt.load %d8 : tensor<256x!tt.ptr<i32>>
    %2 = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %3 = tt.addptr %2, %d9 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %o = tt.atomic_rmw fadd, relaxed, gpu, %3, %x6 : (tensor<256x!tt.ptr<f32>>, tensor<256xf32>) -> tensor<256xf32>
    tt.return
  }
}"#;
    let x: Vec<f32> = (0..256).map(|i| i as f32 * 0.5 + 1.0).collect();
    // A permutation for the store; repeated slots (i % 37) for the atomic.
    let permutation: Vec<u32> = (0..256).map(|i| (i * 101 + 7) % 256).collect();
    let repeated: Vec<u32> = (0..256).map(|i| i % 37).collect();
    for arch in ARCHS {
        for warps in [1, 2, 4] {
            let target = Target::by_name(arch).unwrap();
            for (text, d) in [(store, &permutation), (atomic, &repeated)] {
                let k = compile(text, target, &CompileOptions::new(warps))
                    .unwrap_or_else(|e| panic!("{arch}/{warps}: {e}"))
                    .kernel;
                let xs: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
                let mut buffers = vec![words(&xs), words(d), vec![0; 1024]];
                run(&k, &mut buffers, &[], 1);
                let mut want = [0f32; 256];
                for i in 0..256 {
                    if text == store {
                        want[d[i] as usize] = x[i];
                    } else {
                        want[d[i] as usize] += x[i];
                    }
                }
                for (j, w) in want.iter().enumerate() {
                    assert_eq!(
                        f32::from_bits(word(&buffers[2], j)),
                        *w,
                        "{arch}/{warps} warps: y[{j}]"
                    );
                }
            }
        }
    }
}

/// A histogram by atomics at data-dependent slots (`tl.atomic_add(hist_ptr + (x % NB), 1,
/// mask=m)`, 1024 elements a program, 32 bins), over two programs and a masked tail.
#[test]
fn a_histogram_by_atomic_adds() {
    // `make_ttir` of the kernel above (BLOCK 1024, NB 32).
    let text = r#"module {
  tt.func public @atomic_hist_data_kernel(%x_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %hist_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %n: i32) attributes {noinline = false} {
    %cst = arith.constant dense<1> : tensor<1024xi32>
    %cst_0 = arith.constant dense<32> : tensor<1024xi32>
    %x = arith.constant dense<0> : tensor<1024xi32>
    %c1024_i32 = arith.constant 1024 : i32
    %offs = tt.get_program_id x : i32
    %offs_1 = arith.muli %offs, %c1024_i32 : i32
    %offs_2 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %offs_3 = tt.splat %offs_1 : i32 -> tensor<1024xi32>
    %offs_4 = arith.addi %offs_3, %offs_2 : tensor<1024xi32>
    %m = tt.splat %n : i32 -> tensor<1024xi32>
    %m_5 = arith.cmpi slt, %offs_4, %m : tensor<1024xi32>
    %x_6 = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<1024x!tt.ptr<i32>>
    %x_7 = tt.addptr %x_6, %offs_4 : tensor<1024x!tt.ptr<i32>>, tensor<1024xi32>
    %x_8 = tt.load %x_7, %m_5, %x : tensor<1024x!tt.ptr<i32>>
    %0 = arith.remsi %x_8, %cst_0 : tensor<1024xi32>
    %1 = tt.splat %hist_ptr : !tt.ptr<i32> -> tensor<1024x!tt.ptr<i32>>
    %2 = tt.addptr %1, %0 : tensor<1024x!tt.ptr<i32>>, tensor<1024xi32>
    %3 = tt.atomic_rmw add, acq_rel, gpu, %2, %cst, %m_5 : (tensor<1024x!tt.ptr<i32>>, tensor<1024xi32>, tensor<1024xi1>) -> tensor<1024xi32>
    tt.return
  }
}"#;
    let n = 1900usize;
    let x: Vec<u32> = (0..2048).map(|i| (i * 7919 + 13) % 1000).collect();
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![words(&x), vec![0; 32 * 4]];
        run(&k, &mut buffers, &[n as u64], 2);
        let mut want = [0u32; 32];
        for &v in &x[..n] {
            want[(v % 32) as usize] += 1;
        }
        for (b, w) in want.iter().enumerate() {
            assert_eq!(word(&buffers[1], b), *w, "{arch}: bin {b}");
        }
    }
}

/// The largest non-negative value of a monotone bit encoding at or below `x ≥ 0` (`decode`
/// of `0..=top`, increasing): rounding toward zero by its definition.
fn largest_at_most(x: f64, top: u32, decode: impl Fn(u32) -> f64) -> u32 {
    let (mut lo, mut hi) = (0u32, top);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if decode(mid) <= x { lo = mid } else { hi = mid - 1 }
    }
    lo
}

/// An f16 bit pattern's value.
fn f16_value(b: u32) -> f64 {
    let (e, m) = ((b >> 10) & 31, f64::from(b & 0x3ff));
    let magnitude = if e == 0 {
        m * 2f64.powi(-24)
    } else {
        (1.0 + m / 1024.0) * 2f64.powi(e as i32 - 15)
    };
    if b & 0x8000 != 0 { -magnitude } else { magnitude }
}

/// `x.to(tl.float16 / tl.bfloat16, fp_downcast_rounding="rtz")` of f32 and `.to(tl.float32,
/// fp_downcast_rounding="rtz")` of f64: every result is the representable value nearest zero
/// at or inside `x` — past the narrow range the largest finite one, NaN stays NaN.
#[test]
fn downcasts_rounding_toward_zero() {
    // `make_ttir` of the two kernels (BLOCK 256, masked by `n`).
    let to_half = include_str!("fixtures/compile/zoo/rtz_downcast_256.gfx942.ttir");
    let to_f32 = include_str!("fixtures/compile/zoo/rtz_to_f32_256.gfx942.ttir");
    let mut x: Vec<f64> = (0..512)
        .map(|i| ((i as f64) - 256.0) * 0.7311 + 1e-3 * (i as f64).sin())
        .collect();
    let specials = [
        1.001_464_843_75,
        -1.001_464_843_75,
        65_519.0,
        70_000.0,
        -1e9,
        6.0e-8,
        3.0e-8,
        -2.9e-5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        0.0,
        -0.0,
        1.0 + 2f64.powi(-30),
        3.4e38,
        1e-40,
    ];
    x[..specials.len()].copy_from_slice(&specials);
    let n = 500;
    for arch in ARCHS {
        // f32 → f16 and bf16.
        let k = compiled(to_half, arch);
        let xs: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let mut buffers = vec![
            xs.iter().flat_map(|v| v.to_le_bytes()).collect(),
            vec![0; 1024],
            vec![0; 1024],
        ];
        run(&k, &mut buffers, &[n], 2);
        let half = |b: &[u8], i: usize| u32::from(u16::from_le_bytes([b[2 * i], b[2 * i + 1]]));
        for (i, &v) in xs.iter().enumerate().take(n as usize) {
            let sign = if v.is_sign_negative() { 0x8000 } else { 0 };
            let (h, b) = (half(&buffers[1], i), half(&buffers[2], i));
            if v.is_nan() {
                assert!(
                    f16_value(h).is_nan() || (h & 0x7c00 == 0x7c00 && h & 0x3ff != 0),
                    "{arch}: NaN → {h:#x}"
                );
                assert!(b & 0x7f80 == 0x7f80 && b & 0x7f != 0, "{arch}: NaN → bf16 {b:#x}");
                continue;
            }
            let a = f64::from(v.abs());
            let want_h = if v.is_infinite() {
                0x7c00
            } else {
                largest_at_most(a, 0x7bff, f16_value)
            } | sign;
            let bf = |bits: u32| f64::from(f32::from_bits(bits << 16));
            let want_b = if v.is_infinite() {
                0x7f80
            } else {
                largest_at_most(a, 0x7f7f, bf)
            } | sign;
            assert_eq!(h, want_h, "{arch}: f16 of {v} at {i}");
            assert_eq!(b, want_b, "{arch}: bf16 of {v} at {i}");
        }
        // f64 → f32.
        let k = compiled(to_f32, arch);
        let mut buffers = vec![x.iter().flat_map(|v| v.to_le_bytes()).collect(), vec![0; 2048]];
        run(&k, &mut buffers, &[n], 2);
        for (i, &v) in x.iter().enumerate().take(n as usize) {
            let got = word(&buffers[1], i);
            if v.is_nan() {
                assert!(f32::from_bits(got).is_nan(), "{arch}: NaN → {got:#x}");
                continue;
            }
            let sign = if v.is_sign_negative() { 0x8000_0000 } else { 0 };
            let want = if v.is_infinite() {
                0x7f80_0000
            } else {
                largest_at_most(v.abs(), 0x7f7f_ffff, |b| f64::from(f32::from_bits(b)))
            } | sign;
            assert_eq!(got, want, "{arch}: f32 of {v} at {i}");
        }
    }
}

/// `tl.where` between pointers: a scalar condition choosing the buffer a block loads
/// (`where_ptr`), a condition per row (`where_ptr_2d`), one inside two loops
/// (`nested_loops`), and per element the buffer a store and an atomic write (`split_sign`).
#[test]
fn pointers_chosen_at_run_time() {
    let a: Vec<f32> = (0..4096).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..4096).map(|i| -(i as f32) - 0.5).collect();
    let where_ptr = include_str!("fixtures/compile/zoo/where_ptr_128_f32.gfx942.ttir");
    let where_ptr_2d = include_str!("fixtures/compile/zoo/where_ptr_2d_16x64_f32.gfx942.ttir");
    let nested = include_str!("fixtures/compile/zoo/nested_loops_128_f32.gfx942.ttir");
    // `make_ttir` of `x = tl.load(x_ptr + offs, mask=m, other=0.0); tl.store(tl.where(x >= 0,
    // pos_ptr + offs, neg_ptr + offs), x * 2.0, mask=m); tl.atomic_add(tl.where(x >= 0, pos_ptr,
    // neg_ptr) + 1000, 1.0, mask=m)` (BLOCK 128).
    let split_sign = r#"module {
  tt.func public @split_sign_kernel(%x_ptr: !tt.ptr<f32>, %pos_ptr: !tt.ptr<f32>, %neg_ptr: !tt.ptr<f32>, %n: i32) attributes {noinline = false} {
    %cst = arith.constant dense<1.000000e+00> : tensor<128xf32>
    %cst_0 = arith.constant dense<1000> : tensor<128xi32>
    %cst_1 = arith.constant dense<2.000000e+00> : tensor<128xf32>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %c128_i32 = arith.constant 128 : i32
    %offs = tt.get_program_id x : i32
    %offs_3 = arith.muli %offs, %c128_i32 : i32
    %offs_4 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %offs_5 = tt.splat %offs_3 : i32 -> tensor<128xi32>
    %offs_6 = arith.addi %offs_5, %offs_4 : tensor<128xi32>
    %m = tt.splat %n : i32 -> tensor<128xi32>
    %m_7 = arith.cmpi slt, %offs_6, %m : tensor<128xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %x_8 = tt.addptr %x, %offs_6 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %x_9 = tt.load %x_8, %m_7, %cst_2 : tensor<128x!tt.ptr<f32>>
    %dst = arith.cmpf oge, %x_9, %cst_2 : tensor<128xf32>
    %dst_10 = tt.splat %pos_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %dst_11 = tt.addptr %dst_10, %offs_6 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %dst_12 = tt.splat %neg_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %dst_13 = tt.addptr %dst_12, %offs_6 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %dst_14 = arith.select %dst, %dst_11, %dst_13 : tensor<128xi1>, tensor<128x!tt.ptr<f32>>
    %0 = arith.mulf %x_9, %cst_1 : tensor<128xf32>
    tt.store %dst_14, %0, %m_7 : tensor<128x!tt.ptr<f32>>
    %1 = arith.select %dst, %dst_10, %dst_12 : tensor<128xi1>, tensor<128x!tt.ptr<f32>>
    %2 = tt.addptr %1, %cst_0 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %3 = tt.atomic_rmw fadd, acq_rel, gpu, %2, %cst, %m_7 : (tensor<128x!tt.ptr<f32>>, tensor<128xf32>, tensor<128xi1>) -> tensor<128xf32>
    tt.return
  }
}"#;
    for arch in ARCHS {
        // A block of `a` or of `b`, as `sel > 0`.
        let k = compiled(where_ptr, arch);
        for (sel, from) in [(3u64, &a), (0, &b)] {
            let mut buffers = vec![floats(&a), floats(&b), vec![0; 512]];
            run(&k, &mut buffers, &[sel], 1);
            assert!(
                (0..128).all(|i| float(&buffers[2], i) == from[i]),
                "{arch}: sel {sel}"
            );
        }
        // Row `r` of `a` where `sel[r] ≠ 0`, else of `b`.
        let k = compiled(where_ptr_2d, arch);
        let sel: Vec<u32> = (0..16).map(|r| u32::from(r % 3 == 1)).collect();
        let mut buffers = vec![floats(&a), floats(&b), vec![0; 4096], words(&sel)];
        run(&k, &mut buffers, &[], 1);
        for i in 0..1024 {
            let want = if sel[i / 64] != 0 { a[i] } else { b[i] };
            assert_eq!(float(&buffers[2], i), want, "{arch}: element {i}");
        }
        // for i in range(pid, n_outer, step): for j in range(n_inner): a block of `b` where
        // `(i + j) % 2 == 0 and use_b`, else of `a`; summed where `j % 3 == 0`, else maxed.
        let k = compiled(nested, arch);
        let (n_outer, n_inner, step) = (10usize, 3usize, 4usize);
        for use_b in [3u64, 0] {
            let mut buffers = vec![floats(&a), floats(&b), vec![0; 4 * 512]];
            run(
                &k,
                &mut buffers,
                &[n_outer as u64, n_inner as u64, step as u64, use_b],
                4,
            );
            for pid in 0..4 {
                for o in 0..128 {
                    let mut acc = 0f32;
                    for i in (pid..n_outer).step_by(step) {
                        for j in 0..n_inner {
                            let src = if (i + j) % 2 == 0 && use_b != 0 { &b } else { &a };
                            let v = src[(i * n_inner + j) * 128 + o];
                            acc = if j % 3 == 0 { acc + v } else { acc.max(v) };
                        }
                    }
                    assert_eq!(
                        float(&buffers[2], pid * 128 + o),
                        acc,
                        "{arch}: use_b {use_b} pid {pid} {o}"
                    );
                }
            }
        }
        // Per element: `2x` into `pos` or `neg`, and one count per element into each's word 1000.
        let k = compiled(split_sign, arch);
        let x: Vec<f32> = (0..384).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
        let n = 300;
        let mut buffers = vec![floats(&x), vec![0; 4 * 2048], vec![0; 4 * 2048]];
        run(&k, &mut buffers, &[n as u64], 3);
        for (i, &v) in x.iter().enumerate().take(n) {
            let (into, other) = if v >= 0.0 { (1, 2) } else { (2, 1) };
            assert_eq!(float(&buffers[into], i), 2.0 * v, "{arch}: element {i}");
            assert_eq!(
                float(&buffers[other], i),
                0.0,
                "{arch}: element {i} in the other buffer"
            );
        }
        let positive = x[..n].iter().filter(|&&v| v >= 0.0).count() as f32;
        assert_eq!(float(&buffers[1], 1000), positive, "{arch}");
        assert_eq!(float(&buffers[2], 1000), n as f32 - positive, "{arch}");
    }
}

/// A loop bounded by a length loaded from memory (`n = tl.load(lens + pid); for start in
/// range(0, n, BLOCK)`, as varlen and paged kernels loop over a sequence), and Triton's
/// grouped GEMM, which loads each group's sizes, strides and matrix pointers from tables
/// (`tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))`).
#[test]
fn loop_bounds_and_pointers_loaded_from_memory() {
    // `make_ttir` of the loop: `acc += tl.load(x_ptr + pid * 1024 + offs, mask=offs < n,
    // other=0.0)` over `range(0, n, 128)`, the row's sum stored (BLOCK 128).
    let varlen = r#"
module {
  tt.func public @varlen_sum_kernel(%x_ptr: !tt.ptr<f32>, %lens_ptr: !tt.ptr<i32>, %out_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %c128_i32 = arith.constant 128 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %c1024_i32 = arith.constant 1024 : i32
    %pid = tt.get_program_id x : i32
    %n = tt.addptr %lens_ptr, %pid : !tt.ptr<i32>, i32
    %n_0 = tt.load %n : !tt.ptr<i32>
    %offs = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %acc = tt.splat %n_0 : i32 -> tensor<128xi32>
    %acc_1 = arith.muli %pid, %c1024_i32 : i32
    %acc_2 = tt.addptr %x_ptr, %acc_1 : !tt.ptr<f32>, i32
    %acc_3 = tt.splat %acc_2 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %acc_4 = scf.for %start = %c0_i32 to %n_0 step %c128_i32 iter_args(%acc_5 = %cst) -> (tensor<128xf32>)  : i32 {
      %offs_6 = tt.splat %start : i32 -> tensor<128xi32>
      %offs_7 = arith.addi %offs_6, %offs : tensor<128xi32>
      %acc_8 = arith.cmpi slt, %offs_7, %acc : tensor<128xi32>
      %acc_9 = tt.addptr %acc_3, %offs_7 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
      %acc_10 = tt.load %acc_9, %acc_8, %cst : tensor<128x!tt.ptr<f32>>
      %acc_11 = arith.addf %acc_5, %acc_10 : tensor<128xf32>
      scf.yield %acc_11 : tensor<128xf32>
    }
    %0 = tt.addptr %out_ptr, %pid : !tt.ptr<f32>, i32
    %1 = "tt.reduce"(%acc_4) <{axis = 0 : i32}> ({
    ^bb0(%arg3: f32, %arg4: f32):
      %2 = arith.addf %arg3, %arg4 : f32
      tt.reduce.return %2 : f32
    }) : (tensor<128xf32>) -> f32
    tt.store %0, %1 : !tt.ptr<f32>
    tt.return
  }
}
"#;
    let grouped = include_str!("fixtures/compile/zoo/grouped_gemm_32x32x32_f16.gfx942.ttir");
    for arch in ARCHS {
        let k = compiled(varlen, arch);
        let x: Vec<f32> = (0..4096).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        let lens = [0u32, 5, 300, 1000];
        let mut buffers = vec![floats(&x), words(&lens), vec![0; 16]];
        run(&k, &mut buffers, &[], 4);
        for (row, &n) in lens.iter().enumerate() {
            let want: f32 = x[row * 1024..row * 1024 + n as usize].iter().sum();
            assert_eq!(float(&buffers[2], row), want, "{arch}: row {row}");
        }
        // Two groups of f16 matrices (A: m×k, B: k×n, C: m×n, row-major), each after the
        // pointer table in the buffer that holds it: the tables point there.
        let k = compiled(grouped, arch);
        let groups = [(64usize, 32usize, 64usize), (32, 64, 32)];
        let at = |i: usize| 256 + i * 16384;
        let (mut a_buf, mut b_buf, mut c_buf) = (vec![0u8; 40000], vec![0u8; 40000], vec![0u8; 40000]);
        let (mut sizes, mut strides) = (Vec::new(), Vec::new());
        let value = |i: usize, salt: usize| ((i * 31 + salt * 17) % 5) as i32 - 2;
        for (g, &(m, n, kk)) in groups.iter().enumerate() {
            for (buf, arg) in [(&mut a_buf, 0), (&mut b_buf, 1), (&mut c_buf, 2)] {
                let address = linear_layout::lower::interpreted_address(arg) + at(g) as u64;
                buf[8 * g..8 * g + 8].copy_from_slice(&address.to_le_bytes());
            }
            for i in 0..m * kk {
                a_buf[at(g) + 2 * i..at(g) + 2 * i + 2].copy_from_slice(&f16_of(value(i, g)).to_le_bytes());
            }
            for i in 0..kk * n {
                b_buf[at(g) + 2 * i..at(g) + 2 * i + 2]
                    .copy_from_slice(&f16_of(value(i, g + 7)).to_le_bytes());
            }
            sizes.extend([m as u32, n as u32, kk as u32]);
            strides.extend([kk as u32, n as u32, n as u32]);
        }
        let mut buffers = vec![a_buf, b_buf, c_buf, words(&sizes), words(&strides)];
        let tiles: usize = groups
            .iter()
            .map(|&(m, n, _)| m.div_ceil(32) * n.div_ceil(32))
            .sum();
        run(&k, &mut buffers, &[groups.len() as u64], tiles as u32);
        for (g, &(m, n, kk)) in groups.iter().enumerate() {
            for r in 0..m {
                for c in 0..n {
                    let want: i32 = (0..kk)
                        .map(|i| value(r * kk + i, g) * value(i * n + c, g + 7))
                        .sum();
                    let got = u16::from_le_bytes([
                        buffers[2][at(g) + 2 * (r * n + c)],
                        buffers[2][at(g) + 2 * (r * n + c) + 1],
                    ]);
                    assert_eq!(got, f16_of(want), "{arch}: group {g} C[{r}][{c}]");
                }
            }
        }
    }
}

/// The bf16 bits of a small integer (exact in bf16).
fn bf16_of(v: i32) -> u16 {
    ((v as f32).to_bits() >> 16) as u16
}

/// `tl.dot` of 3-D blocks (`[B, M, K] · [B, K, N]`): the batch on warps (2 batches on 4 warps,
/// f16) and on warps and registers (4 batches on 8 warps, bf16); every batch's product
/// stored as f16. Small integers keep every sum exact.
#[test]
fn batched_dots_of_three_dimensional_blocks() {
    let value = |i: usize, salt: usize| ((i * 13 + salt * 7) % 5) as i32 - 2;
    for (file, (batches, m, n, k), warps, bf16) in [
        (
            "bmm3d_dot_2x32x32x32_f16",
            (2usize, 32usize, 32usize, 32usize),
            4,
            false,
        ),
        ("bmm3d_dot_4x16x64x32_bf16_w8", (4, 16, 64, 32), 8, true),
    ] {
        for arch in ["gfx942", "gfx950", "gfx1100"] {
            let text =
                std::fs::read_to_string(format!("tests/fixtures/compile/zoo/{file}.{arch}.ttir")).unwrap();
            let target = Target::by_name(arch).unwrap();
            let kernel = compile(&text, target, &CompileOptions::new(warps))
                .unwrap_or_else(|e| panic!("{arch}: {e}"))
                .kernel;
            let encode = |v: i32| if bf16 { bf16_of(v) } else { f16_of(v) };
            let halves = |len: usize, salt: usize| -> Vec<u8> {
                (0..len)
                    .flat_map(|i| encode(value(i, salt)).to_le_bytes())
                    .collect()
            };
            let mut buffers = vec![
                halves(batches * m * k, 0),
                halves(batches * k * n, 1),
                vec![0; 2 * batches * m * n],
            ];
            run(&kernel, &mut buffers, &[], 1);
            for bb in 0..batches {
                for r in 0..m {
                    for c in 0..n {
                        let want: i32 = (0..k)
                            .map(|i| value(bb * m * k + r * k + i, 0) * value(bb * k * n + i * n + c, 1))
                            .sum();
                        let at = 2 * (bb * m * n + r * n + c);
                        let got = u16::from_le_bytes([buffers[2][at], buffers[2][at + 1]]);
                        assert_eq!(got, f16_of(want), "{file} {arch}: C[{bb}][{r}][{c}]");
                    }
                }
            }
        }
    }
}

/// A chain of pointer selects multiplies the accesses through it (one per pointer it may
/// hold): past 16 pointers the compiler refuses it in one line rather than doing unbounded
/// work.
#[test]
fn a_choice_among_too_many_pointers_is_refused() {
    let mut text = String::from(
        "module {\n  tt.func public @k(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %out: !tt.ptr<f32>, %s: i32) attributes {noinline = false} {\n    %c0 = arith.constant 0 : i32\n    %c = arith.cmpi sgt, %s, %c0 : i32\n    %p0 = arith.select %c, %a, %b : !tt.ptr<f32>\n",
    );
    for i in 1..20 {
        text.push_str(&format!(
            "    %p{i} = arith.select %c, %p{}, %a : !tt.ptr<f32>\n",
            i - 1
        ));
    }
    text.push_str(
        "    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>\n    %q = tt.splat %p19 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>\n    %w = tt.addptr %q, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>\n    %x = tt.load %w : tensor<64x!tt.ptr<f32>>\n    %o = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>\n    %v = tt.addptr %o, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>\n    tt.store %v, %x : tensor<64x!tt.ptr<f32>>\n    tt.return\n  }\n}\n",
    );
    for arch in ARCHS {
        let e = compile(&text, Target::by_name(arch).unwrap(), &CompileOptions::new(1))
            .err()
            .unwrap_or_else(|| panic!("{arch}: a choice among 21 pointers compiled"));
        assert!(
            e.to_string()
                .starts_with("line 20: arith.select: chooses among more than 16 pointers"),
            "{arch}: {e}"
        );
    }
}

/// `tl.dot` of f32 tiles at `tf32` precision (what gfx942 takes a plain f32 `tl.dot` at):
/// gfx942's XF32 instruction reads each operand rounded to 10 mantissa bits. A's entries are
/// small integers plus 2^-12, which TF32 rounds off, so C is the integer product exactly; K =
/// 40 is not a multiple of the 16-deep tile (the last step's masked columns add 0).
#[test]
fn an_f32_dot_at_tf32_precision() {
    let text = std::fs::read_to_string("tests/fixtures/compile/zoo/matmul_tf32_acc_32x32x16_f32.gfx942.ttir")
        .unwrap();
    let (m, n, k) = (32usize, 32usize, 40usize);
    let a_int = |i: usize| (i * 7 % 4) as i32 + 1;
    let b_int = |i: usize| (i * 5 % 5) as i32 - 2;
    let a: Vec<f32> = (0..m * k).map(|i| a_int(i) as f32 + 2f32.powi(-12)).collect();
    let b: Vec<f32> = (0..k * n).map(|i| b_int(i) as f32).collect();
    let kernel = compiled(&text, "gfx942");
    let ir = kernel.llvm_ir().unwrap();
    assert!(
        ir.contains("@llvm.amdgcn.mfma.f32.32x32x4.xf32("),
        "no XF32 instruction"
    );
    let mut buffers = vec![floats(&a), floats(&b), vec![0; 4 * m * n]];
    let scalars = [m, n, k, k, n, n].map(|x| x as u64);
    run(&kernel, &mut buffers, &scalars, 1);
    for i in 0..m {
        for j in 0..n {
            let want: i32 = (0..k).map(|t| a_int(i * k + t) * b_int(t * n + j)).sum();
            assert_eq!(float(&buffers[2], i * n + j), want as f32, "C[{i}][{j}]");
        }
    }
}

/// Law: an arg-reduction across eight warps or more combines the warps' partials in a second
/// round — each thread takes one (column, warp) pair and three butterfly steps combine the
/// warps — not seven combines in every thread. `tl.argmax` and `tl.min(…, return_indices=True)`
/// down the 64 rows of a 64 × 32 tile over 8 warps (the second zoo's column arg-min/max; ties
/// keep the first row), 50 columns over two programs.
#[test]
fn an_arg_reduction_over_eight_warps_combines_in_a_second_round() {
    use linear_layout::lower::Op;
    let text = include_str!("fixtures/compile/zoo/col_argminmax_64x32_w8_f32.gfx942.ttir");
    let n = 50usize;
    let x: Vec<f32> = (0..64 * n)
        .map(|i| ((i * 7919 + i / 13) % 29) as f32 - 14.0)
        .collect();
    for arch in ARCHS {
        let target = Target::by_name(arch).unwrap();
        let k = compile(text, target, &CompileOptions::new(8))
            .unwrap_or_else(|e| panic!("{arch}: {e}"))
            .kernel;
        let mut buffers = vec![
            x.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
            vec![0; 4 * n],
            vec![0; 4 * n],
        ];
        run(&k, &mut buffers, &[n as u64], 2);
        for c in 0..n {
            let column: Vec<f32> = (0..64).map(|r| x[r * n + c]).collect();
            let first = |better: &dyn Fn(f32, f32) -> bool| {
                (1..64).fold(
                    0,
                    |best, r| if better(column[r], column[best]) { r } else { best },
                )
            };
            let (amax, amin) = (first(&|a, b| a > b), first(&|a, b| a < b));
            assert_eq!(word(&buffers[1], c) as usize, amax, "{arch}: column {c} argmax");
            assert_eq!(word(&buffers[2], c) as usize, amin, "{arch}: column {c} argmin");
        }
        // Per reduction, the partials' barrier and the second round's.
        let barriers = k
            .program
            .ops
            .iter()
            .filter(|op| matches!(op, Op::Barrier))
            .count();
        assert_eq!(barriers, 4, "{arch}");
    }
}

/// A loop over a constant range accumulating `x[k] · k` over blocks of 256: `for k in
/// range(0, end, step)` with a pointer the loop advances (`make_ttir` of the kernel, `end`
/// and `step` constexpr).
fn weighted_block_sum(end: u32, step: u32) -> String {
    format!(
        r#"module {{
  tt.func public @weighted_sum_kernel(%x_ptr: !tt.ptr<f32> {{tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}}, %out_ptr: !tt.ptr<f32> {{tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}}) attributes {{noinline = false}} {{
    %cst = arith.constant dense<0.000000e+00> : tensor<256xf32>
    %c0_i32 = arith.constant 0 : i32
    %c_end = arith.constant {end} : i32
    %c_step = arith.constant {step} : i32
    %step = arith.constant dense<256> : tensor<256xi32>
    %offs = tt.make_range {{end = 256 : i32, start = 0 : i32}} : tensor<256xi32>
    %p = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %p_0 = tt.addptr %p, %offs : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %acc:2 = scf.for %k = %c0_i32 to %c_end step %c_step iter_args(%acc_1 = %cst, %p_2 = %p_0) -> (tensor<256xf32>, tensor<256x!tt.ptr<f32>>)  : i32 {{
      %v = tt.load %p_2 : tensor<256x!tt.ptr<f32>>
      %kf = arith.sitofp %k : i32 to f32
      %ks = tt.splat %kf : f32 -> tensor<256xf32>
      %t = arith.mulf %v, %ks : tensor<256xf32>
      %acc_3 = arith.addf %acc_1, %t : tensor<256xf32>
      %p_4 = tt.addptr %p_2, %step : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
      scf.yield %acc_3, %p_4 : tensor<256xf32>, tensor<256x!tt.ptr<f32>>
    }}
    %o = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %o_5 = tt.addptr %o, %offs : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    tt.store %o_5, %acc#0 : tensor<256x!tt.ptr<f32>>
    tt.return
  }}
}}"#
    )
}

/// A loop of a few constant trips is unrolled — the body once per trip, the counter a
/// constant in each, no loop left in the code — and one of many trips (or of a range whose
/// step is not positive) stays a loop; both compute `Σ_k x[k]·k` over the blocks.
#[test]
fn a_short_constant_loop_is_unrolled() {
    for arch in ARCHS {
        for (end, step, unrolled) in [(3u32, 1u32, true), (10, 4, true), (0, 1, true), (400, 1, false)] {
            let k = compiled(&weighted_block_sum(end, step), arch);
            let ir = k.llvm_ir().unwrap();
            let loops = ir.lines().filter(|l| l.starts_with("loop.")).count();
            assert_eq!(loops, usize::from(!unrolled), "{arch}, end {end}, step {step}");
            let blocks = end.div_ceil(step) as usize;
            let x: Vec<f32> = (0..256 * blocks.max(1)).map(|i| (i % 19) as f32 - 9.0).collect();
            let mut buffers = vec![floats(&x), floats(&[f32::NAN; 256])];
            run(&k, &mut buffers, &[], 1);
            for i in 0..256 {
                let want: f32 = (0..blocks)
                    .map(|b| x[b * 256 + i] * (b as u32 * step) as f32)
                    .sum();
                assert_eq!(
                    float(&buffers[1], i),
                    want,
                    "{arch}, end {end}, step {step}: out[{i}]"
                );
            }
        }
    }
}

/// A loop of two constant trips around a loop of runtime trips (`for p in range(2)` around
/// `for off in range(0, n, BLOCK)`, a two-pass variance): the outer loop is unrolled with its
/// inner loop copied into each trip, where `p == 0` is a constant; both passes compute the
/// mean and the variance of each row (rows of 0, 45 and 100 elements).
#[test]
fn an_unrolled_loop_copies_its_inner_loop() {
    // `make_ttir` of `two_pass_var_kernel` (BLOCK 32): `mean` accumulated in pass 0, the
    // squared deviations in pass 1, each pass branching on `p` inside and after its inner loop.
    let text = r#"module {
  tt.func public @two_pass_var_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %mean_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %var_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %n: i32, %stride: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %c32_i32 = arith.constant 32 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %cst = arith.constant dense<0.000000e+00> : tensor<32xf32>
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %row = tt.get_program_id x : i32
    %cols = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %m = tt.splat %n : i32 -> tensor<32xi32>
    %x = arith.muli %row, %stride : i32
    %x_1 = tt.addptr %x_ptr, %x : !tt.ptr<f32>, i32
    %x_2 = tt.splat %x_1 : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
    %var:2 = scf.for %p = %c0_i32 to %c2_i32 step %c1_i32 iter_args(%mean = %cst_0, %var_3 = %cst_0) -> (f32, f32)  : i32 {
      %2 = arith.cmpi eq, %p, %c0_i32 : i32
      %acc = scf.for %off = %c0_i32 to %n step %c32_i32 iter_args(%acc_4 = %cst) -> (tensor<32xf32>)  : i32 {
        %cols_5 = tt.splat %off : i32 -> tensor<32xi32>
        %cols_6 = arith.addi %cols_5, %cols : tensor<32xi32>
        %m_7 = arith.cmpi slt, %cols_6, %m : tensor<32xi32>
        %x_8 = tt.addptr %x_2, %cols_6 : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
        %x_9 = tt.load %x_8, %m_7, %cst : tensor<32x!tt.ptr<f32>>
        %5 = scf.if %2 -> (tensor<32xf32>) {
          %acc_10 = arith.addf %acc_4, %x_9 : tensor<32xf32>
          scf.yield %acc_10 : tensor<32xf32>
        } else {
          %d = tt.splat %mean : f32 -> tensor<32xf32>
          %d_10 = arith.subf %x_9, %d : tensor<32xf32>
          %d_11 = arith.select %m_7, %d_10, %cst : tensor<32xi1>, tensor<32xf32>
          %acc_12 = arith.mulf %d_11, %d_11 : tensor<32xf32>
          %acc_13 = arith.addf %acc_4, %acc_12 : tensor<32xf32>
          scf.yield %acc_13 : tensor<32xf32>
        }
        scf.yield %5 : tensor<32xf32>
      }
      %3 = arith.cmpi eq, %p, %c0_i32 : i32
      %4:2 = scf.if %3 -> (f32, f32) {
        %mean_4 = "tt.reduce"(%acc) <{axis = 0 : i32}> ({
        ^bb0(%mean_7: f32, %mean_8: f32):
          %mean_9 = arith.addf %mean_7, %mean_8 : f32
          tt.reduce.return %mean_9 : f32
        }) : (tensor<32xf32>) -> f32
        %mean_5 = arith.sitofp %n : i32 to f32
        %mean_6 = arith.divf %mean_4, %mean_5 : f32
        scf.yield %mean_6, %var_3 : f32, f32
      } else {
        %var_4 = "tt.reduce"(%acc) <{axis = 0 : i32}> ({
        ^bb0(%var_7: f32, %var_8: f32):
          %var_9 = arith.addf %var_7, %var_8 : f32
          tt.reduce.return %var_9 : f32
        }) : (tensor<32xf32>) -> f32
        %var_5 = arith.sitofp %n : i32 to f32
        %var_6 = arith.divf %var_4, %var_5 : f32
        scf.yield %mean, %var_6 : f32, f32
      }
      scf.yield %4#0, %4#1 : f32, f32
    }
    %0 = tt.addptr %mean_ptr, %row : !tt.ptr<f32>, i32
    tt.store %0, %var#0 : !tt.ptr<f32>
    %1 = tt.addptr %var_ptr, %row : !tt.ptr<f32>, i32
    tt.store %1, %var#1 : !tt.ptr<f32>
    tt.return
  }
}"#;
    for arch in ARCHS {
        let k = compiled(text, arch);
        let ir = k.llvm_ir().unwrap();
        // The inner loop's load, once per unrolled trip (a rolled outer loop holds it once).
        let loads = ir
            .lines()
            .filter(|l| l.contains("= call") && l.contains("buffer.load"))
            .count();
        assert_eq!(loads, 2, "{arch}: one inner loop per unrolled trip");
        let stride = 100usize;
        let x: Vec<f32> = (0..3 * stride).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        for n in [0usize, 45, 100] {
            let mut buffers = vec![floats(&x), floats(&[f32::NAN; 3]), floats(&[f32::NAN; 3])];
            run(&k, &mut buffers, &[n as u64, stride as u64], 3);
            for row in 0..3 {
                let xs = &x[row * stride..row * stride + n];
                let mean = xs.iter().map(|&v| f64::from(v)).sum::<f64>() / n as f64;
                let var = xs.iter().map(|&v| (f64::from(v) - mean).powi(2)).sum::<f64>() / n as f64;
                for (buffer, want) in [(1, mean), (2, var)] {
                    let got = f64::from(float(&buffers[buffer], row));
                    let close = (got - want).abs() <= 1e-5 * want.abs().max(1.0);
                    assert!(
                        close || (n == 0 && got.is_nan()),
                        "{arch}, n = {n}, row {row}: {got} against {want}"
                    );
                }
            }
        }
    }
}

/// A binary search (`while lo < hi`, probing `sorted[(lo + hi) // 2]`, `if` moving `lo`): the
/// probe's address is data, but every thread's is the same, so it is a plain load LLVM makes a
/// scalar load (`s_load_dword`, as Triton's is), and the `if`, whose arm is one addition, is a
/// select: no branch but the loop's. Each workgroup searches for its query.
#[test]
fn a_binary_search_probes_with_scalar_loads_and_selects() {
    // `make_ttir` of `searchsorted_while_kernel` (every query in its own program).
    let text = r#"module {
  tt.func public @searchsorted_while_kernel(%sorted_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %q_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %out_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %hi: i32) attributes {noinline = false} {
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %lo = arith.constant 0 : i32
    %pid = tt.get_program_id x : i32
    %v = tt.addptr %q_ptr, %pid : !tt.ptr<i32>, i32
    %v_0 = tt.load %v : !tt.ptr<i32>
    %hi_1:2 = scf.while (%lo_2 = %lo, %hi_3 = %hi) : (i32, i32) -> (i32, i32) {
      %1 = arith.cmpi slt, %lo_2, %hi_3 : i32
      scf.condition(%1) %lo_2, %hi_3 : i32, i32
    } do {
    ^bb0(%lo_2: i32, %hi_3: i32):
      %mid = arith.addi %lo_2, %hi_3 : i32
      %hi_4 = arith.divsi %mid, %c2_i32 : i32
      %1 = tt.addptr %sorted_ptr, %hi_4 : !tt.ptr<i32>, i32
      %2 = tt.load %1 : !tt.ptr<i32>
      %3 = arith.cmpi slt, %2, %v_0 : i32
      %4 = arith.select %3, %hi_3, %hi_4 : i32
      %5 = scf.if %3 -> (i32) {
        %lo_5 = arith.addi %hi_4, %c1_i32 : i32
        scf.yield %lo_5 : i32
      } else {
        scf.yield %lo_2 : i32
      }
      scf.yield %5, %4 : i32, i32
    }
    %0 = tt.addptr %out_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %0, %hi_1#0 : !tt.ptr<i32>
    tt.return
  }
}"#;
    let sorted: Vec<u32> = (0..100).map(|i| 3 * i + 1).collect();
    let queries: Vec<u32> = vec![0, 1, 2, 150, 298, 400];
    for arch in ARCHS {
        let k = compiled(text, arch);
        let ir = k.llvm_ir().unwrap();
        assert!(!ir.contains("buffer.load"), "{arch}: the probe is a plain load");
        assert!(
            !ir.lines().any(|l| l.starts_with("then.")),
            "{arch}: the if is a select"
        );
        let mut buffers = vec![words(&sorted), words(&queries), vec![0; 4 * queries.len()]];
        run(&k, &mut buffers, &[100], queries.len() as u32);
        for (i, &q) in queries.iter().enumerate() {
            let want = sorted.partition_point(|&s| s < q) as u32;
            assert_eq!(word(&buffers[2], i), want, "{arch}: query {q}");
        }
        if let Some(llc) = llc() {
            let dir = std::env::temp_dir().join(format!("ll-search-{arch}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let asm = assemble(llc, &ir, k.target, &dir, "search").unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            // `s_load_dword s…, s[…], s…` on CDNA, `s_load_b32` on RDNA: an SGPR offset.
            let probes = asm
                .lines()
                .filter(|l| l.contains("s_load_") && l.contains(" offset:0x0"))
                .count();
            assert_eq!(probes, 2, "{arch}: the query and the probe:\n{asm}");
            assert!(!asm.contains("buffer_load"), "{arch}:\n{asm}");
        }
    }
}

/// Inductor's `torch.cat` of two f16 tensors along the last axis (`scripts/zoo2/gen17.py`,
/// `make_ttir` of Triton 3.6.0): each column reads one source, chosen by `x % 96 < 64` of a
/// flat index. The indices are data in registers (a division and a remainder), yet AxisInfo
/// proves them contiguous over 32 elements and the test constant over 32: on gfx1100, where a
/// thread holds two consecutive elements, each source is read two halves at once and the
/// tests are computed once for both — as Triton computes them.
#[test]
fn index_arithmetic_in_registers_vectorises_and_computes_once_per_constant_block() {
    let text = r#"module {
  tt.func public @inductor_cat_kernel(%in_ptr0: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %in_ptr1: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %out_ptr0: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %xnumel: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<256xf16>
    %tmp9 = arith.constant dense<-64> : tensor<256xi32>
    %tmp9_0 = arith.constant dense<32> : tensor<256xi32>
    %cst_1 = arith.constant dense<64> : tensor<256xi32>
    %cst_2 = arith.constant dense<96> : tensor<256xi32>
    %c256_i32 = arith.constant 256 : i32
    %xoffset = tt.get_program_id x : i32
    %xoffset_3 = arith.muli %xoffset, %c256_i32 : i32
    %xindex = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %xindex_4 = tt.splat %xoffset_3 : i32 -> tensor<256xi32>
    %xindex_5 = arith.addi %xindex_4, %xindex : tensor<256xi32>
    %xmask = tt.splat %xnumel : i32 -> tensor<256xi32>
    %xmask_6 = arith.cmpi slt, %xindex_5, %xmask : tensor<256xi32>
    %x0 = arith.remsi %xindex_5, %cst_2 : tensor<256xi32>
    %x1 = arith.divsi %xindex_5, %cst_2 : tensor<256xi32>
    %tmp3 = arith.cmpi slt, %x0, %cst_1 : tensor<256xi32>
    %tmp4 = arith.muli %x1, %cst_1 : tensor<256xi32>
    %tmp4_7 = arith.addi %tmp4, %x0 : tensor<256xi32>
    %tmp4_8 = tt.splat %in_ptr0 : !tt.ptr<f16> -> tensor<256x!tt.ptr<f16>>
    %tmp4_9 = tt.addptr %tmp4_8, %tmp4_7 : tensor<256x!tt.ptr<f16>>, tensor<256xi32>
    %tmp4_10 = arith.andi %tmp3, %xmask_6 : tensor<256xi1>
    %tmp4_11 = tt.load %tmp4_9, %tmp4_10, %cst : tensor<256x!tt.ptr<f16>>
    %tmp6 = arith.cmpi sge, %x0, %cst_1 : tensor<256xi32>
    %tmp9_12 = arith.muli %x1, %tmp9_0 : tensor<256xi32>
    %tmp9_13 = arith.addi %x0, %tmp9 : tensor<256xi32>
    %tmp9_14 = arith.addi %tmp9_12, %tmp9_13 : tensor<256xi32>
    %tmp9_15 = tt.splat %in_ptr1 : !tt.ptr<f16> -> tensor<256x!tt.ptr<f16>>
    %tmp9_16 = tt.addptr %tmp9_15, %tmp9_14 : tensor<256x!tt.ptr<f16>>, tensor<256xi32>
    %tmp9_17 = arith.andi %tmp6, %xmask_6 : tensor<256xi1>
    %tmp9_18 = tt.load %tmp9_16, %tmp9_17, %cst : tensor<256x!tt.ptr<f16>>
    %tmp10 = arith.select %tmp3, %tmp4_11, %tmp9_18 : tensor<256xi1>, tensor<256xf16>
    %0 = tt.splat %out_ptr0 : !tt.ptr<f16> -> tensor<256x!tt.ptr<f16>>
    %1 = tt.addptr %0, %xindex_5 : tensor<256x!tt.ptr<f16>>, tensor<256xi32>
    tt.store %1, %tmp10, %xmask_6 : tensor<256x!tt.ptr<f16>>
    tt.return
  }
}"#;
    let rows = 13usize;
    let a: Vec<u16> = (0..rows * 64).map(|i| f16_of(i as i32 % 97 - 48)).collect();
    let b: Vec<u16> = (0..rows * 32).map(|i| f16_of(-(i as i32 % 89))).collect();
    let bytes = |v: &[u16]| v.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![bytes(&a), bytes(&b), vec![0; rows * 96 * 2]];
        run(
            &k,
            &mut buffers,
            &[(rows * 96) as u64],
            (rows * 96).div_ceil(256) as u32,
        );
        for i in 0..rows * 96 {
            let (r, c) = (i / 96, i % 96);
            let want = if c < 64 { a[64 * r + c] } else { b[32 * r + c - 64] };
            assert_eq!(
                u16::from_le_bytes([buffers[2][2 * i], buffers[2][2 * i + 1]]),
                want,
                "{arch}: {i}"
            );
        }
        if arch == "gfx1100" {
            let loads: Vec<usize> = k
                .program
                .walk()
                .filter_map(|op| match op {
                    linear_layout::lower::Op::GlobalLoad { dst, .. } => Some(dst.len()),
                    _ => None,
                })
                .collect();
            assert_eq!(loads, [2, 2], "each source read two halves at once");
            // `x < xnumel`, `x % 96 < 64` and `x % 96 >= 64`, once for the two elements each.
            let compares = k
                .program
                .walk()
                .filter(|op| matches!(op, linear_layout::lower::Op::Compare { .. }))
                .count();
            assert_eq!(compares, 3, "one test of each kind for the thread's two elements");
        }
    }
}
