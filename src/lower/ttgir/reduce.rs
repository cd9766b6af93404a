//! `tt.reduce`: combining a tensor along one axis, as its layout spreads that axis.
//!
//! The combining function is the op's body. A body of one add, mul, max or min is that
//! instruction; any other body (several operands, as argmax's value and index; comparisons and
//! selects; any element-wise op) is lowered on scalars in registers wherever two elements meet,
//! all operands moving together.
//!
//! Each register, lane and warp bit of the layout either moves along the reduced axis or not
//! (a bit that moves along it and another dimension at once is refused). The reduction runs in
//! three tiers, each only where the layout puts part of the axis:
//!
//! 1. **in the thread**: registers that differ only in bits along the axis are combined;
//! 2. **across lanes**: for each lane bit along the axis, lowest first, a butterfly step —
//!    every lane combines its value with that of a partner lane: the one whose id differs in
//!    that bit, reached by a DPP move inside a row of 16 (quad permutes; the half-row and row
//!    mirrors, which pair each lane with one of the other half once the lower bits are
//!    reduced) or by `ds_bpermute` otherwise (as Triton's RDNA code does where the lower bits
//!    are not reduced: a scan). Both lanes compute
//!    `op(a, b)` and `op(b, a)`, equal for a commutative body (Triton's reductions are), so
//!    every lane ends with the same value;
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
use super::{Lowering, Sym, fail};
use crate::lower::error::LowerError;
use crate::lower::ir::XorMap;
use crate::lower::ir::{ArithOp, DppCtrl, Op as ProgramOp, Program, Value};
use crate::lower::plan::dist::Dist;
use crate::target::Target;
use crate::ttgir::Op;

/// How a reduce or scan body combines two elements: one commutative op of the instruction set on its
/// two arguments (the fast form: an add, mul, max, min or bitwise op), or the body itself, lowered on
/// scalars in registers each time two elements meet (argmax's value-and-index body, a sum of
/// squares, …).
#[derive(Clone, Copy)]
pub(super) enum Combiner {
    /// One instruction on numbers of this type.
    Op(ArithOp, &'static str),
    /// The body's ops.
    Body,
}

/// The single commutative op of a one-operand reduce or scan body, when it is one.
fn single_op(m: &crate::ttgir::Module, op: &Op) -> Option<ArithOp> {
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
        "arith.maximumf" => ArithOp::Maximum,
        "arith.minimumf" => ArithOp::Minimum,
        "arith.maxui" => ArithOp::MaxU,
        "arith.minui" => ArithOp::MinU,
        "arith.andi" => ArithOp::And,
        "arith.ori" => ArithOp::Or,
        "arith.xori" => ArithOp::Xor,
        _ => return None,
    };
    let uses_both =
        args.len() == 2 && (f.operands.as_slice() == args || f.operands.iter().rev().eq(args.iter()));
    let returns = matches!(r.name.as_str(), "tt.reduce.return" | "tt.scan.return");
    (uses_both && returns && r.operands == f.results).then_some(commutative)
}

/// How a lane reads a value of another lane of its wave.
#[derive(Clone)]
pub(super) enum LaneMove {
    /// A DPP move (within a row of 16, or a row's broadcast to the next).
    Dpp(DppCtrl),
    /// `v_permlanex16_b32`: lane `i` of each row reads lane `lanes[i]` of the other row of its
    /// 32 (RDNA).
    CrossRow([u8; 16]),
    /// `ds_bpermute` (any lane, through the LDS crossbar): the lane the map gives.
    Bpermute(XorMap),
}

/// How a butterfly step over lane bit `bit` reaches its partner lane, when the lane bits in
/// `reduced` already hold combined values: a DPP move within a row where one does (quad
/// permutes for bits 0 and 1; the mirrors, which pair the right lanes once the bits below are
/// reduced), the cross-row permute for bit 4 where the target has it, `ds_bpermute`
/// otherwise (`threads` bits of thread id).
pub(super) fn partner(bit: usize, reduced: &[bool], target: &Target, threads: usize) -> LaneMove {
    let below = reduced.iter().take(bit).all(|&r| r);
    let dpp = match bit {
        0 => Some(DppCtrl::QuadPerm([1, 0, 3, 2])),
        1 => Some(DppCtrl::QuadPerm([2, 3, 0, 1])),
        2 if below => Some(DppCtrl::RowHalfMirror),
        3 if below => Some(DppCtrl::RowMirror),
        _ => None,
    }
    .filter(|_| target.instructions.dpp);
    match dpp {
        Some(ctrl) => LaneMove::Dpp(ctrl),
        None if bit == 4 && target.instructions.permlane16 => {
            LaneMove::CrossRow(std::array::from_fn(|i| i as u8))
        }
        None => LaneMove::Bpermute(XorMap {
            cols: (0..threads).map(|k| 1u64 << k).collect(),
            constant: 1 << bit,
        }),
    }
}

/// `v`'s value in the lane `how` reads, moved in 32-bit pieces (a narrower value widened and
/// narrowed back).
pub(super) fn lane_read(p: &mut Program, v: Value, how: &LaneMove) -> Result<Value, LowerError> {
    let bits = p.value_bits(v);
    let permute = |p: &mut Program, src: Value| {
        let dst = p.value(32);
        p.ops.push(match how {
            LaneMove::Dpp(ctrl) => ProgramOp::Dpp {
                dst,
                src,
                ctrl: *ctrl,
            },
            LaneMove::CrossRow(lanes) => ProgramOp::PermlaneX16 {
                dst,
                src,
                lanes: *lanes,
            },
            LaneMove::Bpermute(lane) => ProgramOp::Bpermute {
                dst,
                src,
                lane: lane.clone(),
            },
        });
        dst
    };
    let narrow = |bits: u32| match bits {
        1 => Some(("u1", "i1")),
        8 => Some(("u8", "i8")),
        16 => Some(("u16", "i16")),
        _ => None,
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
        b => {
            let Some((unsigned, back)) = narrow(b) else {
                return Err(LowerError::new(format!(
                    "moving {b}-bit elements across lanes is not lowered"
                )));
            };
            let wide = p.value(32);
            p.ops.push(ProgramOp::Convert {
                dst: vec![wide],
                src: vec![v],
                from: unsigned,
                to: "i32",
            });
            let moved = permute(p, wide);
            let dst = p.value(b);
            p.ops.push(ProgramOp::Convert {
                dst: vec![dst],
                src: vec![moved],
                from: "i32",
                to: back,
            });
            Ok(dst)
        }
    }
}

/// LDS regions of `threads` slots, one per value of `values` (its width), one after the other:
/// `(offset, bytes)` each, and the bytes of all. Each region is aligned to its own size, so a
/// thread's slot is the region's offset xor its (packed) thread bits times the width.
pub(super) fn slot_regions<'v>(
    p: &Program,
    values: impl IntoIterator<Item = &'v Value>,
    threads: u64,
) -> (Vec<(u64, u64)>, u64) {
    let mut regions = Vec::new();
    let mut size = 0u64;
    for &v in values {
        let bytes = u64::from(p.value_bits(v).div_ceil(8));
        size = size.div_ceil(threads * bytes) * (threads * bytes);
        regions.push((size, bytes));
        size += threads * bytes;
    }
    (regions, size)
}

impl Lowering<'_> {
    /// The combiner of a reduce (or scan) body over `n` operands of element types `types`.
    pub(super) fn combiner(&self, op: &Op, types: &[&'static str]) -> Result<Combiner, LowerError> {
        let n = types.len();
        if op.block_args.len() != 2 * n {
            return fail(
                op,
                format!("a body taking {} arguments for {n} operands", op.block_args.len()),
            );
        }
        match op.body.last().map(|&r| &self.m.ops[r]) {
            Some(r) if r.name.ends_with(".return") && r.operands.len() == n => {}
            _ => return fail(op, format!("a body that does not return {n} values")),
        }
        Ok(match (single_op(self.m, op), types) {
            (Some(arith), [ty]) if arith.applies_to(ty) => Combiner::Op(arith, ty),
            _ => Combiner::Body,
        })
    }

    /// `combine(a, b)`, one value per operand.
    pub(super) fn combine(
        &mut self,
        op: &Op,
        how: Combiner,
        a: &[Value],
        b: &[Value],
    ) -> Result<Vec<Value>, LowerError> {
        match how {
            Combiner::Op(arith, ty) if self.bf16_in_f32(arith, ty) => {
                Ok(vec![self.bf16_arith(arith, &[a[0], b[0]])])
            }
            Combiner::Op(arith, ty) => {
                let dst = self.p.value(self.p.value_bits(a[0]));
                self.p.ops.push(ProgramOp::Arith {
                    op: arith,
                    ty,
                    dst,
                    src: vec![a[0], b[0]],
                });
                Ok(vec![dst])
            }
            Combiner::Body => {
                for (&arg, &v) in op.block_args.iter().zip(a.iter().chain(b)) {
                    self.syms[arg] = Some(Sym::Lanes(v));
                }
                let Some((&ret, body)) = op.body.split_last() else {
                    return fail(op, "has no body");
                };
                for &i in body {
                    if !self.op(i)? {
                        return fail(op, "returns from inside its body");
                    }
                }
                let ret = &self.m.ops[ret];
                let bits: Vec<u32> = a.iter().map(|&v| self.p.value_bits(v)).collect();
                self.returned_scalars(ret, &bits)
            }
        }
    }

    /// `tt.reduce` of one or more operands along `axis`, with any body.
    pub(super) fn reduce(&mut self, op: &Op) -> Result<(), LowerError> {
        let n = op.operands.len();
        if n == 0 || op.results.len() != n {
            return fail(op, "needs as many results as operands");
        }
        let mut types = Vec::with_capacity(n);
        for &v in &op.operands {
            let element = &self.m.values[v].ty.element;
            match super::data::numeric_type(element) {
                Some(t) => types.push(t),
                None => return fail(op, format!("reduces elements of type {element}: not lowered")),
            }
        }
        let how = self.combiner(op, &types)?;
        let src = op.operands[0];
        let rank = self.rank(src);
        let axis = self.axis(op, rank)?;
        if op.results.iter().any(|&r| self.rank(r) + 1 != rank) {
            return fail(op, "the result's rank is not one less than the operand's");
        }
        let mut layout = None;
        let mut operands: Vec<Vec<Value>> = Vec::with_capacity(n);
        for &v in &op.operands {
            let (l, values) = self.typed_data(op, v)?;
            if layout.as_ref().is_some_and(|x| *x != l) {
                return fail(op, "operands in different layouts");
            }
            layout = Some(l);
            operands.push(values);
        }
        let Some(layout) = layout else {
            return fail(op, "has no operand");
        };
        let s = Dist::of(&layout, self.target.wave_size)?;
        // Which columns run along the axis.
        let along = |c: u64| -> Result<bool, LowerError> {
            let k = coords(&s, c);
            let on_axis = k[axis] != 0;
            let elsewhere = k.iter().enumerate().any(|(d, &x)| d != axis && x != 0);
            if on_axis && elsewhere {
                return fail(
                    op,
                    "a layout bit moves along the reduced axis and another dimension at once, which no distributed encoding does",
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
        let element = |r: usize| -> Vec<Value> { operands.iter().map(|o| o[r]).collect() };
        // 1. In the thread: per kept register, its group in ascending order.
        let distinct = s.distinct_mask();
        let kept: Vec<usize> = (0..s.registers())
            .filter(|&r| r & axis_regs == 0 && r & !distinct == 0)
            .collect();
        let mut partial: Vec<Vec<Value>> = Vec::with_capacity(kept.len());
        for &k in &kept {
            let mut acc = element(k);
            for g in 1..s.registers() {
                if g & !axis_regs == 0 && g & !distinct == 0 {
                    acc = self.combine(op, how, &acc, &element(k | g))?;
                }
            }
            partial.push(acc);
        }
        // 2. Across lanes: butterflies, lowest bit first.
        let mut reduced = vec![false; s.lane_bits];
        for bit in 0..s.lane_bits {
            if thread_along[bit] {
                let dpp = partner(bit, &reduced, self.target, self.p.thread_bits());
                for v in partial.iter_mut() {
                    let other = v
                        .iter()
                        .map(|&x| lane_read(&mut self.p, x, &dpp))
                        .collect::<Result<Vec<Value>, _>>()?;
                    *v = self.combine(op, how, v, &other)?;
                }
                reduced[bit] = true;
            }
        }
        // 3. Across warps: through LDS, combined in warp order.
        let warp_bits: Vec<usize> = (s.lane_bits..s.thread.len())
            .filter(|&b| thread_along[b])
            .collect();
        if !warp_bits.is_empty() {
            // Threads that differ only in reduced lane bits or in bits the layout does not
            // move along hold the same partials: they share slots.
            let shared: Vec<bool> = (0..s.thread.len())
                .map(|b| (b < s.lane_bits && thread_along[b]) || s.thread[b] == 0)
                .collect();
            partial = self.across_warps(op, how, (&s, &shared), &warp_bits, &partial)?;
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
        for (i, &r) in op.results.iter().enumerate() {
            let full: Vec<Value> = (0..s.registers())
                .map(|reg| {
                    let k = reg & !axis_regs & distinct;
                    kept.iter()
                        .position(|&x| x == k)
                        .map_or(partial[0][i], |j| partial[j][i])
                })
                .collect();
            let dst = self.layout(op, r)?;
            let d = Dist::of(&dst, self.target.wave_size)?;
            let result = self.regather(op, (&reduced, &full), &d, |c| {
                let mut e = c.to_vec();
                e.insert(axis, 0);
                e
            })?;
            self.define_result(
                op,
                i,
                Sym::Data {
                    layout: Box::new(dst),
                    values: result,
                },
            )?;
        }
        Ok(())
    }

    /// Combines `partial` (per kept register, one value per operand) over the warp bits
    /// `warp_bits`: each thread writes its values to its own LDS slots, a barrier, and every
    /// thread reads the slots of the threads that differ from it only in those bits, in
    /// ascending order.
    fn across_warps(
        &mut self,
        op: &Op,
        how: Combiner,
        (s, shared): (&Dist, &[bool]),
        warp_bits: &[usize],
        partial: &[Vec<Value>],
    ) -> Result<Vec<Vec<Value>>, LowerError> {
        // A slot per distinct group of threads: the thread bits that are not shared, packed.
        let mut position = Vec::with_capacity(s.thread.len());
        let mut distinct = 0u32;
        for &b in shared {
            position.push((!b).then_some(distinct));
            distinct += u32::from(!b);
        }
        let threads = 1u64 << distinct;
        // One region per (register, operand), `threads` slots of the operand's width each.
        let (regions, size) = slot_regions(&self.p, partial.iter().flatten(), threads);
        let base = self.allocate(size)?;
        let slot = |(offset, bytes): (u64, u64)| XorMap {
            cols: position
                .iter()
                .map(|p| p.map_or(0, |p| (1u64 << p) * bytes))
                .collect(),
            constant: base + offset,
        };
        self.p.fence_lds_reuse(base, base + size);
        let n = partial.first().map_or(0, Vec::len);
        for (j, values) in partial.iter().enumerate() {
            for (i, &v) in values.iter().enumerate() {
                self.p.ops.push(ProgramOp::LdsWrite {
                    src: vec![v],
                    address: slot(regions[j * n + i]),
                });
            }
        }
        self.p.ops.push(ProgramOp::Barrier);
        // Many rows per thread, or a body of several instructions over eight warps or more: a
        // second round spreads (row, warp) pairs over the threads instead of every thread
        // combining every warp's partial of each of its rows (log₂ of the warps' combines
        // instead of one fewer than the warps, for a second trip through LDS; over four warps,
        // two combines against three do not pay for the trip).
        let k_bits = partial.len().trailing_zeros() as usize;
        let bytes = regions.first().map_or(4, |r| r.1);
        let spread = (partial.len() >= 4 || (matches!(how, Combiner::Body) && warp_bits.len() >= 3))
            && partial.len().is_power_of_two()
            && n.is_power_of_two()
            && regions.iter().all(|r| r.1 == bytes)
            && warp_bits.len() <= s.lane_bits
            && distinct as usize + k_bits <= s.thread.len();
        if spread {
            return self.second_round(op, how, (s, &position, warp_bits), (base, bytes), partial);
        }
        let mut out = Vec::with_capacity(partial.len());
        for (j, own) in partial.iter().enumerate() {
            let mut acc: Option<Vec<Value>> = None;
            for w in 0..1u64 << warp_bits.len() {
                let mut read = Vec::with_capacity(n);
                for (i, &v) in own.iter().enumerate() {
                    let (offset, bytes) = regions[j * n + i];
                    let mut address = slot((offset, bytes));
                    for (k, &b) in warp_bits.iter().enumerate() {
                        let at = position[b].unwrap_or(0);
                        address.cols[b] = 0;
                        address.constant |= (w >> k & 1) << at << bytes.trailing_zeros();
                    }
                    let x = self.p.value(self.p.value_bits(v));
                    self.p.ops.push(ProgramOp::LdsRead {
                        dst: vec![x],
                        address,
                    });
                    read.push(x);
                }
                acc = Some(match acc {
                    None => read,
                    Some(a) => self.combine(op, how, &a, &read)?,
                });
            }
            out.push(acc.unwrap_or_else(|| own.clone()));
        }
        Ok(out)
    }

    /// The second round of a reduction across warps. The partials of every (row, warp) pair
    /// sit in LDS, one region per kept register and operand (`base`, slots of `bytes`, a thread's
    /// slot at its packed non-shared bits, `position`). Thread `t` reads pair `t` — its low bits
    /// the warp along the axis, then the row's other bits, then the kept register — combines
    /// across those low lane bits with butterflies, writes the row's result, and after a
    /// barrier every thread reads the results of its own rows.
    fn second_round(
        &mut self,
        op: &Op,
        how: Combiner,
        (s, position, warp_bits): (&Dist, &[Option<u32>], &[usize]),
        (base, bytes): (u64, u64),
        partial: &[Vec<Value>],
    ) -> Result<Vec<Vec<Value>>, LowerError> {
        let n = partial.first().map_or(0, Vec::len);
        let (a, threads) = (warp_bits.len(), s.thread.len());
        let k_bits = partial.len().trailing_zeros() as usize;
        let rows: Vec<usize> = (0..threads)
            .filter(|&b| position[b].is_some() && !warp_bits.contains(&b))
            .collect();
        let d = a + rows.len();
        let region = (1u64 << d) * bytes;
        let at = |b: usize| position[b].map_or(0, |p| (1u64 << p) * bytes);
        // Pair t: warp bits, then the row's other bits, then the kept register.
        let mut cols = vec![0u64; threads];
        for (k, &b) in warp_bits.iter().enumerate() {
            cols[k] = at(b);
        }
        for (k, &b) in rows.iter().enumerate() {
            cols[a + k] = at(b);
        }
        for k in 0..k_bits {
            cols[d + k] = (1u64 << k) * n as u64 * region;
        }
        let mut v = Vec::with_capacity(n);
        for (i, &own) in partial[0].iter().enumerate() {
            let x = self.p.value(self.p.value_bits(own));
            self.p.ops.push(ProgramOp::LdsRead {
                dst: vec![x],
                address: XorMap {
                    cols: cols.clone(),
                    constant: base + i as u64 * region,
                },
            });
            v.push(x);
        }
        let mut reduced = vec![false; s.lane_bits];
        for bit in 0..a {
            let how_far = partner(bit, &reduced, self.target, self.p.thread_bits());
            let other = v
                .iter()
                .map(|&x| lane_read(&mut self.p, x, &how_far))
                .collect::<Result<Vec<Value>, _>>()?;
            v = self.combine(op, how, &v, &other)?;
            reduced[bit] = true;
        }
        // One result per (kept register, row bits) and operand.
        let per_operand = (partial.len() as u64) << rows.len();
        let size = n as u64 * per_operand * bytes;
        let results = self.allocate(size)?;
        self.p.fence_lds_reuse(results, results + size);
        let mut write = vec![0u64; threads];
        for k in 0..rows.len() {
            write[a + k] = (1u64 << k) * bytes;
        }
        for k in 0..k_bits {
            write[d + k] = (1u64 << (rows.len() + k)) * bytes;
        }
        for (i, &x) in v.iter().enumerate() {
            self.p.ops.push(ProgramOp::LdsWrite {
                src: vec![x],
                address: XorMap {
                    cols: write.clone(),
                    constant: results + i as u64 * per_operand * bytes,
                },
            });
        }
        self.p.ops.push(ProgramOp::Barrier);
        let mut own_rows = vec![0u64; threads];
        for (k, &b) in rows.iter().enumerate() {
            own_rows[b] = (1u64 << k) * bytes;
        }
        let mut out = Vec::with_capacity(partial.len());
        for (j, own) in partial.iter().enumerate() {
            let mut read = Vec::with_capacity(n);
            for (i, &x) in own.iter().enumerate() {
                let dst = self.p.value(self.p.value_bits(x));
                self.p.ops.push(ProgramOp::LdsRead {
                    dst: vec![dst],
                    address: XorMap {
                        cols: own_rows.clone(),
                        constant: results
                            + i as u64 * per_operand * bytes
                            + ((j as u64) << rows.len()) * bytes,
                    },
                });
                read.push(dst);
            }
            out.push(read);
        }
        Ok(out)
    }
}
