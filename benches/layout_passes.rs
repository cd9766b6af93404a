//! The layout passes on Triton's own input for each (`tests/fixtures/passes/people/`: 147
//! kernels as people write them, three archs): per pass, all its runs in one iteration —
//! reading the module, the pass, printing it. `scripts/bench_passes.py` times Triton's passes
//! on the same inputs (the list written to `target/criterion/layout_passes/inputs.json`) and
//! writes the table of BENCHMARKS.md. The pipeline is also timed kernel by kernel
//! (`layout_pipeline/<file>`).

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use linear_layout::heuristics::propagation::{LayoutPass, LayoutPassOptions, run_layout_pass};

/// One run: the stage file, the stage, the pass's input and its options.
struct Input {
    file: String,
    stage: usize,
    text: String,
    opts: LayoutPassOptions,
}

/// Triton's input for each stage of `pass` in the people files (for `pipeline`, each kernel's
/// TTIR, stage 0).
fn inputs(pass: &str) -> Vec<Input> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/passes/people");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("people fixtures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("stage file");
        let header = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("// {key}: ")))
                .map(|v| v.trim().to_string())
        };
        let arch = header("arch").unwrap_or_else(|| "gfx942".into());
        let mut opts = LayoutPassOptions::new(&arch);
        opts.num_warps = header("num_warps").and_then(|v| v.parse().ok()).unwrap_or(4);
        opts.threads_per_warp = header("threads_per_warp")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut last = String::new();
        let mut cur: Option<(String, String)> = None;
        let mut k = 0;
        let mut flush = |name: String, body: Option<String>, k: usize, last: &mut String| {
            let module = body.unwrap_or_else(|| last.clone());
            let wanted = if pass == "pipeline" {
                k == 0
            } else {
                k > 0 && name.split_whitespace().next() == Some(pass)
            };
            if wanted {
                out.push(Input {
                    file: f.file_name().unwrap_or_default().to_string_lossy().into_owned(),
                    stage: k,
                    text: if k == 0 { module.clone() } else { last.clone() },
                    opts: opts.clone(),
                });
            }
            *last = module;
        };
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("// ----- stage ") {
                if let Some((name, body)) = cur.take() {
                    flush(name, Some(body), k, &mut last);
                    k += 1;
                }
                cur = Some((
                    rest.split_once(": ").map_or("", |(_, n)| n).to_string(),
                    String::new(),
                ));
            } else if line == "// unchanged" {
                if let Some((name, _)) = cur.take() {
                    flush(name, None, k, &mut last);
                    k += 1;
                }
            } else if let Some((_, body)) = cur.as_mut() {
                body.push_str(line);
                body.push('\n');
            }
        }
        if let Some((name, body)) = cur.take() {
            flush(name, Some(body), k, &mut last);
        }
    }
    out
}

fn layout_passes(c: &mut Criterion) {
    let mut group = c.benchmark_group("layout_passes");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let mut listed = Vec::new();
    for name in LayoutPass::names() {
        let pass: LayoutPass = name.parse().expect("a pass name");
        // The runs the pass takes (refusals are not timed, on either side).
        let runs: Vec<Input> = inputs(name)
            .into_iter()
            .filter(|i| run_layout_pass(&i.text, pass, &i.opts).is_ok())
            .collect();
        if runs.is_empty() {
            continue;
        }
        for r in &runs {
            listed.push(
                serde_json::json!({"pass": name, "file": r.file, "stage": r.stage, "arch": r.opts.arch,
                    "num_warps": r.opts.num_warps, "threads_per_warp": r.opts.threads_per_warp}),
            );
        }
        group.bench_function(name, |b| {
            b.iter(|| {
                for r in &runs {
                    black_box(run_layout_pass(black_box(&r.text), pass, &r.opts).ok());
                }
            })
        });
    }
    group.finish();

    // The pipeline once more, one benchmark per kernel (`layout_pipeline/<file>`).
    let mut per_module = c.benchmark_group("layout_pipeline");
    per_module
        .sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(400));
    for r in inputs("pipeline") {
        if run_layout_pass(&r.text, LayoutPass::Pipeline, &r.opts).is_err() {
            continue;
        }
        let id = r.file.trim_end_matches(".mlir").to_string();
        per_module.bench_function(&id, |b| {
            b.iter(|| black_box(run_layout_pass(black_box(&r.text), LayoutPass::Pipeline, &r.opts).ok()))
        });
    }
    per_module.finish();

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/criterion/layout_passes");
    let _ = std::fs::create_dir_all(&path);
    std::fs::write(
        path.join("inputs.json"),
        serde_json::to_string_pretty(&listed).expect("json"),
    )
    .expect("write inputs");
}

criterion_group!(benches, layout_passes);
criterion_main!(benches);
