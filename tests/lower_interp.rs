//! The lowering against its reference semantics: generated copies and conversions run in the
//! interpreter must compute `out = in` and every destination register, for every plan kind.

mod lower_common;

use std::collections::BTreeMap;

use linear_layout::heuristics::convert::convert_cost;
use linear_layout::lower::{Dtype, convert_kernel, copy_kernel};
use lower_common::*;

fn shapes_for(r: &mut Rng) -> (Vec<u64>, Vec<u64>) {
    // (tensor shape, the layouts' power-of-two shape)
    match r.below(6) {
        0 => (vec![64, 48], vec![64, 64]),
        1 => (vec![40, 64], vec![64, 64]),
        2 => (vec![32, 64], vec![32, 64]),
        3 => (vec![128, 64], vec![128, 64]),
        _ => (vec![64, 64], vec![64, 64]),
    }
}

#[test]
fn copies_compute_out_equals_in() {
    let mut r = Rng(0x1234_5678_9abc_def1);
    let mut n = 0;
    for t in targets() {
        for _ in 0..12 {
            let (shape, padded) = shapes_for(&mut r);
            let layouts = encodings_2d(t, &padded);
            let (name, l) = &layouts[r.below(layouts.len() as u64) as usize];
            let dtype = r.pick(&Dtype::ALL);
            let k = copy_kernel(l, &shape, dtype, t).unwrap_or_else(|e| panic!("{} {name}: {e}", t.name));
            check(&k, l, &shape, dtype, r.next())
                .unwrap_or_else(|e| panic!("{} {name} {shape:?} {dtype:?}: {e}", t.name));
            n += 1;
        }
    }
    assert_eq!(n, 72);
}

/// Generates the conversion cases: realistic encoding pairs and random layouts, shuffles and
/// register permutations derived from them.
pub fn cases(per_target: usize, seed: u64) -> Vec<Case> {
    let mut r = Rng(seed);
    let mut out = Vec::new();
    for t in targets() {
        let lanes = t.wave_size.trailing_zeros() as usize;
        for i in 0..per_target {
            let dtype = r.pick(&Dtype::ALL);
            let (shape, padded) = shapes_for(&mut r);
            let (name, src, dst) = match i % 4 {
                0 | 1 => {
                    let layouts = encodings_2d(t, &padded);
                    let (a, la) = &layouts[r.below(layouts.len() as u64) as usize];
                    let same: Vec<&(String, _)> =
                        layouts.iter().filter(|(_, l)| warps(l) == warps(la)).collect();
                    let (b, lb) = same[r.below(same.len() as u64) as usize];
                    (format!("{a} -> {b}"), la.clone(), lb.clone())
                }
                2 => {
                    let dims = [padded[0].trailing_zeros(), padded[1].trailing_zeros()];
                    let zeros = r.below(2) as usize;
                    let warp_bits = r.below(3) as usize;
                    let a = random_layout(&mut r, &dims, lanes, warp_bits, zeros);
                    let zb = r.below(2) as usize;
                    let b = random_layout(&mut r, &dims, lanes, warp_bits, zb);
                    ("random".to_string(), a, b)
                }
                _ => {
                    let dims = [padded[0].trailing_zeros(), padded[1].trailing_zeros()];
                    let (wb, z) = (r.below(3) as usize, r.below(2) as usize);
                    let a = random_layout(&mut r, &dims, lanes, wb, z);
                    let regs_only = r.below(3) == 0;
                    let b = permuted(&mut r, &a, regs_only);
                    (format!("random permuted (registers only: {regs_only})"), a, b)
                }
            };
            out.push(Case {
                name,
                src,
                dst,
                shape,
                dtype,
                target: t,
            });
        }
    }
    out
}

#[test]
fn conversions_compute_out_and_registers() {
    let cases = cases(200, 0x9E37_79B9_7F4A_7C15);
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    let mut failures = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let cost = convert_cost(&c.src, &c.dst, c.dtype.bits(), c.target).unwrap();
        let mut kind = cost.kind.as_str().to_string();
        if cost.plan.as_ref().is_some_and(|p| p.read_transposed) {
            kind.push_str(" (transposed read)");
        }
        if cost.instructions.keys().any(|k| k.contains("swap")) {
            kind.push_str(" (permlane swap)");
        }
        *kinds.entry(format!("{} {kind}", c.target.name)).or_insert(0) += 1;
        let result = convert_kernel(&c.src, &c.dst, &c.shape, c.dtype, c.target)
            .map_err(|e| format!("lowering: {e}"))
            .and_then(|k| check(&k, &c.dst, &c.shape, c.dtype, i as u64));
        if let Err(e) = result {
            failures.push(format!(
                "{} {} {:?} {:?} [{kind}]: {e}",
                c.target.name, c.name, c.shape, c.dtype
            ));
        }
    }
    eprintln!("{} cases by kind: {kinds:#?}", cases.len());
    for f in failures.iter().take(20) {
        eprintln!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed",
        failures.len(),
        cases.len()
    );
    assert!(cases.len() >= 1000);
    for kind in ["noop", "register", "shuffle", "lds"] {
        assert!(kinds.keys().any(|k| k.ends_with(kind)), "no {kind} case");
    }
}
