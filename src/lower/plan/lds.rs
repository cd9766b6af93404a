//! The round trip through LDS, following the cost model's [`SharedPlan`].
//!
//! The plan's shared layout maps (offset, reps) to tensor positions. Its inverse composed with
//! a distributed layout gives each (register, lane, warp) bit an offset column and a reps
//! column; the thread bits must have no reps part (a round trip is the same for every thread),
//! so the reps index of a register picks the round trip it travels in. In each round trip the
//! writer stores its registers in vectors of the plan's width — the register bits whose offset
//! columns are `1, 2, 4, …` — at `offset·bytes`, a barrier passes, and the reader loads its
//! registers the same way (or, for gfx950's transposing reads, as the virtual layout of
//! [`optimal_shared_layout`](crate::heuristics::convert::optimal_shared_layout) says: lane `s`
//! of each 16 supplies the address of the 64-bit chunk that becomes register `j` of lane `L`).
//! Addresses are [`XorMap`]s: swizzled offset bits become `xor`s, disjoint register constants
//! are added (LLVM folds them into `offset:` fields and pairs them into `read2`/`write2`).

use std::collections::HashMap;

use super::dist::{Dist, Loader, Storer};
use crate::heuristics::convert::SharedPlan;
use crate::linear::LinearLayout;
use crate::linear::gf2::{Echelon, combine};
use crate::lower::error::LowerError;
use crate::lower::ir::{Op, Program, Value, XorMap};
use crate::target::Target;

/// Inverse of the plan's shared layout: tensor position → (offset, reps).
struct Shared {
    solver: Echelon,
    offset_bits: usize,
}

impl Shared {
    fn of(shared: &LinearLayout) -> Result<Shared, LowerError> {
        let flat = shared.flatten_outs()?;
        let get = |d: &str| -> Result<Vec<u64>, LowerError> {
            Ok(if flat.has_in_dim(d) {
                flat.flat_bases(d)?.to_vec()
            } else {
                Vec::new()
            })
        };
        let (offset, reps) = (get("offset")?, get("reps")?);
        if offset.len() + reps.len() > 40 {
            return Err(LowerError::new("the shared layout is too large"));
        }
        let mut solver = Echelon::new();
        for (i, &c) in offset.iter().chain(&reps).enumerate() {
            if !solver.insert(c, i as u32) {
                return Err(LowerError::new("the plan's shared layout is not injective"));
            }
        }
        Ok(Shared {
            solver,
            offset_bits: offset.len(),
        })
    }

    /// (offset, reps) of a tensor position.
    fn locate(&self, position: u64) -> Result<(u64, u64), LowerError> {
        let c = self
            .solver
            .solve(position)
            .ok_or_else(|| LowerError::new("an element has no place in the plan's shared layout"))?;
        Ok((c & ((1u64 << self.offset_bits) - 1), c >> self.offset_bits))
    }
}

/// The LDS offsets (elements) of tensor positions in a single-tile shared layout.
pub(crate) fn shared_offsets(shared: &LinearLayout, positions: &[u64]) -> Result<Vec<u64>, LowerError> {
    let s = Shared::of(shared)?;
    positions
        .iter()
        .map(|&c| match s.locate(c)? {
            (o, 0) => Ok(o),
            _ => Err(LowerError::new(
                "the shared layout holds the tensor in more than one tile",
            )),
        })
        .collect()
}

/// One side of the round trip: which registers travel together and where.
struct Side {
    /// Offset column of each thread bit (elements).
    thread: Vec<u64>,
    /// Per thread bit, the registers (compact mask) a thread with that bit set exchanges for
    /// the ones of the same round trip: `rep(Q(t)) = rep(t)`.
    swap: Vec<u64>,
    /// Per access: (round trip, offset constant, compact registers in element order).
    accesses: Vec<(u64, u64, Vec<u64>)>,
}

/// Plans the accesses of `regs` (distinct register columns) and `thread` columns for a vector
/// of `vector` elements.
///
/// A thread bit whose position has a reps part moves the thread's elements to another round
/// trip; the registers `Q(t)` with the same reps part bring them back, so in round trip `ρ`
/// thread `t` moves its registers `base ⊕ Q(t)` (selects on the thread bits) at offset
/// `offset(base) ⊕ offset(Q(t)) ⊕ offset(t)` — still linear in `t`.
fn side(shared: &Shared, regs: &[u64], thread: &[u64], vector: u64, what: &str) -> Result<Side, LowerError> {
    let located = regs
        .iter()
        .map(|&c| shared.locate(c))
        .collect::<Result<Vec<_>, _>>()?;
    let vbits = vector.trailing_zeros() as usize;
    let mut inner = Vec::new();
    for t in 0..vbits {
        let j = located
            .iter()
            .position(|&(o, r)| o == 1u64 << t && r == 0)
            .ok_or_else(|| {
                LowerError::new(format!(
                    "the {what}'s vector of {vector} elements is not in its registers"
                ))
            })?;
        inner.push(j);
    }
    let (offs, reps): (Vec<u64>, Vec<u64>) = located.into_iter().unzip();
    // Registers whose offset no thread bit reaches first: accesses differing only there share
    // a base and sit next to each other, where LLVM pairs them into read2/write2.
    let mut reach = 0u64;
    for &c in thread {
        reach |= shared.locate(c)?.0;
    }
    let mut outer: Vec<usize> = (0..regs.len()).filter(|j| !inner.contains(j)).collect();
    outer.sort_by_key(|&j| offs[j] & reach != 0);
    let mut by_reps = Echelon::new();
    for &j in &outer {
        by_reps.insert(reps[j], j as u32);
    }
    let (mut thread_off, mut swap) = (Vec::new(), Vec::new());
    for &c in thread {
        let (o, r) = shared.locate(c)?;
        let q = by_reps.solve(r).ok_or_else(|| {
            LowerError::new(format!(
                "the {what}'s threads take part in round trips its registers do not"
            ))
        })?;
        thread_off.push(o ^ combine(&offs, q));
        swap.push(q);
    }
    let mut accesses = Vec::new();
    for o in 0..1u64 << outer.len() {
        let base = outer
            .iter()
            .enumerate()
            .filter(|&(k, _)| o >> k & 1 == 1)
            .fold(0u64, |a, (_, &j)| a | 1 << j);
        let members: Vec<u64> = (0..1u64 << vbits)
            .map(|e| {
                inner
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| e >> k & 1 == 1)
                    .fold(base, |a, (_, &j)| a | 1 << j)
            })
            .collect();
        accesses.push((combine(&reps, base), combine(&offs, base), members));
    }
    accesses.sort_by_key(|a| a.0);
    Ok(Side {
        thread: thread_off,
        swap,
        accesses,
    })
}

/// `value(c ⊕ Q(t))` for thread `t`: selects on the thread bits `Q` reads.
fn exchanged(
    p: &mut Program,
    swap: &[u64],
    c: u64,
    leaf: &mut dyn FnMut(&mut Program, u64) -> Value,
    memo: &mut HashMap<(usize, u64), Value>,
) -> Value {
    fn go(
        p: &mut Program,
        bits: &[(u32, u64)],
        i: usize,
        acc: u64,
        leaf: &mut dyn FnMut(&mut Program, u64) -> Value,
        memo: &mut HashMap<(usize, u64), Value>,
    ) -> Value {
        if i == bits.len() {
            return leaf(p, acc);
        }
        if let Some(&v) = memo.get(&(i, acc)) {
            return v;
        }
        let (bit, step) = bits[i];
        let zero = go(p, bits, i + 1, acc, leaf, memo);
        let one = go(p, bits, i + 1, acc ^ step, leaf, memo);
        let dst = p.value(p.value_bits(zero));
        p.ops.push(Op::SelectOnThreadBit { dst, bit, one, zero });
        memo.insert((i, acc), dst);
        dst
    }
    let bits: Vec<(u32, u64)> = swap
        .iter()
        .enumerate()
        .filter(|&(_, &q)| q != 0)
        .map(|(k, &q)| (k as u32, q))
        .collect();
    go(p, &bits, 0, c, leaf, memo)
}

/// One round trip's shape: the shared layout, how many tiles, and the vectors of each side.
pub(crate) struct Trip<'a> {
    /// offset (one LDS tile) → tensor, then `reps`.
    pub shared: &'a LinearLayout,
    /// Tiles moved one after another.
    pub reps: u64,
    /// LDS bytes of one tile.
    pub lds_bytes: u64,
    /// Elements per write.
    pub write_vector: u64,
    /// Elements per read.
    pub read_vector: u64,
    /// The read uses gfx950's `ds_read_b64_tr_bN`.
    pub read_transposed: bool,
    /// Bits per element.
    pub element_bits: u32,
}

impl<'a> Trip<'a> {
    /// The round trip the cost model planned.
    pub(crate) fn of(plan: &'a SharedPlan, element_bits: u32) -> Trip<'a> {
        Trip {
            shared: &plan.shared,
            reps: plan.reps,
            lds_bytes: plan.lds_bytes,
            write_vector: plan.write.vector_elems,
            read_vector: plan.read.vector_elems,
            read_transposed: plan.read_transposed,
            element_bits,
        }
    }
}

/// What fills LDS.
pub(crate) enum Source<'a, 'b> {
    /// The source layout's registers (`ds_write`), loaded as they are first needed.
    Registers(&'a mut Loader<'b>),
    /// Global memory straight into LDS: `buffer`, a dense row-major tensor of `shape`, loaded
    /// as the source layout's registers would hold it (direct-to-LDS loads, then a wait).
    Global {
        /// Index into [`Program::buffers`].
        buffer: usize,
        /// The tensor's shape.
        shape: &'a [u64],
    },
}

/// One conversion through LDS: the layouts, the round trip, where in LDS its tile lives
/// (`base`, a byte offset aligned to a power of two at least the tile's size, so that it is
/// `or`ed into the swizzled offsets), where the values come from and where they may go as they
/// are read.
pub(crate) struct Transfer<'a, 'b> {
    /// The layout the values are in.
    pub s: &'a Dist,
    /// The layout they are wanted in.
    pub d: &'a Dist,
    /// The shared layout and access widths.
    pub trip: Trip<'a>,
    /// Byte offset of the tile in LDS.
    pub base: u64,
    /// What fills LDS.
    pub source: Source<'a, 'b>,
    /// Where destination vectors are stored as soon as they are read, if anywhere.
    pub sink: Option<&'a mut Storer>,
}

/// The round trip (module docs); returns one value per destination register.
pub(crate) fn round_trip(
    p: &mut Program,
    s: &Dist,
    d: &Dist,
    trip: Trip,
    target: &Target,
    source: Source,
    sink: Option<&mut Storer>,
) -> Result<Vec<Value>, LowerError> {
    // Above the kernel's own buffers, aligned to the tile's size as `halves` wants it.
    let align = trip.lds_bytes.next_power_of_two().max(1);
    let t = Transfer {
        s,
        d,
        trip,
        base: p.lds_reserved.div_ceil(align) * align,
        source,
        sink,
    };
    round_trips(p, &mut [t], target)?
        .pop()
        .ok_or_else(|| LowerError::new("a round trip without a result"))
}

/// A transfer's accesses, planned.
struct Planned {
    writer: Side,
    reader: Side,
    /// Elements of a transposing read's chunk (log2), if the read transposes.
    chunk: Option<usize>,
    sbits: Vec<usize>,
    dbits: Vec<usize>,
    /// Solver of the destination's independent register columns: a position → its compact
    /// register.
    d_span: Echelon,
    shift: u32,
    bits: u32,
}

fn planned(t: &Transfer) -> Result<Planned, LowerError> {
    let (s, d, trip) = (t.s, t.d, &t.trip);
    let bits = trip.element_bits;
    let shared = Shared::of(trip.shared)?;
    let bytes = u64::from(bits / 8);
    let shift = bytes.trailing_zeros();
    let (sbits, _) = independent(&s.reg);
    let (dbits, d_span) = independent(&d.reg);
    let s_cols: Vec<u64> = sbits.iter().map(|&i| s.reg[i]).collect();
    let d_cols: Vec<u64> = dbits.iter().map(|&i| d.reg[i]).collect();
    let writer = side(&shared, &s_cols, &s.thread, trip.write_vector, "writer")?;
    // The reader: the destination itself, or the virtual layout of the transposing read.
    let (reader, chunk) = if trip.read_transposed {
        let e = (64 / bits).trailing_zeros() as usize;
        if d_cols.len() < e || s.lane_bits < 4 {
            return Err(LowerError::new(
                "a transposing read needs 64 bits of registers and 16 lanes",
            ));
        }
        let mut vreg: Vec<u64> = d.thread[..e].to_vec();
        vreg.extend_from_slice(&d_cols[e..]);
        let mut vthread: Vec<u64> = d.thread[e..4].to_vec();
        vthread.extend_from_slice(&d_cols[..e]);
        vthread.extend_from_slice(&d.thread[4..]);
        (side(&shared, &vreg, &vthread, 1 << e, "reader")?, Some(e))
    } else {
        (
            side(&shared, &d_cols, &d.thread, trip.read_vector, "reader")?,
            None,
        )
    };
    // A transposing read assembles each lane's chunk from 16 lanes: they must fetch the same
    // registers, so only thread bits above the 16-lane group may change round trips.
    if chunk.is_some() && reader.swap.iter().take(4).any(|&q| q != 0) {
        return Err(LowerError::new(
            "a transposing read whose lanes within a 16-lane group change round trips",
        ));
    }
    if matches!(t.source, Source::Global { .. }) && writer.swap.iter().any(|&q| q != 0) {
        return Err(LowerError::new(
            "a direct-to-LDS load cannot exchange registers between threads: the source's threads must take part in every round trip",
        ));
    }
    Ok(Planned {
        writer,
        reader,
        chunk,
        sbits,
        dbits,
        d_span,
        shift,
        bits,
    })
}

/// Several round trips at once, each in its own part of LDS ([`Transfer::base`]): in each
/// round, every transfer writes its tile, one barrier passes, every transfer reads its tile
/// back. Returns, per transfer, one value per destination register.
pub(crate) fn round_trips(
    p: &mut Program,
    transfers: &mut [Transfer],
    target: &Target,
) -> Result<Vec<Vec<Value>>, LowerError> {
    halves(p, transfers, target, Half::Both)
}

/// Which halves of a round trip to emit.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Half {
    /// Write, barrier, read.
    Both,
    /// The writes alone (a `ttg.local_store`): the tile must fit in one round.
    Write,
    /// The reads alone (a `ttg.local_load` of what earlier writes left; the caller fences).
    Read,
}

/// [`round_trips`], or one half of them.
pub(crate) fn halves(
    p: &mut Program,
    transfers: &mut [Transfer],
    target: &Target,
    half: Half,
) -> Result<Vec<Vec<Value>>, LowerError> {
    let mut top = 0u64;
    for t in transfers.iter() {
        let bytes = t.trip.lds_bytes.next_power_of_two();
        if t.base % bytes != 0 {
            return Err(LowerError::new(
                "a round trip's LDS tile is not aligned to its size",
            ));
        }
        top = top.max(t.base + t.trip.lds_bytes);
    }
    if top > target.lds_bytes {
        return Err(LowerError::new(format!(
            "the round trip needs {top} B of LDS; {} has {}",
            target.name, target.lds_bytes
        )));
    }
    p.lds_bytes = p.lds_bytes.max(top);
    let plans = transfers.iter().map(planned).collect::<Result<Vec<_>, _>>()?;
    let bottom = transfers.iter().map(|t| t.base).min().unwrap_or(0);
    let rounds = transfers.iter().map(|t| t.trip.reps).max().unwrap_or(0);
    if half != Half::Both && rounds > 1 {
        return Err(LowerError::new(
            "a tile written and read apart must fit in LDS in one round",
        ));
    }
    if half != Half::Read {
        p.fence_lds_reuse(bottom, top);
    }
    let mut write_memos: Vec<HashMap<(usize, u64), Value>> = vec![HashMap::new(); plans.len()];
    // What each read slot (compact destination register of thread 0's view) received.
    let mut compacts: Vec<Vec<Option<Value>>> =
        plans.iter().map(|x| vec![None; 1 << x.dbits.len()]).collect();
    let direct = transfers
        .iter()
        .any(|t| matches!(t.source, Source::Global { .. }));
    for rep in 0..rounds {
        if rep > 0 {
            p.ops.push(Op::Barrier);
        }
        let writers = if half == Half::Read { 0 } else { plans.len() };
        for ((x, t), memo) in plans
            .iter()
            .zip(transfers.iter_mut())
            .zip(&mut write_memos)
            .take(writers)
        {
            // Compact registers (bits over the non-zero register columns) as register indices.
            let full = |c: u64| expand_over(&x.sbits, c as usize);
            for (_, off, members) in x.writer.accesses.iter().filter(|a| a.0 == rep) {
                let mut address = XorMap {
                    cols: x.writer.thread.clone(),
                    constant: *off,
                }
                .shifted(x.shift);
                address.constant |= t.base;
                match &mut t.source {
                    Source::Registers(loader) => {
                        let mut src_value = |p: &mut Program, c: u64| loader.value(p, full(c));
                        let src = members
                            .iter()
                            .map(|&c| exchanged(p, &x.writer.swap, c, &mut src_value, memo))
                            .collect();
                        p.ops.push(Op::LdsWrite { src, address });
                    }
                    Source::Global { buffer, shape } => p.ops.push(Op::GlobalLoadToLds {
                        buffer: *buffer,
                        offset: t.s.offset(full(members[0]), shape),
                        elements: members.len() as u32,
                        address,
                    }),
                }
            }
        }
        if half == Half::Write {
            return Ok(Vec::new());
        }
        if direct {
            p.ops.push(Op::WaitDirectLoads);
        }
        if half == Half::Both {
            p.ops.push(Op::Barrier);
        }
        for ((x, t), compact) in plans.iter().zip(transfers.iter_mut()).zip(&mut compacts) {
            for (_, off, members) in x.reader.accesses.iter().filter(|a| a.0 == rep) {
                let mut address = XorMap {
                    cols: x.reader.thread.clone(),
                    constant: *off,
                }
                .shifted(x.shift);
                address.constant |= t.base;
                let dst = p.values_of(members.len(), x.bits);
                match x.chunk {
                    None => {
                        p.ops.push(Op::LdsRead {
                            dst: dst.clone(),
                            address,
                        });
                        for (&c, v) in members.iter().zip(dst) {
                            compact[c as usize] = Some(v);
                        }
                    }
                    Some(e) => {
                        p.ops.push(Op::LdsReadTransposed {
                            dst: dst.clone(),
                            address,
                        });
                        // Virtual registers above the chunk are destination registers e..;
                        // element j of the chunk is destination register j (its low e bits).
                        let high = members[0] >> e << e;
                        if members.iter().enumerate().any(|(j, &c)| c != high | j as u64) {
                            return Err(LowerError::new(
                                "the transposing read's chunk is not the destination's first registers",
                            ));
                        }
                        for (j, v) in dst.into_iter().enumerate() {
                            compact[(high | j as u64) as usize] = Some(v);
                        }
                    }
                }
            }
            // Without exchanges between threads a read register is final: store what is
            // complete.
            if let Some(sink) = t.sink.as_deref_mut()
                && x.reader.swap.iter().all(|&q| q == 0)
            {
                for (c, v) in compact.iter().enumerate() {
                    if let Some(v) = *v {
                        sink.offer(p, expand_over(&x.dbits, c), v);
                    }
                }
            }
        }
    }
    let mut out = Vec::with_capacity(plans.len());
    for ((x, t), compact) in plans.iter().zip(transfers.iter()).zip(compacts) {
        let slots = compact
            .into_iter()
            .collect::<Option<Vec<Value>>>()
            .ok_or_else(|| LowerError::new("a destination register was not read back"))?;
        let mut slot = |_: &mut Program, c: u64| slots[c as usize];
        let mut read_memo = HashMap::new();
        let compact: Vec<Value> = (0..slots.len() as u64)
            .map(|c| exchanged(p, &x.reader.swap, c, &mut slot, &mut read_memo))
            .collect();
        out.push(
            (0..t.d.registers())
                .map(|r| {
                    let c = x.d_span.solve(t.d.reg_position(r)).ok_or_else(|| {
                        LowerError::new("a destination register's element is in no register read back")
                    })?;
                    Ok(compact[c as usize])
                })
                .collect::<Result<Vec<Value>, LowerError>>()?,
        );
    }
    Ok(out)
}

/// The register bits whose columns are independent of the ones before them (zero columns
/// and repeats of other registers' elements left out): each distinct element of a thread
/// travels once. Returns those bits and the columns' solver (a position → the compact index
/// over those bits).
fn independent(reg: &[u64]) -> (Vec<usize>, Echelon) {
    let mut span = Echelon::new();
    let mut bits = Vec::new();
    for (i, &c) in reg.iter().enumerate() {
        if span.insert(c, bits.len() as u32) {
            bits.push(i);
        }
    }
    (bits, span)
}

/// The register index of a compact register (bits over `bits`).
fn expand_over(bits: &[usize], c: usize) -> usize {
    bits.iter()
        .enumerate()
        .filter(|&(k, _)| c >> k & 1 == 1)
        .fold(0, |a, (_, &b)| a | 1 << b)
}
