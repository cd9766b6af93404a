//! The matmul kernel: llc-22 accepts every (target, instruction shape, type) combination the
//! heuristics produce, with one matrix instruction in the assembly per `Op::Mma`; the
//! interpreter computes `C = A·B` exactly over generated tiles (small-integer inputs, so every
//! sum is exact and the only rounding is the output type's); and a kernel with a wrong operand
//! order or a wrong accumulator register computes something else.

mod lower_common;

use linear_layout::lower::matmul::{MatmulOptions, matmul_kernel, resolve_type};
use linear_layout::lower::numeric::{decode, encode};
use linear_layout::lower::{Kernel, Op, run};
use linear_layout::target::Target;
use linear_layout::target::mma::element_bits;
use lower_common::{Rng, asm_counts, compile, llc, targets};

/// Operand types as the CLI names them.
const TYPES: [&str; 7] = ["f16", "bf16", "f32", "f64", "i8", "fp8", "bf8"];

/// The accumulator type of a resolved operand type.
fn accumulator(dtype: &str) -> &'static str {
    match dtype {
        "i8" => "i32",
        "f64" => "f64",
        _ => "f32",
    }
}

/// One generated tile.
struct Tile {
    m: u64,
    n: u64,
    k: u64,
    warps: u32,
    dtype: &'static str,
    out: &'static str,
    target: &'static Target,
    options: MatmulOptions,
}

impl Tile {
    fn name(&self) -> String {
        format!(
            "{} {}x{}x{} {}->{} w{} nonkdim {} kpack {}",
            self.target.name,
            self.m,
            self.n,
            self.k,
            self.dtype,
            self.out,
            self.warps,
            self.options.nonkdim,
            self.options.kpack
        )
    }

    fn kernel(&self) -> Result<Kernel, String> {
        matmul_kernel(
            self.m,
            self.n,
            self.k,
            self.dtype,
            self.out,
            self.warps,
            self.target,
            self.options,
        )
        .map_err(|e| e.to_string())
    }
}

/// `count` values of `ty` in -3..=3, little-endian bytes and the numbers.
fn small_integers(r: &mut Rng, count: u64, ty: &str) -> (Vec<u8>, Vec<f64>) {
    let bytes = (element_bits(ty) / 8) as usize;
    let mut data = Vec::with_capacity(count as usize * bytes);
    let mut nums = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let x = r.below(7) as f64 - 3.0;
        let bits = encode(ty, x).expect("small integers fit every type");
        data.extend_from_slice(&bits.to_le_bytes()[..bytes]);
        nums.push(x);
    }
    (data, nums)
}

/// Runs the kernel on small integers; `Err` names the first element of C that is not the
/// exact product rounded to the output type.
fn check(k: &Kernel, t: &Tile, seed: u64) -> Result<(), String> {
    let mut r = Rng(seed | 1);
    let (a, am) = small_integers(&mut r, t.m * t.k, t.dtype);
    let (b, bm) = small_integers(&mut r, t.k * t.n, t.dtype);
    let out_bytes = (element_bits(t.out) / 8) as usize;
    let mut buffers = vec![a, b, vec![0xa5; (t.m * t.n) as usize * out_bytes]];
    run(&k.program, &mut buffers).map_err(|e| e.to_string())?;
    let (m, n, kk) = (t.m as usize, t.n as usize, t.k as usize);
    for i in 0..m {
        for j in 0..n {
            let exact: f64 = (0..kk).map(|x| am[i * kk + x] * bm[x * n + j]).sum();
            let want = encode(t.out, exact).ok_or("the product does not fit the output type")?;
            let at = (i * n + j) * out_bytes;
            let mut word = [0u8; 8];
            word[..out_bytes].copy_from_slice(&buffers[2][at..at + out_bytes]);
            let got = u64::from_le_bytes(word);
            if got != want {
                return Err(format!("C[{i}][{j}] = {:?}, want {exact}", decode(t.out, got)));
            }
        }
    }
    Ok(())
}

fn mma_count(k: &Kernel) -> usize {
    k.program
        .ops
        .iter()
        .filter(|op| matches!(op, Op::Mma { .. }))
        .count()
}

/// The fewest instruction calls per wave for the tile: every product of an instruction's
/// tile and depth is needed once, spread over the warps.
fn fewest_calls(k: &Kernel, t: &Tile) -> u64 {
    let Some(Op::Mma { instruction: i, .. }) = k.program.ops.iter().find(|op| matches!(op, Op::Mma { .. }))
    else {
        return u64::MAX;
    };
    let tiles = t.m.div_ceil(u64::from(i.m)) * t.n.div_ceil(u64::from(i.n));
    (tiles * t.k.div_ceil(u64::from(i.k))).div_ceil(u64::from(t.warps))
}

/// Law: over generated tiles (16×16×16 to 128×128×64, 1–8 warps, every type and target), the
/// interpreter's C is the exact product, and each wave issues no more calls than the tile
/// needs when the warps split it evenly.
#[test]
fn generated_tiles_compute_the_exact_product() {
    let mut r = Rng(0x3A7_C0DE_0BAD_F00D);
    let sides = [16u64, 32, 64, 128];
    let (mut checked, mut refused) = (0, Vec::new());
    let mut per_target = std::collections::BTreeMap::new();
    let mut instructions = std::collections::BTreeSet::new();
    let mut attempts = 0;
    while checked < 210 && attempts < 2000 {
        attempts += 1;
        let target = r.pick(&targets());
        let Ok(dtype) = resolve_type(r.pick(&TYPES), target) else {
            continue;
        };
        let (m, n) = (r.pick(&sides), r.pick(&sides));
        let k = r.pick(&sides[..3]);
        let acc = accumulator(dtype);
        let t = Tile {
            m,
            n,
            k,
            warps: r.pick(&[1, 2, 4, 8]),
            dtype,
            out: if r.below(4) == 0 && ["f16", "bf16", "i8"].contains(&dtype) {
                dtype
            } else {
                acc
            },
            target,
            options: MatmulOptions {
                nonkdim: r.pick(&[0, 0, 0, 16, 32]),
                kpack: r.pick(&[1, 1, 1, 2]),
            },
        };
        let kernel = match t.kernel() {
            Ok(k) => k,
            Err(e) => {
                refused.push(format!("{}: {e}", t.name()));
                continue;
            }
        };
        check(&kernel, &t, attempts).unwrap_or_else(|e| panic!("{}: {e}", t.name()));
        if let Some(Op::Mma { instruction, .. }) =
            kernel.program.ops.iter().find(|op| matches!(op, Op::Mma { .. }))
        {
            instructions.insert(instruction.intrinsic);
        }
        // Warps splitting the instruction tiles evenly: each wave issues only its share.
        if let Some(Op::Mma { instruction: i, .. }) =
            kernel.program.ops.iter().find(|op| matches!(op, Op::Mma { .. }))
            && (m / u64::from(i.m)) * (n / u64::from(i.n)) % u64::from(t.warps) == 0
        {
            assert_eq!(
                mma_count(&kernel) as u64,
                fewest_calls(&kernel, &t),
                "{}",
                t.name()
            );
        }
        *per_target.entry(target.name).or_insert(0) += 1;
        checked += 1;
    }
    eprintln!(
        "{checked} tiles checked ({per_target:?}), {} refused, {} instructions",
        refused.len(),
        instructions.len()
    );
    assert!(checked >= 200, "{checked} tiles checked; refused: {refused:#?}");
    assert!(
        // gfx1250 has two instructions (f16, fp8), the others four to six types.
        per_target.len() == 6 && per_target.values().all(|&c| c >= 5),
        "{per_target:?}"
    );
    assert!(instructions.len() >= 15, "{instructions:?}");
    // Refused: FMA dots (f32 on WMMA, f64 off CDNA), types an instruction set lacks, a forced
    // 32×32 tile over a 16-wide result, K shorter than one call's lanes cover.
    assert!(refused.len() < checked, "{refused:#?}");
}

/// Every (target, instruction shape, type) the heuristics produce compiles with llc-22 into a
/// kernel with one matrix instruction per call of the program.
#[test]
fn llc_accepts_every_combination() {
    let Some(llc) = llc() else { return };
    let dir = std::env::temp_dir().join(format!("linear-layout-matmul-llc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut jobs = Vec::new();
    for target in targets() {
        for name in TYPES {
            let Ok(dtype) = resolve_type(name, target) else {
                continue;
            };
            // 32×32 and 16×16 instruction tiles (forced or chosen), kpack, the f16-out path.
            for (m, n, k, warps, nonkdim, kpack, narrow) in [
                (16, 16, 16, 1, 0, 1, false),
                (64, 64, 32, 4, 0, 1, false),
                (64, 64, 64, 2, 16, 2, true),
                (128, 128, 64, 8, 0, 1, false),
            ] {
                let t = Tile {
                    m,
                    n,
                    k,
                    warps,
                    dtype,
                    out: if narrow && ["f16", "bf16", "i8"].contains(&dtype) {
                        dtype
                    } else {
                        accumulator(dtype)
                    },
                    target,
                    options: MatmulOptions { nonkdim, kpack },
                };
                if let Ok(kernel) = t.kernel() {
                    jobs.push((t.name(), kernel));
                }
            }
        }
    }
    let mut per_target = std::collections::BTreeMap::new();
    let failures: Vec<String> = std::thread::scope(|s| {
        let chunks: Vec<_> = jobs.chunks(jobs.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .enumerate()
            .map(|(c, chunk)| {
                let dir = &dir;
                s.spawn(move || {
                    let mut bad = Vec::new();
                    for (i, (name, kernel)) in chunk.iter().enumerate() {
                        let ir = kernel.llvm_ir().unwrap();
                        match compile(llc, &ir, kernel.target, dir, &format!("m{c}_{i}")) {
                            Ok(asm) => {
                                let counts = asm_counts(&asm);
                                let calls: u64 = counts
                                    .iter()
                                    .filter(|(k, _)| k.starts_with("v_mfma") || k.starts_with("v_wmma"))
                                    .map(|(_, v)| v)
                                    .sum();
                                if calls != mma_count(kernel) as u64 {
                                    bad.push(format!(
                                        "{name}: {calls} matrix instructions for {} calls",
                                        mma_count(kernel)
                                    ));
                                }
                            }
                            Err(e) => bad.push(format!("{name}: {e}")),
                        }
                    }
                    bad
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    for (_, kernel) in &jobs {
        *per_target.entry(kernel.target.name).or_insert(0) += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(per_target.len(), 6, "{per_target:?}");
    assert!(per_target.values().all(|&c| c >= 4), "{per_target:?}");
}

/// A kernel whose first call takes its operands in the wrong order, or writes a wrong
/// accumulator register, computes another C: the check can fail.
#[test]
fn a_wrong_operand_order_or_accumulator_register_is_caught() {
    let t = Tile {
        m: 64,
        n: 64,
        k: 32,
        warps: 4,
        dtype: "f16",
        out: "f32",
        target: Target::by_name("gfx942").unwrap(),
        options: MatmulOptions::default(),
    };
    let good = t.kernel().unwrap();
    check(&good, &t, 7).unwrap();
    let first = good
        .program
        .ops
        .iter()
        .position(|op| matches!(op, Op::Mma { .. }))
        .unwrap();
    let mut swapped = good.clone();
    if let Op::Mma { a, b, .. } = &mut swapped.program.ops[first] {
        std::mem::swap(a, b);
    }
    assert!(check(&swapped, &t, 7).is_err(), "operands swapped");
    let mut misplaced = good.clone();
    if let Op::Mma { dst, .. } = &mut misplaced.program.ops[first] {
        dst.swap(0, 1);
    }
    assert!(
        check(&misplaced, &t, 7).is_err(),
        "accumulator registers exchanged"
    );
}

/// Combinations no instruction serves are typed errors naming why.
#[test]
fn unsupported_combinations_are_refused_with_a_reason() {
    let gfx1100 = Target::by_name("gfx1100").unwrap();
    let e = matmul_kernel(64, 64, 32, "f64", "f64", 4, gfx1100, MatmulOptions::default()).unwrap_err();
    assert!(e.message().contains("gfx1100"), "{e}");
    let gfx942 = Target::by_name("gfx942").unwrap();
    let e = matmul_kernel(64, 64, 32, "f16", "bf16", 4, gfx942, MatmulOptions::default()).unwrap_err();
    assert!(e.message().contains("accumulates in f32"), "{e}");
    let e = matmul_kernel(48, 64, 32, "f16", "f32", 4, gfx942, MatmulOptions::default()).unwrap_err();
    assert!(e.message().contains("powers of two"), "{e}");
    assert!(resolve_type("fp8", Target::by_name("gfx90a").unwrap()).is_err());
}
