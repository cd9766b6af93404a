//! Direct-to-LDS copies: generated (shared layout, source, destination, dtype, target) cases run
//! in the interpreter (`out = in`, every destination register), compiled by llc with the
//! instruction counts of the program, and broken on purpose to show the checks catch it.

mod lower_common;

use linear_layout::encodings::Encoding;
use linear_layout::linear::LinearLayout;
use linear_layout::lower::{Dtype, Kernel, Op, lds_copy_kernel};
use linear_layout::target::Target;
use lower_common::*;

/// The targets with direct-to-LDS loads, by name.
fn direct_targets() -> Vec<&'static Target> {
    targets()
        .into_iter()
        .filter(|t| t.lowering.direct_to_lds.is_some())
        .collect()
}

fn swizzled(vec: u32, per_phase: u32, max_phase: u32, order: [u32; 2], shape: &[u64]) -> LinearLayout {
    let e: Encoding = format!(
        "#ttg.swizzled_shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, order = [{}, {}]}}>",
        order[0], order[1]
    )
    .parse()
    .unwrap();
    e.to_linear_layout(shape).unwrap()
}

/// How many leading offset bits of `shared` step along the last dimension by 1, 2, 4, … while
/// no other offset bit moves those columns (a swizzle would reorder them): elements
/// consecutive both in LDS and in memory.
fn consecutive_bits(shared: &LinearLayout) -> usize {
    let bases = shared.bases("offset").unwrap();
    let last = bases[0].len() - 1;
    let run = bases
        .iter()
        .enumerate()
        .take_while(|(k, b)| b[last] == 1 << k && b[..last].iter().all(|&x| x == 0))
        .count();
    (0..=run)
        .rev()
        .find(|&k| bases[k..].iter().all(|b| b[last] & ((1 << k) - 1) == 0))
        .unwrap_or(0)
}

/// The source layout that fills `shared` in the hardware's order: the first `vbits` offset bits
/// are a lane's registers, the next ones its lanes, then the warps, the rest registers.
fn source_for(shared: &LinearLayout, vbits: usize, lane_bits: usize, warp_bits: usize) -> LinearLayout {
    let bases: Vec<Vec<i64>> = shared
        .bases("offset")
        .unwrap()
        .into_iter()
        .map(|b| b.into_iter().map(|x| x as i64).collect())
        .collect();
    let (vec, rest) = bases.split_at(vbits);
    let (lanes, rest) = rest.split_at(lane_bits);
    let (warps, more) = rest.split_at(warp_bits);
    let mut regs = vec.to_vec();
    regs.extend_from_slice(more);
    let outs: Vec<(String, i64)> = shared
        .out_dims()
        .map(|(n, s)| (n.as_str().to_string(), s as i64))
        .collect();
    LinearLayout::from_bases(
        [
            ("register", regs),
            ("lane", lanes.to_vec()),
            ("warp", warps.to_vec()),
        ],
        outs,
        true,
    )
    .unwrap()
}

/// The widest vector (log2 elements) a lane loads: consecutive in LDS and memory, a size the
/// target loads straight into LDS.
fn vector_bits(target: &Target, shared: &LinearLayout, dtype: Dtype) -> Option<usize> {
    let bytes = dtype.bits() / 8;
    let sizes = target.lowering.direct_to_lds.unwrap().bytes;
    (0..=consecutive_bits(shared))
        .rev()
        .find(|&k| sizes.contains(&((1u32 << k) * bytes)))
}

struct DirectCase {
    name: String,
    src: LinearLayout,
    shared: LinearLayout,
    dst: LinearLayout,
    shape: Vec<u64>,
    dtype: Dtype,
    target: &'static Target,
    vbits: usize,
}

/// Generated cases: swizzled shared layouts of every kind, the hardware-order source, a
/// realistic destination; unmasked shapes (gfx1250's loads have no bounds check) and, on gfx9,
/// masked ones.
fn direct_cases(per_target: usize, seed: u64) -> Vec<DirectCase> {
    let mut r = Rng(seed);
    let mut out = Vec::new();
    let dtypes = [Dtype::I8, Dtype::F16, Dtype::Bf16, Dtype::F32, Dtype::I32];
    for t in direct_targets() {
        let lane_bits = t.wave_size.trailing_zeros() as usize;
        let masked_ok = t.name != "gfx1250";
        while out
            .iter()
            .filter(|c: &&DirectCase| c.target.name == t.name)
            .count()
            < per_target
        {
            let (mut shape, padded) = shapes_for(&mut r);
            if !masked_ok {
                shape = padded.clone();
            }
            let vec = r.pick(&[1, 2, 4, 8]);
            let per_phase = r.pick(&[1, 2]);
            let max_phase = r.pick(&[1, 2, 4, 8]);
            let order = r.pick(&[[1, 0], [0, 1]]);
            let shared = swizzled(vec, per_phase, max_phase, order, &padded);
            let dtype = r.pick(&dtypes);
            let Some(vbits) = vector_bits(t, &shared, dtype) else {
                continue;
            };
            let total = padded.iter().map(|s| s.trailing_zeros() as usize).sum::<usize>();
            if total < vbits + lane_bits + 2 {
                continue;
            }
            let src = source_for(&shared, vbits, lane_bits, 2);
            let dsts = encodings_2d(t, &padded);
            let (dname, dst) = &dsts[r.below(dsts.len() as u64) as usize];
            out.push(DirectCase {
                name: format!(
                    "swizzled vec {vec} perPhase {per_phase} maxPhase {max_phase} order {order:?} → {dname}"
                ),
                src,
                shared,
                dst: dst.clone(),
                shape,
                dtype,
                target: t,
                vbits,
            });
        }
    }
    out
}

fn lower(c: &DirectCase) -> Result<Kernel, String> {
    lds_copy_kernel(&c.src, &c.shared, &c.dst, &c.shape, c.dtype, c.target).map_err(|e| e.to_string())
}

#[test]
fn direct_copies_compute_out_and_registers() {
    let cases = direct_cases(60, 0x51ED_2701_F00D_1234);
    let mut failures = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let result = lower(c).and_then(|k| {
            // Each lane loads its registers in vectors of the chosen width.
            let regs = c.src.in_dim_size("register").unwrap();
            let loads = k.program.op_counts()["global_load_lds"];
            if loads != regs >> c.vbits {
                return Err(format!(
                    "{loads} direct loads for {regs} registers in vectors of {}",
                    1 << c.vbits
                ));
            }
            check(&k, &c.dst, &c.shape, c.dtype, i as u64)
        });
        if let Err(e) = result {
            failures.push(format!(
                "{} {} {:?} {:?}: {e}",
                c.target.name, c.name, c.shape, c.dtype
            ));
        }
    }
    for f in failures.iter().take(10) {
        eprintln!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed",
        failures.len(),
        cases.len()
    );
    assert_eq!(cases.len(), 60 * direct_targets().len());
    assert!(
        cases
            .iter()
            .any(|c| c.shape.iter().product::<u64>() < c.src.total_out_size())
    );
}

#[test]
fn llc_accepts_direct_copies_with_the_programs_counts() {
    let Some(llc) = llc() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("linear-layout-lower-direct-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = direct_cases(8, 0x0BAD_CAFE_0000_0001);
    for (i, c) in cases.iter().enumerate() {
        let k = lower(c).unwrap_or_else(|e| panic!("{} {}: {e}", c.target.name, c.name));
        let asm = compile(llc, &k.llvm_ir().unwrap(), c.target, &dir, &format!("direct{i}"))
            .unwrap_or_else(|e| panic!("{} {}: {e}", c.target.name, c.name));
        let counts = asm_counts(&asm);
        let program = k.program.op_counts();
        let direct: u64 = counts
            .iter()
            .filter(|(m, _)| m.starts_with("global_load_async_to_lds") || m.starts_with("buffer_load"))
            .map(|(_, n)| n)
            .sum();
        assert_eq!(
            direct, program["global_load_lds"],
            "{} {}: {counts:?}",
            c.target.name, c.name
        );
        // A `read2` (gfx12: `load_2addr`) is two of the program's reads paired by LLVM.
        let reads: u64 = counts
            .iter()
            .filter(|(m, _)| m.starts_with("ds_read") || m.starts_with("ds_load"))
            .map(|(m, n)| {
                if m.contains("read2") || m.contains("2addr") {
                    2 * n
                } else {
                    *n
                }
            })
            .sum();
        assert_eq!(
            reads, program["lds_read"],
            "{} {}: ds reads {counts:?}",
            c.target.name, c.name
        );
        assert!(
            !counts
                .keys()
                .any(|m| m.starts_with("ds_write") || m.starts_with("ds_store"))
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_wait_or_a_wrong_lds_address_is_caught() {
    let c = &direct_cases(1, 7)[0];
    let k = lower(c).unwrap();
    check(&k, &c.dst, &c.shape, c.dtype, 1).unwrap();
    // Without the wait the barrier passes with the loads in flight.
    let mut no_wait = k.clone();
    no_wait.program.ops.retain(|op| *op != Op::WaitDirectLoads);
    let e = check(&no_wait, &c.dst, &c.shape, c.dtype, 1).unwrap_err();
    assert!(e.contains("in flight"), "{e}");
    // A load written one vector further on: elements land where the reader does not look.
    let mut shifted = k.clone();
    let bytes = u64::from(c.dtype.bits() / 8) << c.vbits;
    for op in &mut shifted.program.ops {
        if let Op::GlobalLoadToLds { address, .. } = op {
            address.constant ^= bytes;
            break;
        }
    }
    assert!(check(&shifted, &c.dst, &c.shape, c.dtype, 1).is_err());
}

#[test]
fn what_the_hardware_cannot_do_is_a_typed_error() {
    let shape = [64u64, 64];
    let shared = swizzled(1, 1, 1, [1, 0], &shape);
    let src = source_for(&shared, 2, 6, 2);
    let dst = src.clone();
    let at = |name: &str| Target::by_name(name).unwrap();
    // No direct-to-LDS loads on RDNA3.
    let e = lds_copy_kernel(&src, &shared, &dst, &shape, Dtype::F32, at("gfx1100")).unwrap_err();
    assert!(e.to_string().contains("straight into LDS"), "{e}");
    // f64 vectors: 8 or 32 bytes per lane, neither loads directly on gfx942.
    let e = lds_copy_kernel(&src, &shared, &dst, &shape, Dtype::F64, at("gfx942")).unwrap_err();
    assert!(e.to_string().contains("fit none"), "{e}");
    // gfx1250's loads have no bounds check: a masked tensor is refused.
    let src32 = source_for(&shared, 2, 5, 2);
    let e = lds_copy_kernel(&src32, &shared, &src32, &[48, 64], Dtype::F32, at("gfx1250")).unwrap_err();
    assert!(e.to_string().contains("no bounds check"), "{e}");
    assert!(lds_copy_kernel(&src32, &shared, &src32, &[64, 64], Dtype::F32, at("gfx1250")).is_ok());
}
