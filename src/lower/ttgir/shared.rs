//! Shared memory: `ttg.local_alloc` of a value, `ttg.local_load` in another layout.
//!
//! A tile is written to LDS through its memdesc's shared layout (offset → tensor) and read back
//! in the layout of the load: one round trip in its own part of LDS, as the conversions plan
//! them, with gfx950's transposing reads where they take fewer instructions.

use super::{Lowering, Sym, fail};
use crate::heuristics::convert::lds_bank_conflicts;
use crate::linear::LinearLayout;
use crate::lower::LowerError;
use crate::lower::dist::{Dist, Loader};
use crate::lower::lds::{Source, Transfer, Trip, round_trips};
use crate::lower::program::Value;
use crate::target::{LdsOp, Target};
use crate::ttgir::Op;

/// A tile in LDS.
#[derive(Clone, Debug)]
pub(super) struct SharedTile {
    /// The layout of the registers it is written from, and their values.
    layout: LinearLayout,
    values: Vec<Value>,
    /// offset → tensor.
    shared: LinearLayout,
    /// Byte offset in LDS, and bytes.
    base: u64,
    bytes: u64,
    bits: u32,
}

/// The layout whose lanes supply the addresses of `ds_read_b64_tr_b{8,16}` reading `dst`: its
/// registers are `dst`'s first lanes (the chunk's elements), its lanes the rest of the 16-lane
/// group, then `dst`'s first registers, then the upper lanes. `None` where the target has no such
/// read or the layout does not fit it.
fn transposing_view(
    dst: &LinearLayout,
    bits: u32,
    target: &Target,
) -> Result<Option<LinearLayout>, LowerError> {
    if !target.instructions.ds_read_tr_b64 || !(bits == 8 || bits == 16) {
        return Ok(None);
    }
    let e = (64 / bits).trailing_zeros() as usize;
    let bases = |d: &str| -> Result<Vec<Vec<i64>>, LowerError> {
        Ok(if dst.has_in_dim(d) {
            dst.bases(d)?
                .into_iter()
                .map(|b| b.into_iter().map(|x| x as i64).collect())
                .collect()
        } else {
            Vec::new()
        })
    };
    let (reg, lane, warp) = (bases("register")?, bases("lane")?, bases("warp")?);
    if lane.len() < 4 || reg.len() < e {
        return Ok(None);
    }
    let mut vreg = lane[..e].to_vec();
    vreg.extend_from_slice(&reg[e..]);
    let mut vlane = lane[e..4].to_vec();
    vlane.extend_from_slice(&reg[..e]);
    vlane.extend_from_slice(&lane[4..]);
    if vreg.iter().any(|b| b.iter().all(|&x| x == 0)) {
        return Ok(None);
    }
    let outs: Vec<(String, i64)> = dst.out_dims().map(|(n, s)| (n.to_string(), s as i64)).collect();
    Ok(Some(LinearLayout::from_bases(
        [("register", vreg), ("lane", vlane), ("warp", warp)],
        outs,
        false,
    )?))
}

impl Lowering<'_> {
    /// `ttg.local_alloc` of a value: a tile in its own part of LDS.
    pub(super) fn local_alloc(&mut self, op: &Op) -> Result<(), LowerError> {
        let Some(&src) = op.operands.first() else {
            return fail(op, "an allocation without a value to hold is not lowered yet");
        };
        let (layout, values) = self.typed_data(op, src)?;
        let r = op.results[0];
        let shared = self.layout(op, r)?;
        let bits = self.bits(op, r)?;
        if bits != self.bits(op, src)? {
            return fail(op, "the buffer's elements have another width than the value's");
        }
        let bytes = shared.in_dim_size("offset")? * u64::from(bits / 8);
        let align = bytes.next_power_of_two();
        let base = self.lds_top.div_ceil(align) * align;
        self.lds_top = base + bytes;
        self.define(
            op,
            Sym::Shared(Box::new(SharedTile {
                layout: *layout,
                values,
                shared,
                base,
                bytes,
                bits,
            })),
        )
    }

    /// `ttg.local_load`: the tile read back in the result's layout.
    pub(super) fn local_load(&mut self, op: &Op) -> Result<(), LowerError> {
        let Sym::Shared(tile) = self.operand(op, 0)?.clone() else {
            return fail(op, "reads a buffer that is not a tile written by ttg.local_alloc");
        };
        let r = op.results[0];
        let dst = self.layout(op, r)?;
        let values = self.through_lds(&tile, &dst)?;
        self.define_data(op, dst, values)
    }

    /// A tile written to LDS and read back in `dst`: one round trip in its own part of LDS.
    fn through_lds(&mut self, tile: &SharedTile, dst: &LinearLayout) -> Result<Vec<Value>, LowerError> {
        let s = Dist::of(&tile.layout, self.target.wave_size)?;
        let d = Dist::of(dst, self.target.wave_size)?;
        let write = lds_bank_conflicts(&tile.layout, &tile.shared, tile.bits, self.target, LdsOp::Write)?;
        let read = lds_bank_conflicts(dst, &tile.shared, tile.bits, self.target, LdsOp::Read)?;
        // gfx950's transposing reads, where they take fewer instructions: lane s of each 16
        // supplies the address of the 64-bit chunk lane L receives as its registers j, so the
        // chunk's elements must be consecutive in the shared layout along the addressing lanes.
        let regs = 1u64 << d.reg.iter().filter(|&&c| c != 0).count();
        let plain_reads = regs / read.vector_elems.max(1);
        let read_transposed = match transposing_view(dst, tile.bits, self.target)? {
            Some(view) => {
                let r = lds_bank_conflicts(&view, &tile.shared, tile.bits, self.target, LdsOp::Read)?;
                r.vector_elems * u64::from(tile.bits) >= 64
                    && (regs * u64::from(tile.bits) / 64).max(1) < plain_reads
            }
            None => false,
        };
        let mut loader = Loader::loaded(&s, &tile.values, tile.bits);
        let transfer = Transfer {
            s: &s,
            d: &d,
            trip: Trip {
                shared: &tile.shared,
                reps: 1,
                lds_bytes: tile.bytes,
                write_vector: write.vector_elems,
                read_vector: read.vector_elems,
                read_transposed,
                element_bits: tile.bits,
            },
            base: tile.base,
            source: Source::Registers(&mut loader),
            sink: None,
        };
        round_trips(&mut self.p, &mut [transfer], self.target)?
            .pop()
            .ok_or_else(|| LowerError::new("a round trip without a result"))
    }
}
