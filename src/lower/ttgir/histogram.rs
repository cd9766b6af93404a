//! `tt.histogram`: counts of the values `0 … bins − 1` in a tensor, through LDS atomics.
//!
//! The bins are 32-bit words in LDS: the threads first zero them (each its result registers'
//! bins — the result layout covers every bin), and after a barrier every element adds 1 to its
//! value's bin with `ds_add_u32` — or 0 to bin 0 where the value lies outside `[0, bins)`, where
//! a mask says no, or where another thread already counts the element (a layout that
//! broadcasts holds it several times; its first holder counts it). After a second barrier each
//! thread reads its result registers' bins.
//!
//! # Worked example
//!
//! `tl.histogram(x, 32)` of 1024 i32 over 256 threads (4 per thread), the result one bin per
//! thread in the first 32: 1 write, 1 barrier, 4 `ds_add_u32` (each after a compare and two
//! selects), 1 barrier, 1 read per thread.

use super::{Lowering, Sym, fail};
use crate::lower::error::LowerError;
use crate::lower::ir::{Op as ProgramOp, Predicate, Value, XorMap};
use crate::lower::plan::dist::Dist;
use crate::ttgir::Op;

impl Lowering<'_> {
    /// `tt.histogram %values[, %mask]`.
    pub(super) fn histogram(&mut self, op: &Op) -> Result<(), LowerError> {
        let r = op.results[0];
        let (in_layout, values) = self.registers_of(op, op.operands[0])?;
        let mask = match op.operands.get(1) {
            Some(&m) => Some(self.registers_of(op, m)?.1),
            None => None,
        };
        let out_layout = self.layout(op, r)?;
        let wave = self.target.wave_size;
        let (din, dout) = (Dist::of(&in_layout, wave)?, Dist::of(&out_layout, wave)?);
        if dout.dim_bits.len() != 1 || self.bits(op, r)? != 32 {
            return fail(op, "a histogram is a 1-D tensor of 32-bit counts");
        }
        if values.iter().any(|&v| self.p.value_bits(v) != 32) {
            return fail(op, "counts values of 32-bit integers only");
        }
        let bins = 1u64 << dout.dim_bits[0];
        let size = 4 * bins;
        let base = self.allocate(size)?;
        self.p.fence_lds_reuse(base, base + size);
        let bin_address = |k: usize| XorMap {
            cols: dout.thread.iter().map(|&c| c * 4).collect(),
            constant: base + dout.reg_position(k) * 4,
        };
        let zero = self.p.value(32);
        self.p.ops.push(ProgramOp::Constant { dst: zero, bits: 0 });
        for k in 0..dout.registers() {
            self.p.ops.push(ProgramOp::LdsWrite {
                src: vec![zero],
                address: bin_address(k),
            });
        }
        self.p.ops.push(ProgramOp::Barrier);
        let first = self.first_holder(&din);
        let distinct = din.distinct_mask();
        let (one, limit, base_register, four) = (
            self.p.value(32),
            self.p.value(32),
            self.p.value(32),
            self.p.value(32),
        );
        self.p.ops.push(ProgramOp::Constant { dst: one, bits: 1 });
        self.p.ops.push(ProgramOp::Constant {
            dst: limit,
            bits: bins,
        });
        self.p.ops.push(ProgramOp::Constant {
            dst: base_register,
            bits: base,
        });
        self.p.ops.push(ProgramOp::Constant { dst: four, bits: 4 });
        for (k, &v) in values.iter().enumerate() {
            if k & distinct != k {
                continue; // a copy of a register counted already
            }
            let mut counts = self.p.value(1);
            self.p.ops.push(ProgramOp::Compare {
                pred: Predicate::Ult,
                ty: "i32",
                dst: counts,
                a: v,
                b: limit,
            });
            for extra in [first, mask.as_ref().map(|m| m[k])].into_iter().flatten() {
                let both = self.p.value(1);
                let no = self.p.value(1);
                self.p.ops.push(ProgramOp::Constant { dst: no, bits: 0 });
                self.p.ops.push(ProgramOp::Select {
                    dst: both,
                    cond: counts,
                    a: extra,
                    b: no,
                });
                counts = both;
            }
            let (bin, offset, address, add) = (
                self.p.value(32),
                self.p.value(32),
                self.p.value(32),
                self.p.value(32),
            );
            self.p.ops.push(ProgramOp::Select {
                dst: bin,
                cond: counts,
                a: v,
                b: zero,
            });
            self.p.ops.push(ProgramOp::Arith {
                op: crate::lower::ir::ArithOp::Mul,
                ty: "i32",
                dst: offset,
                src: vec![bin, four],
            });
            self.p.ops.push(ProgramOp::Arith {
                op: crate::lower::ir::ArithOp::Add,
                ty: "i32",
                dst: address,
                src: vec![offset, base_register],
            });
            self.p.ops.push(ProgramOp::Select {
                dst: add,
                cond: counts,
                a: one,
                b: zero,
            });
            self.p.ops.push(ProgramOp::LdsAtomicAdd {
                src: add,
                address,
                region: (base, base + size),
            });
        }
        self.p.ops.push(ProgramOp::Barrier);
        let mut out = Vec::with_capacity(dout.registers());
        for k in 0..dout.registers() {
            let dst: Value = self.p.value(32);
            self.p.ops.push(ProgramOp::LdsRead {
                dst: vec![dst],
                address: bin_address(k),
            });
            out.push(dst);
        }
        self.define(
            op,
            Sym::Data {
                layout: Box::new(out_layout),
                values: out,
            },
        )
    }
}
