//! `tt.gather`: `out[…, j, …] = src[…, index[…, j, …], …]` along one axis, through LDS.
//!
//! The looked-up element may live in any thread, so the source goes to LDS first: register `r`
//! of thread `t` holds the element at flat position `P(r) ⊕ T(t)` (dim0 in the low bits, a
//! linear map of the layout), and is written at byte `bytes · position` — an address linear in
//! the thread id, one `ds_write` per register. After a barrier, each result element reads the
//! source at its own coordinates with the axis coordinate replaced by its index: the other
//! coordinates are again linear in the thread id (a thread map), the index is data, so the
//! address is `bytes · (others | index << shift)` in a register and the read is one
//! `ds_read` at it.
//!
//! # Worked example
//!
//! `tl.gather(x, idx, 0)` of 256 f32 over 64 lanes × 4 warps, one element per thread: each
//! thread writes its `x` at `4 · tid`, and after the barrier reads `4 · idx` — 1 write, 1
//! barrier, 1 shift and 1 read per thread.

use super::{Lowering, Sym, fail};
use crate::lower::error::LowerError;
use crate::lower::ir::{ArithOp, Op as ProgramOp, Value, XorMap};
use crate::lower::plan::convert;
use crate::lower::plan::dist::Dist;
use crate::ttgir::{AttrValue, Op, attr};

impl Lowering<'_> {
    /// `tt.gather %src[%index] {axis}`.
    pub(super) fn gather_along_axis(&mut self, op: &Op) -> Result<(), LowerError> {
        let axis = match attr(&op.attrs, "axis") {
            Some(AttrValue::Int(a)) if *a >= 0 => *a as usize,
            _ => return fail(op, "has no axis"),
        };
        let r = op.results[0];
        let (src_layout, src) = self.typed_data(op, op.operands[0])?;
        let (index_layout, index) = self.registers_of(op, op.operands[1])?;
        let out_layout = self.layout(op, r)?;
        let wave = self.target.wave_size;
        let (ds, di, dout) = (
            Dist::of(&src_layout, wave)?,
            Dist::of(&index_layout, wave)?,
            Dist::of(&out_layout, wave)?,
        );
        let rank = ds.dim_bits.len();
        if axis >= rank || di.dim_bits != dout.dim_bits || dout.dim_bits.len() != rank {
            return fail(
                op,
                "the source, the index and the result disagree in rank or shape",
            );
        }
        if (0..rank).any(|d| d != axis && ds.dim_bits[d] != dout.dim_bits[d]) {
            return fail(
                op,
                "the index's dimensions other than the axis differ from the source's",
            );
        }
        // Each result register reads at its own index: an index in another layout is
        // converted to the result's first.
        let index = if di.thread != dout.thread
            || di.registers() != dout.registers()
            || (0..di.registers()).any(|k| di.reg_position(k) != dout.reg_position(k))
        {
            let index_bits = self.bits(op, op.operands[1])?;
            convert::registers(
                &mut self.p,
                &index_layout,
                &out_layout,
                &index,
                index_bits,
                self.target,
            )?
        } else {
            index
        };
        let bits = self.bits(op, r)?;
        let bytes = u64::from(bits.div_ceil(8));
        let size = bytes << ds.dim_bits.iter().sum::<u32>();
        let base = self.allocate(size)?;
        self.p.fence_lds_reuse(base, base + size);
        // The source, each register at its flat position.
        for (k, &v) in src.iter().enumerate() {
            let address = XorMap {
                cols: ds.thread.iter().map(|&c| c * bytes).collect(),
                constant: base + ds.reg_position(k) * bytes,
            };
            self.p.ops.push(ProgramOp::LdsWrite {
                src: vec![v],
                address,
            });
        }
        self.p.ops.push(ProgramOp::Barrier);
        // Each result: its coordinates but the axis' (in the source's flat order) plus the index.
        let shift: u32 = ds.dim_bits[..axis].iter().sum();
        let src_shift = |d: usize| -> u32 { ds.dim_bits[..d].iter().sum() };
        let others = |flat: u64| -> u64 {
            (0..rank)
                .filter(|&d| d != axis)
                .map(|d| dout.coord(flat, d) << src_shift(d))
                .fold(0, |a, b| a | b)
        };
        let index_bits = self.p.value_bits(index[0]);
        let mut out = Vec::with_capacity(dout.registers());
        for (k, &i) in index.iter().enumerate() {
            let rest = self.p.value(32);
            self.p.ops.push(ProgramOp::ThreadMap {
                dst: rest,
                map: XorMap {
                    cols: dout.thread.iter().map(|&c| others(c) * bytes).collect(),
                    constant: base + others(dout.reg_position(k)) * bytes,
                },
            });
            let i32_index = if index_bits == 32 {
                i
            } else {
                let w = self.p.value(32);
                let from = match index_bits {
                    64 => "i64",
                    16 => "i16",
                    8 => "i8",
                    _ => return fail(op, format!("an index of {index_bits}-bit integers")),
                };
                self.p.ops.push(ProgramOp::Convert {
                    dst: vec![w],
                    src: vec![i],
                    from,
                    to: "i32",
                });
                w
            };
            let scale = self.constant_register(bytes << shift);
            let scaled = self.binary(ArithOp::Mul, "i32", i32_index, scale);
            let address = self.binary(ArithOp::Add, "i32", rest, scaled);
            let dst = self.p.value(bits);
            self.p.ops.push(ProgramOp::LdsReadIndexed {
                dst,
                address,
                region: (base, base + size),
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

    /// A 32-bit constant in every thread.
    fn constant_register(&mut self, c: u64) -> Value {
        let dst = self.p.value(32);
        self.p.ops.push(ProgramOp::Constant { dst, bits: c });
        dst
    }
}
