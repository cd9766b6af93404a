//! The rewrites of `tritongpu-coalesce` and `tritonamdgpu-accelerate-matmul` against Triton
//! 3.6.0, on Triton's own input for each pass (`tests/fixtures/passes/`, and the hand-written
//! `tests/fixtures/rewrites/` for the matmul paths those do not reach). Agreement: the same ops
//! in walk order with the same result types, layouts included. `LAYOUT_PASSES_VERBOSE=1` prints
//! each disagreement.

mod common;

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use common::passes::{Case, agreement_with, cases, check_with};
use linear_layout::heuristics::propagation::{accelerate_matmul, coalesce};
use linear_layout::ttgir::Module;
use linear_layout::ttgir::graph::Graph;

fn run_coalesce(g: &mut Graph, c: &Case) -> Result<(), String> {
    let m = Module::parse(&c.input).map_err(|e| e.to_string())?;
    coalesce(g, &m).map_err(|e| e.to_string())
}

fn run_accelerate(g: &mut Graph, c: &Case) -> Result<(), String> {
    let m = Module::parse(&c.input).map_err(|e| e.to_string())?;
    let arch = g.target.clone().unwrap_or_default();
    let (mut kpack, mut nonkdim) = (1, 0);
    for (k, v) in &c.options {
        match k.as_str() {
            "kpack" => kpack = v.parse().map_err(|_| format!("bad kpack {v}"))?,
            "nonkdim" => nonkdim = v.parse().map_err(|_| format!("bad nonkdim {v}"))?,
            _ => {}
        }
    }
    accelerate_matmul(g, &m, &arch, kpack, nonkdim).map_err(|e| e.to_string())
}

#[test]
fn coalesce_agrees_with_triton() {
    check_with("coalesce", &run_coalesce, [234, 100, 8]);
}

#[test]
fn accelerate_matmul_agrees_with_triton() {
    check_with("accelerate_matmul", &run_accelerate, [234, 200, 0]);
}

/// FMA casts and folds, other accumulator types, WMMA v2, mixed modes, `tt.dot_scaled` inputs,
/// dead dots: every hand-written module agrees.
#[test]
fn accelerate_matmul_paths_agree_with_triton() {
    let (ok, total) = agreement_with("../rewrites", "accelerate_matmul", &run_accelerate);
    println!("accelerate_matmul (hand-written): {ok}/{total}");
    assert!(total >= 30 && ok == total, "{ok}/{total}");
}

/// What Triton fails on, and what the crate does not implement, is refused in one line naming
/// the op, and the module is left as it was.
#[test]
fn accelerate_matmul_refuses_in_one_line() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rewrites/refused");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        let name = e.file_name().to_string_lossy().to_string();
        let expect = text
            .lines()
            .find_map(|l| l.strip_prefix("// expect: "))
            .unwrap_or_else(|| panic!("{name}: no expect line"));
        let arch = name.split('.').nth(1).unwrap();
        let m = Module::parse(&text).unwrap();
        let mut g = Graph::parse(&text).unwrap();
        let before = g.print().unwrap();
        let err = accelerate_matmul(&mut g, &m, arch, 1, 0).expect_err(&name);
        assert!(err.to_string().contains(expect), "{name}: {err}");
        assert!(err.line > 0 && err.op.starts_with("tt.dot"), "{name}: {err:?}");
        assert_eq!(g.print().unwrap(), before, "{name}: the module changed");
        n += 1;
    }
    assert_eq!(n, 4);
}

/// Every module of the fixtures (each stage's input, all passes), on several targets and
/// options: the passes return, and an error leaves the module as it was.
#[test]
fn rewrites_never_panic() {
    let mut seen = HashSet::new();
    let mut runs = 0;
    for dir in ["people", "corpus", "lit", "../rewrites"] {
        for c in cases(dir) {
            if !seen.insert(c.input.clone()) {
                continue;
            }
            let (Ok(m), Ok(g0)) = (Module::parse(&c.input), Graph::parse(&c.input)) else {
                continue;
            };
            let before = g0.print().unwrap();
            let mut jobs: Vec<(&str, u32, u32)> = vec![("", 0, 0)];
            if c.input.contains("tt.dot") {
                for arch in [
                    "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201", "gfx1250", "gfx000",
                ] {
                    jobs.push((arch, 1, 0));
                }
                jobs.extend([
                    ("gfx942", 2, 16),
                    ("gfx950", 1, 32),
                    ("gfx1100", 1, 16),
                    ("gfx942", 1, 4),
                ]);
            }
            for (arch, kpack, nonkdim) in jobs {
                let mut g = g0.clone();
                let r = catch_unwind(AssertUnwindSafe(|| {
                    if arch.is_empty() {
                        coalesce(&mut g, &m)
                    } else {
                        accelerate_matmul(&mut g, &m, arch, kpack, nonkdim)
                    }
                }));
                let name = format!("{}#{} {arch}", c.file.display(), c.stage);
                match r {
                    Err(_) => panic!("{name}: panicked"),
                    Ok(Err(_)) => assert_eq!(g.print().unwrap(), before, "{name}: changed on an error"),
                    Ok(Ok(())) => {
                        let printed = g.print().unwrap_or_else(|e| panic!("{name}: {e}"));
                        Module::parse(&printed).unwrap_or_else(|e| panic!("{name}: {e}"));
                    }
                }
                runs += 1;
            }
        }
    }
    println!("{runs} runs");
    assert!(runs > 1000);
}
