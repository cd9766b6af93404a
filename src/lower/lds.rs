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

use super::LowerError;
use super::dist::Dist;
use super::program::{Op, Program, Value};
use super::xor_map::XorMap;
use crate::heuristics::convert::SharedPlan;
use crate::linear::gf2::{Echelon, combine};
use crate::target::Target;

/// Inverse of the plan's shared layout: tensor position → (offset, reps).
struct Shared {
    solver: Echelon,
    offset_bits: usize,
}

impl Shared {
    fn of(plan: &SharedPlan) -> Result<Shared, LowerError> {
        let flat = plan.shared.flatten_outs()?;
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
    leaf: &dyn Fn(u64) -> Value,
    memo: &mut HashMap<(usize, u64), Value>,
) -> Value {
    fn go(
        p: &mut Program,
        bits: &[(u32, u64)],
        i: usize,
        acc: u64,
        leaf: &dyn Fn(u64) -> Value,
        memo: &mut HashMap<(usize, u64), Value>,
    ) -> Value {
        if i == bits.len() {
            return leaf(acc);
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

/// The round trip (module docs); returns one value per destination register.
pub(crate) fn round_trip(
    p: &mut Program,
    s: &Dist,
    d: &Dist,
    plan: &SharedPlan,
    bits: u32,
    target: &Target,
    src_vals: &[Value],
) -> Result<Vec<Value>, LowerError> {
    if plan.lds_bytes > target.lds_bytes {
        return Err(LowerError::new(format!(
            "the round trip needs {} B of LDS; {} has {}",
            plan.lds_bytes, target.name, target.lds_bytes
        )));
    }
    p.lds_bytes = p.lds_bytes.max(plan.lds_bytes);
    let shared = Shared::of(plan)?;
    let bytes = u64::from(bits / 8);
    let shift = bytes.trailing_zeros();
    let (sbits, _) = independent(&s.reg);
    let (dbits, d_span) = independent(&d.reg);
    let s_cols: Vec<u64> = sbits.iter().map(|&i| s.reg[i]).collect();
    let d_cols: Vec<u64> = dbits.iter().map(|&i| d.reg[i]).collect();
    let writer = side(&shared, &s_cols, &s.thread, plan.write.vector_elems, "writer")?;
    // The reader: the destination itself, or the virtual layout of the transposing read.
    let (reader, chunk) = if plan.read_transposed {
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
            side(&shared, &d_cols, &d.thread, plan.read.vector_elems, "reader")?,
            None,
        )
    };
    let src_value = |c: u64| -> Value {
        let full = sbits
            .iter()
            .enumerate()
            .filter(|&(k, _)| c >> k & 1 == 1)
            .fold(0, |a, (_, &b)| a | 1 << b);
        src_vals[full]
    };
    // A transposing read assembles each lane's chunk from 16 lanes: they must fetch the same
    // registers, so only thread bits above the 16-lane group may change round trips.
    if chunk.is_some() && reader.swap.iter().take(4).any(|&q| q != 0) {
        return Err(LowerError::new(
            "a transposing read whose lanes within a 16-lane group change round trips",
        ));
    }
    let mut write_memo = HashMap::new();
    // What each read slot (compact destination register of thread 0's view) received.
    let mut compact: Vec<Option<Value>> = vec![None; 1 << dbits.len()];
    for rep in 0..plan.reps {
        if rep > 0 {
            p.ops.push(Op::Barrier);
        }
        for (_, off, members) in writer.accesses.iter().filter(|a| a.0 == rep) {
            let address = XorMap {
                cols: writer.thread.clone(),
                constant: *off,
            }
            .shifted(shift);
            let src = members
                .iter()
                .map(|&c| exchanged(p, &writer.swap, c, &src_value, &mut write_memo))
                .collect();
            p.ops.push(Op::LdsWrite { src, address });
        }
        p.ops.push(Op::Barrier);
        for (_, off, members) in reader.accesses.iter().filter(|a| a.0 == rep) {
            let address = XorMap {
                cols: reader.thread.clone(),
                constant: *off,
            }
            .shifted(shift);
            let dst = p.values_of(members.len(), bits);
            match chunk {
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
                    // Virtual registers above the chunk are destination registers e..; element
                    // j of the chunk is destination register j (its low e bits).
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
    }
    let slots = compact
        .into_iter()
        .collect::<Option<Vec<Value>>>()
        .ok_or_else(|| LowerError::new("a destination register was not read back"))?;
    let slot = |c: u64| slots[c as usize];
    let mut read_memo = HashMap::new();
    let compact: Vec<Value> = (0..slots.len() as u64)
        .map(|c| exchanged(p, &reader.swap, c, &slot, &mut read_memo))
        .collect();
    (0..d.registers())
        .map(|r| {
            let c = d_span.solve(d.reg_position(r)).ok_or_else(|| {
                LowerError::new("a destination register's element is in no register read back")
            })?;
            Ok(compact[c as usize])
        })
        .collect()
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
