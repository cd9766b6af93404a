//! `lower::compile` of kernels that call helpers Triton keeps as functions
//! (`@triton.jit(noinline=True)`): the calls are inlined, the kernel computes what the calls
//! would, and what cannot be inlined is refused at the call's line.

mod lower_common;

use linear_layout::lower::{CompileOptions, compile};
use linear_layout::target::Target;
use lower_common::constructs::{ARCHS, compiled, float, floats, run, word};

/// Triton's form of a kernel with helpers kept as calls (as `make_ttir` writes one: a helper's
/// symbol quoted where its specialisation makes it no identifier): a helper called twice that
/// stores through the pointer it is given, and a helper returning a scalar that calls another.
const FILL: &str = r#"module {
  tt.func public @fill_kernel(%y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32, %value: f32) attributes {noinline = false} {
    %c128_i32 = arith.constant 128 : i32
    %c64_i32 = arith.constant 64 : i32
    %pid = tt.get_program_id x : i32
    %start = arith.muli %pid, %c128_i32 : i32
    %v = tt.call @m._shift__fp32_i32__(%value, %pid) : (f32, i32) -> f32
    tt.call @"m._fill__Pfp32_i32_i32_fp32__(3,)cconstexpr_64_"(%y_ptr, %start, %n, %v) : (!tt.ptr<f32>, i32, i32, f32) -> ()
    %0 = arith.addi %start, %c64_i32 : i32
    %1 = arith.negf %v : f32
    tt.call @"m._fill__Pfp32_i32_i32_fp32__(3,)cconstexpr_64_"(%y_ptr, %0, %n, %1) : (!tt.ptr<f32>, i32, i32, f32) -> ()
    tt.return
  }
  tt.func private @"m._fill__Pfp32_i32_i32_fp32__(3,)cconstexpr_64_"(%ptr: !tt.ptr<f32>, %start: i32, %n: i32, %value: f32) attributes {noinline = true} {
    %offs = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %offs_0 = tt.splat %start : i32 -> tensor<64xi32>
    %offs_1 = arith.addi %offs_0, %offs : tensor<64xi32>
    %0 = tt.splat %n : i32 -> tensor<64xi32>
    %1 = arith.cmpi slt, %offs_1, %0 : tensor<64xi32>
    %2 = tt.splat %ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %3 = tt.addptr %2, %offs_1 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %4 = tt.splat %value : f32 -> tensor<64xf32>
    %5 = arith.sitofp %offs_1 : tensor<64xi32> to tensor<64xf32>
    %6 = arith.addf %4, %5 : tensor<64xf32>
    tt.store %3, %6, %1 : tensor<64x!tt.ptr<f32>>
    tt.return
  }
  tt.func private @m._shift__fp32_i32__(%x: f32, %p: i32) -> f32 attributes {noinline = true} {
    %f = arith.sitofp %p : i32 to f32
    %t = tt.call @m._twice__fp32__(%f) : (f32) -> f32
    %s = arith.addf %x, %t : f32
    tt.return %s : f32
  }
  tt.func private @m._twice__fp32__(%a: f32) -> f32 attributes {noinline = true} {
    %s = arith.addf %a, %a : f32
    tt.return %s : f32
  }
}
"#;

/// The helpers' calls inlined compute what the calls would: `y[i] = ±(value + 2·pid) + i`, the
/// sign `+` in the first 64 of a program's 128 elements, only below `n`; the kernel is one
/// function that calls nothing.
#[test]
fn helpers_kept_as_calls_are_inlined() {
    let (n, grid, value) = (300usize, 3u32, 1.5f32);
    for arch in ARCHS {
        let k = compiled(FILL, arch);
        let ir = k.llvm_ir().unwrap();
        assert_eq!(ir.matches("define ").count(), 1, "{arch}:\n{ir}");
        assert!(
            !ir.contains("call void @m.") && !ir.contains("call float @m."),
            "{arch}:\n{ir}"
        );
        let sentinel = f32::to_bits(-7.0);
        let mut buffers = vec![sentinel.to_le_bytes().repeat(128 * grid as usize)];
        run(&k, &mut buffers, &[n as u64, u64::from(value.to_bits())], grid);
        for i in 0..128 * grid as usize {
            let pid = i / 128;
            let v = value + 2.0 * pid as f32;
            let wanted = if i >= n {
                sentinel
            } else {
                (if i % 128 < 64 { v } else { -v } + i as f32).to_bits()
            };
            assert_eq!(word(&buffers[0], i), wanted, "{arch}: element {i}");
        }
    }
}

/// What cannot be inlined is refused in one line naming the call and its line: a recursive
/// helper, a helper whose blocks loop, a function the module does not define.
#[test]
fn calls_that_cannot_be_inlined_are_refused_at_their_line() {
    let recursive = r#"module {
  tt.func public @k(%x: i32) {
    %y = tt.call @f(%x) : (i32) -> i32
    tt.return
  }
  tt.func private @f(%a: i32) -> i32 {
    %b = tt.call @g(%a) : (i32) -> i32
    tt.return %b : i32
  }
  tt.func private @g(%a: i32) -> i32 {
    %b = tt.call @f(%a) : (i32) -> i32
    tt.return %b : i32
  }
}
"#;
    let branching = r#"module {
  tt.func public @k(%x: i32) {
    %y = tt.call @f(%x) : (i32) -> i32
    tt.return
  }
  tt.func private @f(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %p = arith.cmpi slt, %a, %c0 : i32
    cf.cond_br %p, ^bb1, ^bb2
  ^bb1:
    cf.br ^bb0
  ^bb2:
    tt.return %a : i32
  }
}
"#;
    let undefined = "module {\n  tt.func public @k(%x: i32) {\n    tt.call @nowhere(%x) : (i32) -> ()\n    tt.return\n  }\n}\n";
    for (text, wanted) in [
        (recursive, "line 11, column 1: tt.call: calls @f recursively"),
        (
            branching,
            "line 3, column 1: tt.call: calls @f, which branches back to ^bb0",
        ),
        (
            undefined,
            "line 3, column 1: tt.call: calls @nowhere, which the module does not define",
        ),
    ] {
        let e = compile(text, Target::by_name("gfx942").unwrap(), &CompileOptions::new(4))
            .err()
            .unwrap_or_else(|| panic!("compiled:\n{text}"))
            .to_string();
        assert!(e.contains(wanted), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

/// A helper with an early return (`if a > lim: return lim`), which Triton writes as blocks
/// joined by `cf.cond_br`: inlined as an `scf.if` whose arms yield what each path returns, for
/// rows on either side of the limit. `make_ttir` of `scale_rows_kernel` (Triton 3.6.0):
/// `y[row] = x[row] · pick(s[row], lim)` with `pick(a, lim) = lim if a > lim else (−lim if
/// a < −lim else a/2) + 1`.
#[test]
fn a_helper_with_an_early_return_is_inlined_as_a_branch() {
    let text = r#"module {
  tt.func public @scale_rows_kernel(%x_ptr: !tt.ptr<f32>, %s_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>, %lim: f32) attributes {noinline = false} {
    %c64_i32 = arith.constant 64 : i32
    %row = tt.get_program_id x : i32
    %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %s = tt.addptr %s_ptr, %row : !tt.ptr<f32>, i32
    %s_0 = tt.load %s : !tt.ptr<f32>
    %s_1 = tt.call @__main__.pick__fp32_fp32__(%s_0, %lim) : (f32, f32) -> f32
    %x = arith.muli %row, %c64_i32 : i32
    %x_2 = tt.addptr %x_ptr, %x : !tt.ptr<f32>, i32
    %x_3 = tt.splat %x_2 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %x_4 = tt.addptr %x_3, %cols : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %x_5 = tt.load %x_4 : tensor<64x!tt.ptr<f32>>
    %0 = tt.addptr %y_ptr, %x : !tt.ptr<f32>, i32
    %1 = tt.splat %0 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %2 = tt.addptr %1, %cols : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %3 = tt.splat %s_1 : f32 -> tensor<64xf32>
    %4 = arith.mulf %x_5, %3 : tensor<64xf32>
    tt.store %2, %4 : tensor<64x!tt.ptr<f32>>
    tt.return
  }
  tt.func private @__main__.pick__fp32_fp32__(%a: f32, %lim: f32) -> f32 attributes {noinline = true} {
    %cst = arith.constant 1.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant 5.000000e-01 : f32
    %b = arith.mulf %a, %cst_1 : f32
    %0 = arith.cmpf ogt, %a, %lim : f32
    cf.cond_br %0, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    tt.return %lim : f32
  ^bb2:  // pred: ^bb0
    %1 = arith.subf %cst_0, %lim : f32
    %2 = arith.cmpf olt, %a, %1 : f32
    %3 = scf.if %2 -> (f32) {
      scf.yield %1 : f32
    } else {
      scf.yield %b : f32
    }
    %4 = arith.addf %3, %cst : f32
    tt.return %4 : f32
  }
}"#;
    let lim = 1.5f32;
    let s: Vec<f32> = vec![4.0, -4.0, 1.0, -1.0, 1.5, -1.5, 0.0, 2.0];
    let x: Vec<f32> = (0..8 * 64).map(|i| (i % 13) as f32 - 6.0).collect();
    let pick = |a: f32| {
        if a > lim {
            lim
        } else if a < -lim {
            -lim + 1.0
        } else {
            a * 0.5 + 1.0
        }
    };
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![floats(&x), floats(&s), vec![0; 8 * 64 * 4]];
        run(&k, &mut buffers, &[u64::from(lim.to_bits())], 8);
        for (i, &v) in x.iter().enumerate() {
            assert_eq!(float(&buffers[2], i), v * pick(s[i / 64]), "{arch}: element {i}");
        }
    }
}
