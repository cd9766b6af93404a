//! `tl.map_elementwise` compiled from TTIR: a scalar function applied to each element, its
//! branches and loops taken by each thread for itself. Each kernel is `make_ttir`'s output of a
//! kernel in `scripts/zoo2/gen15.py` (Triton 3.6.0), run in the interpreter against the function
//! computed here and accepted by llc-22.

mod lower_common;

use linear_layout::lower::{BranchCondition, Op, Program};
use lower_common::constructs::{ARCHS, compiled, float, floats, run, word, words};

/// Triton's own example, SELU: `if x > 0: return x` else `alpha·(eˣ − 1)` — a body of three
/// blocks whose branch each thread takes for itself.
#[test]
fn an_early_return_parts_the_threads() {
    let text = r#"module {
  tt.func public @selu_map_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %n: i32, %alpha: f32) attributes {noinline = false} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %c256_i32 = arith.constant 256 : i32
    %offs = tt.get_program_id x : i32
    %offs_1 = arith.muli %offs, %c256_i32 : i32
    %offs_2 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %offs_3 = tt.splat %offs_1 : i32 -> tensor<256xi32>
    %offs_4 = arith.addi %offs_3, %offs_2 : tensor<256xi32>
    %m = tt.splat %n : i32 -> tensor<256xi32>
    %m_5 = arith.cmpi slt, %offs_4, %m : tensor<256xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %x_6 = tt.addptr %x, %offs_4 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x_7 = tt.load %x_6, %m_5 : tensor<256x!tt.ptr<f32>>
    %y = tt.splat %alpha : f32 -> tensor<256xf32>
    %y_8 = "tt.map_elementwise"(%x_7, %y) <{pack = 1 : i32}> ({
    ^bb0(%y_9: f32, %y_10: f32):
      %2 = arith.cmpf ogt, %y_9, %cst : f32
      cf.cond_br %2, ^bb2(%y_9 : f32), ^bb1
    ^bb1:
      %3 = math.exp %y_9 : f32
      %4 = arith.subf %3, %cst_0 : f32
      %5 = arith.mulf %y_10, %4 : f32
      cf.br ^bb2(%5 : f32)
    ^bb2(%6: f32):
      tt.map_elementwise.return %6 : f32
    }) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %0 = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %1 = tt.addptr %0, %offs_4 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    tt.store %1, %y_8, %m_5 : tensor<256x!tt.ptr<f32>>
    tt.return
  }
}"#;
    let (n, alpha) = (1000usize, 1.673_263_2f32);
    let x: Vec<f32> = (0..1024).map(|i| ((i * 37 % 161) as f32 - 80.0) * 0.05).collect();
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![floats(&x), vec![0; 1024 * 4]];
        run(&k, &mut buffers, &[n as u64, u64::from(alpha.to_bits())], 4);
        for (i, &v) in x.iter().enumerate().take(n) {
            let want = if v > 0.0 {
                f64::from(v)
            } else {
                f64::from(alpha) * (f64::from(v).exp() - 1.0)
            };
            let got = f64::from(float(&buffers[1], i));
            assert!(
                (got - want).abs() <= 1e-6 * want.abs().max(1.0),
                "{arch}: {i}: {got} vs {want}"
            );
        }
    }
}

/// Collatz steps: a `while` loop in the function runs, in each thread, until that thread's
/// element reaches 1 (a thread's neighbours may need ten times as many steps), an `if` on the
/// element's parity inside it.
#[test]
fn a_loop_in_the_function_runs_per_element() {
    let text = r#"module {
  tt.func public @collatz_map_kernel(%x_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %y_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %n: i32) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c3_i32 = arith.constant 3 : i32
    %y = arith.constant dense<1> : tensor<128xi32>
    %x = arith.constant dense<0> : tensor<128xi32>
    %c128_i32 = arith.constant 128 : i32
    %offs = tt.get_program_id x : i32
    %offs_0 = arith.muli %offs, %c128_i32 : i32
    %offs_1 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %offs_2 = tt.splat %offs_0 : i32 -> tensor<128xi32>
    %offs_3 = arith.addi %offs_2, %offs_1 : tensor<128xi32>
    %m = tt.splat %n : i32 -> tensor<128xi32>
    %m_4 = arith.cmpi slt, %offs_3, %m : tensor<128xi32>
    %x_5 = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %x_6 = tt.addptr %x_5, %offs_3 : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %x_7 = tt.load %x_6, %m_4, %x : tensor<128x!tt.ptr<i32>>
    %y_8 = math.absi %x_7 : tensor<128xi32>
    %y_9 = arith.addi %y_8, %y : tensor<128xi32>
    %y_10 = "tt.map_elementwise"(%y_9) <{pack = 1 : i32}> ({
    ^bb0(%y_11: i32):
      %steps:2 = scf.while (%x_12 = %y_11, %steps_13 = %c0_i32) : (i32, i32) -> (i32, i32) {
        %2 = arith.cmpi ne, %x_12, %c1_i32 : i32
        scf.condition(%2) %x_12, %steps_13 : i32, i32
      } do {
      ^bb0(%x_12: i32, %steps_13: i32):
        %2 = arith.remsi %x_12, %c2_i32 : i32
        %3 = arith.cmpi eq, %2, %c0_i32 : i32
        %4 = scf.if %3 -> (i32) {
          %x_15 = arith.divsi %x_12, %c2_i32 : i32
          scf.yield %x_15 : i32
        } else {
          %x_15 = arith.muli %x_12, %c3_i32 : i32
          %x_16 = arith.addi %x_15, %c1_i32 : i32
          scf.yield %x_16 : i32
        }
        %steps_14 = arith.addi %steps_13, %c1_i32 : i32
        scf.yield %4, %steps_14 : i32, i32
      }
      tt.map_elementwise.return %steps#1 : i32
    }) : (tensor<128xi32>) -> tensor<128xi32>
    %0 = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %1 = tt.addptr %0, %offs_3 : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    tt.store %1, %y_10, %m_4 : tensor<128x!tt.ptr<i32>>
    tt.return
  }
}"#;
    let n = 300usize;
    let x: Vec<u32> = (0..384).map(|i: i32| (i * 7919 % 2001 - 1000) as u32).collect();
    let steps = |v: i64| {
        let (mut v, mut s) = (v, 0u32);
        while v != 1 {
            v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
            s += 1;
        }
        s
    };
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![words(&x), vec![0; 384 * 4]];
        run(&k, &mut buffers, &[n as u64], 3);
        for (i, &v) in x.iter().enumerate().take(n) {
            let want = steps(i64::from((v as i32).abs()) + 1);
            assert_eq!(word(&buffers[1], i), want, "{arch}: element {i} ({})", v as i32);
        }
    }
}

/// `for i in range(1, n, step)` with the element's own `n` and `step`: each thread counts for
/// itself (a per-thread `while` on the counter). `make_ttir` of `squares_map_kernel`
/// (`y = Σ i²` over the range, `n = |x| % 40`, `step = |x| % 3 + 1`; Triton 3.6.0).
#[test]
fn a_loop_bounded_by_the_element_counts_per_element() {
    let text = r#"module {
  tt.func public @squares_map_kernel(%x_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %N: i32) attributes {noinline = false} {
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %y = arith.constant dense<1> : tensor<256xi32>
    %y_0 = arith.constant dense<3> : tensor<256xi32>
    %y_1 = arith.constant dense<40> : tensor<256xi32>
    %x = arith.constant dense<0> : tensor<256xi32>
    %c256_i32 = arith.constant 256 : i32
    %offs = tt.get_program_id x : i32
    %offs_2 = arith.muli %offs, %c256_i32 : i32
    %offs_3 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %offs_4 = tt.splat %offs_2 : i32 -> tensor<256xi32>
    %offs_5 = arith.addi %offs_4, %offs_3 : tensor<256xi32>
    %m = tt.splat %N : i32 -> tensor<256xi32>
    %m_6 = arith.cmpi slt, %offs_5, %m : tensor<256xi32>
    %x_7 = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>>
    %x_8 = tt.addptr %x_7, %offs_5 : tensor<256x!tt.ptr<i32>>, tensor<256xi32>
    %x_9 = tt.load %x_8, %m_6, %x : tensor<256x!tt.ptr<i32>>
    %y_10 = math.absi %x_9 : tensor<256xi32>
    %y_11 = arith.remsi %y_10, %y_1 : tensor<256xi32>
    %y_12 = arith.remsi %y_10, %y_0 : tensor<256xi32>
    %y_13 = arith.addi %y_12, %y : tensor<256xi32>
    %y_14 = "tt.map_elementwise"(%y_11, %y_13) <{pack = 1 : i32}> ({
    ^bb0(%y_15: i32, %y_16: i32):
      %s = scf.for %i = %c1_i32 to %y_15 step %y_16 iter_args(%s_17 = %c0_i32) -> (i32)  : i32 {
        %s_18 = arith.muli %i, %i : i32
        %s_19 = arith.addi %s_17, %s_18 : i32
        scf.yield %s_19 : i32
      }
      tt.map_elementwise.return %s : i32
    }) : (tensor<256xi32>, tensor<256xi32>) -> tensor<256xi32>
    %0 = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>>
    %1 = tt.addptr %0, %offs_5 : tensor<256x!tt.ptr<i32>>, tensor<256xi32>
    tt.store %1, %y_14, %m_6 : tensor<256x!tt.ptr<i32>>
    tt.return
  }
}"#;
    let n = 500usize;
    let x: Vec<u32> = (0..512).map(|i: i32| (i * 7919 % 1001 - 500) as u32).collect();
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![words(&x), vec![0; 512 * 4]];
        run(&k, &mut buffers, &[n as u64], 2);
        for (i, &v) in x.iter().enumerate().take(n) {
            let a = (v as i32).unsigned_abs();
            let want: u32 = (1..a % 40).step_by((a % 3 + 1) as usize).map(|j| j * j).sum();
            assert_eq!(word(&buffers[1], i), want, "{arch}: element {i} ({})", v as i32);
        }
    }
}

/// `pack = 2`: each call takes two elements of each operand (`x0, x1, y0, y1`) and returns two
/// of each result (`lo0, lo1, hi0, hi1`) — Triton's order.
#[test]
fn a_packed_function_takes_and_returns_elements_in_order() {
    let text = r#"module {
  tt.func public @minmax_pack_kernel(%x_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %y_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %lo_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %hi_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}) attributes {noinline = false} {
    %c512_i32 = arith.constant 512 : i32
    %offs = tt.get_program_id x : i32
    %offs_0 = arith.muli %offs, %c512_i32 : i32
    %offs_1 = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %offs_2 = tt.splat %offs_0 : i32 -> tensor<512xi32>
    %offs_3 = arith.addi %offs_2, %offs_1 : tensor<512xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f16> -> tensor<512x!tt.ptr<f16>>
    %x_4 = tt.addptr %x, %offs_3 : tensor<512x!tt.ptr<f16>>, tensor<512xi32>
    %x_5 = tt.load %x_4 : tensor<512x!tt.ptr<f16>>
    %y = tt.splat %y_ptr : !tt.ptr<f16> -> tensor<512x!tt.ptr<f16>>
    %y_6 = tt.addptr %y, %offs_3 : tensor<512x!tt.ptr<f16>>, tensor<512xi32>
    %y_7 = tt.load %y_6 : tensor<512x!tt.ptr<f16>>
    %0:2 = "tt.map_elementwise"(%x_5, %y_7) <{pack = 2 : i32}> ({
    ^bb0(%arg4: f16, %arg5: f16, %arg6: f16, %arg7: f16):
      %5 = arith.minnumf %arg4, %arg6 : f16
      %6 = arith.minnumf %arg5, %arg7 : f16
      %7 = arith.maxnumf %arg4, %arg6 : f16
      %8 = arith.maxnumf %arg5, %arg7 : f16
      tt.map_elementwise.return %5, %6, %7, %8 : f16, f16, f16, f16
    }) : (tensor<512xf16>, tensor<512xf16>) -> (tensor<512xf16>, tensor<512xf16>)
    %1 = tt.splat %lo_ptr : !tt.ptr<f16> -> tensor<512x!tt.ptr<f16>>
    %2 = tt.addptr %1, %offs_3 : tensor<512x!tt.ptr<f16>>, tensor<512xi32>
    tt.store %2, %0#0 : tensor<512x!tt.ptr<f16>>
    %3 = tt.splat %hi_ptr : !tt.ptr<f16> -> tensor<512x!tt.ptr<f16>>
    %4 = tt.addptr %3, %offs_3 : tensor<512x!tt.ptr<f16>>, tensor<512xi32>
    tt.store %4, %0#1 : tensor<512x!tt.ptr<f16>>
    tt.return
  }
}"#;
    // Multiples of 1/8 in [-6, 6]: exact in f16, whose bits are the f32's regrouped.
    let value = |i: usize, k: usize| ((i * k % 97) as f32 - 48.0) * 0.125;
    let f16_bits = |v: f32| -> u16 {
        let b = v.to_bits();
        let sign = ((b >> 16) & 0x8000) as u16;
        if v == 0.0 {
            return sign;
        }
        let exponent = ((b >> 23) & 0xff) as i32 - 127 + 15;
        sign | ((exponent as u16) << 10) | ((b >> 13) & 0x3ff) as u16
    };
    let (x, y): (Vec<f32>, Vec<f32>) = (0..1024).map(|i| (value(i, 13), value(i, 29))).unzip();
    let bytes = |v: &[f32]| {
        v.iter()
            .flat_map(|&h| f16_bits(h).to_le_bytes())
            .collect::<Vec<u8>>()
    };
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![bytes(&x), bytes(&y), vec![0; 2048], vec![0; 2048]];
        run(&k, &mut buffers, &[], 2);
        let at = |b: &[u8], i: usize| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]);
        for i in 0..1024 {
            assert_eq!(at(&buffers[2], i), f16_bits(x[i].min(y[i])), "{arch}: lo {i}");
            assert_eq!(at(&buffers[3], i), f16_bits(x[i].max(y[i])), "{arch}: hi {i}");
        }
    }
}

/// A memory access in a mapped function is refused at its line, naming the op.
#[test]
fn a_load_in_a_mapped_function_is_refused_at_its_line() {
    let text = r#"module {
  tt.func public @gather_map(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %v = "tt.map_elementwise"(%r) <{pack = 1 : i32}> ({
    ^bb0(%i: i32):
      %a = tt.addptr %p, %i : !tt.ptr<f32>, i32
      %x = tt.load %a : !tt.ptr<f32>
      tt.map_elementwise.return %x : f32
    }) : (tensor<256xi32>) -> tensor<256xf32>
    %s = tt.splat %y : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %q = tt.addptr %s, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    tt.store %q, %v : tensor<256x!tt.ptr<f32>>
    tt.return
  }
}"#;
    let target = linear_layout::target::Target::by_name("gfx942").unwrap();
    let Err(err) = linear_layout::lower::compile(text, target, &linear_layout::lower::CompileOptions::new(4))
    else {
        panic!("a load in a mapped function compiled");
    };
    let msg = err.to_string();
    assert!(
        msg.contains("line 6") && msg.contains("tt.addptr") && msg.contains("mapped function"),
        "{msg}"
    );
}

/// Under a branch each thread takes for itself only what a thread computes alone may run:
/// [`Program::validate`] refuses a store there.
#[test]
fn a_store_under_a_branch_each_thread_takes_is_not_valid() {
    let mut p = Program::new("k", 64, 64);
    let bit = p.value(1);
    let x = p.value(32);
    p.ops.push(Op::Constant { dst: bit, bits: 1 });
    p.ops.push(Op::Constant { dst: x, bits: 7 });
    let barrier = Op::If {
        cond: BranchCondition::PerThread(bit),
        then: vec![Op::Barrier],
        otherwise: Vec::new(),
        results: Vec::new(),
    };
    p.ops.push(barrier);
    assert!(p.validate().is_err());
    p.ops.pop();
    let y = p.value(32);
    p.ops.push(Op::If {
        cond: BranchCondition::PerThread(bit),
        then: Vec::new(),
        otherwise: Vec::new(),
        results: vec![[y, x, x]],
    });
    assert!(p.validate().is_ok());
}
