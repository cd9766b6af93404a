//! Kernels as people write them — Triton's tutorials (vector add, the persistent softmax,
//! grouped matmul, layer norm, attention) and the kernels of LLM stacks (GELU, RMSNorm,
//! embedding, split-K, dropout, argmax, cumsum, SwiGLU, rotary, cross-entropy, int8 matmul, a
//! persistent matmul) — compiled by Triton 3.6.0 for gfx942, gfx950 and gfx1100
//! (`scripts/people_ttgir.py`, provenance in the fixtures' README), lowered, and run in the
//! interpreter over every workgroup of their grid on sizes that leave masked tails. Inputs and
//! expected outputs come from `expected.py` beside the fixtures (the Python references Triton's
//! own code was checked against on the emulator); llc-22 accepts each kernel.
//!
//! A kernel the lowering still refuses is listed in `REFUSED` with the start of its message:
//! the test fails when one of them lowers (move it out of the list) or when any other kernel is
//! refused or computes a wrong value. With `--nocapture` it prints BENCHMARKS.md's table:
//! instructions, VGPRs and LDS bytes of each kernel beside Triton's (its AMDGCN and
//! `triton-counts.<arch>.json`, counted the same way).

#[path = "lower_common/mod.rs"]
mod lower_common;

use std::collections::BTreeMap;

use linear_layout::lower::{Kernel, ttgir_kernel};
use linear_layout::target::Target;
use linear_layout::ttgir::Module;
use lower_common::llc;
use lower_common::people::{DIR, assembled_row, cases, check, expected, print_table, stem};
use serde_json::Value as Json;

/// Kernels (file stems) the lowering refuses today, with the start of the refusal.
const REFUSED: &[(&str, &str)] = &[];

fn lower(case: &Json) -> Result<Kernel, String> {
    let file = format!("{DIR}/{}", case["file"].as_str().unwrap());
    let m = Module::parse(&std::fs::read_to_string(&file).unwrap()).map_err(|e| e.to_string())?;
    let t = Target::by_name(case["arch"].as_str().unwrap()).unwrap();
    ttgir_kernel(&m, t).map_err(|e| e.to_string())
}

/// The LLVM IR of the people case whose id names `kernel` on `arch`.
fn emitted_ir(kernel: &str, arch: &str) -> String {
    let case = cases()
        .into_iter()
        .find(|c| {
            c["id"]
                .as_str()
                .is_some_and(|id| id.contains(kernel) && id.ends_with(arch))
        })
        .unwrap_or_else(|| panic!("no {kernel} case on {arch}"));
    let k = lower(&case).unwrap();
    linear_layout::lower::emit_llvm(&k.program, k.target).unwrap()
}

#[test]
fn people_kernels_lower_run_right_and_pass_llc() {
    let expected = expected();
    let llc = llc();
    let dir = std::env::temp_dir().join(format!("ll-people-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    let mut lowered = BTreeMap::new();
    let mut rows = Vec::new();
    for case in cases() {
        let id = case["id"].as_str().unwrap().to_string();
        let stem = stem(&case);
        let refused = REFUSED.iter().find(|(s, _)| *s == stem);
        let k = match (lower(&case), refused) {
            (Err(e), Some((_, why))) if e.contains(why) => continue,
            (Err(e), _) => {
                failures.push(format!("{id}: refused: {e}"));
                continue;
            }
            (Ok(_), Some(_)) => {
                failures.push(format!("{id}: lowers now; take {stem} out of REFUSED"));
                continue;
            }
            (Ok(k), None) => k,
        };
        if let Err(e) = check(&case, &k, &expected[&id]) {
            failures.push(format!("{id}: {e}"));
        }
        let file = case["file"].as_str().unwrap().to_string();
        if let Some(llc) = llc
            && !lowered.contains_key(&file)
        {
            match assembled_row(llc, &k, &case, &dir, &file.replace('.', "_")) {
                Ok(r) => rows.push(r),
                Err(e) => failures.push(format!("{file}: {e}")),
            }
        }
        lowered.insert(file, ());
    }
    print_table(&rows);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(!lowered.is_empty(), "no kernel lowered");
}

/// What depends on the thread id alone is computed once, before the first branch: a K loop's
/// body and the epilogue after it share one copy of each thread part instead of each computing
/// its own (LLVM's O2 pipeline has no GVN to merge them, and the duplicates cost the bf16
/// matmul on gfx1100 a serialised conversion schedule).
#[test]
fn thread_parts_are_computed_once_before_any_branch() {
    let ir = emitted_ir("matmul_bf16_32x32x32", "gfx1100");
    let body = ir.split_once("entry:\n").unwrap().1;
    let (entry, rest) = body.split_once("\n  br ").unwrap();
    let thread_only = |text: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.split_once(" = ").map(|(_, rhs)| rhs.trim().to_string()))
            .filter(|rhs| rhs.starts_with("and i32 %tid,"))
            .collect()
    };
    let hoisted = thread_only(entry);
    assert!(!hoisted.is_empty(), "no thread part in the entry block");
    let unique: std::collections::BTreeSet<_> = hoisted.iter().collect();
    assert_eq!(
        unique.len(),
        hoisted.len(),
        "a thread part computed twice: {hoisted:?}"
    );
    assert_eq!(
        thread_only(rest),
        Vec::<String>::new(),
        "thread parts computed after the first branch"
    );
}

/// A masked load's lanes take its `other` by the mask's own condition: the offset of a masked
/// lane (`0x80000000`) is not compared again (a vector compare per register, and LLVM's range
/// reasoning stops at the select).
#[test]
fn masked_loads_take_other_by_their_condition() {
    let ir = emitted_ir("argmax_rows_16x128", "gfx942");
    assert!(ir.contains("buffer.load"), "no buffer load in the argmax kernel");
    assert!(
        ir.contains("i32 -2147483648"),
        "no masked lane in the argmax kernel"
    );
    let compared: Vec<&str> = ir
        .lines()
        .filter(|l| l.contains("icmp") && l.contains("-2147483648"))
        .collect();
    assert_eq!(
        compared,
        Vec::<&str>::new(),
        "offsets compared with the masked lanes' sentinel"
    );
}

/// The `k`-th `i32` operand after `rsrc` in the first call of `intrinsic` (0: the access's
/// `voffset`, 1: its `soffset`).
fn offset_operand<'a>(ir: &'a str, intrinsic: &str, k: usize) -> &'a str {
    let call = ir
        .lines()
        .find(|l| l.contains(intrinsic))
        .unwrap_or_else(|| panic!("no {intrinsic}"));
    let after = call.split("ptr addrspace(8) ").nth(1).unwrap();
    after.split(", i32 ").nth(1 + k).unwrap().trim()
}

fn voffset_of<'a>(ir: &'a str, intrinsic: &str) -> &'a str {
    offset_operand(ir, intrinsic, 0)
}

/// A grid-stride loop stores where it loaded, under the load's mask and the condition that one
/// thread of each broadcast group stores: the store's offset is the load's masked offset sent
/// past the buffer by the second condition alone — one select, no conjunction of the two.
#[test]
fn a_store_masked_like_its_load_selects_on_the_loads_offset() {
    let ir = emitted_ir("grid_stride_128", "gfx942");
    let loaded = voffset_of(&ir, "buffer.load");
    let stored = voffset_of(&ir, "buffer.store");
    let definition = ir
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{stored} = ")))
        .unwrap_or_else(|| panic!("no definition of {stored}"));
    assert!(
        definition.contains("select i1") && definition.contains(&format!("i32 {loaded}, i32 -2147483648")),
        "the store's offset is not the load's masked one: {definition}"
    );
}

/// A grid-stride loop whose thread holds one element takes the index its mask compared as
/// the whole offset (one shift), not a moving scalar `soffset`: the same count, and the loop's
/// compare is then free to run before the accesses (as in Triton's code).
#[test]
fn a_one_element_loop_takes_the_index_its_mask_compared() {
    let ir = emitted_ir("grid_stride_128", "gfx942");
    for access in ["buffer.load", "buffer.store"] {
        assert_eq!(offset_operand(&ir, access, 1), "0", "{access}: a scalar offset");
    }
    assert!(
        !ir.contains("readfirstlane"),
        "a loop slot read back into a scalar register"
    );
}

/// The grouped matmul's program-id swizzle takes `pid // n` and `pid % n` (and the group's the
/// same way): each remainder of uniforms whose quotient the kernel takes is `a − (a/b)·b`, one
/// division for the pair (the remainders left are the per-thread `% M` wraps).
#[test]
fn a_uniform_remainder_reuses_its_quotient() {
    let ir = emitted_ir("matmul_grouped_32x32x32", "gfx942");
    let uniform_remainders: Vec<&str> = ir
        .lines()
        .filter(|l| (l.contains(" = srem i32 ") || l.contains(" = urem i32 ")) && !l.contains("%v"))
        .collect();
    assert_eq!(
        uniform_remainders,
        Vec::<&str>::new(),
        "a second division for a remainder"
    );
    assert!(
        ir.contains(" = sdiv i32 "),
        "no division left: the kernel changed"
    );
}

/// A row's cumulative sum over the 64 lanes of a wave scans them with one lane move per step:
/// DPP row shifts by 1, 2, 4 and 8 lanes, then the row broadcasts `row_bcast:15` and
/// `row_bcast:31` on gfx942; on gfx1100 (32 lanes, no row broadcasts) the row shifts and one
/// cross-row permute.
#[test]
fn lane_scans_shift_rows_then_broadcast_them() {
    let dpp_controls = |ir: &str| -> Vec<i64> {
        let mut found: Vec<i64> = ir
            .lines()
            .filter(|l| l.contains("call"))
            .filter_map(|l| l.split("@llvm.amdgcn.update.dpp.i32(").nth(1))
            .map(|args| args.split(", i32 ").nth(2).unwrap().parse().unwrap())
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    };
    let gfx942 = emitted_ir("cumsum_rows_16x128", "gfx942");
    // row_shr:1, 2, 4, 8 (0x111, 0x112, 0x114, 0x118), row_bcast:15 and :31 (0x142, 0x143).
    assert_eq!(
        dpp_controls(&gfx942),
        vec![0x111, 0x112, 0x114, 0x118, 0x142, 0x143]
    );
    let gfx1100 = emitted_ir("cumsum_rows_16x128", "gfx1100");
    assert_eq!(dpp_controls(&gfx1100), vec![0x111, 0x112, 0x114, 0x118]);
    assert!(
        gfx1100.contains("@llvm.amdgcn.permlanex16.i32(i32 poison"),
        "gfx1100: no cross-row permute for the fifth step"
    );
}

/// A binary search over a sorted row of 64 in seven steps (`mid = (lo + hi) // 2`, loaded
/// with the mask `mid < 64`): the value ranges prove `lo + hi` never negative at every step
/// and `mid` below 64 in the first six, so no division keeps its sign correction and only
/// the seventh step's load its mask (there `lo = hi = 64` reaches 64).
#[test]
fn value_ranges_settle_a_binary_searchs_masks_and_divisions() {
    let ir = emitted_ir("searchsorted_64", "gfx942");
    assert!(!ir.contains("sdiv"), "a signed division is left");
    let loads = ir
        .lines()
        .filter(|l| l.contains("call i32 @llvm.amdgcn.raw.ptr.buffer.load"))
        .count();
    let masked = ir
        .lines()
        .filter(|l| l.contains("select i1") && l.contains("-2147483648"))
        .count();
    assert_eq!(loads, 8, "the query's load and the seven steps'");
    // The seventh step's alone: the query's load (`offs < n_q`) and the result's store sit in
    // the predicated region of the first thread of each broadcast group within `n_q`.
    assert_eq!(masked, 1, "masked offsets");
}

/// Masked atomics at global addresses branch on their mask itself: a masked thread skips
/// the atomic without its offset being sent past the buffer and compared with its size.
#[test]
fn global_atomics_branch_on_their_mask() {
    let ir = emitted_ir("atomics_mix_128", "gfx1100");
    let atomics = ir
        .lines()
        .filter(|l| l.contains("atomicrmw") || l.contains("cmpxchg"))
        .count();
    assert!(atomics >= 3, "the three masked atomics are not global ones");
    let against_size: Vec<&str> = ir.lines().filter(|l| l.contains("icmp ult i32")).collect();
    assert_eq!(
        against_size,
        Vec::<&str>::new(),
        "offsets compared with the buffer's size"
    );
    let branches = ir
        .lines()
        .filter(|l| l.contains("br i1") && l.contains("label %atomic."))
        .count();
    assert_eq!(branches, 3, "one branch per masked atomic");
}

/// `tl.num_programs(0)` is the grid's workgroup count the implicit kernel arguments hold, read
/// as it is (not the grid's work-items divided by the workgroup's size).
#[test]
fn num_programs_reads_the_implicit_block_count() {
    let ir = emitted_ir("grid_stride_128", "gfx942");
    assert!(
        ir.contains("@llvm.amdgcn.implicitarg.ptr()"),
        "no implicit argument read"
    );
    assert!(!ir.contains("dispatch.ptr"), "the dispatch packet is read");
    assert!(!ir.contains("udiv"), "a division is left");
}

/// A loop that spins on a lock branches on the wave's ballot of the test every thread agrees
/// on (LLVM then branches on the compare's lane mask), not on a copy of the bit moved to a
/// scalar register first.
#[test]
fn agreed_branch_conditions_are_ballots() {
    for arch in ["gfx942", "gfx1100"] {
        let ir = emitted_ir("dw_accumulate_lock", arch);
        let wave = if arch == "gfx942" { 64 } else { 32 };
        assert!(
            ir.contains(&format!("call i{wave} @llvm.amdgcn.ballot.i{wave}(i1 ")),
            "{arch}: no ballot of the loop's test"
        );
    }
}

/// Integers change width element by element: a byte kernel's widening and narrowing are
/// scalar `zext`/`trunc`, not vectors LLVM would pack into one register and take apart again.
#[test]
fn integer_conversions_are_per_element() {
    let ir = emitted_ir("uint8_scale", "gfx1100");
    let casts: Vec<&str> = ir
        .lines()
        .filter(|l| l.contains(" = zext ") || l.contains(" = trunc "))
        .collect();
    assert!(!casts.is_empty(), "no integer conversion in the byte kernel");
    assert!(
        casts.iter().all(|l| !l.contains(" x i")),
        "vector integer conversions: {casts:?}"
    );
}

/// A buffer's resource is made where the kernel first uses it when that is outside every loop
/// and branch (resources used one after another then share one quad of scalar registers), and
/// before the first branch when the first use is inside one (it must dominate every use).
#[test]
fn resources_are_made_where_first_used_outside_regions() {
    let lowered = |stem: &str| emitted_ir(stem, "gfx1100");
    let made =
        |l: &str| l.trim_start().starts_with("%rsrc") && l.contains("@llvm.amdgcn.make.buffer.rsrc.p8.p1(");
    // Straight-line code: each resource's first use comes before the next resource is made.
    let ir = lowered("rope_interleaved_64_f32");
    let lines: Vec<&str> = ir.lines().collect();
    let makes: Vec<usize> = (0..lines.len()).filter(|&i| made(lines[i])).collect();
    assert!(makes.len() >= 3, "{makes:?}");
    for (n, &at) in makes.iter().enumerate() {
        let name = lines[at].trim().split(' ').next().unwrap();
        let first_use = (at + 1..lines.len())
            .find(|&i| lines[i].contains(&format!("{name},")) || lines[i].contains(&format!("{name})")))
            .unwrap_or_else(|| panic!("{name} is never used"));
        if let Some(&next) = makes.get(n + 1) {
            assert!(
                first_use < next,
                "{name} is made before the resource made ahead of its use"
            );
        }
    }
    // A K loop: the resources its body reads are made before the loop's guard.
    let ir = lowered("matmul_bf16_32x32x32");
    let entry = ir
        .split_once("entry:\n")
        .unwrap()
        .1
        .split_once("\n  br ")
        .unwrap()
        .0;
    assert!(entry.lines().filter(|l| made(l)).count() >= 2, "{entry}");
}

/// A spin lock's critical section (`v = tl.load(acc)`, `tl.store(acc, v + pid + 1)`,
/// `tl.atomic_xchg(lock, 0)`, `tl.store(hits + pid, 1)`) is done by the workgroup's first
/// thread alone: the load, the two stores and the exchange with its fences are one
/// predicated region, so the other waves branch past all of it; inside, no access masks its
/// own offset and the exchange needs no branch of its own.
#[test]
fn a_critical_section_of_one_thread_is_one_region() {
    let ir = emitted_ir("spin_lock", "gfx942");
    let region = ir
        .split("label %acting.")
        .nth(1)
        .and_then(|rest| rest.split("\nacted.").next())
        .expect("a predicated region");
    for part in [
        "load i32, ptr addrspace(1)",
        "buffer.store",
        "atomicrmw xchg",
        "fence syncscope(\"agent\") release",
    ] {
        assert!(region.contains(part), "the region lacks {part}: {region}");
    }
    assert_eq!(
        region.matches("buffer.store").count(),
        2,
        "both stores are inside"
    );
    assert!(
        !region.contains("-2147483648"),
        "an access inside masks its offset: {region}"
    );
    assert!(
        !region.contains("label %atomic."),
        "the exchange branches on its own: {region}"
    );
}
