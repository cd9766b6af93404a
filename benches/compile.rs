//! `lower::compile` on the people kernels' TTIR (`tests/fixtures/passes/people/`, stage 0: 147
//! kernels as people write them, three archs) to LLVM IR text: the layout pipeline, the
//! lowering and the LLVM IR, all kernels in one iteration, once per layout mode
//! (`compile/triton`, `compile/cost`). `scripts/bench_compile.py` times Triton's
//! `make_ttgir` + `make_llir` (+ `make_amdgcn`) on the same modules and writes the table of
//! BENCHMARKS.md.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use linear_layout::lower::{CompileOptions, Layouts, compile};
use linear_layout::target::Target;

/// Every people kernel: its TTIR, target and warps.
fn kernels() -> Vec<(String, &'static Target, u32)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/passes/people");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("people fixtures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("stage file");
            let header = |key: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(&format!("// {key}: ")))
                    .map(|v| v.trim().to_string())
            };
            let target = Target::by_name(&header("arch").expect("arch header")).expect("a target");
            let warps = header("num_warps").and_then(|v| v.parse().ok()).unwrap_or(4);
            let ttir = text
                .split("// ----- stage 0: ttir\n")
                .nth(1)
                .and_then(|rest| rest.split("// ----- stage 1").next())
                .expect("stage 0")
                .to_string();
            (ttir, target, warps)
        })
        .collect()
}

fn compile_people(c: &mut Criterion) {
    let kernels = kernels();
    let mut group = c.benchmark_group("compile");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    for layouts in [Layouts::Triton, Layouts::Cost] {
        group.bench_function(layouts.to_string(), |b| {
            b.iter(|| {
                for (ttir, target, warps) in &kernels {
                    let opts = CompileOptions {
                        layouts,
                        ..CompileOptions::new(*warps)
                    };
                    let out = compile(black_box(ttir), target, &opts).expect("compiles");
                    black_box(out.kernel.llvm_ir().expect("LLVM IR"));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, compile_people);
criterion_main!(benches);
