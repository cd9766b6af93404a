//! Kernels of the project's own, compiled by Triton 3.6 (`scripts/own_ttgir.py`) and lowered:
//! a row softmax, an i32 row sum and a column max, on gfx942, gfx950 and gfx1100, each run as
//! several workgroups of a grid (the program id moves the tile) and compared with what its
//! Python source computes; a WMMA matmul tile on gfx1100 and gfx1201 whose layouts are the
//! crate's own accelerate-matmul choice; llc accepts every one.

#[path = "lower_common/mod.rs"]
mod lower_common;

use linear_layout::heuristics::matmul::{DotKind, DotSpec, choose};
use linear_layout::lower::{Kernel, Launch, Op, run_launch, ttgir_kernel};
use linear_layout::target::Target;
use linear_layout::ttgir::Module;
use lower_common::{Rng, asm_counts, check_matmul, compile, family_count, llc, metadata, total};
use serde_json::Value as Json;

const DIR: &str = "tests/fixtures/lower/ttgir-own";

fn cases() -> Vec<Json> {
    let text = std::fs::read_to_string(format!("{DIR}/cases.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn lower(case: &Json) -> Kernel {
    let file = format!("{DIR}/{}", case["file"].as_str().unwrap());
    let m = Module::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let t = Target::by_name(case["arch"].as_str().unwrap()).unwrap();
    ttgir_kernel(&m, t).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The module's text with its dot's layouts replaced by what the crate's accelerate-matmul
/// heuristic chooses for that dot (`#mma` and the operands' `kWidth`), and the choice.
fn with_crate_layouts(text: &str, arch: &str) -> (String, DotKind) {
    let m = Module::parse(text).unwrap();
    let dot = m.ops.iter().find(|o| o.name == "tt.dot").expect("a tt.dot");
    let ty = |v: usize| &m.values[v].ty;
    let (a, c) = (ty(dot.operands[0]), ty(dot.results[0]));
    let spec = DotSpec::new(
        arch,
        &a.element,
        &ty(dot.operands[1]).element,
        &c.element,
        &c.shape,
        a.shape[1],
        m.num_warps,
    );
    let choice = choose(&spec).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let line = if line.starts_with("#mma = ") {
            format!("#mma = {}", choice.result)
        } else {
            let mut l = line.to_string();
            while let Some(p) = l.find("kWidth = ") {
                let end = p + 9 + l[p + 9..].find(|c: char| !c.is_ascii_digit()).unwrap();
                l.replace_range(p..end, &format!("kWidth@{}", choice.k_width));
            }
            l.replace("kWidth@", "kWidth = ")
        };
        out.push_str(&line);
        out.push('\n');
    }
    (out, choice.kind)
}

/// WMMA tiles in the layouts the crate's heuristic chooses (the same text as Triton's: the
/// heuristic is Triton's) compute the exact product, with one `v_wmma` per instruction planned.
#[test]
fn wmma_tiles_from_the_crates_heuristic_compute_the_product() {
    for case in cases()
        .into_iter()
        .filter(|c| c["id"].as_str().unwrap().contains("wmma"))
    {
        let arch = case["arch"].as_str().unwrap();
        let file = format!("{DIR}/{}", case["file"].as_str().unwrap());
        let triton = std::fs::read_to_string(&file).unwrap();
        let (text, kind) = with_crate_layouts(&triton, arch);
        assert_eq!(kind, DotKind::Wmma, "{arch}");
        let strip = |t: &str| {
            t.lines()
                .filter(|l| l.starts_with("#mma") || l.contains("kWidth"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            strip(&text),
            strip(&triton),
            "{arch}: the crate's choice differs from Triton's"
        );
        let k = ttgir_kernel(&Module::parse(&text).unwrap(), Target::by_name(arch).unwrap()).unwrap();
        assert!(k.program.op_counts()["mma"] > 0, "{arch}");
        check_matmul(&case, &k).unwrap_or_else(|e| panic!("{arch}: {e}"));
    }
}

fn arg(case: &Json, name: &str) -> usize {
    case["args"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == name)
        .and_then(|a| a["value"].as_u64())
        .unwrap() as usize
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn i32s(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Runs workgroup `pid` of a grid of `grid` on inputs scaled to the grid (the tile of each
/// workgroup exists) and compares the output with the reference over the tile of `pid`.
fn check(case: &Json, k: &Kernel, pid: u32, grid: u32) -> Result<(), String> {
    let reference = case["reference"].as_str().unwrap();
    let (m, n) = (
        case["constexprs"]["M"].as_u64().unwrap() as usize,
        case["constexprs"]["N"].as_u64().unwrap() as usize,
    );
    let stride = arg(case, "stride");
    // The tile moves along rows (softmax, rowsum) or columns (colmax).
    let (rows, cols) = if reference == "colmax" {
        (m, stride * grid as usize)
    } else {
        (m * grid as usize, stride)
    };
    let stride = if reference == "colmax" { cols } else { stride };
    let mut r = Rng(case["seed"].as_u64().unwrap() * 7919 + u64::from(pid) + 1);
    let x: Vec<u8> = match reference {
        // Small integers: sums are exact, and wrap as i32 does.
        "rowsum" => (0..rows * stride)
            .flat_map(|_| ((r.next() % 2001) as i32 - 1000).to_le_bytes())
            .collect(),
        _ => (0..rows * stride)
            .flat_map(|_| (((r.next() % 1601) as f32 - 800.0) / 100.0).to_le_bytes())
            .collect(),
    };
    let out_len = if reference == "softmax" {
        rows * stride
    } else {
        rows.max(cols)
    };
    let mut buffers = vec![x.clone(), vec![0u8; out_len * 4]];
    let mut scalars = vec![stride as u64];
    if reference == "softmax" {
        scalars.push(n as u64);
    }
    let launch = Launch {
        scalars,
        workgroup: [pid, 0, 0],
        grid: [grid, 1, 1],
    };
    run_launch(&k.program, &mut buffers, &launch).map_err(|e| format!("interpreter: {e}"))?;
    let p = pid as usize;
    match reference {
        "softmax" => {
            let (x, got) = (f32s(&x), f32s(&buffers[1]));
            for row in p * m..(p + 1) * m {
                let v = &x[row * stride..row * stride + n];
                let max = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let e: Vec<f64> = v.iter().map(|&a| f64::from(a - max).exp()).collect();
                let sum: f64 = e.iter().sum();
                for col in 0..n {
                    let want = e[col] / sum;
                    let g = f64::from(got[row * stride + col]);
                    if (g - want).abs() > 1e-5 * want.max(1e-3) {
                        return Err(format!("[{row}][{col}] = {g}, want {want}"));
                    }
                }
            }
        }
        "rowsum" => {
            let (x, got) = (i32s(&x), i32s(&buffers[1]));
            for row in p * m..(p + 1) * m {
                let want = x[row * stride..row * stride + n]
                    .iter()
                    .fold(0i32, |a, &b| a.wrapping_add(b));
                if got[row] != want {
                    return Err(format!("row {row}: {}, want {want}", got[row]));
                }
            }
        }
        "colmax" => {
            let (x, got) = (f32s(&x), f32s(&buffers[1]));
            for col in p * n..(p + 1) * n {
                let want = (0..m)
                    .map(|row| x[row * stride + col])
                    .fold(f32::NEG_INFINITY, f32::max);
                if got[col] != want {
                    return Err(format!("column {col}: {}, want {want}", got[col]));
                }
            }
        }
        other => return Err(format!("no reference {other}")),
    }
    Ok(())
}

#[test]
fn own_kernels_compute_what_their_sources_say() {
    let mut failures = Vec::new();
    for case in cases().into_iter().filter(|c| c["reference"] != "matmul") {
        let k = lower(&case);
        for pid in [0, 1, 3] {
            if let Err(e) = check(&case, &k, pid, 4) {
                failures.push(format!("{} (program {pid}): {e}", case["id"]));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A reduction whose combiner is swapped for another op is caught by the reference.
#[test]
fn a_wrong_combiner_is_caught() {
    let case = cases()
        .into_iter()
        .find(|c| c["id"] == "own/rowsum-gfx942")
        .unwrap();
    let file = format!("{DIR}/{}", case["file"].as_str().unwrap());
    let text = std::fs::read_to_string(file)
        .unwrap()
        .replace("arith.addi %arg3, %arg4", "arith.maxsi %arg3, %arg4");
    let m = Module::parse(&text).unwrap();
    let k = ttgir_kernel(&m, Target::by_name("gfx942").unwrap()).unwrap();
    assert!(check(&case, &k, 0, 1).is_err());
}

/// Triton's software-pipelined K loop (prologue loads guarded by `K > 0`, a loop of
/// `(K − BK) / BK` iterations storing the next tile to LDS while the dot reads this one, an
/// epilogue dot under `scf.if`) computes the product for K of 0 to 5 steps.
#[test]
fn the_pipelined_k_loop_computes_the_product() {
    for case in cases()
        .into_iter()
        .filter(|c| c["id"].as_str().unwrap().contains("kloop"))
    {
        let k = lower(&case);
        assert_eq!(k.program.op_counts()["loop"], 1);
        for steps in [0u64, 1, 2, 5] {
            let mut c = case.clone();
            for a in c["args"].as_array_mut().unwrap() {
                if a["name"] == "K" {
                    a["value"] = (steps * 32).into();
                }
            }
            check_matmul(&c, &k).unwrap_or_else(|e| panic!("{} K = {}: {e}", case["id"], steps * 32));
        }
    }
}

/// A weight gradient as people write it, `dW = Xᵀ·dY` over row blocks, in Triton's pipelined
/// form (`linear_bwd_dw_32x32x32_f16.gfx942.ttgir`):
///
/// ```text
/// for m in range(0, M, BM):
///     x = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.)
///     dy = tl.load(dy_ptr + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N), other=0.)
///     acc += tl.dot(tl.trans(x), dy)
/// ```
///
/// The loop carries the next block's row mask (a boolean tensor), keeps dY's next block in an
/// LDS slot allocated before it, and converts X's block through LDS inside the body: the
/// conversion's round trip must keep off the live slot, and the load only the conversion reads
/// is issued through it alone. Small integers keep every sum exact.
#[test]
fn a_pipelined_loop_carrying_masks_converts_beside_its_live_slot() {
    let text = std::fs::read_to_string(format!("{DIR}/linear_bwd_dw_32x32x32_f16.gfx942.ttgir")).unwrap();
    let m = Module::parse(&text).unwrap();
    let k = ttgir_kernel(&m, Target::by_name("gfx942").unwrap()).unwrap();
    let (rows, cols_k, cols_n) = (70usize, 40usize, 48usize);
    let x: Vec<i32> = (0..rows * cols_k).map(|i| (i * 5 % 7) as i32 - 3).collect();
    let dy: Vec<i32> = (0..rows * cols_n).map(|i| (i * 3 % 5) as i32 - 2).collect();
    let halves = |v: &[i32]| -> Vec<u8> {
        v.iter()
            .flat_map(|&a| {
                linear_layout::lower::numeric::encode("f16", f64::from(a))
                    .unwrap()
                    .to_le_bytes()[..2]
                    .to_vec()
            })
            .collect()
    };
    let mut buffers = vec![halves(&x), halves(&dy), vec![0; 4 * cols_k * cols_n]];
    let grid = [cols_k.div_ceil(32) as u32, cols_n.div_ceil(32) as u32, 1];
    for wx in 0..grid[0] {
        for wy in 0..grid[1] {
            let launch = Launch {
                scalars: vec![rows as u64, cols_k as u64, cols_n as u64],
                workgroup: [wx, wy, 0],
                grid,
            };
            run_launch(&k.program, &mut buffers, &launch).unwrap();
        }
    }
    let got = f32s(&buffers[2]);
    for r in 0..cols_k {
        for c in 0..cols_n {
            let want: i32 = (0..rows).map(|t| x[t * cols_k + r] * dy[t * cols_n + c]).sum();
            assert_eq!(got[r * cols_n + c], want as f32, "dW[{r}][{c}]");
        }
    }
}

/// A hash-table claim as people write it (`cas_claim_128_i32.gfx942.ttgir`), which Triton makes
/// an `amdg.buffer_atomic_cas`:
///
/// ```text
/// key = tl.abs(tl.load(keys_ptr + offs, mask=m, other=0)) + 1
/// slot = tl.where(m, key & (T - 1), T)
/// old = tl.atomic_cas(table_ptr + slot, tl.zeros_like(key), key)
/// tl.atomic_add(count_ptr, tl.sum(((old == 0) & m).to(tl.int32), 0))
/// tl.atomic_add(count_ptr + 1, tl.sum(((old != 0) & m).to(tl.int32), 0))
/// ```
///
/// Each of the 64 slots is won once, by the first key that reaches it; every other key loses.
#[test]
fn a_buffer_compare_and_swap_claims_each_slot_once() {
    let text = std::fs::read_to_string(format!("{DIR}/cas_claim_128_i32.gfx942.ttgir")).unwrap();
    let m = Module::parse(&text).unwrap();
    let k = ttgir_kernel(&m, Target::by_name("gfx942").unwrap()).unwrap();
    let n = 300usize;
    let keys: Vec<i32> = (0..384).map(|i| (i * 37 % 101) - 50).collect();
    let words = |v: &[i32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let mut buffers = vec![words(&keys), vec![0; 4 * 65], vec![0; 8]];
    for wg in 0..3 {
        let launch = Launch {
            scalars: vec![n as u64],
            workgroup: [wg, 0, 0],
            grid: [3, 1, 1],
        };
        run_launch(&k.program, &mut buffers, &launch).unwrap();
    }
    let slots: std::collections::BTreeSet<i32> = keys[..n].iter().map(|&x| (x.abs() + 1) & 63).collect();
    let counts = i32s(&buffers[2]);
    assert_eq!(
        counts,
        vec![slots.len() as i32, (n - slots.len()) as i32],
        "won, lost"
    );
    let table = i32s(&buffers[1]);
    for s in 0..64 {
        let first = keys[..n].iter().map(|&x| x.abs() + 1).find(|&key| key & 63 == s);
        assert_eq!(table[s as usize], first.unwrap_or(0), "slot {s}");
    }
}

/// `tt.trans` of data (a layout permuted, no data moved) and arithmetic with splat constants:
/// `out[r][c] = 2·x[c][r] + 1`, exact for the small integers used; fewer instructions than
/// Triton's code.
#[test]
fn a_scaled_transpose_computes_its_reference() {
    for arch in ["gfx942", "gfx950"] {
        let file = format!("{DIR}/scale_transpose_64x64_f32.{arch}.ttgir");
        let m = Module::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let k = ttgir_kernel(&m, Target::by_name(arch).unwrap()).unwrap();
        let stride = 72usize;
        let mut r = Rng(7);
        let x: Vec<f32> = (0..64 * stride)
            .map(|_| (r.next() % 200) as f32 - 100.0)
            .collect();
        let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut buffers = vec![bytes, vec![0u8; 64 * stride * 4]];
        let launch = Launch {
            scalars: vec![stride as u64],
            workgroup: [0; 3],
            grid: [1; 3],
        };
        run_launch(&k.program, &mut buffers, &launch).unwrap();
        let out = f32s(&buffers[1]);
        for row in 0..64 {
            for col in 0..64 {
                assert_eq!(
                    out[row * stride + col],
                    2.0 * x[col * stride + row] + 1.0,
                    "{arch} [{row}][{col}]"
                );
            }
        }
        if let Some(llc) = llc() {
            let dir = std::env::temp_dir().join(format!("ll-st-{}-{arch}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let asm = compile(llc, &k.llvm_ir().unwrap(), k.target, &dir, "st").unwrap();
            let triton =
                std::fs::read_to_string(format!("{DIR}/scale_transpose_64x64_f32.{arch}.amdgcn")).unwrap();
            assert!(
                total(&asm) < total(&triton),
                "{arch}: {} against {}",
                total(&asm),
                total(&triton)
            );
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// The loop's barriers are needed: without them the interpreter's race check catches a wave
/// reading LDS another wave is writing (or overwriting what one still reads).
#[test]
fn the_k_loop_without_its_barriers_races() {
    fn strip(ops: &mut Vec<Op>) {
        ops.retain(|o| !matches!(o, Op::Barrier));
        for o in ops {
            match o {
                Op::Loop { body, .. } => strip(body),
                Op::If { then, otherwise, .. } => {
                    strip(then);
                    strip(otherwise);
                }
                _ => {}
            }
        }
    }
    let case = cases()
        .into_iter()
        .find(|c| c["id"] == "own/matmul-kloop-gfx942")
        .unwrap();
    let mut k = lower(&case);
    assert!(check_matmul(&case, &k).is_ok());
    strip(&mut k.program.ops);
    let e = check_matmul(&case, &k).unwrap_err();
    assert!(e.contains("barrier") || e.contains("another wave"), "{e}");
}

/// llc accepts every kernel; the table beside Triton's counts is BENCHMARKS.md's (printed with
/// `--nocapture`), with fewer instructions than Triton asserted on every kernel. Triton's totals are counted here from its AMDGCN over the whole function
/// (its softmax stores in out-of-line blocks after a first `s_endpgm`, which the oracle's count
/// stops at); its other figures are the oracle's.
#[test]
fn llc_accepts_the_own_kernels_beside_tritons_counts() {
    let Some(llc) = llc() else {
        eprintln!("llc-22 not found: skipped");
        return;
    };
    let dir = std::env::temp_dir().join(format!("ll-own-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    println!(
        "| kernel | arch | ours: total | Triton: total | ours: global | Triton: global | ours: LDS | Triton: LDS | ours: VGPRs | Triton: VGPRs | ours: LDS bytes | Triton: LDS bytes |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for case in cases() {
        let k = lower(&case);
        let arch = case["arch"].as_str().unwrap();
        let file = case["file"].as_str().unwrap();
        let name = file.split('.').next().unwrap();
        let asm = compile(
            llc,
            &k.llvm_ir().unwrap(),
            k.target,
            &dir,
            &format!("{name}_{arch}"),
        )
        .unwrap_or_else(|e| panic!("{file}: {e}"));
        let counts = asm_counts(&asm);
        let family = |prefixes: &[&str]| family_count(&counts, prefixes);
        let fixture: Json = serde_json::from_str(
            &std::fs::read_to_string(format!("{DIR}/triton-counts.{arch}.json")).unwrap(),
        )
        .unwrap();
        let tr = &fixture["kernels"][name];
        let triton_asm = std::fs::read_to_string(format!("{DIR}/{name}.{arch}.amdgcn")).unwrap();
        let t_total = total(&triton_asm);
        let ours = total(&asm);
        // A kernel reading its workgroup id must not tell LLVM it does not.
        let source = std::fs::read_to_string(format!("{DIR}/{file}")).unwrap();
        let ir = k.llvm_ir().unwrap();
        for (axis, name) in ["x", "y", "z"].iter().enumerate() {
            if source.contains(&format!("tt.get_program_id {name}")) {
                assert!(
                    !ir.contains(&format!("amdgpu-no-workgroup-id-{name}")),
                    "{file}: axis {axis}"
                );
            }
        }
        let global = family(&["buffer_load", "buffer_store", "global_load", "global_store"]);
        let lds = family(&["ds_read", "ds_write", "ds_load", "ds_store"]);
        let t_global = ["global_load", "global_store", "buffer_load", "buffer_store"]
            .iter()
            .map(|m| {
                triton_asm
                    .lines()
                    .filter(|l| l.trim_start().starts_with(m))
                    .count() as u64
            })
            .sum::<u64>();
        let t_lds = tr["ds_read"].as_u64().unwrap() + tr["ds_write"].as_u64().unwrap();
        println!(
            "| {name} | {arch} | {ours} | {t_total} | {global} | {t_global} | {lds} | {t_lds} | {} | {} | {} | {} |",
            metadata(&asm, ".vgpr_count:"),
            tr["vgpr_count"],
            metadata(&asm, ".group_segment_fixed_size:"),
            tr["lds_bytes"]
        );
        assert!(
            global <= t_global,
            "{name} {arch}: {global} global accesses, Triton {t_global}"
        );
        assert!(
            ours < t_total,
            "{name} {arch}: {ours} instructions, Triton {t_total}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
