//! The lowering against its reference semantics: generated copies and conversions run in the
//! interpreter must compute `out = in` and every destination register, for every plan kind.

mod lower_common;

use std::collections::BTreeMap;

use linear_layout::heuristics::convert::convert_cost;
use linear_layout::lower::{BranchCondition, Dtype, convert_kernel, copy_kernel};
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

/// A loop's semantics: the counter runs from start while below end; carried values and slots
/// move together after each iteration and hold their last values after the loop; a branch
/// picks by its condition. Checked in the interpreter and through llc.
#[test]
fn loops_and_branches_carry_values_and_slots() {
    use linear_layout::lower::{
        ArithOp, Buffer, CarriedUniform, CarriedValue, Cmp, Condition, Extent, GlobalOffset, Op, Program,
        Uniform, UniformInput, XorMap, run_with,
    };
    // out[tid] = Σ_{k < n} (k·3) computed as a carried sum of a carried slot, then +1 if n > 2.
    let mut p = Program::new("sum", 64, 64);
    p.buffers.push(Buffer {
        name: "out".into(),
        elements: Some(128),
        element_bits: 32,
        address: None,
    });
    p.scalars.push(linear_layout::lower::Scalar {
        name: "n".into(),
        ty: "i32",
        position: 1,
    });
    let (zero, one, acc, term, next, sum, plus, out) = (
        p.value(32),
        p.value(32),
        p.value(32),
        p.value(32),
        p.value(32),
        p.value(32),
        p.value(32),
        p.value(32),
    );
    p.ops.push(Op::Constant { dst: zero, bits: 0 });
    p.ops.push(Op::Constant { dst: one, bits: 1 });
    let slot = |k| Uniform::input(UniformInput::Carried(k));
    // Slot 1 carries k·3; the body adds it to the accumulator through a load-free constant.
    let body = vec![
        Op::Constant { dst: term, bits: 3 },
        Op::Arith {
            op: ArithOp::Mul,
            ty: "i32",
            dst: sum,
            src: vec![term, term],
        },
        Op::Arith {
            op: ArithOp::Add,
            ty: "i32",
            dst: next,
            src: vec![acc, sum],
        },
    ];
    p.ops.push(Op::Loop {
        counter: 0,
        start: Uniform::constant(0),
        end: Uniform::input(UniformInput::Argument(0)),
        step: Uniform::constant(1),
        uniforms: vec![CarriedUniform {
            slot: 1,
            init: Uniform::constant(0),
            next: slot(1).add(&Uniform::constant(3), 1),
        }],
        values: vec![CarriedValue {
            phi: acc,
            init: zero,
            next,
        }],
        body,
    });
    p.ops.push(Op::If {
        cond: BranchCondition::Uniform(Condition {
            lhs: Uniform::input(UniformInput::Argument(0)),
            cmp: Cmp::Gt,
            rhs: Uniform::constant(2),
        }),
        then: vec![Op::Arith {
            op: ArithOp::Add,
            ty: "i32",
            dst: plus,
            src: vec![acc, one],
        }],
        otherwise: vec![],
        results: vec![[out, plus, acc]],
    });
    // The slot's last value (3·n) is the base of the store.
    p.ops.push(Op::GlobalStore {
        src: vec![out],
        buffer: 0,
        offset: GlobalOffset {
            coords: vec![XorMap {
                cols: vec![1, 2, 4, 8, 16, 32],
                constant: 0,
            }],
            strides: vec![Extent::Elements(1)],
            bounds: vec![None],
            base: slot(1),
            when: vec![],
            index: None,
            predicate: None,
            held: None,
            held_row: None,
        },
    });
    for n in [0u64, 1, 2, 5] {
        let mut buffers = vec![vec![0u8; 512]];
        run_with(&p, &mut buffers, &[n]).unwrap();
        let want = 9 * n + u64::from(n > 2);
        let at = 3 * n as usize * 4;
        let got = u32::from_le_bytes(buffers[0][at..at + 4].try_into().unwrap());
        assert_eq!(u64::from(got), want, "n = {n}");
    }
    if let Some(llc) = llc() {
        let t = linear_layout::target::Target::by_name("gfx942").unwrap();
        let k = linear_layout::lower::Kernel {
            program: p,
            target: t,
        };
        let dir = std::env::temp_dir().join(format!("ll-loop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        compile(llc, &k.llvm_ir().unwrap(), t, &dir, "sum").unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A while loop by hand, tested after its first part: `acc` starts as the thread id, `before`
/// doubles it, the test is `i < n`, `after` adds one to the double; the loop leaves the double
/// of its last `before` (`2·((tid + 1)·2ⁿ − 1)`), stored at `tid + i` with the slot's last
/// value (`n`). The test is a comparison of uniforms or a compare in registers every thread
/// agrees on (read from the first lane); a test that differs between threads is an error, and
/// so is a loop that never ends. Checked in the interpreter and through llc for wave64 and
/// wave32.
#[test]
fn while_loops_test_after_their_first_part() {
    use linear_layout::lower::{
        ArithOp, BranchCondition, Buffer, CarriedUniform, CarriedValue, Cmp, Condition, Extent, GlobalOffset,
        Op, Predicate, Program, Uniform, UniformInput, XorMap, run_with,
    };
    #[derive(Clone, Copy, PartialEq)]
    enum Test {
        Uniforms,
        Registers,
        PerThread,
    }
    let build = |wave: u32, test: Test| {
        let mut p = Program::new("doubling", wave, 64);
        p.buffers.push(Buffer {
            name: "out".into(),
            elements: Some(128),
            element_bits: 32,
            address: None,
        });
        p.scalars.push(linear_layout::lower::Scalar {
            name: "n".into(),
            ty: "i32",
            position: 1,
        });
        let lane = XorMap {
            cols: vec![1, 2, 4, 8, 16, 32],
            constant: 0,
        };
        let (tid, acc, twice, next, one, out) = (
            p.value(32),
            p.value(32),
            p.value(32),
            p.value(32),
            p.value(32),
            p.value(32),
        );
        let (i, n, go) = (p.value(32), p.value(32), p.value(1));
        let slot = Uniform::input(UniformInput::Carried(0));
        p.ops.push(Op::ThreadMap {
            dst: tid,
            map: lane.clone(),
        });
        p.ops.push(Op::Constant { dst: one, bits: 1 });
        let mut before = vec![Op::Arith {
            op: ArithOp::Add,
            ty: "i32",
            dst: twice,
            src: vec![acc, acc],
        }];
        let cond = match test {
            Test::Uniforms => BranchCondition::Uniform(Condition {
                lhs: slot.clone(),
                cmp: Cmp::Lt,
                rhs: Uniform::input(UniformInput::Argument(0)),
            }),
            Test::Registers | Test::PerThread => {
                before.push(Op::UniformValue {
                    dst: i,
                    value: slot.clone(),
                });
                before.push(Op::UniformValue {
                    dst: n,
                    value: Uniform::input(UniformInput::Argument(0)),
                });
                before.push(Op::Compare {
                    pred: Predicate::Slt,
                    ty: "i32",
                    dst: go,
                    a: if test == Test::PerThread { tid } else { i },
                    b: n,
                });
                BranchCondition::Value(go)
            }
        };
        p.ops.push(Op::While {
            uniforms: vec![CarriedUniform {
                slot: 0,
                init: Uniform::constant(0),
                next: slot.add(&Uniform::constant(1), 1),
            }],
            values: vec![CarriedValue {
                phi: acc,
                init: tid,
                next,
            }],
            before,
            cond,
            results: vec![[out, twice]],
            after: vec![Op::Arith {
                op: ArithOp::Add,
                ty: "i32",
                dst: next,
                src: vec![twice, one],
            }],
        });
        p.ops.push(Op::GlobalStore {
            src: vec![out],
            buffer: 0,
            offset: GlobalOffset {
                coords: vec![lane],
                strides: vec![Extent::Elements(1)],
                bounds: vec![None],
                base: slot,
                ..GlobalOffset::default()
            },
        });
        p
    };
    for (wave, arch) in [(64, "gfx942"), (32, "gfx1100")] {
        for test in [Test::Uniforms, Test::Registers] {
            let p = build(wave, test);
            assert_eq!(p.op_counts()["while"], 1);
            for n in [0u32, 1, 3] {
                let mut buffers = vec![vec![0u8; 512]];
                run_with(&p, &mut buffers, &[u64::from(n)]).unwrap();
                for t in 0..64u32 {
                    let want = 2 * ((t + 1) * (1 << n) - 1);
                    let at = 4 * (t + n) as usize;
                    let got = u32::from_le_bytes(buffers[0][at..at + 4].try_into().unwrap());
                    assert_eq!(got, want, "{arch}, n = {n}, thread {t}");
                }
            }
            if let Some(llc) = llc() {
                let t = linear_layout::target::Target::by_name(arch).unwrap();
                let k = linear_layout::lower::Kernel {
                    program: p,
                    target: t,
                };
                let dir = std::env::temp_dir().join(format!("ll-while-{}", std::process::id()));
                std::fs::create_dir_all(&dir).unwrap();
                compile(llc, &k.llvm_ir().unwrap(), t, &dir, &format!("doubling_{arch}")).unwrap();
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
    }
    let e = run_with(&build(64, Test::PerThread), &mut [vec![0u8; 512]], &[5])
        .unwrap_err()
        .to_string();
    assert!(e.contains("differs between threads"), "{e}");
    let mut spin = Program::new("spin", 64, 64);
    spin.ops.push(Op::While {
        uniforms: vec![],
        values: vec![],
        before: vec![],
        cond: BranchCondition::Uniform(Condition {
            lhs: Uniform::constant(0),
            cmp: Cmp::Lt,
            rhs: Uniform::constant(1),
        }),
        results: vec![],
        after: vec![],
    });
    let e = run_with(&spin, &mut [], &[]).unwrap_err().to_string();
    assert!(e.contains("operations"), "{e}");
}

/// Loops are bounded work: past the interpreter's budget of loop operations they are an error,
/// and a derived uniform reading itself is refused before anything runs.
#[test]
fn loops_are_bounded_and_derived_uniforms_acyclic() {
    use linear_layout::lower::{Cmp, Condition, Derived, Op, Program, Uniform, UniformInput, run_with};
    let mut p = Program::new("spin", 64, 64);
    p.ops.push(Op::Loop {
        counter: 0,
        start: Uniform::constant(0),
        end: Uniform::constant(i32::MAX as i64),
        step: Uniform::constant(1),
        uniforms: vec![],
        values: vec![],
        body: vec![Op::Barrier],
    });
    let e = run_with(&p, &mut [], &[]).unwrap_err().to_string();
    assert!(e.contains("operations"), "{e}");
    let mut q = Program::new("cycle", 64, 64);
    let d = Uniform::input(UniformInput::Derived(0));
    q.derived.push(Derived::Select {
        cond: Condition {
            lhs: d.clone(),
            cmp: Cmp::Lt,
            rhs: Uniform::constant(0),
        },
        then: d,
        otherwise: Uniform::constant(1),
    });
    q.ops.push(Op::If {
        cond: BranchCondition::Uniform(Condition {
            lhs: Uniform::input(UniformInput::Derived(0)),
            cmp: Cmp::Eq,
            rhs: Uniform::constant(1),
        }),
        then: vec![],
        otherwise: vec![],
        results: vec![],
    });
    assert!(q.validate().is_err());
    assert!(run_with(&q, &mut [], &[]).is_err());
}

/// A gather with a per-thread predicate, from IR values that are data: thread `t` loads
/// element `idx[t]` where `t ≥ n` (a scalar argument) fails the predicate, so masked threads
/// read the load's `other`. The index is a loaded value (`ThreadMap` for the index load's
/// address), the bound a uniform broadcast to every thread and compared per thread.
#[test]
fn gathers_and_predicates_read_data_addresses() {
    use linear_layout::lower::{
        ArithOp, Buffer, Extent, GlobalOffset, Op, Predicate, Program, Uniform, UniformInput, XorMap,
        run_with,
    };
    let mut p = Program::new("gather", 64, 64);
    for (name, elements) in [("idx", 64), ("table", 256), ("out", 64)] {
        p.buffers.push(Buffer {
            name: name.into(),
            elements: Some(elements),
            element_bits: 32,
            address: None,
        });
    }
    p.scalars.push(linear_layout::lower::Scalar {
        name: "n".into(),
        ty: "i32",
        position: 3,
    });
    let lane = XorMap {
        cols: vec![1, 2, 4, 8, 16, 32],
        constant: 0,
    };
    let at_lane = GlobalOffset {
        coords: vec![lane.clone()],
        strides: vec![Extent::Elements(1)],
        bounds: vec![None],
        ..GlobalOffset::default()
    };
    let (idx, tid, n, live, got) = (p.value(32), p.value(32), p.value(32), p.value(1), p.value(32));
    p.ops.push(Op::GlobalLoad {
        dst: vec![idx],
        buffer: 0,
        offset: at_lane.clone(),
        other: 0,
    });
    p.ops.push(Op::ThreadMap { dst: tid, map: lane });
    p.ops.push(Op::UniformValue {
        dst: n,
        value: Uniform::input(UniformInput::Argument(0)),
    });
    p.ops.push(Op::Compare {
        pred: Predicate::Slt,
        ty: "i32",
        dst: live,
        a: tid,
        b: n,
    });
    p.ops.push(Op::GlobalLoad {
        dst: vec![got],
        buffer: 1,
        offset: GlobalOffset {
            index: Some(idx),
            predicate: Some(live),
            ..GlobalOffset::default()
        },
        other: 7,
    });
    let (seven, chosen) = (p.value(32), p.value(32));
    p.ops.push(Op::Constant { dst: seven, bits: 9 });
    // Select: odd gathered values are replaced by 9.
    let (bit, odd) = (p.value(32), p.value(1));
    let one = p.value(32);
    p.ops.push(Op::Constant { dst: one, bits: 1 });
    p.ops.push(Op::Arith {
        op: ArithOp::Mul,
        ty: "i32",
        dst: bit,
        src: vec![got, one],
    });
    p.ops.push(Op::Compare {
        pred: Predicate::Ugt,
        ty: "i32",
        dst: odd,
        a: bit,
        b: seven,
    });
    p.ops.push(Op::Select {
        dst: chosen,
        cond: odd,
        a: seven,
        b: got,
    });
    p.ops.push(Op::GlobalStore {
        src: vec![chosen],
        buffer: 2,
        offset: at_lane,
    });
    p.validate().unwrap();
    let idx: Vec<u32> = (0..64).map(|t| (t * 37 + 5) % 256).collect();
    let table: Vec<u32> = (0..256).map(|i| i * 3 % 17).collect();
    let words = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    for n in [0u64, 1, 40, 64] {
        let mut buffers = vec![words(&idx), words(&table), vec![0; 256]];
        run_with(&p, &mut buffers, &[n]).unwrap();
        for t in 0..64usize {
            let gathered = if (t as u64) < n { table[idx[t] as usize] } else { 7 };
            let want = if gathered > 9 { 9 } else { gathered };
            let got = u32::from_le_bytes(buffers[2][t * 4..t * 4 + 4].try_into().unwrap());
            assert_eq!(got, want, "n = {n}, thread {t}");
        }
    }
    if let Some(llc) = llc() {
        let t = linear_layout::target::Target::by_name("gfx942").unwrap();
        let ir = linear_layout::lower::emit_llvm(&p, t).unwrap();
        assert!(ir.contains("icmp slt i32"));
        assert!(ir.contains("select i1"));
        let dir = std::env::temp_dir().join(format!("ll-gather-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        compile(llc, &ir, t, &dir, "gather").unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A wave storing each lane's id at `offset(lane, held)`, where `held` is a register holding
/// the lane plus `start` — or plus 0 where `forget` (a register that forgets the start) — and
/// `scalars` names the scalar arguments.
fn held_store(
    scalars: &[&str],
    start: &linear_layout::lower::Uniform,
    forget: bool,
    offset: impl Fn(
        linear_layout::lower::XorMap,
        linear_layout::lower::Value,
    ) -> linear_layout::lower::GlobalOffset,
) -> linear_layout::lower::Program {
    use linear_layout::lower::{ArithOp, Buffer, Op, Program, Scalar, Uniform, XorMap};
    let mut p = Program::new("held", 64, 64);
    p.buffers.push(Buffer {
        name: "out".into(),
        elements: Some(1024),
        element_bits: 32,
        address: None,
    });
    for (i, name) in scalars.iter().enumerate() {
        p.scalars.push(Scalar {
            name: name.to_string(),
            ty: "i32",
            position: i + 1,
        });
    }
    let lane = XorMap {
        cols: vec![1, 2, 4, 8, 16, 32],
        constant: 0,
    };
    let (tid, b, held) = (p.value(32), p.value(32), p.value(32));
    p.ops.push(Op::ThreadMap {
        dst: tid,
        map: lane.clone(),
    });
    p.ops.push(Op::UniformValue {
        dst: b,
        value: if forget {
            Uniform::constant(0)
        } else {
            start.clone()
        },
    });
    p.ops.push(Op::Arith {
        op: ArithOp::Add,
        ty: "i32",
        dst: held,
        src: vec![tid, b],
    });
    p.ops.push(Op::GlobalStore {
        src: vec![tid],
        buffer: 0,
        offset: offset(lane, held),
    });
    p.validate().unwrap();
    p
}

fn word_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap())
}

/// The LLVM IR of `program` for gfx942.
fn ir_of(program: linear_layout::lower::Program) -> String {
    linear_layout::lower::Kernel {
        program,
        target: linear_layout::target::Target::by_name("gfx942").unwrap(),
    }
    .llvm_ir()
    .unwrap()
}

/// An offset held in a register replaces the formula in the code, so the interpreter checks
/// it: a held offset that forgets the base is an error, not a silent wrong address.
#[test]
fn held_offsets_must_be_what_the_coordinates_say() {
    use linear_layout::lower::{Extent, GlobalOffset, Uniform, UniformInput, run_with};
    let base = Uniform::input(UniformInput::Argument(0));
    let build = |forget: bool| {
        held_store(&["base"], &base, forget, |lane, held| GlobalOffset {
            coords: vec![lane],
            strides: vec![Extent::Elements(1)],
            bounds: vec![None],
            base: base.clone(),
            held: Some(held),
            ..GlobalOffset::default()
        })
    };
    let mut buffers = vec![vec![0u8; 4096]];
    run_with(&build(false), &mut buffers, &[100]).unwrap();
    assert_eq!((word_at(&buffers[0], 100), word_at(&buffers[0], 163)), (0, 63));
    let wrong = run_with(&build(true), &mut buffers, &[100]).unwrap_err();
    assert!(wrong.message().contains("held offset"), "{wrong}");
    // The code shifts the held register to bytes and passes no uniform part.
    let ir = ir_of(build(false));
    assert!(ir.contains("shl i32") && ir.contains(", i32 0, i32 0)"), "{ir}");
}

/// A held row replaces one dimension's part of the formula in the code, so the interpreter
/// checks it too: a row that forgets its start is an error; a right one leaves the uniform part
/// without the row's `start · stride`, and the code passes no scalar offset.
#[test]
fn held_rows_must_be_what_the_coordinates_say() {
    use linear_layout::lower::{Extent, GlobalOffset, HeldRow, Uniform, UniformInput, run_with};
    let stride = Extent::Scalar { index: 0, times: 1 };
    let start = Uniform::input(UniformInput::Argument(1));
    let build = |forget: bool| {
        held_store(&["stride", "start"], &start, forget, |lane, row| GlobalOffset {
            coords: vec![lane],
            strides: vec![stride],
            bounds: vec![None],
            base: start.mul(&stride.uniform()),
            held_row: Some(HeldRow {
                dim: 0,
                start: start.clone(),
                value: row,
            }),
            ..GlobalOffset::default()
        })
    };
    let mut buffers = vec![vec![0u8; 4096]];
    run_with(&build(false), &mut buffers, &[3, 100]).unwrap();
    assert_eq!(
        (word_at(&buffers[0], 303), word_at(&buffers[0], 300 + 3 * 63)),
        (1, 63)
    );
    let wrong = run_with(&build(true), &mut buffers, &[3, 100]).unwrap_err();
    assert!(wrong.message().contains("held row"), "{wrong}");
    // The code multiplies the held row by the stride and passes no uniform part.
    let ir = ir_of(build(false));
    assert!(
        ir.contains(", i32 0, i32 0)") && !ir.contains("readfirstlane"),
        "{ir}"
    );
}

/// A predicated region holds only what may run in some threads alone: a store masked by
/// another predicate, an LDS write or a barrier is refused, and so is a value it defines
/// that is read after it; a well-formed one runs as its ops would in place.
#[test]
fn predicated_regions_hold_masked_accesses_alone() {
    use linear_layout::lower::{Buffer, GlobalOffset, Op, Predicate, Program, Value, XorMap, run};
    let lanes = || XorMap {
        cols: (0..6).map(|b| 1 << b).collect(),
        constant: 0,
    };
    let build = |inside: &dyn Fn(&mut Program, Value, Value) -> Vec<Op>, after_reads: bool| {
        let mut p = Program::new("k", 64, 64);
        p.buffers.push(Buffer {
            name: "x".into(),
            elements: Some(64),
            element_bits: 32,
            address: None,
        });
        let first = p.thread_test(lanes(), Predicate::Eq, 0);
        let v = p.value(32);
        let ops = inside(&mut p, first, v);
        p.ops.push(Op::Predicated {
            predicate: first,
            ops,
        });
        if after_reads {
            p.ops.push(Op::GlobalStore {
                src: vec![v],
                buffer: 0,
                offset: GlobalOffset::default(),
            });
        }
        p
    };
    let masked = |predicate| GlobalOffset {
        predicate: Some(predicate),
        ..GlobalOffset::default()
    };
    let load_then_store = |p: &mut Program, first: Value, v: Value| {
        let _ = p;
        vec![
            Op::GlobalLoad {
                dst: vec![v],
                buffer: 0,
                offset: GlobalOffset::default(),
                other: 0,
            },
            Op::GlobalStore {
                src: vec![v],
                buffer: 0,
                offset: masked(first),
            },
        ]
    };
    let good = build(&load_then_store, false);
    good.validate().unwrap();
    let mut buffers = vec![vec![5u8; 256]];
    run(&good, &mut buffers).unwrap();
    assert_eq!(buffers[0], vec![5u8; 256]);
    let read_after = build(&load_then_store, true);
    let e = read_after.validate().unwrap_err().to_string();
    assert!(e.contains("used after it"), "{e}");
    let unmasked_store = build(
        &|_: &mut Program, _: Value, v: Value| {
            vec![Op::GlobalStore {
                src: vec![v],
                buffer: 0,
                offset: GlobalOffset::default(),
            }]
        },
        false,
    );
    assert!(unmasked_store.validate().is_err());
    let barrier = build(&|_: &mut Program, _: Value, _: Value| vec![Op::Barrier], false);
    let e = barrier.validate().unwrap_err().to_string();
    assert!(e.contains("predicated region"), "{e}");
}
