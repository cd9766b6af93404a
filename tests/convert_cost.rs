//! Conversion costs: bank conflicts against Triton 3.6, algebra against brute force, the swizzle
//! search against exhaustive search, and the anchors of `codegen-anchor.md`.

use linear_layout::heuristics::convert::*;
use linear_layout::heuristics::target::{LdsOp, Target};
use linear_layout::linear::LinearLayout;

fn l2(dims: &[(&str, &[[u64; 2]])], s0: u64, s1: u64) -> LinearLayout {
    let bases: Vec<(&str, Vec<Vec<i64>>)> = dims
        .iter()
        .map(|(n, v)| (*n, v.iter().map(|x| vec![x[0] as i64, x[1] as i64]).collect()))
        .collect();
    LinearLayout::from_bases(bases, [("dim0", s0 as i64), ("dim1", s1 as i64)], false).unwrap()
}

fn enc(json: &str, shape: &[u64]) -> LinearLayout {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    linear_layout::encodings::Encoding::from_json(&v)
        .unwrap()
        .to_linear_layout(shape)
        .unwrap()
}

/// codegen-anchor (b): Triton emits 16 ds_write_b32 + 8 ds_read2st64_b32 (24 LDS instructions,
/// one barrier, 16 KiB). Both sides 128-bit is impossible here: src registers span dim-1 bits
/// {0, 1, 4, 5}... of columns, dst registers rows, and their spans meet only in 0, so no 16-byte
/// chunk lies in one thread of both layouts. We use 128 bits on one side.
#[test]
fn transpose_anchor() {
    let src = enc(
        r#"{"kind": "blocked", "sizePerThread": [1, 4], "threadsPerWarp": [4, 16], "warpsPerCTA": [4, 1], "order": [1, 0]}"#,
        &[64, 64],
    );
    let dst = enc(
        r#"{"kind": "blocked", "sizePerThread": [4, 1], "threadsPerWarp": [16, 4], "warpsPerCTA": [1, 4], "order": [0, 1]}"#,
        &[64, 64],
    );
    // Why no 128-bit read *and* write: the register spans of the two layouts meet only in 0.
    let regs = |l: &LinearLayout| l.flatten_outs().unwrap().flat_bases("register").unwrap().to_vec();
    assert!(regs(&src).iter().all(|r| !regs(&dst).contains(r)));
    for (t, want_conflicts) in [("gfx942", 1), ("gfx950", 0), ("gfx90a", 1)] {
        let c = convert_cost(&src, &dst, 32, Target::by_name(t).unwrap()).unwrap();
        eprintln!(
            "{t}: {:?} conflicts={} lds={} cycles={}",
            c.instructions, c.bank_conflicts, c.lds_bytes, c.cycles
        );
        assert_eq!(c.kind, ConversionKind::Lds);
        assert!(c.lds_instructions() <= 24, "{t}: {:?}", c.instructions);
        assert_eq!(c.instructions.get("ds_write_b128"), Some(&4), "{t}");
        assert_eq!(c.instructions.get("s_barrier"), Some(&1), "{t}");
        assert_eq!(c.lds_bytes, 16384);
        assert_eq!(c.bank_conflicts, want_conflicts, "{t}");
    }
}

/// Blocked<[1,8],[8,8],[4,1],[1,0]> <-> MFMA (transposed, warps [2,2]) at 128x128 f16:
/// Triton 3.6 emits 8 ds_write_b128 + 8 ds_read_b128 per thread (codegen-anchor (d)).
#[test]
fn mfma_anchors() {
    let blk = enc(
        r#"{"kind": "blocked", "sizePerThread": [1, 8], "threadsPerWarp": [8, 8], "warpsPerCTA": [4, 1], "order": [1, 0]}"#,
        &[128, 128],
    );
    for (target, version, shapes) in [
        ("gfx942", 3, [[32, 32, 8], [16, 16, 16]]),
        ("gfx950", 4, [[32, 32, 16], [16, 16, 32]]),
    ] {
        let t = Target::by_name(target).unwrap();
        for instr in shapes {
            let mma = enc(
                &format!(
                    r#"{{"kind": "amd_mfma", "version": {version}, "warpsPerCTA": [2, 2], "instrShape": {instr:?}, "isTransposed": true}}"#
                ),
                &[128, 128],
            );
            for (name, a, b) in [("blocked->mfma", &blk, &mma), ("mfma->blocked", &mma, &blk)] {
                let c = convert_cost(a, b, 16, t).unwrap();
                eprintln!(
                    "{target} {instr:?} {name}: {:?} conflicts={} (w {} r {}) lds={} cycles={}",
                    c.instructions,
                    c.bank_conflicts,
                    c.write_conflicts,
                    c.read_conflicts,
                    c.lds_bytes,
                    c.cycles
                );
                assert_eq!(c.kind, ConversionKind::Lds, "{}", c.explanation);
                assert!(
                    c.lds_instructions() <= 16,
                    "{target} {name}: {:?}",
                    c.instructions
                );
                assert_eq!(c.bank_conflicts, 0, "{target} {instr:?} {name}");
            }
        }
    }
}

/// The worked example of anchors.md §1.2: a 16x32 f32 transpose through 32 banks of 4 bytes.
/// Row-major: 16-way conflict on the column read; `col ^= row`: still 2-way; `col ^= 2*row`:
/// conflict-free — and the search finds a conflict-free layout.
#[test]
fn worked_example_16x32_transpose() {
    let units = |d: usize, n: u32| (0..n).map(move |i| if d == 0 { [1u64 << i, 0] } else { [0, 1u64 << i] });
    let cols: Vec<[u64; 2]> = units(0, 5).collect();
    let rows: Vec<[u64; 2]> = units(1, 4).collect();
    // dim0 = column (32), dim1 = row (16); a warp writes a row, reads two columns.
    let writer = l2(&[("register", &[]), ("lane", &cols), ("warp", &rows)], 32, 16);
    let reader_lanes = [rows[0], rows[1], rows[2], rows[3], cols[0]];
    let reader = l2(
        &[("register", &[]), ("lane", &reader_lanes), ("warp", &cols[1..])],
        32,
        16,
    );
    let shared = |swz: &dyn Fn(usize) -> [u64; 2]| {
        let mut offs: Vec<[u64; 2]> = cols.clone();
        offs.extend((0..4).map(swz));
        l2(&[("offset", &offs)], 32, 16)
    };
    let row_major = shared(&|i| rows[i]);
    let xor_row = shared(&|i| [1u64 << i, 1u64 << i]);
    let xor_2row = shared(&|i| [2u64 << i, 1u64 << i]);
    let g = Target::by_name("generic32").unwrap();
    for (smem, want) in [(&row_major, 15), (&xor_row, 1), (&xor_2row, 0)] {
        assert_eq!(triton_bank_conflicts(&reader, smem, 32).unwrap(), want);
        assert_eq!(
            lds_bank_conflicts(&reader, smem, 32, g, LdsOp::Read)
                .unwrap()
                .excess,
            want
        );
        assert_eq!(triton_bank_conflicts(&writer, smem, 32).unwrap(), 0);
    }
    let plan = optimal_shared_layout(&writer, &reader, 32, g).unwrap();
    assert_eq!((plan.write.excess, plan.read.excess), (0, 0), "{:?}", plan.shared);
    let flat = plan.shared.flatten_ins().unwrap();
    assert_eq!(
        triton_bank_conflicts(&reader, &flat.rename_in_dim("offset", "offset").unwrap(), 32).unwrap(),
        0
    );
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

/// A random 2-D tensor shape with `bits` total bits, as (dim0 bits, dim1 bits).
fn split_bits(rng: &mut Rng, bits: u32) -> (u32, u32) {
    let a = rng.below(u64::from(bits) + 1) as u32;
    (a, bits - a)
}

fn flat_to_2d(v: u64, b0: u32) -> Vec<i64> {
    vec![(v & ((1 << b0) - 1)) as i64, (v >> b0) as i64]
}

/// A random distributed layout over 2^bits elements with `lanes` lanes, and a random
/// XOR-swizzled shared layout of the same tensor.
fn random_pair(rng: &mut Rng, bits: u32, lane_bits: u32) -> (LinearLayout, LinearLayout) {
    let (b0, b1) = split_bits(rng, bits);
    let mut vecs: Vec<u64> = (0..bits).map(|i| 1u64 << i).collect();
    rng.shuffle(&mut vecs);
    if rng.below(3) == 0 {
        for i in 1..vecs.len() {
            if rng.below(3) == 0 {
                let j = rng.below(i as u64) as usize;
                vecs[i] ^= vecs[j];
            }
        }
    }
    let n_lane = (lane_bits as usize)
        .min(vecs.len())
        .saturating_sub(rng.below(2) as usize);
    let rest = vecs.len() - n_lane;
    let n_warp = (rng.below(3) as usize).min(rest);
    let n_reg = rest - n_warp;
    let mut regs: Vec<u64> = vecs[..n_reg].to_vec();
    if rng.below(2) == 0 {
        regs.sort_unstable();
    }
    let mut lanes: Vec<u64> = vecs[n_reg..n_reg + n_lane].to_vec();
    while lanes.len() < lane_bits as usize {
        let at = rng.below(lanes.len() as u64 + 1) as usize;
        lanes.insert(at, 0);
    }
    let warps: Vec<u64> = vecs[n_reg + n_lane..].to_vec();
    let conv = |v: &[u64]| v.iter().map(|&x| flat_to_2d(x, b0)).collect::<Vec<_>>();
    let outs = [("dim0", 1i64 << b0), ("dim1", 1i64 << b1)];
    let dist = LinearLayout::from_bases(
        [
            ("register", conv(&regs)),
            ("lane", conv(&lanes)),
            ("warp", conv(&warps)),
        ],
        outs,
        false,
    )
    .unwrap();
    let mut offs: Vec<u64> = (0..bits).map(|i| 1u64 << i).collect();
    if rng.below(2) == 0 {
        rng.shuffle(&mut offs);
    }
    for i in 0..offs.len() {
        for j in 0..i {
            if rng.below(4) == 0 {
                offs[i] ^= offs[j];
            }
        }
    }
    let shared = LinearLayout::from_bases([("offset", conv(&offs))], outs, false).unwrap();
    (dist, shared)
}

const AMD: [&str; 6] = ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201", "gfx1250"];

/// Law: the algebraic count equals the brute-force simulator, on 10,000 random pairs per AMD
/// target and per direction.
#[test]
fn algebra_matches_simulator() {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    for name in AMD {
        let t = Target::by_name(name).unwrap();
        let lane_bits = t.wave_size.trailing_zeros();
        let mut checked = 0;
        let mut nonzero = 0;
        while checked < 10_000 {
            let bits = lane_bits + 1 + rng.below(6) as u32;
            let (dist, shared) = random_pair(&mut rng, bits, lane_bits);
            let eb = [8u32, 16, 32, 32, 64][rng.below(5) as usize];
            let op = if rng.below(2) == 0 {
                LdsOp::Read
            } else {
                LdsOp::Write
            };
            let alg = lds_bank_conflicts(&dist, &shared, eb, t, op).unwrap();
            let sim = simulate_bank_conflicts(&dist, &shared, eb, t, op).unwrap();
            assert_eq!(
                alg.excess, sim.excess,
                "{name} {eb}-bit {op:?}\n{dist:?}\n{shared:?}"
            );
            assert!(
                sim.uniform,
                "{name}: conflicts differ between instructions/phases {eb} {op:?} {alg:?} {sim:?}\n{dist:?}\n{shared:?}"
            );
            checked += 1;
            nonzero += usize::from(alg.excess > 0);
        }
        assert!(nonzero > 1000, "{name}: too few conflicting cases ({nonzero})");
    }
}

/// Bank conflicts equal Triton 3.6's `get_shared_bank_conflicts` (target generic32) on the
/// generated fixtures (scripts/gen_convert_fixtures.py), rejections included.
#[test]
fn bank_conflicts_match_triton() {
    let text = include_str!("fixtures/convert/bank_conflicts_generic32.jsonl");
    let mut n = 0;
    let mut ok = 0;
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let want = &case["response"];
        let got = linear_layout::batch::answer_line(&case["request"].to_string());
        assert_eq!(
            got["ok"], want["ok"],
            "request {}\nours {got}\ntriton {want}",
            case["request"]
        );
        if want["ok"] == true {
            assert_eq!(got["value"], want["value"], "request {}", case["request"]);
            ok += 1;
        }
        n += 1;
    }
    assert!(n >= 2000 && ok >= 2000, "{n} cases, {ok} ok");
}

/// A random 1-D distributed layout over 2^bits elements with `lane_bits` lanes.
fn random_1d(rng: &mut Rng, bits: u32, lane_bits: u32) -> LinearLayout {
    let mut vecs: Vec<u64> = (0..bits).map(|i| 1u64 << i).collect();
    rng.shuffle(&mut vecs);
    let n_lane = lane_bits.min(bits) as usize;
    let rest = vecs.len() - n_lane;
    let n_warp = (rng.below(2) as usize).min(rest);
    let n_reg = rest - n_warp;
    let mut regs = vecs[..n_reg].to_vec();
    regs.sort_unstable();
    let c = |v: &[u64]| v.iter().map(|&x| vec![x as i64]).collect::<Vec<_>>();
    LinearLayout::from_bases(
        [
            ("register", c(&regs)),
            ("lane", c(&vecs[n_reg..n_reg + n_lane])),
            ("warp", c(&vecs[n_reg + n_lane..])),
        ],
        [("dim0", 1i64 << bits)],
        false,
    )
    .unwrap()
}

fn score(
    src: &LinearLayout,
    dst: &LinearLayout,
    shared: &LinearLayout,
    t: &Target,
    bits: u32,
) -> Option<(u64, u64)> {
    let w = lds_bank_conflicts(src, shared, bits, t, LdsOp::Write).ok()?;
    let r = lds_bank_conflicts(dst, shared, bits, t, LdsOp::Read).ok()?;
    let waste = |b: &BankReport| b.instructions * u64::from(b.excess) * u64::from(b.phases);
    Some((w.instructions + r.instructions, waste(&w) + waste(&r)))
}

/// Law: on small shapes the chosen layout is never worse (LDS instructions, then excess
/// wavefronts) than any layout found by exhaustive search over vector prefixes of up to two
/// register bases and every two-dimensional segment.
#[test]
fn swizzle_never_worse_than_exhaustive() {
    let mut rng = Rng(0xE4A1_5717_0000_0042);
    let mut conflicted = 0;
    for (name, bits) in [
        ("gfx1100", 32),
        ("gfx942", 32),
        ("gfx950", 32),
        ("gfx1201", 64),
        ("gfx942", 64),
        ("gfx950", 64),
    ] {
        let t = Target::by_name(name).unwrap();
        let row = (t.bank_row_bits() / bits).trailing_zeros(); // elements of one bank row
        let n = row + 2;
        // Fewer cases unoptimised (the search space is ~10^5 layouts per case).
        for _case in 0..if cfg!(debug_assertions) { 2 } else { 5 } {
            let lane_bits = t.wave_size.trailing_zeros();
            let src = random_1d(&mut rng, n, lane_bits);
            let dst = random_1d(&mut rng, n, lane_bits);
            if classify(&src, &dst).unwrap().kind != ConversionKind::Lds {
                continue;
            }
            let plan = optimal_shared_layout(&src, &dst, bits as u32, t).unwrap();
            let ours = score(&src, &dst, &plan.shared.flatten_ins().unwrap(), t, bits as u32).unwrap();
            let regs = |l: &LinearLayout| l.flat_bases("register").unwrap().to_vec();
            let mut cands: Vec<u64> = regs(&src);
            cands.extend(regs(&dst));
            cands.sort_unstable();
            cands.dedup();
            let mut prefixes: Vec<Vec<u64>> = vec![vec![]];
            for &a in &cands {
                prefixes.push(vec![a]);
                for &b in &cands {
                    if a != b {
                        prefixes.push(vec![a, b]);
                    }
                }
            }
            let mut best = (u64::MAX, u64::MAX);
            for p in &prefixes {
                for a in 1..1u64 << n {
                    for b in a + 1..1u64 << n {
                        // basis: prefix, then units, then the segment {a, b}
                        let mut basis = p.clone();
                        let mut span: Vec<u64> = Vec::new();
                        let indep = |span: &mut Vec<u64>, v: u64| {
                            let mut x = v;
                            for &s in span.iter() {
                                x = x.min(x ^ s);
                            }
                            if x == 0 {
                                return false;
                            }
                            span.push(x);
                            span.sort_unstable_by(|a, b| b.cmp(a));
                            true
                        };
                        if !p.iter().all(|&v| indep(&mut span, v))
                            || !indep(&mut span, a)
                            || !indep(&mut span, b)
                        {
                            continue;
                        }
                        for i in 0..n {
                            if basis.len() + 2 < n as usize && indep(&mut span, 1 << i) {
                                basis.push(1 << i);
                            }
                        }
                        basis.push(a);
                        basis.push(b);
                        let c = basis.iter().map(|&x| vec![x as i64]).collect::<Vec<_>>();
                        let smem =
                            LinearLayout::from_bases([("offset", c)], [("dim0", 1i64 << n)], false).unwrap();
                        if let Some(s) = score(&src, &dst, &smem, t, bits as u32) {
                            best = best.min(s);
                        }
                    }
                }
            }
            assert!(
                ours <= best,
                "{name}: ours {ours:?} exhaustive {best:?}\n{src:?}\n{dst:?}\n{:?}",
                plan.shared
            );
            conflicted += usize::from(best.1 > 0);
        }
    }
    assert!(
        conflicted >= if cfg!(debug_assertions) { 1 } else { 3 },
        "too few cases where conflicts are unavoidable ({conflicted})"
    );
}

/// Law: the plan's own write/read figures equal the public counts on the layout it returns
/// (the search's fast path agrees with `lds_bank_conflicts`), on random pairs for every target.
#[test]
fn plan_reports_match_public_counts() {
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    for name in AMD {
        let t = Target::by_name(name).unwrap();
        let lane_bits = t.wave_size.trailing_zeros();
        let mut n = 0;
        while n < 300 {
            let bits = lane_bits + 2 + rng.below(6) as u32;
            let (src, _) = random_pair(&mut rng, bits, lane_bits);
            let (dst, _) = random_pair(&mut rng, bits, lane_bits);
            if src.out_dims().collect::<Vec<_>>() != dst.out_dims().collect::<Vec<_>>() {
                continue;
            }
            let eb = [8u32, 16, 32, 64][rng.below(4) as usize];
            let plan = optimal_shared_layout(&src, &dst, eb, t).unwrap();
            let flat = plan.shared.flatten_ins().unwrap();
            assert!(flat.is_invertible(), "{name}: {:?}", plan.shared);
            let w = lds_bank_conflicts(&src, &flat, eb, t, LdsOp::Write).unwrap();
            assert_eq!(
                w, plan.write,
                "{name} write {eb}\n{src:?}\n{dst:?}\n{:?}",
                plan.shared
            );
            if !plan.read_transposed {
                let r = lds_bank_conflicts(&dst, &flat, eb, t, LdsOp::Read).unwrap();
                assert_eq!(
                    r, plan.read,
                    "{name} read {eb}\n{src:?}\n{dst:?}\n{:?}",
                    plan.shared
                );
            }
            n += 1;
        }
    }
}

/// Law: the classification's `minimal` is Triton's `minimalCvtLayout`: `full` quotiented by
/// block, warp, lane, register while possible (checked with `LinearLayout::quotient`).
#[test]
fn classification_is_the_quotient_chain() {
    let mut rng = Rng(0xC1A5_5000_0000_0007);
    let mut kinds = [0usize; 4];
    for _ in 0..3000 {
        let bits = 5 + rng.below(5) as u32;
        let (src, _) = random_pair(&mut rng, bits, 5);
        // dst: src with a few of its bases swapped between dims
        let mut dims: Vec<(String, Vec<Vec<i64>>)> = ["register", "lane", "warp"]
            .iter()
            .map(|d| {
                (
                    d.to_string(),
                    src.bases(d)
                        .unwrap()
                        .into_iter()
                        .map(|b| b.into_iter().map(|x| x as i64).collect())
                        .collect(),
                )
            })
            .collect();
        for _ in 0..rng.below(3) {
            let (a, b) = (rng.below(3) as usize, rng.below(3) as usize);
            if dims[a].1.is_empty() || dims[b].1.is_empty() {
                continue;
            }
            let (i, j) = (
                rng.below(dims[a].1.len() as u64) as usize,
                rng.below(dims[b].1.len() as u64) as usize,
            );
            let x = dims[a].1[i].clone();
            dims[a].1[i] = dims[b].1[j].clone();
            dims[b].1[j] = x;
        }
        let outs: Vec<(String, i64)> = src.out_dims().map(|(n, s)| (n.to_string(), s as i64)).collect();
        let dst = LinearLayout::from_bases(dims, outs, false).unwrap();
        let Ok(c) = classify(&src, &dst) else { continue };
        let mut q = c.full.clone();
        for d in ["block", "warp", "lane", "register"] {
            match q.quotient(&[d]).unwrap() {
                Some(x) => q = x,
                None => break,
            }
        }
        assert_eq!(q, c.minimal, "{src:?}\n{dst:?}");
        kinds[c.kind as usize] += 1;
    }
    assert!(kinds.iter().all(|&k| k > 50), "{kinds:?}");
}

/// A wild layout: random in-dim names (valid or not), random bases, possibly non-injective.
fn wild(rng: &mut Rng) -> LinearLayout {
    let names = ["register", "lane", "warp", "block", "offset", "foo"];
    let b0 = rng.below(5) as u32;
    let b1 = rng.below(5) as u32;
    let mut dims: Vec<(&str, Vec<Vec<i64>>)> = Vec::new();
    for _ in 0..1 + rng.below(4) {
        let n = names[rng.below(names.len() as u64) as usize];
        if dims.iter().any(|(m, _)| *m == n) {
            continue;
        }
        let k = rng.below(6);
        let bases = (0..k)
            .map(|_| vec![rng.below(1 << b0) as i64, rng.below(1 << b1) as i64])
            .collect();
        dims.push((n, bases));
    }
    LinearLayout::from_bases(dims, [("dim0", 1i64 << b0), ("dim1", 1i64 << b1)], false).unwrap()
}

/// Nothing panics on any input: every public entry point and both batch ops, on wild layouts,
/// odd element widths and every target (errors are fine, panics are not).
#[test]
fn nothing_panics() {
    let mut rng = Rng(0xBAD_C0DE_0000_0001);
    let widths = [0u32, 1, 3, 4, 8, 16, 32, 64, 128, 256, 1024];
    let names = [
        "generic32",
        "gfx90a",
        "gfx942",
        "gfx950",
        "gfx1100",
        "gfx1201",
        "gfx1250",
    ];
    for _ in 0..4000 {
        let (a, b) = (wild(&mut rng), wild(&mut rng));
        let eb = widths[rng.below(widths.len() as u64) as usize];
        let t = Target::by_name(names[rng.below(7) as usize]).unwrap();
        let op = if rng.below(2) == 0 {
            LdsOp::Read
        } else {
            LdsOp::Write
        };
        let _ = classify(&a, &b);
        let _ = convert_cost(&a, &b, eb, t);
        let _ = optimal_shared_layout(&a, &b, eb, t);
        let _ = triton_bank_conflicts(&a, &b, eb);
        let _ = lds_bank_conflicts(&a, &b, eb, t, op);
        let _ = simulate_bank_conflicts(&a, &b, eb, t, op);
        let ser = |l: &LinearLayout| serde_json::to_string(l).unwrap();
        let shape = format!(
            "[{}, {}]",
            a.out_dims().next().unwrap().1,
            a.out_dims().nth(1).unwrap().1
        );
        for req in [
            format!(r#"{{"op": "bank_conflicts", "distributed": {}, "shared": {}, "shape": {shape}, "element_bits": {eb}, "target": "{}"}}"#, ser(&a), ser(&b), t.name),
            format!(r#"{{"op": "convert_cost", "src": {}, "dst": {}, "shape": {shape}, "element_bits": {eb}, "target": "{}"}}"#, ser(&a), ser(&b), t.name),
            r#"{"op": "convert_cost", "src": 3, "dst": {"kind": "blocked"}, "shape": [0], "element_bits": -1, "target": 7}"#.to_string(),
        ] {
            let r = linear_layout::batch::answer_line(&req);
            assert!(r["ok"].is_boolean());
        }
    }
}

/// The batch ops answer in the protocol's shape.
#[test]
fn batch_ops() {
    let req = r#"{"id": 1, "op": "convert_cost", "src": {"kind": "blocked", "sizePerThread": [1, 8], "threadsPerWarp": [8, 8], "warpsPerCTA": [4, 1], "order": [1, 0]}, "dst": {"kind": "amd_mfma", "version": 3, "warpsPerCTA": [2, 2], "instrShape": [32, 32, 8], "isTransposed": true}, "shape": [128, 128], "element_bits": 16, "target": "gfx942"}"#;
    let r = linear_layout::batch::answer_line(req);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["kind"], "lds");
    assert_eq!(r["instructions"]["ds_write_b128"], 8);
    assert_eq!(r["instructions"]["ds_read_b128"], 8);
    assert_eq!(r["lds_bytes"], 16384);
    assert_eq!(r["bank_conflicts"], 0);
    assert!(r["shared_layout"]["in_dims"]["offset"].is_array());
    assert!(r["explanation"].as_str().unwrap().contains("LDS"));
    let noop = r#"{"op": "convert_cost", "src": {"kind": "blocked", "sizePerThread": [1, 8], "threadsPerWarp": [8, 8], "warpsPerCTA": [4, 1], "order": [1, 0]}, "dst": {"kind": "blocked", "sizePerThread": [1, 8], "threadsPerWarp": [8, 8], "warpsPerCTA": [4, 1], "order": [1, 0]}, "shape": [128, 128], "element_bits": 16, "target": "gfx950"}"#;
    let r = linear_layout::batch::answer_line(noop);
    assert_eq!(
        (
            r["kind"].as_str(),
            r["shared_layout"].is_null(),
            r["cycles"].as_u64()
        ),
        (Some("noop"), true, Some(0))
    );
    let bc = r#"{"op": "bank_conflicts", "distributed": {"kind": "blocked", "sizePerThread": [1, 1], "threadsPerWarp": [64, 1], "warpsPerCTA": [1, 1], "order": [0, 1]}, "shared": {"kind": "swizzled_shared", "vec": 1, "perPhase": 1, "maxPhase": 1, "order": [1, 0]}, "shape": [64, 32], "element_bits": 32, "target": "gfx942"}"#;
    let r = linear_layout::batch::answer_line(bc);
    assert_eq!(r["ok"], true, "{r}");
    // Each lane holds a whole 32-f32 row: 128-bit accesses; a gfx942 ds_read_b128 phase is 8
    // lanes ({0-3, 20-23}) at 8 different rows of the same 4 banks: 8-way, 7 excess.
    assert_eq!(
        (r["value"].as_u64(), r["access_bits"].as_u64()),
        (Some(7), Some(128))
    );
    let bad = linear_layout::batch::answer_line(&bc.replace("gfx942", "gfx1030"));
    assert_eq!(bad["ok"], false);
}

/// gfx950's transposing LDS read: a 32x64 f16 B tile loaded N-contiguous (blocked [1,8]
/// along N) into the MFMA B operand (kWidth 8, K-contiguous registers). The registers of the
/// two layouts share nothing, so plain LDS accesses vectorise one side only;
/// `ds_read_b64_tr_b16` lets both sides vectorise. gfx942 has no such read.
#[test]
fn gfx950_uses_transposing_reads() {
    let src = enc(
        r#"{"kind": "blocked", "sizePerThread": [1, 8], "threadsPerWarp": [8, 8], "warpsPerCTA": [4, 1], "order": [1, 0]}"#,
        &[32, 64],
    );
    let dst = enc(
        r#"{"kind": "dot_operand", "opIdx": 1, "kWidth": 8, "parent": {"kind": "amd_mfma", "version": 4, "warpsPerCTA": [2, 2], "instrShape": [32, 32, 16], "isTransposed": true}}"#,
        &[32, 64],
    );
    let c950 = convert_cost(&src, &dst, 16, Target::by_name("gfx950").unwrap()).unwrap();
    let c942 = convert_cost(&src, &dst, 16, Target::by_name("gfx942").unwrap()).unwrap();
    eprintln!(
        "gfx950 {:?} {}\ngfx942 {:?} {}",
        c950.instructions, c950.bank_conflicts, c942.instructions, c942.bank_conflicts
    );
    assert!(
        c950.instructions.contains_key("ds_read_b64_tr_b16"),
        "{:?}",
        c950.instructions
    );
    assert!(!c942.instructions.keys().any(|k| k.contains("_tr_")));
    assert!(c950.lds_instructions() < c942.lds_instructions());
    // The plan is physically a ds_read_b64_tr_b16: in every 16-lane group, source lane s must
    // find the 4 elements f = 4s..4s+3 (destination lane f % 16, register f / 16) at 4
    // consecutive, 8-byte-aligned LDS offsets.
    let shared = c950.shared_layout().unwrap().flatten_ins().unwrap();
    let to_offset = shared.invert().unwrap();
    let regs = dst.in_dim_size("register").unwrap();
    let lanes = dst.in_dim_size("lane").unwrap();
    for warp in 0..dst.in_dim_size("warp").unwrap() {
        for instr in 0..regs / 4 {
            for group in 0..lanes / 16 {
                for s_lane in 0..16u64 {
                    let mut offs = Vec::new();
                    for t in 0..4u64 {
                        let f = s_lane * 4 + t;
                        let (l, j) = (f % 16 + group * 16, f / 16);
                        let elem = dst
                            .apply(&[
                                ("register", instr * 4 + j),
                                ("lane", l),
                                ("warp", warp),
                                ("block", 0),
                            ])
                            .unwrap();
                        let args: Vec<(String, u64)> =
                            dst.out_dim_names().map(|n| n.to_string()).zip(elem).collect();
                        offs.push(to_offset.apply(&args).unwrap()[0]);
                    }
                    assert_eq!(offs[0] % 4, 0, "{offs:?}");
                    assert_eq!(offs, (0..4).map(|t| offs[0] + t).collect::<Vec<_>>());
                }
            }
        }
    }
}

/// Intra-warp conversions: a register bit trading places with lane bit 5 is one
/// v_permlane32_swap per register pair on gfx950, ds_bpermute + selects on gfx942. A packed
/// f16 register permutation costs v_perm_b32s.
#[test]
fn shuffles_and_register_permutations() {
    let b = |v: &[u64]| v.iter().map(|&x| vec![x as i64]).collect::<Vec<_>>();
    let mk = |reg: &[u64], lane: &[u64]| {
        LinearLayout::from_bases([("register", b(reg)), ("lane", b(lane))], [("dim0", 256)], true).unwrap()
    };
    let src = mk(&[1, 2], &[4, 8, 16, 32, 64, 128]);
    let dst = mk(&[1, 128], &[4, 8, 16, 32, 64, 2]);
    let c950 = convert_cost(&src, &dst, 32, Target::by_name("gfx950").unwrap()).unwrap();
    let c942 = convert_cost(&src, &dst, 32, Target::by_name("gfx942").unwrap()).unwrap();
    assert_eq!(c950.kind, ConversionKind::Shuffle);
    assert_eq!(
        c950.instructions.get("v_permlane32_swap_b32"),
        Some(&2),
        "{:?}",
        c950.instructions
    );
    assert_eq!(
        c942.instructions.get("ds_bpermute_b32"),
        Some(&4),
        "{:?}",
        c942.instructions
    );
    assert!(c950.cycles < c942.cycles);
    let perm = mk(&[2, 1], &[4, 8, 16, 32, 64, 128]);
    let r = convert_cost(&src, &perm, 16, Target::by_name("gfx942").unwrap()).unwrap();
    assert_eq!(r.kind, ConversionKind::Register);
    assert_eq!(r.instructions.get("v_perm_b32"), Some(&2));
    let r32 = convert_cost(&src, &perm, 32, Target::by_name("gfx942").unwrap()).unwrap();
    assert!(r32.instructions.is_empty());
}
