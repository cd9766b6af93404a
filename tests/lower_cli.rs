//! `linear-layout lower`: the module on stdout or in a file, one-line errors.

use std::process::Command;

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_linear-layout"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

const BLOCKED: &str =
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>";
const MFMA: &str =
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>";

#[test]
fn copy_and_convert_print_one_module() {
    let (ok, out, _) = run(&[
        "lower", "copy", BLOCKED, "--shape", "128x128", "--dtype", "f16", "--arch", "gfx942",
    ]);
    assert!(ok);
    assert!(out.contains("target triple = \"amdgcn-amd-amdhsa\""));
    assert_eq!(out.matches("define amdgpu_kernel").count(), 1);
    assert!(out.contains("@copy(ptr addrspace(1) %in, ptr addrspace(1) %out)"));
    assert!(out.contains("\"amdgpu-flat-work-group-size\"=\"256,256\""));
    let file = std::env::temp_dir().join(format!("lower-cli-{}.ll", std::process::id()));
    let (ok, out, _) = run(&[
        "lower",
        "convert",
        BLOCKED,
        MFMA,
        "--shape",
        "100x128",
        "--dtype",
        "bf16",
        "--arch",
        "gfx942",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(ok && out.is_empty());
    let ir = std::fs::read_to_string(&file).unwrap();
    assert!(ir.contains("@convert(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(1) %regs)"));
    assert!(ir.contains("@lds = internal addrspace(3) global"));
    let _ = std::fs::remove_file(&file);
}

#[test]
fn matmul_prints_one_module() {
    let (ok, out, _) = run(&[
        "lower", "matmul", "--mnk", "64x64x32", "--dtype", "bf16", "--acc", "bf16", "--warps", "4", "--arch",
        "gfx950",
    ]);
    assert!(ok);
    assert_eq!(out.matches("define amdgpu_kernel").count(), 1);
    assert!(out.contains("@matmul(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c)"));
    assert!(out.contains("@llvm.amdgcn.mfma.f32.32x32x16.bf16("));
    assert!(out.contains("fptrunc <4 x float>"));
    let (ok, out, _) = run(&[
        "lower", "matmul", "--mnk", "32x32x32", "--dtype", "fp8", "--arch", "gfx1201",
    ]);
    assert!(ok);
    assert!(out.contains("@llvm.amdgcn.wmma.f32.16x16x16.fp8.fp8.v8f32.v2i32("));
}

#[test]
fn requests_it_cannot_serve_are_one_line_and_exit_1() {
    for args in [
        vec![
            "lower", "copy", BLOCKED, "--shape", "128x128", "--dtype", "f8", "--arch", "gfx942",
        ],
        vec![
            "lower", "copy", BLOCKED, "--shape", "128x128", "--arch", "gfx1100",
        ],
        vec![
            "lower", "copy", BLOCKED, "--shape", "128x128", "--arch", "gfx1030",
        ],
        vec![
            "lower",
            "copy",
            BLOCKED,
            "--shape",
            "65536x65536",
            "--arch",
            "gfx942",
        ],
        vec![
            "lower",
            "convert",
            BLOCKED,
            "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [2, 1], order = [1, 0]}>",
            "--shape",
            "128x128",
        ],
        vec!["lower", "matmul", "--mnk", "64x64", "--arch", "gfx942"],
        vec![
            "lower", "matmul", "--mnk", "64x64x32", "--dtype", "f64", "--arch", "gfx1100",
        ],
        vec![
            "lower", "matmul", "--mnk", "64x64x32", "--dtype", "fp8", "--arch", "gfx90a",
        ],
        vec![
            "lower", "matmul", "--mnk", "64x64x32", "--acc", "i32", "--arch", "gfx942",
        ],
    ] {
        let (ok, out, err) = run(&args);
        assert!(!ok && out.is_empty(), "{args:?}");
        assert!(
            err.starts_with("linear-layout: ") && err.trim_end().lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}

#[test]
fn lds_copy_prints_one_module_or_one_error_line() {
    let shared = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>";
    let (ok, out, err) = run(&[
        "lower", "lds-copy", BLOCKED, shared, MFMA, "--shape", "128x128", "--dtype", "f16", "--arch",
        "gfx950",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("@lds_copy(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(1) %regs)"));
    assert!(out.contains("@llvm.amdgcn.raw.ptr.buffer.load.lds("));
    // gfx942 loads at most 4 bytes per lane straight into LDS: lanes 8 elements apart are not
    // the hardware's order.
    let (ok, out, err) = run(&[
        "lower", "lds-copy", BLOCKED, shared, MFMA, "--shape", "128x128", "--dtype", "f16", "--arch",
        "gfx942",
    ]);
    assert!(!ok && out.is_empty());
    assert!(
        err.starts_with("linear-layout: ")
            && err.contains("one after another")
            && err.trim_end().lines().count() == 1,
        "{err}"
    );
}

#[test]
fn compile_takes_ttir_to_a_kernel_or_to_ttgir_and_refuses_in_one_line() {
    let ttir = "tests/fixtures/passes/people/vector_add_256_f32.gfx942.mlir";
    let text = std::fs::read_to_string(ttir).unwrap();
    let body = text
        .split("// ----- stage 0: ttir\n")
        .nth(1)
        .and_then(|r| r.split("// ----- stage 1").next())
        .unwrap();
    let file = std::env::temp_dir().join(format!("compile-cli-{}.ttir", std::process::id()));
    std::fs::write(&file, body).unwrap();
    let path = file.to_str().unwrap();
    let (ok, out, err) = run(&["compile", path, "--arch", "gfx942"]);
    assert!(ok, "{err}");
    assert_eq!(out.matches("define amdgpu_kernel void @add_kernel").count(), 1);
    let (ok, out, err) = run(&[
        "compile",
        path,
        "--arch",
        "gfx950",
        "--num-warps",
        "1",
        "--emit",
        "ttgir",
        "--explain",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("#ttg.blocked<{sizePerThread = [4]"), "{out}");
    assert!(err.contains("tt.load: anchor"), "{err}");
    assert!(err.contains("conversions left: 0"), "{err}");
    assert!(err.contains("kernel: ~"), "{err}");
    let (ok, triton, err) = run(&["compile", path, "--arch", "gfx942", "--layouts", "triton"]);
    assert!(ok, "{err}");
    let (_, cost, _) = run(&["compile", path, "--arch", "gfx942"]);
    assert_eq!(triton, cost, "one layout for the whole kernel: nothing to weigh");
    let (ok, _, err) = run(&["compile", path, "--arch", "gfx942", "--layouts", "greedy"]);
    assert!(!ok);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("unknown layout choice 'greedy'"), "{err}");
}
