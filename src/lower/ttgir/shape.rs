//! Shape ops on data: `tt.reshape`, `tt.join`, `tt.split`, `tt.cat` — algebra on the layouts,
//! data moved only where the layouts say it must.
//!
//! Each op changes which tensor element a register holds without changing the register's
//! contents, so its operand's layout, rewritten for the result's shape, is a layout of the
//! result that the registers already satisfy: `reshape` reinterprets the out-dims row-major
//! ([`reshape_layout`]); `join` adds a last dimension of size 2 fed by a new, highest register
//! bit (the first operand's registers, then the second's). The result's own layout is then
//! reached by a conversion ([`convert::registers`]), free when the two layouts agree — which is
//! what Triton's layout choices for these ops arrange — and a register permutation, a lane
//! shuffle or a round trip through LDS otherwise. `split` is `join` read backwards: the operand
//! is converted to the join of the results' layout and its registers are halved. `tt.cat`
//! concatenates the operands' registers as Triton does (its element order is the one
//! `can_reorder` allows).
//!
//! # Worked example
//!
//! `tt.join` of two `tensor<64xf32>` in `blocked<{sizePerThread = [1], threadsPerWarp = [64]}>`
//! gives `tensor<64x2xf32>` in `blocked<{sizePerThread = [1, 2], threadsPerWarp = [64, 1],
//! order = [1, 0]}>`: lane `l` holds element `(l, 0)` in register 0 and `(l, 1)` in register 1 —
//! exactly the join layout (new register bit → dim1), so each thread's result is its two
//! operands' registers, no instruction emitted.

use super::{Lowering, fail};
use crate::linear::{LinearLayout, reshape_layout};
use crate::lower::error::LowerError;
use crate::lower::plan::convert;
use crate::ttgir::Op;

impl Lowering<'_> {
    /// `layout` with a last out-dim of size 2 along a new, highest register bit.
    fn joined(&self, op: &Op, layout: &LinearLayout) -> Result<LinearLayout, LowerError> {
        let name = format!("dim{}", layout.num_out_dims());
        let pair = LinearLayout::identity_1d(2, "register", name.as_str())?;
        let joined = layout.product(&pair)?;
        if joined.out_dim_names().last().map(|n| n.as_str()) != Some(name.as_str()) {
            return fail(op, "the operand's layout has out-dims other than dim0, dim1, …");
        }
        Ok(joined)
    }

    /// `tt.reshape`: the operand's registers, their layout reshaped row-major, converted to the
    /// result's.
    pub(super) fn reshape(&mut self, op: &Op) -> Result<(), LowerError> {
        let (layout, values) = self.typed_data(op, op.operands[0])?;
        let r = op.results[0];
        let shape = self.m.values[r].ty.shape.clone();
        let dst = self.layout(op, r)?;
        let reshaped = reshape_layout(&layout, &shape)?;
        let bits = self.bits(op, r)?;
        let values = convert::registers(&mut self.p, &reshaped, &dst, &values, bits, self.target)?;
        self.define_data(op, dst, values)
    }

    /// `tt.join`: the operands' registers side by side along a new last dimension.
    pub(super) fn join(&mut self, op: &Op) -> Result<(), LowerError> {
        let (la, a) = self.typed_data(op, op.operands[0])?;
        let (lb, b) = self.typed_data(op, op.operands[1])?;
        if la != lb {
            return fail(op, "joins operands in different layouts");
        }
        let r = op.results[0];
        let dst = self.layout(op, r)?;
        let joined = self.joined(op, &la)?;
        let bits = self.bits(op, r)?;
        let values: Vec<_> = a.into_iter().chain(b).collect();
        let values = convert::registers(&mut self.p, &joined, &dst, &values, bits, self.target)?;
        self.define_data(op, dst, values)
    }

    /// `tt.split`: the operand converted to the join of the results' layout, its registers
    /// halved.
    pub(super) fn split(&mut self, op: &Op) -> Result<(), LowerError> {
        let (layout, values) = self.typed_data(op, op.operands[0])?;
        let [lo, hi] = op.results[..] else {
            return fail(op, "splits into two results");
        };
        let half = self.layout(op, lo)?;
        if self.layout(op, hi)? != half {
            return fail(op, "splits into results of different layouts");
        }
        let joined = self.joined(op, &half)?;
        let bits = self.bits(op, lo)?;
        let values = convert::registers(&mut self.p, &layout, &joined, &values, bits, self.target)?;
        let (first, second) = values.split_at(values.len() / 2);
        self.syms[lo] = Some(super::Sym::Data {
            layout: Box::new(half.clone()),
            values: first.to_vec(),
        });
        self.syms[hi] = Some(super::Sym::Data {
            layout: Box::new(half),
            values: second.to_vec(),
        });
        Ok(())
    }

    /// `tt.cat`: the first operand's registers, then the second's.
    pub(super) fn cat(&mut self, op: &Op) -> Result<(), LowerError> {
        let (_, a) = self.typed_data(op, op.operands[0])?;
        let (_, b) = self.typed_data(op, op.operands[1])?;
        let r = op.results[0];
        let dst = self.layout(op, r)?;
        let registers = crate::lower::plan::dist::Dist::of(&dst, self.target.wave_size)?.registers();
        if a.len() + b.len() != registers {
            return fail(
                op,
                "the result's layout holds another number of registers than the operands together",
            );
        }
        self.define_data(op, dst, a.into_iter().chain(b).collect())
    }
}
