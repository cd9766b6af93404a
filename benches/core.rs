//! Core LinearLayout operations on the standard layouts (`benches/std_layouts.json`: Triton 3.6
//! `to_linear_layout` of a 128x128 blocked layout, an MFMA 32x32 layout at 128x128 and 128x64, a
//! swizzled shared layout and an MFMA dot operand). The same operations are timed on Triton's
//! own implementation by `scripts/bench_triton.py`; `scripts/benchmarks.py` runs both and
//! writes BENCHMARKS.md. The `scaling` group times every operation on generated invertible
//! layouts of 8 to 64 input bits over 1 to 6 dims a side.

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

/// A deterministic stream of pseudo-random words (xorshift64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// `bits` split over `dims` dims as evenly as possible.
fn split(bits: u32, dims: u32) -> Vec<u32> {
    (0..dims)
        .map(|k| bits / dims + u32::from(k < bits % dims))
        .collect()
}

/// A random invertible layout from `bits` input bits over `dims` in-dims named `{i}0…` to as
/// many out-bits over `dims` out-dims named `{o}0…`: a permuted identity mixed by column
/// operations (which keep it invertible).
fn invertible(rng: &mut Rng, bits: u32, dims: u32, i: &str, o: &str) -> LinearLayout {
    let n = bits as usize;
    let mut cols: Vec<u64> = (0..bits).map(|k| 1u64 << k).collect();
    for k in (1..n).rev() {
        cols.swap(k, rng.next() as usize % (k + 1));
    }
    for _ in 0..4 * n {
        let (a, b) = (rng.next() as usize % n, rng.next() as usize % n);
        if a != b {
            cols[b] ^= cols[a];
        }
    }
    let sizes = split(bits, dims);
    let mut at = 0;
    let ins: Vec<(String, Vec<u64>)> = sizes
        .iter()
        .enumerate()
        .map(|(k, &b)| {
            let part = cols[at..at + b as usize].to_vec();
            at += b as usize;
            (format!("{i}{k}"), part)
        })
        .collect();
    let outs = sizes
        .iter()
        .enumerate()
        .map(|(k, &b)| (format!("{o}{k}"), 1u64 << b));
    LinearLayout::from_flat_bases(ins.iter().map(|(n, c)| (n.as_str(), c.as_slice())), outs, true)
        .expect("an invertible layout")
}

/// Every core operation on layouts of 8 to 64 input bits over 1 to 6 dims a side.
fn scaling(c: &mut Criterion) {
    let mut g = c.benchmark_group("scaling");
    g.warm_up_time(std::time::Duration::from_millis(300));
    g.measurement_time(std::time::Duration::from_millis(700));
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for bits in [8u32, 16, 32, 64] {
        for dims in [1u32, 2, 4, 6] {
            // A dim's size must fit a u64: no single dim of 64 bits.
            if split(bits, dims)[0] >= 64 {
                continue;
            }
            let id = format!("{bits}b_{dims}d");
            let l = invertible(&mut rng, bits, dims, "i", "o");
            let outer = invertible(&mut rng, bits, dims, "o", "t");
            let other = invertible(&mut rng, bits, dims, "j", "o");
            let (half_a, half_b) = (
                invertible(&mut rng, bits / 2, dims, "i", "o"),
                invertible(&mut rng, bits / 2, dims, "i", "o"),
            );
            let inputs: Vec<(String, u64)> = l.in_dims().map(|(n, s)| (n.to_string(), (s - 1) / 3)).collect();
            g.bench_function(format!("apply/{id}"), |b| {
                b.iter(|| black_box(&l).apply(black_box(&inputs)).unwrap())
            });
            g.bench_function(format!("compose/{id}"), |b| {
                b.iter(|| black_box(&l).compose(black_box(&outer)).unwrap())
            });
            g.bench_function(format!("invert_and_compose/{id}"), |b| {
                b.iter(|| black_box(&l).invert_and_compose(black_box(&other)).unwrap())
            });
            g.bench_function(format!("invert/{id}"), |b| {
                b.iter(|| black_box(&l).invert().unwrap())
            });
            g.bench_function(format!("pseudoinvert/{id}"), |b| {
                b.iter(|| black_box(&l).pseudoinvert().unwrap())
            });
            g.bench_function(format!("product/{id}"), |b| {
                b.iter(|| black_box(&half_a).product(black_box(&half_b)).unwrap())
            });
        }
    }
    g.finish();
}

criterion_group!(benches, core_ops, scaling);
criterion_main!(benches);
