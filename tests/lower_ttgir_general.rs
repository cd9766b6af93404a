//! The general lowering of TTGIR values: what leaves the symbolic fast paths (affine indices,
//! coordinate bounds, constant `other`s) is computed in registers. Each module is small and
//! hand-written in the form `triton-opt` prints; each runs in the interpreter against a
//! reference over several workgroups, and llc-22 compiles it.

mod lower_common;

use linear_layout::lower::{Kernel, Launch, kernel_cost, run_launch, ttgir_kernel};
use linear_layout::target::Target;
use linear_layout::ttgir::Module;
use lower_common::{compile, llc};

const DIR: &str = "tests/fixtures/lower/ttgir-general";

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

/// How often the kernel's LLVM IR branches on a test into a `while` loop's body: twice where
/// the loop is rotated (its guard and its body's end), once where a header tests.
fn tests_into_while_bodies(k: &Kernel) -> usize {
    k.llvm_ir()
        .unwrap()
        .lines()
        .filter(|l| l.trim_start().starts_with("br i1") && l.contains("label %do."))
        .count()
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
        for (i, &xi) in x.iter().enumerate() {
            let want = if i < n { xi } else { 0xdead };
            assert_eq!(word(&buffers[1], i), want, "{arch}: element {i}");
        }
        llc_accepts(&k, &format!("fill_{arch}"));
    }
}

const ARCHS: [&str; 3] = ["gfx942", "gfx950", "gfx1100"];

fn fixture(name: &str, arch: &str) -> Kernel {
    let path = format!(
        "{}/tests/fixtures/lower/ttgir-general/{name}.{arch}.ttgir",
        env!("CARGO_MANIFEST_DIR")
    );
    lower(&std::fs::read_to_string(&path).unwrap(), arch)
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn float(b: &[u8], i: usize) -> f32 {
    f32::from_bits(word(b, i))
}

/// Rows gathered through loaded ids (a data address), columns masked at `D` (not a multiple
/// of the block): each row of the output is the looked-up table row, zeros past `D`.
#[test]
fn gathered_rows_are_the_looked_up_rows() {
    for arch in ARCHS {
        let k = fixture("gather_rows_16x64_f32", arch);
        let (rows, stride, d) = (32usize, 80usize, 50usize);
        let ids: Vec<u32> = (0..rows).map(|r| ((r * 7 + 3) % 20) as u32).collect();
        let table: Vec<f32> = (0..20 * stride).map(|i| i as f32 * 0.25).collect();
        let mut buffers = vec![words(&ids), floats(&table), floats(&vec![-1.0; rows * stride])];
        for wg in 0..2 {
            let launch = Launch {
                scalars: vec![stride as u64, d as u64],
                workgroup: [wg, 0, 0],
                grid: [2, 1, 1],
            };
            run_launch(&k.program, &mut buffers, &launch).unwrap();
        }
        for r in 0..rows {
            for c in 0..stride {
                // Masked columns (and those past the block) are not stored.
                let want = if c < d {
                    table[ids[r] as usize * stride + c]
                } else {
                    -1.0
                };
                assert_eq!(
                    float(&buffers[2], r * stride + c),
                    want,
                    "{arch}: row {r}, column {c}"
                );
            }
        }
        llc_accepts(&k, &format!("gather_{arch}"));
    }
}

/// `join` then `reshape` interleaves two vectors; reading them back, `reshape` and `split`
/// undo it (out2 = y − x); a scalar loaded, doubled and stored by one thread (out3 = 2·x[3]).
#[test]
fn join_reshape_split_and_scalars_move_the_right_elements() {
    for arch in ARCHS {
        let k = fixture("shapes_256_f32", arch);
        let x: Vec<f32> = (0..256).map(|i| i as f32 * 1.5).collect();
        let y: Vec<f32> = (0..256).map(|i| 1000.0 - i as f32).collect();
        let mut buffers = vec![
            floats(&x),
            floats(&y),
            vec![0; 512 * 4],
            vec![0; 256 * 4],
            vec![0; 2 * 4],
        ];
        for wg in 0..2 {
            let launch = Launch {
                scalars: vec![],
                workgroup: [wg, 0, 0],
                grid: [2, 1, 1],
            };
            run_launch(&k.program, &mut buffers, &launch).unwrap();
        }
        for (i, (&xi, &yi)) in x.iter().zip(&y).enumerate() {
            assert_eq!(float(&buffers[2], 2 * i), xi, "{arch}: out1[{}]", 2 * i);
            assert_eq!(float(&buffers[2], 2 * i + 1), yi, "{arch}: out1[{}]", 2 * i + 1);
            assert_eq!(float(&buffers[3], i), yi - xi, "{arch}: out2[{i}]");
        }
        assert_eq!(
            (float(&buffers[4], 0), float(&buffers[4], 1)),
            (9.0, 9.0),
            "{arch}: out3"
        );
        llc_accepts(&k, &format!("shapes_{arch}"));
    }
}

/// What the lowering refuses is one line naming the op and its line, wherever in the lowering
/// the refusal arises (here: an op outside the language the lowering takes, and a layout that
/// holds more registers per thread than the lowering unrolls).
#[test]
fn every_refusal_names_the_op_and_its_line() {
    let outside = r#"
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%x: i32) {
    tt.print " x: " {hex = false, isSigned = array<i32: 1>} : %x : i32
    tt.return
  }
}"#;
    let e = ttgir_kernel(
        &Module::parse(outside).unwrap(),
        Target::by_name("gfx942").unwrap(),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("line 4: tt.print: "), "{e}");
    let too_many_registers = r#"
#l = #ttg.blocked<{sizePerThread = [8192], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%out: !tt.ptr<i32>) {
    %r = tt.make_range {end = 524288 : i32, start = 0 : i32} : tensor<524288xi32, #l>
    %p = tt.splat %out : !tt.ptr<i32> -> tensor<524288x!tt.ptr<i32>, #l>
    %q = tt.addptr %p, %r : tensor<524288x!tt.ptr<i32>, #l>, tensor<524288xi32, #l>
    tt.store %q, %r : tensor<524288x!tt.ptr<i32>, #l>
    tt.return
  }
}"#;
    let e = ttgir_kernel(
        &Module::parse(too_many_registers).unwrap(),
        Target::by_name("gfx942").unwrap(),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("line 8: tt.store: "), "{e}");
    assert_eq!(e.to_string().lines().count(), 1, "{e}");
    // Rounding toward zero into an 8-bit float is refused (as Triton's AMD backend does), not
    // rounded to nearest.
    let toward_zero = r#"
#l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%in: !tt.ptr<f32>, %out: !tt.ptr<f8E5M2>) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
    %p = tt.splat %in : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #l>
    %q = tt.addptr %p, %r : tensor<64x!tt.ptr<f32>, #l>, tensor<64xi32, #l>
    %x = tt.load %q : tensor<64x!tt.ptr<f32>, #l>
    %y = tt.fp_to_fp %x, rounding = rtz : tensor<64xf32, #l> -> tensor<64xf8E5M2, #l>
    %o = tt.splat %out : !tt.ptr<f8E5M2> -> tensor<64x!tt.ptr<f8E5M2>, #l>
    %w = tt.addptr %o, %r : tensor<64x!tt.ptr<f8E5M2>, #l>, tensor<64xi32, #l>
    tt.store %w, %y : tensor<64x!tt.ptr<f8E5M2>, #l>
    tt.return
  }
}"#;
    let e = ttgir_kernel(
        &Module::parse(toward_zero).unwrap(),
        Target::by_name("gfx942").unwrap(),
    )
    .unwrap_err();
    assert!(
        e.to_string().starts_with("line 9: tt.fp_to_fp: rounding = rtz"),
        "{e}"
    );
}

/// Scalars in registers: a loaded scalar and a uniform integer converted to a float
/// (`sitofp`), combined, splat and used by tensor arithmetic — `out = x · (x[0] + n)`.
#[test]
fn scalars_converted_and_splat_into_tensors() {
    let text = r#"
#l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @scale(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
    %first = tt.load %x : !tt.ptr<f32>
    %nf = arith.sitofp %n : i32 to f32
    %s = arith.addf %first, %nf : f32
    %ss = tt.splat %s : f32 -> tensor<64xf32, #l>
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #l>
    %xp = tt.addptr %xs, %r : tensor<64x!tt.ptr<f32>, #l>, tensor<64xi32, #l>
    %v = tt.load %xp : tensor<64x!tt.ptr<f32>, #l>
    %y = arith.mulf %v, %ss : tensor<64xf32, #l>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #l>
    %op = tt.addptr %os, %r : tensor<64x!tt.ptr<f32>, #l>, tensor<64xi32, #l>
    tt.store %op, %y : tensor<64x!tt.ptr<f32>, #l>
    tt.return
  }
}"#;
    let k = lower(text, "gfx942");
    let x: Vec<f32> = (0..64).map(|i| 0.5 + i as f32).collect();
    let mut buffers = vec![floats(&x), vec![0; 64 * 4]];
    let launch = Launch {
        scalars: vec![(-3i64) as u64],
        workgroup: [0, 0, 0],
        grid: [1, 1, 1],
    };
    run_launch(&k.program, &mut buffers, &launch).unwrap();
    for (i, &xi) in x.iter().enumerate() {
        assert_eq!(float(&buffers[1], i), xi * (0.5 - 3.0), "element {i}");
    }
    llc_accepts(&k, "scale");
}

/// One element-wise op `name` on 256 elements of type `ty` (operands loaded from `arity`
/// buffers, the result stored to the next), as `triton-opt` prints it.
fn elementwise_module(name: &str, ty: &str, out_ty: &str, arity: usize, lanes: u32, suffix: &str) -> String {
    let mut body = String::new();
    let mut args = Vec::new();
    for k in 0..arity {
        args.push(format!("%a{k}: !tt.ptr<{ty}>"));
        body.push_str(&format!(
            "    %s{k} = tt.splat %a{k} : !tt.ptr<{ty}> -> tensor<256x!tt.ptr<{ty}>, #l>\n    %p{k} = tt.addptr %s{k}, %r : tensor<256x!tt.ptr<{ty}>, #l>, tensor<256xi32, #l>\n    %x{k} = tt.load %p{k} : tensor<256x!tt.ptr<{ty}>, #l>\n"
        ));
    }
    let operands: Vec<String> = (0..arity).map(|k| format!("%x{k}")).collect();
    let result_type = if out_ty == ty {
        format!(" : tensor<256x{ty}, #l>")
    } else {
        format!(" : tensor<256x{ty}, #l> to tensor<256x{out_ty}, #l>")
    };
    format!(
        r#"#l = #ttg.blocked<{{sizePerThread = [4], threadsPerWarp = [{lanes}], warpsPerCTA = [1], order = [0]}}>
module attributes {{"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @op({}, %out: !tt.ptr<{out_ty}>) {{
    %r = tt.make_range {{end = 256 : i32, start = 0 : i32}} : tensor<256xi32, #l>
{body}    %y = {name} {}{suffix}{result_type}
    %os = tt.splat %out : !tt.ptr<{out_ty}> -> tensor<256x!tt.ptr<{out_ty}>, #l>
    %op = tt.addptr %os, %r : tensor<256x!tt.ptr<{out_ty}>, #l>, tensor<256xi32, #l>
    tt.store %op, %y : tensor<256x!tt.ptr<{out_ty}>, #l>
    tt.return
  }}
}}"#,
        args.join(", "),
        operands.join(", ")
    )
}

/// Bytes of 256 elements of `ty`: small values of both signs (and fractions for floats),
/// positive where `positive` (the operand of a log or a square root).
fn operand_bytes(ty: &str, seed: u64, positive: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..256u64 {
        let k = (i * 7 + seed * 13) % 23;
        let v = if positive { k as f64 + 1.0 } else { k as f64 - 11.0 };
        let bits = match ty {
            "f32" => u64::from((v as f32 * 0.375).to_bits()),
            "f64" => (v * 0.375).to_bits(),
            "f16" | "bf16" => linear_layout::lower::numeric::encode(ty, v * 0.375).unwrap(),
            _ => v as i64 as u64,
        };
        let bytes = linear_layout::lower::numeric::bits(ty).div_ceil(8) as usize;
        out.extend(&bits.to_le_bytes()[..bytes]);
    }
    out
}

/// Law: every element-wise `arith`/`math`/`tt` op on every type it applies to lowers, computes
/// in the interpreter what [`ArithOp::eval`] says of each element, and llc-22 accepts it on
/// gfx942, gfx950 and gfx1100.
#[test]
fn every_elementwise_op_lowers_computes_and_passes_llc() {
    use linear_layout::lower::ArithOp;
    let ops: &[(&str, ArithOp, &[&str])] = &[
        ("arith.addf", ArithOp::Add, &["f32", "f16", "bf16", "f64"]),
        ("arith.subi", ArithOp::Sub, &["i32", "i64", "i16", "i8"]),
        ("arith.mulf", ArithOp::Mul, &["f32", "f16"]),
        ("arith.divf", ArithOp::Div, &["f32", "f64"]),
        ("arith.divsi", ArithOp::Div, &["i32", "i64"]),
        ("arith.divui", ArithOp::DivU, &["i32"]),
        ("arith.remsi", ArithOp::RemS, &["i32", "i16"]),
        ("arith.remui", ArithOp::RemU, &["i32"]),
        ("arith.remf", ArithOp::RemS, &["f32"]),
        ("arith.maxnumf", ArithOp::Max, &["f32", "f16"]),
        ("arith.minimumf", ArithOp::Minimum, &["f32"]),
        ("arith.maximumf", ArithOp::Maximum, &["f32", "f16"]),
        ("arith.maxui", ArithOp::MaxU, &["i32"]),
        ("arith.minsi", ArithOp::Min, &["i32", "i64"]),
        ("arith.andi", ArithOp::And, &["i32", "i64"]),
        ("arith.ori", ArithOp::Or, &["i32"]),
        ("arith.xori", ArithOp::Xor, &["i32", "i8"]),
        ("arith.shrui", ArithOp::ShrU, &["i32"]),
        ("arith.shrsi", ArithOp::ShrS, &["i32", "i64"]),
        ("arith.shli", ArithOp::Shl, &["i32"]),
        ("tt.mulhiui", ArithOp::MulHiU, &["i32"]),
        ("arith.negf", ArithOp::Neg, &["f32", "f16"]),
        ("math.absf", ArithOp::Abs, &["f32", "f64"]),
        ("math.absi", ArithOp::Abs, &["i32"]),
        ("math.exp", ArithOp::Exp, &["f32", "f16"]),
        ("math.exp2", ArithOp::Exp2, &["f32", "bf16"]),
        ("math.log", ArithOp::Log, &["f32"]),
        ("math.log2", ArithOp::Log2, &["f32", "f16"]),
        ("math.sqrt", ArithOp::FastSqrt, &["f32", "f64", "f16"]),
        ("tt.precise_sqrt", ArithOp::PreciseSqrt, &["f32"]),
        ("math.rsqrt", ArithOp::Rsqrt, &["f32"]),
        ("math.sin", ArithOp::Sin, &["f32"]),
        ("math.cos", ArithOp::Cos, &["f32"]),
        ("math.erf", ArithOp::Erf, &["f32"]),
        ("math.floor", ArithOp::Floor, &["f32", "f64"]),
        ("math.ceil", ArithOp::Ceil, &["f32"]),
        ("math.fma", ArithOp::Fma, &["f32", "f64"]),
        ("math.tanh", ArithOp::Tanh, &["f32", "f16"]),
        ("math.trunc", ArithOp::Trunc, &["f32"]),
        ("math.round", ArithOp::Round, &["f32"]),
        ("math.roundeven", ArithOp::Rint, &["f32", "f64"]),
    ];
    let mut failures = Vec::new();
    for &(name, arith, types) in ops {
        for &ty in types {
            for (arch, lanes) in [("gfx942", 64), ("gfx950", 64), ("gfx1100", 32)] {
                let n = arith.operands();
                let text = elementwise_module(name, ty, ty, n, lanes, "");
                let k = lower(&text, arch);
                // Shift counts stay below the width; divisors and logarithms' operands are
                // positive.
                let positive = |k: usize| {
                    matches!(
                        arith,
                        ArithOp::Log
                            | ArithOp::Log2
                            | ArithOp::Sqrt
                            | ArithOp::FastSqrt
                            | ArithOp::PreciseSqrt
                            | ArithOp::Rsqrt
                    ) || (k == 1
                        && matches!(
                            arith,
                            ArithOp::Div
                                | ArithOp::DivU
                                | ArithOp::RemS
                                | ArithOp::RemU
                                | ArithOp::Shl
                                | ArithOp::ShrS
                                | ArithOp::ShrU
                        ))
                };
                let inputs: Vec<Vec<u8>> = (0..n).map(|k| operand_bytes(ty, k as u64, positive(k))).collect();
                let width = linear_layout::lower::numeric::bits(ty).div_ceil(8) as usize;
                let mut buffers = inputs.clone();
                buffers.push(vec![0; 256 * width]);
                run_launch(&k.program, &mut buffers, &Launch::single(vec![])).unwrap();
                for i in 0..256 {
                    let element = |b: &[u8]| {
                        let mut w = [0u8; 8];
                        w[..width].copy_from_slice(&b[i * width..(i + 1) * width]);
                        u64::from_le_bytes(w)
                    };
                    let args: Vec<u64> = inputs.iter().map(|b| element(b)).collect();
                    let want = arith.eval(ty, (width * 8) as u32, &args).unwrap();
                    if element(&buffers[n]) != want {
                        failures.push(format!("{name} {ty} {arch}: element {i}"));
                        break;
                    }
                }
                if let Some(llc) = llc() {
                    let dir = std::env::temp_dir().join(format!("ll-ops-{}", std::process::id()));
                    std::fs::create_dir_all(&dir).unwrap();
                    let file = format!("{}_{ty}_{arch}", name.replace('.', "_"));
                    if let Err(e) = compile(llc, &k.llvm_ir().unwrap(), k.target, &dir, &file) {
                        failures.push(e);
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Law: where the target row has packed `f32` arithmetic (`packed_f32`: CDNA2 on), two
/// elementwise `f32` products side by side are one `<2 x float>` product — `v_pk_mul_f32`, as
/// `opt`'s SLP vectorizer makes Triton's — and elsewhere they stay scalar: four elements per
/// thread of 64, loaded side by side, are two packed products and no scalar one.
#[test]
fn elementwise_f32_pairs_are_packed_where_the_target_has_them() {
    for (arch, lanes) in [("gfx942", 64), ("gfx950", 64), ("gfx1100", 32)] {
        let packed = Target::by_name(arch).unwrap().lowering.packed_f32;
        // Aligned pointers: each thread's four elements are one vector load, side by side.
        let aligned = |name: &str, ty: &str| {
            ["%a0", "%a1", "%out"]
                .iter()
                .fold(elementwise_module(name, ty, ty, 2, lanes, ""), |text, arg| {
                    text.replace(
                        &format!("{arg}: !tt.ptr<{ty}>"),
                        &format!("{arg}: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}"),
                    )
                })
        };
        let k = lower(&aligned("arith.mulf", "f32"), arch);
        let ir = k.llvm_ir().unwrap();
        let per_thread = 256 / lanes as usize;
        let pairs = if packed { per_thread / 2 } else { 0 };
        assert_eq!(ir.matches("fmul contract <2 x float>").count(), pairs, "{arch}");
        // The cost model counts what the emitter makes: a pair is one instruction (beside the
        // same kernel's `i32` products, which never pack).
        let ints = lower(&aligned("arith.muli", "i32"), arch);
        assert_eq!(
            kernel_cost(&k).instructions + pairs as u64,
            kernel_cost(&ints).instructions,
            "{arch}"
        );
        if let Some(llc) = llc() {
            let dir = std::env::temp_dir().join(format!("ll-packed-{arch}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let asm = compile(llc, &ir, k.target, &dir, "packed").unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            // Scalar products as `v_mul_f32` or RDNA's dual-issued `v_dual_mul_f32`.
            let pk = asm.matches("v_pk_mul_f32").count();
            let scalar = asm.matches("mul_f32").count() - pk;
            assert_eq!((pk, scalar), (pairs, per_thread - 2 * pairs), "{arch}:\n{asm}");
        }
    }
}

/// `math.sqrt` of `f32` is `v_sqrt_f32` alone and `math.rsqrt` `v_rsq_f32` alone (an `f16`'s
/// through `f32`), as Triton's AMD lowering makes them (within 1 ulp: `llvm.sqrt` would add the
/// scaling and the correction steps, and `1 / sqrt` a reciprocal); `tt.precise_sqrt` of `f32`
/// is `v_rsq_f32` refined by a Newton step (Triton's sequence), and the other types'
/// `math.sqrt` LLVM's correctly rounded `sqrt`.
#[test]
fn math_sqrt_and_rsqrt_of_f32_are_the_instructions_alone() {
    for (name, ty, wanted, unwanted) in [
        ("math.sqrt", "f32", "@llvm.amdgcn.sqrt.f32(", "@llvm.sqrt."),
        ("tt.precise_sqrt", "f32", "@llvm.amdgcn.rsq.f32(", "@llvm.sqrt."),
        ("math.sqrt", "f64", "@llvm.sqrt.f64(", "@llvm.amdgcn.sqrt"),
        ("math.rsqrt", "f32", "@llvm.amdgcn.rsq.f32(", "@llvm.sqrt."),
        ("math.rsqrt", "f16", "@llvm.amdgcn.rsq.f32(", "@llvm.sqrt."),
    ] {
        let text = elementwise_module(name, ty, ty, 1, 64, "");
        let ir = lower(&text, "gfx942").llvm_ir().unwrap();
        assert!(ir.contains(wanted), "{name} of {ty}: no {wanted} in\n{ir}");
        assert!(!ir.contains(unwanted), "{name} of {ty}: {unwanted} in\n{ir}");
    }
}

/// Law: Triton's refined `f32` root ([`ArithOp::PreciseSqrt`]) is the correctly rounded
/// square root of every argument from 2⁻¹⁰² up (below, its residual is subnormal), whatever
/// the sign: a negative argument's root is NaN, as `sqrt`'s.
#[test]
fn the_precise_sqrt_is_correctly_rounded_above_tiny_arguments() {
    use linear_layout::lower::ArithOp;
    fn law(bits: u32) -> bool {
        let x = f32::from_bits(bits);
        let wanted = (f64::from(x)).sqrt() as f32;
        let got = ArithOp::PreciseSqrt
            .eval("f32", 32, &[u64::from(bits)])
            .map(|r| f32::from_bits(r as u32));
        x.abs() < 2f32.powi(-102) && x != 0.0
            || got.is_some_and(|r| r.to_bits() == wanted.to_bits() || r.is_nan() && wanted.is_nan())
    }
    quickcheck::QuickCheck::new()
        .tests(20_000)
        .quickcheck(law as fn(u32) -> bool);
}

/// Law: every conversion between the types Triton uses lowers, computes what
/// [`numeric::convert`](linear_layout::lower::numeric::convert) says, and llc-22 accepts it.
#[test]
fn every_conversion_lowers_computes_and_passes_llc() {
    use linear_layout::lower::numeric::convert;
    let pairs: &[(&str, &str, &str, &str, &str)] = &[
        // (op, from, to, from as read, to as written)
        ("arith.extsi", "i8", "i32", "i8", "i32"),
        ("arith.extsi", "i32", "i64", "i32", "i64"),
        ("arith.extui", "i16", "i32", "u16", "i32"),
        ("arith.extui", "i32", "i64", "u32", "i64"),
        ("arith.trunci", "i64", "i32", "i64", "i32"),
        ("arith.trunci", "i32", "i8", "i32", "i8"),
        ("arith.sitofp", "i32", "f32", "i32", "f32"),
        ("arith.sitofp", "i64", "f64", "i64", "f64"),
        ("arith.uitofp", "i32", "f32", "u32", "f32"),
        ("arith.fptosi", "f32", "i32", "f32", "i32"),
        ("arith.fptoui", "f32", "i32", "f32", "u32"),
        ("arith.extf", "f16", "f32", "f16", "f32"),
        ("arith.extf", "bf16", "f32", "bf16", "f32"),
        ("arith.truncf", "f32", "bf16", "f32", "bf16"),
        ("arith.truncf", "f64", "f32", "f64", "f32"),
        ("arith.sitofp", "i16", "f16", "i16", "f16"),
        ("arith.sitofp", "i8", "f32", "i8", "f32"),
        ("arith.fptosi", "f32", "i8", "f32", "i8"),
        ("arith.fptoui", "f32", "i8", "f32", "u8"),
        ("tt.bitcast", "f32", "i32", "i32", "i32"),
    ];
    let mut failures = Vec::new();
    for &(name, from, to, read, written) in pairs {
        for (arch, lanes) in [("gfx942", 64), ("gfx950", 64), ("gfx1100", 32)] {
            let text = elementwise_module(name, from, to, 1, lanes, "");
            let k = lower(&text, arch);
            let (fw, tw) = (
                linear_layout::lower::numeric::bits(from).div_ceil(8) as usize,
                linear_layout::lower::numeric::bits(to).div_ceil(8) as usize,
            );
            let input = operand_bytes(from, 3, false);
            let mut buffers = vec![input.clone(), vec![0; 256 * tw]];
            run_launch(&k.program, &mut buffers, &Launch::single(vec![])).unwrap();
            for i in 0..256 {
                let get = |b: &[u8], w: usize| {
                    let mut x = [0u8; 8];
                    x[..w].copy_from_slice(&b[i * w..(i + 1) * w]);
                    u64::from_le_bytes(x)
                };
                let want = convert(read, written, get(&input, fw)).unwrap();
                if get(&buffers[1], tw) != want {
                    failures.push(format!("{name} {from}->{to} {arch}: element {i}"));
                    break;
                }
            }
            if let Some(llc) = llc() {
                let dir = std::env::temp_dir().join(format!("ll-cvt-{}", std::process::id()));
                std::fs::create_dir_all(&dir).unwrap();
                let file = format!("{}_{from}_{to}_{arch}", name.replace('.', "_"));
                if let Err(e) = compile(llc, &k.llvm_ir().unwrap(), k.target, &dir, &file) {
                    failures.push(e);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Floats become bytes element by element (a vector conversion to `<4 x i8>` packs the bytes
/// into one register, which gfx11 does with 16-bit shifts and ors, only for the stores to take
/// them apart); bytes become floats as a vector (CDNA converts a register's bytes in place).
#[test]
fn floats_become_bytes_element_by_element() {
    for (name, from, to, vector) in [
        ("arith.fptosi", "f32", "i8", false),
        ("arith.fptoui", "f32", "i8", false),
        ("arith.sitofp", "i8", "f32", true),
    ] {
        let ir = lower(&elementwise_module(name, from, to, 1, 32, ""), "gfx1100")
            .llvm_ir()
            .unwrap();
        let cast = name.trim_start_matches("arith.");
        let from = if from == "f32" { "float" } else { from };
        // 256 elements over 32 lanes: 8 per thread.
        let elements = ir.matches(&format!("{cast} {from} ")).count();
        let vectors = ir.matches(&format!("{cast} <")).count();
        assert_eq!(
            (elements, vectors > 0),
            if vector { (0, true) } else { (8, false) },
            "{name}:\n{ir}"
        );
    }
}

/// Triton's K loop pipelined over 3 and 4 stages: the tiles are multi-buffered in LDS and each
/// iteration's slice is picked at run time (a loop-carried slot index), so the LDS accesses
/// run at a uniform offset. Checked for K of 0 to 6 steps against the product, and by llc-22.
#[test]
fn multi_stage_pipelines_compute_the_product() {
    for stages in [3, 4] {
        for arch in ["gfx942", "gfx950"] {
            let file = format!("{DIR}/matmul_kloop_stages{stages}_64x64x32_f16.{arch}.ttgir");
            let k = lower(&std::fs::read_to_string(&file).unwrap(), arch);
            assert!(k.program.op_counts().contains_key("lds_window"), "{file}");
            for steps in [0u64, 1, 2, 3, 6] {
                let case = serde_json::json!({
                    "seed": 31 + steps,
                    "args": [
                        {"kind": "ptr", "dtype": "f16", "elems": 64 * 200, "init": "int3", "name": "a"},
                        {"kind": "ptr", "dtype": "f16", "elems": 200 * 72, "init": "int3", "name": "b"},
                        {"kind": "ptr", "dtype": "f16", "elems": 64 * 80, "init": "zeros", "name": "c"},
                        {"kind": "i32", "value": steps * 32, "name": "K"},
                        {"kind": "i32", "value": 200, "name": "sam"},
                        {"kind": "i32", "value": 72, "name": "sbk"},
                        {"kind": "i32", "value": 80, "name": "scm"},
                    ],
                    "constexprs": {"BM": 64, "BN": 64, "BK": 32},
                });
                lower_common::check_matmul(&case, &k)
                    .unwrap_or_else(|e| panic!("{file} K = {}: {e}", steps * 32));
            }
            llc_accepts(&k, &format!("stages{stages}_{arch}"));
        }
    }
}

/// GELU's tanh form as people write it, through the device library (`libdevice.tanh`,
/// `round`, `trunc`: `tt.extern_elementwise` calls the crate computes itself), on 300
/// elements over two workgroups (a masked tail), against the formula in f64; llc-22 accepts it.
#[test]
fn device_library_calls_compute_their_functions() {
    for arch in ["gfx942", "gfx950", "gfx1100"] {
        let k = lower(
            &std::fs::read_to_string(format!("{DIR}/gelu_tanh_256_f32.{arch}.ttgir")).unwrap(),
            arch,
        );
        let n = 300usize;
        let x: Vec<f32> = (0..512).map(|i| (i as f32 - 256.0) / 37.0).collect();
        let mut buffers = vec![
            x.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
            vec![0u8; 512 * 4],
        ];
        for pid in 0..2 {
            let launch = Launch {
                scalars: vec![n as u64],
                workgroup: [pid, 0, 0],
                grid: [2, 1, 1],
            };
            run_launch(&k.program, &mut buffers, &launch).unwrap();
        }
        for (i, &v) in x.iter().enumerate() {
            let got = f32::from_le_bytes(buffers[1][4 * i..4 * i + 4].try_into().unwrap());
            if i >= n {
                assert_eq!(got, 0.0, "{arch}: element {i} is past the mask");
                continue;
            }
            let v = f64::from(v);
            let inner = 0.797_884_560_802_865_4 * (v + 0.044715 * v * v * v);
            let want = 0.5 * v * (1.0 + inner.tanh()) + v.round() + (v * 2.5).trunc();
            assert!(
                (f64::from(got) - want).abs() <= 1e-5 * want.abs().max(1.0),
                "{arch}: element {i}: {got} against {want}"
            );
        }
        llc_accepts(&k, &format!("gelu_tanh_{arch}"));
    }
}

/// A Python `while i < n` loop as Triton prints it: a uniform counter runs up to a runtime bound
/// while a tensor accumulates `x · i`, and both leave the loop: `out = x · n(n−1)/2 + n` (for
/// `n ≤ 0` the loop never runs: `out = 0`), over two workgroups.
#[test]
fn a_while_loop_counts_to_a_runtime_bound_and_accumulates() {
    for (arch, lanes) in [("gfx942", 64), ("gfx1100", 32)] {
        let text = format!(
            r#"
#l = #ttg.blocked<{{sizePerThread = [2], threadsPerWarp = [{lanes}], warpsPerCTA = [2], order = [0]}}>
module attributes {{"ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @accumulate(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {{
    %zero = arith.constant dense<0.000000e+00> : tensor<{len}xf32, #l>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %cB = arith.constant {len} : i32
    %pid = tt.get_program_id x : i32
    %start = arith.muli %pid, %cB : i32
    %r = tt.make_range {{end = {len} : i32, start = 0 : i32}} : tensor<{len}xi32, #l>
    %s = tt.splat %start : i32 -> tensor<{len}xi32, #l>
    %offs = arith.addi %s, %r : tensor<{len}xi32, #l>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<{len}x!tt.ptr<f32>, #l>
    %xp = tt.addptr %xs, %offs : tensor<{len}x!tt.ptr<f32>, #l>, tensor<{len}xi32, #l>
    %v = tt.load %xp : tensor<{len}x!tt.ptr<f32>, #l>
    %acc:2 = scf.while (%acc_0 = %zero, %i = %c0_i32) : (tensor<{len}xf32, #l>, i32) -> (tensor<{len}xf32, #l>, i32) {{
      %go = arith.cmpi slt, %i, %n : i32
      scf.condition(%go) %acc_0, %i : tensor<{len}xf32, #l>, i32
    }} do {{
    ^bb0(%acc_0: tensor<{len}xf32, #l>, %i: i32):
      %f = arith.sitofp %i : i32 to f32
      %fs = tt.splat %f : f32 -> tensor<{len}xf32, #l>
      %t = arith.mulf %v, %fs : tensor<{len}xf32, #l>
      %acc_1 = arith.addf %acc_0, %t : tensor<{len}xf32, #l>
      %i_2 = arith.addi %i, %c1_i32 : i32
      scf.yield %acc_1, %i_2 : tensor<{len}xf32, #l>, i32
    }}
    %nf = arith.sitofp %acc#1 : i32 to f32
    %ns = tt.splat %nf : f32 -> tensor<{len}xf32, #l>
    %y = arith.addf %acc#0, %ns : tensor<{len}xf32, #l>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<{len}x!tt.ptr<f32>, #l>
    %op = tt.addptr %os, %offs : tensor<{len}x!tt.ptr<f32>, #l>, tensor<{len}xi32, #l>
    tt.store %op, %y : tensor<{len}x!tt.ptr<f32>, #l>
    tt.return
  }}
}}"#,
            len = 4 * lanes
        );
        let k = lower(&text, arch);
        assert_eq!(k.program.op_counts()["while"], 1, "{arch}");
        let len = 4 * lanes as usize;
        let x: Vec<f32> = (0..2 * len).map(|i| (i % 13) as f32 - 6.0).collect();
        for n in [0i32, 1, 4, -3] {
            let mut buffers = vec![floats(&x), floats(&vec![-1.0; 2 * len])];
            for wg in 0..2 {
                let launch = Launch {
                    scalars: vec![n as u32 as u64],
                    workgroup: [wg, 0, 0],
                    grid: [2, 1, 1],
                };
                run_launch(&k.program, &mut buffers, &launch).unwrap();
            }
            let runs = n.max(0) as f32;
            for (i, &xi) in x.iter().enumerate() {
                let want = xi * runs * (runs - 1.0).max(0.0) / 2.0 + runs;
                assert_eq!(float(&buffers[1], i), want, "{arch}, n = {n}: element {i}");
            }
        }
        llc_accepts(&k, &format!("while_count_{arch}"));
    }
}

/// A while loop whose test reads an integer the body computes (a Collatz step: `k / 2` or
/// `3k + 1` by a uniform select), whose first part computes in registers what it passes on
/// (`2·acc`, in another order than the loop carries), and whose `do` region adds the uniform
/// to the tensor: `out = 2·acc` of the last test plus the last `k`, as a reference computes.
#[test]
fn a_while_loop_tests_what_its_body_computes() {
    for (arch, lanes) in [("gfx942", 64), ("gfx1100", 32)] {
        let text = format!(
            r#"
#l = #ttg.blocked<{{sizePerThread = [1], threadsPerWarp = [{lanes}], warpsPerCTA = [4], order = [0]}}>
module attributes {{"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @collatz(%x: !tt.ptr<i32>, %out: !tt.ptr<i32>, %n: i32) {{
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c3_i32 = arith.constant 3 : i32
    %cB = arith.constant {len} : i32
    %pid = tt.get_program_id x : i32
    %start = arith.muli %pid, %cB : i32
    %r = tt.make_range {{end = {len} : i32, start = 0 : i32}} : tensor<{len}xi32, #l>
    %s = tt.splat %start : i32 -> tensor<{len}xi32, #l>
    %offs = arith.addi %s, %r : tensor<{len}xi32, #l>
    %xs = tt.splat %x : !tt.ptr<i32> -> tensor<{len}x!tt.ptr<i32>, #l>
    %xp = tt.addptr %xs, %offs : tensor<{len}x!tt.ptr<i32>, #l>, tensor<{len}xi32, #l>
    %v = tt.load %xp : tensor<{len}x!tt.ptr<i32>, #l>
    %0:2 = scf.while (%k = %n, %acc = %v) : (i32, tensor<{len}xi32, #l>) -> (tensor<{len}xi32, #l>, i32) {{
      %go = arith.cmpi sgt, %k, %c1_i32 : i32
      %twice = arith.addi %acc, %acc : tensor<{len}xi32, #l>
      scf.condition(%go) %twice, %k : tensor<{len}xi32, #l>, i32
    }} do {{
    ^bb0(%twice: tensor<{len}xi32, #l>, %k: i32):
      %half = arith.divsi %k, %c2_i32 : i32
      %rem = arith.remsi %k, %c2_i32 : i32
      %even = arith.cmpi eq, %rem, %c0_i32 : i32
      %k3 = arith.muli %k, %c3_i32 : i32
      %k31 = arith.addi %k3, %c1_i32 : i32
      %next = arith.select %even, %half, %k31 : i32
      %ks = tt.splat %k : i32 -> tensor<{len}xi32, #l>
      %acc_1 = arith.addi %twice, %ks : tensor<{len}xi32, #l>
      scf.yield %next, %acc_1 : i32, tensor<{len}xi32, #l>
    }}
    %ks = tt.splat %0#1 : i32 -> tensor<{len}xi32, #l>
    %y = arith.addi %0#0, %ks : tensor<{len}xi32, #l>
    %os = tt.splat %out : !tt.ptr<i32> -> tensor<{len}x!tt.ptr<i32>, #l>
    %op = tt.addptr %os, %offs : tensor<{len}x!tt.ptr<i32>, #l>, tensor<{len}xi32, #l>
    tt.store %op, %y : tensor<{len}x!tt.ptr<i32>, #l>
    tt.return
  }}
}}"#,
            len = 4 * lanes
        );
        let k = lower(&text, arch);
        let len = 4 * lanes as usize;
        let x: Vec<u32> = (0..2 * len as u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        for n in [0i32, 1, 2, 6, 27] {
            let mut buffers = vec![words(&x), vec![0; 2 * len * 4]];
            for wg in 0..2 {
                let launch = Launch {
                    scalars: vec![n as u32 as u64],
                    workgroup: [wg, 0, 0],
                    grid: [2, 1, 1],
                };
                run_launch(&k.program, &mut buffers, &launch).unwrap();
            }
            for (i, &xi) in x.iter().enumerate() {
                let (mut k, mut acc) = (n, xi);
                let want = loop {
                    let twice = acc.wrapping_add(acc);
                    if k <= 1 {
                        break twice.wrapping_add(k as u32);
                    }
                    acc = twice.wrapping_add(k as u32);
                    k = if k % 2 == 0 { k / 2 } else { 3 * k + 1 };
                };
                assert_eq!(word(&buffers[1], i), want, "{arch}, n = {n}: element {i}");
            }
        }
        // The first part is two operations: the loop is rotated, its doubled tensor a phi at
        // the body's top fed by the guard's copy and the body's own.
        assert_eq!(tests_into_while_bodies(&k), 2, "{arch}");
        llc_accepts(&k, &format!("while_collatz_{arch}"));
    }
}

/// Triton's own `scf.while` (a Python `while` compiled by Triton 3.6.0,
/// `tests/fixtures/ttgir-forms/forms.gfx942.ttgir`: the regions' arguments share names) lowers
/// with the rest of its module: the loop computes `s ← √(s/2) + eˢ` n times over the column
/// sums' prefix sums, clamped to [-1, 1] and added atomically to `out` under the mask `c < n`;
/// the atomic's old values (held by several threads of the layout, broadcast from the one that
/// ran it) reduce to their maximum, which a compare-and-swap stores to `cnt` if it holds 0.
/// Checked in the interpreter and by llc.
#[test]
fn tritons_while_loop_lowers() {
    let path = format!(
        "{}/tests/fixtures/ttgir-forms/forms.gfx942.ttgir",
        env!("CARGO_MANIFEST_DIR")
    );
    let k = lower(&std::fs::read_to_string(&path).unwrap(), "gfx942");
    assert_eq!(k.program.op_counts()["while"], 1);
    // Column sums of 16 rows of (c + 1)/2¹⁶: their prefix sums stay inside (0, 1).
    let x: Vec<f32> = (0..16 * 64).map(|i| ((i % 64) + 1) as f32 / 65536.0).collect();
    let col: Vec<f32> = (0..64).map(|c| 16.0 * (c + 1) as f32 / 65536.0).collect();
    let prefix: Vec<f32> = col
        .iter()
        .scan(0.0f32, |acc, &c| {
            *acc += c;
            Some(*acc)
        })
        .collect();
    let before: Vec<f32> = (0..64).map(|c| c as f32 * 0.125).collect();
    for n in [0usize, 1, 3] {
        let mut buffers = vec![floats(&x), floats(&before), vec![0; 16 * 4], vec![0; 4]];
        run_launch(&k.program, &mut buffers, &Launch::single(vec![n as u64])).unwrap();
        for (c, &p) in prefix.iter().enumerate() {
            let s = (0..n).fold(p, |s, _| (s * 0.5).sqrt() + s.exp());
            let want = before[c] + if c < n { s.clamp(-1.0, 1.0) } else { 0.0 };
            let got = float(&buffers[1], c);
            assert!(
                (got - want).abs() <= 1e-6,
                "n = {n}: out[{c}] = {got}, not {want}"
            );
        }
        // Each row's argmax is its last column.
        for r in 0..16 {
            assert_eq!(word(&buffers[2], r), 63, "n = {n}: idx[{r}]");
        }
        // Masked lanes' old values read 0; the largest old value of the others is out[n - 1].
        let largest = if n == 0 { 0.0 } else { before[n - 1] };
        assert_eq!(word(&buffers[3], 0), largest.to_bits(), "n = {n}: cnt");
    }
    // Triton's first part is a compare: rotated.
    assert_eq!(tests_into_while_bodies(&k), 2);
    llc_accepts(&k, "forms_while");
}

/// A spin lock's `while` carries nothing (Triton's TTGIR of `while tl.atomic_cas(lock, 0, 1)
/// == 1: pass`, `tests/fixtures/lower/ttgir-people`): rotating it would copy the
/// compare-and-swap with its fences and save only the branch back, so a header tests it.
#[test]
fn a_spin_loop_is_not_rotated() {
    let path = format!(
        "{}/tests/fixtures/lower/ttgir-people/spin_lock_i32.gfx942.ttgir",
        env!("CARGO_MANIFEST_DIR")
    );
    let k = lower(&std::fs::read_to_string(&path).unwrap(), "gfx942");
    assert_eq!(k.program.op_counts()["while"], 1);
    assert_eq!(tests_into_while_bodies(&k), 1);
    llc_accepts(&k, "spin_lock");
}

/// A while loop whose test is computed in registers, `while max(v) > bound: v = v / 2`: the
/// maximum is a reduction across warps (through LDS, again each iteration) compared with a
/// float argument, one bit every thread holds, read from the first lane for a uniform branch.
/// Each workgroup halves its own block as often as its own maximum asks, and stores it plus
/// the count.
#[test]
fn a_while_loop_tests_a_value_in_registers() {
    for (arch, lanes) in [("gfx942", 64), ("gfx1100", 32)] {
        let text = format!(
            r#"
#l = #ttg.blocked<{{sizePerThread = [2], threadsPerWarp = [{lanes}], warpsPerCTA = [4], order = [0]}}>
module attributes {{"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @halve(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %bound: f32) {{
    %half = arith.constant dense<5.000000e-01> : tensor<{len}xf32, #l>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %cB = arith.constant {len} : i32
    %pid = tt.get_program_id x : i32
    %start = arith.muli %pid, %cB : i32
    %r = tt.make_range {{end = {len} : i32, start = 0 : i32}} : tensor<{len}xi32, #l>
    %s = tt.splat %start : i32 -> tensor<{len}xi32, #l>
    %offs = arith.addi %s, %r : tensor<{len}xi32, #l>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<{len}x!tt.ptr<f32>, #l>
    %xp = tt.addptr %xs, %offs : tensor<{len}x!tt.ptr<f32>, #l>, tensor<{len}xi32, #l>
    %v = tt.load %xp : tensor<{len}x!tt.ptr<f32>, #l>
    %0:2 = scf.while (%v_0 = %v, %i = %c0_i32) : (tensor<{len}xf32, #l>, i32) -> (tensor<{len}xf32, #l>, i32) {{
      %m = "tt.reduce"(%v_0) <{{axis = 0 : i32}}> ({{
      ^bb0(%a: f32, %b: f32):
        %mx = arith.maxnumf %a, %b : f32
        tt.reduce.return %mx : f32
      }}) : (tensor<{len}xf32, #l>) -> f32
      %go = arith.cmpf ogt, %m, %bound : f32
      scf.condition(%go) %v_0, %i : tensor<{len}xf32, #l>, i32
    }} do {{
    ^bb0(%v_0: tensor<{len}xf32, #l>, %i: i32):
      %v_1 = arith.mulf %v_0, %half : tensor<{len}xf32, #l>
      %i_2 = arith.addi %i, %c1_i32 : i32
      scf.yield %v_1, %i_2 : tensor<{len}xf32, #l>, i32
    }}
    %nf = arith.sitofp %0#1 : i32 to f32
    %ns = tt.splat %nf : f32 -> tensor<{len}xf32, #l>
    %y = arith.addf %0#0, %ns : tensor<{len}xf32, #l>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<{len}x!tt.ptr<f32>, #l>
    %op = tt.addptr %os, %offs : tensor<{len}x!tt.ptr<f32>, #l>, tensor<{len}xi32, #l>
    tt.store %op, %y : tensor<{len}x!tt.ptr<f32>, #l>
    tt.return
  }}
}}"#,
            len = 8 * lanes
        );
        let k = lower(&text, arch);
        let len = 8 * lanes as usize;
        // Workgroup w's largest element is 2^(3w) · 3/4: it halves 3w + 1 times to reach 1/2.
        let x: Vec<f32> = (0..3 * len)
            .map(|i| ((i % len) as f32 + 1.0) / len as f32 * 0.75 * (1u32 << (3 * (i / len))) as f32)
            .collect();
        let mut buffers = vec![floats(&x), floats(&vec![-1.0; 3 * len])];
        for wg in 0..3 {
            let launch = Launch {
                scalars: vec![u64::from(0.5f32.to_bits())],
                workgroup: [wg, 0, 0],
                grid: [3, 1, 1],
            };
            run_launch(&k.program, &mut buffers, &launch).unwrap();
        }
        for (w, block) in x.chunks(len).enumerate() {
            let (mut v, mut runs) = (block.to_vec(), 0);
            while v.iter().cloned().fold(f32::MIN, f32::max) > 0.5 {
                v.iter_mut().for_each(|e| *e *= 0.5);
                runs += 1;
            }
            assert_eq!(runs, 3 * w + 1, "{arch}: workgroup {w}");
            for (j, e) in v.iter().enumerate() {
                let i = w * len + j;
                assert_eq!(float(&buffers[1], i), e + runs as f32, "{arch}: element {i}");
            }
        }
        // The first part reduces across warps, too long to copy: a header tests it.
        assert_eq!(tests_into_while_bodies(&k), 1, "{arch}");
        llc_accepts(&k, &format!("while_halve_{arch}"));
    }
}

/// The offsets `row·32 + column` of a 32×32 tensor in layout `#{l}`, as `%off_{l}`.
fn offsets_32x32(l: &str) -> String {
    format!(
        r#"    %r_{l} = tt.make_range {{end = 32 : i32, start = 0 : i32}} : tensor<32xi32, #ttg.slice<{{dim = 1, parent = #{l}}}>>
    %c_{l} = tt.make_range {{end = 32 : i32, start = 0 : i32}} : tensor<32xi32, #ttg.slice<{{dim = 0, parent = #{l}}}>>
    %r2_{l} = tt.expand_dims %r_{l} {{axis = 1 : i32}} : tensor<32xi32, #ttg.slice<{{dim = 1, parent = #{l}}}>> -> tensor<32x1xi32, #{l}>
    %k_{l} = arith.constant dense<32> : tensor<32x1xi32, #{l}>
    %rs_{l} = arith.muli %r2_{l}, %k_{l} : tensor<32x1xi32, #{l}>
    %rb_{l} = tt.broadcast %rs_{l} : tensor<32x1xi32, #{l}> -> tensor<32x32xi32, #{l}>
    %c2_{l} = tt.expand_dims %c_{l} {{axis = 0 : i32}} : tensor<32xi32, #ttg.slice<{{dim = 0, parent = #{l}}}>> -> tensor<1x32xi32, #{l}>
    %cb_{l} = tt.broadcast %c2_{l} : tensor<1x32xi32, #{l}> -> tensor<32x32xi32, #{l}>
    %off_{l} = arith.addi %rb_{l}, %cb_{l} : tensor<32x32xi32, #{l}>
"#
    )
}

/// A while loop whose first part puts its tensor in a shared tile and passes the tile on: the
/// `do` region reads it back in another layout, doubles it and converts it back; after the loop
/// the last tile is read in that other layout and stored: `out = x · 2ⁿ` (for `n ≤ 0`, `x`).
#[test]
fn a_while_loop_passes_on_a_shared_tile() {
    for (arch, lanes, tpw, tpw_t) in [
        ("gfx942", 64, "[8, 8]", "[8, 8]"),
        ("gfx1100", 32, "[4, 8]", "[8, 4]"),
    ] {
        let text = format!(
            r#"
#a = #ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = {tpw}, warpsPerCTA = [2, 1], order = [1, 0]}}>
#b = #ttg.blocked<{{sizePerThread = [4, 1], threadsPerWarp = {tpw_t}, warpsPerCTA = [1, 2], order = [0, 1]}}>
#shared = #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}}>
#smem = #ttg.shared_memory
module attributes {{"ttg.num-warps" = 2 : i32, "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @tile(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {{
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
{a}{b}    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>, #a>
    %xp = tt.addptr %xs, %off_a : tensor<32x32x!tt.ptr<f32>, #a>, tensor<32x32xi32, #a>
    %v = tt.load %xp : tensor<32x32x!tt.ptr<f32>, #a>
    %0:2 = scf.while (%acc = %v, %i = %c0_i32) : (tensor<32x32xf32, #a>, i32) -> (!ttg.memdesc<32x32xf32, #shared, #smem>, i32) {{
      %t = ttg.local_alloc %acc : (tensor<32x32xf32, #a>) -> !ttg.memdesc<32x32xf32, #shared, #smem>
      %go = arith.cmpi slt, %i, %n : i32
      scf.condition(%go) %t, %i : !ttg.memdesc<32x32xf32, #shared, #smem>, i32
    }} do {{
    ^bb0(%t: !ttg.memdesc<32x32xf32, #shared, #smem>, %i: i32):
      %w = ttg.local_load %t : !ttg.memdesc<32x32xf32, #shared, #smem> -> tensor<32x32xf32, #b>
      %w2 = arith.addf %w, %w : tensor<32x32xf32, #b>
      %acc_1 = ttg.convert_layout %w2 : tensor<32x32xf32, #b> -> tensor<32x32xf32, #a>
      %i_2 = arith.addi %i, %c1_i32 : i32
      scf.yield %acc_1, %i_2 : tensor<32x32xf32, #a>, i32
    }}
    %y = ttg.local_load %0#0 : !ttg.memdesc<32x32xf32, #shared, #smem> -> tensor<32x32xf32, #b>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>, #b>
    %op = tt.addptr %os, %off_b : tensor<32x32x!tt.ptr<f32>, #b>, tensor<32x32xi32, #b>
    tt.store %op, %y : tensor<32x32x!tt.ptr<f32>, #b>
    tt.return
  }}
}}"#,
            a = offsets_32x32("a"),
            b = offsets_32x32("b"),
        );
        let k = lower(&text, arch);
        let x: Vec<f32> = (0..32 * 32).map(|i| i as f32 - 500.0).collect();
        for n in [0i32, 1, 3, -2] {
            let mut buffers = vec![floats(&x), vec![0; 32 * 32 * 4]];
            run_launch(&k.program, &mut buffers, &Launch::single(vec![n as u32 as u64])).unwrap();
            for (i, &xi) in x.iter().enumerate() {
                let want = xi * (1u32 << n.max(0)) as f32;
                assert_eq!(float(&buffers[1], i), want, "{arch}, n = {n}: element {i}");
            }
        }
        llc_accepts(&k, &format!("while_tile_{arch}"));
    }
}

/// A while loop's test is a uniform condition, a constant or a scalar: `while False` never runs
/// its `do` region (the results are what the first part passes on from the initial values),
/// and a test that is none of them (here a tensor of conditions, which the reader takes) is
/// refused in one line naming `scf.condition` and its line.
#[test]
fn a_while_loops_test_is_uniform_or_refused() {
    let module = |lanes: u32, test: &str| {
        format!(
            r#"
#l = #ttg.blocked<{{sizePerThread = [1], threadsPerWarp = [{lanes}], warpsPerCTA = [1], order = [0]}}>
module attributes {{"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @never(%x: !tt.ptr<i32>, %out: !tt.ptr<i32>, %n: i32) {{
    %false = arith.constant false
    %r = tt.make_range {{end = {lanes} : i32, start = 0 : i32}} : tensor<{lanes}xi32, #l>
    %ns = tt.splat %n : i32 -> tensor<{lanes}xi32, #l>
    %mask = arith.cmpi slt, %r, %ns : tensor<{lanes}xi32, #l>
    %xs = tt.splat %x : !tt.ptr<i32> -> tensor<{lanes}x!tt.ptr<i32>, #l>
    %xp = tt.addptr %xs, %r : tensor<{lanes}x!tt.ptr<i32>, #l>, tensor<{lanes}xi32, #l>
    %v = tt.load %xp : tensor<{lanes}x!tt.ptr<i32>, #l>
    %0 = scf.while (%acc = %v) : (tensor<{lanes}xi32, #l>) -> tensor<{lanes}xi32, #l> {{
      %twice = arith.addi %acc, %acc : tensor<{lanes}xi32, #l>
      scf.condition({test}) %twice : tensor<{lanes}xi32, #l>
    }} do {{
    ^bb0(%twice: tensor<{lanes}xi32, #l>):
      %acc_1 = arith.muli %twice, %twice : tensor<{lanes}xi32, #l>
      scf.yield %acc_1 : tensor<{lanes}xi32, #l>
    }}
    %os = tt.splat %out : !tt.ptr<i32> -> tensor<{lanes}x!tt.ptr<i32>, #l>
    %op = tt.addptr %os, %r : tensor<{lanes}x!tt.ptr<i32>, #l>, tensor<{lanes}xi32, #l>
    tt.store %op, %0 : tensor<{lanes}x!tt.ptr<i32>, #l>
    tt.return
  }}
}}"#
        )
    };
    for (arch, lanes) in [("gfx942", 64), ("gfx1100", 32)] {
        let k = lower(&module(lanes, "%false"), arch);
        let x: Vec<u32> = (0..lanes).map(|i| i * 7 + 1).collect();
        let mut buffers = vec![words(&x), vec![0; lanes as usize * 4]];
        run_launch(&k.program, &mut buffers, &Launch::single(vec![5])).unwrap();
        for (i, &xi) in x.iter().enumerate() {
            assert_eq!(word(&buffers[1], i), 2 * xi, "{arch}: element {i}");
        }
        llc_accepts(&k, &format!("while_never_{arch}"));
    }
    let e = ttgir_kernel(
        &Module::parse(&module(64, "%mask")).unwrap(),
        Target::by_name("gfx942").unwrap(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("line 14: scf.condition: tests "), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
}

/// A scalar comparison that is no signed condition on uniforms (`ult`: unsigned) is computed in
/// registers, and a select by it picks between uniforms: `out = a <u b ? a : b`.
#[test]
fn an_unsigned_scalar_comparison_is_computed_in_registers() {
    for (arch, lanes) in [("gfx942", 64), ("gfx1100", 32)] {
        let text = format!(
            r#"
module attributes {{"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @umin(%a: i32, %b: i32, %out: !tt.ptr<i32>) {{
    %c = arith.cmpi ult, %a, %b : i32
    %x = arith.select %c, %a, %b : i32
    tt.store %out, %x : !tt.ptr<i32>
    tt.return
  }}
}}"#
        );
        let k = lower(&text, arch);
        for (a, b) in [(3u32, 5u32), (u32::MAX, 5), (7, 7)] {
            let mut buffers = vec![vec![0u8; 4]];
            run_launch(
                &k.program,
                &mut buffers,
                &Launch::single(vec![u64::from(a), u64::from(b)]),
            )
            .unwrap();
            assert_eq!(word(&buffers[0], 0), a.min(b), "{arch}: {a} <u {b}");
        }
        llc_accepts(&k, &format!("umin_{arch}"));
    }
}

/// Law: an integer widened only to become a float converts as the narrow integer did —
/// `sitofp(extsi x) = sitofp x` and `uitofp(extui x) = uitofp x` — negative and large values
/// included (the lowering converts from the narrow width; the hardware has no 64-bit one).
#[test]
fn a_widened_integer_converts_as_itself() {
    let text = r#"
#l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%in: !tt.ptr<i32>, %s: !tt.ptr<f32>, %u: !tt.ptr<f32>) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
    %p = tt.splat %in : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
    %q = tt.addptr %p, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
    %x = tt.load %q : tensor<64x!tt.ptr<i32>, #l>
    %xs = arith.extsi %x : tensor<64xi32, #l> to tensor<64xi64, #l>
    %fs = arith.sitofp %xs : tensor<64xi64, #l> to tensor<64xf32, #l>
    %xu = arith.extui %x : tensor<64xi32, #l> to tensor<64xi64, #l>
    %fu = arith.uitofp %xu : tensor<64xi64, #l> to tensor<64xf32, #l>
    %ps = tt.splat %s : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #l>
    %qs = tt.addptr %ps, %r : tensor<64x!tt.ptr<f32>, #l>, tensor<64xi32, #l>
    tt.store %qs, %fs : tensor<64x!tt.ptr<f32>, #l>
    %pu = tt.splat %u : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #l>
    %qu = tt.addptr %pu, %r : tensor<64x!tt.ptr<f32>, #l>, tensor<64xi32, #l>
    tt.store %qu, %fu : tensor<64x!tt.ptr<f32>, #l>
    tt.return
  }
}"#;
    let input: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    for arch in ["gfx942", "gfx950"] {
        let k = lower(text, arch);
        let mut buffers = vec![words(&input), vec![0; 256], vec![0; 256]];
        run_launch(&k.program, &mut buffers, &Launch::single(vec![])).unwrap();
        for (i, &x) in input.iter().enumerate() {
            assert_eq!(
                f32::from_bits(word(&buffers[1], i)),
                x as i32 as f32,
                "{arch} signed {x:#x}"
            );
            assert_eq!(
                f32::from_bits(word(&buffers[2], i)),
                x as f32,
                "{arch} unsigned {x:#x}"
            );
        }
        llc_accepts(&k, &format!("widened_{arch}"));
    }
}

/// 16-bit float atomic adds of two consecutive elements a thread holds go to their 32-bit word
/// as one packed add (a `<2 x half>` atomic: `global_atomic_pk_add_f16` where the target has it,
/// one compare-and-swap loop on gfx1100), even under a mask that splits a pair (`n` odd): the
/// masked half adds −0.0, memory past `n` stays as it was, and each old value is its own
/// element's.
#[test]
fn half_atomic_adds_go_two_to_a_word() {
    // f16 codes of 0, 1, 2, 3, 4.
    const CODES: [u16; 5] = [0x0000, 0x3C00, 0x4000, 0x4200, 0x4400];
    for (arch, lanes) in [("gfx942", 64u64), ("gfx1100", 32)] {
        let len = 2 * lanes * 4;
        let text = format!(
            r#"
#l = #ttg.blocked<{{sizePerThread = [2], threadsPerWarp = [{lanes}], warpsPerCTA = [4], order = [0]}}>
module attributes {{"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @add_half(%x: !tt.ptr<f16> {{tt.divisibility = 16 : i32}}, %out: !tt.ptr<f16> {{tt.divisibility = 16 : i32}}, %old: !tt.ptr<f16> {{tt.divisibility = 16 : i32}}, %n: i32) {{
    %cB = arith.constant {len} : i32
    %pid = tt.get_program_id x : i32
    %start = arith.muli %pid, %cB : i32
    %r = tt.make_range {{end = {len} : i32, start = 0 : i32}} : tensor<{len}xi32, #l>
    %s = tt.splat %start : i32 -> tensor<{len}xi32, #l>
    %offs = arith.addi %s, %r : tensor<{len}xi32, #l>
    %ns = tt.splat %n : i32 -> tensor<{len}xi32, #l>
    %m = arith.cmpi slt, %offs, %ns : tensor<{len}xi32, #l>
    %xs = tt.splat %x : !tt.ptr<f16> -> tensor<{len}x!tt.ptr<f16>, #l>
    %xp = tt.addptr %xs, %offs : tensor<{len}x!tt.ptr<f16>, #l>, tensor<{len}xi32, #l>
    %v = tt.load %xp, %m : tensor<{len}x!tt.ptr<f16>, #l>
    %os = tt.splat %out : !tt.ptr<f16> -> tensor<{len}x!tt.ptr<f16>, #l>
    %op = tt.addptr %os, %offs : tensor<{len}x!tt.ptr<f16>, #l>, tensor<{len}xi32, #l>
    %before = tt.atomic_rmw fadd, acq_rel, gpu, %op, %v, %m : (tensor<{len}x!tt.ptr<f16>, #l>, tensor<{len}xf16, #l>, tensor<{len}xi1, #l>) -> tensor<{len}xf16, #l>
    %ws = tt.splat %old : !tt.ptr<f16> -> tensor<{len}x!tt.ptr<f16>, #l>
    %wp = tt.addptr %ws, %offs : tensor<{len}x!tt.ptr<f16>, #l>, tensor<{len}xi32, #l>
    tt.store %wp, %before, %m : tensor<{len}x!tt.ptr<f16>, #l>
    tt.return
  }}
}}
"#
        );
        let k = lower(&text, arch);
        // One packed atomic per pair of registers.
        assert_eq!(k.program.op_counts()["global_atomic"], 1, "{arch}");
        let total = 2 * len as usize;
        let halves = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let before: Vec<u16> = (0..total).map(|i| CODES[i % 4]).collect();
        for n in [total, total - 1, len as usize + 3] {
            let mut buffers = vec![
                halves(&vec![CODES[1]; total]),
                halves(&before),
                vec![0; 2 * total],
            ];
            for w in 0..2 {
                let launch = Launch {
                    scalars: vec![n as u64],
                    workgroup: [w, 0, 0],
                    grid: [2, 1, 1],
                };
                run_launch(&k.program, &mut buffers, &launch).unwrap();
            }
            let half = |b: &[u8], i: usize| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]);
            for i in 0..total {
                let want = if i < n { CODES[i % 4 + 1] } else { before[i] };
                assert_eq!(half(&buffers[1], i), want, "{arch}, n = {n}: out[{i}]");
                let old = if i < n { before[i] } else { 0 };
                assert_eq!(half(&buffers[2], i), old, "{arch}, n = {n}: old[{i}]");
            }
        }
        llc_accepts(&k, &format!("add_half_{arch}"));
    }
}

/// A load every thread makes of the same unmasked element (`tl.load(ids + pid)`) is a plain
/// global load in the LLVM IR, which LLVM turns into a scalar load (`s_load_dword`) where nothing
/// before it writes the buffer: the value then lives in scalar registers, as Triton's does.
#[test]
fn a_uniform_unmasked_load_is_a_scalar_load() {
    let text = r#"
#l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @row_of(%ids: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {
    %pid = tt.get_program_id x : i32
    %p = tt.addptr %ids, %pid : !tt.ptr<i32>, i32
    %id = tt.load %p : !tt.ptr<i32>
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
    %s = tt.splat %id : i32 -> tensor<64xi32, #l>
    %v = arith.addi %s, %r : tensor<64xi32, #l>
    %c64 = arith.constant 64 : i32
    %base = arith.muli %pid, %c64 : i32
    %b = tt.splat %base : i32 -> tensor<64xi32, #l>
    %o = arith.addi %b, %r : tensor<64xi32, #l>
    %os = tt.splat %out : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
    %op = tt.addptr %os, %o : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
    tt.store %op, %v : tensor<64x!tt.ptr<i32>, #l>
    tt.return
  }
}
"#;
    let k = lower(text, "gfx942");
    let ir = k.llvm_ir().unwrap();
    assert!(ir.contains("= load i32, ptr addrspace(1)"), "{ir}");
    let ids: Vec<u32> = vec![7, 100, 9];
    let mut buffers = vec![words(&ids), vec![0; 4 * 64 * 3]];
    for w in 0..3 {
        let launch = Launch {
            scalars: vec![],
            workgroup: [w, 0, 0],
            grid: [3, 1, 1],
        };
        run_launch(&k.program, &mut buffers, &launch).unwrap();
    }
    for (w, &id) in ids.iter().enumerate() {
        for i in 0..64 {
            assert_eq!(word(&buffers[1], 64 * w + i), id + i as u32, "out[{w}][{i}]");
        }
    }
    if let Some(llc) = llc() {
        let dir = std::env::temp_dir().join(format!("ll-general-uniform-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let asm = compile(llc, &ir, k.target, &dir, "uniform_load").unwrap();
        assert!(asm.contains("s_load_dword "), "{asm}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A reduction's lane steps by DPP are one instruction each: LLVM folds the move into the
/// combine that reads it (`v_add_f32_dpp`, `v_add_nc_u32_dpp`), and the cost model counts
/// them so. A float maximum keeps its moves (LLVM quiets the operands of `maxnum` first, in
/// Triton's code too). A sum, a maximum and an integer sum of one warp's elements; the
/// interpreter checks each against its reference.
#[test]
fn dpp_moves_fold_into_the_reductions_combines() {
    for (arch, lanes) in [("gfx942", 64u32), ("gfx1100", 32)] {
        let mut modelled = std::collections::HashMap::new();
        for (ty, combine) in [
            ("f32", "arith.addf"),
            ("f32", "arith.maxnumf"),
            ("i32", "arith.addi"),
        ] {
            let text = format!(
                r#"
#l = #ttg.blocked<{{sizePerThread = [1], threadsPerWarp = [{lanes}], warpsPerCTA = [1], order = [0]}}>
module attributes {{"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @total(%x: !tt.ptr<{ty}>, %out: !tt.ptr<{ty}>) {{
    %r = tt.make_range {{end = {lanes} : i32, start = 0 : i32}} : tensor<{lanes}xi32, #l>
    %p = tt.splat %x : !tt.ptr<{ty}> -> tensor<{lanes}x!tt.ptr<{ty}>, #l>
    %q = tt.addptr %p, %r : tensor<{lanes}x!tt.ptr<{ty}>, #l>, tensor<{lanes}xi32, #l>
    %v = tt.load %q : tensor<{lanes}x!tt.ptr<{ty}>, #l>
    %s = "tt.reduce"(%v) <{{axis = 0 : i32}}> ({{
    ^bb0(%a: {ty}, %b: {ty}):
      %c = {combine} %a, %b : {ty}
      tt.reduce.return %c : {ty}
    }}) : (tensor<{lanes}x{ty}, #l>) -> {ty}
    tt.store %out, %s : !tt.ptr<{ty}>
    tt.return
  }}
}}"#
            );
            let k = lower(&text, arch);
            let values: Vec<u32> = (0..lanes).map(|i| (i * 7 % 23) + 1).collect();
            let input: Vec<u32> = match ty {
                "f32" => values.iter().map(|&v| (v as f32).to_bits()).collect(),
                _ => values.clone(),
            };
            let mut buffers = vec![words(&input), vec![0; 4]];
            run_launch(&k.program, &mut buffers, &Launch::single(Vec::new())).unwrap();
            let want = match combine {
                "arith.maxnumf" => (*values.iter().max().unwrap() as f32).to_bits(),
                "arith.addf" => (values.iter().sum::<u32>() as f32).to_bits(),
                _ => values.iter().sum::<u32>(),
            };
            assert_eq!(word(&buffers[1], 0), want, "{arch} {combine}");
            let dpp = k.program.op_counts().get("dpp").copied().unwrap_or(0);
            assert!(dpp > 0, "{arch} {combine}: no DPP step");
            modelled.insert(combine, (kernel_cost(&k).instructions, dpp));
            if let Some(llc) = llc() {
                let dir = std::env::temp_dir().join(format!("ll-dpp-{arch}-{ty}-{}", std::process::id()));
                std::fs::create_dir_all(&dir).unwrap();
                let asm = compile(llc, &k.llvm_ir().unwrap(), k.target, &dir, "dpp").unwrap();
                let _ = std::fs::remove_dir_all(&dir);
                let moves = if combine == "arith.maxnumf" { dpp } else { 0 };
                assert_eq!(
                    asm.matches("v_mov_b32_dpp").count() as u64,
                    moves,
                    "{arch} {combine}:\n{asm}"
                );
                assert_eq!(
                    asm.matches("_dpp ").count() as u64,
                    dpp,
                    "{arch} {combine}:\n{asm}"
                );
            }
        }
        // The model: the maximum's moves are instructions of their own, the sum's are not.
        let ((sum, dpp), (max, _)) = (modelled["arith.addf"], modelled["arith.maxnumf"]);
        assert_eq!(max, sum + dpp, "{arch}");
    }
}

/// A row index a mask compared (`rows = pid·8 + arange` in `rows[:, None] < M`) addresses the
/// rows of a 2-D access at a runtime stride: `rows · stride` is one product per register, and
/// neither the coordinate's own product nor the uniform `pid·8·stride` (scalar code in the
/// buffer instruction's `soffset`) is computed — the code has no scalar multiply.
#[test]
fn a_row_index_a_mask_compared_addresses_the_rows() {
    let text = r#"
#b = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#r = #ttg.slice<{dim = 1, parent = #b}>
#c = #ttg.slice<{dim = 0, parent = #b}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @scale_rows(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %M: i32, %N: i32, %sx: i32, %sy: i32) {
    %zero = arith.constant dense<0.000000e+00> : tensor<8x64xf32, #b>
    %two = arith.constant dense<2.000000e+00> : tensor<8x64xf32, #b>
    %c8 = arith.constant 8 : i32
    %pid = tt.get_program_id x : i32
    %row0 = arith.muli %pid, %c8 : i32
    %ar = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #r>
    %s0 = tt.splat %row0 : i32 -> tensor<8xi32, #r>
    %rows = arith.addi %s0, %ar : tensor<8xi32, #r>
    %rows2 = tt.expand_dims %rows {axis = 1 : i32} : tensor<8xi32, #r> -> tensor<8x1xi32, #b>
    %Ms = tt.splat %M : i32 -> tensor<8x1xi32, #b>
    %rm = arith.cmpi slt, %rows2, %Ms : tensor<8x1xi32, #b>
    %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #c>
    %cols2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<64xi32, #c> -> tensor<1x64xi32, #b>
    %Ns = tt.splat %N : i32 -> tensor<1x64xi32, #b>
    %cm = arith.cmpi slt, %cols2, %Ns : tensor<1x64xi32, #b>
    %rmb = tt.broadcast %rm : tensor<8x1xi1, #b> -> tensor<8x64xi1, #b>
    %cmb = tt.broadcast %cm : tensor<1x64xi1, #b> -> tensor<8x64xi1, #b>
    %mask = arith.andi %rmb, %cmb : tensor<8x64xi1, #b>
    %colsb = tt.broadcast %cols2 : tensor<1x64xi32, #b> -> tensor<8x64xi32, #b>
    %sxs = tt.splat %sx : i32 -> tensor<8x1xi32, #b>
    %ox = arith.muli %rows2, %sxs : tensor<8x1xi32, #b>
    %px = tt.splat %x : !tt.ptr<f32> -> tensor<8x1x!tt.ptr<f32>, #b>
    %px1 = tt.addptr %px, %ox : tensor<8x1x!tt.ptr<f32>, #b>, tensor<8x1xi32, #b>
    %px2 = tt.broadcast %px1 : tensor<8x1x!tt.ptr<f32>, #b> -> tensor<8x64x!tt.ptr<f32>, #b>
    %px3 = tt.addptr %px2, %colsb : tensor<8x64x!tt.ptr<f32>, #b>, tensor<8x64xi32, #b>
    %v = tt.load %px3, %mask, %zero : tensor<8x64x!tt.ptr<f32>, #b>
    %w = arith.mulf %v, %two : tensor<8x64xf32, #b>
    %sys = tt.splat %sy : i32 -> tensor<8x1xi32, #b>
    %oy = arith.muli %rows2, %sys : tensor<8x1xi32, #b>
    %py = tt.splat %y : !tt.ptr<f32> -> tensor<8x1x!tt.ptr<f32>, #b>
    %py1 = tt.addptr %py, %oy : tensor<8x1x!tt.ptr<f32>, #b>, tensor<8x1xi32, #b>
    %py2 = tt.broadcast %py1 : tensor<8x1x!tt.ptr<f32>, #b> -> tensor<8x64x!tt.ptr<f32>, #b>
    %py3 = tt.addptr %py2, %colsb : tensor<8x64x!tt.ptr<f32>, #b>, tensor<8x64xi32, #b>
    tt.store %py3, %w, %mask : tensor<8x64x!tt.ptr<f32>, #b>
    tt.return
  }
}"#;
    let k = lower(text, "gfx942");
    let (m, n, sx, sy) = (20u32, 50u32, 56u32, 64u32);
    let x: Vec<f32> = (0..m * sx).map(|i| i as f32).collect();
    let mut buffers = vec![floats(&x), vec![0; (m * sy * 4) as usize]];
    for g in 0..m.div_ceil(8) {
        let launch = Launch {
            scalars: vec![m.into(), n.into(), sx.into(), sy.into()],
            workgroup: [g, 0, 0],
            grid: [m.div_ceil(8), 1, 1],
        };
        run_launch(&k.program, &mut buffers, &launch).unwrap();
    }
    for r in 0..m {
        for c in 0..sy {
            let want = if c < n { 2.0 * (r * sx + c) as f32 } else { 0.0 };
            assert_eq!(float(&buffers[1], (r * sy + c) as usize), want, "row {r} col {c}");
        }
    }
    if let Some(llc) = llc() {
        let dir = std::env::temp_dir().join(format!("ll-held-row-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let asm = compile(llc, &k.llvm_ir().unwrap(), k.target, &dir, "rows").unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(asm.matches("s_mul_i32").count(), 0, "{asm}");
        assert_eq!(asm.matches("v_mul_lo_u32").count(), 2, "{asm}");
    }
}
