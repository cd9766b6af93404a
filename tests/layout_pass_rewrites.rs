//! The rewrite of `tritongpu-coalesce` against Triton 3.6.0, on Triton's own input for the
//! pass (`tests/fixtures/passes/`). Agreement: the same ops in walk order with the same result
//! types, layouts included. `LAYOUT_PASSES_VERBOSE=1` prints each disagreement.

mod common;

use common::passes::{Case, check_with};
use linear_layout::heuristics::propagation::coalesce;
use linear_layout::ttgir::Module;
use linear_layout::ttgir::graph::Graph;

fn run_coalesce(c: &Case, g: &mut Graph) -> Result<(), String> {
    let m = Module::parse(&c.input).map_err(|e| e.to_string())?;
    coalesce(g, &m).map_err(|e| e.to_string())
}

#[test]
fn coalesce_agrees_with_triton() {
    check_with("coalesce", &run_coalesce, [147, 100, 8]);
}
