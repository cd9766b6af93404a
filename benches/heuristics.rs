//! All 3,284 recorded oracle runs of the heuristics corpus (`tests/fixtures/heuristics/`),
//! parsing included: coalesce, accelerate-matmul and async-copy decisions with their layouts.
//! Each run's result is checked against the oracle once before timing.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use linear_layout::heuristics::passes::{Pass, PassOptions, run};
use linear_layout::heuristics::ttgir::Module;
use serde_json::Value;

struct Run {
    text: usize,
    opts: PassOptions,
}

fn load() -> (Vec<String>, Vec<Run>, Vec<Value>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/heuristics");
    let expected = std::fs::read_to_string(dir.join("expected.jsonl")).expect("expected.jsonl");
    let mut files: Vec<String> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let mut runs = Vec::new();
    let mut results = Vec::new();
    for line in expected.lines().filter(|l| !l.trim().is_empty()) {
        let r: Value = serde_json::from_str(line).expect("run");
        let file = r["file"].as_str().expect("file").to_string();
        let text = match files.iter().position(|f| *f == file) {
            Some(i) => i,
            None => {
                files.push(file.clone());
                texts.push(std::fs::read_to_string(dir.join(&file)).expect("corpus file"));
                texts.len() - 1
            }
        };
        let pass: Pass = r["passes"].as_str().expect("passes").parse().expect("pass");
        let mut opts = PassOptions::new(pass, r["arch"].as_str().expect("arch"));
        opts.kpack = r["kpack"].as_u64().unwrap_or(1) as u32;
        opts.nonkdim = r["nonkdim"].as_u64().unwrap_or(0) as u32;
        runs.push(Run { text, opts });
        results.push(r["result"].clone());
    }
    (texts, runs, results)
}

/// Parses the module and runs the pass: the work timed per run.
fn one(text: &str, opts: &PassOptions) -> Value {
    let m = Module::parse(text).expect("parses");
    run(&m, opts).expect("runs").to_json()
}

fn heuristics(c: &mut Criterion) {
    let (texts, runs, results) = load();
    assert_eq!(runs.len(), 3284);
    for (r, want) in runs.iter().zip(&results) {
        let got = one(&texts[r.text], &r.opts);
        for key in ["mem", "dots", "copies"] {
            if let Some(w) = want.get(key) {
                let g = &got[key];
                for (we, ge) in w
                    .as_array()
                    .expect("list")
                    .iter()
                    .zip(g.as_array().expect("list"))
                {
                    for (k, v) in we.as_object().expect("object") {
                        assert_eq!(ge.get(k), Some(v), "{key}.{k} differs from Triton");
                    }
                }
            }
        }
    }
    let mut g = c.benchmark_group("heuristics");
    g.sample_size(10);
    g.bench_function("all_3284_runs", |b| {
        b.iter(|| {
            for r in &runs {
                black_box(one(black_box(&texts[r.text]), &r.opts));
            }
        })
    });
    g.bench_function("all_3284_runs_decisions_only", |b| {
        b.iter(|| {
            for r in &runs {
                let m = Module::parse(black_box(&texts[r.text])).expect("parses");
                black_box(run(&m, &r.opts).expect("runs"));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, heuristics);
criterion_main!(benches);
