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
        [147, 0, 22],
    );
}
