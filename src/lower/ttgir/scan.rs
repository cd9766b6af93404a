//! `tt.scan`: the inclusive prefix of a tensor along one axis under its body's combining
//! function, wherever the layout puts the axis.
//!
//! Position `p` along the axis is a sum of powers of two, each bit owned by one register bit,
//! lane bit or warp bit of the layout.
//!
//! Where lanes own the axis's lowest bits, those lanes scan first, a step per bit, each a lane
//! move, a combine and a select: inside a row of 16 the lane `2^k` positions before is read
//! by a DPP row shift (Kogge–Stone), and above, the upper half of each block of lanes reads
//! the last lane of the lower half (Sklansky: a row broadcast, a cross-row permute or
//! `ds_bpermute`). The scan of the run's last lane is the block's total for the bits above.
//!
//! Where registers own the axis's lowest bits instead, each thread scans its own blocks of
//! `2^k` consecutive positions first, one combine per element (`2^k − 1` per block), the
//! scan so far first.
//!
//! The other bits go one by one, lowest first, on blocks — one value per block, not per
//! element: each block keeps its `total` (of its part of the axis scanned so far) and its
//! `front` (of every position before it in that part, where there is one). At bit `j` every
//! block meets its partner `p xor 2^j` — another register of the thread, a lane (DPP or
//! `ds_bpermute`), or a warp (through LDS) — and takes the partner's total:
//!
//! - in the upper half (bit `j` set), the partner's part comes first:
//!   `front ← f(partner, front)` (just `partner` where the block had no front),
//!   `total ← f(partner, total)`;
//! - in the lower half, only the total grows: `total ← f(total, partner)`.
//!
//! Last, every element takes its block's front: `scan = f(front, inner)`. Where blocks are
//! single registers (lanes own the lowest bits, or nothing does), the front starts as the
//! element's own scan, so each step updates the element itself. A body of one commutative
//! operation updates every total the same way; a general body sees its operands in the order
//! of the axis, so it need not be commutative; `reverse = true` reads the axis from its end
//! (the halves swap roles, the lane moves go the other way). A body of several operands
//! moves them together. Where the bit is a thread's, both choices are computed and the
//! thread's own bit selects — and whether a block has a front at all is then the thread's
//! too (some thread bit already scanned puts it in an upper half).
//!
//! Deferring the fronts pays where blocks are long: `tl.cumsum` of 4096 `i32` over 8 warps
//! of 64 lanes, four consecutive elements per thread twice, is 3 combines per block, then ten
//! steps on two blocks, then 8 combines — not ten steps on eight elements.
//!
//! # Worked example
//!
//! `tl.cumsum(x, axis=1)` of a 16×128 f32 tile in `blocked<{sizePerThread = [1, 1],
//! threadsPerWarp = [1, 64], warpsPerCTA = [2, 2]}>` on a 64-lane wave: column bits 0–5 are
//! lane bits, bit 6 a warp bit, and the rows lie in registers and the other warp bit. Per
//! register, four steps inside rows (`row_shr:1, 2, 4, 8`), then `row_bcast:15` and
//! `row_bcast:31` — each with one add and one select — scan the 64 lanes; lane 63's sum,
//! read by every lane, is the warp's total, and one warp step through LDS gives every element
//! the sum of its row up to it.

use super::data::coords;
use super::reduce::{Combiner, LaneMove, lane_read};
use super::relayout::axis_first_layout;
use super::{Lowering, Sym, fail};
use crate::lower::error::LowerError;
use crate::lower::ir::{DppCtrl, Op as ProgramOp, Predicate, Value, XorMap};
use crate::lower::plan::convert;
use crate::lower::plan::dist::Dist;
use crate::ttgir::{AttrValue, Op, attr};

/// Who owns an axis bit.
#[derive(Clone, Copy)]
enum Owner {
    /// A register bit.
    Register(usize),
    /// A thread bit (lanes first, then warps).
    Thread(usize),
}

impl Lowering<'_> {
    /// `tt.scan` of one or more operands along `axis`, with any body.
    pub(super) fn scan(&mut self, op: &Op) -> Result<(), LowerError> {
        let n = op.operands.len();
        if n == 0 || op.results.len() != n {
            return fail(op, "needs as many results as operands");
        }
        let mut types = Vec::with_capacity(n);
        for &v in &op.operands {
            let element = &self.m.values[v].ty.element;
            match super::data::numeric_type(element) {
                Some(t) => types.push(t),
                None => return fail(op, format!("scans elements of type {element}: not lowered")),
            }
        }
        let how = self.combiner(op, &types)?;
        let rank = self.rank(op.operands[0]);
        let axis = self.axis(op, rank)?;
        let reverse = matches!(attr(&op.attrs, "reverse"), Some(AttrValue::Int(x)) if *x != 0);
        let mut layout = None;
        let mut prefix: Vec<Vec<Value>> = Vec::with_capacity(n);
        for &v in &op.operands {
            let (l, values) = self.typed_data(op, v)?;
            if layout.as_ref().is_some_and(|x| *x != l) {
                return fail(op, "operands in different layouts");
            }
            layout = Some(l);
            prefix.push(values);
        }
        let Some(layout) = layout else {
            return fail(op, "has no operand");
        };
        for &r in &op.results {
            if self.layout(op, r)? != *layout {
                return fail(op, "a result in another layout than its operand");
            }
        }
        let declared = layout.clone();
        let (mut layout, mut s) = (layout, Dist::of(&declared, self.target.wave_size)?);
        // A layout bit moving along the axis and elsewhere at once, or along several of its
        // bits: scanned in a layout whose bits each move one tensor bit, converted back after.
        let owners = match axis_owners(&s, axis) {
            Some(owners) => owners,
            None => {
                let to = axis_first_layout(&s, axis)?;
                for (values, &v) in prefix.iter_mut().zip(&op.operands) {
                    let bits = self.bits(op, v)?;
                    *values = convert::registers(&mut self.p, &layout, &to, values, bits, self.target)?;
                }
                s = Dist::of(&to, self.target.wave_size)?;
                *layout = to;
                match axis_owners(&s, axis) {
                    Some(owners) => owners,
                    None => return fail(op, "no layout scans the axis bit by bit"),
                }
            }
        };
        // Thread bits whose threads hold the same totals: the layout does not move along
        // them, or they own axis bits already scanned (a block's total is every member's).
        let mut shared: Vec<bool> = s.thread.iter().map(|&c| c == 0).collect();
        // The axis's lowest bits a thread holds itself form its blocks, scanned in order.
        let chunk: Vec<usize> = owners
            .iter()
            .map_while(|o| match o {
                Some(Owner::Register(i)) => Some(*i),
                _ => None,
            })
            .collect();
        let mut blocks = if chunk.is_empty() {
            // Lanes owning the axis's lowest bits scan all at once.
            let run = lane_run(&owners, 0, s.lane_bits);
            if !run.is_empty() {
                prefix = self.lane_scan(op, how, &s, &run, reverse, &prefix)?;
                for &b in &run {
                    shared[b] = true;
                }
            }
            let total = if !run.is_empty() && run.len() < owners.len() {
                self.run_total(&run, reverse, &prefix)?
            } else {
                prefix.clone()
            };
            Blocks::singles(prefix, total, run.len())
        } else {
            let mut blocks = self.chunk_scan(op, how, &chunk, reverse, &prefix)?;
            self.lane_run_fronts(op, how, (&s, &mut shared), &owners, reverse, &mut blocks)?;
            blocks
        };
        for (j, owner) in owners.into_iter().enumerate().skip(blocks.scanned) {
            let Some(owner) = owner else {
                return fail(
                    op,
                    format!("no register, lane or warp bit holds bit {j} of the axis"),
                );
            };
            self.block_step(op, how, (&s, &mut shared), owner, reverse, &mut blocks)?;
        }
        let prefix = self.apply_fronts(op, how, &s, reverse, blocks)?;
        for (i, (mut values, &r)) in prefix.into_iter().zip(&op.results).enumerate() {
            if layout != declared {
                let bits = self.bits(op, r)?;
                values = convert::registers(&mut self.p, &layout, &declared, &values, bits, self.target)?;
            }
            self.define_result(
                op,
                i,
                Sym::Data {
                    layout: declared.clone(),
                    values,
                },
            )?;
        }
        Ok(())
    }

    /// The inclusive scan across the lanes owning the axis's lowest bits (`run[k]`: the lane
    /// bit of axis bit `k`), a step per bit, each a lane move, a combine and a select per
    /// register — where the bit-by-bit butterfly needs a prefix and a total, and two combines.
    ///
    /// Steps inside a row of 16 shift by `2^k` lanes (Kogge–Stone, DPP `row_shr`: a lane whose
    /// position in its row is at least `2^k` takes the one `2^k` before it, so after them each
    /// lane holds its row's scan up to it); the steps above take the last lane of the lower half
    /// of each block of `2^(k+1)` lanes into the upper half (Sklansky: a row broadcast, a
    /// cross-row permute or `ds_bpermute`). `reverse` mirrors both: the partner is after.
    fn lane_scan(
        &mut self,
        op: &Op,
        how: Combiner,
        s: &Dist,
        run: &[usize],
        reverse: bool,
        values: &[Vec<Value>],
    ) -> Result<Vec<Vec<Value>>, LowerError> {
        let instructions = self.target.instructions;
        // The lowest steps shift inside rows while the run's lane bits are consecutive and
        // below 4: lanes `2^run[k]` apart are `2^k` apart along the axis.
        let first = run[0];
        let consecutive = |k: usize| run[..=k].iter().enumerate().all(|(i, &b)| b == first + i);
        let in_row = if instructions.dpp {
            (0..run.len())
                .take_while(|&k| run[k] < 4 && consecutive(k))
                .count()
        } else {
            0
        };
        let threads = self.p.thread_bits();
        let mut acc = values.to_vec();
        for k in 0..run.len() {
            let (from, takes) = if k < in_row {
                let shift = 1u8 << run[k];
                let ctrl = if reverse {
                    DppCtrl::RowShl(shift)
                } else {
                    DppCtrl::RowShr(shift)
                };
                (
                    LaneMove::Dpp(ctrl),
                    self.row_position_test(first, in_row, k, reverse),
                )
            } else {
                // The run's bits below 4, all set (`reverse`: all clear) in the other row.
                let row_bits = 15 & !((1u8 << first) - 1);
                let from = match run[k] {
                    4 if consecutive(k) && first == 0 && !reverse && instructions.dpp_row_broadcast => {
                        LaneMove::Dpp(DppCtrl::RowBcast15)
                    }
                    4 if consecutive(k) && instructions.permlane16 => {
                        LaneMove::CrossRow(std::array::from_fn(|i| {
                            if reverse {
                                i as u8 & !row_bits
                            } else {
                                i as u8 | row_bits
                            }
                        }))
                    }
                    5 if consecutive(k) && first == 0 && !reverse && instructions.dpp_row_broadcast => {
                        LaneMove::Dpp(DppCtrl::RowBcast31)
                    }
                    // The lower half's last lane (`reverse`: the upper half's first).
                    _ => LaneMove::Bpermute(if reverse {
                        lane_with(threads, &run[..=k], 1 << run[k])
                    } else {
                        lane_with(threads, &run[..=k], run[..k].iter().map(|&b| 1u64 << b).sum())
                    }),
                };
                (from, self.thread_bit(s, run[k], reverse))
            };
            for r in 0..acc.first().map_or(0, Vec::len) {
                let mine: Vec<Value> = acc.iter().map(|o| o[r]).collect();
                let theirs = mine
                    .iter()
                    .map(|&v| lane_read(&mut self.p, v, &from))
                    .collect::<Result<Vec<Value>, _>>()?;
                let grown = self.combine(op, how, &theirs, &mine)?;
                for (o, v) in acc.iter_mut().zip(self.select_all(takes, &grown, &mine)) {
                    o[r] = v;
                }
            }
        }
        Ok(acc)
    }

    /// Whether a lane takes its partner at a step inside rows: its position among the
    /// `2^in_row` lanes of its block (lane bits `first..first + in_row`) is at least `2^k`
    /// (`reverse`: at least `2^k` before the block's end).
    fn row_position_test(&mut self, first: usize, in_row: usize, k: usize, reverse: bool) -> Value {
        let map = XorMap {
            cols: (0..self.p.thread_bits())
                .map(|t| {
                    if (first..first + in_row).contains(&t) {
                        1 << (t - first)
                    } else {
                        0
                    }
                })
                .collect(),
            constant: 0,
        };
        if reverse {
            self.p
                .thread_test(map, Predicate::Ult, (1u64 << in_row) - (1 << k))
        } else {
            self.p.thread_test(map, Predicate::Uge, 1 << k)
        }
    }

    /// Every lane's copy of the scan at the run's last lane (`reverse`: its first): the total
    /// of the lanes' block, which the steps above the run combine.
    fn run_total(
        &mut self,
        run: &[usize],
        reverse: bool,
        scanned: &[Vec<Value>],
    ) -> Result<Vec<Vec<Value>>, LowerError> {
        let constant = if reverse {
            0
        } else {
            run.iter().map(|&b| 1u64 << b).sum()
        };
        let last = LaneMove::Bpermute(lane_with(self.p.thread_bits(), run, constant));
        scanned
            .iter()
            .map(|o| o.iter().map(|&v| lane_read(&mut self.p, v, &last)).collect())
            .collect()
    }

    /// The serial scan inside each block of the registers owning the axis's lowest bits
    /// (`chunk[k]`: the register bit of axis bit `k`): `2^k − 1` combines per block, each
    /// taking the scan so far first.
    fn chunk_scan(
        &mut self,
        op: &Op,
        how: Combiner,
        chunk: &[usize],
        reverse: bool,
        values: &[Vec<Value>],
    ) -> Result<Blocks, LowerError> {
        let registers = values.first().map_or(0, Vec::len);
        let mask: usize = chunk.iter().map(|&i| 1 << i).sum();
        let first: Vec<usize> = (0..registers).filter(|r| r & mask == 0).collect();
        let mut of_register = vec![0; registers];
        let mut inner = vec![Vec::new(); registers];
        let mut total = Vec::with_capacity(first.len());
        for (block, &f) in first.iter().enumerate() {
            let mut order: Vec<usize> = (0..1usize << chunk.len())
                .map(|q| {
                    chunk
                        .iter()
                        .enumerate()
                        .fold(f, |r, (k, &i)| r | ((q >> k & 1) << i))
                })
                .collect();
            if reverse {
                order.reverse();
            }
            let mut acc: Option<Vec<Value>> = None;
            for r in order {
                let mine: Vec<Value> = values.iter().map(|o| o[r]).collect();
                let scanned = match acc {
                    None => mine,
                    Some(before) => self.combine(op, how, &before, &mine)?,
                };
                of_register[r] = block;
                inner[r] = scanned.clone();
                acc = Some(scanned);
            }
            total.push(acc.unwrap_or_default());
        }
        Ok(Blocks {
            scanned: chunk.len(),
            of_register,
            front: vec![None; first.len()],
            later_by_register: vec![false; first.len()],
            first,
            inner: Some(inner),
            total,
            later_by_thread: Vec::new(),
        })
    }

    /// Where lanes own the axis bits right above the blocks and the target moves a value one
    /// position along them cheaply: the blocks' totals scanned across those lanes at once (as
    /// [`Self::lane_scan`] scans single elements), and each block's front the scan at the
    /// position before it — one lane move — where there is one.
    fn lane_run_fronts(
        &mut self,
        op: &Op,
        how: Combiner,
        (s, shared): (&Dist, &mut [bool]),
        owners: &[Option<Owner>],
        reverse: bool,
        blocks: &mut Blocks,
    ) -> Result<(), LowerError> {
        let run = lane_run(owners, blocks.scanned, s.lane_bits);
        let Some(step) = self.position_step(s, &run, reverse) else {
            return Ok(());
        };
        let scanned = self.lane_scan(op, how, s, &run, reverse, &transpose(&blocks.total))?;
        let mut before = Vec::with_capacity(scanned.len());
        for o in &scanned {
            let mut moved = Vec::with_capacity(o.len());
            for &v in o {
                moved.push(self.step_back(v, &step)?);
            }
            before.push(moved);
        }
        blocks.front = transpose(&before).into_iter().map(Some).collect();
        blocks.total = if blocks.scanned + run.len() < owners.len() {
            transpose(&self.run_total(&run, reverse, &scanned)?)
        } else {
            transpose(&scanned)
        };
        for &b in &run {
            shared[b] = true;
        }
        blocks.later_by_thread.extend(&run);
        blocks.scanned += run.len();
        Ok(())
    }

    /// How a lane reads the lane one position before it along the run (`reverse`: after):
    /// a DPP row shift where the run lies within rows of 16, a wave shift where it starts at
    /// lane bit 0 on GFX9, a row shift with the other row's last position for the lanes that
    /// start a row where the run spans two rows and the target has `v_permlanex16`; `None`
    /// elsewhere.
    fn position_step(&mut self, s: &Dist, run: &[usize], reverse: bool) -> Option<PositionStep> {
        let instructions = self.target.instructions;
        let first = *run.first()?;
        if !instructions.dpp || run.iter().enumerate().any(|(i, &b)| b != first + i) {
            return None;
        }
        let shift = 1u8 << first;
        let in_row = if reverse {
            DppCtrl::RowShl(shift)
        } else {
            DppCtrl::RowShr(shift)
        };
        let end = first + run.len();
        if end <= 4 {
            return Some(PositionStep::Move(LaneMove::Dpp(in_row)));
        }
        if first == 0 && instructions.dpp_wave_shift {
            let wave = if reverse {
                DppCtrl::WaveShl1
            } else {
                DppCtrl::WaveShr1
            };
            return Some(PositionStep::Move(LaneMove::Dpp(wave)));
        }
        if end == 5 && instructions.permlane16 && s.lane_bits >= 5 {
            let low = shift - 1;
            let lanes = std::array::from_fn(|i| {
                let i = i as u8;
                if reverse { i & low } else { (15 & !low) | (i & low) }
            });
            // The lanes whose position in their row is its first (`reverse`: its last).
            let row_bits: u64 = (first..4).map(|b| 1u64 << b).sum();
            let map = XorMap {
                cols: (0..s.thread.len())
                    .map(|t| if row_bits >> t & 1 == 1 { 1u64 << t } else { 0 })
                    .collect(),
                constant: if reverse { row_bits } else { 0 },
            };
            let starts = self.p.thread_test(map, Predicate::Eq, 0);
            return Some(PositionStep::AcrossRows {
                in_row,
                other_row: lanes,
                starts,
            });
        }
        None
    }

    /// `v` from the lane one position before along the run (`step`).
    fn step_back(&mut self, v: Value, step: &PositionStep) -> Result<Value, LowerError> {
        match step {
            PositionStep::Move(how) => lane_read(&mut self.p, v, how),
            PositionStep::AcrossRows {
                in_row,
                other_row,
                starts,
            } => {
                let near = lane_read(&mut self.p, v, &LaneMove::Dpp(*in_row))?;
                let far = lane_read(&mut self.p, v, &LaneMove::CrossRow(*other_row))?;
                let dst = self.p.value(self.p.value_bits(near));
                self.p.ops.push(ProgramOp::Select {
                    dst,
                    cond: *starts,
                    a: far,
                    b: near,
                });
                Ok(dst)
            }
        }
    }

    /// One axis bit above the blocks: every block meets its partner block across `owner`'s
    /// bit and takes its total — into its front where the block is in the half scanned
    /// second, into its total either way (in the order of the scan).
    fn block_step(
        &mut self,
        op: &Op,
        how: Combiner,
        (s, shared): (&Dist, &mut [bool]),
        owner: Owner,
        reverse: bool,
        blocks: &mut Blocks,
    ) -> Result<(), LowerError> {
        let partner = self.partner_totals((s, shared), owner, blocks)?;
        let second_half = match owner {
            Owner::Thread(b) => {
                shared[b] = true;
                Ok(self.thread_bit(s, b, reverse))
            }
            Owner::Register(i) => Err(i),
        };
        let thread_has = self.thread_has_front(s, blocks, reverse);
        for (b, theirs) in partner.iter().enumerate() {
            let later = match second_half {
                Err(i) => ((blocks.first[b] >> i & 1 == 1) != reverse).then_some(None),
                Ok(thread) => Some(Some(thread)),
            };
            let mine_t = blocks.total[b].clone();
            blocks.total[b] = match (how, later) {
                (Combiner::Op(..), _) | (_, None) => self.combine(op, how, &mine_t, theirs)?,
                (_, Some(None)) => self.combine(op, how, theirs, &mine_t)?,
                (_, Some(Some(thread))) => {
                    let from_below = self.combine(op, how, theirs, &mine_t)?;
                    let from_above = self.combine(op, how, &mine_t, theirs)?;
                    self.select_all(thread, &from_below, &from_above)
                }
            };
            let Some(thread) = later else {
                continue;
            };
            let has = blocks.has_front(b, thread_has);
            let front = match (has, blocks.front[b].clone()) {
                (Some(has), Some(front)) => {
                    let grown = self.combine(op, how, theirs, &front)?;
                    let grown = match has {
                        Some(has) => self.select_all(has, &grown, theirs),
                        None => grown,
                    };
                    match thread {
                        Some(thread) => self.select_all(thread, &grown, &front),
                        None => grown,
                    }
                }
                _ => theirs.clone(),
            };
            blocks.front[b] = Some(front);
            if thread.is_none() {
                blocks.later_by_register[b] = true;
            }
        }
        if let Owner::Thread(b) = owner {
            blocks.later_by_thread.push(b);
        }
        blocks.scanned += 1;
        Ok(())
    }

    /// Per thread, whether a thread bit scanned above the blocks puts it in the half scanned
    /// second (`None` before any such bit): its blocks have a front.
    fn thread_has_front(&mut self, s: &Dist, blocks: &Blocks, reverse: bool) -> Option<Value> {
        if blocks.later_by_thread.is_empty() {
            return None;
        }
        let mask: u64 = blocks.later_by_thread.iter().map(|&t| 1u64 << t).sum();
        let map = XorMap {
            cols: (0..s.thread.len())
                .map(|t| if mask >> t & 1 == 1 { 1u64 << t } else { 0 })
                .collect(),
            constant: if reverse { mask } else { 0 },
        };
        Some(self.p.thread_test(map, Predicate::Ne, 0))
    }

    /// Every element's scan: its front, then its own scan inside its block.
    fn apply_fronts(
        &mut self,
        op: &Op,
        how: Combiner,
        s: &Dist,
        reverse: bool,
        mut blocks: Blocks,
    ) -> Result<Vec<Vec<Value>>, LowerError> {
        let registers = blocks.of_register.len();
        let mut per_register = Vec::with_capacity(registers);
        let inner = blocks.inner.take();
        let thread_has = self.thread_has_front(s, &blocks, reverse);
        let has: Vec<Option<Option<Value>>> = (0..blocks.first.len())
            .map(|b| blocks.has_front(b, thread_has))
            .collect();
        for r in 0..registers {
            let b = blocks.of_register[r];
            let front = blocks.front[b].clone();
            per_register.push(match (&inner, front, has[b]) {
                (None, Some(front), _) => front,
                (Some(inner), Some(front), Some(None)) => self.combine(op, how, &front, &inner[r])?,
                (Some(inner), Some(front), Some(Some(has))) => {
                    let grown = self.combine(op, how, &front, &inner[r])?;
                    self.select_all(has, &grown, &inner[r])
                }
                (Some(inner), _, _) => inner[r].clone(),
                (None, None, _) => return fail(op, "lost an element's scan"),
            });
        }
        Ok(transpose(&per_register))
    }

    /// Every block's partner total across `owner`'s bit.
    fn partner_totals(
        &mut self,
        (s, shared): (&Dist, &[bool]),
        owner: Owner,
        blocks: &Blocks,
    ) -> Result<Vec<Vec<Value>>, LowerError> {
        match owner {
            Owner::Register(i) => Ok(blocks
                .first
                .iter()
                .map(|&r| blocks.total[blocks.of_register[r ^ (1 << i)]].clone())
                .collect()),
            Owner::Thread(b) if b < s.lane_bits => {
                // Lanes that differ only in shared bits hold the same totals, so a move that
                // also flips those (a row mirror) reaches the partner as well as the XOR does.
                let dpp =
                    super::reduce::partner(b, &shared[..s.lane_bits], self.target, self.p.thread_bits());
                blocks
                    .total
                    .iter()
                    .map(|o| {
                        o.iter()
                            .map(|&v| super::reduce::lane_read(&mut self.p, v, &dpp))
                            .collect()
                    })
                    .collect()
            }
            Owner::Thread(b) => {
                // Operand by operand, so one operand's blocks lie side by side in LDS.
                let by_operand = transpose(&blocks.total);
                Ok(transpose(&self.warp_exchange((s, shared), b, &by_operand)?))
            }
        }
    }

    /// Each value from the thread whose id differs in bit `b` (a warp bit): written to LDS, a
    /// barrier, read back at the partner's slot.
    fn warp_exchange(
        &mut self,
        (s, shared): (&Dist, &[bool]),
        b: usize,
        total: &[Vec<Value>],
    ) -> Result<Vec<Vec<Value>>, LowerError> {
        // A slot per group of threads holding the same totals: the other bits, packed.
        let mut position = Vec::with_capacity(s.thread.len());
        let mut distinct = 0u32;
        for &x in shared {
            position.push((!x).then_some(distinct));
            distinct += u32::from(!x);
        }
        let flipped = position.get(b).copied().flatten().unwrap_or(0);
        let threads = 1u64 << distinct;
        let (slots, size) = super::reduce::slot_regions(&self.p, total.iter().flatten(), threads);
        let base = self.allocate(size)?;
        let at = |(offset, bytes): (u64, u64), flip: bool| XorMap {
            cols: position
                .iter()
                .map(|p| p.map_or(0, |p| (1u64 << p) * bytes))
                .collect(),
            constant: base + offset + if flip { (1u64 << flipped) * bytes } else { 0 },
        };
        self.p.fence_lds_reuse(base, base + size);
        let mut k = 0;
        for o in total {
            for &v in o {
                self.p.ops.push(ProgramOp::LdsWrite {
                    src: vec![v],
                    address: at(slots[k], false),
                });
                k += 1;
            }
        }
        self.p.ops.push(ProgramOp::Barrier);
        let mut k = 0;
        let mut out = Vec::with_capacity(total.len());
        for o in total {
            let mut read = Vec::with_capacity(o.len());
            for &v in o {
                let x = self.p.value(self.p.value_bits(v));
                self.p.ops.push(ProgramOp::LdsRead {
                    dst: vec![x],
                    address: at(slots[k], true),
                });
                read.push(x);
                k += 1;
            }
            out.push(read);
        }
        Ok(out)
    }

    /// Per thread, whether its bit `b` puts it in the half scanned second (`reverse`: the
    /// half with the bit clear).
    fn thread_bit(&mut self, s: &Dist, b: usize, reverse: bool) -> Value {
        let map = XorMap {
            cols: (0..s.thread.len()).map(|k| u64::from(k == b)).collect(),
            constant: 0,
        };
        let pred = if reverse { Predicate::Eq } else { Predicate::Ne };
        self.p.thread_test(map, pred, 0)
    }

    /// `cond ? a : b`, operand by operand.
    fn select_all(&mut self, cond: Value, a: &[Value], b: &[Value]) -> Vec<Value> {
        a.iter()
            .zip(b)
            .map(|(&a, &b)| {
                let dst = self.p.value(self.p.value_bits(a));
                self.p.ops.push(ProgramOp::Select { dst, cond, a, b });
                dst
            })
            .collect()
    }
}

/// `v[j][i]` as `w[i][j]` (operand-major values as register-major, and back).
fn transpose(v: &[Vec<Value>]) -> Vec<Vec<Value>> {
    let inner = v.first().map_or(0, Vec::len);
    (0..inner).map(|i| v.iter().map(|o| o[i]).collect()).collect()
}

/// The lane bits owning the axis bits from `from` on, while lanes own them.
fn lane_run(owners: &[Option<Owner>], from: usize, lane_bits: usize) -> Vec<usize> {
    owners
        .iter()
        .skip(from)
        .map_while(|o| match o {
            Some(Owner::Thread(b)) if *b < lane_bits => Some(*b),
            _ => None,
        })
        .collect()
}

/// The thread whose id is this thread's with bits `fixed` (of `threads`) taken from `constant`.
fn lane_with(threads: usize, fixed: &[usize], constant: u64) -> XorMap {
    let cols = (0..threads)
        .map(|t| if fixed.contains(&t) { 0 } else { 1u64 << t })
        .collect();
    XorMap { cols, constant }
}

/// Per bit of the axis, lowest first, the register or thread bit that moves along it alone;
/// `None` where a bit moves along the axis and elsewhere at once, along several of the axis's
/// bits, or along one another bit already moves along.
fn axis_owners(s: &Dist, axis: usize) -> Option<Vec<Option<Owner>>> {
    let mut owners = vec![None; s.dim_bits[axis] as usize];
    let columns = s
        .reg
        .iter()
        .enumerate()
        .map(|(i, &c)| (Owner::Register(i), c))
        .chain(s.thread.iter().enumerate().map(|(i, &c)| (Owner::Thread(i), c)));
    for (owner, c) in columns {
        let k = coords(s, c);
        let elsewhere = k.iter().enumerate().any(|(d, &x)| d != axis && x != 0);
        match k[axis] {
            0 => {}
            x if x.is_power_of_two() && !elsewhere => {
                let j = x.trailing_zeros() as usize;
                if owners[j].is_some() {
                    return None;
                }
                owners[j] = Some(owner);
            }
            _ => return None,
        }
    }
    Some(owners)
}

/// How a lane reads the lane one position before it along a run of lane bits.
enum PositionStep {
    /// One lane move.
    Move(LaneMove),
    /// A row shift, and for the lanes that start a row (`starts`) the other row's lane.
    AcrossRows {
        in_row: DppCtrl,
        other_row: [u8; 16],
        starts: Value,
    },
}

/// A scan's elements in blocks — the registers that differ only in the bits owning the axis's
/// lowest bits — with, per block, the combination of everything before it in the scan (its
/// front, where there is something before it) and of its whole part of the axis scanned so
/// far (its total).
struct Blocks {
    /// Axis bits scanned so far.
    scanned: usize,
    /// Per register, its block.
    of_register: Vec<usize>,
    /// Per block, its register with the block's own bits clear.
    first: Vec<usize>,
    /// Per register, its operands' scan inside its block; `None` where blocks are single
    /// registers whose front is already their scan.
    inner: Option<Vec<Vec<Value>>>,
    /// Per block, its operands' front.
    front: Vec<Option<Vec<Value>>>,
    /// Per block, whether a register bit scanned above the blocks put it in the half scanned
    /// second.
    later_by_register: Vec<bool>,
    /// Thread bits scanned above the blocks.
    later_by_thread: Vec<usize>,
    /// Per block, its operands' total.
    total: Vec<Vec<Value>>,
}

impl Blocks {
    /// Whether block `b` has a front: `None` where no thread's does, `Some(None)` where every
    /// thread's does, `Some(Some(p))` where the threads with `p` set do.
    fn has_front(&self, b: usize, thread_has: Option<Value>) -> Option<Option<Value>> {
        if self.later_by_register[b] {
            Some(None)
        } else {
            thread_has.map(Some)
        }
    }

    /// Single registers (operand-major `scanned` and `total`), each already scanned along the
    /// axis's lowest `bits` bits.
    fn singles(scanned: Vec<Vec<Value>>, total: Vec<Vec<Value>>, bits: usize) -> Blocks {
        let registers = scanned.first().map_or(0, Vec::len);
        Blocks {
            scanned: bits,
            of_register: (0..registers).collect(),
            first: (0..registers).collect(),
            inner: None,
            front: transpose(&scanned).into_iter().map(Some).collect(),
            later_by_register: vec![true; registers],
            later_by_thread: Vec::new(),
            total: transpose(&total),
        }
    }
}
