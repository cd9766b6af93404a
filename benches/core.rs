//! Core LinearLayout operations on the standard layouts (`benches/std_layouts.json`: Triton 3.6
//! `to_linear_layout` of a 128x128 blocked layout, an MFMA 32x32 layout at 128x128 and 128x64, a
//! swizzled shared layout and an MFMA dot operand). The same operations are timed on Triton's
//! own implementation by `scripts/bench_triton.py`; `scripts/benchmarks.py` runs both and
//! writes BENCHMARKS.md.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use linear_layout::linear::LinearLayout;

fn std_layouts() -> HashMap<String, LinearLayout> {
    let text = include_str!("std_layouts.json");
    serde_json::from_str(text).expect("benches/std_layouts.json")
}

fn core_ops(c: &mut Criterion) {
    let l = std_layouts();
    let (blocked, mfma, mfma128x64, shared, ident) = (
        &l["blocked"],
        &l["mfma"],
        &l["mfma128x64"],
        &l["shared"],
        &l["ident"],
    );
    let shared_inv = shared.invert().unwrap();
    let mut g = c.benchmark_group("core");
    g.bench_function("invert_and_compose/blocked_to_mfma", |b| {
        b.iter(|| black_box(blocked).invert_and_compose(black_box(mfma)).unwrap())
    });
    g.bench_function("invert_and_compose/mfma_to_shared", |b| {
        b.iter(|| {
            black_box(mfma128x64)
                .invert_and_compose(black_box(shared))
                .unwrap()
        })
    });
    g.bench_function("compose/mfma_shared_inverse", |b| {
        b.iter(|| black_box(mfma128x64).compose(black_box(&shared_inv)).unwrap())
    });
    g.bench_function("invert/shared", |b| {
        b.iter(|| black_box(shared).invert().unwrap())
    });
    g.bench_function("pseudoinvert/blocked", |b| {
        b.iter(|| black_box(blocked).pseudoinvert().unwrap())
    });
    g.bench_function("product/blocked_ident", |b| {
        b.iter(|| black_box(blocked).product(black_box(ident)).unwrap())
    });
    g.bench_function("apply/blocked", |b| {
        b.iter(|| {
            black_box(blocked)
                .apply(black_box(&[
                    ("register", 5),
                    ("lane", 9),
                    ("warp", 1),
                    ("block", 0),
                ]))
                .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, core_ops);
criterion_main!(benches);
