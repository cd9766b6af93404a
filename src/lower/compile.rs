//! The whole compiler: a tile program in, layouts chosen, AMDGPU code out.
//!
//! `lower ttgir` needs TTGIR in which every layout is already chosen. [`compile`] starts one
//! step earlier, from TTIR as Triton's `make_ttir` leaves it — tensors without layouts — and
//! runs the three stages in a row:
//!
//! ```text
//!   TTIR ──layouts──▶ TTGIR ──ttgir front──▶ Program ──emit──▶ LLVM IR
//!         (heuristics::propagation)   (lower::ttgir)     (lower::emit)
//! ```
//!
//! [`Layouts::Triton`] picks the layouts Triton 3.6 picks: its AMD layout pipeline at
//! `num_stages = 1` as the crate implements it (coalescing, layout propagation, matrix
//! instructions, the epilogue, data duplication, and on gfx942 the in-thread transpose), so the
//! code is comparable with Triton's own at `num_stages = 1`. A TTGIR module with layouts has
//! them taken off first ([`strip_layouts`]) and every layout is chosen anew for its warps; a
//! module that already uses shared memory or target ops (past the layout passes) keeps its
//! layouts as the passes' start instead (coalescing and the matrix instructions choose their
//! anchors again; the propagation starts from what the module says).
//!
//! A vector add of 256 f32 (TTIR: no layouts) becomes a kernel of one 128-bit load per input
//! and one store per thread:
//!
//! ```
//! use linear_layout::lower::{compile, CompileOptions};
//! use linear_layout::target::Target;
//! let ttir = r#"
//! module {
//!   tt.func public @add(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
//!     %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
//!     %px = tt.splat %x : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
//!     %ax = tt.addptr %px, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
//!     %py = tt.splat %y : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
//!     %ay = tt.addptr %py, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
//!     %a = tt.load %ax : tensor<256x!tt.ptr<f32>>
//!     %b = tt.load %ay : tensor<256x!tt.ptr<f32>>
//!     %s = arith.addf %a, %b : tensor<256xf32>
//!     tt.store %ay, %s : tensor<256x!tt.ptr<f32>>
//!     tt.return
//!   }
//! }"#;
//! let out = compile(ttir, Target::by_name("gfx942")?, &CompileOptions::new(1))?;
//! assert!(out.ttgir.contains("sizePerThread = [4]"), "{}", out.ttgir); // coalesced: 4 × f32
//! assert!(out.conversions.is_empty()); // one layout for the whole kernel
//! assert!(out.kernel.llvm_ir()?.contains("@llvm.amdgcn.raw.ptr.buffer.load.v4"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::str::FromStr;

use crate::heuristics::convert::{ConvertCost, convert_cost};
use crate::heuristics::propagation::{
    HOISTED_TO_THE_LOADS, LayoutPassOptions, layout_pipeline, strip_layouts,
};
use crate::target::Target;
use crate::ttgir::graph::Graph;
use crate::ttgir::{Module, ValueType, element_bits, op_place};

use super::choose::{LayoutChoice, choose, improves, price, rank};
use super::cost::KernelCost;
use super::error::LowerError;
use super::ir::Kernel;

/// How [`compile`] chooses layouts.
///
/// ```
/// use linear_layout::lower::Layouts;
/// assert_eq!("triton".parse::<Layouts>(), Ok(Layouts::Triton));
/// assert_eq!(Layouts::Cost.to_string(), "cost");
/// assert!("fast".parse::<Layouts>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layouts {
    /// Triton 3.6's AMD layout pipeline at `num_stages = 1`, as the crate reproduces it.
    Triton,
    /// Triton's layouts, then every conversion they leave weighed against recomputing its
    /// source or sinking its users, by the price of the code each implies (see
    /// [`LayoutChoice`]); never costlier than [`Layouts::Triton`] under the model.
    Cost,
}

impl FromStr for Layouts {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "triton" => Ok(Layouts::Triton),
            "cost" => Ok(Layouts::Cost),
            other => Err(format!(
                "unknown layout choice '{other}' (expected cost or triton)"
            )),
        }
    }
}

impl fmt::Display for Layouts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layouts::Triton => "triton",
            Layouts::Cost => "cost",
        })
    }
}

/// What [`compile`] needs beyond the module and the target.
///
/// ```
/// use linear_layout::lower::{CompileOptions, Layouts};
/// let o = CompileOptions::new(8);
/// assert_eq!((o.num_warps, o.layouts), (8, Layouts::Cost));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// Warps of the kernel (Triton's `num_warps`), for a TTIR module.
    pub num_warps: u32,
    /// How layouts are chosen.
    pub layouts: Layouts,
}

impl CompileOptions {
    /// `num_warps` warps, layouts chosen by cost.
    pub fn new(num_warps: u32) -> CompileOptions {
        CompileOptions {
            num_warps,
            layouts: Layouts::Cost,
        }
    }
}

/// A compiled kernel: the TTGIR with the layouts chosen, what each layout pass changed and why,
/// the conversions the layouts leave with their prices, and the kernel.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The module with its layouts, as TTGIR Triton's parser reads.
    pub ttgir: String,
    /// The layout passes' changes, one line each, with their reasons.
    pub changes: Vec<String>,
    /// Every `ttg.convert_layout` left in the module, priced on the target.
    pub conversions: Vec<PricedConversion>,
    /// What [`Layouts::Cost`] weighed for each conversion Triton's layouts leave (empty for
    /// [`Layouts::Triton`]).
    pub choices: Vec<LayoutChoice>,
    /// The kernel's price under the model ([`kernel_cost`](super::kernel_cost)).
    pub cost: KernelCost,
    /// The kernel ([`Kernel::llvm_ir`] emits it, [`run`](super::run) executes it).
    pub kernel: Kernel,
}

/// A conversion the chosen layouts leave in the kernel, and what it costs under the crate's
/// model (the plan the lowering emits for it).
///
/// ```
/// use linear_layout::encodings::Encoding;
/// use linear_layout::heuristics::convert::convert_cost;
/// use linear_layout::lower::PricedConversion;
/// use linear_layout::target::Target;
/// let from = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 2], warpsPerCTA = [1, 1], order = [1, 0]}>";
/// let to = "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [64, 1], warpsPerCTA = [1, 1], order = [1, 0]}>";
/// let (a, b): (Encoding, Encoding) = (from.parse()?, to.parse()?);
/// let (a, b) = (a.to_linear_layout(&[64, 2])?, b.to_linear_layout(&[64, 2])?);
/// let cost = convert_cost(&a, &b, 32, Target::by_name("gfx942")?)?;
/// let c = PricedConversion { line: 13, from: from.into(), to: to.into(), cost };
/// assert!(c.to_string().starts_with("line 13: ttg.convert_layout: #ttg.blocked"));
/// assert!(c.to_string().contains(": shuffle, "));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct PricedConversion {
    /// The line of the compiled input the convert was read from (0 for one the layout passes
    /// made, as most are).
    pub line: usize,
    /// The source layout, as written.
    pub from: String,
    /// The destination layout, as written.
    pub to: String,
    /// The price: kind, instructions per thread, LDS bytes, cycles.
    pub cost: ConvertCost,
}

impl fmt::Display for PricedConversion {
    /// One line: `line 12: ttg.convert_layout: #blocked -> #mma: lds, 24 instructions, 8192 LDS bytes, ~310 cycles`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let instructions: u64 = self.cost.instructions.values().sum();
        write!(
            f,
            "{}: {} -> {}: {}, {instructions} instructions, {} LDS bytes, ~{} cycles",
            op_place(self.line, "ttg.convert_layout"),
            self.from,
            self.to,
            self.cost.kind,
            self.cost.lds_bytes,
            self.cost.cycles
        )
    }
}

/// Prices every `ttg.convert_layout` of `module` on `target`.
fn price_conversions(module: &Module, target: &Target) -> Result<Vec<PricedConversion>, LowerError> {
    let layout = |ty: &ValueType| -> Result<_, LowerError> {
        let e = ty
            .encoding
            .as_ref()
            .ok_or_else(|| LowerError::new("a convert_layout of a value without a layout"))?;
        let ll = e
            .to_linear_layout(&ty.shape)
            .map_err(|err| LowerError::new(err.to_string()))?;
        Ok((e.to_string(), ll))
    };
    let mut out = Vec::new();
    for op in module.ops.iter().filter(|o| o.name == "ttg.convert_layout") {
        let (Some(&src), Some(&dst)) = (op.operands.first(), op.results.first()) else {
            continue;
        };
        let (src, dst) = (&module.values[src].ty, &module.values[dst].ty);
        let ((from, a), (to, b)) = (layout(src)?, layout(dst)?);
        // Pointers move as 64-bit values.
        let bits = element_bits(&src.element).unwrap_or(64);
        let cost = convert_cost(&a, &b, bits, target).map_err(|e| {
            LowerError::new(format!(
                "{}: {}",
                op_place(op.line, "ttg.convert_layout"),
                e.message()
            ))
        })?;
        out.push(PricedConversion {
            line: op.line,
            from,
            to,
            cost,
        });
    }
    Ok(out)
}

/// The graph of `text` with its layouts chosen by Triton's pipeline under `pass_opts` (a TTGIR
/// module's layouts taken off and chosen anew, or kept where that fails).
fn layouts_of(text: &str, pass_opts: &LayoutPassOptions) -> Result<Graph, LowerError> {
    let layouts_error = |e: &dyn fmt::Display| LowerError::new(format!("layouts: {e}"));
    let (read, module) = Graph::parse_inlined(text).map_err(|e| layouts_error(&e))?;
    let has_layouts = read.values.iter().any(|v| v.ty.encoding.is_some());
    let stripped = has_layouts
        .then(|| read.clone())
        .and_then(|mut g| strip_layouts(&mut g).then_some(g));
    let keep = || -> Result<Graph, LowerError> {
        let mut g = read;
        layout_pipeline(&mut g, &module, pass_opts).map_err(|e| layouts_error(&e))?;
        Ok(g)
    };
    let graph = if let Some(stripped) = stripped {
        // A TTGIR module: its layouts are chosen anew, for its own warps; where that fails,
        // its layouts are the passes' start.
        let mut anew = pass_opts.clone();
        anew.num_warps = stripped.num_warps;
        let warps = stripped.num_warps;
        let chosen = stripped
            .read_again()
            .map_err(|e| layouts_error(&e))
            .and_then(|(mut g, m)| {
                layout_pipeline(&mut g, &m, &anew).map_err(|e| layouts_error(&e))?;
                // Layouts that do not fit the module's warps do not read back.
                g.print_module().map_err(|e| layouts_error(&e))?;
                Ok(g)
            });
        match chosen {
            Ok(mut g) => {
                g.log.insert(
                    0,
                    format!("the module's layouts taken off: every layout chosen anew for its {warps} warps"),
                );
                g
            }
            Err(e) => {
                let mut g = keep()?;
                g.log.insert(
                    0,
                    format!("the module's layouts kept: choosing them anew failed ({e})"),
                );
                g
            }
        }
    } else {
        keep()?
    };
    Ok(graph)
}

/// Compiles `text` — TTIR without layouts, or TTGIR — for `target`: layouts chosen as
/// `opts.layouts` says, then lowered as `lower ttgir` lowers (see the module docs). An error
/// names the stage, the op and the line of `text` it was read from.
pub fn compile(text: &str, target: &'static Target, opts: &CompileOptions) -> Result<Compiled, LowerError> {
    let mut pass_opts = LayoutPassOptions::new(target.name);
    pass_opts.num_warps = opts.num_warps;
    let mut graph = layouts_of(text, &pass_opts)?;
    let mut changes = std::mem::take(&mut graph.log);
    let triton = price(&graph, target)?;
    let (priced, choices) = match opts.layouts {
        Layouts::Triton => (triton, Vec::new()),
        Layouts::Cost => {
            let triton_cost = triton.cost;
            let hoisted = changes.iter().any(|line| line.contains(HOISTED_TO_THE_LOADS));
            let (chosen, mut priced, mut choices) = choose(graph, triton, target)?;
            let mut log = chosen.log;
            // Where Triton hoists a dot operand's convert to the loads (the element-wise ops
            // between computed in the operand's layout, where MMA operands repeat across
            // lanes), the convert left by its dot is priced too.
            if hoisted {
                let mut by_dot = pass_opts.clone();
                by_dot.hoist_dot_operands = false;
                let alternative = layouts_of(text, &by_dot).and_then(|g| {
                    let base = price(&g, target)?;
                    choose(g, base, target)
                });
                if let Ok((g, p, c)) = alternative
                    && improves(&p.cost, &triton_cost)
                    && rank(&p.cost) < rank(&priced.cost)
                {
                    changes = g.log.clone();
                    changes.push(format!(
                        "the dot operands' converts left by their dots, not hoisted to their loads: {} against {}",
                        p.cost, priced.cost
                    ));
                    (log, priced, choices) = (Vec::new(), p, c);
                }
            }
            changes.extend(log);
            (priced, choices)
        }
    };
    let conversions = price_conversions(&priced.module, target)?;
    Ok(Compiled {
        ttgir: priced.ttgir,
        changes,
        conversions,
        choices,
        cost: priced.cost,
        kernel: priced.kernel,
    })
}
