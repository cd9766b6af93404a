//! Data an op reads in another layout than its operand's: taken from the thread's own registers
//! where they hold it, converted first where they do not.
//!
//! `tt.expand_dims`, `tt.broadcast`, `tt.trans` and a reduction's result name each result
//! element's source element by a map `f` of coordinates (insert a dimension, zero a broadcast
//! one, permute, put the reduced axis back). Triton gives the result the layout that keeps every
//! element in the thread and register family that holds its source — a slice of the operand's
//! layout, the operand's layout permuted — and then nothing moves: register `r` of the result is
//! a register of the operand ([`Lowering::regather`]). A module may give any other layout
//! (`#ttg.linear` encodings are free to). The general path is a conversion first: the layout
//! `f ∘ dst` — each hardware bit of the result moved to the source coordinates it reads — is a
//! layout of the source tensor whose register `r` in thread `t` holds exactly what register `r`
//! of the result needs in thread `t`, so the conversion `src → f ∘ dst` (registers, lane moves
//! or LDS, as the cost model plans it) *is* the result.
//!
//! A scan walks its axis bit by bit: it needs each hardware bit that moves along the axis to
//! move along one bit of it, which a `#ttg.linear` basis `[0, 3]` (two of the axis's bits at
//! once) does not. For such an operand, [`axis_first_layout`] gives a layout that does: the
//! tensor's bits one per basis, the axis's first, in registers, then lanes and warps.
//!
//! # Worked example
//!
//! A 4×2 tensor over 2 registers and 4 lanes, registers along dim1 (`[0, 1]`) and lanes along
//! dim0; `tt.trans` to 2×4 with the result in the *same* layout shape (registers along the
//! result's dim1 = the source's dim0). Result register 1 of lane 0 is element (0, 1), source
//! element (1, 0): lane 1's register 0. `f ∘ dst` has the register basis `[1, 0]` and lane
//! bases `[0, 1]`, `[2, 0]` — a conversion that swaps a register bit with a lane bit.
//!
//! Law: for every register `r` and thread `t`, the value returned for `r` in `t` is the source
//! element `f(position of r in t under dst)`; the fast path and the conversion agree wherever
//! both apply (the interpreter checks it on `tests/lower_ttgir_relayout.rs`).

use std::collections::HashMap;

use super::data::{coords, flat};
use super::{Lowering, fail};
use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::Value;
use crate::lower::plan::convert;
use crate::lower::plan::dist::Dist;
use crate::ttgir::Op;

impl Lowering<'_> {
    /// Registers of the result's layout `dst` from `values` (registers of `src`): result element
    /// `e` is source element `f(e)`. Taken from the thread's own registers where they hold it,
    /// else through a conversion to `f ∘ dst`.
    pub(super) fn regather(
        &mut self,
        op: &Op,
        (src, values): (&Dist, &[Value]),
        dst: &Dist,
        f: impl Fn(&[u64]) -> Vec<u64>,
    ) -> Result<Vec<Value>, LowerError> {
        if let Some(in_thread) = in_thread(src, values, dst, &f) {
            return Ok(in_thread);
        }
        // The source dimensions some hardware bit moves along: a reduction's collapsed axis
        // is no dimension of either layout.
        let kept: Vec<usize> = (0..src.dim_bits.len())
            .filter(|&d| src.reg.iter().chain(&src.thread).any(|&c| src.coord(c, d) != 0))
            .collect();
        let dim_bits: Vec<u32> = kept.iter().map(|&d| src.dim_bits[d]).collect();
        let project = |c: &[u64]| -> Vec<u64> { kept.iter().map(|&d| c[d]).collect() };
        let shape = Dist {
            dim_bits: dim_bits.clone(),
            reg: Vec::new(),
            thread: Vec::new(),
            lane_bits: src.lane_bits,
        };
        let through = |columns: &[u64], of: &Dist, map: &dyn Fn(&[u64]) -> Vec<u64>| -> Vec<u64> {
            columns
                .iter()
                .map(|&c| flat(&shape, &project(&map(&coords(of, c)))))
                .collect()
        };
        let identity = |c: &[u64]| c.to_vec();
        let from = Dist {
            dim_bits: dim_bits.clone(),
            reg: through(&src.reg, src, &identity),
            thread: through(&src.thread, src, &identity),
            lane_bits: src.lane_bits,
        };
        let to = Dist {
            dim_bits,
            reg: through(&dst.reg, dst, &f),
            thread: through(&dst.thread, dst, &f),
            lane_bits: dst.lane_bits,
        };
        let (Ok(from), Ok(to)) = (from.layout(), to.layout()) else {
            return fail(op, "the result's layout is no layout of the operand's elements");
        };
        let bits = values.first().map_or(32, |&v| self.p.value_bits(v));
        convert::registers(&mut self.p, &from, &to, values, bits, self.target)
    }
}

/// The registers of `dst` taken from the thread's own registers of `src`, where every thread
/// holds what its result registers need (`f` maps each thread bit to the same source bit).
fn in_thread(
    src: &Dist,
    values: &[Value],
    dst: &Dist,
    f: &impl Fn(&[u64]) -> Vec<u64>,
) -> Option<Vec<Value>> {
    let same_threads = src.thread.len() == dst.thread.len()
        && src
            .thread
            .iter()
            .zip(&dst.thread)
            .all(|(&s, &d)| coords(src, s) == f(&coords(dst, d)));
    if !same_threads {
        return None;
    }
    let mut at = HashMap::new();
    for r in (0..src.registers()).rev() {
        at.insert(src.reg_position(r), r);
    }
    (0..dst.registers())
        .map(|r| {
            let e = f(&coords(dst, dst.reg_position(r)));
            let s = *at.get(&flat(src, &e))?;
            (coords(src, flat(src, &e)) == e).then(|| values[s])
        })
        .collect()
}

/// A layout of `s`'s tensor over `s`'s threads in which every hardware bit moves one tensor
/// bit: the axis's bits first, then the other dimensions', the last dimension first; the first
/// of them in registers (as many as the threads leave), the next in lanes, then warps. Threads
/// beyond the tensor's bits hold copies.
pub(super) fn axis_first_layout(s: &Dist, axis: usize) -> Result<LinearLayout, LowerError> {
    let offset = |d: usize| -> u32 { s.dim_bits[..d].iter().sum() };
    let axis_bits = (0..s.dim_bits[axis]).map(|b| 1u64 << (offset(axis) + b));
    let others = (0..s.dim_bits.len())
        .rev()
        .filter(|&d| d != axis)
        .flat_map(|d| (0..s.dim_bits[d]).map(move |b| 1u64 << (offset(d) + b)));
    let bits: Vec<u64> = axis_bits.chain(others).collect();
    let in_registers = bits.len().saturating_sub(s.thread.len());
    let mut thread: Vec<u64> = bits[in_registers..].to_vec();
    thread.resize(s.thread.len(), 0);
    Dist {
        dim_bits: s.dim_bits.clone(),
        reg: bits[..in_registers].to_vec(),
        thread,
        lane_bits: s.lane_bits,
    }
    .layout()
}
