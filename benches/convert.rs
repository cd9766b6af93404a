//! Cost of pricing one conversion: `convert_cost` for a 128x128 f16 blocked -> MFMA 32x32 pair
//! on gfx942 and gfx950 (classification, swizzle search and bank counts included), and the
//! 64x64 f32 transpose. Target: <= 20 us per query.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use linear_layout::encodings::Encoding;
use linear_layout::heuristics::convert::convert_cost;
use linear_layout::heuristics::target::Target;
use linear_layout::linear::LinearLayout;

fn enc(json: &str, shape: &[u64]) -> LinearLayout {
    let v: serde_json::Value = serde_json::from_str(json).expect("valid JSON");
    Encoding::from_json(&v)
        .expect("valid encoding")
        .to_linear_layout(shape)
        .expect("layout")
}

fn bench(c: &mut Criterion) {
    let blk = enc(
        r#"{"kind": "blocked", "sizePerThread": [1, 8], "threadsPerWarp": [8, 8], "warpsPerCTA": [4, 1], "order": [1, 0]}"#,
        &[128, 128],
    );
    let mma = enc(
        r#"{"kind": "amd_mfma", "version": 3, "warpsPerCTA": [2, 2], "instrShape": [32, 32, 8], "isTransposed": true}"#,
        &[128, 128],
    );
    let t_src = enc(
        r#"{"kind": "blocked", "sizePerThread": [1, 4], "threadsPerWarp": [4, 16], "warpsPerCTA": [4, 1], "order": [1, 0]}"#,
        &[64, 64],
    );
    let t_dst = enc(
        r#"{"kind": "blocked", "sizePerThread": [4, 1], "threadsPerWarp": [16, 4], "warpsPerCTA": [1, 4], "order": [0, 1]}"#,
        &[64, 64],
    );
    for target in ["gfx942", "gfx950"] {
        let t = Target::by_name(target).expect("target");
        c.bench_function(
            &format!("convert_cost blocked->mfma32 128x128 f16 {target}"),
            |b| b.iter(|| convert_cost(black_box(&blk), black_box(&mma), 16, t).expect("cost")),
        );
    }
    let t = Target::by_name("gfx942").expect("target");
    c.bench_function("classify blocked->mfma32", |b| {
        b.iter(|| {
            linear_layout::heuristics::convert::classify(black_box(&blk), black_box(&mma)).expect("cls")
        })
    });
    c.bench_function("optimal_shared_layout blocked->mfma32 gfx942", |b| {
        b.iter(|| {
            linear_layout::heuristics::convert::optimal_shared_layout(black_box(&blk), black_box(&mma), 16, t)
                .expect("plan")
        })
    });
    c.bench_function("convert_cost transpose 64x64 f32 gfx942", |b| {
        b.iter(|| convert_cost(black_box(&t_src), black_box(&t_dst), 32, t).expect("cost"))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
