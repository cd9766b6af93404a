//! Layouts chosen by cost: [`Layouts::Cost`](super::Layouts::Cost).
//!
//! Triton's layouts come from a greedy forward propagation and a fixed rule (`32 × bytes`
//! against the bytes recomputed) for each conversion it leaves. The cost mode starts from
//! them and asks, for every conversion left, whether one of its two layouts should take over
//! a whole region instead ([`LayoutMove`]: the source recomputed in the destination layout,
//! loads included, or the users sunk into the source layout). Every combination of moves is a
//! kernel; each is lowered and priced by [`kernel_cost`] (as built, before
//! [`passes::optimize`](super::passes::optimize)) — the cycles of the code it implies:
//! the conversions' LDS traffic, barriers and shuffles, the cache lines of every global
//! access (narrow or scattered accesses cost more lines), every instruction. The cheapest
//! combination whose shared memory fits the target's LDS wins, provided it executes no more
//! instructions per wave than Triton's layouts either; Triton's own layouts are one of the
//! combinations (no move), so the choice never costs more than them under the model.
//!
//! The assignment is exact — every combination priced — when a kernel has at most
//! [`EXACT_COMBINATIONS`] of them; past that, moves are taken greedily, the cheapest single
//! move at a time while one lowers the cost (a local optimum, documented as such), and at most
//! [`MAX_PRICED_KERNELS`] kernels are priced in all.
//!
//! A reduction's result stored through a conversion (argmax of 16 rows, one row per
//! register): Triton converts the 16 maxima to a blocked layout through LDS before storing;
//! storing them from the reduction's layout skips the round trip.
//!
//! ```
//! use linear_layout::lower::{compile, CompileOptions, Layouts};
//! use linear_layout::target::Target;
//! let ttir = r#"
//! module {
//!   tt.func public @rowmax(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
//!     %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
//!     %c = tt.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
//!     %rows = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
//!     %rr = tt.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
//!     %c128 = arith.constant dense<128> : tensor<16x1xi32>
//!     %ro = arith.muli %rr, %c128 : tensor<16x1xi32>
//!     %rb = tt.broadcast %ro : tensor<16x1xi32> -> tensor<16x128xi32>
//!     %cb = tt.broadcast %c : tensor<1x128xi32> -> tensor<16x128xi32>
//!     %o = arith.addi %rb, %cb : tensor<16x128xi32>
//!     %px = tt.splat %x : !tt.ptr<f32> -> tensor<16x128x!tt.ptr<f32>>
//!     %ax = tt.addptr %px, %o : tensor<16x128x!tt.ptr<f32>>, tensor<16x128xi32>
//!     %v = tt.load %ax : tensor<16x128x!tt.ptr<f32>>
//!     %m = "tt.reduce"(%v) <{axis = 1 : i32}> ({
//!     ^bb0(%a: f32, %b: f32):
//!       %s = arith.maxnumf %a, %b : f32
//!       tt.reduce.return %s : f32
//!     }) : (tensor<16x128xf32>) -> tensor<16xf32>
//!     %po = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
//!     %ao = tt.addptr %po, %rows : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
//!     tt.store %ao, %m : tensor<16x!tt.ptr<f32>>
//!     tt.return
//!   }
//! }"#;
//! let gfx942 = Target::by_name("gfx942")?;
//! let triton = compile(ttir, gfx942, &CompileOptions { layouts: Layouts::Triton, ..CompileOptions::new(4) })?;
//! let cost = compile(ttir, gfx942, &CompileOptions::new(4))?;
//! assert_eq!(triton.conversions.len(), 1); // the maxima go through LDS
//! assert!(cost.conversions.is_empty()); // stored where the reduction leaves them
//! assert!(cost.cost.cycles < triton.cost.cycles, "{} vs {}", cost.cost, triton.cost);
//! assert!(cost.choices[0].to_string().contains("sink"), "{}", cost.choices[0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::fmt;

use crate::heuristics::propagation::{LayoutMove, apply_layout_move, layout_moves};
use crate::target::Target;
use crate::ttgir::graph::{Graph, OpId};
use crate::ttgir::{Module, op_place};

use super::cost::{KernelCost, kernel_cost};
use super::error::LowerError;
use super::ir::Kernel;
use super::ttgir::built_kernel;

/// Most combinations of moves priced one by one; past it the moves are taken greedily.
///
/// ```
/// assert_eq!(linear_layout::lower::EXACT_COMBINATIONS, 81); // four converts, three ways each
/// ```
pub const EXACT_COMBINATIONS: usize = 81;

/// Most kernels lowered and priced for one compile: past it the search keeps the cheapest found
/// (the greedy search lowers a number of kernels quadratic in the conversions).
///
/// ```
/// use linear_layout::lower::{EXACT_COMBINATIONS, MAX_PRICED_KERNELS};
/// assert!(MAX_PRICED_KERNELS > EXACT_COMBINATIONS); // the exact search always completes
/// ```
pub const MAX_PRICED_KERNELS: usize = 160;

/// What the cost mode weighed for one conversion of Triton's layouts: each way it can go, with
/// the kernel's price when that way is taken alone (the others kept), and the way chosen in the
/// cheapest combination.
///
/// ```
/// use linear_layout::heuristics::propagation::LayoutMove;
/// use linear_layout::lower::{KernelCost, LayoutChoice};
/// let c = LayoutChoice {
///     line: 12,
///     from: "#a".into(),
///     to: "#b".into(),
///     options: vec![(None, Ok(KernelCost { cycles: 300, instructions: 40, lds_bytes: 512 })), (Some(LayoutMove::Sink), Ok(KernelCost { cycles: 120, instructions: 30, lds_bytes: 0 }))],
///     chosen: Some(LayoutMove::Sink),
/// };
/// assert_eq!(c.to_string(), "line 12: ttg.convert_layout: #a -> #b: keep ~300 cycles (512 LDS bytes), sink ~120 cycles (0 LDS bytes); chosen: sink");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutChoice {
    /// The line of the compiled input the convert was read from (0 for one the layout passes
    /// made).
    pub line: usize,
    /// Its source layout.
    pub from: String,
    /// Its destination layout.
    pub to: String,
    /// `None` keeps the convert; each option's kernel price, or why it could not be lowered or
    /// does not fit the LDS.
    pub options: Vec<(Option<LayoutMove>, Result<KernelCost, String>)>,
    /// The option of the cheapest combination.
    pub chosen: Option<LayoutMove>,
}

impl fmt::Display for LayoutChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} -> {}: ",
            op_place(self.line, "ttg.convert_layout"),
            self.from,
            self.to
        )?;
        for (k, (mv, cost)) in self.options.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            let name = mv.map_or("keep".to_string(), |m| m.to_string());
            match cost {
                Ok(c) => write!(f, "{name} ~{} cycles ({} LDS bytes)", c.cycles, c.lds_bytes)?,
                Err(e) => write!(f, "{name} not taken ({e})")?,
            }
        }
        let chosen = self.chosen.map_or("keep".to_string(), |m| m.to_string());
        write!(f, "; chosen: {chosen}")
    }
}

/// A priced kernel: its TTGIR (text and module), the kernel and its price.
pub(super) struct Priced {
    pub(super) ttgir: String,
    pub(super) module: Module,
    pub(super) kernel: Kernel,
    pub(super) cost: KernelCost,
}

/// Lowers and prices `g`; an error when it cannot be lowered or its LDS exceeds the target's.
pub(super) fn price(g: &Graph, target: &'static Target) -> Result<Priced, LowerError> {
    let (ttgir, module) = g
        .print_module()
        .map_err(|e| LowerError::new(format!("layouts: {e}")))?;
    let mut kernel = built_kernel(&module, target)?;
    let cost = kernel_cost(&kernel);
    super::passes::optimize(&mut kernel.program);
    if cost.lds_bytes > target.lds_bytes {
        return Err(LowerError::new(format!(
            "{} LDS bytes, more than the {} of {}",
            cost.lds_bytes, target.lds_bytes, target.name
        )));
    }
    Ok(Priced {
        ttgir,
        module,
        kernel,
        cost,
    })
}

/// The converts of `g` and the moves each may take, in walk order.
fn moves_by_convert(g: &Graph) -> Vec<(OpId, Vec<LayoutMove>)> {
    let mut out: Vec<(OpId, Vec<LayoutMove>)> = Vec::new();
    for (cvt, mv) in layout_moves(g) {
        match out.last_mut() {
            Some((c, mvs)) if *c == cvt => mvs.push(mv),
            _ => out.push((cvt, vec![mv])),
        }
    }
    out
}

/// `g` with the moves applied in order (`None` when one fails to apply cleanly).
fn with_moves(g: &Graph, moves: &[(OpId, LayoutMove)]) -> Option<Graph> {
    let mut h = g.clone();
    for &(cvt, mv) in moves {
        // A move an earlier one made moot leaves the same kernel as without it.
        apply_layout_move(&mut h, cvt, mv).ok()?;
    }
    Some(h)
}

/// A combination of moves, each on its convert, applied in order.
type Moves = Vec<(OpId, LayoutMove)>;

/// The search's state: the kernels priced so far (by their text) and the cheapest set of
/// moves cheaper than Triton's layouts.
struct Search<'a> {
    triton: &'a Graph,
    base: KernelCost,
    target: &'static Target,
    cache: HashMap<String, Result<KernelCost, String>>,
    /// The cheapest combination so far: its moves, its graph and its priced kernel.
    best: Option<(Moves, Graph, Priced)>,
    /// Kernels lowered so far (bounded by [`MAX_PRICED_KERNELS`]).
    priced: usize,
}

impl Search<'_> {
    /// Prices Triton's layouts with `moves` applied, keeping the cheapest.
    fn try_moves(&mut self, moves: Vec<(OpId, LayoutMove)>) -> Result<KernelCost, String> {
        if self.priced >= MAX_PRICED_KERNELS {
            return Err(format!("not priced: {MAX_PRICED_KERNELS} kernels priced already"));
        }
        self.priced += 1;
        let h = with_moves(self.triton, &moves).ok_or_else(|| "the move does not apply".to_string())?;
        let text = h.print().map_err(|e| e.to_string())?;
        if let Some(cost) = self.cache.get(&text) {
            // Priced before: kept then if it was the cheapest.
            return cost.clone();
        }
        let priced = price(&h, self.target).map_err(|e| e.to_string());
        let cost = priced.as_ref().map(|p| p.cost).map_err(Clone::clone);
        self.cache.insert(text, cost.clone());
        if let Ok(p) = priced
            && improves(&p.cost, &self.base)
            && self.best_cost().is_none_or(|b| rank(&p.cost) < rank(&b))
        {
            self.best = Some((moves, h, p));
        }
        cost
    }

    fn best_cost(&self) -> Option<KernelCost> {
        self.best.as_ref().map(|(_, _, p)| p.cost)
    }
}

/// The cost mode: Triton's layouts in `triton` (its graph and its priced kernel), the
/// combination of moves whose kernel is cheapest, and what was weighed per convert.
pub(super) fn choose(
    triton: Graph,
    base: Priced,
    target: &'static Target,
) -> Result<(Graph, Priced, Vec<LayoutChoice>), LowerError> {
    let per_convert = moves_by_convert(&triton);
    let mut search = Search {
        triton: &triton,
        base: base.cost,
        target,
        cache: HashMap::new(),
        best: None,
        priced: 0,
    };
    // Each move alone, for the explanation (and as the greedy search's first round).
    let mut choices = Vec::new();
    for (cvt, mvs) in &per_convert {
        let op = triton.op(*cvt);
        let layout = |v: usize| {
            triton
                .value(v)
                .ty
                .encoding
                .as_ref()
                .map_or_else(String::new, |e| e.to_string())
        };
        let mut options = vec![(None, Ok(base.cost))];
        for &mv in mvs {
            options.push((Some(mv), search.try_moves(vec![(*cvt, mv)])));
        }
        choices.push(LayoutChoice {
            line: op.line,
            from: layout(op.operands[0]),
            to: layout(op.results[0]),
            options,
            chosen: None,
        });
    }
    let combinations = per_convert
        .iter()
        .try_fold(1usize, |n, (_, mvs)| n.checked_mul(mvs.len() + 1));
    if combinations.is_some_and(|n| n <= EXACT_COMBINATIONS) {
        // Every combination: an odometer over each convert's options (0 keeps it).
        let mut picks = vec![0usize; per_convert.len()];
        'all: loop {
            let moves: Vec<(OpId, LayoutMove)> = per_convert
                .iter()
                .zip(&picks)
                .filter(|(_, p)| **p > 0)
                .map(|((cvt, mvs), &p)| (*cvt, mvs[p - 1]))
                .collect();
            if moves.len() > 1 {
                // A combination that does not lower is simply not a candidate.
                let _ = search.try_moves(moves);
            }
            for (k, (_, mvs)) in per_convert.iter().enumerate() {
                picks[k] += 1;
                if picks[k] <= mvs.len() {
                    continue 'all;
                }
                picks[k] = 0;
            }
            break;
        }
    } else {
        // Greedy: extend the best set by one move while that lowers the cost.
        for _ in 0..per_convert.len() {
            let Some((taken, before)) = search.best.as_ref().map(|(m, _, p)| (m.clone(), p.cost)) else {
                break;
            };
            for (cvt, mvs) in &per_convert {
                if taken.iter().any(|(c, _)| c == cvt) {
                    continue;
                }
                for &mv in mvs {
                    let mut moves = taken.clone();
                    moves.push((*cvt, mv));
                    // As above: a set that does not lower is not a candidate.
                    let _ = search.try_moves(moves);
                }
            }
            if search.best_cost() == Some(before) {
                break;
            }
        }
    }
    let Some((moves, g, priced)) = search.best else {
        return Ok((triton, base, choices));
    };
    for (choice, (cvt, _)) in choices.iter_mut().zip(&per_convert) {
        choice.chosen = moves.iter().find(|(c, _)| c == cvt).map(|&(_, m)| m);
    }
    Ok((g, priced, choices))
}

/// Whether `c` may replace Triton's layouts priced `base`: cheaper, and executing no more
/// instructions per wave either (the count kernels are measured by on the hardware), so a
/// choice never loses to Triton's layouts on either.
pub(super) fn improves(c: &KernelCost, base: &KernelCost) -> bool {
    rank(c) < rank(base) && c.cycles <= base.cycles && c.instructions <= base.instructions
}

/// The order of prices: cycles, then instructions, then LDS.
pub(super) fn rank(c: &KernelCost) -> (u64, u64, u64) {
    (c.cycles, c.instructions, c.lds_bytes)
}
