//! The fuzzers' findings, replayed on stable Rust.
//!
//! Every input with which a fuzz target of `fuzz/` (cargo-fuzz) found a defect is kept in
//! `tests/fixtures/fuzz-regressions/<target>/` and run here through the very body the target
//! runs (`fuzz/src/lib.rs`, included below), as are the seed corpora of `fuzz/seeds/`. A
//! body panics when the crate panics, overflows or breaks one of the laws the body checks.
//!
//! `cargo test --test fuzz_regressions -- --ignored write_seeds` rewrites `fuzz/seeds/` from
//! the fixtures.

#[path = "../fuzz/src/lib.rs"]
mod fuzz_bodies;

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use fuzz_bodies::{
    DEFAULT_PICTURE, LOWER_MAX_ELEMENTS, TARGETS_BY_NAME, encode_layout, encode_text_layout, shape_code,
};
use linear_layout::encodings::Encoding;
use linear_layout::linear::LinearLayout;
use linear_layout::lower::Dtype;
use linear_layout::target::TARGETS;
use serde_json::{Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs every file under `dir/<target>/` through the target's body; returns how many ran and
/// the failures (file and panic message).
fn replay(dir: &Path) -> (usize, Vec<String>) {
    let mut ran = 0;
    let mut failures = Vec::new();
    for (name, body) in TARGETS_BY_NAME {
        let Ok(entries) = std::fs::read_dir(dir.join(name)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.map(|e| e.expect("directory entry").path()).collect();
        files.sort();
        for file in files.iter().filter(|f| f.is_file()) {
            let data = std::fs::read(file).expect("readable input");
            ran += 1;
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| body(&data))) {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{}: {message}", file.display()));
            }
        }
    }
    (ran, failures)
}

/// Every finding of the fuzzers still passes.
#[test]
fn findings_replay() {
    let (ran, failures) = replay(&root().join("tests/fixtures/fuzz-regressions"));
    assert!(
        failures.is_empty(),
        "{} of {ran} findings fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(ran > 0, "no findings were replayed");
}

/// Every seed passes too (the fuzzers start from them).
#[test]
fn seeds_replay() {
    let (ran, failures) = replay(&root().join("fuzz/seeds"));
    assert!(
        failures.is_empty(),
        "{} of {ran} seeds fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(ran >= 100, "only {ran} seeds");
}

// ---------------------------------------------------------------------------------------------
// Seeds from the fixtures
// ---------------------------------------------------------------------------------------------

fn fixture_lines(path: &str) -> Vec<Value> {
    std::fs::read_to_string(root().join("tests/fixtures").join(path))
        .expect("fixture")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// Every `step`-th element, at most `n`.
fn spread<T: Clone>(items: &[T], n: usize) -> Vec<T> {
    let step = items.len().div_ceil(n).max(1);
    items.iter().step_by(step).take(n).cloned().collect()
}

/// A layout given as a batch-protocol layout or an encoding, at `shape`, with its text when it
/// has one.
fn layout_of(v: &Value, shape: &[u64]) -> Option<(LinearLayout, Option<String>)> {
    if v.get("in_dims").is_some() {
        return serde_json::from_value(v.clone()).ok().map(|l| (l, None));
    }
    let e = Encoding::from_json(v).ok()?;
    let l = e.to_linear_layout(shape).ok()?;
    Some((l, Some(e.with_shape_defaults(shape).to_string())))
}

fn shape_of(v: &Value) -> Vec<u64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

/// The packed form of a layout, or its text form where it has a text.
fn layout_seed((l, text): &(LinearLayout, Option<String>), shape: &[u64]) -> Option<Vec<u8>> {
    match text {
        Some(t) => Some(encode_text_layout(t, shape)),
        None => encode_layout(l),
    }
}

fn batch_seeds() -> Vec<Vec<u8>> {
    // One request per tag (the malformed ones are not JSON: each is a tag of its own).
    let requests =
        std::fs::read_to_string(root().join("tests/fixtures/diff/requests.jsonl")).expect("fixture");
    let mut by_tag: BTreeMap<String, String> = BTreeMap::new();
    for line in requests.lines() {
        let tag = serde_json::from_str::<Value>(line)
            .ok()
            .and_then(|r| r["tag"].as_str().map(str::to_string))
            .unwrap_or_else(|| line.to_string());
        by_tag.entry(tag).or_insert_with(|| line.to_string());
    }
    let tagged: Vec<String> = by_tag.into_values().collect();
    let mut seeds: Vec<Vec<u8>> = spread(&tagged, 50).into_iter().map(String::into_bytes).collect();
    let banks: Vec<Value> = fixture_lines("convert/bank_conflicts_generic32.jsonl")
        .into_iter()
        .map(|r| r["request"].clone())
        .collect();
    let banks = spread(&banks, 24);
    for (i, r) in banks.iter().enumerate() {
        seeds.push(r.to_string().into_bytes());
        // The same pair as a conversion, on each target in turn.
        let convert = json!({
            "id": i, "op": "convert_cost", "src": r["distributed"], "dst": r["distributed"],
            "shape": r["shape"], "element_bits": r["element_bits"],
            "target": TARGETS[i % TARGETS.len()].name,
        });
        seeds.push(convert.to_string().into_bytes());
    }
    for c in spread(&fixture_lines("encodings/cases-seed2.jsonl"), 12) {
        let r = json!({"id": c["id"], "op": "to_linear_layout", "encoding": c["input"]["encoding"],
                       "shape": c["input"]["shape"]});
        seeds.push(r.to_string().into_bytes());
    }
    // Several lines at once: blank lines, malformed ones, a request without an id.
    let three = format!(
        "{}\n\n{{not json\n{}\r\n[1, 2]\n",
        tagged[0], r#"{"op": "is_injective", "layout": {"in_dims": {"x": [[1]]}, "out_dims": {"y": 2}}}"#
    );
    seeds.push(three.into_bytes());
    seeds
}

fn encoding_seeds() -> Vec<Vec<u8>> {
    let mut by_kind: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in [
        "encodings/cases-seed1.jsonl",
        "encodings/cases-seed3.jsonl",
        "encodings/mma-operands-seed21.jsonl",
    ] {
        for c in fixture_lines(file) {
            if let Some(text) = c["expected"]["mlir"].as_str() {
                let kind = c["kind"].as_str().unwrap_or("").to_string();
                by_kind.entry(kind).or_default().push(text.to_string());
            }
        }
    }
    let mut seeds = Vec::new();
    for texts in by_kind.values() {
        for t in spread(texts, 6) {
            seeds.push(t.clone().into_bytes());
            if seeds.len() % 5 == 0 {
                seeds.push(format!("tensor<64x64xf16, {t}>").into_bytes());
            }
        }
    }
    // The alias block of a few TTGIR files.
    for file in spread(&mlir_files("heuristics/matmul"), 6) {
        let text = std::fs::read_to_string(&file).expect("mlir");
        let aliases: String = text
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        seeds.push(aliases.into_bytes());
    }
    seeds
}

fn mlir_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/fixtures").join(dir))
        .expect("fixture directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir" || e == "ttgir"))
        .collect();
    files.sort();
    files
}

fn ttgir_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (dir, n) in [
        ("heuristics/coalesce", 16),
        ("heuristics/matmul", 16),
        ("heuristics/async_copy", 10),
        ("heuristics/regions", 20),
        ("heuristics/stripped", 10),
        ("heuristics/dot_scaled", 8),
        // Kernels as Triton compiles them, for the lowering the target runs too.
        ("lower/ttgir-own", 24),
        ("lower/ttgir-general", 6),
        ("lower/ttgir-people", 51),
        ("ttgir-forms", 3),
    ] {
        for file in spread(&mlir_files(dir), n) {
            seeds.push(std::fs::read(file).expect("mlir"));
        }
    }
    seeds
}

/// Modules before and after each layout pass, as Triton runs them.
fn layout_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (dir, n) in [("passes/people", 30), ("passes/corpus", 20), ("passes/lit", 30)] {
        for file in spread(&mlir_files(dir), n) {
            let text = std::fs::read_to_string(file).expect("mlir");
            // The last module of the stage file (a module Triton printed).
            if let Some(last) = text.rsplit("// ----- stage ").find(|s| s.contains("module")) {
                let body: String = last.lines().skip(1).map(|l| format!("{l}\n")).collect();
                seeds.push(body.into_bytes());
            }
        }
    }
    seeds
}

/// The people kernels' TTIR (stage 0 of their stage files).
fn compile_seeds() -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = spread(&mlir_files("passes/people"), 24)
        .into_iter()
        .filter_map(|file| {
            let text = std::fs::read_to_string(file).expect("mlir");
            let body = text
                .split("// ----- stage 0: ttir\n")
                .nth(1)?
                .split("// ----- stage 1")
                .next()?;
            Some(body.as_bytes().to_vec())
        })
        .collect();
    // Helpers kept as calls: the inliner's input.
    for kernel in ["noinline_nested_128_f32", "noinline_row_norm_128_f32"] {
        let path = root().join(format!("tests/fixtures/compile/zoo/{kernel}.gfx942.ttir"));
        seeds.push(std::fs::read(path).expect("a zoo module"));
    }
    seeds
}

fn show_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (i, c) in fixture_lines("views/cases.jsonl").iter().enumerate() {
        let shape = shape_of(&c["shape"]);
        let packed: LinearLayout =
            serde_json::from_value(json!({"in_dims": c["in_dims"], "out_dims": c["out_dims"]}))
                .expect("a view fixture's layout");
        let mut seed = DEFAULT_PICTURE.to_vec();
        match c["layout"].as_str() {
            Some(text) if i % 2 == 1 => seed.extend(encode_text_layout(text, &shape)),
            _ => seed.extend(encode_layout(&packed).expect("standard names")),
        }
        seeds.push(seed);
    }
    seeds
}

fn convert_seeds() -> Vec<Vec<u8>> {
    let banks: Vec<Value> = fixture_lines("convert/bank_conflicts_generic32.jsonl")
        .into_iter()
        .map(|r| r["request"].clone())
        .collect();
    let mut seeds = Vec::new();
    let mut by_shape: BTreeMap<Vec<u64>, Vec<(LinearLayout, Option<String>)>> = BTreeMap::new();
    for r in &banks {
        let shape = shape_of(&r["shape"]);
        if let Some(l) = layout_of(&r["distributed"], &shape) {
            by_shape.entry(shape).or_default().push(l);
        }
    }
    for (i, r) in spread(&banks, 60).iter().enumerate() {
        let shape = shape_of(&r["shape"]);
        let (Some(src), Some(shared)) = (
            layout_of(&r["distributed"], &shape),
            layout_of(&r["shared"], &shape),
        ) else {
            continue;
        };
        let others = &by_shape[&shape];
        let dst = &others[i % others.len()];
        let bits = r["element_bits"].as_u64().unwrap_or(16);
        let bits_index = [8, 16, 32, 64].iter().position(|&b| b == bits).unwrap_or(1);
        let mut seed = vec![(i % TARGETS.len()) as u8, bits_index as u8];
        let (Some(s), Some(d), Some(m)) = (
            layout_seed(&src, &shape),
            layout_seed(dst, &shape),
            layout_seed(&shared, &shape),
        ) else {
            continue;
        };
        seed.extend(s);
        seed.push(0); // the destination is a layout of its own
        seed.extend(d);
        seed.extend(m);
        seeds.push(seed);
    }
    seeds
}

/// A lowering case's padded (power-of-two) shape and tensor shape, halved along the largest
/// dimensions until the tensor has at most [`LOWER_MAX_ELEMENTS`] elements (the `lower`
/// target's bound); a masked dimension stays masked in proportion.
fn lower_shapes(shape: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let mut padded: Vec<u64> = shape.iter().map(|s| s.next_power_of_two()).collect();
    let mut shape = shape.to_vec();
    while padded.iter().product::<u64>() > LOWER_MAX_ELEMENTS {
        let d = (0..padded.len())
            .max_by_key(|&d| (padded[d], d))
            .expect("a dimension");
        padded[d] /= 2;
        shape[d] = shape[d].div_ceil(2).max(padded[d] / 2 + 1).min(padded[d]);
    }
    (padded, shape)
}

/// A lowering fixture's layout (attribute text or batch-protocol JSON) at `padded`, in the
/// fuzz input's form.
fn lower_layout(text: &str, padded: &[u64]) -> Option<(LinearLayout, Vec<u8>)> {
    if text.starts_with('{') {
        let l: LinearLayout = serde_json::from_str(text).ok()?;
        let bytes = encode_layout(&l)?;
        return Some((l, bytes));
    }
    let e: Encoding = text.parse().ok()?;
    let l = e.to_linear_layout(padded).ok()?;
    Some((l, encode_text_layout(text, padded)))
}

fn lower_seeds() -> Vec<Vec<u8>> {
    let text =
        std::fs::read_to_string(root().join("tests/fixtures/lower/emulator-cases.json")).expect("fixture");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("JSON");
    let mut pairs: Vec<(String, String, String, Vec<u64>, String)> = Vec::new();
    // Copies and conversions (the matmul cases have no layouts of their own).
    for c in cases
        .iter()
        .filter(|c| c["form"] == "copy" || c["form"] == "convert")
    {
        let s = |k: &str| c[k].as_str().unwrap_or("").to_string();
        let src = if c["form"] == "copy" {
            s("layout")
        } else {
            s("src")
        };
        let dst = if c["form"] == "copy" {
            s("layout")
        } else {
            s("dst")
        };
        pairs.push((s("arch"), s("dtype"), src, shape_of(&c["shape"]), dst));
    }
    // The anchor kernels' layouts, each way round, on their archs.
    let text = std::fs::read_to_string(root().join("tests/fixtures/lower/triton_anchor_counts.json"))
        .expect("fixture");
    let anchors: Value = serde_json::from_str(&text).expect("JSON");
    for (arch, kernels) in anchors.as_object().expect("archs") {
        for k in kernels.as_object().expect("kernels").values() {
            // The matmul rows hold counts only.
            let Some(layouts) = k["layouts"].as_array() else {
                continue;
            };
            let layouts: Vec<String> = layouts
                .iter()
                .filter_map(|l| l.as_str()?.split_once(" = ").map(|(_, t)| t.to_string()))
                .collect();
            let (first, last) = (layouts[0].clone(), layouts[layouts.len() - 1].clone());
            pairs.push((
                arch.clone(),
                "f16".into(),
                first.clone(),
                vec![128, 128],
                last.clone(),
            ));
            pairs.push((arch.clone(), "f32".into(), last, vec![64, 64], first));
        }
    }
    let mut seeds = Vec::new();
    for (i, (arch, dtype, src, shape, dst)) in pairs.iter().enumerate() {
        let (padded, shape) = lower_shapes(shape);
        let (Some((s, sb)), Some((_, db))) = (lower_layout(src, &padded), lower_layout(dst, &padded)) else {
            panic!("a lowering fixture's layouts at {padded:?}: {src} / {dst}");
        };
        let t = TARGETS.iter().position(|t| t.name == arch).expect("a target row");
        let d = Dtype::ALL
            .iter()
            .position(|d| d.name() == dtype)
            .expect("a dtype");
        let codes: Vec<u8> = s
            .out_dims()
            .zip(&shape)
            .flat_map(|((_, size), &n)| shape_code(n, size).to_le_bytes())
            .collect();
        // The pair as given (mode 0), and the source with two of its bases exchanged (mode 2).
        let mut seed = vec![t as u8, d as u8];
        seed.extend(&sb);
        seed.push(0);
        seed.extend(&db);
        seed.extend(&codes);
        seed.extend((i as u16).to_le_bytes());
        seeds.push(seed);
        let mut seed = vec![t as u8, d as u8];
        seed.extend(&sb);
        seed.extend([2, 1, i as u8, (i * 7 + 3) as u8]);
        seed.extend(&codes);
        seed.extend((i as u16 + 1).to_le_bytes());
        seeds.push(seed);
    }
    seeds
}

/// Rewrites `fuzz/seeds/` from the fixtures.
#[test]
#[ignore = "writes fuzz/seeds; run by hand after the fixtures change"]
fn write_seeds() {
    let dir = root().join("fuzz/seeds");
    let _ = std::fs::remove_dir_all(&dir);
    let all: [(&str, Vec<Vec<u8>>); 8] = [
        ("batch_line", batch_seeds()),
        ("encoding_text", encoding_seeds()),
        ("ttgir_passes", ttgir_seeds()),
        ("layout_passes", layout_seeds()),
        ("show", show_seeds()),
        ("convert_cost", convert_seeds()),
        ("lower", lower_seeds()),
        ("compile", compile_seeds()),
    ];
    for (target, seeds) in all {
        let d = dir.join(target);
        std::fs::create_dir_all(&d).expect("seed directory");
        for (i, s) in seeds.iter().enumerate() {
            std::fs::write(d.join(format!("seed-{i:03}")), s).expect("seed written");
        }
        println!("{target}: {} seeds", seeds.len());
    }
}
