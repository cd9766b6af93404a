//! llc-22 accepts every emitted module (with a non-empty kernel list), and the LDS and
//! cross-lane instructions in its assembly are the ones `convert_cost` counts.

mod lower_common;

use std::collections::BTreeMap;
use std::sync::Mutex;

use linear_layout::heuristics::convert::convert_cost;
use linear_layout::lower::{Dtype, convert_kernel, copy_kernel};
use lower_common::*;

/// Whether a mnemonic is LDS or cross-lane traffic (what the cost model counts exactly).
fn counted(m: &str) -> bool {
    m.starts_with("ds_") || m.starts_with("v_permlane") || m == "s_barrier"
}

/// The family of a DS mnemonic: a paired access is one family whether its two offsets are
/// counted in units of the access (`ds_read2_b32`) or of 64 of them (`ds_read2st64_b32`), which
/// LLVM picks from the offsets' values.
fn family(m: &str) -> String {
    m.replace("2st64", "2").replace("_2addr_stride64", "_2addr")
}

fn families(counts: impl IntoIterator<Item = (String, u64)>) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (k, v) in counts {
        if counted(&k) {
            *out.entry(family(&k)).or_insert(0) += v;
        }
    }
    out
}

struct Outcome {
    compiled: BTreeMap<String, u64>,
    failures: Vec<String>,
    mismatches: Vec<String>,
    compared: u64,
}

#[test]
fn llc_accepts_modules_and_counts_match_the_cost_model() {
    let Some(llc) = llc() else { return };
    let dir = std::env::temp_dir().join(format!("linear-layout-lower-llc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Copies: every target, a few layouts and dtypes; conversions: a sample of the generated cases.
    // (name, module, target, the cost model's counts and whether the shape masks elements)
    type Job = (
        String,
        String,
        &'static linear_layout::target::Target,
        Option<(BTreeMap<String, u64>, bool)>,
    );
    let mut jobs: Vec<Job> = Vec::new();
    let mut r = Rng(0x5EED_0F11_C0DE_0001);
    for t in targets() {
        for i in 0..3 {
            let (shape, padded) = shapes_for(&mut r);
            let layouts = encodings_2d(t, &padded);
            let (_, l) = &layouts[r.below(layouts.len() as u64) as usize];
            let dtype = Dtype::ALL[i * 2 % 6];
            let ir = copy_kernel(l, &shape, dtype, t).unwrap().llvm_ir().unwrap();
            jobs.push((format!("copy_{}_{i}", t.name), ir, t, None));
        }
    }
    for (i, c) in cases(24, 0x0DDB_A11C_0FFE_E123).into_iter().enumerate() {
        let cost = convert_cost(&c.src, &c.dst, c.dtype.bits(), c.target).unwrap();
        let want = families(cost.instructions);
        let ir = convert_kernel(&c.src, &c.dst, &c.shape, c.dtype, c.target)
            .unwrap_or_else(|e| panic!("{} {}: {e}", c.target.name, c.name))
            .llvm_ir()
            .unwrap();
        let masked = c.shape.iter().any(|s| !s.is_power_of_two());
        jobs.push((
            format!("convert_{}_{i}", c.target.name),
            ir,
            c.target,
            Some((want, masked)),
        ));
    }
    let next = Mutex::new(0usize);
    let outcome = Mutex::new(Outcome {
        compiled: BTreeMap::new(),
        failures: Vec::new(),
        mismatches: Vec::new(),
        compared: 0,
    });
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some((name, ir, t, want)) = jobs.get(i) else {
                        break;
                    };
                    let result = compile(llc, ir, t, &dir, name);
                    let mut o = outcome.lock().unwrap();
                    match result {
                        Err(e) => o.failures.push(e),
                        Ok(asm) => {
                            *o.compiled.entry(t.name.to_string()).or_insert(0) += 1;
                            if let Some((want, masked)) = want {
                                o.compared += 1;
                                let got = families(asm_counts(&asm));
                                // A masked shape may leave whole registers outside the tensor for
                                // every thread; LLVM then drops work the cost model (which prices
                                // the layout's tile) counts: never more, possibly less.
                                let agrees = if *masked {
                                    want.keys()
                                        .chain(got.keys())
                                        .all(|k| got.get(k).unwrap_or(&0) <= want.get(k).unwrap_or(&0))
                                } else {
                                    &got == want
                                };
                                if !agrees {
                                    o.mismatches
                                        .push(format!("{name}: llc {got:?}, cost model {want:?}"));
                                }
                            }
                        }
                    }
                }
            });
        }
    });
    let o = outcome.into_inner().unwrap();
    eprintln!("modules compiled per target: {:?}", o.compiled);
    eprintln!(
        "{} conversions compared, {} disagree",
        o.compared,
        o.mismatches.len()
    );
    for m in &o.mismatches {
        eprintln!("{m}");
    }
    for f in o.failures.iter().take(5) {
        eprintln!("{f}");
    }
    assert!(o.failures.is_empty(), "{} modules rejected", o.failures.len());
    assert_eq!(o.compiled.len(), 6, "every target compiles");
    assert!(
        o.mismatches.is_empty(),
        "{} of {} conversions disagree with the cost model",
        o.mismatches.len(),
        o.compared
    );
    let _ = std::fs::remove_dir_all(&dir);
}
