//! Matrix instructions from layouts: for every MFMA / WMMA choice Triton's accelerate-matmul
//! makes over a sweep of shapes, types, warps and targets, `plan_dot` finds the calls, and
//! executing them with the instructions' own lane layouts computes `C + A·B` exactly.

use linear_layout::encodings::Encoding;
use linear_layout::heuristics::matmul::{DotKind, DotSpec, choose};
use linear_layout::linear::LinearLayout;
use linear_layout::lower::mma::{DotPlan, execute, plan_dot};
use linear_layout::target::Target;
use linear_layout::target::mma::{MMA_INSTRUCTIONS, MmaInstruction};

/// The instruction of a chosen result encoding.
fn instruction(result: &Encoding, ab: &str, acc: &str, target: &Target) -> Option<&'static MmaInstruction> {
    let shape = match result {
        Encoding::AmdMfma(m) => m.instr_shape.clone(),
        Encoding::AmdWmma(w) => w.instr_shape.clone(),
        _ => return None,
    };
    MMA_INSTRUCTIONS.iter().find(|i| {
        [i.m, i.n, i.k] == shape[shape.len() - 3..]
            && i.ab == ab
            && i.acc == acc
            && i.available(matrix_versions(target).0, matrix_versions(target).1)
    })
}

/// The MFMA and WMMA versions of a target.
fn matrix_versions(target: &Target) -> (Option<u32>, Option<u32>) {
    (target.matrix.mfma_version, target.matrix.wmma_version)
}

/// Value of a 2-D layout at (register, lane, warp), through the packed columns.
fn at(l: &LinearLayout, reg: u64, lane: u64, warp: u64) -> [usize; 2] {
    let (mut flat, mut shift) = (0u64, 0u32);
    for (name, size) in l.in_dims() {
        let v = match name.as_str() {
            "register" => reg,
            "lane" => lane,
            "warp" => warp,
            _ => 0,
        };
        flat |= v << shift;
        shift += size.trailing_zeros();
    }
    let out = l.apply_flat(flat);
    let d0_bits = l.out_dims().next().map_or(0, |(_, s)| s.trailing_zeros());
    [(out & ((1 << d0_bits) - 1)) as usize, (out >> d0_bits) as usize]
}

/// Whether some lane bit of `l` moves nothing (lanes holding copies).
fn repeats_lanes(l: &LinearLayout) -> bool {
    (0..size(l, "lane").trailing_zeros()).any(|b| at(l, 0, 1 << b, 0) == [0, 0])
}

fn size(l: &LinearLayout, d: &str) -> u64 {
    l.in_dims().find(|(n, _)| n.as_str() == d).map_or(1, |(_, s)| s)
}

/// Runs the plan on every warp with small-integer matrices and compares with the product.
#[allow(clippy::too_many_arguments)]
fn check(
    plan: &DotPlan,
    a: &LinearLayout,
    b: &LinearLayout,
    c: &LinearLayout,
    m: usize,
    n: usize,
    k: usize,
    seed: u64,
) {
    let val = |i: usize, j: usize, s: u64| (((i * 31 + j * 17) as u64 ^ s) % 7) as f64 - 3.0;
    let am: Vec<Vec<f64>> = (0..m)
        .map(|i| (0..k).map(|j| val(i, j, seed)).collect())
        .collect();
    let bm: Vec<Vec<f64>> = (0..k)
        .map(|i| (0..n).map(|j| val(i, j, seed + 1)).collect())
        .collect();
    let cm: Vec<Vec<f64>> = (0..m)
        .map(|i| (0..n).map(|j| val(i, j, seed + 2)).collect())
        .collect();
    let instr = plan.instruction;
    let wave = u64::from(instr.wave);
    for w in 0..size(c, "warp") {
        let regs = |l: &LinearLayout, mat: &Vec<Vec<f64>>| -> Vec<Vec<f64>> {
            (0..wave)
                .map(|lane| {
                    (0..size(l, "register"))
                        .map(|r| {
                            let [x, y] = at(l, r, lane, w);
                            mat[x][y]
                        })
                        .collect()
                })
                .collect()
        };
        let (ra, rb) = (regs(a, &am), regs(b, &bm));
        let mut rc = regs(c, &cm);
        for call in &plan.calls {
            let gather = |regs: &Vec<Vec<f64>>, idx: &[u32]| -> Vec<Vec<f64>> {
                regs.iter()
                    .map(|lane| idx.iter().map(|&r| lane[r as usize]).collect())
                    .collect()
            };
            let (xa, xb, xc) = (gather(&ra, &call.a), gather(&rb, &call.b), gather(&rc, &call.c));
            let d = if plan.swapped {
                execute(instr, &xb, &xa, &xc)
            } else {
                execute(instr, &xa, &xb, &xc)
            };
            for (lane, vals) in d.iter().enumerate() {
                for (t, v) in vals.iter().enumerate() {
                    rc[lane][call.c[t] as usize] = *v;
                }
            }
        }
        for lane in 0..wave {
            for r in 0..size(c, "register") {
                let [i, j] = at(c, r, lane, w);
                let want: f64 = cm[i][j] + (0..k).map(|kk| am[i][kk] * bm[kk][j]).sum::<f64>();
                assert_eq!(
                    rc[lane as usize][r as usize], want,
                    "{} warp {w} lane {lane} reg {r}",
                    instr.intrinsic
                );
            }
        }
    }
}

#[test]
fn heuristic_dots_plan_and_compute() {
    let (mut planned, mut skipped) = (0, 0);
    let mut seen = std::collections::BTreeSet::new();
    for arch in ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"] {
        let target = Target::by_name(arch).unwrap();
        // `tf32`: an f32 dot at TF32 precision (gfx942's XF32 instructions; f32 ones elsewhere).
        for (ab, acc, tf32) in [
            ("f16", "f32", false),
            ("bf16", "f32", false),
            ("f32", "f32", false),
            ("f32", "f32", true),
            ("i8", "i32", false),
        ] {
            for (m, n, k) in [
                (16, 16, 16),
                (32, 32, 32),
                (64, 64, 32),
                (128, 128, 64),
                (32, 128, 16),
            ] {
                for warps in [1, 4, 8] {
                    for kpack in [1, 2] {
                        let mut spec = DotSpec::new(arch, ab, ab, acc, &[m, n], k, warps);
                        spec.kpack = kpack;
                        spec.tf32 = tf32;
                        let Ok(choice) = choose(&spec) else { continue };
                        if !matches!(choice.kind, DotKind::Mfma | DotKind::Wmma) {
                            continue;
                        }
                        let Some(instr) = tf32
                            .then(|| instruction(&choice.result, "tf32", &choice.c_elem, target))
                            .flatten()
                            .or_else(|| instruction(&choice.result, &choice.a_elem, &choice.c_elem, target))
                        else {
                            panic!("{arch} {ab}: no instruction for {}", choice.result);
                        };
                        let la = choice.a.to_linear_layout(&[m, k]).unwrap();
                        let lb = choice.b.to_linear_layout(&[k, n]).unwrap();
                        let lc = choice.result.to_linear_layout(&[m, n]).unwrap();
                        let plan = match plan_dot(&la, &lb, &lc, instr, target.wave_size) {
                            Ok(p) => p,
                            // K shorter than the lanes' K groups (kWidth · kPack too wide): the
                            // operand repeats itself across lanes the instruction sums over.
                            Err(_) if repeats_lanes(&la) || repeats_lanes(&lb) => {
                                skipped += 1;
                                continue;
                            }
                            Err(e) => panic!("{arch} {ab} {m}x{n}x{k} w{warps} {}: {e}", choice.result),
                        };
                        // The fewest calls: one per tile and step of K.
                        let tiles = (m / u64::from(instr.m)).max(1) * (n / u64::from(instr.n)).max(1);
                        let per_warp = tiles * (k / u64::from(instr.k)) / u64::from(warps);
                        assert!(plan.calls.len() as u64 >= per_warp.max(1), "{arch} {m}x{n}x{k}");
                        check(&plan, &la, &lb, &lc, m as usize, n as usize, k as usize, planned);
                        seen.insert(instr.intrinsic);
                        planned += 1;
                    }
                }
            }
        }
    }
    assert!(
        planned > 150 && skipped < planned / 4,
        "{planned} dots planned, {skipped} skipped"
    );
    assert!(seen.len() >= 10, "instructions exercised: {seen:?}");
    assert!(
        seen.iter().any(|i| i.ends_with(".xf32")),
        "no XF32 instruction exercised: {seen:?}"
    );
}

/// A plan that feeds the wrong operand registers (B's K steps reversed) computes a different
/// product: the check can fail.
#[test]
fn a_wrong_operand_order_is_caught() {
    let spec = DotSpec::new("gfx942", "f16", "f16", "f32", &[32, 32], 32, 1);
    let choice = choose(&spec).unwrap();
    let la = choice.a.to_linear_layout(&[32, 32]).unwrap();
    let lb = choice.b.to_linear_layout(&[32, 32]).unwrap();
    let lc = choice.result.to_linear_layout(&[32, 32]).unwrap();
    let instr = instruction(&choice.result, "f16", "f32", Target::by_name("gfx942").unwrap()).unwrap();
    let mut plan = plan_dot(&la, &lb, &lc, instr, 64).unwrap();
    assert!(plan.calls.len() >= 2);
    let first = plan.calls[0].b.clone();
    plan.calls[0].b = plan.calls[1].b.clone();
    plan.calls[1].b = first;
    let r = std::panic::catch_unwind(|| check(&plan, &la, &lb, &lc, 32, 32, 32, 5));
    assert!(r.is_err());
}

/// Every instruction of the table compiles with llc-22 on each target that has it (kernel list
/// not empty, the instruction in the assembly).
#[test]
fn every_instruction_compiles_where_available() {
    let llc = std::process::Command::new("llc-22").arg("--version").output();
    if llc.is_err() {
        eprintln!("note: llc-22 is not installed; skipping the llc check of the matrix instructions");
        return;
    }
    let mut compiled = 0;
    for arch in ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"] {
        let target = Target::by_name(arch).unwrap();
        let (mfma, wmma) = matrix_versions(target);
        let mut module = String::from("target triple = \"amdgcn-amd-amdhsa\"\n");
        let mut n = 0;
        for i in MMA_INSTRUCTIONS.iter().filter(|i| i.available(mfma, wmma)) {
            let (ab, acc) = (i.ab_llvm, i.acc_llvm);
            let args = i
                .call
                .arguments(&format!("{ab} %a"), &format!("{ab} %b"), &format!("{acc} %c"));
            module.push_str(&format!(
                "define amdgpu_kernel void @k{n}(ptr addrspace(1) %p, ptr addrspace(1) %q) {{\n  %a = load {ab}, ptr addrspace(1) %p\n  %pb = getelementptr i8, ptr addrspace(1) %p, i64 64\n  %b = load {ab}, ptr addrspace(1) %pb\n  %c = load {acc}, ptr addrspace(1) %q\n  %d = call {acc} @{}({args})\n  store {acc} %d, ptr addrspace(1) %q\n  ret void\n}}\n",
                i.intrinsic
            ));
            n += 1;
        }
        let dir = std::env::temp_dir().join(format!("ll-mma-{}-{arch}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ll = dir.join("m.ll");
        std::fs::write(&ll, &module).unwrap();
        let out = std::process::Command::new("llc-22")
            .args([
                "-march=amdgcn",
                &format!("-mcpu={arch}"),
                "-verify-machineinstrs",
                "-o",
                "-",
            ])
            .arg(&ll)
            .output()
            .unwrap();
        let asm = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{arch}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let calls = asm.matches("v_mfma").count() + asm.matches("v_wmma").count();
        assert!(calls >= n, "{arch}: {calls} matrix instructions for {n} kernels");
        assert_eq!(
            asm.matches(".amdhsa_kernel ").count(),
            n,
            "{arch}: kernels dropped"
        );
        compiled += n;
    }
    assert!(compiled > 40, "{compiled}");
}
