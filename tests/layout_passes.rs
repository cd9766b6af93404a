//! The layout passes against Triton 3.6.0, pass by pass on Triton's own input for each
//! (`tests/fixtures/passes/`: kernels as people write them, Triton's lit tests, the heuristics
//! corpus). Agreement: the same ops in walk order with the same result types, layouts
//! included. `LAYOUT_PASSES_VERBOSE=1` prints each disagreement.

mod common;

use common::passes::check;
use linear_layout::heuristics::propagation::{
    canonicalize, f32_dot_tc, fuse_nested_loops, hoist_layout_conversions, in_thread_transpose, licm,
    optimize_dot_operands, optimize_epilogue, reduce_data_duplication, remove_layout_conversions,
};
use linear_layout::ttgir::graph::Graph;

fn rlc(g: &mut Graph) -> Result<(), String> {
    remove_layout_conversions(g).map_err(|e| e.to_string())
}

#[test]
fn remove_layout_conversions_agrees_with_triton() {
    check("remove_layout_conversions", rlc, [778, 300, 54]);
}

#[test]
fn optimize_epilogue_agrees_with_triton() {
    check(
        "optimize_epilogue",
        |g| optimize_epilogue(g).map_err(|e| e.to_string()),
        [234, 200, 9],
    );
}

#[test]
fn reduce_data_duplication_agrees_with_triton() {
    check(
        "reduce_data_duplication",
        |g| reduce_data_duplication(g).map_err(|e| e.to_string()),
        [234, 200, 8],
    );
}

#[test]
fn hoist_layout_conversions_agrees_with_triton() {
    check(
        "hoist_layout_conversions",
        |g| hoist_layout_conversions(g).map_err(|e| e.to_string()),
        [234, 0, 3],
    );
}

#[test]
fn optimize_dot_operands_agrees_with_triton() {
    let run = |g: &mut Graph| {
        let arch = g.target.clone().unwrap_or_default();
        optimize_dot_operands(g, &arch).map_err(|e| e.to_string())
    };
    check("optimize_dot_operands", run, [234, 0, 1]);
}

#[test]
fn f32_dot_tc_agrees_with_triton() {
    let run = |g: &mut Graph, c: &common::passes::Case| {
        f32_dot_tc(g, c.get("emu_tf32") == Some("1")).map_err(|e| e.to_string())
    };
    common::passes::check_with("f32_dot_tc", &run, [234, 0, 2]);
}

#[test]
fn fuse_nested_loops_agrees_with_triton() {
    check(
        "fuse_nested_loops",
        |g| fuse_nested_loops(g).map_err(|e| e.to_string()),
        [234, 0, 0],
    );
}

/// A three-deep nest marked `ttg.always-fuse`: the two inner levels fuse first, then the
/// result into the outer loop, as Triton 3.6 does (its module: 3 loops, the two that add up
/// lengths hoisted in front of the fused one, 6 ifs, 38 constants, 2 selects).
#[test]
fn fuse_nested_loops_flattens_three_levels() {
    let text = r#"
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%p: !tt.ptr<i32>, %m: i32, %n: i32, %l: i64) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %d0 = arith.constant 0 : i64
    %d1 = arith.constant 1 : i64
    scf.for %i = %c0 to %m step %c1  : i32 {
      scf.for %j = %c0 to %n step %c1  : i32 {
        scf.for %k = %d0 to %l step %d1  : i64 {
          %x = arith.addi %i, %j : i32
          tt.store %p, %x : !tt.ptr<i32>
        }
      }
    } {"ttg.always-fuse"}
    tt.return
  }
}"#;
    let mut g = Graph::parse(text).unwrap();
    fuse_nested_loops(&mut g).unwrap();
    let out = g.print().unwrap();
    let count = |name: &str| out.matches(&format!("{name} ")).count();
    assert_eq!(
        [
            count("scf.for"),
            count("scf.if"),
            count("arith.constant"),
            count("arith.select")
        ],
        [3, 6, 38, 2],
        "{out}"
    );
    assert!(out.contains(":13 = scf.for"), "{out}");
}

/// An epilogue value the outer loop yields twice has no single carried value to stand for it
/// (Triton's fused module fails verification): refused in one line.
#[test]
fn fuse_nested_loops_refuses_an_epilogue_value_yielded_twice() {
    let text = r#"
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%p: !tt.ptr<i32>, %m: i32, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %i = %c0 to %m step %c1 iter_args(%t = %c0, %u = %c0) -> (i32, i32)  : i32 {
      scf.for %j = %c0 to %n step %c1  : i32 {
        tt.store %p, %j : !tt.ptr<i32>
      }
      %z = arith.addi %t, %i : i32
      scf.yield %z, %z : i32, i32
    } {"ttg.always-fuse"}
    tt.return
  }
}"#;
    let mut g = Graph::parse(text).unwrap();
    let e = fuse_nested_loops(&mut g).unwrap_err().to_string();
    assert!(e.starts_with("line 6: 'scf.for': ") && !e.contains('\n'), "{e}");
}

#[test]
fn licm_agrees_with_triton() {
    check("licm", |g| licm(g).map_err(|e| e.to_string()), [234, 0, 0]);
}

#[test]
fn canonicalize_agrees_with_triton() {
    check(
        "canonicalize",
        |g| canonicalize(g).map_err(|e| e.to_string()),
        [702, 0, 24],
    );
}

#[test]
fn in_thread_transpose_agrees_with_triton() {
    check(
        "in_thread_transpose",
        |g| in_thread_transpose(g).map_err(|e| e.to_string()),
        [78, 0, 12],
    );
}

/// The whole pipeline from TTIR, as Triton's `make_ttgir` runs its layout passes at
/// num_stages 1: the module after the last pass (data duplication, or on gfx942 the in-thread
/// transpose's propagation) agrees with Triton's.
#[test]
fn pipeline_from_ttir_agrees_with_triton() {
    use common::passes::{cases, signature};
    use linear_layout::heuristics::propagation::{LayoutPass, LayoutPassOptions, run_layout_pass};
    use linear_layout::ttgir::Module;
    let all = cases("people");
    let (mut ok, mut total, mut refused) = (0, 0, 0);
    let verbose = std::env::var_os("LAYOUT_PASSES_VERBOSE").is_some();
    for first in all.iter().filter(|c| c.pass == "convert_to_ttgpuir") {
        let Some(last) = all
            .iter()
            .filter(|c| c.file == first.file)
            .max_by_key(|c| c.stage)
        else {
            continue;
        };
        total += 1;
        let mut opts = LayoutPassOptions::new(first.get("arch").unwrap_or("gfx942"));
        opts.num_warps = first.get("num_warps").and_then(|v| v.parse().ok()).unwrap_or(4);
        opts.threads_per_warp = first
            .get("threads_per_warp")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let out = match run_layout_pass(&first.input, LayoutPass::Pipeline, &opts) {
            Ok(out) => out,
            Err(e) => {
                refused += 1;
                if verbose {
                    println!("{}: refused: {e}", first.file.display());
                }
                continue;
            }
        };
        let (ours, theirs) = (
            Module::parse(&out).unwrap(),
            Module::parse(&last.expected).unwrap(),
        );
        if signature(&ours) == signature(&theirs) {
            ok += 1;
        } else if verbose {
            println!("{}: differs", first.file.display());
        }
    }
    println!("pipeline: people {ok}/{total} ({refused} refused)");
    assert!(
        ok >= 232,
        "the pipeline agrees with Triton on {ok}/{total} people modules"
    );
}
