//! Atomics: `tt.atomic_rmw`, `amdg.buffer_atomic_rmw`, `tt.atomic_cas` and
//! `amdg.buffer_atomic_cas`, one atomic per element of the operand's layout — a global atomic
//! for the `tt` ops, a buffer atomic for the `amdg` ones, as Triton addresses them
//! ([`AtomicPath`]).
//!
//! An element that several threads or registers hold (a layout that broadcasts) is updated
//! once: only the first register holding it, in the threads whose broadcast bits are zero, act
//! — the others are masked, as a store's duplicates would be harmless but an add's are not —
//! and when the old values are used, every holder reads the acting thread's through LDS (a
//! ticket taken by `tl.atomic_add(counter, 1)` reaches the whole workgroup).
//! Masks, gathered addresses and bounds are those of any access.
//!
//! # Worked example
//!
//! Split-K: `tl.atomic_add(c_ptrs, acc, mask=c_mask)` of a 32×32 f32 tile in a blocked layout
//! of 256 threads is 4 `global_atomic_add_f32` per thread, each at its element's address (a
//! thread whose mask fails branches around it) — `buffer_atomic_add_f32` at its offset where
//! Triton made it `amdg.buffer_atomic_rmw` (an offset past the buffer where the mask fails) —
//! after a release fence and before an acquire fence at the device's scope (`sem = acq_rel,
//! scope = gpu`): the elements of one op are not ordered among themselves, so the four share
//! the fences.

use super::{Lowering, Sym, fail};
use crate::lower::error::LowerError;
use crate::lower::ir::{
    AtomicKind, AtomicNeighbour, AtomicOrdering, AtomicPath, AtomicScope, Extent, Op as ProgramOp, Predicate,
    Value, XorMap,
};
use crate::lower::plan::dist::Dist;
use crate::ttgir::{AttrValue, Op, attr};

/// A word attribute (`sem = acq_rel`) as text.
fn word<'a>(op: &'a Op, key: &str) -> Option<&'a str> {
    match attr(&op.attrs, key)? {
        AttrValue::Str(s) | AttrValue::Raw(s) => Some(s.as_str()),
        _ => None,
    }
}

impl Lowering<'_> {
    /// `tt.atomic_rmw %ptr, %value[, %mask]`, `amdg.buffer_atomic_rmw %value, %base[%offsets][,
    /// %mask]`, `tt.atomic_cas %ptr, %cmp, %value` and `amdg.buffer_atomic_cas %cmp, %value,
    /// %base[%offsets]`.
    pub(super) fn atomic(&mut self, op: &Op) -> Result<(), LowerError> {
        let cas = matches!(op.name.as_str(), "tt.atomic_cas" | "amdg.buffer_atomic_cas");
        let buffer_form = op.name.starts_with("amdg.");
        // Operand positions: the value, the comparand, and the base's (its offsets follow it).
        let (value, cmp, base) = match (cas, buffer_form) {
            (true, false) => (2, Some(1), 0),
            (true, true) => (1, Some(0), 2),
            (false, true) => (0, None, 1),
            (false, false) => (1, None, 0),
        };
        if op.operands.len() <= value {
            return fail(op, "has too few operands");
        }
        let kind = if cas {
            AtomicKind::Cas
        } else {
            let name = word(op, "atomic_rmw_op").or(op.keyword.as_deref()).unwrap_or("");
            AtomicKind::parse(name).map_or_else(|| fail(op, format!("no atomic `{name}`")), Ok)?
        };
        let ordering = match word(op, "sem") {
            None => AtomicOrdering::AcqRel,
            Some(s) => AtomicOrdering::parse(s).map_or_else(|| fail(op, format!("no ordering `{s}`")), Ok)?,
        };
        let scope = match word(op, "scope") {
            None => AtomicScope::Gpu,
            Some(s) => AtomicScope::parse(s).map_or_else(|| fail(op, format!("no scope `{s}`")), Ok)?,
        };
        let data = op.operands[value];
        let element = self.m.values[data].ty.element.clone();
        let path = if buffer_form {
            AtomicPath::Buffer
        } else {
            AtomicPath::Global
        };
        let Some(ty) = super::data::numeric_type(&element).filter(|t| kind.applies_to(t, path)) else {
            return fail(op, format!("an atomic {kind:?} of {element} is not lowered"));
        };
        let rank = self.rank(data);
        let address = if buffer_form {
            self.base_and_offsets(op, base, base + 1, rank)?
        } else {
            self.address_parts(op, base, rank)?
        };
        let (buffer, mut addressing) =
            self.addressing(op, address.buffer, address.constant, &address.coef)?;
        if self.p.buffers[buffer].element_bits != self.bits(op, data)? {
            return fail(op, "updates elements of another width than the pointer's");
        }
        let layout = self.layout(op, data)?;
        if addressing.strides.len() != rank {
            return fail(op, "the address has another rank than the value");
        }
        self.attach_index(op, &mut addressing, address.data, &layout)?;
        let masking = self.bounds(op, &layout)?;
        addressing.bounds = masking.bounds;
        addressing.when = masking.when;
        addressing.predicate = masking.predicate;
        // Loads of the buffer not issued yet read it before the atomics, as the program says.
        self.issue_loads_of(op, buffer, data)?;
        let (_, values) = self.typed_data(op, data)?;
        let comparands = match cmp {
            Some(c) => Some(self.typed_data(op, op.operands[c])?.1),
            None => None,
        };
        let s = Dist::of(&layout, self.target.wave_size)?;
        let first_holder = self.first_holder(&s);
        let used = op.results.first().is_some_and(|&r| self.users[r] > 0);
        let distinct = s.distinct_mask();
        // The pointers' AxisInfo: runs of at least two consecutive elements, the first of
        // each 4-byte aligned.
        let aligned_pairs = self
            .axis
            .get(op.operands[0])
            .and_then(Option::as_ref)
            .is_some_and(|i| i.alignment(i.contiguity.len().saturating_sub(1), 2) >= 2);
        let paired = kind == AtomicKind::FAdd
            && path == AtomicPath::Global
            && matches!(ty, "f16" | "bf16")
            && aligned_pairs
            && pairs_registers(&s, &addressing);
        let skipped = |r: usize| r & distinct != r || (paired && r & 1 == 1);
        // The elements of one op are not ordered among themselves: the release orders what
        // came before the first of them, the acquire what comes after the last.
        let acting = (0..s.registers()).filter(|&r| !skipped(r)).count();
        let ordering_of = |k: usize| {
            let release = k == 0 && matches!(ordering, AtomicOrdering::Release | AtomicOrdering::AcqRel);
            let acquire =
                k + 1 == acting && matches!(ordering, AtomicOrdering::Acquire | AtomicOrdering::AcqRel);
            match (release, acquire) {
                (true, true) => AtomicOrdering::AcqRel,
                (true, false) => AtomicOrdering::Release,
                (false, true) => AtomicOrdering::Acquire,
                (false, false) => AtomicOrdering::Relaxed,
            }
        };
        let mut issued = 0;
        let mut old = Vec::with_capacity(s.registers());
        for r in 0..s.registers() {
            let kept = r & distinct;
            if kept != r {
                old.push(old[kept]);
                continue;
            }
            if paired && r & 1 == 1 {
                // Updated with its even neighbour, whose old values came first.
                continue;
            }
            let mut offset = s.strided_offset(r, &addressing);
            offset.predicate = self.holder_predicate(first_holder, offset.predicate);
            let dst = used.then(|| self.p.value(self.p.value_bits(values[r])));
            let neighbour = if paired {
                let predicate = s.strided_offset(r + 1, &addressing).predicate;
                Some(AtomicNeighbour {
                    src: values[r + 1],
                    dst: used.then(|| self.p.value(self.p.value_bits(values[r + 1]))),
                    predicate: self.holder_predicate(first_holder, predicate),
                })
            } else {
                None
            };
            old.push(dst.unwrap_or(values[r]));
            if let Some(n) = &neighbour {
                old.push(n.dst.unwrap_or(n.src));
            }
            self.p.ops.push(ProgramOp::GlobalAtomic {
                dst,
                src: values[r],
                cmp: comparands.as_ref().map(|c| c[r]),
                buffer,
                offset,
                kind,
                ty,
                ordering: ordering_of(issued),
                scope,
                path,
                neighbour,
            });
            issued += 1;
        }
        if used {
            if first_holder.is_some() {
                old = self.broadcast_first_holder(&s, &old)?;
            }
            self.define(
                op,
                Sym::Data {
                    layout: Box::new(layout),
                    values: old,
                },
            )?;
        }
        Ok(())
    }

    /// `values` as the first holder of each element has them, in every thread holding it: each
    /// thread writes its own to its LDS slot, a barrier, and each reads the slot of the thread
    /// whose broadcast bits are zero (the one whose atomic ran).
    /// An element's predicate combined with the first holder's (`first`, where the layout
    /// broadcasts): the element acts in the first thread holding it only.
    fn holder_predicate(&mut self, first: Option<Value>, predicate: Option<Value>) -> Option<Value> {
        let Some(first) = first else {
            return predicate;
        };
        Some(self.and_predicates(predicate, first))
    }

    fn broadcast_first_holder(&mut self, s: &Dist, values: &[Value]) -> Result<Vec<Value>, LowerError> {
        let threads = 1u64 << s.thread.len();
        let (slots, size) = super::reduce::slot_regions(&self.p, values, threads);
        let base = self.allocate(size)?;
        self.p.fence_lds_reuse(base, base + size);
        let own = |(offset, bytes): (u64, u64)| XorMap {
            cols: (0..s.thread.len()).map(|k| (1u64 << k) * bytes).collect(),
            constant: base + offset,
        };
        for (&v, &slot) in values.iter().zip(&slots) {
            self.p.ops.push(ProgramOp::LdsWrite {
                src: vec![v],
                address: own(slot),
            });
        }
        self.p.ops.push(ProgramOp::Barrier);
        let mut out = Vec::with_capacity(values.len());
        for (&v, &slot) in values.iter().zip(&slots) {
            let mut first = own(slot);
            for (k, &c) in s.thread.iter().enumerate() {
                if c == 0 {
                    first.cols[k] = 0;
                }
            }
            let dst = self.p.value(self.p.value_bits(v));
            self.p.ops.push(ProgramOp::LdsRead {
                dst: vec![dst],
                address: first,
            });
            out.push(dst);
        }
        Ok(out)
    }

    /// Per thread, whether it is the first of the threads holding the same elements (its
    /// broadcast bits — thread bits the layout does not move along — all zero); `None` when
    /// no two threads hold the same element.
    pub(super) fn first_holder(&mut self, s: &Dist) -> Option<Value> {
        let broadcast: Vec<u64> = s.thread.iter().map(|&c| u64::from(c == 0)).collect();
        if broadcast.iter().all(|&b| b == 0) {
            return None;
        }
        // The thread id's broadcast bits, compared with zero.
        let map = XorMap {
            cols: broadcast.iter().enumerate().map(|(k, &b)| b << k).collect(),
            constant: 0,
        };
        Some(self.p.thread_test(map, Predicate::Eq, 0))
    }
}

/// Whether each even register's element and the next register's are one aligned pair of
/// the pointers' runs of two (which their AxisInfo proves), bounded alike: register bit 0 steps
/// one element along the last dimension, every other register and thread column an even
/// number of elements there (so each even register sits at the start of a run), and that
/// dimension's bound (if any) is even.
fn pairs_registers(s: &Dist, a: &crate::lower::plan::dist::Addressing) -> bool {
    let (Some(&step), Some(d)) = (s.reg.first(), s.dim_bits.len().checked_sub(1)) else {
        return false;
    };
    let even = |e: &Extent| match *e {
        Extent::Elements(k) => k.is_multiple_of(2),
        Extent::Scalar { times, .. } => times.is_multiple_of(2),
    };
    (0..=d).all(|k| s.coord(step, k) == u64::from(k == d))
        && s.reg[1..]
            .iter()
            .chain(&s.thread)
            .all(|&c| s.coord(c, d).is_multiple_of(2))
        && a.bounds.get(d).is_some_and(|b| b.as_ref().is_none_or(even))
}
