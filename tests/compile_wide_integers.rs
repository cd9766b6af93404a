//! Reductions, scans, sorts and atomics of 64-bit integers as people write them (`tl.sum`,
//! `tl.max`, `tl.argmax`, `tl.cumsum`, `tl.sort`, `tl.atomic_max` and `tl.atomic_min` of
//! products past 2^32), compiled from TTIR (`make_ttir`'s output of kernels in
//! `scripts/zoo2/gen26.py` and `gen27.py`, Triton 3.6.0; the zoo's fixtures) and run in the
//! interpreter against the computation written out here, on CDNA and on RDNA
//! (`tests/compile_zoo.rs` runs llc-22 on them). On gfx1100 the emulator cannot check them: LLVM folds the cross-lane moves into
//! VOP3 adds with DPP and a carry out, and it does not model gfx1100's 64-bit atomic maxima and
//! minima (Triton's own 64-bit reduction and atomics compute wrong there too).

mod lower_common;

use linear_layout::lower::{CompileOptions, compile};
use linear_layout::target::Target;
use lower_common::constructs::{run, words};

fn kernel(name: &str, arch: &str) -> linear_layout::lower::Kernel {
    let path = format!("tests/fixtures/compile/zoo/{name}.gfx942.ttir");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    // The zoo launches them with one warp.
    compile(&text, Target::by_name(arch).unwrap(), &CompileOptions::new(1))
        .unwrap_or_else(|e| panic!("{name} on {arch}: {e}"))
        .kernel
}

fn i64_at(b: &[u8], i: usize) -> i64 {
    i64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap())
}

/// Small integers, some negative.
fn data() -> Vec<i32> {
    (0..64).map(|i| (i * 37 % 201) - 100).collect()
}

#[test]
fn sums_maxima_and_running_sums_of_64_bit_integers_are_exact() {
    let x = data();
    let raw: Vec<u32> = x.iter().map(|&v| v as u32).collect();
    for arch in ["gfx942", "gfx1100"] {
        let k = kernel("i64_reduce_64", arch);
        let mut buffers = vec![words(&raw), vec![0; 8 * 3]];
        run(&k, &mut buffers, &[], 1);
        let products: Vec<i64> = x.iter().map(|&v| i64::from(v) * 3_000_000_000).collect();
        let max = *products.iter().max().unwrap();
        assert_eq!(
            i64_at(&buffers[1], 0),
            products.iter().sum::<i64>(),
            "{arch}: sum"
        );
        assert_eq!(i64_at(&buffers[1], 1), max, "{arch}: max");
        let first = products.iter().position(|&p| p == max).unwrap() as i64;
        assert_eq!(i64_at(&buffers[1], 2), first, "{arch}: argmax");

        let k = kernel("i64_cumsum_64", arch);
        let mut buffers = vec![words(&raw), vec![0; 8 * 64]];
        run(&k, &mut buffers, &[], 1);
        let mut running = 0i64;
        for (i, &v) in x.iter().enumerate() {
            running += i64::from(v) * 1_000_000_007;
            assert_eq!(i64_at(&buffers[1], i), running, "{arch}: running sum {i}");
        }
    }
}

#[test]
fn sorts_and_atomic_extrema_of_64_bit_integers_are_exact() {
    let x = data();
    let raw: Vec<u32> = x.iter().map(|&v| v as u32).collect();
    for arch in ["gfx942", "gfx1100"] {
        let k = kernel("i64_sort_64", arch);
        let mut buffers = vec![words(&raw), vec![0; 8 * 64]];
        run(&k, &mut buffers, &[], 1);
        let mut sorted: Vec<i64> = x.iter().map(|&v| i64::from(v) * 3_000_000_001).collect();
        sorted.sort();
        for (i, &v) in sorted.iter().enumerate() {
            assert_eq!(i64_at(&buffers[1], i), v, "{arch}: sorted {i}");
        }

        // Two programs of 64: values 0..128 of a longer list, slot i % 8.
        let long: Vec<i32> = (0..128).map(|i| (i * 53 % 211) - 105).collect();
        let raw_long: Vec<u32> = long.iter().map(|&v| v as u32).collect();
        let k = kernel("i64_atomic_minmax_64", arch);
        let mut buffers = vec![words(&raw_long), vec![0; 8 * 8], vec![0; 8 * 8]];
        run(&k, &mut buffers, &[], 2);
        for s in 0..8 {
            let vals = long
                .iter()
                .skip(s)
                .step_by(8)
                .map(|&v| i64::from(v) * 5_000_000_000);
            assert_eq!(
                i64_at(&buffers[1], s),
                vals.clone().fold(0, i64::max),
                "{arch}: max {s}"
            );
            assert_eq!(i64_at(&buffers[2], s), vals.fold(0, i64::min), "{arch}: min {s}");
        }
    }
}
