//! Layout moves: the two ways a conversion Triton's layouts leave can go, which a cost model
//! (not Triton's fixed `32 × bytes` rule) decides between.
//!
//! A `ttg.convert_layout` sits between a value made in one layout and users that want another.
//! Triton keeps it when its source is an anchor (a load it coalesced, a reduction) or when its
//! rule says recomputing costs more. Two moves take it away, each choosing one of the two
//! layouts the convert already names for a whole region of the kernel:
//!
//! * [`LayoutMove::Recompute`] — the *destination* layout moves up: the source and the ops
//!   behind it are made in it directly, loads included (a load in its user's layout: narrower or
//!   more scattered accesses instead of the round trip through shared memory).
//! * [`LayoutMove::Sink`] — the *source* layout moves down: the users that follow their
//!   operands' layout (element-wise ops, loads, stores, atomics) take the source layout, views
//!   it crosses (a reshape, a transpose, a split) what it becomes through them, and their other
//!   operands are converted, then rematerialised as Triton does (a pointer tensor made of a
//!   splat and a range costs nothing to make again).
//!
//! ```text
//!   %s = tt.reduce … : #slice               %s = tt.reduce … : #slice
//!   %c = convert %s : #slice -> #blocked      tt.store %p', %s : #slice     (Sink)
//!   tt.store %p, %c : #blocked
//! ```
//!
//! Each move is exact (the kernel computes the same values); which one is cheaper depends on
//! the code each implies, which the lowering knows — `lower::compile` prices every combination.
//!
//! ```
//! use linear_layout::heuristics::propagation::{apply_layout_move, layout_moves, LayoutMove};
//! use linear_layout::ttgir::graph::Graph;
//! let text = r#"
//! #a = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
//! #b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
//! module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
//!   tt.func @k(%p: !tt.ptr<f32>) {
//!     %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #a>
//!     %s = tt.splat %p : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>, #a>
//!     %q = tt.addptr %s, %r : tensor<256x!tt.ptr<f32>, #a>, tensor<256xi32, #a>
//!     %x = tt.load %q : tensor<256x!tt.ptr<f32>, #a>
//!     %c = ttg.convert_layout %x : tensor<256xf32, #a> -> tensor<256xf32, #b>
//!     %r2 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #b>
//!     %s2 = tt.splat %p : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>, #b>
//!     %q2 = tt.addptr %s2, %r2 : tensor<256x!tt.ptr<f32>, #b>, tensor<256xi32, #b>
//!     %y = arith.addf %c, %c : tensor<256xf32, #b>
//!     tt.store %q2, %y : tensor<256x!tt.ptr<f32>, #b>
//!     tt.return
//!   }
//! }"#;
//! let g = Graph::parse(text)?;
//! let moves = layout_moves(&g);
//! assert_eq!(moves.len(), 2); // the one convert can go either way
//! for (cvt, mv) in moves {
//!     let mut h = g.clone();
//!     assert!(apply_layout_move(&mut h, cvt, mv)?);
//!     let out = h.print()?;
//!     assert!(!out.contains("convert_layout"), "{mv}: {out}");
//!     // Sink keeps the load's layout (#a) for the add and the store; Recompute loads in #b.
//!     let kept = if mv == LayoutMove::Sink { "#a" } else { "#b" };
//!     assert!(out.contains(&format!("arith.addf")) && out.contains("tt.store"), "{out}");
//!     assert!(out.contains(&format!("tensor<256xf32, {kept}>")), "{mv}: {out}");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use crate::encodings::Encoding;
use crate::ttgir::graph::{Graph, OpId, ValueId};

use super::forward::func_walk;
use super::ops::{infer_dst, is_elementwise};
use super::remat::Remat;
use super::{MAX_REMAT_ROUNDS, PassError, bounded, cleanup, rematerialise};

/// Which of a convert's two layouts takes over (see the module docs).
///
/// ```
/// use linear_layout::heuristics::propagation::LayoutMove;
/// assert_eq!(LayoutMove::Sink.to_string(), "sink");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum LayoutMove {
    /// The source and the ops behind it are made in the destination layout.
    Recompute,
    /// The users that follow their operands' layout take the source layout.
    Sink,
}

impl fmt::Display for LayoutMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LayoutMove::Recompute => "recompute",
            LayoutMove::Sink => "sink",
        })
    }
}

/// Every convert of `g` with each move that applies to it, in walk order.
///
/// A move applies when the convert's layouts are both distributed (not a dot operand's
/// destination for [`LayoutMove::Sink`]: a dot needs its operand layout) and the region it
/// would rewrite exists: for `Recompute`, a source every op behind which can be made in the
/// destination layout (loads included; not a dot, an atomic or a loop result); for `Sink`, at
/// least one user that follows its operands' layout.
///
/// ```
/// use linear_layout::heuristics::propagation::layout_moves;
/// use linear_layout::ttgir::graph::Graph;
/// let g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    tt.return\n  }\n}")?;
/// assert!(layout_moves(&g).is_empty());
/// # Ok::<(), linear_layout::ttgir::TtgirError>(())
/// ```
pub fn layout_moves(g: &Graph) -> Vec<(OpId, LayoutMove)> {
    let mut out = Vec::new();
    if bounded(g).is_err() {
        return out;
    }
    for f in 0..g.funcs.len() {
        for cvt in func_walk(g, f) {
            if g.ops[cvt].name != "ttg.convert_layout" {
                continue;
            }
            let (src, dst) = (g.ops[cvt].operands[0], g.ops[cvt].results[0]);
            let (Some(from), Some(to)) = (g.encoding(src).cloned(), g.encoding(dst).cloned()) else {
                continue;
            };
            if Remat::moving_loads()
                .remat_slice(g, cvt, 0, &to, &|_, _| false)
                .is_some()
            {
                out.push((cvt, LayoutMove::Recompute));
            }
            if !matches!(*to, Encoding::DotOperand(_))
                && !matches!(*from, Encoding::DotOperand(_))
                && !sink_region(g, dst, &from).is_empty()
            {
                out.push((cvt, LayoutMove::Sink));
            }
        }
    }
    out
}

/// Applies `mv` to the convert `cvt` (an op of [`layout_moves`]), then removes the converts
/// the move leaves that Triton's rematerialisation removes; false when the move does not apply
/// (any more: an earlier move took the convert away).
///
/// ```
/// use linear_layout::heuristics::propagation::{apply_layout_move, LayoutMove};
/// use linear_layout::ttgir::graph::Graph;
/// let mut g = Graph::parse("module {\n  tt.func @f(%a: i32) {\n    %b = arith.addi %a, %a : i32\n    tt.return\n  }\n}")?;
/// let add = g.find_op("arith.addi").unwrap();
/// assert!(!apply_layout_move(&mut g, add, LayoutMove::Sink)?); // not a convert
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn apply_layout_move(g: &mut Graph, cvt: OpId, mv: LayoutMove) -> Result<bool, PassError> {
    bounded(g)?;
    if g.ops
        .get(cvt)
        .is_none_or(|o| o.erased || o.name != "ttg.convert_layout")
    {
        return Ok(false);
    }
    let applied = match mv {
        LayoutMove::Recompute => recompute(g, cvt)?,
        LayoutMove::Sink => sink(g, cvt)?,
    };
    if applied {
        cleanup::canonicalize(g, cleanup::Patterns::Converts);
        rematerialise(g, MAX_REMAT_ROUNDS)?;
        cleanup::canonicalize(g, cleanup::Patterns::Final);
    }
    Ok(applied)
}

/// [`LayoutMove::Recompute`]: the convert's backward slice remade in its destination layout.
fn recompute(g: &mut Graph, cvt: OpId) -> Result<bool, PassError> {
    let Some(to) = g.encoding(g.ops[cvt].results[0]).cloned() else {
        return Ok(false);
    };
    let mut remat = Remat::moving_loads();
    let Some(mut slice) = remat.remat_slice(g, cvt, 0, &to, &|_, _| false) else {
        return Ok(false);
    };
    g.note(
        cvt,
        format_args!(
            "removed: {} values made in the destination layout instead (cost mode)",
            slice.values.len()
        ),
    );
    remat.rewrite_slice(g, &mut slice, cvt, &mut HashMap::new())?;
    remat.cleanup(g);
    Ok(true)
}

/// Whether `op` follows the layout of its tensor operands, all of `shape` and in `enc`: an
/// element-wise op, a load, a store or an atomic.
fn follows(g: &Graph, op: OpId, shape: &[u64], enc: &Arc<Encoding>) -> bool {
    let o = &g.ops[op];
    let kind = is_elementwise(&o.name)
        || matches!(
            o.name.as_str(),
            "tt.load" | "tt.store" | "tt.atomic_rmw" | "tt.atomic_cas"
        );
    kind && o.regions.is_empty()
        && o.operands
            .iter()
            .chain(&o.results)
            .all(|&v| !g.is_tensor(v) || (g.values[v].ty.shape == shape && g.encoding(v) == Some(enc)))
}

/// An op [`LayoutMove::Sink`] rewrites: the layout its tensor operands take and the one its
/// tensor results get.
struct Sunk {
    op: OpId,
    operands: Arc<Encoding>,
    results: Arc<Encoding>,
}

/// Views whose result layout follows their one tensor operand's (Triton's `inferDstEncoding`).
fn is_view(name: &str) -> bool {
    matches!(name, "tt.reshape" | "tt.trans" | "tt.split" | "tt.expand_dims")
}

/// The ops [`LayoutMove::Sink`] rewrites when `v` takes the layout `to`: those following their
/// operands' layout from `v`'s users on — element-wise ops, loads, stores, atomics, and views
/// the layout crosses (a reshape, a transpose, a split) — in walk order, each with its layouts.
fn sink_region(g: &Graph, v: ValueId, to: &Arc<Encoding>) -> Vec<Sunk> {
    let mut layouts: HashMap<OpId, (Arc<Encoding>, Arc<Encoding>)> = HashMap::new();
    let mut stack = vec![(v, to.clone())];
    while let Some((x, new)) = stack.pop() {
        let Some(old) = g.encoding(x).cloned() else {
            continue;
        };
        let shape = g.values[x].ty.shape.clone();
        for (u, _) in g.uses(x) {
            if layouts.contains_key(&u) {
                continue;
            }
            let o = &g.ops[u];
            let result = if follows(g, u, &shape, &old) {
                Some(new.clone())
            } else if is_view(&o.name) && o.operands.iter().filter(|&&w| g.is_tensor(w)).count() == 1 {
                infer_dst(g, u, &new)
            } else {
                None
            };
            let Some(result) = result else { continue };
            layouts.insert(u, (new.clone(), result.clone()));
            stack.extend(
                o.results
                    .iter()
                    .filter(|&&r| g.is_tensor(r))
                    .map(|&r| (r, result.clone())),
            );
        }
    }
    let mut out = Vec::new();
    for f in 0..g.funcs.len() {
        for op in func_walk(g, f) {
            if let Some((operands, results)) = layouts.remove(&op) {
                out.push(Sunk {
                    op,
                    operands,
                    results,
                });
            }
        }
    }
    out
}

/// [`LayoutMove::Sink`]: the users following the convert's result are made again in its
/// source layout (views in what it becomes through them); operands from outside the region
/// are converted to the layout an op takes, results used outside converted back.
fn sink(g: &mut Graph, cvt: OpId) -> Result<bool, PassError> {
    let (src, dst) = (g.ops[cvt].operands[0], g.ops[cvt].results[0]);
    let Some(from) = g.encoding(src).cloned() else {
        return Ok(false);
    };
    let region = sink_region(g, dst, &from);
    if region.is_empty() {
        return Ok(false);
    }
    g.note(
        cvt,
        format_args!(
            "removed: {} users made in the source layout instead (cost mode)",
            region.len()
        ),
    );
    let in_region: HashSet<OpId> = region.iter().map(|s| s.op).collect();
    let mut map: HashMap<ValueId, ValueId> = HashMap::from([(dst, src)]);
    for sunk in &region {
        let op = sunk.op;
        let mut operands = Vec::new();
        for v in g.ops[op].operands.clone() {
            let mapped = map.get(&v).copied();
            let new = match mapped {
                Some(m) if !g.is_tensor(m) || g.encoding(m) == Some(&sunk.operands) => m,
                _ if g.is_tensor(v) => {
                    let at = g.position(op);
                    g.insert_convert(at, mapped.unwrap_or(v), sunk.operands.clone())
                }
                _ => v,
            };
            operands.push(new);
        }
        let types = g.ops[op]
            .results
            .iter()
            .map(|&r| {
                let mut t = g.values[r].ty.clone();
                if g.is_tensor(r) {
                    t.encoding = Some(sunk.results.clone());
                }
                t
            })
            .collect();
        let at = g.position(op);
        let new = g.insert_like(op, at, operands, types);
        for (k, r) in g.ops[op].results.clone().into_iter().enumerate() {
            let nr = g.ops[new].results[k];
            map.insert(r, nr);
            let outside: Vec<(OpId, usize)> = g
                .uses(r)
                .into_iter()
                .filter(|(u, _)| !in_region.contains(u))
                .collect();
            if outside.is_empty() {
                continue;
            }
            let back = match g.encoding(r).cloned() {
                Some(old) if g.is_tensor(r) => {
                    let at = g.position(op);
                    g.insert_convert(at, nr, old)
                }
                _ => nr,
            };
            for (u, k) in outside {
                g.ops[u].operands[k] = back;
            }
        }
    }
    for sunk in region.iter().rev() {
        g.erase_op(sunk.op);
    }
    if g.uses(dst).is_empty() {
        g.erase_op(cvt);
    }
    Ok(true)
}
