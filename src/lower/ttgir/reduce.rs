//! `tt.reduce`: combining a tensor along one axis, as its layout spreads that axis.
//!
//! Each register, lane and warp bit of the layout either moves along the reduced axis or not
//! (a bit that moves along it and another dimension at once is refused). The reduction runs in
//! three tiers, each only where the layout puts part of the axis:
//!
//! 1. **in the thread**: registers that differ only in bits along the axis are combined;
//! 2. **across lanes**: for each lane bit along the axis, lowest first, a butterfly step —
//!    every lane combines its value with that of a partner lane: the one whose id differs in
//!    that bit, reached by a DPP move inside a row of 16 (quad permutes; `row_xmask` on RDNA;
//!    on gfx9 the half-row and row mirrors, which pair each lane with one of the other half
//!    once the lower bits are reduced) or by `ds_bpermute` beyond a row. Both lanes compute
//!    `op(a, b)` and `op(b, a)`, equal for the commutative ops allowed, so every lane ends with
//!    the same value;
//! 3. **across warps**: each thread writes its partial results to LDS, a barrier, then each
//!    thread reads the partials of every warp along the axis and combines them in the order of
//!    the warp index — the same order in every warp, so the copies agree.
//!
//! The result holds, in every thread, the reduction of each element it kept; it is the slice
//! layout of the result without moving data.
//!
//! # Worked example
//!
//! A row sum of a 64×64 f32 tile in `blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16],
//! warpsPerCTA = [4, 1]}>` on a 64-lane wave: registers 0–1 (columns 1, 2) and lanes 0–3
//! (columns 4…32) run along the rows; lane bits 4–5 and the warps along the columns. Each
//! thread adds its 4 registers per row (3 adds for each of its 4 rows), then 4 butterfly steps
//! over lane bits 0–3 (a DPP move and an add each, per row, which LLVM fuses into one
//! `v_add_*_dpp`); no warp holds part of a row, so LDS is not used.

use super::data::coords;
use super::{Lowering, fail};
use crate::lower::error::LowerError;
use crate::lower::ir::XorMap;
use crate::lower::ir::{ArithOp, DppCtrl, Op as ProgramOp, Program, Value};
use crate::lower::plan::dist::Dist;
use crate::target::Target;
use crate::ttgir::Op;

/// The combining operation of a reduce body: one commutative op on its two block arguments,
/// returned.
fn combiner(m: &crate::ttgir::Module, op: &Op) -> Option<ArithOp> {
    let [first, ret] = op.body.as_slice() else {
        return None;
    };
    let (f, r) = (&m.ops[*first], &m.ops[*ret]);
    let args = op.block_args.as_slice();
    let commutative = match f.name.as_str() {
        "arith.addf" | "arith.addi" => ArithOp::Add,
        "arith.mulf" | "arith.muli" => ArithOp::Mul,
        "arith.maxnumf" | "arith.maxsi" => ArithOp::Max,
        "arith.minnumf" | "arith.minsi" => ArithOp::Min,
        _ => return None,
    };
    let uses_both =
        args.len() == 2 && (f.operands.as_slice() == args || f.operands.iter().rev().eq(args.iter()));
    (uses_both && r.name == "tt.reduce.return" && r.operands == f.results).then_some(commutative)
}

/// How a butterfly step over lane bit `bit` reaches its partner lane, when the lane bits in
/// `reduced` already hold combined values: a DPP move within a row where one does (quad
/// permutes for bits 0 and 1; the mirrors, which pair the right lanes once the bits below are
/// reduced; else `row_xmask` where the target has it), `ds_bpermute` otherwise.
fn partner(bit: usize, reduced: &[bool], target: &Target) -> Option<DppCtrl> {
    let below = reduced.iter().take(bit).all(|&r| r);
    match bit {
        0 => Some(DppCtrl::QuadPerm([1, 0, 3, 2])),
        1 => Some(DppCtrl::QuadPerm([2, 3, 0, 1])),
        2 if below => Some(DppCtrl::RowHalfMirror),
        3 if below => Some(DppCtrl::RowMirror),
        2 | 3 if target.instructions.permlane16 => Some(DppCtrl::RowXmask(1 << bit)),
        _ => None,
    }
    .filter(|_| target.instructions.dpp)
}

/// `v`'s value in the partner lane of a butterfly step over lane bit `bit` (32-bit pieces).
fn lane_xor(p: &mut Program, v: Value, bit: usize, dpp: Option<DppCtrl>) -> Result<Value, LowerError> {
    let threads = p.thread_bits();
    let lane = XorMap {
        cols: (0..threads).map(|k| 1u64 << k).collect(),
        constant: 1 << bit,
    };
    let bits = p.value_bits(v);
    let permute = |p: &mut Program, src: Value| {
        let dst = p.value(32);
        p.ops.push(match dpp {
            Some(ctrl) => ProgramOp::Dpp { dst, src, ctrl },
            None => ProgramOp::Bpermute {
                dst,
                src,
                lane: lane.clone(),
            },
        });
        dst
    };
    match bits {
        32 => Ok(permute(p, v)),
        64 => {
            let halves = p.values_of(2, 32);
            p.ops.push(ProgramOp::Unpack {
                dst: halves.clone(),
                src: v,
            });
            let moved: Vec<Value> = halves.iter().map(|&h| permute(p, h)).collect();
            let dst = p.value(64);
            p.ops.push(ProgramOp::Pack { dst, parts: moved });
            Ok(dst)
        }
        _ => Err(LowerError::new(format!(
            "reductions across lanes of {bits}-bit elements are not lowered yet"
        ))),
    }
}

impl Lowering<'_> {
    /// `tt.reduce` of one operand along `axis` with an add/mul/max/min body.
    pub(super) fn reduce(&mut self, op: &Op) -> Result<(), LowerError> {
        let Some(combine) = combiner(self.m, op) else {
            return fail(
                op,
                "a reduce body other than one add, mul, max or min of its two arguments is not lowered yet",
            );
        };
        let ([src], [r]) = (op.operands.as_slice(), op.results.as_slice()) else {
            return fail(op, "reductions of several operands are not lowered yet");
        };
        let (src, r) = (*src, *r);
        let ty = super::data::numeric_type(&self.m.values[r].ty.element)
            .filter(|t| combine.applies_to(t))
            .map_or_else(|| fail(op, "reduces elements of a type that is not lowered"), Ok)?;
        let rank = self.rank(src);
        let axis = self.axis(op, rank)?;
        if self.rank(r) + 1 != rank {
            return fail(op, "the result's rank is not one less than the operand's");
        }
        let (layout, values) = self.typed_data(op, src)?;
        let s = Dist::of(&layout, self.target.wave_size)?;
        // Which columns run along the axis.
        let along = |c: u64| -> Result<bool, LowerError> {
            let k = coords(&s, c);
            let on_axis = k[axis] != 0;
            let elsewhere = k.iter().enumerate().any(|(d, &x)| d != axis && x != 0);
            if on_axis && elsewhere {
                return fail(
                    op,
                    "a layout bit moving along the reduced axis and another at once is not lowered yet",
                );
            }
            Ok(on_axis)
        };
        let reg_along = s
            .reg
            .iter()
            .map(|&c| along(c))
            .collect::<Result<Vec<bool>, _>>()?;
        let thread_along = s
            .thread
            .iter()
            .map(|&c| along(c))
            .collect::<Result<Vec<bool>, _>>()?;
        let axis_regs: usize = reg_along
            .iter()
            .enumerate()
            .filter(|&(_, &a)| a)
            .fold(0, |m, (i, _)| m | 1 << i);
        let bits = self.bits(op, src)?;
        let arith = |p: &mut Program, a: Value, b: Value| {
            let dst = p.value(bits);
            p.ops.push(ProgramOp::Arith {
                op: combine,
                ty,
                dst,
                src: vec![a, b],
            });
            dst
        };
        // 1. In the thread: per kept register, its group in ascending order.
        let distinct = s.distinct_mask();
        let kept: Vec<usize> = (0..s.registers())
            .filter(|&r| r & axis_regs == 0 && r & !distinct == 0)
            .collect();
        let mut partial: Vec<Value> = Vec::with_capacity(kept.len());
        for &k in &kept {
            let mut acc = values[k];
            for g in 1..s.registers() {
                if g & !axis_regs == 0 && g & !distinct == 0 {
                    acc = arith(&mut self.p, acc, values[k | g]);
                }
            }
            partial.push(acc);
        }
        // 2. Across lanes: butterflies, lowest bit first.
        let mut reduced = vec![false; s.lane_bits];
        for bit in 0..s.lane_bits {
            if thread_along[bit] {
                let dpp = partner(bit, &reduced, self.target);
                for v in partial.iter_mut() {
                    let other = lane_xor(&mut self.p, *v, bit, dpp)?;
                    *v = arith(&mut self.p, *v, other);
                }
                reduced[bit] = true;
            }
        }
        // 3. Across warps: through LDS, combined in warp order.
        let warp_bits: Vec<usize> = (s.lane_bits..s.thread.len())
            .filter(|&b| thread_along[b])
            .collect();
        if !warp_bits.is_empty() {
            partial = self.across_warps(&s, &warp_bits, &partial, bits, |p, a, b| arith(p, a, b))?;
        }
        // The reduced tensor: the source layout with the axis collapsed, then its slice.
        let mut reduced = s.clone();
        for (c, a) in reduced.reg.iter_mut().zip(&reg_along) {
            if *a {
                *c = 0;
            }
        }
        for (c, a) in reduced.thread.iter_mut().zip(&thread_along) {
            if *a {
                *c = 0;
            }
        }
        let full: Vec<Value> = (0..s.registers())
            .map(|r| {
                let k = r & !axis_regs & distinct;
                kept.iter()
                    .position(|&x| x == k)
                    .map_or(partial[0], |i| partial[i])
            })
            .collect();
        let dst = self.layout(op, r)?;
        let d = Dist::of(&dst, self.target.wave_size)?;
        let result = self.regather(op, (&reduced, &full), &d, |c| {
            let mut e = c.to_vec();
            e.insert(axis, 0);
            e
        })?;
        self.define_data(op, dst, result)
    }

    /// Combines `partial` over the warp bits `warp_bits`: each thread writes its values to
    /// its own LDS slots, a barrier, and every thread reads the slots of the threads that
    /// differ from it only in those bits, in ascending order.
    fn across_warps(
        &mut self,
        s: &Dist,
        warp_bits: &[usize],
        partial: &[Value],
        bits: u32,
        mut combine: impl FnMut(&mut Program, Value, Value) -> Value,
    ) -> Result<Vec<Value>, LowerError> {
        let bytes = u64::from(bits / 8);
        let threads = 1u64 << s.thread.len();
        let size = partial.len() as u64 * threads * bytes;
        let base = self.lds_top.div_ceil(size.next_power_of_two()) * size.next_power_of_two();
        self.lds_top = base + size;
        if self.lds_top > self.target.lds_bytes {
            return Err(LowerError::new(format!(
                "the reduction needs {} bytes of LDS; {} has {}",
                self.lds_top, self.target.name, self.target.lds_bytes
            )));
        }
        self.p.lds_bytes = self.p.lds_bytes.max(self.lds_top);
        let slot = |j: usize| XorMap {
            cols: (0..s.thread.len()).map(|k| (1u64 << k) * bytes).collect(),
            constant: base + j as u64 * threads * bytes,
        };
        self.p.fence_lds_reuse(base, base + size);
        for (j, &v) in partial.iter().enumerate() {
            self.p.ops.push(ProgramOp::LdsWrite {
                src: vec![v],
                address: slot(j),
            });
        }
        self.p.ops.push(ProgramOp::Barrier);
        let mut out = Vec::with_capacity(partial.len());
        for (j, &own) in partial.iter().enumerate() {
            let mut acc = None;
            for w in 0..1u64 << warp_bits.len() {
                let mut address = slot(j);
                for (i, &b) in warp_bits.iter().enumerate() {
                    address.cols[b] = 0;
                    address.constant |= (w >> i & 1) << b << bytes.trailing_zeros();
                }
                let v = self.p.value(bits);
                self.p.ops.push(ProgramOp::LdsRead {
                    dst: vec![v],
                    address,
                });
                acc = Some(match acc {
                    None => v,
                    Some(a) => combine(&mut self.p, a, v),
                });
            }
            out.push(acc.unwrap_or(own));
        }
        Ok(out)
    }
}
