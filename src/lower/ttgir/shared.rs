//! Shared memory: `ttg.local_alloc` of a value, `ttg.local_load` in another layout; mutable
//! buffers (`ttg.local_alloc` without a value, `ttg.memdesc_index`, `ttg.local_store`).
//!
//! A tile allocated with its value is written to LDS through its memdesc's shared layout
//! (offset → tensor) and read back in the layout of the load: one round trip in its own part of
//! LDS, as the conversions plan them, with gfx950's transposing reads where they take fewer
//! instructions. A mutable buffer is written and read apart (a software-pipelined loop stores
//! the next tile while the dot reads this one): `ttg.local_store` writes each register where the
//! shared layout puts its element and `ttg.local_load` reads them back — the two halves of a
//! round trip, planned as one is — with a barrier before a read of bytes written since the last
//! one and before a write over bytes still being read.

use super::{Lowering, Sym, fail};
use crate::heuristics::convert::lds_bank_conflicts;
use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::{Op as ProgramOp, Uniform, Value};
use crate::lower::plan::dist::{Dist, Loader};
use crate::lower::plan::lds::{Half, Source, Transfer, Trip, halves, round_trips};
use crate::target::{LdsOp, Target};
use crate::ttgir::Op;

/// A tile in LDS.
#[derive(Clone, Debug)]
pub(super) struct SharedTile {
    /// The layout of the registers it is written from, and their values.
    layout: LinearLayout,
    pub(super) values: Vec<Value>,
    /// offset → tensor.
    shared: LinearLayout,
    /// Byte offset in LDS, and bytes.
    base: u64,
    bytes: u64,
    bits: u32,
}

/// A `ttg.local_load` of a tile not issued yet ([`Sym::SharedRead`]): the tile and the layout
/// it is read in.
#[derive(Clone, Debug)]
pub(super) struct SharedRead {
    tile: SharedTile,
    layout: LinearLayout,
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

/// A mutable LDS buffer (`ttg.local_alloc` without a value), or one slice of it
/// (`ttg.memdesc_index`): where it lives, and the shared layout of the slice once indexed.
/// A slice sits `offset` bytes into its allocation — a constant, or a uniform when the index
/// is known at run time only (a pipeline's stage slot), and then its accesses run in an
/// [`LdsWindow`](crate::lower::ir::Op::LdsWindow).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct LdsBuffer {
    base: u64,
    /// Bytes of the slice (of the allocation, before indexing).
    bytes: u64,
    /// Bytes of the whole allocation.
    span: u64,
    bits: u32,
    /// offset → tensor of the slice (`None`: the allocation itself, not indexed yet).
    shared: Option<LinearLayout>,
    /// Where the slice starts in the allocation, in bytes.
    pub(super) offset: Uniform,
}

impl LdsBuffer {
    /// The same slice of the same allocation, wherever it is.
    pub(super) fn same_buffer(&self, other: &LdsBuffer) -> bool {
        (self.base, self.bytes, self.span, self.bits, &self.shared)
            == (other.base, other.bytes, other.span, other.bits, &other.shared)
    }
}

impl Lowering<'_> {
    /// A part of LDS of `bytes`, aligned to its size rounded up to a power of two.
    pub(super) fn allocate(&mut self, bytes: u64) -> Result<u64, LowerError> {
        let align = bytes.next_power_of_two().max(1);
        let base = self.lds_top.div_ceil(align) * align;
        self.lds_top = base + bytes;
        if self.lds_top > self.target.lds_bytes {
            return Err(LowerError::new(format!(
                "the kernel needs {} bytes of LDS; {} has {}",
                self.lds_top, self.target.name, self.target.lds_bytes
            )));
        }
        self.p.lds_bytes = self.p.lds_bytes.max(self.lds_top);
        Ok(base)
    }

    /// `ttg.local_alloc` without a value: a mutable buffer of the memdesc's shape.
    fn alloc_buffer(&mut self, op: &Op) -> Result<(), LowerError> {
        let r = op.results[0];
        let bits = self.bits(op, r)?;
        let elements = self.m.values[r]
            .ty
            .shape
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .filter(|&n| n > 0 && n <= 1 << 24)
            .map_or_else(|| fail(op, "a buffer of no or too many elements"), Ok)?;
        let bytes = elements * u64::from(bits / 8);
        let base = self.allocate(bytes)?;
        self.placed.push((self.current, base + bytes));
        self.define(
            op,
            Sym::Buffer(Box::new(LdsBuffer {
                base,
                bytes,
                span: bytes,
                bits,
                shared: None,
                offset: Uniform::default(),
            })),
        )
    }

    /// `ttg.memdesc_index %buffer[%i]`: slice `i` of a buffer along its first dimension, at
    /// `i · slice bytes` (a constant, or a uniform the accesses add at run time).
    pub(super) fn memdesc_index(&mut self, op: &Op) -> Result<(), LowerError> {
        let Sym::Buffer(buffer) = self.operand(op, 0)?.clone() else {
            return fail(op, "indexes a value that is not a buffer of ttg.local_alloc");
        };
        let Sym::Int(index) = self.operand(op, 1)?.clone() else {
            return fail(op, "indexes by a value that is not a uniform integer");
        };
        let slices = self.m.values[op.operands[0]]
            .ty
            .shape
            .first()
            .copied()
            .unwrap_or(0);
        let r = op.results[0];
        let shared = self.layout(op, r)?;
        let bytes = shared.in_dim_size("offset")? * u64::from(buffer.bits / 8);
        if bytes.saturating_mul(slices) > buffer.bytes {
            return fail(op, "the slices' layout reaches past their buffer");
        }
        if index
            .as_constant()
            .is_some_and(|c| !(0..slices as i64).contains(&c))
        {
            return fail(op, format!("slice {index:?} of {slices}"));
        }
        // With one slice (Triton's pipeliner at two stages) every valid index is 0, whatever
        // uniform computes it.
        let offset = if slices == 1 {
            buffer.offset.clone()
        } else {
            buffer.offset.add(&index.mul(&Uniform::constant(bytes as i64)), 1)
        };
        self.define(
            op,
            Sym::Buffer(Box::new(LdsBuffer {
                shared: Some(shared),
                bytes,
                offset,
                ..*buffer
            })),
        )
    }

    /// The static base of a slice's accesses, and the uniform offset they run at when it is
    /// known at run time only.
    fn placed(buffer: &LdsBuffer) -> (u64, Option<Uniform>) {
        match buffer.offset.as_constant() {
            Some(c) => (buffer.base + c as u64, None),
            None => (buffer.base, Some(buffer.offset.clone())),
        }
    }

    /// The ops pushed since `start` in an LDS window at `offset`, if there is one.
    fn in_window(&mut self, start: usize, offset: Option<Uniform>) {
        if let Some(offset) = offset {
            let ops = self.p.ops.split_off(start);
            self.p.ops.push(ProgramOp::LdsWindow { offset, ops });
        }
    }

    /// The slice `i` names, its shared layout.
    fn slice(&self, op: &Op, i: usize) -> Result<(LdsBuffer, LinearLayout), LowerError> {
        match self.operand(op, i)? {
            Sym::Buffer(b) => match &b.shared {
                Some(shared) => Ok(((**b).clone(), shared.clone())),
                None => fail(op, "a buffer used before ttg.memdesc_index gives its slice"),
            },
            _ => fail(
                op,
                "the memory operand is not a slice of a ttg.local_alloc buffer",
            ),
        }
    }

    /// Whether gfx950's transposing reads take fewer instructions reading `shared` into `dst`:
    /// lane s of each 16 supplies the address of the 64-bit chunk lane L receives as its
    /// registers j, so the chunk's elements must be consecutive in the shared layout along the
    /// addressing lanes.
    fn reads_transposed(
        &self,
        dst: &LinearLayout,
        d: &Dist,
        shared: &LinearLayout,
        (bits, read_vector): (u32, u64),
    ) -> Result<bool, LowerError> {
        let regs = 1u64 << d.reg.iter().filter(|&&c| c != 0).count();
        let plain_reads = regs / read_vector.max(1);
        Ok(match transposing_view(dst, bits, self.target)? {
            Some(view) => {
                let r = lds_bank_conflicts(&view, shared, bits, self.target, LdsOp::Read)?;
                r.vector_elems * u64::from(bits) >= 64 && (regs * u64::from(bits) / 64).max(1) < plain_reads
            }
            None => false,
        })
    }

    /// `ttg.local_store %value, %slice`: the writes of a round trip alone.
    pub(super) fn local_store(&mut self, op: &Op) -> Result<(), LowerError> {
        let (buffer, shared) = self.slice(op, 1)?;
        let (layout, values) = self.typed_data(op, op.operands[0])?;
        if self.bits(op, op.operands[0])? != buffer.bits {
            return fail(op, "stores elements of another width than the buffer's");
        }
        let s = Dist::of(&layout, self.target.wave_size)?;
        let write = lds_bank_conflicts(&layout, &shared, buffer.bits, self.target, LdsOp::Write)?;
        let (base, window) = Self::placed(&buffer);
        if window.is_some() {
            // Whichever slice it is, no wave may still be reading it.
            self.p.fence_lds_reuse(buffer.base, buffer.base + buffer.span);
        }
        let start = self.p.ops.len();
        let mut loader = Loader::loaded(&s, &values, buffer.bits);
        let transfer = Transfer {
            s: &s,
            d: &s,
            trip: Trip {
                shared: &shared,
                reps: 1,
                lds_bytes: buffer.bytes,
                write_vector: write.vector_elems,
                read_vector: 1,
                read_transposed: false,
                element_bits: buffer.bits,
            },
            base,
            source: Source::Registers(&mut loader),
            sink: None,
        };
        halves(&mut self.p, &mut [transfer], self.target, Half::Write)?;
        self.in_window(start, window);
        Ok(())
    }

    /// `ttg.local_load` of a slice: the reads of a round trip alone, after a barrier if the
    /// slice was written since the last one.
    fn load_slice(&mut self, op: &Op) -> Result<(), LowerError> {
        let (buffer, shared) = self.slice(op, 0)?;
        let r = op.results[0];
        let dst = self.layout(op, r)?;
        if self.bits(op, r)? != buffer.bits {
            return fail(op, "reads elements of another width than the buffer's");
        }
        let d = Dist::of(&dst, self.target.wave_size)?;
        let read = lds_bank_conflicts(&dst, &shared, buffer.bits, self.target, LdsOp::Read)?;
        let read_transposed = self.reads_transposed(&dst, &d, &shared, (buffer.bits, read.vector_elems))?;
        let (base, window) = Self::placed(&buffer);
        match window {
            Some(_) => self.p.fence_lds_writes(buffer.base, buffer.base + buffer.span),
            None => self.p.fence_lds_writes(base, base + buffer.bytes),
        }
        let start = self.p.ops.len();
        let mut loader = Loader::loaded(&d, &[], buffer.bits);
        let transfer = Transfer {
            s: &d,
            d: &d,
            trip: Trip {
                shared: &shared,
                reps: 1,
                lds_bytes: buffer.bytes,
                write_vector: 1,
                read_vector: read.vector_elems,
                read_transposed,
                element_bits: buffer.bits,
            },
            base,
            source: Source::Registers(&mut loader),
            sink: None,
        };
        let values = halves(&mut self.p, &mut [transfer], self.target, Half::Read)?
            .pop()
            .ok_or_else(|| LowerError::new("a read without a result"))?;
        self.in_window(start, window);
        self.define_data(op, dst, values)
    }

    /// `ttg.local_alloc` of a value: a tile in its own part of LDS; without one, a buffer.
    pub(super) fn local_alloc(&mut self, op: &Op) -> Result<(), LowerError> {
        let Some(&src) = op.operands.first() else {
            return self.alloc_buffer(op);
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
        self.placed.push((self.current, base + bytes));
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
        if let Sym::Buffer(_) = self.operand(op, 0)? {
            self.issue_shared_reads()?;
            return self.load_slice(op);
        }
        let Sym::Shared(tile) = self.operand(op, 0)?.clone() else {
            return fail(op, "reads a buffer that is not a tile written by ttg.local_alloc");
        };
        let r = op.results[0];
        let layout = self.layout(op, r)?;
        // Reads batch only over tiles in parts of LDS of their own.
        let (lo, hi) = (tile.base, tile.base + tile.bytes);
        let overlapping = self.syms.iter().flatten().any(|s| {
            matches!(s, Sym::SharedRead(read) if read.tile.base < hi && lo < read.tile.base + read.tile.bytes)
        });
        if overlapping {
            self.issue_shared_reads()?;
        }
        self.define(op, Sym::SharedRead(Box::new(SharedRead { tile: *tile, layout })))
    }

    /// Every `ttg.local_load` of a tile not issued yet, now, in one batch of round trips:
    /// every tile written, one barrier, every tile read back.
    pub(super) fn issue_shared_reads(&mut self) -> Result<(), LowerError> {
        let pending: Vec<(usize, SharedRead)> = self
            .syms
            .iter()
            .enumerate()
            .filter_map(|(v, s)| match s {
                Some(Sym::SharedRead(read)) => Some((v, (**read).clone())),
                _ => None,
            })
            .collect();
        if pending.is_empty() {
            return Ok(());
        }
        let reads: Vec<&SharedRead> = pending.iter().map(|(_, r)| r).collect();
        let values = self.through_lds(&reads)?;
        for ((v, read), values) in pending.into_iter().zip(values) {
            let layout = Box::new(read.layout);
            self.syms[v] = Some(Sym::Data { layout, values });
        }
        Ok(())
    }

    /// Tiles written to LDS and read back, each in its layout and its own part of LDS: one
    /// batch of round trips. Returns each read's registers.
    fn through_lds(&mut self, reads: &[&SharedRead]) -> Result<Vec<Vec<Value>>, LowerError> {
        let mut sources = Vec::with_capacity(reads.len());
        let mut dests = Vec::with_capacity(reads.len());
        let mut vectors = Vec::with_capacity(reads.len());
        let mut transposed = Vec::with_capacity(reads.len());
        for read in reads {
            let (tile, dst) = (&read.tile, &read.layout);
            let s = Dist::of(&tile.layout, self.target.wave_size)?;
            let d = Dist::of(dst, self.target.wave_size)?;
            let write = lds_bank_conflicts(&tile.layout, &tile.shared, tile.bits, self.target, LdsOp::Write)?;
            let read_cost = lds_bank_conflicts(dst, &tile.shared, tile.bits, self.target, LdsOp::Read)?;
            transposed.push(self.reads_transposed(
                dst,
                &d,
                &tile.shared,
                (tile.bits, read_cost.vector_elems),
            )?);
            vectors.push((write.vector_elems, read_cost.vector_elems));
            sources.push(s);
            dests.push(d);
        }
        let mut loaders: Vec<Loader> = reads
            .iter()
            .zip(&sources)
            .map(|(read, s)| Loader::loaded(s, &read.tile.values, read.tile.bits))
            .collect();
        let mut transfers: Vec<Transfer> = reads
            .iter()
            .zip(&sources)
            .zip(&dests)
            .zip(&mut loaders)
            .zip(vectors.iter().zip(transposed))
            .map(
                |((((read, s), d), loader), (&(write_vector, read_vector), read_transposed))| Transfer {
                    s,
                    d,
                    trip: Trip {
                        shared: &read.tile.shared,
                        reps: 1,
                        lds_bytes: read.tile.bytes,
                        write_vector,
                        read_vector,
                        read_transposed,
                        element_bits: read.tile.bits,
                    },
                    base: read.tile.base,
                    source: Source::Registers(loader),
                    sink: None,
                },
            )
            .collect();
        round_trips(&mut self.p, &mut transfers, self.target)
    }
}
