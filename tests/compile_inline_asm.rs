//! `lower::compile` of `tt.elementwise_inline_asm` (`tl.inline_asm_elementwise`): one LLVM
//! `call … asm` per group of `packed_element` registers, the text and constraints as the
//! module writes them, accepted by llc-22 for the 64- and 32-lane targets. The interpreter does
//! not run assembly: it says so (the emulator runs these kernels: `scripts/zoo2/gen13.py`).

mod lower_common;

use linear_layout::lower::{CompileOptions, Launch, compile, run_launch};
use linear_layout::target::Target;
use lower_common::constructs::{ARCHS, compiled};
use lower_common::{compile as assemble, llc};

/// `make_ttir` of a kernel computing `y = x · w` on 512 halves with `v_pk_mul_f16`, two at a
/// time (`pack=2`); `ASM` and `ATTRS` stand for the statement and its attributes.
const PACKED: &str = r#"module {
  tt.func public @inline_asm_packed_kernel(%x_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %w_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<512xf16>
    %c512_i32 = arith.constant 512 : i32
    %offs = tt.get_program_id x : i32
    %offs_0 = arith.muli %offs, %c512_i32 : i32
    %offs_1 = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %offs_2 = tt.splat %offs_0 : i32 -> tensor<512xi32>
    %offs_3 = arith.addi %offs_2, %offs_1 : tensor<512xi32>
    %mask = tt.splat %n : i32 -> tensor<512xi32>
    %mask_4 = arith.cmpi slt, %offs_3, %mask : tensor<512xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f16> -> tensor<512x!tt.ptr<f16>>
    %x_5 = tt.addptr %x, %offs_3 : tensor<512x!tt.ptr<f16>>, tensor<512xi32>
    %x_6 = tt.load %x_5, %mask_4, %cst : tensor<512x!tt.ptr<f16>>
    %w = tt.splat %w_ptr : !tt.ptr<f16> -> tensor<512x!tt.ptr<f16>>
    %w_7 = tt.addptr %w, %offs_3 : tensor<512x!tt.ptr<f16>>, tensor<512xi32>
    %w_8 = tt.load %w_7, %mask_4, %cst : tensor<512x!tt.ptr<f16>>
    %y = tt.elementwise_inline_asm "ASM" {ATTRS} %x_6, %w_8 : tensor<512xf16>, tensor<512xf16> -> tensor<512xf16>
    %0 = tt.splat %y_ptr : !tt.ptr<f16> -> tensor<512x!tt.ptr<f16>>
    %1 = tt.addptr %0, %offs_3 : tensor<512x!tt.ptr<f16>>, tensor<512xi32>
    tt.store %1, %y, %mask_4 : tensor<512x!tt.ptr<f16>>
    tt.return
  }
}"#;

fn packed(asm: &str, attrs: &str) -> String {
    PACKED.replace("ASM", asm).replace("ATTRS", attrs)
}

/// `make_ttir` of `lo, hi = inline_asm_elementwise("v_min_i32 $0, $2, $3\n v_max_i32 $1, $2,
/// $3", "=&v,=&v,v,v", [x, y], dtype=(int32, int32), pack=1)` on 256 elements.
const MIN_MAX: &str = r#"module {
  tt.func public @inline_asm_minmax_kernel(%x_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %y_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %lo_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %hi_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %offs = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %x = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>>
    %x_1 = tt.addptr %x, %offs : tensor<256x!tt.ptr<i32>>, tensor<256xi32>
    %x_2 = tt.load %x_1 : tensor<256x!tt.ptr<i32>>
    %y = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>>
    %y_3 = tt.addptr %y, %offs : tensor<256x!tt.ptr<i32>>, tensor<256xi32>
    %y_4 = tt.load %y_3 : tensor<256x!tt.ptr<i32>>
    %0:2 = tt.elementwise_inline_asm "v_min_i32 $0, $2, $3\0A v_max_i32 $1, $2, $3" {constraints = "=&v,=&v,v,v", packed_element = 1 : i32, pure = true} %x_2, %y_4 : tensor<256xi32>, tensor<256xi32> -> tensor<256xi32>, tensor<256xi32>
    %lo = tt.splat %lo_ptr : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>>
    %lo_5 = tt.addptr %lo, %offs : tensor<256x!tt.ptr<i32>>, tensor<256xi32>
    tt.store %lo_5, %0#0 : tensor<256x!tt.ptr<i32>>
    %hi = tt.splat %hi_ptr : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>>
    %hi_6 = tt.addptr %hi, %offs : tensor<256x!tt.ptr<i32>>, tensor<256xi32>
    tt.store %hi_6, %0#1 : tensor<256x!tt.ptr<i32>>
    tt.return
  }
}"#;

/// The assembly llc-22 makes of `text` for `arch` (`None` where llc is not installed).
fn assembly(text: &str, arch: &str) -> Option<String> {
    let llc = llc()?;
    let k = compiled(text, arch);
    let dir = std::env::temp_dir().join(format!(
        "ll-inline-asm-{arch}-{}-{}",
        std::process::id(),
        text.len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let asm = assemble(llc, &k.llvm_ir().unwrap(), k.target, &dir, "k").unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    Some(asm)
}

#[test]
fn two_results_of_one_statement_are_a_struct_the_text_as_written() {
    for arch in ARCHS {
        let ir = compiled(MIN_MAX, arch).llvm_ir().unwrap();
        let calls: Vec<&str> = ir.lines().filter(|l| l.contains(" asm ")).collect();
        assert!(!calls.is_empty(), "{arch}: {ir}");
        for call in &calls {
            // The newline stays LLVM's escape; the constraints keep the early clobbers.
            assert!(
                call.contains(
                    r#"call { i32, i32 } asm "v_min_i32 $0, $2, $3\0A v_max_i32 $1, $2, $3", "=&v,=&v,v,v"(i32 "#
                ),
                "{arch}: {call}"
            );
        }
        // One statement per register: 256 elements over 256 (gfx942) or 128 (gfx1100) threads.
        let threads = 4 * Target::by_name(arch).unwrap().wave_size as usize;
        assert_eq!(calls.len(), 256 / threads, "{arch}");
        assert_eq!(
            ir.matches("extractvalue { i32, i32 }").count(),
            2 * calls.len(),
            "{arch}"
        );
        if let Some(asm) = assembly(MIN_MAX, arch) {
            assert_eq!(asm.matches("v_max_i32").count(), calls.len(), "{arch}: {asm}");
        }
    }
}

#[test]
fn packed_elements_go_to_one_statement_as_a_vector() {
    let text = packed(
        "v_pk_mul_f16 $0, $1, $2",
        "constraints = \"=v,v,v\", packed_element = 2 : i32, pure = true",
    );
    for arch in ARCHS {
        let ir = compiled(&text, arch).llvm_ir().unwrap();
        let calls: Vec<&str> = ir.lines().filter(|l| l.contains(" asm ")).collect();
        // 512 halves over 256 threads (gfx942: 2 each) or 128 (gfx1100: 4 each), 2 per statement.
        let threads = 4 * Target::by_name(arch).unwrap().wave_size as usize;
        assert_eq!(calls.len(), 512 / threads / 2, "{arch}: {ir}");
        for call in calls {
            assert!(
                call.contains(r#"call <2 x half> asm "v_pk_mul_f16 $0, $1, $2", "=v,v,v"(<2 x half> "#),
                "{arch}: {call}"
            );
        }
        if let Some(asm) = assembly(&text, arch) {
            assert_eq!(asm.matches("v_pk_mul_f16").count(), 512 / threads / 2, "{arch}");
        }
    }
}

#[test]
fn a_statement_with_effects_stays_where_it_is() {
    let text = packed(
        "v_pk_mul_f16 $0, $1, $2",
        "constraints = \"=v,v,v\", packed_element = 1 : i32, pure = false",
    );
    let ir = compiled(&text, "gfx942").llvm_ir().unwrap();
    assert!(
        ir.contains(r#"call half asm sideeffect "v_pk_mul_f16 $0, $1, $2", "=v,v,v"(half "#),
        "{ir}"
    );
}

#[test]
fn the_interpreter_says_it_does_not_run_assembly() {
    let k = compiled(MIN_MAX, "gfx942");
    let mut buffers = vec![vec![0u8; 1024]; 4];
    let launch = Launch {
        scalars: vec![],
        workgroup: [0, 0, 0],
        grid: [1, 1, 1],
    };
    let e = run_launch(&k.program, &mut buffers, &launch)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("inline assembly (`v_min_i32 $0, $2, $3`) is not interpreted"),
        "{e}"
    );
}

#[test]
fn a_pack_that_does_not_divide_a_threads_elements_is_refused_at_its_line() {
    // 512 halves over 256 threads: 2 registers each, which 4 do not group into.
    let text = packed(
        "v_pk_mul_f16 $0, $1, $2",
        "constraints = \"=v,v,v\", packed_element = 4 : i32, pure = true",
    );
    let target = Target::by_name("gfx942").unwrap();
    let e = compile(&text, target, &CompileOptions::new(4))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 18: tt.elementwise_inline_asm")
            && e.contains("2 elements per thread do not group by packed_element = 4"),
        "{e}"
    );
}

#[test]
fn the_cost_model_counts_a_statement_by_its_lines() {
    use linear_layout::lower::kernel_cost;
    let one_line = MIN_MAX.replace(r"\0A v_max_i32 $1, $2, $3", " ; a comment");
    for arch in ARCHS {
        let (two, one) = (compiled(MIN_MAX, arch), compiled(&one_line, arch));
        let statements = two.llvm_ir().unwrap().matches(" asm ").count() as u64;
        let (n2, n1) = (kernel_cost(&two).instructions, kernel_cost(&one).instructions);
        assert_eq!(n2 - n1, statements, "{arch}: {n2} against {n1}");
    }
}
