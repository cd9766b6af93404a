//! `lower ttgir` on Triton 3.6's own TTGIR for the anchor kernels (tests/fixtures/lower/ttgir):
//! each lowers for its arch, runs in the interpreter with the arguments its case gives (row
//! strides, random data) and computes what the kernel's Python source defines; llc accepts it,
//! and beside Triton's instruction counts (printed as the table of BENCHMARKS.md with
//! `cargo test --release --test lower_ttgir -- --nocapture`) ours are smaller on all but the
//! 8-warp matmul tiles, with no more global accesses anywhere.

mod lower_common;

use linear_layout::lower::{Kernel, run_with, ttgir_kernel};
use linear_layout::target::Target;
use linear_layout::ttgir::Module;
use lower_common::{Rng, asm_counts, check_matmul, compile, family_count, llc, metadata, total};
use serde_json::Value as Json;

const DIR: &str = "tests/fixtures/lower/ttgir";

/// The references of the anchor kernels.
const COVERED: [&str; 4] = ["copy2d", "copy_same_stride", "transpose", "matmul"];

fn cases() -> Vec<Json> {
    let text = std::fs::read_to_string(format!("{DIR}/cases.json")).unwrap();
    let all: Vec<Json> = serde_json::from_str(&text).unwrap();
    all.into_iter()
        .filter(|c| COVERED.contains(&c["reference"].as_str().unwrap()))
        .collect()
}

fn lower(case: &Json) -> Kernel {
    let file = format!("{DIR}/{}", case["file"].as_str().unwrap());
    let m = Module::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let t = Target::by_name(case["arch"].as_str().unwrap()).unwrap();
    ttgir_kernel(&m, t).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn int(case: &Json, name: &str) -> usize {
    case["args"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == name)
        .and_then(|a| a["value"].as_u64())
        .unwrap() as usize
}

/// Runs the kernel and checks every output element against the reference (copies move bits,
/// so their data is random bit patterns; a matmul's inputs are small integers, so its sums are
/// exact).
fn check(case: &Json, k: &Kernel) -> Result<(), String> {
    if case["reference"] == "matmul" {
        return check_matmul(case, k);
    }
    let mut r = Rng(case["seed"].as_u64().unwrap_or(1) | 1);
    let args = case["args"].as_array().unwrap();
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    let mut scalars = Vec::new();
    let mut elem_bytes = 0;
    for a in args {
        if a["kind"] == "ptr" {
            elem_bytes = match a["dtype"].as_str().unwrap() {
                "f16" => 2,
                "f32" => 4,
                other => panic!("dtype {other}"),
            };
            let n = a["elems"].as_u64().unwrap() as usize * elem_bytes;
            let data = if a["init"] == "random" {
                (0..n).map(|_| r.next() as u8).collect()
            } else {
                vec![0; n]
            };
            buffers.push(data);
        } else {
            scalars.push(a["value"].as_u64().unwrap());
        }
    }
    let src = buffers[0].clone();
    run_with(&k.program, &mut buffers, &scalars).map_err(|e| format!("interpreter: {e}"))?;
    let (bm, bn) = (
        case["constexprs"]["BM"].as_u64().unwrap() as usize,
        case["constexprs"]["BN"].as_u64().unwrap() as usize,
    );
    let mut want = vec![0u8; buffers[1].len()];
    let mut put = |to: usize, from: usize| {
        want[to * elem_bytes..(to + 1) * elem_bytes]
            .copy_from_slice(&src[from * elem_bytes..(from + 1) * elem_bytes]);
    };
    for row in 0..bm {
        for col in 0..bn {
            match case["reference"].as_str().unwrap() {
                "copy2d" => put(
                    row * int(case, "stride_d") + col,
                    row * int(case, "stride_s") + col,
                ),
                "copy_same_stride" => put(row * int(case, "stride") + col, row * int(case, "stride") + col),
                "transpose" => put(
                    col * int(case, "stride_d") + row,
                    row * int(case, "stride_s") + col,
                ),
                other => return Err(format!("no reference {other}")),
            }
        }
    }
    if buffers[1] != want {
        let bad = (0..want.len()).find(|&i| buffers[1][i] != want[i]).unwrap_or(0) / elem_bytes;
        return Err(format!("dst differs from the reference (first at element {bad})"));
    }
    Ok(())
}

#[test]
fn anchor_kernels_compute_what_their_sources_say() {
    let cases = cases();
    assert_eq!(cases.len(), 22);
    for case in &cases {
        let k = lower(case);
        check(case, &k).unwrap_or_else(|e| panic!("{}: {e}", case["id"]));
    }
}

#[test]
fn a_wrong_stride_is_caught() {
    let case = cases()
        .into_iter()
        .find(|c| c["reference"] == "transpose")
        .unwrap();
    let mut k = lower(&case);
    // The store's row stride read from the other scalar argument.
    let store = k
        .program
        .ops
        .iter_mut()
        .rev()
        .find_map(|op| match op {
            linear_layout::lower::Op::GlobalStore { offset, .. } => Some(offset),
            _ => None,
        })
        .unwrap();
    for s in &mut store.strides {
        if let linear_layout::lower::Extent::Scalar { index, .. } = s {
            *index = 1 - *index;
        }
    }
    assert!(check(&case, &k).is_err());
}

#[test]
fn llc_accepts_the_anchor_kernels_beside_tritons_counts() {
    let Some(llc) = llc() else { return };
    let dir = std::env::temp_dir().join(format!("linear-layout-lower-ttgir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    println!(
        "| kernel | arch | ours: total | Triton: total | ours: global | Triton: global | ours: LDS | Triton: LDS | ours: barriers | Triton: barriers | ours: VGPRs | Triton: VGPRs | ours: LDS bytes | Triton: LDS bytes |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for case in cases() {
        let arch = case["arch"].as_str().unwrap();
        let t = Target::by_name(arch).unwrap();
        let k = lower(&case);
        let name = case["file"].as_str().unwrap().split('.').next().unwrap();
        let asm = compile(llc, &k.llvm_ir().unwrap(), t, &dir, &format!("{name}_{arch}")).unwrap();
        let counts = asm_counts(&asm);
        let family = |prefixes: &[&str]| family_count(&counts, prefixes);
        let fixture: Json = serde_json::from_str(
            &std::fs::read_to_string(format!("{DIR}/triton-counts.{arch}.json")).unwrap(),
        )
        .unwrap();
        let tr = &fixture["kernels"][name];
        let ours = total(&asm);
        let global = family(&["buffer_load", "buffer_store", "global_load", "global_store"]);
        let lds = family(&["ds_read", "ds_write"]);
        let barriers = counts.get("s_barrier").copied().unwrap_or(0);
        let vgprs = metadata(&asm, ".vgpr_count:");
        let lds_bytes = metadata(&asm, ".group_segment_fixed_size:");
        let t_global = tr["global_load"].as_u64().unwrap() + tr["global_store"].as_u64().unwrap();
        let t_lds = tr["ds_read"].as_u64().unwrap() + tr["ds_write"].as_u64().unwrap();
        println!(
            "| {name} | {arch} | {ours} | {} | {global} | {t_global} | {lds} | {t_lds} | {barriers} | {} | {vgprs} | {} | {lds_bytes} | {} |",
            tr["total"], tr["s_barrier"], tr["vgpr_count"], tr["lds_bytes"]
        );
        assert!(
            global <= t_global,
            "{name} {arch}: {global} global accesses, Triton {t_global}"
        );
        assert!(
            ours < tr["total"].as_u64().unwrap(),
            "{name} {arch}: {ours} instructions, Triton {}",
            tr["total"]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every TTGIR file of the fixtures (the heuristics corpus included) for every target: the
/// lowering answers or says why, with no panic; what it answers runs in the interpreter.
#[test]
fn any_ttgir_lowers_or_says_why() {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|x| x == "mlir" || x == "ttgir") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    files(std::path::Path::new("tests/fixtures"), &mut paths);
    paths.sort();
    assert!(paths.len() > 1000);
    let (mut lowered, mut refused) = (0, 0);
    for path in &paths {
        let Ok(modules) = Module::parse_all(&std::fs::read_to_string(path).unwrap()) else {
            continue;
        };
        for m in &modules {
            for t in lower_common::targets() {
                match ttgir_kernel(m, t) {
                    Ok(k) => {
                        k.program.validate().unwrap();
                        k.llvm_ir().unwrap();
                        lowered += 1;
                    }
                    Err(e) => {
                        assert!(!e.to_string().is_empty());
                        refused += 1;
                    }
                }
            }
        }
    }
    eprintln!("{lowered} lowered, {refused} refused");
    assert!(lowered >= 22 && refused > 0);
}

/// A masked tail copy written in Triton's form (tests/fixtures/lower/ttgir-own): rows below
/// `m` and columns below `n` (both arguments) are copied, the rest of `dst` is untouched; with
/// `n` divisible by 16 (its `tt.divisibility`) the accesses stay 128-bit.
#[test]
fn masked_tail_copy_computes_its_reference() {
    let text = std::fs::read_to_string("tests/fixtures/lower/ttgir-own/masked_copy.ttgir").unwrap();
    let m = Module::parse(&text).unwrap();
    for arch in ["gfx942", "gfx950"] {
        let k = ttgir_kernel(&m, Target::by_name(arch).unwrap()).unwrap();
        assert_eq!(k.program.op_counts()["global_load"], 4, "{arch}");
        for (rows, cols) in [(50u64, 48u64), (64, 64), (1, 16), (0, 32)] {
            let stride = 80usize;
            let mut r = Rng(rows * 131 + cols);
            let src: Vec<u8> = (0..64 * stride * 4).map(|_| r.next() as u8).collect();
            let mut buffers = vec![src.clone(), vec![0u8; 64 * stride * 4]];
            run_with(&k.program, &mut buffers, &[stride as u64, rows, cols]).unwrap();
            for row in 0..64 {
                for col in 0..stride {
                    let at = (row * stride + col) * 4;
                    let inside = (row as u64) < rows && (col as u64) < cols && col < 64;
                    let want: &[u8] = if inside { &src[at..at + 4] } else { &[0; 4] };
                    assert_eq!(
                        &buffers[1][at..at + 4],
                        want,
                        "{arch} {rows}x{cols}: [{row}][{col}]"
                    );
                }
            }
        }
    }
}
