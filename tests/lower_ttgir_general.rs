//! The general lowering of TTGIR values: what leaves the symbolic fast paths (affine indices,
//! coordinate bounds, constant `other`s) is computed in registers. Each module is small and
//! hand-written in the form `triton-opt` prints; each runs in the interpreter against a
//! reference over several workgroups, and llc-22 compiles it.

mod lower_common;

use linear_layout::lower::{Kernel, Launch, run_launch, ttgir_kernel};
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
        ("math.sqrt", ArithOp::Sqrt, &["f32", "f64"]),
        ("tt.precise_sqrt", ArithOp::Sqrt, &["f32"]),
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
                        ArithOp::Log | ArithOp::Log2 | ArithOp::Sqrt | ArithOp::Rsqrt
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
