//! Hoisting a convert into one branch of an `scf.if` (Triton's `hoistConvertIntoConditionals`):
//! when the value a convert needs can be recomputed in the destination layout along one branch
//! but not the other, the convert moves into the other branch, where it runs only when that
//! branch is taken.
//!
//! ```text
//! scf.for … iter_args(%acc = %init) {
//!   %v = scf.if %c { %l = tt.load …; scf.yield %l } else { scf.yield %acc }
//!   %d = ttg.convert_layout %v : #blocked -> #dot
//! ```
//!
//! The load cannot be made in `#dot` cheaply, the loop-carried `%acc` can: the convert goes
//! right before the then-branch's yield, the branch gets a `#dot` result and the loop a `#dot`
//! iteration argument, and `%d` becomes that result. Only branches directly inside a loop are
//! hoisted into (a branch runs at most as often as its loop's body, so the convert is cheaper
//! there); a branch neither side of which can be recomputed ends the slice with a convert of
//! its result.

use std::collections::HashMap;

use crate::ttgir::graph::{Def, Graph, OpId, ValueId};

use super::PassError;
use super::remat::{Remat, Slice};

impl Remat {
    /// Triton's `hoistConvertIntoConditionals` for the convert `cvt` (see the module docs).
    pub(super) fn hoist_into_conditionals(&mut self, g: &mut Graph, cvt: OpId) -> Result<(), PassError> {
        let Some(target) = g.encoding(g.ops[cvt].results[0]).cloned() else {
            return Ok(());
        };
        let is_if = |g: &Graph, op: OpId| g.ops[op].name == "scf.if";
        let Some(mut slice) = self.remat_slice(g, cvt, 0, &target, &is_if) else {
            return Ok(());
        };
        // (branch result, yield of the branch to hoist into, result index).
        let mut hoist_above: Vec<(ValueId, OpId, usize)> = Vec::new();
        let mut terminals: Vec<ValueId> = Vec::new();
        // The slice grows as branches are merged into it: its length is read each time.
        let mut i = 0;
        while let Some(&v) = slice.values.get(i) {
            i += 1;
            let Def::Result { op: branch, index } = g.values[v].def else {
                continue;
            };
            if g.ops[branch].name != "scf.if" {
                continue;
            }
            let (Some(then_yield), Some(else_yield)) = (yield_of(g, branch, 0), yield_of(g, branch, 1))
            else {
                terminals.push(v);
                continue;
            };
            let Some(root) = slice.layout.get(&v).cloned() else {
                continue;
            };
            let then_slice = self.remat_slice(g, then_yield, index, &root, &is_if);
            let else_slice = self.remat_slice(g, else_yield, index, &root, &is_if);
            let in_loop = g.parent_op(branch).is_some_and(|p| g.ops[p].name == "scf.for");
            match (then_slice, else_slice) {
                (Some(t), Some(e)) => {
                    merge(&mut slice, t);
                    merge(&mut slice, e);
                }
                (Some(t), None) if in_loop => {
                    hoist_above.push((v, else_yield, index));
                    merge(&mut slice, t);
                }
                (None, Some(e)) if in_loop => {
                    hoist_above.push((v, then_yield, index));
                    merge(&mut slice, e);
                }
                _ => terminals.push(v),
            }
        }
        if hoist_above.is_empty() {
            return Ok(());
        }
        let mut mapping: HashMap<ValueId, ValueId> = HashMap::new();
        for v in terminals {
            let Some(enc) = slice.layout.get(&v).cloned() else {
                continue;
            };
            let c = g.insert_convert(g.after_value(v), v, enc);
            mapping.insert(v, c);
            slice.values.retain(|&x| x != v);
        }
        for (result, y, k) in hoist_above {
            let (Some(enc), Some(&yielded)) = (slice.layout.get(&result).cloned(), g.ops[y].operands.get(k))
            else {
                continue;
            };
            let c = g.insert_convert(g.position(y), yielded, enc);
            mapping.insert(yielded, c);
            slice.values.retain(|&x| x != yielded);
        }
        self.rewrite_slice(g, &mut slice, cvt, &mut mapping)
    }
}

/// The `scf.yield` ending region `r` (0: then, 1: else) of the branch `op`.
fn yield_of(g: &Graph, op: OpId, r: usize) -> Option<OpId> {
    let b = *g.ops[op].regions.get(r)?.first()?;
    let y = *g.blocks[b].ops.last()?;
    (g.ops[y].name == "scf.yield").then_some(y)
}

/// Adds `other`'s values to `slice` after its own; a value already there keeps its layout.
fn merge(slice: &mut Slice, other: Slice) {
    for v in other.values {
        if !slice.values.contains(&v) {
            slice.values.push(v);
        }
    }
    for (v, e) in other.layout {
        slice.layout.entry(v).or_insert(e);
    }
}
