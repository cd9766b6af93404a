//! The layout passes by name, and Triton's AMD `make_ttgir` order of them.
//!
//! Each pass reads TTGIR text and returns TTGIR text (the module is read again between
//! passes, as Triton prints and parses between stages when asked to). `pipeline` runs the
//! layout passes of Triton 3.6's AMD `make_ttgir` at `num_stages = 1` (software pipelining is
//! left out): coalescing, the first layout propagation, thread locality, matrix
//! instructions, propagation again, the epilogue, dot operands, hoisting, the loop and
//! canonical cleanups, a last propagation, data duplication, and where the target table says
//! Triton runs it (gfx942), the in-thread transpose with its propagation.

use std::fmt;
use std::str::FromStr;

use crate::target::Target;
use crate::ttgir::Module;
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
    /// `convert-triton-to-tritongpu` (TTIR in: the default layouts).
    ConvertToTtgpuir,
    /// `tritongpu-coalesce`.
    Coalesce,
    /// `tritonamdgpu-accelerate-matmul`.
    AccelerateMatmul,
    /// Every pass below, in Triton's AMD `make_ttgir` order at `num_stages = 1`.
    Pipeline,
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
    /// `tritonamdgpu-in-thread-transpose`.
    InThreadTranspose,
}

const NAMES: &[(LayoutPass, &str)] = &[
    (LayoutPass::ConvertToTtgpuir, "convert_to_ttgpuir"),
    (LayoutPass::Coalesce, "coalesce"),
    (LayoutPass::AccelerateMatmul, "accelerate_matmul"),
    (LayoutPass::Pipeline, "pipeline"),
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
    (LayoutPass::InThreadTranspose, "in_thread_transpose"),
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
    /// Warps of a TTIR module given its layouts (`convert_to_ttgpuir`; Triton's default 4).
    pub num_warps: u32,
    /// Lanes per warp of a TTIR module (`convert_to_ttgpuir`): 0 takes the arch's wave size.
    pub threads_per_warp: u32,
    /// accelerate-matmul's `kPack` (1 or 2).
    pub kpack: u32,
    /// accelerate-matmul's `matrix_instr_nonkdim` (0: its heuristic).
    pub nonkdim: u32,
    /// F32DotTC's TF32 emulation (`tf32x3` dots split; NVIDIA only, off in the AMD pipeline).
    pub emu_tf32: bool,
    /// remove-layout-conversions' hoist of converts into MMA dot operands up to their loads
    /// (Triton's; off, the converts stay by their dots: [`remove_layout_conversions_with`](super::remove_layout_conversions_with)).
    pub hoist_dot_operands: bool,
}

impl LayoutPassOptions {
    /// Triton's defaults for `arch`.
    pub fn new(arch: &str) -> LayoutPassOptions {
        LayoutPassOptions {
            arch: arch.to_string(),
            num_warps: 4,
            threads_per_warp: 0,
            kpack: 1,
            nonkdim: 0,
            emu_tf32: false,
            hoist_dot_operands: true,
        }
    }
}

/// The layout passes of Triton 3.6's AMD `make_ttgir` after the conversion to TTGIR, in order,
/// at `num_stages = 1` (scheduling and pipelining left out; the in-thread transpose and its
/// propagation follow on gfx942).
///
/// ```
/// use linear_layout::heuristics::propagation::{LayoutPass, PIPELINE};
/// assert_eq!(PIPELINE.first(), Some(&LayoutPass::Coalesce));
/// assert_eq!(PIPELINE.iter().filter(|p| **p == LayoutPass::RemoveLayoutConversions).count(), 3);
/// ```
pub const PIPELINE: &[LayoutPass] = &[
    LayoutPass::Coalesce,
    LayoutPass::F32DotTc,
    LayoutPass::RemoveLayoutConversions,
    LayoutPass::OptimizeThreadLocality,
    LayoutPass::AccelerateMatmul,
    LayoutPass::RemoveLayoutConversions,
    LayoutPass::OptimizeEpilogue,
    LayoutPass::OptimizeDotOperands,
    LayoutPass::HoistLayoutConversions,
    LayoutPass::FuseNestedLoops,
    LayoutPass::Canonicalize,
    LayoutPass::Licm,
    LayoutPass::Canonicalize,
    LayoutPass::Canonicalize,
    LayoutPass::RemoveLayoutConversions,
    LayoutPass::ReduceDataDuplication,
];

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
    Ok(run_layout_pass_explained(text, pass, opts)?.0)
}

/// [`run_layout_pass`], with what the pass changed and why, one line each (the graph's
/// [`log`](Graph::log)).
///
/// ```
/// use linear_layout::heuristics::propagation::{run_layout_pass_explained, LayoutPass, LayoutPassOptions};
/// let text = r#"
/// #a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
/// #b = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
/// module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @k(%p: tensor<1024x!tt.ptr<f32>, #a>) {
///     %x = tt.load %p : tensor<1024x!tt.ptr<f32>, #a>
///     %c = ttg.convert_layout %x : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
///     %y = arith.addf %c, %c : tensor<1024xf32, #b>
///     tt.store %p, %y : tensor<1024x!tt.ptr<f32>, #b>
///     tt.return
///   }
/// }"#;
/// let (_, log) = run_layout_pass_explained(text, LayoutPass::RemoveLayoutConversions, &LayoutPassOptions::new("gfx942"))?;
/// assert!(log.iter().any(|l| l.contains("tt.load: anchor")), "{log:?}");
/// // The add takes the load's layout, and says so.
/// assert!(log.iter().any(|l| l.contains("arith.addf: rewritten in") && l.contains("the anchor at line 6 (tt.load)")), "{log:?}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_layout_pass_explained(
    text: &str,
    pass: LayoutPass,
    opts: &LayoutPassOptions,
) -> Result<(String, Vec<String>), PassError> {
    let (mut g, m) = Graph::parse_with_module(text).map_err(read_error)?;
    if pass == LayoutPass::Pipeline {
        layout_pipeline(&mut g, &m, opts)?;
    } else {
        apply(&mut g, Some(&m), pass, opts)?;
    }
    let out = g.print().map_err(read_error)?;
    // What a pass returns reads back: a module whose layouts do not fit its warps (a TTGIR
    // module converted again for other warps or lanes) is refused instead.
    Module::parse(&out).map_err(|e| PassError {
        message: format!(
            "{pass} would leave a module that does not read back: {}",
            e.message
        ),
        ..read_error(e)
    })?;
    Ok((out, g.log))
}

/// Runs one pass on `g`. `m` is the reader's module of the same text, when `g` has not changed
/// since it was read; the passes that ask its analyses (coalesce, accelerate-matmul) read the
/// graph again otherwise.
fn apply(
    g: &mut Graph,
    m: Option<&Module>,
    pass: LayoutPass,
    opts: &LayoutPassOptions,
) -> Result<(), PassError> {
    super::bounded(g)?;
    match pass {
        LayoutPass::ConvertToTtgpuir => {
            let lanes = match opts.threads_per_warp {
                0 => Target::by_name(&opts.arch).map_err(|e| message(&e))?.wave_size,
                n => n,
            };
            super::convert_to_ttgpuir(g, &format!("hip:{}", opts.arch), opts.num_warps, lanes)?;
        }
        LayoutPass::Coalesce | LayoutPass::AccelerateMatmul => {
            let fresh;
            let m = match m {
                Some(m) => m,
                None => {
                    let (g2, m2) = g.read_again().map_err(read_error)?;
                    *g = g2;
                    fresh = m2;
                    &fresh
                }
            };
            if pass == LayoutPass::Coalesce {
                super::coalesce(g, m)?;
            } else {
                super::accelerate_matmul(g, m, &opts.arch, opts.kpack, opts.nonkdim)?;
            }
        }
        LayoutPass::F32DotTc => super::f32_dot_tc(g, opts.emu_tf32)?,
        LayoutPass::RemoveLayoutConversions => {
            super::remove_layout_conversions_with(g, opts.hoist_dot_operands)?
        }
        LayoutPass::OptimizeThreadLocality => super::optimize_thread_locality(g)?,
        LayoutPass::OptimizeEpilogue => super::optimize_epilogue(g)?,
        LayoutPass::OptimizeDotOperands => super::optimize_dot_operands(g, &opts.arch)?,
        LayoutPass::HoistLayoutConversions => super::hoist_layout_conversions(g)?,
        LayoutPass::FuseNestedLoops => super::fuse_nested_loops(g)?,
        LayoutPass::ReduceDataDuplication => super::reduce_data_duplication(g)?,
        LayoutPass::Licm => super::licm(g)?,
        LayoutPass::Canonicalize => super::canonicalize(g)?,
        LayoutPass::InThreadTranspose => super::in_thread_transpose(g)?,
        LayoutPass::Pipeline => {}
    }
    Ok(())
}

/// The whole pipeline on one graph: the conversion to TTGIR when the module has no layouts yet,
/// then [`PIPELINE`], then, on the targets where Triton runs it (the target table's
/// `triton_in_thread_transpose`), the in-thread transpose and a last propagation. `m` is the
/// reader's module of the graph's text (ids agree: [`Graph::parse_with_module`]). Each op
/// keeps the line it was read from through the passes (0 for the ops they make), so what a
/// later stage says of an op names the line its author wrote.
///
/// ```
/// use linear_layout::heuristics::propagation::{layout_pipeline, LayoutPassOptions};
/// use linear_layout::ttgir::graph::Graph;
/// let text = "\nmodule {\n  tt.func @k(%p: !tt.ptr<f32>) {\n    %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>\n    %s = tt.splat %p : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>\n    %q = tt.addptr %s, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>\n    %x = tt.load %q : tensor<256x!tt.ptr<f32>>\n    tt.store %q, %x : tensor<256x!tt.ptr<f32>>\n    tt.return\n  }\n}\n";
/// let (mut g, m) = Graph::parse_with_module(text)?;
/// layout_pipeline(&mut g, &m, &LayoutPassOptions::new("gfx942"))?;
/// let load = g.find_op("tt.load").unwrap();
/// assert!(g.value(g.op(load).results[0]).ty.encoding.is_some()); // a layout chosen
/// assert_eq!(g.op(load).line, 7); // the line the load was read from
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn layout_pipeline(g: &mut Graph, m: &Module, opts: &LayoutPassOptions) -> Result<(), PassError> {
    let mut unchanged = Some(m);
    if !m.values.iter().any(|v| v.ty.encoding.is_some()) {
        super::decompose_scaled_dots(g, m)?;
        apply(g, None, LayoutPass::ConvertToTtgpuir, opts)?;
        unchanged = None;
    }
    let in_thread_transpose = Target::by_name(&opts.arch).is_ok_and(|t| t.triton_in_thread_transpose);
    let tail: &[LayoutPass] = if in_thread_transpose {
        &[LayoutPass::InThreadTranspose, LayoutPass::RemoveLayoutConversions]
    } else {
        &[]
    };
    for &pass in PIPELINE.iter().chain(tail) {
        apply(g, unchanged, pass, opts).map_err(|e| PassError {
            message: format!("{pass}: {}", e.message),
            ..e
        })?;
        unchanged = None;
    }
    Ok(())
}

fn message(e: &str) -> PassError {
    PassError {
        line: 0,
        op: String::new(),
        message: e.to_string(),
        limit: None,
    }
}

fn read_error(e: crate::ttgir::TtgirError) -> PassError {
    PassError {
        line: e.line,
        op: String::new(),
        message: e.message,
        limit: e.limit,
    }
}
