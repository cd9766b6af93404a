//! `lower::compile` of kernels that call helpers Triton keeps as functions
//! (`@triton.jit(noinline=True)`): the calls are inlined, the kernel computes what the calls
//! would, and what cannot be inlined is refused at the call's line.

mod lower_common;

use linear_layout::lower::{CompileOptions, compile};
use linear_layout::target::Target;
use lower_common::constructs::{ARCHS, compiled, run, word};

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
/// helper, a helper of several blocks, a function the module does not define.
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
    tt.return %c0 : i32
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
            "line 3, column 1: tt.call: calls @f, a function of several blocks",
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
