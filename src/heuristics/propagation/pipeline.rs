//! The layout passes by name, and Triton's AMD `make_ttgir` order of them.
//!
//! Each pass reads TTGIR text and returns TTGIR text (the module is read again between
//! passes, as Triton prints and parses between stages when asked to). `pipeline` runs the
//! layout passes of Triton 3.6's AMD `make_ttgir` at `num_stages = 1` (software pipelining is
//! left out): coalescing, the first layout propagation, thread locality, matrix
//! instructions, propagation again, the epilogue, dot operands, hoisting, the loop and
//! canonical cleanups, a last propagation, data duplication, and on gfx942 the in-thread
//! transpose with its propagation.

use std::fmt;
use std::str::FromStr;

use crate::ttgir::graph::Graph;

use super::PassError;

/// A layout pass of Triton 3.6's AMD pipeline, or the whole pipeline.
///
/// ```
/// use linear_layout::heuristics::propagation::LayoutPass;
/// assert_eq!("remove_layout_conversions".parse::<LayoutPass>(), Ok(LayoutPass::RemoveLayoutConversions));
/// assert_eq!(LayoutPass::ReduceDataDuplication.to_string(), "reduce_data_duplication");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayoutPass {
    /// `tritongpu-F32DotTC` (without TF32 emulation, as the AMD pipeline runs it).
    F32DotTc,
    /// `tritongpu-remove-layout-conversions`.
    RemoveLayoutConversions,
    /// `tritonamdgpu-optimize-epilogue`.
    OptimizeEpilogue,
    /// `tritonamdgpu-optimize-dot-operands`.
    OptimizeDotOperands,
    /// `tritonamdgpu-hoist-layout-conversions`.
    HoistLayoutConversions,
    /// `tritongpu-fuse-nested-loops`.
    FuseNestedLoops,
    /// `tritongpu-reduce-data-duplication`.
    ReduceDataDuplication,
    /// `triton-licm`.
    Licm,
    /// `tritongpu-optimize-thread-locality`.
    OptimizeThreadLocality,
    /// `canonicalize` (the part the layout pipeline needs).
    Canonicalize,
}

const NAMES: &[(LayoutPass, &str)] = &[
    (LayoutPass::F32DotTc, "f32_dot_tc"),
    (LayoutPass::RemoveLayoutConversions, "remove_layout_conversions"),
    (LayoutPass::OptimizeEpilogue, "optimize_epilogue"),
    (LayoutPass::OptimizeDotOperands, "optimize_dot_operands"),
    (LayoutPass::HoistLayoutConversions, "hoist_layout_conversions"),
    (LayoutPass::FuseNestedLoops, "fuse_nested_loops"),
    (LayoutPass::ReduceDataDuplication, "reduce_data_duplication"),
    (LayoutPass::Licm, "licm"),
    (LayoutPass::OptimizeThreadLocality, "optimize_thread_locality"),
    (LayoutPass::Canonicalize, "canonicalize"),
];

impl LayoutPass {
    /// Every pass name, as `--pass` takes it.
    ///
    /// ```
    /// use linear_layout::heuristics::propagation::LayoutPass;
    /// assert!(LayoutPass::names().contains(&"optimize_epilogue"));
    /// ```
    pub fn names() -> Vec<&'static str> {
        NAMES.iter().map(|(_, n)| *n).collect()
    }
}

impl FromStr for LayoutPass {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        NAMES
            .iter()
            .find(|(_, n)| *n == s)
            .map(|(p, _)| *p)
            .ok_or_else(|| {
                format!(
                    "unknown layout pass '{s}' (expected one of {})",
                    LayoutPass::names().join(", ")
                )
            })
    }
}

impl fmt::Display for LayoutPass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = NAMES.iter().find(|(p, _)| p == self).map_or("?", |(_, n)| n);
        f.write_str(name)
    }
}

/// What a pass needs to know beyond the module.
///
/// ```
/// use linear_layout::heuristics::propagation::LayoutPassOptions;
/// assert_eq!(LayoutPassOptions::new("gfx942").arch, "gfx942");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutPassOptions {
    /// The target arch (`gfx942`).
    pub arch: String,
}

impl LayoutPassOptions {
    /// Options for `arch`.
    pub fn new(arch: &str) -> LayoutPassOptions {
        LayoutPassOptions {
            arch: arch.to_string(),
        }
    }
}

/// Runs `pass` on the module of `text`; returns the module after it, as TTGIR.
///
/// ```
/// use linear_layout::heuristics::propagation::{run_layout_pass, LayoutPass, LayoutPassOptions};
/// let text = "module {\n  tt.func @k(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    tt.return\n  }\n}\n";
/// let out = run_layout_pass(text, LayoutPass::RemoveLayoutConversions, &LayoutPassOptions::new("gfx942"))?;
/// assert!(!out.contains("arith.addi")); // dead code goes
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_layout_pass(text: &str, pass: LayoutPass, opts: &LayoutPassOptions) -> Result<String, PassError> {
    let mut g = Graph::parse(text).map_err(read_error)?;
    super::bounded(&g)?;
    match pass {
        LayoutPass::F32DotTc => super::f32_dot_tc(&mut g)?,
        LayoutPass::RemoveLayoutConversions => super::remove_layout_conversions(&mut g)?,
        LayoutPass::OptimizeEpilogue => super::optimize_epilogue(&mut g)?,
        LayoutPass::OptimizeDotOperands => super::optimize_dot_operands(&mut g, &opts.arch)?,
        LayoutPass::HoistLayoutConversions => super::hoist_layout_conversions(&mut g)?,
        LayoutPass::FuseNestedLoops => super::fuse_nested_loops(&mut g)?,
        LayoutPass::ReduceDataDuplication => super::reduce_data_duplication(&mut g)?,
        LayoutPass::Licm => super::licm(&mut g)?,
        LayoutPass::OptimizeThreadLocality => super::optimize_thread_locality(&mut g)?,
        LayoutPass::Canonicalize => super::canonicalize(&mut g)?,
    }
    g.print().map_err(read_error)
}

fn read_error(e: crate::ttgir::TtgirError) -> PassError {
    PassError {
        line: e.line,
        op: String::new(),
        message: e.message,
        limit: e.limit,
    }
}
