//! Our kernels beside Triton 3.6's for the anchors of codegen-anchor.md (copy 128x128 f16, the
//! 64x64 f32 transpose, blocked <-> MFMA at 128x128 f16), counted the same way: instruction
//! lines of the kernel body from its label to `s_endpgm`. The `convert` kernels are compared
//! without their `regs` stores (Triton's kernels only load, convert and store). Prints the table
//! of BENCHMARKS.md (`cargo test --release --test lower_anchors -- --nocapture`) and asserts
//! fewer instructions, no more LDS instructions and no more VGPRs than Triton on every row.

mod lower_common;

use linear_layout::encodings::Encoding;
use linear_layout::linear::LinearLayout;
use linear_layout::lower::matmul::{MatmulOptions, matmul_kernel};
use linear_layout::lower::{Dtype, Kernel, Op, convert_kernel, copy_kernel};
use linear_layout::target::Target;
use lower_common::*;

fn layout(attr: &str, shape: &[u64]) -> LinearLayout {
    attr.parse::<Encoding>().unwrap().to_linear_layout(shape).unwrap()
}

#[test]
fn anchors_beside_triton() {
    let Some(llc) = llc() else { return };
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("tests/fixtures/lower/triton_anchor_counts.json").unwrap(),
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("linear-layout-anchors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let blocked8 = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
    println!(
        "| kernel | arch | ours: total | Triton: total | ours: LDS (ds_read + ds_write) | Triton: LDS | ours: barriers | Triton: barriers | ours: VGPRs | Triton: VGPRs |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for arch in ["gfx942", "gfx950"] {
        let t = Target::by_name(arch).unwrap();
        let (v, i32x32, i16x16) = if arch == "gfx942" {
            (3, "[32, 32, 8]", "[16, 16, 16]")
        } else {
            (4, "[32, 32, 16]", "[16, 16, 32]")
        };
        let mfma = |instr: &str| {
            format!(
                "#ttg.amd_mfma<{{version = {v}, warpsPerCTA = [2, 2], instrShape = {instr}, isTransposed = true}}>"
            )
        };
        let s128 = [128u64, 128];
        let kernels: Vec<(&str, Kernel)> = vec![
            (
                "copy",
                copy_kernel(&layout("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>", &s128), &s128, Dtype::F16, t).unwrap(),
            ),
            (
                "transpose",
                convert_kernel(
                    &layout("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>", &[64, 64]),
                    &layout("#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 4], order = [0, 1]}>", &[64, 64]),
                    &[64, 64],
                    Dtype::F32,
                    t,
                )
                .unwrap(),
            ),
            ("blocked_to_mfma32", convert_kernel(&layout(blocked8, &s128), &layout(&mfma(i32x32), &s128), &s128, Dtype::F16, t).unwrap()),
            ("mfma32_to_blocked", convert_kernel(&layout(&mfma(i32x32), &s128), &layout(blocked8, &s128), &s128, Dtype::F16, t).unwrap()),
            ("blocked_to_mfma16", convert_kernel(&layout(blocked8, &s128), &layout(&mfma(i16x16), &s128), &s128, Dtype::F16, t).unwrap()),
        ];
        for (name, mut k) in kernels {
            // Without the regs output: the kernel Triton's code computes.
            k.program
                .ops
                .retain(|op| !matches!(op, Op::GlobalStore { buffer: 2, .. }));
            let asm = compile(llc, &k.llvm_ir().unwrap(), t, &dir, &format!("{name}_{arch}")).unwrap();
            let counts = asm_counts(&asm);
            let lds: u64 = counts
                .iter()
                .filter(|(m, _)| m.starts_with("ds_read") || m.starts_with("ds_write"))
                .map(|(_, n)| n)
                .sum();
            let barriers = counts.get("s_barrier").copied().unwrap_or(0);
            let ours = total(&asm);
            let vgprs = metadata(&asm, ".vgpr_count:");
            let tr = &fixture[arch][name];
            let t_lds = tr["ds_read"].as_u64().unwrap() + tr["ds_write"].as_u64().unwrap();
            println!(
                "| {name} | {arch} | {ours} | {} | {lds} | {t_lds} | {barriers} | {} | {vgprs} | {} |",
                tr["total"], tr["s_barrier"], tr["vgpr_count"]
            );
            assert!(
                lds <= t_lds,
                "{name} {arch}: {lds} LDS instructions, Triton {t_lds}"
            );
            assert!(
                ours < tr["total"].as_u64().unwrap(),
                "{name} {arch}: {ours} instructions, Triton {}",
                tr["total"]
            );
            assert!(
                vgprs <= tr["vgpr_count"].as_u64().unwrap(),
                "{name} {arch}: {vgprs} VGPRs, Triton {}",
                tr["vgpr_count"]
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The 128×128×64 f16 matmul tile beside Triton's (f32 out and f16 out with 4 warps, f16 out
/// with 8): prints the matmul table of BENCHMARKS.md. Asserts what the kernel meets: the fewest
/// matrix instructions for the shape (one per instruction tile and step of K, shared by the
/// warps; gfx950's 32x32x16 halves them), no more LDS instructions than Triton, one barrier.
#[test]
fn matmul_beside_triton() {
    let Some(llc) = llc() else { return };
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("tests/fixtures/lower/triton_anchor_counts.json").unwrap(),
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("linear-layout-matmul-anchors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    println!(
        "| tile | arch | ours: total | Triton: total | ours: v_mfma | Triton: v_mfma | ours: ds_read | Triton: ds_read | ours: ds_write | Triton: ds_write | ours: v_cvt | Triton: v_cvt | ours: VGPRs | Triton: VGPRs |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for arch in ["gfx942", "gfx950"] {
        let t = Target::by_name(arch).unwrap();
        for (name, out, warps) in [
            ("matmul_f32out_w4", "f32", 4u32),
            ("matmul_f16out_w4", "f16", 4),
            ("matmul_f16out_w8", "f16", 8),
        ] {
            let k = matmul_kernel(128, 128, 64, "f16", out, warps, t, MatmulOptions::default()).unwrap();
            let Some(Op::Mma { instruction: i, .. }) =
                k.program.ops.iter().find(|op| matches!(op, Op::Mma { .. }))
            else {
                panic!("{name} {arch}: no matrix instruction");
            };
            let fewest =
                (128 / u64::from(i.m)) * (128 / u64::from(i.n)) * (64 / u64::from(i.k)) / u64::from(warps);
            let asm = compile(llc, &k.llvm_ir().unwrap(), t, &dir, &format!("{name}_{arch}")).unwrap();
            let counts = asm_counts(&asm);
            let sum = |prefixes: &[&str]| -> u64 {
                counts
                    .iter()
                    .filter(|(m, _)| prefixes.iter().any(|p| m.starts_with(p)))
                    .map(|(_, n)| n)
                    .sum()
            };
            let (mfma, reads, writes, cvt) = (
                sum(&["v_mfma"]),
                sum(&["ds_read", "ds_load"]),
                sum(&["ds_write", "ds_store"]),
                sum(&["v_cvt"]),
            );
            let tr = &fixture[arch][name];
            let field = |f: &str| tr[f].as_u64().unwrap();
            println!(
                "| 128x128x64 f16, {out} out, {warps} warps | {arch} | {} | {} | {mfma} | {} | {reads} | {} | {writes} | {} | {cvt} | {} | {} | {} |",
                total(&asm),
                field("total"),
                field("v_mfma"),
                field("ds_read"),
                field("ds_write"),
                field("v_cvt"),
                metadata(&asm, ".vgpr_count:"),
                field("vgpr_count")
            );
            assert_eq!(mfma, fewest, "{name} {arch}");
            assert!(mfma <= field("v_mfma"), "{name} {arch}");
            assert!(
                reads + writes <= field("ds_read") + field("ds_write"),
                "{name} {arch}: {reads} + {writes} LDS instructions"
            );
            assert!(
                counts.get("s_barrier").copied().unwrap_or(0) <= field("s_barrier"),
                "{name} {arch}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
