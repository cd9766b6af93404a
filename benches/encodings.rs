//! Converting the standard encodings (`benches/std_encodings.json`, the sources of
//! `std_layouts.json`, and a WMMA layout and a slice whose Triton layouts are in
//! `encoding_layouts.json`) to linear layouts. Each result is checked against the layout
//! Triton 3.6 produced before it is timed.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use linear_layout::encodings::Encoding;
use linear_layout::linear::LinearLayout;
use serde_json::Value;

fn encodings(c: &mut Criterion) {
    let specs: HashMap<String, Value> =
        serde_json::from_str(include_str!("std_encodings.json")).expect("benches/std_encodings.json");
    let mut layouts: HashMap<String, LinearLayout> =
        serde_json::from_str(include_str!("std_layouts.json")).expect("benches/std_layouts.json");
    let more: HashMap<String, LinearLayout> =
        serde_json::from_str(include_str!("encoding_layouts.json")).expect("benches/encoding_layouts.json");
    layouts.extend(more);
    let mut g = c.benchmark_group("encodings");
    for name in ["blocked", "mfma", "shared", "dotop", "wmma", "slice"] {
        let spec = &specs[name];
        let encoding = Encoding::from_json(&spec["encoding"]).expect("a valid encoding");
        let shape: Vec<u64> = serde_json::from_value(spec["shape"].clone()).expect("a shape");
        let layout = encoding.to_linear_layout(&shape).expect("converts");
        assert_eq!(layout, layouts[name], "{name} differs from Triton's layout");
        g.bench_function(format!("to_linear_layout/{name}"), |b| {
            b.iter(|| black_box(&encoding).to_linear_layout(black_box(&shape)).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, encodings);
criterion_main!(benches);
