//! `tritongpu-optimize-thread-locality` against Triton 3.6.0 on Triton's own stage files
//! (`tests/fixtures/passes/`): the same ops in walk order with the same result types, layouts
//! included. `LAYOUT_PASSES_VERBOSE=1` prints each disagreement.

mod common;

use common::passes::check;
use linear_layout::heuristics::propagation::optimize_thread_locality;

#[test]
fn optimize_thread_locality_agrees_with_triton() {
    check(
        "optimize_thread_locality",
        |g| optimize_thread_locality(g).map_err(|e| e.to_string()),
        [234, 0, 22],
    );
}

/// A loop-carried reduction whose result has two users is outside what Triton's rewrite
/// assumes: the pass names the loop and leaves the module as it was.
#[test]
fn an_accumulator_used_twice_is_refused_without_a_change() {
    let text = r#"
#blocked = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @k(%p: tensor<32x128x!tt.ptr<f32>, #blocked>, %n: i32) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>> {
    %cst = arith.constant dense<0.000000e+00> : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %0 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %cst) -> (tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>)  : i32 {
      %x = tt.load %p : tensor<32x128x!tt.ptr<f32>, #blocked>
      %r = "tt.reduce"(%x) <{axis = 1 : i32}> ({
      ^bb0(%u: f32, %v: f32):
        %s = arith.addf %u, %v : f32
        tt.reduce.return %s : f32
      }) : (tensor<32x128xf32, #blocked>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      %b = arith.addf %a, %r : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      scf.yield %b : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    }
    %1 = arith.addf %0, %0 : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    tt.return %1 : tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
  }
}"#;
    let mut g = linear_layout::ttgir::graph::Graph::parse(text).unwrap();
    let before = g.print().unwrap();
    let e = optimize_thread_locality(&mut g).unwrap_err();
    assert_eq!(e.op, "scf.for", "{e}");
    assert_eq!(g.print().unwrap(), before);
}
