//! Kernels as people write them — Triton's tutorials (vector add, the persistent softmax,
//! grouped matmul, layer norm, attention) and the kernels of LLM stacks (GELU, RMSNorm,
//! embedding, split-K, dropout, argmax, cumsum, SwiGLU, rotary, cross-entropy, int8 matmul, a
//! persistent matmul) — compiled by Triton 3.6.0 for gfx942, gfx950 and gfx1100
//! (`scripts/people_ttgir.py`, provenance in the fixtures' README), lowered, and run in the
//! interpreter over every workgroup of their grid on sizes that leave masked tails. Inputs and
//! expected outputs come from `expected.py` beside the fixtures (the Python references Triton's
//! own code was checked against on the emulator); llc-22 accepts each kernel.
//!
//! A kernel the lowering still refuses is listed in `REFUSED` with the start of its message:
//! the test fails when one of them lowers (move it out of the list) or when any other kernel is
//! refused or computes a wrong value. With `--nocapture` it prints BENCHMARKS.md's table:
//! instructions, VGPRs and LDS bytes of each kernel beside Triton's (its AMDGCN and
//! `triton-counts.<arch>.json`, counted the same way).

#[path = "lower_common/mod.rs"]
mod lower_common;

use std::collections::BTreeMap;
use std::process::Command;

use linear_layout::lower::numeric::{decode, encode};
use linear_layout::lower::{Kernel, Launch, run_launch, ttgir_kernel};
use linear_layout::target::Target;
use linear_layout::ttgir::Module;
use lower_common::{compile, llc, metadata, total};
use serde_json::Value as Json;

const DIR: &str = "tests/fixtures/lower/ttgir-people";

/// Kernels (file stems) the lowering refuses today, with the start of the refusal.
const REFUSED: &[(&str, &str)] = &[];

fn cases() -> Vec<Json> {
    let text = std::fs::read_to_string(format!("{DIR}/cases.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `expected.py`'s inputs and outputs per case id.
fn expected() -> BTreeMap<String, Json> {
    let out = Command::new("python3")
        .arg("expected.py")
        .current_dir(DIR)
        .output()
        .expect("python3 runs expected.py");
    assert!(
        out.status.success(),
        "expected.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn stem(case: &Json) -> String {
    let file = case["file"].as_str().unwrap();
    file.split('.').next().unwrap().to_string()
}

fn lower(case: &Json) -> Result<Kernel, String> {
    let file = format!("{DIR}/{}", case["file"].as_str().unwrap());
    let m = Module::parse(&std::fs::read_to_string(&file).unwrap()).map_err(|e| e.to_string())?;
    let t = Target::by_name(case["arch"].as_str().unwrap()).unwrap();
    ttgir_kernel(&m, t).map_err(|e| e.to_string())
}

/// A buffer's bytes from its values.
fn bytes(dtype: &str, values: &[Json]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        let x = v.as_f64().unwrap();
        match dtype {
            "f32" => out.extend((x as f32).to_le_bytes()),
            "f16" => out.extend((encode("f16", x).unwrap() as u16).to_le_bytes()),
            "i32" => out.extend((x as i32).to_le_bytes()),
            "i8" => out.push(x as i8 as u8),
            other => panic!("no buffers of {other}"),
        }
    }
    out
}

/// The values a buffer holds.
fn values(dtype: &str, data: &[u8]) -> Vec<f64> {
    match dtype {
        "f32" => data
            .chunks_exact(4)
            .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        "f16" => data
            .chunks_exact(2)
            .map(|c| decode("f16", u64::from(u16::from_le_bytes(c.try_into().unwrap()))).unwrap())
            .collect(),
        "i32" => data
            .chunks_exact(4)
            .map(|c| f64::from(i32::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        "i8" => data.iter().map(|&b| f64::from(b as i8)).collect(),
        other => panic!("no buffers of {other}"),
    }
}

/// Runs every workgroup of the case's grid and compares the outputs.
fn check(case: &Json, k: &Kernel, data: &Json) -> Result<(), String> {
    let mut buffers = Vec::new();
    let mut scalars = Vec::new();
    let mut outputs = Vec::new();
    for (i, spec) in case["args"].as_array().unwrap().iter().enumerate() {
        let name = spec["name"].as_str().unwrap();
        match spec["kind"].as_str().unwrap() {
            "ptr" => {
                let dtype = spec["dtype"].as_str().unwrap();
                buffers.push(bytes(dtype, data["inputs"][name].as_array().unwrap()));
                if spec["out"].as_bool().unwrap_or(false) {
                    outputs.push((buffers.len() - 1, name.to_string(), dtype.to_string()));
                }
            }
            "i32" => scalars.push(spec["value"].as_i64().unwrap() as i32 as u32 as u64),
            "i64" => scalars.push(spec["value"].as_i64().unwrap() as u64),
            "f32" => scalars.push(u64::from((spec["value"].as_f64().unwrap() as f32).to_bits())),
            other => return Err(format!("argument {i} of kind {other}")),
        }
    }
    let grid: Vec<u32> = case["grid"]
        .as_array()
        .map(|g| g.iter().map(|x| x.as_u64().unwrap() as u32).collect())
        .unwrap_or_else(|| vec![1, 1, 1]);
    let grid = [grid[0], grid[1], grid[2]];
    for z in 0..grid[2] {
        for y in 0..grid[1] {
            for x in 0..grid[0] {
                let launch = Launch {
                    scalars: scalars.clone(),
                    workgroup: [x, y, z],
                    grid,
                };
                run_launch(&k.program, &mut buffers, &launch)
                    .map_err(|e| format!("interpreter, workgroup {x},{y},{z}: {e}"))?;
            }
        }
    }
    let tolerance = data["tolerance"].as_f64().unwrap();
    for (b, name, dtype) in outputs {
        let got = values(&dtype, &buffers[b]);
        let want: Vec<f64> = data["expected"][&name]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap_or(f64::NAN))
            .collect();
        let bad: Vec<usize> = (0..want.len())
            .filter(|&i| {
                let (g, e) = (got[i], want[i]);
                !(g == e || (g.is_nan() && e.is_nan()) || (g - e).abs() <= tolerance * e.abs().max(1.0))
            })
            .collect();
        if let Some(&i) = bad.first() {
            return Err(format!(
                "{name}: {} of {} elements wrong, first [{i}] = {} (want {})",
                bad.len(),
                want.len(),
                got[i],
                want[i]
            ));
        }
    }
    Ok(())
}

/// A table row: our counts from `asm` beside Triton's for the same kernel and arch (a dash
/// where Triton's code generation fails on the kernel: `refusals.txt`).
fn row(case: &Json, asm: &str) -> String {
    let (kernel, arch) = (stem(case), case["arch"].as_str().unwrap().to_string());
    let Ok(triton_asm) = std::fs::read_to_string(format!("{DIR}/{kernel}.{arch}.amdgcn")) else {
        return format!(
            "| {kernel} | {arch} | {} | – | {} | – | {} | – |",
            total(asm),
            metadata(asm, ".vgpr_count:"),
            metadata(asm, ".amdhsa_group_segment_fixed_size")
        );
    };
    let counts: Json =
        serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/triton-counts.{arch}.json")).unwrap())
            .unwrap();
    let theirs = &counts["kernels"][&kernel];
    format!(
        "| {kernel} | {arch} | {} | {} | {} | {} | {} | {} |",
        total(asm),
        total(&triton_asm),
        metadata(asm, ".vgpr_count:"),
        theirs["vgpr_count"],
        metadata(asm, ".amdhsa_group_segment_fixed_size"),
        theirs["lds_bytes"]
    )
}

#[test]
fn people_kernels_lower_run_right_and_pass_llc() {
    let expected = expected();
    let llc = llc();
    let dir = std::env::temp_dir().join(format!("ll-people-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    let mut lowered = BTreeMap::new();
    let mut rows = Vec::new();
    for case in cases() {
        let id = case["id"].as_str().unwrap().to_string();
        let stem = stem(&case);
        let refused = REFUSED.iter().find(|(s, _)| *s == stem);
        let k = match (lower(&case), refused) {
            (Err(e), Some((_, why))) if e.contains(why) => continue,
            (Err(e), _) => {
                failures.push(format!("{id}: refused: {e}"));
                continue;
            }
            (Ok(_), Some(_)) => {
                failures.push(format!("{id}: lowers now; take {stem} out of REFUSED"));
                continue;
            }
            (Ok(k), None) => k,
        };
        if let Err(e) = check(&case, &k, &expected[&id]) {
            failures.push(format!("{id}: {e}"));
        }
        let file = case["file"].as_str().unwrap().to_string();
        if let Some(llc) = llc
            && !lowered.contains_key(&file)
        {
            let ir = k.llvm_ir().map_err(|e| e.to_string());
            let name = file.replace('.', "_");
            match ir.and_then(|ir| compile(llc, &ir, k.target, &dir, &name)) {
                Ok(asm) => rows.push(row(&case, &asm)),
                Err(e) => failures.push(format!("{file}: {e}")),
            }
        }
        lowered.insert(file, ());
    }
    println!(
        "| kernel | arch | ours: total | Triton: total | ours: VGPRs | Triton: VGPRs | ours: LDS bytes | Triton: LDS bytes |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!("{r}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(!lowered.is_empty(), "no kernel lowered");
}
