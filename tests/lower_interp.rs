//! The lowering against its reference semantics: generated copies and conversions run in the
//! interpreter must compute `out = in` and every destination register, for every plan kind.

mod lower_common;

use std::collections::BTreeMap;

use linear_layout::heuristics::convert::convert_cost;
use linear_layout::lower::{Dtype, convert_kernel, copy_kernel};
use lower_common::*;

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

#[test]
fn conversions_compute_out_and_registers() {
    let cases = cases(170, 0x9E37_79B9_7F4A_7C15);
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
    for kind in [
        "noop",
        "register",
        "shuffle",
        "lds",
        "(transposed read)",
        "(permlane swap)",
    ] {
        assert!(kinds.keys().any(|k| k.ends_with(kind)), "no {kind} case");
    }
}

/// Arbitrary layouts, shapes, dtypes and targets: the lowering answers or says why, and what it
/// answers runs right (no panic, no unbounded work).
#[test]
fn arbitrary_layouts_lower_or_fail_cleanly() {
    use linear_layout::linear::arbitrary::distributed_layout;
    use quickcheck::Gen;
    let mut g = Gen::new(16);
    let mut r = Rng(0xA5A5_5A5A_1234_4321);
    let (mut ok, mut refused) = (0, 0);
    for _ in 0..300 {
        let src = distributed_layout(&mut g);
        let dst = distributed_layout(&mut g);
        let t = r.pick(&targets());
        let dtype = r.pick(&Dtype::ALL);
        let shape: Vec<u64> = src
            .out_dims()
            .map(|(_, s)| (s - r.below(s / 2 + 1)).max(1))
            .collect();
        match copy_kernel(&src, &shape, dtype, t) {
            Ok(k) => {
                check(&k, &src, &shape, dtype, r.next()).unwrap();
                k.llvm_ir().unwrap();
                ok += 1;
            }
            Err(e) => {
                assert!(!e.message().is_empty());
                refused += 1;
            }
        }
        if let Ok(k) = convert_kernel(&src, &dst, &shape, dtype, t) {
            check(&k, &dst, &shape, dtype, r.next()).unwrap();
        }
    }
    eprintln!("{ok} lowered, {refused} refused");
    assert!(ok > 0 && refused > 0);
}

/// A layout that holds only some of its tensor's elements (not surjective) would leave the
/// others uncopied: both kernels refuse it and say why.
#[test]
fn layouts_missing_elements_are_refused() {
    use linear_layout::linear::LinearLayout;
    use linear_layout::target::Target;
    let t = Target::by_name("gfx942").unwrap();
    // Two elements, one lane holding element 0 only.
    let partial = LinearLayout::from_bases(
        [("register", vec![]), ("lane", vec![]), ("warp", vec![])],
        [("dim0", 2)],
        false,
    )
    .unwrap();
    let whole = LinearLayout::identity_1d(2, "lane", "dim0").unwrap();
    let e = copy_kernel(&partial, &[2], Dtype::F64, t).unwrap_err();
    assert!(
        e.message().contains("reaches 1 of its tensor's 2 elements"),
        "{e}"
    );
    for (src, dst) in [(&partial, &whole), (&whole, &partial)] {
        let e = convert_kernel(src, dst, &[2], Dtype::I8, t).unwrap_err();
        assert!(
            e.message().contains("reaches 1 of its tensor's 2 elements"),
            "{e}"
        );
    }
    // The whole layout lowers, and copies both elements.
    let k = copy_kernel(&whole, &[2], Dtype::F64, t).unwrap();
    check(&k, &whole, &[2], Dtype::F64, 7).unwrap();
}

/// In-dims of up to 64 bits (broadcasts) are refused with their size, not an overflow.
#[test]
fn in_dims_of_64_bits_are_refused_by_size() {
    use linear_layout::linear::LinearLayout;
    use linear_layout::target::Target;
    let t = Target::by_name("gfx1100").unwrap();
    for (dim, what) in [
        ("lane", "2^64 lanes per warp"),
        ("register", "2^64 registers per thread"),
        ("warp", "2^69 threads"),
    ] {
        let l = LinearLayout::from_bases(
            [(dim, vec![vec![]; 64])],
            std::iter::empty::<(&str, i64)>(),
            false,
        )
        .unwrap();
        let e = copy_kernel(&l, &[], Dtype::F16, t).unwrap_err();
        assert!(e.message().contains(what), "{dim}: {e}");
    }
}

/// Registers that repeat an element as a combination of other registers (not a zero basis)
/// travel through LDS once: the round trip writes each distinct element once and every
/// destination register reads its element back.
#[test]
fn round_trips_of_registers_repeating_elements() {
    use linear_layout::heuristics::convert::ConversionKind;
    use linear_layout::linear::LinearLayout;
    use linear_layout::target::Target;
    let t = Target::by_name("gfx950").unwrap();
    // Both warps hold the whole 2x2 tensor; registers 1 and 2 hold the same element (register
    // bits 0 and 1 both step dim1).
    let src = LinearLayout::from_bases(
        [
            ("register", vec![vec![0, 1], vec![0, 1], vec![1, 0]]),
            ("lane", vec![]),
            ("warp", vec![vec![0, 0]]),
        ],
        [("dim0", 2), ("dim1", 2)],
        false,
    )
    .unwrap();
    // Warp w holds column w; its registers repeat elements too.
    let dst = LinearLayout::from_bases(
        [
            ("register", vec![vec![1, 0], vec![1, 0], vec![0, 0]]),
            ("lane", vec![]),
            ("warp", vec![vec![0, 1]]),
        ],
        [("dim0", 2), ("dim1", 2)],
        false,
    )
    .unwrap();
    for dtype in Dtype::ALL {
        let cost = convert_cost(&src, &dst, dtype.bits(), t).unwrap();
        assert_eq!(cost.kind, ConversionKind::Lds);
        let k = convert_kernel(&src, &dst, &[2, 2], dtype, t).unwrap_or_else(|e| panic!("{dtype:?}: {e}"));
        check(&k, &dst, &[2, 2], dtype, 11).unwrap_or_else(|e| panic!("{dtype:?}: {e}"));
        // The price counts the accesses the code makes: each distinct element once.
        let plan = cost.plan.as_ref().unwrap();
        let counts = k.program.op_counts();
        assert_eq!(
            counts["lds_write"],
            plan.write.instructions * plan.reps,
            "{dtype:?}"
        );
        assert_eq!(
            counts["lds_read"],
            plan.read.instructions * plan.reps,
            "{dtype:?}"
        );
    }
}
